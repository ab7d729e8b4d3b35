/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit test for daemon/apply/tasks.c: the table of managed threads. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/apply/tasks.h"
#include "lib/macro.h"

static void test_basic(void)
{
        _cleanup_(task_table_freep) TaskTable *t = NULL;
        Task *a, *b;

        assert(task_table_new(&t) == 0);
        assert(task_table_size(t) == 0);
        assert(!task_table_get(t, 1));
        assert(!task_table_has_process(t, 1));
        size_t st = 0;
        assert(!task_table_iterate(t, &st, &a));

        assert(task_table_add(t, 100, 100, 555, &a) == 0);
        assert(a->pid == 100 && a->tid == 100 && a->starttime == 555);
        assert(!a->rule && !a->user_owned && a->claim.applied_mask == 0);
        assert(task_table_add(t, 100, 101, 556, &b) == 0);
        assert(task_table_add(t, 100, 101, 999, &a) == -EEXIST);
        assert(a == b && a->starttime == 556);
        assert(task_table_add(t, 0, 5, 0, NULL) == -EINVAL);
        assert(task_table_add(t, 5, -1, 0, NULL) == -EINVAL);

        assert(task_table_size(t) == 2);
        assert(task_table_has_process(t, 100));
        assert(!task_table_has_process(t, 101));
        assert(task_table_get(t, 101) == b);

        assert(task_set_rule(b, "audio") == 0);
        assert(streq(b->rule, "audio"));
        assert(task_set_rule(b, "audio") == 0);
        assert(task_set_rule(b, NULL) == 0 && !b->rule);
        assert(task_set_comm(b, "data-loop.0") == 0 && streq(b->comm, "data-loop.0"));

        assert(!task_table_process_user_owned(t, 100));
        assert(task_table_set_user_owned(t, b, true) == 0);
        assert(task_table_set_user_owned(t, b, true) == 0);
        assert(task_table_n_user_owned(t) == 1);
        /* one user-owned thread makes the process someone else's */
        assert(task_table_process_user_owned(t, 100));
        a = task_table_get(t, 100);
        assert(task_table_set_user_owned(t, a, true) == 0);
        assert(task_table_set_user_owned(t, a, false) == 0);
        assert(task_table_process_user_owned(t, 100));
        assert(task_table_n_user_owned(t) == 1);

        task_table_remove(t, 100);
        assert(task_table_has_process(t, 100));
        assert(task_table_process_user_owned(t, 100));
        task_table_remove(t, 101);
        assert(!task_table_has_process(t, 100));
        assert(!task_table_process_user_owned(t, 100));
        assert(task_table_size(t) == 0);
        assert(task_table_n_user_owned(t) == 0);
        task_table_remove(t, 101);
        task_table_remove(t, 0);
}

/* Random operations against a reference array, with tombstone churn and
 * resizes; removal during iteration. */
static void test_random(void)
{
        _cleanup_(task_table_freep) TaskTable *t = NULL;
        enum { N = 5000 };
        static bool present[N + 1];
        size_t n = 0;

        srand(42);
        assert(task_table_new(&t) == 0);
        for (int i = 0; i < 200000; i++) {
                pid_t tid = 1 + rand() % N;
                pid_t pid = 1 + (tid - 1) / 4 * 4; /* four threads per process */
                if (rand() % 3) {
                        Task *x;
                        int r = task_table_add(t, pid, tid, (uint64_t)tid * 7, &x);
                        assert(r == (present[tid] ? -EEXIST : 0));
                        assert(x->tid == tid && x->starttime == (uint64_t)tid * 7);
                        if (!present[tid])
                                n++;
                        present[tid] = true;
                } else {
                        task_table_remove(t, tid);
                        if (present[tid])
                                n--;
                        present[tid] = false;
                }
                assert(task_table_size(t) == n);
        }
        for (pid_t tid = 1; tid <= N; tid++) {
                Task *x = task_table_get(t, tid);
                assert(!!x == present[tid]);
                pid_t pid = 1 + (tid - 1) / 4 * 4;
                bool any = present[pid] || (pid + 1 <= N && present[pid + 1]) ||
                           (pid + 2 <= N && present[pid + 2]) || (pid + 3 <= N && present[pid + 3]);
                assert(task_table_has_process(t, pid) == any);
        }

        /* iterate and remove every odd tid */
        size_t st = 0, seen = 0;
        Task *x;
        while (task_table_iterate(t, &st, &x)) {
                assert(present[x->tid]);
                seen++;
                if (x->tid % 2) {
                        present[x->tid] = false;
                        task_table_remove(t, x->tid);
                        n--;
                }
        }
        assert(task_table_size(t) == n);
        st = 0;
        size_t seen2 = 0;
        while (task_table_iterate(t, &st, &x)) {
                assert(x->tid % 2 == 0);
                seen2++;
        }
        assert(seen2 == n && seen >= n);
}

int main(void)
{
        test_basic();
        test_random();
        return 0;
}
