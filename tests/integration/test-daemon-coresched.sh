#!/usr/bin/env bash
# CoreSched= (latnice.policy(5)), every cookie read with PR_SCHED_CORE_GET,
# never taken from latniced.
#
# Where the kernel cannot do core scheduling (no CONFIG_SCHED_CORE: EINVAL;
# no SMT sibling online: ENODEV), a rule with CoreSched= still loads, its
# other settings apply, and latniced says so once; the rest is skipped with
# the reason. Where it can: CoreSched=process gives each process (all its
# threads) a cookie of its own, CoreSched=rule one cookie to all processes
# of the rule, a cookie someone else set is kept, and latniced's exit leaves
# no cookie behind. kernel/vm-test's core-sched test covers the same on an
# SMT guest, with new threads and children and a reload.
. "$(dirname "$0")/test-daemon-lib.sh" "$@"

PY=/usr/bin/python3

# cookie TID: its cookie id (decimal), or EINVAL/ENODEV/... when prctl fails.
cookie() {
        "$PY" - "$1" <<'PY'
import ctypes, errno, sys
libc = ctypes.CDLL(None, use_errno=True)
v = ctypes.c_uint64(0)
r = libc.prctl(ctypes.c_int(62), ctypes.c_ulong(0), ctypes.c_ulong(int(sys.argv[1])),
               ctypes.c_ulong(0), ctypes.byref(v))
print(errno.errorcode.get(ctypes.get_errno(), "E?") if r < 0 else v.value)
PY
}

cookie_is() { [ "$(cookie "$1")" = "$2" ]; }
cookie_set() { local c; c=$(cookie "$1"); [ -n "$c" ] && [ "$c" != 0 ] && [ "${c#E}" = "$c" ]; }

cat >"$POL/50-coresched.policy" <<'P'
[Rule cs-proc]
Match = name:lt-cs-proc || cmdline:"*lt-cs-foreign*"
CoreSched = process
Nice = 3

[Rule cs-rule]
Match = name:lt-cs-rule
CoreSched = rule
Nice = 4
P

here=$(cookie $$)
case $here in
0) supported=1 ;;
EINVAL) supported=0; why="the kernel has no CONFIG_SCHED_CORE (prctl PR_SCHED_CORE: EINVAL)" ;;
ENODEV) supported=0; why="no SMT sibling online (prctl PR_SCHED_CORE: ENODEV)" ;;
*) fail "PR_SCHED_CORE_GET on the test itself: $here" ;;
esac

start_daemon

spawn --argv0 lt-cs-proc --threads 2
p1=$SPAWNED_PID p1_tids=("${SPAWNED_TIDS[@]}")
spawn --argv0 lt-cs-proc
p2=$SPAWNED_PID
spawn --argv0 lt-cs-rule --threads 1
r1=$SPAWNED_PID r1_tids=("${SPAWNED_TIDS[@]}")
spawn --argv0 lt-cs-rule
r2=$SPAWNED_PID
for t in "${p1_tids[@]}" "$p2"; do
        wait_until 5 attr_is "$t" nice 3 || fail "$t of lt-cs-proc did not get Nice=3"
done
for t in "${r1_tids[@]}" "$r2"; do
        wait_until 5 attr_is "$t" nice 4 || fail "$t of lt-cs-rule did not get Nice=4"
done

if [ $supported = 0 ]; then
        # The other settings applied (above); the kernel's lack said once.
        n=$(grep -c "CoreSched= ignored" "$LOG")
        [ "$n" = 1 ] || fail "expected one \"CoreSched= ignored\" notice, found $n"
        for t in "${p1_tids[@]}" "$p2" "${r1_tids[@]}" "$r2"; do
                cookie_is "$t" "$here" || fail "$t: PR_SCHED_CORE_GET changed ($(cookie "$t"))"
        done
        echo "ok - without core scheduling: rules load, other settings apply, said once"
        echo "SKIP: core scheduling: $why"
        exit 77
fi

# A process that made a cookie of its own before latniced saw it.
"$PY" - lt-cs-foreign "$T" <<'PY' &
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(ctypes.c_int(62), ctypes.c_ulong(1), ctypes.c_ulong(0), ctypes.c_ulong(0),
              ctypes.c_ulong(0)) < 0:
    sys.exit(1)
open(sys.argv[2] + "/foreign.pid", "w").write(str(os.getpid()))
time.sleep(3600)
PY
PIDS+=($!)
wait_until 10 test -s "$T/foreign.pid" || fail "the foreign-cookie helper did not start"
foreign=$(cat "$T/foreign.pid")
foreign_cookie=$(cookie "$foreign")
[ "$foreign_cookie" != 0 ] || fail "the helper has no cookie of its own"
reload_daemon # a rescan: it sees the helper now
wait_until 5 attr_is "$foreign" nice 3 || fail "the foreign-cookie helper did not get Nice=3"

for t in "${p1_tids[@]}" "$p2" "${r1_tids[@]}" "$r2"; do
        wait_until 5 cookie_set "$t" || fail "$t has no cookie: $(cookie "$t")"
done
c_p1=$(cookie "$p1") c_p2=$(cookie "$p2") c_r1=$(cookie "$r1") c_r2=$(cookie "$r2")
for t in "${p1_tids[@]}"; do cookie_is "$t" "$c_p1" || fail "thread $t of $p1: other cookie"; done
for t in "${r1_tids[@]}"; do cookie_is "$t" "$c_r1" || fail "thread $t of $r1: other cookie"; done
[ "$c_p1" != "$c_p2" ] || fail "CoreSched=process: two processes share cookie $c_p1"
[ "$c_r1" = "$c_r2" ] || fail "CoreSched=rule: $c_r1 and $c_r2"
[ "$c_r1" != "$c_p1" ] && [ "$c_r1" != "$c_p2" ] || fail "the rule's cookie is a process's"
cookie_is "$foreign" "$foreign_cookie" || fail "latniced replaced a cookie it did not set"
cookie_is "$DAEMON" 0 || fail "latniced itself has a cookie"
echo "ok - process: a cookie each (threads share it), rule: one, someone else's kept"

stop_daemon || fail "latniced exited with an error"
for t in "${p1_tids[@]}" "$p2" "${r1_tids[@]}" "$r2"; do
        cookie_is "$t" 0 || fail "$t still has cookie $(cookie "$t") after latniced's exit"
done
cookie_is "$foreign" "$foreign_cookie" || fail "latniced's exit took someone else's cookie"
echo "ok - latniced's exit: no cookie left, someone else's kept"
