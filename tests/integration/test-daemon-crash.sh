#!/usr/bin/env bash
# A latniced killed with SIGKILL loses no original attribute: the next one
# adopts its state file (--state-file) and gives the originals back. Every
# check reads the kernel (ln-getattr: sched_getattr() and timerslack_ns),
# never latniced.
#   1. the issue: Nice=7 TimerSlack=1us, kill -9, start, stop: originals back
#   2. restart with the rule removed: originals back at start-up
#   3. SIGKILL at random points of an exec storm and of reloads, restart,
#      stop: every task started before the first latniced has exactly the
#      attributes it had before it
#   4. a garbage, truncated or foreign-version state file: reported, set
#      aside, latniced starts
#   5. RestoreOnExit and a clean stop leave an empty table
. "$(dirname "$0")/test-daemon-lib.sh" "$@"
STORM=${4:?ln-storm path}

STATE=$T/tasks.state

# The kernel's view of every thread in "$@", one line each.
snapshot() {
        local t
        for t in "$@"; do "$GETATTR" "$t" || echo "tid=$t gone"; done
}

# Like stop_daemon KILL, but a status of 137 is what is expected.
kill_daemon() {
        kill -KILL "$DAEMON"
        wait "$DAEMON" 2>/dev/null
        DAEMON=
}

# ---- 1. the issue's reproduction
cat >"$POL/10-foo.policy" <<'P'
[Rule lnfoo]
Match = comm:lnfoo
Nice = 7
TimerSlack = 1us
P
spawn --comm lnfoo
foo=$SPAWNED_PID
before=$(snapshot "$foo")
attr_is "$foo" nice 0 || fail "lnfoo does not start at nice 0"

start_daemon --state-file "$STATE"
wait_until 5 attr_is "$foo" nice 7 || fail "1: Nice=7 not applied"
attr_is "$foo" timerslack_ns 1000 || fail "1: TimerSlack=1us not applied"
kill_daemon
attr_is "$foo" nice 7 || fail "1: SIGKILL restored something (it cannot)"

start_daemon --state-file "$STATE"
stop_daemon TERM || fail "1: latniced did not exit 0"
after=$(snapshot "$foo")
[ "$before" = "$after" ] || fail "1: after kill -9, restart and stop:
  before: $before
  after:  $after"
grep -q "adopted 1 task" "$LOG" || fail "1: the second latniced did not say it adopted the entry"
echo "ok 1: kill -9, restart, stop: nice and timer slack back ($after)"

# ---- 2. restart with the rule removed
cat >"$POL/20-bar.policy" <<'P'
[Rule lnbar]
Match = comm:lnbar
Nice = 5
Policy = batch
TimerSlack = 3us
P
spawn --comm lnbar --threads 2
bar=("${SPAWNED_TIDS[@]}")
for t in "${bar[@]}"; do renice -n 2 -p "$t" >/dev/null || fail "renice"; done
before=$(snapshot "${bar[@]}")
start_daemon --state-file "$STATE"
for t in "${bar[@]}"; do
        wait_until 5 attr_is "$t" nice 5 || fail "2: not applied to $t"
        attr_is "$t" policy batch || fail "2: Policy=batch not applied to $t"
done
kill_daemon
rm "$POL/20-bar.policy"
start_daemon --state-file "$STATE"
# at start-up, while latniced runs: nobody wants them, originals back
after=$(snapshot "${bar[@]}")
[ "$before" = "$after" ] || fail "2: rule removed, after the restart:
  before: $before
  after:  $after"
stop_daemon TERM || fail "2: latniced did not exit 0"
echo "ok 2: restart with the rule removed: originals back at start-up"

# ---- 3. SIGKILL at random points of an exec storm and of reloads
cat >"$POL/30-crash.policy" <<'P'
[Rule crash]
Match = comm:lncrash*
Nice = 6
TimerSlack = 2us
LatencyNice = -5

[Rule storm]
Match = comm:ln-storm
Nice = 3
TimerSlack = 5us
P
tids=()
for i in $(seq 1 12); do
        spawn --comm "lncrash$i" --threads $((i % 3))
        tids+=("${SPAWNED_TIDS[@]}")
        # different starting points: some reniced, some batch, some with a slack
        for t in "${SPAWNED_TIDS[@]}"; do
                case $((i % 4)) in
                1) renice -n $((i % 10)) -p "$t" >/dev/null ;;
                2) chrt -b -p 0 "$t" >/dev/null ;;
                3) echo $((40000 + i)) >"/proc/$t/timerslack_ns" ;;
                esac
        done
done
spawn --comm lnother --threads 1 # matches nothing: never touched
tids+=("${SPAWNED_TIDS[@]}")
before=$(snapshot "${tids[@]}")

rounds=${LATNICE_CRASH_ROUNDS:-12}
for r in $(seq 1 "$rounds"); do
        start_daemon --state-file "$STATE"
        "$STORM" 3000 2 >/dev/null &
        storm=$!
        # a reload (a value changed back and forth) at a random point
        if [ $((r % 2)) -eq 0 ]; then
                sleep "0.0$((RANDOM % 10))"
                sed -i "s/^Nice = [0-9]*$/Nice = $((6 + r % 3))/" "$POL/30-crash.policy"
                kill -HUP "$DAEMON"
        fi
        sleep "0.$((RANDOM % 4))$((RANDOM % 10))"
        kill_daemon
        kill "$storm" 2>/dev/null
        wait "$storm" 2>/dev/null
done
start_daemon --state-file "$STATE"
stop_daemon TERM || fail "3: latniced did not exit 0"
after=$(snapshot "${tids[@]}")
[ "$before" = "$after" ] || fail "3: after $rounds SIGKILLs during a storm and reloads:
$(diff <(echo "$before") <(echo "$after"))"
echo "ok 3: $rounds SIGKILLs during an exec storm and reloads: ${#tids[@]} threads as before"

# ---- 4. unusable state files: reported, set aside, latniced starts
bad=$T/bad.state
check_bad() { # what reason
        start_daemon --state-file "$bad"
        grep -q "State file $bad: .*$2.*Set aside as $bad.corrupt" "$LOG" ||
                fail "4: $1 not reported (want \"$2\")"
        [ -f "$bad.corrupt" ] || fail "4: $1 not set aside"
        stop_daemon TERM || fail "4: latniced did not exit 0 with a $1 state file"
        rm -f "$bad" "$bad.corrupt"
        echo "ok 4: $1 state file: reported, set aside, started"
}
head -c 5000 /dev/urandom >"$bad"
check_bad garbage "bad magic"
start_daemon --state-file "$bad"
stop_daemon TERM
head -c 1000 "$bad" >"$bad.tmp" && mv "$bad.tmp" "$bad"
check_bad truncated "truncated"
start_daemon --state-file "$bad"
stop_daemon TERM
printf '\x07\x00\x00\x00' | dd of="$bad" bs=1 seek=8 conv=notrunc status=none
check_bad "foreign-version" "version 7"

# ---- 5. a clean stop with RestoreOnExit leaves an empty table
start_daemon --state-file "$STATE"
wait_until 5 attr_is "$foo" nice 7 || fail "5: not applied"
stop_daemon TERM || fail "5: latniced did not exit 0"
start_daemon --state-file "$STATE"
grep -q "adopted" "$LOG" && fail "5: a clean stop left entries to adopt"
stop_daemon TERM
echo "ok 5: a clean stop leaves nothing to adopt"
exit 0
