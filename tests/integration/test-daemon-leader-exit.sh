#!/usr/bin/env bash
# A process whose main thread exits (pthread_exit) while its other threads
# run, as nobody: its leader shows State Z, the process is alive. latniced
# must keep managing it: a reload's new value reaches its threads, a thread
# it starts after the main thread's exit is managed, and SIGTERM gives every
# live thread its original back. Before, the Z of the leader was taken for
# the death of the process: its records were dropped and the boost or
# demotion stayed after latniced stopped (a way to keep a boost).
. "$(dirname "$0")/test-daemon-lib.sh" "$@"

cat >"$POL/50-leader.policy" <<'P'
[Rule leader-exit]
Match = name:lt-leaderx
Nice = 7
P

BASE=$(attr $$ nice)
[ -n "$BASE" ] || fail "cannot read this shell's nice"
# by name: once the main thread has gone, /proc/PID/cmdline reads empty
chmod 0755 "$T"
cp /usr/bin/python3 "$T/lt-leaderx"
mkdir -m 0777 "$T/io"
start_daemon

# The main thread starts a worker and exits; at $T/go the worker starts a
# late thread and writes its tid; both then wait to be killed.
"${NOBODY[@]}" "$T/lt-leaderx" - "$T/io" <<'PY' &
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
pid=$!
PIDS+=("$pid")
wait_until 10 test -s "$T/io/worker.tid" || fail "python helper did not start its worker"
worker=$(cat "$T/io/worker.tid")
wait_until 10 eval '[ "$(awk "/^State:/ {print \$2}" /proc/$pid/status)" = Z ]' ||
        fail "the helper's main thread did not exit"
wait_until 5 attr_is "$worker" nice 7 || fail "worker $worker: nice $(attr "$worker" nice), not 7"

# A thread started after the main thread's exit: latniced's too.
touch "$T/io/go"
wait_until 10 test -s "$T/io/late.tid" || fail "the worker did not start its late thread"
late=$(cat "$T/io/late.tid")
wait_until 5 attr_is "$late" nice 7 || fail "late thread $late: nice $(attr "$late" nice), not 7"

# A reload's new value reaches the live threads.
sed -i 's/^Nice = 7/Nice = 9/' "$POL/50-leader.policy"
reload_daemon
for t in "$worker" "$late"; do
        wait_until 5 attr_is "$t" nice 9 || fail "thread $t after the reload: nice $(attr "$t" nice), not 9"
done

stop_daemon || fail "latniced exited with $?"
for t in "$worker" "$late"; do
        attr_is "$t" nice "$BASE" || fail "thread $t not restored on SIGTERM (nice $(attr "$t" nice), was $BASE)"
done
echo "PASS"
