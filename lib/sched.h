/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sched_setattr()/sched_getattr() wrappers with the latency-nice layout.
 *
 * struct sched_attr grew over time: 48 bytes (VER0), 56 (VER1, uclamp),
 * 64 (VER2, latency nice and a reserved field that must be 0; only kernels
 * with the latnice patch set, kernel/patches; its v2 used 60 bytes).
 */
#pragma once

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* lib/kernel-ops.h: the system calls below reach the kernel through one. */
typedef struct KernelOps KernelOps;

#define SCHED_ATTR_SIZE_VER0 48
#define SCHED_ATTR_SIZE_VER1 56
#define SCHED_ATTR_SIZE_VER2 64

#ifndef SCHED_OTHER
#define SCHED_OTHER 0
#endif
#ifndef SCHED_BATCH
#define SCHED_BATCH 3
#endif
#ifndef SCHED_IDLE
#define SCHED_IDLE 5
#endif
#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif
#ifndef SCHED_EXT
#define SCHED_EXT 7
#endif

#define LN_SCHED_FLAG_RESET_ON_FORK 0x01
#define LN_SCHED_FLAG_RECLAIM 0x02
#define LN_SCHED_FLAG_DL_OVERRUN 0x04
#define LN_SCHED_FLAG_KEEP_POLICY 0x08
#define LN_SCHED_FLAG_KEEP_PARAMS 0x10
#define LN_SCHED_FLAG_UTIL_CLAMP_MIN 0x20
#define LN_SCHED_FLAG_UTIL_CLAMP_MAX 0x40
#define LN_SCHED_FLAG_LATENCY_NICE 0x80
#define LN_SCHED_FLAG_KEEP_ALL (LN_SCHED_FLAG_KEEP_POLICY | LN_SCHED_FLAG_KEEP_PARAMS)

/* Layout of the latency-nice series (v3); 64 bytes with no padding. */
struct ln_sched_attr {
        uint32_t size;
        uint32_t sched_policy;
        uint64_t sched_flags;
        int32_t sched_nice;
        uint32_t sched_priority;
        uint64_t sched_runtime;
        uint64_t sched_deadline;
        uint64_t sched_period;
        uint32_t sched_util_min;
        uint32_t sched_util_max;
        int32_t sched_latency_nice;
        uint32_t sched_reserved; /* must be 0: the kernel refuses anything else */
} __attribute__((packed));

/* Raw syscalls; return 0 or -errno. */
int ln_sched_setattr(pid_t tid, struct ln_sched_attr *attr, unsigned flags);
/* SIZE: how many bytes to ask for (VER0..VER2). The kernel writes back the
 * size it filled in attr->size. */
int ln_sched_getattr(pid_t tid, struct ln_sched_attr *attr, unsigned size, unsigned flags);

/* The attributes latniced reads, changes and restores. */
typedef struct SchedState {
        int policy;          /* SCHED_* */
        int nice;            /* -20..19 */
        uint32_t priority;   /* RT priority */
        uint64_t slice_ns;   /* sched_runtime as read back (0 or the effective slice) */
        bool custom_slice;   /* slice was set explicitly (see sched_state_read_with_base()) */
        uint32_t util_min, util_max;
        bool has_latency_nice; /* the kernel returned a SCHED_ATTR_SIZE_VER2 attr */
        int latency_nice;
        uint64_t flags;        /* sched_flags as read back */
        /* The attributes sched_getattr() does not give (lib/task-attr.c); 0 if
         * unreadable. */
        uint64_t timer_slack_ns;
        int ioprio;              /* raw ioprio_get() (lib/ioprio.h) */
        int oom_score_adj;       /* of the thread's process */
        cpu_set_t cpu_affinity;  /* sched_getaffinity() */
        uint64_t core_cookie;    /* core scheduling cookie id (lib/core-sched.h), 0: none;
                                  * read only where CoreSched is involved (never by
                                  * sched_state_read()) */
} SchedState;

/* Read the state of TID (0: the calling thread). -ESRCH if gone.
 *
 * custom_slice: this kernel (checked on 6.18), and 6.12 with the latnice
 * patch set, reports sched_runtime as the effective slice for
 * SCHED_OTHER/BATCH/IDLE whether or not it was set explicitly; only the
 * patch set prints se.custom_slice in /proc/PID/sched. A slice is
 * therefore taken as custom when it differs from the default slice of the
 * task: BASE_SLICE_NS (KernelFeatures.base_slice_ns, ApplyContext's), or
 * with the latnice patch set and a latency nice, what the kernel derives
 * from it (latency_nice_to_slice()). An explicit slice equal to the default
 * reads as default, which behaves the same. */
int sched_state_read_with_base(pid_t tid, uint64_t base_slice_ns, SchedState *ret);
/* The same without the attributes sched_getattr() does not give (one
 * syscall, no file): those are 0 (lib/task-attr.h task_attr_extra_mask()).
 * For callers that compare or restore only the others. */
int sched_state_read_attr_with_base(pid_t tid, uint64_t base_slice_ns, SchedState *ret);
/* The same two through the kernel K (NULL: the real one; lib/kernel-ops.h). */
int sched_state_read_ops(const KernelOps *k, pid_t tid, uint64_t base_slice_ns, SchedState *ret);
int sched_state_read_attr_ops(const KernelOps *k, pid_t tid, uint64_t base_slice_ns,
                              SchedState *ret);

/*
 * For callers without the probed base slice at hand: the same with
 * sched_base_slice(), base_slice_read() taken once per process and never
 * set from outside. Callers that have a KernelFeatures or an ApplyContext
 * pass its base_slice_ns to the functions above instead.
 */
int sched_state_read(pid_t tid, SchedState *ret);
int sched_state_read_attr(pid_t tid, SchedState *ret);
uint64_t sched_base_slice(void);

/* True for SCHED_OTHER, SCHED_BATCH and SCHED_IDLE (the fair class). */
bool sched_policy_is_fair(int policy);

/* /proc/TID/timerslack_ns (per thread: the /proc/TID directory of a
 * non-leader thread is that thread; /proc/PID/task/TID/timerslack_ns does not
 * exist on 6.18). PROC_ROOT NULL means "/proc", TID 0 the calling thread.
 * Reading or writing another task's needs CAP_SYS_NICE. Writing 0 resets the
 * slack to the task's default. Through the real kernel of lib/kernel-ops.h
 * (lib/task-attr.c). */
int timer_slack_read(const char *proc_root, pid_t tid, uint64_t *ret);
int timer_slack_write(const char *proc_root, pid_t tid, uint64_t ns);
