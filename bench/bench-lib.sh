# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# bench/bench-lib.sh: what the effect benchmarks (sched-effect.sh,
# real-audio.sh, frame-effect.sh) share: the checks of their options, the
# check that they run as root, their output directory, and the lines that
# say where and when they ran (the machine, bench/machine.sh; the load
# average before and after). Sourced right after the script sets $here
# (its directory) and bench_name (its name: every message starts with it).
#
#   bench_positive OPTION VALUE    exit 2 unless VALUE is a positive integer
#   bench_one_of WHAT VALUE WORD...
#                                  exit 2 unless VALUE is one of the WORDs
#   bench_need_root WHY            exit 77 unless the script runs as root
#   bench_out_dir                  $out, made: bench/out/NAME-DATE unless
#                                  --out gave one (bench/out/NAME-latest
#                                  points to the newest)
#   bench_machine BUILD            the machine lines, printed and written to
#                                  $out/machine.txt
#   bench_load WHEN                "load WHEN: " and /proc/loadavg
#
# And what the benchmarks that start a latniced of their own share
# (apply-latency.sh, self-change-race.sh, exec-storm.sh):
#
#   bench_daemon_begin LATNICED    root (exit 77), the machine lines of
#                                  LATNICED's build, $T (a temporary directory
#                                  with $T/pol for the policy; removed at
#                                  exit), D= and BUSY=(), and daemon-lib.sh's
#                                  traps (latniced stopped on every exit path)
#   bench_daemon_start LATNICED    latniced on $T/pol (log $T/log, state
#                                  $T/state), under setpriv --pdeathsig TERM
#                                  (it goes with the script even when that is
#                                  SIGKILLed): $D
#   bench_daemon_ready NAME FIELD VALUE SECONDS
#                                  wait until a process named NAME shows
#                                  VALUE in `ps -o FIELD=` (latniced applied
#                                  its rule: it is ready), else exit 1 with
#                                  latniced's log
#   bench_busy_start, bench_busy_stop
#                                  one busy loop per CPU (in BUSY), and their end

# (bench_name and here are the sourcing script's)
# shellcheck disable=SC2154

bench_positive() { # option value
        case $2 in
        '' | *[!0-9]* | 0)
                echo "$bench_name: --$1: expected a positive integer, got \"$2\"" >&2
                exit 2
                ;;
        esac
}

bench_one_of() { # what value word...
        local what=$1 v=$2 w list=""
        shift 2
        for w in "$@"; do
                [ "$v" != "$w" ] || return 0
                list="$list, $w"
        done
        echo "$bench_name: unknown $what \"$v\" (expected ${list#, })" >&2
        exit 2
}

bench_need_root() { # why
        if [ "$(id -u)" -ne 0 ]; then
                echo "$bench_name: must run as root ($1)" >&2
                exit 77
        fi
}

bench_out_dir() {
        if [ -z "$out" ]; then
                out="$here/out/$bench_name-$(date +%Y%m%d-%H%M%S)"
                mkdir -p "$out"
                ln -sfn "$(basename "$out")" "$here/out/$bench_name-latest" 2>/dev/null || true
        fi
        mkdir -p "$out"
}

# The machine it runs on, first, and with the results (docs/benchmarks.md).
bench_machine() { # build dir
        bash "$here/machine.sh" "$1/cli/latnicectl" | tee "$out/machine.txt"
}

bench_load() { # before|after
        echo "load $1: $(cat /proc/loadavg)"
}

bench_daemon_begin() { # latniced
        bench_need_root "it starts latniced"
        bash "$here/machine.sh" "$(dirname "$1")/../cli/latnicectl"
        T=$(mktemp -d)
        BUSY=()
        D=
        # shellcheck source=bench/daemon-lib.sh
        . "$here/daemon-lib.sh"
        mkdir "$T/pol"
}

bench_daemon_start() { # latniced
        setpriv --pdeathsig TERM -- "$1" --bus none --config /dev/null --policy-dir "$T/pol" \
                --log-level notice --state-file "$T/state" 2>"$T/log" &
        D=$!
}

bench_daemon_ready() { # name field value seconds
        local probe ready=0 i
        ( exec -a "$1" sleep 60 ) &
        probe=$!
        for ((i = 0; i < $4 * 20; i++)); do
                [ "$(ps -o "$2"= -p "$probe" | tr -d ' ')" = "$3" ] && { ready=1; break; }
                running "$D" || break
                sleep 0.05
        done
        kill "$probe"
        wait "$probe" 2>/dev/null || true
        if [ $ready -eq 0 ]; then
                echo "$bench_name: latniced did not apply its rule within $4 s:" >&2
                cat "$T/log" >&2
                exit 1
        fi
}

bench_busy_start() {
        local i
        for ((i = 0; i < $(nproc); i++)); do
                setpriv --pdeathsig KILL -- bash -c 'while :; do :; done' &
                BUSY+=($!)
        done
}

bench_busy_stop() {
        local p
        for p in "${BUSY[@]}"; do kill "$p"; done
        BUSY=()
}
