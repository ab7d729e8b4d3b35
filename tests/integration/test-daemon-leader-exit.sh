#!/usr/bin/env bash
# A process whose main thread exits (pthread_exit) while its other threads
# run, as nobody: its leader shows State Z, the process is alive. latniced
# must keep managing it: a reload's new value reaches its threads, a thread
# it starts after the main thread's exit is managed, and SIGTERM gives every
# live thread its original back. Before, the Z of the leader was taken for
# the death of the process: its records were dropped and the boost or
# demotion stayed after latniced stopped (a way to keep a boost).
#
# Its identity stays too: the leader's cmdline reads empty once it has
# exited, so a cmdline: rule stopped matching at the process's next
# evaluation (a new thread, a reload) and its demotion was given back: a
# user shed it by ending the main thread. latniced reads the cmdline (and
# exe, environ) through a live thread then (lib/proc-live.h).
. "$(dirname "$0")/test-daemon-lib.sh" "$@"

cat >"$POL/50-leader.policy" <<'P'
[Rule leader-exit]
Match = name:lt-leaderx
Nice = 7

[Rule leader-exit-cmdline]
Match = cmdline:"*--lt-ident-demote*"
Nice = 11

[Rule barrier]
Match = name:lt-lx-barrier
Nice = 1
P

# A process a rule matches, started after the events a check depends on, is
# a barrier: latniced reads events in order, so once its nice shows, those
# events were handled (not just that a thread inherited its creator's nice).
barrier() {
        spawn --argv0 lt-lx-barrier
        wait_until 10 attr_is "$SPAWNED_PID" nice 1 || fail "barrier $SPAWNED_PID not applied"
}

BASE=$(attr $$ nice)
[ -n "$BASE" ] || fail "cannot read this shell's nice"
# by name: once the main thread has gone, the leader's /proc/PID/cmdline
# reads empty (the comm and the exe's name still give the name)
chmod 0755 "$T"
cp /usr/bin/python3 "$T/lt-leaderx"
# by command line only: its name matches no rule
cp /usr/bin/python3 "$T/lt-cmdx"
mkdir -m 0777 "$T/io" "$T/io-cmd"

# The main thread starts a worker and exits; at DIR/go the worker starts a
# late thread and writes its tid; both then wait to be killed.
cat >"$T/leaderx.py" <<'PY'
import ctypes, os, sys, threading, time
d = sys.argv[1]
def late():
    open(d + "/late.tid.tmp", "w").write(str(threading.get_native_id()))
    os.rename(d + "/late.tid.tmp", d + "/late.tid")
    time.sleep(600)
def worker():
    open(d + "/worker.tid.tmp", "w").write(str(threading.get_native_id()))
    os.rename(d + "/worker.tid.tmp", d + "/worker.tid")
    while not os.path.exists(d + "/go"):
        time.sleep(0.05)
    threading.Thread(target=late).start()
    time.sleep(600)
threading.Thread(target=worker).start()
while not os.path.exists(d + "/worker.tid"):
    time.sleep(0.01)
ctypes.CDLL(None).pthread_exit(None)
PY
chmod 0644 "$T/leaderx.py"
start_daemon

# leader_exited PID DIR: waits for the worker's tid in DIR/worker.tid and
# for the main thread of PID to have exited.
leader_exited() {
        wait_until 10 test -s "$2/worker.tid" || fail "python helper $1 did not start its worker"
        wait_until 10 eval '[ "$(awk "/^State:/ {print \$2}" /proc/'"$1"'/status)" = Z ]' ||
                fail "the main thread of helper $1 did not exit"
}

"${NOBODY[@]}" "$T/lt-leaderx" "$T/leaderx.py" "$T/io" &
pid=$!
PIDS+=("$pid")
"${NOBODY[@]}" "$T/lt-cmdx" "$T/leaderx.py" "$T/io-cmd" --lt-ident-demote &
cpid=$!
PIDS+=("$cpid")
leader_exited "$pid" "$T/io"
leader_exited "$cpid" "$T/io-cmd"
worker=$(cat "$T/io/worker.tid")
cworker=$(cat "$T/io-cmd/worker.tid")
wait_until 5 attr_is "$worker" nice 7 || fail "worker $worker: nice $(attr "$worker" nice), not 7"
wait_until 5 attr_is "$cworker" nice 11 ||
        fail "cmdline worker $cworker: nice $(attr "$cworker" nice), not 11"
[ -z "$(tr -d '\0' <"/proc/$cpid/cmdline")" ] ||
        fail "the leader's cmdline of $cpid is not empty: this test no longer tests the thread read"

# A thread started after the main thread's exit: latniced's too, and it is
# an evaluation of the process, which must still match on its command line.
touch "$T/io/go" "$T/io-cmd/go"
wait_until 10 test -s "$T/io/late.tid" || fail "the worker did not start its late thread"
wait_until 10 test -s "$T/io-cmd/late.tid" || fail "the cmdline worker did not start its late thread"
late=$(cat "$T/io/late.tid")
clate=$(cat "$T/io-cmd/late.tid")
wait_until 5 attr_is "$late" nice 7 || fail "late thread $late: nice $(attr "$late" nice), not 7"
# The late thread starts with its creator's nice 11; after the barrier its
# evaluation is done, which on the leader's empty cmdline gave it back.
barrier
attr_is "$clate" nice 11 || fail "cmdline late thread $clate: nice $(attr "$clate" nice), not 11"
attr_is "$cworker" nice 11 ||
        fail "cmdline worker $cworker after the late thread: nice $(attr "$cworker" nice), not 11"

# A reload's new values reach the live threads: the process is read again
# from scratch, so its command line must come from a live thread.
sed -i -e 's/^Nice = 7/Nice = 9/' -e 's/^Nice = 11/Nice = 13/' "$POL/50-leader.policy"
reload_daemon
for t in "$worker" "$late"; do
        wait_until 5 attr_is "$t" nice 9 || fail "thread $t after the reload: nice $(attr "$t" nice), not 9"
done
for t in "$cworker" "$clate"; do
        wait_until 5 attr_is "$t" nice 13 ||
                fail "cmdline thread $t after the reload: nice $(attr "$t" nice), not 13 (the demotion was shed)"
done
# getpriority() says the same as sched_getattr()
for t in "$cworker" "$clate"; do
        [ "$(python3 -c 'import os, sys; print(os.getpriority(os.PRIO_PROCESS, int(sys.argv[1])))' "$t")" = 13 ] ||
                fail "getpriority($t) is not 13"
done

stop_daemon || fail "latniced exited with $?"
for t in "$worker" "$late" "$cworker" "$clate"; do
        attr_is "$t" nice "$BASE" || fail "thread $t not restored on SIGTERM (nice $(attr "$t" nice), was $BASE)"
done
echo "PASS"
