# Shared helpers for the latniced integration tests (sourced, not run).
# Usage in a test: . "$(dirname "$0")/test-daemon-lib.sh" "$@"
#   $1 latniced, $2 ln-spawn, $3 ln-getattr
set -uo pipefail

LATNICED=${1:?latniced path}
SPAWN=${2:?ln-spawn path}
GETATTR=${3:?ln-getattr path}
# Run a command as nobody, as the hostile tests do: "${NOBODY[@]}" CMD...
# (an array, not a function, so that CMD & gives CMD's own pid).
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups --)

if [ "$(id -u)" -ne 0 ]; then
        echo "SKIP: needs root (CAP_SYS_NICE, CAP_NET_ADMIN)"
        exit 77
fi

T=$(mktemp -d /tmp/latniced-test.XXXXXX)
POL=$T/policy
CONF=$T/latniced.conf
LOG=$T/latniced.log
mkdir -p "$POL"
: >"$CONF"
DAEMON=
PIDS=()
TRUSTED=

# latniced gets SIGTERM on every exit path (it restores what it changed),
# SIGKILL only if it is still there 5 s later; it runs under setpriv
# --pdeathsig TERM, so it goes with the test even when the test is SIGKILLed.
cleanup() {
        local p i
        for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
        if [ -n "$DAEMON" ]; then
                kill -TERM "$DAEMON" 2>/dev/null
                kill -CONT "$DAEMON" 2>/dev/null # a test may have stopped it
                for ((i = 0; i < 100; i++)); do
                        grep -q '^State:.*[ZX]' "/proc/$DAEMON/status" 2>/dev/null && break
                        [ -e "/proc/$DAEMON" ] || break
                        sleep 0.05
                done
                kill -KILL "$DAEMON" 2>/dev/null
                wait "$DAEMON" 2>/dev/null
        fi
        wait 2>/dev/null
        rm -rf "$T"
        [ -z "$TRUSTED" ] || rm -rf "$TRUSTED"
}
trap cleanup EXIT

fail() {
        echo "FAIL: $*" >&2
        if [ -f "$LOG" ]; then
                echo "--- latniced log (last 40 lines)" >&2
                tail -n 40 "$LOG" >&2
        fi
        exit 1
}

# trusted_copy PROGRAM NAME: a copy of PROGRAM at $TRUSTED/NAME (NAME may be
# DIR/FILE), a path latniced trusts as it does /usr/bin: root's and mode 0755
# all the way, in a directory made below /run at the first call (only root
# writes there; /tmp is anyone's) and removed by cleanup.
trusted_copy() {
        if [ -z "$TRUSTED" ]; then
                TRUSTED=$(mktemp -d /run/lntrust.XXXXXX) || fail "cannot make a directory in /run"
                chmod 0755 "$TRUSTED"
        fi
        mkdir -p -m 0755 "$(dirname "$TRUSTED/$2")" &&
                cp "$1" "$TRUSTED/$2" && chmod 0755 "$TRUSTED/$2" ||
                fail "cannot copy $1 to $TRUSTED/$2"
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# Poll CMD... until it succeeds or TIMEOUT seconds, times the slack
# LATNICE_TEST_SLACK (default 5), pass. TIMEOUT is what an idle machine
# needs with room to spare; the slack is for a busy one (a sanitizer build
# beside other work: a 2 s wait for an ancestor rule was seen to fail). No
# test waits for something not to happen, so a passing run waits no longer.
wait_until() { # timeout cmd...
        local timeout=$1 end
        shift
        end=$(($(now_ms) + timeout * 1000 * ${LATNICE_TEST_SLACK:-5}))
        while ! "$@"; do
                [ "$(now_ms)" -ge "$end" ] && return 1
                sleep 0.02
        done
        return 0
}

# The kernel's view of one thread, never latniced's: ln-getattr (sched_getattr).
# A process's RLIMIT_RTTIME as "SOFT HARD" (/proc/PID/limits).
rttime() { # pid: "SOFT HARD" of Max realtime timeout
        awk '/^Max realtime timeout/ { print $4, $5 }' "/proc/$1/limits"
}
attr() { # tid field
        "$GETATTR" "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p"
}
attr_is() { # tid field value
        [ "$(attr "$1" "$2")" = "$3" ]
}

# The base slice as the kernel computes it (debugfs when readable: a
# kernel in lockdown mounts it but refuses the read, though -r says yes).
base_slice() {
        local n v
        if v=$(cat /sys/kernel/debug/sched/base_slice_ns 2>/dev/null) && [ -n "$v" ]; then
                echo "$v"
                return
        fi
        n=$(nproc)
        [ "$n" -gt 8 ] && n=8
        local l=0
        while [ $((1 << (l + 1))) -le "$n" ]; do l=$((l + 1)); done
        echo $((700000 * (1 + l)))
}
# slice = base * 1024 / sched_prio_to_weight[ln + 20], clamped to [0.1 ms, 100 ms]
WEIGHTS=(88761 71755 56483 46273 36291 29154 23254 18705 14949 11916 9548 7620 6100 4904
        3906 3121 2501 1991 1586 1277 1024 820 655 526 423 335 272 215 172 137 110 87 70
        56 45 36 29 23 18 15)
ln_slice() { # latency_nice
        local s=$(($(base_slice) * 1024 / WEIGHTS[$1 + 20]))
        [ $s -lt 100000 ] && s=100000
        [ $s -gt 100000000 ] && s=100000000
        echo $s
}

start_daemon() { # extra latniced options (a later --state-file wins)...
        : >"$LOG"
        # A state file of the test's own: tests never adopt each other's tasks.
        setpriv --pdeathsig TERM -- "$LATNICED" --foreground --bus none --config "$CONF" \
                --policy-dir "$POL" --log-level debug --state-file "$T/own.state" "$@" 2>>"$LOG" &
        DAEMON=$!
        wait_until 60 grep -q "Ready:" "$LOG" || fail "latniced did not become ready"
}

stop_daemon() { # signal (default TERM)
        kill -"${1:-TERM}" "$DAEMON"
        wait "$DAEMON"
        local rc=$?
        DAEMON=
        return $rc
}

reload_daemon() {
        local n
        n=$(grep -c "Reloaded:" "$LOG")
        kill -HUP "$DAEMON"
        wait_until 10 eval '[ "$(grep -c "Reloaded:" "$LOG")" -gt '"$n"' ]' ||
                fail "latniced did not reload"
}

# Start CMD... in the cgroup DIR (v1 or v2) from its first instruction: a
# shell writes itself into DIR/cgroup.procs and execs CMD. In the
# background, in PIDS; sets RUN_PID once DIR/cgroup.procs lists it.
in_cgroup() { # dir cmd...
        local dir=$1
        shift
        bash -c 'echo $$ > "$1/cgroup.procs"; shift; exec "$@"' _ "$dir" "$@" &
        RUN_PID=$!
        PIDS+=("$RUN_PID")
        wait_until 5 grep -qx "$RUN_PID" "$dir/cgroup.procs" || fail "could not start $1 in $dir"
}

# Does the cgroup DIR's cpu.idle read VALUE?
idle_is() { # dir value
        [ "$(cat "$1/cpu.idle" 2>/dev/null)" = "$2" ]
}

# Start ln-spawn in the background; sets SPAWNED_PID and SPAWNED_TIDS (array).
spawn() { # ln-spawn options...
        local out=$T/spawn.$RANDOM$RANDOM line
        : >"$out"
        "$SPAWN" "$@" >"$out" &
        PIDS+=($!)
        wait_until 10 grep -q "^pid=" "$out" || fail "ln-spawn $* did not start"
        line=$(grep "^pid=" "$out" | head -1)
        SPAWNED_PID=$(echo "$line" | sed 's/^pid=\([0-9]*\).*/\1/')
        IFS=, read -r -a SPAWNED_TIDS <<<"$(echo "$line" | sed 's/.*tids=//')"
        SPAWNED_OUT=$out
}

# A process that starts a thread only when told, for rules on threads made
# after latniced looked at their process: python3 with MARKER as its first
# argument (for cmdline: rules). Writes its pid to $T/NAME.pid, waits for
# $T/NAME.go, then starts one thread, which writes its tid to $T/NAME.tid
# (each file renamed into place, so never read half written); both then
# sleep. In the background, in PIDS; sets LATER_PID once it is there.
thread_later() { # marker name
        /usr/bin/python3 - "$1" "$T/$2" <<'PY' &
import os, sys, threading, time
t = sys.argv[2]
def put(ext, value):
    open(t + ext + ".tmp", "w").write(str(value))
    os.rename(t + ext + ".tmp", t + ext)
put(".pid", os.getpid())
while not os.path.exists(t + ".go"):
    time.sleep(0.01)
def run():
    put(".tid", threading.get_native_id())
    time.sleep(3600)
threading.Thread(target=run, daemon=True).start()
time.sleep(3600)
PY
        PIDS+=($!)
        wait_until 5 test -s "$T/$2.pid" || fail "python helper ($2) did not start"
        LATER_PID=$(cat "$T/$2.pid")
}

# Tell thread_later's process NAME to start its thread; sets LATER_TID.
thread_later_go() { # name
        touch "$T/$1.go"
        wait_until 5 test -s "$T/$1.tid" || fail "python helper ($1) did not start its thread"
        LATER_TID=$(cat "$T/$1.tid")
}
