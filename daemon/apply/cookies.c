/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>

#include "daemon/apply/cookies.h"
#include "lib/core-sched.h"
#include "lib/kernel-ops.h"
#include "lib/log.h"
#include "lib/macro.h"
#include "lib/proc.h"

#define CORE_BIT SETTING_BIT(SETTING_CORE_SCHED)

/* E holds a cookie latniced gave it (as its entry says). */
static bool entry_has_cookie(const Task *e)
{
        return (thread_claim_held(&e->claim) & CORE_BIT) && e->claim.expected.core_cookie != 0;
}

/* E still runs and still has that cookie: it can pass it on. */
static bool entry_cookie_alive(Applier *a, const Task *e)
{
        uint64_t st, cookie;

        if (!entry_has_cookie(e))
                return false;
        if (proc_starttime(a->ctx.proc_root, e->pid, e->tid, &st) < 0 || st != e->starttime)
                return false;
        return kernel_ops(a->ctx.kernel)->core_sched_get(e->tid, &cookie) >= 0 &&
               cookie == e->claim.expected.core_cookie;
}

/* The cookie of E is the one S asks for: the process's own (E of process
 * PID), or the rule's or the pod's (the same group). */
static bool entry_same_cookie(const Task *e, const Settings *s, pid_t pid)
{
        const CoreSchedSetting *want = &s->core_sched, *has = &e->settings.core_sched;

        if (!settings_has(&e->settings, SETTING_CORE_SCHED) || has->mode != want->mode)
                return false;
        if (want->mode == CORE_SCHED_PROCESS)
                return e->pid == pid;
        return (want->mode == CORE_SCHED_RULE || want->mode == CORE_SCHED_POD) &&
               has->group == want->group;
}

/* Some entry carries COOKIE as latniced's. */
static bool cookie_is_latniceds(const TaskTable *tasks, uint64_t cookie)
{
        size_t state = 0;
        Task *e;

        while (task_table_iterate(tasks, &state, &e))
                if (entry_has_cookie(e) && e->claim.expected.core_cookie == cookie)
                        return true;
        return false;
}

/* A living thread other than T that carries the cookie S asks for T, or 0. */
static pid_t cookie_source(Applier *a, const Task *t, const Settings *s)
{
        size_t state = 0;
        Task *e;

        /* The usual case first: the main thread got the process's cookie. */
        if (s->core_sched.mode == CORE_SCHED_PROCESS && t->tid != t->pid) {
                e = task_table_get(a->tasks, t->pid);
                if (e && entry_same_cookie(e, s, t->pid) && entry_cookie_alive(a, e))
                        return e->tid;
        }
        while (task_table_iterate(a->tasks, &state, &e))
                if (e != t && entry_same_cookie(e, s, t->pid) && entry_cookie_alive(a, e))
                        return e->tid;
        return 0;
}

void cookies_prepare(Applier *a, Task *t, const Settings *s, const SchedState *now,
                     Settings *eff)
{
        const uint64_t cur = now->core_cookie;
        bool own;

        *eff = *s;
        a->ctx.core_source = 0;
        if (!settings_has(s, SETTING_CORE_SCHED))
                return;

        own = entry_has_cookie(t) && t->claim.expected.core_cookie == cur;
        if (cur != 0 && !own) {
                if (!cookie_is_latniceds(a->tasks, cur)) {
                        eff->mask &= ~CORE_BIT;
                        log_debug("%d/%d (%s): has a core scheduling cookie latniced did not "
                                  "set, leaving it.",
                                  (int)t->pid, (int)t->tid, strna(t->comm));
                        return;
                }
                /* Inherited from a process latniced gave it to. */
                if (!(thread_claim_held(&t->claim) & CORE_BIT))
                        t->claim.orig.core_cookie = 0;
        }
        if (s->core_sched.mode == CORE_SCHED_NONE)
                return;
        if (own && entry_same_cookie(t, s, t->pid))
                a->ctx.core_source = t->tid; /* keep it */
        else
                a->ctx.core_source = cookie_source(a, t, s);
}

void cookies_applied(Applier *a, const Task *t, uint32_t unsupported)
{
        if (!(unsupported & CORE_BIT) || a->core_sched_warned)
                return;
        a->core_sched_warned = true;
        log_notice("%d (%s): CoreSched= ignored: this kernel cannot do core scheduling (no "
                   "CONFIG_SCHED_CORE, or no SMT sibling online; see latnicectl kernel). "
                   "Reported once; the rule's other settings apply.",
                   (int)t->pid, strna(t->comm));
}
