#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/frame-effect.sh: does the focus the desktop gives an app make its
# frames come on time beside a build? A frame loop (bench/frame-loop: wakes
# every 16.7 ms on an absolute deadline, needs --work of CPU per frame, like
# a game or a compositor) and a load run as the desktop user (UID:
# $SUDO_UID, else 1000) in the topology a systemd desktop has, each in an
# app scope of its own:
#   latnice-bench-PID/user.slice/user-UID.slice/user@UID.service/app.slice/
#       app-game-PID.scope    the frame loop
#       app-build-PID.scope   the load: a real build (make -jJOBS compiling
#                             C files with gcc, over and over) or CPU hogs
#                             (stress-ng, names no rule knows)
# under the cpu controller (cgroup2 where its root enables cpu, else the v1
# cpu hierarchy, bench/cgroup-lib.sh), and the same scopes in the cgroup2
# tree, where the focus lives: user.xdg.inactive-since on an app's scope,
# "-1" while it has the focus, else the time it lost it, as GNOME's Mutter
# writes it (the other app lost it 60 s before the run: the shipped rule
# lowers an app's weight once it has been unfocused for 10 s). Conditions,
# run interleaved (every round: each load, each condition):
#   off        no latniced; the frame loop's scope has the focus
#   nofocus    the real latniced with the shipped policy less its focus
#              rules (15-focus.policy): what the class rules do alone
#   focused    the real latniced with the shipped policy (policy/default,
#              --user-slice on this tree), the frame loop's scope focused
#   unfocused  the same, the focus on the build's scope instead
# Before it measures, the script waits until the kernel shows what latniced
# did for the focus (the unfocused scope's cpu.weight, or cpu.shares on v1,
# at the shipped policy's [Profile unfocused] CPUWeight=; the focused one's
# not), and stops with an error if that does not come within 120 s: without
# it the numbers would mean nothing. It reads them again after the run.
# An off run whose processes or scopes were configured all the same (by
# another latniced on the machine) is left out of the medians.
#
# usage: sudo bench/frame-effect.sh [--rounds N] [--duration S] [--work US]
#            [--load build|hogs[,...]] [--jobs N] [--hogs N]
#            [--conditions off,nofocus,focused,unfocused] [--build DIR] [--out DIR]
#            [--smoke]
#   --rounds N     interleaved rounds (default 5); the table has medians
#   --duration S   seconds each run records frames (default 20), after 3 s
#                  of warm-up (the build's first compilers start; alike in
#                  every condition)
#   --work US      CPU per frame (default 4000)
#   --load L       build (default), hogs, or both: build,hogs
#   --jobs N       make -jN for the build (default 4 per CPU)
#   --hogs N       stress-ng --cpu N (default 2 per CPU)
#   --smoke        1 round of 2 s each (1 s warm-up), load build (checks
#                  that it runs)
#   Exit status 77: no cpu controller, no cgroup2 (the focus needs it), or
#   not root; the message says why. Results: bench/out/frame-effect-DATE/
#   (runs.tsv, one line per run: load, condition, round, frames, missed,
#   per 1000, skipped, finish p50/p99/max us, compiled/s, left out (1);
#   table.md; knobs.txt, the kernel's view of both scopes in each run;
#   info.txt, with the load average before and after; latniced.log).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
bench_name=frame-effect
# shellcheck source=bench/bench-lib.sh
. "$here/bench-lib.sh"

rounds=5
duration=20
warmup=3
work=4000
loads=build
jobs=$((4 * $(nproc)))
hogs=$((2 * $(nproc)))
conditions="off nofocus focused unfocused"
build="$root/build"
out=""
smoke=0

while [ $# -gt 0 ]; do
        case "$1" in
        --rounds) rounds=$2; shift 2 ;;
        --duration) duration=$2; shift 2 ;;
        --work) work=$2; shift 2 ;;
        --load) loads=${2//,/ }; shift 2 ;;
        --jobs) jobs=$2; shift 2 ;;
        --hogs) hogs=$2; shift 2 ;;
        --conditions) conditions=${2//,/ }; shift 2 ;;
        --build) build=$(cd "$2" && pwd); shift 2 ;;
        --out) out=$2; shift 2 ;;
        --smoke) smoke=1; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "frame-effect: unknown option $1" >&2; exit 2 ;;
        esac
done
if [ $smoke -eq 1 ]; then
        rounds=1
        duration=2
        warmup=1
fi
for v in rounds duration work jobs hogs; do bench_positive "$v" "${!v}"; done
for l in $loads; do bench_one_of load "$l" build hogs; done
for c in $conditions; do bench_one_of condition "$c" off nofocus focused unfocused; done

bench_need_root "cgroups, latniced"
uid=${SUDO_UID:-1000}
gid=${SUDO_GID:-$(getent passwd "$uid" | cut -d: -f4)}
gid=${gid:-$uid}

need=()
command -v gcc >/dev/null || need+=(gcc)
command -v make >/dev/null || need+=(make)
case " $loads " in *" hogs "*) command -v stress-ng >/dev/null || need+=(stress-ng) ;; esac
command -v python3 >/dev/null || need+=(python3)
if [ ${#need[@]} -gt 0 ]; then
        echo "frame-effect: installing ${need[*]}" >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y "${need[@]}" >/dev/null
fi
# The system's python3 (a wrapper such as pyenv's costs forks on a busy machine).
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3)

bench_out_dir
bench_machine "$build"

frame_loop="$build/bench/frame-loop"
if [ ! -x "$frame_loop" ]; then
        frame_loop="$out/frame-loop"
        cc -O2 -Wall -o "$frame_loop" "$here/frame-loop.c"
fi
setattr="$build/bench/setattr"
if [ ! -x "$setattr" ]; then
        setattr="$out/setattr"
        cc -O2 -Wall -o "$setattr" "$here/setattr.c"
fi
latniced="$build/daemon/latniced"
case " $conditions " in
*" nofocus "* | *" focused "* | *" unfocused "*)
        [ -x "$latniced" ] || { echo "frame-effect: $latniced is not built" >&2; exit 1; } ;;
esac
policy="$root/policy/default"
# What the shipped policy gives an unfocused app's scope.
unfocused_weight=$(awk '/^\[/ { p = ($0 == "[Profile unfocused]") } p && /^CPUWeight *=/ { sub(/.*= */, ""); print; exit }' \
        "$policy"/*.policy)
case $unfocused_weight in
'' | *[!0-9]*) echo "frame-effect: no CPUWeight= in [Profile unfocused] of $policy: nothing to verify the focus by" >&2; exit 1 ;;
esac
# The shipped policy without its focus rules, for nofocus.
policy_nofocus=$out/policy-nofocus
mkdir -p "$policy_nofocus"
for f in "$policy"/*.policy; do
        [ "${f##*/}" = 15-focus.policy ] || cp "$f" "$policy_nofocus/"
done
if grep -Eq '^Match *=.*focused:' "$policy_nofocus"/*.policy; then
        echo "frame-effect: a focus rule outside $policy/15-focus.policy: nofocus would not be without the focus" >&2
        exit 1
fi

# shellcheck source=bench/cgroup-lib.sh
. "$here/cgroup-lib.sh"
if ! cg_find; then
        echo "frame-effect: $cg_why" >&2
        exit 77
fi
v2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
if [ -z "$v2" ]; then
        echo "frame-effect: no cgroup2 hierarchy: the focus (user.xdg.inactive-since on app scopes) lives there" >&2
        exit 77
fi
# The unfocused weight as the kernel shows it in this hierarchy.
want_weight=$unfocused_weight
[ "$cg_kind" = v2 ] || want_weight=$((unfocused_weight * 1024 / 100))

# shellcheck source=bench/frame-lib.sh
. "$here/frame-lib.sh"

pids=()
latniced_pid=""
# The daemon first (it gives back what it changed), then the trees.
cleanup() {
        local p
        for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
        stop_latniced
        cg_destroy || true
        [ -z "$mirror_top" ] || cg_destroy "$mirror_top" || true
        [ -z "$work_dir" ] || rm -rf "$work_dir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

fe_make_trees || { echo "frame-effect: $cg_why" >&2; exit 77; }
fe_make_build_dir

{
        echo "date: $(date -Is)"
        bench_load before
        others=$(pgrep -x latniced | tr "\n" " " || true)
        [ -z "$others" ] || echo "WARNING: another latniced runs (pid $others): it may act on these processes in the off condition"
        echo "args: rounds=$rounds duration=${duration}s warmup=${warmup}s work=${work}us period=16667us loads=$loads jobs=$jobs hogs=$hogs conditions=$conditions uid=$uid"
        echo "cgroups: $cg_kind cpu at $cg_mount, focus in cgroup2 at $v2; game $cg_game, load $cg_load"
        echo "focus: the unfocused app lost it ${fe_lost_ago}s before each run; build directory: $work_dir"
        echo "policy: $policy, [Profile unfocused] CPUWeight=$unfocused_weight ($cg_weight $want_weight)"
} | tee "$out/info.txt"

# The table: per load and condition, medians over the rounds (runs another
# latniced configured are left out, counted below); then the comparisons
# that count, latniced (focused, unfocused) against off.
fe_summarize() {
        echo "# frame-effect: frame loop (16.7 ms period, ${work} us of CPU per frame) beside a load, ${duration}s x $rounds rounds, $(uname -r), $(nproc) CPUs, $cg_kind cpu at $cg_mount; medians over rounds"
        printf '| %-5s | %-9s | %15s | %11s | %11s | %11s | %10s | %4s |\n' load condition "misses / 1000" \
                "finish p50" "finish p99" "skipped" "compiled/s" runs
        echo "|-------|-----------|-----------------|-------------|-------------|-------------|------------|------|"
        awk -F'\t' -v loads="$loads" -v conds="$conditions" '
                function median(list,   a, n, i, j, t) {
                        n = split(list, a, " ")
                        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
                                if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
                        if (n == 0) return "-"
                        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
                }
                function ms(v) { return v == "-" ? "-" : sprintf("%.1f ms", v / 1000) }
                function one(v) { return v == "-" ? "-" : sprintf("%.1f", v) }
                $12 == 1 { out++; next }
                {
                        k = $1 SUBSEP $2; n[k]++
                        mp[k] = mp[k] " " $6; p50[k] = p50[k] " " $8; p99[k] = p99[k] " " $9
                        sk[k] = sk[k] " " $7; if ($11 != "NA") cs[k] = cs[k] " " $11
                }
                END {
                        nl = split(loads, l, " "); nc = split(conds, c, " ")
                        for (i = 1; i <= nl; i++) for (j = 1; j <= nc; j++) {
                                k = l[i] SUBSEP c[j]
                                m[k] = median(mp[k])
                                printf "| %-5s | %-9s | %15s | %11s | %11s | %11s | %10s | %4d |\n", l[i], c[j],
                                        one(m[k]), ms(median(p50[k])), ms(median(p99[k])), median(sk[k]),
                                        (k in cs) ? median(cs[k]) : "-", n[k]
                        }
                        for (i = 1; i <= nl; i++) {
                                o = l[i] SUBSEP "off"
                                if (!(o in m)) continue
                                line = ""
                                for (j = 1; j <= nc; j++) if (c[j] != "off")
                                        line = line sprintf(", %s %s", c[j], one(m[l[i], c[j]]))
                                if (line != "")
                                        printf "# %s: frame deadline misses per 1000 without latniced %s; with latniced%s\n", l[i], one(m[o]), substr(line, 2)
                        }
                        printf "# runs left out (another latniced on the machine configured them): %d\n", out
                }' "$out/runs.tsv"
}

for round in $(seq "$rounds"); do
        echo "round $round of $rounds"
        for load in $loads; do
                for cond in $conditions; do
                        fe_run "$load" "$cond" "$round"
                done
        done
done
fe_summarize | tee "$out/table.md"
# (a latniced that hung at start-up and was started again: hangs.txt)
echo "latniced start-up hangs: $(grep -c 'not ready after' "$out/hangs.txt" 2>/dev/null || echo 0)" |
        tee -a "$out/info.txt"
bench_load after | tee -a "$out/info.txt"
echo "results in $out"
