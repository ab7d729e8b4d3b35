/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The real kernel behind the seam of lib/kernel-ops.h: the wrappers that
 * were called directly before.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/resource.h>

#include "lib/core-sched.h"
#include "lib/ioprio.h"
#include "lib/kernel-ops.h"
#include "lib/macro.h"
#include "lib/util.h"

static int timer_slack_path(const char *proc_root, pid_t tid, char **ret)
{
        if (tid == 0)
                tid = ln_gettid();
        if (asprintf(ret, "%s/%d/timerslack_ns", proc_root ?: "/proc", (int) tid) < 0)
                return -ENOMEM;
        return 0;
}

int timer_slack_read(const char *proc_root, pid_t tid, uint64_t *ret)
{
        _cleanup_free_ char *p = NULL, *s = NULL;
        int r;

        r = timer_slack_path(proc_root, tid, &p);
        if (r < 0)
                return r;
        r = read_one_line_file(p, &s);
        if (r < 0)
                return r == -ENOENT ? -ESRCH : r;
        return safe_atou64(s, ret);
}

int timer_slack_write(const char *proc_root, pid_t tid, uint64_t ns)
{
        _cleanup_free_ char *p = NULL;
        char buf[32];
        int r;

        r = timer_slack_path(proc_root, tid, &p);
        if (r < 0)
                return r;
        snprintf(buf, sizeof(buf), "%" PRIu64, ns);
        r = write_string_file(p, buf);
        return r == -ENOENT ? -ESRCH : r;
}

static int oom_path(const char *proc_root, pid_t pid, char **ret)
{
        if (pid == 0)
                pid = getpid();
        if (asprintf(ret, "%s/%d/oom_score_adj", proc_root ?: "/proc", (int)pid) < 0)
                return -ENOMEM;
        return 0;
}

int oom_score_adj_read(const char *proc_root, pid_t pid, int *ret)
{
        _cleanup_free_ char *p = NULL, *s = NULL;
        int r, v;

        r = oom_path(proc_root, pid, &p);
        if (r < 0)
                return r;
        r = read_one_line_file(p, &s);
        if (r < 0)
                return r == -ENOENT ? -ESRCH : r;
        r = safe_atoi(s, &v);
        if (r < 0)
                return r;
        if (v < OOM_SCORE_ADJ_MIN || v > OOM_SCORE_ADJ_MAX)
                return -ERANGE;
        *ret = v;
        return 0;
}

int oom_score_adj_write(const char *proc_root, pid_t pid, int value)
{
        _cleanup_free_ char *p = NULL;
        char buf[16];
        int r;

        if (value < OOM_SCORE_ADJ_MIN || value > OOM_SCORE_ADJ_MAX)
                return -EINVAL;
        r = oom_path(proc_root, pid, &p);
        if (r < 0)
                return r;
        snprintf(buf, sizeof(buf), "%d", value);
        r = write_string_file(p, buf);
        return r == -ENOENT ? -ESRCH : r;
}

static int real_sched_getattr(pid_t tid, struct ln_sched_attr *attr, unsigned size)
{
        return ln_sched_getattr(tid, attr, size, 0);
}

static int real_sched_setattr(pid_t tid, struct ln_sched_attr *attr)
{
        return ln_sched_setattr(tid, attr, 0);
}

static int real_set_nice(pid_t tid, int nice)
{
        if (setpriority(PRIO_PROCESS, (id_t)tid, nice) < 0)
                return -errno;
        return 0;
}

static int real_affinity_get(pid_t tid, cpu_set_t *ret)
{
        CPU_ZERO(ret);
        if (sched_getaffinity(tid, sizeof(*ret), ret) < 0)
                return -errno;
        return 0;
}

static int real_affinity_set(pid_t tid, const cpu_set_t *cpus)
{
        if (sched_setaffinity(tid, sizeof(*cpus), cpus) < 0)
                return -errno;
        return 0;
}

static long real_self_switches(void)
{
        struct rusage ru;

        if (getrusage(RUSAGE_THREAD, &ru) < 0)
                return -1;
        return ru.ru_nvcsw + ru.ru_nivcsw;
}

const KernelOps kernel_ops_real = {
        .sched_getattr = real_sched_getattr,
        .sched_setattr = real_sched_setattr,
        .set_nice = real_set_nice,
        .ioprio_get = ioprio_read,
        .ioprio_set = ioprio_write,
        .timer_slack_read = timer_slack_read,
        .timer_slack_write = timer_slack_write,
        .oom_score_adj_read = oom_score_adj_read,
        .oom_score_adj_write = oom_score_adj_write,
        .core_sched_get = core_sched_get,
        .core_sched_create = core_sched_create,
        .core_sched_share = core_sched_share,
        .core_sched_clear = core_sched_clear,
        .pidfd_open = pidfd_open_process,
        .pidfd_alive = pidfd_process_alive,
        .affinity_get = real_affinity_get,
        .affinity_set = real_affinity_set,
        .self_switches = real_self_switches,
};
