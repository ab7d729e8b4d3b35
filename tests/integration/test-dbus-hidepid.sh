#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What D-Bus tells where /proc hides other users' processes: latniced runs in
# a mount namespace of its own whose /proc is a proc instance mounted with
# hidepid=invisible (the host's /proc is not touched). There, nobody
#   - finds its own managed process in ListTasks, and Explain answers for it;
#   - does not find root's managed process in ListTasks, and Explain of its
#     pid fails exactly as for a pid that does not exist (NoSuchProcess,
#     "No process PID"), while /proc in that namespace hides it from nobody
#     too and root's ListTasks and Explain still show it.
# The TaskApplied signal, a broadcast, reaches root and never nobody (the bus
# policy, systemd/org.latnice.Daemon1.conf, lets only root receive it): a
# connection of nobody's subscribed to it is not told of root's process nor
# of its own, while root's is told of both.
# After a remount with hidepid=off (read at every call) nobody is told about
# root's process again.
#
# Usage: test-dbus-hidepid.sh BUILD_ROOT SOURCE_ROOT (as root)
. "$(dirname "$0")/test-dbus-lib.sh"
dbus_init "$@"
cat >"$TMP/vendor/50-hide.policy" <<'POLICY'
[Rule hide-test]
Match = name:ln-hide-root || name:ln-hide-own || name:ln-sig-root || name:ln-sig-own
Nice = 2
POLICY
dbus_start_bus

# latniced as dbus_start_daemon starts it, in a new mount namespace with /proc
# mounted hidepid=invisible (unshare, sh and setpriv exec: one pid)
unshare --mount --propagation private -- sh -c \
        'mount -t proc -o hidepid=invisible proc /proc && exec "$@"' sh \
        setpriv --pdeathsig TERM -- "$LATNICED" --foreground --bus "$ADDR" --log-level debug \
        --policy-dir "$TMP/vendor" --policy-dir "$TMP/run" --policy-dir "$TMP/admin" \
        --state-file "$TMP/state" >"$TMP/latniced.log" 2>&1 &
DAEMON_PID=$!
wait_for "latniced on the bus" call GetStatus
grep -q ' /proc .* - proc proc .*hidepid=invisible' "/proc/$DAEMON_PID/mountinfo" ||
        fail "latniced's /proc is not mounted hidepid=invisible"
echo "# latniced $DAEMON_PID, its /proc mounted hidepid=invisible"

spawn ln-hide-root
rootpid=$SPAWNED
spawn ln-hide-own nobody
own=$SPAWNED
for p in "$rootpid" "$own"; do
        wait_for "rule hide-test on $p (nice 2, read from the kernel)" \
                sh -c "[ \"\$('$GETATTR' --json $p | $PY -c 'import json,sys; print(json.load(sys.stdin)[\"nice\"])')\" = 2 ]"
done
[ "$(stat -c %u "/proc/$own")" = 65534 ] || fail "$own is not nobody's"
# what /proc in latniced's namespace shows nobody
in_ns_nobody() {
        nsenter -t "$DAEMON_PID" -m setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
}
in_ns_nobody test -e "/proc/$own" || fail "nobody cannot see its own $own in the namespace's /proc"
! in_ns_nobody test -e "/proc/$rootpid" || fail "the namespace's /proc shows nobody root's $rootpid"

ncall() {
        patient as_nobody busctl --address="$ADDR" --json=short call org.latnice.Daemon1 \
                /org/latnice/Daemon1 org.latnice.Daemon1 "$@"
}
has_task() { # has_task PID: in ListTasks on stdin
        py_assert "any(t[0] == $1 for t in d['data'][0])" "ListTasks has $1"
}
lacks_task() {
        py_assert "all(t[0] != $1 for t in d['data'][0])" "ListTasks lacks $1"
}

# ---- root is told about everything ------------------------------------------
call ListTasks | has_task "$rootpid"
call ListTasks | has_task "$own"
call Explain u "$rootpid" | py_assert "d['data'][1] == 'hide-test'" "root's Explain of $rootpid"
echo "ok - root: ListTasks and Explain show both"

# ---- nobody: its own only ----------------------------------------------------
ncall ListTasks | has_task "$own"
ncall ListTasks | lacks_task "$rootpid"
ncall Explain u "$own" | py_assert "d['data'][1] == 'hide-test'" "nobody's Explain of its own $own"
as_nobody "$LATNICECTL" --bus "$ADDR" list >"$TMP/list"
grep -qw "$own" "$TMP/list" || fail "latnicectl list as nobody lacks $own"
! grep -qw "$rootpid" "$TMP/list" || fail "latnicectl list as nobody shows root's $rootpid"
echo "ok - nobody: ListTasks (and latnicectl list) has its own $own, not root's $rootpid"

# Explain of root's pid: the same error as for a pid that does not exist
gone=$(sh -c 'echo $$')
! kill -0 "$gone" 2>/dev/null || fail "pid $gone still exists"
rc=0; ncall Explain u "$gone" >/dev/null 2>"$TMP/gone.err" || rc=$?
[ $rc -ne 0 ] || fail "Explain of the gone pid $gone succeeded"
rc=0; ncall Explain u "$rootpid" >/dev/null 2>"$TMP/hidden.err" || rc=$?
[ $rc -ne 0 ] || fail "nobody's Explain of root's $rootpid succeeded"
echo "# gone: $(cat "$TMP/gone.err"); hidden: $(cat "$TMP/hidden.err")"
[ "$(sed "s/\b$gone\b/PID/g" "$TMP/gone.err")" = "$(sed "s/\b$rootpid\b/PID/g" "$TMP/hidden.err")" ] ||
        fail "Explain tells a hidden pid from a gone one"
grep -q "No process $rootpid" "$TMP/hidden.err" || fail "Explain of a hidden pid: $(cat "$TMP/hidden.err")"
expect_fail "busctl Explain as nobody" "No process $rootpid" \
        as_nobody busctl --address="$ADDR" call org.latnice.Daemon1 /org/latnice/Daemon1 \
        org.latnice.Daemon1 Explain u "$rootpid"
echo "ok - nobody: Explain of root's $rootpid fails as for the gone pid $gone"

# SetTask of root's pid: the same error as for the gone pid, nothing changed
rc=0; ncall SetTask 'ua{sv}' "$gone" 1 Nice i 5 >/dev/null 2>"$TMP/gone.err" || rc=$?
[ $rc -ne 0 ] || fail "SetTask of the gone pid $gone succeeded"
rc=0; ncall SetTask 'ua{sv}' "$rootpid" 1 Nice i 5 >/dev/null 2>"$TMP/hidden.err" || rc=$?
[ $rc -ne 0 ] || fail "nobody's SetTask of root's $rootpid succeeded"
[ "$(sed "s/\b$gone\b/PID/g" "$TMP/gone.err")" = "$(sed "s/\b$rootpid\b/PID/g" "$TMP/hidden.err")" ] ||
        fail "SetTask tells a hidden pid from a gone one: $(cat "$TMP/hidden.err")"
[ "$(getattr "$rootpid" nice)" = 2 ] || fail "root's $rootpid was changed by nobody"
ncall SetTask 'ua{sv}' "$own" 1 Nice i 5 >/dev/null || fail "nobody's SetTask of its own $own"
[ "$(getattr "$own" nice)" = 5 ] || fail "nobody's SetTask of its own $own: nice $(getattr "$own" nice)"
echo "ok - nobody: SetTask of root's $rootpid fails as for the gone pid; its own $own gets Nice=5"

# ---- TaskApplied: root is told, nobody is not ------------------------------
# ln-sigwatch subscribes, then on each line on its stdin calls GetStatus and
# prints the signals that came before the reply: what it lacks then never came
WATCH=$BUILD/tests/integration/ln-sigwatch
[ -x "$WATCH" ] || fail "$WATCH was not built"
mkfifo -m 0600 "$TMP/watch-root.in" "$TMP/watch-nobody.in"
exec 7<>"$TMP/watch-root.in" 8<>"$TMP/watch-nobody.in"
# (fds 7 and 8 closed in the watchers: each sees EOF when the test ends)
"$WATCH" "$ADDR" <"$TMP/watch-root.in" >"$TMP/watch-root.out" 2>&1 7>&- 8>&- &
CHILDREN+=("$!")
setpriv --reuid=nobody --regid=nogroup --clear-groups "$WATCH" "$ADDR" <"$TMP/watch-nobody.in" >"$TMP/watch-nobody.out" 2>&1 7>&- 8>&- &
CHILDREN+=("$!")
wait_for "root's ln-sigwatch subscribed" grep -qx ready "$TMP/watch-root.out"
wait_for "nobody's ln-sigwatch subscribed" grep -qx ready "$TMP/watch-nobody.out"
spawn ln-sig-root
sigroot=$SPAWNED
spawn ln-sig-own nobody
sigown=$SPAWNED
for p in "$sigroot" "$sigown"; do
        wait_for "rule hide-test on $p (nice 2, read from the kernel)" \
                sh -c "[ \"\$('$GETATTR' --json $p | $PY -c 'import json,sys; print(json.load(sys.stdin)[\"nice\"])')\" = 2 ]"
done
synced() { # synced WHO N: WHO's ln-sigwatch has printed N "sync" lines
        [ "$(grep -cx sync "$TMP/watch-$1.out")" -ge "$2" ]
}
told() { # told WHO PID: WHO's ln-sigwatch printed a TaskApplied of PID
        grep -q "^signal $2 " "$TMP/watch-$1.out"
}
n=0
while ! { told root "$sigroot" && told root "$sigown"; }; do
        [ $n -lt 20 ] || fail "root was not told of $sigroot and $sigown: $(cat "$TMP/watch-root.out")"
        n=$((n + 1))
        echo >&7
        wait_for "root's ln-sigwatch sync $n" synced root $n
done
# root was told of both, so the bus had forwarded both signals to every
# recipient before latniced answers nobody's GetStatus
echo >&8
wait_for "nobody's ln-sigwatch sync" synced nobody 1
! told nobody "$sigroot" || fail "nobody was told of root's $sigroot: $(cat "$TMP/watch-nobody.out")"
! grep -q '^signal ' "$TMP/watch-nobody.out" ||
        fail "nobody received TaskApplied: $(cat "$TMP/watch-nobody.out")"
echo "ok - TaskApplied: root is told of $sigroot and $sigown, nobody of neither"

# ---- hidepid=off: nobody is told about everything again ---------------------
nsenter -t "$DAEMON_PID" -m mount -o remount,hidepid=off /proc
grep -q ' /proc .* - proc proc .*hidepid=invisible' "/proc/$DAEMON_PID/mountinfo" &&
        fail "the remount did not take"
ncall ListTasks | has_task "$rootpid"
ncall Explain u "$rootpid" | py_assert "d['data'][1] == 'hide-test'" "nobody's Explain of $rootpid without hidepid"
echo "ok - after a remount with hidepid=off nobody sees root's $rootpid again"

daemon_alive "end of hidepid test"
echo "PASS"
