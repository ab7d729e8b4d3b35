#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The focus history (issue 31): unfocused:>N and unfocused:<N under the
# real latniced on a private system-like bus, with app cgroups this test
# makes in the real cgroup2 tree (below a user.slice of its own,
# --user-slice), as test-dbus-focus.sh does.
#   - an app whose user.xdg.inactive-since is long past is in the
#     background class at once; one whose time is still to come is in its
#     grace period;
#   - an app that just lost the focus (the attribute, then a SetFocus call
#     that names another app) moves from the grace period to the
#     background class by itself, when N has passed: nothing else happens
#     meanwhile, only latniced's timer can move it;
#   - explain and monitor say since when and for how long.
# Policy: focused:yes Nice -3, unfocused for less than 4 s Nice 2 (grace),
# for 4 s or more Nice 9 (background). Every result is read from the kernel
# (ln-getattr, sched_getattr); no timing is asserted: the test waits for the
# change (expect_nice polls up to 60 s).
#   test-dbus-focus-time.sh BUILD_ROOT SOURCE_ROOT
. "$(dirname "$0")/test-dbus-lib.sh"
dbus_init "$@"

focus_tree ftime
APPS=$CG$US/user-0.slice/user@0.service/app.slice
mkdir -p "$APPS"

cat >"$TMP/vendor/50-focus-time.policy" <<'P'
[Rule ft-focused]
Match = name:lnft* && focused:yes
Nice = -3

[Rule ft-grace]
Match = name:lnft* && unfocused:<4s
Nice = 2

[Rule ft-background]
Match = name:lnft* && unfocused:>4s
Nice = 9
P

# spawn_in SCOPE NAME: a sleep named NAME in app cgroup SCOPE
spawn_in() {
        local dir=$1 name=$2
        mkdir -p "$dir"
        [ -x "$BIN/$name" ] || cp /bin/sleep "$BIN/$name"
        bash -c 'echo $$ >"$1/cgroup.procs"; exec "$2" 600' _ "$dir" "$BIN/$name" &
        SPAWNED=$!
        disown "$SPAWNED"
        CHILDREN+=("$SPAWNED")
        wait_for "$name to run" eval "[ \"\$(cat /proc/$SPAWNED/comm)\" = $name ]"
}

# mono_usec [OFFSET_S]: CLOCK_MONOTONIC in µs (Mutter's clock), plus OFFSET_S
mono_usec() {
        "$PY" -c 'import sys, time; print(int((time.monotonic() + float(sys.argv[1])) * 1e6))' \
                "${1:-0}"
}

dbus_start_bus
dbus_start_daemon --user-slice "$US"
grep -q "Following the focus below $CG$US" "$TMP/latniced.log" ||
        fail "latniced does not follow the focus below $CG$US"

spawn_in "$APPS/app-a.scope" lnft-a; A=$SPAWNED
spawn_in "$APPS/app-b.scope" lnft-b; B=$SPAWNED
spawn_in "$APPS/app-c.scope" lnft-c; C=$SPAWNED

# --- the fact's own time decides: long past, still to come ----------------
xattr "$APPS/app-a.scope" -1
xattr "$APPS/app-b.scope" "$(mono_usec -3600)"
xattr "$APPS/app-c.scope" "$(mono_usec 3600)"
expect_nice "$A" -3 "app-a focused"
expect_nice "$B" 9 "app-b unfocused an hour ago: background at once"
expect_nice "$C" 2 "app-c unfocused from a time still to come: in its grace period"
patient ctl --policy-dir "$TMP/vendor" explain "$B" >"$TMP/explain" 2>&1 || true
grep -Eq "unfocused since [0-9]{2}:[0-9]{2}:[0-9]{2} \(1 h 0 min; user.xdg.inactive-since on $US/.*/app-b.scope\)" \
        "$TMP/explain" || { cat "$TMP/explain" >&2; fail "explain does not say since when B is unfocused"; }
grep -q "ft-background" "$TMP/explain" || { cat "$TMP/explain" >&2; fail "explain does not match ft-background"; }
echo "ok - explain says: $(grep -o 'unfocused since.*' "$TMP/explain" | head -1)"

# --- the attribute: app-a loses the focus now ------------------------------
# latnicectl itself, not the ctl function: killing a function's subshell
# would leave latnicectl running.
"$LATNICECTL" --bus "$ADDR" monitor >"$TMP/monitor" 2>&1 &
MON=$!
CHILDREN+=("$MON")
wait_for "latnicectl monitor to start" grep -q Following "$TMP/monitor"
xattr "$APPS/app-a.scope" "$(mono_usec)"
# no other event from here on: only the timer can move A to 9
expect_nice "$A" 9 "app-a: 4 s after it lost the focus (the attribute), background, by the timer"
# the monitor showed the crossing: a line with at least 4 s unfocused
wait_for "monitor to show app-a's crossing" grep -Eq \
        "focus $US/.*/app-a.scope: unfocused since [0-9:]{8} \(([4-9]|[1-9][0-9]+) s; " "$TMP/monitor"
echo "ok - monitor shows: $(grep -E "app-a.scope: unfocused since .* \(([4-9]|[1-9][0-9]+) s;" "$TMP/monitor" | head -1)"
kill "$MON"

# --- SetFocus: B named, then C: B loses the focus at C's call -----------------
for d in a b c; do xattr "$APPS/app-$d.scope" -; done
expect_nice "$A" 0 "attribute removed: A unknown"
expect_nice "$B" 0 "attribute removed: B unknown"
call SetFocus u "$B" >/dev/null
expect_nice "$B" -3 "SetFocus(B): B focused"
call SetFocus u "$C" >/dev/null
expect_nice "$C" -3 "SetFocus(C): C focused"
expect_nice "$B" 9 "SetFocus(C): B, 4 s after C's call, background, by the timer"
patient ctl --policy-dir "$TMP/vendor" explain "$B" >"$TMP/explain" 2>&1 || true
grep -Eq "unfocused since [0-9:]{8} \(([4-9]|[1-9][0-9]+) s; pid $C of the same user is in the foreground, SetFocus from pid [0-9]+" \
        "$TMP/explain" || { cat "$TMP/explain" >&2; fail "explain does not say since when B is unfocused (SetFocus)"; }
echo "ok - explain says: $(grep -o 'unfocused since.*' "$TMP/explain" | head -1)"
# A was never named: unfocused since the first call, background as well
expect_nice "$A" 9 "SetFocus: A, never named, background 4 s after the first call"

daemon_alive "after the focus-time tests"
echo "PASS"
