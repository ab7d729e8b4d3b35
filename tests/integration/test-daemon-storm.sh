#!/usr/bin/env bash
# An exec storm of 20,000 short-lived processes while long-lived matched
# processes start in the middle: every long-lived one is applied. Then the
# same with a tiny receive buffer: events are lost (ENOBUFS), latniced
# notices, rescans, and still applies every long-lived one.
#   $4: ln-storm
. "$(dirname "$0")/test-daemon-lib.sh" "$@"
STORM=${4:?ln-storm path}
N=${LATNICE_STORM_COUNT:-20000}
KEEPERS=10

cat >"$POL/50-storm.policy" <<'P'
[Rule keepers]
Match = name:lt-storm-keeper-*
Nice = 3
LatencyNice = -5
P

run_storm() { # count label
        local count=$1 label=$2 i out=$T/storm.out
        : >"$out"
        "$STORM" "$count" 2 >"$out" &
        local storm=$!
        wait_until 60 grep -q half "$out" || fail "$label: storm did not get going"
        KEEPER_PIDS=()
        for i in $(seq 1 $KEEPERS); do
                spawn --argv0 "lt-storm-keeper-$label-$i"
                KEEPER_PIDS+=("$SPAWNED_PID")
                sleep 0.05
        done
        wait "$storm" || fail "$label: storm failed"
        echo "$label: $(cat "$out" | tail -1)"
        for p in "${KEEPER_PIDS[@]}"; do
                wait_until 5 attr_is "$p" nice 3 || fail "$label: long-lived $p missed"
                attr_is "$p" slice_ns "$(ln_slice -5)" || fail "$label: slice of $p"
        done
}

start_daemon --log-level info
run_storm "$N" normal
stop_daemon || fail "exit status"

start_daemon --log-level info --recv-buffer 4096
run_storm $((N / 4)) tiny
wait_until 5 grep -q "Rescanned processes (lost events)" "$LOG" ||
        fail "no rescan after lost events with a tiny receive buffer"
grep "Rescanned processes (lost events)" "$LOG" | tail -1
stop_daemon || fail "exit status"
echo "PASS"
