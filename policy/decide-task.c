/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/macro.h"
#include "lib/util.h"
#include "policy/decide-task.h"
#include "policy/unit-base.h"

void task_decision_done(TaskDecision *td)
{
        if (!td)
                return;
        td->p = proc_task_free(td->p);
        free(td->base_rule);
        free(td->reason);
        boost_facts_cache_done(&td->facts);
        for (size_t i = 0; i < td->n_threads; i++) {
                free(td->threads[i].name);
                free(td->threads[i].reason);
        }
        free(td->threads);
        *td = (TaskDecision){};
}

/* A decision's withheld_reason may point into the facts, which the next
 * decision on them rewrites: keep a copy in *OWNED (the caller's revoked
 * reason is the caller's and stays as it is). */
static int reason_keep(const TaskDecision *td, Decision *d, char **owned)
{
        if (!d->withheld_reason || d->withheld_reason == td->facts.revoked)
                return 0;
        *owned = strdup(d->withheld_reason);
        if (!*owned)
                return -ENOMEM;
        d->withheld_reason = *owned;
        return 0;
}

/* The [Unit] base of the snapshot's cgroup, and its name. */
static int decision_base(TaskDecision *td, const char *cgroup_root)
{
        const TaskSnapshot *v = &td->p->view;

        td->has_base = unit_task_base(td->policy, cgroup_root, v->cgroup, &td->base);
        if (!td->has_base)
                return 0;
        if (v->unit ? asprintf(&td->base_rule, "unit:%s", v->unit) < 0
                    : !(td->base_rule = strdup("unit"))) {
                td->base_rule = NULL;
                return -ENOMEM;
        }
        return 0;
}

int task_decide_thread(TaskDecision *td, pid_t tid, const char *name, Decision *ret)
{
        TaskSnapshot view = td->p->view;

        view.tid = tid;
        view.thread = name;
        return policy_decide(td->policy, &view, td->has_base ? &td->base : NULL, td->base_rule,
                             &td->facts, ret, NULL);
}

/* Every thread of TD's process, decided one by one (a thread that ends
 * meanwhile is left out). */
static int decide_threads(TaskDecision *td, const char *proc_root)
{
        _cleanup_free_ pid_t *tids = NULL;
        size_t n_tids = 0;
        int r;

        r = proc_threads(proc_root, td->p->view.pid, &tids, &n_tids);
        if (r < 0)
                return r;
        td->threads = calloc(n_tids ? n_tids : 1, sizeof(ThreadDecision));
        if (!td->threads)
                return -ENOMEM;
        for (size_t i = 0; i < n_tids; i++) {
                ThreadDecision *t = &td->threads[td->n_threads];
                _cleanup_free_ char *name = NULL;

                r = proc_thread_comm(proc_root, td->p->view.pid, tids[i], &name);
                if (errno_is_gone(r))
                        continue;
                if (r < 0)
                        return r;
                r = task_decide_thread(td, tids[i], name, &t->d);
                if (r < 0)
                        return r;
                r = reason_keep(td, &t->d, &t->reason);
                if (r < 0)
                        return r;
                t->tid = tids[i];
                t->name = TAKE_PTR(name);
                td->n_threads++;
        }
        return 0;
}

int task_decide(const DecideRequest *req, TaskDecision *ret)
{
        const char *proc_root = req->proc_root ? req->proc_root : "/proc";
        ProcReadPlan plan;
        int r;

        *ret = (TaskDecision){ .policy = req->policy };
        if (!req->policy)
                return -EINVAL;
        /* A thread's name is read for TID only; for the others one by one. */
        plan = (policy_read_plan(req->policy) | req->read) & ~PROC_READ_THREAD;
        plan &= ~req->prepared;
        if (req->tid > 0)
                plan |= PROC_READ_THREAD;
        r = proc_task_read(proc_root, req->pid, req->tid, plan, &ret->p);
        if (r < 0)
                return r;
        if (req->skip_untouchable && (ret->p->kernel_thread || ret->p->zombie))
                return 0;

        ret->facts = (BoostFactsCache){ .proc_root = proc_root, .pid = req->pid,
                                        .uid = ret->p->view.uid,
                                        .base_slice_ns = req->base_slice_ns,
                                        .fresh = req->read & PROC_READ_FRESH,
                                        .revoked = req->revoked };
        if (req->prepare) {
                r = req->prepare(req->userdata, ret);
                if (r < 0)
                        return r;
        }
        r = decision_base(ret, req->cgroup_root);
        if (r < 0)
                return r;
        r = policy_decide(req->policy, &ret->p->view, ret->has_base ? &ret->base : NULL,
                          ret->base_rule, &ret->facts, &ret->d, req->trace);
        if (r < 0)
                return r;
        r = reason_keep(ret, &ret->d, &ret->reason);
        if (r < 0)
                return r;
        if (req->threads && req->tid <= 0 && policy_has_thread_rules(req->policy)) {
                r = decide_threads(ret, proc_root);
                if (r < 0)
                        return r;
        }
        return 1;
}
