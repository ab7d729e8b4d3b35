#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The "pod" match key on the real kernel: cgroups shaped as the kubelet makes
# them (the cgroupfs driver's kubepods/besteffort/pod<UID>/<ID> and the
# systemd driver's kubepods.slice/kubepods-burstable.slice/...-pod<UID>.slice/
# cri-containerd-<ID>.scope), made below a group of the test's own in the
# cgroup v1 cpu hierarchy (or cgroup2 with the cpu controller); a process
# moved into a pod's container gets the rule of its QoS class, read back
# from sched_getattr and the cgroup's cpu.idle; the same program outside a
# pod gets nothing; latniced's exit gives everything back.
#   test-daemon-kubepods.sh LATNICED LN-SPAWN LN-GETATTR
. "$(dirname "$0")/test-daemon-lib.sh" "$@"

CPU=$(awk '$3 == "cgroup" && $4 ~ /(^|,)cpu(,|$)/ { print $2; exit }' /proc/self/mounts)
if [ -z "$CPU" ]; then
        CPU=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
        grep -qw cpu "$CPU/cgroup.subtree_control" 2>/dev/null ||
                { echo "SKIP: no v1 cpu hierarchy and no cgroup2 cpu controller"; exit 77; }
        V2=1
fi

UID1=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0
UID2=11111111-2222-3333-4444-555555555555
CID=5d3c1a0b9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b
TOP=$CPU/latnice-test-kube-$$
BE=$TOP/kubepods/besteffort/pod$UID1/$CID
BU=$TOP/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${UID2//-/_}.slice/cri-containerd-$CID.scope
OUT=$TOP/elsewhere

cg_cleanup() {
        local p d i=0
        for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
        for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
        # deepest first; a killed task may leave its cgroup a moment later
        while [ -d "$TOP" ] && [ $((i++)) -lt 200 ]; do
                find "$TOP" -depth -type d -print0 | while IFS= read -r -d '' d; do
                        rmdir "$d" 2>/dev/null
                done
                [ -d "$TOP" ] && sleep 0.05
        done
        [ -d "$TOP" ] && echo "warning: could not remove $TOP" >&2
        cleanup
}
trap cg_cleanup EXIT

mkdir -p "$BE" "$BU" "$OUT" || fail "cannot make the pod cgroups below $TOP"
[ -n "${V2:-}" ] && for d in "$TOP" "$TOP/kubepods" "$TOP/kubepods/besteffort" "$TOP/kubepods/besteffort/pod$UID1" \
        "$TOP/kubepods.slice" "$TOP/kubepods.slice/kubepods-burstable.slice" "$(dirname "$BU")"; do
        echo +cpu >"$d/cgroup.subtree_control" 2>/dev/null
done

cat >"$POL/50-kube.policy" <<'P'
[Rule kube-besteffort]
Match = pod:besteffort/*
Policy = idle
CPUIdle = yes

[Rule kube-burstable]
Match = pod:"burstable/11111111-2222-3333-4444-555555555555/*"
Nice = 3
P
start_daemon

# run NAME GROUP: a sleeper named NAME, moved into GROUP before its exec
run() {
        bash -c 'echo $$ >"$1/cgroup.procs" && exec -a "$2" sleep 300' _ "$2" "$1" &
        RUN_PID=$!
        PIDS+=("$RUN_PID")
        wait_until 5 eval '[ "$(cat /proc/$RUN_PID/comm)" = sleep ]' || fail "could not start $1 in $2"
        grep -q ":${2#"$CPU"}\$" "/proc/$RUN_PID/cgroup" ||
                fail "$1 is not in $2: $(cat "/proc/$RUN_PID/cgroup")"
}

idle0=$(cat "$BE/cpu.idle")
[ "$idle0" = 0 ] || fail "cpu.idle of the new group is $idle0"

run kube-be "$BE"
be=$RUN_PID
wait_until 5 attr_is "$be" policy idle || fail "best-effort pod: policy $(attr "$be" policy), expected idle"
wait_until 5 eval '[ "$(cat "$BE/cpu.idle")" = 1 ]' || fail "best-effort pod: cpu.idle $(cat "$BE/cpu.idle")"
echo "ok: a process in kubepods/besteffort/pod$UID1/<ID> is SCHED_IDLE, its cgroup cpu.idle 1"

run kube-bu "$BU"
bu=$RUN_PID
wait_until 5 attr_is "$bu" nice 3 || fail "burstable pod (systemd driver): nice $(attr "$bu" nice), expected 3"
attr_is "$bu" policy other || fail "burstable pod got policy $(attr "$bu" policy)"
echo "ok: a process in kubepods.slice/.../kubepods-burstable-pod<UID>.slice/cri-containerd-<ID>.scope has nice 3"

run kube-out "$OUT"
out=$RUN_PID
# the other two were seen after it started; give latniced the same chance
run kube-be2 "$BE"
wait_until 5 attr_is "$RUN_PID" policy idle || fail "a second best-effort process: $(attr "$RUN_PID" policy)"
attr_is "$out" policy other && attr_is "$out" nice 0 ||
        fail "a process outside the pods got policy $(attr "$out" policy), nice $(attr "$out" nice)"
[ "$(cat "$OUT/cpu.idle")" = 0 ] || fail "the group outside the pods got cpu.idle 1"
echo "ok: a process outside the pods is left alone"

stop_daemon || fail "latniced exited with an error"
attr_is "$be" policy other || fail "after latniced: best-effort process still $(attr "$be" policy)"
attr_is "$bu" nice 0 || fail "after latniced: burstable process still nice $(attr "$bu" nice)"
[ "$(cat "$BE/cpu.idle")" = 0 ] || fail "after latniced: cpu.idle still $(cat "$BE/cpu.idle")"
echo "ok: latniced's exit gave every attribute and the group back"
echo PASS
