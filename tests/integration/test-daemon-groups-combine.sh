#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# One group, two rules' group settings (issue 31): a terminal's scope holds
# a long-lived process of an unfocused app (CPUWeight=50) and, one after
# another and two at a time, short-lived compilers (CPUIdle=yes). The
# group gets what its live requesters ask for together: idle while any
# compiler runs, weight 50 otherwise; the terminal asking again (it execs,
# as a focus change re-evaluates it) does not take idle away, a compiler
# coming or going does not take the weight away, and each field goes back
# to its original when the last process asking for it is gone. On the real
# kernel's v1 cpu hierarchy, read from cpu.idle and cpu.shares after each
# event; latniced handles events in order, so a later process it has
# visibly applied (a barrier) says an earlier event was handled.
#   test-daemon-groups-combine.sh LATNICED LN-SPAWN LN-GETATTR
. "$(dirname "$0")/test-daemon-lib.sh" "$@"

CPU=$(awk '$3 == "cgroup" && $4 ~ /(^|,)cpu(,|$)/ { print $2; exit }' /proc/self/mounts)
[ -n "$CPU" ] || { echo "SKIP: no v1 cpu hierarchy"; exit 77; }
G=$CPU/latnice-cmb-$$
mkdir "$G" || fail "cannot make $G"
[ -e "$G/cpu.idle" ] || { rmdir "$G"; echo "SKIP: the v1 cpu hierarchy has no cpu.idle (Linux < 5.15)"; exit 77; }
trap 'for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done; for i in $(seq 100); do rmdir "$G" 2>/dev/null && break; sleep 0.05; done; cleanup' EXIT

cat >"$POL/50-combine.policy" <<'P'
[Rule unfocused-app]
Match = name:lncmb-term
CPUWeight = 50

[Rule build]
Match = name:lncmb-cc1
CPUIdle = yes

[Rule barrier]
Match = name:lncmb-mark
Nice = 3
P

# The terminal: named lncmb-term, it execs itself again (same pid, a new
# evaluation) at each line written to its FIFO.
# Each run of the script (after its exec: latniced has the exec event
# queued by then) adds a line to term.runs.
cat >"$T/term" <<'S'
echo run >>"$1.runs"
# Until a line: on a busy machine the writer of the last line may still
# have the FIFO open when this run opens it, which gives an EOF, not a wait.
until read -r _ <"$1"; do :; done
exec -a lncmb-term bash "$0" "$1"
S
mkfifo "$T/term.fifo"

state() { echo "idle $(cat "$G/cpu.idle") shares $(cat "$G/cpu.shares")"; }
# expect WHAT STATE: the group has STATE now (after a barrier: nothing to wait for).
expect() { [ "$(state)" = "$2" ] || fail "$1: $(state), expected $2"; }
# wait_state WHAT STATE: the group comes to STATE (an event latniced handles).
state_is() { [ "$(state)" = "$1" ]; }
wait_state() { wait_until 60 state_is "$2" || fail "$1: $(state), expected $2"; }
# Every event before this call has been handled once a process started now
# (outside the group) has its rule's nice.
barrier() {
        bash -c 'exec -a lncmb-mark sleep 300' &
        local b=$!
        wait_until 60 attr_is "$b" nice 3 || fail "barrier: lncmb-mark $b not applied"
        kill -KILL "$b"
        wait "$b" 2>/dev/null
}
# PID runs lncmb-cc1 (it exec'd: its exec event comes before a later barrier's)
is_cc1() { tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -q '^lncmb-cc1 '; }
cc1() { # a compiler in the group: RUN_PID
        bash -c 'echo $$ > "$1/cgroup.procs"; exec -a lncmb-cc1 sleep 300' _ "$G" &
        RUN_PID=$!
        PIDS+=("$RUN_PID")
        wait_until 60 is_cc1 "$RUN_PID" || fail "compiler $RUN_PID did not start"
}
gone() { kill -KILL "$1"; wait "$1" 2>/dev/null; }
runs() { cat "$T/term.fifo.runs" 2>/dev/null | wc -l; }
runs_above() { [ "$(runs)" -gt "$1" ]; }
term_again() { # the terminal asks again: a new exec of the same process
        local n
        n=$(runs)
        echo >"$T/term.fifo"
        wait_until 60 runs_above "$n" || fail "the terminal did not exec again"
        barrier
}

IDLE="idle 1 shares 3"   # the kernel's idle weight: cpu.shares reads 3
LIGHT="idle 0 shares 512" # CPUWeight=50
ORIG="idle 0 shares 1024"
expect "the new group" "$ORIG"

start_daemon
bash -c 'echo $$ > "$1/cgroup.procs"; exec -a lncmb-term bash "$2" "$3"' _ "$G" "$T/term" "$T/term.fifo" &
term=$!
PIDS+=("$term")
wait_until 60 runs_above 0 || fail "the terminal did not start"
wait_state "the terminal alone (CPUWeight=50)" "$LIGHT"
term_again
expect "the terminal alone, asking again" "$LIGHT"
echo "ok - the terminal alone: CPUWeight=50"

for round in 1 2 3 4 5; do
        cc1
        a=$RUN_PID
        wait_state "round $round: compiler $a started" "$IDLE"
        # The terminal asks for its weight again: idle stays (main's
        # "latest request wins" set the group's idle back to 0 here).
        term_again
        expect "round $round: the terminal asked again beside compiler $a" "$IDLE"
        cc1
        b=$RUN_PID
        barrier
        expect "round $round: a second compiler $b" "$IDLE"
        gone "$a"
        barrier
        expect "round $round: compiler $a gone, $b still runs" "$IDLE"
        term_again
        expect "round $round: the terminal asked again beside compiler $b" "$IDLE"
        # The last compiler goes: idle goes back, the weight stays (main
        # left the group idle until the terminal's next evaluation).
        gone "$b"
        wait_state "round $round: the last compiler gone" "$LIGHT"
        term_again
        expect "round $round: the terminal asked again, alone" "$LIGHT"
        echo "ok - round $round: idle while a compiler runs (two at a time, the terminal asking again), weight 50 after"
done

# The terminal goes first: its weight is given back once the compiler is
# gone too, and the compiler's idle holds meanwhile.
cc1
c=$RUN_PID
wait_state "compiler $c started" "$IDLE"
gone "$term"
barrier
expect "the terminal gone, compiler $c still runs" "$IDLE"
gone "$c"
wait_state "the terminal and the last compiler gone" "$ORIG"
echo "ok - each field given back when the last process asking for it is gone"

kill -0 "$DAEMON" 2>/dev/null || fail "latniced died"
stop_daemon || fail "latniced did not exit cleanly"
expect "after latniced's exit" "$ORIG"
echo "ok - the group has its original after latniced's exit"
