#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# [Unit] sections with the real latniced on the real kernel (as root).
#
# Part A, a cgroup2 hierarchy mounted by the test, real processes:
#   - a process placed in the test unit's cgroup before latniced starts gets
#     the unit's settings per task (the cgroup files are missing on a kernel
#     without the patch set or where the cpu controller is not on cgroup2);
#   - latnicectl explain shows the unit's per-task settings of such a process,
#     with the values the kernel reports for it;
#   - a process that joins the unit later (moves itself there, then execs)
#     gets them too; a process in another cgroup is left alone;
#   - a unit whose cgroup appears after latniced started is configured when
#     its first process execs;
#   - a reload without the [Unit] section gives the tasks their original
#     attributes back; SIGTERM restores the rest.
#   Verified with sched_getattr (tests/helpers/ln-getattr), not latniced's word.
# Part B, the cgroup files: when the cgroup2 hierarchy has the cpu files,
#   on the test's own cgroups; otherwise on a directory tree with the same
#   files (--cgroup-root): the files get the right values, a unit that
#   appears later (its real process execs) gets them too, and SIGTERM puts
#   the original values back.
#
# Usage: test-units-cgroup2.sh BUILD_ROOT
set -u -o pipefail

BUILD=${1:?usage: $0 BUILD_ROOT}
LATNICED=$BUILD/daemon/latniced
GETATTR=$BUILD/tests/helpers/ln-getattr

if [ "$(id -u)" != 0 ]; then
        echo "SKIP: needs root (mounts cgroup2, moves processes between cgroups)"
        exit 77
fi
for t in "$LATNICED" "$GETATTR"; do
        [ -x "$t" ] || { echo "FAIL: $t not built" >&2; exit 1; }
done

TMP=$(mktemp -d /tmp/latnice-units.XXXXXX)
CG=$TMP/cg
PIDS=()
DAEMON=
CGROUPS=()

cleanup() {
        [ -n "$DAEMON" ] && kill "$DAEMON" 2>/dev/null && wait "$DAEMON" 2>/dev/null
        for p in "${PIDS[@]}"; do
                kill -9 "$p" 2>/dev/null
        done
        for p in "${PIDS[@]}"; do
                wait "$p" 2>/dev/null
        done
        for ((i = ${#CGROUPS[@]} - 1; i >= 0; i--)); do
                rmdir "${CGROUPS[$i]}" 2>/dev/null
        done
        mountpoint -q "$CG" && umount "$CG"
        rm -rf "$TMP"
}
trap cleanup EXIT

fail() {
        echo "FAIL: $*" >&2
        [ -f "$TMP/log" ] && { echo "--- latniced log:" >&2; tail -n 40 "$TMP/log" >&2; }
        exit 1
}

mkdir -p "$CG" "$TMP/policy" "$TMP/fake"
if ! mount -t cgroup2 none "$CG" 2>"$TMP/mount.err"; then
        echo "SKIP: cannot mount cgroup2: $(cat "$TMP/mount.err")"
        exit 77
fi

U1=latnice-test-$$.service
U2=latnice-late-$$.service
U3=latnice-files-$$.service
OTHER=latnice-other-$$.service
mkcg() {
        mkdir "$CG/$1" || fail "cannot create cgroup $1"
        CGROUPS+=("$CG/$1")
}
mkcg "$U1"
mkcg "$OTHER"

# Start a process in cgroup $1 of the hierarchy: it moves itself there and then
# execs sleep (as systemd starts a unit's processes). Its pid goes to $STARTED.
start_in() {
        local dir=$1
        sh -c 'echo $$ > "$1/cgroup.procs" && exec sleep 600' sh "$dir" </dev/null >/dev/null 2>&1 &
        STARTED=$!
        PIDS+=("$STARTED")
        # Wait for the exec (comm turns from sh to sleep): up to 30 s.
        local i
        for ((i = 0; i < 600; i++)); do
                [ "$(cat "/proc/$STARTED/comm" 2>/dev/null)" = sleep ] && return 0
                sleep 0.05
        done
        fail "process in $dir did not start"
}

# attr PID KEY: one field of ln-getattr's line for PID.
attr() {
        "$GETATTR" "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# wait_attr PID KEY VALUE [SECONDS]
wait_attr() {
        local i
        for ((i = 0; i < ${4:-10} * 10; i++)); do
                [ "$(attr "$1" "$2")" = "$3" ] && return 0
                sleep 0.1
        done
        return 1
}

expect_attr() {
        local got
        got=$(attr "$1" "$2")
        [ "$got" = "$3" ] || fail "$4: $2 of pid $1 is '$got', expected '$3'"
}

start_daemon() {
        setpriv --pdeathsig TERM -- "$LATNICED" --foreground --bus none --log-level debug \
                --policy-dir "$TMP/policy" --cgroup-root "$1" --state-file "$TMP/state" \
                >>"$TMP/log" 2>&1 &
        DAEMON=$!
        # Ready once the startup scan is over ("Ready: ..." in the log).
        local i n
        n=$(grep -c "Ready: " "$TMP/log" 2>/dev/null)
        for ((i = 0; i < 100; i++)); do
                [ "$(grep -c "Ready: " "$TMP/log" 2>/dev/null)" -gt "${n:-0}" ] && break
                kill -0 "$DAEMON" 2>/dev/null || fail "latniced exited at start"
                sleep 0.1
        done
}

stop_daemon() {
        kill -TERM "$DAEMON"
        wait "$DAEMON"
        local rc=$?
        DAEMON=
        [ "$rc" = 0 ] || fail "latniced exited with $rc on SIGTERM"
}

# ---- Part A: per-task fallback on real processes -----------------------

start_in "$CG/$U1"
P1=$STARTED
start_in "$CG/$OTHER"
C1=$STARTED
sleep 0.2
grep -qx "0::/$U1" "/proc/$P1/cgroup" || fail "pid $P1 is not in /$U1: $(cat "/proc/$P1/cgroup")"

base=$(attr "$C1" slice_ns)
[ "$(attr "$P1" custom_slice)" = no ] || fail "pid $P1 starts with a custom slice"
if [ "$(attr "$P1" latency_nice)" = n/a ]; then
        # No latency-nice syscall: emulated with the slice, the kernel's way
        # (base * 1024 / weight of nice -7, clamped to 0.1..100 ms).
        want_key=slice_ns
        want_val=$((base * 1024 / 4904))
        ((want_val < 100000)) && want_val=100000
        echo "# stock kernel: LatencyNice=-7 expected as slice_ns=$want_val (base $base)"
else
        want_key=latency_nice
        want_val=-7
        echo "# latency-nice kernel: LatencyNice=-7 expected as latency_nice=-7"
fi

cat >"$TMP/policy/50-units.policy" <<EOF
[Unit $U1]
LatencyNice = -7
CPUWeight = 50

[Unit $U2]
CPUWeight = 200
Slice = 3ms

[Unit $U3]
LatencyNice = 4
CPUWeight = 300
UtilMin = 256
EOF

start_daemon "$CG"

wait_attr "$P1" nice 3 || fail "task in $U1 before the start: nice is $(attr "$P1" nice), expected 3 (CPUWeight=50 per task)"
expect_attr "$P1" "$want_key" "$want_val" "task in $U1 before the start"
expect_attr "$P1" policy other "task in $U1 before the start"
echo "ok - a task already in the unit got the unit's settings per task"

# latnicectl explain shows those [Unit] settings, as latniced applied them:
# the values in its output are the ones the kernel reports for the task.
CTL=$BUILD/cli/latnicectl
PY=/usr/bin/python3
explain() {
        "$CTL" --no-pager --policy-dir "$TMP/policy" --cgroup-root "$CG" "$@" 2>&1
}
out=$(explain explain "$P1") || fail "latnicectl explain $P1: $out"
line=$(grep "^\[Unit\] settings of its cgroup (unit:$U1), per task: " <<<"$out") ||
        fail "latnicectl explain $P1 does not show the [Unit] settings of $U1: $out"
for kv in "Nice=$(attr "$P1" nice)" "LatencyNice=-7"; do
        grep -qw -- "$kv" <<<"$line" || fail "latnicectl explain $P1: '$line' lacks $kv"
done
grep -q "^Result for process $P1: .*Nice=$(attr "$P1" nice)" <<<"$out" ||
        fail "latnicectl explain $P1: the result lacks the [Unit] settings: $out"
grep -q "from the \[Unit\] settings of unit:$U1; no rule matches" <<<"$out" ||
        fail "latnicectl explain $P1 does not say where its result comes from: $out"
explain --json explain "$P1" >"$TMP/explain.json" || fail "latnicectl --json explain $P1 failed"
"$PY" - "$TMP/explain.json" "unit:$U1" "$(attr "$P1" nice)" <<'PYTHON' || fail "latnicectl --json explain $P1: $(cat "$TMP/explain.json")"
import json, sys
d = json.load(open(sys.argv[1]))
u = d["unit_settings"]
assert u["rule"] == sys.argv[2], u
assert u["settings"] == {"Nice": sys.argv[3], "LatencyNice": "-7"}, u
assert d["result"]["settings"]["Nice"] == sys.argv[3], d["result"]
PYTHON
out=$(explain explain "$C1") || fail "latnicectl explain $C1: $out"
grep -q "^\[Unit\] settings" <<<"$out" && fail "latnicectl explain $C1 (another unit) shows [Unit] settings: $out"
grep -q "^Result for process $C1: no rule matches" <<<"$out" || fail "latnicectl explain $C1: $out"
echo "ok - latnicectl explain shows the [Unit] settings the kernel has for the task"

start_in "$CG/$U1"
P2=$STARTED
wait_attr "$P2" nice 3 || fail "task joining $U1 later: nice is $(attr "$P2" nice), expected 3"
expect_attr "$P2" "$want_key" "$want_val" "task joining $U1 later"
echo "ok - a task that joins the unit later got them too"

expect_attr "$C1" nice 0 "task in another unit"
expect_attr "$C1" custom_slice no "task in another unit"
echo "ok - a task in another unit is left alone"

mkcg "$U2"
start_in "$CG/$U2"
P3=$STARTED
wait_attr "$P3" nice -3 || fail "task of a unit started later: nice is $(attr "$P3" nice), expected -3 (CPUWeight=200 per task)"
wait_attr "$P3" slice_ns 3000000 || fail "task of a unit started later: slice_ns is $(attr "$P3" slice_ns), expected 3000000"
echo "ok - a unit whose cgroup appeared later is configured when its process starts"

# Reload without the section of U1: its tasks get their attributes back.
sed -i "/^\[Unit $U1\]/,/^$/d" "$TMP/policy/50-units.policy"
grep -q "$U1" "$TMP/policy/50-units.policy" && fail "test bug: section not removed"
kill -HUP "$DAEMON"
wait_attr "$P1" nice 0 || fail "after reload without [Unit $U1]: nice of $P1 is $(attr "$P1" nice), expected 0"
wait_attr "$P2" nice 0 || fail "after reload without [Unit $U1]: nice of $P2 is $(attr "$P2" nice), expected 0"
expect_attr "$P1" custom_slice no "after reload without [Unit $U1]"
expect_attr "$P3" slice_ns 3000000 "after reload, $U2 keeps its settings"
echo "ok - reload without the section restores the unit's tasks"

stop_daemon
expect_attr "$P3" nice 0 "after SIGTERM"
expect_attr "$P3" custom_slice no "after SIGTERM"
echo "ok - SIGTERM restores the tasks of the unit"

# ---- Part B: the cgroup files ------------------------------------------

CPU_FILES=("cpu.weight" "cpu.latency.nice" "cpu.uclamp.min")
if grep -qw cpu "$CG/cgroup.subtree_control" 2>/dev/null; then
        # The cpu controller is enabled below the root: our own cgroups have cpu.weight.
        root=$CG
        echo "# cgroup2 has the cpu controller: testing the files on real cgroups"
else
        # Here (a hybrid host: cpu bound to cgroup v1) no cgroup2 cgroup has
        # cpu.* files; enabling the controller in the host's root would change
        # the whole machine. Use a tree of the same files instead; its paths
        # mirror the real cgroups, so real exec events still find them.
        root=$TMP/fake
        echo "# cgroup2 has no cpu controller ($(cat "$CG/cgroup.controllers")): testing the files on a directory tree"
fi

mkfake() {
        mkdir -p "$root/$1"
        [ "$root" = "$CG" ] && return 0
        echo 100 >"$root/$1/cpu.weight"
        echo 0 >"$root/$1/cpu.latency.nice"
        echo 0.00 >"$root/$1/cpu.uclamp.min"
        echo max >"$root/$1/cpu.uclamp.max"
        echo 0 >"$root/$1/cpu.idle"
        : >"$root/$1/cgroup.procs"
}
[ "$root" = "$CG" ] && mkcg "$U3" || mkfake "$U3"

# File values before: the kernel's defaults or ours.
declare -A before
for f in "${CPU_FILES[@]}"; do
        before[$f]=$(cat "$root/$U3/$f" 2>/dev/null || echo missing)
done

# latniced reads its sched_ext state from a fake tree here (switched below).
SCX=$TMP/scx
mkdir -p "$SCX/sys/kernel/sched_ext/root"
echo disabled >"$SCX/sys/kernel/sched_ext/state"
export LATNICED_SCHED_EXT_ROOT=$SCX
start_daemon "$root"
for i in $(seq 300); do # up to 30 s
        [ "$(cat "$root/$U3/cpu.weight" 2>/dev/null)" = 300 ] && break
        sleep 0.1
done
[ "$(cat "$root/$U3/cpu.weight")" = 300 ] || fail "cpu.weight of $U3 is $(cat "$root/$U3/cpu.weight"), expected 300"
if [ "${before[cpu.latency.nice]}" != missing ]; then
        [ "$(cat "$root/$U3/cpu.latency.nice")" = 4 ] || fail "cpu.latency.nice of $U3 is $(cat "$root/$U3/cpu.latency.nice"), expected 4"
fi
if [ "${before[cpu.uclamp.min]}" != missing ]; then
        [ "$(cat "$root/$U3/cpu.uclamp.min")" = 25.00 ] || fail "cpu.uclamp.min of $U3 is $(cat "$root/$U3/cpu.uclamp.min"), expected 25.00"
fi
echo "ok - the unit's cgroup files got CPUWeight=300, LatencyNice=4, UtilMin=256 (25.00%)"

# A unit that appears later: its real process execs inside it.
U4=latnice-files-late-$$.service
[ "$root" = "$CG" ] || mkfake "$U4"
mkcg "$U4"
start_in "$CG/$U4"
P4=$STARTED
# Sections for U4 (its process is already running) and U5 (no cgroup yet).
cat >>"$TMP/policy/50-units.policy" <<EOF

[Unit latnice-files-late-$$.service]
CPUWeight = 300

[Unit latnice-files-new-$$.service]
CPUWeight = 300
EOF
kill -HUP "$DAEMON"
for i in $(seq 300); do # up to 30 s
        [ "$(cat "$root/$U4/cpu.weight" 2>/dev/null)" = 300 ] && break
        sleep 0.1
done
[ "$(cat "$root/$U4/cpu.weight")" = 300 ] || fail "cpu.weight of $U4 after reload is $(cat "$root/$U4/cpu.weight"), expected 300"
echo "ok - a unit matched after a reload got its files"

U5=latnice-files-new-$$.service
[ "$root" = "$CG" ] || mkfake "$U5"
mkcg "$U5"
start_in "$CG/$U5"
P5=$STARTED
for i in $(seq 300); do # up to 30 s
        [ "$(cat "$root/$U5/cpu.weight" 2>/dev/null)" = 300 ] && break
        sleep 0.1
done
[ "$(cat "$root/$U5/cpu.weight")" = 300 ] || fail "cpu.weight of $U5, which appeared after the start, is $(cat "$root/$U5/cpu.weight"), expected 300"
# Its files took CPUWeight: no per-task Nice on top.
expect_attr "$P5" nice 0 "task of $U5 whose cgroup has cpu.weight"
echo "ok - a unit that appeared after the start got its files when its first process execed"

# A sched_ext scheduler is loaded (as scx_lavd would be): it reads no cgroup
# weight or latency nice, so latniced gives the files back without a
# restart, and writes them again once the scheduler is gone.
wait_file() { # FILE VALUE WHAT: up to 30 s
        local i
        for ((i = 0; i < 300; i++)); do
                [ "$(cat "$1" 2>/dev/null)" = "$2" ] && return 0
                sleep 0.1
        done
        fail "$3: $1 is $(cat "$1" 2>/dev/null), expected $2"
}
echo scx_test >"$SCX/sys/kernel/sched_ext/root/ops"
echo enabled >"$SCX/sys/kernel/sched_ext/state"
for u in "$U3" "$U4" "$U5"; do
        wait_file "$root/$u/cpu.weight" 100 "under sched_ext"
done
if [ "${before[cpu.latency.nice]}" != missing ]; then
        wait_file "$root/$U3/cpu.latency.nice" "${before[cpu.latency.nice]}" "under sched_ext"
fi
echo "ok - under a sched_ext scheduler the units' cpu.weight (and cpu.latency.nice) went back"
echo disabled >"$SCX/sys/kernel/sched_ext/state"
: >"$SCX/sys/kernel/sched_ext/root/ops"
for u in "$U3" "$U4" "$U5"; do
        wait_file "$root/$u/cpu.weight" 300 "after sched_ext"
done
echo "ok - with the scheduler gone they got CPUWeight=300 again"

stop_daemon
for u in "$U3" "$U4" "$U5"; do
        [ "$(cat "$root/$u/cpu.weight")" = 100 ] || fail "cpu.weight of $u after SIGTERM is $(cat "$root/$u/cpu.weight"), expected 100"
done
for f in cpu.latency.nice cpu.uclamp.min; do
        [ "${before[$f]}" = missing ] && continue
        [ "$(cat "$root/$U3/$f")" = "${before[$f]}" ] || fail "$f of $U3 after SIGTERM is $(cat "$root/$U3/$f"), expected ${before[$f]}"
done
echo "ok - SIGTERM put the original file values back"
echo "PASS"
