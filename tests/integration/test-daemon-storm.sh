#!/usr/bin/env bash
# An exec storm of 20,000 short-lived processes while long-lived matched
# processes start in the middle: every long-lived one is applied, and
# latniced, which the storm's processes do not concern, reads them in
# batches: its main thread goes to sleep fewer than 1,000 times a second
# (its voluntary context switches; at most 5 wake-ups and the end of a rest
# in 10 ms, and about 1,800 a second here when it did not rest). Then the
# same with a tiny receive buffer: events are lost (ENOBUFS), latniced
# notices, rescans, and still applies every long-lived one. latniced is
# stopped (SIGSTOP) for the storm's first half there, so that events are
# certainly lost: a slow storm (a few hundred processes a second here) can
# fit even a tiny buffer, and whether it overflows was up to the machine.
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

# Voluntary context switches of latniced's main thread.
switches() { awk '$1 == "voluntary_ctxt_switches:" { print $2 }' "/proc/$DAEMON/status"; }

run_storm() { # count label [stop: latniced stopped until the half]
        local count=$1 label=$2 stop=${3:-} i out=$T/storm.out v0 t0
        : >"$out"
        v0=$(switches) t0=$(date +%s%N)
        [ -z "$stop" ] || kill -STOP "$DAEMON"
        "$STORM" "$count" 2 >"$out" &
        local storm=$!
        # No window: a busy machine (or a sanitizer build) starts processes
        # slowly; what matters is that the storm runs, and the keepers come
        # in its middle.
        wait_until 500 eval 'grep -q half "$out" || ! kill -0 $storm 2>/dev/null' ||
                fail "$label: storm did not reach its half in 500 s"
        [ -z "$stop" ] || kill -CONT "$DAEMON"
        grep -q half "$out" || fail "$label: storm ended before its half ($(cat "$out"))"
        KEEPER_PIDS=()
        for i in $(seq 1 $KEEPERS); do
                spawn --argv0 "lt-storm-keeper-$label-$i"
                KEEPER_PIDS+=("$SPAWNED_PID")
                sleep 0.05
        done
        wait "$storm" || fail "$label: storm failed"
        WAKEUPS_PER_S=$((($(switches) - v0) * 1000000000 / ($(date +%s%N) - t0)))
        echo "$label: $(cat "$out" | tail -1), latniced slept $WAKEUPS_PER_S times a second"
        for p in "${KEEPER_PIDS[@]}"; do
                wait_until 30 attr_is "$p" nice 3 || fail "$label: long-lived $p missed"
                attr_is "$p" slice_ns "$(ln_slice -5)" || fail "$label: slice of $p"
        done
}

start_daemon --log-level info
run_storm "$N" normal
[ "$WAKEUPS_PER_S" -lt 1000 ] || fail "latniced woke $WAKEUPS_PER_S times a second in the storm"
stop_daemon || fail "exit status"

start_daemon --log-level info --recv-buffer 4096
run_storm $((N / 4)) tiny stop
RESCANNED='Rescanned processes \([^)]*lost events'
wait_until 5 grep -qE "$RESCANNED" "$LOG" ||
        fail "no rescan after lost events with a tiny receive buffer"
grep -E "$RESCANNED" "$LOG" | tail -1
stop_daemon || fail "exit status"
echo "PASS"
