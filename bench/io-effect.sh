#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/io-effect.sh: does an I/O class on a background writer help a reader
# beside it, on this machine's disk, and what does it cost the writer?
#
# The reader reads a file of SIZE MiB with O_DIRECT (dd iflag=direct, BS
# blocks, so the page cache does not answer for the disk) and its throughput
# is what is measured. The writer writes zeros to a file of its own, also with
# O_DIRECT (a buffered writer's data reaches the disk from the kernel's
# flusher threads, which do not carry the writer's I/O priority: the class
# then has nothing to act on, see --buffered), for as long as the reader runs.
# Conditions, each changing one thing:
#   alone         the reader without a writer (the best case)
#   writer        a writer with no I/O class (best-effort at its nice's level)
#   writer-be7    the writer at ionice -c2 -n7 (IOClass=best-effort IONice=7)
#   writer-idle   the writer at ionice -c3 (IOClass=idle)
#   writer-nice19 the writer at nice 19 and no I/O class: its level follows
#                 its nice (7), what the background classes had before
# They run interleaved (A B C A B C ...) so that slow drifts of a shared disk
# hit every condition alike; the summary gives the median over the repeats of
# the reader's MB/s, the median of its ratio to "writer" in the same round,
# and the writer's MB/s meanwhile.
# Whether a class matters depends on the block device's I/O scheduler (BFQ and
# mq-deadline use it, "none" does not): it is printed with the results.
#
# usage: bench/io-effect.sh [--dir DIR] [--size MIB] [--bs SIZE] [--repeats N]
#            [--conditions c1,c2,...] [--buffered] [--out DIR] [--smoke]
#   --dir: where the two files go (default /var/tmp; not a tmpfs)
#   --smoke: 16 MiB, one repeat (checks that it still runs)
#   Exit status 77: DIR is on a file system without O_DIRECT (tmpfs).
set -euo pipefail

dir=/var/tmp
size=256
bs=64k
repeats=5
buffered=0
out=""
all_conditions="alone writer writer-be7 writer-idle writer-nice19"
conditions=$all_conditions

usage() {
        sed -n 's/^# \{0,1\}//; /^usage:/,/^Exit status/p' "$0" >&2
        exit 2
}

while [ $# -gt 0 ]; do
        case $1 in
        --dir) dir=${2:?}; shift 2 ;;
        --size) size=${2:?}; shift 2 ;;
        --bs) bs=${2:?}; shift 2 ;;
        --repeats) repeats=${2:?}; shift 2 ;;
        --conditions) conditions=${2//,/ }; shift 2 ;;
        --buffered) buffered=1; shift ;;
        --out) out=${2:?}; shift 2 ;;
        --smoke) size=16; repeats=1; shift ;;
        -h|--help) usage ;;
        *) echo "io-effect: unknown argument '$1'" >&2; usage ;;
        esac
done
for c in $conditions; do
        case " $all_conditions " in
        *" $c "*) ;;
        *) echo "io-effect: unknown condition '$c' (known: $all_conditions)" >&2; exit 2 ;;
        esac
done
[[ $size =~ ^[1-9][0-9]*$ ]] || { echo "io-effect: --size wants MiB, a positive integer, not '$size'" >&2; exit 2; }
[[ $repeats =~ ^[1-9][0-9]*$ ]] || { echo "io-effect: --repeats wants a positive integer, not '$repeats'" >&2; exit 2; }
command -v ionice >/dev/null || { echo "io-effect: ionice (util-linux) is needed" >&2; exit 1; }
# The machine it runs on, first (bench/machine.sh, docs/benchmarks.md).
bash "$(dirname "$0")/machine.sh"

work=$(mktemp -d "$dir/latnice-io-effect.XXXXXX")
[ -n "$out" ] || out=$work/out
mkdir -p "$out"
writer_pid=""
cleanup() {
        if [ -n "$writer_pid" ]; then
                kill "$writer_pid" 2>/dev/null || true
                wait "$writer_pid" 2>/dev/null || true
        fi
        rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! dd if=/dev/zero of="$work/probe" bs=4k count=1 oflag=direct status=none 2>/dev/null; then
        echo "io-effect: $dir has no O_DIRECT (tmpfs?); give --dir on a disk" >&2
        exit 77
fi

# The device under DIR and its I/O scheduler, for the record.
dev=$(df --output=source "$dir" | tail -1)
blk=$(basename "$(readlink -f "$dev")")
sched_file=/sys/class/block/$blk/queue/scheduler
[ -e "$sched_file" ] || sched_file=/sys/class/block/$(basename "$(readlink -f "/sys/class/block/$blk/..")")/queue/scheduler
scheduler=$(sed 's/.*\[\(.*\)\].*/\1/' "$sched_file" 2>/dev/null || echo unknown)

dd if=/dev/urandom of="$work/read" bs=1M count="$size" status=none
sync

# The writer: zeros, as long as it is let run; prints nothing.
start_writer() { # condition
        local flag=oflag=direct pre=()
        [ "$buffered" = 1 ] && flag=conv=notrunc
        case $1 in
        writer-be7) pre=(ionice -c2 -n7) ;;
        writer-idle) pre=(ionice -c3) ;;
        writer-nice19) pre=(nice -n19) ;;
        esac
        rm -f "$work/write"
        "${pre[@]}" dd if=/dev/zero of="$work/write" bs=1M count=$((1 << 20)) "$flag" status=none &
        writer_pid=$!
        sleep 0.5 # let it reach the disk
}

# MB/s of the writer since START_WRITER (the file's size over the time).
stop_writer() { # start_ns
        local bytes now
        kill "$writer_pid" 2>/dev/null || true
        wait "$writer_pid" 2>/dev/null || true
        writer_pid=""
        now=$(date +%s%N)
        bytes=$(stat -c %s "$work/write" 2>/dev/null || echo 0)
        rm -f "$work/write"
        awk -v b="$bytes" -v ns="$((now - $1))" 'BEGIN { printf "%.1f", b / 1e6 / (ns / 1e9) }'
}

# One run: the reader's MB/s and the writer's (or "-").
run() { # condition
        local t0 t1 wstart reader writer=-
        if [ "$1" != alone ]; then
                wstart=$(date +%s%N)
                start_writer "$1"
        fi
        t0=$(date +%s%N)
        dd if="$work/read" of=/dev/null bs="$bs" iflag=direct status=none
        t1=$(date +%s%N)
        reader=$(awk -v b="$((size * 1048576))" -v ns="$((t1 - t0))" 'BEGIN { printf "%.1f", b / 1e6 / (ns / 1e9) }')
        [ "$1" != alone ] && writer=$(stop_writer "$wstart")
        printf '%s\t%s\t%s\n' "$1" "$reader" "$writer"
}

echo "# io-effect: $size MiB read with O_DIRECT in $bs blocks, $repeats repeats, $dir on $blk" \
     "(scheduler $scheduler), writer $([ "$buffered" = 1 ] && echo buffered || echo O_DIRECT)"
: >"$out/runs.tsv"
set -- $conditions
for ((i = 0; i < repeats; i++)); do
        # rotate the order, so that no condition always follows the same one
        for ((j = 0; j < $#; j++)); do
                k=$(( (i + j) % $# + 1 ))
                run "${!k}" | tee -a "$out/runs.tsv"
        done
done

echo
echo "| condition | reader MB/s (median) | vs. writer (median of paired ratios) | writer MB/s (median) |"
echo "|---|---|---|---|"
# A ratio is taken within one round (the conditions run minutes apart at
# most), then its median over the rounds: drifts of a shared disk cancel
# better than in a ratio of medians.
awk -F'\t' -v order="$conditions" -v per_round="$#" '
function median(a, n,   i, j, t) {
        for (i = 2; i <= n; i++)
                for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
        round = int((NR - 1) / per_round)
        n[$1]++; r[$1, n[$1]] = $2; w[$1, n[$1]] = $3; inround[$1, n[$1]] = round
        byround[round, $1] = $2
}
END {
        split(order, names, " ")
        for (c in n) {
                delete x; delete y; delete z
                m = 0
                for (i = 1; i <= n[c]; i++) {
                        x[i] = r[c, i]; y[i] = w[c, i]
                        b = byround[inround[c, i], "writer"]
                        if (b > 0)
                                z[++m] = r[c, i] / b
                }
                rm[c] = median(x, n[c])
                wm[c] = y[1] == "-" ? "-" : sprintf("%.1f", median(y, n[c]))
                pr[c] = m > 0 ? sprintf("%.2fx", median(z, m)) : "-"
        }
        for (i = 1; i in names; i++) {
                c = names[i]
                printf "| %s | %.1f | %s | %s |\n", c, rm[c], pr[c], wm[c]
        }
}' "$out/runs.tsv" | tee "$out/summary.md"
