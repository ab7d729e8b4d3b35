#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# latniced under a sched_ext scheduler, without a restart: its sched_ext
# state is read from a fake tree (LATNICED_SCHED_EXT_ROOT, test-only) whose
# state file the test switches while latniced runs, as loading and unloading
# scx_lavd would. Before: a rule's Slice= and Nice= reach the task. Under
# "enabled": the task's slice is given back and its nice kept within -5..5; a
# newly matched task gets the capped nice and no slice. After "disabled":
# both get the rule's slice and nice again. The same for a group setting
# (CPUIdle= on a v1 cpu cgroup, where there is one): given back under the
# scheduler, set again after. Read back with sched_getattr() (ln-getattr)
# and the cgroup files, never from the daemon.
#   test-daemon-schedext.sh LATNICED LN-SPAWN LN-GETATTR
. "$(dirname "$0")/test-daemon-lib.sh" "$@"

SCX=$T/scx
mkdir -p "$SCX/sys/kernel/sched_ext/root"
echo disabled >"$SCX/sys/kernel/sched_ext/state"

cat >"$POL/50-scx.policy" <<'P'
[Rule lnscx]
Match = comm:lnscx
Nice = -8
Slice = 3ms

[Rule lnscx-group]
Match = name:lnscxgrp
CPUIdle = yes
P

# A v1 cpu cgroup of the test's own for the group rule (none: that part is
# left out, and said so).
CPU=$(awk '$3 == "cgroup" && $4 ~ /(^|,)cpu(,|$)/ { print $2; exit }' /proc/self/mounts)
G=
if [ -n "$CPU" ]; then
        G=$CPU/latnice-scx-$$
        mkdir "$G"
        trap 'for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done; sleep 0.1; rmdir "$G" 2>/dev/null; cleanup' EXIT
fi
idle_is() { [ "$(cat "$G/cpu.idle")" = "$1" ]; }

LATNICED_SCHED_EXT_ROOT=$SCX start_daemon
grep -q "Reading sched_ext below $SCX" "$LOG" || fail "latniced did not take LATNICED_SCHED_EXT_ROOT"

has_rule() { # tid: the rule's nice and slice
        attr_is "$1" nice -8 && attr_is "$1" slice_ns 3000000 && attr_is "$1" custom_slice yes
}
masked() { # tid: the capped nice, its own slice back
        attr_is "$1" nice -5 && attr_is "$1" custom_slice no
}

# 1. No BPF scheduler: the rule as written.
spawn --comm lnscx
a=$SPAWNED_PID
wait_until 5 has_rule "$a" || fail "1: before: $("$GETATTR" "$a"), expected nice -8 and a 3 ms slice"
echo "ok: without sched_ext the rule's Slice= and Nice= are set"
if [ -n "$G" ]; then
        bash -c 'echo $$ > "$1/cgroup.procs"; exec -a lnscxgrp sleep 300' _ "$G" &
        PIDS+=($!)
        wait_until 5 idle_is 1 || fail "1: cpu.idle of $G is $(cat "$G/cpu.idle"), expected 1"
        echo "ok: without sched_ext the group rule's CPUIdle= is set"
else
        echo "# no v1 cpu hierarchy: the group part is left out"
fi

# 2. A scheduler is loaded: the slice given back, the nice capped.
echo scx_test >"$SCX/sys/kernel/sched_ext/root/ops"
echo enabled >"$SCX/sys/kernel/sched_ext/state"
wait_until 10 grep -q "sched_ext scheduler scx_test is enabled" "$LOG" ||
        fail "2: latniced did not see the scheduler loaded"
wait_until 10 masked "$a" ||
        fail "2: under sched_ext: $("$GETATTR" "$a"), expected nice -5 and no custom slice"
echo "ok: under sched_ext a boosted task's slice is given back and its nice capped at -5"
if [ -n "$G" ]; then
        wait_until 10 idle_is 0 || fail "2: under sched_ext cpu.idle of $G is still $(cat "$G/cpu.idle")"
        echo "ok: under sched_ext the group's cpu.idle is given back"
fi

# 3. A task matched under the scheduler gets the capped nice, not the slice.
spawn --comm lnscx
b=$SPAWNED_PID
wait_until 5 attr_is "$b" nice -5 || fail "3: new task: nice $(attr "$b" nice), expected -5"
attr_is "$b" custom_slice no || fail "3: new task under sched_ext got a slice: $("$GETATTR" "$b")"
n=$(grep -c "stops writing Slice=" "$LOG")
[ "$n" = 1 ] || fail "3: the log said $n times that slices are not written, expected once"
echo "ok: under sched_ext a new task gets Nice= (capped) and no Slice=; said once"

# 4. The scheduler unloaded: slices and the rule's nice again, no restart.
echo disabled >"$SCX/sys/kernel/sched_ext/state"
: >"$SCX/sys/kernel/sched_ext/root/ops"
wait_until 10 grep -q "sched_ext is disabled: latniced writes Slice=" "$LOG" ||
        fail "4: latniced did not see the scheduler unloaded"
wait_until 10 has_rule "$a" || fail "4: after: task a: $("$GETATTR" "$a"), expected the rule"
wait_until 10 has_rule "$b" || fail "4: after: task b: $("$GETATTR" "$b"), expected the rule"
echo "ok: after sched_ext is unloaded both tasks get Slice= and Nice= again"
if [ -n "$G" ]; then
        wait_until 10 idle_is 1 || fail "4: after: cpu.idle of $G is $(cat "$G/cpu.idle"), expected 1"
        echo "ok: after sched_ext is unloaded the group is idle again"
fi

# 5. On exit, everything given back.
stop_daemon || fail "5: latniced exited with $?"
attr_is "$a" nice 0 && attr_is "$a" custom_slice no || fail "5: a not restored: $("$GETATTR" "$a")"
echo "ok: restored on exit"
