#!/usr/bin/env bash
# Every thread of a matched process gets the settings, also threads created
# later (tracked: SIGTERM gives them their originals back, also to a thread
# started just before it); a thread: rule hits only the thread with that
# name, also when it renames itself later; a process someone reniced keeps
# its new threads and gets back only what nobody changed.
. "$(dirname "$0")/test-daemon-lib.sh" "$@"

cat >"$POL/50-threads.policy" <<'P'
[Rule all-threads]
Match = name:lt-threaded-proc
Nice = 2

[Rule late-threads]
Match = cmdline:"*lt-late-threads-marker*"
Nice = 3

[Rule data-loop]
Match = name:lt-pw && thread:data-loop*
Nice = 4

[Rule data-loop-renamed]
Match = name:lt-pw2 && thread:data-loop*
Nice = 5

[Rule owned]
Match = cmdline:"*lt-owned-marker*"
Nice = 2
TimerSlack = 1ms
P

start_daemon

spawn --argv0 lt-threaded-proc --threads 3
threaded=("${SPAWNED_TIDS[@]}")
[ ${#threaded[@]} -eq 4 ] || fail "expected 4 tids, got ${threaded[*]}"
for t in "${threaded[@]}"; do
        wait_until 2 attr_is "$t" nice 2 || fail "thread $t of lt-threaded-proc not applied"
done

# A process that starts a thread only after latniced applied its settings.
thread_later lt-late-threads-marker late
late=$LATER_PID
wait_until 2 attr_is "$late" nice 3 || fail "late-threads process not applied"
thread_later_go late
late_tid=$LATER_TID
[ "$late_tid" != "$late" ] || fail "late thread id"
wait_until 2 attr_is "$late_tid" nice 3 || fail "late thread $late_tid not at nice 3"

# Someone renices a managed process's main thread, which then starts a
# thread: the new thread inherited the user's nice and is left alone, and on
# exit the main thread gets back the timer slack latniced set (the nice is
# the user's).
own_slack=$(attr $$ timerslack_ns)
thread_later lt-owned-marker owned
owned=$LATER_PID
wait_until 2 attr_is "$owned" nice 2 || fail "owned process not applied"
wait_until 2 attr_is "$owned" timerslack_ns 1000000 || fail "owned process: no TimerSlack"
renice -n 7 -p "$owned" >/dev/null || fail "renice $owned"
thread_later_go owned
owned_tid=$LATER_TID
# latniced's log only says when it has looked; the kernel says what it did.
wait_until 5 grep -q "$owned/$owned_tid: new thread of a process someone else changed" "$LOG" ||
        fail "latniced did not leave the new thread $owned_tid of a reniced process alone"
attr_is "$owned_tid" nice 7 || fail "new thread $owned_tid: nice $(attr "$owned_tid" nice), not the inherited 7"

# thread: rule hits only the named thread
spawn --argv0 lt-pw --threads 2 --thread-name data-loop --thread-name io
pw=("${SPAWNED_TIDS[@]}")
wait_until 2 attr_is "${pw[1]}" nice 4 || fail "data-loop thread ${pw[1]} not applied"
attr_is "${pw[0]}" nice 0 || fail "main thread of lt-pw must stay untouched"
attr_is "${pw[2]}" nice 0 || fail "io thread of lt-pw must stay untouched"

# ... and a thread that renames itself to data-loop* later
spawn --argv0 lt-pw2 --threads 1 --thread-name worker --rename-thread-after 0.5 data-loop-late
pw2=("${SPAWNED_TIDS[@]}")
# Untouched while it is still "worker": nice first, then the name (on a
# busy machine the half second may be over already; then nothing is shown).
n=$(attr "${pw2[1]}" nice)
if [ "$(cat "/proc/${pw2[0]}/task/${pw2[1]}/comm")" = worker ]; then
        [ "$n" = 0 ] || fail "worker thread must start untouched (nice $n)"
else
        echo "# worker thread renamed before it was looked at: not checked untouched"
fi
wait_until 5 grep -q "^renamed tid=${pw2[1]}" "$SPAWNED_OUT" || fail "thread did not rename itself"
wait_until 2 attr_is "${pw2[1]}" nice 5 || fail "renamed thread ${pw2[1]} not applied"
attr_is "${pw2[0]}" nice 0 || fail "main thread of lt-pw2 must stay untouched"

# SIGTERM restores every thread, including the ones created later, and a
# thread started just before it: a helper sends SIGTERM itself right after
# starting a thread, and nothing execs meanwhile (bash's ': >' and wait are
# builtins), so no exec or rename brings that thread's fork event in;
# latniced hands on the queued forks before it puts things back. A thread
# that came and went first makes the fork and exit socket's watch rest.
/usr/bin/python3 - lt-late-threads-marker-last "$T" "$DAEMON" <<'PY' &
import os, signal, sys, threading, time
t, daemon = sys.argv[2], int(sys.argv[3])
open(t + "/last.pid.tmp", "w").write(str(os.getpid()))
os.rename(t + "/last.pid.tmp", t + "/last.pid")
while not os.path.exists(t + "/go-last"):
    time.sleep(0.01)
throwaway = threading.Thread(target=lambda: None)
throwaway.start()
throwaway.join()
time.sleep(0.2)
started = threading.Event()
tid = []
def run():
    tid.append(threading.get_native_id())
    started.set()
    time.sleep(3600)
threading.Thread(target=run, daemon=True).start()
started.wait()
os.kill(daemon, signal.SIGTERM)
open(t + "/last.tid.tmp", "w").write(str(tid[0]))
os.rename(t + "/last.tid.tmp", t + "/last.tid")
time.sleep(3600)
PY
PIDS+=($!)
wait_until 5 test -s "$T/last.pid" || fail "python helper (last) did not start"
last=$(cat "$T/last.pid")
wait_until 2 attr_is "$last" nice 3 || fail "last-thread process not applied"
: >"$T/go-last"
wait "$DAEMON" || fail "latniced exited with $?"
DAEMON=
wait_until 5 test -s "$T/last.tid" || fail "python helper (last) did not start its thread"
last_tid=$(cat "$T/last.tid")
grep -q "$last/$last_tid" "$LOG" || fail "latniced never looked at the thread $last_tid started before SIGTERM"
for t in "${threaded[@]}" "$late" "$late_tid" "${pw[1]}" "${pw2[1]}" "$last" "$last_tid"; do
        attr_is "$t" nice 0 || fail "thread $t not restored on SIGTERM (nice $(attr "$t" nice))"
done
attr_is "$owned" nice 7 || fail "the user's nice of $owned was not left alone on SIGTERM"
attr_is "$owned" timerslack_ns "$own_slack" ||
        fail "timer slack of reniced $owned not restored on SIGTERM ($(attr "$owned" timerslack_ns))"
attr_is "$owned_tid" nice 7 || fail "new thread $owned_tid of a reniced process changed on SIGTERM"
echo "PASS"
