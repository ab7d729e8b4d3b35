#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The bounded real-time grant (Policy=rr, issue 32 item 4) under the real
# latniced, as the unprivileged user nobody (setpriv --reuid=65534), read
# back from the kernel only (sched_getattr via ln-getattr, getpriority,
# /proc/PID/limits), never from the daemon.
#
# The grant needs RLIMIT_RTTIME set on the process, and prlimit() on another
# user's process needs CAP_SYS_RESOURCE. Where this shell (and so latniced)
# lacks it (some container hosts), the test first checks that nobody's data
# loop is refused real time with the reason in the log (0), then runs 1-5
# with processes of root, whose limits latniced may set (only the soft
# limit: lowering the hard one could not be undone). The systemd VM's
# latniced.service has the capability.
#
#   0. (without CAP_SYS_RESOURCE) nobody's trusted data loop: no real time,
#      "its RLIMIT_RTTIME cannot be set" in the log, the timer slack applied;
#   1. a trusted executable's thread named like PipeWire's data loop gets
#      SCHED_RR at the cap (MaxRealtimePriority=20, not the rule's 88) with
#      SCHED_RESET_ON_FORK, the rule's nice under it, and its process an
#      RLIMIT_RTTIME of 200 ms (soft; hard too where latniced has
#      CAP_SYS_RESOURCE); the main thread, which the rule does not name,
#      stays fair;
#   2. (always as nobody) an untrusted copy (the same name, nobody's
#      executable) and a trusted program under the name (argv[0], comm)
#      get no real time, and latniced never tries to grant it,
#      only the rule's timer slack;
#   3. the per-user limit (MaxRealtimeThreadsPerUser=2): of nobody's
#      further data loops only one more is granted, and the log says so
#      once;
#   4. everything is given back on stop (SIGTERM): the fair policy, the
#      nice, no RESET_ON_FORK, the original RLIMIT_RTTIME;
#   5. after kill -9 of latniced: the grant and the limit stay (nobody can
#      give them back); a restarted latniced on the same state file whose
#      policy no longer grants it gives both back at start-up, and one
#      whose policy still does gives both back at stop.
#
# The granted threads only ever sleep (ln-spawn's threads pause()).
#
#   test-daemon-realtime.sh LATNICED LN-SPAWN LN-GETATTR
. "$(dirname "$0")/test-daemon-lib.sh" "$@"

STATE=$T/rt.state
UNTRUSTED=$T/nobody
mkdir -p "$UNTRUSTED"
chmod 0755 "$T"
chown 65534:65534 "$UNTRUSTED"
trusted_copy "$SPAWN" lnpw
cp "$SPAWN" "$UNTRUSTED/lnpw"
chown 65534:65534 "$UNTRUSTED/lnpw"

cat >"$CONF" <<'C'
[Daemon]
MaxRealtimePriority = 20
MaxRealtimeThreadsPerUser = 2
C
cat >"$POL/50-rt.policy" <<'P'
[Rule data-loop]
Match = name:lnpw && thread:data-loop*
Policy = rr
RealtimePriority = 88
Nice = -11
TimerSlack = 1us
P

# Does latniced bound the hard limit too, and may it set another user's
# limits at all? Only with CAP_SYS_RESOURCE, which it has if this shell has
# it (capabilities are inherited by root's children).
cap_eff=$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)
if (((0x$cap_eff >> 24) & 1)); then
        HARD=200000 AS=("${NOBODY[@]}") AS_UID=65534 AS_WHO=nobody
else
        HARD=unlimited AS=() AS_UID=0 AS_WHO=root
        echo "note: no CAP_SYS_RESOURCE here: grants are checked on root's processes"
fi

# A process as AS_WHO (setpriv execs into it: same pid): PATH ARGS...; sets
# RUN_PID and RUN_TIDS from ln-spawn's line. AS=(...) overrides the runner.
run_as() {
        local out=$T/run.$RANDOM$RANDOM line
        "${AS[@]}" "$@" >"$out" &
        RUN_PID=$!
        PIDS+=("$RUN_PID")
        wait_until 10 grep -q "^pid=" "$out" || fail "$* as $AS_WHO did not start"
        line=$(grep "^pid=" "$out" | head -1)
        IFS=, read -r -a RUN_TIDS <<<"$(echo "$line" | sed 's/.*tids=//')"
}

nice_of() { # tid: the nice under any policy (getpriority)
        python3 -c 'import os, sys; print(os.getpriority(os.PRIO_PROCESS, int(sys.argv[1])))' "$1"
}
granted() { # tid what
        wait_until 10 attr_is "$1" policy rr ||
                fail "$2 (tid $1): $("$GETATTR" "$1"), expected SCHED_RR"
        attr_is "$1" rt_priority 20 ||
                fail "$2 (tid $1): priority $(attr "$1" rt_priority), expected the cap 20"
        attr_is "$1" reset_on_fork yes || fail "$2 (tid $1): no SCHED_RESET_ON_FORK"
        [ "$(nice_of "$1")" = -11 ] || fail "$2 (tid $1): nice $(nice_of "$1") under the grant"
}
given_back() { # tid what
        wait_until 10 attr_is "$1" policy other ||
                fail "$2 (tid $1): $("$GETATTR" "$1"), expected SCHED_OTHER back"
        attr_is "$1" nice 0 || fail "$2 (tid $1): nice $(attr "$1" nice), expected 0 back"
        attr_is "$1" reset_on_fork no || fail "$2 (tid $1): SCHED_RESET_ON_FORK left behind"
}
limit_is() { # pid "SOFT HARD" what
        wait_until 10 eval '[ "$(rttime '"$1"')" = "'"$2"'" ]' ||
                fail "$3: RLIMIT_RTTIME $(rttime "$1"), expected $2"
}

start_daemon --state-file "$STATE"

# ---- 0. without CAP_SYS_RESOURCE: nobody's data loop is refused, and why
if [ "$AS_UID" = 0 ]; then
        AS=("${NOBODY[@]}") AS_WHO=nobody
        run_as "$TRUSTED/lnpw" --threads 1 --thread-name data-loop.0
        AS=() AS_WHO=root
        refused=$RUN_PID refused_loop=${RUN_TIDS[1]}
        wait_until 10 attr_is "$refused_loop" timerslack_ns 1000 ||
                fail "nobody's data loop: timer slack $(attr "$refused_loop" timerslack_ns): never handled?"
        attr_is "$refused_loop" policy other ||
                fail "nobody's data loop got $(attr "$refused_loop" policy) without CAP_SYS_RESOURCE"
        wait_until 10 grep -q "$refused (lnpw): real time withheld: its RLIMIT_RTTIME cannot be set: Operation not permitted" "$LOG" ||
                fail "no 'real time withheld' for nobody's data loop in the log"
        kill -KILL "$refused"
        echo "ok 0: without CAP_SYS_RESOURCE nobody's data loop gets no real time, and the log says why"
fi

# ---- 1. a trusted executable's data loop
run_as "$TRUSTED/lnpw" --threads 1 --thread-name data-loop.0
pw=$RUN_PID pw_main=${RUN_TIDS[0]} pw_loop=${RUN_TIDS[1]}
# what every process here starts with: this shell's (latniced may have
# granted the process before it could be read)
ORIG=$(rttime $$)
[ "$ORIG" = "unlimited unlimited" ] || echo "note: RLIMIT_RTTIME starts at $ORIG here"
granted "$pw_loop" "trusted lnpw data-loop.0"
limit_is "$pw" "200000 $HARD" "trusted lnpw"
attr_is "$pw_main" policy other || fail "the main thread got $(attr "$pw_main" policy)"
echo "ok 1: $AS_WHO's trusted data loop: SCHED_RR 20, RESET_ON_FORK, nice -11, RLIMIT_RTTIME 200000 $HARD"

# ---- 2. the same name, not the trusted executable, always as nobody (root
# may take any boost itself, so the trust model gives root's processes all)
saved_as=("${AS[@]}") saved_who=$AS_WHO
AS=("${NOBODY[@]}") AS_WHO=nobody
run_as "$UNTRUSTED/lnpw" --threads 1 --thread-name data-loop.0
copy=$RUN_PID copy_loop=${RUN_TIDS[1]}
run_as "$SPAWN" --argv0 lnpw --comm lnpw --threads 1 --thread-name data-loop.0
named=$RUN_PID named_loop=${RUN_TIDS[1]}
AS=("${saved_as[@]}") AS_WHO=$saved_who
for x in "copy $copy $copy_loop" "named $named $named_loop"; do
        read -r what pid tid <<<"$x"
        # the timer slack is never a boost: once it is there, latniced decided
        wait_until 10 attr_is "$tid" timerslack_ns 1000 ||
                fail "$what: timer slack $(attr "$tid" timerslack_ns): never handled?"
        attr_is "$tid" policy other || fail "$what (tid $tid): $(attr "$tid" policy), not real time"
        attr_is "$tid" nice 0 || fail "$what (tid $tid): nice $(attr "$tid" nice)"
        [ "$(rttime "$pid")" = "$ORIG" ] || fail "$what: RLIMIT_RTTIME $(rttime "$pid") set"
        # without CAP_SYS_RESOURCE the limit could not be set anyway: the
        # trust model must have said no before latniced tried
        ! grep -Eq "(^|[^0-9])$pid \(lnpw\): real time withheld: its RLIMIT_RTTIME" "$LOG" ||
                fail "$what: latniced tried to grant it real time (withheld only for want of prlimit)"
done
echo "ok 2: nobody's copy and a borrowed name get no real time and no limit"

# ---- 3. the per-user limit: the user holds 1 grant, 1 more is allowed
run_as "$TRUSTED/lnpw" --threads 3 --thread-name data-loop.1 \
        --thread-name data-loop.2 --thread-name data-loop.3
more=$RUN_PID
n_rr() { # tids...: how many are SCHED_RR
        local t n=0
        for t in "$@"; do attr_is "$t" policy rr && n=$((n + 1)); done
        echo $n
}
# each thread is decided (timer slack 1 us, or none under real time)
for t in "${RUN_TIDS[@]:1}"; do
        wait_until 10 eval 'attr_is '"$t"' timerslack_ns 1000 || attr_is '"$t"' policy rr' ||
                fail "per-user: tid $t never handled"
done
[ "$(n_rr "${RUN_TIDS[@]:1}")" = 1 ] ||
        fail "per-user limit 2: $(n_rr "${RUN_TIDS[@]:1}") of 3 more threads granted, expected 1"
limit_is "$more" "200000 $HARD" "second process"
n=$(grep -c "real time withheld: user $AS_UID holds 2 real-time grant(s), MaxRealtimeThreadsPerUser=2" "$LOG")
[ "$n" = 1 ] || fail "per-user limit: said $n times in the log, expected once"
more_tids=("${RUN_TIDS[@]}")
echo "ok 3: MaxRealtimeThreadsPerUser=2 holds, said once"

# ---- 4. stop: everything back
stop_daemon TERM || fail "latniced exited with $?"
given_back "$pw_loop" "trusted lnpw data-loop.0 after stop"
for t in "${more_tids[@]:1}"; do given_back "$t" "second process tid $t after stop"; done
limit_is "$pw" "$ORIG" "trusted lnpw after stop"
limit_is "$more" "$ORIG" "second process after stop"
echo "ok 4: stop gives back the policy, the nice, the flag and RLIMIT_RTTIME"

# ---- 5. kill -9 and restart (one granted process left)
kill -KILL "$more" "$copy" "$named"
start_daemon --state-file "$STATE"
granted "$pw_loop" "trusted lnpw data-loop.0 (again)"
limit_is "$pw" "200000 $HARD" "trusted lnpw (again)"
kill -KILL "$DAEMON"
wait "$DAEMON" 2>/dev/null
DAEMON=
attr_is "$pw_loop" policy rr || fail "kill -9 gave the grant back (it cannot)"
[ "$(rttime "$pw")" = "200000 $HARD" ] || fail "kill -9 gave RLIMIT_RTTIME back (it cannot)"
# 5a. restarted with a policy that still grants it: latniced's again, back at stop
start_daemon --state-file "$STATE"
grep -q "took over the RLIMIT_RTTIME of 1 process" "$LOG" ||
        fail "the restarted latniced did not take the RLIMIT_RTTIME record over"
granted "$pw_loop" "after restart"
stop_daemon TERM || fail "latniced exited with $?"
given_back "$pw_loop" "after kill -9, restart and stop"
limit_is "$pw" "$ORIG" "after kill -9, restart and stop"
echo "ok 5a: kill -9, restart, stop: the grant and RLIMIT_RTTIME back"
# 5b. killed again; restarted without the rule: given back at start-up
start_daemon --state-file "$STATE"
granted "$pw_loop" "before the second kill"
kill -KILL "$DAEMON"
wait "$DAEMON" 2>/dev/null
DAEMON=
rm -f "$POL/50-rt.policy"
start_daemon --state-file "$STATE"
given_back "$pw_loop" "after kill -9 and a restart without the rule"
limit_is "$pw" "$ORIG" "after kill -9 and a restart without the rule"
stop_daemon TERM || fail "latniced exited with $?"
echo "ok 5b: kill -9, restart without the rule: the grant and RLIMIT_RTTIME back at start-up"
