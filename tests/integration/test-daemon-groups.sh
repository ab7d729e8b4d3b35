#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Group settings of rules (CPUIdle=, CPUWeight=, CPULatencyNice= in a
# [Rule]) on the real kernel: the v1 cpu hierarchy's cgroup of a matched
# process (cpu.idle, cpu.shares; CPULatencyNice= said once to be unsupported
# where the kernel has no cpu.latency.nice), its autogroup
# (/proc/PID/autogroup nice), a root group left alone, protection by a
# latency-sensitive process and by one that boosts its group, a matched
# process that turns latency-sensitive in its group and back (same pid),
# ownership (the group is restored when the last matched process
# exits and on latniced's exit; a change by someone else is theirs), and
# latnicectl explain naming the group and its other members, and crash
# safety (latniced killed while a group is changed: the next one gives the
# original back, or leaves a group someone else changed). Results are
# read from the cgroup files and /proc, never from the daemon.
#   test-daemon-groups.sh LATNICED LN-SPAWN LN-GETATTR LATNICECTL
. "$(dirname "$0")/test-daemon-lib.sh" "$@"
LATNICECTL=${4:?latnicectl path}

CPU=$(awk '$3 == "cgroup" && $4 ~ /(^|,)cpu(,|$)/ { print $2; exit }' /proc/self/mounts)
AUTOGROUP=$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null || echo 0)
[ -n "$CPU" ] || [ "$AUTOGROUP" = 1 ] || { echo "SKIP: no v1 cpu hierarchy and no autogroup"; exit 77; }

cat >"$POL/50-groups.policy" <<'P'
[Rule idle-group]
Match = name:lngrp-idle
CPUIdle = yes

[Rule light-group]
Match = name:lngrp-light
CPUWeight = 50

[Rule plain]
Match = name:lngrp-plain
Nice = 3

[Rule sensitive]
Match = name:lngrp-audio
Nice = -5

[Rule booster]
Match = name:lngrp-boost
CPULatencyNice = -5

[Rule latency-group]
Match = name:lngrp-lat
CPULatencyNice = 7
CPUIdle = yes
Nice = 4
P

run() { # name: a sleeper named NAME in its own session
        setsid bash -c 'exec -a "$0" sleep 300' "$1" &
        RUN_PID=$!
        PIDS+=("$RUN_PID")
        wait_until 5 eval '[ "$(cat /proc/$RUN_PID/comm)" = sleep ]' || fail "could not start $1"
}
ag_nice() { sed -n 's/.* nice \(-\?[0-9]*\)$/\1/p' "/proc/$1/autogroup"; }
# session_read SID NAME: wait until the process of session SID named NAME
# (argv[0]; the other one of the session) has exec'd, then until latniced
# has read both execs: a process started after them that a rule matches
# (lngrp-plain) is applied (events are read in order). A busy machine may
# run the session's background exec after its 0.3 s sleep (an order a test
# that slept 0.5 s and then looked took for granted); whichever order,
# latniced's answer is final once both are read.
in_session() { pgrep -s "$1" -f "^$2 " >/dev/null; }
session_read() {
        wait_until 5 in_session "$1" "$2" || fail "$2 of session $1 did not start"
        run lngrp-plain
        wait_until 5 attr_is "$RUN_PID" nice 3 || fail "latniced did not read a process started after $2"
        kill -KILL "$RUN_PID"
}

start_daemon

if [ -n "$CPU" ]; then
        G=$CPU/latnice-test-$$
        mkdir "$G"
        trap 'for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done; sleep 0.1; rmdir "$G" 2>/dev/null; cleanup' EXIT
        # A group with a process of its own (the "shell") and the matched one.
        sleep 300 &
        other=$!
        PIDS+=("$other")
        echo "$other" >"$G/cgroup.procs"
        bash -c 'echo $$ > "$1/cgroup.procs"; exec -a lngrp-idle sleep 300' _ "$G" &
        m1=$!
        PIDS+=("$m1")
        wait_until 5 eval '[ "$(cat $G/cpu.idle)" = 1 ]' || fail "v1: cpu.idle of $G is $(cat "$G/cpu.idle"), expected 1"
        echo "ok: v1 cpu cgroup: cpu.idle 1"
        out=$("$LATNICECTL" explain --policy-dir "$POL" "$m1" 2>&1)
        echo "$out" | grep -q "latnice-test-$$" || fail "explain does not name the group: $out"
        echo "$out" | grep -q "also holds.*$other" || fail "explain does not name the group's other member $other: $out"
        echo "ok: explain names the group and its other member"
        # A second matched process in the same group: the group stays until both are gone.
        bash -c 'echo $$ > "$1/cgroup.procs"; exec -a lngrp-idle sleep 300' _ "$G" &
        m2=$!
        PIDS+=("$m2")
        sleep 0.3
        kill -KILL "$m1"; wait "$m1" 2>/dev/null
        sleep 0.3
        [ "$(cat "$G/cpu.idle")" = 1 ] || fail "v1: group restored while a matched process is still in it"
        kill -KILL "$m2"; wait "$m2" 2>/dev/null
        wait_until 5 eval '[ "$(cat $G/cpu.idle)" = 0 ]' || fail "v1: cpu.idle not restored after the last matched process exited"
        [ "$(cat "$G/cpu.shares")" = 1024 ] || fail "v1: cpu.shares not restored: $(cat "$G/cpu.shares")"
        echo "ok: v1: restored when the last matched process exited"
        # Someone else changes the group: theirs.
        bash -c 'echo $$ > "$1/cgroup.procs"; exec -a lngrp-idle sleep 300' _ "$G" &
        m3=$!
        PIDS+=("$m3")
        wait_until 5 eval '[ "$(cat $G/cpu.idle)" = 1 ]' || fail "v1: not applied again"
        echo 0 >"$G/cpu.idle"
        echo 2048 >"$G/cpu.shares"
        reload_daemon
        kill -KILL "$m3"; wait "$m3" 2>/dev/null
        sleep 0.5
        [ "$(cat "$G/cpu.shares")" = 2048 ] || fail "v1: a change by someone else was overwritten: $(cat "$G/cpu.shares")"
        [ "$(cat "$G/cpu.idle")" = 0 ] || fail "v1: a group someone else changed was made idle again"
        echo 1024 >"$G/cpu.shares"
        echo "ok: v1: a group changed by someone else is left alone"
        # nobody's process named like the rule, in a group that also holds
        # root's: the group is not nobody's to demote.
        "${NOBODY[@]}" \
                bash -c 'exec -a lngrp-idle sleep 300' &
        m5=$!
        PIDS+=("$m5")
        echo "$m5" >"$G/cgroup.procs"
        wait_until 5 eval '[ "$(cat /proc/$m5/comm)" = sleep ]' || fail "could not start nobody's lngrp-idle"
        kill -HUP "$DAEMON"   # evaluate it again, now that it is in the group
        wait_until 5 grep -q "latnice-test-$$ holds processes of other users" "$LOG" ||
                fail "v1: no note that the group is shared with other users"
        [ "$(cat "$G/cpu.idle")" = 0 ] || fail "v1: nobody's process made a group shared with root idle"
        kill -KILL "$m5"; wait "$m5" 2>/dev/null
        echo "ok: v1: a group shared with other users is not changed for an unprivileged match"
        # A weight.
        bash -c 'echo $$ > "$1/cgroup.procs"; exec -a lngrp-light sleep 300' _ "$G" &
        m4=$!
        PIDS+=("$m4")
        wait_until 5 eval '[ "$(cat $G/cpu.shares)" = 512 ]' ||
                fail "v1: cpu.shares $(cat "$G/cpu.shares"), expected 512 (CPUWeight 50)"
        kill -KILL "$m4"; wait "$m4" 2>/dev/null
        wait_until 5 eval '[ "$(cat $G/cpu.shares)" = 1024 ]' || fail "v1: cpu.shares not restored"
        echo "ok: v1: CPUWeight=50 is cpu.shares 512, restored after"
        # The group's only matched process changes its role (it execs:
        # same pid, same start time, same group): requester, then
        # latency-sensitive, then requester again, as a focused app that
        # loses the focus and gets it back. latniced once freed the group's
        # entry at the first change while the process still pointed to it,
        # and aborted at the next (free() of a freed entry's path).
        cat >"$T/roles" <<'S'
# roles FIFO NAME...: on each line from FIFO, exec as the next NAME (the last: sleep)
# (until a line: a writer still open from the last line gives an EOF first)
until read -r _ <"$1"; do :; done
f=$1 n=$2
shift 2
[ $# -gt 0 ] && exec -a "$n" bash "$0" "$f" "$@"
exec -a "$n" sleep 300
S
        mkfifo "$T/roles.fifo"
        bash -c 'echo $$ > "$1/cgroup.procs"; exec -a lngrp-light bash "$2" "$3" lngrp-audio lngrp-light' \
                _ "$G" "$T/roles" "$T/roles.fifo" &
        m6=$!
        PIDS+=("$m6")
        wait_until 5 eval '[ "$(cat $G/cpu.shares)" = 512 ]' ||
                fail "roles: cpu.shares $(cat "$G/cpu.shares"), expected 512 for lngrp-light"
        echo >"$T/roles.fifo"
        wait_until 5 attr_is "$m6" nice -5 || fail "roles: lngrp-audio not applied after the exec"
        wait_until 5 eval '[ "$(cat $G/cpu.shares)" = 1024 ]' ||
                fail "roles: a group whose process turned latency-sensitive still demoted: $(cat "$G/cpu.shares")"
        echo >"$T/roles.fifo"
        wait_until 5 eval '[ "$(cat /proc/$m6/comm)" = sleep ]' || fail "roles: the last exec did not come"
        wait_until 5 eval '[ "$(cat $G/cpu.shares)" = 512 ]' ||
                fail "roles: cpu.shares $(cat "$G/cpu.shares") after the process asked for CPUWeight=50 again, expected 512"
        kill -0 "$DAEMON" 2>/dev/null || fail "roles: latniced died"
        kill -KILL "$m6"; wait "$m6" 2>/dev/null
        wait_until 5 eval '[ "$(cat $G/cpu.shares)" = 1024 ]' || fail "roles: cpu.shares not restored"
        kill -0 "$DAEMON" 2>/dev/null || fail "roles: latniced died"
        echo "ok: v1: a process that turns latency-sensitive in its group and back: not demoted, then demoted again, restored after"
        # CPULatencyNice= where the kernel has no cpu.latency.nice (6.18 here;
        # the patched kernel is checked in kernel/vm-test daemon-groups): said
        # once, naming the group and why, and the rule's other settings apply.
        L=$CPU/latnice-test-lat-$$
        mkdir "$L"
        trap 'for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done; sleep 0.1; rmdir "$G" "$L" 2>/dev/null; cleanup' EXIT
        for grp in "$G" "$L"; do
                bash -c 'echo $$ > "$1/cgroup.procs"; exec -a lngrp-lat sleep 300' _ "$grp" &
                lp=$!
                PIDS+=("$lp")
                lat_pids+=("$lp")
                wait_until 5 eval '[ "$(cat $grp/cpu.idle)" = 1 ]' ||
                        fail "CPULatencyNice: cpu.idle of $grp is $(cat "$grp/cpu.idle"), the rule's CPUIdle=yes not applied"
                wait_until 5 attr_is "$lp" nice 4 || fail "CPULatencyNice: the rule's Nice=4 not applied"
        done
        if [ -e "$G/cpu.latency.nice" ]; then
                [ "$(cat "$G/cpu.latency.nice")" = 7 ] ||
                        fail "CPULatencyNice: cpu.latency.nice of $G is $(cat "$G/cpu.latency.nice"), expected 7"
                echo "ok: v1: CPULatencyNice=7 is cpu.latency.nice 7 (this kernel has it)"
        else
                wait_until 5 grep -q "CPULatencyNice=7 for [0-9]*: not applied to cgroup (v1 cpu) /latnice-test-[-a-z0-9]*: not supported by this kernel" "$LOG" ||
                        fail "CPULatencyNice: no notice that this kernel has no cpu.latency.nice: $(grep CPULatencyNice "$LOG")"
                n=$(grep -c "CPULatencyNice=.*not supported by this kernel" "$LOG")
                [ "$n" = 1 ] || fail "CPULatencyNice: the kernel's lack said $n times, expected once"
                out=$("$LATNICECTL" explain --policy-dir "$POL" "${lat_pids[0]}" 2>&1)
                echo "$out" | grep -q "CPULatencyNice= does not reach it: not supported by this kernel" ||
                        fail "CPULatencyNice: explain does not say why: $out"
                echo "ok: v1: CPULatencyNice= without cpu.latency.nice: said once (and by explain), the rule's CPUIdle= and Nice= apply"
        fi
        for p in "${lat_pids[@]}"; do kill -KILL "$p"; wait "$p" 2>/dev/null; done
        wait_until 5 eval '[ "$(cat $G/cpu.idle) $(cat $L/cpu.idle)" = "0 0" ]' ||
                fail "CPULatencyNice: cpu.idle not restored after the processes exited"
        rmdir "$L"
fi

if [ "$AUTOGROUP" = 1 ]; then
        run lngrp-idle
        a=$RUN_PID
        wait_until 5 eval '[ "$(ag_nice $a)" = 19 ]' || fail "autogroup: nice $(ag_nice "$a"), expected 19"
        echo "ok: autogroup $(cut -d' ' -f1 /proc/$a/autogroup): nice 19"
        run lngrp-plain
        wait_until 5 attr_is "$RUN_PID" nice 3 || fail "plain rule not applied"
        [ "$(ag_nice "$RUN_PID")" = 0 ] || fail "a rule without group settings changed its autogroup"
        echo "ok: a rule without group settings leaves the group alone"
        # A latency-sensitive process and a build in one session: the
        # group is not demoted, whichever comes first.
        setsid bash -c '(exec -a lngrp-audio sleep 300) & sleep 0.3; exec -a lngrp-idle sleep 300' \
                >/dev/null 2>&1 &
        s1=$!
        PIDS+=("$s1")
        wait_until 5 eval '[ "$(cat /proc/$s1/comm 2>/dev/null)" = sleep ]' || fail "could not start the session"
        session_read "$s1" lngrp-audio
        wait_until 5 eval '[ "$(ag_nice $s1)" = 0 ]' ||
                fail "autogroup with a latency-sensitive process demoted to $(ag_nice "$s1")"
        setsid bash -c '(exec -a lngrp-idle sleep 300) & sleep 0.5; exec -a lngrp-audio sleep 300' \
                >/dev/null 2>&1 &
        s3=$!
        PIDS+=("$s3")
        wait_until 5 attr_is "$s3" nice -5 || fail "lngrp-audio not applied"
        wait_until 5 eval '[ "$(ag_nice $s3)" = 0 ]' ||
                fail "autogroup demoted before the latency-sensitive process came was not restored: $(ag_nice "$s3")"
        # The sessions' other sleepers are not children of this shell.
        pkill -KILL -s "$s1"
        pkill -KILL -s "$s3"
        echo "ok: a group with a latency-sensitive process is not demoted (before or after)"
        # A process that asks a boost of its own group (CPULatencyNice=-5,
        # which an autogroup cannot take) protects it the same way, and
        # undoes a demotion of before.
        setsid bash -c '(exec -a lngrp-boost sleep 300) & sleep 0.3; exec -a lngrp-idle sleep 300' \
                >/dev/null 2>&1 &
        s5=$!
        PIDS+=("$s5")
        wait_until 5 eval '[ "$(cat /proc/$s5/comm 2>/dev/null)" = sleep ]' || fail "could not start the session"
        session_read "$s5" lngrp-boost
        wait_until 5 eval '[ "$(ag_nice $s5)" = 0 ]' || fail "autogroup with a booster demoted to $(ag_nice "$s5")"
        setsid bash -c '(exec -a lngrp-idle sleep 300) & sleep 0.5; exec -a lngrp-boost sleep 300' \
                >/dev/null 2>&1 &
        s6=$!
        PIDS+=("$s6")
        wait_until 5 eval '[ "$(cat /proc/$s6/comm 2>/dev/null)" = sleep ]' || fail "could not start the session"
        wait_until 5 eval '[ "$(ag_nice $s6)" = 0 ]' ||
                fail "autogroup demoted before a booster came was not given back: $(ag_nice "$s6")"
        pkill -KILL -s "$s5"
        pkill -KILL -s "$s6"
        echo "ok: a group whose process asks to boost it (CPULatencyNice=-5) is not demoted (before or after)"
fi

# latniced's own session group (the test's) is never touched: nothing here asks.
stop_daemon TERM || fail "latniced did not exit cleanly"
if [ "$AUTOGROUP" = 1 ]; then
        [ "$(ag_nice "$a")" = 0 ] || fail "autogroup nice not restored on exit: $(ag_nice "$a")"
        echo "ok: autogroup restored on exit"
fi

# ---- Crash safety: latniced killed with SIGKILL while a group is changed.
# The next latniced (same state file) takes the original from the file,
# never what the dead one wrote: with the rule kept it manages the group and
# gives the original back on a clean stop; with the rule removed it gives it
# back after its first scan that evaluated every process (at start-up, or a
# second later when a busy machine made it put an evaluation off); a group changed while no latniced ran is left alone.
kill_daemon() {
        kill -KILL "$DAEMON"
        wait "$DAEMON" 2>/dev/null
        DAEMON=
}
crash_rule() {
        cat >"$POL/60-crash.policy" <<'P'
[Rule crash-group]
Match = name:lngrp-crash
CPUIdle = yes
P
}
if [ -n "$CPU" ]; then
        bash -c 'echo $$ > "$1/cgroup.procs"; exec -a lngrp-crash sleep 300' _ "$G" &
        c1=$!
        PIDS+=("$c1")
        g_is() { [ "$(cat "$G/cpu.idle") $(cat "$G/cpu.shares")" = "$1" ]; }
        idle_is() { [ "$(cat "$G/cpu.idle")" = "$1" ]; } # an idle group's shares are the kernel's
        g_is "0 1024" || fail "crash v1: $G does not start at cpu.idle 0, cpu.shares 1024"
        crash_rule
        start_daemon
        wait_until 5 idle_is 1 || fail "crash v1: cpu.idle not set"
        kill_daemon
        start_daemon # rule kept
        sleep 0.5
        idle_is 1 || fail "crash v1: the restarted latniced changed the group: $(cat "$G/cpu.idle")"
        stop_daemon TERM || fail "crash v1: latniced did not exit 0"
        g_is "0 1024" || fail "crash v1: rule kept, after a stop the group is $(cat "$G/cpu.idle") $(cat "$G/cpu.shares"), expected its original 0 1024"
        echo "ok: crash v1: kill -9, restart with the rule, stop: cpu.idle 0 back"
        start_daemon
        wait_until 5 idle_is 1 || fail "crash v1: cpu.idle not set again"
        kill_daemon
        rm "$POL/60-crash.policy"
        start_daemon # rule removed: back after the first complete scan
        wait_until 10 g_is "0 1024" || fail "crash v1: rule removed, after the restart the group is $(cat "$G/cpu.idle") $(cat "$G/cpu.shares")"
        stop_daemon TERM || fail "crash v1: latniced did not exit 0"
        echo "ok: crash v1: kill -9, restart with the rule removed: cpu.idle 0 back at start-up"
        crash_rule
        start_daemon
        wait_until 5 idle_is 1 || fail "crash v1: cpu.idle not set a third time"
        kill_daemon
        echo 0 >"$G/cpu.idle" # someone else, while no latniced runs
        echo 2048 >"$G/cpu.shares"
        rm "$POL/60-crash.policy"
        start_daemon
        stop_daemon TERM || fail "crash v1: latniced did not exit 0"
        g_is "0 2048" || fail "crash v1: a group changed while no latniced ran was not left alone: $(cat "$G/cpu.idle") $(cat "$G/cpu.shares")"
        echo 0 >"$G/cpu.idle"
        echo 1024 >"$G/cpu.shares"
        echo "ok: crash v1: a group changed while no latniced ran is left alone"
        kill -KILL "$c1"; wait "$c1" 2>/dev/null
fi

if [ "$AUTOGROUP" = 1 ]; then
        run lngrp-crash
        c2=$RUN_PID
        [ "$(ag_nice "$c2")" = 0 ] || fail "crash autogroup: does not start at nice 0"
        crash_rule
        start_daemon
        wait_until 5 eval '[ "$(ag_nice $c2)" = 19 ]' || fail "crash autogroup: nice 19 not set"
        kill_daemon
        start_daemon # rule kept
        stop_daemon TERM || fail "crash autogroup: latniced did not exit 0"
        [ "$(ag_nice "$c2")" = 0 ] || fail "crash autogroup: rule kept, after a stop nice $(ag_nice "$c2"), expected its original 0"
        echo "ok: crash autogroup: kill -9, restart with the rule, stop: nice 0 back"
        start_daemon
        wait_until 5 eval '[ "$(ag_nice $c2)" = 19 ]' || fail "crash autogroup: nice 19 not set again"
        kill_daemon
        rm "$POL/60-crash.policy"
        start_daemon # rule removed: back after the first complete scan
        wait_until 10 eval '[ "$(ag_nice "$c2")" = 0 ]' || fail "crash autogroup: rule removed, after the restart nice $(ag_nice "$c2")"
        stop_daemon TERM || fail "crash autogroup: latniced did not exit 0"
        echo "ok: crash autogroup: kill -9, restart with the rule removed: nice 0 back at start-up"
        crash_rule
        start_daemon
        wait_until 5 eval '[ "$(ag_nice $c2)" = 19 ]' || fail "crash autogroup: nice 19 not set a third time"
        kill_daemon
        echo 5 >"/proc/$c2/autogroup" # someone else, while no latniced runs
        rm "$POL/60-crash.policy"
        start_daemon
        stop_daemon TERM || fail "crash autogroup: latniced did not exit 0"
        [ "$(ag_nice "$c2")" = 5 ] || fail "crash autogroup: changed while no latniced ran, but not left alone: nice $(ag_nice "$c2")"
        echo "ok: crash autogroup: changed while no latniced ran is left alone"
        kill -KILL "$c2"; wait "$c2" 2>/dev/null
fi
echo "PASS"
