#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Authorization of org.latnice.Daemon1, with latnicectl and busctl run as an
# unprivileged user (setpriv --reuid=nobody):
#   - reading (status, list, introspection, properties, Explain) works;
#   - changing another user's process is refused, in either direction, and
#     the process is left as it was (checked with sched_getattr);
#   - making one's own process less latency-sensitive is allowed and takes
#     effect (sched_getattr), making it more sensitive is refused;
#   - Reload and SetUnit are refused; so are they, and SetTask on another
#     user's process, for a caller with CAP_SYS_NICE but not root: the bus
#     does not vouch for capabilities (latniced reads none from /proc).
#
# Usage: test-dbus-auth.sh BUILD_ROOT SOURCE_ROOT (as root)
. "$(dirname "$0")/test-dbus-lib.sh"
dbus_init "$@"
cat >"$TMP/vendor/50-auth.policy" <<'POLICY'
[Rule auth-test]
Match = name:ln-auth-root
Nice = 2
POLICY
dbus_start_bus
dbus_start_daemon

nctl() {
        as_nobody "$LATNICECTL" --bus "$ADDR" "$@"
}

# ---- reading is open to everyone ------------------------------------------
nctl --json status | py_assert "d['rules'] == 1" "status as nobody"
nctl --json list >/dev/null || fail "list as nobody"
# Read whole, then searched: grep -q on the pipe would end it at the first
# match, and busctl's next write would fail with SIGPIPE (pipefail).
introspection=$(as_nobody busctl --address="$ADDR" introspect org.latnice.Daemon1 \
                /org/latnice/Daemon1) || fail "introspection as nobody failed"
grep -q '^\.SetTask' <<<"$introspection" || fail "introspection as nobody"
[ "$(as_nobody busctl --address="$ADDR" get-property org.latnice.Daemon1 /org/latnice/Daemon1 org.latnice.Daemon1 Rules)" = "t 1" ] ||
        fail "get-property as nobody"
as_nobody busctl --address="$ADDR" call org.latnice.Daemon1 /org/latnice/Daemon1 org.latnice.Daemon1 \
        Explain u 1 >/dev/null || fail "Explain as nobody"
as_nobody busctl --address="$ADDR" call org.latnice.Daemon1 /org/latnice/Daemon1 org.latnice.Daemon1 \
        GetKernel >/dev/null || fail "GetKernel as nobody"
echo "ok - nobody reads status, list, kernel, explain, properties, introspection"

# ---- another user's process -----------------------------------------------
spawn ln-auth-root
rootpid=$SPAWNED
wait_for "rule auth-test on $rootpid" sh -c "[ \"\$('$GETATTR' --json $rootpid | $PY -c 'import json,sys; print(json.load(sys.stdin)[\"nice\"])')\" = 2 ]"
expect_fail "nobody lowers the latency nice of root's process" \
        "refused: it belongs to uid 0, not to the caller \(uid 65534\)" nctl set "$rootpid" LatencyNice=-5
expect_fail "nobody raises the latency nice of root's process" "refused: it belongs to uid 0" \
        nctl set "$rootpid" LatencyNice=10 Nice=10
expect_fail "nobody via busctl" "AccessDenied|refused: it belongs to uid 0" \
        as_nobody busctl --address="$ADDR" call org.latnice.Daemon1 /org/latnice/Daemon1 \
        org.latnice.Daemon1 SetTask 'ua{sv}' "$rootpid" 1 Nice i 15
[ "$(getattr "$rootpid" nice)" = 2 ] || fail "root's process was changed by nobody"
[ "$(getattr "$rootpid" slice_ns)" = "$("$GETATTR" --json $$ | py "d['slice_ns']")" ] ||
        fail "root's process slice was changed by nobody"
echo "ok - another user's process is refused and unchanged"

# ---- one's own process ----------------------------------------------------
spawn ln-auth-own nobody
own=$SPAWNED
# (the uid is read on every try: setpriv changes it just before its exec)
wait_for "own process $own" sh -c "[ \"\$(stat -c %u /proc/$own)\" = 65534 ] && [ \"\$(readlink /proc/$own/exe)\" = '$TMP/ln-auth-own' ]"

nctl set "$own" LatencyNice=10 || fail "nobody raising the latency nice of its own process"
if [ "$(getattr "$own" latency_nice)" = None ]; then
        # slice backend: latency nice 10 is a longer slice, from GetKernel's table
        want=$(call GetKernel | py "dict(d['data'][0]['LatencyNiceSlices']['data'])[10]")
        [ "$(getattr "$own" slice_ns)" = "$want" ] ||
                fail "LatencyNice=10 (slice backend): slice is $(getattr "$own" slice_ns), expected $want"
else
        [ "$(getattr "$own" latency_nice)" = 10 ] || fail "LatencyNice=10 not applied"
fi
echo "ok - nobody raises the latency nice of its own process (verified with sched_getattr)"

expect_fail "nobody lowers the latency nice of its own process" \
        "LatencyNice=-5 .*less latency-sensitive" nctl set "$own" LatencyNice=-5
nctl set "$own" Nice=5 || fail "own Nice=5"
[ "$(getattr "$own" nice)" = 5 ] || fail "own Nice=5 not applied"
expect_fail "nobody lowers its own nice" "Nice=1 would lower the nice value" nctl set "$own" Nice=1
[ "$(getattr "$own" nice)" = 5 ] || fail "refused Nice=1 changed the process"
nctl set "$own" TimerSlack=2ms || fail "own TimerSlack=2ms"
[ "$(getattr "$own" timerslack_ns)" = 2000000 ] || fail "own TimerSlack not applied"
expect_fail "nobody lowers its own timer slack" "would lower the timer slack" nctl set "$own" TimerSlack=1us
nctl set "$own" Slice=80ms || fail "own Slice=80ms"
[ "$(getattr "$own" slice_ns)" = 80000000 ] || fail "own Slice=80ms not applied"
expect_fail "nobody shortens its own slice" "would shorten the slice" nctl set "$own" Slice=0.1ms
nctl set "$own" Policy=batch || fail "own Policy=batch"
[ "$(getattr "$own" policy)" = batch ] || fail "own Policy=batch not applied"
expect_fail "nobody goes back to Policy=other" "Policy=other would leave policy batch" nctl set "$own" Policy=other
nctl set "$own" Policy=idle || fail "own Policy=idle"
[ "$(getattr "$own" policy)" = idle ] || fail "own Policy=idle not applied"
expect_fail "nobody leaves idle for batch" "would leave policy idle" nctl set "$own" Policy=batch
echo "ok - own process: only less latency-sensitive changes pass, each verified"

# ---- changes that need privileges -----------------------------------------
expect_fail "nobody reloads" "Reload needs root \\(the bus reports caller uid 65534\\)" nctl reload
expect_fail "nobody sets a unit" "SetUnit needs root" nctl set-unit latnice-auth.service CPUWeight=50
[ ! -e "$TMP/admin/90-unit-latnice-auth.service.policy" ] || fail "a refused set-unit wrote a file"

# CAP_SYS_NICE without root is not enough: sd-bus would read it from
# /proc/PID of the caller's pid, which another process may have by then
# (test-dbus-pidreuse.sh); the bus itself reports only the uid
capctl() {
        setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=+sys_nice \
                --ambient-caps=+sys_nice "$LATNICECTL" --bus "$ADDR" "$@"
}
expect_fail "nobody with CAP_SYS_NICE sets root's process" "refused: it belongs to uid 0" \
        capctl set "$rootpid" Nice=-3
[ "$(getattr "$rootpid" nice)" = 2 ] || fail "nobody with CAP_SYS_NICE changed root's process"
expect_fail "nobody with CAP_SYS_NICE reloads" "Reload needs root" capctl reload
echo "ok - Reload/SetUnit refused without root; CAP_SYS_NICE alone grants nothing over D-Bus"

daemon_alive "end of authorization test"
echo "PASS"
