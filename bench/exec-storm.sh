#!/usr/bin/env bash
# Exec storm: how many short-lived processes per second the machine starts
# with and without latniced, what latniced spends per process, what it loses
# (ENOBUFS) and what recovering costs, its RSS; and whether any long-lived
# matched process started in the middle of the storm is missed.
#
#   bench/exec-storm.sh LATNICED LN_STORM POLICY_DIR [COUNT] [RECV_BUFFER]   (root)
#
# POLICY_DIR: e.g. policy/default (the shipped policy) - a rule for the
# long-lived processes (lt-storm-keeper-*, Nice=3) is added next to it.
set -euo pipefail
LATNICED=${1:?latniced}
STORM=${2:?ln-storm}
POLDIR=${3:?policy dir}
COUNT=${4:-20000}
RCVBUF=${5:-}
KEEPERS=20
[ "$(id -u)" -eq 0 ] || { echo "exec-storm: needs root" >&2; exit 77; }

T=$(mktemp -d)
KP=()
cleanup() {
        for p in "${KP[@]}"; do kill "$p" 2>/dev/null || true; done
        [ -n "${D:-}" ] && kill "$D" 2>/dev/null || true
        wait 2>/dev/null || true
        rm -rf "$T"
}
trap cleanup EXIT
mkdir "$T/pol" "$T/bin"
cat >"$T/pol/99-keepers.policy" <<'P'
[Rule keepers]
Match = name:lt-storm-keeper-*
Nice = 3
P
cp /bin/sleep "$T/bin/lt-storm-keeper-x"

storm() { # -> "done N MS"
        "$STORM" "$COUNT" 2 | tail -1
}

echo "kernel $(uname -r), $(nproc) CPUs, $COUNT processes, 2 parallel loops"
base=$(storm)
echo "without latniced: $base ($(echo "$base" | awk '{printf "%d", $2 * 1000 / $3}') execs/s)"

extra=()
[ -n "$RCVBUF" ] && extra=(--recv-buffer "$RCVBUF")
"$LATNICED" --bus none --config /dev/null --policy-dir "$POLDIR" --policy-dir "$T/pol" \
        --log-level notice "${extra[@]}" 2>"$T/log" &
D=$!
for _ in $(seq 200); do grep -q Ready "$T/log" 2>/dev/null && break; sleep 0.05; done
hz=$(getconf CLK_TCK)
c0=$(awk '{print $14 + $15}' "/proc/$D/stat")

"$STORM" "$COUNT" 2 >"$T/storm.out" &
S=$!
while ! grep -q half "$T/storm.out"; do sleep 0.01; done
for i in $(seq $KEEPERS); do
        "$T/bin/lt-storm-keeper-x" 3600 &
        KP+=($!)
        sleep 0.02
done
wait $S
res=$(tail -1 "$T/storm.out")
c1=$(awk '{print $14 + $15}' "/proc/$D/stat")
echo "with latniced:    $res ($(echo "$res" | awk '{printf "%d", $2 * 1000 / $3}') execs/s)"
echo "latniced CPU: $(( (c1 - c0) * 1000 / hz )) ms, $(( (c1 - c0) * 1000000 / hz / COUNT )) us per process (fork + exec + exit events)"

sleep 1
missed=0
for p in "${KP[@]}"; do
        [ "$(ps -o ni= -p "$p" | tr -d ' ')" = 3 ] || missed=$((missed + 1))
done
echo "long-lived matched processes started during the storm: $KEEPERS, missed: $missed"
lost=$(grep -c "Rescanned processes (lost events)" "$T/log" || true)
echo "rescans after lost events: $lost"
grep "Rescanned processes (lost events)" "$T/log" | tail -1 || true
grep -E "VmRSS|VmHWM|RssAnon|RssFile" "/proc/$D/status" | tr -s ' \t' ' '
grep -E "^Pss:" "/proc/$D/smaps_rollup" | tr -s ' \t' ' '
