#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/boost-budget.sh: how much CPU do the tasks the boosts are for use,
# per thread and per process, under load? The boost budget (latniced.conf(5),
# BoostBudgetShare= and BoostBudgetWindow=) must sit well above it.
#
# Each scenario starts real programs as root with latniced (the shipped
# profiles, with rules that match only what the script starts: audio for the
# sound server, display for the compositor and Xvfb, game for the clients;
# budget off so nothing is taken back while measuring), beside HOGS nice-0 CPU hogs (stress-ng), and
# reads /proc/PID/task/TID/schedstat (the run time in ns) every 0.5 s for
# DURATION seconds. It reports, per thread and per process (all its threads
# together), the mean share of one CPU, and the highest share over any 1 s
# and any WINDOW s stretch (sliding, from the samples).
#   audio       pipewire, wireplumber and pipewire-pulse (quantum forced to
#               256 frames at 48 kHz, 5.3 ms; the VM override of the minimum
#               quantum removed), pw-play and paplay into a null sink
#   compositor  weston, headless backend (pixman, 1920x1080 at 60 Hz), with
#               weston-simple-shm and weston-simple-egl drawing continuously
#               (Mesa llvmpipe through wl_shm), paced by frame callbacks
#   game        glxgears under Xvfb (llvmpipe), uncapped (no vsync): the
#               client renders, Xvfb takes its frames
#
# usage: bench/boost-budget.sh LATNICED LN-GETATTR [--duration S] [--window S]
#            [--hogs N] [--scenarios a,b,c] [--out DIR]
# Needs root, pipewire, pipewire-bin, wireplumber, pipewire-pulse,
# pulseaudio-utils, weston, xvfb, mesa-utils, stress-ng.
set -euo pipefail

LATNICED=${1:?latniced path}
GETATTR=${2:?ln-getattr path}
shift 2
duration=20
window=10
hogs=2
scenarios="audio compositor game"
out=""
while [ $# -gt 0 ]; do
        case $1 in
        --duration) duration=$2; shift 2 ;;
        --window) window=$2; shift 2 ;;
        --hogs) hogs=$2; shift 2 ;;
        --scenarios) scenarios=${2//,/ }; shift 2 ;;
        --out) out=$2; shift 2 ;;
        *) echo "unknown argument $1" >&2; exit 2 ;;
        esac
done
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root"; exit 77; }
# The machine it runs on, first (bench/machine.sh, docs/benchmarks.md).
bash "$(dirname "$0")/machine.sh" "$(dirname "$LATNICED")/../cli/latnicectl"
for p in dbus-daemon pipewire wireplumber pipewire-pulse pw-play paplay pactl pw-metadata weston \
        weston-simple-shm weston-simple-egl Xvfb glxgears stress-ng; do
        command -v "$p" >/dev/null || { echo "SKIP: $p is not installed"; exit 77; }
done
SRC=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d /tmp/boost-budget.XXXXXX)
D=
# shellcheck source=bench/daemon-lib.sh
. "$SRC/bench/daemon-lib.sh"
out=${out:-$T/out}
mkdir -p "$out" "$T/policy" "$T/run" "$T/config/pipewire/pipewire.conf.d"
chmod 0700 "$T/run"

# The shipped profiles, and rules like the shipped ones that match only what
# this script starts (argv[0] lnb-NAME: on a shared machine nothing else is
# touched; argv[0] is read at the exec, so the rules apply at once).
cp "$SRC/policy/default/10-profiles.policy" "$T/policy/"
cat >"$T/policy/90-bench.policy" <<'P'
[Rule bench-audio]
Match = name:lnb-pipewire || name:lnb-pipewire-pulse || name:lnb-wireplumber
Profile = audio

[Rule bench-display]
Match = name:lnb-weston || name:lnb-Xvfb
Profile = display

[Rule bench-render]
Match = name:lnb-glxgears || name:lnb-weston-simple-egl || name:lnb-weston-simple-shm
Profile = game
P
printf '[Daemon]\nBoostBudgetShare = off\n' >"$T/latniced.conf"
"$LATNICED" --foreground --bus none --config "$T/latniced.conf" --policy-dir "$T/policy" \
        --state-file "$T/state" 2>"$out/latniced.log" &
D=$!
for _ in $(seq 100); do grep -q "Ready:" "$out/latniced.log" && break; sleep 0.1; done

export XDG_RUNTIME_DIR=$T/run XDG_CONFIG_HOME=$T/config
# PipeWire raises its minimum quantum to 1024 in a VM: not on a desktop.
cat >"$T/config/pipewire/pipewire.conf.d/90-bench.conf" <<'C'
context.properties = {
    default.clock.min-quantum = 32
    vm.overrides = { default.clock.min-quantum = 32 }
}
C

# Sample the threads of PIDS every 0.5 s for DURATION s; print the table.
measure() { # label pid...
        local label=$1
        shift
        python3 - "$label" "$duration" "$window" "$@" <<'PY' | tee -a "$out/results.txt"
import os, sys, time
label, duration, window = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
pids = [int(p) for p in sys.argv[4:]]
step = 0.5
def read():
    r = {}
    for pid in pids:
        try:
            comm = open(f"/proc/{pid}/comm").read().strip()
            for tid in os.listdir(f"/proc/{pid}/task"):
                try:
                    ns = int(open(f"/proc/{pid}/task/{tid}/schedstat").read().split()[0])
                    name = open(f"/proc/{pid}/task/{tid}/comm").read().strip()
                except OSError:
                    continue
                r[(pid, comm, int(tid), name)] = ns
        except OSError:
            pass
    return r
samples = []
t0 = time.monotonic()
while True:
    samples.append((time.monotonic(), read()))
    if samples[-1][0] - t0 >= duration:
        break
    time.sleep(step)
def shares(key_of):
    series = {}
    for t, r in samples:
        acc = {}
        for k, ns in r.items():
            kk = key_of(k)
            acc[kk] = acc.get(kk, 0) + ns
        for kk, ns in acc.items():
            series.setdefault(kk, []).append((t, ns))
    res = {}
    for kk, s in series.items():
        def peak(w):
            best = 0.0
            for i in range(len(s)):
                for j in range(i + 1, len(s)):
                    if s[j][0] - s[i][0] >= w - 1e-3:
                        best = max(best, (s[j][1] - s[i][1]) / 1e9 / (s[j][0] - s[i][0]))
                        break
            return best
        span = s[-1][0] - s[0][0]
        mean = (s[-1][1] - s[0][1]) / 1e9 / span if span > 0 else 0
        res[kk] = (mean, peak(1.0), peak(window))
    return res
print(f"== {label}: {len(pids)} process(es), {duration:.0f} s, window {window:.0f} s")
print(f"{'process/thread':<40} {'mean':>7} {'max 1s':>7} {'max '+str(int(window))+'s':>7}")
procs = shares(lambda k: (k[0], k[1]))
threads = shares(lambda k: (k[0], k[1], k[2], k[3]))
for (pid, comm), (m, p1, pw) in sorted(procs.items()):
    print(f"{comm+' '+str(pid)+' (all threads)':<40} {m*100:6.1f}% {p1*100:6.1f}% {pw*100:6.1f}%")
    for (tp, tc, tid, name), (tm, t1, tw) in sorted(threads.items()):
        if tp == pid and (tw >= 0.005 or t1 >= 0.01):
            print(f"{'  '+name+' '+str(tid):<40} {tm*100:6.1f}% {t1*100:6.1f}% {tw*100:6.1f}%")
PY
}

nice_of() { "$GETATTR" "$1" 2>/dev/null | tr ' ' '\n' | sed -n 's/^nice=//p'; }

stress-ng --cpu "$hogs" --cpu-method loop --quiet >/dev/null 2>&1 &
{
        echo "# boost-budget $(date -u +%FT%TZ) $(uname -r), $(nproc) CPU(s), $hogs nice-0 hogs"
        echo "# (share of one CPU; a process line sums its threads)"
} | tee "$out/results.txt"

STARTED=()
bg() { # command... (argv[0] lnb-COMMAND; its output to $out/COMMAND.log)
        bash -c 'exec -a "lnb-$0" "$0" "$@"' "$@" >>"$out/$(basename "$1").log" 2>&1 &
        STARTED+=($!)
}
stop_started() {
        local p
        for p in "${STARTED[@]}"; do kill "$p" 2>/dev/null || true; done
        for p in "${STARTED[@]}"; do wait "$p" 2>/dev/null || true; done
        STARTED=()
}

scenario_audio() {
        python3 -c '
import math, struct, wave, sys
w = wave.open(sys.argv[1], "wb"); w.setnchannels(2); w.setsampwidth(2); w.setframerate(48000)
f = [struct.pack("<hh", v, v) for v in (int(8000 * math.sin(i * 0.0575)) for i in range(48000))]
w.writeframes(b"".join(f) * int(sys.argv[2]))' "$T/tone.wav" $((duration + 15))
        # WirePlumber needs a session bus (it links the streams).
        dbus-daemon --session --nofork --address="unix:path=$T/run/bus" >/dev/null 2>&1 &
        STARTED+=($!)
        export DBUS_SESSION_BUS_ADDRESS="unix:path=$T/run/bus"
        sleep 0.5
        # (-c: PipeWire takes its configuration's name from argv[0].)
        bg pipewire -c pipewire.conf
        sleep 1
        bg wireplumber
        bg pipewire-pulse -c pipewire-pulse.conf
        sleep 2
        pactl load-module module-null-sink sink_name=lnbench >/dev/null
        pactl set-default-sink lnbench || true
        pw-metadata -n settings 0 clock.force-quantum 256 >/dev/null
        bg pw-play --target=lnbench --latency=256/48000 "$T/tone.wav"
        bg paplay --device=lnbench --latency-msec=10 "$T/tone.wav"
        sleep 3
        local pw wp pp
        pw=${STARTED[1]} wp=${STARTED[2]} pp=${STARTED[3]}
        echo "# nice: pipewire $(nice_of "$pw"), wireplumber $(nice_of "$wp"), pipewire-pulse $(nice_of "$pp")" |
                tee -a "$out/results.txt"
        measure "audio (quantum 256 at 48 kHz, pw-play + paplay)" "$pw" "$wp" "$pp" \
                "${STARTED[4]}" "${STARTED[5]}"
        pactl list short sinks | sed 's/^/# sink: /' >>"$out/results.txt" || true
        stop_started
        unset DBUS_SESSION_BUS_ADDRESS
}

scenario_compositor() {
        bg weston --backend=headless-backend.so --width=1920 --height=1080 \
                --socket=wayland-lnb --idle-time=0
        for _ in $(seq 100); do [ -S "$XDG_RUNTIME_DIR/wayland-lnb" ] && break; sleep 0.1; done
        WAYLAND_DISPLAY=wayland-lnb bg weston-simple-shm
        WAYLAND_DISPLAY=wayland-lnb LIBGL_ALWAYS_SOFTWARE=1 bg weston-simple-egl -f
        sleep 3
        echo "# nice: weston $(nice_of "${STARTED[0]}"), simple-shm $(nice_of "${STARTED[1]}"), simple-egl $(nice_of "${STARTED[2]}")" |
                tee -a "$out/results.txt"
        measure "compositor (weston headless 1920x1080, simple-shm + simple-egl)" "${STARTED[@]}"
        echo "# nice after: weston $(nice_of "${STARTED[0]}")" | tee -a "$out/results.txt"
        stop_started
}

scenario_game() {
        bg Xvfb :93 -screen 0 1280x720x24 -nolisten tcp
        sleep 2
        DISPLAY=:93 bg glxgears
        sleep 3
        echo "# nice: glxgears $(nice_of "${STARTED[1]}"), Xvfb $(nice_of "${STARTED[0]}")" |
                tee -a "$out/results.txt"
        grep -q "lnb-glxgears" /proc/"${STARTED[1]}"/cmdline || echo "# glxgears not running?"
        measure "game (glxgears under Xvfb, llvmpipe, uncapped)" "${STARTED[1]}" "${STARTED[0]}"
        stop_started
}

for s in $scenarios; do
        "scenario_$s"
done
echo "results: $out/results.txt"
