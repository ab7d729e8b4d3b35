#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# deploy/: the Kubernetes manifest parses (python3's yaml) and carries what
# docs/fleet.md says: hostPID, hostNetwork, exactly the capabilities of latniced.service's
# CapabilityBoundingSet=, all others dropped, not privileged; the host's
# cgroup filesystem and /run/latnice; the ConfigMap mounted as the admin
# drop-in directory; probes that run latnicectl status on the pod's bus;
# maxUnavailable 1, maxSurge 0; a grace period. The ConfigMap's policy is
# deploy/kubernetes/pods.policy and latnicectl check accepts it, also laid
# out as the kubelet mounts a ConfigMap (..data symbolic links). The example
# systemd units pass systemd-analyze verify.
#   test-deploy.sh SOURCE_ROOT LATNICECTL
set -eu -o pipefail
src=${1:?source root} ctl=${2:?latnicectl}
fail() { echo "FAIL: $*" >&2; exit 1; }
python3 -c 'import yaml' 2>/dev/null || { echo "SKIP: python3 has no yaml module"; exit 77; }
tmp=$(mktemp -d /tmp/latnice-deploy.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$src/systemd/latniced.service.in")
[ -n "$caps" ] || fail "no CapabilityBoundingSet= in latniced.service.in"

python3 - "$src/deploy/kubernetes/daemonset.yaml" "$caps" "$tmp/policy" <<'PYTHON'
import sys, yaml
docs = list(yaml.safe_load_all(open(sys.argv[1])))
kinds = {d["kind"]: d for d in docs}
assert set(kinds) == {"Namespace", "ConfigMap", "DaemonSet"}, kinds.keys()
ds, cm = kinds["DaemonSet"], kinds["ConfigMap"]
spec = ds["spec"]["template"]["spec"]
assert spec["hostPID"] is True, "hostPID"
assert spec.get("hostNetwork") is True, "hostNetwork (the proc connector)"
assert spec.get("hostUsers", True) is True, "hostUsers"
ru = ds["spec"]["updateStrategy"]
assert ru["type"] == "RollingUpdate", ru
assert ru["rollingUpdate"] == {"maxUnavailable": 1, "maxSurge": 0}, ru
assert spec["terminationGracePeriodSeconds"] >= 10, "grace period"
c = {x["name"]: x for x in spec["containers"]}["latniced"]
sc = c["securityContext"]
want = sorted(x.replace("CAP_", "") for x in sys.argv[2].split())
assert sorted(sc["capabilities"]["add"]) == want, (sc["capabilities"]["add"], want)
assert sc["capabilities"]["drop"] == ["ALL"], sc
assert not sc.get("privileged") and sc["allowPrivilegeEscalation"] is False, sc
for p in ("readinessProbe", "livenessProbe"):
    cmd = c[p]["exec"]["command"]
    assert cmd[0] == "latnicectl" and cmd[-1] == "status" and "--bus" in cmd, (p, cmd)
vols = {v["name"]: v for v in spec["volumes"]}
mounts = {m["mountPath"]: m["name"] for m in c["volumeMounts"]}
assert vols[mounts["/sys/fs/cgroup"]]["hostPath"]["path"] == "/sys/fs/cgroup"
assert vols[mounts["/run/latnice"]]["hostPath"]["path"] == "/run/latnice"
pol = vols[mounts["/etc/latnice/policy.d"]]["configMap"]["name"]
assert pol == cm["metadata"]["name"], pol
m = {x["name"]: x for x in spec["containers"]}["metrics"]
assert m["securityContext"]["capabilities"] == {"drop": ["ALL"]}, m["securityContext"]
assert "metrics" in " ".join(m["args"]) and "-o /textfile/latnice.prom" in " ".join(m["args"])
assert vols[{x["mountPath"]: x["name"] for x in m["volumeMounts"]}["/textfile"]]["hostPath"]["path"] == \
    "/var/lib/node_exporter/textfile_collector"
# the ConfigMap as the kubelet lays it out: NAME -> ..data/NAME, ..data -> ..TIMESTAMP
import os
d = sys.argv[3]
os.makedirs(d + "/..2026_12_02_00_00_00.000000000")
for name, text in cm["data"].items():
    open(d + "/..2026_12_02_00_00_00.000000000/" + name, "w").write(text)
    os.symlink("..data/" + name, d + "/" + name)
os.symlink("..2026_12_02_00_00_00.000000000", d + "/..data")
print("ok: daemonset.yaml: %d documents, capabilities %s" % (len(docs), " ".join(want)))
PYTHON

cmp -s "$tmp/policy/50-pods.policy" "$src/deploy/kubernetes/pods.policy" ||
        fail "the ConfigMap's 50-pods.policy differs from deploy/kubernetes/pods.policy"
"$ctl" check --policy-dir "$tmp/policy" >"$tmp/out" 2>&1 || fail "check: $(cat "$tmp/out")"
grep -q "^1 file, 2 rules, 0 profiles, 0 unit sections: 0 errors, 0 warnings" "$tmp/out" ||
        fail "check of the ConfigMap's layout: $(cat "$tmp/out")"
echo "ok: latnicectl check accepts the ConfigMap's policy: $(cat "$tmp/out")"

if command -v systemd-analyze >/dev/null; then
        # latnicectl where ExecStart= looks for it: a root of our own
        mkdir -p "$tmp/root/usr/bin" "$tmp/root/etc/systemd/system"
        cp "$ctl" "$tmp/root/usr/bin/latnicectl"
        cp "$src"/deploy/systemd/latnice-metrics.* "$tmp/root/etc/systemd/system/"
        systemd-analyze verify --man=no --root="$tmp/root" \
                "$tmp/root/etc/systemd/system/latnice-metrics.service" \
                "$tmp/root/etc/systemd/system/latnice-metrics.timer" >"$tmp/verify" 2>&1 ||
                true
        grep -v "^$" "$tmp/verify" | grep -v "Unit .*\.target not found\|timers.target" && \
                fail "systemd-analyze verify: $(cat "$tmp/verify")"
        echo "ok: the example metrics units verify"
fi
echo PASS
