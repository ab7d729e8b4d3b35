#!/usr/bin/env bash
# latnicectl without the daemon: global options, exit codes 0/1/2, check,
# cat-policy (overrides and masks across three directories), kernel --json,
# colour only on a tty and never with NO_COLOR.
#   $1 latnicectl
CTL=${1:?latnicectl path}
. "$(dirname "$0")/test-cli-lib.sh"

# ---- global options and usage errors -----------------------------------------
expect_rc 0 --help
grep -q '^latnicectl \[OPTIONS...\] COMMAND' "$T/out" || fail "--help prints no usage line"
for verb in status kernel list explain get set run check cat-policy reload monitor set-unit \
        unset-unit import-ananicy; do
        grep -q "^  $verb" "$T/out" || fail "--help does not list $verb"
done
expect_rc 0 --version
grep -qx 'latnicectl [0-9.]*' "$T/out" || fail "--version: $(cat "$T/out")"
expect_rc 2
grep -q "^latnicectl: expected a command" "$T/err" || fail "no command: $(cat "$T/err")"
grep -q -- "--help" "$T/err" || fail "usage errors must point at --help"
expect_rc 2 frobnicate
grep -qx "latnicectl: unknown command 'frobnicate'" "$T/err" || fail "unknown verb: $(cat "$T/err")"
expect_rc 2 --frobnicate check
expect_rc 2 check --frobnicate
grep -q "unknown option '--frobnicate'" "$T/err" || fail "unknown option: $(cat "$T/err")"
expect_rc 2 --policy-dir
expect_rc 2 kernel extra-argument
expect_rc 2 cat-policy extra-argument
expect_rc 2 get
expect_rc 2 get notapid
expect_rc 2 get 0
expect_rc 2 explain
expect_rc 2 explain 1 notapid
expect_rc 2 explain --tid
expect_rc 2 import-ananicy --json   # the policy itself goes to stdout
expect_rc 0 --no-pager --version

# ---- check ---------------------------------------------------------------------
V=$T/vendor R=$T/runtime A=$T/admin
mkdir -p "$V" "$R" "$A"
cat >"$V/10-audio.policy" <<'P'
[Profile audio]
LatencyNice = -15

[Rule pipewire]
Match = name:pipewire || name:wireplumber
Profile = audio
P
cat >"$V/20-masked.policy" <<'P'
[Rule masked-rule]
Match = name:masked
Nice = 5
P
cat >"$V/30-overridden.policy" <<'P'
[Rule vendor-version]
Match = name:vendor
Nice = 1
P
cat >"$A/30-overridden.policy" <<'P'
[Rule admin-version]
Match = name:admin
Nice = 2
P
ln -s /dev/null "$A/20-masked.policy"
cat >"$R/40-warn.policy" <<'P'
[Rule a]
Match = name:x
Nice = 1
Foo = 3
P
DIRS=(--policy-dir "$V" --policy-dir "$R" --policy-dir "$A")

expect_rc 0 "${DIRS[@]}" check
# diagnostics on stderr, the result on stdout (as reload: latnicectl(1) OUTPUT)
grep -q "^$R/40-warn.policy:4:1: warning: " "$T/err" || fail "warning not printed as file:line:col"
grep -q ": warning: " "$T/out" && fail "a diagnostic on stdout: $(cat "$T/out")"
grep -q "0 errors, 1 warning" "$T/out" || fail "summary: $(tail -1 "$T/out")"
[ "$(wc -l <"$T/out")" -eq 1 ] || fail "stdout is not the summary alone: $(cat "$T/out")"
expect_rc 0 "${DIRS[@]}" --json check
py 'import json,sys
d = json.load(open(sys.argv[1]))
assert d["errors"] == 0 and d["warnings"] == 1, d
assert len(d["diagnostics"]) == 1
x = d["diagnostics"][0]
assert set(x) == {"file", "line", "column", "level", "message"}, x
assert (x["line"], x["column"], x["level"]) == (4, 1, "warning"), x
assert "Foo" in x["message"]
assert d["rules"] == 3, d   # pipewire, admin-version, a (masked and overridden are out)
' "$T/out" 2>&1 || fail "check --json: $(cat "$T/out")"
"$PY" - "$T/out" <<'PYEOF' || fail "check --json files"
import json, sys
d = json.load(open(sys.argv[1]))
names = [f.rsplit("/", 1)[1] for f in d["files"]]
assert names == ["10-audio.policy", "20-masked.policy", "30-overridden.policy", "40-warn.policy"], names
PYEOF

# errors: exit 1, both diagnostics with exact positions, other files unaffected
cat >"$T/bad.policy" <<'P'
[Rule bad]
Match = name:foo && (comm:bar
Nice = 40
P
expect_rc 1 check "$T/bad.policy" "$V/10-audio.policy"
grep -qx "$T/bad.policy:2:30: error: expected ')' to close the '(' at column 21, found end of expression" "$T/err" ||
        fail "paren diagnostic: $(cat "$T/err")"
grep -qx "$T/bad.policy:3:8: error: expected an integer in -20..19, found \"40\"" "$T/err" ||
        fail "range diagnostic: $(cat "$T/err")"
grep -q ": error: " "$T/out" && fail "a diagnostic on stdout: $(cat "$T/out")"
grep -q "2 files, 1 rule, 1 profile, 0 unit sections: 2 errors, 0 warnings" "$T/out" ||
        fail "summary: $(tail -1 "$T/out")"
expect_rc 1 --json check "$T/bad.policy"
py 'import json,sys; d=json.load(open(sys.argv[1])); assert d["errors"]==2 and d["files"]==[sys.argv[2]], d' \
        "$T/out" "$T/bad.policy" || fail "check --json with errors"
expect_rc 1 check "$T/does-not-exist.policy"
# a file named like an option after "--"
cp "$V/10-audio.policy" "$T/-dash.policy"
(cd "$T" && "$CTL" check -- -dash.policy >/dev/null) || fail "check -- -dash.policy"
# no policy file at all, or a mistyped --policy-dir: an error naming the
# directories searched, not "0 errors" (issue 34)
mkdir -p "$T/empty" "$T/empty2"
expect_rc 1 --policy-dir "$T/empty" --policy-dir "$T/empty2" check
grep -qx "latnicectl: no policy files (\*.policy) in $T/empty or $T/empty2; check the --policy-dir directories" \
        "$T/err" || fail "check of empty directories: $(cat "$T/err")"
[ -s "$T/out" ] && fail "check of empty directories printed a result: $(cat "$T/out")"
expect_rc 1 --policy-dir "$T/empty" --json check
[ -s "$T/out" ] && fail "check --json of empty directories printed a result: $(cat "$T/out")"
expect_rc 1 --policy-dir "$V" --policy-dir "$T/admn" check
grep -qx "latnicectl: --policy-dir $T/admn: no such directory" "$T/err" ||
        fail "check of a mistyped --policy-dir: $(cat "$T/err")"

# ---- cat-policy ----------------------------------------------------------------
expect_rc 0 "${DIRS[@]}" cat-policy
"$PY" - "$T/out" "$V" "$R" "$A" <<'PYEOF' || { cat "$T/out"; fail "cat-policy text"; }
import sys
text = open(sys.argv[1]).read()
V, R, A = sys.argv[2:5]
expected_heads = [
    f"# {V}/10-audio.policy\n[Profile audio]",
    f"# {V}/20-masked.policy\n# masked by {A}/20-masked.policy\n",
    f"# {A}/30-overridden.policy\n# overrides {V}/30-overridden.policy\n[Rule admin-version]",
    f"# {R}/40-warn.policy\n[Rule a]",
]
pos = 0
for h in expected_heads:
    i = text.find(h, pos)
    assert i >= 0, ("missing or out of order", h)
    pos = i + len(h)
assert "vendor-version" not in text and "masked-rule" not in text
PYEOF
expect_rc 0 "${DIRS[@]}" --json cat-policy
"$PY" - "$T/out" "$V" "$A" <<'PYEOF' || fail "cat-policy --json"
import json, sys
d = json.load(open(sys.argv[1]))
V, A = sys.argv[2:4]
f = {x["name"]: x for x in d["files"]}
assert list(f) == ["10-audio.policy", "20-masked.policy", "30-overridden.policy", "40-warn.policy"]
assert f["20-masked.policy"]["masked"] is True and f["20-masked.policy"]["text"] is None
assert f["30-overridden.policy"]["path"] == A + "/30-overridden.policy"
assert f["30-overridden.policy"]["overrides"] == [V + "/30-overridden.policy"]
assert "admin-version" in f["30-overridden.policy"]["text"]
assert d["errors"] == 0
PYEOF

# cat-policy fails the same way: nothing to show is not a policy
expect_rc 1 --policy-dir "$T/empty" cat-policy
grep -qx "latnicectl: no policy files (\*.policy) in $T/empty; check the --policy-dir directories" \
        "$T/err" || fail "cat-policy of an empty directory: $(cat "$T/err")"
expect_rc 1 --policy-dir "$T/nowhere" --json cat-policy
grep -qx "latnicectl: --policy-dir $T/nowhere: no such directory" "$T/err" ||
        fail "cat-policy of a mistyped --policy-dir: $(cat "$T/err")"
[ -s "$T/out" ] && fail "cat-policy --json of a mistyped directory printed: $(cat "$T/out")"

# ---- kernel --------------------------------------------------------------------
expect_rc 0 kernel
grep -q "^Latency nice backend: " "$T/out" || fail "kernel text"
[ "$(grep -c '^ *-\?[0-9]\+ ' "$T/out")" -ge 14 ] || fail "kernel: no latency nice table"
fits80 "$T/out" || fail "kernel output wider than 80 columns"
expect_rc 0 --json kernel
"$PY" - "$T/out" <<'PYEOF' || fail "kernel --json"
import json, os, sys
d = json.load(open(sys.argv[1]))
keys = {"kernel_release", "latency_nice_backend", "latency_nice_syscall", "latency_nice_cgroup",
        "eevdf_slice", "latency_note", "uclamp_task", "uclamp_cgroup", "cgroup2_cpu", "cgroup_root",
        "sched_ext_active", "autogroup", "ncpus", "base_slice_ns", "base_slice_source",
        "initial_namespaces", "namespace_problem", "namespace_fix", "latency_nice_table",
        "core_scheduling", "core_scheduling_status", "smt_control",
        "sched_ext_state", "sched_ext_scheduler", "preemption_model", "preemption", "hz",
        "settings_in_effect", "settings_without_effect"}
assert set(d) == keys, set(d) ^ keys
assert d["preemption_model"] in ("none", "voluntary", "full", "lazy", "rt", "unknown"), d
assert d["preemption"].startswith(d["preemption_model"]) or d["preemption_model"] == "unknown", d
st = "absent" if not os.path.exists("/sys/kernel/sched_ext") else None
assert st is None or d["sched_ext_state"] == st, d
assert "Nice" in d["settings_in_effect"] and "Nice" not in d["settings_without_effect"], d
assert d["initial_namespaces"] is True and d["namespace_problem"] is None
assert d["kernel_release"] == os.uname().release
assert d["latency_nice_backend"] in ("none", "slice", "latency-nice")
assert d["core_scheduling"] == (d["core_scheduling_status"] == "yes"), d
assert d["smt_control"] in (None, "on", "off", "forceoff", "notsupported", "notimplemented",
                            "unknown"), d["smt_control"]
t = d["latency_nice_table"]
assert [x["latency_nice"] for x in t] == list(range(-20, 20))
# the mapping, computed here: base * 1024 / weight, clamped to [0.1 ms, 100 ms], 0 for 0
base = d["base_slice_ns"]
for x in t:
    if x["latency_nice"] == 0:
        assert x["slice_ns"] == 0
        continue
    want = min(max(base * 1024 // x["weight"], 100000), 100000000)
    assert abs(x["slice_ns"] - want) <= 1, (x, want)
assert t[20]["weight"] == 1024 and t[0]["weight"] == 88761 and t[39]["weight"] == 15
PYEOF

# ---- colour: only on a tty, never with NO_COLOR ----------------------------------
if command -v script >/dev/null; then
        script -qec "$CTL check $T/bad.policy" /dev/null >"$T/tty" 2>&1
        grep -q $'\x1b\[' "$T/tty" || fail "no colour on a tty"
        NO_COLOR=1 script -qec "$CTL check $T/bad.policy" /dev/null >"$T/tty" 2>&1
        grep -q $'\x1b\[' "$T/tty" && fail "colour with NO_COLOR set"
fi
"$CTL" check "$T/bad.policy" >"$T/out" 2>&1
grep -q $'\x1b' "$T/out" && fail "colour in a pipe"

echo "PASS"
