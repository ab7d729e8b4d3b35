/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sched_setattr()/sched_getattr() wrappers and the per-thread state reader.
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/ioprio.h"
#include "lib/kernel-ops.h"
#include "lib/latency-slice.h"
#include "lib/macro.h"
#include "lib/sched.h"
#include "lib/task-attr.h"
#include "lib/util.h"

_Static_assert(sizeof(struct ln_sched_attr) == SCHED_ATTR_SIZE_VER2, "sched_attr layout");

int ln_sched_setattr(pid_t tid, struct ln_sched_attr *attr, unsigned flags)
{
        if (syscall(SYS_sched_setattr, tid, attr, flags) < 0)
                return -errno;
        return 0;
}

int ln_sched_getattr(pid_t tid, struct ln_sched_attr *attr, unsigned size, unsigned flags)
{
        if (size > sizeof(*attr))
                return -EINVAL;
        memset(attr, 0, sizeof(*attr));
        if (syscall(SYS_sched_getattr, tid, attr, size, flags) < 0)
                return -errno;
        return 0;
}

uint64_t sched_base_slice(void)
{
        static uint64_t once;
        uint64_t v = __atomic_load_n(&once, __ATOMIC_RELAXED);

        /* Threads that race here read the same value: either store is fine. */
        if (v == 0) {
                v = base_slice_read(NULL);
                __atomic_store_n(&once, v, __ATOMIC_RELAXED);
        }
        return v;
}

bool sched_policy_is_fair(int policy)
{
        return policy == SCHED_OTHER || policy == SCHED_BATCH || policy == SCHED_IDLE;
}

int sched_state_read_attr_ops(const KernelOps *k, pid_t tid, uint64_t base_slice_ns,
                              SchedState *ret)
{
        static const unsigned sizes[] = { SCHED_ATTR_SIZE_VER2, SCHED_ATTR_SIZE_VER1,
                                          SCHED_ATTR_SIZE_VER0 };
        struct ln_sched_attr a;
        SchedState s = {};
        int r = -EINVAL;

        /* Ask for the largest layout; the kernel fills what it knows and
         * reports that size. Kernels that refuse a larger buffer than their
         * own get the smaller layouts. */
        for (size_t i = 0; i < ELEMENTSOF(sizes); i++) {
                r = kernel_ops(k)->sched_getattr(tid, &a, sizes[i]);
                if (r != -E2BIG && r != -EFBIG)
                        break;
        }
        if (r < 0)
                return r;

        s.policy = (int) a.sched_policy;
        s.nice = a.sched_nice;
        s.priority = a.sched_priority;
        s.flags = a.sched_flags;
        if (a.size >= SCHED_ATTR_SIZE_VER1) {
                s.util_min = a.sched_util_min;
                s.util_max = a.sched_util_max;
        }
        if (a.size >= SCHED_ATTR_SIZE_VER2) {
                s.has_latency_nice = true;
                s.latency_nice = a.sched_latency_nice;
        }
        if (sched_policy_is_fair(s.policy)) {
                uint64_t dflt = base_slice_ns;

                /* With the latnice patch set a task's default slice follows
                 * its latency nice (the same mapping as the emulation). */
                if (s.has_latency_nice && s.latency_nice != 0)
                        dflt = latency_nice_to_slice(s.latency_nice, dflt);
                s.slice_ns = a.sched_runtime;
                s.custom_slice = s.slice_ns != 0 && s.slice_ns != dflt;
        }
        *ret = s;
        return 0;
}

int sched_state_read_attr_with_base(pid_t tid, uint64_t base_slice_ns, SchedState *ret)
{
        return sched_state_read_attr_ops(NULL, tid, base_slice_ns, ret);
}

int sched_state_read_ops(const KernelOps *k, pid_t tid, uint64_t base_slice_ns, SchedState *ret)
{
        const AttrIo io = { .k = kernel_ops(k), .tid = tid };
        SchedState s;
        int r;

        r = sched_state_read_attr_ops(io.k, tid, base_slice_ns, &s);
        if (r < 0)
                return r;
        r = task_attr_read(&io, task_attr_extra_mask(true), &s);
        if (r < 0)
                return r;

        *ret = s;
        return 0;
}

int sched_state_read_with_base(pid_t tid, uint64_t base_slice_ns, SchedState *ret)
{
        return sched_state_read_ops(NULL, tid, base_slice_ns, ret);
}

int sched_state_read(pid_t tid, SchedState *ret)
{
        return sched_state_read_with_base(tid, sched_base_slice(), ret);
}

int sched_state_read_attr(pid_t tid, SchedState *ret)
{
        return sched_state_read_attr_with_base(tid, sched_base_slice(), ret);
}
