#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Trust through mount namespaces, as nobody on the real kernel with the real
# latniced (issue 36, item 1): whether an exe was deleted is what the file
# says (no links left), never the " (deleted)" of its link text; a path is
# trusted only where it leads to the running file in latniced's own mount
# namespace; a deleted exe in another mount namespace is not trusted.
# Results are read back with ln-getattr, never from the daemon.
#   test-daemon-trust-ns.sh LATNICED LN-SPAWN LN-GETATTR LATNICECTL
. "$(dirname "$0")/test-daemon-lib.sh" "$@"
LATNICECTL=${4:?latnicectl path}

if ! "${NOBODY[@]}" unshare -Urm true 2>/dev/null; then
        echo "SKIP: nobody cannot make a user and mount namespace here"
        exit 77
fi
PY=$(readlink -f /usr/bin/python3)
[ -x "$PY" ] || { echo "SKIP: no /usr/bin/python3"; exit 77; }

trusted_copy /bin/sleep lnpipewire

# Like the shipped audio rule (Profile audio), on a name of the test's own.
cat >"$POL/50-trust-ns.policy" <<'P'
[Rule audio]
Match = name:lnpipewire
LatencyNice = -15
Nice = -11
Slice = 0.1ms
TimerSlack = 1us
P
start_daemon
BASE=$(attr $$ slice_ns)

started() { # pid: it runs something else than setpriv, unshare or bash
        local e
        e=$(readlink "/proc/$1/exe" 2>/dev/null) || return 1
        case "$e" in */setpriv | */unshare | */bash) return 1 ;; esac
}
run() { # command... (as nobody)
        "${NOBODY[@]}" "$@" &
        RUN_PID=$!
        PIDS+=("$RUN_PID")
        wait_until 30 started "$RUN_PID" || fail "could not start: $*"
}
unboosted() { # pid what reason-in-log
        # The timer slack is never a boost: once it is 1000, latniced decided.
        wait_until 30 attr_is "$1" timerslack_ns 1000 ||
                fail "$2: timer slack $(attr "$1" timerslack_ns), expected 1000 (never handled?)"
        attr_is "$1" nice 0 || fail "$2: nice $(attr "$1" nice), expected 0 (boost withheld)"
        attr_is "$1" slice_ns "$BASE" || fail "$2: slice $(attr "$1" slice_ns), expected $BASE"
        grep -q "^.*$1 (.*): boosts withheld (.*): .*$3" "$LOG" ||
                fail "$2: no 'boosts withheld' log line saying '$3'"
        echo "ok: $2: boosts withheld ($3)"
}

# 0. The control: root's lnpipewire run by nobody in latniced's namespace.
run "$TRUSTED/lnpipewire" 300
wait_until 30 attr_is "$RUN_PID" nice -11 ||
        fail "trusted lnpipewire: nice $(attr "$RUN_PID" nice), expected -11"
echo "ok: trusted lnpipewire run by nobody gets its boost"

# 1. The attack: in a mount namespace of nobody's, a tmpfs on /usr/local/bin,
# root's python3 bound over "lnpipewire (deleted)" there, exec'd. The file
# has links: its name keeps the suffix, its path leads nowhere here.
run unshare -Urm bash -c 'mount -t tmpfs -o mode=0755 none /usr/local/bin &&
        touch "/usr/local/bin/lnpipewire (deleted)" &&
        mount --bind "$0" "/usr/local/bin/lnpipewire (deleted)" &&
        exec -a lnpipewire "/usr/local/bin/lnpipewire (deleted)" -c "import time; time.sleep(300)"' "$PY"
attack=$RUN_PID
case "$(readlink "/proc/$attack/exe")" in
*"/usr/local/bin/lnpipewire (deleted)") ;;
*) fail "the attack's exe is $(readlink "/proc/$attack/exe")" ;;
esac
unboosted "$attack" "python3 bound over 'lnpipewire (deleted)' in nobody's mount namespace" \
        "does not lead to the running file"
out=$("$LATNICECTL" explain --policy-dir "$POL" "$attack" 2>&1)
echo "$out" | grep -q "Boosts withheld.*Nice=-11.*does not lead to the running file" ||
        fail "latnicectl explain does not say why: $out"
echo "ok: explain says why"

# 2. Root's python3 bound over the real path of lnpipewire in nobody's mount
# namespace: the path leads to another file here.
run unshare -Urm bash -c 'mount --bind "$0" "$1" &&
        exec "$1" -c "import time; time.sleep(300)"' "$PY" "$TRUSTED/lnpipewire"
unboosted "$RUN_PID" "python3 bound over the real lnpipewire path" \
        "does not lead to the running file"

# 3. A memfd named lnpipewire (its link text ends in " (deleted)"): nobody's.
run "$PY" -c '
import os, sys
fd = os.memfd_create("lnpipewire", 0)
with open("/bin/sleep", "rb") as f:
        os.write(fd, f.read())
os.execv("/proc/self/fd/%d" % fd, ["lnpipewire", "300"])'
unboosted "$RUN_PID" "a memfd named lnpipewire" "owned by uid 65534"

# 4. Root's lnpipewire, deleted, exec'd (through an fd kept open) in nobody's
# mount namespace: the file says deleted, and its path cannot be checked in
# a namespace that is not latniced's.
trusted_copy /bin/sleep old/lnpipewire
"${NOBODY[@]}" unshare -Urm bash -c 'exec 3<"$0"; while [ -e "$0" ]; do sleep 0.02; done
        exec -a lnpipewire /proc/self/fd/3 300' "$TRUSTED/old/lnpipewire" &
held=$!
PIDS+=("$held")
# Its fd 3 must be the file itself: setpriv and unshare have fds of their
# own open on the way (the file was removed before bash opened it, once).
holds_file() { [ "$(readlink "/proc/$held/fd/3" 2>/dev/null)" = "$TRUSTED/old/lnpipewire" ]; }
wait_until 30 holds_file || fail "the holder did not open the file"
rm -f "$TRUSTED/old/lnpipewire"
wait_until 30 started "$held" || fail "the holder did not exec"
case "$(readlink "/proc/$held/exe")" in
*"/old/lnpipewire (deleted)") ;;
*) fail "the holder's exe is $(readlink "/proc/$held/exe")" ;;
esac
unboosted "$held" "a deleted lnpipewire exec'd in nobody's mount namespace" \
        "another mount namespace"

stop_daemon TERM || fail "latniced did not exit cleanly"
echo "PASS"
