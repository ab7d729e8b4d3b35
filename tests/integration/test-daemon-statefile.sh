#!/usr/bin/env bash
# The state file cannot crash latniced nor be handed to it by another user
# (issue 36, item 4). Every effect is read from the kernel (ln-getattr),
# never from latniced.
#   a. the state file on a 192 KiB tmpfs (64 records of 2 KiB, no room to grow
#      to 128) that nobody fills up; 120 processes
#      of nobody's that a rule sets to nice 19: latniced stays alive, warns
#      once, counts the 56 it could not record (UnrecordedTasks, latnicectl
#      status), and on SIGTERM gives all 120 back
#   b. the state file truncated (truncate -s 0), then removed, while
#      latniced runs and changes more processes: it stays alive, and after
#      kill -9 a restarted latniced gives back every one of them
#   c. a state file of nobody's (mode 666) in a world-writable directory, or
#      in root's own: latniced refuses to start, naming the path and why
. "$(dirname "$0")/test-daemon-lib.sh" "$@"
LATNICECTL=${4:?latnicectl path}
SRC=${5:?source root}

MNT=
BUS=
# nobody reaches the tmpfs and the test's program
chmod 0755 "$T"
statefile_cleanup() {
        [ -n "$MNT" ] && umount -l "$MNT" 2>/dev/null
        if [ -n "$BUS" ]; then
                kill -TERM "$BUS" 2>/dev/null
                wait "$BUS" 2>/dev/null
        fi
        cleanup
}
trap statefile_cleanup EXIT

dbus-daemon --config-file="$SRC/tests/integration/dbus-system.conf" \
        --address="unix:path=$T/bus" --nofork --nopidfile --print-address=3 \
        3>"$T/bus.address" 2>"$T/bus.log" &
BUS=$!
wait_until 10 test -s "$T/bus.address" || fail "dbus-daemon did not start"
ADDR=unix:path=$T/bus
ctl() { "$LATNICECTL" --bus "$ADDR" "$@"; }
unrecorded() {
        busctl --address="$ADDR" get-property org.latnice.Daemon1 /org/latnice/Daemon1 \
                org.latnice.Daemon1 UnrecordedTasks | awk '{ print $2 }'
}

cp /bin/sleep "$T/lnfull"
cp /bin/sleep "$T/lntrunc"
all_nice() { # value pid...
        local v=$1 p
        shift
        for p in "$@"; do attr_is "$p" nice "$v" || return 1; done
}
count_nice() { # value pid...: how many have it
        local v=$1 p n=0
        shift
        for p in "$@"; do attr_is "$p" nice "$v" && n=$((n + 1)); done
        echo "$n"
}
alive() { kill -0 "$1" 2>/dev/null && ! grep -q '^State:.*Z' "/proc/$1/status"; }

# ---- a. a full filesystem
MNT=$T/small
mkdir "$MNT"
mount -t tmpfs -o size=192k,mode=0755 tmpfs "$MNT" || { echo "SKIP: cannot mount a tmpfs"; exit 77; }
mkdir -m 0700 "$MNT/latnice"
mkdir -m 1777 "$MNT/pub" # as the user-writable directories of /run
STATE=$MNT/latnice/tasks.state
printf '[Rule lnfull]\nMatch = comm:lnfull\nNice = 19\n' >"$POL/10-full.policy"
start_daemon --state-file "$STATE" --bus "$ADDR"
pid=$DAEMON
"${NOBODY[@]}" dd if=/dev/zero of="$MNT/pub/fill" bs=4096 2>/dev/null &&
        fail "a: nobody's dd never found the tmpfs full"
echo "# tmpfs: $(df -k --output=used,avail "$MNT" | tail -1) KiB used, available"
full=()
for i in $(seq 120); do
        "${NOBODY[@]}" "$T/lnfull" 1000 &
        full+=($!)
        PIDS+=($!)
done
wait_until 60 all_nice 19 "${full[@]}" ||
        fail "a: $(count_nice 19 "${full[@]}") of 120 at nice 19; latniced $(alive "$pid" && echo alive || echo dead)"
alive "$pid" || fail "a: latniced ($pid) died"
n=$(grep -c "Cannot add to the state file" "$LOG")
[ "$n" = 1 ] || fail "a: the warning on a full state file came $n times, not once"
[ "$(unrecorded)" = 56 ] || fail "a: UnrecordedTasks is $(unrecorded), not 56 (120 tasks, 64 records)"
ctl status | grep -E "Warning: 56 tasks not in the state file" ||
        fail "a: latnicectl status does not show the unrecorded tasks"
stop_daemon TERM || fail "a: latniced did not exit 0 on SIGTERM"
wait_until 10 all_nice 0 "${full[@]}" || fail "a: after SIGTERM, $(count_nice 19 "${full[@]}") of 120 still at nice 19"
echo "ok a: full tmpfs: latniced alive, warned once, 56 unrecorded, all 120 back at nice 0"
kill -KILL "${full[@]}" 2>/dev/null
umount -l "$MNT"
MNT=

# ---- b. truncated, then removed, under a running latniced
rm "$POL/10-full.policy"
printf '[Rule lntrunc]\nMatch = comm:lntrunc\nNice = 19\n' >"$POL/10-trunc.policy"
mkdir -m 0700 "$T/st"
STATE=$T/st/tasks.state
start_daemon --state-file "$STATE"
pid=$DAEMON
trunc=()
start_some() { # n
        local i
        for ((i = 0; i < $1; i++)); do
                "${NOBODY[@]}" "$T/lntrunc" 1000 &
                trunc+=($!)
                PIDS+=($!)
        done
        wait_until 30 all_nice 19 "${trunc[@]}" ||
                fail "b: $(count_nice 19 "${trunc[@]}") of ${#trunc[@]} at nice 19; latniced $(alive "$pid" && echo alive || echo dead)"
}
start_some 20
truncate -s 0 "$STATE"
start_some 20
alive "$pid" || fail "b: latniced died after its state file was truncated"
grep -q "State file $STATE was cut short by someone else" "$LOG" ||
        fail "b: latniced did not say the state file was cut short"
rm -f "$STATE"
start_some 10
alive "$pid" || fail "b: latniced died after its state file was removed"
grep -q "State file $STATE was removed or replaced by someone else" "$LOG" ||
        fail "b: latniced did not say the state file was removed"
[ -s "$STATE" ] || fail "b: the state file was not made again"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
DAEMON=
all_nice 19 "${trunc[@]}" || fail "b: kill -9 restored something (it cannot)"
rm "$POL/10-trunc.policy"
start_daemon --state-file "$STATE"
wait_until 10 all_nice 0 "${trunc[@]}" ||
        fail "b: after kill -9 and restart, $(count_nice 19 "${trunc[@]}") of 50 still at nice 19"
grep -q "adopted 50 task" "$LOG" || fail "b: the restarted latniced did not adopt 50 tasks"
stop_daemon TERM || fail "b: latniced did not exit 0"
echo "ok b: truncated and removed under latniced: alive, and all 50 back after kill -9 and restart"
kill -KILL "${trunc[@]}" 2>/dev/null

# ---- c. a state file another user made
refused() { # path what...
        local path=$1 rc
        shift
        timeout $((30 * ${LATNICE_TEST_SLACK:-5})) setpriv --pdeathsig TERM -- "$LATNICED" --foreground --bus none \
                --config "$CONF" --policy-dir "$POL" --state-file "$path" >"$LOG" 2>&1
        rc=$?
        [ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "c: latniced started (status $rc) with $path"
        ! grep -q "Ready:" "$LOG" || fail "c: latniced became ready with $path"
        for w in "Refusing the state file $path:" "$@"; do
                grep -qF "$w" "$LOG" || fail "c: no \"$w\" in the refusal"
        done
        echo "# $(grep -F "Refusing" "$LOG" | head -1)"
}
mkdir -m 1777 "$T/pubdir"
"${NOBODY[@]}" bash -c 'umask 0; : >"$1"' _ "$T/pubdir/tasks.state"
[ "$(stat -c %U:%a "$T/pubdir/tasks.state")" = nobody:666 ] || fail "c: nobody's file is not 666"
refused "$T/pubdir/tasks.state" "directory $T/pubdir (mode 1777) is writable by its group and others"
mkdir -m 0700 "$T/priv"
cp -p "$T/pubdir/tasks.state" "$T/priv/tasks.state"
chown nobody "$T/priv/tasks.state"
refused "$T/priv/tasks.state" "$T/priv/tasks.state is owned by uid 65534"
chown root "$T/priv/tasks.state"
refused "$T/priv/tasks.state" "$T/priv/tasks.state (mode 0666) is writable by its group and others"
[ "$(stat -c %s "$T/priv/tasks.state")" = 0 ] || fail "c: latniced wrote into a file it refused"
echo "ok c: nobody's state file, or one writable by others, or in a world-writable directory: refused, naming the path"
