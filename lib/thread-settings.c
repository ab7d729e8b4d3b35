/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Applying Settings to one thread.
 *
 * How sched_setattr() behaves on 6.18 (checked on the machine, see
 * tests/unit/test-sched.c):
 *  - Without SCHED_FLAG_KEEP_PARAMS the kernel sets nice from sched_nice AND
 *    the slice from sched_runtime for a fair policy; sched_runtime 0 means
 *    "back to the default slice" (custom slice cleared). Omitting sched_nice
 *    silently resets nice to 0.
 *  - With KEEP_PARAMS it skips the parameters entirely: sched_runtime is
 *    ignored, so the slice cannot be set that way.
 *  - SCHED_FLAG_KEEP_POLICY keeps the policy and reset-on-fork.
 * So to set only the slice of a SCHED_OTHER/BATCH/IDLE thread: flags
 * KEEP_POLICY, sched_nice = the current nice, sched_runtime = slice. To
 * change the policy: sched_policy = new policy, sched_flags carrying the
 * current RESET_ON_FORK, sched_nice = current nice, sched_runtime = the
 * current custom slice or 0. setpriority() changes nice alone. uclamp and
 * latency nice go with KEEP_ALL, which leaves policy, nice and slice alone.
 */
#include <errno.h>
#include <sched.h>
#include <sys/resource.h>

#include "lib/invariant.h"
#include "lib/kernel-ops.h"
#include "lib/task-attr.h"
#include "lib/thread-settings.h"
#include "lib/macro.h"

/* How often guard_fair() reads again when switched out around its read. */
#define GUARD_TRIES 8

/* The attributes SCHED_FLAG_RESET_ON_FORK guards (sched_state_forked()):
 * restoring one of them puts the original flag back too. */
#define RESET_ON_FORK_MASK                                                                     \
        (SETTING_BIT(SETTING_NICE) | SETTING_BIT(SETTING_POLICY) | SETTING_BIT(SETTING_SLICE) | \
         SETTING_BIT(SETTING_LATENCY_NICE) | SETTING_BIT(SETTING_UTIL_MIN) |                   \
         SETTING_BIT(SETTING_UTIL_MAX) | SETTING_BIT(SETTING_REALTIME_PRIORITY))

#define RT_MASK (SETTING_BIT(SETTING_POLICY) | SETTING_BIT(SETTING_REALTIME_PRIORITY))

static bool has_reset_on_fork(const SchedState *st)
{
        return st->flags & LN_SCHED_FLAG_RESET_ON_FORK;
}

/* Policy, nice and slice in one sched_setattr(); RESET_ON_FORK: whether the
 * thread is to have SCHED_FLAG_RESET_ON_FORK (KEEP_POLICY keeps the flag as
 * it is, so changing it takes the policy written out). */
static int set_fair(const KernelOps *k, pid_t tid, const SchedState *cur, int policy, int nice,
                    uint64_t slice, bool reset_on_fork)
{
        struct ln_sched_attr a = {
                .size = SCHED_ATTR_SIZE_VER0,
                .sched_nice = nice,
                .sched_runtime = slice,
        };

        if (policy == cur->policy && reset_on_fork == has_reset_on_fork(cur))
                a.sched_flags = LN_SCHED_FLAG_KEEP_POLICY;
        else {
                a.sched_policy = (uint32_t) policy;
                a.sched_flags = reset_on_fork ? LN_SCHED_FLAG_RESET_ON_FORK : 0;
        }
        /* Never a real-time policy: latniced does not make one. */
        ln_assert(sched_policy_is_fair(policy));
        return k->sched_setattr(tid, &a);
}

/* A real-time grant: POLICY at PRIORITY, always with
 * SCHED_FLAG_RESET_ON_FORK, so that no child or new thread inherits it (the
 * kernel gives them SCHED_OTHER at nice 0). Nice and slice stay as they are
 * underneath (sched_setattr() takes neither for a real-time policy). */
static int set_rt(const KernelOps *k, pid_t tid, int policy, int priority)
{
        struct ln_sched_attr a = {
                .size = SCHED_ATTR_SIZE_VER0,
                .sched_policy = (uint32_t)policy,
                .sched_priority = (uint32_t)priority,
                .sched_flags = LN_SCHED_FLAG_RESET_ON_FORK,
        };

        ln_assert(sched_policy_is_rt(policy) && priority >= 1 && priority <= 99);
        return k->sched_setattr(tid, &a);
}

static uint64_t current_custom_slice(const SchedState *st)
{
        return st->custom_slice ? st->slice_ns : 0;
}

/*
 * Read TID again right before a sched_setattr() that writes policy, nice and
 * slice together: -EBUSY if it has left the fair class since CUR was read,
 * -EAGAIN if it changed its policy, nice or slice (someone, usually the
 * thread itself, is changing it now: theirs). That call cannot be made
 * conditional - without SCHED_FLAG_KEEP_POLICY it replaces even a real-time
 * policy - so this read is the last thing before it and nothing is written
 * before it. If the calling thread was switched out around the read (a
 * loaded machine), the read may be long stale by the time the call runs: it
 * is repeated, so that the read and the call are microseconds apart (see
 * "Races with the task" in daemon/apply/apply.c).
 */
static int guard_fair(const KernelOps *k, pid_t tid, const SchedState *cur)
{
        SchedState now;
        int r;

        /* Only a fair thread is ever changed (settings_apply_tid_from()). */
        ln_assert(sched_policy_is_fair(cur->policy));
        for (unsigned i = 0;; i++) {
                long switches = k->self_switches();

                r = sched_state_read_attr_ops(k, tid, sched_base_slice(), &now);
                if (r < 0)
                        return r;
                if (!sched_policy_is_fair(now.policy))
                        return -EBUSY;
                if (now.policy != cur->policy || now.nice != cur->nice ||
                    current_custom_slice(&now) != current_custom_slice(cur))
                        return -EAGAIN;
                if (switches < 0 || k->self_switches() == switches || i >= GUARD_TRIES)
                        return 0;
        }
}

int settings_apply_tid(const ApplyContext *c, pid_t tid, const Settings *s, SchedState *ret_before,
                       uint32_t *ret_applied, uint32_t *ret_unsupported)
{
        const KernelOps *k = kernel_ops(c->kernel);
        SchedState before;
        int r;

        r = sched_state_read_ops(k, tid, sched_base_slice(), &before);
        if (r < 0)
                return r;
        /* sched_state_read() leaves some out (the cookie): read those S needs. */
        r = sched_state_read_extra(k, c->proc_root, tid, s->mask & ~task_attr_extra_mask(true),
                                   &before);
        if (r < 0)
                return r;
        r = settings_apply_tid_from(c, tid, &before, s, ret_applied, ret_unsupported);
        if (r < 0)
                return r;
        if (ret_before)
                *ret_before = before;
        return 0;
}

/* What settings_apply_tid_from() writes to the fair-class attributes. */
typedef struct FairPlan {
        uint32_t mask;        /* the task settings asked for */
        int policy, nice;
        uint64_t slice;       /* custom slice, 0: none */
        bool fair_attr;       /* policy or slice (with the nice) go in one sched_setattr() */
        bool emulate_ln;      /* LatencyNice as a slice (slice backend) */
        bool reset_on_fork;   /* SCHED_FLAG_RESET_ON_FORK the thread is to have */
        int rt_policy;        /* a real-time grant after the fair write: SCHED_RR|FIFO, 0: none */
        int rt_priority;      /* its priority, capped by ApplyContext.rt_max_priority */
        bool rt_kept;         /* the thread has that grant already: nothing to write */
        uint32_t unsupported;
} FairPlan;

int settings_rt_granted_priority(const ApplyContext *c, const Settings *s)
{
        return MIN(settings_rt_priority(s), MIN(c->rt_max_priority, 99));
}

/* Policy=rr|fifo: granted under the cap, or left out when there is none;
 * RealtimePriority= without it means nothing. */
static void rt_plan(const ApplyContext *c, const SchedState *before, const Settings *s,
                    FairPlan *p)
{
        if (!(p->mask & SETTING_BIT(SETTING_POLICY)) || !sched_policy_is_rt(s->policy)) {
                p->mask &= ~SETTING_BIT(SETTING_REALTIME_PRIORITY);
                return;
        }
        if (c->rt_max_priority <= 0) {
                p->unsupported |= p->mask & RT_MASK;
                return;
        }
        p->rt_policy = s->policy;
        p->rt_priority = settings_rt_granted_priority(c, s);
        p->rt_kept = before->policy == p->rt_policy && (int)before->priority == p->rt_priority;
}

/* Check S against the kernel's ranges and work out the policy, nice and
 * slice TID is to get from BEFORE. -EINVAL for a value out of range. */
static int fair_plan(const ApplyContext *c, const SchedState *before, const Settings *s,
                     FairPlan *ret)
{
        uint64_t base = c->base_slice_ns ?: sched_base_slice();
        FairPlan p = {
                .mask = s->mask & SETTINGS_TASK_MASK,
                .policy = before->policy,
                .nice = before->nice,
                .slice = current_custom_slice(before),
                /* A flag the thread has already is never taken away here. */
                .reset_on_fork = c->reset_on_fork || has_reset_on_fork(before),
        };

        TASK_ATTR_FOREACH(a)
                if ((p.mask & SETTING_BIT(a->id)) && !task_attr_valid(a, s))
                        return -EINVAL;
        rt_plan(c, before, s, &p);
        if ((p.mask & SETTING_BIT(SETTING_POLICY)) && !sched_policy_is_rt(s->policy)) {
                if (!sched_policy_is_fair(s->policy))
                        return -EINVAL;
                p.policy = s->policy;
                p.fair_attr = true;
        }
        if (p.mask & SETTING_BIT(SETTING_NICE)) {
                if (s->nice < -20 || s->nice > 19)
                        return -EINVAL;
                p.nice = s->nice;
        }
        if (p.mask & SETTING_BIT(SETTING_LATENCY_NICE)) {
                if (s->latency_nice < -20 || s->latency_nice > 19)
                        return -EINVAL;
                switch (c->backend) {
                case LATENCY_BACKEND_LATENCY_NICE:
                        break;
                case LATENCY_BACKEND_SLICE:
                        if (!(p.mask & SETTING_BIT(SETTING_SLICE))) {
                                p.slice = latency_nice_to_slice(s->latency_nice, base);
                                p.fair_attr = p.emulate_ln = true;
                        }
                        break;
                default:
                        p.unsupported |= SETTING_BIT(SETTING_LATENCY_NICE);
                }
        }
        if (p.mask & SETTING_BIT(SETTING_SLICE)) {
                p.slice = s->slice_ns;
                p.fair_attr = true;
        }
        *ret = p;
        return 0;
}

/* Policy, nice and slice. What the thread has already (a child inherits its
 * parent's attributes: cc1 under a make that got the same class) costs no
 * syscall. Policy, slice and SCHED_FLAG_RESET_ON_FORK go in one
 * sched_setattr() right after guard_fair() (it writes the nice too), else
 * the nice alone with setpriority(), which never changes a policy. *DONE gets what was set;
 * a negative errno before anything was written is returned as is, after
 * (*DONE not 0) the caller puts DONE back. */
static int fair_write(const KernelOps *k, pid_t tid, const SchedState *before, const FairPlan *p,
                      uint32_t *done, bool *ret_guarded)
{
        const uint32_t nice_bit = SETTING_BIT(SETTING_NICE);
        /* A real-time grant's Policy is done by rt_write(). */
        const uint32_t attr_bits = SETTING_BIT(SETTING_SLICE) |
                                   (p->rt_policy ? 0 : SETTING_BIT(SETTING_POLICY));
        int r;

        if ((p->fair_attr &&
             (p->policy != before->policy || p->slice != current_custom_slice(before))) ||
            p->reset_on_fork != has_reset_on_fork(before)) {
                r = guard_fair(k, tid, before);
                if (r < 0)
                        return r;
                *ret_guarded = true;
                r = set_fair(k, tid, before, p->policy, p->nice, p->slice, p->reset_on_fork);
                if (r < 0)
                        return r == -EINVAL && p->policy == before->policy ? -EBUSY : r;
                *done |= p->mask & attr_bits;
                /* sched_setattr() takes the nice of SCHED_OTHER and
                 * SCHED_BATCH only: a SCHED_IDLE thread keeps its old one
                 * (6.18), so it is set on its own. */
                if (p->policy == SCHED_IDLE && (p->mask & nice_bit) && p->nice != before->nice) {
                        r = k->set_nice(tid, p->nice);
                        if (r < 0)
                                return r;
                }
        } else if ((p->mask & nice_bit) && p->nice != before->nice) {
                r = k->set_nice(tid, p->nice);
                if (r < 0)
                        return r;
        }
        *done |= p->mask & nice_bit;
        if (p->fair_attr) {
                *done |= p->mask & attr_bits;
                if (p->emulate_ln)
                        *done |= SETTING_BIT(SETTING_LATENCY_NICE);
        }
        return 0;
}

/* The real-time grant, after the fair attributes it keeps underneath. Its
 * thread read again right before it, unless fair_write() just did. A
 * kernel that refuses it (EPERM: real-time group scheduling gives the
 * thread's group no runtime) leaves it out as unsupported. */
static int rt_write(const KernelOps *k, pid_t tid, const SchedState *before, const FairPlan *p,
                    bool guarded, uint32_t *done, uint32_t *unsupported)
{
        int r;

        if (!guarded) {
                r = guard_fair(k, tid, before);
                if (r < 0)
                        return r;
        }
        r = set_rt(k, tid, p->rt_policy, p->rt_priority);
        if (r == -EPERM) {
                *unsupported |= p->mask & RT_MASK;
                return 0;
        }
        if (r < 0)
                return r;
        *done |= p->mask & RT_MASK;
        return 0;
}

static int fair_apply(const KernelOps *k, pid_t tid, const SchedState *before, const FairPlan *p,
                      uint32_t *done, uint32_t *unsupported)
{
        bool guarded = false;
        int r;

        if (p->rt_kept) {
                /* Granted before and unchanged since (thread_recheck()). The
                 * nice under it is written as at the grant: setpriority()
                 * keeps it through real time (sched_getattr() shows none,
                 * so it is written each time, never compared), for when the
                 * grant is given back. A slice cannot be set on a real-time
                 * thread and means nothing to it: the one under the grant
                 * stays, and is written once the thread is fair again. */
                if (p->mask & SETTING_BIT(SETTING_NICE)) {
                        r = k->set_nice(tid, p->nice);
                        if (r < 0)
                                return r;
                }
                *done |= p->mask & ATTR_GROUP_FAIR;
                if (p->emulate_ln)
                        *done |= SETTING_BIT(SETTING_LATENCY_NICE);
                return 0;
        }
        r = fair_write(k, tid, before, p, done, &guarded);
        if (r < 0 || !p->rt_policy)
                return r;
        return rt_write(k, tid, before, p, guarded, done, unsupported);
}

/* The attribute input of thread TID. */
static AttrIo attr_io(const ApplyContext *c, pid_t tid, int nice)
{
        return (AttrIo){
                .k = kernel_ops(c->kernel),
                .proc_root = c->proc_root,
                .tid = tid,
                .backend = c->backend,
                .core_source = c->core_source,
                .nice = nice,
        };
}

/* Every attribute of MASK but the fair writer's, one write per writer group
 * (lib/task-attr.h), in registry order. Adds to *DONE and *UNSUPPORTED; a
 * negative errno means the caller puts DONE back. */
static int attrs_apply(const ApplyContext *c, pid_t tid, const SchedState *before,
                       const Settings *s, uint32_t mask, int nice, uint32_t *done,
                       uint32_t *unsupported)
{
        const AttrIo io = attr_io(c, tid, nice);
        uint32_t written = 0;
        int r;

        TASK_ATTR_FOREACH(a) {
                uint32_t bits = mask & a->group;

                if (!a->write || !(mask & SETTING_BIT(a->id)) || (written & SETTING_BIT(a->id)))
                        continue;
                written |= a->group;
                r = a->write(&io, before, s, bits);
                if (r == ATTR_WRITE_ELSEWHERE)
                        continue;
                if (r == -EOPNOTSUPP)
                        *unsupported |= bits;
                else if (r < 0)
                        return r;
                else
                        *done |= bits;
        }
        return 0;
}

int settings_apply_tid_from(const ApplyContext *c, pid_t tid, const SchedState *cur,
                            const Settings *s, uint32_t *ret_applied, uint32_t *ret_unsupported)
{
        const SchedState before = *cur;
        uint32_t applied, unsupported, done = 0;
        FairPlan p;
        int r;

        if (!sched_policy_is_fair(before.policy) && !sched_policy_is_rt(before.policy))
                return -EBUSY;
        r = fair_plan(c, &before, s, &p);
        if (r < 0)
                return r;
        /* Real time is someone else's, unless it is latniced's own grant. */
        if (!sched_policy_is_fair(before.policy) && !p.rt_kept)
                return -EBUSY;
        unsupported = p.unsupported;

        if (c->dry_run) {
                applied = p.mask & ~unsupported;
                if ((p.mask & SETTING_BIT(SETTING_LATENCY_NICE)) &&
                    c->backend == LATENCY_BACKEND_SLICE && !p.emulate_ln)
                        applied &= ~SETTING_BIT(SETTING_LATENCY_NICE);
        } else {
                r = fair_apply(kernel_ops(c->kernel), tid, &before, &p, &done, &unsupported);
                if (r >= 0)
                        r = attrs_apply(c, tid, &before, s, p.mask, p.nice, &done,
                                        &unsupported);
                if (r < 0) {
                        const SchedState grant = { .policy = p.rt_policy,
                                                   .priority = (uint32_t)p.rt_priority };

                        if (done != 0)
                                (void)sched_state_give_back(c->kernel, c->proc_root ?: "/proc",
                                                            tid, &before, done,
                                                            p.rt_policy ? &grant : NULL);
                        return r;
                }
                /* Only what was asked for, and never what cannot be done. */
                ln_assert((done & ~p.mask) == 0 && (done & unsupported) == 0);
                applied = done;
        }
        if (ret_applied)
                *ret_applied = applied;
        if (ret_unsupported)
                *ret_unsupported = unsupported;
        return 0;
}

/* Put back every attribute of MASK but the fair writer's, one restore per
 * writer group. -ESRCH at once when the thread is gone; else the first
 * error, after trying them all. */
static int attrs_restore(const KernelOps *k, const char *proc_root, pid_t tid,
                         const SchedState *orig, uint32_t mask)
{
        const AttrIo io = { .k = k, .proc_root = proc_root, .tid = tid };
        uint32_t done = 0;
        int r, ret = 0;

        TASK_ATTR_FOREACH(a) {
                if (!a->restore || !(mask & SETTING_BIT(a->id)) || (done & SETTING_BIT(a->id)))
                        continue;
                done |= a->group;
                r = a->restore(&io, orig, mask & a->group);
                if (r == -ESRCH)
                        return r;
                if (r < 0 && r != -EOPNOTSUPP && ret == 0)
                        ret = r;
        }
        return ret;
}

int sched_state_give_back(const KernelOps *kernel, const char *proc_root, pid_t tid,
                          const SchedState *orig, uint32_t mask, const SchedState *granted)
{
        const KernelOps *k = kernel_ops(kernel);
        SchedState cur;
        bool rof;
        int r;

        r = sched_state_read_ops(k, tid, sched_base_slice(), &cur);
        if (r < 0)
                return r;
        if (!sched_policy_is_fair(cur.policy)) {
                /* Only latniced's own real-time grant is given back, and only
                 * while the thread holds exactly it: real time by anyone
                 * else's doing (rtkit, chrt, the thread itself) is theirs,
                 * read here right before the write. */
                if (!(mask & SETTING_BIT(SETTING_POLICY)) || !granted ||
                    !sched_state_rt_granted(&cur, granted))
                        return -EBUSY;
                /* sched_getattr() shows neither nice nor slice of a
                 * real-time thread: they are as they were before. */
                cur.nice = orig->nice;
                cur.slice_ns = orig->slice_ns;
                cur.custom_slice = orig->custom_slice;
        }

        if (mask & SETTING_BIT(SETTING_NICE)) {
                r = k->set_nice(tid, orig->nice);
                if (r < 0)
                        return r;
                cur.nice = orig->nice;
        }
        /* SCHED_FLAG_RESET_ON_FORK goes back with the attributes it guards. */
        rof = (mask & RESET_ON_FORK_MASK) ? has_reset_on_fork(orig) : has_reset_on_fork(&cur);

        if ((mask & (SETTING_BIT(SETTING_POLICY) | SETTING_BIT(SETTING_SLICE) |
                     SETTING_BIT(SETTING_LATENCY_NICE))) ||
            rof != has_reset_on_fork(&cur)) {
                int policy = (mask & SETTING_BIT(SETTING_POLICY)) && sched_policy_is_fair(orig->policy)
                                     ? orig->policy
                                     : sched_policy_is_fair(cur.policy) ? cur.policy : SCHED_OTHER;
                uint64_t slice = (mask & (SETTING_BIT(SETTING_SLICE) |
                                          SETTING_BIT(SETTING_LATENCY_NICE)))
                                         ? current_custom_slice(orig)
                                         : current_custom_slice(&cur);

                r = set_fair(k, tid, &cur, policy, cur.nice, slice, rof);
                if (r < 0)
                        return r;
        }
        return attrs_restore(k, proc_root, tid, orig, mask);
}

int sched_state_read_extra(const KernelOps *kernel, const char *proc_root, pid_t tid,
                           uint32_t mask, SchedState *s)
{
        const AttrIo io = { .k = kernel_ops(kernel), .proc_root = proc_root, .tid = tid };

        return task_attr_read(&io, mask, s);
}

int sched_state_restore_full(const KernelOps *k, const char *proc_root, pid_t tid,
                             const SchedState *orig, uint32_t mask)
{
        return sched_state_give_back(k, proc_root, tid, orig, mask, NULL);
}

int sched_state_restore(pid_t tid, const SchedState *orig, uint32_t mask)
{
        return sched_state_restore_full(NULL, NULL, tid, orig, mask);
}

bool sched_state_rt_granted(const SchedState *now, const SchedState *expected)
{
        return sched_policy_is_rt(now->policy) && now->policy == expected->policy &&
               now->priority == expected->priority;
}

uint32_t sched_state_changed(const SchedState *now, const SchedState *expected, uint32_t mask)
{
        uint32_t changed = 0;

        mask &= SETTINGS_TASK_MASK;
        if (sched_policy_is_fair(now->policy) != sched_policy_is_fair(expected->policy))
                return mask;
        TASK_ATTR_FOREACH(a)
                if ((mask & SETTING_BIT(a->id)) && a->changed(now, expected))
                        changed |= SETTING_BIT(a->id);
        return changed & mask;
}

bool sched_state_matches(const SchedState *now, const SchedState *expected, uint32_t mask)
{
        if (sched_policy_is_fair(now->policy) != sched_policy_is_fair(expected->policy))
                return false;
        return sched_state_changed(now, expected, mask) == 0;
}

void sched_state_forked(const SchedState *parent, uint64_t base_slice_ns, SchedState *ret)
{
        SchedState s = *parent;

        /* The child never has the flag: it has done its duty (sched_fork()). */
        s.flags &= ~(uint64_t)LN_SCHED_FLAG_RESET_ON_FORK;
        /* A real-time task has no timer slack (6.7 on), and a clone copies
         * that 0 even when it starts fair (checked on 6.18: a thread of a
         * SCHED_RR|SCHED_RESET_ON_FORK thread is SCHED_OTHER with slack 0). */
        if (sched_policy_is_rt(parent->policy))
                s.timer_slack_ns = 0;
        if (has_reset_on_fork(parent)) {
                if (!sched_policy_is_fair(s.policy)) {
                        s.policy = SCHED_OTHER;
                        s.priority = 0;
                        s.nice = 0;
                } else if (s.nice < 0)
                        s.nice = 0;
                s.slice_ns = base_slice_ns ?: sched_base_slice();
                s.custom_slice = false;
                if (s.has_latency_nice)
                        s.latency_nice = 0;
                /* Clamps none; a kernel without uclamp reads both as 0. */
                s.util_min = 0;
                s.util_max = parent->util_max == 0 && parent->util_min == 0 ? 0 : 1024;
        }
        *ret = s;
}

void sched_state_take(SchedState *dst, const SchedState *src, uint32_t mask)
{
        TASK_ATTR_FOREACH(a)
                if (mask & SETTING_BIT(a->id))
                        a->take(dst, src);
}
