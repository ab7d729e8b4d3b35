#!/usr/bin/env bash
# Every thread of a matched process gets the settings, also threads created
# later (tracked: SIGTERM gives them their originals back); a thread: rule
# hits only the thread with that name, also when it renames itself later.
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
P

start_daemon

spawn --argv0 lt-threaded-proc --threads 3
threaded=("${SPAWNED_TIDS[@]}")
[ ${#threaded[@]} -eq 4 ] || fail "expected 4 tids, got ${threaded[*]}"
for t in "${threaded[@]}"; do
        wait_until 2 attr_is "$t" nice 2 || fail "thread $t of lt-threaded-proc not applied"
done

# A process that starts a thread only after latniced applied its settings.
/usr/bin/python3 - lt-late-threads-marker "$T" <<'PY' &
import os, sys, threading, time
t = sys.argv[2]
print(os.getpid(), flush=True)
open(t + "/late.pid", "w").write(str(os.getpid()))
while not os.path.exists(t + "/go"):
    time.sleep(0.01)
def run():
    open(t + "/late.tid.tmp", "w").write(str(threading.get_native_id()))
    os.rename(t + "/late.tid.tmp", t + "/late.tid")
    time.sleep(3600)
threading.Thread(target=run, daemon=True).start()
time.sleep(3600)
PY
PIDS+=($!)
wait_until 5 test -s "$T/late.pid" || fail "python helper did not start"
late=$(cat "$T/late.pid")
wait_until 2 attr_is "$late" nice 3 || fail "late-threads process not applied"
touch "$T/go"
wait_until 5 test -s "$T/late.tid" || fail "python helper did not start its thread"
late_tid=$(cat "$T/late.tid")
[ "$late_tid" != "$late" ] || fail "late thread id"
wait_until 2 attr_is "$late_tid" nice 3 || fail "late thread $late_tid not at nice 3"

# thread: rule hits only the named thread
spawn --argv0 lt-pw --threads 2 --thread-name data-loop --thread-name io
pw=("${SPAWNED_TIDS[@]}")
wait_until 2 attr_is "${pw[1]}" nice 4 || fail "data-loop thread ${pw[1]} not applied"
attr_is "${pw[0]}" nice 0 || fail "main thread of lt-pw must stay untouched"
attr_is "${pw[2]}" nice 0 || fail "io thread of lt-pw must stay untouched"

# ... and a thread that renames itself to data-loop* later
spawn --argv0 lt-pw2 --threads 1 --thread-name worker --rename-thread-after 0.5 data-loop-late
pw2=("${SPAWNED_TIDS[@]}")
attr_is "${pw2[1]}" nice 0 || fail "worker thread must start untouched"
wait_until 5 grep -q "^renamed tid=${pw2[1]}" "$SPAWNED_OUT" || fail "thread did not rename itself"
wait_until 2 attr_is "${pw2[1]}" nice 5 || fail "renamed thread ${pw2[1]} not applied"
attr_is "${pw2[0]}" nice 0 || fail "main thread of lt-pw2 must stay untouched"

# SIGTERM restores every thread, including the one created later.
stop_daemon || fail "latniced exited with $?"
for t in "${threaded[@]}" "$late" "$late_tid" "${pw[1]}" "${pw2[1]}"; do
        attr_is "$t" nice 0 || fail "thread $t not restored on SIGTERM (nice $(attr "$t" nice))"
done
echo "PASS"
