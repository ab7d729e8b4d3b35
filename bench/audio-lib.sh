# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# bench/audio-lib.sh: one real audio session for bench/real-audio.sh, from
# Debian's own programs: a session D-Bus, PipeWire, WirePlumber and
# pipewire-pulse, started in that order with a runtime and a configuration
# directory of their own, as a desktop session starts them; a native client
# (pw-play) and a PulseAudio client (paplay) playing into a null sink; a real
# compile (make -jN of a generated C tree with gcc) as the load; and
# PipeWire's own profiler (pw-profiler) recording every cycle. Sourced after
# bench/cgroup-lib.sh; uses $setattr, $T (the script's temp dir).
#
#   audio_prepare                 the files every run shares: the module
#                                 directory without module-rt, the WAV file,
#                                 the generated C tree
#   audio_config DIR Q            XDG_CONFIG_HOME of one run: drop-ins that
#                                 remove PipeWire's vm.overrides (which raise
#                                 the quantum to 1024 in a VM), fix the quantum
#                                 at Q and add the null sink
#   audio_place TOPO UNIT         au_wrap: the command prefix that starts a
#                                 process where TOPO puts UNIT
#   audio_start TOPO COND Q DIR   the session, in its place; 1 and au_why on
#                                 failure
#   audio_load TOPO DIR           the players and the build
#   audio_stop TOPO               everything audio_start and audio_load started
#   audio_count LOG               "cycles late period_us" of a profiler log
#
# Without module-rt (conditions none and latniced) PipeWire's module
# directory is a copy of Debian's without libpipewire-module-rt and
# -rtkit: every configuration loads them with "ifexists", so the server,
# WirePlumber, pipewire-pulse and pw-play run without real-time threads and
# without module-rt's nice -11, as for a user without rtkit. With module-rt
# (condition rt) they run as root, so module-rt makes their data threads
# SCHED_FIFO directly.

au_pids=()      # what audio_start and audio_load started, in order
au_wrap=()
au_why=""
au_env=()       # the session's environment, for the clients and pw-cli
au_pwdir=""     # Debian's PipeWire module directory
au_wav=""
au_tree=""

# Extra units of the cgroups topology, beside cgroup-lib.sh's pipewire.service
# and app-build.scope (every systemd user service is a unit of its own).
au_units() {
        echo "$cg_sleeper_slice/dbus.service $cg_sleeper_slice/wireplumber.service" \
                "$cg_sleeper_slice/pipewire-pulse.service $cg_hogs_slice/app-player.scope"
}

au_le32() { # value: 4 bytes little-endian, as printf escapes
        printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 & 255)) $((($1 >> 8) & 255)) \
                $((($1 >> 16) & 255)) $((($1 >> 24) & 255))
}

audio_prepare() { # seconds of sound
        local secs=$1 bytes f d
        au_pwdir=$(pkg-config --variable=moduledir libpipewire-0.3 2>/dev/null || true)
        if [ -z "$au_pwdir" ]; then
                for d in /usr/lib/*/pipewire-0.3 /usr/lib/pipewire-0.3; do
                        [ -e "$d/libpipewire-module-protocol-native.so" ] && au_pwdir=$d && break
                done
        fi
        [ -n "$au_pwdir" ] || { au_why="no PipeWire module directory (libpipewire-module-protocol-native.so)"; return 1; }
        mkdir -p "$T/modules-nort"
        for f in "$au_pwdir"/*; do
                case ${f##*/} in libpipewire-module-rt.so|libpipewire-module-rtkit.so) continue ;; esac
                ln -sf "$f" "$T/modules-nort/"
        done

        # 48 kHz, stereo, 16 bit: noise, long enough for one run.
        au_wav="$T/noise.wav"
        bytes=$((secs * 48000 * 4))
        {
                printf '%b' "RIFF$(au_le32 $((36 + bytes)))WAVEfmt $(au_le32 16)\\x01\\x00\\x02\\x00"
                printf '%b' "$(au_le32 48000)$(au_le32 192000)\\x04\\x00\\x10\\x00data$(au_le32 "$bytes")"
                head -c "$bytes" /dev/urandom
        } >"$au_wav"

        # The compile: 48 generated C files of 40 loop functions each
        # (about 0.4 s of cc1 each) and a shared library of them.
        au_tree="$T/tree"
        mkdir -p "$au_tree"
        local i j
        for i in $(seq 48); do
                for j in $(seq 40); do
                        printf 'int f%d_%d(const int *a, int n)\n{\n\tint s = %d;\n' "$i" "$j" "$j"
                        printf '\tfor (int i = 0; i < n; i++) {\n\t\ts += a[i] * %d + (a[i] >> (i & 7));\n' "$j"
                        printf '\t\tswitch ((s ^ i) & 7) {\n\t\tcase 0: s ^= a[(i + %d) %% n]; break;\n' "$j"
                        printf '\t\tcase 1: s += i * %d; break;\n\t\tcase 3: s -= a[n - 1 - i] << 1; break;\n' "$i"
                        printf '\t\tdefault: s = (s << 3) - s + %d;\n\t\t}\n\t}\n\treturn s;\n}\n' "$j"
                done >"$au_tree/u$i.c"
        done
        printf '%s\n' 'OBJS := $(patsubst %.c,%.o,$(wildcard u*.c))' \
                'libload.so: $(OBJS)' '	gcc -shared -o $@ $(OBJS)' \
                '%.o: %.c' '	gcc -O2 -fPIC -c -o $@ $<' >"$au_tree/Makefile"
}

audio_config() { # dir quantum
        local dir=$1 q=$2
        mkdir -p "$dir/pipewire/pipewire.conf.d" "$dir/pipewire/pipewire-pulse.conf.d"
        # vm.overrides replaced by an empty set: PipeWire applies it only
        # in a VM, and Debian's raises the minimum quantum to 1024 there.
        cat >"$dir/pipewire/pipewire.conf.d/50-latnice-bench.conf" <<EOF
context.properties = {
    vm.overrides = { }
    default.clock.rate = 48000
    default.clock.quantum = $q
    default.clock.min-quantum = $q
    default.clock.max-quantum = $q
}
context.objects = [
    { factory = adapter
      args = {
          factory.name = support.null-audio-sink
          node.name = latnice-bench-null
          media.class = Audio/Sink
          audio.position = [ FL FR ]
          priority.driver = 2000
          priority.session = 2000
      }
    }
]
EOF
        cat >"$dir/pipewire/pipewire-pulse.conf.d/50-latnice-bench.conf" <<EOF
pulse.properties = {
    vm.overrides = { }
    pulse.min.quantum = $q/48000
    pulse.default.req = $q/48000
}
EOF
}

# A process of UNIT (dbus, pipewire, wireplumber, pipewire-pulse, player,
# build) where TOPO puts it: flat, in the script's session and cgroup;
# sessions, a session (so an autogroup) of its own; cgroups, its unit's
# cgroup and a session of its own, joined before it execs, as systemd does.
audio_place() { # topo unit
        local dir
        case $1 in
        flat) au_wrap=() ;;
        sessions) au_wrap=("$setattr" --setsid --) ;;
        cgroups)
                case $2 in
                pipewire) dir=$cg_sleeper ;;
                dbus|wireplumber|pipewire-pulse) dir=$cg_sleeper_slice/$2.service ;;
                player) dir=$cg_hogs_slice/app-player.scope ;;
                build) dir=$cg_hogs ;;
                esac
                au_wrap=(bash -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$dir" "$setattr" --setsid --)
                ;;
        esac
}

# Start one process of UNIT in the background, its output to DIR/UNIT.log.
au_launch() { # topo unit dir cmd...
        local topo=$1 unit=$2 dir=$3
        shift 3
        audio_place "$topo" "$unit"
        setpriv --pdeathsig KILL -- env "${au_env[@]}" "${au_wrap[@]}" "$@" >>"$dir/$unit.log" 2>&1 &
        au_pids+=("$!")
}

# pw-cli's view of the session's nodes.
au_nodes() {
        env "${au_env[@]}" timeout 10 pw-cli ls Node 2>/dev/null
}

# Wait up to 30 s for CHECK to succeed; the wait is for an event, the
# bound only says when to give up.
au_wait() { # what check...
        local what=$1
        shift
        for _ in $(seq 300); do
                "$@" && return 0
                sleep 0.1
        done
        au_why="$what did not happen within 30 s"
        return 1
}
au_has_sink() { au_nodes | grep -q 'node.name = "latnice-bench-null"'; }
au_has_wp() { env "${au_env[@]}" timeout 10 pw-cli ls Client 2>/dev/null | grep -q 'application.name = "WirePlumber"'; }
au_streams() { au_nodes | grep -c 'media.class = "Stream/Output/Audio"' || true; }
au_two_streams() { [ "$(au_streams)" -ge 2 ]; }

audio_start() { # topo cond quantum dir
        local topo=$1 cond=$2 q=$3 dir=$4 run
        run="$dir/xdg-runtime"
        mkdir -p "$run" && chmod 700 "$run"
        audio_config "$dir/xdg-config" "$q"
        au_env=(XDG_RUNTIME_DIR="$run" XDG_CONFIG_HOME="$dir/xdg-config"
                DBUS_SESSION_BUS_ADDRESS="unix:path=$run/bus" PULSE_SERVER="unix:$run/pulse/native"
                DISPLAY= WAYLAND_DISPLAY=)
        [ "$cond" = rt ] || au_env+=(PIPEWIRE_MODULE_DIR="$T/modules-nort")
        au_pids=()
        au_launch "$topo" dbus "$dir" dbus-daemon --session --nofork --nopidfile \
                --address="unix:path=$run/bus"
        au_wait "the session bus at $run/bus" test -S "$run/bus" || return 1
        au_launch "$topo" pipewire "$dir" pipewire
        au_wait "PipeWire's socket $run/pipewire-0" test -S "$run/pipewire-0" || return 1
        au_launch "$topo" wireplumber "$dir" wireplumber
        au_launch "$topo" pipewire-pulse "$dir" pipewire-pulse
        au_wait "the null sink" au_has_sink || return 1
        au_wait "WirePlumber's connection" au_has_wp || return 1
        au_wait "pipewire-pulse's socket $run/pulse/native" test -S "$run/pulse/native" || return 1
}

audio_load() { # topo dir jobs
        local topo=$1 dir=$2 jobs=$3
        # The build: make -jN of the generated tree, again and again (a
        # copy per run, so that no two runs share objects).
        cp -r "$au_tree" "$dir/tree"
        au_launch "$topo" build "$dir" bash -c 'while :; do make -s -j"$1" -C "$0" >/dev/null || exit 1; rm -f "$0"/*.o "$0"/*.so; done' \
                "$dir/tree" "$jobs"
        au_launch "$topo" player "$dir" pw-play --target latnice-bench-null "$au_wav"
        au_launch "$topo" player "$dir" paplay --device=latnice-bench-null "$au_wav"
        au_wait "two playing streams (pw-play, paplay)" au_two_streams
}

# PID and every process below it (from one ps listing).
au_tree_of() { # pid
        ps -e -o pid=,ppid= | awk -v root="$1" '
                { parent[$1] = $2 }
                END {
                        print root
                        do {
                                more = 0
                                for (p in parent)
                                        if ((parent[p] in inside || parent[p] == root) && !(p in inside)) {
                                                inside[p] = 1; more = 1; print p
                                        }
                        } while (more)
                }'
}

audio_stop() { # topo
        local p all=() i
        for ((i = ${#au_pids[@]} - 1; i >= 0; i--)); do
                p=${au_pids[i]}
                mapfile -t -O "${#all[@]}" all < <(au_tree_of "$p")
        done
        for p in "${all[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
        for p in "${au_pids[@]}"; do
                for _ in $(seq 50); do
                        kill -0 "$p" 2>/dev/null || break
                        sleep 0.1
                done
        done
        for p in "${all[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
        for p in "${au_pids[@]}"; do wait "$p" 2>/dev/null || true; done
        if [ "$1" = cgroups ]; then
                local d
                for d in "$cg_sleeper" "$cg_hogs" $(au_units); do
                        for p in $(cat "$d/cgroup.procs" 2>/dev/null); do kill -KILL "$p" 2>/dev/null || true; done
                done
        fi
        au_pids=()
}

# pw-profiler's log: one line per cycle of the driver, its first four
# columns the time since the previous cycle started (µs), the time the
# graph took to finish, the delay and the quantum (µs); pw-profiler writes
# both of the first at 1.4 quanta when either was over 1.3. A cycle is
# late when it started more than 1.3 quanta after the previous one (the
# driver woke late) or finished after its quantum (the graph was late).
audio_count() { # log
        local counts q
        [ -s "$1" ] || { echo "0 0 0"; return 0; }
        counts=$(awk -F'\t' 'NF >= 4 && $4 > 0 { n++; if ($1 > 1.3 * $4 || $2 > $4) late++ }
                END { printf "%d %d", n, late }' "$1")
        # the median quantum, to check it is the one asked for
        q=$(awk -F'\t' 'NF >= 4 && $4 > 0 { print $4 }' "$1" | sort -n |
                awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }')
        echo "$counts $q"
}
