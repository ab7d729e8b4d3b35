#!/usr/bin/env bash
# latnicectl import-ananicy on the real CachyOS rule set (shared/data, beside
# the source tree): every rule converted or explained, the output passes
# latnicectl check with no errors, and the counts equal those computed here
# independently (python's json module).
#   $1 latnicectl  $2 source root
CTL=${1:?latnicectl path}
SRC=${2:?source root}
. "$(dirname "$0")/test-cli-lib.sh"

# -o replaces regular files only (rename() would replace a device node, a
# FIFO or a symlink itself); "-o -" is standard output. A rule set of our own.
SMALL=$T/small
mkdir -p "$SMALL" "$T/o"
echo '{"name": "foo", "nice": 5}' >"$SMALL/foo.rules"
expect_rc 0 import-ananicy "$SMALL" -o "$T/o/new.policy"
grep -q '^Match = name:foo$' "$T/o/new.policy" || fail "-o to a new file"
expect_rc 0 import-ananicy "$SMALL" -o "$T/o/new.policy"
expect_rc 0 import-ananicy "$SMALL" -o -
grep -q '^Match = name:foo$' "$T/out" || fail "-o - is not standard output"
[ ! -e ./- ] || fail "-o - wrote a file named -"
expect_rc 2 --json import-ananicy "$SMALL" -o -
refused() { # PATH WHAT: -o PATH is refused with an error naming it, and PATH is left as it was
        local path=$1 what=$2 before
        before=$(stat -c '%F %t:%T %i' "$path")
        expect_rc 1 import-ananicy "$SMALL" -o "$path"
        grep -q "^latnicectl: $path is $what: -o replaces regular files only" "$T/err" ||
                fail "-o on $what: $(cat "$T/err")"
        [ "$(stat -c '%F %t:%T %i' "$path")" = "$before" ] || fail "-o replaced $what"
        [ -z "$(ls -A "$T/o" | grep '^\.#latnice-import')" ] || fail "temporary file left"
}
mkfifo "$T/o/fifo"
refused "$T/o/fifo" "a FIFO"
ln -s new.policy "$T/o/link"
refused "$T/o/link" "a symbolic link"
grep -q "(give the path it points to)" "$T/err" || fail "symlink hint: $(cat "$T/err")"
grep -q '^Match = name:foo$' "$T/o/new.policy" || fail "the symlink's target changed"
ln -s "$T/o/dangling-target" "$T/o/dangling"
refused "$T/o/dangling" "a symbolic link"
[ ! -e "$T/o/dangling-target" ] || fail "-o wrote through a dangling symlink"
mkdir "$T/o/dir"
refused "$T/o/dir" "a directory"
if [ "$(id -u)" -eq 0 ] && mknod "$T/o/null" c 1 3 2>/dev/null; then
        refused "$T/o/null" "a character device"
else
        echo "# no character device test: mknod needs root"
fi
echo "ok - -o replaces regular files only"

# ioclass, ionice and oom_score_adj are carried, minq-ananicy's "cmdlines"
# become cmdline: matches, text after '}' is ignored with a warning, and the
# last rule of a name wins with a note (ananicy-cpp's behaviour).
IO=$T/io
mkdir -p "$IO"
cat >"$IO/io.rules" <<'R'
{ "name": "updatedb", "ioclass": "idle", "oom_score_adj": 500 }
{ "name": "java", "cmdlines": ["minecraft"], "ionice": 1 }+
{ "name": "updatedb", "ioclass": "be", "ionice": 7 }
R
expect_rc 0 import-ananicy "$IO" -o "$T/io.policy"
grep -q "^latnicectl: note: 1 rule replaced by a later rule of the same name, as ananicy-cpp does" \
        "$T/err" || fail "no note on the duplicate rule: $(cat "$T/err")"
grep -q "^latnicectl: warning: 1 line had text after the object; it was ignored, as ananicy-cpp" \
        "$T/err" || fail "no warning on the trailing text: $(cat "$T/err")"
"$PY" - "$T/io.policy" <<'PYEOF' || fail "io.policy: $(cat "$T/io.policy")"
import re, sys
p = open(sys.argv[1]).read()
rules = re.findall(r"^\[Rule (.+)\]\n# [^\n]*\n((?:[A-Za-z]+ = [^\n]*\n)*)", p, re.M)
assert rules == [("java", 'Match = name:java && cmdline:"*minecraft*"\nIONice = 1\n'),
                 ("updatedb", "Match = name:updatedb\nIOClass = best-effort\nIONice = 7\n")], rules
assert "# io.rules:1: rule \"updatedb\" is defined again at io.rules:3, which is used" in p
assert "# io.rules:2:59: text after '}' ignored" in p
PYEOF
expect_rc 0 check "$T/io.policy"
echo "ok - ioclass, ionice, oom_score_adj, cmdlines, trailing text, duplicate rules"

# A real ananicy rule set (such as CachyOS's ananicy-rules checkout), if one
# is named: LATNICE_ANANICY_RULES=DIR.
DATA=${LATNICE_ANANICY_RULES:-}
[ -n "$DATA" ] && [ -d "$DATA" ] || skip "no real ananicy rule set (set LATNICE_ANANICY_RULES=DIR)"

OUT=$T/out-dir
mkdir -p "$OUT"
expect_rc 0 --json import-ananicy "$DATA" -o "$OUT/50-ananicy.policy"
cp "$T/out" "$T/stats.json"
[ "$(ls -A "$OUT")" = "50-ananicy.policy" ] || fail "temporary files left: $(ls -A "$OUT")"
[ "$(stat -c %a "$OUT/50-ananicy.policy")" = 644 ] || fail "mode of the output"

# standard output gives the same policy, and the summary on stderr
"$CTL" import-ananicy "$DATA" >"$T/stdout.policy" 2>"$T/summary" || fail "import to stdout"
cmp -s "$T/stdout.policy" "$OUT/50-ananicy.policy" || fail "stdout and -o differ"
grep -q "^latnicectl: converted [0-9]* rules and [0-9]* types from [0-9]* files" "$T/summary" ||
        fail "summary: $(cat "$T/summary")"

# the output is a valid policy: no errors
expect_rc 0 --json check "$OUT/50-ananicy.policy"
cp "$T/out" "$T/check.json"
expect_rc 0 --policy-dir "$OUT" check

"$PY" - "$DATA" "$T/stats.json" "$OUT/50-ananicy.policy" "$T/check.json" <<'PYEOF' || fail "counts"
import json, os, re, sys

data, stats_path, policy_path, check_path = sys.argv[1:5]
stats = json.load(open(stats_path))
policy = open(policy_path, encoding="utf-8").read()
check = json.load(open(check_path))

files = []
for root, dirs, names in os.walk(data):
    dirs[:] = [d for d in dirs if not d.startswith(".")]
    for n in names:
        if n.endswith((".rules", ".types", ".cgroups")):
            files.append(os.path.join(root, n))

def no_dups(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("duplicate key")
    return dict(pairs)

rules, types, cgroups, malformed, trailing = [], [], [], 0, 0
decoder = json.JSONDecoder(object_pairs_hook=no_dups)
for path in files:
    kind = path.rsplit(".", 1)[1]
    key = {"rules": "name", "types": "type", "cgroups": "cgroup"}[kind]
    with open(path, "rb") as f:
        for raw in f.read().split(b"\n"):
            line = raw.decode("utf-8", "replace").strip()
            if not line or line.startswith("#"):
                continue
            # text after the object is ignored (as ananicy-cpp does), '#' or not
            try:
                text = raw.decode("utf-8").lstrip(" \t\r")
                obj, end = decoder.raw_decode(text)
                ok = isinstance(obj, dict) and all(
                    v is None or isinstance(v, (str, int, float, bool)) or
                    (isinstance(v, list) and all(isinstance(x, str) for x in v))
                    for v in obj.values())
                rest = text[end:].strip(" \t\r")
                extra = ok and rest != "" and not rest.startswith("#")
            except (ValueError, UnicodeDecodeError):
                ok = False
            if ok:
                name = obj.get(key)
                ok = (isinstance(name, str) and name != "" and len(name.encode()) <= 1024
                      and not any(ord(c) < 0x20 or ord(c) == 0x7f for c in name))
            if not ok:
                malformed += 1
                continue
            trailing += extra
            {"rules": rules, "types": types, "cgroups": cgroups}[kind].append(obj)

# types: the last definition of a name wins
last = {}
for t in types:
    last[t["type"]] = t
dup_types = len(types) - len(last)

# rules: the last of a name wins, as in ananicy-cpp
last_rule = {}
for r in rules:
    last_rule[r["name"]] = r
dup_rules = len(rules) - len(last_rule)
rules = [r for r in rules if last_rule[r["name"]] is r]

drops = {k: 0 for k in ["rtprio", "sched-realtime", "cgroup", "invalid-value", "unknown-key",
                        "undefined-type"]}
settings = 0

def fields(obj, naming, is_rule):
    global settings
    for k, v in obj.items():
        if k == naming:
            continue
        if is_rule and k == "type":
            if isinstance(v, str) and v in last:
                settings += 1
            else:
                drops["undefined-type"] += 1
        elif k in ("nice", "latency_nice"):
            if type(v) is int and -20 <= v <= 19:
                settings += 1
            else:
                drops["invalid-value"] += 1
        elif k == "sched":
            if v in ("normal", "other", "batch", "idle"):
                settings += 1
            elif v in ("rr", "fifo", "deadline", "iso"):
                drops["sched-realtime"] += 1
            else:
                drops["invalid-value"] += 1
        elif k == "ioclass":
            if v in ("rt", "realtime", "be", "best-effort", "idle"):
                settings += 1
            else:
                drops["invalid-value"] += 1
        elif k in ("ionice", "oom_score_adj"):
            lo, hi = (0, 7) if k == "ionice" else (-1000, 1000)
            if type(v) is int and lo <= v <= hi:
                settings += 1
            else:
                drops["invalid-value"] += 1
        elif k == "cmdlines" and is_rule:
            if not isinstance(v, list):
                drops["invalid-value"] += 1
        elif k in ("rtprio", "cgroup"):
            drops[k] += 1
        else:
            drops["unknown-key"] += 1

for t in last.values():
    fields(t, "type", False)
for r in rules:
    fields(r, "name", True)

want = {
    "files": len(files), "rules": len(rules), "types": len(last),
    "types_duplicate": dup_types, "cgroups": len(cgroups), "settings": settings,
    "malformed_lines": malformed, "rules_duplicate": dup_rules, "trailing_text_lines": trailing,
}
for k, v in want.items():
    assert stats[k] == v, (k, stats[k], v)
assert stats["not_converted"] == drops, (stats["not_converted"], drops)

# ... and the policy text says the same
sections = re.findall(r"^\[Rule (.+)\]$", policy, re.M)
assert len(sections) == len(rules), (len(sections), len(rules))
assert len(set(sections)) == len(sections), "rule names are not unique"
assert len(re.findall(r"^\[Profile .+\]$", policy, re.M)) == len(last)
assert len(re.findall(r"^Match = name:", policy, re.M)) == len(rules)
comment = {
    "rtprio": r"rtprio = .*real-time priorities",
    "sched-realtime": r"sched = .*real-time policies",
    "cgroup": r"cgroup = .*cgroups",
    "invalid-value": r"(nice|latency_nice|sched|ioclass|ionice|oom_score_adj|cmdlines) = .*: "
                     r"expected ",
    "unknown-key": r".*: not a key of ananicy",
    "undefined-type": r"type = ",
}
for k, n in drops.items():
    got = len(re.findall(r"^# not converted: " + comment[k] + ".*$", policy, re.M))
    assert got == n, (k, got, n)
assert len(re.findall(r"^# .*: malformed: ", policy, re.M)) == malformed
assert len(re.findall(r"^# .*:[0-9]+:[0-9]+: text after '}' ignored$", policy, re.M)) == trailing
assert len(re.findall(r"^# .*: rule \".*\" is defined again at ", policy, re.M)) == dup_rules
assert check["errors"] == 0 and check["rules"] == len(rules), check

print("rules %d (+%d redefined), types %d (+%d redefined), cgroups %d, settings %d, malformed %d, "
      "trailing text %d, not converted %s"
      % (len(rules), dup_rules, len(last), dup_types, len(cgroups), settings, malformed,
         trailing, drops))
PYEOF

# spot checks on known entries of the set
grep -q '^\[Profile Game\]$' "$OUT/50-ananicy.policy" || fail "no [Profile Game]"
grep -A3 '^\[Rule openbox\]$' "$OUT/50-ananicy.policy" | grep -q '^Profile = LowLatency_RT$' ||
        fail "openbox is not LowLatency_RT"

# errors: a missing directory, an empty one, an unwritable output
expect_rc 1 import-ananicy "$T/nonexistent"
grep -q "^latnicectl: $T/nonexistent: No such file or directory" "$T/err" || fail "$(cat "$T/err")"
mkdir -p "$T/empty"
expect_rc 1 import-ananicy "$T/empty"
grep -q "no ananicy rules or types found" "$T/err" || fail "$(cat "$T/err")"
expect_rc 1 import-ananicy "$DATA" -o "$T/no/such/dir/x.policy"
expect_rc 2 import-ananicy "$DATA" "$T/second-dir"
expect_rc 2 import-ananicy -o

echo "PASS"
