#!/usr/bin/env bash
# An unprivileged rename storm (ln-rename as nobody: prctl(PR_SET_NAME) in a
# tight loop) against latniced. Meanwhile a matching process starts and gets
# its settings; the storm's last name is evaluated (renames are coalesced,
# never dropped, so a storm ending in a matching name ends with the rule
# applied); latniced still reloads on SIGHUP and exits on SIGTERM during a
# storm. Every check is on the kernel's values (ln-getattr), timeouts are
# generous and no timing is asserted. latniced's CPU time during the storm
# is printed (for the record, not checked).
#   $4: ln-rename
. "$(dirname "$0")/test-daemon-lib.sh" "$@"
RENAME=${4:?ln-rename path}
SECONDS_STORM=${LATNICE_RENAME_SECONDS:-10}

cat >"$POL/50-renames.policy" <<'P'
[Rule renamed]
Match = name:lt-ren-final
Nice = 7

[Rule keeper]
Match = name:lt-ren-keeper-*
Nice = 3
P

cpu_ticks() { # pid: utime + stime in clock ticks
        awk '{ print $14 + $15 }' "/proc/$1/stat"
}

# Start the storm as nobody; sets STORM_PID and STORM_OUT.
start_storm() { # seconds final-name
        STORM_OUT=$T/rename.$RANDOM
        : >"$STORM_OUT"
        "${NOBODY[@]}" "$RENAME" "$1" "$2" \
                >"$STORM_OUT" &
        STORM_PID=$!
        PIDS+=("$STORM_PID")
        wait_until 10 grep -q "^pid=$STORM_PID\$" "$STORM_OUT" || fail "ln-rename did not start"
        [ "$(stat -c %u "/proc/$STORM_PID")" = 65534 ] || fail "ln-rename does not run as nobody"
}

start_daemon --log-level info
c0=$(cpu_ticks "$DAEMON")
start_storm "$SECONDS_STORM" lt-ren-final
sleep 1

# A matching process started in the middle of the storm gets its class.
spawn --argv0 lt-ren-keeper-1
wait_until 10 attr_is "$SPAWNED_PID" nice 3 || fail "keeper $SPAWNED_PID not applied during the storm"

# latniced still answers: a reload in the middle of the storm completes.
reload_daemon

# The storm ends with a matching name: that last name is evaluated.
wait_until $((SECONDS_STORM + 30)) grep -q "^final" "$STORM_OUT" || fail "storm did not end"
c1=$(cpu_ticks "$DAEMON")
wait_until 10 attr_is "$STORM_PID" nice 7 ||
        fail "the storm's final name lt-ren-final was not evaluated (nice $(attr "$STORM_PID" nice))"
echo "storm: $(grep ^final "$STORM_OUT" | sed 's/final //') renames in ${SECONDS_STORM} s;" \
        "latniced used $(((c1 - c0) * 1000 / $(getconf CLK_TCK))) ms CPU"
kill -KILL "$STORM_PID"
grep -E "Rescanned processes \([^)]*(lost events|renames)" "$LOG" | tail -1

# Renames are asked of the kernel only while the policy looks at names: after
# a reload to a policy without name keys and one back, they come again.
mv "$POL/50-renames.policy" "$T/renames.policy"
printf '[Rule exe-only]\nMatch = exe:/nonexistent/lt-ren\nNice = 1\n' >"$POL/50-exe.policy"
reload_daemon
mv "$T/renames.policy" "$POL/50-renames.policy"
reload_daemon
start_storm 0.2 lt-ren-final
wait_until 10 grep -q "^final" "$STORM_OUT" || fail "short storm did not end"
wait_until 10 attr_is "$STORM_PID" nice 7 ||
        fail "a rename after reloads (policy without, then with name keys) was not evaluated"
kill -KILL "$STORM_PID"

# SIGTERM in the middle of a storm: latniced exits, cleanly.
start_storm 60 ln-rn-end
sleep 1
kill -TERM "$DAEMON"
wait_until 10 eval '! [ -e /proc/$DAEMON ] || grep -q "^State:.*Z" /proc/$DAEMON/status' ||
        fail "latniced did not exit within 10 s of SIGTERM during a rename storm"
wait "$DAEMON"
rc=$?
DAEMON=
[ "$rc" = 0 ] || fail "exit status $rc after SIGTERM"
echo "PASS"
