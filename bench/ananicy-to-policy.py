#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Convert an ananicy / ananicy-cpp rule set into one latnice .policy file.

Used by bench/policy-scale.sh to get a real-world rule set of ~15,000 rules.
Types become [Profile] sections; every rule becomes a [Rule] matching its
process name exactly (name: matches argv0, exe basename and comm). Only the
settings latnice has are kept: nice, latency_nice and sched (normal/other,
batch, idle). This is a benchmark helper, not the user-facing importer
(latnicectl import-ananicy).

usage: ananicy-to-policy.py DIR [OUTPUT]
"""
import json
import os
import re
import sys

POLICIES = {"normal": "other", "other": "other", "batch": "batch", "idle": "idle"}


def settings(obj):
    out = []
    if isinstance(obj.get("latency_nice"), int) and -20 <= obj["latency_nice"] <= 19:
        out.append("LatencyNice = %d" % obj["latency_nice"])
    if isinstance(obj.get("nice"), int) and -20 <= obj["nice"] <= 19:
        out.append("Nice = %d" % obj["nice"])
    if obj.get("sched") in POLICIES:
        out.append("Policy = %s" % POLICIES[obj["sched"]])
    return out


def ident(s):
    s = re.sub(r"[^A-Za-z0-9_.@+-]+", "-", s).strip("-")
    return s or "x"


def quote(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def objects(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if isinstance(obj, dict):
                yield obj


def main():
    if len(sys.argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    root = sys.argv[1]
    out = open(sys.argv[2], "w", encoding="utf-8") if len(sys.argv) > 2 else sys.stdout

    types, rule_files = {}, []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for fn in sorted(filenames):
            p = os.path.join(dirpath, fn)
            if fn.endswith(".types"):
                for obj in objects(p):
                    if isinstance(obj.get("type"), str):
                        types[obj["type"]] = settings(obj)
            elif fn.endswith(".rules"):
                rule_files.append(p)

    out.write("# Converted from %s by bench/ananicy-to-policy.py\n\n" % root)
    profiles = {}
    for t in sorted(types):
        profiles[t] = ident(t)
        out.write("[Profile %s]\n" % profiles[t])
        for s in types[t]:
            out.write(s + "\n")
        out.write("\n")

    seen, n = set(), 0
    for p in rule_files:
        for obj in objects(p):
            name = obj.get("name")
            if not isinstance(name, str) or not name or "\n" in name:
                continue
            rid = ident(name)
            base, k = rid, 2
            while rid in seen:
                rid = "%s-%d" % (base, k)
                k += 1
            seen.add(rid)
            lines = ["Match = name:%s" % quote(name)]
            if obj.get("type") in profiles:
                lines.append("Profile = %s" % profiles[obj["type"]])
            lines += settings(obj)
            out.write("[Rule %s]\n%s\n\n" % (rid, "\n".join(lines)))
            n += 1
    sys.stderr.write("ananicy-to-policy: %d rules, %d profiles\n" % (n, len(profiles)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
