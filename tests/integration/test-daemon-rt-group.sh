#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Real-time group scheduling (CONFIG_RT_GROUP_SCHED, the v1 cpu.rt_runtime_us)
# refuses real time to a thread whose cpu cgroup has no real-time runtime,
# which is what every new child group starts with (lib/rt-group.h). The real
# latniced must neither hold a limit for a grant the kernel refuses nor fail
# silently. Read back from the kernel (ln-getattr, /proc/PID/limits) and the
# log:
#
#   1. a trusted data loop started in a child cpu group whose
#      cpu.rt_runtime_us is 0 stays fair with the rule's other settings
#      (timer slack 1 us), its RLIMIT_RTTIME untouched, and the log names
#      the group, once for two such processes; the daemon's ExplainThreads
#      (on a private bus) says why the grant is withheld;
#   2. once the group has real-time runtime, a reload grants it (SCHED_RR
#      at the cap 20, RLIMIT_RTTIME 200 ms soft);
#   3. stop gives it back.
#
# Root's processes (the grant itself, its bounds and trust are
# daemon-realtime's). Skipped (77) without a v1 cpu hierarchy with
# cpu.rt_runtime_us: without real-time group scheduling nothing refuses.
#
#   test-daemon-rt-group.sh LATNICED LN-SPAWN LN-GETATTR
. "$(dirname "$0")/test-daemon-lib.sh" "$@"

CPU=$(awk '$3 == "cgroup" && $4 ~ /(^|,)cpu(,|$)/ { print $2; exit }' /proc/self/mounts)
if [ -z "$CPU" ] || [ ! -e "$CPU/cpu.rt_runtime_us" ]; then
        echo "SKIP: no v1 cpu hierarchy with real-time group scheduling (cpu.rt_runtime_us)"
        exit 77
fi
NAME=latnice-test-rtgroup-$$
G=$CPU/$NAME
mkdir "$G" || fail "cannot make $G"
group_empty() { [ ! -s "$G/cgroup.procs" ]; }
trap 'for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
      wait_until 10 group_empty; rmdir "$G"; cleanup' EXIT
[ "$(cat "$G/cpu.rt_runtime_us")" = 0 ] ||
        fail "a new cpu group has real-time runtime $(cat "$G/cpu.rt_runtime_us"), expected 0"

trusted_copy "$SPAWN" lnpw
cat >"$CONF" <<'C'
[Daemon]
MaxRealtimePriority = 20
C
cat >"$POL/50-rt.policy" <<'P'
[Rule data-loop]
Match = name:lnpw && thread:data-loop*
Policy = rr
RealtimePriority = 88
TimerSlack = 1us
P

# ln-spawn in the group; sets LOOP_PID and LOOP_TID (its data loop).
loop_in_group() {
        local out=$T/run.$RANDOM$RANDOM line
        in_cgroup "$G" "$TRUSTED/lnpw" --threads 1 --thread-name data-loop.0 >"$out"
        LOOP_PID=$RUN_PID
        wait_until 10 grep -q "^pid=" "$out" || fail "lnpw in $G did not start"
        line=$(grep "^pid=" "$out" | head -1)
        LOOP_TID=${line##*,}
}
said() { grep -c "real time withheld: the kernel refuses it in cgroup (v1 cpu) /$NAME, whose cpu.rt_runtime_us is 0" "$LOG"; }

# A private bus configured like the system bus, for Explain.
dbus-daemon --config-file="$(dirname "$0")/dbus-system.conf" --address="unix:path=$T/bus" \
        --nofork --nopidfile --print-address=3 3>"$T/bus.address" 2>"$T/bus.log" &
PIDS+=($!)
wait_until 10 test -s "$T/bus.address" || fail "dbus-daemon did not start: $(cat "$T/bus.log")"
BUS=unix:path=$T/bus
start_daemon --bus "$BUS"
ORIG=$(rttime $$)

# ---- 1. no runtime: no grant, no limit, said once
loop_in_group
first=$LOOP_PID first_loop=$LOOP_TID
wait_until 10 attr_is "$first_loop" timerslack_ns 1000 ||
        fail "data loop in $G: timer slack $(attr "$first_loop" timerslack_ns): never handled?"
attr_is "$first_loop" policy other || fail "data loop in $G got $(attr "$first_loop" policy) with no runtime"
[ "$(rttime "$first")" = "$ORIG" ] || fail "RLIMIT_RTTIME $(rttime "$first") held for a grant the kernel refuses"
wait_until 10 eval '[ "$(said)" -ge 1 ]' || fail "the log does not say why the grant is withheld"
loop_in_group
second_loop=$LOOP_TID
wait_until 10 attr_is "$second_loop" timerslack_ns 1000 || fail "second data loop never handled"
attr_is "$second_loop" policy other || fail "second data loop got $(attr "$second_loop" policy)"
grep -q "Failed to apply" "$LOG" && fail "a refused grant was taken for a failure"
[ "$(said)" = 1 ] || fail "the group was named $(said) times in the log, expected once"
busctl --address="$BUS" call org.latnice.Daemon1 /org/latnice/Daemon1 org.latnice.Daemon1 \
        ExplainThreads u "$first" >"$T/explain" 2>&1 || fail "ExplainThreads: $(cat "$T/explain")"
grep -q '"the kernel gives its cpu cgroup no real-time runtime (cpu.rt_runtime_us is 0)"' "$T/explain" ||
        fail "ExplainThreads does not say why the grant is withheld: $(cat "$T/explain")"
echo "ok 1: no real-time runtime in $NAME: no grant, RLIMIT_RTTIME untouched, the log names the group once, ExplainThreads says why"

# ---- 2. runtime given: the next evaluation grants it
echo 50000 >"$G/cpu.rt_runtime_us" || fail "cannot give $G real-time runtime"
reload_daemon
wait_until 10 attr_is "$first_loop" policy rr || fail "data loop after the group got runtime: $("$GETATTR" "$first_loop")"
attr_is "$first_loop" rt_priority 20 || fail "priority $(attr "$first_loop" rt_priority), expected the cap 20"
soft=$(rttime "$first")
[ "${soft%% *}" = 200000 ] || fail "granted with RLIMIT_RTTIME $soft, expected a soft 200000"
echo "ok 2: with runtime in the group a reload grants it: SCHED_RR 20, RLIMIT_RTTIME $soft"

# ---- 3. stop gives it back (before the group loses its runtime)
stop_daemon TERM || fail "latniced exited with $?"
attr_is "$first_loop" policy other || fail "stop left $(attr "$first_loop" policy)"
[ "$(rttime "$first")" = "$ORIG" ] || fail "stop left RLIMIT_RTTIME $(rttime "$first")"
for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
echo "ok 3: stop gives the grant and RLIMIT_RTTIME back"
