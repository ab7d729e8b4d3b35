/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "daemon/watch/pidmap.h"
#include "daemon/watch/user-budget.h"
#include "lib/grow.h"
#include "lib/macro.h"
#include "lib/token-bucket.h"

typedef struct User {
        uid_t uid;
        TokenBucket bucket;
        pid_t *pending;       /* FIFO: [head, n) */
        size_t head, n, cap;
} User;

struct UserBudget {
        UserBudgetConfig c;
        PidMap users;   /* user_key(uid) -> User */
        PidMap pending; /* pid -> User: each pending process once */
        size_t pop_state; /* where the next user_budget_pop_due() looks first */
};

/* PidMap keys are > 0: uid + 1. The few uids from INT32_MAX - 1 up (and
 * (uid_t)-1, unknown) share the last key, and so one bucket. */
static pid_t user_key(uid_t uid)
{
        return uid < (uid_t)INT32_MAX - 1 ? (pid_t)uid + 1 : INT32_MAX;
}

int user_budget_new(const UserBudgetConfig *c, UserBudget **ret)
{
        UserBudget *b;

        if (c->burst == 0 || c->interval_usec == 0 || c->max_users == 0 || c->max_pending == 0)
                return -EINVAL;
        b = calloc(1, sizeof(*b));
        if (!b)
                return -ENOMEM;
        b->c = *c;
        *ret = b;
        return 0;
}

static void user_free(User *u)
{
        if (!u)
                return;
        free(u->pending);
        free(u);
}

UserBudget *user_budget_free(UserBudget *b)
{
        size_t state = 0;
        pid_t key;
        void *v;

        if (!b)
                return NULL;
        while (pidmap_iterate(&b->users, &state, &key, &v))
                user_free(v);
        pidmap_done(&b->users);
        pidmap_done(&b->pending);
        free(b);
        return NULL;
}

static bool user_ready(const UserBudget *b, const User *u, uint64_t now)
{
        return token_bucket_ready(&u->bucket, b->c.burst, b->c.interval_usec, now);
}

static size_t user_n_pending(const User *u)
{
        return u->n - u->head;
}

/* Forget users that have nothing pending and a full bucket (they are as
 * good as new). */
static void users_purge(UserBudget *b, uint64_t now)
{
        size_t state = 0;
        pid_t key;
        void *v;

        while (pidmap_iterate(&b->users, &state, &key, &v)) {
                User *u = v;

                if (user_n_pending(u) == 0 && token_bucket_full(&u->bucket, now))
                        user_free(pidmap_remove(&b->users, key));
        }
        b->pop_state = 0;
}

/* UID's entry, new if need be (NULL with *RET_R: -ENOMEM, or 0 when the
 * table is full of users that matter). */
static User *user_get(UserBudget *b, uid_t uid, uint64_t now, bool add, int *ret_r)
{
        User *u = pidmap_get(&b->users, user_key(uid));
        int r;

        *ret_r = 0;
        if (u || !add)
                return u;
        if (pidmap_size(&b->users) >= b->c.max_users)
                users_purge(b, now);
        if (pidmap_size(&b->users) >= b->c.max_users)
                return NULL;
        u = calloc(1, sizeof(*u));
        if (!u) {
                *ret_r = -ENOMEM;
                return NULL;
        }
        *u = (User){ .uid = uid }; /* a full bucket */
        r = pidmap_put(&b->users, user_key(uid), u);
        if (r < 0) {
                free(u);
                *ret_r = r;
                return NULL;
        }
        return u;
}

static int user_push(UserBudget *b, User *u, pid_t pid)
{
        int r;

        if (u->head > 0 && u->n == u->cap) {
                /* Move the live part to the front before growing. */
                for (size_t i = u->head; i < u->n; i++)
                        u->pending[i - u->head] = u->pending[i];
                u->n -= u->head;
                u->head = 0;
        }
        if (GROW(u->pending, u->cap, u->n + 1, 16) < 0)
                return -ENOMEM;
        r = pidmap_put(&b->pending, pid, u);
        if (r < 0)
                return r;
        u->pending[u->n++] = pid;
        return 0;
}

int user_budget_check(UserBudget *b, uid_t uid, pid_t pid, uint64_t now)
{
        User *u;
        int r;

        if (pid <= 0)
                return -EINVAL;
        if (pidmap_get(&b->pending, pid))
                return USER_BUDGET_DEFERRED;
        u = user_get(b, uid, now, true, &r);
        if (!u)
                return r < 0 ? r : USER_BUDGET_FULL;
        /* A user with processes waiting queues behind them: their merged
         * evaluation comes first, and covers this one if it is the same. */
        if (user_n_pending(u) == 0 && user_ready(b, u, now))
                return USER_BUDGET_NOW;
        if (pidmap_size(&b->pending) >= b->c.max_pending)
                return USER_BUDGET_FULL;
        r = user_push(b, u, pid);
        if (r < 0)
                return r;
        return USER_BUDGET_DEFERRED;
}

void user_budget_charge(UserBudget *b, uid_t uid, uint64_t cost, uint64_t now)
{
        User *u;
        int r;

        u = user_get(b, uid, now, true, &r);
        if (!u)
                return;
        token_bucket_take(&u->bucket, b->c.burst, b->c.interval_usec, cost, b->c.max_debt, now);
}

/* When U has a token again (it has one now: NOW). */
static uint64_t user_due(const UserBudget *b, const User *u, uint64_t now)
{
        return token_bucket_ready_at(&u->bucket, b->c.burst, b->c.interval_usec, now);
}

uint64_t user_budget_next_due(UserBudget *b, uint64_t now)
{
        uint64_t due = UINT64_MAX;
        size_t state = 0;
        pid_t key;
        void *v;

        if (pidmap_size(&b->pending) == 0)
                return UINT64_MAX;
        while (pidmap_iterate(&b->users, &state, &key, &v)) {
                User *u = v;

                if (user_n_pending(u) == 0)
                        continue;
                due = MIN(due, user_due(b, u, now));
        }
        return due;
}

int user_budget_pop_due(UserBudget *b, uint64_t now, pid_t *ret_pid, uid_t *ret_uid)
{
        pid_t key;
        void *v;

        if (pidmap_size(&b->pending) == 0)
                return 0;
        /* Round robin over the users, from where the last one stopped. */
        for (int pass = 0; pass < 2; pass++) {
                while (pidmap_iterate(&b->users, &b->pop_state, &key, &v)) {
                        User *u = v;
                        pid_t pid;

                        if (user_n_pending(u) == 0)
                                continue;
                        if (!user_ready(b, u, now))
                                continue;
                        pid = u->pending[u->head++];
                        if (u->head == u->n)
                                u->head = u->n = 0;
                        (void)pidmap_remove(&b->pending, pid);
                        *ret_pid = pid;
                        *ret_uid = u->uid;
                        return 1;
                }
                b->pop_state = 0;
        }
        return 0;
}

void user_budget_clear_pending(UserBudget *b)
{
        size_t state = 0;
        pid_t key;
        void *v;

        while (pidmap_iterate(&b->users, &state, &key, &v)) {
                User *u = v;

                u->head = u->n = 0;
        }
        pidmap_done(&b->pending);
        b->pending = (PidMap){};
}

size_t user_budget_n_users(const UserBudget *b)
{
        return pidmap_size(&b->users);
}

size_t user_budget_n_pending(const UserBudget *b)
{
        return pidmap_size(&b->pending);
}
