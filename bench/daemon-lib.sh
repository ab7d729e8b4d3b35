# Sourced by the benchmarks that start latniced (apply-latency.sh, exec-storm.sh),
# after they set T (their temp dir). Installs the EXIT/INT/TERM traps.
# shellcheck shell=bash
# D: pid of the latniced started by the script, or empty.

# Is PID running (not gone, not a zombie waiting for us)?
running() {
        local s
        s=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
        [ -n "$s" ] && [ "$s" != Z ] && [ "$s" != X ]
}

# Stop the daemon started here: SIGTERM (it restores what it changed), then
# SIGKILL if it has not gone after 5 s.
stop_daemon() {
        [ -n "$D" ] || return 0
        kill -TERM "$D" 2>/dev/null || true
        for _ in $(seq 100); do
                running "$D" || break
                sleep 0.05
        done
        kill -KILL "$D" 2>/dev/null || true
        wait "$D" 2>/dev/null || true
        D=
}

# On every exit path: stop the daemon first (it restores what it changed),
# then every other background job of the script, then remove $T.
cleanup() {
        local p
        stop_daemon
        for p in $(jobs -p); do kill "$p" 2>/dev/null || true; done
        wait 2>/dev/null || true
        rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP
