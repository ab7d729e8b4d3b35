#!/usr/bin/env bash
# latniced speaks the sd_notify protocol: READY=1 after the first scan, STATUS=
# with counts, WATCHDOG=1 pings at half of WATCHDOG_USEC, STOPPING=1 on SIGTERM.
# A Python receiver plays systemd's part on a datagram socket of the test's own.
. "$(dirname "$0")/test-daemon-lib.sh" "$@"

SOCK=$T/notify.sock
MSGS=$T/notify.log
: >"$MSGS"
/usr/bin/python3 - "$SOCK" "$MSGS" <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "a", buffering=1) as out:
    while True:
        data = s.recv(65536).decode("utf-8", "replace")
        # one line per datagram, with a timestamp in ms
        out.write("%d %s\n" % (time.monotonic() * 1000, data.replace("\n", "|")))
PY
PIDS+=($!)
wait_until 5 test -S "$SOCK" || fail "notify receiver did not start"

cat >"$POL/10-test.policy" <<'P'
[Rule notify-test]
Match = name:ln-notify-target
Nice = 4
P
spawn --argv0 ln-notify-target
target=$SPAWNED_PID

export NOTIFY_SOCKET=$SOCK WATCHDOG_USEC=400000
start_daemon
unset NOTIFY_SOCKET WATCHDOG_USEC

wait_until 5 grep -q "READY=1" "$MSGS" || fail "no READY=1 (got: $(cat "$MSGS"))"
# The scan ran before READY=1: the pre-existing target is already applied.
attr_is "$target" nice 4 || fail "READY=1 before the start-up scan applied pid $target"
wait_until 5 grep -q "STATUS=.*tasks managed" "$MSGS" || fail "no STATUS= with counts"
grep "STATUS=" "$MSGS" | tail -1

# Watchdog: pings again and again (every WATCHDOG_USEC/2 on an idle machine;
# how often is not asserted: a busy machine delays them). Three of them.
pings() { grep -c "WATCHDOG=1" "$MSGS"; }
wait_until 30 eval '[ "$(pings)" -ge 3 ]' ||
        fail "expected 3 WATCHDOG=1 pings with WATCHDOG_USEC=400000, got $(pings) in 30 s"
echo "ok: $(pings) watchdog pings"

stop_daemon TERM || fail "latniced did not exit 0 on SIGTERM"
wait_until 5 grep -q "STOPPING=1" "$MSGS" || fail "no STOPPING=1 on SIGTERM"
attr_is "$target" nice 0 || fail "pid $target not restored on SIGTERM"
echo PASS
