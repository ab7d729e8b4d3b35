#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The DaemonSet's pod on this machine through podman kube play (opt-in:
# LATNICE_TEST_PODMAN=1; slow): the image is built without a network from a
# Debian 12 rootfs (LATNICE_TEST_ROOTFS, else kernel/vm-systemd's cached
# one, else mmdebstrap from the apt mirror), imported with podman import,
# and deploy/kubernetes/Containerfile with the package of dev/build-deb
# (LATNICE_TEST_DEB_DIR holds a built latnice_*.deb, else it is built). The
# pod spec is the DaemonSet's template (podman kube play of this Debian
# takes Pods, not DaemonSets), with a policy of the test's own in the
# ConfigMap, the package's default policy left out (--policy-dir) so that
# nothing else on the host is touched, and /run/latnice and the textfile
# directory in a temporary directory. Checked from the host's /proc:
#   - latniced in the pod runs in the host's PID namespace, gives a host
#     process its rule (nice 7), and the metrics sidecar writes latnice_up 1;
#   - stopping the pod gives back the original (nice 2, set before);
#   - a rolling replacement (stop the old pod, start a new one) and a killed
#     pod followed by a new one (which adopts the state file) lose no
#     original attribute.
#   podman-kube-play.sh SOURCE_ROOT
set -eu -o pipefail
src=${1:?source root}
if [ "${LATNICE_TEST_PODMAN:-0}" != 1 ]; then
        echo "SKIP: set LATNICE_TEST_PODMAN=1 to run podman kube play (builds an image; slow)"
        exit 77
fi
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
command -v podman >/dev/null || { echo "SKIP: podman is not installed (apt-get install podman)"; exit 77; }
# the pod's infra container runs catatonit (a package of its own in Debian 12)
command -v catatonit >/dev/null || [ -x /usr/libexec/podman/catatonit ] ||
        { echo "SKIP: catatonit is not installed (apt-get install catatonit): podman kube play needs it"; exit 77; }

fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d /tmp/latnice-podman.XXXXXX)
chmod 0755 "$tmp"
tag=$$
base=localhost/latnice-test-base:$tag
image=localhost/latnice-test:$tag
pods=()
sleepers=()
cleanup() {
        local p
        set +e
        for p in "${pods[@]}"; do podman pod rm -f -t 0 "$p" >/dev/null 2>&1; done
        for p in "${sleepers[@]}"; do kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
        podman rmi -f "$image" "$base" >/dev/null 2>&1
        rm -rf "$tmp"
}
trap cleanup EXIT

# The engine's settings for this test: limits no higher than ours (where
# CAP_SYS_RESOURCE is missing, as in a container, the runtime cannot raise
# them and podman's defaults fail), runc where it is installed (crun
# refuses hosts with cgroup v1 and v2 controllers at once), and the host's
# PID namespace as the containers' default: Debian 12's podman (4.3.1)
# ignores a pod's hostPID (podman-kube-play(1) marks it as not supported)
# and would start latniced in a PID namespace of its own. The test checks
# that the manifest asks for hostPID and that latniced runs in the host's
# PID namespace.
nofile=$(ulimit -Hn)
[ "$nofile" = unlimited ] || [ "$nofile" -gt 65536 ] && nofile=65536
{
        echo "[containers]"
        echo "default_ulimits = [\"nofile=$nofile:$nofile\", \"nproc=4096:4096\"]"
        echo 'pidns = "host"'
        if command -v runc >/dev/null; then
                printf '[engine]\nruntime = "runc"\n'
        fi
} >"$tmp/containers.conf"
export CONTAINERS_CONF=$tmp/containers.conf

nice_of() { awk '{ print $19 }' "/proc/$1/stat" 2>/dev/null || echo gone; }
wait_nice() { # pid value timeout description
        local i
        for ((i = 0; i < $3 * 10; i++)); do
                [ "$(nice_of "$1")" = "$2" ] && return 0
                sleep 0.1
        done
        fail "$4: nice of $1 is $(nice_of "$1"), expected $2"
}

# ---- the image ----------------------------------------------------------
mkdir -p "$tmp/ctx/debs"
if [ -n "${LATNICE_TEST_DEB_DIR:-}" ]; then
        cp "$LATNICE_TEST_DEB_DIR"/latnice_*.deb "$tmp/ctx/debs/"
else
        echo "# dev/build-deb --nocheck"
        "$src/dev/build-deb" --nocheck --no-install --out "$tmp/deb" >"$tmp/deb.log" 2>&1 ||
                { tail -20 "$tmp/deb.log"; fail "dev/build-deb"; }
        cp "$tmp/deb"/latnice_*.deb "$tmp/ctx/debs/"
fi
[ "$(ls "$tmp/ctx/debs" | wc -l)" = 1 ] || fail "expected one latnice_*.deb, found: $(ls "$tmp/ctx/debs")"

rootfs=${LATNICE_TEST_ROOTFS:-}
if [ -z "$rootfs" ]; then
        rootfs=$(ls -t /var/cache/latnice-kernel/systemd/rootfs-*.tar 2>/dev/null | head -n1 || true)
fi
if [ -z "$rootfs" ]; then
        # the build has no network: the rootfs carries the package's
        # dependencies (the first of alternatives; dbus for the system bus)
        deps=$(dpkg-deb -f "$tmp"/ctx/debs/latnice_*.deb Depends | tr ',' '\n' |
                sed 's/|.*//; s/(.*)//; s/[[:space:]]//g; s/^default-dbus-system-bus$/dbus/' |
                grep . | paste -sd, -) || fail "the package's Depends"
        command -v mmdebstrap >/dev/null || fail "no rootfs: set LATNICE_TEST_ROOTFS or install mmdebstrap"
        echo "# mmdebstrap bookworm (minbase, $deps) into $tmp/rootfs.tar"
        mmdebstrap --variant=minbase --include="$deps" bookworm "$tmp/rootfs.tar" \
                >"$tmp/mmdebstrap.log" 2>&1 || { tail -20 "$tmp/mmdebstrap.log"; fail "mmdebstrap"; }
        rootfs=$tmp/rootfs.tar
fi
echo "# rootfs $rootfs"
podman import -q "$rootfs" "$base" >/dev/null || fail "podman import $rootfs"

cp "$src/deploy/kubernetes/pod-bus.conf" "$src/deploy/kubernetes/latnice-entrypoint" "$tmp/ctx/"
echo "# podman build (no network)"
podman build -q --network=none --build-arg BASE="$base" -t "$image" \
        -f "$src/deploy/kubernetes/Containerfile" "$tmp/ctx" >"$tmp/build.log" 2>&1 ||
        { tail -30 "$tmp/build.log"; fail "podman build"; }
echo "ok - the image builds from deploy/kubernetes/Containerfile: $(podman run --rm --entrypoint /usr/sbin/latniced "$image" --version)"

# ---- the pod spec -------------------------------------------------------
mkdir -p "$tmp/run-latnice" "$tmp/textfile"
# names of this run's own: another run of this test, or another latniced
# on the host, leaves them alone
slp=lnp-$tag
cp /bin/sleep "$tmp/$slp"
# pod NAME: the DaemonSet's template as a Pod named NAME, in $tmp/NAME.yaml
pod_spec() {
        python3 - "$src/deploy/kubernetes/daemonset.yaml" "$1" "$image" "$tmp" "$slp" <<'PYTHON'
import sys, yaml
docs = {d["kind"]: d for d in yaml.safe_load_all(open(sys.argv[1]))}
name, image, tmp, slp = sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
spec = docs["DaemonSet"]["spec"]["template"]["spec"]
if spec.get("hostPID") is not True:
    sys.exit("daemonset.yaml: the pod template lacks hostPID: true")
for c in spec["containers"]:
    c["image"] = image
    c["imagePullPolicy"] = "Never"
    if c["name"] == "latniced":
        c["args"] = ["--policy-dir", "/etc/latnice/policy.d", "--log-level", "debug"]
for v in spec["volumes"]:
    if v["name"] == "run-latnice":
        v["hostPath"]["path"] = tmp + "/run-latnice"
    if v["name"] == "textfile":
        v["hostPath"]["path"] = tmp + "/textfile"
    if v["name"] == "policy":
        v["configMap"]["name"] = "latnice-test-policy"
spec.pop("priorityClassName", None)
pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}
cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "latnice-test-policy"},
      "data": {"50-test.policy": "[Rule podtest]\nMatch = name:%s\nNice = 7\n" % slp}}
yaml.safe_dump(pod, open("%s/%s.yaml" % (tmp, name), "w"))
yaml.safe_dump(cm, open("%s/cm.yaml" % tmp, "w"))
PYTHON
}

# start_pod NAME: play it, wait until latnicectl status (the probe's
# command) answers in it
start_pod() {
        local i pid ns restarts
        pod_spec "$1"
        podman kube play --configmap "$tmp/cm.yaml" "$tmp/$1.yaml" >"$tmp/$1.play" 2>&1 ||
                { cat "$tmp/$1.play"; fail "podman kube play $1"; }
        pods+=("$1")
        # until it answers, or the kubelet's restart policy (podman's too)
        # has restarted it three times: it exits at start-up
        for ((i = 0; i < 600; i++)); do
                podman exec "$1-latniced" latnicectl --bus unix:path=/run/dbus/system_bus_socket \
                        status >"$tmp/status" 2>&1 && break
                restarts=$(podman inspect --format '{{.RestartCount}}' "$1-latniced" 2>/dev/null || echo 0)
                ((restarts < 3)) || i=600
                sleep 0.2
        done
        if ((i >= 600)); then
                podman logs "$1-latniced" 2>&1 | tail -30
                fail "latniced in pod $1 did not answer (restarted ${restarts:-0} times): $(cat "$tmp/status")"
        fi
        pid=$(podman inspect --format '{{.State.Pid}}' "$1-latniced") || fail "podman inspect $1-latniced"
        ns=$(readlink "/proc/$pid/ns/pid") || fail "latniced in pod $1 (host PID $pid) is gone"
        [ "$ns" = "$(readlink /proc/self/ns/pid)" ] ||
                fail "latniced in pod $1 (host PID $pid) is in $ns, not the host's $(readlink /proc/self/ns/pid)"
}

# podman's own messages (on a host without systemd it complains about the
# probes' timers) go to $tmp/podman.log, shown when a command fails
pm() {
        podman "$@" >/dev/null 2>>"$tmp/podman.log" ||
                { tail -20 "$tmp/podman.log"; fail "podman $*"; }
}

stop_pod() { # NAME: stop (SIGTERM, the grace period), then remove
        pm pod stop -t 30 "$1"
        podman logs "$1-latniced" >"$tmp/$1.log" 2>&1 || true
        pm pod rm -f "$1"
}

# a host process with an original of its own: nice 2
"$tmp/$slp" 3600 &
host=$!
sleepers+=("$host")
renice -n 2 -p "$host" >/dev/null
wait_nice "$host" 2 5 "renice"

start_pod lnp$tag-a
grep -q "^latniced " "$tmp/status" || fail "status in the pod: $(cat "$tmp/status")"
echo "ok - latniced runs in pod lnp$tag-a and answers latnicectl status (the probes' command)"
wait_nice "$host" 7 120 "latniced in the pod"
echo "ok - latniced in the pod gave host process $host its rule (nice 7)"
# the sidecar writes every 15 s: its first file may predate the rule (or
# latniced on the bus); wait for one that counts it (a bound for a hang)
for ((i = 0; i < 1800; i++)); do
        grep -q "^latnice_applied_total [1-9]" "$tmp/textfile/latnice.prom" 2>/dev/null && break
        sleep 0.1
done
grep -q "^latnice_up 1$" "$tmp/textfile/latnice.prom" &&
        grep -q "^latnice_applied_total [1-9]" "$tmp/textfile/latnice.prom" || {
        podman logs "lnp$tag-a-metrics" 2>&1 | tail -20
        fail "the metrics sidecar: $(cat "$tmp/textfile/latnice.prom" 2>&1)"
}
echo "ok - the metrics sidecar wrote latnice.prom: $(grep '^latnice_applied_total' "$tmp/textfile/latnice.prom")"

# rolling replacement: the old pod gives the original back before it is gone
stop_pod lnp$tag-a
[ "$(nice_of "$host")" = 2 ] || fail "after the pod stopped: nice $(nice_of "$host"), expected the original 2"
echo "ok - stopping the pod gave back the original (nice 2)"
start_pod lnp$tag-b
wait_nice "$host" 7 120 "the new pod"
# a process started while the new pod runs
"$tmp/$slp" 3600 &
late=$!
sleepers+=("$late")
wait_nice "$late" 7 120 "a process started under the new pod"
echo "ok - the new pod applies the rule again"

# the old pod killed (no restore): the next one adopts the state file
pm pod kill -s KILL lnp$tag-b
pm pod rm -f lnp$tag-b
[ "$(nice_of "$host")" = 7 ] || fail "a SIGKILLed latniced restored something: nice $(nice_of "$host")"
[ -s "$tmp/run-latnice/tasks.state" ] || fail "no state file in the host's /run/latnice"
start_pod lnp$tag-c
wait_nice "$host" 7 120 "the pod after the killed one"
stop_pod lnp$tag-c
[ "$(nice_of "$host")" = 2 ] ||
        fail "after a killed pod and a new one: nice $(nice_of "$host"), expected the original 2"
[ "$(nice_of "$late")" = 0 ] || fail "the late process: nice $(nice_of "$late"), expected 0"
grep -q "adopt" "$tmp/lnp$tag-c.log" || echo "note: the new pod's log does not mention adoption"
echo "ok - a killed pod and a new one lose no original (nice 2 and 0 back)"
echo PASS
