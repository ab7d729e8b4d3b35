/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ln-getattr: print the scheduler attributes of threads as the kernel
 * reports them, independently of latniced and lib/ (raw sched_getattr() and
 * /proc only), for the integration tests (not installed).
 *
 *   ln-getattr [--json] TID...
 *
 * One line per tid, fields in this order:
 *   tid=123 policy=other nice=0 rt_priority=0 slice_ns=1400000 custom_slice=no
 *       latency_nice=n/a util_min=0 util_max=1024 timerslack_ns=50000
 *       reset_on_fork=no
 * (on one line). slice_ns is sched_runtime as read back (0 for RT/DL);
 * custom_slice is "yes" when it differs from the base slice
 * (/sys/kernel/debug/sched/base_slice_ns, else 0.7 ms * (1 + ilog2(min(ncpus, 8))));
 * latency_nice is "n/a" when the kernel returns no 60-byte attr; util_min/max
 * "n/a" when it returns less than 56 bytes; timerslack_ns "n/a" when
 * /proc/TID/timerslack_ns is unreadable; reset_on_fork is SCHED_FLAG_RESET_ON_FORK
 * in sched_flags. With --json: one JSON object per
 * line, the same keys, null for n/a, booleans for custom_slice.
 * Exit status: 0; 1 if any tid could not be read (message on stderr, the
 * other tids are still printed); 2 on usage errors.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct attr {
        uint32_t size, policy;
        uint64_t flags;
        int32_t nice;
        uint32_t priority;
        uint64_t runtime, deadline, period;
        uint32_t util_min, util_max;
        int32_t latency_nice;
} __attribute__((packed));

static const char *policy_name(uint32_t p)
{
        static const char *const names[] = { "other", "fifo", "rr", "batch", "iso", "idle",
                                             "deadline", "ext" };
        return p < sizeof(names) / sizeof(names[0]) ? names[p] : "unknown";
}

static uint64_t base_slice(void)
{
        unsigned long long v = 0;
        FILE *f = fopen("/sys/kernel/debug/sched/base_slice_ns", "re");
        long n;
        unsigned log2 = 0;

        if (f) {
                int ok = fscanf(f, "%llu", &v) == 1;
                fclose(f);
                if (ok && v > 0)
                        return v;
        }
        n = sysconf(_SC_NPROCESSORS_ONLN);
        n = n < 1 ? 1 : n > 8 ? 8 : n;
        while (n >>= 1)
                log2++;
        return 700000ULL * (1 + log2);
}

static bool read_slack(int tid, unsigned long long *ret)
{
        char p[64];
        FILE *f;
        bool ok;

        snprintf(p, sizeof(p), "/proc/%d/timerslack_ns", tid);
        f = fopen(p, "re");
        if (!f)
                return false;
        ok = fscanf(f, "%llu", ret) == 1;
        fclose(f);
        return ok;
}

int main(int argc, char **argv)
{
        bool json = false;
        int ret = 0, first = 1;
        uint64_t base = base_slice();

        if (argc > 1 && strcmp(argv[1], "--json") == 0) {
                json = true;
                first = 2;
        }
        if (first >= argc) {
                fprintf(stderr, "usage: ln-getattr [--json] TID...\n");
                return 2;
        }

        for (int i = first; i < argc; i++) {
                struct attr a;
                unsigned long long slack;
                char *end;
                long tid = strtol(argv[i], &end, 10);
                bool fair, has_slack, has_util, has_ln, custom;
                char lnbuf[16] = "n/a", umin[16] = "n/a", umax[16] = "n/a", sl[32] = "n/a";

                if (*end || end == argv[i] || tid <= 0 || tid > INT32_MAX) {
                        fprintf(stderr, "ln-getattr: invalid tid: %s\n", argv[i]);
                        return 2;
                }
                memset(&a, 0, sizeof(a));
                if (syscall(SYS_sched_getattr, (int) tid, &a, sizeof(a), 0) < 0) {
                        fprintf(stderr, "ln-getattr: tid %ld: %s\n", tid, strerror(errno));
                        ret = 1;
                        continue;
                }
                fair = a.policy == 0 || a.policy == 3 || a.policy == 5;
                if (!fair)
                        a.runtime = 0;
                custom = fair && a.runtime != 0 && a.runtime != base;
                has_ln = a.size >= 60;
                has_util = a.size >= 56;
                has_slack = read_slack((int) tid, &slack);
                if (has_ln)
                        snprintf(lnbuf, sizeof(lnbuf), "%d", a.latency_nice);
                if (has_util) {
                        snprintf(umin, sizeof(umin), "%u", a.util_min);
                        snprintf(umax, sizeof(umax), "%u", a.util_max);
                }
                if (has_slack)
                        snprintf(sl, sizeof(sl), "%llu", slack);

                if (json)
                        printf("{\"tid\":%ld,\"policy\":\"%s\",\"nice\":%d,\"rt_priority\":%u,"
                               "\"slice_ns\":%llu,\"custom_slice\":%s,\"latency_nice\":%s,"
                               "\"util_min\":%s,\"util_max\":%s,\"timerslack_ns\":%s,"
                               "\"reset_on_fork\":%s}\n",
                               tid, policy_name(a.policy), a.nice, a.priority,
                               (unsigned long long) a.runtime, custom ? "true" : "false",
                               has_ln ? lnbuf : "null", has_util ? umin : "null",
                               has_util ? umax : "null", has_slack ? sl : "null",
                               (a.flags & 1) ? "true" : "false");
                else
                        printf("tid=%ld policy=%s nice=%d rt_priority=%u slice_ns=%llu "
                               "custom_slice=%s latency_nice=%s util_min=%s util_max=%s "
                               "timerslack_ns=%s reset_on_fork=%s\n",
                               tid, policy_name(a.policy), a.nice, a.priority,
                               (unsigned long long) a.runtime, custom ? "yes" : "no", lnbuf, umin,
                               umax, sl, (a.flags & 1) ? "yes" : "no");
        }
        return ret;
}
