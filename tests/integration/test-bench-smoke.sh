#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Smoke run of every benchmark in bench/: each still starts, runs in a tiny
# configuration and prints its result table (the numbers are not judged:
# benchmarks are not tests). Also: no benchmark leaves a latniced behind,
# whether it ends normally, is interrupted (SIGTERM) or is SIGKILLed.
#
#   test-bench-smoke.sh BUILD_ROOT SOURCE_ROOT        (root; about 30 s)
set -uo pipefail
BUILD=$(cd "${1:?build root}" && pwd)
SRC=$(cd "${2:?source root}" && pwd)
LATNICED=$BUILD/daemon/latniced
APPLY_LATENCY=$BUILD/bench/apply-latency
LN_STORM=$BUILD/tests/integration/ln-storm

if [ "$(id -u)" -ne 0 ]; then
        echo "SKIP: needs root (the benchmarks run latniced)"
        exit 77
fi
for f in "$LATNICED" "$APPLY_LATENCY" "$LN_STORM" "$BUILD/bench/policy-scale" \
        "$BUILD/bench/sleeper" "$BUILD/bench/setattr"; do
        [ -x "$f" ] || { echo "FAIL: $f is not built"; exit 1; }
done

TMP=$(mktemp -d /tmp/bench-smoke.XXXXXX)
# The benchmarks' own temp dirs go here too, so a killed one leaves nothing.
export TMPDIR=$TMP
BG=
cleanup() {
        [ -z "$BG" ] || kill -KILL "$BG" 2>/dev/null
        wait 2>/dev/null
        rm -rf "$TMP"
}
trap cleanup EXIT

fail() {
        echo "FAIL: $*" >&2
        exit 1
}

# latniced processes of this build that are alive (not zombies).
our_daemons() {
        local p
        for p in $(pgrep -x latniced); do
                [ "$(readlink "/proc/$p/exe" 2>/dev/null)" = "$LATNICED" ] || continue
                grep -q '^State:.*Z' "/proc/$p/status" 2>/dev/null && continue
                echo "$p"
        done
}
# Fail if a latniced of this build that was not there at START is still running.
BEFORE=$(our_daemons | tr '\n' ' ')
no_leak() { # what
        local p left=""
        for _ in $(seq 50); do
                left=""
                for p in $(our_daemons); do
                        case " $BEFORE " in *" $p "*) ;; *) left="$left $p" ;; esac
                done
                [ -z "$left" ] && return 0
                sleep 0.1
        done
        ps -o pid,ppid,args -p "${left# }" >&2 || true
        fail "$1 left latniced running:$left"
}

# has FILE REGEX WHAT: the output has a line matching REGEX.
has() {
        grep -Eq "$2" "$1" || { echo "--- output of $3:" >&2; cat "$1" >&2; fail "$3: no line matching /$2/"; }
}

cd "$SRC"

# ---- policy-scale: small rule sets --------------------------------------------
echo "# policy-scale"
bash bench/policy-scale.sh "$BUILD" --counts "100 1000" --no-build >"$TMP/ps.out" 2>&1 ||
        { cat "$TMP/ps.out" >&2; fail "policy-scale exited with $?"; }
cat "$TMP/ps.out"
has "$TMP/ps.out" '^set +rules +load_ms +match_ns +hit_ns +miss_ns' policy-scale
num='[0-9]+(\.[0-9]+)?'
for set in default generated-100 generated-1000; do
        has "$TMP/ps.out" "^$set +[0-9]+ +$num +$num +$num +$num +[0-9]+ KiB +[0-9]+ KiB$" policy-scale
done

# ---- apply-latency: 50 processes, idle and busy ----------------------------------
echo "# apply-latency"
bash bench/apply-latency.sh "$LATNICED" "$APPLY_LATENCY" 50 >"$TMP/al.out" 2>&1 ||
        { cat "$TMP/al.out" >&2; fail "apply-latency exited with $?"; }
cat "$TMP/al.out"
for phase in idle busy; do
        has "$TMP/al.out" "^$phase: processes 50 applied [1-9][0-9]* missed [0-9]+ +p50 $num us +p90 $num us +p99 $num us +max $num us" apply-latency
        has "$TMP/al.out" "^$phase: daemon CPU $num us per process" apply-latency
done
has "$TMP/al.out" '^VmRSS: [0-9]+ kB' apply-latency
no_leak apply-latency

# ---- exec-storm: 500 processes, 3 long-lived ones in the middle ---------------------
echo "# exec-storm"
bash bench/exec-storm.sh "$LATNICED" "$LN_STORM" "$SRC/policy/default" 500 "" 3 >"$TMP/es.out" 2>&1 ||
        { cat "$TMP/es.out" >&2; fail "exec-storm exited with $?"; }
cat "$TMP/es.out"
has "$TMP/es.out" '^without latniced: done 500 [0-9]+ \([0-9]+ execs/s\)' exec-storm
has "$TMP/es.out" '^with latniced: +done 500 [0-9]+ \([0-9]+ execs/s\)' exec-storm
has "$TMP/es.out" "^latniced CPU: [0-9]+ ms, $num us per process" exec-storm
has "$TMP/es.out" '^long-lived matched processes started during the storm: 3, missed: [0-9]+$' exec-storm
has "$TMP/es.out" '^rescans after lost events: [0-9]+$' exec-storm
no_leak exec-storm

# ---- sched-effect --smoke: baseline, one class, latniced ---------------------------
echo "# sched-effect"
bash bench/sched-effect.sh --smoke --conditions base,h-idle,latniced --build "$BUILD" \
        --out "$TMP/se" >"$TMP/se.out" 2>&1 ||
        { cat "$TMP/se.out" >&2; fail "sched-effect exited with $?"; }
tail -n 8 "$TMP/se.out"
[ -s "$TMP/se/latency.md" ] || fail "sched-effect wrote no latency.md"
for c in base h-idle latniced; do
        has "$TMP/se/latency.md" "^\| $c +\| +[0-9]+ \| +[0-9]+ \| +[0-9]+ \| +[0-9]+ \|" sched-effect
done
no_leak sched-effect

# ---- interrupted runs: SIGTERM and SIGKILL in the middle ---------------------------
# Wait until the script's latniced is up, then signal the script.
interrupt() { # signal what command...
        local sig=$1 what=$2 p
        shift 2
        "$@" >"$TMP/int.out" 2>&1 &
        BG=$!
        for _ in $(seq 200); do
                for p in $(our_daemons); do
                        case " $BEFORE " in *" $p "*) ;; *) break 2 ;; esac
                done
                sleep 0.05
        done
        sleep 0.3
        kill -"$sig" "$BG"
        wait "$BG" 2>/dev/null
        BG=
        no_leak "$what (SIG$sig)"
}
echo "# interrupted runs"
interrupt TERM apply-latency bash bench/apply-latency.sh "$LATNICED" "$APPLY_LATENCY" 2000
interrupt KILL apply-latency bash bench/apply-latency.sh "$LATNICED" "$APPLY_LATENCY" 2000
interrupt KILL exec-storm bash bench/exec-storm.sh "$LATNICED" "$LN_STORM" "$SRC/policy/default" 3000
# What the killed script started dies with it (--pdeathsig).
for _ in $(seq 50); do
        pgrep -f "lt-storm-keeper-x|ln-storm 3000" >/dev/null || break
        sleep 0.1
done
! pgrep -af "lt-storm-keeper-x|ln-storm 3000" || fail "exec-storm's children outlived it"
echo "PASS"
