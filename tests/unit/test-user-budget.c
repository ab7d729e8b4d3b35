/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit test for daemon/watch/user-budget.c: a user's burst, then its processes
 * pending once each and handed out as its budget allows (never dropped);
 * another user is not delayed; a charge can go into bounded debt; bounded
 * memory. */
#include <stdint.h>

#include "daemon/watch/user-budget.h"
#include "test-util.h"

#define MS 1000u

static const UserBudgetConfig config = {
        .burst = 3,
        .interval_usec = 10 * MS,
        .max_debt = 20,
        .max_users = 2,
        .max_pending = 3,
};

static UserBudget *new_budget(void)
{
        UserBudget *b = NULL;

        CHECK(user_budget_new(&config, &b) == 0 && b);
        return b;
}

static void test_invalid(void)
{
        UserBudgetConfig c = config;
        UserBudget *b = NULL;

        c.burst = 0;
        check(user_budget_new(&c, &b) == -EINVAL && !b);
        c = config;
        c.max_pending = 0;
        check(user_budget_new(&c, &b) == -EINVAL && !b);
        b = new_budget();
        check(user_budget_check(b, 1000, 0, 0) == -EINVAL);
        user_budget_free(b);
}

static void test_burst_debt_merge(void)
{
        UserBudget *b = new_budget();
        uint64_t now = 1000 * MS;
        pid_t pid;
        uid_t uid;

        /* Three thread evaluations at once, then the process waits. */
        for (int i = 0; i < 3; i++) {
                check(user_budget_check(b, 1000, 10, now) == USER_BUDGET_NOW);
                user_budget_charge(b, 1000, 1, now);
        }
        check(user_budget_next_due(b, now) == UINT64_MAX);
        check(user_budget_check(b, 1000, 10, now) == USER_BUDGET_DEFERRED);
        check(user_budget_check(b, 1000, 10, now) == USER_BUDGET_DEFERRED);
        check(user_budget_check(b, 1000, 11, now) == USER_BUDGET_DEFERRED);
        check(user_budget_n_pending(b) == 2);
        /* Another user is not delayed by it. */
        check(user_budget_check(b, 2000, 20, now) == USER_BUDGET_NOW);

        check(user_budget_pop_due(b, now, &pid, &uid) == 0);
        check(user_budget_next_due(b, now) == now + 10 * MS);
        check(user_budget_pop_due(b, now + 10 * MS, &pid, &uid) == 1);
        check(pid == 10 && uid == 1000);
        /* The merged evaluation of 10's 500 threads: debt, bounded. */
        user_budget_charge(b, 1000, 500, now + 10 * MS);
        check(user_budget_next_due(b, now + 10 * MS) == now + 10 * MS + 21 * 10 * MS);
        check(user_budget_pop_due(b, now + 100 * MS, &pid, &uid) == 0);
        /* A thread event of 11 meanwhile joins its pending evaluation. */
        check(user_budget_check(b, 1000, 11, now + 100 * MS) == USER_BUDGET_DEFERRED);
        check(user_budget_pop_due(b, now + 220 * MS, &pid, &uid) == 1 && pid == 11);
        check(user_budget_n_pending(b) == 0);
        user_budget_free(b);
}

static void test_bounded(void)
{
        UserBudget *b = new_budget();
        pid_t pid;
        uid_t uid;

        user_budget_charge(b, 1, 100, 0);
        user_budget_charge(b, 2, 100, 0);
        /* Two users in debt: a third is not tracked. */
        check(user_budget_check(b, 3, 30, 0) == USER_BUDGET_FULL);
        check(user_budget_check(b, 1, 10, 0) == USER_BUDGET_DEFERRED);
        check(user_budget_check(b, 1, 11, 0) == USER_BUDGET_DEFERRED);
        check(user_budget_check(b, 2, 20, 0) == USER_BUDGET_DEFERRED);
        check(user_budget_check(b, 2, 21, 0) == USER_BUDGET_FULL);
        /* A rescan evaluated everything. */
        user_budget_clear_pending(b);
        check(user_budget_n_pending(b) == 0);
        check(user_budget_pop_due(b, UINT64_MAX / 2, &pid, &uid) == 0);
        /* Once full again, users are forgotten to make room. */
        check(user_budget_check(b, 3, 30, 10 * 1000 * MS) == USER_BUDGET_NOW);
        check(user_budget_n_users(b) <= 2);
        user_budget_free(b);
}

int main(void)
{
        test_invalid();
        test_burst_debt_merge();
        test_bounded();
        return test_result();
}
