/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The real kernel behind the seam of lib/kernel-ops.h: the wrappers that
 * were called directly before.
 */
#include <errno.h>
#include <sys/resource.h>

#include "lib/core-sched.h"
#include "lib/ioprio.h"
#include "lib/kernel-ops.h"
#include "lib/util.h"

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
        .self_switches = real_self_switches,
};
