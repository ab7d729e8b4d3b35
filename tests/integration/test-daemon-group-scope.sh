#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# GroupScope=own on the real kernel, without systemd (the scope itself is
# made in the systemd VM, kernel/vm-systemd group-own-scope): a matched
# process in a v1 cpu cgroup that also holds a process no rule asks group
# settings for gets its task settings and leaves the group alone; one whose
# group holds only matched processes gets the group setting, as with
# GroupScope=shared; latnicectl explain says which members are spared.
# Results are read from the cgroup files and sched_getattr, never from the
# daemon.
#   test-daemon-group-scope.sh LATNICED LN-SPAWN LN-GETATTR LATNICECTL
. "$(dirname "$0")/test-daemon-lib.sh" "$@"
LATNICECTL=${4:?latnicectl path}

CPU=$(awk '$3 == "cgroup" && $4 ~ /(^|,)cpu(,|$)/ { print $2; exit }' /proc/self/mounts)
[ -n "$CPU" ] || { echo "SKIP: no v1 cpu hierarchy"; exit 77; }

cat >"$POL/50-scope.policy" <<'P'
[Rule own-idle]
Match = name:lnscope-idle
CPUIdle = yes
GroupScope = own
Nice = 5
P

start_daemon
G=$CPU/latnice-scope-test-$$
A=$CPU/latnice-scope-alone-$$
mkdir "$G" "$A"
trap 'for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done; sleep 0.1; rmdir "$G" "$A" 2>/dev/null; cleanup' EXIT

# The "shell", then the matched process beside it.
sleep 300 &
other=$!
PIDS+=("$other")
echo "$other" >"$G/cgroup.procs"
bash -c 'echo $$ > "$1/cgroup.procs"; exec -a lnscope-idle sleep 300' _ "$G" &
m1=$!
PIDS+=("$m1")
wait_until 5 attr_is "$m1" nice 5 || fail "the task setting did not apply: nice $(attr "$m1" nice)"
# The group was decided before the task settings were applied.
sleep 0.5
[ "$(cat "$G/cpu.idle")" = 0 ] ||
        fail "GroupScope=own made the group shared with an unmatched process idle (no systemd to make a scope)"
echo "ok: shared with an unmatched process, no scope to be had: the group is left alone, nice 5 applies"
out=$("$LATNICECTL" explain --policy-dir "$POL" "$m1" 2>&1)
echo "$out" | grep -q "also holds.*$other" || fail "explain does not name the other member $other: $out"
echo "$out" | grep -q "GroupScope=own: not these" || fail "explain does not say GroupScope=own spares them: $out"
echo "ok: explain names the other member and says GroupScope=own spares it"

# Alone in its group: as with GroupScope=shared.
bash -c 'echo $$ > "$1/cgroup.procs"; exec -a lnscope-idle sleep 300' _ "$A" &
m2=$!
PIDS+=("$m2")
wait_until 5 eval '[ "$(cat $A/cpu.idle)" = 1 ]' ||
        fail "a group that holds only the matched process: cpu.idle $(cat "$A/cpu.idle"), expected 1"
kill -KILL "$m2"; wait "$m2" 2>/dev/null
wait_until 5 eval '[ "$(cat $A/cpu.idle)" = 0 ]' || fail "cpu.idle not restored after the process exited"
echo "ok: alone in its group: the group is idle while it runs, restored after"
stop_daemon
[ "$(cat "$G/cpu.idle")" = 0 ] || fail "cpu.idle of the shared group is $(cat "$G/cpu.idle") after the stop"
echo "PASS"
