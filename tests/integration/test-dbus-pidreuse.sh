#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The pid-reuse race against D-Bus authorization (polkit's CVE-2013-4288
# class): nobody sends SetTask(root's process, Nice=-5) while latniced is
# stopped (SIGSTOP), and the sending process exits at once; a child of it
# keeps the connection open (ln-busrace). A root process (with
# CAP_SYS_NICE) then takes the sender's pid (ns_last_pid), and latniced is
# continued. The bus still reports uid 65534 for the connection; /proc of
# that pid now shows root's capabilities. The call must be refused, and
# root's process keep its nice (read with sched_getattr).
#
# Usage: test-dbus-pidreuse.sh BUILD_ROOT SOURCE_ROOT (as root)
. "$(dirname "$0")/test-dbus-lib.sh"
dbus_init "$@"
RACE=$BUILD/tests/integration/ln-busrace
[ -x "$RACE" ] || fail "$RACE was not built"
[ -w /proc/sys/kernel/ns_last_pid ] || { echo "SKIP: /proc/sys/kernel/ns_last_pid is not writable"; exit 77; }
cp /bin/sleep "$TMP/ln-reuse-taker"
dbus_start_bus
dbus_start_daemon

spawn ln-reuse-target
target=$SPAWNED
wait_for "target $target" sh -c "[ \"\$(readlink /proc/$target/exe)\" = '$TMP/ln-reuse-target' ]"
[ "$(getattr "$target" nice)" = 0 ] || fail "target does not start at nice 0"

# take_pid PID: a root process (a copy of sleep) with pid PID, by setting
# ns_last_pid to PID-1 before each fork (other forks on the machine may win
# a round); prints its pid
take_pid() {
        "$PY" - "$1" "$TMP/ln-reuse-taker" <<'PYEOF'
import os, sys
want, prog = int(sys.argv[1]), sys.argv[2]
for _ in range(5000):
    with open("/proc/sys/kernel/ns_last_pid", "w") as f:
        f.write(str(want - 1))
    pid = os.fork()
    if pid == 0:
        if os.getpid() == want:
            null = os.open("/dev/null", os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            os.execv(prog, [prog, "600"])
        os._exit(0)
    if pid == want:
        print(pid)
        sys.exit(0)
    os.waitpid(pid, 0)
sys.exit(1)
PYEOF
}

kill -STOP "$DAEMON_PID"
# latniced is continued whatever happens below
trap 'rc=$?; set +e; kill -CONT "$DAEMON_PID" 2>/dev/null; (exit $rc); dbus_cleanup' EXIT
install -m 0600 -o nobody /dev/null "$TMP/answer"
as_nobody "$RACE" "$ADDR" "$target" "$TMP/answer" >"$TMP/race.out" 2>"$TMP/race.err" ||
        { cat "$TMP/race.err" >&2; fail "ln-busrace failed"; }
read -r sender holder <"$TMP/race.out"
CHILDREN+=("$holder")
wait_for "the sender $sender to be gone" sh -c "! kill -0 $sender"
echo "# nobody's sender $sender sent SetTask and exited; its child $holder holds the connection"

taker=$(take_pid "$sender" </dev/null 2>/dev/null) || fail "could not take pid $sender"
CHILDREN+=("$taker")
[ "$taker" = "$sender" ] || fail "took pid $taker, not $sender"
wait_for "the taker to run" sh -c "[ \"\$(readlink /proc/$taker/exe)\" = '$TMP/ln-reuse-taker' ]"
[ "$(stat -c %u "/proc/$taker")" = 0 ] || fail "pid $taker is not root's"
capeff=$(awk '/^CapEff:/ { print $2 }' "/proc/$taker/status")
(( (16#$capeff >> 23) & 1 )) || fail "pid $taker has no CAP_SYS_NICE (CapEff $capeff)"
echo "# pid $sender is now root's $TMP/ln-reuse-taker with CAP_SYS_NICE (CapEff $capeff)"

kill -CONT "$DAEMON_PID"
wait_for "latniced's answer to the sender" test -s "$TMP/answer"
echo "# answer: $(cat "$TMP/answer")"
daemon_alive "after the race"
[ "$(getattr "$target" nice)" = 0 ] ||
        fail "root's process $target got nice $(getattr "$target" nice) from nobody's SetTask"
grep -q "^error org.latnice.Daemon1.Error.AccessDenied: .*belongs to uid 0, not to the caller (uid 65534)" \
        "$TMP/answer" || fail "the answer is not AccessDenied for uid 65534: $(cat "$TMP/answer")"
echo "ok - nobody's SetTask is refused though its pid is root's by the time latniced reads it; the kernel shows nice 0"

daemon_alive "end of pid-reuse test"
echo "PASS"
