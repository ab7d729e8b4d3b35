#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# latnicectl metrics against the real latniced on a private system-like bus:
# the Prometheus text parses, and the counters move as matched processes
# run (the settings themselves are read from /proc, not from latniced);
# -o replaces the file atomically (no temporary left, a symbolic link
# refused); a broken policy file shows as a reload error; with latniced
# gone, -o writes latnice_up 0 and latnicectl exits 1.
#
# Usage: test-cli-metrics.sh BUILD_ROOT SOURCE_ROOT (as root)
. "$(dirname "$0")/test-dbus-lib.sh"
dbus_init "$@"

cat >"$TMP/vendor/50-metrics.policy" <<'POLICY'
[Rule metrics-test]
Match = name:ln-metrics-slp
Nice = 6
POLICY
dbus_start_bus
dbus_start_daemon

# metrics FILE: the samples of FILE as JSON {"name{labels}": value}, after
# checking each line is a HELP, TYPE or sample line of a declared family
metrics_json() {
        "$PY" - "$1" <<'PYTHON'
import json, re, sys
fams, out = {}, {}
for line in open(sys.argv[1]).read().splitlines():
    m = re.fullmatch(r"# (HELP|TYPE) (latnice_[a-z_]+) (.+)", line)
    if m:
        fams.setdefault(m.group(2), {})[m.group(1)] = m.group(3)
        continue
    m = re.fullmatch(r'(latnice_[a-z_]+)(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? ([0-9.]+)', line)
    assert m, "not a sample line: %r" % line
    f = fams.get(m.group(1))
    assert f and "HELP" in f and f.get("TYPE") in ("counter", "gauge"), "undeclared: %r" % line
    assert (f["TYPE"] == "counter") == m.group(1).endswith("_total"), line
    key = m.group(1) + (m.group(2) or "")
    assert key not in out, "twice: %r" % line
    out[key] = float(m.group(4))
print(json.dumps(out))
PYTHON
}

ctl metrics >"$TMP/m0.prom" || fail "latnicectl metrics: exit $?"
metrics_json "$TMP/m0.prom" >"$TMP/m0.json"
py_assert 'd["latnice_up"] == 1 and d["latnice_policy_rules"] == 1 and d["latnice_policy_files"] == 1' \
        "metrics before: up, one rule in one file" <"$TMP/m0.json"
py_assert 'd["latnice_policy_diagnostics{severity=\"error\"}"] == 0 and d["latnice_errors_total{kind=\"apply\"}"] == 0' \
        "metrics before: no reload errors, no failed applications" <"$TMP/m0.json"
py_assert 'd["latnice_policy_loads_total{result=\"ok\"}"] == 1 and d["latnice_policy_loads_total{result=\"rejected_files\"}"] == 0 and d["latnice_policy_loads_total{result=\"failed\"}"] == 0' \
        "metrics before: one clean policy load" <"$TMP/m0.json"
applied0=$(py 'int(d["latnice_applied_total"])' <"$TMP/m0.json")
evaluations0=$(py 'int(d["latnice_evaluations_total"])' <"$TMP/m0.json")
restored0=$(py 'int(d["latnice_restored_total"])' <"$TMP/m0.json")
events0=$(py 'int(d["latnice_events_total"])' <"$TMP/m0.json")
echo "ok - metrics parse: applied $applied0, events $events0"

# three matched processes: their nice from /proc, then the counters
pids=()
for i in 1 2 3; do
        spawn ln-metrics-slp
        pids+=("$SPAWNED")
done
for p in "${pids[@]}"; do
        wait_for "nice 6 on $p" test "$(stat_field "$p" 19)" = 6
done
mkdir -p "$TMP/textfile"
ctl metrics -o "$TMP/textfile/latnice.prom" || fail "latnicectl metrics -o: exit $?"
[ "$(stat -c %a "$TMP/textfile/latnice.prom")" = 644 ] || fail "latnice.prom is not mode 644"
[ "$(ls -A "$TMP/textfile")" = latnice.prom ] || fail "left in the directory: $(ls -A "$TMP/textfile")"
metrics_json "$TMP/textfile/latnice.prom" >"$TMP/m1.json"
py_assert "d['latnice_applied_total'] >= $applied0 + 3 and d['latnice_events_total'] > $events0" \
        "applied and events grew after three matched processes" <"$TMP/m1.json"
py_assert 'd["latnice_managed_threads"] >= 3' "three managed threads" <"$TMP/m1.json"
py_assert "d['latnice_evaluations_total'] >= $evaluations0 + 3" "evaluations grew by three or more" \
        <"$TMP/m1.json"
echo "ok - counters moved: $(py '[d["latnice_applied_total"], d["latnice_events_total"], d["latnice_managed_threads"]]' <"$TMP/m1.json")"

# a rule removed by a reload: its process gets its nice back (read from
# /proc) and the restore is counted
printf '[Rule metrics-gone]\nMatch = name:ln-metrics-rst\nNice = 7\n' >"$TMP/admin/60-gone.policy"
ctl reload || fail "reload with 60-gone.policy"
spawn ln-metrics-rst
gone_pid=$SPAWNED
wait_for "nice 7 on $gone_pid" test "$(stat_field "$gone_pid" 19)" = 7
rm "$TMP/admin/60-gone.policy"
ctl reload || fail "reload without 60-gone.policy"
wait_for "nice 0 back on $gone_pid" test "$(stat_field "$gone_pid" 19)" = 0
ctl metrics >"$TMP/m15.prom" || fail "latnicectl metrics after the restore"
metrics_json "$TMP/m15.prom" >"$TMP/m15.json"
py_assert "d['latnice_restored_total'] >= $restored0 + 1" "the restore counted" <"$TMP/m15.json"
py_assert 'd["latnice_policy_loads_total{result=\"ok\"}"] == 3' "three clean loads" <"$TMP/m15.json"
echo "ok - restored: $(py 'd["latnice_restored_total"]' <"$TMP/m15.json")"

# a broken policy file: the reload's error is counted
printf '[Rule broken]\nMatch = name:x\nNice = 99\n' >"$TMP/admin/70-broken.policy"
rc=0
ctl reload 2>/dev/null || rc=$?
[ $rc -eq 1 ] || fail "reload with a broken file: exit $rc"
ctl metrics -o "$TMP/textfile/latnice.prom" || fail "latnicectl metrics -o after the reload"
metrics_json "$TMP/textfile/latnice.prom" >"$TMP/m2.json"
py_assert 'd["latnice_policy_diagnostics{severity=\"error\"}"] >= 1' "the reload error counted" \
        <"$TMP/m2.json"
py_assert 'd["latnice_policy_loads_total{result=\"rejected_files\"}"] == 1' \
        "the load that rejected a file counted" <"$TMP/m2.json"
echo "ok - reload error: $(grep 'severity="error"' "$TMP/textfile/latnice.prom")"

# -o never replaces a symbolic link
ln -s "$TMP/elsewhere" "$TMP/textfile/link.prom"
expect_fail "metrics -o to a symbolic link" "link.prom is a symbolic link" \
        ctl metrics -o "$TMP/textfile/link.prom"
[ -L "$TMP/textfile/link.prom" ] && [ ! -e "$TMP/elsewhere" ] || fail "the link was followed or replaced"

# latniced gone: latnice_up 0 replaces the file, exit 1
kill -TERM "$DAEMON_PID"
wait "$DAEMON_PID" || fail "latniced exited with $?"
DAEMON_PID=
for p in "${pids[@]}"; do
        [ "$(stat_field "$p" 19)" = 0 ] || fail "latniced did not give $p its nice back"
done
rc=0
ctl metrics -o "$TMP/textfile/latnice.prom" 2>"$TMP/err" || rc=$?
[ $rc -eq 1 ] || fail "metrics without latniced: exit $rc"
grep -q "latniced is not running" "$TMP/err" || fail "metrics without latniced: $(cat "$TMP/err")"
[ "$(grep -v '^#' "$TMP/textfile/latnice.prom")" = "latnice_up 0" ] ||
        fail "metrics without latniced wrote: $(cat "$TMP/textfile/latnice.prom")"
echo "ok - without latniced: latnice_up 0, exit 1"
echo PASS
