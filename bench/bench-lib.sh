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
