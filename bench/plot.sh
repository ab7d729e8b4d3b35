#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/plot.sh: plot the wake-up latency distributions of a
# bench/sched-effect.sh run as a PNG.
#
#   bench/plot.sh [RUN_DIR] [-o FILE.png] [-c cond1,cond2,...] [-t topo1,...]
#
# RUN_DIR defaults to bench/out/sched-effect-latest. For each topology and
# condition (a curve "topology/condition"; -c and -t pick some) the
# histograms of all repeats are summed, and the plot shows the fraction of
# wake-ups later than x (a complementary CDF), both axes logarithmic: the
# tail, which is what a user hears or sees, is the right-hand part.
# Default output: RUN_DIR/sched-effect.png, copied to bench/out/.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
run="$here/out/sched-effect-latest"
png=""
conds=""
topos=""

while [ $# -gt 0 ]; do
        case "$1" in
        -o) png=$2; shift 2 ;;
        -c) conds=${2//,/ }; shift 2 ;;
        -t) topos=${2//,/ }; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        -*) echo "plot: unknown option $1" >&2; exit 2 ;;
        *) run=$1; shift ;;
        esac
done

if [ ! -d "$run/hist" ]; then
        echo "plot: $run/hist not found (run bench/sched-effect.sh first)" >&2
        exit 1
fi
run=$(cd "$run" && pwd)
[ -n "$png" ] || png="$run/sched-effect.png"

if ! command -v gnuplot >/dev/null; then
        echo "plot: installing gnuplot-nox" >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y gnuplot-nox >/dev/null
fi

# Curves "topology/condition" in the order of the run (latency.tsv, whose
# 9th column is the topology; runs before topologies have none and keep
# their histograms in hist/COND.REP.txt), only those asked for.
runs=$(awk -F'\t' -v conds=" $conds " -v topos=" $topos " '
        {
                t = NF >= 9 ? $9 : ""
                if (conds != "  " && index(conds, " " $1 " ") == 0) next
                if (topos != "  " && index(topos, " " (t == "" ? "flat" : t) " ") == 0) next
                k = t == "" ? $1 : t "/" $1
                if (!seen[k]++) printf "%s ", k
        }' "$run/latency.tsv")

data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT

plots=()
for c in $runs; do
        files=("$run"/hist/"$c".*.txt)
        [ -e "${files[0]}" ] || continue
        name=${c//\//-}
        # Sum the repeats, then print "x fraction-later-than-x" per bucket.
        awk '
                /^# Histogram Overflows:/ { over += $4; next }
                /^#/ { next }
                NF >= 2 { n[$1 + 0] += $2; total += $2; if ($1 + 0 > top) top = $1 + 0 }
                END {
                        total += over
                        if (total == 0) exit
                        above = total
                        for (b = 0; b <= top; b++) {
                                if (!(b in n)) continue
                                above -= n[b]
                                if (above > 0) printf "%d %.9g\n", (b > 0 ? b : 1), above / total
                        }
                }' "${files[@]}" >"$data/$name.dat"
        [ -s "$data/$name.dat" ] || continue
        # gnuplot has 8 colours: later curves get dashed lines
        plots+=("'$data/$name.dat' using 1:2 with steps lw 2 dt $((${#plots[@]} / 8 + 1)) title '$c'")
done

if [ ${#plots[@]} -eq 0 ]; then
        echo "plot: no histograms in $run/hist" >&2
        exit 1
fi

title=$(head -1 "$run/latency.md" 2>/dev/null | sed 's/^# //; s/_/\\_/g; s/'"'"'//g')
{
        echo "set terminal pngcairo size 1200,800 font ',11'"
        echo "set output '$png'"
        echo "set title '${title:-sched-effect}' noenhanced"
        echo "set logscale xy"
        echo "set xlabel 'wake-up latency (us)'"
        echo "set ylabel 'fraction of wake-ups later than x'"
        echo "set format y '10^{%L}'"
        echo "set grid"
        echo "set key outside right top"
        echo "set xrange [1:*]"
        echo "set yrange [1e-5:1]"
        printf 'plot %s\n' "$(IFS=,; echo "${plots[*]}")"
} | gnuplot

mkdir -p "$here/out"
[ "$(dirname "$png")" = "$here/out" ] || cp "$png" "$here/out/sched-effect.png"
echo "$png"
