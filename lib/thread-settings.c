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

#include "lib/ioprio.h"
#include "lib/core-sched.h"
#include "lib/invariant.h"
#include "lib/kernel-ops.h"
#include "lib/thread-settings.h"
#include "lib/macro.h"

/* How often guard_fair() reads again when switched out around its read. */
#define GUARD_TRIES 8

/* The attributes SCHED_FLAG_RESET_ON_FORK guards (sched_state_forked()):
 * restoring one of them puts the original flag back too. */
#define RESET_ON_FORK_MASK                                                                     \
        (SETTING_BIT(SETTING_NICE) | SETTING_BIT(SETTING_POLICY) | SETTING_BIT(SETTING_SLICE) | \
         SETTING_BIT(SETTING_LATENCY_NICE) | SETTING_BIT(SETTING_UTIL_MIN) |                   \
         SETTING_BIT(SETTING_UTIL_MAX))

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

static int set_latency_nice(const KernelOps *k, pid_t tid, int latency_nice)
{
        struct ln_sched_attr a = {
                .size = SCHED_ATTR_SIZE_VER2,
                .sched_flags = LN_SCHED_FLAG_LATENCY_NICE | LN_SCHED_FLAG_KEEP_ALL,
                .sched_latency_nice = latency_nice,
        };
        return k->sched_setattr(tid, &a);
}

static int set_uclamp(const KernelOps *k, pid_t tid, bool set_min, uint32_t min, bool set_max,
                      uint32_t max)
{
        struct ln_sched_attr a = {
                .size = SCHED_ATTR_SIZE_VER1,
                .sched_flags = LN_SCHED_FLAG_KEEP_ALL |
                               (set_min ? LN_SCHED_FLAG_UTIL_CLAMP_MIN : 0) |
                               (set_max ? LN_SCHED_FLAG_UTIL_CLAMP_MAX : 0),
                .sched_util_min = min,
                .sched_util_max = max,
        };
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
 * "Races with the task" in daemon/apply.c).
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
        /* sched_state_read() leaves the cookie out: needed only here. */
        if (settings_has(s, SETTING_CORE_SCHED) && k->core_sched_get(tid, &before.core_cookie) < 0)
                before.core_cookie = 0;
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
        uint32_t unsupported;
} FairPlan;

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

        if (p.mask & SETTING_BIT(SETTING_POLICY)) {
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
        if ((p.mask & SETTING_BIT(SETTING_TIMER_SLACK)) && s->timer_slack_ns == 0)
                return -EINVAL;
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
static int fair_apply(const KernelOps *k, pid_t tid, const SchedState *before, const FairPlan *p,
                      uint32_t *done)
{
        const uint32_t nice_bit = SETTING_BIT(SETTING_NICE);
        int r;

        if ((p->fair_attr &&
             (p->policy != before->policy || p->slice != current_custom_slice(before))) ||
            p->reset_on_fork != has_reset_on_fork(before)) {
                r = guard_fair(k, tid, before);
                if (r < 0)
                        return r;
                r = set_fair(k, tid, before, p->policy, p->nice, p->slice, p->reset_on_fork);
                if (r < 0)
                        return r == -EINVAL && p->policy == before->policy ? -EBUSY : r;
                *done |= p->mask & (SETTING_BIT(SETTING_POLICY) | SETTING_BIT(SETTING_SLICE));
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
                *done |= p->mask & (SETTING_BIT(SETTING_POLICY) | SETTING_BIT(SETTING_SLICE));
                if (p->emulate_ln)
                        *done |= SETTING_BIT(SETTING_LATENCY_NICE);
        }
        return 0;
}

/* I/O priority and oom_score_adj. The ioprio is one value: a level alone
 * keeps the class, a class alone the level (see ioprio_compose(); NICE is
 * the nice the thread is getting, which a thread without an I/O class takes
 * its level from). Adds to *DONE; a negative errno means the caller puts
 * DONE back. */
static int io_oom_apply(const ApplyContext *c, pid_t tid, const SchedState *before,
                        const Settings *s, uint32_t mask, int nice, uint32_t *done)
{
        int r;

        if (mask & SETTINGS_IO_MASK) {
                int v = ioprio_compose(before->ioprio, nice,
                                       (mask & SETTING_BIT(SETTING_IO_CLASS)) ? s->io_class : -1,
                                       (mask & SETTING_BIT(SETTING_IO_NICE)) ? s->io_nice : -1);

                if (v != before->ioprio) {
                        r = kernel_ops(c->kernel)->ioprio_set(tid, v);
                        if (r < 0)
                                return r;
                }
                *done |= mask & SETTINGS_IO_MASK;
        }
        if (mask & SETTING_BIT(SETTING_OOM_SCORE_ADJ)) {
                if (before->oom_score_adj != s->oom_score_adj) {
                        r = kernel_ops(c->kernel)->oom_score_adj_write(c->proc_root, tid,
                                                                       s->oom_score_adj);
                        if (r < 0)
                                return r;
                }
                *done |= SETTING_BIT(SETTING_OOM_SCORE_ADJ);
        }
        return 0;
}

/* Latency nice (the real knob), uclamp, timer slack, I/O priority and
 * oom_score_adj. Adds to *DONE and *UNSUPPORTED; a negative errno means the
 * caller puts DONE back. */
static int extras_apply(const ApplyContext *c, pid_t tid, const SchedState *before,
                        const Settings *s, uint32_t mask, int nice, uint32_t *done,
                        uint32_t *unsupported)
{
        const uint32_t ubits = mask & (SETTING_BIT(SETTING_UTIL_MIN) | SETTING_BIT(SETTING_UTIL_MAX));
        const KernelOps *k = kernel_ops(c->kernel);
        int r;

        if ((mask & SETTING_BIT(SETTING_LATENCY_NICE)) &&
            c->backend == LATENCY_BACKEND_LATENCY_NICE) {
                r = before->has_latency_nice && before->latency_nice == s->latency_nice
                            ? 0
                            : set_latency_nice(k, tid, s->latency_nice);
                /* The value is in range: EINVAL here is the unknown flag of a
                 * kernel without latency nice, like E2BIG. */
                if (r == -E2BIG || r == -EINVAL || r == -EOPNOTSUPP)
                        *unsupported |= SETTING_BIT(SETTING_LATENCY_NICE);
                else if (r < 0)
                        return r;
                else
                        *done |= SETTING_BIT(SETTING_LATENCY_NICE);
        }
        if (ubits) {
                bool has_min = mask & SETTING_BIT(SETTING_UTIL_MIN);
                bool has_max = mask & SETTING_BIT(SETTING_UTIL_MAX);

                r = set_uclamp(k, tid, has_min, has_min ? s->util_min : before->util_min, has_max,
                               has_max ? s->util_max : before->util_max);
                if (r == -EOPNOTSUPP)
                        *unsupported |= ubits;
                else if (r < 0)
                        return r;
                else
                        *done |= ubits;
        }
        if (mask & SETTING_BIT(SETTING_TIMER_SLACK)) {
                if (before->timer_slack_ns != s->timer_slack_ns) {
                        r = k->timer_slack_write(c->proc_root ?: "/proc", tid, s->timer_slack_ns);
                        if (r < 0)
                                return r;
                }
                *done |= SETTING_BIT(SETTING_TIMER_SLACK);
        }
        return io_oom_apply(c, tid, before, s, mask, nice, done);
}

/* CoreSched= (see settings_apply_tid()). Adds to *DONE and *UNSUPPORTED; a
 * negative errno means the caller puts DONE back. */
static int core_sched_apply(const ApplyContext *c, pid_t tid, const SchedState *before,
                            const Settings *s, uint32_t *done, uint32_t *unsupported)
{
        const KernelOps *k = kernel_ops(c->kernel);
        const pid_t source = c->core_source;
        uint64_t want = 0;
        int r;

        if (s->core_sched.mode == CORE_SCHED_NONE)
                r = before->core_cookie == 0 ? 0 : k->core_sched_clear(tid);
        else if (source == tid && before->core_cookie != 0)
                r = 0; /* its own cookie, the caller says so */
        else if (source > 0 && source != tid) {
                r = k->core_sched_get(source, &want);
                if (r >= 0 && (want == 0 || want != before->core_cookie))
                        r = want == 0 ? k->core_sched_create(tid)
                                      : k->core_sched_share(source, tid);
        } else
                r = k->core_sched_create(tid);
        if (r == -EINVAL || r == -ENODEV) {
                *unsupported |= SETTING_BIT(SETTING_CORE_SCHED);
                return 0;
        }
        if (r < 0)
                return r;
        *done |= SETTING_BIT(SETTING_CORE_SCHED);
        return 0;
}

int settings_apply_tid_from(const ApplyContext *c, pid_t tid, const SchedState *cur,
                            const Settings *s, uint32_t *ret_applied, uint32_t *ret_unsupported)
{
        const SchedState before = *cur;
        uint32_t applied, unsupported, done = 0;
        FairPlan p;
        int r;

        if (!sched_policy_is_fair(before.policy))
                return -EBUSY;
        r = fair_plan(c, &before, s, &p);
        if (r < 0)
                return r;
        unsupported = p.unsupported;

        if (c->dry_run) {
                applied = p.mask & ~unsupported;
                if ((p.mask & SETTING_BIT(SETTING_LATENCY_NICE)) &&
                    c->backend == LATENCY_BACKEND_SLICE && !p.emulate_ln)
                        applied &= ~SETTING_BIT(SETTING_LATENCY_NICE);
        } else {
                r = fair_apply(kernel_ops(c->kernel), tid, &before, &p, &done);
                if (r >= 0)
                        r = extras_apply(c, tid, &before, s, p.mask, p.nice, &done,
                                         &unsupported);
                if (r >= 0 && (p.mask & SETTING_BIT(SETTING_CORE_SCHED)))
                        r = core_sched_apply(c, tid, &before, s, &done, &unsupported);
                if (r < 0) {
                        if (done != 0)
                                (void)sched_state_restore_full(c->kernel, c->proc_root ?: "/proc",
                                                               tid, &before, done);
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

int sched_state_restore_full(const KernelOps *kernel, const char *proc_root, pid_t tid,
                             const SchedState *orig, uint32_t mask)
{
        const KernelOps *k = kernel_ops(kernel);
        SchedState cur;
        bool rof;
        int r, ret = 0;

        r = sched_state_read_ops(k, tid, sched_base_slice(), &cur);
        if (r < 0)
                return r;
        if (!sched_policy_is_fair(cur.policy))
                return -EBUSY;

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
                                     : cur.policy;
                uint64_t slice = (mask & (SETTING_BIT(SETTING_SLICE) |
                                          SETTING_BIT(SETTING_LATENCY_NICE)))
                                         ? current_custom_slice(orig)
                                         : current_custom_slice(&cur);

                r = set_fair(k, tid, &cur, policy, cur.nice, slice, rof);
                if (r < 0)
                        return r;
        }
        if ((mask & SETTING_BIT(SETTING_LATENCY_NICE)) && orig->has_latency_nice) {
                r = set_latency_nice(k, tid, orig->latency_nice);
                if (r == -ESRCH)
                        return r;
                if (r < 0 && ret == 0)
                        ret = r;
        }
        if (mask & (SETTING_BIT(SETTING_UTIL_MIN) | SETTING_BIT(SETTING_UTIL_MAX))) {
                r = set_uclamp(k, tid, mask & SETTING_BIT(SETTING_UTIL_MIN), orig->util_min,
                               mask & SETTING_BIT(SETTING_UTIL_MAX), orig->util_max);
                if (r == -ESRCH)
                        return r;
                if (r < 0 && r != -EOPNOTSUPP && ret == 0)
                        ret = r;
        }
        if (mask & SETTING_BIT(SETTING_TIMER_SLACK)) {
                r = k->timer_slack_write(proc_root, tid, orig->timer_slack_ns);
                if (r == -ESRCH)
                        return r;
                if (r < 0 && ret == 0)
                        ret = r;
        }
        if (mask & SETTINGS_IO_MASK) {
                r = k->ioprio_set(tid, orig->ioprio);
                if (r == -ESRCH)
                        return r;
                if (r < 0 && ret == 0)
                        ret = r;
        }
        if (mask & SETTING_BIT(SETTING_OOM_SCORE_ADJ)) {
                r = k->oom_score_adj_write(proc_root, tid, orig->oom_score_adj);
                if (r == -ESRCH)
                        return r;
                if (r < 0 && ret == 0)
                        ret = r;
        }
        /* The original is no cookie (latniced never takes over one someone
         * else set): take latniced's away. */
        if ((mask & SETTING_BIT(SETTING_CORE_SCHED)) && orig->core_cookie == 0) {
                r = k->core_sched_clear(tid);
                if (r == -ESRCH)
                        return r;
                if (r < 0 && r != -EINVAL && r != -ENODEV && ret == 0)
                        ret = r;
        }
        return ret;
}

int sched_state_read_extra(const KernelOps *kernel, const char *proc_root, pid_t tid,
                           uint32_t mask, SchedState *s)
{
        const KernelOps *k = kernel_ops(kernel);
        int r;

        if (mask & SETTING_BIT(SETTING_TIMER_SLACK)) {
                r = k->timer_slack_read(proc_root, tid, &s->timer_slack_ns);
                if (r == -ESRCH)
                        return r;
                if (r < 0)
                        s->timer_slack_ns = 0;
        }
        if (mask & SETTINGS_IO_MASK) {
                r = k->ioprio_get(tid, &s->ioprio);
                if (r == -ESRCH)
                        return r;
                if (r < 0)
                        s->ioprio = 0;
        }
        if (mask & SETTING_BIT(SETTING_OOM_SCORE_ADJ)) {
                r = k->oom_score_adj_read(proc_root, tid, &s->oom_score_adj);
                if (r == -ESRCH)
                        return r;
                if (r < 0)
                        s->oom_score_adj = 0;
        }
        if (mask & SETTING_BIT(SETTING_CORE_SCHED)) {
                r = k->core_sched_get(tid, &s->core_cookie);
                if (r == -ESRCH)
                        return r;
                if (r < 0) /* no core scheduling here (EINVAL, ENODEV): no cookie */
                        s->core_cookie = 0;
        }
        return 0;
}

int sched_state_restore(pid_t tid, const SchedState *orig, uint32_t mask)
{
        return sched_state_restore_full(NULL, NULL, tid, orig, mask);
}

uint32_t sched_state_changed(const SchedState *now, const SchedState *expected, uint32_t mask)
{
        uint32_t changed = 0;

        mask &= SETTINGS_TASK_MASK;
        if (sched_policy_is_fair(now->policy) != sched_policy_is_fair(expected->policy))
                return mask;
        if (now->policy != expected->policy)
                changed |= SETTING_BIT(SETTING_POLICY);
        if (now->nice != expected->nice)
                changed |= SETTING_BIT(SETTING_NICE);
        if (now->slice_ns != expected->slice_ns || now->custom_slice != expected->custom_slice)
                changed |= SETTING_BIT(SETTING_SLICE);
        if (now->has_latency_nice != expected->has_latency_nice)
                changed |= SETTING_BIT(SETTING_LATENCY_NICE);
        else if (expected->has_latency_nice ? now->latency_nice != expected->latency_nice
                                            : now->slice_ns != expected->slice_ns)
                changed |= SETTING_BIT(SETTING_LATENCY_NICE); /* else emulated with the slice */
        if (now->util_min != expected->util_min)
                changed |= SETTING_BIT(SETTING_UTIL_MIN);
        if (now->util_max != expected->util_max)
                changed |= SETTING_BIT(SETTING_UTIL_MAX);
        if (now->timer_slack_ns != expected->timer_slack_ns)
                changed |= SETTING_BIT(SETTING_TIMER_SLACK);
        /* One value: a class or a level someone else set makes both theirs. */
        if (now->ioprio != expected->ioprio)
                changed |= SETTINGS_IO_MASK;
        if (now->oom_score_adj != expected->oom_score_adj)
                changed |= SETTING_BIT(SETTING_OOM_SCORE_ADJ);
        if (now->core_cookie != expected->core_cookie)
                changed |= SETTING_BIT(SETTING_CORE_SCHED);
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
        if (mask & SETTING_BIT(SETTING_POLICY)) {
                dst->policy = src->policy;
                dst->priority = src->priority;
        }
        if (mask & SETTING_BIT(SETTING_NICE))
                dst->nice = src->nice;
        /* LatencyNice emulated with the slice is the slice. */
        if ((mask & SETTING_BIT(SETTING_SLICE)) ||
            ((mask & SETTING_BIT(SETTING_LATENCY_NICE)) && !src->has_latency_nice)) {
                dst->slice_ns = src->slice_ns;
                dst->custom_slice = src->custom_slice;
        }
        if (mask & SETTING_BIT(SETTING_LATENCY_NICE)) {
                dst->has_latency_nice = src->has_latency_nice;
                dst->latency_nice = src->latency_nice;
        }
        if (mask & SETTING_BIT(SETTING_UTIL_MIN))
                dst->util_min = src->util_min;
        if (mask & SETTING_BIT(SETTING_UTIL_MAX))
                dst->util_max = src->util_max;
        if (mask & SETTING_BIT(SETTING_TIMER_SLACK))
                dst->timer_slack_ns = src->timer_slack_ns;
        if (mask & SETTINGS_IO_MASK)
                dst->ioprio = src->ioprio;
        if (mask & SETTING_BIT(SETTING_OOM_SCORE_ADJ))
                dst->oom_score_adj = src->oom_score_adj;
        if (mask & SETTING_BIT(SETTING_CORE_SCHED))
                dst->core_cookie = src->core_cookie;
}
