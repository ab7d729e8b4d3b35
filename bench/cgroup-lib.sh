# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# bench/cgroup-lib.sh: a benchmark-owned cgroup tree shaped like systemd's,
# under the cpu controller. Sourced by bench/sched-effect.sh.
#
#   cg_find                 pick the hierarchy: cgroup2 if the cpu controller
#                           is enabled at its root, else the v1 cpu hierarchy;
#                           on failure cg_why says why, and it returns 1
#   cg_create UID           make the tree below $cg_mount/latnice-bench-$$,
#                           its top group at $cg_top_factor times the
#                           default weight (what CPUWeight= on user.slice
#                           is on a systemd machine)
#   cg_set GROUP FILE VAL   write one knob (GROUP: sleeper or hogs, the
#                           leaves; sleeper-slice or hogs-slice, the leaves'
#                           parents, where the two branches meet)
#   cg_get GROUP FILE       read it back from the kernel
#   cg_reset                every knob of those four back to the default,
#                           and no real-time runtime anywhere
#   cg_rt_grant             real-time runtime for the sleeper's branch (v1
#                           with RT group scheduling: without it the kernel
#                           refuses SCHED_FIFO in any group below the root)
#   cg_destroy [TOP]        kill what is left in the tree, remove it
#   cg_sweep                remove trees left by runs that were SIGKILLed
#
# The tree (UID is the desktop user's, 1000 unless sudo says otherwise):
#   latnice-bench-PID/user.slice/user-UID.slice/user@UID.service/
#       session.slice/pipewire.service     the sleeper ($cg_sleeper)
#       app.slice/app-build.scope          the hogs ($cg_hogs)
# Every level between the top and the leaves is a group the kernel weighs
# against its siblings, as it does on a systemd machine: a leaf's weight or
# idle flag counts only against the other leaves of its slice. The top group has
# its own name per run, so runs by different users of a shared machine do
# not collide.

cg_kind=""      # v2 or v1
cg_mount=""     # the hierarchy's mount point
cg_top=""       # this run's top group, empty until created
cg_sleeper=""
cg_hogs=""
cg_sleeper_slice=""
cg_hogs_slice=""
cg_rt_branch=() # the groups from the top down to the sleeper's unit
cg_top_factor=1 # the top group's weight, times the default (1..100)
cg_weight=""    # the weight file: cpu.weight (v2) or cpu.shares (v1)
cg_weight_default=""
cg_weight_min=""
cg_weight_max=""
cg_why=""

cg_find() {
        local v2="" v1="" _dev mnt type opts _rest
        while read -r _dev mnt type opts _rest; do
                case $type in
                cgroup2) [ -n "$v2" ] || v2=$mnt ;;
                cgroup) case ",$opts," in *,cpu,*) [ -n "$v1" ] || v1=$mnt ;; esac ;;
                esac
        done </proc/self/mounts

        if [ -n "$v2" ] && grep -qw cpu "$v2/cgroup.subtree_control" 2>/dev/null; then
                cg_kind=v2 cg_mount=$v2
                cg_weight=cpu.weight cg_weight_default=100 cg_weight_min=1 cg_weight_max=10000
        elif [ -n "$v1" ]; then
                cg_kind=v1 cg_mount=$v1
                cg_weight=cpu.shares cg_weight_default=1024 cg_weight_min=2 cg_weight_max=262144
        elif [ -n "$v2" ] && grep -qw cpu "$v2/cgroup.controllers" 2>/dev/null; then
                cg_why="cgroup2 at $v2 has the cpu controller but does not enable it for its children ($v2/cgroup.subtree_control); enable it with: echo +cpu >$v2/cgroup.subtree_control"
                return 1
        else
                cg_why="no cpu controller: cgroup2${v2:+ at $v2} lists none in cgroup.controllers, and no v1 cpu hierarchy is mounted"
                return 1
        fi
        if [ ! -w "$cg_mount" ] || [ ! -e "$cg_mount/cgroup.procs" ]; then
                cg_why="the $cg_kind cpu hierarchy at $cg_mount is not writable (read-only in a container?)"
                return 1
        fi
}

# mkdir one group; on cgroup2 also hand the cpu controller to its children
# (LEAF=1: a leaf, which holds processes and so has no children's controllers).
cg_mkgroup() { # dir leaf
        local err
        if ! err=$(mkdir "$1" 2>&1); then
                cg_why="cannot create $1: ${err##*: }"
                return 1
        fi
        if [ "$cg_kind" = v2 ] && [ "$2" = 0 ] && ! echo +cpu >"$1/cgroup.subtree_control"; then
                cg_why="cannot enable the cpu controller in $1/cgroup.subtree_control"
                return 1
        fi
}

cg_create() { # uid
        local uid=$1 d rel
        cg_top="$cg_mount/latnice-bench-$$"
        d=$cg_top
        cg_mkgroup "$d" 0 || return 1
        cg_rt_branch=("$d")
        for rel in user.slice "user-$uid.slice" "user@$uid.service"; do
                d="$d/$rel"
                cg_mkgroup "$d" 0 || return 1
                cg_rt_branch+=("$d")
        done
        cg_sleeper_slice="$d/session.slice"
        cg_hogs_slice="$d/app.slice"
        cg_mkgroup "$cg_sleeper_slice" 0 && cg_mkgroup "$cg_hogs_slice" 0 || return 1
        cg_sleeper="$cg_sleeper_slice/pipewire.service"
        cg_hogs="$cg_hogs_slice/app-build.scope"
        cg_mkgroup "$cg_sleeper" 1 && cg_mkgroup "$cg_hogs" 1 || return 1
        cg_rt_branch+=("$cg_sleeper_slice" "$cg_sleeper")
        cg_reset || return 1
        if [ "$cg_top_factor" != 1 ] &&
                ! cg_write "$cg_top/$cg_weight" $((cg_weight_default * cg_top_factor)); then
                cg_why="cannot set the weight of $cg_top"
                return 1
        fi
}

cg_dir() { # sleeper|hogs|sleeper-slice|hogs-slice
        case $1 in
        sleeper) echo "$cg_sleeper" ;;
        hogs) echo "$cg_hogs" ;;
        sleeper-slice) echo "$cg_sleeper_slice" ;;
        hogs-slice) echo "$cg_hogs_slice" ;;
        *) echo "cg_dir: unknown group $1" >&2; return 2 ;;
        esac
}

# One write to a cgroup file; a refusal is said with the path and value.
cg_write() { # path value
        if ! echo "$2" >"$1" 2>/dev/null; then
                echo "sched-effect: cannot write $2 to $1" >&2
                return 1
        fi
}

cg_set() { # group file value
        local dir
        dir=$(cg_dir "$1") || return 2
        cg_write "$dir/$2" "$3"
}

cg_get() { # group file
        local dir
        dir=$(cg_dir "$1") || return 2
        cat "$dir/$2" 2>/dev/null || echo "?"
}

# cpu.idle first: the kernel refuses a weight for an idle group (v1), and
# clearing the flag gives the group back the weight it had.
cg_reset() {
        local g i
        # Deepest first: a group may not have more than its parent.
        for ((i = ${#cg_rt_branch[@]} - 1; i >= 0; i--)); do
                g=${cg_rt_branch[i]}/cpu.rt_runtime_us
                [ -e "$g" ] || continue
                cg_write "$g" 0 || return 1
        done
        for g in sleeper hogs sleeper-slice hogs-slice; do
                if [ -e "$(cg_dir "$g")/cpu.idle" ]; then
                        cg_set "$g" cpu.idle 0 || return 1
                fi
                cg_set "$g" "$cg_weight" "$cg_weight_default" || return 1
        done
}

# Half of each period for the sleeper's branch, top first (a group may
# not have more than its parent; the root keeps 95%). Nothing to do where
# the hierarchy has no real-time group files (cgroup2, or no
# CONFIG_RT_GROUP_SCHED): there the kernel allows SCHED_FIFO anywhere.
cg_rt_grant() {
        local d
        for d in "${cg_rt_branch[@]}"; do
                [ -e "$d/cpu.rt_runtime_us" ] || return 0
                cg_write "$d/cpu.rt_runtime_us" 500000 || return 1
        done
}

# The pids of every process in the tree below DIR.
cg_procs() { # dir
        find "$1" -name cgroup.procs -exec cat {} + 2>/dev/null
}

cg_destroy() { # [top]
        local top=${1:-$cg_top} p left d
        [ -n "$top" ] && [ -d "$top" ] || return 0
        for _ in $(seq 100); do
                left=$(cg_procs "$top")
                [ -n "$left" ] || break
                for p in $left; do kill -KILL "$p" 2>/dev/null || true; done
                sleep 0.1
        done
        # Deepest first; a group of exiting processes can stay busy a moment.
        for _ in $(seq 50); do
                while read -r d; do
                        rmdir "$d" 2>/dev/null || true
                done < <(find "$top" -depth -type d 2>/dev/null)
                [ -d "$top" ] || break
                sleep 0.1
        done
        if [ -d "$top" ]; then
                echo "sched-effect: could not remove $top (still holds: $(cg_procs "$top" | tr '\n' ' '))" >&2
                return 1
        fi
        [ "$top" != "$cg_top" ] || cg_top=""
}

# Trees of runs whose script is gone (SIGKILL leaves no chance to clean up).
cg_sweep() {
        local d pid
        for d in "$cg_mount"/latnice-bench-*; do
                [ -d "$d" ] || continue
                pid=${d##*-}
                case $pid in *[!0-9]*) continue ;; esac
                [ "$pid" = $$ ] && continue
                if ! kill -0 "$pid" 2>/dev/null; then
                        echo "sched-effect: removing $d, left by a run that was killed" >&2
                        cg_destroy "$d" || true
                fi
        done
}
