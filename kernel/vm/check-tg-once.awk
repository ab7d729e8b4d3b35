# SPDX-License-Identifier: GPL-2.0-or-later
#
# kernel/vm/check-tg-once.awk FILE...: bug 3 of the v2 review, checked on
# the patched source by kernel/vm-test before it builds.
#
# tg->latency_nice is written under shares_mutex, and read under a runqueue
# lock without it (group_entity_slice()) and by cpu.latency.nice readers
# under no lock at all: every access must be READ_ONCE()/WRITE_ONCE(),
# except the writer's own read of the old value in
# sched_group_set_latency_nice(), which the mutex orders against every
# other write. Prints every other access as FILE:LINE: TEXT and exits 1.
#
# Why a source check: KCSAN, the tool for this, never sees these accesses.
# kernel/sched/ is built with KCSAN_SANITIZE := n upstream, and with fair.c
# instrumented by hand a 10 s race of cpu.latency.nice writes against
# wake-ups in the group (TCG, about 600 writes a second under KCSAN) gave
# no report with the plain accesses back (kernel/README.md).

FNR == 1 { fn = "" }

# A function starts at column 0: remember its name.
/^[A-Za-z_].*[A-Za-z0-9_]\(/ {
        line = $0
        sub(/\(.*/, "", line)
        n = split(line, w, /[ \t*]+/)
        fn = w[n]
}

/(^|[^A-Za-z0-9_])(tg|css_tg\([^)]*\))->latency_nice/ {
        if ($0 ~ /(READ|WRITE)_ONCE\(/)
                next
        if (fn == "sched_group_set_latency_nice" && $0 ~ /latency_nice[ \t]*==/)
                next
        text = $0
        gsub(/^[ \t]+/, "", text)
        printf "%s:%d: %s\n", FILENAME, FNR, text
        bad++
}

END { exit bad > 0 }
