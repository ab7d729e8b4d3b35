#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A Flatpak-shaped app (issue 31) under the real latniced on a private
# system-like bus: processes in a PID namespace of their own (unshare
# --pid --fork, as bwrap makes one for every Flatpak instance and
# pressure-vessel for a Steam game) in an app cgroup named as Flatpak
# names it, app-flatpak-APPID-N.scope, made in the real cgroup2 tree below
# a user.slice of this test's own (--user-slice).
#   - the focus attribute on app-flatpak-*.scope judges the processes in
#     the namespace;
#   - SetFocus with the pid the host sees of a process in the namespace
#     works; SetFocus from a caller in another PID namespace is refused
#     (the pid it names is a number of its namespace: "1" there is the
#     sandbox's init, here the host's);
#   - a game in its own PID namespace below a process named reaper gets
#     the shipped game class (60-games.policy, steam-games): the ancestry
#     is the host's, across the namespace.
# Every result is read from the kernel (ln-getattr) and /proc (NSpid).
#   test-dbus-focus-ns.sh BUILD_ROOT SOURCE_ROOT
. "$(dirname "$0")/test-dbus-lib.sh"
dbus_init "$@"
command -v unshare >/dev/null || fail "unshare is not installed (util-linux)"

focus_tree fns
APPS=$CG$US/user-0.slice/user@0.service/app.slice
FP=$APPS/app-flatpak-org.example.Game-4242.scope
OTHER=$APPS/app-gnome-org.example.Editor-4243.scope
mkdir -p "$FP" "$OTHER"

cp "$SRC/policy/default/10-profiles.policy" "$SRC/policy/default/60-games.policy" "$TMP/vendor/"
cat >"$TMP/vendor/50-fns.policy" <<'P'
[Rule fns-focused]
Match = name:lnfns-* && focused:yes
Nice = -5

[Rule fns-unfocused]
Match = name:lnfns-* && focused:no
Nice = 7
P
cp /bin/sleep "$BIN/lnfns-app"
cp /bin/sleep "$BIN/lnfns-editor"
cp /bin/sleep "$BIN/lngame.x86_64"
cp /bin/bash "$BIN/reaper"

# ns_child PARENT NAME: the pid (as the host sees it) of the child of
# PARENT whose comm is NAME
ns_child() {
        local c
        for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
                [ "$(cat /proc/"$c"/comm 2>/dev/null)" = "$2" ] && { echo "$c"; return 0; }
        done
        return 1
}

dbus_start_bus
dbus_start_daemon --user-slice "$US"
grep -q "Following the focus below $CG$US" "$TMP/latniced.log" ||
        fail "latniced does not follow the focus below $CG$US"

# --- the Flatpak instance: its own PID namespace in app-flatpak-*.scope ----
bash -c 'echo $$ >"$1/cgroup.procs"; exec unshare --pid --fork --kill-child "$2" 600' \
        _ "$FP" "$BIN/lnfns-app" &
NSPARENT=$!
disown "$NSPARENT"
CHILDREN+=("$NSPARENT")
wait_for "the app in its namespace" ns_child "$NSPARENT" lnfns-app
APP=$(ns_child "$NSPARENT" lnfns-app)
CHILDREN+=("$APP")
NSPID=$(awk '$1 == "NSpid:" { print $2 " " $3 }' /proc/"$APP"/status)
[ "$NSPID" = "$APP 1" ] || fail "the app is not pid 1 of a namespace of its own: NSpid $NSPID"
echo "ok - the app runs as pid 1 of its own PID namespace (NSpid: $NSPID) in ${FP#$CG}"
bash -c 'echo $$ >"$1/cgroup.procs"; exec "$2" 600' _ "$OTHER" "$BIN/lnfns-editor" &
EDITOR=$!
disown "$EDITOR"
CHILDREN+=("$EDITOR")
wait_for "the editor" eval "[ \"\$(cat /proc/$EDITOR/comm)\" = lnfns-editor ]"

xattr "$FP" -1
xattr "$OTHER" 123456789
expect_nice "$APP" -5 "focus-xattr on app-flatpak-*.scope: the process in its namespace is focused"
expect_nice "$EDITOR" 7 "the other app is unfocused"
xattr "$FP" -
xattr "$OTHER" -
expect_nice "$APP" 0 "attribute removed"

# --- SetFocus: the host's pid of it works; a pid from another namespace is refused
call SetFocus u "$APP" >/dev/null
expect_nice "$APP" -5 "SetFocus with the host's pid of the sandboxed process"
expect_nice "$EDITOR" 7 "SetFocus: the other app is unfocused"
# in_pidns CMD...: CMD in a new PID namespace, as its pid 2 (busctl as pid 1
# would log to the kernel, not to stderr)
in_pidns() {
        unshare --pid --fork --kill-child bash -c '"$@"; exit $?' _ "$@"
}
expect_fail "SetFocus from a caller in another PID namespace" \
        "another PID namespace \(pid:\[[0-9]+\]\) than latniced" \
        in_pidns busctl --address="$ADDR" call org.latnice.Daemon1 \
        /org/latnice/Daemon1 org.latnice.Daemon1 SetFocus u 1
expect_fail "SetForegroundProcess from a caller in another PID namespace" \
        "another PID namespace" \
        in_pidns busctl --address="$ADDR" call com.system76.Scheduler \
        /com/system76/Scheduler com.system76.Scheduler SetForegroundProcess u 1
nice_is "$APP" -5 || fail "a refused call moved the focus: app nice $(getattr "$APP" nice)"
echo "ok - the refused calls left the focus where it was"

# --- a game in its own PID namespace below reaper (pressure-vessel's shape)
"$BIN/reaper" -c 'unshare --pid --fork --kill-child "$1" 600; :' _ "$BIN/lngame.x86_64" &
REAPER=$!
disown "$REAPER"
CHILDREN+=("$REAPER")
wait_for "unshare below reaper" ns_child "$REAPER" unshare
US_PID=$(ns_child "$REAPER" unshare)
CHILDREN+=("$US_PID")
wait_for "the game in its namespace" ns_child "$US_PID" lngame.x86_64
GAME=$(ns_child "$US_PID" lngame.x86_64)
CHILDREN+=("$GAME")
NSPID=$(awk '$1 == "NSpid:" { print $2 " " $3 }' /proc/"$GAME"/status)
[ "$NSPID" = "$GAME 1" ] || fail "the game is not pid 1 of a namespace of its own: NSpid $NSPID"
expect_nice "$GAME" -4 "steam-games: the game in its own PID namespace below reaper (game class)"
[ "$(getattr "$GAME" timerslack_ns)" = 1000 ] ||
        fail "the game's timer slack is $(getattr "$GAME" timerslack_ns), expected 1000"
nice_is "$REAPER" 0 || fail "reaper itself got nice $(getattr "$REAPER" nice)"
echo "ok - reaper itself is left alone"

daemon_alive "after the namespace tests"
echo "PASS"
