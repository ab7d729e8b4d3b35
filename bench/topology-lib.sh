# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# bench/topology-lib.sh: where bench/sched-effect.sh puts the sleeper and
# the hogs, and the group-level conditions (g-*) that act on those groups.
# Sourced after bench/cgroup-lib.sh; uses $setattr.
#
#   flat      both started from the script's session: one autogroup, the
#             cgroup the script runs in. Nice and policy weigh the hogs
#             against the sleeper directly.
#   sessions  each its own session (setsid), so its own autogroup: the
#             kernel first shares the CPU between the autogroups, then
#             inside each.
#   cgroups   each its own session and its own cgroup of the cpu
#             controller, in a tree shaped like systemd's (cgroup-lib.sh).
#             Autogroups play no part there: the kernel uses them only for
#             tasks of the root cgroup.
#
#   topo_prepare TOPO         check the topology can be built here (else
#                             topo_why says why, and it returns 1), build it
#   topo_condition TOPO COND  set the group knobs of COND, and the wrappers
#                             grp_hog / grp_sleeper that put the processes in
#                             their groups; topo_na: why COND means nothing
#                             in TOPO (then nothing is run)
#   topo_groups TOPO HOG SLEEPER [REC]   one line: the groups of both
#                             processes and their knobs, read back from the
#                             kernel; REC: a directory where the sleeper's
#                             /proc/PID/cgroup and autogroup were copied when
#                             it started, read if it has ended already (a
#                             short run on a busy machine)

grp_hog=()
grp_sleeper=()
topo_na=""
topo_why=""

topo_prepare() { # topo
        case $1 in
        flat) ;;
        sessions)
                if [ "$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null)" != 1 ] ||
                        [ ! -e /proc/self/autogroup ]; then
                        topo_why="autogroup is off (kernel.sched_autogroup_enabled is not 1, or no CONFIG_SCHED_AUTOGROUP): sessions are no scheduling groups here"
                        return 1
                fi
                ;;
        cgroups)
                if ! cg_find; then
                        topo_why=$cg_why
                        return 1
                fi
                cg_sweep
                if ! cg_create "${SUDO_UID:-1000}"; then
                        topo_why=$cg_why
                        return 1
                fi
                ;;
        *)
                topo_why="unknown topology \"$1\" (expected flat, sessions or cgroups)"
                return 2
                ;;
        esac
}

topo_condition() { # topo cond
        local topo=$1 cond=$2 hn=0 sn=0
        grp_hog=()
        grp_sleeper=()
        topo_na=""
        case $topo in
        flat)
                case $cond in
                g-*|gs-*) topo_na="sleeper and hogs share one group (the script's autogroup and cgroup)" ;;
                esac
                ;;
        sessions)
                case $cond in
                g-idle) hn=19 ;;
                g-weight) hn=19 sn=-20 ;;
                gs-*) topo_na="autogroups are not nested: the same as g-${cond#gs-}" ;;
                s-setsid) topo_na="the sleeper has a session of its own already" ;;
                esac
                # The autogroup's nice, written by the process itself right
                # after setsid made its autogroup (bash, before it execs).
                grp_hog=("$setattr" --setsid -- bash -c 'echo "$0" >"/proc/$$/autogroup" && exec "$@"' "$hn")
                grp_sleeper=("$setattr" --setsid -- bash -c 'echo "$0" >"/proc/$$/autogroup" && exec "$@"' "$sn")
                ;;
        cgroups)
                cg_reset || return 1
                # g-*: on the leaves (the unit, the scope); gs-*: on their
                # slices, the groups the kernel weighs against each other.
                local at=""
                [ "${cond#gs-}" = "$cond" ] || at=-slice
                case $cond in
                g-idle|gs-idle)
                        if [ -e "$cg_hogs/cpu.idle" ]; then
                                cg_set "hogs$at" cpu.idle 1 || return 1
                        else
                                topo_na="no cpu.idle in this kernel"
                        fi
                        ;;
                g-weight|gs-weight)
                        cg_set "hogs$at" "$cg_weight" "$cg_weight_min" || return 1
                        cg_set "sleeper$at" "$cg_weight" "$cg_weight_max" || return 1
                        ;;
                s-setsid) topo_na="the sleeper has a session of its own already" ;;
                s-rt) cg_rt_grant || return 1 ;;
                esac
                # Like systemd: the process is in its unit's cgroup before it
                # execs, and a service or scope is a session of its own.
                grp_hog=(bash -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cg_hogs"
                        "$setattr" --setsid --)
                grp_sleeper=(bash -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cg_sleeper"
                        "$setattr" --setsid --)
                ;;
        esac
}

# /proc/PID/NAME, or if PID has ended, REC/NAME (its copy, see topo_groups).
topo_proc_read() { # pid name [rec]
        cat "/proc/$1/$2" 2>/dev/null || { [ -n "${3:-}" ] && cat "$3/$2" 2>/dev/null; }
}

# The cgroup of PID in the hierarchy we use, from /proc/PID/cgroup.
topo_cgroup_of() { # pid [rec]
        local kind=${cg_kind:-v2}
        topo_proc_read "$1" cgroup "${2:-}" | awk -F: -v kind="$kind" '
                kind == "v2" && $1 == "0" && $2 == "" { print $3; exit }
                kind == "v1" { n = split($2, c, ","); for (i = 1; i <= n; i++) if (c[i] == "cpu") { print $3; exit } }
        '
}

# "/autogroup-51 nice=19": the autogroup and its nice, as the kernel shows it.
topo_autogroup_of() { # pid [rec]
        local ag
        ag=$(topo_proc_read "$1" autogroup "${2:-}") || { echo "?"; return; }
        echo "${ag% nice *} nice=${ag##* }"
}

# "PATH idle=0 shares=1024 slice-idle=0 slice-shares=1024": the cgroup of
# PID and the knobs of it and of its parent, read back from the kernel.
topo_cgroup_desc() { # pid [rec]
        local cg dir w=${cg_weight#cpu.}
        cg=$(topo_cgroup_of "$1" "${2:-}")
        dir="$cg_mount$cg"
        printf '%s idle=%s %s=%s slice-idle=%s slice-%s=%s\n' "$cg" \
                "$(cat "$dir/cpu.idle" 2>/dev/null || echo "-")" "$w" "$(cat "$dir/$cg_weight" 2>/dev/null || echo "?")" \
                "$(cat "${dir%/*}/cpu.idle" 2>/dev/null || echo "-")" "$w" "$(cat "${dir%/*}/$cg_weight" 2>/dev/null || echo "?")"
}

topo_groups() { # topo hog-pid sleeper-pid [sleeper-rec]
        local topo=$1 hog=$2 sleeper=$3 rec=${4:-} h s
        case $topo in
        flat|sessions)
                h=$(topo_autogroup_of "$hog")
                s=$(topo_autogroup_of "$sleeper" "$rec")
                if [ "$topo" = sessions ] && [ "${h%% *}" = "${s%% *}" ]; then
                        echo "sched-effect: WARNING: sessions topology, but the hogs and the sleeper share ${h%% *}" >&2
                fi
                echo "hogs=$h cgroup=$(topo_cgroup_of "$hog") sleeper=$s cgroup=$(topo_cgroup_of "$sleeper" "$rec")"
                ;;
        cgroups)
                h=$(topo_cgroup_desc "$hog")
                s=$(topo_cgroup_desc "$sleeper" "$rec")
                [ "$cg_mount${h%% *}" = "$cg_hogs" ] ||
                        echo "sched-effect: WARNING: the hogs run in ${h%% *}, not in $cg_hogs" >&2
                [ "$cg_mount${s%% *}" = "$cg_sleeper" ] ||
                        echo "sched-effect: WARNING: the sleeper runs in ${s%% *}, not in $cg_sleeper" >&2
                echo "hogs=$h sleeper=$s top-${cg_weight#cpu.}=$(cat "$cg_top/$cg_weight" 2>/dev/null || echo "?")"
                ;;
        esac
}
