#!/usr/bin/env bash
# The man pages against the code they describe:
#  - every environment variable latniced reads (a getenv() in daemon/ or lib/,
#    or one libsystemd reads for a call latniced makes) is in latniced(8)'s
#    ENVIRONMENT section;
#  - the class table of latnice.policy(5) gives every setting of each profile
#    of policy/default/10-profiles.policy.
# Usage: lint-man-sync.sh SOURCE_ROOT
set -u
ROOT=${1:?source root}
PY=/usr/bin/python3
[ -x "$PY" ] || { echo "SKIP: $PY is missing"; exit 77; }
exec "$PY" - "$ROOT" <<'PYEOF'
import os, re, sys

root = sys.argv[1]
bad = []

def read(p):
    with open(os.path.join(root, p), encoding="utf-8") as f:
        return f.read()

def section(text, name):
    m = re.search(r"^# " + name + r"\n(.*?)(?=^# )", text, re.S | re.M)
    return m.group(1) if m else ""

# ---- latniced(8) ENVIRONMENT ----------------------------------------------
# What libsystemd reads for the calls latniced makes.
implied = {
    "sd_notify": ["NOTIFY_SOCKET"],
    "sd_event_set_watchdog": ["WATCHDOG_USEC", "WATCHDOG_PID"],
    "sd_bus_open_system": ["DBUS_SYSTEM_BUS_ADDRESS"],
    "sd_bus_open_user": ["DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"],
}
wanted = {}
sources = []
for d in ("daemon", "lib"):
    for top, _, names in os.walk(os.path.join(root, d)):
        sources += [os.path.relpath(os.path.join(top, n), root) for n in names if n.endswith(".c")]
if not any(s.startswith("daemon/bus/") for s in sources):
    bad.append("no daemon source found below daemon/bus/: has the layout changed?")
for path in sorted(sources):
        d, n = os.path.split(path)
        src = read(path)
        for v in re.findall(r'getenv\s*\(\s*"([A-Z_][A-Z0-9_]*)"', src):
            wanted.setdefault(v, f"{d}/{n}: getenv")
        for call, vs in implied.items():
            if re.search(r"\b" + call + r"\w*\s*\(", src):
                for v in vs:
                    wanted.setdefault(v, f"{d}/{n}: {call}()")
env = section(read("man/latniced.8.scd"), "ENVIRONMENT")
if not env:
    bad.append("man/latniced.8.scd has no ENVIRONMENT section")
for v, where in sorted(wanted.items()):
    if not re.search(r"\*" + v + r"\*", env):
        bad.append(f"man/latniced.8.scd: ENVIRONMENT does not name {v} ({where})")

# ---- latnice.policy(5) class table ------------------------------------------
profiles, cur = {}, None
for line in read("policy/default/10-profiles.policy").splitlines():
    line = line.strip()
    m = re.match(r"\[Profile ([^\]]+)\]", line)
    if m:
        cur = profiles.setdefault(m.group(1), [])
    elif line.startswith("["):
        cur = None
    elif cur is not None and "=" in line and not line.startswith("#"):
        k, v = (x.strip() for x in line.split("=", 1))
        cur.append(f"{k}={v}")
page = read("man/latnice.policy.5.scd")
rows = dict(re.findall(r"^\|  \*([a-z-]+)\*\n:  (.*)$", section(page, "DEFAULT POLICY"), re.M))
if not profiles:
    bad.append("policy/default/10-profiles.policy has no profile")
for name, settings in profiles.items():
    if name not in rows:
        bad.append(f"man/latnice.policy.5.scd: the class table has no row for {name}")
        continue
    have = rows[name].split()
    for s in settings:
        if s not in have:
            bad.append(f"man/latnice.policy.5.scd: the class table's {name} row lacks {s}")
    for s in have:
        if s not in settings:
            bad.append(f"man/latnice.policy.5.scd: the class table's {name} row has {s}, "
                       f"which 10-profiles.policy does not set")

for b in bad:
    print("FAIL:", b)
if not bad:
    print(f"ok: {len(wanted)} variables documented, {len(profiles)} classes in the table")
sys.exit(1 if bad else 0)
PYEOF
