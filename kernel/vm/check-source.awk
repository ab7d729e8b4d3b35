# SPDX-License-Identifier: GPL-2.0-or-later
#
# kernel/vm/check-source.awk FILE...: the two fixes of the v2 review that
# change no behaviour a test in the VM can observe, checked on the patched
# source by kernel/vm-test before it builds. Prints every finding as
# FILE:LINE: TEXT and exits 1.
#
# Bug 3: tg->latency_nice is written under shares_mutex, and read under a
# runqueue lock without it (group_entity_slice()) and by cpu.latency.nice
# readers under no lock at all: every access must be READ_ONCE()/
# WRITE_ONCE(), except the writer's own read of the old value in
# sched_group_set_latency_nice(), which the mutex orders against every
# other write. KCSAN, the tool for this, never sees these accesses:
# kernel/sched/ is built with KCSAN_SANITIZE := n upstream, and with fair.c
# instrumented by hand a 10 s race of cpu.latency.nice writes against
# wake-ups in the group (TCG, 600-6000 writes a second under KCSAN) gave no
# report with the plain accesses back (kernel/README.md).
#
# Bug 4: latency_nice_scale() runs at every deadline update and placement
# of a task or group with a latency nice: no 64-bit division there (the
# inverse weights of sched_prio_to_wmult instead). Its results differ from
# the division's by 1 ns at most, which no test can tell apart.

FNR == 1 { fn = "" }

# A function starts at column 0: remember its name.
/^[A-Za-z_].*[A-Za-z0-9_]\(/ {
        line = $0
        sub(/\(.*/, "", line)
        n = split(line, w, /[ \t*]+/)
        fn = w[n]
}

# Its end.
/^}/ { fn = "" }

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

# (a division by a literal is the compiler's)
/(div_u64|div64_u64|div64_s64|do_div|div_s64)[ \t]*\(|[^\/*]\/[ \t]*[^\/* \t0-9]/ {
        if (fn == "latency_nice_scale" && $0 !~ /^[ \t]*(\/\*|\*)/) {
                text = $0
                gsub(/^[ \t]+/, "", text)
                printf "%s:%d: %s (a division in latency_nice_scale())\n", FILENAME, FNR, text
                bad++
        }
}

END { exit bad > 0 }
