/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "daemon/apply/apply.h"
#include "daemon/apply/cookies.h"
#include "daemon/apply/inherit.h"
#include "lib/core-sched.h"
#include "lib/invariant.h"
#include "lib/kernel-ops.h"
#include "lib/log.h"
#include "lib/macro.h"
#include "lib/proc.h"
#include "lib/sched.h"
#include "lib/sched-effect.h"
#include "lib/task-attr.h"
#include "lib/time-util.h"
#include "lib/util.h"
#include "policy/boost.h"
#include "policy/decide-task.h"

/* The kernel the applier changes tasks in (ApplyContext.kernel). */
static const KernelOps *kernel(const Applier *a)
{
        return kernel_ops(a->ctx.kernel);
}

void applier_init(Applier *a, TaskTable *tasks, const ApplyContext *ctx)
{
        *a = (Applier){
                .tasks = tasks,
                .ctx = *ctx,
                .respect_manual_changes = true,
        };
        if (!a->ctx.proc_root)
                a->ctx.proc_root = "/proc";
        /* A pidfd names a task of the kernel whose /proc is read: the real
         * one's at /proc, or a model's (lib/kernel-ops.h) in its own tree. */
        a->pidfds = kernel(a) != &kernel_ops_real || streq(a->ctx.proc_root, "/proc");
}

void applier_set_policy(Applier *a, const Policy *policy)
{
        a->policy = policy;
        /* Kept decisions point into the old policy. */
        proc_cache_flush(a->proc_cache);
        a->read_plan = policy_read_plan(policy);
        a->thread_rules = policy_has_thread_rules(policy);
        a->uses_ids = a->read_plan & PROC_READ_IDS;
}

Settings applier_task_settings(const MatchResult *m)
{
        Settings s = {};

        if (m->n_matched == 0)
                return s;
        s = m->settings;
        s.mask &= SETTINGS_TASK_MASK;
        return s;
}

static void log_task(int level, const Task *t, const char *fmt, ...) _printf_(3, 4);
static void log_task(int level, const Task *t, const char *fmt, ...)
{
        char pidf[32], tidf[32], *rulef = NULL, *msg = NULL;
        const char *fields[4] = {};
        size_t n = 0;
        va_list ap;
        int r;

        if (level > log_get_max_level())
                return;
        va_start(ap, fmt);
        r = vasprintf(&msg, fmt, ap);
        va_end(ap);
        if (r < 0)
                return;

        snprintf(pidf, sizeof(pidf), "LATNICE_PID=%d", (int)t->pid);
        snprintf(tidf, sizeof(tidf), "LATNICE_TID=%d", (int)t->tid);
        fields[n++] = pidf;
        fields[n++] = tidf;
        if (t->rule && asprintf(&rulef, "LATNICE_RULE=%s", t->rule) >= 0)
                fields[n++] = rulef;
        fields[n] = NULL;

        (void)log_struct_internal(level, 0, fields, "%s", msg);
        free(rulef);
        free(msg);
}

/*
 * Pid reuse. A pid names a process only while the process exists: once it
 * has exited and been reaped, the number can be given to a new task.
 * latniced learns a pid from an event, reads /proc/PID and then acts on the
 * number with sched_setattr(), setpriority() and a write to a /proc file,
 * none of which takes a pidfd. What guards it:
 *
 * - evaluate() reads the snapshot and decides first: most processes match
 *   no rule and are left at that, without a system call more. Where the
 *   policy does not follow the parent and looks at no cmdline (latniced
 *   reads the stat before a cmdline: lib/proc.h), that first snapshot has
 *   no start time (no PROC_READ_STAT: the comm from PID/comm, which costs
 *   the kernel about half of what PID/stat does); a process it finds to be changed (or
 *   restored) is read again whole, start time first, and decided again
 *   from that, so that nothing is changed on a read without a start time.
 *   A process that is to be changed (or restored) is then held by a pidfd
 *   (process_hold()), and its start time is read again and checked to be
 *   the snapshot's, and after that the pidfd to be still running
 *   (pidfd_process_alive(): a poll, no permission needed): a process that
 *   runs after the start-time read held its pid since the pidfd was opened,
 *   so the pidfd, the start time and the snapshot are of one process (a
 *   pid that changed hands during the read changed the start time). The
 *   task table keeps the start time for later (reload, exit, rescan).
 * - apply_thread() checks the pidfd again right before it reads a thread's
 *   state and changes it, and for the main thread right after: a process
 *   that still runs then held its pid all along, so every syscall reached
 *   it. Other threads (a pidfd names a process; PIDFD_THREAD needs Linux
 *   6.9) and kernels without pidfds (-ENOSYS) keep the start-time check of
 *   /proc/PID/task/TID after the syscalls, which also only finds TID as a
 *   thread of PID.
 * - When that check after the syscalls finds another task at TID, the state
 *   read just before them is put back on TID for every attribute changed.
 *
 * What remains: the process (or thread) exits, is reaped, and its number is
 * handed to a new task within the few microseconds between the last check
 * before the syscalls and the check after them. If the new task got the
 * number before the state was read, it gets exactly its own attributes back;
 * later, it gets those the old task had for the attributes latniced changed
 * (always fair-class values: an RT/DL task is never touched, and a task that
 * left the fair class is refused by the restore), or, if the number arrived
 * after the syscalls, that restore reaches a task latniced never changed.
 * This is harmless in practice: Linux hands out pids cyclically, so a number
 * comes back only after the allocator has gone once around pid_max (at
 * least 32768; 4194304 where systemd raises it) - tens of thousands of
 * forks within microseconds. The long windows (an event handled late,
 * events lost under load, a rescan) are closed.
 * Restores on reload and exit (restore_task()) check the start time right
 * before their syscalls, with the same microsecond window.
 *
 * Races with the task. A thread can change itself (a program that makes
 * itself SCHED_FIFO or calls setpriority() first thing in main(), racing
 * the exec event) or be changed by rtkit or chrt while latniced changes it.
 * The kernel has no compare-and-swap for scheduling attributes, so:
 *
 * - Nothing latniced writes can demote an RT/DL task except a sched_setattr()
 *   that changes the policy: setpriority() only sets the nice (an RT task
 *   keeps its policy), uclamp and latency nice go with KEEP_ALL, a slice
 *   with SCHED_FLAG_KEEP_POLICY, which the kernel re-checks under the
 *   runqueue lock and refuses (EINVAL) for an RT task with priority 0.
 * - Policy, nice and slice are written by one sched_setattr(), and right
 *   before it guard_fair() (lib/apply.c) reads the thread again: if it left
 *   the fair class or changed its policy, nice or slice since the state was
 *   read, nothing is written and the thread is the user's.
 * - After the change the thread is read again (thread_settle()): a policy or
 *   nice that is neither what latniced set nor what the thread had is the
 *   thread's own change, made right after latniced's; it is the user's and
 *   never restored over.
 * - Ownership is per attribute (tasks.h): an attribute someone else changed
 *   is theirs, the others are still restored.
 *
 * What remains: the thread's own change landing between guard_fair()'s
 * sched_getattr() and the sched_setattr() right after it is overwritten and
 * cannot be detected afterwards (a policy change replaces a FIFO the thread
 * has just set, and writes back the nice the guard read). guard_fair() reads
 * again when latniced was switched out around its read, so the gap is two
 * adjacent system calls, but a preemption inside the second one, before it
 * takes the runqueue lock, or a long interrupt still widens it. Measured
 * with ln-race (bench/self-change-race.sh) on 2 cores saturated
 * by two busy loops: 1 FIFO program demoted in 4,500 runs, against 1 in
 * 1,500 before (0 in 1,500 either way on an idle machine). Only a rule with
 * Policy= can demote; one that sets only nice, slice, latency nice, uclamp
 * or timer slack cannot. A nice the thread set before latniced first read it
 * is its starting state, like one inherited from its parent: a Nice= rule
 * applies to it.
 */

/* TID of PID is gone: forget its entry (and, the main thread's, its group's
 * hold). What is kept of the process (ProcCache) stays: an evaluation may
 * be using it; its exit event drops it (applier_forget()). */
static void thread_forget(Applier *a, pid_t pid, pid_t tid)
{
        Task *t = task_table_get(a->tasks, tid);

        if (t && t->pid == pid)
                task_table_remove(a->tasks, tid);
        if (tid == pid)
                group_table_release(a->groups, pid);
}

/* Is TID of PID still the task that started at STARTTIME? */
static int task_alive(Applier *a, pid_t pid, pid_t tid, uint64_t starttime)
{
        uint64_t st;
        int r;

        r = proc_starttime(a->ctx.proc_root, pid, tid, &st);
        if (r < 0)
                return errno_is_gone(r) ? 0 : r;
        return st == starttime;
}

/* Read TID's state; the attributes sched_getattr() does not give (a /proc
 * file, an ioprio) only when MASK has them: they are compared and restored
 * only then. */
static int state_read(const Applier *a, pid_t tid, uint32_t mask, SchedState *ret)
{
        SchedState s;
        int r;

        r = sched_state_read_attr_ops(a->ctx.kernel, tid, sched_base_slice(), &s);
        if (r < 0)
                return r;
        r = sched_state_read_extra(a->ctx.kernel, NULL, tid, mask, &s);
        if (r < 0)
                return r;
        *ret = s;
        return 0;
}

/* Someone else changed the attributes CHANGED of T (or made it RT): they are
 * theirs from now on, T is left alone, and only the other attributes are
 * still latniced's to restore. */
static void task_disown(Applier *a, Task *t, uint32_t changed, const char *what)
{
        if (!t->user_owned && task_table_set_user_owned(a->tasks, t, true) < 0)
                (void)log_oom();
        thread_claim_drop(&t->claim, changed);
        task_table_grant_sync(a->tasks, t);
        log_task(LOG_INFO, t, "%d/%d (%s): attributes changed by someone else%s%s.", (int)t->pid,
                 (int)t->tid, strna(t->comm), what ? ", " : "", strempty(what));
}

/* thread_claim_write_t: put back ORIG's MASK on the thread of RESTORE. */
typedef struct RestoreTo {
        const Applier *a;
        pid_t tid;
        /* The claim's expected state: a thread in real time is given back
         * only while it holds latniced's grant as read back after it
         * (sched_state_give_back()). NULL: none is. */
        const SchedState *granted;
} RestoreTo;

static int restore_write(const SchedState *orig, uint32_t mask, void *userdata)
{
        const RestoreTo *to = userdata;

        return sched_state_give_back(to->a->ctx.kernel, to->a->ctx.proc_root, to->tid, orig,
                                     mask, to->granted);
}

/* Put back the original attributes of T that are still as latniced left
 * them (if it is still the same living task in the fair class): an
 * attribute someone else changed is theirs, the others are restored. Does
 * not remove T (its claim ends). Returns 1 if restored. */
static int restore_task(Applier *a, Task *t)
{
        RestoreTo to = { a, t->tid, &t->claim.expected };
        SchedState now;
        uint32_t mask = thread_claim_held(&t->claim), theirs;
        int r;

        if (mask == 0 || a->ctx.dry_run)
                return 0;

        r = task_alive(a, t->pid, t->tid, t->starttime);
        if (r <= 0)
                return r;

        r = state_read(a, t->tid, mask, &now);
        if (r < 0)
                return errno_is_gone(r) ? 0 : r;
        if (!sched_policy_is_fair(now.policy) &&
            !sched_state_rt_granted(&now, &t->claim.expected)) {
                task_disown(a, t, mask, "now real-time: not restoring");
                return 0;
        }
        r = thread_claim_restore(&t->claim, a->respect_manual_changes ? &now : NULL, mask,
                                 restore_write, &to, &theirs);
        task_table_grant_sync(a->tasks, t);
        if (theirs)
                task_disown(a, t, theirs, theirs != mask ? "restoring the others" :
                                                           "not restoring");
        if (r == 0)
                return 0;
        if (r < 0) {
                if (errno_is_gone(r))
                        return 0;
                a->counters.n_failed++;
                return log_warning_errno(r, "Failed to restore attributes of %d/%d (%s): %m",
                                         (int)t->pid, (int)t->tid, strna(t->comm));
        }
        a->counters.n_restored++;
        log_task(LOG_DEBUG, t, "%d/%d (%s): original attributes restored.", (int)t->pid,
                 (int)t->tid, strna(t->comm));
        return 1;
}

/* A new entry for TID of PID (start time ST), whose state NOW was just read;
 * SRC is what it inherits from (daemon/apply/inherit.h): the main thread's entry
 * for a new thread, the creator's for a child of a boosted process, if any.
 * A thread created in a process that is someone else's - a thread of it is
 * user-owned, or it inherited attributes that are neither what latniced
 * gave the main thread nor what that had before - is theirs too: it gets a
 * user-owned entry and nothing is applied. What it inherited of latniced's
 * change is latniced's, with the creator's originals: apply_thread() gives
 * back what its own settings do not ask for. Returns 1 and *RET for a
 * thread to apply to, 0 if left alone. */
static int thread_new(Applier *a, pid_t pid, pid_t tid, uint64_t st, const SchedState *now,
                      const InheritSource *src, Task **ret)
{
        uint32_t inherited = 0, foreign = 0;
        bool theirs;
        Task *t;
        int r;

        if (!sched_policy_is_fair(now->policy)) {
                /* RT, deadline or sched_ext: never ours to change. */
                a->counters.n_skipped++;
                return 0;
        }
        /* Each attribute the thread inherited as latniced left its creator
         * (or as the kernel reset it at the clone), or still has as the
         * creator had it before: latniced changes them one system call after
         * another, and a thread the leader created in between (PipeWire
         * makes its data loop right after exec) has some of each. Only one
         * that is neither is someone else's change. */
        if (src) {
                inherited = inherit_mask(src, now);
                foreign = inherit_foreign(src, now);
        }
        theirs = tid != pid && (task_table_process_user_owned(a->tasks, pid) || foreign != 0);

        r = task_table_add(a->tasks, pid, tid, st, &t);
        if (r < 0)
                return r;
        thread_claim_init(&t->claim, now);
        if (theirs) {
                r = task_table_set_user_owned(a->tasks, t, true);
                if (r < 0) {
                        task_table_remove(a->tasks, tid);
                        return r;
                }
                if (src)
                        (void)task_set_rule(t, src->rule);
                a->counters.n_skipped++;
                log_task(LOG_INFO, t,
                         "%d/%d: new thread of a process someone else changed, leaving it alone.",
                         (int)pid, (int)tid);
                return 0;
        }
        /* What a new task inherited of what latniced gave the thread that
         * created it has the creator's originals as its own, not what it
         * has now, and is latniced's to give back. */
        if (inherited)
                thread_claim_inherit(&t->claim, &src->claim, inherited);
        task_table_grant_sync(a->tasks, t);
        *ret = t;
        return 1;
}

/* T holds latniced's real-time grant, and S does not ask for it as it
 * stands (a fair policy now, another real-time policy or priority, a new
 * MaxRealtimePriority=): its Policy and RealtimePriority, to give back
 * first, so that T is fair again and gets what S says like any fair
 * thread (a grant cannot be rewritten in place: the fair writer changes
 * fair threads only). 0 if T keeps it. */
static uint32_t rt_grant_stale(const Applier *a, const Task *t, const Settings *s)
{
        const uint32_t rt = SETTING_BIT(SETTING_POLICY) | SETTING_BIT(SETTING_REALTIME_PRIORITY);

        if (!task_rt_granted(t))
                return 0;
        if (settings_has(s, SETTING_POLICY) && s->policy == t->claim.expected.policy &&
            a->ctx.rt_max_priority > 0 &&
            settings_rt_granted_priority(&a->ctx, s) == (int)t->claim.expected.priority)
                return 0;
        return thread_claim_held(&t->claim) & rt;
}

/* Give back what T has of latniced's and S no longer asks for, or no
 * longer as it stands (a real-time grant: rt_grant_stale()); NOW, its
 * state, is read again after. 0 or negative errno. */
static int thread_give_back(Applier *a, Task *t, const Settings *s, SchedState *now)
{
        RestoreTo to = { a, t->tid, &t->claim.expected };
        uint32_t held = thread_claim_held(&t->claim),
                 drop = held & (~s->mask | rt_grant_stale(a, t, s));
        int r;

        if (drop && !a->ctx.dry_run) {
                /* Checked for changes by someone else just before. */
                r = thread_claim_restore(&t->claim, NULL, drop, restore_write, &to, NULL);
                if (r < 0 && !errno_is_gone(r))
                        log_debug_errno(r, "Failed to restore %d/%d: %m", (int)t->pid,
                                        (int)t->tid);
                r = state_read(a, t->tid, s->mask | held, now);
                if (r < 0)
                        return r;
        }
        thread_claim_drop(&t->claim, drop);
        task_table_grant_sync(a->tasks, t);
        return 0;
}

/* T was changed by latniced before; NOW is its state. Returns 1 if it is
 * still latniced's (what S no longer asks for is given back, NOW updated),
 * 0 if someone else changed it since (it is theirs now), negative errno. */
static int thread_recheck(Applier *a, Task *t, const Settings *s, SchedState *now)
{
        uint32_t changed;
        int r;

        if (!sched_policy_is_fair(now->policy) &&
            !sched_state_rt_granted(now, &t->claim.expected)) {
                task_disown(a, t, thread_claim_held(&t->claim), "now real-time: leaving it alone");
                a->counters.n_skipped++;
                return 0;
        }
        changed = a->respect_manual_changes ? thread_claim_changed(&t->claim, now, ~0u) : 0;
        if (changed) {
                task_disown(a, t, changed, "leaving it alone");
                a->counters.n_skipped++;
                return 0;
        }

        /* Give back what the new settings no longer ask for. */
        r = thread_give_back(a, t, s, now);
        if (r < 0)
                return r;
        /* An attribute read on its own (lib/task-attr.h) that was not
         * latniced's so far: what it is now is the thread's own (one value
         * for a writer group). */
        thread_claim_take_orig(&t->claim, now, s->mask & task_attr_extra_mask(true));
        return 1;
}

/* settings_apply_tid_from() refused T with R (-EBUSY: not in the fair class
 * any more; -EAGAIN: its policy, nice or slice changed since it was read):
 * someone else is changing it, it is theirs. A new entry of a thread that
 * became RT goes; one that changed itself stays, user-owned. */
static void thread_refused(Applier *a, Task *t, bool is_new, int r)
{
        SchedState now;
        uint32_t changed = thread_claim_held(&t->claim);

        ln_assert(r == -EBUSY || r == -EAGAIN);
        a->counters.n_skipped++;
        if (is_new && r == -EBUSY) {
                task_table_remove(a->tasks, t->tid);
                return;
        }
        if (r == -EAGAIN && state_read(a, t->tid, thread_claim_held(&t->claim), &now) >= 0)
                changed = thread_claim_changed(&t->claim, &now, ~0u);
        task_disown(a, t, changed, "while latniced was applying: leaving it alone");
}

/* The attributes sched_getattr() does not give, in T's expected state: as
 * BEFORE had them where latniced did not set them (not being ours, not
 * compared); what was written where the kernel keeps it verbatim; else as
 * the kernel has them now (the cookie is read only when latniced set it,
 * daemon/apply/cookies.h). */
static int settle_extras(Applier *a, Task *t, const SchedState *before, const Settings *s)
{
        uint32_t reread = 0;

        TASK_ATTR_FOREACH(at) {
                if (!at->read)
                        continue;
                at->take(&t->claim.expected, before);
                if (!(thread_claim_held(&t->claim) & SETTING_BIT(at->id)))
                        continue;
                if (at->expect)
                        at->expect(&t->claim.expected, s);
                else
                        reread |= SETTING_BIT(at->id);
        }
        return sched_state_read_extra(a->ctx.kernel, NULL, t->tid, reread, &t->claim.expected);
}

/* After settings_apply_tid_from() changed APPLIED on T (the pid reuse guard,
 * then what the kernel made of it). BEFORE is the state it started from.
 * Returns 1 if T keeps its entry, 0 if it was removed, negative errno. */
static int thread_settle(Applier *a, Task *t, int pidfd, const SchedState *before,
                         const Settings *s, uint32_t applied, bool is_new)
{
        const pid_t pid = t->pid, tid = t->tid;
        uint32_t lost = 0;
        int r;

        /* Pid reuse guard: a main thread whose process still runs was reached
         * by every syscall. Else, if TID now names another task, that task
         * got our settings by accident: put back what it had. */
        if (tid != pid || pidfd < 0 || kernel(a)->pidfd_alive(pidfd) != 1) {
                uint64_t st_now;

                r = proc_starttime(a->ctx.proc_root, pid, tid, &st_now);
                if (r < 0 || st_now != t->starttime) {
                        if (r >= 0 && applied) {
                                SchedState grant = { .policy = s->policy };

                                grant.priority = (uint32_t)settings_rt_granted_priority(&a->ctx,
                                                                                        s);
                                (void)sched_state_give_back(a->ctx.kernel, a->ctx.proc_root,
                                                            tid, before, applied, &grant);
                                a->counters.n_reused++;
                        }
                        task_table_remove(a->tasks, tid);
                        return r < 0 && !errno_is_gone(r) ? r : 0;
                }
        }

        /* What the kernel made of it. */
        r = sched_state_read_attr_ops(a->ctx.kernel, tid, sched_base_slice(), &t->claim.expected);
        if (r >= 0)
                r = settle_extras(a, t, before, s);
        if (r < 0) {
                task_table_remove(a->tasks, tid);
                return errno_is_gone(r) ? 0 : r;
        }
        if (thread_claim_held(&t->claim) == 0 && is_new) {
                /* Nothing this kernel supports: nothing to remember. */
                task_table_remove(a->tasks, tid);
                return 0;
        }
        task_table_grant_sync(a->tasks, t);

        /* The thread changed itself right after latniced did (see "Races
         * with the task" above): what it set is its own, never restored over. */
        if (!sched_policy_is_fair(t->claim.expected.policy) &&
            !((applied & SETTING_BIT(SETTING_POLICY)) && t->claim.expected.policy == s->policy))
                lost = thread_claim_held(&t->claim);
        else {
                int nice_left = (applied & SETTING_BIT(SETTING_NICE)) ? s->nice : before->nice;

                /* sched_getattr() shows no nice of a real-time thread. */
                if (sched_policy_is_fair(t->claim.expected.policy) &&
                    t->claim.expected.nice != nice_left)
                        lost |= SETTING_BIT(SETTING_NICE);
                if ((applied & SETTING_BIT(SETTING_POLICY)) &&
                    t->claim.expected.policy != s->policy)
                        lost |= SETTING_BIT(SETTING_POLICY);
        }
        if (lost) {
                task_disown(a, t, lost & thread_claim_held(&t->claim),
                            "right after latniced's change");
                a->counters.n_skipped++;
        }
        return 1;
}

/* The start time of thread TID of P in *RET_ST, and its table entry (NULL:
 * none, or one of a task that is gone, whose tid was reused: removed) in
 * *RET. 1 if the thread is gone (forgotten), 0, or negative errno. */
static int thread_lookup(Applier *a, const ProcTask *p, pid_t tid, uint64_t *ret_st, Task **ret)
{
        const pid_t pid = p->view.pid;
        uint64_t st;
        Task *t;
        int r;

        if (tid == pid)
                st = p->starttime;
        else {
                r = proc_starttime(a->ctx.proc_root, pid, tid, &st);
                if (r < 0) {
                        if (!errno_is_gone(r))
                                return r;
                        thread_forget(a, pid, tid);
                        return 1;
                }
        }
        t = task_table_get(a->tasks, tid);
        if (t && (t->pid != pid || t->starttime != st)) {
                task_table_remove(a->tasks, tid);
                t = NULL;
        }
        *ret_st = st;
        *ret = t;
        return 0;
}

static const InheritSource *thread_source(Applier *a, pid_t pid, pid_t tid, InheritSource *buf);

/* Has thread TID of PID, as latniced knows it, the settings S already? A
 * thread without an entry that is to get nothing has, unless it may hold
 * what it inherited of latniced's change to its process (thread_source()):
 * that goes back. */
static bool thread_has(Applier *a, pid_t pid, pid_t tid, const Settings *s)
{
        const Task *t = task_table_get(a->tasks, tid);
        InheritSource buf;

        if (!t || t->pid != pid)
                return s->mask == 0 && !thread_source(a, pid, tid, &buf);
        return !t->user_owned && settings_equal(&t->settings, s);
}

/* Dry run: say what would be applied to T, and remember it. */
static int thread_dry_run(Applier *a, Task *t, const Settings *s, const char *rule)
{
        _cleanup_free_ char *str = settings_to_string(s);

        t->settings = *s;
        log_task(LOG_INFO, t, "%d/%d (%s): would apply %s (rule %s, dry run).", (int)t->pid,
                 (int)t->tid, strna(t->comm), strna(str), strna(rule));
        if (a->on_applied)
                a->on_applied(a->userdata, t);
        return 1;
}

/* "Nice Slice": the names of the SETTING_BITs of MASK; NULL if out of
 * memory. */
static char *mask_names(uint32_t mask)
{
        char *s = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&s, &len);

        if (!f)
                return NULL;
        for (SettingId id = 0; id < _SETTING_MAX; id++)
                if (mask & SETTING_BIT(id))
                        fprintf(f, "%s%s", len > 0 || ftell(f) > 0 ? " " : "",
                                setting_to_string(id));
        if (fclose(f) != 0) {
                free(s);
                return NULL;
        }
        return s;
}

/* The entry of a thread of PID other than TID that holds a claim, for when
 * the main thread has exited while its threads run (its entry is gone with
 * it): the proc connector does not say which thread made TID, and latniced
 * gave its threads the same. NULL if none. */
static const Task *sibling_with_claim(Applier *a, pid_t pid, pid_t tid)
{
        _cleanup_free_ pid_t *tids = NULL;
        size_t n = 0;

        /* Only for a main thread that has exited, not for a process whose
         * threads alone are latniced's (thread rules): one stat read, and
         * the threads listed only then. */
        if (!task_table_has_process(a->tasks, pid) ||
            !proc_leader_exited(a->ctx.proc_root, pid) ||
            proc_threads(a->ctx.proc_root, pid, &tids, &n) < 0)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                const Task *t = tids[i] != tid ? task_table_get(a->tasks, tids[i]) : NULL;

                if (t && t->pid == pid && thread_claim_held(&t->claim) != 0)
                        return t;
        }
        return NULL;
}

/* What a new entry for TID of PID inherits from (daemon/apply/inherit.h): the
 * creator of the child process being evaluated at its fork, or for a new
 * thread the main thread's entry (another thread's if the main thread has
 * exited). NULL if nothing. BUF holds the answer. */
static const InheritSource *thread_source(Applier *a, pid_t pid, pid_t tid, InheritSource *buf)
{
        const Task *leader;

        if (a->has_inherit) {
                *buf = a->inherit;
                /* A per-process attribute: its main thread gives it back. */
                if (tid != pid)
                        thread_claim_drop(&buf->claim, task_attr_process_mask());
                return thread_claim_held(&buf->claim) ? buf : NULL;
        }
        if (tid == pid)
                return NULL;
        leader = task_table_get(a->tasks, pid);
        if (!leader || leader->pid != pid)
                leader = sibling_with_claim(a, pid, tid);
        if (!leader || thread_claim_held(&leader->claim) == 0)
                return NULL;
        inherit_source_init(buf, leader, false, a->ctx.base_slice_ns);
        return buf;
}

static void inherit_note(Applier *a, pid_t pid, pid_t tid, const InheritSource *src,
                         uint32_t back);

/* Thread TID (start time ST) of P has no entry and its own settings are
 * none: give back what it still has of latniced's change to its creator SRC,
 * the creator's originals. Nothing stays in the table. Returns 1 if
 * something was given back, 0 if not, negative errno. */
static int thread_take_back(Applier *a, const ProcTask *p, int pidfd, pid_t tid, uint64_t st,
                            const InheritSource *src)
{
        const pid_t pid = p->view.pid;
        RestoreTo to = { a, tid, NULL };
        ThreadClaim claim;
        SchedState now;
        uint32_t back;
        uint64_t st_now;
        int r;

        if (pidfd >= 0 && kernel(a)->pidfd_alive(pidfd) == 0)
                return 0;
        r = state_read(a, tid, thread_claim_held(&src->claim), &now);
        if (r < 0)
                return errno_is_gone(r) ? 0 : r;
        if (!sched_policy_is_fair(now.policy))
                return 0;
        /* What it inherited and what the creator had before differ in. */
        back = inherit_mask(src, &now);
        back &= sched_state_changed(&now, &src->claim.orig, back);
        if (back == 0)
                return 0;
        /* Its claim on what it inherited, with the creator's originals (the
         * flags stay the new task's own), given back at once. */
        thread_claim_init(&claim, &now);
        thread_claim_inherit(&claim, &src->claim, back);
        if (!a->ctx.dry_run) {
                r = thread_claim_restore(&claim, NULL, back, restore_write, &to, NULL);
                if (r < 0) {
                        if (errno_is_gone(r))
                                return 0;
                        a->counters.n_failed++;
                        return log_debug_errno(r, "Failed to give back what %d/%d inherited: %m",
                                               (int)pid, (int)tid) == -ENOMEM ? -ENOMEM : 0;
                }
                /* Pid reuse guard, as thread_settle(). */
                if (tid != pid || pidfd < 0 || kernel(a)->pidfd_alive(pidfd) != 1) {
                        r = proc_starttime(a->ctx.proc_root, pid, tid, &st_now);
                        if (r < 0 || st_now != st) {
                                if (r >= 0) {
                                        (void)sched_state_restore_full(
                                                a->ctx.kernel, a->ctx.proc_root, tid, &now,
                                                back);
                                        a->counters.n_reused++;
                                }
                                return 0;
                        }
                }
                a->counters.n_restored++;
        }
        inherit_note(a, pid, tid, src, back);
        if (LOG_INFO <= log_get_max_level()) {
                _cleanup_free_ char *names = mask_names(back);
                Task fake = { .pid = pid, .tid = tid, .rule = (char *)src->rule };

                log_task(LOG_INFO, &fake,
                         "%d/%d (%s): %s what it inherited of its creator's settings (%s, rule %s); "
                         "its own rules do not grant them.",
                         (int)pid, (int)tid, p->view.names.comm,
                         a->ctx.dry_run ? "would give back" : "gave back", strna(names),
                         strna(src->rule));
        }
        return 1;
}

/* A new entry T inherited from SRC: what S does not ask for goes back now.
 * 1, or negative errno. */
static int thread_new_give_back(Applier *a, Task *t, const InheritSource *src,
                                const Settings *s, SchedState *now)
{
        uint32_t had = thread_claim_held(&t->claim);
        int r;

        if (had == 0)
                return 1;
        r = thread_give_back(a, t, s, now);
        if (r < 0)
                return r;
        if (had & ~thread_claim_held(&t->claim))
                inherit_note(a, t->pid, t->tid, src, had & ~thread_claim_held(&t->claim));
        return 1;
}

/* settings_apply_tid_from() for TID, with SCHED_FLAG_RESET_ON_FORK when EFF
 * holds a boost: a boost never outlives its reason, what the thread clones
 * starts without it (daemon/apply/inherit.h). */
static int thread_write(Applier *a, pid_t tid, const SchedState *now, const Settings *eff,
                        uint32_t *ret_applied, uint32_t *ret_unsupported)
{
        int r;

        a->ctx.reset_on_fork =
                settings_boost_mask(eff, 20, a->ctx.base_slice_ns ?: sched_base_slice()) != 0;
        r = settings_apply_tid_from(&a->ctx, tid, now, eff, ret_applied, ret_unsupported);
        a->ctx.reset_on_fork = false;
        /* An entry owns only what was written of what it asked for. */
        ln_assert(r < 0 || (*ret_applied & ~(eff->mask & SETTINGS_TASK_MASK)) == 0);
        return r;
}

/* Thread TID of PID went away while it was read or written: forgotten. A
 * main thread gone means its process is: noted like a snapshot that found
 * it gone (Applier.snapshot_gone), so that the fork it may have made first
 * is read (applier_fork(): it exited before latniced could change it, and
 * its child never inherited the change). */
static void thread_gone(Applier *a, pid_t pid, pid_t tid)
{
        thread_forget(a, pid, tid);
        if (tid == pid)
                a->snapshot_gone = true;
}

/*
 * The real-time grant EFF asks of thread T of P, within its bounds
 * (daemon/apply/rt-grants.h): one more granted thread of P's user, and the
 * process's RLIMIT_RTTIME set first. A thread that holds its grant keeps
 * it (its limit is held again: after a crash, and in case its process's
 * entry went). Out of bounds the grant is left out of EFF (the rule's other
 * settings apply) and said: the per-user limit once per user, a cpu group
 * the kernel gives no real-time runtime once per group, else once per
 * process. -ENOMEM only.
 */
static int rt_grant_bound(Applier *a, const ProcTask *p, const Task *t, Settings *eff)
{
        const uint32_t rt = SETTING_BIT(SETTING_POLICY) | SETTING_BIT(SETTING_REALTIME_PRIORITY);
        uid_t uid = p->view.uid;
        int r;

        if (!settings_has(eff, SETTING_POLICY) || !sched_policy_is_rt(eff->policy) ||
            a->ctx.rt_max_priority <= 0)
                return 0;
        if (a->rt && uid == (uid_t)-1) {
                /* The policy reads no ids: the user is read here, for the
                 * grants only. */
                _cleanup_(proc_task_freep) ProcTask *q = NULL;

                r = proc_task_read(a->ctx.proc_root, p->view.pid, 0, PROC_READ_IDS, &q);
                if (r == -ENOMEM)
                        return r;
                if (r >= 0)
                        uid = q->view.uid;
        }
        if (!a->rt || uid == (uid_t)-1) {
                eff->mask &= ~rt;
                return 0;
        }
        if (!task_rt_granted(t) &&
            !rt_grants_user_may(a->rt, uid, p->view.pid, p->view.names.comm)) {
                eff->mask &= ~rt;
                return 0;
        }
        if (!task_rt_granted(t)) {
                r = rt_grants_group_may(a->rt, p->view.pid, t->tid,
                                        t->comm ?: p->view.names.comm);
                if (r <= 0) {
                        eff->mask &= ~rt;
                        return r;
                }
        }
        r = rt_grants_hold(a->rt, p->view.pid, p->starttime, uid);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                eff->mask &= ~rt;
                if (!errno_is_gone(r))
                        log_task(LOG_INFO, t, "%d (%s): real time withheld: its RLIMIT_RTTIME "
                                              "cannot be set: %s.",
                                 (int)p->view.pid, p->view.names.comm, strerror(-r));
        }
        return 0;
}

/* The kernel refused the grant EFF asked of T all the same (EPERM after
 * rt_grant_bound() let it through): said once. */
static void rt_grant_refused(Applier *a, const Task *t, const Settings *eff,
                             uint32_t unsupported)
{
        if (a->rt && a->ctx.rt_max_priority > 0 &&
            (eff->mask & unsupported & SETTING_BIT(SETTING_POLICY)))
                rt_grants_refused(a->rt, t->pid, t->tid, t->comm);
}

/* Apply S (empty: restore) to thread TID of process P. Returns 1 if
 * something was applied, 0 if not, negative errno on resource failure.
 *
 * The thread's state is read once before (it decides whether the thread is
 * still ours, and it is what settings_apply_tid_from() starts from and what
 * a new entry restores later) and once after (what a manual change is told
 * apart from), each with one sched_getattr(); an attribute read on its own
 * (a /proc file) only when it is involved. PIDFD (or -EBADF) holds the process: see "Pid
 * reuse" above. */
static int apply_thread(Applier *a, const ProcTask *p, int pidfd, pid_t tid, const Settings *s,
                        const char *rule, const char *thread_name)
{
        const pid_t pid = p->view.pid;
        const InheritSource *src;
        InheritSource src_buf;
        SchedState now;
        Settings eff;
        uint32_t applied = 0, unsupported = 0, read_mask;
        uint64_t st;
        Task *t;
        bool is_new = false;
        int r;

        r = thread_lookup(a, p, tid, &st, &t);
        if (r != 0)
                return r < 0 ? r : 0;
        src = t ? NULL : thread_source(a, pid, tid, &src_buf);

        if (s->mask == 0) {
                if (!t)
                        return src ? MIN(thread_take_back(a, p, pidfd, tid, st, src), 0) : 0;
                r = restore_task(a, t);
                task_table_remove(a->tasks, tid);
                return r < 0 ? r : 0;
        }

        if (t && t->user_owned) {
                a->counters.n_skipped++;
                return 0;
        }
        if (t && settings_equal(&t->settings, s) && !rt_grant_stale(a, t, s)) {
                (void)task_set_rule(t, rule);
                return 0;
        }

        /* The process must still run now: then the state read next is its own. */
        if (pidfd >= 0 && kernel(a)->pidfd_alive(pidfd) == 0) {
                thread_forget(a, pid, tid);
                return 0;
        }

        /* What the state must hold: what S sets, what was applied before (to
         * compare), and for a new task what its creator got (inheritance). */
        read_mask = s->mask | (t ? thread_claim_held(&t->claim) : 0) |
                    (src ? thread_claim_held(&src->claim) : 0);
        r = state_read(a, tid, read_mask, &now);
        if (r < 0) {
                if (errno_is_gone(r)) {
                        thread_gone(a, pid, tid);
                        return 0;
                }
                a->counters.n_failed++;
                return log_debug_errno(r, "Failed to read attributes of %d/%d: %m", (int)pid,
                                       (int)tid);
        }

        if (t)
                r = thread_recheck(a, t, s, &now);
        else {
                r = thread_new(a, pid, tid, st, &now, src, &t);
                is_new = r > 0;
                if (is_new)
                        r = thread_new_give_back(a, t, src, s, &now);
        }
        if (r <= 0) {
                if (r < 0 && errno_is_gone(r)) {
                        thread_gone(a, pid, tid);
                        return 0;
                }
                return r;
        }

        (void)task_set_rule(t, rule);
        (void)task_set_comm(t, thread_name ? thread_name : p->view.names.comm);
        cookies_prepare(a, t, s, &now, &eff);

        if (a->ctx.dry_run)
                return thread_dry_run(a, t, s, rule);
        r = rt_grant_bound(a, p, t, &eff);
        if (r < 0)
                return r;

        /* The originals are in the state file before the thread changes
         * (tasks.h); evaluate() writes the outcome. */
        (void)task_table_save(a->tasks, t, s->mask);
        r = thread_write(a, tid, &now, &eff, &applied, &unsupported);
        if (r == -EBUSY || r == -EAGAIN) {
                thread_refused(a, t, is_new, r);
                return 0;
        }
        if (r < 0) {
                if (!errno_is_gone(r)) {
                        a->counters.n_failed++;
                        log_debug_errno(r, "Failed to apply settings to %d/%d (%s): %m",
                                        (int)pid, (int)tid, strna(t->comm));
                } else if (tid == pid)
                        a->snapshot_gone = true; /* see thread_gone() */
                if (is_new || thread_claim_held(&t->claim) == 0)
                        task_table_remove(a->tasks, tid);
                return 0;
        }
        cookies_applied(a, t, unsupported);
        rt_grant_refused(a, t, &eff, unsupported);
        t->applied_ns = now_nsec(CLOCK_MONOTONIC);
        thread_claim_wrote(&t->claim, applied);
        t->settings = *s;
        /* A grant its bounds withheld is asked for again next time. */
        t->settings.mask &= eff.mask | ~(SETTING_BIT(SETTING_POLICY) |
                                         SETTING_BIT(SETTING_REALTIME_PRIORITY));

        r = thread_settle(a, t, pidfd, &now, s, applied, is_new);
        if (r <= 0)
                return r;

        a->counters.n_applied++;
        if (a->on_applied)
                a->on_applied(a->userdata, t);
        return 1;
}

/* Point P's user and group names and its ancestors into latniced's caches, and
 * set its focus and audio from the focus and audio stores
 * (borrowed: valid until the next lookup there, so again before every use
 * of a snapshot kept longer). -ENOMEM only. */
static int snapshot_borrow(Applier *a, ProcTask *p)
{
        int r;

        if (a->ids && a->uses_ids) {
                uint64_t now = now_usec(CLOCK_MONOTONIC);

                r = id_cache_user(a->ids, p->view.uid, now, &p->view.user);
                if (r >= 0)
                        r = id_cache_group(a->ids, p->view.gid, now, &p->view.group);
                if (r < 0)
                        return r;
        }
        if (a->focus) {
                FocusFact f = focus_store_lookup(a->focus, p->view.uid, p->view.pid, p->ppid,
                                                 p->view.cgroup);

                p->view.focused = focus_state_to_string(f.state);
                p->view.unfocused_usec = focus_fact_unfocused_for(&f, now_usec(CLOCK_MONOTONIC));
        }
        if (a->audio)
                p->view.audio = audio_state_to_string(
                        audio_store_lookup(a->audio, p->view.uid, p->view.pid).state);
        if (a->ancestors && (a->read_plan & PROC_READ_ANCESTORS)) {
                r = ancestor_cache_get(a->ancestors, p->ppid, &p->view.ancestors,
                                       &p->view.n_ancestors);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Hold the process of snapshot P by a pidfd before anything is changed (see
 * "Pid reuse" above). Returns 1 with *RET_PIDFD (-EBADF without pidfds: a
 * proc root of a test's own, or a kernel without them), 0 if the process
 * is gone or its pid names another one now, negative errno. */
static int process_hold(Applier *a, const ProcTask *p, int *ret_pidfd)
{
        _cleanup_close_ int pidfd = -EBADF;
        uint64_t st;
        int r;

        /* Gone since it was read (a process that forks and exits at once):
         * noted as a snapshot that found it gone, so that its fork is read
         * (applier_fork()); without it, the child of a parent that exited
         * between the read and the hold was never read. */
        a->snapshot_gone = true;
        if (a->pidfds) {
                pidfd = kernel(a)->pidfd_open(p->view.pid);
                if (pidfd == -ESRCH)
                        return 0;
        }
        r = proc_starttime(a->ctx.proc_root, p->view.pid, 0, &st);
        if (r < 0)
                return errno_is_gone(r) ? 0 : r;
        if (st != p->starttime)
                return 0;
        if (pidfd >= 0 && kernel(a)->pidfd_alive(pidfd) == 0)
                return 0;
        a->snapshot_gone = false;
        *ret_pidfd = TAKE_FD(pidfd);
        return 1;
}

/* TIDS (N of them) with the main thread PID moved to the end. */
static void main_thread_last(pid_t *tids, size_t n, pid_t pid)
{
        for (size_t i = 0; i + 1 < n; i++)
                if (tids[i] == pid) {
                        memmove(tids + i, tids + i + 1, (n - i - 1) * sizeof(pid_t));
                        tids[n - 1] = pid;
                        return;
                }
}

/* The threads of P to evaluate: ONLY_TID, or all of them (LIST: from
 * task/, whatever P's count of threads says). RESTORE (nothing applies to
 * P any more): the main thread last. A thread without an entry of its own
 * (made since latniced's last look, its fork event still on the way) is
 * judged against the main thread's entry (thread_source()): what it
 * inherited of latniced's change goes back, but only while that entry is
 * there, and the main thread's restore removes it. (When applying, the
 * main thread goes first: what it is found to be decides for the others.) */
static int process_threads(Applier *a, const ProcTask *p, pid_t only_tid, bool list,
                           bool restore, pid_t **ret, size_t *ret_n)
{
        pid_t *tids;
        int r;

        if (only_tid > 0 || (p->n_threads == 1 && !list)) {
                /* One thread when stat was read (the usual case right after
                 * exec): no need to list task/. A thread created since has a
                 * fork event of its own behind this one (applier_thread()),
                 * or, if events were lost, the rescan that follows. */
                tids = malloc(sizeof(pid_t));
                if (!tids)
                        return -ENOMEM;
                tids[0] = only_tid > 0 ? only_tid : p->view.pid;
                *ret = tids;
                *ret_n = 1;
                return 0;
        }
        r = proc_threads(a->ctx.proc_root, p->view.pid, ret, ret_n);
        if (r >= 0 && restore)
                main_thread_last(*ret, *ret_n, p->view.pid);
        return r;
}

/* Threads of one evaluation that had boosts withheld (said together). */
typedef struct Withheld {
        Decision first;   /* the first one's decision */
        char *reason;     /* its withheld_reason, copied: the facts' own string
                           * may be freed by a later thread's facts */
        uint64_t n, n_changed;
} Withheld;

static void withheld_done(Withheld *w)
{
        free(w->reason);
}

static void withheld_count(Withheld *w, const Decision *d, bool changed)
{
        if (w->n == 0) {
                w->first = *d;
                w->reason = d->withheld_reason ? strdup(d->withheld_reason) : NULL;
                w->first.withheld_reason = w->reason; /* NULL if out of memory: "n/a" */
        }
        w->n++;
        w->n_changed += changed;
}

/* The threads of P in W had boosts withheld. At info level once per change
 * (a process is evaluated again on every exec, rename and rescan) and, with
 * a ProcessLog, once per process and reason (then what its other threads
 * had withheld is counted and said together later), else at debug level. */
static void log_withheld(Applier *a, const ProcTask *p, const Withheld *w)
{
        const Decision *d = &w->first;
        Settings ws = d->match.settings;
        _cleanup_free_ char *str = NULL;
        uint64_t n = w->n_changed ?: w->n;
        int level = w->n_changed > 0 ? LOG_INFO : LOG_DEBUG;

        if (w->n == 0 || level > log_get_max_level())
                return;
        if (level == LOG_INFO && a->withheld &&
            process_log_note(a->withheld, p->view.pid, d->withheld_reason, n,
                              now_usec(CLOCK_MONOTONIC), &n) == 0)
                return; /* counted, said later */
        ws.mask = d->withheld;
        str = settings_to_string(&ws);
        if (n == 1)
                log_full(level, "%d (%s): boosts withheld (%s): %s.", (int)p->view.pid,
                         p->view.names.comm, strna(str), strna(d->withheld_reason));
        else
                log_full(level, "%d (%s): boosts withheld (%s) for %" PRIu64 " threads: %s.",
                         (int)p->view.pid, p->view.names.comm, strna(str), n,
                         strna(d->withheld_reason));
}

static void log_evaluated(Applier *a, const ProcTask *p, pid_t only_tid, const Settings *s,
                          bool per_thread, size_t n_applied, const char *applied_rule)
{
        const pid_t pid = p->view.pid;
        _cleanup_free_ char *str = settings_to_string(s), *who = NULL;
        Task fake = { .pid = pid, .tid = only_tid > 0 ? only_tid : pid,
                      .rule = (char *)applied_rule };

        /* One thread: PID/TID names it; a whole process: PID. */
        if (only_tid > 0 ? asprintf(&who, "%d/%d", (int)pid, (int)only_tid) < 0
                         : asprintf(&who, "%d", (int)pid) < 0)
                return;
        if (per_thread) {
                uint64_t n = n_applied;

                /* A thread event's line is said once per process and rule,
                 * then counted (ProcessLog). */
                if (only_tid > 0 && a->thread_applied &&
                    process_log_note(a->thread_applied, pid, strna(applied_rule), n_applied,
                                     now_usec(CLOCK_MONOTONIC), &n) == 0)
                        return;
                log_task(LOG_INFO, &fake, "%s (%s): thread rules applied to %" PRIu64
                         " thread(s)%s.", who, p->view.names.comm, n,
                         a->ctx.dry_run ? " (dry run)" : "");
        } else
                log_task(LOG_INFO, &fake, "%s (%s): %s %s (rule %s) to %zu thread(s).", who,
                         p->view.names.comm, a->ctx.dry_run ? "would apply" : "applied",
                         strna(str), strna(applied_rule), n_applied);
}

/* evaluate()'s EXTRA_FLAGS beside PROC_READ_*: every thread of the process,
 * from what the ProcCache keeps of it if it is still valid (the threads'
 * budget's merged evaluation: its process is as it was read). */
#define EVAL_THREADS 0x10000u
/* And for a rescan: a thread latniced knows to have what it is to get costs
 * its name only (the rescan then checks every entry's start time). */
#define EVAL_KNOWN 0x20000u

/* A snapshot of a process and the decision on it (the front door's). */
typedef TaskDecision Evaluation;

static void evaluation_done(Evaluation *e)
{
        task_decision_done(e);
}

/* The ProcCache's destructor of a kept evaluation. */
static void evaluation_free(void *v)
{
        if (v)
                evaluation_done(v);
        free(v);
}

int applier_proc_cache_new(size_t max, uint64_t ttl_usec, ProcCache **ret)
{
        return proc_cache_new(max, ttl_usec, evaluation_free, ret);
}

/* The front door's PREPARE: names and ancestors from latniced's caches,
 * and the boost budget's word. */
static int evaluation_prepare(void *userdata, TaskDecision *e)
{
        Applier *a = userdata;

        if (a->budget)
                e->facts.revoked = budget_revoked(a->budget, e->p->view.pid, e->p->starttime);
        return snapshot_borrow(a, e->p);
}

/* Snapshot PID (EXTRA_FLAGS: PROC_READ_STAT, PROC_READ_FRESH) and decide,
 * through the front door (policy/decide-task.h). Returns 1 with E filled
 * (evaluation_done() it), 0 if it is to be left alone (gone, kernel thread,
 * zombie), negative errno. */
static int evaluation_run(Applier *a, pid_t pid, unsigned extra_flags, Evaluation *e)
{
        const DecideRequest req = {
                .policy = a->policy,
                .proc_root = a->ctx.proc_root,
                .cgroup_root = a->cgroup_root,
                .pid = pid,
                .read = extra_flags,
                .prepared = (a->ancestors ? PROC_READ_ANCESTORS : 0) |
                            (a->ids && a->uses_ids ? PROC_READ_NAMES : 0),
                .prepare = evaluation_prepare,
                .userdata = a,
                .skip_untouchable = true,
                .base_slice_ns = a->ctx.base_slice_ns,
        };
        int r;

        r = task_decide(&req, e);
        a->snapshot_gone = e->p ? e->p->zombie : errno_is_gone(r);
        if (r <= 0)
                evaluation_done(e);
        if (r < 0 && (errno_is_gone(r) || r == -EACCES || r == -EIO))
                return 0;
        return r;
}

/* Is the process of E (or its thread ONLY_TID) to be changed or restored? */
static bool evaluation_acts(Applier *a, const Evaluation *e, pid_t only_tid)
{
        if ((a->thread_rules && e->d.match.thread_dependent) || e->d.settings.mask != 0 ||
            e->d.group.mask != 0 || a->has_inherit)
                return true;
        /* A new thread without an entry may have inherited what latniced
         * gave another thread of its process (thread_source()). */
        return task_table_has_process(a->tasks, e->p->view.pid);
}

/* Snapshot and decide, and hold the process if it is to be changed or
 * restored (*RET_PIDFD; -EBADF if it is not, or without pidfds). The first
 * snapshot leaves out the stat file where it can (the policy does not
 * follow the parent): a process that is to be acted on is then read again
 * whole, and decided again on that. Returns as evaluation_run(). */
static int evaluation_hold(Applier *a, pid_t pid, pid_t only_tid, unsigned extra_flags,
                           Evaluation *e, int *ret_pidfd)
{
        unsigned light = a->read_plan & PROC_READ_STAT; /* when the parent is followed */
        int r;

        *ret_pidfd = -EBADF;
        r = evaluation_run(a, pid, light | extra_flags, e);
        if (r <= 0)
                return r;
        a->counters.n_evaluated++;
        if (!evaluation_acts(a, e, only_tid))
                return 1;
        a->counters.n_acted++;
        if (!e->p->has_stat) {
                evaluation_done(e);
                r = evaluation_run(a, pid, PROC_READ_STAT | extra_flags, e);
                if (r <= 0)
                        return r;
        }
        /* Only a process that is to be changed or restored is held. */
        r = process_hold(a, e->p, ret_pidfd);
        if (r <= 0)
                evaluation_done(e);
        return r;
}

/* A kept evaluation C of a process, for its thread ONLY_TID (0: all of
 * them): as evaluation_hold() (the process's start time is checked again
 * before anything is changed), or -ESTALE if it must be read again first
 * (it was kept from a light read, without a start time, or, for all
 * threads, its main thread has another name now: a rename of it that the
 * rename limiter merged with others' is a new process-level decision). */
static int evaluation_cached(Applier *a, Evaluation *c, pid_t only_tid, int *ret_pidfd)
{
        int r;

        *ret_pidfd = -EBADF;
        if (only_tid <= 0) {
                _cleanup_free_ char *comm = NULL;

                r = proc_thread_comm(a->ctx.proc_root, c->p->view.pid, c->p->view.pid, &comm);
                if (r < 0)
                        return errno_is_gone(r) ? 0 : r;
                if (!streq(comm, c->p->view.names.comm))
                        return -ESTALE;
        }
        r = snapshot_borrow(a, c->p);
        if (r < 0)
                return r;
        if (!evaluation_acts(a, c, only_tid))
                return 1;
        if (!c->p->has_stat)
                return -ESTALE;
        a->counters.n_acted++;
        return process_hold(a, c->p, ret_pidfd);
}

/* Keep evaluation E (moved to *RET; E is empty after) in the cache, with its
 * real uid. -ENOMEM (E unchanged), or another negative errno (E moved and
 * gone: nothing kept). */
static int evaluation_keep(Applier *a, Evaluation *e, uint64_t now, Evaluation **ret)
{
        Evaluation *k;
        uid_t uid = e->p->view.uid;
        int r;

        if (uid == (uid_t)-1 && proc_real_uid(a->ctx.proc_root, e->p->view.pid, &uid) < 0)
                uid = (uid_t)-1;
        k = malloc(sizeof(*k));
        if (!k)
                return -ENOMEM;
        *k = *e;
        *e = (Evaluation){};
        r = proc_cache_put(a->proc_cache, k->p->view.pid, uid, k, now);
        if (r < 0)
                return r;
        *ret = k;
        return 0;
}

/* Snapshot and decide (evaluation_hold()), into OWN; *RET points to OWN or
 * to an evaluation the ProcCache keeps. For a thread event (ONLY_TID) or
 * EVAL_THREADS, the process's evaluation comes from the cache, or is read
 * and kept there. Any other evaluation (exec, rename of the main thread,
 * uid or gid change, rescan) reads the process whole; what it reads
 * replaces what was kept of a process with thread events. */
static int evaluation_get(Applier *a, pid_t pid, pid_t only_tid, unsigned extra_flags,
                          Evaluation *own, Evaluation **ret, int *ret_pidfd)
{
        uint64_t now = now_usec(CLOCK_MONOTONIC);
        bool threads = only_tid > 0 || (extra_flags & EVAL_THREADS);
        Evaluation *c;
        int r;

        *ret = own;
        extra_flags &= ~(EVAL_THREADS | EVAL_KNOWN);
        if (!a->proc_cache)
                return evaluation_hold(a, pid, only_tid, extra_flags, own, ret_pidfd);
        if (!threads && !proc_cache_has(a->proc_cache, pid))
                return evaluation_hold(a, pid, only_tid, extra_flags, own, ret_pidfd);
        c = threads ? proc_cache_get(a->proc_cache, pid, now, NULL) : NULL;
        if (c) {
                r = evaluation_cached(a, c, only_tid, ret_pidfd);
                if (r > 0)
                        *ret = c;
                if (r == 0)
                        proc_cache_drop(a->proc_cache, pid); /* gone, or its pid reused */
                if (r != -ESTALE)
                        return r;
        }
        proc_cache_drop(a->proc_cache, pid);
        r = evaluation_hold(a, pid, only_tid, extra_flags, own, ret_pidfd);
        if (r <= 0)
                return r;
        r = evaluation_keep(a, own, now, &c);
        if (r < 0)
                return r == -ENOMEM ? 1 : r; /* not kept: OWN is used once */
        *ret = c;
        return 1;
}

/* Tell the boost budget whether thread TID of E's process now holds a boost
 * (its decision S has one for its user, and latniced manages the thread). */
static int budget_note_thread(Applier *a, const Evaluation *e, pid_t tid, const Settings *s,
                              const char *rule, bool per_thread)
{
        const BoostFacts *f = e->facts.have ? &e->facts.facts : NULL;
        const Task *t;
        bool boosted;
        int r;

        if (!a->budget || a->ctx.dry_run)
                return 0;
        t = task_table_get(a->tasks, tid);
        boosted = t && !t->user_owned && f && !f->privileged &&
                  settings_boost_mask(s, f->nice_floor, f->base_slice_ns) != 0;
        r = budget_note(a->budget, e->p->view.pid, e->p->starttime, tid, boosted, !per_thread,
                        rule, now_nsec(CLOCK_MONOTONIC));
        if (r > 0 && a->budget_tracking)
                a->budget_tracking(a->userdata);
        return r < 0 ? r : 0;
}

/*
 * Evaluate process PID (or only its thread ONLY_TID): snapshot (EXTRA_FLAGS:
 * PROC_READ_FRESH for a process that has just called exec), decide
 * (the front door, policy/decide-task.h: for the process and, with thread
 * rules, per thread), apply. The decision is the same one Explain reports.
 */
static int evaluate(Applier *a, pid_t pid, pid_t only_tid, unsigned extra_flags)
{
        _cleanup_(evaluation_done) Evaluation own = {};
        _cleanup_close_ int pidfd = -EBADF;
        _cleanup_free_ pid_t *tids = NULL;
        const char *applied_rule = NULL;
        size_t n_tids = 0, n_applied = 0;
        _cleanup_(withheld_done) Withheld withheld = {};
        Evaluation *ev;
        bool per_thread;
        int r;

        a->last_n_threads = 0;
        if (!a->policy || pid <= 0)
                return 0;
        r = evaluation_get(a, pid, only_tid, extra_flags, &own, &ev, &pidfd);
        if (r == -EAGAIN) {
                a->counters.n_deferred++;
                if (a->deferred)
                        a->deferred(a->userdata, pid);
                return 0;
        }
        if (r <= 0)
                return r;

        const ProcTask *p = ev->p;
        const Decision d = ev->d;
        per_thread = a->thread_rules && d.match.thread_dependent;
        /* Apply, group level first: the [Unit] sections of its cgroup, and
         * the group settings of its rules (the process's: its group, whole). */
        if (a->configure_units)
                a->configure_units(a->userdata, p);
        if (only_tid <= 0 && a->groups) {
                /* A process its rules make latency-sensitive keeps its group
                 * from being demoted for others. */
                Settings cpu = d.settings;

                /* Only boosts of CPU latency (not I/O, not the OOM killer's). */
                cpu.mask &= task_attr_cpu_mask() | ~SETTINGS_TASK_MASK;
                if (!d.group.mask && settings_may_boost(&cpu, UINT64_MAX))
                        r = group_table_protect(a->groups, pid, p->starttime);
                else
                        r = group_table_request(a->groups, pid, p->starttime, &d.group);
                /* A group that cannot be written (read-only, gone) is logged
                 * and counted there; the task settings still apply. */
                if (r == -ENOMEM)
                        return r;
        }

        /* The common case: nothing matches, nothing of it is managed and
         * it inherited nothing of latniced's. */
        if (!per_thread && d.settings.mask == 0 && !a->has_inherit &&
            !task_table_has_process(a->tasks, pid))
                return 0;

        r = process_threads(a, p, only_tid, extra_flags & EVAL_THREADS,
                            !per_thread && d.settings.mask == 0, &tids, &n_tids);
        if (r < 0)
                return errno_is_gone(r) ? 0 : r;
        a->last_n_threads = n_tids;

        for (size_t i = 0; i < n_tids; i++) {
                _cleanup_free_ char *name = NULL;
                Decision td = d;

                if (per_thread) {
                        r = proc_thread_comm(a->ctx.proc_root, pid, tids[i], &name);
                        if (r < 0) {
                                if (errno_is_gone(r))
                                        continue;
                                return r;
                        }
                        r = task_decide_thread(ev, tids[i], name, &td);
                        if (r < 0)
                                return r == -ESRCH ? 0 : r;
                }

                /* A per-process attribute: the main thread carries it (the
                 * only one whose entry restores it), so threads that differ
                 * in their rules do not fight over it. */
                if (tids[i] != pid)
                        td.settings.mask &= ~task_attr_process_mask();
                (void)sched_ext_mask_settings(a->sched_ext, &td.settings);
                /* A merged evaluation goes through threads evaluated
                 * before: one that has what it is to get costs its name
                 * only (a tid reused meanwhile had its exit event, or the
                 * exit was lost and a rescan checks every entry). */
                if ((extra_flags & (EVAL_THREADS | EVAL_KNOWN)) &&
                    thread_has(a, pid, tids[i], &td.settings))
                        continue;
                r = apply_thread(a, p, pidfd, tids[i], &td.settings, td.rule, name);
                task_table_sync(a->tasks, tids[i]);
                if (r < 0)
                        return r;
                if (budget_note_thread(a, ev, tids[i], &td.settings, td.rule, per_thread) < 0)
                        return -ENOMEM;
                /* The budget said why once, with its numbers. */
                if (td.withheld && (per_thread || i == 0) &&
                    td.withheld_reason != ev->facts.revoked)
                        withheld_count(&withheld, &td, r > 0);
                if (r > 0) {
                        n_applied++;
                        applied_rule = td.rule;
                }
        }

        /* The grants it holds now: none left gives its RLIMIT_RTTIME back. */
        if (a->rt)
                rt_grants_settle(a->rt, pid);
        log_withheld(a, p, &withheld);
        if (n_applied > 0)
                log_evaluated(a, p, only_tid, &d.settings, per_thread, n_applied, applied_rule);
        return 0;
}

int applier_process(Applier *a, pid_t pid)
{
        return evaluate(a, pid, 0, 0);
}

int applier_threads(Applier *a, pid_t pid)
{
        return evaluate(a, pid, 0, EVAL_THREADS);
}

/* Remember PID as a process whose exec was not read, in the slot of its
 * pid: O(1) at every fork, and an entry stays until a pid that many
 * higher is noted. A ring of 256, searched whole, lost the parent under an
 * exec storm: the storm's own short-lived execs, each noted, pushed it out
 * before its fork came (daemon-forkexit, a loaded machine). An old entry
 * only costs a child's evaluation when its pid comes round again. */
static void unread_note(Applier *a, pid_t pid)
{
        a->unread[(unsigned)pid % APPLIER_UNREAD_MAX] = pid;
}

static bool unread_has(const Applier *a, pid_t pid)
{
        return a->unread[(unsigned)pid % APPLIER_UNREAD_MAX] == pid;
}

/* Evaluate PID (EXTRA_FLAGS as evaluate()); a process found gone is
 * remembered as unread. */
static int evaluate_noting_gone(Applier *a, pid_t pid, unsigned extra_flags)
{
        int r;

        a->snapshot_gone = false;
        r = evaluate(a, pid, 0, extra_flags);
        if (a->snapshot_gone)
                unread_note(a, pid);
        return r;
}

int applier_exec(Applier *a, pid_t pid)
{
        return evaluate_noting_gone(a, pid, PROC_READ_FRESH);
}

void applier_exec_gone(Applier *a, pid_t pid)
{
        if (a->policy && pid > 0)
                unread_note(a, pid);
}

/* Remember that PID got back what it had inherited from SRC (BACK). */
static void inherit_note(Applier *a, pid_t pid, pid_t tid, const InheritSource *src,
                         uint32_t back)
{
        GivenBack *g;

        if (tid != pid)
                return; /* a thread forks processes too, but its process is what is looked up */
        g = &a->given_back[a->given_back_next];
        a->given_back_next = (a->given_back_next + 1) % APPLIER_GIVEN_BACK_MAX;
        *g = (GivenBack){ .pid = pid, .ns = now_nsec(CLOCK_MONOTONIC), .src = *src };
        g->src.claim.applied_mask = back;
        g->src.rule = NULL; /* borrowed from an entry that may go */
}

/* The latest record of PID in the given-back ring, if any. */
static const GivenBack *given_back_find(const Applier *a, pid_t pid)
{
        for (unsigned i = 1; i <= APPLIER_GIVEN_BACK_MAX; i++) {
                const GivenBack *g = &a->given_back[(a->given_back_next + APPLIER_GIVEN_BACK_MAX -
                                                     i) % APPLIER_GIVEN_BACK_MAX];
                if (g->pid == pid)
                        return g;
        }
        return NULL;
}

/* The entry of the thread that forked (PARENT_TID), else of PARENT's main
 * thread; NULL if neither has one. */
static const Task *fork_creator(const Applier *a, pid_t parent, pid_t parent_tid)
{
        const Task *t = parent_tid > 0 ? task_table_get(a->tasks, parent_tid) : NULL;

        if (t && t->pid == parent)
                return t;
        t = task_table_get(a->tasks, parent);
        return t && t->pid == parent ? t : NULL;
}

int applier_fork(Applier *a, pid_t parent, pid_t parent_tid, pid_t child, uint64_t fork_ns)
{
        const Task *leader, *creator;
        const GivenBack *g;
        int r;

        if (!a->policy || parent <= 0 || child <= 0)
                return 0;
        leader = task_table_get(a->tasks, parent);
        creator = fork_creator(a, parent, parent_tid);
        g = given_back_find(a, parent);
        a->has_inherit = false;
        if (g && g->ns > fork_ns) {
                /* Forked before its parent gave back what it had inherited. */
                a->inherit = g->src;
                a->has_inherit = true;
        } else if (creator && task_boosted(creator, a->ctx.base_slice_ns)) {
                inherit_source_init(&a->inherit, creator, true, a->ctx.base_slice_ns);
                a->has_inherit = true;
        } else if (!(leader && leader->pid == parent &&
                     leader->applied_ns + APPLIER_FORK_COPY_NSEC > fork_ns) &&
                   !unread_has(a, parent))
                return 0;
        r = evaluate_noting_gone(a, child, 0);
        a->has_inherit = false;
        return r;
}

int applier_thread(Applier *a, pid_t pid, pid_t tid)
{
        if (tid == pid)
                return evaluate(a, pid, 0, 0);
        /* A thread of a process nothing manages can only matter to thread rules. */
        if (!a->thread_rules && !task_table_has_process(a->tasks, pid))
                return 0;
        return evaluate(a, pid, tid, 0);
}

void applier_forget(Applier *a, pid_t pid, pid_t tid)
{
        thread_forget(a, pid, tid);
        if (a->rt)
                rt_grants_settle(a->rt, pid);
        if (tid == pid) {
                _cleanup_free_ char *reason = NULL;
                uint64_t n;

                proc_cache_drop(a->proc_cache, pid);
                n = process_log_forget(a->withheld, pid, &reason);
                if (n > 0)
                        log_info("%d: boosts withheld for %" PRIu64 " more thread(s) until "
                                 "its exit: %s.", (int)pid, n, strna(reason));
                reason = mfree(reason);
                n = process_log_forget(a->thread_applied, pid, &reason);
                if (n > 0)
                        log_info("%d: thread rules (%s) applied to %" PRIu64 " more thread(s) "
                                 "until its exit.", (int)pid, strna(reason), n);
        }
}

int applier_rescan(Applier *a)
{
        _cleanup_free_ pid_t *pids = NULL;
        uint64_t deferred0 = a->counters.n_deferred;
        size_t n = 0, state = 0;
        Task *t;
        int r;

        r = proc_pids(a->ctx.proc_root, &pids, &n);
        if (r < 0)
                return r;
        proc_cache_flush(a->proc_cache);

        group_table_rescan_begin(a->groups);
        for (size_t i = 0; i < n; i++) {
                r = evaluate(a, pids[i], 0, EVAL_KNOWN);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        log_debug_errno(r, "Failed to evaluate %d: %m", (int)pids[i]);
        }

        /* Entries whose task went away while events were lost. */
        while (task_table_iterate(a->tasks, &state, &t)) {
                r = task_alive(a, t->pid, t->tid, t->starttime);
                if (r == 0)
                        task_table_remove(a->tasks, t->tid);
        }
        group_table_sweep(a->groups, a->counters.n_deferred == deferred0);
        return 0;
}

size_t applier_restore_all(Applier *a)
{
        size_t state = 0, n = 0;
        Task *t;

        while (task_table_iterate(a->tasks, &state, &t)) {
                if (restore_task(a, t) > 0)
                        n++;
                task_table_remove(a->tasks, t->tid);
        }
        if (a->rt)
                (void)rt_grants_restore_all(a->rt);
        (void)group_table_restore_all(a->groups);
        return n;
}
