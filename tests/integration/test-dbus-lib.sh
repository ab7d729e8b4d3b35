# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Sourced by tests/integration/test-dbus-*.sh (not a test by itself): a
# private dbus-daemon configured like the system bus (dbus-system.conf,
# which includes the real systemd/org.latnice.Daemon1.conf) on a socket in a
# temporary directory, and the real latniced on it with policy directories
# of its own:
#
#   . test-dbus-lib.sh
#   dbus_init BUILD_ROOT SOURCE_ROOT   # root check, temp dir, cleanup trap
#   dbus_start_bus                      # sets ADDR
#   dbus_start_daemon                   # policy: $TMP/{vendor,run,admin}
#
# Tests run under `set -e` with pipefail, so a failing check anywhere (also
# py_assert at the end of a pipeline) ends the test; commands expected to
# fail are run as `rc=0; cmd || rc=$?` or through expect_fail.
#
# Helpers: ctl (latnicectl on the bus), bctl (busctl on the bus),
# as_nobody CMD..., call METHOD SIG ARGS... (busctl call, JSON reply),
# py EXPR (python on stdin), stat_field PID N, fail, expect_fail.
set -eu -o pipefail

fail() {
        echo "FAIL: $*" >&2
        exit 1
}

dbus_init() {
        BUILD=${1:?usage: $0 BUILD_ROOT SOURCE_ROOT}
        SRC=${2:?usage: $0 BUILD_ROOT SOURCE_ROOT}
        LATNICED=$BUILD/daemon/latniced
        LATNICECTL=$BUILD/cli/latnicectl
        GETATTR=$BUILD/tests/helpers/ln-getattr
        PY=/usr/bin/python3

        if [ "$(id -u)" != 0 ]; then
                echo "SKIP: needs root (runs latniced and changes scheduler attributes)" >&2
                exit 77
        fi
        for t in dbus-daemon busctl setpriv "$PY"; do
                command -v "$t" >/dev/null || fail "$t is not installed (dev/deps.sh installs it)"
        done
        for t in "$LATNICED" "$LATNICECTL" "$GETATTR"; do
                [ -x "$t" ] || fail "$t was not built"
        done

        TMP=$(mktemp -d /tmp/latnice-dbus.XXXXXX)
        # nobody must reach the bus socket and run the copied test programs
        chmod 0755 "$TMP"
        mkdir -p "$TMP/vendor" "$TMP/run" "$TMP/admin"
        BUS_PID=
        DAEMON_PID=
        CHILDREN=()
        trap dbus_cleanup EXIT
        # say which command failed when `set -e` ends the test
        set -E
        trap 'echo "FAIL: ${BASH_SOURCE[0]##*/}:$LINENO: $BASH_COMMAND (exit $?)" >&2' ERR
}

dbus_cleanup() {
        local rc=$?
        local p
        set +e
        trap - ERR
        for p in "${CHILDREN[@]}"; do
                kill -KILL "$p" 2>/dev/null
        done
        if [ -n "$DAEMON_PID" ]; then
                kill -TERM "$DAEMON_PID" 2>/dev/null
                wait "$DAEMON_PID" 2>/dev/null
                p=$?
                # latniced exits 0 on SIGTERM; sanitizer reports fail the test
                if [ $rc -eq 0 ] && { [ $p -ne 0 ] ||
                        grep -Eq "runtime error|Sanitizer|LeakSanitizer" "$TMP/latniced.log"; }; then
                        echo "FAIL: latniced exited with status $p or reported a sanitizer error" >&2
                        rc=1
                fi
        fi
        if [ -n "$BUS_PID" ]; then
                kill -TERM "$BUS_PID" 2>/dev/null
                wait "$BUS_PID" 2>/dev/null
        fi
        if [ $rc -ne 0 ] && [ $rc -ne 77 ] && [ -f "$TMP/latniced.log" ]; then
                echo "--- latniced log (last 60 lines)" >&2
                tail -n 60 "$TMP/latniced.log" >&2
        fi
        rm -rf "$TMP"
        exit $rc
}

dbus_start_bus() {
        local i
        dbus-daemon --config-file="$SRC/tests/integration/dbus-system.conf" \
                --address="unix:path=$TMP/bus" --nofork --nopidfile \
                --print-address=3 3>"$TMP/bus.address" 2>"$TMP/bus.log" &
        BUS_PID=$!
        for i in $(seq 100); do
                [ -s "$TMP/bus.address" ] && break
                kill -0 "$BUS_PID" 2>/dev/null ||
                        { cat "$TMP/bus.log" >&2; fail "dbus-daemon rejected its configuration"; }
                sleep 0.1
        done
        [ -s "$TMP/bus.address" ] || fail "dbus-daemon did not start"
        ADDR="unix:path=$TMP/bus"
        echo "# private system-like bus at $ADDR"
}

# dbus_start_daemon [EXTRA_ARGS...]: latniced on the bus, waits for the name.
dbus_start_daemon() {
        local i
        setpriv --pdeathsig TERM -- "$LATNICED" --foreground --bus "$ADDR" --log-level debug \
                --policy-dir "$TMP/vendor" --policy-dir "$TMP/run" --policy-dir "$TMP/admin" \
                --state-file "$TMP/state" \
                "$@" >"$TMP/latniced.log" 2>&1 &
        DAEMON_PID=$!
        for i in $(seq 200); do
                if busctl --address="$ADDR" call org.latnice.Daemon1 /org/latnice/Daemon1 \
                        org.latnice.Daemon1 GetStatus >/dev/null 2>&1; then
                        echo "# latniced $DAEMON_PID serves org.latnice.Daemon1"
                        return 0
                fi
                kill -0 "$DAEMON_PID" 2>/dev/null || fail "latniced exited during start-up"
                sleep 0.1
        done
        fail "latniced did not take org.latnice.Daemon1 within 20 s"
}

# focus_tree NAME: for the focus tests, a user.slice of the test's own in
# the cgroup2 tree (CG: the mount; TOP=/latnice-NAME-PID; US=$TOP/user.slice)
# and a root-only directory for trusted executables (BIN=/run/lnNAME.*);
# at exit the children are killed, both removed, then dbus_cleanup runs.
focus_tree() {
        CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
        [ -n "$CG" ] || { echo "SKIP: no cgroup2 hierarchy"; exit 77; }
        TOP=/latnice-$1-$$
        US=$TOP/user.slice
        BIN=$(mktemp -d "/run/ln$1.XXXXXX")
        chmod 0755 "$BIN"
        trap focus_tree_cleanup EXIT
}

focus_tree_cleanup() {
        local rc=$? d p
        set +e
        trap - ERR
        for p in "${CHILDREN[@]}"; do kill -KILL "$p" 2>/dev/null; done
        # rmdir fails while a killed child is still in its cgroup: a few tries
        for d in $(find "$CG$TOP" -depth -type d 2>/dev/null); do
                for p in 1 2 3 4 5 6 7 8 9 10; do
                        rmdir "$d" 2>/dev/null && break
                        sleep 0.1
                done
        done
        rm -rf "$BIN"
        (exit $rc)
        dbus_cleanup
}

ctl() {
        "$LATNICECTL" --bus "$ADDR" "$@"
}

bctl() {
        busctl --address="$ADDR" "$@"
}

as_nobody() {
        setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
}

# call METHOD [SIGNATURE ARGS...]: the reply as busctl JSON ({"type":..,"data":[..]})
# patient CMD...: run CMD, again while it fails saying "try again later"
# (latniced's answer when reading a command line took over its timeout or
# the user's reads are held off after that, which a loaded machine causes:
# Explain failed so in dbus-api under the sanitizers beside other work),
# for at most 30 s times the slack (LATNICE_TEST_SLACK, 5 by default).
# Its output and exit status are the last run's.
patient() {
        local end rc err=$TMP/patient.err
        end=$(($(date +%s) + 30 * ${LATNICE_TEST_SLACK:-5}))
        while :; do
                rc=0
                "$@" 2>"$err" >"$err.out" || rc=$?
                [ "$rc" -ne 0 ] && grep -q "try again later" "$err" && [ "$(date +%s)" -lt "$end" ] ||
                        break
                sleep 0.5
        done
        cat "$err.out"
        cat "$err" >&2
        return "$rc"
}

call() {
        patient bctl --json=short call org.latnice.Daemon1 /org/latnice/Daemon1 org.latnice.Daemon1 "$@"
}

# py 'EXPR with d = the JSON document on stdin': prints the value of EXPR
py() {
        "$PY" -c 'import json, sys
d = json.load(sys.stdin)
v = eval("(" + sys.argv[1] + ")")
print(json.dumps(v) if isinstance(v, (dict, list)) else v)' "$1"
}

# py_assert 'CONDITION on d' MESSAGE: JSON on stdin
py_assert() {
        "$PY" -c 'import json, sys
d = json.load(sys.stdin)
if not eval("(" + sys.argv[1] + ")"):
    print("FAIL: " + sys.argv[2] + "\n  document: " + json.dumps(d)[:2000], file=sys.stderr)
    sys.exit(1)' "$1" "$2" || exit 1
}

# stat_field PID N: field N of /proc/PID/stat (counting as proc(5) does)
stat_field() {
        "$PY" -c 'import sys
s = open("/proc/%s/stat" % sys.argv[1]).read()
rest = s[s.rindex(")") + 2:].split()
print(rest[int(sys.argv[2]) - 3])' "$1" "$2"
}

# getattr PID KEY: a field of tests/helpers/ln-getattr (sched_getattr, not latniced's word)
getattr() {
        "$GETATTR" --json "$1" | py "d[\"$2\"]"
}

# xattr [nobody] DIR VALUE|-: set (or remove, -) user.xdg.inactive-since
xattr() {
        local who=()
        if [ "$1" = nobody ]; then
                who=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
                shift
        fi
        "${who[@]}" "$PY" -c 'import os, sys
if sys.argv[2] == "-":
    os.removexattr(sys.argv[1], "user.xdg.inactive-since")
else:
    os.setxattr(sys.argv[1], "user.xdg.inactive-since", sys.argv[2].encode())' "$1" "$2"
}

# nice_is PID NICE: the kernel's nice of PID (getattr) is NICE
nice_is() {
        [ "$(getattr "$1" nice)" = "$2" ]
}

# expect_nice PID NICE WHAT: within 60 s (an evaluation latniced put off,
# its cmdline read cut short on a busy machine, waits for a rescan)
expect_nice() {
        local i
        for i in $(seq 600); do
                nice_is "$1" "$2" && { echo "ok - $3: nice $2"; return 0; }
                sleep 0.1
        done
        fail "$3: nice $(getattr "$1" nice), expected $2"
}

# expect_fail WHAT PATTERN CMD...: CMD must fail, its stderr must match PATTERN (ERE)
expect_fail() {
        local what=$1 pattern=$2
        shift 2
        if "$@" >"$TMP/out" 2>"$TMP/err"; then
                fail "$what: succeeded, expected a failure"
        fi
        grep -Eq -- "$pattern" "$TMP/err" ||
                { cat "$TMP/err" >&2; fail "$what: error does not match /$pattern/"; }
        echo "ok - $what: $(head -c 300 "$TMP/err" | tr '\n' ' ')"
}

# daemon_alive: latniced still runs and answers GetStatus
daemon_alive() {
        kill -0 "$DAEMON_PID" 2>/dev/null || fail "latniced died ($*)"
        call GetStatus >/dev/null || fail "latniced no longer answers GetStatus ($*)"
}

# spawn NAME [nobody]: a sleep process with comm NAME (a copy of sleep),
# as root or as nobody; sets SPAWNED to its pid (exec'ed, no shell in between)
spawn() {
        local name=$1 user=${2:-root}
        [ -x "$TMP/$name" ] || cp /bin/sleep "$TMP/$name"
        if [ "$user" = nobody ]; then
                setpriv --reuid=nobody --regid=nogroup --clear-groups "$TMP/$name" 600 &
        else
                "$TMP/$name" 600 &
        fi
        SPAWNED=$!
        disown "$SPAWNED"
        CHILDREN+=("$SPAWNED")
}

# wait_for DESCRIPTION CMD...: retry CMD for up to 10 s
wait_for() { # what command...: up to 300 tries, 0.1 s apart (30 s on an idle machine)
        local what=$1 i
        shift
        for i in $(seq 300); do
                "$@" >/dev/null 2>&1 && return 0
                sleep 0.1
        done
        fail "timed out waiting for $what"
}
