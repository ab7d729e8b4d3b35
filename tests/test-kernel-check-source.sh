#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# kernel/vm/check-source.awk is what catches bugs 3 and 4 of the kernel
# series (kernel/vm-test runs it on the patched tree); a checker that can no
# longer fail would let them back in silently. Here it reads small sources
# shaped like the series' code: the right ones pass, each wrong one fails
# and is named by line.
#
#   tests/test-kernel-check-source.sh SOURCE_ROOT
set -euo pipefail
root=${1:?source root}
awkf=$root/kernel/vm/check-source.awk
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cat >"$T/good.c" <<'C'
static u64 latency_nice_scale(u64 slice, int latency_nice)
{
	/* slice * 1024 / weight, by the inverse weight */
	slice = mul_u64_u32_shr(slice, sched_prio_to_wmult[latency_nice + 20], 22);
	return clamp_t(u64, slice, NSEC_PER_MSEC / 10, NSEC_PER_MSEC * 100);
}

static inline u64 group_entity_slice(struct sched_entity *se, u64 min_slice)
{
	return latency_nice_scale(min_slice,
				  READ_ONCE(group_cfs_rq(se)->tg->latency_nice));
}

int sched_group_set_latency_nice(struct task_group *tg, s64 latency_nice)
{
	if (tg->latency_nice == latency_nice)
		return 0;
	WRITE_ONCE(tg->latency_nice, latency_nice);
	p->latency_nice = 3;
	return slice / 2;
}

static s64 cpu_latency_nice_read_s64(struct cgroup_subsys_state *css,
				     struct cftype *cft)
{
	return READ_ONCE(css_tg(css)->latency_nice);
}
C
out=$(awk -f "$awkf" "$T/good.c") || fail "the series' shapes are flagged: $out"

# Each wrong shape in a file of its own, with the line it must name.
bad() { # name line text...
        local name=$1 line=$2
        shift 2
        printf '%s\n' "$@" >"$T/$name.c"
        if out=$(awk -f "$awkf" "$T/$name.c"); then
                fail "$name: not flagged"
        fi
        grep -q "^$T/$name.c:$line: " <<<"$out" || fail "$name: line $line not named: $out"
}
bad plain-write 3 'int sched_group_set_latency_nice(struct task_group *tg, s64 v)' '{' \
        '	tg->latency_nice = v;' '}'
bad plain-read-css 4 'static s64 cpu_latency_nice_read_s64(struct cgroup_subsys_state *css,' \
        '				     struct cftype *cft)' '{' '	return css_tg(css)->latency_nice;' '}'
bad plain-read-group 3 'static inline u64 group_entity_slice(struct sched_entity *se, u64 s)' '{' \
        '	return latency_nice_scale(s, group_cfs_rq(se)->tg->latency_nice);' '}'
bad reader-compare 3 'static bool f(struct task_group *tg)' '{' '	return tg->latency_nice == 0;' '}'
bad div-u64 3 'static u64 latency_nice_scale(u64 slice, int ln)' '{' \
        '	slice = div_u64(slice * 1024, sched_prio_to_weight[ln + 20]);' '	return slice;' '}'
bad div-slash 3 'static u64 latency_nice_scale(u64 slice, int ln)' '{' \
        '	slice = slice * 1024 / sched_prio_to_weight[ln + 20];' '	return slice;' '}'
echo "check-source.awk: the series' shapes pass, 6 wrong ones are named"
