#!/usr/bin/env bash
# --dry-run logs what it would do and changes nothing: neither processes
# found by the start-up scan, nor new ones, nor on reload, nor on exit.
. "$(dirname "$0")/test-daemon-lib.sh" "$@"

cat >"$POL/50-dry.policy" <<'P'
[Rule dry]
Match = name:lt-dry-*
Nice = 5
LatencyNice = -10
Policy = batch
P
base=$(base_slice)

check_untouched() { # tids...
        local t
        for t in "$@"; do
                attr_is "$t" nice 0 || fail "dry run changed nice of $t"
                attr_is "$t" slice_ns "$base" || fail "dry run changed the slice of $t"
                attr_is "$t" policy other || fail "dry run changed the policy of $t"
        done
}

spawn --argv0 lt-dry-before --threads 1
before=("${SPAWNED_TIDS[@]}")
start_daemon --dry-run
grep -q "would apply.*rule dry" "$LOG" || fail "no 'would apply' for the pre-existing process"

spawn --argv0 lt-dry-after --threads 2
after=("${SPAWNED_TIDS[@]}")
wait_until 2 grep -q "$SPAWNED_PID (ln-spawn): would apply" "$LOG" ||
        fail "no 'would apply' for the new process"
check_untouched "${before[@]}" "${after[@]}"

rm "$POL/50-dry.policy"
reload_daemon
check_untouched "${before[@]}" "${after[@]}"
stop_daemon || fail "exit status"
check_untouched "${before[@]}" "${after[@]}"
echo "PASS"
