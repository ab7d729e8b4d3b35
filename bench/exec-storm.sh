#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Exec storm: how many short-lived processes per second the machine starts
# with and without latniced, what latniced spends per process at a steady
# RATE and at the full rate, what it loses (ENOBUFS) and what recovering
# costs, its RSS; whether any long-lived matched process started in the
# middle of the storm is missed; and, in the same run, the exec-to-applied
# latency of matched processes that come one at a time into a storm (100,
# 20 ms apart; 10 when COUNT is under 5,000) and of an idle machine
# (APPLY_LATENCY, as bench/apply-latency.sh, with COUNT or 2000 processes,
# whichever is fewer).
#
#   bench/exec-storm.sh LATNICED LN_STORM POLICY_DIR [COUNT] [RECV_BUFFER] [KEEPERS]
#                       [RATE] [APPLY_LATENCY]                                    (root)
#
# POLICY_DIR: e.g. policy/default (the shipped policy) - a rule for the
# long-lived processes (lt-storm-keeper-*, Nice=3) and one for apply-latency
# (lt-bench-target, Nice=3) are added next to it. KEEPERS (default 20): how
# many of them start during the storm. RATE (default 1000): processes per
# second of the steady phase (COUNT / 2 processes), 0 skips it.
# APPLY_LATENCY (default: bench/apply-latency of LATNICED's build directory,
# skipped if there is none).
#
# With LATNICE_ANANICY_RULES=DIR (a checkout of an ananicy rule set, as for
# bench/policy-scale.sh), the rule set is converted by latnicectl
# import-ananicy (LATNICED's build directory) and the RSS of a second
# latniced that loads it alone is printed at the end.
#
# CPU per process: latniced handles every process of the machine, not only
# the storm's, so its CPU time is divided by all processes started while it
# was measured (/proc/stat "processes"); on a quiet machine that is the
# storm's. The storm's count alone is printed too.
#
# latniced runs under setpriv --pdeathsig TERM, so it goes with this script
# even when the script is SIGKILLed; every other exit path sends it SIGTERM.
set -euo pipefail
LATNICED=${1:?latniced}
STORM=${2:?ln-storm}
POLDIR=${3:?policy dir}
COUNT=${4:-20000}
RCVBUF=${5:-}
KEEPERS=${6:-20}
RATE=${7:-1000}
APPLY=${8:-$(dirname "$LATNICED")/../bench/apply-latency}
here=$(dirname "$0")
bench_name=exec-storm
# shellcheck source=bench/bench-lib.sh
. "$here/bench-lib.sh"
bench_daemon_begin "$LATNICED"
KP=()
S=
mkdir "$T/bin"
cat >"$T/pol/99-keepers.policy" <<'P'
[Rule keepers]
Match = name:lt-storm-keeper-*
Nice = 3

[Rule bench]
Match = name:lt-bench-target
Nice = 3
P
cp /bin/sleep "$T/bin/lt-storm-keeper-x"

storm() { # FILE [COUNT [JOBS [RATE]]]: run a storm, its output to FILE
        setpriv --pdeathsig KILL -- "$STORM" "${2:-$COUNT}" "${@:3}" >"$1" &
        S=$!
        wait "$S" || { echo "exec-storm: ln-storm failed" >&2; exit 1; }
        S=
}
# CPU time of the daemon in ns: schedstat when the kernel has it, else ticks.
hz=$(getconf CLK_TCK)
cpu_ns() {
        if [ -r "/proc/$D/schedstat" ]; then
                cut -d' ' -f1 "/proc/$D/schedstat"
        else
                sed 's/.*) //' "/proc/$D/stat" | awk -v hz="$hz" '{ printf "%.0f", ($12 + $13) * 1e9 / hz }'
        fi
}

forks() { awk '$1 == "processes" { print $2 }' /proc/stat; }
rate_of() { echo "$1" | awk '{ printf "%d", $2 * 1000 / $3 }'; }
# LABEL C0 C1 F0 F1 N: latniced's CPU between C0 and C1 (ns) per process
# started between F0 and F1 (system-wide) and per storm process (N).
report_cpu() {
        awk -v l="$1" -v d="$(($3 - $2))" -v f="$(($5 - $4))" -v n="$6" 'BEGIN {
                printf "latniced CPU%s: %.0f ms, %.1f us per process (%d started on the machine; %.1f us per storm process)\n",
                        l, d / 1e6, d / 1000 / (f > 0 ? f : 1), f, d / 1000 / n }'
}

echo "kernel $(uname -r), $(nproc) CPUs, $COUNT processes, 2 parallel loops"
storm "$T/base.out"
base=$(tail -1 "$T/base.out")
echo "without latniced: $base ($(rate_of "$base") execs/s)"

extra=()
[ -n "$RCVBUF" ] && extra=(--recv-buffer "$RCVBUF")
setpriv --pdeathsig TERM -- "$LATNICED" --bus none --config /dev/null --policy-dir "$POLDIR" \
        --policy-dir "$T/pol" --log-level notice --state-file "$T/state" "${extra[@]}" 2>"$T/log" &
D=$!
# Ready once it configures a matching process ("Ready:" is logged at info).
setpriv --pdeathsig KILL -- "$T/bin/lt-storm-keeper-x" 3600 &
KP+=($!)
ready=0
for _ in $(seq 200); do
        [ "$(ps -o ni= -p "${KP[0]}" | tr -d ' ')" = 3 ] && { ready=1; break; }
        running "$D" || break
        sleep 0.05
done
if [ $ready -eq 0 ]; then
        echo "exec-storm: latniced did not start within 10 s:" >&2
        cat "$T/log" >&2
        exit 1
fi

if [ "$RATE" -gt 0 ]; then
        c0=$(cpu_ns) f0=$(forks)
        storm "$T/steady.out" $((COUNT / 2)) 2 "$RATE"
        c1=$(cpu_ns) f1=$(forks)
        res=$(tail -1 "$T/steady.out")
        echo "steady, asked $RATE/s: $res ($(rate_of "$res") execs/s)"
        report_cpu " at the steady rate" "$c0" "$c1" "$f0" "$f1" $((COUNT / 2))
fi

c0=$(cpu_ns) f0=$(forks)
setpriv --pdeathsig KILL -- "$STORM" "$COUNT" 2 >"$T/storm.out" &
S=$!
while ! grep -q half "$T/storm.out"; do
        running "$S" || break
        sleep 0.01
done
for i in $(seq "$KEEPERS"); do
        setpriv --pdeathsig KILL -- "$T/bin/lt-storm-keeper-x" 3600 &
        KP+=($!)
        sleep 0.02
done
wait "$S" || { echo "exec-storm: ln-storm failed" >&2; exit 1; }
S=
res=$(tail -1 "$T/storm.out")
c1=$(cpu_ns) f1=$(forks)
echo "with latniced:    $res ($(rate_of "$res") execs/s)"
report_cpu "" "$c0" "$c1" "$f0" "$f1" "$COUNT"

sleep 1
missed=0
for p in "${KP[@]:1}"; do
        [ "$(ps -o ni= -p "$p" | tr -d ' ')" = 3 ] || missed=$((missed + 1))
done
echo "long-lived matched processes started during the storm: $KEEPERS, missed: $missed"
lost=$(grep -cE "Rescanned processes \([^)]*lost events" "$T/log" || true)
echo "rescans after lost events: $lost"
grep -E "Rescanned processes \([^)]*lost events" "$T/log" | tail -1 || true
if [ -x "$APPLY" ]; then
        # Matched processes that come alone into a storm of processes the
        # policy does not touch, which latniced reads in batches then.
        n=$((COUNT < 5000 ? 10 : 100))
        setpriv --pdeathsig KILL -- "$STORM" $((COUNT * 100)) 2 >/dev/null &
        S=$!
        echo "exec to applied beside a full-rate storm, one matched process every 20 ms (apply-latency $n):"
        setpriv --pdeathsig KILL -- "$APPLY" "$n" 3 20000 | sed 's/^/  /'
        kill "$S" 2>/dev/null || true
        wait "$S" 2>/dev/null || true
        S=
fi
if [ -x "$APPLY" ]; then
        sleep 1
        n=$((COUNT < 2000 ? COUNT : 2000))
        echo "exec to applied, idle, same latniced (apply-latency $n):"
        setpriv --pdeathsig KILL -- "$APPLY" "$n" 3 | sed 's/^/  /'
else
        echo "apply-latency: $APPLY not built, skipped"
fi
grep -E "VmRSS|VmHWM|RssAnon|RssFile" "/proc/$D/status" | tr -s ' \t' ' '
grep -E "^Pss:" "/proc/$D/smaps_rollup" | tr -s ' \t' ' '

# The RSS of a large policy: a second latniced on the converted rule set.
data=${LATNICE_ANANICY_RULES:-}
ctl=$(dirname "$LATNICED")/../cli/latnicectl
if [ -n "$data" ] && [ -d "$data" ] && [ -x "$ctl" ]; then
        stop_daemon
        mkdir "$T/large"
        "$ctl" import-ananicy "$data" -o "$T/large/50-ananicy.policy" >/dev/null 2>&1 ||
                echo "exec-storm: latnicectl import-ananicy $data failed" >&2
        setpriv --pdeathsig TERM -- "$LATNICED" --bus none --config /dev/null \
                --policy-dir "$T/large" --log-level info --state-file "$T/state-large" 2>"$T/log-large" &
        D=$!
        for _ in $(seq 600); do
                grep -q "Ready:" "$T/log-large" && break
                running "$D" || break
                sleep 0.05
        done
        echo "large policy: $(grep -o "Policy: [0-9]* rule(s)" "$T/log-large" || echo "not loaded")"
        grep -E "VmHWM|RssAnon" "/proc/$D/status" | tr -s ' \t' ' ' | sed 's/^/  /'
fi
