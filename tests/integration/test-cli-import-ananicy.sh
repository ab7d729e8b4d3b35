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

rules, types, cgroups, malformed = [], [], [], 0
for path in files:
    kind = path.rsplit(".", 1)[1]
    key = {"rules": "name", "types": "type", "cgroups": "cgroup"}[kind]
    with open(path, "rb") as f:
        for raw in f.read().split(b"\n"):
            line = raw.decode("utf-8", "replace").strip()
            if not line or line.startswith("#"):
                continue
            try:
                obj = json.loads(raw.decode("utf-8"), object_pairs_hook=no_dups)
                ok = isinstance(obj, dict) and all(
                    v is None or isinstance(v, (str, int, float, bool)) for v in obj.values())
            except (ValueError, UnicodeDecodeError):
                ok = False
            if ok:
                name = obj.get(key)
                ok = (isinstance(name, str) and name != "" and len(name.encode()) <= 1024
                      and not any(ord(c) < 0x20 or ord(c) == 0x7f for c in name))
            if not ok:
                malformed += 1
                continue
            {"rules": rules, "types": types, "cgroups": cgroups}[kind].append(obj)

# types: the last definition of a name wins
last = {}
for t in types:
    last[t["type"]] = t
dup_types = len(types) - len(last)

drops = {k: 0 for k in ["rtprio", "sched-realtime", "ioclass", "ionice", "oom_score_adj",
                        "cgroup", "invalid-value", "unknown-key", "undefined-type"]}
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
        elif k in ("rtprio", "ioclass", "ionice", "oom_score_adj", "cgroup"):
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
    "malformed_lines": malformed,
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
    "ioclass": r"ioclass = .*I/O priorities",
    "ionice": r"ionice = .*I/O priorities",
    "oom_score_adj": r"oom_score_adj = .*OOM scores",
    "cgroup": r"cgroup = .*cgroups",
    "invalid-value": r"(nice|latency_nice|sched) = .*: expected ",
    "unknown-key": r".*: not a key of ananicy",
    "undefined-type": r"type = ",
}
for k, n in drops.items():
    got = len(re.findall(r"^# not converted: " + comment[k] + ".*$", policy, re.M))
    assert got == n, (k, got, n)
assert len(re.findall(r"^# .*: malformed: ", policy, re.M)) == malformed
assert check["errors"] == 0 and check["rules"] == len(rules), check

print("rules %d, types %d (+%d redefined), cgroups %d, settings %d, malformed %d, not converted %s"
      % (len(rules), len(last), dup_types, len(cgroups), settings, malformed, drops))
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
