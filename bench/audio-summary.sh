# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# bench/audio-summary.sh: the table and the plot of bench/real-audio.sh,
# from $out/results.tsv (one line per run). Sourced by bench/real-audio.sh.
#
#   summary        per topology and quantum, the median over the rounds of
#                  the late cycles per 10,000 of each condition, the ratios
#                  to the real-time reference, and whether latniced is
#                  within 1.1x (+1 per 10,000) of it (issue 32's goal)
#   plot_results   $out/real-audio.png (gnuplot, if installed)

# "median n": the median of the late cycles per 10,000 of one cell, and
# the number of runs it is over ("- 0" when none).
ra_median() { # topology quantum condition
        awk -F'\t' -v t="$1" -v q="$2" -v c="$3" 'NR > 1 && $2 == t && $3 == q && $4 == c && $9 == 0 { print $7 }' \
                "$out/results.tsv" | sort -g | awk '
                { v[NR] = $1 }
                END {
                        if (NR == 0) { print "- 0"; exit }
                        m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
                        printf "%.1f %d\n", m, NR
                }'
}

# The median quantum pw-profiler saw in one topology and quantum (µs).
ra_period() { # topology quantum
        awk -F'\t' -v t="$1" -v q="$2" 'NR > 1 && $2 == t && $3 == q { print $8 }' "$out/results.tsv" |
                sort -n | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "-" }'
}

ra_ratio() { # a b
        awk -v a="$1" -v b="$2" 'BEGIN {
                if (a == "-" || b == "-") print "n/a"
                else if (b == 0) print (a == 0 ? "1.00" : "inf")
                else printf "%.2f\n", a / b }'
}

summary() {
        local t q none lat rt n nl nr goal
        echo "# late cycles per 10,000 (pw-profiler: started > 1.3 quanta after the previous cycle,"
        echo "# or finished after the quantum), median of the rounds; ${duration} s per run, $jobs make jobs"
        echo
        echo "| topology | quantum | period µs | none | latniced | rt | none/rt | latniced/rt | latniced within 1.1x+1 of rt | runs none/latniced/rt |"
        echo "|---|---|---|---|---|---|---|---|---|---|"
        for t in $topologies; do
                for q in $quanta; do
                        read -r none n < <(ra_median "$t" "$q" none)
                        read -r lat nl < <(ra_median "$t" "$q" latniced)
                        read -r rt nr < <(ra_median "$t" "$q" rt)
                        goal=n/a
                        if [ "$lat" != - ] && [ "$rt" != - ]; then
                                goal=$(awk -v l="$lat" -v r="$rt" 'BEGIN { print (l <= 1.1 * r + 1) ? "yes" : "no" }')
                        fi
                        printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$t" "$q" "$(ra_period "$t" "$q")" \
                                "$none" "$lat" "$rt" "$(ra_ratio "$none" "$rt")" "$(ra_ratio "$lat" "$rt")" "$goal" "$n/$nl/$nr"
                done
        done
        echo
        echo "# runs left out (another latniced on the machine changed their processes): $(awk -F'\t' 'NR > 1 && $9 == 1' "$out/results.tsv" | wc -l)"
}

plot_results() {
        local t q c
        command -v gnuplot >/dev/null || { echo "real-audio: no gnuplot, no plot (apt-get install gnuplot-nox)" >&2; return 0; }
        {
                echo "cell none latniced rt"
                for t in $topologies; do
                        for q in $quanta; do
                                printf '%s/%s' "$t" "$q"
                                for c in none latniced rt; do
                                        printf ' %s' "$(ra_median "$t" "$q" "$c" | cut -d' ' -f1 | sed 's/^-$/0/')"
                                done
                                echo
                        done
                done
        } >"$out/summary.dat"
        {
                if gnuplot -e 'set terminal' 2>&1 | grep -qw pngcairo; then
                        echo "set terminal pngcairo size 1000,600"
                else
                        echo "set terminal png size 1000,600"
                fi
                echo "set output '$out/real-audio.png'"
                echo "set title 'PipeWire late cycles per 10,000 beside make -j$jobs (median of $rounds rounds)'"
                echo "set style data histograms"
                echo "set style histogram clustered gap 1"
                echo "set style fill solid 0.8 border -1"
                echo "set key top right autotitle columnhead"
                echo "set ylabel 'late cycles per 10,000'"
                echo "set xtics rotate by -30"
                echo "set yrange [0:*]"
                echo "plot '$out/summary.dat' using 2:xtic(1), '' using 3, '' using 4"
        } | gnuplot 2>"$out/gnuplot.err" && echo "plot: $out/real-audio.png" ||
                echo "real-audio: gnuplot failed: $(head -n 3 "$out/gnuplot.err")" >&2
}
