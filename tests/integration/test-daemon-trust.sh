#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The trust model under the real latniced, as a hostile unprivileged user
# (setpriv --reuid=65534): a boost (nice below the user's RLIMIT_NICE floor,
# a short slice, ...) reaches only a trusted executable matched on its own
# name; demotions and the timer slack reach any match; root gets everything.
# Results are read back with sched_getattr() (ln-getattr), never from the
# daemon.
#   test-daemon-trust.sh LATNICED LN-SPAWN LN-GETATTR LATNICECTL SOURCE-ROOT
. "$(dirname "$0")/test-daemon-lib.sh" "$@"
LATNICECTL=${4:?latnicectl path}
SRC=${5:?source root}


# A trusted place (root's, 0755, below /run) and a place of nobody's.
TRUSTED=$(mktemp -d /run/lntrust.XXXXXX)
chmod 0755 "$TRUSTED"
UNTRUSTED=$T/nobody
mkdir -p "$UNTRUSTED"
chmod 0755 "$T"
chown 65534:65534 "$UNTRUSTED"
trap 'rm -rf "$TRUSTED"; cleanup' EXIT

cp /bin/sleep "$TRUSTED/lnpipewire"
chmod 0755 "$TRUSTED/lnpipewire"
for n in lnpipewire lncc1 lngame; do
        cp /bin/sleep "$UNTRUSTED/$n"
        chown 65534:65534 "$UNTRUSTED/$n"
done
ln -s /bin/sleep "$UNTRUSTED/lnlink-pipewire"
chown -h 65534:65534 "$UNTRUSTED/lnlink-pipewire"

cat >"$POL/50-trust.policy" <<'P'
[Rule audio]
Match = name:lnpipewire || name:lnlink-pipewire
Nice = -11
Slice = 0.1ms
TimerSlack = 1us

[Rule demote]
Match = name:lncc1
Nice = 19
Policy = idle

[Rule game]
Match = name:lngame
Nice = -4
TimerSlack = 1us
RequireTrustedExe = no
P

out=$("$LATNICECTL" check --policy-dir "$POL" 2>&1)
echo "$out" | grep -q "RequireTrustedExe=no" ||
        fail "latnicectl check does not warn about RequireTrustedExe=no: $out"

start_daemon
BASE=$(attr $$ slice_ns)

run_as_nobody() { # path [argv0]
        if [ -n "${2:-}" ]; then
                "${NOBODY[@]}" bash -c 'exec -a "$1" "$0" 300' "$1" "$2" &
        else
                "${NOBODY[@]}" "$1" 300 &
        fi
        RUN_PID=$!
        PIDS+=("$RUN_PID")
        # setpriv and bash exec into the program: wait until it runs it.
        wait_until 5 eval '[ "$(readlink /proc/$RUN_PID/exe)" != "$(command -v setpriv)" ] &&
                ! readlink /proc/$RUN_PID/exe | grep -q bash' || fail "could not start $1"
}

# The timer slack is never a boost: once it is 1000, latniced has decided.
decided() { # pid what
        wait_until 5 attr_is "$1" timerslack_ns 1000 ||
                fail "$2: timer slack $(attr "$1" timerslack_ns), expected 1000 (never handled?)"
}
unboosted() { # pid what
        decided "$1" "$2"
        attr_is "$1" nice 0 || fail "$2: nice $(attr "$1" nice), expected 0 (boost withheld)"
        attr_is "$1" slice_ns "$BASE" ||
                fail "$2: slice $(attr "$1" slice_ns), expected the default $BASE"
        echo "ok: $2: boosts withheld"
}

# 1. A copy of a program in a directory of the user's: untrusted.
run_as_nobody "$UNTRUSTED/lnpipewire"
copy=$RUN_PID
unboosted "$copy" "nobody's copy named lnpipewire"
grep -q "$copy (lnpipewire): boosts withheld (Slice=0.1ms Nice=-11): exe $UNTRUSTED/lnpipewire: owned by uid 65534" "$LOG" ||
        fail "no 'boosts withheld' line naming the reason in the log"

# 2. The same program installed by root in a root-only directory: trusted.
run_as_nobody "$TRUSTED/lnpipewire"
wait_until 5 attr_is "$RUN_PID" nice -11 ||
        fail "trusted lnpipewire: nice $(attr "$RUN_PID" nice), expected -11"
attr_is "$RUN_PID" slice_ns 100000 || fail "trusted lnpipewire: slice $(attr "$RUN_PID" slice_ns)"
echo "ok: trusted lnpipewire run by nobody gets its boost"

# 3. A trusted program under a borrowed argv[0]: the exe's name counts.
run_as_nobody /bin/sleep lnpipewire
borrowed=$RUN_PID
unboosted "$borrowed" "sleep with argv[0] lnpipewire"
# The log and explain say it was the exe's name, not a generic "user chose".
why="the executable's name (sleep) differs from the rule's (lnpipewire, matched as its argv\[0\])"
grep -q "$borrowed (sleep): boosts withheld (Slice=0.1ms Nice=-11): $why" "$LOG" ||
        fail "no 'boosts withheld' line saying the exe's name differs from the rule's"
out=$("$LATNICECTL" explain --policy-dir "$POL" "$borrowed" 2>&1)
echo "$out" | grep -q "Boosts withheld.*Nice=-11.*$why" ||
        fail "latnicectl explain does not say the exe's name differs from the rule's: $out"
echo "ok: log and explain name the exe's name and the rule's"

# 4. A symlink named like the rule (comm and argv[0] say lnlink-pipewire).
run_as_nobody "$UNTRUSTED/lnlink-pipewire"
unboosted "$RUN_PID" "symlink lnlink-pipewire -> /bin/sleep"

# 5. Demotions reach anyone.
run_as_nobody "$UNTRUSTED/lncc1"
wait_until 5 attr_is "$RUN_PID" policy idle || fail "lncc1: policy $(attr "$RUN_PID" policy)"
attr_is "$RUN_PID" nice 19 || fail "lncc1: nice $(attr "$RUN_PID" nice), expected 19"
echo "ok: an untrusted demotion applies"

# 6. A rule that opts out.
run_as_nobody "$UNTRUSTED/lngame"
decided "$RUN_PID" lngame
attr_is "$RUN_PID" nice -4 || fail "lngame (RequireTrustedExe=no): nice $(attr "$RUN_PID" nice)"
echo "ok: RequireTrustedExe=no gives the boost to an untrusted exe"

# 7. Root may take any boost: the untrusted copy run by root.
"$UNTRUSTED/lnpipewire" 300 &
PIDS+=($!)
wait_until 5 attr_is $! nice -11 || fail "root's lnpipewire: nice $(attr $! nice), expected -11"
echo "ok: root gets the boost"

# 8. explain says what was withheld and why.
out=$("$LATNICECTL" explain --policy-dir "$POL" "$copy" 2>&1)
echo "$out" | grep -q "Boosts withheld.*Nice=-11.*owned by uid 65534" ||
        fail "latnicectl explain does not report the withheld boost: $out"
out=$("$LATNICECTL" explain --json --policy-dir "$POL" "$copy" 2>&1)
echo "$out" | python3 -c '
import json, sys
r = json.load(sys.stdin)["result"]
assert r["withheld"] == {"Slice": "0.1ms", "Nice": "-11"}, r
assert "owned by uid 65534" in r["withheld_reason"], r
assert r["settings"] == {"TimerSlack": "1us"}, r' ||
        fail "latnicectl explain --json: no withheld object: $out"
echo "ok: explain reports the withheld boost"

# 9. The shipped default policy: PipeWire installed by root gets the audio
# class for any user, a copy in the user's directory only the timer slack.
rm -f "$POL"/*.policy
cp "$SRC"/policy/default/*.policy "$POL"/
reload_daemon
cp /bin/sleep "$TRUSTED/pipewire"
cp /bin/sleep "$UNTRUSTED/pipewire"
chown 65534:65534 "$UNTRUSTED/pipewire"
run_as_nobody "$TRUSTED/pipewire"
wait_until 5 attr_is "$RUN_PID" nice -11 ||
        fail "default policy: root's pipewire run by nobody: nice $(attr "$RUN_PID" nice), expected -11"
attr_is "$RUN_PID" timerslack_ns 1000 || fail "default policy: root's pipewire: timer slack"
echo "ok: default policy: a trusted pipewire run by nobody gets the audio class"
run_as_nobody "$UNTRUSTED/pipewire"
unboosted "$RUN_PID" "default policy: nobody's copy named pipewire"

stop_daemon TERM || fail "latniced did not exit cleanly"
attr_is "$copy" timerslack_ns 50000 || fail "timer slack not restored on exit"
echo "PASS"
