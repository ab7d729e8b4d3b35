#!/usr/bin/env bash
# latniced where it cannot start a thread (a v1 pids cgroup of its own at
# pids.max 1, so the kernel refuses every new task): the cmdline reads that
# would go to a worker thread (lib/bounded-read.c: every read but those at a
# small process's exec) are done on the event loop instead, that is said
# once in the log, and the policy still applies: a process that renames
# itself to a matching name (a read that would go to a worker) gets its
# rule. Checked on the kernel's values (ln-getattr, /proc/PID/task).
#   $4: ln-rename
. "$(dirname "$0")/test-daemon-lib.sh" "$@"
RENAME=${4:?ln-rename path}
PIDS_ROOT=/sys/fs/cgroup/pids

[ -w "$PIDS_ROOT/cgroup.procs" ] ||
        { echo "SKIP: no v1 pids hierarchy at $PIDS_ROOT to limit latniced's threads"; exit 77; }
CG=$PIDS_ROOT/latnice-nothread-$$
mkdir "$CG" || fail "cannot create $CG"
remove_cg() {
        echo max >"$CG/pids.max" 2>/dev/null
        cleanup
        rmdir "$CG" 2>/dev/null
}
trap remove_cg EXIT
echo 1 >"$CG/pids.max"

cat >"$POL/50-nothread.policy" <<'P'
[Rule final]
Match = name:lt-nothr-final
Nice = 6
P

: >"$LOG"
setpriv --pdeathsig TERM -- sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$CG" \
        "$LATNICED" --foreground --bus none --config "$CONF" --policy-dir "$POL" \
        --log-level debug --state-file "$T/own.state" 2>>"$LOG" &
DAEMON=$!
wait_until 60 grep -q "Ready:" "$LOG" || fail "latniced did not become ready in a pids cgroup at its limit"
grep -qx "$CG" <(sed -n "s|^[0-9]*:pids:|$PIDS_ROOT|p" "/proc/$DAEMON/cgroup") ||
        fail "latniced is not in $CG"

# The start-up scan read the cmdline of every process: no worker started.
grep -q "Cannot start a thread to read command lines" "$LOG" ||
        fail "no word in the log that the cmdline reader could not start"
n=$(find "/proc/$DAEMON/task" -mindepth 1 -maxdepth 1 | wc -l)
[ "$n" = 1 ] || fail "latniced runs $n threads in a cgroup that allows one"

# A rename is evaluated, with the cmdline read on the event loop.
out=$T/rename.out
"$RENAME" 0.2 lt-nothr-final >"$out" &
PIDS+=($!)
wait_until 10 grep -q '^final' "$out" || fail "ln-rename did not reach its final name"
p=$(sed -n 's/^pid=//p' "$out")
wait_until 10 attr_is "$p" nice 6 ||
        fail "the final name lt-nothr-final was not evaluated (nice $(attr "$p" nice))"
[ "$(grep -c "Cannot start a thread" "$LOG")" = 1 ] || fail "the log says it more than once"
echo "latniced ran with 1 thread, the rule applied after a rename"
echo "PASS"
