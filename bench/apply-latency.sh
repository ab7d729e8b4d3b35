#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Exec-to-applied latency of latniced, idle and with every CPU busy.
#
#   bench/apply-latency.sh LATNICED APPLY_LATENCY [COUNT] [--idle-only]
#                          [--mmhog MIB]                                    (root)
#
# Starts LATNICED on a temporary policy that gives "lt-bench-target" Nice=3
# (plus LatencyNice=-5), runs COUNT (default 2000) processes through
# apply-latency idle, then again while one busy loop per CPU runs (not with
# --idle-only), and prints p50/p90/p99/max, the daemon's CPU time per
# process (from /proc/PID/schedstat, ns resolution) and its RSS.
#
# --mmhog MIB: then once more while an unprivileged process keeps its own
# memory busy (ln-mmhog of LATNICED's build directory, or $LN_MMHOG, as nobody: MIB MiB,
# 8 threads calling mprotect() over it, renaming itself every millisecond;
# see latniced(8), SECURITY), the "hostile" line.
#
# latniced runs under setpriv --pdeathsig TERM, so it goes with this script
# even when the script is SIGKILLed; every other exit path sends it SIGTERM.
set -euo pipefail
LATNICED=${1:?latniced}
BENCH=${2:?apply-latency}
COUNT=${3:-2000}
IDLE_ONLY=0
MMHOG_MIB=
shift $(($# < 3 ? $# : 3))
while [ $# -gt 0 ]; do
        case $1 in
        --idle-only) IDLE_ONLY=1; shift ;;
        --mmhog)
                [[ ${2:-} =~ ^[1-9][0-9]*$ ]] ||
                        { echo "apply-latency: --mmhog: expected MiB, got \"${2:-}\"" >&2; exit 2; }
                MMHOG_MIB=$2; shift 2 ;;
        *) echo "apply-latency: unknown argument \"$1\"" >&2; exit 2 ;;
        esac
done
MMHOG=${LN_MMHOG:-$(dirname "$LATNICED")/../tests/integration/ln-mmhog}
if [ -n "$MMHOG_MIB" ] && [ ! -x "$MMHOG" ]; then
        echo "apply-latency: --mmhog needs $MMHOG (LATNICED from a build directory)" >&2
        exit 2
fi
here=$(dirname "$0")
bench_name=apply-latency
# shellcheck source=bench/bench-lib.sh
. "$here/bench-lib.sh"
bench_daemon_begin "$LATNICED"
B=
cat >"$T/pol/50-bench.policy" <<'P'
[Rule bench]
Match = name:lt-bench-target
Nice = 3
LatencyNice = -5
P
bench_daemon_start "$LATNICED"
# Ready once it configures a matching process ("Ready:" is logged at info).
bench_daemon_ready lt-bench-target ni 3 10

# CPU time of the daemon in ns: schedstat when the kernel has it, else ticks.
hz=$(getconf CLK_TCK)
cpu_ns() {
        if [ -r "/proc/$D/schedstat" ]; then
                cut -d' ' -f1 "/proc/$D/schedstat"
        else
                sed 's/.*) //' "/proc/$D/stat" | awk -v hz="$hz" '{ printf "%.0f", ($12 + $13) * 1e9 / hz }'
        fi
}

run() { # label
        local c0 c1 out
        c0=$(cpu_ns)
        setpriv --pdeathsig KILL -- "$BENCH" "$COUNT" 3 >"$T/bench.out" &
        B=$!
        wait "$B" || true
        B=
        out=$(cat "$T/bench.out")
        c1=$(cpu_ns)
        echo "$1: $out"
        awk -v l="$1" -v d="$((c1 - c0))" -v n="$COUNT" 'BEGIN {
                printf "%s: daemon CPU %.1f us per process (%.1f ms for %d processes, 3 events each)\n",
                        l, d / 1000 / n, d / 1e6, n }'
}

echo "kernel $(uname -r), $(nproc) CPUs, $COUNT processes"
run idle
if [ "$IDLE_ONLY" -eq 0 ]; then
        bench_busy_start
        run busy
        bench_busy_stop
fi
if [ -n "$MMHOG_MIB" ]; then
        setpriv --reuid=65534 --regid=65534 --clear-groups --pdeathsig KILL -- \
                "$MMHOG" "$MMHOG_MIB" 8 86400 lt-bench-hog >"$T/hog.out" &
        BUSY+=($!)
        for _ in $(seq 600); do grep -q '^pid=' "$T/hog.out" && break; sleep 0.1; done
        grep -q '^pid=' "$T/hog.out" || { echo "apply-latency: ln-mmhog did not start" >&2; exit 1; }
        run hostile
        bench_busy_stop
fi
grep -E "VmRSS|VmHWM|RssAnon|RssFile" "/proc/$D/status" | tr -s ' \t' ' '
grep -E "^Pss:" "/proc/$D/smaps_rollup" | tr -s ' \t' ' '
