#!/usr/bin/env bash
# Exec-to-applied latency of latniced, idle and with every CPU busy.
#
#   bench/apply-latency.sh LATNICED APPLY_LATENCY [COUNT]     (root)
#
# Starts LATNICED on a temporary policy that gives "lt-bench-target" Nice=3
# (plus LatencyNice=-5), runs COUNT (default 2000) processes through
# apply-latency idle, then again while one busy loop per CPU runs, and
# prints p50/p90/p99/max, the daemon's CPU time per process and its RSS.
set -euo pipefail
LATNICED=${1:?latniced}
BENCH=${2:?apply-latency}
COUNT=${3:-2000}
[ "$(id -u)" -eq 0 ] || { echo "apply-latency: needs root" >&2; exit 77; }

T=$(mktemp -d)
BUSY=()
cleanup() {
        for p in "${BUSY[@]}"; do kill "$p" 2>/dev/null || true; done
        [ -n "${D:-}" ] && kill "$D" 2>/dev/null || true
        wait 2>/dev/null || true
        rm -rf "$T"
}
trap cleanup EXIT
mkdir "$T/pol"
cat >"$T/pol/50-bench.policy" <<'P'
[Rule bench]
Match = name:lt-bench-target
Nice = 3
LatencyNice = -5
P

"$LATNICED" --bus none --config /dev/null --policy-dir "$T/pol" --log-level notice 2>"$T/log" &
D=$!
for _ in $(seq 100); do grep -q Ready "$T/log" 2>/dev/null && break; sleep 0.05; done
sleep 0.2

cpu_ticks() { awk '{print $14 + $15}' "/proc/$D/stat"; }
hz=$(getconf CLK_TCK)

run() { # label
        local c0 c1
        c0=$(cpu_ticks)
        out=$("$BENCH" "$COUNT" 3) || true
        c1=$(cpu_ticks)
        echo "$1: $out"
        echo "$1: daemon CPU $(( (c1 - c0) * 1000000 / hz / COUNT )) us per process" \
             "($(( (c1 - c0) * 1000 / hz )) ms for $COUNT processes, 3 events each)"
}

echo "kernel $(uname -r), $(nproc) CPUs, $COUNT processes"
run idle
for _ in $(seq "$(nproc)"); do
        ( while :; do :; done ) &
        BUSY+=($!)
done
run busy
for p in "${BUSY[@]}"; do kill "$p"; done
BUSY=()
grep -E "VmRSS|VmHWM|RssAnon|RssFile" "/proc/$D/status" | tr -s ' \t' ' '
grep -E "^Pss:" "/proc/$D/smaps_rollup" | tr -s ' \t' ' '
