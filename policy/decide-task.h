/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The front door of decisions: everything "what does the policy give this
 * process" needs, built in one place, from what a caller has.
 *
 * latniced's applier (daemon/apply/apply.c), its D-Bus Explain and ExplainThreads
 * (daemon/manager.c) and latnicectl explain (cli/explain.c) call
 * task_decide() and nothing else to decide. It builds
 *
 *   the snapshot    proc_task_read() of what the policy's keys need
 *                   (policy_read_plan()) and what the caller adds;
 *   the [Unit] base unit_task_base() (policy/unit-base.h): the per-task
 *                   settings of the [Unit] sections around the process's
 *                   cgroup, judged by the cpu.* files under CGROUP_ROOT;
 *   the rule name   of that base: "unit:NAME.service" ("unit" without one);
 *   the boost facts a BoostFactsCache of the process, read only when a
 *                   boost is at stake (policy/decide.h);
 *
 * and returns the process's Decision and, on request, one per thread
 * (when the policy has thread: rules). task_decide_thread() decides one
 * more thread on what was built (the applier goes through the threads
 * itself).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/proc.h"
#include "lib/trust.h"
#include "policy/decide.h"
#include "policy/policy.h"

typedef struct ThreadDecision {
        pid_t tid;
        char *name;            /* the thread's name (owned) */
        Decision d;            /* its withheld_reason points to REASON */
        char *reason;          /* owned copy of the reason */
} ThreadDecision;

/* What task_decide() built (task_decision_done() frees it). The names
 * are short because the applier keeps these as its evaluations. */
typedef struct TaskDecision {
        const Policy *policy;  /* borrowed, as given */
        ProcTask *p;           /* the snapshot */
        Settings base;         /* the [Unit] base (HAS_BASE) */
        bool has_base;
        char *base_rule;       /* its name: "unit:x.service", or "unit" */
        BoostFactsCache facts; /* the process's boost facts, read on first use */
        Decision d;            /* the process's (or thread TID's) decision */
        char *reason;          /* owned copy of D's withheld_reason (but a revoked one,
                                * which is the caller's) */
        ThreadDecision *threads; /* DecideRequest.threads: every thread's, by tid */
        size_t n_threads;
} TaskDecision;

typedef struct DecideRequest {
        const Policy *policy;
        const char *proc_root;         /* NULL: "/proc" */
        const char *cgroup_root;       /* the cgroup2 tree of [Unit] sections; NULL: no base */
        pid_t pid;
        pid_t tid;                     /* > 0: decide for this thread of PID (its name read) */
        /* Read besides the policy's plan: PROC_READ_STAT, PROC_READ_FRESH, or
         * PROC_READ_TASK | PROC_READ_ANCESTORS for a caller that shows it all. */
        ProcReadPlan read;
        /* Of the policy's plan, what PREPARE fills itself (PROC_READ_NAMES,
         * PROC_READ_ANCESTORS from a cache): left out of the read. */
        ProcReadPlan prepared;
        /* Called with the snapshot, before deciding: fill what PREPARED left
         * out, set td->facts.revoked. A negative errno fails task_decide(). */
        int (*prepare)(void *userdata, TaskDecision *td);
        void *userdata;
        /* A kernel thread or a zombie is not decided on: task_decide()
         * returns 0 with the snapshot only. */
        bool skip_untouchable;
        /* Decide every thread too (TaskDecision.threads), when the policy has
         * thread rules and no TID is given. */
        bool threads;
        uint64_t base_slice_ns;        /* for the boost facts; 0: the kernel's */
        const char *revoked;           /* every boost withheld, for this reason (borrowed) */
        MatchTrace *trace;             /* optional: every rule's verdict for the process */
} DecideRequest;

/*
 * Build and decide for REQ (see above) into *RET (zeroed first). Returns 1
 * decided; 0 for a kernel thread or zombie with REQ->skip_untouchable (only
 * RET->p is set); a negative errno: the snapshot's (-ESRCH gone, -EAGAIN a
 * cmdline read cut short, -EACCES, -EIO), PREPARE's, -ESRCH if the process
 * went while its facts were read, -ENOMEM. On failure *RET keeps what was
 * built (RET->p is NULL when the snapshot failed); task_decision_done() it
 * in every case.
 */
int task_decide(const DecideRequest *req, TaskDecision *ret);

/*
 * Decide for thread TID named NAME of TD's process, on TD's snapshot, base
 * and facts, into *RET. Its withheld_reason lives until the next decision
 * on TD. 0, -ESRCH (gone while its facts were read) or -ENOMEM.
 */
int task_decide_thread(TaskDecision *td, pid_t tid, const char *name, Decision *ret);

void task_decision_done(TaskDecision *td);
