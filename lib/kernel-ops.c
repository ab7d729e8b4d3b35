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

static int proc_number_path(const char *proc_root, pid_t tid, const char *name, char **ret)
{
        if (tid == 0)
                tid = ln_gettid();
        if (asprintf(ret, "%s/%d/%s", proc_root ?: "/proc", (int)tid, name) < 0)
                return -ENOMEM;
        return 0;
}

static int real_proc_number_read(const char *proc_root, pid_t tid, const char *name,
                                 int64_t *ret)
{
        _cleanup_free_ char *p = NULL, *s = NULL;
        int r;

        r = proc_number_path(proc_root, tid, name, &p);
        if (r < 0)
                return r;
        r = read_one_line_file(p, &s);
        if (r < 0)
                return r == -ENOENT ? -ESRCH : r;
        return safe_atoi64(s, ret);
}

static int real_proc_number_write(const char *proc_root, pid_t tid, const char *name,
                                  int64_t value)
{
        _cleanup_free_ char *p = NULL;
        char buf[32];
        int r;

        r = proc_number_path(proc_root, tid, name, &p);
        if (r < 0)
                return r;
        snprintf(buf, sizeof(buf), "%" PRIi64, value);
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

static int real_prlimit(pid_t pid, int resource, const struct rlimit *new_limit,
                        struct rlimit *old_limit)
{
        if (prlimit(pid, (__rlimit_resource_t)resource, new_limit, old_limit) < 0)
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
        .proc_number_read = real_proc_number_read,
        .proc_number_write = real_proc_number_write,
        .core_sched_get = core_sched_get,
        .core_sched_create = core_sched_create,
        .core_sched_share = core_sched_share,
        .core_sched_clear = core_sched_clear,
        .pidfd_open = pidfd_open_process,
        .pidfd_alive = pidfd_process_alive,
        .affinity_get = real_affinity_get,
        .affinity_set = real_affinity_set,
        .prlimit = real_prlimit,
        .self_switches = real_self_switches,
};
