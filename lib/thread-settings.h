/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Thread settings: applying Settings to one thread, restoring them, and telling whether
 * someone else changed a thread since. Shared by latniced and latnicectl
 * set/run. No policy here: the caller decided what to apply.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/probe.h"
#include "lib/sched.h"
#include "lib/settings.h"

typedef struct ApplyContext {
        /* The kernel the settings reach (lib/kernel-ops.h); NULL: the real
         * one. Tests pass a model of tasks (tests/unit/fake-kernel.h). */
        const KernelOps *kernel;
        LatencyBackend backend;  /* resolved: never _LATENCY_BACKEND_AUTO */
        uint64_t base_slice_ns;  /* for the latency nice -> slice mapping; 0: sched_base_slice() */
        bool dry_run;            /* read and decide, change nothing */
        const char *proc_root;   /* for the /proc files of attributes; NULL: "/proc" */
        /* CoreSched=process or rule: the thread whose cookie TID is to have
         * (TID itself: keep the one it has), 0: a new cookie (see
         * settings_apply_tid()). The caller picks it per process. */
        pid_t core_source;
        /* Give the thread SCHED_FLAG_RESET_ON_FORK (latniced does with every
         * boost), so that what it clones starts without a negative nice, a
         * custom slice, a latency nice or utilization clamps
         * (sched_state_forked()). settings_apply_tid() never clears a flag
         * the thread has; sched_state_restore() puts the original back.
         * The caller sets it per thread. */
        bool reset_on_fork;
        /* Policy=rr|fifo: the highest real-time priority granted (a higher
         * RealtimePriority= is lowered to it); 0: none (the policy and its
         * priority are left out as unsupported). latniced's comes from
         * latniced.conf's MaxRealtimePriority= (lib/rt-grant.h). */
        int rt_max_priority;
} ApplyContext;

/*
 * Apply the task settings of S (SETTINGS_TASK_MASK; others are ignored) to
 * thread TID:
 *   Policy        other/batch/idle, nice and slice kept
 *   Nice          setpriority(PRIO_PROCESS, tid)
 *   Slice         sched_runtime (policy and nice kept); an explicit Slice
 *                 wins over the latency-nice emulation
 *   LatencyNice   backend latency-nice: the 64-byte attr with
 *                 SCHED_FLAG_LATENCY_NICE|KEEP_ALL; backend slice: the mapped
 *                 slice (0 -> the default slice) unless Slice is present;
 *                 backend none: unsupported
 *   UtilMin/Max   SCHED_FLAG_UTIL_CLAMP_MIN/MAX|KEEP_ALL; EOPNOTSUPP makes
 *                 them unsupported, not an error
 *   the others    one write per writer group, as their descriptors say
 *                 (lib/task-attr.c: the I/O priority is one value, so a
 *                 class alone keeps the level and a level alone the class;
 *                 a per-process value is written through whichever thread;
 *                 CoreSched none takes the cookie away, process/rule gives
 *                 the cookie of C->core_source or a new one when that is 0
 *                 or TID has none while it is its own source; no CONFIG_
 *                 SCHED_CORE or SMT makes it unsupported)
 *
 * Returns 0, and then: RET_BEFORE the state read before any change (what
 * sched_state_restore() needs), RET_APPLIED the settings that now hold (in
 * dry-run: that would), RET_UNSUPPORTED those the kernel or backend cannot
 * do. A LatencyNice overridden by an explicit Slice under the slice backend
 * is in neither mask.
 * Errors: -ESRCH the thread is gone; -EBUSY the thread is SCHED_FIFO, RR,
 * DEADLINE or EXT (never touched; nothing changed); -EAGAIN its policy, nice
 * or slice changed between the read and the change (someone else, usually
 * the thread itself, is changing it; nothing changed); -EPERM/-EACCES missing
 * privilege; -EINVAL a value the kernel refused. On error the settings
 * already applied to the thread are put back (best effort) and the outputs
 * are untouched.
 */
int settings_apply_tid(const ApplyContext *c, pid_t tid, const Settings *s, SchedState *ret_before,
                       uint32_t *ret_applied, uint32_t *ret_unsupported);

/*
 * The same, from CUR: the state of TID the caller has just read (so it is
 * not read again). CUR needs the attributes sched_getattr() does not give
 * (sched_state_read() or sched_state_read_extra()) only when S has them: it
 * is what a failure puts back. CUR is what settings_apply_tid() returns in
 * RET_BEFORE. Both skip the syscall of a value CUR already has.
 */
int settings_apply_tid_from(const ApplyContext *c, pid_t tid, const SchedState *cur,
                            const Settings *s, uint32_t *ret_applied, uint32_t *ret_unsupported);

/*
 * Fill in what sched_state_read_attr() leaves out and MASK (SETTING_BITs)
 * needs (the attributes with a read() in lib/task-attr.c; PROC_ROOT NULL:
 * "/proc"). An unreadable one reads as 0, as in sched_state_read(). 0, or
 * -ESRCH if TID is gone; the others of S are untouched.
 */
int sched_state_read_extra(const KernelOps *k, const char *proc_root, pid_t tid, uint32_t mask,
                           SchedState *s);

/*
 * Put back the attributes of ORIG named by MASK (SETTING_BIT ids):
 * Policy, Nice, Slice (the custom slice or the default), LatencyNice (the
 * latency nice when ORIG has one, and the slice it may have been emulated
 * with), and every other attribute as its descriptor restores it
 * (lib/task-attr.c; a value of 0 where 0 means the default). -ESRCH if
 * gone, -EBUSY if the thread is no longer in the fair class (someone made
 * it RT: it is theirs). Unsupported attributes are skipped.
 */
int sched_state_restore(pid_t tid, const SchedState *orig, uint32_t mask);
/* Same through kernel K (NULL: the real one) with a proc root for the
 * attributes' /proc files (NULL: "/proc"). A real-time thread is -EBUSY. */
int sched_state_restore_full(const KernelOps *k, const char *proc_root, pid_t tid,
                             const SchedState *orig, uint32_t mask);
/* The same, and a thread in real time is given back to ORIG's fair policy
 * (MASK holding Policy) only when it holds GRANTED, latniced's own grant
 * as read back after it (sched_state_rt_granted(), checked on a read right
 * before the write); any other real-time thread (GRANTED NULL: every one)
 * is -EBUSY and left as it is. */
int sched_state_give_back(const KernelOps *k, const char *proc_root, pid_t tid,
                          const SchedState *orig, uint32_t mask, const SchedState *granted);

/*
 * The attributes of MASK (SETTING_BITs) in which NOW differs from EXPECTED:
 * those someone else has changed since latniced read EXPECTED. Every one of
 * MASK when one of them is in the fair class and the other is not (an RT
 * task belongs to whoever made it RT). LatencyNice emulated with the slice
 * changes with the slice.
 */
/* The priority a real-time grant of S gets under C's cap. */
int settings_rt_granted_priority(const ApplyContext *c, const Settings *s);

/* Does NOW have the real-time policy and priority latniced granted
 * (EXPECTED: as read back after the grant)? Then it is not someone else's
 * real time. */
bool sched_state_rt_granted(const SchedState *now, const SchedState *expected);

uint32_t sched_state_changed(const SchedState *now, const SchedState *expected, uint32_t mask);

/*
 * True if NOW still has the attributes of EXPECTED (typically read right
 * after settings_apply_tid()) named by MASK. A thread that left the fair
 * class never matches. Used to tell that someone else (renice, chrt, rtkit)
 * changed the thread, which then belongs to them.
 */
bool sched_state_matches(const SchedState *now, const SchedState *expected, uint32_t mask);

/*
 * The state a task cloned (fork or new thread) by a thread in state PARENT
 * starts with (kernel/sched/core.c sched_fork(); checked on 6.18 and, for
 * the latency nice, with the latnice patch set): the same, but with
 * SCHED_FLAG_RESET_ON_FORK in PARENT a negative nice becomes 0, a real-time
 * policy SCHED_OTHER at nice 0, the slice the default (BASE_SLICE_NS, 0:
 * sched_base_slice()), the latency nice 0 and the utilization clamps none
 * (0 and 1024; a kernel without uclamp reads 0 and 0, and stays so). The
 * child never has the flag. The other attributes (lib/task-attr.c) are
 * inherited as they are.
 */
void sched_state_forked(const SchedState *parent, uint64_t base_slice_ns, SchedState *ret);

/* Copy the attributes of MASK (SETTING_BITs, as sched_state_changed() tells
 * them apart) from SRC to DST; the others of DST stay. */
void sched_state_take(SchedState *dst, const SchedState *src, uint32_t mask);
