# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# bench/audio-run.sh: one run of bench/real-audio.sh (a topology, a
# quantum, a condition, a round): latniced if the condition has it, the
# session, the players and the build, pw-profiler, the scheduler
# attributes every thread of the session ran with (read back from /proc),
# and one line of results.tsv. Sourced by bench/real-audio.sh after
# bench/audio-lib.sh.
#
#   run_one TOPO QUANTUM COND ROUND

# Real-time runtime for the groups whose threads get real time (module-rt's
# SCHED_FIFO in the rt condition, latniced's grant in the latniced one): a
# kernel with RT group scheduling (v1 cpu.rt_runtime_us) refuses real time
# below the root without it. It is the machine's configuration, so every
# condition runs with it (without it latniced's grant is refused, and says
# so in its log). Parents first when granting, children first when taking
# it back. A share of what the root leaves, so that other runs on the
# machine can have some too.
ra_rt_groups() {
        local d
        for d in "${cg_rt_branch[@]:0:4}"; do echo "$d 300000"; done
        echo "$cg_sleeper_slice 250000"
        echo "$cg_sleeper 150000"
        echo "$cg_sleeper_slice/pipewire-pulse.service 50000"
        echo "$cg_sleeper_slice/wireplumber.service 50000"
        echo "$cg_hogs_slice 50000"
        echo "$cg_hogs_slice/app-player.scope 50000"
}
ra_rt_grant() {
        local d v
        while read -r d v; do
                [ -e "$d/cpu.rt_runtime_us" ] || return 0
                cg_write "$d/cpu.rt_runtime_us" "$v" || return 1
        done < <(ra_rt_groups)
}
ra_rt_reset() {
        local d v
        while read -r d v; do
                [ -e "$d/cpu.rt_runtime_us" ] || return 0
                cg_write "$d/cpu.rt_runtime_us" 0 || true
        done < <(ra_rt_groups | tac)
}

# Every unit back to the default weight, not idle (latniced may have
# changed them; it restores them when it stops, this makes sure).
ra_reset_groups() {
        local d
        cg_reset || true
        for d in $(au_units); do
                [ ! -e "$d/cpu.idle" ] || cg_write "$d/cpu.idle" 0 || true
                cg_write "$d/$cg_weight" "$cg_weight_default" || true
        done
}

start_latniced() { # dir
        # --pdeathsig: it goes with this script even if the script is SIGKILLed.
        setpriv --pdeathsig TERM -- "$latniced" --foreground --bus none \
                --policy-dir "$policy_dir" --state-file "$1/latniced.state" \
                >>"$out/latniced.log" 2>&1 &
        latniced_pid=$!
}

# The main thread of the session's pipewire: its nice, from /proc.
ra_pw_nice() {
        local p rest a
        for p in $(au_tree_of "${au_pids[1]}"); do
                { read -r rest <"/proc/$p/stat"; } 2>/dev/null || continue
                case $rest in *"(pipewire) "*) ;; *) continue ;; esac
                read -ra a <<<"${rest##*) }"
                echo "${a[16]}"
                return 0
        done
        return 1
}
ra_latniced_applied() { [ "$(ra_pw_nice)" = -11 ]; }

# ra_attrs into FILE, read again until it holds a cc1: a cc1 lives about
# 0.4 s, and one seen compiling may be gone by the time it is read.
ra_attrs_cc1() { # prefix file
        ra_attrs "$1" >"$2"
        grep -q " cc1 pid=" "$2"
}

# One line per process of the run (the session, the players, make, gcc's
# cc1; two of each name at most): its autogroup, its cgroup in the v1 cpu
# hierarchy (else cgroup2), and each thread's policy/rt priority/nice, as
# the kernel has them.
ra_attrs() { # prefix
        local p t rest a line n=0 comm ag cg x pol
        declare -A seen=()
        for p in $(for r in "${au_pids[@]}"; do au_tree_of "$r"; done); do
                { read -r rest <"/proc/$p/stat"; } 2>/dev/null || continue
                comm=${rest#*(}
                comm=${comm%%) *}
                case $comm in pipewire|pipewire-pulse|wireplumber|pw-play|paplay|make|cc1|dbus-daemon) ;; *) continue ;; esac
                n=${seen[$comm]:-0}
                [ "$n" -lt 2 ] || continue
                seen[$comm]=$((n + 1))
                # (a cc1 may be gone by now: every read may fail)
                ag=$( { read -r x _ <"/proc/$p/autogroup" && echo "$x"; } 2>/dev/null || true)
                cg=$(awk -F: '$2 ~ /(^|,)cpu(,|$)/ { print $3; f = 1; exit } $1 == 0 { v = $3 }
                        END { if (!f) print v }' "/proc/$p/cgroup" 2>/dev/null || true)
                line="$1 $comm pid=$p ag=${ag:-?} cg=${cg:-?}"
                for t in /proc/"$p"/task/*; do
                        { read -r rest <"$t/stat"; } 2>/dev/null || continue
                        read -ra a <<<"${rest##*) }"
                        case ${a[38]} in 0) pol=other ;; 1) pol=fifo ;; 2) pol=rr ;; 3) pol=batch ;; 5) pol=idle ;; *) pol=${a[38]} ;; esac
                        line="$line ${t##*/}=$pol/${a[37]}/${a[16]}"
                done
                echo "$line"
        done
}

# Without latniced (none, rt), did the processes keep what they started
# with? Nothing of this run sets a nice or a policy on make and cc1, nor
# (without module-rt) on the session's services: a change there is another
# latniced's (a machine shared with other runs of latnice), and the run
# does not measure its condition.
ra_untouched() { # cond attrs.txt
        local names="make|cc1"
        case $1 in
        latniced) return 0 ;;
        none) names="$names|pipewire|pipewire-pulse|wireplumber" ;;
        esac
        ! grep -E " ($names) pid=" "$2" | grep -Eo "[0-9]+=[a-z]+/[0-9]+/-?[0-9]+" | grep -qv "=other/0/0$"
}

run_one() { # topo quantum cond round
        local t=$1 q=$2 c=$3 r=$4 dir res
        dir="$T/runs/$t-$q-$c-$r"
        mkdir -p "$dir"
        echo "# round $r: $t, quantum $q, $c" >&2
        if [ "$t" = cgroups ]; then
                ra_reset_groups
                if ! ra_rt_grant; then
                        echo "real-audio: cannot grant real-time runtime in the cgroup tree" >&2
                        ra_rt_reset
                        return 0
                fi
        fi
        [ "$c" != latniced ] || start_latniced "$dir"
        topo=$t
        if ! audio_start "$t" "$c" "$q" "$dir" || ! audio_load "$t" "$dir" "$jobs"; then
                echo "real-audio: $t $q $c round $r: $au_why (logs: $out/failed-$t-$q-$c-$r)" >&2
                cp -r "$dir" "$out/failed-$t-$q-$c-$r" 2>/dev/null || true
                rm -rf "$out/failed-$t-$q-$c-$r/tree"
                audio_stop "$t"
                topo=""
                stop_latniced
                [ "$t" != cgroups ] || { ra_rt_reset; ra_reset_groups; }
                return 0
        fi
        if [ "$c" = latniced ] && ! au_wait "latniced's nice -11 on pipewire" ra_latniced_applied; then
                echo "real-audio: WARNING: $t $q latniced round $r: pipewire runs at nice $(ra_pw_nice), not the audio profile's -11" >&2
        fi
        # The attributes first, then the warm-up: reading them forks where
        # the script runs, which in the cgroups topology is above the whole
        # tree and gets ahead of all of it (bench/README.md, sched-effect),
        # so not while pw-profiler records.
        au_wait "a cc1 of the build in the attributes read" ra_attrs_cc1 "$t $q $c $r" "$dir/attrs.txt" ||
                echo "real-audio: WARNING: $t $q $c round $r: $au_why" >&2
        cat "$dir/attrs.txt" >>"$out/attrs.txt"
        sleep "$warmup"
        (cd "$dir" && exec env "${au_env[@]}" pw-profiler -o profiler.log >profiler.out 2>&1) &
        local prof=$!
        sleep "$duration"
        kill -INT "$prof" 2>/dev/null || true
        wait "$prof" 2>/dev/null || true
        audio_stop "$t"
        topo=""
        stop_latniced
        [ "$t" != cgroups ] || { ra_rt_reset; ra_reset_groups; }
        res=$(audio_count "$dir/profiler.log")
        set -- $res
        if [ "$1" -eq 0 ]; then
                echo "real-audio: $t $q $c round $r: pw-profiler logged no cycle ($(tail -n 2 "$dir/profiler.out" | tr '\n' ' '))" >&2
                return 0
        fi
        local foreign=0
        if ! ra_untouched "$c" "$dir/attrs.txt"; then
                foreign=1
                echo "real-audio: WARNING: $t $q $c round $r: another latniced changed the processes of this run (attrs.txt); the run is left out of the medians" >&2
        fi
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "$t" "$q" "$c" "$1" "$2" \
                "$(awk -v l="$2" -v n="$1" 'BEGIN { printf "%.1f", l * 10000 / n }')" "$3" "$foreign" >>"$out/results.tsv"
        mkdir -p "$out/profiles"
        gzip -c "$dir/profiler.log" >"$out/profiles/$t-$q-$c-$r.log.gz"
        rm -rf "$dir"
}
