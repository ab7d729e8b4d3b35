#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A boost never outlives its reason (issue 36, item 2): nobody runs a
# trusted, boosted program (a copy of bash installed by root, like a
# terminal or PipeWire's context.exec) and has it start children. A child
# whose own rules do not grant the boost ends with what the boosted parent
# had before latniced changed it - nice 0, the default slice, the default
# timer slack, no I/O class - whether it forks and never execs or execs
# something unmatched; a child its own rules match keeps its own settings.
# Everything is read back from the kernel (ln-getattr, ionice).
#   test-daemon-inherit.sh LATNICED LN-SPAWN LN-GETATTR
. "$(dirname "$0")/test-daemon-lib.sh" "$@"

# A trusted place (root's, 0755, below /run) and a place of nobody's.
TRUSTED=$(mktemp -d /run/lninherit.XXXXXX)
chmod 0755 "$TRUSTED" "$T"
trap 'rm -rf "$TRUSTED"; cleanup' EXIT
cp /bin/bash "$TRUSTED/lnterm"
cp /bin/sleep "$TRUSTED/lnchild"
chmod 0755 "$TRUSTED/lnterm" "$TRUSTED/lnchild"
W=$T/nobody
mkdir -p "$W"
chown 65534:65534 "$W"
mkfifo "$W/hold"
chown 65534:65534 "$W/hold"

# comm, so that a child that renames itself leaves the rule; exe, so that
# latniced reads the executable (a policy without name: or exe: keys never
# reads it, and a boost needs the trusted executable's name).
cat >"$POL/50-inherit.policy" <<'P'
[Rule term]
Match = comm:lnterm && exe:*/lnterm
Nice = -11
Slice = 0.1ms
TimerSlack = 1us
IOClass = realtime
IONice = 4

[Rule child]
Match = comm:lnchild && exe:*/lnchild
Nice = -5
P

BASE=$(attr $$ slice_ns)
SLACK=$(attr $$ timerslack_ns)
start_daemon

# The boosted parent: waits (without children of its own) until told to
# go, then starts its children and writes their pids down. fd 9 is the FIFO
# opened read-write: a read of it blocks for ever, without a sleep child.
"${NOBODY[@]}" "$TRUSTED/lnterm" -c '
        W=$1
        exec 9<>"$W/hold"
        until [ -e "$W/go" ]; do read -r -t 0.05 -u 9 || :; done
        # A: forks, never execs, renames itself so that no rule matches it.
        ( echo -n lnforked >/proc/self/comm; read -r -u 9 ) &
        echo $! >"$W/a"
        # B: forks and never execs: still lnterm, its own rule matches.
        ( read -r -u 9 ) &
        echo $! >"$W/b"
        # C: execs a program no rule matches.
        /bin/sleep 300 &
        echo $! >"$W/c"
        # D: execs a trusted program of its own rule (Nice=-5 only).
        "$2/lnchild" 300 &
        echo $! >"$W/d"
        # E: a child that forks a grandchild before it renames itself.
        ( /bin/sleep 300 & echo $! >"$W/e"; echo -n lnforked2 >/proc/self/comm; read -r -u 9 ) &
        echo $! >"$W/e1"
        read -r -u 9
' lnterm "$W" "$TRUSTED" &
PARENT=$!
PIDS+=("$PARENT")

wait_until 10 attr_is "$PARENT" nice -11 ||
        fail "trusted lnterm run by nobody: nice $(attr "$PARENT" nice), expected -11"
attr_is "$PARENT" slice_ns 100000 || fail "lnterm: slice $(attr "$PARENT" slice_ns)"
attr_is "$PARENT" timerslack_ns 1000 || fail "lnterm: timer slack $(attr "$PARENT" timerslack_ns)"
ionice -p "$PARENT" | grep -q "realtime: prio 4" || fail "lnterm: I/O $(ionice -p "$PARENT")"
attr_is "$PARENT" reset_on_fork yes ||
        fail "lnterm: boosted without SCHED_FLAG_RESET_ON_FORK: $("$GETATTR" "$PARENT")"
echo "ok: the trusted parent is boosted, with reset-on-fork"

touch "$W/go"
for f in a b c d e e1; do
        wait_until 10 test -s "$W/$f" || fail "the parent did not start child $f"
done
A=$(cat "$W/a") B=$(cat "$W/b") C=$(cat "$W/c") D=$(cat "$W/d") E=$(cat "$W/e")
PIDS+=("$A" "$B" "$C" "$D" "$E" "$(cat "$W/e1")")
echo "parent $PARENT, children A $A B $B C $C D $D E1 $(cat "$W/e1"), grandchild E $E"

# What the parent had before latniced changed it: nice 0, the default
# slice, the test's timer slack, no I/O class.
original() { # pid
        attr_is "$1" nice 0 && attr_is "$1" slice_ns "$BASE" &&
                attr_is "$1" timerslack_ns "$SLACK" && ionice -p "$1" | grep -q "^none"
}
describe() { # pid
        echo "$("$GETATTR" "$1") io=$(ionice -p "$1")"
}
unboosted() { # pid what
        wait_until 10 original "$1" || fail "$2: $(describe "$1"), expected nice 0, slice $BASE, timer slack $SLACK, no I/O class"
        echo "ok: $2 gets the parent's originals back"
}

wait_until 10 eval '[ "$(cat /proc/'"$C"'/comm)" = sleep ]' || fail "child C did not exec sleep"
unboosted "$A" "a child that forks, never execs and matches no rule"
unboosted "$C" "a child that execs an unmatched program"
unboosted "$E" "a grandchild forked by a child before it was taken back"

# B: still lnterm (same trusted exe, same name): its own rule grants the boost.
wait_until 10 eval 'attr_is '"$B"' nice -11 && attr_is '"$B"' timerslack_ns 1000' ||
        fail "a forked lnterm that its own rule matches: $(describe "$B"), expected its boost"
attr_is "$B" slice_ns 100000 || fail "forked lnterm: slice $(attr "$B" slice_ns)"
echo "ok: a child its own rule boosts keeps that boost"

# D: its own rule sets only Nice=-5; what it inherited otherwise goes back.
wait_until 10 eval 'attr_is '"$D"' nice -5 && attr_is '"$D"' timerslack_ns '"$SLACK" ||
        fail "lnchild: $(describe "$D"), expected nice -5 (its rule) and timer slack $SLACK"
attr_is "$D" slice_ns "$BASE" || fail "lnchild: slice $(attr "$D" slice_ns), expected $BASE"
ionice -p "$D" | grep -q "^none" || fail "lnchild: I/O $(ionice -p "$D"), expected none"
echo "ok: a child its own rule matches keeps its own settings, and only those"

# Stable: nothing gives the boost back to the unmatched children later.
sleep 0.5
for p in "$A" "$C" "$E"; do original "$p" || fail "pid $p changed again: $(describe "$p")"; done

# What latniced said (for the test log).
grep -E "gave back|applied" "$LOG" | sed "s/^/  latniced: /"

# latniced's exit restores the parent, reset-on-fork included (it had none).
stop_daemon || fail "latniced exited with $?"
attr_is "$PARENT" nice 0 || fail "after exit: lnterm nice $(attr "$PARENT" nice)"
attr_is "$PARENT" reset_on_fork no || fail "after exit: lnterm kept reset-on-fork"
attr_is "$PARENT" timerslack_ns "$SLACK" || fail "after exit: lnterm timer slack"
echo "ok: on exit the parent gets its originals back, reset-on-fork off again"
echo "PASS"
