/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit test for daemon/apply/inherit.c (what a clone has of latniced's change to
 * its creator) and lib's sched_state_forked(), which it builds on: pure
 * functions on made-up states, and the model checked against a real fork
 * on the running kernel. */
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/apply/inherit.h"
#include "lib/thread-settings.h"
#include "tests/unit/test-util.h"

#define BASE 1400000ull
#define B(id) SETTING_BIT(SETTING_##id)

/* A creator at nice 0, default slice, slack 50 us, which latniced gave
 * Nice=-11, Slice=0.1ms, TimerSlack=1us and I/O class realtime. */
static Task creator(void)
{
        Task t = {
                .pid = 100, .tid = 100, .rule = (char *)"term",
                .claim.applied_mask =
                        B(NICE) | B(SLICE) | B(TIMER_SLACK) | B(IO_CLASS) | B(IO_NICE),
                .claim.orig = { .nice = 0, .slice_ns = BASE, .util_max = 1024,
                          .timer_slack_ns = 50000 },
        };

        t.settings = (Settings){ .mask = t.claim.applied_mask, .nice = -11, .slice_ns = 100000,
                                 .timer_slack_ns = 1000, .io_class = 1, .io_nice = 4 };
        t.claim.expected = t.claim.orig;
        t.claim.expected.nice = -11;
        t.claim.expected.slice_ns = 100000;
        t.claim.expected.custom_slice = true;
        t.claim.expected.timer_slack_ns = 1000;
        t.claim.expected.ioprio = (1 << 13) | 4;
        t.claim.expected.flags = LN_SCHED_FLAG_RESET_ON_FORK;
        return t;
}

static void test_forked(void)
{
        Task t = creator();
        SchedState f;

        /* With the flag: nice, slice, latency nice and clamps reset; slack
         * and ioprio inherited; the child has no flag. */
        t.claim.expected.util_min = 300;
        t.claim.expected.has_latency_nice = true;
        t.claim.expected.latency_nice = -7;
        sched_state_forked(&t.claim.expected, BASE, &f);
        check(f.nice == 0 && f.slice_ns == BASE && !f.custom_slice);
        check(f.latency_nice == 0 && f.util_min == 0 && f.util_max == 1024);
        check(f.timer_slack_ns == 1000 && f.ioprio == t.claim.expected.ioprio);
        check(f.flags == 0);

        /* Without the flag everything is inherited; a positive nice always. */
        t.claim.expected.flags = 0;
        t.claim.expected.nice = 5;
        sched_state_forked(&t.claim.expected, BASE, &f);
        check(f.nice == 5 && f.slice_ns == 100000 && f.custom_slice && f.latency_nice == -7);
        t.claim.expected.flags = LN_SCHED_FLAG_RESET_ON_FORK;
        sched_state_forked(&t.claim.expected, BASE, &f);
        check(f.nice == 5 && !f.custom_slice);
}

static void test_inherit_mask(void)
{
        Task t = creator();
        InheritSource src;
        SchedState child, f;

        check(task_boosted(&t, BASE));
        inherit_source_init(&src, &t, true, BASE);
        check(src.claim.applied_mask == t.claim.applied_mask && streq(src.rule, "term"));

        /* As the kernel made it at the fork: everything counts as inherited
         * (the nice and slice the kernel reset included), nothing foreign. */
        sched_state_forked(&t.claim.expected, BASE, &child);
        check(inherit_mask(&src, &child) == src.claim.applied_mask);
        check(inherit_foreign(&src, &child) == 0);

        /* Cloned before latniced changed the creator: the originals. None
         * of it is latniced's, none of it someone else's. */
        child = t.claim.orig;
        check(inherit_mask(&src, &child) == (B(NICE) | B(SLICE)));
        check(inherit_foreign(&src, &child) == 0);

        /* The child changed its own timer slack: that is its own. */
        sched_state_forked(&t.claim.expected, BASE, &child);
        child.timer_slack_ns = 77000;
        check(inherit_mask(&src, &child) == (src.claim.applied_mask & ~B(TIMER_SLACK)));
        check(inherit_foreign(&src, &child) == B(TIMER_SLACK));

        /* A creator at nice 5 before latniced: the kernel's reset to 0 is
         * still what latniced's boost made of it, not someone else's. */
        t.claim.orig.nice = 5;
        inherit_source_init(&src, &t, true, BASE);
        sched_state_forked(&t.claim.expected, BASE, &f);
        check(inherit_mask(&src, &f) & B(NICE));
        check(!(inherit_foreign(&src, &f) & B(NICE)));

        /* A thread's clone: oom_score_adj is its process's, never inherited
         * from a thread. */
        t.claim.applied_mask |= B(OOM_SCORE_ADJ);
        inherit_source_init(&src, &t, false, BASE);
        check(!(src.claim.applied_mask & B(OOM_SCORE_ADJ)));
        inherit_source_init(&src, &t, true, BASE);
        check(src.claim.applied_mask & B(OOM_SCORE_ADJ));
        t.tid = 101;
        inherit_source_init(&src, &t, true, BASE);
        check(!(src.claim.applied_mask & B(OOM_SCORE_ADJ)));
}

static void test_boosted(void)
{
        Task t = creator();

        /* Only what latniced still owns counts. */
        t.claim.applied_mask = B(TIMER_SLACK) | B(IO_NICE);
        check(!task_boosted(&t, BASE));
        t.claim.applied_mask |= B(SLICE);
        check(task_boosted(&t, BASE));
        t.settings.slice_ns = 3000000; /* longer than the default: a demotion */
        check(!task_boosted(&t, BASE));
        t.claim.applied_mask = B(NICE);
        t.settings.nice = 4;
        check(!task_boosted(&t, BASE));
        t.settings.nice = -1;
        check(task_boosted(&t, BASE));
        t.claim.applied_mask = 0;
        check(!task_boosted(&t, BASE));
}

/* The model against the kernel: a thread with a boost and reset-on-fork
 * forks; what the child reads is what sched_state_forked() says. Needs
 * CAP_SYS_NICE for the negative nice. */
static void test_forked_real(void)
{
        ApplyContext c = { .backend = LATENCY_BACKEND_SLICE, .reset_on_fork = true };
        Settings s = { .mask = B(NICE) | B(SLICE) | B(TIMER_SLACK), .nice = -4,
                       .slice_ns = 300000, .timer_slack_ns = 3000 };
        int status;
        pid_t p;

        if (geteuid() != 0) {
                printf("skipping the real fork: needs root\n");
                return;
        }
        p = fork();
        CHECK(p >= 0);
        if (p == 0) {
                SchedState before, parent, want, got;
                pid_t g;

                if (settings_apply_tid(&c, 0, &s, &before, NULL, NULL) < 0 ||
                    sched_state_read(0, &parent) < 0 ||
                    !(parent.flags & LN_SCHED_FLAG_RESET_ON_FORK) || parent.nice != -4)
                        _exit(2);
                g = fork();
                if (g == 0) {
                        sched_state_forked(&parent, 0, &want);
                        if (sched_state_read(0, &got) < 0)
                                _exit(3);
                        _exit(sched_state_changed(&got, &want, SETTINGS_TASK_MASK) == 0 &&
                                               got.flags == want.flags
                                       ? 0
                                       : 4);
                }
                if (g < 0 || waitpid(g, &status, 0) != g || !WIFEXITED(status))
                        _exit(5);
                if (WEXITSTATUS(status) != 0)
                        _exit(WEXITSTATUS(status));
                /* The restore puts the original flag (none) back. */
                if (sched_state_restore(0, &before, B(NICE) | B(SLICE) | B(TIMER_SLACK)) < 0 ||
                    sched_state_read(0, &got) < 0 || (got.flags & LN_SCHED_FLAG_RESET_ON_FORK) ||
                    got.nice != before.nice)
                        _exit(6);
                _exit(0);
        }
        CHECK(waitpid(p, &status, 0) == p && WIFEXITED(status));
        if (WEXITSTATUS(status) != 0)
                test_fail("real fork: step %d failed", WEXITSTATUS(status));
}

int main(void)
{
        test_forked();
        test_inherit_mask();
        test_boosted();
        test_forked_real();
        return test_result();
}
