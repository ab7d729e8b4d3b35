/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Tests for lib/thread-settings.c: apply each setting, verify, restore,
 * verify. Every case runs twice: on the fake kernel (tests/unit/fake-kernel.h)
 * as any user, verified from its model, with the races with the task as
 * scripted cases; then as root on a real child process, verified with
 * sched_getattr()/getpriority()//proc from here. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/ioprio.h"
#include "lib/kernel-ops.h"
#include "lib/latency-slice.h"
#include "lib/thread-settings.h"
#include "lib/macro.h"
#include "lib/probe.h"
#include "lib/sched.h"
#include "tests/unit/fake-kernel.h"
#include "tests/unit/test-util.h"

static const KernelOps *K;      /* the kernel under test: real or fake */
static bool on_fake;            /* K is the fake: verify from its model */
static const char *proc;        /* its proc root */
static KernelFeatures k;
static pid_t child;
static uint64_t pristine_slack; /* inherited from us; 50 us by default */

static struct ln_sched_attr getattr(pid_t tid)
{
        struct ln_sched_attr a;
        CHECK(K->sched_getattr(tid, &a, SCHED_ATTR_SIZE_VER2) == 0);
        return a;
}

static int getnice(pid_t tid)
{
        int v;

        if (on_fake)
                return fake_task(tid)->nice;
        errno = 0;
        v = getpriority(PRIO_PROCESS, (id_t) tid);
        CHECK(errno == 0);
        return v;
}

static int state_of(pid_t tid, SchedState *ret)
{
        return sched_state_read_ops(K, tid, sched_base_slice(), ret);
}

static int restore(pid_t tid, const SchedState *orig, uint32_t mask)
{
        return sched_state_restore_full(K, proc, tid, orig, mask);
}

/* Someone else (the task itself, renice, chrt, ionice) changes TID. */
static int other_nice(pid_t tid, int nice)
{
        if (on_fake) {
                fake_task(tid)->nice = nice;
                return 0;
        }
        return setpriority(PRIO_PROCESS, (id_t) tid, nice);
}

static int other_sched(pid_t tid, int policy, int priority)
{
        struct sched_param sp = { .sched_priority = priority };

        if (on_fake) {
                fake_task(tid)->policy = policy;
                fake_task(tid)->rt_priority = (uint32_t) priority;
                return 0;
        }
        return sched_setscheduler(tid, policy, &sp);
}

static int other_ioprio(pid_t tid, int ioprio)
{
        if (on_fake) {
                fake_task(tid)->ioprio = ioprio;
                return 0;
        }
        return ioprio_write(tid, ioprio);
}

static uint64_t slack_of(pid_t tid)
{
        char p[64];
        unsigned long long v;
        FILE *f;

        if (on_fake)
                return fake_task(tid)->timer_slack_ns;

        snprintf(p, sizeof(p), "/proc/%d/timerslack_ns", (int) tid);
        f = fopen(p, "re");
        CHECK(f);
        CHECK(fscanf(f, "%llu", &v) == 1);
        fclose(f);
        return v;
}

static bool state_equal(const SchedState *a, const SchedState *b)
{
        return a->policy == b->policy && a->nice == b->nice && a->slice_ns == b->slice_ns &&
               a->custom_slice == b->custom_slice && a->util_min == b->util_min &&
               a->util_max == b->util_max && a->latency_nice == b->latency_nice &&
               a->has_latency_nice == b->has_latency_nice && a->flags == b->flags &&
               a->timer_slack_ns == b->timer_slack_ns && a->ioprio == b->ioprio &&
               a->oom_score_adj == b->oom_score_adj;
}

#define CAP_SYS_RESOURCE_BIT 24

/* Is capability BIT in our effective set (/proc/self/status CapEff)? */
static bool has_cap(unsigned bit)
{
        unsigned long long eff = 0;
        char line[256];
        FILE *f;
        bool found = false;

        if (on_fake)
                return true; /* no capabilities modelled: everything is allowed */
        f = fopen("/proc/self/status", "re");
        CHECK(f);
        while (fgets(line, sizeof(line), f))
                if (sscanf(line, "CapEff: %llx", &eff) == 1) {
                        found = true;
                        break;
                }
        fclose(f);
        CHECK(found);
        return eff & (1ULL << bit);
}

/* Read back from the kernel, not from lib/ioprio.c. */
static int ioprio_of(pid_t tid)
{
        long v;

        if (on_fake)
                return fake_task(tid)->ioprio;
        v = syscall(SYS_ioprio_get, 1 /* IOPRIO_WHO_PROCESS */, (int) tid);

        CHECK(v >= 0);
        return (int) v;
}

static int oom_of(pid_t pid)
{
        char p[64];
        int v;
        FILE *f;

        if (on_fake)
                return fake_task(fake_task(pid)->pid)->oom_score_adj;
        snprintf(p, sizeof(p), "/proc/%d/oom_score_adj", (int) pid);
        f = fopen(p, "re");
        CHECK(f);
        CHECK(fscanf(f, "%d", &v) == 1);
        fclose(f);
        return v;
}

static ApplyContext ctx(LatencyBackend b)
{
        return (ApplyContext) { .kernel = K, .backend = b, .base_slice_ns = k.base_slice_ns,
                                .proc_root = proc };
}

static void check_pristine(void)
{
        struct ln_sched_attr a = getattr(child);
        CHECK(a.sched_policy == SCHED_OTHER);
        CHECK(a.sched_nice == 0);
        if (k.eevdf_slice)
                CHECK(a.sched_runtime == k.base_slice_ns);
        CHECK(slack_of(child) == pristine_slack);
}

static int give_back(pid_t tid, const SchedState *orig, uint32_t mask, const SchedState *granted)
{
        return sched_state_give_back(K, proc, tid, orig, mask, granted);
}

/* Real time that is not latniced's grant GRANTED (someone else's
 * priority, policy) is never made fair by a give-back or a restore, even
 * one that names Policy: -EBUSY, the thread as they left it. Then the
 * grant is put back as it was. */
static void test_rt_not_ours(const SchedState *orig, const SchedState *granted)
{
        const uint32_t rt = SETTING_BIT(SETTING_POLICY) | SETTING_BIT(SETTING_REALTIME_PRIORITY);
        const SchedState fifo = { .policy = SCHED_FIFO, .priority = 30 };
        struct ln_sched_attr a;

        CHECK(other_sched(child, SCHED_RR, 30) == 0);
        CHECK(give_back(child, orig, rt, granted) == -EBUSY);
        a = getattr(child);
        CHECK(a.sched_policy == SCHED_RR && a.sched_priority == 30);
        CHECK(other_sched(child, SCHED_FIFO, (int)granted->priority) == 0);
        CHECK(give_back(child, orig, rt | SETTING_BIT(SETTING_NICE), granted) == -EBUSY);
        CHECK(restore(child, orig, rt) == -EBUSY);
        CHECK(give_back(child, orig, rt, NULL) == -EBUSY);
        a = getattr(child);
        CHECK(a.sched_policy == SCHED_FIFO && a.sched_priority == granted->priority);
        /* Latniced's grant, but Policy not asked for: left as it is. */
        CHECK(give_back(child, orig, SETTING_BIT(SETTING_NICE), &fifo) == -EBUSY);
        CHECK(getattr(child).sched_policy == SCHED_FIFO);
        CHECK(other_sched(child, SCHED_RR, (int)granted->priority) == 0);
}

/* A granted thread whose rule's Nice= changes (a reload): the nice is
 * written underneath (setpriority() keeps it through real time), the grant
 * stays, and the thread has it when the grant is given back. */
static void test_rt_nice_under(ApplyContext *c, Settings *s)
{
        Settings n = *s;
        uint32_t applied = 0;

        n.mask |= SETTING_BIT(SETTING_NICE);
        n.nice = 4;
        CHECK(settings_apply_tid(c, child, &n, NULL, &applied, NULL) == 0);
        CHECK(applied & SETTING_BIT(SETTING_NICE));
        CHECK(getattr(child).sched_policy == (uint32_t)s->policy);
        CHECK(getnice(child) == 4);
        n.nice = 0;
        CHECK(settings_apply_tid(c, child, &n, NULL, &applied, NULL) == 0);
        CHECK(getnice(child) == 0 && getattr(child).sched_policy == (uint32_t)s->policy);
}

/* Policy=rr under a cap: granted at most at the cap, always with
 * SCHED_FLAG_RESET_ON_FORK (what it forks starts at SCHED_OTHER), seen as
 * latniced's own grant, and given back to the fair policy under it. */
static void test_rt_grant(ApplyContext *c, Settings *s)
{
        SchedState before, now, forked;
        struct ln_sched_attr a;
        uint32_t applied = 0, unsup = 0;
        const uint32_t rt = SETTING_BIT(SETTING_POLICY) | SETTING_BIT(SETTING_REALTIME_PRIORITY);

        c->rt_max_priority = 20;
        *s = (Settings){ .mask = rt, .policy = SCHED_RR, .rt_priority = 50 };
        CHECK(settings_apply_tid(c, child, s, &before, &applied, &unsup) == 0);
        CHECK(applied == rt && unsup == 0);
        a = getattr(child);
        CHECK(a.sched_policy == SCHED_RR);
        CHECK(a.sched_priority == 20); /* the cap, not 50 */
        CHECK(a.sched_flags & LN_SCHED_FLAG_RESET_ON_FORK);
        CHECK(state_of(child, &now) == 0);
        CHECK(sched_state_rt_granted(&now, &now));
        sched_state_forked(&now, 0, &forked);
        CHECK(forked.policy == SCHED_OTHER && forked.priority == 0);
        CHECK(forked.timer_slack_ns == 0); /* a real-time creator's none */
        /* Already granted: nothing written, still applied. */
        CHECK(settings_apply_tid(c, child, s, NULL, &applied, NULL) == 0);
        CHECK(applied == rt && getattr(child).sched_priority == 20);
        test_rt_not_ours(&before, &now);
        /* Below the cap, as asked. */
        CHECK(give_back(child, &before, rt, &now) == 0);
        s->rt_priority = 7;
        CHECK(settings_apply_tid(c, child, s, NULL, &applied, NULL) == 0);
        CHECK(getattr(child).sched_priority == 7);
        test_rt_nice_under(c, s);
        /* Given back: the fair policy it had, and its flag. */
        CHECK(state_of(child, &now) == 0);
        CHECK(give_back(child, &before, rt, &now) == 0);
        a = getattr(child);
        CHECK(a.sched_policy == (uint32_t)before.policy && a.sched_priority == 0);
        CHECK(!(a.sched_flags & LN_SCHED_FLAG_RESET_ON_FORK) ==
              !(before.flags & LN_SCHED_FLAG_RESET_ON_FORK));
        c->rt_max_priority = 0;
        *s = (Settings){ .mask = SETTING_BIT(SETTING_POLICY), .policy = before.policy };
}

static void test_nice_policy(void)
{
        ApplyContext c = ctx(k.best_backend);
        Settings s = { .mask = SETTING_BIT(SETTING_NICE), .nice = 5 };
        SchedState before, now;
        uint32_t applied = 0, unsup = 0;

        CHECK(settings_apply_tid(&c, child, &s, &before, &applied, &unsup) == 0);
        CHECK(applied == SETTING_BIT(SETTING_NICE) && unsup == 0);
        unsup = 0;
        CHECK(before.nice == 0 && before.policy == SCHED_OTHER);
        CHECK(getnice(child) == 5 && getattr(child).sched_nice == 5);
        CHECK(getattr(child).sched_runtime == before.slice_ns);

        /* Policy keeps nice (and the slice) */
        s = (Settings) { .mask = SETTING_BIT(SETTING_POLICY), .policy = SCHED_BATCH };
        CHECK(settings_apply_tid(&c, child, &s, NULL, &applied, NULL) == 0);
        CHECK(applied == SETTING_BIT(SETTING_POLICY));
        CHECK(getattr(child).sched_policy == SCHED_BATCH && getnice(child) == 5);
        s.policy = SCHED_IDLE;
        CHECK(settings_apply_tid(&c, child, &s, NULL, NULL, NULL) == 0);
        CHECK(getattr(child).sched_policy == SCHED_IDLE && getnice(child) == 5);

        /* A real-time Policy without a cap (ApplyContext.rt_max_priority 0)
         * is left out as unsupported, nothing changes. */
        s.policy = SCHED_FIFO;
        CHECK(settings_apply_tid(&c, child, &s, NULL, &applied, &unsup) == 0);
        CHECK(applied == 0 && unsup == SETTING_BIT(SETTING_POLICY));
        CHECK(getattr(child).sched_policy == SCHED_IDLE);
        test_rt_grant(&c, &s);

        CHECK(restore(child, &before, SETTING_BIT(SETTING_NICE) |
                                                          SETTING_BIT(SETTING_POLICY)) == 0);
        CHECK(state_of(child, &now) == 0);
        CHECK(state_equal(&before, &now));
        check_pristine();
}

static void test_slice(void)
{
        ApplyContext c = ctx(k.best_backend);
        Settings s = { .mask = SETTING_BIT(SETTING_SLICE), .slice_ns = 3000000 };
        SchedState before, now;
        uint32_t applied = 0;

        if (!k.eevdf_slice) {
                printf("no EEVDF slice, slice tests skipped\n");
                return;
        }
        CHECK(other_nice(child, 3) == 0);
        CHECK(settings_apply_tid(&c, child, &s, &before, &applied, NULL) == 0);
        CHECK(applied == SETTING_BIT(SETTING_SLICE));
        CHECK(getattr(child).sched_runtime == 3000000);
        CHECK(getnice(child) == 3 && getattr(child).sched_policy == SCHED_OTHER);
        CHECK(restore(child, &before, SETTING_BIT(SETTING_SLICE)) == 0);
        CHECK(getattr(child).sched_runtime == k.base_slice_ns);
        CHECK(getnice(child) == 3);
        CHECK(other_nice(child, 0) == 0);

        /* Latency nice under the slice backend: the mapped slice, nice kept. */
        c = ctx(LATENCY_BACKEND_SLICE);
        s = (Settings) { .mask = SETTING_BIT(SETTING_LATENCY_NICE), .latency_nice = -10 };
        CHECK(settings_apply_tid(&c, child, &s, &before, &applied, NULL) == 0);
        CHECK(applied == SETTING_BIT(SETTING_LATENCY_NICE));
        CHECK(getattr(child).sched_runtime == latency_nice_to_slice(-10, k.base_slice_ns));
        if (k.base_slice_ns == 1400000)
                CHECK(getattr(child).sched_runtime == 150146); /* by hand: 1.4ms*1024/9548 */
        s.latency_nice = 19;
        CHECK(settings_apply_tid(&c, child, &s, NULL, NULL, NULL) == 0);
        CHECK(getattr(child).sched_runtime == latency_nice_to_slice(19, k.base_slice_ns));
        CHECK(getattr(child).sched_runtime > k.base_slice_ns);
        /* 0: back to the default slice */
        s.latency_nice = 0;
        CHECK(settings_apply_tid(&c, child, &s, NULL, &applied, NULL) == 0);
        CHECK(applied == SETTING_BIT(SETTING_LATENCY_NICE));
        CHECK(getattr(child).sched_runtime == k.base_slice_ns);
        CHECK(state_of(child, &now) == 0 && !now.custom_slice);

        /* An explicit slice wins over the emulation. */
        s = (Settings) { .mask = SETTING_BIT(SETTING_LATENCY_NICE) | SETTING_BIT(SETTING_SLICE),
                         .latency_nice = -10, .slice_ns = 5000000 };
        CHECK(settings_apply_tid(&c, child, &s, &before, &applied, NULL) == 0);
        CHECK(applied == SETTING_BIT(SETTING_SLICE));
        CHECK(getattr(child).sched_runtime == 5000000);
        CHECK(restore(child, &before, s.mask) == 0);
        check_pristine();

        /* Backend none: latency nice is unsupported, not an error. */
        c = ctx(LATENCY_BACKEND_NONE);
        s = (Settings) { .mask = SETTING_BIT(SETTING_LATENCY_NICE), .latency_nice = -10 };
        uint32_t unsup = 0;
        CHECK(settings_apply_tid(&c, child, &s, NULL, &applied, &unsup) == 0);
        CHECK(applied == 0 && unsup == SETTING_BIT(SETTING_LATENCY_NICE));
        check_pristine();
}

static void test_latency_nice_backend(void)
{
        ApplyContext c = ctx(LATENCY_BACKEND_LATENCY_NICE);
        Settings s = { .mask = SETTING_BIT(SETTING_LATENCY_NICE), .latency_nice = -7 };
        SchedState before;
        uint32_t applied = 0, unsup = 0;

        CHECK(settings_apply_tid(&c, child, &s, &before, &applied, &unsup) == 0);
        if (k.latency_nice_syscall) {
                CHECK(applied == SETTING_BIT(SETTING_LATENCY_NICE) && unsup == 0);
                CHECK(getattr(child).sched_latency_nice == -7);
                CHECK(restore(child, &before, s.mask) == 0);
                CHECK(getattr(child).sched_latency_nice == 0);
        } else {
                /* forced on a kernel without it: reported, nothing changed */
                CHECK(applied == 0 && unsup == SETTING_BIT(SETTING_LATENCY_NICE));
        }
        check_pristine();
}

static void test_uclamp_slack(void)
{
        ApplyContext c = ctx(k.best_backend);
        Settings s = { .mask = SETTING_BIT(SETTING_UTIL_MIN) | SETTING_BIT(SETTING_UTIL_MAX) |
                               SETTING_BIT(SETTING_TIMER_SLACK),
                       .util_min = 100, .util_max = 900, .timer_slack_ns = 200000 };
        SchedState before;
        uint32_t applied = 0, unsup = 0, ubits = SETTING_BIT(SETTING_UTIL_MIN) |
                                                 SETTING_BIT(SETTING_UTIL_MAX);

        CHECK(settings_apply_tid(&c, child, &s, &before, &applied, &unsup) == 0);
        CHECK(slack_of(child) == 200000);
        CHECK(applied & SETTING_BIT(SETTING_TIMER_SLACK));
        if (k.uclamp_task) {
                CHECK((applied & ubits) == ubits && unsup == 0);
                CHECK(getattr(child).sched_util_min == 100 && getattr(child).sched_util_max == 900);
        } else
                CHECK((unsup & ubits) == ubits && (applied & ubits) == 0);
        CHECK(restore(child, &before, s.mask) == 0);
        CHECK(slack_of(child) == before.timer_slack_ns);
        if (k.uclamp_task)
                CHECK(getattr(child).sched_util_min == before.util_min);
        check_pristine();
}

static void test_all_and_matches(void)
{
        ApplyContext c = ctx(k.best_backend);
        Settings s = { .mask = SETTINGS_TASK_MASK & ~(SETTING_BIT(SETTING_UTIL_MIN) |
                                                      SETTING_BIT(SETTING_UTIL_MAX)),
                       .latency_nice = -5, .slice_ns = 700000, .nice = 4, .policy = SCHED_BATCH,
                       .timer_slack_ns = 1000, .rt_priority = 5 };
        SchedState before, after, now;
        uint32_t applied = 0;

        CHECK(settings_apply_tid(&c, child, &s, &before, &applied, NULL) == 0);
        CHECK(state_of(child, &after) == 0);
        CHECK(after.policy == SCHED_BATCH && after.nice == 4 && after.timer_slack_ns == 1000);
        if (k.eevdf_slice)
                CHECK(after.slice_ns == 700000 && after.custom_slice);
        CHECK(sched_state_matches(&after, &after, applied));
        CHECK(!sched_state_matches(&before, &after, applied));

        /* someone renices: a NICE mask notices, a SLICE-only mask does not */
        CHECK(other_nice(child, 6) == 0);
        CHECK(state_of(child, &now) == 0);
        CHECK(!sched_state_matches(&now, &after, SETTING_BIT(SETTING_NICE)));
        CHECK(sched_state_matches(&now, &after, SETTING_BIT(SETTING_SLICE)));
        CHECK(other_nice(child, 4) == 0);

        CHECK(restore(child, &before, applied) == 0);
        CHECK(state_of(child, &now) == 0);
        CHECK(state_equal(&before, &now));
        check_pristine();
}

static void test_refusals(void)
{
        ApplyContext c = ctx(k.best_backend);
        Settings s = { .mask = SETTING_BIT(SETTING_NICE) | SETTING_BIT(SETTING_TIMER_SLACK),
                       .nice = 5, .timer_slack_ns = 0 };
        struct sched_param sp = { .sched_priority = 1 };
        SchedState before, rt, now;
        uint32_t applied = 12345;

        /* a failure midway puts back what was done (nice), outputs untouched */
        CHECK(settings_apply_tid(&c, child, &s, NULL, &applied, NULL) == -EINVAL);
        CHECK(applied == 12345);
        CHECK(getnice(child) == 0);

        /* dry run: decides, changes nothing */
        c.dry_run = true;
        s = (Settings) { .mask = SETTING_BIT(SETTING_NICE) | SETTING_BIT(SETTING_SLICE) |
                                 SETTING_BIT(SETTING_TIMER_SLACK),
                         .nice = 7, .slice_ns = 4000000, .timer_slack_ns = 5000 };
        CHECK(state_of(child, &before) == 0);
        CHECK(settings_apply_tid(&c, child, &s, NULL, &applied, NULL) == 0);
        CHECK(applied == s.mask);
        CHECK(state_of(child, &now) == 0);
        CHECK(state_equal(&before, &now));
        check_pristine();
        c.dry_run = false;

        /* an RT task is never touched */
        CHECK(other_sched(child, SCHED_FIFO, sp.sched_priority) == 0);
        CHECK(state_of(child, &rt) == 0);
        CHECK(settings_apply_tid(&c, child, &s, NULL, NULL, NULL) == -EBUSY);
        CHECK(state_of(child, &now) == 0);
        CHECK(state_equal(&rt, &now));
        CHECK(getattr(child).sched_policy == SCHED_FIFO);
        /* Only a Policy of latniced's own grant is given back; the caller
         * tells (sched_state_rt_granted()), the rest is refused here. */
        CHECK(!sched_state_rt_granted(&now, &before));
        CHECK(restore(child, &before, SETTING_BIT(SETTING_NICE)) == -EBUSY);
        CHECK(!sched_state_matches(&now, &before, 0)); /* left the fair class */
        sp.sched_priority = 0;
        CHECK(other_sched(child, SCHED_OTHER, 0) == 0);
        check_pristine();
}

static void test_gone(void)
{
        ApplyContext c = ctx(k.best_backend);
        Settings s = { .mask = SETTING_BIT(SETTING_NICE), .nice = 1 };
        SchedState st;

        if (on_fake)
                fake_process_exit(child);
        else {
                CHECK(kill(child, SIGKILL) == 0);
                CHECK(waitpid(child, NULL, 0) == child);
        }
        CHECK(settings_apply_tid(&c, child, &s, NULL, NULL, NULL) == -ESRCH);
        CHECK(state_of(child, &st) == -ESRCH);
        CHECK(restore(child, &st, SETTING_BIT(SETTING_NICE)) == -ESRCH);
}

/* settings_apply_tid_from(): starts from the state it is given (it reads the
 * thread again only right before a policy or slice change, see
 * test_concurrent_change()); sched_state_read_attr() is sched_state_read()
 * without the slack. */
static void test_from_state(void)
{
        ApplyContext c = ctx(k.best_backend);
        Settings s = { .mask = SETTING_BIT(SETTING_NICE) | SETTING_BIT(SETTING_TIMER_SLACK),
                       .nice = 7, .timer_slack_ns = 3000 };
        SchedState full, attr, fake;
        uint32_t applied = 0;

        CHECK(state_of(child, &full) == 0);
        CHECK(sched_state_read_attr_ops(K, child, sched_base_slice(), &attr) == 0);
        CHECK(attr.timer_slack_ns == 0 && full.timer_slack_ns == pristine_slack);
        attr.timer_slack_ns = full.timer_slack_ns;
        CHECK(state_equal(&attr, &full));

        CHECK(settings_apply_tid_from(&c, child, &full, &s, &applied, NULL) == 0);
        CHECK(applied == s.mask);
        CHECK(getnice(child) == 7 && slack_of(child) == 3000);
        CHECK(restore(child, &full, applied) == 0);
        check_pristine();

        /* What the given state has already is not set again. */
        fake = full;
        fake.nice = 7;
        fake.timer_slack_ns = 3000;
        CHECK(settings_apply_tid_from(&c, child, &fake, &s, &applied, NULL) == 0);
        CHECK(applied == s.mask);
        check_pristine(); /* nice 0 and the pristine slack: nothing was written */
        fake.nice = 6;
        CHECK(settings_apply_tid_from(&c, child, &fake, &s, &applied, NULL) == 0);
        CHECK(getnice(child) == 7 && slack_of(child) == pristine_slack);
        CHECK(restore(child, &full, SETTING_BIT(SETTING_NICE)) == 0);
        check_pristine();

        /* The given state decides: a thread said to be SCHED_FIFO is left alone. */
        fake = full;
        fake.policy = SCHED_FIFO;
        CHECK(settings_apply_tid_from(&c, child, &fake, &s, &applied, NULL) == -EBUSY);
        check_pristine();
        /* A setting out of range changes nothing, not even the valid ones. */
        s.mask |= SETTING_BIT(SETTING_POLICY);
        s.policy = SCHED_DEADLINE;
        CHECK(settings_apply_tid_from(&c, child, &full, &s, &applied, NULL) == -EINVAL);
        check_pristine();
}

/* A policy change starts with a fresh read of the thread (guard_fair()): a
 * thread that changed its nice or became real-time since the state the caller
 * passed was read is left alone, nothing written. */
static void test_concurrent_change(void)
{
        ApplyContext c = ctx(k.best_backend);
        Settings s = { .mask = SETTING_BIT(SETTING_POLICY), .policy = SCHED_BATCH };
        struct sched_param sp = { .sched_priority = 1 };
        SchedState full, now;
        uint32_t applied = 12345;

        CHECK(state_of(child, &full) == 0);
        /* the thread reniced itself after FULL was read */
        CHECK(other_nice(child, 15) == 0);
        CHECK(settings_apply_tid_from(&c, child, &full, &s, &applied, NULL) == -EAGAIN);
        CHECK(applied == 12345);
        CHECK(getnice(child) == 15 && getattr(child).sched_policy == SCHED_OTHER);
        CHECK(other_nice(child, 0) == 0);
        check_pristine();

        /* the thread made itself SCHED_FIFO after FULL was read: not demoted */
        CHECK(other_sched(child, SCHED_FIFO, sp.sched_priority) == 0);
        CHECK(settings_apply_tid_from(&c, child, &full, &s, &applied, NULL) == -EBUSY);
        CHECK(getattr(child).sched_policy == SCHED_FIFO && getattr(child).sched_priority == 1);
        /* a slice change keeps the policy: refused by the kernel itself */
        s = (Settings) { .mask = SETTING_BIT(SETTING_SLICE), .slice_ns = 3000000 };
        CHECK(settings_apply_tid_from(&c, child, &full, &s, &applied, NULL) == -EBUSY);
        CHECK(getattr(child).sched_policy == SCHED_FIFO && getattr(child).sched_priority == 1);
        CHECK(applied == 12345);
        sp.sched_priority = 0;
        CHECK(other_sched(child, SCHED_OTHER, 0) == 0);
        CHECK(state_of(child, &now) == 0);
        check_pristine();
}

/* sched_state_changed(): per attribute, limited to the mask; everything when
 * the thread left (or came back to) the fair class. */
static void test_changed_mask(void)
{
        const uint32_t nice = SETTING_BIT(SETTING_NICE), slack = SETTING_BIT(SETTING_TIMER_SLACK),
                       policy = SETTING_BIT(SETTING_POLICY), slice = SETTING_BIT(SETTING_SLICE),
                       ln = SETTING_BIT(SETTING_LATENCY_NICE);
        SchedState e = { .policy = SCHED_OTHER, .nice = 2, .slice_ns = 2800000,
                         .custom_slice = true, .util_max = 1024, .timer_slack_ns = 1000 };
        SchedState n = e;

        CHECK(sched_state_changed(&n, &e, SETTINGS_TASK_MASK) == 0);
        n.nice = 7;
        CHECK(sched_state_changed(&n, &e, nice | slack) == nice);
        CHECK(sched_state_changed(&n, &e, slack) == 0);
        CHECK(!sched_state_matches(&n, &e, nice | slack));
        CHECK(sched_state_matches(&n, &e, slack));
        n.timer_slack_ns = 5;
        CHECK(sched_state_changed(&n, &e, nice | slack | policy) == (nice | slack));
        n = e;
        n.policy = SCHED_IDLE;
        CHECK(sched_state_changed(&n, &e, policy | nice) == policy);
        n = e;
        n.slice_ns = 700000; /* emulated latency nice changes with the slice */
        CHECK(sched_state_changed(&n, &e, slice | ln | nice) == (slice | ln));
        n = e;
        n.policy = SCHED_FIFO;
        CHECK(sched_state_changed(&n, &e, nice | slack) == (nice | slack));
        CHECK(sched_state_changed(&n, &e, 0) == 0);
        n = e;
        n.ioprio = LN_IOPRIO_VALUE(LN_IOPRIO_CLASS_IDLE, 0);
        CHECK(sched_state_changed(&n, &e, SETTINGS_IO_MASK | nice) == SETTINGS_IO_MASK);
        CHECK(sched_state_changed(&n, &e, SETTING_BIT(SETTING_IO_NICE)) ==
              SETTING_BIT(SETTING_IO_NICE));
        n = e;
        n.oom_score_adj = 100;
        CHECK(sched_state_changed(&n, &e, SETTINGS_TASK_MASK) ==
              SETTING_BIT(SETTING_OOM_SCORE_ADJ));
        /* [Unit]-only bits are never a task's */
        CHECK(sched_state_changed(&n, &e, SETTING_BIT(SETTING_CPU_WEIGHT)) == 0);
}

/* IOClass and IONice are one ioprio: each alone keeps the other; restore
 * gives back the exact value, also "no class". OOMScoreAdj likewise. */
static void test_io_oom(void)
{
        ApplyContext c = ctx(k.best_backend);
        const uint32_t io = SETTINGS_IO_MASK, oom = SETTING_BIT(SETTING_OOM_SCORE_ADJ);
        Settings s = { .mask = SETTING_BIT(SETTING_IO_CLASS), .io_class = LN_IOPRIO_CLASS_IDLE };
        SchedState before, now;
        uint32_t applied = 0;
        int orig_ioprio = ioprio_of(child), orig_oom = oom_of(child);

        CHECK(LN_IOPRIO_CLASS(orig_ioprio) == LN_IOPRIO_CLASS_NONE);
        CHECK(settings_apply_tid(&c, child, &s, &before, &applied, NULL) == 0);
        CHECK(applied == SETTING_BIT(SETTING_IO_CLASS));
        CHECK(before.ioprio == orig_ioprio);
        CHECK(ioprio_of(child) == LN_IOPRIO_VALUE(LN_IOPRIO_CLASS_IDLE, 0));

        /* A level alone: best-effort for a thread without a class... */
        CHECK(restore(child, &before, io) == 0);
        CHECK(ioprio_of(child) == orig_ioprio);
        s = (Settings) { .mask = SETTING_BIT(SETTING_IO_NICE), .io_nice = 6 };
        CHECK(settings_apply_tid(&c, child, &s, NULL, &applied, NULL) == 0);
        CHECK(applied == SETTING_BIT(SETTING_IO_NICE));
        CHECK(ioprio_of(child) == LN_IOPRIO_VALUE(LN_IOPRIO_CLASS_BE, 6));
        /* ... and a class alone keeps the level. */
        s = (Settings) { .mask = SETTING_BIT(SETTING_IO_CLASS), .io_class = LN_IOPRIO_CLASS_RT };
        CHECK(settings_apply_tid(&c, child, &s, NULL, NULL, NULL) == 0);
        CHECK(ioprio_of(child) == LN_IOPRIO_VALUE(LN_IOPRIO_CLASS_RT, 6));
        /* A class without a level, from no class: the level its nice gives. */
        CHECK(restore(child, &before, io) == 0);
        CHECK(other_nice(child, 10) == 0);
        s = (Settings) { .mask = SETTING_BIT(SETTING_IO_CLASS), .io_class = LN_IOPRIO_CLASS_BE };
        CHECK(settings_apply_tid(&c, child, &s, NULL, NULL, NULL) == 0);
        CHECK(ioprio_of(child) == LN_IOPRIO_VALUE(LN_IOPRIO_CLASS_BE, 6));
        CHECK(other_nice(child, 0) == 0);

        /* Read back and compared: a change by someone else is seen. */
        CHECK(state_of(child, &now) == 0);
        CHECK(now.ioprio == ioprio_of(child));
        CHECK(other_ioprio(child, LN_IOPRIO_VALUE(LN_IOPRIO_CLASS_BE, 1)) == 0);
        {
                SchedState later;

                CHECK(state_of(child, &later) == 0);
                CHECK(sched_state_changed(&later, &now, io | oom) == io);
        }
        CHECK(restore(child, &before, io) == 0);
        CHECK(ioprio_of(child) == orig_ioprio);

        /* OOMScoreAdj: per process, through any of its thread ids. */
        s = (Settings) { .mask = oom, .oom_score_adj = 500 };
        CHECK(settings_apply_tid(&c, child, &s, &before, &applied, NULL) == 0);
        CHECK(applied == oom && before.oom_score_adj == orig_oom);
        CHECK(oom_of(child) == 500);
        CHECK(state_of(child, &now) == 0 && now.oom_score_adj == 500);
        /* Below 0 takes CAP_SYS_RESOURCE (latniced.service has it; a
         * container may not): refused then, and nothing changed. */
        s.oom_score_adj = -300;
        if (has_cap(CAP_SYS_RESOURCE_BIT)) {
                CHECK(settings_apply_tid(&c, child, &s, NULL, NULL, NULL) == 0);
                CHECK(oom_of(child) == -300);
        } else {
                printf("no CAP_SYS_RESOURCE: a negative OOMScoreAdj is refused\n");
                CHECK(settings_apply_tid(&c, child, &s, NULL, NULL, NULL) == -EACCES);
                CHECK(oom_of(child) == 500);
        }
        CHECK(restore(child, &before, oom) == 0);
        CHECK(oom_of(child) == orig_oom);

        /* Out of range: refused before anything is written. */
        s = (Settings) { .mask = oom, .oom_score_adj = 1001 };
        CHECK(settings_apply_tid(&c, child, &s, NULL, NULL, NULL) == -EINVAL);
        CHECK(oom_of(child) == orig_oom);

        CHECK(state_of(child, &now) == 0);
        CHECK(now.ioprio == orig_ioprio && now.oom_score_adj == orig_oom);
        check_pristine();
}

/* Races with the task, on the fake kernel: the thread changes itself right
 * after the caller read its state and before the policy is written. The
 * write starts with a fresh read (guard_fair()), so it is left alone and
 * keeps what it set: a nice (-EAGAIN), a real-time policy (-EBUSY). */
typedef struct Race {
        pid_t tid;
        unsigned reads;         /* sched_getattr() of TID seen so far */
        int policy, nice;       /* what the thread sets after the first one */
} Race;

static void race_after_read(FakeOp op, pid_t tid, int r, void *userdata)
{
        Race *race = userdata;

        if (op != FAKE_GETATTR || tid != race->tid || race->reads++ != 0)
                return;
        fake_task(tid)->nice = race->nice;
        fake_task(tid)->policy = race->policy;
        fake_task(tid)->rt_priority = race->policy == SCHED_FIFO ? 1 : 0;
}

static void test_race_read_write(void)
{
        ApplyContext c = ctx(k.best_backend);
        Settings s = { .mask = SETTING_BIT(SETTING_POLICY) | SETTING_BIT(SETTING_NICE),
                       .policy = SCHED_BATCH, .nice = 4 };
        Race race = { .tid = child, .policy = SCHED_OTHER, .nice = 15 };
        uint32_t applied = 12345;

        /* It renices itself: nothing written, its nice kept. */
        fake_hook_set(race_after_read, &race);
        CHECK(settings_apply_tid(&c, child, &s, NULL, &applied, NULL) == -EAGAIN);
        fake_hook_set(NULL, NULL);
        CHECK(race.reads == 2); /* the caller's read, the guard's */
        CHECK(applied == 12345);
        CHECK(getnice(child) == 15 && getattr(child).sched_policy == SCHED_OTHER);
        CHECK(other_nice(child, 0) == 0);
        check_pristine();

        /* It makes itself SCHED_FIFO: not demoted. */
        race = (Race) { .tid = child, .policy = SCHED_FIFO, .nice = 0 };
        fake_hook_set(race_after_read, &race);
        CHECK(settings_apply_tid(&c, child, &s, NULL, &applied, NULL) == -EBUSY);
        fake_hook_set(NULL, NULL);
        CHECK(getattr(child).sched_policy == SCHED_FIFO && getattr(child).sched_priority == 1);
        CHECK(getnice(child) == 0 && applied == 12345);
        CHECK(other_sched(child, SCHED_OTHER, 0) == 0);

        /* Without a race the same settings apply. */
        CHECK(settings_apply_tid(&c, child, &s, NULL, &applied, NULL) == 0);
        CHECK(applied == s.mask && getnice(child) == 4);
        CHECK(getattr(child).sched_policy == SCHED_BATCH);
        CHECK(other_sched(child, SCHED_OTHER, 0) == 0 && other_nice(child, 0) == 0);
        check_pristine();
}

static void run_cases(void)
{
        check_pristine();
        test_nice_policy();
        test_slice();
        test_latency_nice_backend();
        test_uclamp_slack();
        test_all_and_matches();
        test_refusals();
        test_from_state();
        test_concurrent_change();
        test_changed_mask();
        test_io_oom();
}

/* The fake kernel: a thread-group leader of one thread, pristine. */
static void run_fake(void)
{
        K = &fake_kernel_ops;
        on_fake = true;
        fake_kernel_init(0);
        proc = fake_proc_root();
        k = (KernelFeatures) { .eevdf_slice = true, .uclamp_task = true,
                               .base_slice_ns = sched_base_slice(),
                               .best_backend = LATENCY_BACKEND_SLICE };
        child = fake_process_new(0, "lt-ts-child", 1, 1);
        pristine_slack = FAKE_TIMER_SLACK_DEFAULT;
        run_cases();
        test_race_read_write();
        test_gone();
        fake_kernel_done();
        printf("fake kernel: all cases passed\n");
}

static void run_real(void)
{
        int fds[2];
        char c;

        K = &kernel_ops_real;
        on_fake = false;
        proc = "/proc";
        CHECK(kernel_probe(NULL, &k) == 0);
        CHECK(pipe2(fds, O_CLOEXEC) == 0);
        child = fork();
        CHECK(child >= 0);
        if (child == 0) {
                /* pristine: SCHED_OTHER, nice 0, default slice and slack */
                struct sched_param sp = { 0 };
                sched_setscheduler(0, SCHED_OTHER, &sp);
                setpriority(PRIO_PROCESS, 0, 0);
                (void) write(fds[1], "r", 1);
                for (;;)
                        pause();
        }
        close(fds[1]);
        CHECK(read(fds[0], &c, 1) == 1);
        close(fds[0]);
        pristine_slack = (uint64_t) prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
        run_cases();
        test_gone();
        printf("real kernel: all cases passed\n");
}

int main(void)
{
        run_fake();
        if (geteuid() != 0) {
                printf("real kernel part not run: setting another task's attributes needs "
                       "CAP_SYS_NICE (run as root)\n");
                return 0;
        }
        run_real();
        return 0;
}
