#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# How often a program that changes its own scheduling first thing after
# exec loses the change to latniced's apply step, idle and with every CPU
# busy.
#
#   bench/self-change-race.sh LATNICED LN_RACE [RUNS]                (root)
#
# Starts LATNICED on a temporary policy with Policy=batch for
# "lt-race-fifo" and Policy=batch with LatencyNice=-5 for "lt-race-nice",
# then runs LN_RACE (tests/helpers/ln-race) RUNS times (default 1500) in
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
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "self-change-race: RUNS: expected a number, got \"$RUNS\"" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "self-change-race: needs root" >&2; exit 77; }
# The machine it runs on, first (bench/machine.sh, docs/benchmarks.md).
bash "$(dirname "$0")/machine.sh" "$(dirname "$LATNICED")/../cli/latnicectl"

T=$(mktemp -d)
BUSY=()
D=
. "$(dirname "$0")/daemon-lib.sh"

mkdir "$T/pol"
cat >"$T/pol/50-race.policy" <<'P'
[Rule race-fifo]
Match = name:lt-race-fifo
Policy = batch

[Rule race-nice]
Match = name:lt-race-nice
Policy = batch
LatencyNice = -5
P

setpriv --pdeathsig TERM -- "$LATNICED" --bus none --config /dev/null --policy-dir "$T/pol" \
        --log-level notice --state-file "$T/state" 2>"$T/log" &
D=$!
# Ready once it applies the rule to a process (the kernel's policy, batch).
( exec -a lt-race-fifo sleep 60 ) &
probe=$!
ready=0
for _ in $(seq 600); do
        [ "$(ps -o cls= -p "$probe" | tr -d ' ')" = B ] && { ready=1; break; }
        running "$D" || break
        sleep 0.05
done
kill "$probe"
wait "$probe" 2>/dev/null || true
if [ $ready -eq 0 ]; then
        echo "self-change-race: latniced did not apply its rule within 30 s:" >&2
        cat "$T/log" >&2
        exit 1
fi

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
for _ in $(seq "$(nproc)"); do
        setpriv --pdeathsig KILL -- bash -c 'while :; do :; done' &
        BUSY+=($!)
done
run busy
for p in "${BUSY[@]}"; do kill "$p"; done
BUSY=()
