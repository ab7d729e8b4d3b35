#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The focus (issue 31) under the real latniced on a private system-like bus:
#   focus-xattr       user.xdg.inactive-since on app cgroups that this test
#                     makes in the real cgroup2 tree (below a user.slice of
#                     its own, --user-slice), followed by inotify;
#   focus-dbus        latniced's SetFocus;
#   focus-dbus-s76    system76-scheduler's SetForegroundProcess on
#                     com.system76.Scheduler, which latniced took (unowned);
#   focus-fake-nobody nobody fakes focus (the attribute on its own app
#                     cgroup, both methods on its own process): it gains
#                     nothing over its RLIMIT_NICE, and nothing against
#                     another user's process, which it may not name.
# And a thread id is refused: latniced holds the named pid by a pidfd.
# Policy: focused:yes gives Nice -5 (a boost), focused:no Nice 7 (a
# demotion). Every result is read from the kernel (ln-getattr).
#   test-dbus-focus.sh BUILD_ROOT SOURCE_ROOT
. "$(dirname "$0")/test-dbus-lib.sh"
dbus_init "$@"

focus_tree focus
ROOTAPPS=$CG$US/user-0.slice/user@0.service/app.slice
NOBAPPS=$CG$US/user-65534.slice/user@65534.service/app.slice
mkdir -p "$ROOTAPPS" "$NOBAPPS"
# The executables in $BIN are trusted (root's, in a root-only directory):
# the rules name them by their own names, so only the focus key can
# withhold the boost.

cat >"$TMP/vendor/50-focus.policy" <<'P'
[Rule focus-yes]
Match = name:lnfocus* && focused:yes
Nice = -5

[Rule focus-no]
Match = name:lnfocus* && focused:no
Nice = 7
P

# spawn_in SCOPE NAME [nobody]: a sleep named NAME in app cgroup SCOPE
spawn_in() {
        local dir=$1 name=$2 user=${3:-root}
        mkdir -p "$dir"
        [ -x "$BIN/$name" ] || cp /bin/sleep "$BIN/$name"
        if [ "$user" = nobody ]; then
                chown -R nobody "$dir"
                # root moves it, then it becomes nobody
                bash -c 'echo $$ >"$1/cgroup.procs"; exec setpriv --reuid=nobody \
                        --regid=nogroup --clear-groups "$2" 600' _ "$dir" "$BIN/$name" &
        else
                bash -c 'echo $$ >"$1/cgroup.procs"; exec "$2" 600' _ "$dir" "$BIN/$name" &
        fi
        SPAWNED=$!
        disown "$SPAWNED"
        CHILDREN+=("$SPAWNED")
        wait_for "$name to run" eval "[ \"\$(cat /proc/$SPAWNED/comm)\" = $name ]"
}

# keep_nice PID NICE WHAT: still NICE after a second
keep_nice() {
        sleep 1
        nice_is "$1" "$2" || fail "$3: nice $(getattr "$1" nice), expected $2"
        echo "ok - $3: still nice $2"
}

s76() {
        busctl --address="$ADDR" call com.system76.Scheduler /com/system76/Scheduler \
                com.system76.Scheduler SetForegroundProcess u "$1"
}

dbus_start_bus
dbus_start_daemon --user-slice "$US"
grep -q "Following the focus below $CG$US" "$TMP/latniced.log" ||
        fail "latniced does not follow the focus below $CG$US"

spawn_in "$ROOTAPPS/app-a.scope" lnfocus-a; A=$SPAWNED
spawn_in "$ROOTAPPS/app-b.scope" lnfocus-b; B=$SPAWNED
keep_nice "$A" 0 "no attribute, no call: focus unknown"

# --- focus-xattr -----------------------------------------------------------
xattr "$ROOTAPPS/app-a.scope" -1
xattr "$ROOTAPPS/app-b.scope" 123456789
expect_nice "$A" -5 "focus-xattr: app-a.scope says -1 (focused)"
expect_nice "$B" 7 "focus-xattr: app-b.scope gives a time (unfocused)"
patient ctl explain "$A" >"$TMP/explain" 2>&1 || true
grep -q "focused since [0-9][0-9]:[0-9][0-9]:[0-9][0-9] (user.xdg.inactive-since on $US/" \
        "$TMP/explain" || { cat "$TMP/explain" >&2; fail "explain does not say since when A is focused"; }
echo "ok - focus-xattr: explain says: $(grep -o 'focused since.*' "$TMP/explain" | head -1)"
xattr "$ROOTAPPS/app-a.scope" 999999999
xattr "$ROOTAPPS/app-b.scope" -1
expect_nice "$A" 7 "focus-xattr: the focus moved away from app-a"
expect_nice "$B" -5 "focus-xattr: the focus moved to app-b"
# a new app cgroup is followed from its creation
spawn_in "$ROOTAPPS/app-c.scope/inner" lnfocus-c; C=$SPAWNED
xattr "$ROOTAPPS/app-c.scope" -1
expect_nice "$C" -5 "focus-xattr: a new app cgroup (a process below it) is followed"
xattr "$ROOTAPPS/app-a.scope" -
xattr "$ROOTAPPS/app-b.scope" -
xattr "$ROOTAPPS/app-c.scope" -
expect_nice "$A" 0 "focus-xattr: attribute removed, nice restored"
expect_nice "$B" 0 "focus-xattr: attribute removed, nice restored"

# --- focus-dbus ------------------------------------------------------------
# latnicectl itself, not the ctl function: killing a function's subshell
# would leave latnicectl running.
"$LATNICECTL" --bus "$ADDR" monitor >"$TMP/monitor" 2>&1 &
MON=$!
CHILDREN+=("$MON")
wait_for "latnicectl monitor to start" grep -q Following "$TMP/monitor"
call SetFocus u "$A" >/dev/null
wait_for "monitor to show SetFocus" grep -q "focus pid $A: focused (SetFocus from pid" "$TMP/monitor"
echo "ok - focus-dbus: monitor shows: $(grep -m1 "focus pid $A" "$TMP/monitor")"
kill "$MON"
expect_nice "$A" -5 "focus-dbus: SetFocus(A)"
expect_nice "$B" 7 "focus-dbus: another app of the same user is unfocused"
patient ctl explain "$A" >"$TMP/explain" 2>&1 || true
grep -q "focused (SetFocus from pid [0-9]*" "$TMP/explain" ||
        { cat "$TMP/explain" >&2; fail "explain does not name SetFocus"; }
echo "ok - focus-dbus: explain says: $(grep -o 'focused (SetFocus.*' "$TMP/explain" | head -1)"
# D-Bus Explain decides with the focus too (its rule is the focused one)
# (on a busy machine the command line's read may be cut short: "try again later")
for i in $(seq 30); do
        call Explain u "$A" >"$TMP/explain.json" 2>"$TMP/explain.err" && break
        grep -q "try again later" "$TMP/explain.err" || { cat "$TMP/explain.err" >&2; fail "Explain($A) failed"; }
        [ "$i" -lt 30 ] || { cat "$TMP/explain.err" >&2; fail "Explain($A) failed 30 times"; }
        sleep 1
done
python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["data"][1] != "focus-yes")' \
        "$TMP/explain.json" ||
        { cat "$TMP/explain.json" >&2; fail "D-Bus Explain does not see A's focus"; }
echo "ok - focus-dbus: D-Bus Explain matches focus-yes"

# --- focus-dbus-s76 --------------------------------------------------------
grep -q "Serving com.system76.Scheduler" "$TMP/latniced.log" ||
        fail "latniced did not take com.system76.Scheduler, which nobody owns"
s76 "$B" >/dev/null
expect_nice "$B" -5 "focus-dbus-s76: SetForegroundProcess(B)"
expect_nice "$A" 7 "focus-dbus-s76: A lost the focus"
patient ctl explain "$B" 2>&1 | grep -q "focused (SetForegroundProcess from pid" ||
        fail "explain does not name SetForegroundProcess"
echo "ok - focus-dbus-s76: explain names SetForegroundProcess"

# --- focus-fake-nobody -----------------------------------------------------
spawn_in "$NOBAPPS/app-n.scope" lnfocus-n nobody; N=$SPAWNED
[ "$(stat -c %U /proc/"$N")" = nobody ] || fail "lnfocus-n does not run as nobody"
xattr nobody "$NOBAPPS/app-n.scope" 5
expect_nice "$N" 7 "focus-fake-nobody: nobody's attribute says unfocused: the demotion applies (the attribute is read)"
xattr nobody "$NOBAPPS/app-n.scope" -1
expect_nice "$N" 0 "focus-fake-nobody: nobody's attribute says focused: the demotion is lifted"
keep_nice "$N" 0 "focus-fake-nobody: and no boost beyond its RLIMIT_NICE (0), though its executable is trusted"
as_nobody busctl --address="$ADDR" call org.latnice.Daemon1 /org/latnice/Daemon1 \
        org.latnice.Daemon1 SetFocus u "$N" >/dev/null
as_nobody busctl --address="$ADDR" call com.system76.Scheduler /com/system76/Scheduler \
        com.system76.Scheduler SetForegroundProcess u "$N" >/dev/null
keep_nice "$N" 0 "focus-fake-nobody: SetFocus and SetForegroundProcess on its own process: no boost"
# root's process in nobody's app cgroup: nobody's attribute does not judge it
spawn_in "$NOBAPPS/app-n.scope" lnfocus-r; R=$SPAWNED
xattr nobody "$NOBAPPS/app-n.scope" 77
keep_nice "$R" 0 "focus-fake-nobody: root's process in nobody's app cgroup is not judged by nobody's attribute"
expect_fail "focus-fake-nobody: SetFocus on root's process" "AccessDenied|not yours" \
        as_nobody busctl --address="$ADDR" call org.latnice.Daemon1 /org/latnice/Daemon1 \
        org.latnice.Daemon1 SetFocus u "$A"
expect_fail "focus-fake-nobody: SetForegroundProcess on root's process" "AccessDenied|not yours" \
        as_nobody busctl --address="$ADDR" call com.system76.Scheduler /com/system76/Scheduler \
        com.system76.Scheduler SetForegroundProcess u "$A"
keep_nice "$A" 7 "focus-fake-nobody: root's A keeps what root's focus gave it"
keep_nice "$B" -5 "focus-fake-nobody: root's B keeps its focus"

# --- the named pid, held by a pidfd -----------------------------------------
# latniced opens a pidfd of the pid before it reads the process's uid and
# cgroup (and checks it after), so a thread id is refused: it names no process.
"$PY" -c 'import threading, time
threading.Thread(target=time.sleep, args=(600,)).start()
time.sleep(600)' &
T=$!
disown "$T"
CHILDREN+=("$T")
wait_for "a second thread in $T" eval "[ \$(ls /proc/$T/task | wc -l) -ge 2 ]"
TID=$(ls /proc/"$T"/task | grep -vx "$T" | head -n 1)
expect_fail "SetFocus on a thread id" "is a thread, not a process: name its thread group id $T" \
        call SetFocus u "$TID"
expect_fail "SetForegroundProcess on a thread id" "is a thread, not a process" s76 "$TID"
keep_nice "$B" -5 "a refused thread id takes no focus from B"
# The getters read the named pid the same way (their answer is only for
# the process's own user): a thread id is refused, B's focus is told.
expect_fail "GetFocus on a thread id" "GetFocus: pid $TID is a thread, not a process" \
        call GetFocus u "$TID"
expect_fail "GetAudio on a thread id" "GetAudio: pid $TID is a thread, not a process" \
        call GetAudio u "$TID"
got=$(call GetFocus u "$B") || fail "GetFocus on B failed"
case $got in *'"data":["yes","focused'*) ;; *) fail "GetFocus on B: '$got', expected yes" ;; esac
expect_fail "GetFocus by nobody on root's B" "NoSuchProcess|No process $B of yours" \
        as_nobody busctl --address="$ADDR" call org.latnice.Daemon1 /org/latnice/Daemon1 \
        org.latnice.Daemon1 GetFocus u "$B"

daemon_alive "after the focus tests"
echo "PASS"
