#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Run bench/policy-scale on the shipped default policy, the CachyOS ananicy
# rule set converted to one policy file, and 1,000 / 10,000 / 100,000
# generated name rules; print a table.
#
#   bench/policy-scale.sh [BUILD_DIR] [--counts "N ..."] [--no-build]
#
# BUILD_DIR defaults to build. --counts: the generated rule set sizes
# (default "1000 10000 100000"). --no-build: use BUILD_DIR/bench/policy-scale
# as it is instead of running ninja first (the smoke test).
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
counts="1000 10000 100000"
do_build=1
while [ $# -gt 0 ]; do
        case "$1" in
        --counts) counts=$2; shift 2 ;;
        --no-build) do_build=0; shift ;;
        -*) echo "policy-scale: unknown option $1" >&2; exit 2 ;;
        *) build=$1; shift ;;
        esac
done
bin=$build/bench/policy-scale
if [ $do_build -eq 1 ]; then
        # A fresh clone has no build directory yet.
        [ -f "$build/build.ninja" ] || meson setup "$build" >/dev/null
        ninja -C "$build" bench/policy-scale cli/latnicectl >/dev/null
fi
[ -x "$bin" ] || { echo "policy-scale: $bin not built" >&2; exit 1; }
# The machine it runs on, first (bench/machine.sh, docs/benchmarks.md).
bash "$(dirname "$0")/machine.sh" "$build/cli/latnicectl"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

runs=()
if [ -d policy/default ] && ls policy/default/*.policy >/dev/null 2>&1; then
        runs+=("$("$bin" --dir policy/default --label default)")
fi
# A real ananicy rule set (CachyOS's), converted by latnicectl itself.
data=${LATNICE_ANANICY_RULES:-}
if [ -n "$data" ] && [ -d "$data" ]; then
        "$build/cli/latnicectl" import-ananicy "$data" -o "$out/cachyos.policy" >/dev/null 2>&1 ||
                echo "policy-scale: latnicectl import-ananicy $data failed" >&2
        [ -s "$out/cachyos.policy" ] &&
                runs+=("$("$bin" --file "$out/cachyos.policy" --label cachyos)")
else
        echo "policy-scale: no ananicy rule set (LATNICE_ANANICY_RULES=DIR), skipping it" >&2
fi
for n in $counts; do
        runs+=("$("$bin" --generate $n --label "generated-$n")")
done

printf '%-18s %8s %10s %10s %10s %10s %12s %12s\n' set rules load_ms match_ns hit_ns miss_ns rss_before rss_after
for line in "${runs[@]}"; do
        declare -A v=()
        for kv in $line; do v[${kv%%=*}]=${kv#*=}; done
        printf '%-18s %8s %10s %10s %10s %10s %9s KiB %9s KiB\n' "${v[label]}" "${v[rules]}" \
                "${v[load_ms]}" "${v[match_ns]}" "${v[match_hit_ns]}" "${v[match_miss_ns]}" \
                "${v[rss_before_kib]}" "${v[rss_after_kib]}"
        unset v
done
