#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The D-Bus policy of latniced on a real dbus-daemon, without latniced:
#   - dbus-daemon accepts systemd/org.latnice.Daemon1.conf (included by
#     dbus-system.conf; a malformed file stops the bus from starting);
#   - only root may own org.latnice.Daemon1, nobody may not;
#   - an unprivileged user may call the org.latnice.Daemon1 interface (the
#     call reaches the owner) but may not call methods of other interfaces
#     the policy does not open;
#   - latnicectl says clearly that latniced is not running, exit 1.
#
# Usage: test-dbus-policy.sh BUILD_ROOT SOURCE_ROOT (as root)
. "$(dirname "$0")/test-dbus-lib.sh"
dbus_init "$@"
dbus_start_bus

# The activation file names the systemd unit and the bus name.
grep -qx 'Name=org.latnice.Daemon1' "$SRC/systemd/org.latnice.Daemon1.service" ||
        fail "activation file: no Name=org.latnice.Daemon1"
grep -qx 'SystemdService=dbus-org.latnice.Daemon1.service' "$SRC/systemd/org.latnice.Daemon1.service" ||
        fail "activation file: no SystemdService=dbus-org.latnice.Daemon1.service"

request_name() {
        bctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus \
                RequestName su org.latnice.Daemon1 0
}
expect_fail "nobody owns org.latnice.Daemon1" "not allowed to own|AccessDenied|Access denied" \
        as_nobody busctl --address="$ADDR" call org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus RequestName su org.latnice.Daemon1 0
out=$(request_name) || fail "root cannot own org.latnice.Daemon1"
[ "$out" = "u 1" ] || fail "root RequestName: expected 'u 1' (primary owner), got '$out'"
echo "ok - root may own org.latnice.Daemon1"
# Nobody may not own some other name either (the system-like default policy is in force).
expect_fail "nobody owns org.example.Other" "not allowed to own|AccessDenied|Access denied" \
        as_nobody busctl --address="$ADDR" call org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus RequestName su org.example.Other 0

# With the name unowned, a call by nobody to the interface must get as far as
# "no such name" (the policy lets it through), not AccessDenied.
expect_fail "nobody calls GetStatus with no owner" "not activatable|was not provided|ServiceUnknown|NameHasNoOwner" \
        as_nobody busctl --address="$ADDR" call org.latnice.Daemon1 /org/latnice/Daemon1 \
        org.latnice.Daemon1 GetStatus

# latnicectl without latniced on the bus (set then applies directly: below).
for verb in status list reload monitor "set-unit a.service LatencyNice=0" \
        "unset-unit a.service"; do
        # shellcheck disable=SC2086
        rc=0
        "$LATNICECTL" --bus "$ADDR" $verb >"$TMP/out" 2>"$TMP/err" || rc=$?
        [ $rc -eq 1 ] || { cat "$TMP/err" >&2; fail "latnicectl $verb without latniced: exit $rc, expected 1"; }
        grep -q "^latnicectl: latniced is not running (org.latnice.Daemon1 is not on the bus $ADDR)" "$TMP/err" ||
                { cat "$TMP/err" >&2; fail "latnicectl $verb: no clear 'not running' message"; }
done
sleep 60 &
sleeper=$!
rc=0
"$LATNICECTL" --bus "$ADDR" set "$sleeper" Nice=3 >"$TMP/out" 2>"$TMP/err" || rc=$?
[ $rc -eq 0 ] || { cat "$TMP/err" >&2; fail "latnicectl set without latniced: exit $rc, expected 0"; }
grep -q "^latnicectl: warning: latniced is not running: applied to process $sleeper directly; nothing will restore" "$TMP/err" ||
        { cat "$TMP/err" >&2; fail "latnicectl set without latniced: no warning"; }
[ "$(ps -o ni= -p "$sleeper" | tr -d ' ')" = 3 ] || fail "latnicectl set without latniced: nice is not 3"
kill "$sleeper"
echo "ok - latnicectl reports that latniced is not running (exit 1); set applies directly, with a warning"
rc=0
"$LATNICECTL" --bus "unix:path=$TMP/no-such-socket" status 2>"$TMP/err" || rc=$?
[ $rc -eq 1 ] && grep -q "latniced is not running (cannot connect" "$TMP/err" ||
        { cat "$TMP/err" >&2; fail "no bus at all: exit $rc"; }
echo "ok - latnicectl reports an unreachable bus (exit 1)"

# Usage errors are exit 2, before any bus traffic.
for args in "set" "set abc Nice=1" "set 1" "set 1 Nice" "set 1 Bogus=1" "set 1 Nice=99" \
        "set 1 CPUWeight=100" "set-unit" "set-unit a.service" "unset-unit" \
        "unset-unit a.service b.service" "set-unit --bogus a.service Nice=1" "status extra"; do
        # shellcheck disable=SC2086
        rc=0
        "$LATNICECTL" --bus "$ADDR" $args >/dev/null 2>"$TMP/err" || rc=$?
        [ $rc -eq 2 ] || { cat "$TMP/err" >&2; fail "latnicectl $args: exit $rc, expected 2"; }
        grep -q "^latnicectl: " "$TMP/err" || fail "latnicectl $args: no 'latnicectl: ' message"
done
echo "ok - usage errors exit 2"
echo "PASS"
