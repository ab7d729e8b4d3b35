#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/real-audio.sh: does latniced keep real PipeWire on time beside a
# real compile, without real-time threads, and how close does it come to
# PipeWire with them?
#
# Real programs only (bench/audio-lib.sh): Debian's dbus-daemon, PipeWire,
# WirePlumber and pipewire-pulse, started as a desktop session starts them
# (as root, with an XDG runtime and configuration directory of their own),
# the quantum fixed at 128 or 256 samples at 48 kHz (a drop-in removes the
# vm.overrides that raise it to 1024 in a VM); pw-play (native) and paplay
# (PulseAudio protocol) playing into a null sink; make -jN of a generated C
# tree with gcc as the load (default 4 jobs per CPU). The measure is
# PipeWire's own profiler: pw-profiler logs every cycle of the driver, and a
# cycle is late when it started more than 1.3 quanta after the previous one
# or its graph finished after its quantum; the table gives late cycles per
# 10,000.
#
# Conditions: none (no module-rt, so no real-time threads and no nice -11:
# a session without rtkit; no latniced), latniced (the same, with the real
# latniced on the shipped policy, policy/default, started before the
# session as a system daemon is), rt (module-rt makes the data threads
# SCHED_FIFO: the reference). Topologies as in bench/sched-effect.sh:
# flat (everything in the script's session and cgroup), sessions (each
# service, the players and the build in a session of its own), cgroups (a
# tree shaped like systemd's user tree under the cpu controller:
# user@UID.service/session.slice/{dbus,pipewire,wireplumber,pipewire-pulse}
# .service, app.slice/app-player.scope and app.slice/app-build.scope). For
# each round, each topology, each quantum, each condition one run
# (interleaved); the summary gives the medians over the rounds.
#
# usage: bench/real-audio.sh [--duration S] [--rounds N] [--quanta "128 256"]
#            [--topology flat,sessions,cgroups] [--conditions none,latniced,rt]
#            [--jobs N] [--build DIR] [--policy-dir DIR] [--out DIR] [--smoke]
#   --policy-dir: the policy latniced runs with (default: the shipped one,
#            policy/default), to measure a policy of your own against it
#   --smoke: one round of 3 s runs at quantum 128 (checks that the
#            benchmark still runs and prints its table)
#   Exit status 77: PipeWire cannot run a session here (the message says
#   why), or a topology cannot be built (no cpu controller, autogroup off).
set -Eeuo pipefail
trap 'echo "real-audio: ${BASH_SOURCE[0]##*/} line $LINENO: \"$BASH_COMMAND\" failed with status $?" >&2' ERR

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
bench_name=real-audio
# shellcheck source=bench/bench-lib.sh
. "$here/bench-lib.sh"

duration=20
rounds=5
quanta="128 256"
topologies="flat sessions cgroups"
conditions="none latniced rt"
jobs=$((4 * $(nproc)))
build="$root/build"
policy_dir="$root/policy/default"
out=""
smoke=0
warmup=2

while [ $# -gt 0 ]; do
        case "$1" in
        --duration) duration=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --quanta) quanta=${2//,/ }; shift 2 ;;
        --topology) topologies=${2//,/ }; shift 2 ;;
        --conditions) conditions=${2//,/ }; shift 2 ;;
        --jobs) jobs=$2; shift 2 ;;
        --build) build=$(cd "$2" && pwd); shift 2 ;;
        --policy-dir) policy_dir=$(cd "$2" && pwd); shift 2 ;;
        --out) out=$2; shift 2 ;;
        --smoke) smoke=1; shift ;;
        -h|--help) sed -n '2,/^set -E\{0,1\}euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "real-audio: unknown option $1" >&2; exit 2 ;;
        esac
done
if [ $smoke -eq 1 ]; then
        duration=3 rounds=1 quanta=128 warmup=1
fi
bench_positive duration "$duration"
bench_positive rounds "$rounds"
bench_positive jobs "$jobs"
for q in $quanta; do bench_positive quanta "$q"; done
for c in $conditions; do bench_one_of condition "$c" none latniced rt; done
for t in $topologies; do bench_one_of topology "$t" flat sessions cgroups; done

bench_need_root "cgroups, real-time threads, latniced"

# ---- dependencies: Debian's packages, installed when missing ------------------
need=()
command -v pipewire >/dev/null || need+=(pipewire)
command -v pw-play >/dev/null && command -v pw-profiler >/dev/null || need+=(pipewire-bin)
command -v wireplumber >/dev/null || need+=(wireplumber)
command -v pipewire-pulse >/dev/null || need+=(pipewire-pulse)
command -v paplay >/dev/null || need+=(pulseaudio-utils)
command -v dbus-daemon >/dev/null || need+=(dbus)
command -v make >/dev/null || need+=(make)
command -v gcc >/dev/null || need+=(gcc)
if [ ${#need[@]} -gt 0 ]; then
        echo "real-audio: installing ${need[*]}" >&2
        if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null; then
                echo "real-audio: cannot install ${need[*]}: PipeWire cannot run here" >&2
                exit 77
        fi
fi

bench_out_dir
bench_machine "$build"
echo "policy: $policy_dir"
bench_load before | tee "$out/load.txt"

setattr="$build/bench/setattr"
if [ ! -x "$setattr" ]; then
        setattr="$out/setattr"
        cc -O2 -Wall -o "$setattr" "$here/setattr.c"
fi
latniced="$build/daemon/latniced"
case " $conditions " in
*" latniced "*) [ -x "$latniced" ] || { echo "real-audio: $latniced is not built" >&2; exit 2; } ;;
esac

T=$(mktemp -d "${TMPDIR:-/tmp}/latnice-real-audio.XXXXXX")
latniced_pid=""
topo=""
# shellcheck source=bench/cgroup-lib.sh
. "$here/cgroup-lib.sh"
# shellcheck source=bench/audio-lib.sh
. "$here/audio-lib.sh"

stop_latniced() {
        [ -n "$latniced_pid" ] || return 0
        kill -TERM "$latniced_pid" 2>/dev/null || true
        wait "$latniced_pid" 2>/dev/null || true
        latniced_pid=""
}
cleanup() {
        [ -z "$topo" ] || audio_stop "$topo"
        stop_latniced
        [ -z "$cg_top" ] || cg_destroy || true
        rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

audio_prepare $((duration + warmup + 60)) || { echo "real-audio: $au_why" >&2; exit 77; }

# ---- topologies: can they be built here? ----------------------------------------
for t in $topologies; do
        case $t in
        flat) ;;
        sessions)
                if [ "$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null)" != 1 ]; then
                        echo "real-audio: --topology sessions: autogroup is off, sessions are no scheduling groups here" >&2
                        exit 77
                fi
                ;;
        cgroups)
                cg_find || { echo "real-audio: --topology cgroups: $cg_why" >&2; exit 77; }
                cg_sweep
                cg_create "${SUDO_UID:-1000}" || { echo "real-audio: --topology cgroups: $cg_why" >&2; exit 77; }
                for d in $(au_units); do cg_mkgroup "$d" 1 || { echo "real-audio: $cg_why" >&2; exit 77; }; done
                ;;
        *) echo "real-audio: unknown topology \"$t\" (flat, sessions, cgroups)" >&2; exit 2 ;;
        esac
done

# ---- can PipeWire run a session here at all? -------------------------------------
mkdir -p "$T/check"
topo=flat
if ! audio_start flat none 128 "$T/check"; then
        echo "real-audio: PipeWire cannot start a session here: $au_why" >&2
        tail -n 5 "$T/check"/*.log >&2 2>/dev/null || true
        exit 77
fi
audio_stop flat
topo=""

# shellcheck source=bench/audio-run.sh
. "$here/audio-run.sh"

# ---- the runs: interleaved ------------------------------------------------------------
printf 'round\ttopology\tquantum\tcondition\tcycles\tlate\tlate_per_10k\tperiod_us\tforeign\n' >"$out/results.tsv"
: >"$out/attrs.txt"
for r in $(seq "$rounds"); do
        for t in $topologies; do
                for q in $quanta; do
                        for c in $conditions; do
                                run_one "$t" "$q" "$c" "$r"
                        done
                done
        done
done
bench_load after | tee -a "$out/load.txt"

# shellcheck source=bench/audio-summary.sh
. "$here/audio-summary.sh"
summary | tee "$out/results.md"
plot_results
