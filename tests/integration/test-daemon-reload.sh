#!/usr/bin/env bash
# Reload (SIGHUP) applies changed rules and gives tasks whose rule went away
# their originals back; a broken file keeps the old behaviour; a manual
# renice after latniced applied is respected (also on reload and exit);
# SIGTERM restores the rest and exits 0.
. "$(dirname "$0")/test-daemon-lib.sh" "$@"

cat >"$POL/10-a.policy" <<'P'
[Rule a]
Match = name:lt-reload-a
Nice = 3
P
cat >"$POL/20-b.policy" <<'P'
[Rule b]
Match = name:lt-reload-b
Nice = 4
LatencyNice = 5
P
cat >"$POL/30-c.policy" <<'P'
[Rule c]
Match = name:lt-reload-c
Nice = 2
P

base=$(base_slice)
start_daemon

spawn --argv0 lt-reload-a
a=$SPAWNED_PID
spawn --argv0 lt-reload-b --threads 1
b=("${SPAWNED_TIDS[@]}")
spawn --argv0 lt-reload-c
c=$SPAWNED_PID
wait_until 2 attr_is "$a" nice 3 || fail "a not applied"
for t in "${b[@]}"; do
        wait_until 2 attr_is "$t" nice 4 || fail "b not applied"
        attr_is "$t" slice_ns "$(ln_slice 5)" || fail "b: LatencyNice=5 slice"
done
wait_until 2 attr_is "$c" nice 2 || fail "c not applied"

# Someone else renices c: from now on it is theirs.
renice -n 9 -p "$c" >/dev/null || fail "renice"

# Change a, drop b, change c's rule.
sed -i 's/Nice = 3/Nice = 6/' "$POL/10-a.policy"
rm "$POL/20-b.policy"
sed -i 's/Nice = 2/Nice = 1/' "$POL/30-c.policy"
reload_daemon
wait_until 2 attr_is "$a" nice 6 || fail "reload did not change a"
for t in "${b[@]}"; do
        wait_until 2 attr_is "$t" nice 0 || fail "b ($t) not restored after its rule went away"
        attr_is "$t" slice_ns "$base" || fail "b ($t) slice not restored"
done
attr_is "$c" nice 9 || fail "manual renice of c was overridden on reload (nice $(attr "$c" nice))"

# A broken file on reload: rejected, the previous version stays in effect.
cat >"$POL/10-a.policy" <<'P'
[Rule a]
Match = name:lt-reload-a &&
Nice = 8
P
cat >"$POL/40-new-broken.policy" <<'P'
[Rule new]
Match = name:lt-reload-new
Nice = 100
P
reload_daemon
grep -q "10-a.policy:[0-9]*:[0-9]*: error" "$LOG" || fail "no file:line:col diagnostic for 10-a.policy"
grep -q "40-new-broken.policy:[0-9]*:[0-9]*: error" "$LOG" || fail "no diagnostic for 40-new-broken.policy"
kill -0 "$DAEMON" || fail "latniced died of a bad file"
attr_is "$a" nice 6 || fail "a lost its settings after a broken reload"
spawn --argv0 lt-reload-a
a2=$SPAWNED_PID
wait_until 2 attr_is "$a2" nice 6 || fail "old rule a not in effect for a new process after a broken reload"
spawn --argv0 lt-reload-new
new=$SPAWNED_PID
spawn --argv0 lt-reload-a
wait_until 2 attr_is "$SPAWNED_PID" nice 6 || fail "sync"
attr_is "$new" nice 0 || fail "rule of a rejected file was applied"

# SIGTERM: exit 0, originals back, the user-owned one left as it is.
stop_daemon || fail "latniced exited with $? on SIGTERM"
attr_is "$a" nice 0 || fail "a not restored on SIGTERM"
attr_is "$a2" nice 0 || fail "a2 not restored on SIGTERM"
attr_is "$c" nice 9 || fail "user-owned c was touched on exit"
echo "PASS"
