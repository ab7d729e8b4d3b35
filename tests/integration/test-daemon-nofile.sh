#!/usr/bin/env bash
# latniced and RLIMIT_NOFILE. (1) It raises its soft limit to the hard
# limit at start (systemd style). (2) With too few file descriptors to read
# processes it refuses to start (no "Ready", a non-zero exit, an error that
# names the limit) instead of running blind. (3) When it runs out of them
# later (prlimit on the running daemon), every failed evaluation is counted
# and warned about loudly (rate-limited), and a matching process started
# meanwhile is found by the next evaluation once descriptors are back.
. "$(dirname "$0")/test-daemon-lib.sh" "$@"

cat >"$POL/50-nofile.policy" <<'P'
[Rule nofile]
Match = name:lt-nofile-*
Nice = 5
P

soft_nofile() { # pid
        awk '/^Max open files/ { print $4 }' "/proc/$1/limits"
}

# (1) soft 64, hard 4096: latniced runs with 4096.
: >"$LOG"
prlimit --nofile=64:4096 setpriv --pdeathsig TERM -- "$LATNICED" --foreground --bus none \
        --config "$CONF" --policy-dir "$POL" --log-level debug --state-file "$T/own.state" 2>>"$LOG" &
DAEMON=$!
wait_until 60 grep -q "Ready:" "$LOG" || fail "latniced did not become ready with soft limit 64"
[ "$(soft_nofile "$DAEMON")" = 4096 ] ||
        fail "soft RLIMIT_NOFILE is $(soft_nofile "$DAEMON"), not raised to the hard limit 4096"
spawn --argv0 lt-nofile-1
wait_until 10 attr_is "$SPAWNED_PID" nice 5 || fail "lt-nofile-1 not applied"

# (3) Take the descriptors away from the running daemon (the soft limit:
# raising a hard limit again would need CAP_SYS_RESOURCE): it cannot read
# processes any more, and says so (not at debug level: at warning).
prlimit --pid "$DAEMON" --nofile=4:4096 || fail "prlimit --pid failed"
spawn --argv0 lt-nofile-2
BLIND=$SPAWNED_PID
wait_until 10 grep -q "^<4>.*Out of file descriptors evaluating process" "$LOG" ||
        fail "no warning when latniced runs out of file descriptors"
attr_is "$BLIND" nice 0 || fail "lt-nofile-2 applied without file descriptors?"
# Many more failures, one warning (rate-limited): no journal flood.
# Said at most once every 10 s: the bound is from the time the spawns took
# (a busy machine spawns slowly), not a window.
t0=$(now_ms)
for i in $(seq 1 20); do spawn --argv0 "lt-nofile-x$i"; done
sleep 1
n=$(grep -c "Out of file descriptors" "$LOG")
allowed=$((2 + ($(now_ms) - t0) / 10000))
[ "$n" -le "$allowed" ] ||
        fail "$n warnings about file descriptors for 20 processes in $(($(now_ms) - t0)) ms: not rate-limited"
# Give them back: the next full evaluation (a reload) finds the missed one.
prlimit --pid "$DAEMON" --nofile=4096:4096 || fail "prlimit --pid failed"
reload_daemon
wait_until 10 attr_is "$BLIND" nice 5 || fail "lt-nofile-2 not applied once descriptors are back"
stop_daemon || fail "exit status"

# (2) Hard limit too small to evaluate anything: no Ready, an error, exit 1.
: >"$LOG"
prlimit --nofile=12:12 "$LATNICED" --foreground --bus none --config "$CONF" \
        --policy-dir "$POL" --state-file "$T/own.state" 2>>"$LOG"
rc=$?
[ "$rc" = 1 ] || fail "latniced exited $rc with RLIMIT_NOFILE 12 (expected 1)"
grep -q "Ready:" "$LOG" && fail "latniced said Ready with RLIMIT_NOFILE 12"
grep -q "LimitNOFILE=" "$LOG" || fail "the error does not name the limit"
grep "file descriptors" "$LOG" | tail -1
echo "PASS"
