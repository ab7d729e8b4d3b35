/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel seam: every system call (and per-task /proc write) with which
 * latnice reads or changes a task's scheduling attributes, as one table of
 * function pointers. The applier reaches it through ApplyContext.kernel
 * (lib/thread-settings.h); kernel_ops_real is the kernel itself, a test
 * passes a model of tasks instead (tests/unit/fake-kernel.h), so the apply
 * logic and its races run as a normal user and deterministically.
 *
 * Each entry returns 0 (or a value, as said) or a negative errno, exactly
 * as the real one: -ESRCH for a task that is gone, -EPERM/-EACCES without
 * privilege, -EINVAL for a value the kernel refuses. The real table adds
 * nothing to the system calls but one indirect call each.
 */
#pragma once

#include <sched.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "lib/sched.h"

struct KernelOps {
        /* sched_getattr(2) of SIZE bytes (SCHED_ATTR_SIZE_VER0..2) into
         * ATTR (zeroed first); the kernel writes back the size it filled. */
        int (*sched_getattr)(pid_t tid, struct ln_sched_attr *attr, unsigned size);
        int (*sched_setattr)(pid_t tid, struct ln_sched_attr *attr);
        /* setpriority(PRIO_PROCESS, TID, NICE): the nice alone. */
        int (*set_nice)(pid_t tid, int nice);
        /* ioprio_get/ioprio_set(IOPRIO_WHO_PROCESS, TID): the raw value. */
        int (*ioprio_get)(pid_t tid, int *ret);
        int (*ioprio_set)(pid_t tid, int ioprio);
        /* PROC_ROOT/TID/NAME (PROC_ROOT NULL: "/proc", TID 0 the calling
         * thread): a per-task /proc file that holds one number, an
         * attribute's (lib/task-attr.c), read, or written in decimal. */
        int (*proc_number_read)(const char *proc_root, pid_t tid, const char *name,
                                int64_t *ret);
        int (*proc_number_write)(const char *proc_root, pid_t tid, const char *name,
                                 int64_t value);
        /* prctl(PR_SCHED_CORE) cookies of other threads (lib/core-sched.h). */
        int (*core_sched_get)(pid_t tid, uint64_t *ret);
        int (*core_sched_create)(pid_t tid);
        int (*core_sched_share)(pid_t from, pid_t tid);
        int (*core_sched_clear)(pid_t tid);
        /* sched_getaffinity(2)/sched_setaffinity(2) of thread TID: the CPUs
         * it may run on. Setting a set with no CPU of its cpuset (nor an
         * online one) is -EINVAL. */
        int (*affinity_get)(pid_t tid, cpu_set_t *ret);
        int (*affinity_set)(pid_t tid, const cpu_set_t *cpus);
        /* prlimit(2) of process PID's RESOURCE: *OLD (if not NULL) gets
         * what it had, then NEW (if not NULL) is set. A real-time grant's
         * RLIMIT_RTTIME (daemon/apply/rt-grants.h). */
        int (*prlimit)(pid_t pid, int resource, const struct rlimit *new_limit,
                       struct rlimit *old_limit);
        /* pidfd_open(2) of process PID: a close-on-exec descriptor the caller
         * close()s; and whether the process it names still runs (1), has
         * exited (0), or negative errno (lib/util.h). */
        int (*pidfd_open)(pid_t pid);
        int (*pidfd_alive)(int pidfd);
        /* Context switches of the calling thread so far, -1 if unknown
         * (getrusage(RUSAGE_THREAD)): tells guard_fair() it was switched out
         * around its read. */
        long (*self_switches)(void);
};

extern const KernelOps kernel_ops_real;

/* K, or the real kernel when K is NULL (the default of every context). */
static inline const KernelOps *kernel_ops(const KernelOps *k)
{
        return k ? k : &kernel_ops_real;
}
