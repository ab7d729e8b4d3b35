#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/sched-effect.sh: does a scheduling mechanism make a latency-sensitive
# sleeper wake up faster under CPU overload, and what does it cost the
# background work?
#
# Latency part: a periodic sleeper (bench/sleeper, SCHED_OTHER, 1 ms period,
# one thread named "data-loop.0"; or cyclictest --policy=other with
# --sleeper cyclictest) runs next to N CPU hogs (stress-ng --cpu N, default 2x the
# cores). Every condition changes one thing (the sleeper's nice, slice or
# timer slack; the hogs' policy, nice or slice), or everything latniced with
# the default policy would do. Conditions run interleaved (A B C A B C ...)
# so slow drifts of a shared machine hit every condition alike; the summary
# gives the median of each statistic over the repeats and its ratio against
# the baseline of the same run. "alone" runs the sleeper with no hogs at
# all: what this host gives an otherwise idle machine, its own stalls
# included. It is no lower bound: on a virtual machine an idle vCPU halts
# and its wake-up goes through the host, so a busy machine whose sleeper
# preempts at once can do better.
#
# Topologies (--topology, a comma list runs them interleaved): where the
# sleeper and the hogs run. flat: both from this script's session, so they
# share one autogroup and cgroup (nice only competes inside a group) unless
# a condition says otherwise ("s-setsid"). sessions: each in a session, so
# an autogroup, of its own. cgroups: each in a session and a cgroup of its
# own under the cpu controller, in a tree shaped like systemd's, below
# latnice-bench-PID (cgroup2 if it has the cpu controller, else the v1 cpu
# hierarchy), removed on every exit. The g-* conditions act on those groups
# (bench/topology-lib.sh); in flat they have none to act on ("n/a").
# --top-weight F gives latnice-bench-PID, which stands for user.slice (the
# level where the tree meets the host's other work: kernel threads, PID 1,
# other services), F times the default weight for every condition, as
# CPUWeight= on user.slice would (1..100; default 1).
#
# Throughput part: a build-like job (compiling a C file many times on all
# cores) alone and next to a foreground load (hackbench), with and without
# the background class, to show what the class costs the background work.
#
# usage: bench/sched-effect.sh [--duration S] [--repeats N] [--hogs N]
#            [--topology flat|sessions|cgroups[,...]] [--top-weight F]
#            [--conditions c1,c2,...] [--part latency|throughput|all]
#            [--sleeper sleeper|cyclictest] [--build DIR] [--out DIR] [--smoke]
#   cyclictest resets its own timer slack at start-up (it switches to
#   SCHED_FIFO and back), so s-slack shows nothing with it.
#   --smoke: 4 s runs of two conditions, one repeat, no throughput part, no
#            warm-up (checks that the benchmark still starts and produces
#            output; 2 s runs let the sleeper end before its cgroup was read,
#            1.5 s after its launch, under ASan on a busy machine)
#   Exit status 77: a topology asked for cannot be built here (no cpu
#   controller, autogroup off); the message says why. The throughput part
#   runs in the flat topology only.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
bench_name=sched-effect
# shellcheck source=bench/bench-lib.sh
. "$here/bench-lib.sh"

duration=15
repeats=3
hogs=$((2 * $(nproc)))
part=all
build="$root/build"
out=""
smoke=0
sleeper_kind=sleeper
all_conditions="alone base s-slice s-nice s-slack s-setsid h-idle h-batch h-nice19 h-batch19 h-b19-s13 h-slice100 combo s-rt g-idle g-weight gs-idle gs-weight latniced"
conditions=""
topologies=flat
top_weight=1

while [ $# -gt 0 ]; do
        case "$1" in
        --duration) duration=$2; shift 2 ;;
        --repeats) repeats=$2; shift 2 ;;
        --hogs) hogs=$2; shift 2 ;;
        --conditions) conditions=${2//,/ }; shift 2 ;;
        --topology) topologies=${2//,/ }; shift 2 ;;
        --top-weight) top_weight=$2; shift 2 ;;
        --part) part=$2; shift 2 ;;
        --build) build=$(cd "$2" && pwd); shift 2 ;;
        --out) out=$2; shift 2 ;;
        --sleeper) sleeper_kind=$2; shift 2 ;;
        --smoke) smoke=1; shift ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "sched-effect: unknown option $1" >&2; exit 2 ;;
        esac
done

if [ $smoke -eq 1 ]; then
        duration=4
        repeats=1
        part=latency
        [ -n "$conditions" ] || conditions="base h-idle"
fi
[ -n "$conditions" ] || conditions=$all_conditions

bench_positive duration "$duration"
bench_positive repeats "$repeats"
bench_positive hogs "$hogs"
for t in $topologies; do bench_one_of topology "$t" flat sessions cgroups; done
read -ra known <<<"$all_conditions"
for c in $conditions; do bench_one_of condition "$c" "${known[@]}"; done
bench_one_of part "$part" latency throughput all

bench_need_root "negative nice, timer slack of other tasks"

# ---- dependencies: the script installs what it needs ---------------------
need=()
command -v cyclictest >/dev/null || need+=(rt-tests)
command -v hackbench >/dev/null || need+=(rt-tests)
command -v stress-ng >/dev/null || need+=(stress-ng)
command -v cc >/dev/null || need+=(gcc)
if [ ${#need[@]} -gt 0 ]; then
        echo "sched-effect: installing ${need[*]}" >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y "${need[@]}" >/dev/null
fi

bench_out_dir
mkdir -p "$out/hist"
: >>"$out/na.tsv" # runs of a condition that means nothing in a topology
bench_machine "$build"

# The attribute wrapper and the sleeper: from the build tree, else compiled here.
setattr="$build/bench/setattr"
if [ ! -x "$setattr" ]; then
        setattr="$out/setattr"
        cc -O2 -Wall -o "$setattr" "$here/setattr.c"
fi
sleeper="$build/bench/sleeper"
if [ ! -x "$sleeper" ]; then
        sleeper="$out/sleeper"
        cc -O2 -Wall -pthread -o "$sleeper" "$here/sleeper.c"
fi
# The sleeper records nothing for its first $warmup s. Meanwhile the script
# reads the groups and attributes of both sides: a few dozen forks at the
# script's own place, which in the cgroups topology is above the whole tree
# of sleeper and hogs. Measured in those forks, the sleeper's group waited
# up to 26 ms behind them (ftrace, 2026-11-30): that is the harness, not
# the load. cyclictest has no such option; with it the reads are measured.
warmup=0
case $sleeper_kind in
sleeper)
        warmup=3
        [ "$smoke" -eq 0 ] || warmup=0 # a smoke run measures nothing
        sleeper_cmd=("$sleeper" --interval 1000 --max 200000 --warmup "$warmup" --duration)
        ;;
cyclictest) sleeper_cmd=(cyclictest --policy=other -t1 -i 1000 -q -h 200000 -D) ;;
*) echo "sched-effect: unknown sleeper $sleeper_kind" >&2; exit 2 ;;
esac
latniced="$build/daemon/latniced"

# shellcheck source=bench/cgroup-lib.sh
. "$here/cgroup-lib.sh"
case $top_weight in
[1-9] | [1-9][0-9] | 100) cg_top_factor=$top_weight ;;
*) echo "sched-effect: --top-weight: expected 1..100, got \"$top_weight\"" >&2; exit 2 ;;
esac
# shellcheck source=bench/topology-lib.sh
. "$here/topology-lib.sh"

pids=()
latniced_pid=""
# The daemon goes before the cgroup tree: it gives back what it changed.
cleanup() {
        local p
        for p in "${pids[@]}"; do
                kill "$p" 2>/dev/null || true
        done
        if [ -n "$latniced_pid" ]; then
                kill "$latniced_pid" 2>/dev/null || true
                wait "$latniced_pid" 2>/dev/null || true
        fi
        cg_destroy || true
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

for topo in $topologies; do
        topo_prepare "$topo" || {
                rc=$?
                echo "sched-effect: --topology $topo: $topo_why" >&2
                [ $rc -eq 2 ] && exit 2
                exit 77
        }
done

# ---- conditions ------------------------------------------------------------
# Each sets two wrappers, prepended to the hog and the sleeper command.
hog_wrap=()
sleeper_wrap=()
condition_setup() {
        hog_wrap=()
        sleeper_wrap=()
        case "$1" in
        base) ;;
        s-slice) sleeper_wrap=("$setattr" --slice 100000 --) ;;
        s-nice) sleeper_wrap=("$setattr" --nice -10 --) ;;
        s-slack) sleeper_wrap=("$setattr" --slack 1 --) ;;
        s-setsid) sleeper_wrap=("$setattr" --setsid --) ;;
        h-idle) hog_wrap=("$setattr" --policy idle --) ;;
        h-batch) hog_wrap=("$setattr" --policy batch --) ;;
        h-nice19) hog_wrap=("$setattr" --nice 19 --) ;;
        h-batch19) hog_wrap=("$setattr" --policy batch --nice 19 --) ;;
        # ... with the slice LatencyNice=10 maps to (13 ms at 2 CPUs)
        h-b19-s13) hog_wrap=("$setattr" --policy batch --nice 19 --slice 13000000 --) ;;
        h-slice100) hog_wrap=("$setattr" --slice 100000000 --) ;;
        # What the default policy's audio and background-idle profiles
        # ask for, applied by hand (LatencyNice=-15 as its stock-kernel
        # emulation, a 0.1 ms slice).
        combo)
                sleeper_wrap=("$setattr" --nice -11 --slack 1000 --slice 100000 --)
                hog_wrap=("$setattr" --policy idle --nice 19 --)
                ;;
        # No policy of latniced asks for real time: the sleeper SCHED_FIFO
        # is the reference for what this host can give it at all.
        s-rt) sleeper_wrap=("$setattr" --policy fifo --slack 1000 --) ;;
        g-idle|g-weight|gs-idle|gs-weight) ;; # on the groups: topo_condition()
        alone) ;; # no hogs at all: run_latency()
        latniced) ;; # the daemon does it, by name
        *) echo "sched-effect: unknown condition $1" >&2; exit 2 ;;
        esac
}

start_latniced() {
        if [ ! -x "$latniced" ]; then
                echo "sched-effect: $latniced not built, condition latniced left out" >&2
                return 1
        fi
        # --pdeathsig: it goes with this script even if the script is SIGKILLed.
        setpriv --pdeathsig TERM -- "$latniced" --foreground --bus none \
                --policy-dir "$root/policy/default" --state-file "$out/latniced.state" \
                >>"$out/latniced.log" 2>&1 &
        latniced_pid=$!
        sleep 1
        if ! kill -0 "$latniced_pid" 2>/dev/null; then
                echo "sched-effect: latniced exited, see $out/latniced.log" >&2
                latniced_pid=""
                return 1
        fi
}

stop_latniced() {
        [ -n "$latniced_pid" ] || return 0
        kill "$latniced_pid" 2>/dev/null || true
        wait "$latniced_pid" 2>/dev/null || true
        latniced_pid=""
}

# One line per task: what the kernel says it runs with.
snapshot_attrs() { # label pid...
        local label=$1 p t
        shift
        for p in "$@"; do
                for t in /proc/"$p"/task/*; do
                        [ -r "$t/sched" ] || continue
                        t=${t##*/}
                        printf '%s pid=%s tid=%s comm=%s policy=%s nice=%s slice=%s slack=%s %s\n' \
                                "$label" "$p" "$t" "$(cat /proc/"$t"/comm 2>/dev/null)" \
                                "$(awk '$1 == "policy" { print $3 }' /proc/"$p"/task/"$t"/sched)" \
                                "$(awk '{ print $19 }' /proc/"$p"/task/"$t"/stat)" \
                                "$(awk '$1 == "se.slice" { print $3 }' /proc/"$p"/task/"$t"/sched)" \
                                "$(cat /proc/"$t"/timerslack_ns 2>/dev/null)" \
                                "$(cut -d' ' -f1 /proc/"$p"/autogroup 2>/dev/null)"
                done
        done
}

# Percentiles from a cyclictest histogram (1 us buckets): p50 p99 p99.9 max
hist_stats() { # file
        awk '
                /^# Histogram Overflows:/ { over = $4 + 0 }
                /^# Max Latencies:/ { max = $4 + 0 }
                /^[0-9]+[ \t]+[0-9]+/ { n[$1 + 0] += $2; total += $2; if ($1 + 0 > top) top = $1 + 0 }
                END {
                        total += over
                        if (total == 0) { print "NA NA NA NA"; exit }
                        split("0.5 0.99 0.999", q, " ")
                        for (i = 1; i <= 3; i++) {
                                want = q[i] * total; c = 0; v = "overflow"
                                for (b = 0; b <= top; b++) { c += n[b]; if (c >= want) { v = b; break } }
                                printf "%s ", v
                        }
                        printf "%d %d\n", max, total
                }' "$1"
}

# ---- latency part ------------------------------------------------------------
# One run of one condition in one topology: hogs, then the sleeper, each
# wrapped in its group's wrapper, then the condition's.
run_latency() {
        local topo=$1 cond=$2 rep=$3 hist="$out/hist/$1/$2.$3.txt" raw="$out/hist/$1/$2.$3.raw"
        local hog_pid sleeper_pid hog_log="$out/hist/$1/$2.$3.hogs" groups

        condition_setup "$cond"
        topo_condition "$topo" "$cond" || exit 1
        if [ -n "$topo_na" ]; then
                printf '  %-8s %-10s #%s  n/a: %s\n' "$topo" "$cond" "$rep" "$topo_na"
                printf '%s\t%s\t%s\n' "$topo" "$cond" "$topo_na" >>"$out/na.tsv"
                return 0
        fi
        mkdir -p "$out/hist/$topo"
        if [ "$cond" = latniced ]; then
                start_latniced || return 0
        fi

        # With latniced, hogs and sleeper carry names the default policy
        # knows (cc1plus, and pipewire with a data-loop.0 thread): the first
        # exec gives latniced a process to configure, the second (after
        # 0.5 s) starts the real program, which inherits it all. stress-ng
        # --keep-name keeps argv[0] in its workers. Otherwise the names
        # match no rule, so that a latniced someone else runs on the machine
        # leaves the other conditions alone.
        local hog_name=ln-bench-hog sleeper_name=ln-bench-sleeper
        if [ "$cond" = latniced ]; then
                hog_name=cc1plus
                sleeper_name=pipewire
        fi
        # alone: the sleeper with no hogs, what this host gives at best.
        hog_pid=""
        if [ "$cond" != alone ]; then
                "${grp_hog[@]}" "${hog_wrap[@]}" bash -c 'sleep 0.5; exec -a "$0" "$@"' "$hog_name" \
                        stress-ng --cpu "$hogs" --keep-name --metrics-brief -t $((duration + warmup + 3)) \
                        >"$hog_log" 2>&1 &
                hog_pid=$!
                pids+=("$hog_pid")
        fi
        sleep 1.5

        # The sleeper's groups as it starts, in REC: a short run may have
        # ended before a busy machine let this script read them.
        local launched=$EPOCHREALTIME rec="$out/hist/$topo/$cond.$rep.sleeper-proc"
        mkdir -p "$rec"
        "${grp_sleeper[@]}" "${sleeper_wrap[@]}" bash -c \
                'cat /proc/$$/cgroup >"$1/cgroup"; cat /proc/$$/autogroup >"$1/autogroup" 2>/dev/null
                 shift; sleep 0.5; exec -a "$0" "$@"' \
                "$sleeper_name" "$rec" "${sleeper_cmd[@]}" "$duration" --histfile="$raw" >/dev/null 2>&1 &
        sleeper_pid=$!
        pids+=("$sleeper_pid")
        sleep 1.5
        # The groups first: a few reads, while the attributes of the hogs
        # take some forks, and a short run's sleeper is gone soon.
        if [ -n "$hog_pid" ]; then
                groups=$(topo_groups "$topo" "$hog_pid" "$sleeper_pid" "$rec")
                snapshot_attrs "$topo.$cond.$rep hog" $(pgrep -P "$hog_pid") "$hog_pid" >>"$out/attrs.txt"
        else
                groups="no hogs"
        fi
        snapshot_attrs "$topo.$cond.$rep sleeper" "$sleeper_pid" >>"$out/attrs.txt"
        printf '%s %s %s %s\n' "$topo" "$cond" "$rep" "$groups" >>"$out/groups.txt"
        # The sleeper starts 0.5 s after its launch; its recording $warmup s later.
        if [ "$warmup" -gt 0 ] && awk -v a="$launched" -v b="$EPOCHREALTIME" -v w="$warmup" \
                'BEGIN { exit !(b - a > w + 0.5) }'; then
                echo "sched-effect: WARNING: $topo.$cond.$rep: the reads of groups and attributes ran into the sleeper's recording" >&2
        fi

        wait "$sleeper_pid" || echo "sched-effect: the sleeper failed ($topo.$cond.$rep)" >&2
        if [ -n "$hog_pid" ]; then
                kill "$hog_pid" 2>/dev/null || true
                wait "$hog_pid" 2>/dev/null || true
        fi
        pids=()
        [ "$cond" != latniced ] || stop_latniced

        # Keep only the buckets that count: a full histogram is 200000 lines.
        awk '/^#/ || $2 + 0 > 0' "$raw" >"$hist" && rm -f "$raw"
        local ops="" stats
        [ -z "$hog_pid" ] || ops=$(awk '$3 ~ /^\[/ && $4 == "cpu" && $5 ~ /^[0-9]+$/ { print $9 }' "$hog_log")
        stats=$(hist_stats "$hist")
        printf '%s\t%s\t%s\t%s\t%s\n' "$cond" "$rep" "$(tr ' ' '\t' <<<"$stats")" \
                "${ops:-NA}" "$topo" >>"$out/latency.tsv"
        printf '  %-8s %-10s #%s  p50/p99/p99.9/max us: %s  hog ops/s %s\n' "$topo" "$cond" "$rep" \
                "$(cut -d' ' -f1-4 <<<"$stats")" "${ops:-NA}"
        printf '      groups: %s\n' "$groups"
}

# The table: medians per topology and condition, ratios against the base of
# the same topology; then base against latniced, the comparison that counts.
summarize_latency() {
        local top_note=""
        [ "$cg_top_factor" = 1 ] || top_note=", top group at ${cg_top_factor}x the default weight"
        {
                echo "# sched-effect latency: $hogs hogs on $(nproc) CPUs, $sleeper_kind 1 ms period, ${duration}s x $repeats, $(uname -r), autogroup=$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null)${cg_kind:+, cgroups: $cg_kind cpu at $cg_mount$top_note}"
                echo "# medians over repeats; x = baseline p99.9 / condition p99.9 of the same topology (higher is better)"
                printf '| %-8s | %-10s | %8s | %8s | %8s | %8s | %7s | %7s | %10s |\n' \
                        topology condition "p50 us" "p99 us" "p99.9 us" "max us" "p99 x" "p99.9 x" "hog ops/s"
                echo "|----------|------------|----------|----------|----------|----------|---------|---------|------------|"
                cat "$out/na.tsv" "$out/latency.tsv" | awk -F'\t' \
                        -v order="$conditions" -v topos="$topologies" '
                        function median(list,   a, n, i, j, t) {
                                n = split(list, a, " ")
                                for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
                                        if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
                                if (n == 0) return "NA"
                                return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
                        }
                        function ratio(b, c) { return (b > 0 && c > 0) ? sprintf("%.1f", b / c) : "-" }
                        NF == 3 { na[$1, $2] = 1; next }
                        {
                                k = $9 SUBSEP $1
                                for (f = 3; f <= 6; f++) v[k, f] = v[k, f] " " $f
                                v[k, 8] = v[k, 8] " " $8
                                n999[k]++
                        }
                        END {
                                nt = split(topos, t, " "); nc = split(order, c, " ")
                                for (i = 1; i <= nt; i++) {
                                        b = t[i] SUBSEP "base"
                                        bp99[i] = median(v[b, 4]); bp999[i] = median(v[b, 5])
                                        for (j = 1; j <= nc; j++) {
                                                k = t[i] SUBSEP c[j]
                                                if ((t[i], c[j]) in na) {
                                                        printf "| %-8s | %-10s | %8s | %8s | %8s | %8s | %7s | %7s | %10s |\n",
                                                                t[i], c[j], "n/a", "n/a", "n/a", "n/a", "n/a", "n/a", "n/a"
                                                        continue
                                                }
                                                if (!((k, 3) in v)) continue
                                                p99 = median(v[k, 4]); p999 = median(v[k, 5])
                                                printf "| %-8s | %-10s | %8s | %8s | %8s | %8s | %7s | %7s | %10s |\n",
                                                        t[i], c[j], median(v[k, 3]), p99, p999, median(v[k, 6]),
                                                        ratio(bp99[i], p99), ratio(bp999[i], p999), median(v[k, 8])
                                        }
                                }
                                for (i = 1; i <= nt; i++) {
                                        k = t[i] SUBSEP "alone"
                                        if (!((k, 5) in v) || bp999[i] == "NA") continue
                                        printf "# %s: the sleeper alone (no hogs) p99.9 %s us, p99 %s us (%sx and %sx below the baseline); an idle vCPU halts and wakes through the host, so this is no lower bound\n",
                                                t[i], median(v[k, 5]), median(v[k, 4]), ratio(bp999[i], median(v[k, 5])),
                                                ratio(bp99[i], median(v[k, 4]))
                                }
                                for (i = 1; i <= nt; i++) {
                                        k = t[i] SUBSEP "latniced"
                                        if (!((k, 5) in v) || bp999[i] == "NA") continue
                                        printf "# %s: latniced against base, p99.9 %s -> %s us: %sx (medians of %d and %d runs)\n",
                                                t[i], bp999[i], median(v[k, 5]), ratio(bp999[i], median(v[k, 5])),
                                                n999[t[i] SUBSEP "base"], n999[k]
                                }
                        }'
        } | tee "$out/latency.md"
}

# ---- throughput part -----------------------------------------------------------
# A build-like background job: compile bench/setattr.c $jobs times, $(nproc)
# at a time. Foreground: hackbench (messaging between process groups).
build_job() { # wrapper...
        local t0 t1 dir
        dir=$(mktemp -d "$out/cc.XXXXXX")
        t0=$(date +%s.%N)
        seq "$jobs" | "$@" xargs -P "$(nproc)" -I{} cc -O2 -c "$here/setattr.c" -o "$dir/{}.o"
        t1=$(date +%s.%N)
        rm -rf "$dir"
        echo "$t1 - $t0" | bc
}

hackbench_time() {
        hackbench -g 4 -l "$hb_loops" 2>/dev/null | awk '/^Time:/ { print $2 }'
}

run_throughput() { # rep
        local rep=$1 bg fg cls name
        for cls in normal nice19 idle; do
                case $cls in
                normal) w=() ;;
                nice19) w=("$setattr" --nice 19 --) ;;
                idle) w=("$setattr" --policy idle --nice 19 --) ;;
                esac
                bg=$(build_job "${w[@]}")
                printf 'alone\t%s\t%s\t%s\tNA\n' "$cls" "$rep" "$bg" >>"$out/throughput.tsv"
                # Concurrently: the build and a foreground hackbench.
                local f="$out/hb.$cls.$rep"
                ( for _ in $(seq "$hb_reps"); do hackbench_time; done >"$f" ) &
                local hb=$!
                bg=$(build_job "${w[@]}")
                wait "$hb"
                fg=$(sort -n "$f" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
                printf 'with-fg\t%s\t%s\t%s\t%s\n' "$cls" "$rep" "$bg" "$fg" >>"$out/throughput.tsv"
                printf '  %-8s #%s  build alone %6.2fs | with hackbench: build %6.2fs, hackbench %ss\n' \
                        "$cls" "$rep" "$(awk -v c="$cls" -v r="$rep" '$1 == "alone" && $2 == c && $3 == r { print $4 }' "$out/throughput.tsv")" \
                        "$bg" "$fg"
        done
}

summarize_throughput() {
        {
                echo "# sched-effect throughput: build job ($jobs compiles, -P $(nproc)) and hackbench -g 4 -l $hb_loops, medians of $repeats"
                printf '| %-8s | %14s | %20s | %20s |\n' class "build alone s" "build with fg s" "hackbench with bg s"
                echo "|----------|----------------|----------------------|----------------------|"
                awk -F'\t' '
                        function median(list,   a, n, i, j, t) {
                                n = split(list, a, " ")
                                for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
                                        if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
                                return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
                        }
                        $1 == "alone" { al[$2] = al[$2] " " $4 }
                        $1 == "with-fg" { wb[$2] = wb[$2] " " $4; wf[$2] = wf[$2] " " $5 }
                        END {
                                split("normal nice19 idle", c, " ")
                                for (i = 1; i <= 3; i++)
                                        if (c[i] in al)
                                                printf "| %-8s | %14.2f | %20.2f | %20.3f |\n", c[i],
                                                        median(al[c[i]]), median(wb[c[i]]), median(wf[c[i]])
                        }' "$out/throughput.tsv"
        } | tee "$out/throughput.md"
}

# ---- main ------------------------------------------------------------------
{
        echo "date: $(date -Is)"
        echo "kernel: $(uname -r)  cpus: $(nproc)  autogroup: $(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null)"
        bench_load before
        others=$(pgrep -x latniced | tr "\n" " " || true)
        [ -z "$others" ] || echo "WARNING: latniced already running (pid $others): results of condition latniced are not its alone"
        echo "args: duration=$duration repeats=$repeats hogs=$hogs sleeper=$sleeper_kind topologies=$topologies conditions=$conditions"
        [ -z "$cg_top" ] || echo "cgroups: $cg_kind cpu controller, sleeper in $cg_sleeper, hogs in $cg_hogs"
        echo "cyclictest: $(cyclictest --help 2>&1 | head -1)  stress-ng: $(stress-ng --version 2>&1 | head -1)"
} | tee "$out/info.txt"

if [ "$part" = latency ] || [ "$part" = all ]; then
        for rep in $(seq "$repeats"); do
                echo "latency: repeat $rep of $repeats"
                for topo in $topologies; do
                        for cond in $conditions; do
                                run_latency "$topo" "$cond" "$rep"
                        done
                done
        done
        summarize_latency
fi

if [ "$part" = throughput ] || [ "$part" = all ]; then
        jobs=$((duration * 4))
        hb_loops=$((duration * 100))
        hb_reps=3
        command -v bc >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y bc >/dev/null
        for rep in $(seq "$repeats"); do
                echo "throughput: repeat $rep of $repeats"
                run_throughput "$rep"
        done
        summarize_throughput
fi
bench_load after | tee -a "$out/info.txt"
echo "results in $out"
