/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inheritance: what a task cloned by a thread latniced changed has of that
 * change, and what it is to get back.
 *
 * A process or thread starts with the scheduling attributes of the thread
 * that cloned it. What latniced gave a thread because of a rule belongs to
 * that thread's reason for it, not to whatever the thread starts: a boosted
 * PipeWire, terminal or editor runs programs of its user's choosing. So
 * latniced sets SCHED_FLAG_RESET_ON_FORK with every boost (the kernel then
 * starts a clone without a negative nice, a custom slice, a latency nice or
 * utilization clamps: sched_state_forked()), and evaluates every child of
 * a boosted process at its fork: what the child still has of latniced's
 * change to its creator (the attributes the kernel never resets, such as
 * the I/O priority) and its own decision does
 * not grant goes back to the creator's original. A new thread of a
 * process latniced changed is judged the same way against the main
 * thread's entry.
 *
 * Pure functions of the task table's entries; the applier does the reads
 * and writes.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "daemon/apply/tasks.h"
#include "daemon/state/thread-claim.h"
#include "lib/sched.h"

typedef struct InheritSource {
        /* A copy of the creator's claim (daemon/state/thread-claim.h), of
         * what it may pass on: the SETTING_BITs latniced set on it and still
         * holds (thread_claim_held()), its originals and what latniced left
         * it with. A new task's claim takes from it what the task
         * inherited. */
        ThreadClaim claim;
        uint64_t base_slice_ns; /* the default slice a reset child gets (0: sched_base_slice()) */
        const char *rule;     /* the rule that changed the creator (borrowed), for listings */
} InheritSource;

/* True if what latniced set on T and still owns holds a boost for some user
 * (policy/boost.h settings_boost_mask() with no nice floor): its children
 * are then evaluated at their fork. */
bool task_boosted(const Task *t, uint64_t base_slice_ns);

/* The source for a task that T (the creator's entry) cloned. PROCESS: the
 * clone is a process of its own, which inherits the per-process attributes
 * of its parent (lib/task-attr.h; a thread shares them: they are not the
 * thread's to give back). */
void inherit_source_init(InheritSource *ret, const Task *t, bool process,
                         uint64_t base_slice_ns);

/* The attributes SRC holds that NOW (the state of the new task) still has
 * as latniced left the creator: the same value, or what the kernel made of
 * it at the clone (sched_state_forked()). */
uint32_t inherit_mask(const InheritSource *src, const SchedState *now);

/* The attributes SRC holds that NOW has neither as latniced left the
 * creator nor as the creator had them before: someone else changed them
 * (the new task itself, or whoever changed the creator between the clone
 * and now). */
uint32_t inherit_foreign(const InheritSource *src, const SchedState *now);
