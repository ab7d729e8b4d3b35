#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Exec storm: how many short-lived processes per second the machine starts
# with and without latniced, what latniced spends per process, what it loses
# (ENOBUFS) and what recovering costs, its RSS; and whether any long-lived
# matched process started in the middle of the storm is missed.
#
#   bench/exec-storm.sh LATNICED LN_STORM POLICY_DIR [COUNT] [RECV_BUFFER] [KEEPERS]   (root)
#
# POLICY_DIR: e.g. policy/default (the shipped policy) - a rule for the
# long-lived processes (lt-storm-keeper-*, Nice=3) is added next to it.
# KEEPERS (default 20): how many of them start during the storm.
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
[ "$(id -u)" -eq 0 ] || { echo "exec-storm: needs root" >&2; exit 77; }

T=$(mktemp -d)
KP=()
D=
S=
. "$(dirname "$0")/daemon-lib.sh"

mkdir "$T/pol" "$T/bin"
cat >"$T/pol/99-keepers.policy" <<'P'
[Rule keepers]
Match = name:lt-storm-keeper-*
Nice = 3
P
cp /bin/sleep "$T/bin/lt-storm-keeper-x"

storm() { # FILE: run the storm, its output to FILE
        setpriv --pdeathsig KILL -- "$STORM" "$COUNT" 2 >"$1" &
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

echo "kernel $(uname -r), $(nproc) CPUs, $COUNT processes, 2 parallel loops"
storm "$T/base.out"
base=$(tail -1 "$T/base.out")
echo "without latniced: $base ($(echo "$base" | awk '{printf "%d", $2 * 1000 / $3}') execs/s)"

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
c0=$(cpu_ns)

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
c1=$(cpu_ns)
echo "with latniced:    $res ($(echo "$res" | awk '{printf "%d", $2 * 1000 / $3}') execs/s)"
awk -v d="$((c1 - c0))" -v n="$COUNT" 'BEGIN {
        printf "latniced CPU: %.0f ms, %.1f us per process (fork + exec + exit events)\n",
                d / 1e6, d / 1000 / n }'

sleep 1
missed=0
for p in "${KP[@]:1}"; do
        [ "$(ps -o ni= -p "$p" | tr -d ' ')" = 3 ] || missed=$((missed + 1))
done
echo "long-lived matched processes started during the storm: $KEEPERS, missed: $missed"
lost=$(grep -c "Rescanned processes (lost events)" "$T/log" || true)
echo "rescans after lost events: $lost"
grep "Rescanned processes (lost events)" "$T/log" | tail -1 || true
grep -E "VmRSS|VmHWM|RssAnon|RssFile" "/proc/$D/status" | tr -s ' \t' ' '
grep -E "^Pss:" "/proc/$D/smaps_rollup" | tr -s ' \t' ' '
