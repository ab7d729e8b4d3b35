#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# latniced does its job with exactly the CapabilityBoundingSet= of
# latniced.service (and NoNewPrivileges): PID 1 is not systemd here, so the
# bounding set is read from the unit and applied with setpriv(1).
#   - a rule matching exe: of another user's process (reading /proc/PID/exe
#     of another user needs CAP_SYS_PTRACE) gets applied (CAP_SYS_NICE);
#   - a [Unit] cgroup file owned by a user, as in delegated user@UID.service
#     subtrees, gets written (CAP_DAC_OVERRIDE);
#   - and the proc connector works (CAP_NET_ADMIN: the task is seen at all).
# Verified with sched_getattr (ln-getattr) and the file contents.
#
# Usage: test-systemd-caps.sh BUILD_ROOT SOURCE_ROOT
set -u -o pipefail

BUILD=${1:?usage: $0 BUILD_ROOT SOURCE_ROOT}
SRC=${2:?usage: $0 BUILD_ROOT SOURCE_ROOT}
LATNICED=$BUILD/daemon/latniced
GETATTR=$BUILD/tests/helpers/ln-getattr
UNIT=$SRC/systemd/latniced.service.in

if [ "$(id -u)" != 0 ]; then
        echo "SKIP: needs root"
        exit 77
fi
command -v setpriv >/dev/null || { echo "SKIP: setpriv (util-linux) not installed"; exit 77; }

TMP=$(mktemp -d /tmp/latnice-caps.XXXXXX)
DAEMON=
VICTIM=
cleanup() {
        [ -n "$DAEMON" ] && kill "$DAEMON" 2>/dev/null && wait "$DAEMON" 2>/dev/null
        [ -n "$VICTIM" ] && kill "$VICTIM" 2>/dev/null && wait "$VICTIM" 2>/dev/null
        rm -rf "$TMP"
}
trap cleanup EXIT
fail() {
        echo "FAIL: $*" >&2
        [ -f "$TMP/log" ] && tail -n 30 "$TMP/log" >&2
        exit 1
}

caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$UNIT")
[ -n "$caps" ] || fail "no CapabilityBoundingSet= in $UNIT"
grep -qx 'NoNewPrivileges=yes' "$UNIT" || fail "no NoNewPrivileges=yes in $UNIT"
bounding="-all"
for c in $caps; do
        c=${c#CAP_}
        bounding+=",+${c,,}"
done
echo "# latniced with --bounding-set=$bounding --no-new-privs"

nobody_uid=$(id -u nobody)
mkdir -p "$TMP/policy" "$TMP/cg/user.slice/user-$nobody_uid.slice/user@$nobody_uid.service/app.slice/x.service"
cgdir=$TMP/cg/user.slice/user-$nobody_uid.slice/user@$nobody_uid.service/app.slice/x.service
echo 100 >"$cgdir/cpu.weight"
: >"$cgdir/cgroup.procs"
chown -R nobody "$TMP/cg/user.slice/user-$nobody_uid.slice/user@$nobody_uid.service/app.slice"
chmod 0644 "$cgdir/cpu.weight"

cat >"$TMP/policy/50-caps.policy" <<EOF
[Rule nobody-sleep]
Match = exe:*/sleep && user:$nobody_uid
Nice = 6

[Unit x.service]
CPUWeight = 77
EOF

setpriv --reuid=nobody --regid=nogroup --clear-groups sleep 600 </dev/null >/dev/null 2>&1 &
VICTIM=$!
for ((i = 0; i < 50; i++)); do
        [ "$(cat "/proc/$VICTIM/comm" 2>/dev/null)" = sleep ] && break
        sleep 0.05
done

setpriv --bounding-set="$bounding" --no-new-privs --pdeathsig TERM -- \
        "$LATNICED" --foreground --bus none --log-level debug --policy-dir "$TMP/policy" \
        --cgroup-root "$TMP/cg" --state-file "$TMP/state" >"$TMP/log" 2>&1 &
DAEMON=$!

for ((i = 0; i < 100; i++)); do
        [ "$("$GETATTR" "$VICTIM" | tr ' ' '\n' | sed -n 's/^nice=//p')" = 6 ] && break
        kill -0 "$DAEMON" 2>/dev/null || fail "latniced exited"
        sleep 0.1
done
got=$("$GETATTR" "$VICTIM" | tr ' ' '\n' | sed -n 's/^nice=//p')
[ "$got" = 6 ] || fail "the exe: rule did not apply to another user's process (nice $got, expected 6)"
echo "ok - exe: of another user's process read and its nice set"
[ "$(cat "$cgdir/cpu.weight")" = 77 ] || fail "user-owned cpu.weight is $(cat "$cgdir/cpu.weight"), expected 77"
echo "ok - a user-owned cgroup file written"

kill -TERM "$DAEMON"
wait "$DAEMON"
rc=$?
DAEMON=
[ "$rc" = 0 ] || fail "latniced exited $rc on SIGTERM"
[ "$(cat "$cgdir/cpu.weight")" = 100 ] || fail "cpu.weight not restored"
echo "ok - restored on exit"
echo "PASS"
