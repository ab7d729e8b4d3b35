#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The env:NAME=glob key under the real latniced: a process started with a
# matching variable gets the rule's settings, demotions for anyone; a boost
# matched on the environment, which its user chooses, reaches no process of
# an unprivileged user (nobody), not even a trusted executable's, while root
# (who may take it anyway) gets it. Read back with sched_getattr()
# (ln-getattr), never from the daemon.
#   test-daemon-env.sh LATNICED LN-SPAWN LN-GETATTR
. "$(dirname "$0")/test-daemon-lib.sh" "$@"

# A trusted executable: root's, in a root-only directory.
TRUSTED=$(mktemp -d /run/lnenv.XXXXXX)
chmod 0755 "$TRUSTED"
trap 'rm -rf "$TRUSTED"; cleanup' EXIT
cp /bin/sleep "$TRUSTED/lnenvsleep"
chmod 0755 "$TRUSTED/lnenvsleep"

cat >"$POL/50-env.policy" <<'P'
[Rule env-demote]
Match = env:LNENV_TEST=demote-*
Nice = 5

# On the executable's own name, which its user cannot choose for a trusted
# one, and on the environment, which the user chooses.
[Rule env-boost]
Match = name:lnenvsleep && env:LNENV_TEST=boost
Nice = -5
TimerSlack = 1us
P

start_daemon

run() { # user (root|nobody) value
        if [ "$1" = nobody ]; then
                "${NOBODY[@]}" env LNENV_TEST="$2" "$TRUSTED/lnenvsleep" 300 &
        else
                env LNENV_TEST="$2" "$TRUSTED/lnenvsleep" 300 &
        fi
        RUN_PID=$!
        PIDS+=("$RUN_PID")
        wait_until 5 eval '[ "$(readlink /proc/$RUN_PID/exe)" = "$TRUSTED/lnenvsleep" ]' ||
                fail "could not start lnenvsleep as $1"
}

# 1. The environment matches: a demotion, for root and for nobody.
run root demote-1
wait_until 5 attr_is "$RUN_PID" nice 5 ||
        fail "root, LNENV_TEST=demote-1: nice $(attr "$RUN_PID" nice), expected 5"
run nobody demote-2
wait_until 5 attr_is "$RUN_PID" nice 5 ||
        fail "nobody, LNENV_TEST=demote-2: nice $(attr "$RUN_PID" nice), expected 5"
echo "ok: env: demotes root's and nobody's processes"

# 2. A boost matched on the environment: root may take it anyway.
run root boost
wait_until 5 attr_is "$RUN_PID" nice -5 ||
        fail "root, LNENV_TEST=boost: nice $(attr "$RUN_PID" nice), expected -5"
echo "ok: env: boost reaches root's process"

# 3. ... nobody's trusted executable gets the timer slack (never a boost, so
# latniced has decided once it is 1000) but not the nice.
run nobody boost
wait_until 5 attr_is "$RUN_PID" timerslack_ns 1000 ||
        fail "nobody, LNENV_TEST=boost: timer slack $(attr "$RUN_PID" timerslack_ns), expected 1000"
attr_is "$RUN_PID" nice 0 ||
        fail "nobody, LNENV_TEST=boost: nice $(attr "$RUN_PID" nice), expected 0 (boost withheld)"
wait_until 5 grep -q "$RUN_PID (lnenvsleep): boosts withheld (Nice=-5): the boosting rule matches only on what its user chose (argv\[0\], comm, ancestors, the environment," "$LOG" ||
        fail "no 'boosts withheld' line for $RUN_PID in the log"
echo "ok: env: boost withheld from nobody's trusted executable"

echo PASS
