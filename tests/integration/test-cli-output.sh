#!/usr/bin/env bash
# latnicectl output conventions: tables fit a terminal and are never cut in a
# pipe (--full on a terminal), the pager ($SYSTEMD_PAGER, $PAGER, LESS),
# --json=MODE, --no-legend, -q, options of the wrong command, and set without
# latniced (checked on the kernel with ln-getattr).
#   $1 latnicectl  $2 ln-spawn  $3 ln-getattr
CTL=${1:?latnicectl path}
SPAWN=${2:?ln-spawn path}
GETATTR=${3:?ln-getattr path}
. "$(dirname "$0")/test-cli-lib.sh"
command -v script >/dev/null || skip "script(1) from util-linux is missing (a terminal for the tests)"
unset COLUMNS SYSTEMD_PAGER PAGER SYSTEMD_LESS LESS
[ -n "${CLI_OUTPUT_DEBUG:-}" ] && set -x

# A process with a long cmdline and a long rule name.
NAME=cli-output-test-$RANDOM
LONG=$(printf -- '--comm argument-%s ' $(seq 1 20))
POL=$T/policy
mkdir -p "$POL"
cat >"$POL/50-a-policy-file-with-a-long-name.policy" <<P
[Rule a-rule-with-a-name-long-enough-to-be-cut-on-a-narrow-terminal]
Match = name:$NAME && cmdline:"*argument-20*"
Nice = 5
TimerSlack = 1ms
P
# shellcheck disable=SC2086
"$SPAWN" --argv0 "$NAME" --threads 1 --sleep 60 $LONG --comm ln-spawn >"$T/spawn" 2>&1 &
PIDS+=($!)
wait_until 5 grep -qs "^pid=" "$T/spawn" || fail "ln-spawn did not start: $(cat "$T/spawn")"
SPID=$(sed -n 's/^pid=\([0-9]*\).*/\1/p' "$T/spawn")

# on_tty COLS CMD...: run CMD on a terminal COLS wide, output in $T/tty
# (terminal escapes and carriage returns removed).
on_tty() {
        local cols=$1
        shift
        script -qec "stty cols $cols rows 200; $*" /dev/null </dev/null >"$T/tty.raw" 2>&1
        sed -e 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1b[=>]//g; s/\r//g' "$T/tty.raw" >"$T/tty"
}

# widest FILE: the widest table row or "  fact: value" line in cells (python
# measures code points; the output here is ASCII and "…"). Prose lines are
# left to the terminal to wrap.
widest() {
        py 'import re, sys
lines = [l for l in open(sys.argv[1], encoding="utf-8").read().splitlines()
         if re.match(r"^(VERDICT|matched|no |skipped|  [a-z0-9\[\]]+: | *TID )", l)]
print(max(len(l) for l in lines))' "$1"
}

# widest_fact FILE: the widest "  fact: value" line.
widest_fact() {
        grep '^  [a-z0-9\[\]]*: ' "$1" | awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }'
}

# ---- a terminal: fit its width; --full: never cut ------------------------------
# The facts are cut to the width; in the table the rule's name and its
# settings never are, even when the name alone is wider than the terminal
# (then the table is wider: the predicate and the place wrap as far as they can).
on_tty 60 "$CTL" --no-pager --policy-dir "$POL" explain "$SPID"
grep -q "^Process $SPID" "$T/tty" || fail "explain on a tty: $(cat "$T/tty")"
[ "$(widest_fact "$T/tty")" -le 60 ] || fail "explain's facts on a 60-column tty are $(widest_fact "$T/tty") wide: $(cat "$T/tty")"
grep -q "argument-20" "$T/tty" && fail "the cmdline was not cut on a 60-column tty"
grep -q "^matched a-rule-with-a-name-long-enough-to-be-cut-on-a-narrow-terminal " "$T/tty" ||
        fail "the rule's name was cut on a 60-column tty: $(cat "$T/tty")"
grep -qw "Nice=5" "$T/tty" && grep -qw "TimerSlack=1ms" "$T/tty" ||
        fail "the settings were cut on a 60-column tty: $(cat "$T/tty")"
on_tty 60 "$CTL" --no-pager --full --policy-dir "$POL" explain "$SPID"
grep -q "argument-20 --comm ln-spawn" "$T/tty" || fail "--full cut the cmdline: $(cat "$T/tty")"
grep -q "a-rule-with-a-name-long-enough-to-be-cut-on-a-narrow-terminal" "$T/tty" ||
        fail "--full cut the rule: $(cat "$T/tty")"
[ "$(widest "$T/tty")" -gt 60 ] || fail "--full: nothing wider than the terminal?"

# 80 columns, a rule as long as the default policy's (issue 34): the rule's
# name and every setting whole, the predicate wrapped, and the table fits.
mkdir -p "$T/pol80"
cat >"$T/pol80/20-audio-video.policy" <<P
[Profile audio]
LatencyNice = -15
Nice = -11
TimerSlack = 1us

[Rule pipewire-data-loop]
Match = name:pipewire || name:wireplumber || name:pipewire-pulse || (name:$NAME && user:root)
Profile = audio
P
for how in "on_tty 80" "on_tty 200 COLUMNS=80"; do
        $how "$CTL" --no-pager --policy-dir "$T/pol80" explain "$SPID"
        sed -n '/^VERDICT/,/^$/p' "$T/tty" >"$T/table"
        grep -q "^matched pipewire-data-loop " "$T/table" || fail "$how: the rule's name was cut: $(cat "$T/tty")"
        for kv in LatencyNice=-15 Nice=-11 TimerSlack=1us; do
                grep -q -- " $kv\( \|$\)" "$T/table" || fail "$how: $kv was cut: $(cat "$T/table")"
        done
        # the predicate wrapped, not cut: the column, read down, is the decider
        py 'import sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
h = lines[0]
a, b = h.index("DECIDED BY"), h.index("SETS")
col = "".join(l[a:b].strip() for l in lines[1:])
want = sys.argv[2].replace(" ", "")
if col.replace(" ", "") != want:
    sys.exit(f"DECIDED BY reads {col!r}, expected {want!r}")' "$T/table" "name:$NAME && user:root" ||
                fail "$how: the predicate was cut: $(cat "$T/table")"
        fits80 "$T/table" || fail "$how: the table is wider than 80 columns: $(cat "$T/table")"
        [ "$(wc -l <"$T/table")" -gt 3 ] || fail "$how: nothing was wrapped? $(cat "$T/table")"
done

# ---- a pipe: never cut, whatever the terminal or $COLUMNS says -----------------
COLUMNS=40 "$CTL" --policy-dir "$POL" explain "$SPID" >"$T/out" 2>&1 || fail "explain"
grep -q "argument-20 --comm ln-spawn" "$T/out" || fail "cmdline cut in a pipe: $(cat "$T/out")"
grep -q "^matched *a-rule-with-a-name-long-enough-to-be-cut-on-a-narrow-terminal *50-a-policy-file-with-a-long-name.policy:1 " "$T/out" ||
        fail "table cut in a pipe: $(cat "$T/out")"

# ---- the pager ------------------------------------------------------------------
on_tty 80 PAGER="'sed s/^/P:/'" "$CTL" --policy-dir "$POL" explain "$SPID"
grep -q "^P:Process $SPID" "$T/tty" || fail "\$PAGER not used on a tty: $(cat "$T/tty")"
on_tty 80 SYSTEMD_PAGER="'sed s/^/S:/'" PAGER="'sed s/^/P:/'" "$CTL" --policy-dir "$POL" explain "$SPID"
grep -q "^S:Process $SPID" "$T/tty" || fail "\$SYSTEMD_PAGER does not come first: $(cat "$T/tty")"
on_tty 80 PAGER="'sed s/^/P:/'" "$CTL" --no-pager --policy-dir "$POL" explain "$SPID"
grep -q "^P:" "$T/tty" && fail "--no-pager still paged"
grep -q "^Process $SPID" "$T/tty" || fail "--no-pager: $(cat "$T/tty")"
on_tty 80 PAGER=cat "$CTL" --policy-dir "$POL" explain "$SPID"
grep -q "^Process $SPID" "$T/tty" || fail "PAGER=cat: $(cat "$T/tty")"
on_tty 80 LESS=x PAGER="'cat >/dev/null; echo LESS=\$LESS'" "$CTL" kernel
grep -qx "LESS=FRSXMK" "$T/tty" || fail "the pager did not get LESS=FRSXMK: $(cat "$T/tty")"
on_tty 80 SYSTEMD_LESS=FR PAGER="'cat >/dev/null; echo LESS=\$LESS'" "$CTL" kernel
grep -qx "LESS=FR" "$T/tty" || fail "\$SYSTEMD_LESS not passed as LESS: $(cat "$T/tty")"
PAGER='sed s/^/P:/' "$CTL" --policy-dir "$POL" explain "$SPID" >"$T/out" 2>&1
grep -q "^P:" "$T/out" && fail "paged into a pipe"
# set, run, monitor and check are never paged
on_tty 80 PAGER="'sed s/^/P:/'" "$CTL" --policy-dir "$POL" check
grep -q "^P:" "$T/tty" && fail "check was paged: $(cat "$T/tty")"

# ---- --json=MODE ---------------------------------------------------------------
expect_rc 0 --json=short kernel
[ "$(wc -l <"$T/out")" -eq 1 ] || fail "--json=short is not one line: $(head -3 "$T/out")"
py 'import json,sys; json.load(open(sys.argv[1]))' "$T/out" || fail "--json=short is not JSON"
for mode in "--json" "--json=pretty"; do
        expect_rc 0 "$mode" kernel
        [ "$(wc -l <"$T/out")" -gt 10 ] || fail "$mode is not pretty: $(head -3 "$T/out")"
        py 'import json,sys; json.load(open(sys.argv[1]))' "$T/out" || fail "$mode is not JSON"
done
expect_rc 0 --json=off kernel
grep -q "^Kernel: " "$T/out" || fail "--json=off is not text: $(head -3 "$T/out")"
expect_rc 2 --json=yaml kernel
grep -qx "latnicectl: option '--json' takes pretty, short or off, found 'yaml'" "$T/err" ||
        fail "--json=yaml: $(cat "$T/err")"
expect_rc 0 --policy-dir "$POL" check --json=short
[ "$(wc -l <"$T/out")" -eq 1 ] || fail "check --json=short: $(cat "$T/out")"

# ---- --no-legend, -q -------------------------------------------------------------
expect_rc 0 --no-legend get "$SPID"
grep -q "TID\|NAME" "$T/out" && fail "--no-legend printed a header: $(cat "$T/out")"
[ "$(wc -l <"$T/out")" -eq 2 ] || fail "get --no-legend: expected 2 thread rows: $(cat "$T/out")"
expect_rc 0 --policy-dir "$POL" -q check
[ -s "$T/out" ] && fail "check -q printed: $(cat "$T/out")"
expect_rc 0 --policy-dir "$POL" check --quiet

# ---- one option table: a command's option elsewhere is an error -----------------
expect_rc 2 get --all "$SPID"
grep -qx "latnicectl: option '--all' does not apply to get" "$T/err" || fail "get --all: $(cat "$T/err")"
expect_rc 2 --runtime kernel
grep -qx "latnicectl: option '--runtime' does not apply to kernel" "$T/err" || fail "--runtime kernel: $(cat "$T/err")"
expect_rc 2 --policy-dir "$POL" explain --tid --all "$SPID"
grep -q "option '--tid' needs a thread id, found '--all'" "$T/err" || fail "--tid --all: $(cat "$T/err")"
expect_rc 2 kernel --frobnicate
grep -qx "latnicectl: unknown option '--frobnicate'" "$T/err" || fail "unknown option: $(cat "$T/err")"

# ---- set without latniced: applied directly, with a warning ------------------------
# (no bus at all, then a bus where no one owns org.latnice.Daemon1)
attr() { "$GETATTR" "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
mapfile -t TIDS < <(ls "/proc/$SPID/task")
[ "${#TIDS[@]}" -eq 2 ] || fail "expected 2 threads in $SPID: ${TIDS[*]}"
expect_rc 0 --bus "unix:path=$T/no-bus" set "$SPID" Nice=7 TimerSlack=2ms
grep -q "latniced is not running: applied to process $SPID directly; nothing will restore" "$T/err" ||
        fail "set without a bus: no warning: $(cat "$T/err")"
grep -qx "pid $SPID: Nice=7 TimerSlack=2ms (2 threads)" "$T/out" || fail "set output: $(cat "$T/out")"
for t in "${TIDS[@]}"; do
        [ "$(attr "$t" nice)" = 7 ] || fail "set without latniced: thread $t has nice $(attr "$t" nice)"
        [ "$(attr "$t" timerslack_ns)" = 2000000 ] ||
                fail "set without latniced: thread $t has timer slack $(attr "$t" timerslack_ns)"
done
if command -v dbus-daemon >/dev/null; then
        dbus-daemon --session --address="unix:path=$T/bus" --nofork --nopidfile --nosyslog \
                >/dev/null 2>&1 &
        PIDS+=($!)
        wait_until 10 test -S "$T/bus" || fail "dbus-daemon did not start"
        expect_rc 0 --bus "unix:path=$T/bus" -q set "$SPID" Policy=batch
        grep -q "latniced is not running" "$T/err" || fail "set on a bus without latniced: $(cat "$T/err")"
        [ -s "$T/out" ] && fail "set -q printed: $(cat "$T/out")"
        for t in "${TIDS[@]}"; do
                [ "$(attr "$t" policy)" = batch ] || fail "Policy=batch: thread $t is $(attr "$t" policy)"
        done
fi
expect_rc 1 --bus "unix:path=$T/no-bus" set 2147483647 Nice=1
grep -qx "latnicectl: no process with PID 2147483647" "$T/err" || fail "set of a missing pid: $(cat "$T/err")"
expect_rc 1 --bus "unix:path=$T/no-bus" set 2 Nice=1
grep -q "2 is a kernel thread" "$T/err" || fail "set of kthreadd: $(cat "$T/err")"

echo "PASS"
