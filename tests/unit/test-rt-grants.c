/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Tests for daemon/apply/rt-grants.c on the fake kernel: a granted
 * process's RLIMIT_RTTIME through a crash of latniced (the state file's
 * process limit record taken over by the ledger's rule), and the per-user
 * count. The applier's use of it, on the fake and the real kernel, is
 * test-apply's test_rt_grant_bounds. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "daemon/apply/rt-grants.h"
#include "daemon/apply/tasks.h"
#include "daemon/state/adopt.h"
#include "lib/macro.h"
#include "lib/sched.h"
#include "tests/unit/fake-kernel.h"
#include "tests/unit/test-util.h"

#define B(id) SETTING_BIT(SETTING_##id)
#define L RT_GRANT_RTTIME_USEC

static char path[PATH_MAX];

/* A latniced's task table on the state file, and its grants. */
static void start(TaskTable **tt, RtGrants **g)
{
        CHECK(task_table_new(tt) == 0);
        CHECK(tasks_open_state(*tt, path, fake_proc_root(), true) == 0);
        CHECK(task_table_state(*tt) != NULL);
        CHECK(rt_grants_new(*tt, &fake_kernel_ops, fake_proc_root(), g) == 0);
        rt_grants_set_bounds_hard(*g, true);
}

/* It dies: nothing is given back, the records stay. */
static void crash(TaskTable *tt, RtGrants *g)
{
        rt_grants_free(g);
        task_table_free(tt);
}

/* An entry of TID of PID that holds a grant (no record of its own). */
static Task *granted(TaskTable *tt, pid_t pid, pid_t tid)
{
        Task *t;

        CHECK(task_table_add(tt, pid, tid, fake_task(tid)->starttime, &t) == 0);
        t->claim.applied_mask = B(POLICY) | B(REALTIME_PRIORITY);
        t->claim.expected.policy = SCHED_RR;
        t->claim.expected.priority = 20;
        task_table_grant_sync(tt, t); /* as the applier does after a claim changes */
        return t;
}

static bool rttime_is(pid_t pid, rlim_t soft, rlim_t hard)
{
        const FakeTask *t = fake_task(pid);

        return t && t->rttime.rlim_cur == soft && t->rttime.rlim_max == hard;
}

static void test_crash(void)
{
        TaskTable *tt;
        RtGrants *g;
        pid_t p = fake_process_new(0, "pw-data", 1, 2), tids[2];
        uint64_t st = fake_task(p)->starttime;

        CHECK(fake_threads(p, tids, 2) == 2);
        /* Held, recorded, and gone with the last grant. */
        start(&tt, &g);
        (void)granted(tt, p, tids[1]);
        check(rt_grants_hold(g, p, st, 1000) == 0);
        check(rttime_is(p, L, L));
        check(state_file_cgroup_n_used(task_table_state(tt)) == 1);
        /* Held again: nothing written. */
        check(rt_grants_hold(g, p, st, 1000) == 0);
        check(rttime_is(p, L, L));
        rt_grants_settle(g, p);
        check(rttime_is(p, L, L)); /* a grant stands */
        task_table_remove(tt, tids[1]);
        rt_grants_settle(g, p);
        check(rttime_is(p, RLIM_INFINITY, RLIM_INFINITY));
        check(rt_grants_n_processes(g) == 0);
        check(state_file_cgroup_n_used(task_table_state(tt)) == 0);

        /* Killed while it held the limit, the grant given back meanwhile:
         * the next latniced gives the limit back. */
        (void)granted(tt, p, tids[1]);
        check(rt_grants_hold(g, p, st, 1000) == 0);
        task_table_remove(tt, tids[1]);
        crash(tt, g);
        check(rttime_is(p, L, L));
        start(&tt, &g);
        check(rt_grants_adopt(g) == 1);
        check(rttime_is(p, RLIM_INFINITY, RLIM_INFINITY));
        check(state_file_cgroup_n_used(task_table_state(tt)) == 0);

        /* Someone else set the limit while no latniced ran: theirs. */
        (void)granted(tt, p, tids[1]);
        check(rt_grants_hold(g, p, st, 1000) == 0);
        task_table_remove(tt, tids[1]);
        crash(tt, g);
        fake_task(p)->rttime = (struct rlimit){ 50000, 100000 };
        start(&tt, &g);
        check(rt_grants_adopt(g) == 0);
        check(rttime_is(p, 50000, 100000));
        check(state_file_cgroup_n_used(task_table_state(tt)) == 0);

        /* A lower limit of its own: bounded already, nothing held. */
        (void)granted(tt, p, tids[1]);
        check(rt_grants_hold(g, p, st, 1000) == 0);
        check(rttime_is(p, 50000, 100000));
        check(state_file_cgroup_n_used(task_table_state(tt)) == 0);
        task_table_remove(tt, tids[1]);
        rt_grants_settle(g, p);
        check(rttime_is(p, 50000, 100000));

        /* The process exits while no latniced runs: the record goes. */
        fake_task(p)->rttime = (struct rlimit){ RLIM_INFINITY, RLIM_INFINITY };
        (void)granted(tt, p, tids[1]);
        check(rt_grants_hold(g, p, st, 1000) == 0);
        task_table_remove(tt, tids[1]);
        crash(tt, g);
        fake_process_exit(p);
        start(&tt, &g);
        check(rt_grants_adopt(g) == 0);
        check(state_file_cgroup_n_used(task_table_state(tt)) == 0);
        crash(tt, g);
}

/* Someone else changes the limit while latniced holds it: theirs, never
 * given back over; the bound is set again for the grants that stand. */
static void test_changed(void)
{
        TaskTable *tt;
        RtGrants *g;
        pid_t p = fake_process_new(0, "pw-data", 1, 1);
        uint64_t st = fake_task(p)->starttime;

        start(&tt, &g);
        (void)granted(tt, p, p);
        check(rt_grants_hold(g, p, st, 1000) == 0);
        fake_task(p)->rttime = (struct rlimit){ 300000, RLIM_INFINITY };
        check(rt_grants_hold(g, p, st, 1000) == 0);
        check(rttime_is(p, L, L));
        task_table_remove(tt, p);
        rt_grants_settle(g, p);
        check(rttime_is(p, 300000, RLIM_INFINITY));
        (void)granted(tt, p, p);
        check(rt_grants_hold(g, p, st, 1000) == 0);
        fake_task(p)->rttime = (struct rlimit){ 100000, 100000 };
        task_table_remove(tt, p);
        rt_grants_settle(g, p);
        check(rttime_is(p, 100000, 100000));
        /* Without CAP_SYS_RESOURCE only the soft limit is bounded. */
        fake_task(p)->rttime = (struct rlimit){ RLIM_INFINITY, RLIM_INFINITY };
        rt_grants_set_bounds_hard(g, false);
        (void)granted(tt, p, p);
        check(rt_grants_hold(g, p, st, 1000) == 0);
        check(rttime_is(p, L, RLIM_INFINITY));
        task_table_remove(tt, p);
        rt_grants_settle(g, p);
        check(rttime_is(p, RLIM_INFINITY, RLIM_INFINITY));
        crash(tt, g);
        fake_process_exit(p);
}

/* The per-user count: granted threads of the user's processes. */
static void test_per_user(void)
{
        TaskTable *tt;
        RtGrants *g;
        pid_t a = fake_process_new(0, "a", 1, 2), b = fake_process_new(0, "b", 1, 1), ta[2];

        CHECK(fake_threads(a, ta, 2) == 2);
        start(&tt, &g);
        rt_grants_set_max_per_user(g, 2);
        check(rt_grants_user_may(g, 1000, a, "a"));
        (void)granted(tt, a, ta[0]);
        check(rt_grants_hold(g, a, fake_task(a)->starttime, 1000) == 0);
        check(rt_grants_user_count(g, 1000) == 1 && rt_grants_user_may(g, 1000, a, "a"));
        (void)granted(tt, a, ta[1]);
        check(rt_grants_user_count(g, 1000) == 2);
        check(!rt_grants_user_may(g, 1000, a, "a"));
        check(!rt_grants_user_may(g, 1000, a, "a")); /* said once: see the log */
        check(rt_grants_user_may(g, 1001, b, "b"));  /* another user */
        (void)granted(tt, b, b);
        check(rt_grants_hold(g, b, fake_task(b)->starttime, 1001) == 0);
        check(rt_grants_user_count(g, 1000) == 2 && rt_grants_user_count(g, 1001) == 1);
        /* b changes user: its grant is counted for the new one (kept counts,
         * moved; test-rt-count checks them against a recount). */
        check(rt_grants_hold(g, b, fake_task(b)->starttime, 1000) == 0);
        check(rt_grants_user_count(g, 1000) == 3 && rt_grants_user_count(g, 1001) == 0);
        check(rt_grants_hold(g, b, fake_task(b)->starttime, 1001) == 0);
        check(rt_grants_user_count(g, 1000) == 2 && rt_grants_user_count(g, 1001) == 1);
        task_table_remove(tt, ta[1]);
        check(rt_grants_user_count(g, 1000) == 1 && rt_grants_user_may(g, 1000, a, "a"));
        rt_grants_set_max_per_user(g, 0);
        check(!rt_grants_user_may(g, 1001, b, "b"));
        task_table_remove(tt, ta[0]);
        task_table_remove(tt, b);
        check(rt_grants_restore_all(g) == 2);
        check(rttime_is(a, RLIM_INFINITY, RLIM_INFINITY) &&
              rttime_is(b, RLIM_INFINITY, RLIM_INFINITY));
        crash(tt, g);
        fake_process_exit(a);
        fake_process_exit(b);
}

int main(void)
{
        char dir[] = "/tmp/test-rt-grants.XXXXXX";

        CHECK(mkdtemp(dir) != NULL);
        snprintf(path, sizeof(path), "%s/tasks.state", dir);
        fake_kernel_init(0);
        test_crash();
        test_changed();
        test_per_user();
        fake_kernel_done();
        (void)unlink(path);
        (void)rmdir(dir);
        return test_result();
}
