#!/usr/bin/env bash
# A program on a FUSE filesystem whose server says root owns it (what a
# user's server may claim; root can look into a user's FUSE mount with
# user_allow_other in /etc/fuse.conf) and holds every request latniced makes
# (ln-fusehold). Run as nobody under a rule that boosts it, it must not get
# the boost (its file's ownership is the server's word), its settings that
# are no boost still apply, and latniced must find out without asking the
# server anything: the server sees no request from latniced's pid. Checked
# on the kernel's values (ln-getattr, /proc/PID/timerslack_ns) and the
# server's own count; timeouts are generous.
#   $4: ln-fusehold
. "$(dirname "$0")/test-daemon-lib.sh" "$@"
FUSEHOLD=${4:?ln-fusehold path}

[ -c /dev/fuse ] || { echo "SKIP: no /dev/fuse"; exit 77; }

cat >"$POL/50-fuse.policy" <<'P'
[Rule fuse-boost]
Match = name:lt-fuse-exe
Nice = -5
TimerSlack = 70us
P

mkdir "$T/mnt"
chmod 755 "$T"
: >"$T/hold"
"$FUSEHOLD" "$T/mnt" /bin/sleep "$T/hold" >"$T/fuse.out" 2>&1 &
FUSE_PID=$!
PIDS+=("$FUSE_PID")
unmount() {
        kill -TERM "$FUSE_PID" 2>/dev/null
        wait_until 10 eval '! grep -q " $T/mnt " /proc/self/mounts' || umount -l "$T/mnt"
}
wait_until 10 grep -q '^ready' "$T/fuse.out" ||
        { cat "$T/fuse.out" >&2; echo "SKIP: cannot mount FUSE here"; exit 77; }
[ "$(stat -c %u "$T/mnt/lt-fuse-exe")" = 0 ] || { unmount; fail "the FUSE file does not claim root"; }

start_daemon --log-level info
echo "$DAEMON" >"$T/hold"

"${NOBODY[@]}" "$T/mnt/lt-fuse-exe" 600 &
p=$!
PIDS+=("$p")
wait_until 10 eval '[ "$(cat /proc/$p/timerslack_ns 2>/dev/null)" = 70000 ]' ||
        { unmount; fail "lt-fuse-exe's timer slack was not applied ($(cat /proc/$p/timerslack_ns))"; }
nice=$(attr "$p" nice)
held=$(grep -c '^held' "$T/fuse.out")
echo "lt-fuse-exe (nobody): nice $nice, timer slack applied; requests of latniced held by the server: $held"
grep -m1 -E "withheld|FUSE" "$LOG"
[ "$nice" = 0 ] || { unmount; fail "a program on FUSE got the boost Nice=-5 (nice $nice)"; }
[ "$held" = 0 ] || { unmount; fail "latniced asked the FUSE server $held time(s)"; }

kill -KILL "$p"
unmount
echo "PASS"
