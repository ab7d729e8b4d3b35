#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# How often a program that changes its own scheduling first thing after
# exec loses the change to latniced's apply step, idle and with every CPU
# busy.
#
#   bench/self-change-race.sh LATNICED LN_RACE [RUNS]                (root)
#
# Starts LATNICED on a temporary policy with Policy=batch for
# "lt-race-fifo" and Policy=batch with LatencyNice=-5 for "lt-race-nice"
# (tests/helpers/race.policy, daemon-race's), then runs LN_RACE (tests/helpers/ln-race) RUNS times (default 1500) in
# each mode: programs that make themselves SCHED_FIFO (fifo) or call
# setpriority(15) (nice) after a spin spread over 300 us, so that the change
# lands everywhere in latniced's reaction. A run is lost when the program's
# own change did not survive (read back by the program with
# sched_getattr()). latniced reads the thread again right before it writes
# (guard_fair()), so what is left is a gap of two system calls ("Races with
# the task" in daemon/apply/apply.c); how often a run falls into it depends
# on how often latniced is preempted there, which is why it is measured
# here and not asserted in a test. Prints one line per mode and condition,
# with the load average at its end: "fifo idle: runs 1500 lost 0 load 0.4".
#
# latniced runs under setpriv --pdeathsig TERM, so it goes with this script
# even when the script is SIGKILLed; every other exit path sends it SIGTERM.
set -euo pipefail
LATNICED=${1:?latniced}
RACE=${2:?ln-race}
RUNS=${3:-1500}
here=$(dirname "$0")
bench_name=self-change-race
# shellcheck source=bench/bench-lib.sh
. "$here/bench-lib.sh"
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "self-change-race: RUNS: expected a number, got \"$RUNS\"" >&2; exit 2; }
bench_daemon_begin "$LATNICED"
cp "$here/../tests/helpers/race.policy" "$T/pol/50-race.policy"
bench_daemon_start "$LATNICED"
# Ready once it applies the rule to a process (the kernel's policy, batch).
bench_daemon_ready lt-race-fifo cls B 30

run() { # condition
        local mode lost rc
        for mode in fifo nice; do
                rc=0
                "$RACE" --mode "$mode" --runs "$RUNS" --argv0 "lt-race-$mode" --spread-us 300 \
                        >"$T/$mode.out" || rc=$?
                [ $rc -eq 3 ] && { echo "self-change-race: ln-race could not make the change" >&2; exit 1; }
                lost=$(sed -n 's/^runs=[0-9]* lost=\([0-9]*\)$/\1/p' "$T/$mode.out")
                [ -n "$lost" ] || { echo "self-change-race: ln-race printed no count" >&2; exit 1; }
                echo "$mode $1: runs $RUNS lost $lost load $(cut -d' ' -f1 /proc/loadavg)"
        done
}

echo "kernel $(uname -r), $(nproc) CPUs, $RUNS runs per mode"
run idle
bench_busy_start
run busy
bench_busy_stop
