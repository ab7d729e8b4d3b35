#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Games found without names (issue 31), under the real latniced with the
# shipped classes and game rules (policy/default/10-profiles.policy and
# 60-games.policy): a process with SteamGameId in its environment gets the
# game class, the same program without it does not, and nor does one with
# an empty SteamGameId. nobody's game gets the class's timer slack but not
# its nice (the environment is the user's choice: no boost beyond
# RLIMIT_NICE). Read from sched_getattr and /proc, never from the daemon.
#   test-daemon-game.sh LATNICED LN-SPAWN LN-GETATTR SOURCE_ROOT
. "$(dirname "$0")/test-daemon-lib.sh" "$@"
SRC=${4:?source root}

# A trusted executable: root's, in a root-only directory.
TRUSTED=$(mktemp -d /run/lngame.XXXXXX)
chmod 0755 "$TRUSTED"
trap 'rm -rf "$TRUSTED"; cleanup' EXIT
cp /bin/sleep "$TRUSTED/lngame.x86_64"
chmod 0755 "$TRUSTED/lngame.x86_64"
cp "$SRC/policy/default/10-profiles.policy" "$SRC/policy/default/60-games.policy" "$POL/"

OWN_SLACK=$(attr $$ timerslack_ns)
start_daemon

run() { # user (root|nobody) env-assignment...
        local user=$1
        shift
        if [ "$user" = nobody ]; then
                "${NOBODY[@]}" env -i "$@" "$TRUSTED/lngame.x86_64" 300 &
        else
                env -i "$@" "$TRUSTED/lngame.x86_64" 300 &
        fi
        RUN_PID=$!
        PIDS+=("$RUN_PID")
        wait_until 5 eval '[ "$(readlink /proc/$RUN_PID/exe)" = "$TRUSTED/lngame.x86_64" ]' ||
                fail "could not start lngame.x86_64 as $user"
}

# The game class: nice -4, timer slack 1 us (10-profiles.policy).
run root HOME=/root SteamGameId=1091500
wait_until 10 attr_is "$RUN_PID" nice -4 ||
        fail "root, SteamGameId=1091500: nice $(attr "$RUN_PID" nice), expected -4 (game)"
wait_until 10 attr_is "$RUN_PID" timerslack_ns 1000 ||
        fail "root, SteamGameId=1091500: timer slack $(attr "$RUN_PID" timerslack_ns), expected 1000"
GAME=$RUN_PID
echo "ok: SteamGameId=1091500: the game class (nice -4, timer slack 1 us)"

run root HOME=/root
NOGAME=$RUN_PID
run root HOME=/root SteamGameId=
EMPTY=$RUN_PID
# a process started after both is evaluated: then they have been too
run root HOME=/root SteamGameId=7
wait_until 10 attr_is "$RUN_PID" nice -4 || fail "a later game was not given the class"
for p in "$NOGAME" "$EMPTY"; do
        attr_is "$p" nice 0 || fail "pid $p without a SteamGameId: nice $(attr "$p" nice), expected 0"
        attr_is "$p" timerslack_ns "$OWN_SLACK" ||
                fail "pid $p without a SteamGameId: timer slack $(attr "$p" timerslack_ns), expected $OWN_SLACK"
done
echo "ok: the same program without SteamGameId, or with an empty one: untouched"

run nobody HOME=/ SteamGameId=1091500
wait_until 10 attr_is "$RUN_PID" timerslack_ns 1000 ||
        fail "nobody's game: timer slack $(attr "$RUN_PID" timerslack_ns), expected 1000"
attr_is "$RUN_PID" nice 0 || fail "nobody's game: nice $(attr "$RUN_PID" nice), expected 0 (withheld)"
echo "ok: nobody's game: the timer slack, no boost (the environment is nobody's choice)"
attr_is "$GAME" nice -4 || fail "root's game lost its class"
echo PASS
