/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SetTask: settings a caller asked for by D-Bus (applier_set_manual(), see
 * apply.h), applied to every thread of a process, which is user-owned from
 * then on (the rules leave it alone until it exits or is reset).
 */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/apply/apply.h"
#include "lib/log.h"
#include "lib/macro.h"
#include "lib/proc.h"
#include "lib/sched.h"
#include "lib/util.h"

/* Puts a message for the caller of applier_set_manual() in *RET_ERROR (if it
 * wants one); MANUAL_FAIL() then yields ERR. */
_printf_(2, 3) static int manual_fail(char **ret_error, const char *fmt, ...)
{
        va_list ap;

        if (!ret_error)
                return 0;
        va_start(ap, fmt);
        if (vasprintf(ret_error, fmt, ap) < 0)
                *ret_error = NULL;
        va_end(ap);
        return 0;
}
#define MANUAL_FAIL(ret_error, err, ...) (manual_fail(ret_error, __VA_ARGS__), (err))

/* What SetTask read of the process, once: the caller's check and the apply
 * step both work on it. */
typedef struct ManualRead {
        ProcTask *p;
        pid_t *tids;
        uint64_t *starttimes;
        SchedState *states;
        size_t n;
} ManualRead;

static void manual_read_done(ManualRead *m)
{
        proc_task_free(m->p);
        free(m->tids);
        free(m->starttimes);
        free(m->states);
}

static const char *rt_policy_name(int policy)
{
        return policy == SCHED_FIFO ? "FIFO" : policy == SCHED_RR ? "RR"
               : policy == SCHED_DEADLINE ? "DEADLINE" : "EXT";
}

/*
 * SetTask, step 1: read the process and the start time and attributes of
 * each thread (threads that exit meanwhile are left out). Refused here, for
 * every caller: kernel threads, pid 1, and a process whose main thread is
 * real-time or deadline.
 */
static int manual_read(Applier *a, pid_t pid, ManualRead *m, char **ret_error)
{
        _cleanup_free_ pid_t *tids = NULL;
        size_t n_tids = 0;
        int r;

        if (pid <= 0)
                return MANUAL_FAIL(ret_error, -EINVAL, "invalid pid %d", (int)pid);
        r = proc_task_read(a->ctx.proc_root, pid, 0, PROC_READ_STAT | PROC_READ_IDS, &m->p);
        if (r < 0)
                return errno_is_gone(r) ? MANUAL_FAIL(ret_error, -ESRCH, "no such process: %d",
                                                      (int)pid)
                                        : MANUAL_FAIL(ret_error, r, "cannot read process %d: %s",
                                                      (int)pid, strerror(-r));
        if (m->p->kernel_thread)
                return MANUAL_FAIL(ret_error, -EPERM,
                                   "pid %d is a kernel thread; latniced never changes kernel "
                                   "threads",
                                   (int)pid);
        if (pid == 1)
                return MANUAL_FAIL(ret_error, -EPERM,
                                   "pid 1 is the init process; latniced does not change it");
        if (m->p->zombie)
                return MANUAL_FAIL(ret_error, -ESRCH, "%d (%s) is a zombie", (int)pid,
                                   m->p->view.names.comm);

        r = proc_threads(a->ctx.proc_root, pid, &tids, &n_tids);
        if (r < 0)
                return MANUAL_FAIL(ret_error, errno_is_gone(r) ? -ESRCH : r,
                                   "cannot list threads of %d", (int)pid);
        m->tids = calloc(MAX(n_tids, 1u), sizeof(pid_t));
        m->starttimes = calloc(MAX(n_tids, 1u), sizeof(uint64_t));
        m->states = calloc(MAX(n_tids, 1u), sizeof(SchedState));
        if (!m->tids || !m->starttimes || !m->states)
                return MANUAL_FAIL(ret_error, -ENOMEM, "out of memory");
        for (size_t i = 0; i < n_tids; i++) {
                if (proc_starttime(a->ctx.proc_root, pid, tids[i], &m->starttimes[m->n]) < 0 ||
                    sched_state_read_ops(a->ctx.kernel, tids[i], sched_base_slice(),
                                         &m->states[m->n]) < 0)
                        continue;
                if (tids[i] == pid && !sched_policy_is_fair(m->states[m->n].policy))
                        return MANUAL_FAIL(ret_error, -EPERM,
                                           "pid %d runs under SCHED_%s; latniced never changes "
                                           "real-time or deadline tasks",
                                           (int)pid, rt_policy_name(m->states[m->n].policy));
                m->tids[m->n++] = tids[i];
        }
        return 0;
}

/* SetTask, step 3: apply S to thread I of M. 1 if applied (or, dry run,
 * would be), 0 if the thread was left out, negative errno if it failed. */
static int manual_apply_thread(Applier *a, const ManualRead *m, size_t i, const Settings *s,
                               char **ret_error)
{
        pid_t pid = m->p->view.pid, tid = m->tids[i];
        uint32_t applied = 0, unsupported = 0;
        SchedState before;
        bool is_new = false;
        Task *t;
        int r;

        if (!sched_policy_is_fair(m->states[i].policy))
                return MANUAL_FAIL(ret_error, -EPERM, "%d/%d (%s) runs with policy %s",
                                   (int)pid, (int)tid, m->p->view.names.comm,
                                   strna(sched_policy_to_string(m->states[i].policy)));
        if (a->ctx.dry_run)
                return 1;

        t = task_table_get(a->tasks, tid);
        if (t && (t->pid != pid || t->starttime != m->starttimes[i])) {
                task_table_remove(a->tasks, tid);
                t = NULL;
        }
        if (!t) {
                r = task_table_add(a->tasks, pid, tid, m->starttimes[i], &t);
                if (r < 0)
                        return r;
                thread_claim_init(&t->claim, &m->states[i]);
                is_new = true;
        }

        r = settings_apply_tid(&a->ctx, tid, s, &before, &applied, &unsupported);
        if (r < 0) {
                if (is_new)
                        task_table_remove(a->tasks, tid);
                if (errno_is_gone(r))
                        return 0;
                return MANUAL_FAIL(ret_error, r, "cannot apply to %d/%d: %s", (int)pid,
                                   (int)tid, strerror(-r));
        }
        /* What was set by request is the user's; attributes latniced set
         * before and the request left alone are still its own to restore. */
        thread_claim_drop(&t->claim, applied);
        t->settings = *s;
        (void)task_set_rule(t, "manual");
        (void)task_set_comm(t, m->p->view.names.comm);
        r = task_table_set_user_owned(a->tasks, t, true);
        if (r < 0)
                return r;
        if (sched_state_read_ops(a->ctx.kernel, tid, sched_base_slice(), &t->claim.expected) < 0)
                t->claim.expected = m->states[i];
        (void)task_table_save(a->tasks, t, 0);
        a->counters.n_applied++;
        if (a->on_applied)
                a->on_applied(a->userdata, t);
        return 1;
}

int applier_set_manual(Applier *a, pid_t pid, const Settings *s, set_task_check_t check,
                       void *userdata, char **ret_error)
{
        _cleanup_free_ char *first_message = NULL;
        ManualRead m = {};
        size_t n_done = 0;
        int r, first_error = 0;

        /* Step 1: read once. */
        r = manual_read(a, pid, &m, ret_error);
        if (r < 0)
                goto finish;

        /* Step 2: the caller judges what was read, before anything changes. */
        if (check) {
                SetTaskTarget target = {
                        .pid = pid, .uid = m.p->view.uid, .comm = m.p->view.names.comm,
                        .n_threads = m.n, .tids = m.tids, .states = m.states,
                };

                r = check(&target, userdata, ret_error);
                if (r < 0)
                        goto finish;
        }

        /* CoreSched: the first thread that gets a cookie passes it on. */
        a->ctx.core_source = 0;
        /* Step 3: apply, thread by thread; the first failure is reported
         * only if no thread took the settings. */
        for (size_t i = 0; i < m.n; i++) {
                _cleanup_free_ char *msg = NULL;

                r = manual_apply_thread(a, &m, i, s, &msg);
                if (r == -ENOMEM)
                        goto finish;
                if (r > 0)
                        n_done++;
                if (r > 0 && settings_has(s, SETTING_CORE_SCHED) && a->ctx.core_source == 0)
                        a->ctx.core_source = m.tids[i];
                else if (r < 0 && first_error == 0) {
                        first_error = r;
                        first_message = TAKE_PTR(msg);
                }
        }

        r = 0;
        if (n_done == 0 && first_error < 0) {
                r = first_error;
                if (ret_error)
                        *ret_error = TAKE_PTR(first_message);
        } else if (n_done == 0)
                r = MANUAL_FAIL(ret_error, -ESRCH, "%d has no threads left", (int)pid);
        else
                log_info("%d (%s): %s by request; it is user-owned from now on.", (int)pid,
                         m.p->view.names.comm,
                         a->ctx.dry_run ? "would apply settings" : "settings applied");
finish:
        if (r == -ENOMEM && ret_error && !*ret_error)
                (void)manual_fail(ret_error, "out of memory");
        manual_read_done(&m);
        return r;
}
