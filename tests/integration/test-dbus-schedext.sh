#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What latniced reports of the scheduler it steers, on the bus and through
# latnicectl, while its (fake, LATNICED_SCHED_EXT_ROOT) sched_ext state
# switches: the properties SchedExtState, SchedExtScheduler,
# SettingsInEffect, PreemptionModel, Preemption and HZ, GetKernel's and
# GetStatus's entries, latnicectl status, and latnicectl explain's note of
# what latniced writes under the scheduler (Explain on the bus returns the
# same). The preemption model and HZ are checked against latnicectl kernel's
# own reading of this machine.
#   test-dbus-schedext.sh BUILD_ROOT SOURCE_ROOT
. "$(dirname "$0")/test-dbus-lib.sh"
dbus_init "$@"

SCX=$TMP/scx
mkdir -p "$SCX/sys/kernel/sched_ext/root"
echo disabled >"$SCX/sys/kernel/sched_ext/state"
cat >"$TMP/admin/50-scx.policy" <<'POLICY'
[Rule lnscx]
Match = comm:lnscxsleep
Nice = -8
Slice = 3ms
POLICY
dbus_start_bus
LATNICED_SCHED_EXT_ROOT=$SCX dbus_start_daemon

prop() { # NAME: the property's value, as busctl prints it
        bctl get-property org.latnice.Daemon1 /org/latnice/Daemon1 org.latnice.Daemon1 "$1"
}
prop_is() { # NAME VALUE
        [ "$(prop "$1")" = "$2" ]
}

# 1. The machine as latnicectl kernel reads it, the same on the bus.
"$LATNICECTL" kernel --json=short >"$TMP/kernel.json"
want_model=$(py 'd["preemption_model"]' <"$TMP/kernel.json")
want_hz=$(py 'd["hz"] or 0' <"$TMP/kernel.json")
prop_is PreemptionModel "s \"$want_model\"" || fail "PreemptionModel: $(prop PreemptionModel), expected $want_model"
prop_is HZ "u $want_hz" || fail "HZ: $(prop HZ), expected $want_hz"
prop Preemption | grep -q "^s \"$want_model" || fail "Preemption: $(prop Preemption)"
prop_is SchedExtState 's "disabled"' || fail "SchedExtState: $(prop SchedExtState)"
prop SettingsInEffect | grep -q '"Slice"' || fail "SettingsInEffect without sched_ext: $(prop SettingsInEffect)"
ctl status >"$TMP/status"
grep -q "sched_ext: no BPF scheduler loaded" "$TMP/status" || { cat "$TMP/status"; fail "status: no sched_ext line"; }
grep -q "In effect:.* Slice=" "$TMP/status" || { cat "$TMP/status"; fail "status: no Slice= in effect"; }
grep -q "Preemption: $want_model" "$TMP/status" || { cat "$TMP/status"; fail "status: no preemption line"; }
echo "ok - without sched_ext: model $want_model, HZ $want_hz, Slice= in effect"

# 2. A scheduler loaded: the properties, status, GetKernel, Explain and explain.
spawn lnscxsleep
pid=$SPAWNED
wait_for "the rule's slice on $pid" bash -c "[ \"\$($GETATTR --json $pid | $PY -c 'import json,sys; print(json.load(sys.stdin)[\"slice_ns\"])')\" = 3000000 ]"
echo scx_test >"$SCX/sys/kernel/sched_ext/root/ops"
echo enabled >"$SCX/sys/kernel/sched_ext/state"
wait_for "SchedExtState enabled" prop_is SchedExtState 's "enabled"'
prop_is SchedExtScheduler 's "scx_test"' || fail "SchedExtScheduler: $(prop SchedExtScheduler)"
prop_is SchedExtActive 'b true' || fail "SchedExtActive: $(prop SchedExtActive)"
prop SettingsInEffect >"$TMP/in"
grep -q '"Nice"' "$TMP/in" && grep -q '"Policy"' "$TMP/in" || fail "SettingsInEffect: $(cat "$TMP/in")"
grep -Eq '"(Slice|LatencyNice|CPUWeight|CPUIdle)"' "$TMP/in" && fail "SettingsInEffect under sched_ext: $(cat "$TMP/in")"
call GetKernel | py_assert 'd["data"][0]["SchedExtState"]["data"] == "enabled" and d["data"][0]["SchedExtScheduler"]["data"] == "scx_test" and "Slice" not in d["data"][0]["SettingsInEffect"]["data"]' "GetKernel under sched_ext"
call GetStatus | py_assert 'd["data"][0]["SchedExtState"]["data"] == "enabled"' "GetStatus under sched_ext"
ctl status >"$TMP/status"
grep -q "sched_ext: enabled, scheduler scx_test: .*does not write.*Slice=" "$TMP/status" ||
        { cat "$TMP/status"; fail "status under sched_ext"; }
call Explain u "$pid" | py_assert '"Slice" not in d["data"][0] and d["data"][0]["Nice"]["data"] == -5' "Explain under sched_ext: no Slice, Nice capped"
ctl --policy-dir "$TMP/vendor" --policy-dir "$TMP/run" --policy-dir "$TMP/admin" explain "$pid" >"$TMP/explain"
grep -q "Under sched_ext.* (scheduler scx_test, enabled).*latniced writes only Nice=-5" "$TMP/explain" ||
        { cat "$TMP/explain"; fail "explain under sched_ext"; }
echo "ok - under sched_ext: properties, GetKernel, GetStatus, status, Explain and explain say so"

# 3. Unloaded: back as before.
echo disabled >"$SCX/sys/kernel/sched_ext/state"
wait_for "SchedExtState disabled" prop_is SchedExtState 's "disabled"'
prop_is SchedExtScheduler 's ""' || fail "SchedExtScheduler after: $(prop SchedExtScheduler)"
prop SettingsInEffect | grep -q '"Slice"' || fail "SettingsInEffect after: $(prop SettingsInEffect)"
ctl --policy-dir "$TMP/vendor" --policy-dir "$TMP/run" --policy-dir "$TMP/admin" explain "$pid" >"$TMP/explain"
grep -q "Under sched_ext" "$TMP/explain" && { cat "$TMP/explain"; fail "explain after sched_ext"; }
echo "ok - after sched_ext: Slice= in effect again, explain without the note"
