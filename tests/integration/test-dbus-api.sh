#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Every method, property and signal of org.latnice.Daemon1, through busctl
# and through latnicectl, on the real latniced on a private system-like bus:
# introspection, GetStatus/GetKernel/ListTasks/Explain/SetTask/SetUnit/Reload,
# the properties, TaskApplied via `latnicectl monitor`. JSON output is parsed
# with python; what latniced applied is checked with sched_getattr
# (tests/helpers/ln-getattr) and /proc, never with latniced's own word.
#
# Usage: test-dbus-api.sh BUILD_ROOT SOURCE_ROOT (as root)
. "$(dirname "$0")/test-dbus-lib.sh"
dbus_init "$@"

cat >"$TMP/vendor/50-dbus-test.policy" <<'POLICY'
[Rule dbus-test]
Match = name:ln-dbus-sleep || name:ln-dbus-storm
Nice = 7
TimerSlack = 3ms
POLICY
# A cgroup tree of our own (--cgroup-root): set-unit must reach this unit's files.
cg=$TMP/cg/system.slice/latnice-test.service
mkdir -p "$cg"
echo 100 >"$cg/cpu.weight"
echo 0 >"$cg/cpu.idle"
dbus_start_bus
dbus_start_daemon --cgroup-root "$TMP/cg"

version=$(sed -n "s/^ *version : '\([^']*\)'.*/\1/p" "$SRC/meson.build" | head -n1)
[ -n "$version" ] || fail "cannot find the project version in meson.build"

# ---- introspection --------------------------------------------------------
bctl introspect --xml-interface org.latnice.Daemon1 /org/latnice/Daemon1 >"$TMP/intro.xml" ||
        fail "busctl introspect failed"
"$PY" - "$TMP/intro.xml" <<'PYTHON' || exit 1
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ifaces = {i.get("name"): i for i in root.findall("interface")}
for std in ("org.freedesktop.DBus.Introspectable", "org.freedesktop.DBus.Properties",
            "org.freedesktop.DBus.Peer", "org.latnice.Daemon1"):
    assert std in ifaces, "interface %s missing" % std
i = ifaces["org.latnice.Daemon1"]
def sig(m, direction):
    return "".join(a.get("type") for a in m.findall("arg") if a.get("direction", "out" if m.tag == "signal" else "in") == direction)
methods = {m.get("name"): (sig(m, "in"), sig(m, "out")) for m in i.findall("method")}
want = {
    "GetStatus": ("", "a{sv}"),
    "GetKernel": ("", "a{sv}"),
    "ListTasks": ("", "a(uusssb)"),
    "Explain": ("u", "a{sv}sba(ssussa{sv})a{sv}s"),
    "ExplainThreads": ("u", "a(usa{sv}sa{sv}s)"),
    "SetTask": ("ua{sv}", ""),
    "SetUnit": ("sa{sv}b", "s"),
    "Reload": ("", "as"),
    "SetFocus": ("u", ""),
    "GetFocus": ("u", "sst"),
    "GetAudio": ("u", "ssu"),
}
assert methods == want, "methods: %r" % methods
for m in i.findall("method"):
    for a in m.findall("arg"):
        assert a.get("name"), "unnamed argument in %s" % m.get("name")
signals = {s.get("name"): sig(s, "out") for s in i.findall("signal")}
assert signals == {"TaskApplied": "uuss", "FocusChanged": "suss",
                   "AudioStream": "ussu"}, "signals: %r" % signals
props = {}
for p in i.findall("property"):
    ann = {a.get("name"): a.get("value") for a in p.findall("annotation")}
    assert p.get("access") == "read", "%s is writable" % p.get("name")
    props[p.get("name")] = (p.get("type"), ann.get("org.freedesktop.DBus.Property.EmitsChangedSignal"))
for name in ("Version", "KernelRelease", "StartTimestamp"):
    assert props.pop(name)[1] == "const", name
for name, t in (("PreemptionModel", "s"), ("Preemption", "s"), ("HZ", "u")):
    assert props.pop(name) == (t, "const"), name
for name, t in (("SchedExtState", "s"), ("SchedExtScheduler", "s"), ("SettingsInEffect", "as")):
    assert props.pop(name) == (t, "false"), name
for name, t in (("Backend", "s"), ("DryRun", "b"), ("SchedExtActive", "b"),
                ("LastReloadTimestamp", "t"), ("Events", "t"), ("LostEvents", "t"),
                ("Rescans", "t"), ("Applied", "t"), ("Failed", "t"), ("ManagedTasks", "t"),
                ("UserOwnedTasks", "t"), ("FdExhaustions", "t"), ("PutOffEvaluations", "t"), ("BatchedStorms", "t"), ("SharedGroups", "t"), ("UnrecordedTasks", "t"),
                ("DeferredThreadEvents", "t"), ("OverflowedThreadEvents", "t"), ("Rules", "t"), ("PolicyFiles", "t"), ("Units", "t"),
                ("Evaluations", "t"), ("Restored", "t"), ("PolicyLoads", "t"),
                ("PolicyLoadsRejectingFiles", "t"), ("PolicyLoadFailures", "t")):
    assert props.pop(name) == (t, "false"), name
assert not props, "undocumented properties: %r" % props
PYTHON
# Read whole, then searched: grep -q on the pipe would end it at the first
# match, and busctl's next write would fail with SIGPIPE (pipefail).
introspection=$(bctl introspect org.latnice.Daemon1 /org/latnice/Daemon1) ||
        fail "busctl introspect failed"
grep -q '^\.TaskApplied *signal *uuss' <<<"$introspection" ||
        fail "busctl introspect does not list TaskApplied"
echo "ok - introspection: methods, signal and properties with their signatures"

# ---- properties -----------------------------------------------------------
[ "$(bctl get-property org.latnice.Daemon1 /org/latnice/Daemon1 org.latnice.Daemon1 Version)" = "s \"$version\"" ] ||
        fail "property Version is not $version"
[ "$(bctl get-property org.latnice.Daemon1 /org/latnice/Daemon1 org.latnice.Daemon1 KernelRelease)" = "s \"$(uname -r)\"" ] ||
        fail "property KernelRelease is not $(uname -r)"
[ "$(bctl get-property org.latnice.Daemon1 /org/latnice/Daemon1 org.latnice.Daemon1 Rules)" = "t 1" ] ||
        fail "property Rules is not 1"
bctl --json=short call org.latnice.Daemon1 /org/latnice/Daemon1 org.freedesktop.DBus.Properties \
        GetAll s org.latnice.Daemon1 | py_assert \
        'len(d["data"][0]) == 35 and d["data"][0]["DryRun"]["data"] is False and d["data"][0]["Backend"]["data"] in ("latency-nice", "slice", "none")' \
        "GetAll"
echo "ok - properties"

# ---- GetStatus ------------------------------------------------------------
call GetStatus | py_assert "
(lambda s: s['Version'] == '$version' and s['Rules'] == 1 and s['PolicyFiles'] == 1
 and s['PolicyDirectories'] == ['$TMP/vendor', '$TMP/run', '$TMP/admin']
 and s['Diagnostics'] == [] and s['DryRun'] is False and s['StartTimestamp'] > 0
 and s['Backend'] in ('latency-nice', 'slice', 'none'))({k: v['data'] for k, v in d['data'][0].items()})" \
        "GetStatus via busctl"
ctl --json status >"$TMP/status.json" || fail "latnicectl --json status"
py_assert "d['version'] == '$version' and d['rules'] == 1 and d['policy_directories'][-1] == '$TMP/admin' and isinstance(d['managed_tasks'], int) and d['diagnostics'] == []" \
        "latnicectl --json status" <"$TMP/status.json"
ctl status >"$TMP/status.txt" || fail "latnicectl status"
grep -q "^latniced $version, running since" "$TMP/status.txt" && grep -q "Backend: " "$TMP/status.txt" &&
        grep -q "Policy: 1 rules" "$TMP/status.txt" || { cat "$TMP/status.txt"; fail "latnicectl status text"; }
echo "ok - GetStatus, latnicectl status"

# ---- DeferredThreadEvents: thread events past a user's budget ---------------
# A process of nobody's that rule dbus-test matches makes 1,000 threads while
# latniced is stopped; continued, latniced reads their events faster than
# nobody's budget lets it evaluate threads one by one (256 at once, then
# 500/s): the events past it are put off and counted. (Not left to the
# storm's own pace, which on a busy machine can stay within the budget.)
cp "$BUILD/tests/integration/ln-threadstorm" "$TMP/ln-dbus-storm"
kill -STOP "$DAEMON_PID"
# (setpriv itself, not as_nobody: $! must be the storm's own pid)
setpriv --reuid=nobody --regid=nogroup --clear-groups "$TMP/ln-dbus-storm" 1000 ln-dbus-storm \
        >"$TMP/storm.out" 2>&1 &
storm=$!
CHILDREN+=("$storm")
for i in $(seq 600); do
        grep -q '^done' "$TMP/storm.out" && break
        sleep 0.1
done
kill -CONT "$DAEMON_PID"
grep -q '^done' "$TMP/storm.out" || fail "ln-dbus-storm did not finish in 60 s: $(cat "$TMP/storm.out")"
prop() { bctl get-property org.latnice.Daemon1 /org/latnice/Daemon1 org.latnice.Daemon1 "$1"; }
for i in $(seq 300); do
        [ "$(prop DeferredThreadEvents)" != "t 0" ] && break
        sleep 0.1
done
[ "$(prop DeferredThreadEvents)" != "t 0" ] ||
        fail "DeferredThreadEvents still 0 30 s after 1,000 threads of nobody's ($(prop LostEvents) lost events)"
kill -KILL "$storm"
wait "$storm" 2>/dev/null || true
# `ctl list | grep -q` would let a SIGPIPE of ctl (grep ends at the first of
# 1,000 lines) or a failing ctl pass as "gone": read the list whole, and only
# a list that ctl gave counts.
storm_listed() {
        local out
        out=$(ctl list) || fail "latnicectl list failed while waiting for ln-dbus-storm to go"
        grep -qw ln-dbus-storm <<<"$out"
}
for i in $(seq 300); do
        storm_listed || break
        sleep 0.1
done
! storm_listed || fail "ln-dbus-storm's threads still in ListTasks 30 s after its end"
deferred=$(prop DeferredThreadEvents | awk '{ print $2 }')
overflowed=$(prop OverflowedThreadEvents | awk '{ print $2 }')
call GetStatus | py_assert "d['data'][0]['DeferredThreadEvents']['data'] >= $deferred" "GetStatus DeferredThreadEvents"
ctl --json status | py_assert "d['deferred_thread_events'] >= $deferred and d['overflowed_thread_events'] >= 0" \
        "latnicectl --json status: deferred_thread_events"
ctl status >"$TMP/status.txt"
grep -Eq "^ +Threads: [1-9][0-9]* new or renamed thread events put off" "$TMP/status.txt" ||
        { cat "$TMP/status.txt"; fail "latnicectl status lacks the put-off thread events"; }
echo "ok - DeferredThreadEvents $deferred, OverflowedThreadEvents $overflowed, latnicectl status shows them"

# ---- GetKernel ------------------------------------------------------------
call GetKernel | py_assert "
(lambda k: k['Release'] == '$(uname -r)' and k['CPUs'] == $(nproc --all) and len(k['LatencyNiceSlices']) == 40
 and [e[0] for e in k['LatencyNiceSlices']] == list(range(-20, 20))
 and dict(k['LatencyNiceSlices'])[0] == 0
 and all(100000 <= v <= 100000000 for n, v in k['LatencyNiceSlices'] if n != 0)
 and dict(k['LatencyNiceSlices'])[-20] < dict(k['LatencyNiceSlices'])[19]
 and k['BaseSlice'] > 0 and k['Backend'] in ('latency-nice', 'slice', 'none'))({k: v['data'] for k, v in d['data'][0].items()})" \
        "GetKernel via busctl"
echo "ok - GetKernel"

# ---- a managed task: ListTasks, Explain ----------------------------------
spawn ln-dbus-sleep
target=$SPAWNED
in_list() {
        call ListTasks | py_assert "any(t[0] == $1 and t[1] == $1 and t[2] == 'ln-dbus-sleep' and t[3] == 'dbus-test' for t in d['data'][0])" "ListTasks has $1" 2>/dev/null
}
wait_for "latniced to manage $target" in_list "$target"
[ "$(stat_field "$target" 19)" = 7 ] || fail "rule Nice=7 not applied to $target (nice $(stat_field "$target" 19))"
[ "$(getattr "$target" nice)" = 7 ] || fail "sched_getattr: nice of $target is not 7"
[ "$(getattr "$target" timerslack_ns)" = 3000000 ] || fail "TimerSlack=3ms not applied"
ctl --json list | py_assert "any(t['pid'] == $target and t['comm'] == 'ln-dbus-sleep' and t['rule'] == 'dbus-test' and 'Nice=7' in t['settings'] and t['user_owned'] is False for t in d)" \
        "latnicectl --json list"
ctl list | grep -Eq "^ *$target +$target +ln-dbus-sleep +dbus-test" || { ctl list; fail "latnicectl list text"; }
echo "ok - ListTasks, latnicectl list: $target managed by rule dbus-test"

call Explain u "$target" | py_assert "
d['data'][1] == 'dbus-test' and d['data'][0]['Nice']['data'] == 7 and d['data'][0]['TimerSlack']['data'] == 3000000
and d['data'][2] is False
and d['data'][3] == [['dbus-test', '$TMP/vendor/50-dbus-test.policy', 1, 'matched', 'name:ln-dbus-sleep', {'Nice': {'type': 'i', 'data': 7}, 'TimerSlack': {'type': 't', 'data': 3000000}}]]
and d['data'][4] == {} and d['data'][5] == ''" \
        "Explain $target"
call Explain u $$ | py_assert "d['data'][1] == '' and d['data'][0] == {} and d['data'][3][0][3] == 'not-matched'" "Explain of the test shell"
echo "ok - Explain"

# ---- SetTask --------------------------------------------------------------
ctl set "$target" Nice=9 TimerSlack=1ms >"$TMP/out" || fail "latnicectl set"
[ "$(getattr "$target" nice)" = 9 ] || fail "latnicectl set Nice=9: nice is $(getattr "$target" nice)"
[ "$(getattr "$target" timerslack_ns)" = 1000000 ] || fail "latnicectl set TimerSlack=1ms"
ctl --json set "$target" Policy=batch | py_assert "d['pid'] == $target and d['settings'] == 'Policy=batch'" "latnicectl --json set"
[ "$(getattr "$target" policy)" = batch ] || fail "Policy=batch not applied"
call SetTask 'ua{sv}' "$target" 2 Nice i 11 Policy s other >/dev/null || fail "busctl SetTask"
[ "$(getattr "$target" nice)" = 11 ] && [ "$(getattr "$target" policy)" = other ] ||
        fail "busctl SetTask Nice=11 Policy=other not applied"
call SetTask 'ua{sv}' "$target" 1 Slice s 5ms >/dev/null || fail "busctl SetTask Slice as string"
if [ "$(call GetKernel | py "d['data'][0]['EEVDFSlice']['data']")" = True ]; then
        [ "$(getattr "$target" slice_ns)" = 5000000 ] ||
                fail "Slice=5ms not applied: $("$GETATTR" "$target")"
fi
wait_for "ListTasks to show $target as user-owned" sh -c \
        "'$LATNICECTL' --bus '$ADDR' --json list | '$PY' -c 'import json,sys; sys.exit(0 if any(t[\"pid\"] == $target and t[\"user_owned\"] for t in json.load(sys.stdin)) else 1)'"
echo "ok - SetTask via latnicectl and busctl, verified with sched_getattr"

# ---- TaskApplied, latnicectl monitor --------------------------------------
# A monitor is subscribed once its match is registered on the bus, which may
# take seconds on a busy machine (a signal before that is lost): start
# processes until FILE shows one of them applied; its pid goes to $SEEN.
spawn_until_seen() {
        local file=$1 i j p pids=()
        for i in $(seq 30); do
                spawn ln-dbus-sleep
                pids+=("$SPAWNED")
                for j in $(seq 20); do
                        for p in "${pids[@]}"; do
                                if grep -qE "(\"pid\":$p,|pid $p tid )" "$file"; then
                                        SEEN=$p
                                        return 0
                                fi
                        done
                        sleep 0.1
                done
        done
        fail "the monitor in $file showed none of 30 processes applied"
}
# (background jobs of a script start with SIGINT ignored: restore the default)
env --default-signal=INT "$LATNICECTL" --bus "$ADDR" --json monitor >"$TMP/monitor.json" 2>"$TMP/monitor.err" &
mon=$!
CHILDREN+=("$mon")
spawn_until_seen "$TMP/monitor.json"
second=$SEEN
grep "\"pid\":$second," "$TMP/monitor.json" | head -n1 | py_assert \
        "d['pid'] == $second and d['tid'] == $second and d['rule'] == 'dbus-test' and 'Nice=7' in d['settings'] and d['timestamp_usec'] > 0" \
        "monitor JSON line"
kill -INT "$mon"
rc=0
wait "$mon" || rc=$?
[ $rc -eq 0 ] || { cat "$TMP/monitor.err" >&2; fail "latnicectl monitor: exit $rc after SIGINT"; }
while read -r line; do
        echo "$line" | py_assert "set(d) == {'timestamp_usec', 'pid', 'tid', 'rule', 'settings'}" "monitor line"
done <"$TMP/monitor.json"
echo "ok - TaskApplied, latnicectl --json monitor (one object per line, exit 0 on SIGINT)"

env --default-signal=INT "$LATNICECTL" --bus "$ADDR" monitor >"$TMP/monitor.txt" 2>&1 &
mon=$!
CHILDREN+=("$mon")
spawn_until_seen "$TMP/monitor.txt"
third=$SEEN
grep -q "pid $third tid $third rule dbus-test: " "$TMP/monitor.txt" || fail "monitor text for $third"
kill -INT "$mon"
wait "$mon" || fail "latnicectl monitor (text): nonzero exit after SIGINT"
echo "ok - latnicectl monitor (text)"

# ---- Reload ---------------------------------------------------------------
cat >"$TMP/admin/60-more.policy" <<'POLICY'
[Rule more]
Match = name:ln-dbus-other
Nice = 3
POLICY
ctl reload || fail "latnicectl reload"
[ "$(bctl get-property org.latnice.Daemon1 /org/latnice/Daemon1 org.latnice.Daemon1 Rules)" = "t 2" ] ||
        fail "reload did not load the new rule"
printf '[Rule broken]\nMatch = name:x\nNice = 99\n' >"$TMP/admin/70-broken.policy"
rc=0
ctl reload 2>"$TMP/err" || rc=$?
[ $rc -eq 1 ] && grep -q "70-broken.policy:3" "$TMP/err" || { cat "$TMP/err"; fail "reload with a broken file: exit $rc"; }
rc=0
ctl --json reload >"$TMP/reload.json" || rc=$?
[ $rc -eq 1 ] || fail "latnicectl --json reload with a broken file: exit $rc, expected 1"
py_assert "d['errors'] >= 1 and any('70-broken.policy:3' in x for x in d['diagnostics'])" "latnicectl --json reload" <"$TMP/reload.json"
call Reload | py_assert "any('70-broken.policy' in x for x in d['data'][0])" "busctl Reload"
call GetStatus | py_assert "any('70-broken.policy:3' in x for x in d['data'][0]['Diagnostics']['data'])" "status diagnostics"
rm "$TMP/admin/70-broken.policy"
call Reload | py_assert "d['data'][0] == []" "Reload after the fix"
echo "ok - Reload via latnicectl and busctl, diagnostics reported"

# ---- SetUnit / set-unit / unset-unit --------------------------------------
unitfile=$TMP/admin/90-unit-latnice-test.service.policy
runfile=$TMP/run/90-unit-latnice-test.service.policy
files=$(bctl get-property org.latnice.Daemon1 /org/latnice/Daemon1 org.latnice.Daemon1 PolicyFiles)
ctl set-unit latnice-test.service LatencyNice=-3 CPUWeight=200 >"$TMP/out" || fail "latnicectl set-unit"
grep -q "Wrote $unitfile" "$TMP/out" || fail "set-unit output: $(cat "$TMP/out")"
grep -qx '\[Unit latnice-test.service\]' "$unitfile" && grep -qx 'LatencyNice = -3' "$unitfile" &&
        grep -qx 'CPUWeight = 200' "$unitfile" || { cat "$unitfile"; fail "drop-in content"; }
[ "$(stat -c %a "$unitfile")" = 644 ] || fail "drop-in mode is not 0644"
[ "$(bctl get-property org.latnice.Daemon1 /org/latnice/Daemon1 org.latnice.Daemon1 PolicyFiles)" = "t $((${files#t }+ 1))" ] ||
        fail "set-unit did not reload (PolicyFiles did not grow)"
[ "$(cat "$cg/cpu.weight")" = 200 ] || fail "set-unit CPUWeight=200: cpu.weight is $(cat "$cg/cpu.weight")"
[ "$(bctl get-property org.latnice.Daemon1 /org/latnice/Daemon1 org.latnice.Daemon1 Units)" = "t 1" ] ||
        fail "Units is not 1 after set-unit"
echo "ok - set-unit wrote $unitfile, reloaded, cpu.weight of the unit is 200"

# The runtime drop-in has the same name: the admin one hides it until removed.
ctl --json set-unit --runtime latnice-test.service CPUIdle=yes | py_assert \
        "d['path'] == '$runfile' and d['runtime'] is True and d['removed'] is False and d['settings'] == 'CPUIdle=yes'" \
        "set-unit --runtime --json"
grep -qx 'CPUIdle = yes' "$runfile" || fail "runtime drop-in content"
[ "$(cat "$cg/cpu.idle")" = 0 ] || fail "the runtime drop-in was not hidden by the admin one"
ctl unset-unit latnice-test.service >"$TMP/out" || fail "latnicectl unset-unit"
grep -q "Removed $unitfile" "$TMP/out" || fail "unset-unit output: $(cat "$TMP/out")"
[ ! -e "$unitfile" ] || fail "unset-unit left $unitfile"
[ "$(cat "$cg/cpu.weight")" = 100 ] || fail "unset-unit: cpu.weight not restored ($(cat "$cg/cpu.weight"))"
[ "$(cat "$cg/cpu.idle")" = 1 ] || fail "unset-unit: the runtime drop-in (CPUIdle=yes) did not take over"
expect_fail "unset-unit of a unit without drop-in" "No drop-in for latnice-test.service" \
        ctl unset-unit latnice-test.service
ctl --json unset-unit --runtime latnice-test.service | py_assert "d['removed'] is True and d['path'] == '$runfile'" "unset-unit --runtime"
[ ! -e "$runfile" ] || fail "unset-unit --runtime left the file"
[ "$(cat "$cg/cpu.idle")" = 0 ] || fail "unset-unit --runtime: cpu.idle not restored"
[ "$(bctl get-property org.latnice.Daemon1 /org/latnice/Daemon1 org.latnice.Daemon1 Units)" = "t 0" ] ||
        fail "Units is not 0 after unset-unit"
echo "ok - set-unit --runtime, unset-unit (admin and runtime), cgroup files restored"

call SetUnit 'sa{sv}b' 'getty@tty9.service' 2 Slice t 2000000 UtilMax s 50% false |
        py_assert "d['data'][0] == '$TMP/admin/90-unit-getty@tty9.service.policy'" "busctl SetUnit"
grep -qx 'Slice = 2ms' "$TMP/admin/90-unit-getty@tty9.service.policy" || fail "SetUnit Slice"
call SetUnit 'sa{sv}b' 'foo\x2dbar.service' 1 LatencyNice i 4 false |
        py_assert "d['data'][0] == '$TMP/admin/90-unit-foo%5cx2dbar.service.policy'" "SetUnit with a backslash"
call GetStatus | py_assert "d['data'][0]['Diagnostics']['data'] == []" "drop-ins load cleanly"
call SetUnit 'sa{sv}b' 'getty@tty9.service' 0 false >/dev/null || fail "SetUnit with no settings"
call SetUnit 'sa{sv}b' 'foo\x2dbar.service' 0 false >/dev/null || fail "SetUnit with no settings"
[ -z "$(ls "$TMP/admin" | grep 90-unit)" ] || fail "drop-ins left: $(ls "$TMP/admin")"
echo "ok - SetUnit via busctl (unit names with @ and backslash), removal with no settings"

daemon_alive "end of API test"

# ---- latnicectl monitor ends when its bus goes away ----------------------
# latnicectl(1): exit 1 when the connection is lost (it once stayed in its
# event loop for ever, holding no bus any more).
"$LATNICECTL" --bus "$ADDR" monitor >"$TMP/monitor.lost" 2>&1 &
mon=$!
CHILDREN+=("$mon")
wait_for "latnicectl monitor to start" grep -q Following "$TMP/monitor.lost"
kill -KILL "$BUS_PID"
wait "$BUS_PID" 2>/dev/null || true
BUS_PID=
# ended: reaped by bash already, or a zombie
ended() { ! kill -0 "$1" 2>/dev/null || [ "$(awk '{ print $3 }' "/proc/$1/stat")" = Z ]; }
wait_for "latnicectl monitor to exit after its bus died" ended "$mon"
rc=0
wait "$mon" || rc=$?
[ $rc -eq 1 ] || fail "latnicectl monitor: exit $rc after losing the bus, not 1"
grep -q "Lost the connection to the bus" "$TMP/monitor.lost" ||
        fail "latnicectl monitor did not say why it ended: $(cat "$TMP/monitor.lost")"
echo "ok - latnicectl monitor exits 1 when its bus dies"
kill -0 "$DAEMON_PID" || fail "latniced ended with its bus"
echo "PASS"
