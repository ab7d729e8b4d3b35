#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Boosts withheld from a tampered process, as nobody on the real kernel with
# the real latniced (issue 36, item 3): root's trusted binary started with
# LD_PRELOAD, LD_LIBRARY_PATH or LD_AUDIT in its environment, or under a
# tracer (strace -f), gets no boost; without them it does. Results are read
# back with ln-getattr, never from the daemon.
#   test-daemon-tamper.sh LATNICED LN-SPAWN LN-GETATTR LATNICECTL
. "$(dirname "$0")/test-daemon-lib.sh" "$@"
LATNICECTL=${4:?latnicectl path}

command -v strace >/dev/null || { echo "SKIP: no strace"; exit 77; }
LIBM=$(/sbin/ldconfig -p | sed -n 's/^\tlibm\.so\.6 (.*x86-64.*) => //p' | head -n1)
[ -n "$LIBM" ] || LIBM=$(/sbin/ldconfig -p | sed -n 's/^\tlibm\.so\.6 .* => //p' | head -n1)
[ -e "$LIBM" ] || { echo "SKIP: no libm.so.6 to preload"; exit 77; }

trusted_copy /bin/sleep lnpipewire

cat >"$POL/50-tamper.policy" <<'P'
[Rule audio]
Match = name:lnpipewire
LatencyNice = -15
Nice = -11
Slice = 0.1ms
TimerSlack = 1us
P
start_daemon
BASE=$(attr $$ slice_ns)

runs_lnpipewire() { [ "$(readlink "/proc/$1/exe" 2>/dev/null)" = "$TRUSTED/lnpipewire" ]; }
run() { # command... (as nobody); RUN_PID: the process that runs lnpipewire
        "${NOBODY[@]}" "$@" &
        RUN_PID=$!
        PIDS+=("$RUN_PID")
        wait_until 30 runs_lnpipewire "$RUN_PID" || fail "could not start: $*"
}
unboosted() { # pid what reason-in-log
        wait_until 30 attr_is "$1" timerslack_ns 1000 ||
                fail "$2: timer slack $(attr "$1" timerslack_ns), expected 1000 (never handled?)"
        attr_is "$1" nice 0 || fail "$2: nice $(attr "$1" nice), expected 0 (boost withheld)"
        attr_is "$1" slice_ns "$BASE" || fail "$2: slice $(attr "$1" slice_ns), expected $BASE"
        grep -q "^.*$1 (lnpipewire): boosts withheld (.*): $3" "$LOG" ||
                fail "$2: no 'boosts withheld' log line saying '$3'"
        echo "ok: $2: boosts withheld ($3)"
}

# 0. Without: the boost.
run "$TRUSTED/lnpipewire" 300
wait_until 30 attr_is "$RUN_PID" nice -11 ||
        fail "trusted lnpipewire: nice $(attr "$RUN_PID" nice), expected -11"
attr_is "$RUN_PID" slice_ns 100000 || fail "trusted lnpipewire: slice $(attr "$RUN_PID" slice_ns)"
echo "ok: trusted lnpipewire run by nobody gets its boost"

# 1. Started with LD_PRELOAD (of a library that exists: it is loaded).
run env LD_PRELOAD="$LIBM" "$TRUSTED/lnpipewire" 300
grep -q "$LIBM" "/proc/$RUN_PID/maps" || fail "LD_PRELOAD did not load $LIBM"
preloaded=$RUN_PID
unboosted "$RUN_PID" "LD_PRELOAD=$LIBM" "it was started with LD_PRELOAD in its environment"
out=$("$LATNICECTL" explain --policy-dir "$POL" "$preloaded" 2>&1)
echo "$out" | grep -q "Boosts withheld.*Nice=-11.*started with LD_PRELOAD in its environment" ||
        fail "latnicectl explain does not say why: $out"
echo "ok: explain says why"

# 2. LD_LIBRARY_PATH and LD_AUDIT.
run env LD_LIBRARY_PATH=/nonexistent "$TRUSTED/lnpipewire" 300
unboosted "$RUN_PID" "LD_LIBRARY_PATH" "it was started with LD_LIBRARY_PATH"
run env LD_AUDIT=/nonexistent/audit.so "$TRUSTED/lnpipewire" 300
unboosted "$RUN_PID" "LD_AUDIT" "it was started with LD_AUDIT"

# 3. Under a tracer of nobody's (strace -f): the tracee is the lnpipewire.
"${NOBODY[@]}" strace -f -qq -e trace=none -o /dev/null "$TRUSTED/lnpipewire" 300 &
tracer=$!
PIDS+=("$tracer")
traced=
find_tracee() {
        local c
        for c in $(cat "/proc/$tracer/task/$tracer/children" 2>/dev/null); do
                runs_lnpipewire "$c" && traced=$c && return 0
        done
        return 1
}
wait_until 30 find_tracee || fail "strace did not start lnpipewire"
PIDS+=("$traced")
[ "$(sed -n 's/^TracerPid:\t//p' "/proc/$traced/status")" = "$tracer" ] ||
        fail "lnpipewire is not traced by strace"
unboosted "$traced" "under strace -f" "it is being traced (by pid $tracer)"

stop_daemon TERM || fail "latniced did not exit cleanly"
echo "PASS"
