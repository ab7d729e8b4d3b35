#!/usr/bin/env bash
# A policy that does not follow the parent is first matched on the comm file
# (PROC_READ_NO_STAT), not stat: hostile names read from it still match
# exactly (a comm with ") (" and a newline, one that ends in a newline), a
# thread that renames itself to such a name is found, a process that exits
# right after its exec costs no error, and whatever is applied is read back
# from the kernel.
#   $4: ln-storm
. "$(dirname "$0")/test-daemon-lib.sh" "$@"
STORM=${4:?ln-storm path}

nl=$'\n'
# comm is the basename of the file run, cut at 15 bytes.
HOSTILE="x) (y${nl}z"
TRAILING="nl-end${nl}"
mkdir "$T/bin"
cp /bin/sleep "$T/bin/$HOSTILE"
cp /bin/sleep "$T/bin/$TRAILING"
cp /bin/true "$T/bin/lt-comm-brief"

# Each process matches one rule, on its whole name: a name read wrongly (cut
# at its newline, every trailing newline dropped, or the kernel's kept)
# matches none, and the first read, which decides that nothing is to be
# done, would miss it. A thread's name decides alone: the last rule must not
# match (it would on a name cut at its newline).
cat >"$POL/50-comm.policy" <<'P'
[Rule hostile]
Match = comm:"x) (y?z"
Nice = 4

[Rule trailing]
Match = comm:"nl-end?"
Nice = 5

[Rule renamed-thread]
Match = name:lt-comm-threads && thread:"t) (n?x"
Nice = 6

[Rule renamed-thread-cut]
Match = name:lt-comm-threads && thread:"t) (n"
Nice = 9

[Rule brief]
Match = comm:lt-comm-brief
Nice = 7
P

start_daemon

"$T/bin/$HOSTILE" 600 &
PIDS+=($!)
h=$!
"$T/bin/$TRAILING" 600 &
PIDS+=($!)
e=$!
comm_is_hostile() { [ "$(cat "/proc/$h/comm" 2>/dev/null)" = "$HOSTILE" ]; }
wait_until 10 comm_is_hostile || fail "comm of $h is not the hostile name"
wait_until 10 attr_is "$h" nice 4 || fail "hostile comm $h: nice $(attr "$h" nice), not 4"
wait_until 10 attr_is "$e" nice 5 || fail "trailing newline $e: nice $(attr "$e" nice), not 5"

# A thread renames itself to a hostile name after the process was read.
spawn --argv0 lt-comm-threads --threads 1 --rename-thread-after 0.3 "t) (n${nl}x"
tid=${SPAWNED_TIDS[1]}
wait_until 10 grep -q "^renamed" "$SPAWNED_OUT" || fail "thread $tid was not renamed"
wait_until 10 attr_is "$tid" nice 6 || fail "renamed thread $tid: nice $(attr "$tid" nice), not 6"
attr_is "$SPAWNED_PID" nice 0 || fail "main thread $SPAWNED_PID got the thread's rule"

# Matched processes that exit right after their exec, between the first read
# and the second, among a storm of others: nothing to report.
for _ in $(seq 200); do "$T/bin/lt-comm-brief"; done
"$STORM" 2000 2 >/dev/null || fail "ln-storm failed"
"$T/bin/$HOSTILE" 600 &
PIDS+=($!)
wait_until 10 attr_is "$!" nice 4 || fail "latniced stopped applying after the brief processes"
if grep -E '^<[0-3]>' "$LOG"; then
        fail "errors logged"
fi
echo PASS
