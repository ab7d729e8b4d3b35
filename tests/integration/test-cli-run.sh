#!/usr/bin/env bash
# latnicectl run KEY=VALUE... -- CMD: the attributes are set on the command
# (same pid after exec), verified from outside with sched_getattr (ln-getattr).
#   $1 latnicectl  $2 ln-spawn  $3 ln-getattr
CTL=${1:?latnicectl path}
GETATTR=${3:?ln-getattr path}
. "$(dirname "$0")/test-cli-lib.sh"
need_root

# attr PID FIELD: the kernel's value (ln-getattr, raw sched_getattr and /proc)
attr() {
        "$GETATTR" "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# start_run SETTINGS...: latnicectl run SETTINGS -- sleep 30 in the background;
# RPID is the pid, and returns once the exec'd sleep is running.
start_run() {
        "$CTL" run "$@" -- sleep 30 2>"$T/run.err" &
        RPID=$!
        PIDS+=("$RPID")
        wait_until 5 grep -qx sleep "/proc/$RPID/comm" 2>/dev/null ||
                fail "run $*: the command did not start: $(cat "$T/run.err")"
}

stop_run() {
        kill -KILL "$RPID" 2>/dev/null
        wait "$RPID" 2>/dev/null
}

# ---- LatencyNice=-5 ---------------------------------------------------------------
start_run LatencyNice=-5
ln=$(attr "$RPID" latency_nice)
if [ "$ln" != "n/a" ]; then
        # the kernel has per-task latency nice (the latnice patch set)
        [ "$ln" = "-5" ] || fail "LatencyNice=-5: the kernel reports latency_nice=$ln"
else
        # emulated with the EEVDF slice: base * 1024 / weight(-5) = base * 1024 / 3121
        major=$(uname -r | cut -d. -f1) minor=$(uname -r | cut -d. -f2)
        if [ "$major" -lt 6 ] || { [ "$major" -eq 6 ] && [ "$minor" -lt 12 ]; }; then
                skip "kernel $(uname -r) has neither latency nice nor the EEVDF slice (6.12)"
        fi
        base=$(cat /sys/kernel/debug/sched/base_slice_ns 2>/dev/null) ||
                base=$("$PY" -c 'import os, math
n = min(os.cpu_count(), 8)
print(700000 * (1 + int(math.log2(n))))')
        want=$((base * 1024 / 3121))
        [ "$want" -lt 100000 ] && want=100000
        got=$(attr "$RPID" slice_ns)
        [ "$got" = "$want" ] ||
                fail "LatencyNice=-5 (slice backend): slice_ns=$got, expected $want (base $base)"
        [ "$(attr "$RPID" custom_slice)" = yes ] || fail "LatencyNice=-5: no custom slice"
fi
[ "$(attr "$RPID" nice)" = 0 ] || fail "LatencyNice=-5 changed nice"
[ "$(attr "$RPID" policy)" = other ] || fail "LatencyNice=-5 changed the policy"
stop_run

# ---- Nice=5 Policy=batch Slice=3ms ------------------------------------------------
start_run Nice=5 Policy=batch Slice=3ms
[ "$(attr "$RPID" policy)" = batch ] || fail "Policy=batch: $("$GETATTR" "$RPID")"
[ "$(attr "$RPID" nice)" = 5 ] || fail "Nice=5: $("$GETATTR" "$RPID")"
[ "$(attr "$RPID" slice_ns)" = 3000000 ] || fail "Slice=3ms: $("$GETATTR" "$RPID")"
stop_run

# ---- TimerSlack, Policy=idle ----------------------------------------------------------
start_run TimerSlack=1ms Policy=idle
[ "$(attr "$RPID" timerslack_ns)" = 1000000 ] || fail "TimerSlack=1ms: $("$GETATTR" "$RPID")"
[ "$(attr "$RPID" policy)" = idle ] || fail "Policy=idle: $("$GETATTR" "$RPID")"
stop_run

# ---- uclamp: applied where the kernel has it, else a warning and the command runs ----
start_run UtilMin=10%
if [ "$(attr "$RPID" util_min)" = "n/a" ] || grep -q "UtilMin is not supported" "$T/run.err"; then
        grep -q "^latnicectl: warning: UtilMin is not supported" "$T/run.err" ||
                fail "unsupported UtilMin: no warning: $(cat "$T/run.err")"
else
        [ "$(attr "$RPID" util_min)" = 102 ] || fail "UtilMin=10%: $("$GETATTR" "$RPID")"
fi
stop_run

# ---- the command's own exit status; errors ---------------------------------------
"$CTL" run Nice=1 -- sh -c 'exit 3'
[ $? -eq 3 ] || fail "run does not pass on the command's exit status"
"$CTL" run Nice=1 sh -c 'exit 0' || fail "run without -- before the command"
expect_rc 2 run Nice=abc -- true
grep -q "^latnicectl: invalid setting 'Nice=abc': expected an integer in -20..19" "$T/err" ||
        fail "invalid setting message: $(cat "$T/err")"
expect_rc 2 run Bogus=1 -- true
grep -q "invalid setting 'Bogus=1'" "$T/err" || fail "unknown key message: $(cat "$T/err")"
expect_rc 2 run CPUWeight=100 -- true
expect_rc 2 run -- true
expect_rc 2 run Nice=1 --
expect_rc 2 run --bogus Nice=1 -- true
expect_rc 127 run Nice=1 -- /nonexistent/command
grep -q "failed to run /nonexistent/command" "$T/err" || fail "exec failure message"

# ---- unprivileged: raising priority is refused, lowering works ---------------------
if command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
        setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups --inh-caps=-all \
                "$CTL" run Nice=-5 -- true 2>"$T/err"
        [ $? -eq 1 ] || fail "nobody could set Nice=-5"
        grep -q "^latnicectl: not allowed" "$T/err" || fail "refusal message: $(cat "$T/err")"
        setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups --inh-caps=-all \
                "$CTL" run Nice=5 -- sh -c 'test "$(cut -d" " -f19 /proc/self/stat)" = 5' ||
                fail "nobody could not lower their own priority"
fi

echo "PASS"
