#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Group settings of rules against a hostile or changing cgroup tree, on the
# real kernel's v1 cpu hierarchy (read back from the cgroup files):
#   - a matched process moved to another group: the old group is given back
#     and the new one changed, at the next evaluation (a reload here);
#   - groups that vanish while latniced holds them (process killed and the
#     group removed at once, many times): latniced stays up and goes on;
#   - a read-only cgroup (a read-only bind mount over it): the write fails
#     with an error naming the group, the task settings of the rule still
#     apply, and nothing else is lost.
#   test-daemon-groups-bad.sh LATNICED LN-SPAWN LN-GETATTR
. "$(dirname "$0")/test-daemon-lib.sh" "$@"

CPU=$(awk '$3 == "cgroup" && $4 ~ /(^|,)cpu(,|$)/ { print $2; exit }' /proc/self/mounts)
[ -n "$CPU" ] || { echo "SKIP: no v1 cpu hierarchy (cgroup2 with cpu is tested in kernel/vm-test daemon-groups)"; exit 77; }

cat >"$POL/50-groups.policy" <<'P'
[Rule idle-group]
Match = name:lnbad-idle
CPUIdle = yes
Nice = 5
P

TOP=$CPU/latnice-bad-$$
mkdir "$TOP" || fail "mkdir $TOP"
RO=
remove_tree() {
        local p
        for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
        sleep 0.1
        [ -z "$RO" ] || umount "$RO" 2>/dev/null
        for d in "$TOP"/*/; do rmdir "$d" 2>/dev/null; done
        rmdir "$TOP" 2>/dev/null
}
trap 'remove_tree; cleanup' EXIT

in_group() { # group name: a sleeper named NAME in $TOP/GROUP; sets IN_PID
        mkdir -p "$TOP/$1"
        in_cgroup "$TOP/$1" bash -c 'exec -a "$0" sleep 300' "$2"
        IN_PID=$RUN_PID
}
idle_of() { cat "$TOP/$1/cpu.idle" 2>/dev/null; }

start_daemon

# ---- A matched process changes groups.
in_group a lnbad-idle
m=$IN_PID
wait_until 5 eval '[ "$(idle_of a)" = 1 ]' || fail "group a: cpu.idle $(idle_of a), expected 1"
mkdir "$TOP/b"
echo "$m" >"$TOP/b/cgroup.procs"
reload_daemon
wait_until 5 eval '[ "$(idle_of a)" = 0 ]' ||
        fail "group a kept cpu.idle $(idle_of a) after its matched process moved out"
wait_until 5 eval '[ "$(idle_of b)" = 1 ]' ||
        fail "group b: cpu.idle $(idle_of b) after the matched process moved in, expected 1"
kill -KILL "$m"; wait "$m" 2>/dev/null
wait_until 5 eval '[ "$(idle_of b)" = 0 ]' || fail "group b not restored after its process exited"
echo "ok: a process that changes groups: the old group given back, the new one changed"

# ---- Groups that vanish while latniced holds them.
for i in $(seq 1 20); do
        in_group "v$i" lnbad-idle
        [ $((i % 2)) = 0 ] || sleep 0.05
        kill -KILL "$IN_PID"; wait "$IN_PID" 2>/dev/null
        rmdir "$TOP/v$i" 2>/dev/null || { sleep 0.05; rmdir "$TOP/v$i" 2>/dev/null; }
done
[ -e "/proc/$DAEMON" ] || fail "latniced died when groups vanished"
in_group after lnbad-idle
wait_until 5 eval '[ "$(idle_of after)" = 1 ]' ||
        fail "after groups vanished: cpu.idle $(idle_of after), expected 1"
wait_until 5 attr_is "$IN_PID" nice 5 || fail "after groups vanished: nice not applied"
kill -KILL "$IN_PID"; wait "$IN_PID" 2>/dev/null
wait_until 5 eval '[ "$(idle_of after)" = 0 ]' || fail "group 'after' not restored"
echo "ok: 20 groups removed while latniced held them; it stays up and goes on"

# ---- A read-only cgroup.
# The process joins the group first and becomes a match (execs) only once
# the group is read-only.
mkdir "$TOP/ro"
in_cgroup "$TOP/ro" bash -c 'while [ ! -e "$0" ]; do sleep 0.05; done; exec -a lnbad-idle sleep 300' \
        "$T/ro-ready"
IN_PID=$RUN_PID
if mount --bind "$TOP/ro" "$TOP/ro" 2>/dev/null && mount -o remount,bind,ro "$TOP/ro" 2>/dev/null &&
        ! (echo 1 >"$TOP/ro/cpu.idle") 2>/dev/null; then
        RO=$TOP/ro
        touch "$T/ro-ready"
        wait_until 5 attr_is "$IN_PID" nice 5 || fail "read-only group: the rule's nice was not applied"
        wait_until 5 grep -q "latnice-bad-$$/ro.*Read-only file system" "$LOG" ||
                fail "read-only group: no error naming the group and the cause"
        [ "$(idle_of ro)" = 0 ] || fail "read-only group: cpu.idle reads $(idle_of ro)"
        [ -e "/proc/$DAEMON" ] || fail "latniced died on a read-only group"
        kill -KILL "$IN_PID"; wait "$IN_PID" 2>/dev/null
        echo "ok: read-only group: $(grep -m1 "latnice-bad-$$/ro" "$LOG" | sed 's/^.*\] //')"
else
        echo "note: cannot make a read-only bind mount of a cgroup here; read-only case not run"
        kill -KILL "$IN_PID"
fi

stop_daemon TERM || fail "latniced did not exit cleanly"
echo "ok: latniced exited cleanly"
