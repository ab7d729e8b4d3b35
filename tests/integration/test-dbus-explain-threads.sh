#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# D-Bus ExplainThreads on the real latniced on a private system-like bus: a
# process whose threads a thread: rule tells apart gets one result per
# thread, and each result is what the kernel reports latniced applied to
# that thread (tests/helpers/ln-getattr), not latniced's word alone; a
# pid that does not exist fails as Explain does.
#
# Usage: test-dbus-explain-threads.sh BUILD_ROOT SOURCE_ROOT (as root)
. "$(dirname "$0")/test-dbus-lib.sh"
dbus_init "$@"
SPAWN=$BUILD/tests/helpers/ln-spawn
[ -x "$SPAWN" ] || fail "$SPAWN was not built"

cat >"$TMP/vendor/50-dbus-threads.policy" <<'POLICY'
[Rule dt-workers]
Match = name:ln-dt-proc && thread:worker-*
Nice = 9

[Rule dt-io]
Match = name:ln-dt-proc && thread:io
TimerSlack = 2ms
POLICY
dbus_start_bus
dbus_start_daemon

"$SPAWN" --argv0 ln-dt-proc --threads 2 --thread-name worker-1 --thread-name io \
        >"$TMP/spawn.out" &
CHILDREN+=($!)
wait_for "ln-spawn to start" grep -q "^pid=" "$TMP/spawn.out"
line=$(grep "^pid=" "$TMP/spawn.out" | head -n1)
pid=$(sed 's/^pid=\([0-9]*\).*/\1/' <<<"$line")
IFS=, read -r -a tids <<<"$(sed 's/.*tids=//' <<<"$line")"
[ ${#tids[@]} -eq 3 ] || fail "expected 3 threads, got ${tids[*]}"
main=${tids[0]} worker=${tids[1]} io=${tids[2]}

slack_is() { [ "$(getattr "$1" timerslack_ns)" = "$2" ]; }
wait_for "Nice=9 on thread $worker (worker-1)" nice_is "$worker" 9
wait_for "TimerSlack=2ms on thread $io (io)" slack_is "$io" 2000000

# explain_threads PID: ExplainThreads into $TMP/threads.json. A read of the
# command line cut short on a busy machine makes it fail with EBUSY ("try
# again later", after its user's penalty, 1 s doubling): then it is tried
# again, for up to 120 s.
explain_threads() {
        local i
        for ((i = 0; i < 240; i++)); do
                call ExplainThreads u "$1" >"$TMP/threads.json" 2>"$TMP/threads.err" && return 0
                grep -q "try again later" "$TMP/threads.err" || break
                sleep 0.5
        done
        fail "ExplainThreads $1: $(cat "$TMP/threads.err")"
}

# What the kernel has, per thread, against what ExplainThreads says.
explain_threads "$pid"
"$PY" - "$TMP/threads.json" "$main" "$worker" "$io" \
        "$(getattr "$main" nice)" "$(getattr "$worker" nice)" "$(getattr "$io" nice)" \
        "$(getattr "$io" timerslack_ns)" <<'PYTHON' || fail "ExplainThreads $pid: $(cat "$TMP/threads.json")"
import json, sys
d = json.load(open(sys.argv[1]))
main, worker, io = (int(x) for x in sys.argv[2:5])
nice = dict(zip((main, worker, io), (int(x) for x in sys.argv[5:8])))
slack = int(sys.argv[8])
threads = {t[0]: t for t in d["data"][0]}
assert sorted(threads) == sorted((main, worker, io)), threads
assert threads[worker][1] == "worker-1" and threads[io][1] == "io", threads
for tid, t in threads.items():
    got = t[2].get("Nice", {}).get("data", 0)
    assert got == nice[tid], (tid, got, nice[tid])
assert threads[worker][3] == "dt-workers" and threads[worker][2]["Nice"]["data"] == 9, threads[worker]
assert threads[io][3] == "dt-io" and threads[io][2]["TimerSlack"]["data"] == slack == 2000000, threads[io]
assert threads[main][2] == {} and threads[main][3] == "", threads[main]
for t in threads.values():
    assert t[4] == {} and t[5] == "", t
PYTHON
echo "ok - ExplainThreads: one result per thread, as the kernel has them"

# Explain still answers for the process, as before (its reply is unchanged).
for ((i = 0; i < 240; i++)); do
        call Explain u "$pid" >"$TMP/explain.json" 2>"$TMP/explain.err" && break
        grep -q "try again later" "$TMP/explain.err" || fail "Explain $pid: $(cat "$TMP/explain.err")"
        sleep 0.5
done
py_assert "d['data'][2] is True and d['data'][0] == {}" "Explain $pid" <"$TMP/explain.json"
echo "ok - Explain of the same process: thread-dependent, no process-wide settings"

# A pid that does not exist: the error Explain gives.
gone=$(cat /proc/sys/kernel/pid_max)
gone=$((gone - 1))
while [ -e "/proc/$gone" ]; do gone=$((gone - 1)); done
expect_fail "ExplainThreads of a pid that does not exist" "No process $gone" \
        call ExplainThreads u "$gone"
echo "PASS"
