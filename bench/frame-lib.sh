# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# bench/frame-lib.sh: the app scopes, the processes, the focus and the runs
# of bench/frame-effect.sh. Sourced after bench/cgroup-lib.sh (cg_find has
# run) with $uid, $gid, $v2, $out, $setattr, $frame_loop, $latniced,
# $policy, $policy_nofocus, $want_weight, $duration, $warmup, $work, $jobs, $hogs set.
#
#   fe_make_trees       the two app scopes under the cpu controller, below
#                       $cg_top (cg_create's place and name), and the same
#                       scopes in cgroup2 ($f_game, $f_load) when the cpu
#                       controller is v1: latniced follows the focus there
#   fe_make_build_dir   the user's build: a Makefile compiling C files
#   fe_run LOAD COND ROUND   one run: load, frame loop, focus, latniced,
#                       verification, recording; one line of runs.tsv

cg_game=""      # the scopes under the cpu controller
cg_load=""
f_game=""       # the same scopes in cgroup2, where the focus attribute is
f_load=""
mirror_top=""   # the cgroup2 tree when it is not $cg_top
user_slice=""   # --user-slice for latniced: the tree's user.slice in cgroup2
work_dir=""
load_objects=0  # C files compiled per make pass

fe_make_trees() {
        local unit=user.slice/user-$uid.slice/user@$uid.service rel d
        cg_sweep
        # The cgroup2 trees of killed runs too (cg_sweep reads $cg_mount).
        [ "$cg_kind" = v2 ] || cg_mount=$v2 cg_sweep
        cg_top=$cg_mount/latnice-bench-$$
        d=$cg_top
        cg_mkgroup "$d" 0 || return 1
        for rel in ${unit//\// } app.slice; do
                d=$d/$rel
                cg_mkgroup "$d" 0 || return 1
        done
        cg_game=$d/app-game-$$.scope
        cg_load=$d/app-build-$$.scope
        cg_mkgroup "$cg_game" 1 && cg_mkgroup "$cg_load" 1 || return 1
        user_slice=/latnice-bench-$$/user.slice
        if [ "$cg_kind" = v2 ]; then
                f_game=$cg_game f_load=$cg_load
                return 0
        fi
        mirror_top=$v2/latnice-bench-$$
        f_game=$mirror_top/$unit/app.slice/app-game-$$.scope
        f_load=$mirror_top/$unit/app.slice/app-build-$$.scope
        if ! mkdir -p "$f_game" "$f_load"; then
                cg_why="cannot create the app scopes in cgroup2 below $mirror_top"
                return 1
        fi
}

# A small C project the user builds over and over: $load_objects files
# (the benchmark's own standalone sources, round robin), one line in
# done.log per object compiled.
fe_make_build_dir() {
        local srcs=(sleeper.c setattr.c frame-loop.c) i
        work_dir=$(mktemp -d /var/tmp/latnice-frame-effect.XXXXXX)
        load_objects=$((4 * jobs))
        for i in "${!srcs[@]}"; do cp "$here/${srcs[i]}" "$work_dir/s$i.c"; done
        {
                echo "OBJ := \$(patsubst %,o/%.o,\$(shell seq $load_objects))"
                echo "all: \$(OBJ)"
                echo "o/%.o:"
                printf '\t@mkdir -p o && gcc -O2 -c s$$(($* %% %d)).c -o $@ && echo >>done.log\n' "${#srcs[@]}"
        } >"$work_dir/Makefile"
        : >"$work_dir/done.log"
        chown -R "$uid:$gid" "$work_dir"
}

fe_compiled() {
        wc -l <"$work_dir/done.log"
}

# Run CMD... as the user, in scope WHO (game or load) of both hierarchies,
# in a session of its own (as systemd starts a scope's process), output
# to FILE; its pid in $spawned.
fe_spawn() { # who file cmd...
        local v1dir=$cg_game v2dir=$f_game file=$2
        [ "$1" = game ] || { v1dir=$cg_load v2dir=$f_load; }
        shift 2
        # (in the user's build directory: stress-ng wants a writable one)
        (cd "$work_dir" && exec bash -c 'echo $$ >"$0/cgroup.procs" &&
                { [ "$0" = "$1" ] || echo $$ >"$1/cgroup.procs"; } &&
                shift && exec "$@"' "$v1dir" "$v2dir" "$setattr" --setsid -- \
                setpriv --reuid="$uid" --regid="$gid" --clear-groups -- "$@") >>"$file" 2>&1 &
        spawned=$!
        pids+=("$spawned")
}

# The load: a build loop that ends with this script (the user cannot signal
# it, so it looks), or stress-ng hogs with a time limit.
fe_start_load() { # load
        case $1 in
        build)
                fe_spawn load "$out/load.log" bash -c \
                        'while [ -d "/proc/$0" ]; do make -s -B -j"$1" -C "$2" >/dev/null 2>&1 || true; done' \
                        "$$" "$jobs" "$work_dir"
                ;;
        hogs)
                fe_spawn load "$out/load.log" stress-ng --cpu "$hogs" --keep-name -t $((duration + 1200))
                ;;
        esac
        disown # (killed with its scope: no word from bash about it)
}

fe_kill_scope() { # dir
        local p
        for _ in $(seq 100); do
                p=$(cat "$1/cgroup.procs" 2>/dev/null)
                [ -n "$p" ] || return 0
                # shellcheck disable=SC2086
                kill -KILL $p 2>/dev/null || true
                sleep 0.05
        done
        echo "frame-effect: processes left in $1: $(cat "$1/cgroup.procs" | tr '\n' ' ')" >&2
        return 1
}

start_latniced() { # policy-dir
        # --pdeathsig: it goes with this script even if the script is SIGKILLed.
        setpriv --pdeathsig TERM -- "$latniced" --foreground --bus none --policy-dir "$1" \
                --state-file "$out/latniced.state" --user-slice "$user_slice" \
                >>"$out/latniced.log" 2>&1 &
        latniced_pid=$!
}

# SIGTERM (latniced gives back what it changed), SIGKILL after 15 s: one
# that hangs before its event loop runs never sees the SIGTERM (the next
# one restores from the state file).
stop_latniced() {
        [ -n "$latniced_pid" ] || return 0
        kill -TERM "$latniced_pid" 2>/dev/null || true
        for _ in $(seq 150); do
                kill -0 "$latniced_pid" 2>/dev/null || break
                sleep 0.1
        done
        kill -KILL "$latniced_pid" 2>/dev/null || true
        wait "$latniced_pid" 2>/dev/null || true
        latniced_pid=""
}

# latniced has not said "Ready:" after 60 s: note where its threads wait
# (hangs.txt, counted in the output), stop it and start another one.
fe_latniced_hung() { # tag policy-dir
        local t
        {
                echo "$1: latniced $latniced_pid not ready after 60 s; its threads wait in:"
                for t in /proc/"$latniced_pid"/task/*; do
                        echo "  ${t##*/} $(cat "$t/wchan" 2>/dev/null)"
                done
        } >>"$out/hangs.txt"
        echo "frame-effect: WARNING: $1: latniced did not start within 60 s (hangs.txt); starting it again" >&2
        stop_latniced
        start_latniced "$2"
}

# The focus as the desktop writes it: "-1" on the focused app's scope; on
# the other's, the CLOCK_MONOTONIC microseconds at which it lost the focus,
# which "lost" puts $fe_lost_ago s back: the user switched from the build to
# the game a while ago, so the shipped rule (unfocused:>10s: an app keeps
# its weight for the first 10 s after it lost the focus) holds from the
# start. "-": no attribute.
fe_lost_ago=60
fe_set_focus() { # game-value load-value
        "$py" -c 'import os, sys, time
lost = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000 - int(sys.argv[1]) * 1000000
for path, v in ((sys.argv[2], sys.argv[3]), (sys.argv[4], sys.argv[5])):
    if v == "-":
        try:
            os.removexattr(path, "user.xdg.inactive-since")
        except OSError:
            pass
    else:
        os.setxattr(path, "user.xdg.inactive-since", (str(lost) if v == "lost" else v).encode())' \
                "$fe_lost_ago" "$f_game" "$1" "$f_load" "$2"
}

# Back to the defaults: no idle flag, the default weight (latniced gives
# back what it changed; this covers a run it did not finish).
fe_reset_knobs() {
        local d
        for d in "$cg_game" "$cg_load"; do
                [ ! -e "$d/cpu.idle" ] || cg_write "$d/cpu.idle" 0 || return 1
                cg_write "$d/$cg_weight" "$cg_weight_default" || return 1
        done
}

# "weight=W idle=I": a scope's knobs as the kernel shows them.
fe_scope_knobs() { # dir
        local w i="-"
        w=$(<"$1/$cg_weight")
        [ ! -e "$1/cpu.idle" ] || i=$(<"$1/cpu.idle")
        echo "${cg_weight#cpu.}=$w idle=$i"
}

# What the tasks of a scope run with, counted by name, policy and nice
# ("cc1:idle/19x3 make:idle/19x1"), read without forks (bash builtins).
fe_scope_tasks() { # dir
        local p line comm rest f pol k
        local -A n=()
        for p in $(<"$1/cgroup.procs"); do
                { read -r line <"/proc/$p/stat"; } 2>/dev/null || continue
                comm=${line#*(}
                comm=${comm%)*}
                rest=${line##*) }
                read -ra f <<<"$rest"
                # f[0] is field 3 (state): nice is field 19, policy field 41
                case ${f[38]} in 0) pol='other' ;; 3) pol='batch' ;; 5) pol='idle' ;; *) pol=${f[38]} ;; esac
                n["$comm:$pol/${f[16]}"]=$((${n["$comm:$pol/${f[16]}"]:-0} + 1))
        done
        for k in "${!n[@]}"; do printf '%sx%s ' "$k" "${n[$k]}"; done
}

# Is the kernel showing what COND asks for? The unfocused app's scope has
# the shipped policy's unfocused weight (or is idle), the focused one's has
# not; off and nofocus: the frame loop's at the default (nofocus: and the
# load's not at the unfocused weight). Also: the frame loop runs as the
# user, in its scope in both hierarchies.
fe_check() { # cond frame-pid
        local gw lw cg
        gw=$(<"$cg_game/$cg_weight")
        lw=$(<"$cg_load/$cg_weight")
        # An idle scope (a class rule's CPUIdle=, background-idle for a
        # build's compilers) has less than any weight: it counts as lower.
        [ "$(cat "$cg_load/cpu.idle" 2>/dev/null)" != 1 ] || lw=idle
        # the frame loop itself (not the shell or setpriv before its exec)
        [ "$(cat "/proc/$2/comm" 2>/dev/null)" = frame-loop ] || return 1
        cg=$(<"/proc/$2/cgroup") || return 1
        [[ $cg == *":${cg_game#"$cg_mount"}"* && $cg == *"::${f_game#"$v2"}"* ]] || return 1
        [ "$(stat -c %u "/proc/$2" 2>/dev/null)" = "$uid" ] || return 1
        # the load runs (as the user: its first process is)
        cg=$(<"$cg_load/cgroup.procs")
        [ -n "$cg" ] && [ "$(stat -c %u "/proc/${cg%%$'\n'*}" 2>/dev/null)" = "$uid" ] || return 1
        case $1 in
        # (the load's scope: see fe_run; another latniced may act on it)
        off) [ "$gw" = "$cg_weight_default" ] ;;
        nofocus) [ "$gw" = "$cg_weight_default" ] && [ "$lw" != "$want_weight" ] ;;
        focused) [[ $lw == "$want_weight" || $lw == idle ]] && [ "$gw" != "$want_weight" ] ;;
        unfocused) [ "$gw" = "$want_weight" ] && [ "$lw" != "$want_weight" ] ;;
        esac
}

# The frame loop's nice and the scopes' knobs and tasks: one line.
fe_knobs() { # frame-pid
        local line rest
        { read -r line <"/proc/$1/stat"; } 2>/dev/null || line="?"
        rest=${line##*) }
        read -ra f <<<"$rest"
        echo "game: $(fe_scope_knobs "$cg_game") nice=${f[16]:-?} | load: $(fe_scope_knobs "$cg_load") tasks: $(fe_scope_tasks "$cg_load")"
}

# Did something other than this script's latniced configure the run? A
# line of fe_knobs without it (the off condition): a scope that is idle or
# not at the default weight, a task of the load with another policy than
# SCHED_OTHER or a nice, the frame loop with a nice. Another latniced on the
# machine (a test, a session's) acts on every process; such a run is left
# out of the medians (runs.tsv's last column, counted below the table).
fe_foreign() { # knobs-line
        local k=$1 w
        [[ $k != *" idle=1"* ]] || return 0
        [[ ! $k =~ :(batch|idle|[0-9]+)/ && ! $k =~ /-?[1-9][0-9]*x && ! $k =~ nice=-?[1-9] ]] || return 0
        for w in $(grep -o "${cg_weight#cpu.}=[0-9]*" <<<"$k"); do
                [ "${w#*=}" = "$cg_weight_default" ] || return 0
        done
        return 1
}

# Every process of both scopes runs as the user (a spawn is root until
# setpriv): latniced leaves alone a user's cgroup that holds another
# user's process, and does not look again when that process changes uid.
fe_scopes_users() {
        local p u
        for p in $(cat "$cg_game/cgroup.procs" "$cg_load/cgroup.procs"); do
                u=$(stat -c %u "/proc/$p" 2>/dev/null) || continue
                [ "$u" = "$uid" ] || return 1
        done
}

fe_run() { # load cond round
        local load=$1 cond=$2 round=$3 game_v load_v fl res n0 n1 knobs before after i ok=0 foreign=0 ready pol t0
        local tag=$load.$cond.$round
        fe_reset_knobs || exit 1
        fe_start_load "$load"
        # A helper process of the game (a launcher, a second process): it
        # holds what latniced set on the game's scope after the frame loop
        # has ended, so the knobs read after the run are the run's.
        fe_spawn game /dev/null sleep 100000
        disown
        mkdir -p "$out/runs"
        res=$out/runs/$tag.txt
        : >"$res"
        fe_spawn game "$res" "$frame_loop" --work "$work" --duration "$duration" --wait-signal \
                --max-wait 600
        fl=$spawned
        game_v=-1 load_v=lost
        [ "$cond" != unfocused ] || { game_v=lost load_v=-1; }
        fe_set_focus "$game_v" "$load_v"
        for i in $(seq 600); do
                fe_scopes_users && break
                sleep 0.1
        done
        ready=$(grep -c 'Ready:' "$out/latniced.log" 2>/dev/null) || true
        pol=$policy
        [ "$cond" != nofocus ] || pol=$policy_nofocus
        [ "$cond" = off ] || start_latniced "$pol"
        t0=$SECONDS
        # Wait for the kernel to show it, at most 120 s: on a busy machine
        # latniced may put off a user's evaluations. (latniced has scanned
        # the processes once it says "Ready:")
        for i in $(seq 600); do
                if { [ "$cond" = off ] || [ "$(grep -c 'Ready:' "$out/latniced.log")" -gt "${ready:-0}" ]; } &&
                        fe_check "$cond" "$fl"; then
                        ok=1
                        break
                fi
                [ "$cond" = off ] || kill -0 "$latniced_pid" 2>/dev/null ||
                        { echo "frame-effect: latniced exited, see $out/latniced.log" >&2; exit 1; }
                if [ "$cond" != off ] && [ $((SECONDS - t0)) -ge 60 ] &&
                        [ "$(grep -c 'Ready:' "$out/latniced.log")" -le "${ready:-0}" ]; then
                        fe_latniced_hung "$tag" "$pol"
                        t0=$SECONDS
                fi
                sleep 0.2
        done
        knobs=$(fe_knobs "$fl")
        before="game: $(fe_scope_knobs "$cg_game") | load: $(fe_scope_knobs "$cg_load")"
        printf '%s before: %s\n' "$tag" "$knobs" >>"$out/knobs.txt"
        if [ $ok = 0 ]; then
                echo "frame-effect: $tag: the kernel does not show the focus effect after 120 s, so the numbers would mean nothing: $knobs" >&2
                exit 1
        fi
        [ "$cond" != off ] || ! fe_foreign "$knobs" || foreign=1
        # The load at full speed (a build's first compilers are starting),
        # alike in every condition: latniced's start-up makes the others wait.
        sleep "$warmup"
        [ "$load" != build ] || n0=$(fe_compiled)
        kill -USR1 "$fl"
        wait "$fl" || { echo "frame-effect: the frame loop failed ($tag): $(cat "$res")" >&2; exit 1; }
        [ "$load" != build ] || n1=$(fe_compiled)
        # Still what was measured? (nothing may change the knobs mid-run)
        after="game: $(fe_scope_knobs "$cg_game") | load: $(fe_scope_knobs "$cg_load")"
        printf '%s after: %s\n' "$tag" "$after" >>"$out/knobs.txt"
        [ "$after" = "$before" ] ||
                echo "frame-effect: WARNING: $tag: the knobs changed during the run: $before -> $after" >&2
        [ "$cond" != off ] || ! fe_foreign "$(fe_knobs "$fl")" || foreign=1
        [ $foreign = 0 ] ||
                echo "frame-effect: WARNING: $tag: without this script's latniced, the run's processes or scopes were configured all the same (another latniced on the machine): left out of the medians ($knobs)" >&2
        fe_kill_scope "$cg_load" || exit 1
        fe_kill_scope "$cg_game" || exit 1
        stop_latniced
        fe_set_focus - -
        pids=()
        local rate=NA
        [ "$load" != build ] || rate=$(awk -v a="$n0" -v b="$n1" -v d="$duration" 'BEGIN { printf "%.1f", (b - a) / d }')
        # frames=… missed=… misses_per_1000=… skipped=… … finish_p50_us=…
        awk -v tag="$load $cond $round" -v rate="$rate" -v foreign=$foreign '
                /^frames=/ {
                        for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
                        printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", tag, v["frames"], v["missed"],
                                v["misses_per_1000"], v["skipped"], v["finish_p50_us"], v["finish_p99_us"],
                                v["finish_max_us"], rate, foreign
                }' "$res" | tr ' ' '\t' >>"$out/runs.tsv"
        printf '  %-5s %-9s #%s  %s  compiled/s %s\n      %s\n' "$load" "$cond" "$round" \
                "$(cut -d' ' -f1-4,8-10 "$res")" "$rate" "$knobs"
}
