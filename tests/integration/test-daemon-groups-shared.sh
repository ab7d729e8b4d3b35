#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Groups shared with another user (issue 36, item 5), on the real kernel in
# the v1 cpu hierarchy, with nobody's process named like a build job that a
# rule makes idle (CPUIdle=yes):
#  (a) a parent cgroup whose own tasks are only nobody's, with root's
#      process in a child cgroup: the parent is not made idle (its setting
#      would reach the child), and latnicectl explain says why;
#  (b) a group made idle while only nobody's process is in it gets its
#      original cpu.idle back when a root process joins: moved in by a write
#      to cgroup.procs (no event: the re-check timer), and moved in by a
#      root shell that then forks (the fork event);
#  (c) a group refused for nobody because root's process is in it (an app
#      scope at start-up) is looked at again when that process becomes
#      nobody's (a setuid without exec: only the proc connector's uid
#      event) and when it exits: made idle then, with no rescan.
# Every result is read from the cgroup files, never from the daemon.
#   test-daemon-groups-shared.sh LATNICED LN-SPAWN LN-GETATTR LATNICECTL
. "$(dirname "$0")/test-daemon-lib.sh" "$@"
LATNICECTL=${4:?latnicectl path}

CPU=$(awk '$3 == "cgroup" && $4 ~ /(^|,)cpu(,|$)/ { print $2; exit }' /proc/self/mounts)
[ -n "$CPU" ] || { echo "SKIP: no v1 cpu hierarchy"; exit 77; }
[ -e "$CPU/cpu.idle" ] || [ -n "$(ls "$CPU"/*/cpu.idle 2>/dev/null | head -1)" ] ||
        { echo "SKIP: the v1 cpu hierarchy has no cpu.idle (Linux < 5.15)"; exit 77; }

cat >"$POL/50-shared.policy" <<'P'
[Rule build-idle]
Match = name:lnshr-cc1
CPUIdle = yes
P

A=$CPU/latnice-shr-a-$$
B=$CPU/latnice-shr-b-$$
C=$CPU/latnice-shr-c-$$
D=$CPU/latnice-shr-d-$$
E=$CPU/latnice-shr-e-$$
GROUPS_MADE=("$A/root-child" "$A" "$B" "$C" "$D" "$E")
# Every cgroup made here goes, children first, also on failure: the
# processes in them first (a cgroup with tasks cannot be removed), the
# test's own and what they forked.
remove_groups() {
        local g i p
        for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
        for g in "${GROUPS_MADE[@]}"; do
                [ -d "$g" ] || continue
                for ((i = 0; i < 100; i++)); do
                        for p in $(cat "$g/cgroup.procs" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
                        rmdir "$g" 2>/dev/null && break
                        sleep 0.05
                done
                [ -d "$g" ] && echo "warning: could not remove $g" >&2
        done
}
trap 'remove_groups; cleanup' EXIT
mkdir "$A" "$A/root-child" "$B" "$C" "$D" "$E" || fail "cannot make test cgroups under $CPU"
for g in "$A" "$B" "$C" "$D" "$E"; do
        [ "$(cat "$g/cpu.idle")" = 0 ] || fail "$g starts with cpu.idle $(cat "$g/cpu.idle")"
done

# A private bus like the system bus, for latnicectl status (SharedGroups).
dbus-daemon --config-file="$(dirname "$0")/dbus-system.conf" --address="unix:path=$T/bus" \
        --nofork --nopidfile --print-address=3 3>"$T/bus.address" 2>"$T/bus.log" &
PIDS+=("$!")
wait_until 10 test -s "$T/bus.address" || fail "dbus-daemon did not start: $(cat "$T/bus.log")"
start_daemon --bus "unix:path=$T/bus"
ctl() { "$LATNICECTL" --bus "unix:path=$T/bus" "$@"; }
wait_until 10 eval 'ctl status >/dev/null 2>&1' || fail "latniced does not answer on the private bus"
out=$(ctl status) || fail "latnicectl status failed"
grep -q "Groups:" <<<"$out" && fail "latnicectl status shows shared groups before any"

# nobody's process named lnshr-cc1 in group $1: root puts the shell there,
# which then becomes nobody and execs (latniced sees the exec there).
start_nobody_cc1() { # group
        in_cgroup "$1" "${NOBODY[@]}" bash -c 'exec -a lnshr-cc1 sleep 300'
        wait_until 5 eval '[ "$(cat /proc/$RUN_PID/comm 2>/dev/null)" = sleep ]' ||
                fail "could not start nobody's lnshr-cc1 in $1"
        [ "$(stat -c %u "/proc/$RUN_PID")" = 65534 ] || fail "lnshr-cc1 is not nobody's"
}

# ---- (a) root's process in a child cgroup of nobody's ------------------
in_cgroup "$A/root-child" sleep 300
root_a=$RUN_PID
start_nobody_cc1 "$A"
cc1_a=$RUN_PID
[ "$(cat "$A/cgroup.procs")" = "$cc1_a" ] || fail "$A holds more than nobody's process: $(cat "$A/cgroup.procs")"
wait_until 10 grep -q "latnice-shr-a-$$ holds processes of other users than $cc1_a's (process $root_a of uid 0, in it or a cgroup below it)" "$LOG" ||
        fail "(a) no note that $A is shared through its child cgroup (cpu.idle $(cat "$A/cpu.idle"))"
[ "$(cat "$A/cpu.idle")" = 0 ] || fail "(a) $A was made idle for nobody's process, with root's process in $A/root-child"
out=$("$LATNICECTL" explain --policy-dir "$POL" "$cc1_a" 2>&1)
echo "$out" | grep -q "shared with another user.*process $root_a of uid 0" ||
        fail "(a) latnicectl explain does not say the group is shared: $out"
echo "ok - (a) a parent cgroup of nobody's with root's process in a child cgroup is not made idle; explain says why"

# ---- (b) root's process joins a group made idle for nobody -------------
# By a write to cgroup.procs: no event of the process, the timer finds it.
start_nobody_cc1 "$B"
wait_until 10 eval '[ "$(cat $B/cpu.idle)" = 1 ]' || fail "(b) $B was not made idle for nobody's process alone"
sleep 300 &
root_b=$!
PIDS+=("$root_b")
echo "$root_b" >"$B/cgroup.procs"
wait_until 20 eval '[ "$(cat $B/cpu.idle)" = 0 ]' ||
        fail "(b) $B is still idle with root's process $root_b moved into it"
wait_until 5 grep -q "latnice-shr-b-$$ now holds process $root_b of uid 0 as well" "$LOG" ||
        fail "(b) the give-back of $B is not logged"
n=$(grep -c "latnice-shr-b-$$ now holds" "$LOG")
[ "$n" = 1 ] || fail "(b) the give-back of $B logged $n times, expected once"
echo "ok - (b) a group made idle for nobody gets cpu.idle 0 back when root's process is moved in"

# By a root shell that moves itself in and forks.
start_nobody_cc1 "$C"
wait_until 10 eval '[ "$(cat $C/cpu.idle)" = 1 ]' || fail "(b) $C was not made idle for nobody's process alone"
in_cgroup "$C" bash -c 'sleep 300 & wait'
root_c=$RUN_PID
wait_until 20 eval '[ "$(cat $C/cpu.idle)" = 0 ]' ||
        fail "(b) $C is still idle with root's shell $root_c and its child in it"
echo "ok - (b) a group made idle for nobody gets cpu.idle 0 back when root shell $root_c forks in it ($(grep -o "latnice-shr-c-$$ now holds process [0-9]* of uid 0" "$LOG"))"

# ---- (c) root's process that was there first changes its uid, or exits ----
# Nobody's lnshr-cc1 joins group $1, where root's process $2 is: $1 is
# found shared, said so, and not made idle.
refused_for_nobody() { # group root-pid
        start_nobody_cc1 "$1"
        wait_until 10 grep -q "${1##*/} holds processes of other users than $RUN_PID's (process $2 of uid 0" "$LOG" ||
                fail "(c) no note that $1 is shared with root's process $2"
        idle_is "$1" 0 || fail "(c) $1 was made idle for nobody with root's process $2 in it"
}
# ... and once root's process $2 $3 (no rescan), $1 is made idle.
idle_once() { # group root-pid what
        wait_until 10 idle_is "$1" 1 ||
                fail "(c) $1 not made idle after root's process $2 $3 (cpu.idle $(cat "$1/cpu.idle"))"
        echo "ok - (c) a group refused for nobody while root's process was in it is made idle once that process $3"
}
# Root's process in $D that becomes nobody (real and effective uid) at a
# line on its FIFO, without exec: the uid event is all latniced gets.
mkfifo "$T/d.fifo"
in_cgroup "$D" perl -e 'open(my $f, q(<), $ARGV[0]) or die; <$f>; $< = 65534; $> = 65534; die q(still root) if $< != 65534; sleep 300' "$T/d.fifo"
root_d=$RUN_PID
refused_for_nobody "$D" "$root_d"
echo >"$T/d.fifo"
wait_until 5 eval '[ "$(stat -c %u /proc/$root_d)" = 65534 ]' || fail "(c) $root_d did not become nobody"
idle_once "$D" "$root_d" "changed its uid"
# Root's process in $E exits.
in_cgroup "$E" sleep 300
root_e=$RUN_PID
refused_for_nobody "$E" "$root_e"
kill -KILL "$root_e"
wait "$root_e" 2>/dev/null
idle_once "$E" "$root_e" "exited"

# Groups found shared: latnicectl status and SharedGroups say so.
shared=$(busctl --address="unix:path=$T/bus" get-property org.latnice.Daemon1 /org/latnice/Daemon1 \
        org.latnice.Daemon1 SharedGroups | awk '{ print $2 }')
[ "$shared" -ge 3 ] || fail "SharedGroups is $shared after three shared groups"
ctl status | grep -Eq "Groups: $shared times a group was found shared with another user" ||
        fail "latnicectl status does not show the shared groups: $(ctl status)"
echo "ok - SharedGroups $shared, latnicectl status says so"
stop_daemon || fail "latniced did not exit cleanly"
for g in "$A" "$B" "$C" "$D" "$E"; do
        [ "$(cat "$g/cpu.idle")" = 0 ] || fail "$g left idle after latniced's exit"
done
echo "ok - every group has cpu.idle 0 after latniced's exit"
