#!/usr/bin/env bash
# latniced applies the policy to processes matched by every key (name via a
# long argv[0], exe, cmdline, user, parent, ancestor) within 2 s of their
# start, leaves unmatched processes alone, and handles processes that existed
# before it started. Verified with sched_getattr (ln-getattr), not the daemon.
. "$(dirname "$0")/test-daemon-lib.sh" "$@"

cp "$SPAWN" "$T/lt-exe-marker-bin"
cp /bin/bash "$T/ltparentsh"
cp /bin/bash "$T/ltancestsh"
UID_X=424242

cat >"$POL/50-keys.policy" <<P
[Rule by-name]
Match = name:lt-a-very-long-process-name-beyond-15
Nice = 1
LatencyNice = -10

[Rule by-exe]
Match = exe:*/lt-exe-marker-bin
Nice = 2

[Rule by-cmdline]
Match = cmdline:"* --sleep 1234.5"
Nice = 3

[Rule by-user]
Match = user:$UID_X
Nice = 4

[Rule by-parent]
Match = parent:ltparentsh && name:lt-child
Nice = 5

[Rule by-ancestor]
Match = ancestor:ltancestsh && name:lt-grandchild
Nice = 6
Policy = batch

[Rule pre-existing]
Match = name:lt-was-there-before
Nice = 7
P

base=$(base_slice)

# Running before the daemon: found by the start-up scan.
spawn --argv0 lt-was-there-before
before=$SPAWNED_PID
attr_is "$before" nice 0 || fail "pre-existing process not at nice 0 to begin with"

start_daemon
wait_until 2 attr_is "$before" nice 7 || fail "pre-existing process not handled by the scan"

# Unmatched process first; events are handled in order, so once the matched
# one after it is applied, the unmatched one has been looked at.
spawn --argv0 lt-not-matched-by-anything --threads 2
unmatched=("${SPAWNED_TIDS[@]}")

spawn --argv0 lt-a-very-long-process-name-beyond-15
p=$SPAWNED_PID
[ "$(cat /proc/$p/comm)" = "ln-spawn" ] || fail "comm should not carry the name"
wait_until 2 attr_is "$p" nice 1 || fail "name (argv0 > 15 chars): nice not applied"
want=$(ln_slice -10)
attr_is "$p" slice_ns "$want" || fail "name: LatencyNice=-10 should give slice $want, got $(attr "$p" slice_ns)"

for t in "${unmatched[@]}"; do
        attr_is "$t" nice 0 || fail "unmatched thread $t was changed (nice)"
        attr_is "$t" slice_ns "$base" || fail "unmatched thread $t was changed (slice)"
        attr_is "$t" policy other || fail "unmatched thread $t was changed (policy)"
done

spawn_exe() { "$T/lt-exe-marker-bin" "$@" >"$T/exe.out" & PIDS+=($!); }
spawn_exe
wait_until 5 grep -q "^pid=" "$T/exe.out" || fail "exe spawn"
p=$(sed -n 's/^pid=\([0-9]*\).*/\1/p' "$T/exe.out")
wait_until 2 attr_is "$p" nice 2 || fail "exe: not applied"

spawn --sleep 1234.5
wait_until 2 attr_is "$SPAWNED_PID" nice 3 || fail "cmdline: not applied"

setpriv --reuid=$UID_X --regid=$UID_X --clear-groups "$SPAWN" >"$T/user.out" &
PIDS+=($!)
wait_until 5 grep -q "^pid=" "$T/user.out" || fail "user spawn"
p=$(sed -n 's/^pid=\([0-9]*\).*/\1/p' "$T/user.out")
wait_until 2 attr_is "$p" nice 4 || fail "user: not applied"

"$T/ltparentsh" -c "'$SPAWN' --argv0 lt-child >'$T/parent.out'; true" &
PIDS+=($!)
wait_until 5 grep -q "^pid=" "$T/parent.out" || fail "parent spawn"
p=$(sed -n 's/^pid=\([0-9]*\).*/\1/p' "$T/parent.out")
PIDS+=($p)
wait_until 2 attr_is "$p" nice 5 || fail "parent: not applied"

"$T/ltancestsh" -c "bash -c \"'$SPAWN' --argv0 lt-grandchild >'$T/anc.out'; true\"; true" &
PIDS+=($!)
wait_until 5 grep -q "^pid=" "$T/anc.out" || fail "ancestor spawn"
p=$(sed -n 's/^pid=\([0-9]*\).*/\1/p' "$T/anc.out")
PIDS+=($p)
wait_until 2 attr_is "$p" nice 6 || fail "ancestor: not applied"
attr_is "$p" policy batch || fail "ancestor: Policy=batch not applied"

# Still untouched after all of that.
for t in "${unmatched[@]}"; do
        attr_is "$t" nice 0 || fail "unmatched thread $t was changed later"
done

stop_daemon || fail "latniced exited with $?"
echo "PASS"
