/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * UserBudget: one budget per user for the evaluations a user triggers at
 * will, a new thread (clone() needs no privilege) and a rename
 * (prctl(PR_SET_NAME)).
 *
 * Each user has a token bucket counted in thread evaluations: BURST at
 * once, then one per INTERVAL. An evaluation is charged afterwards with the
 * threads it went through (a whole process as many as it has), so a bucket
 * can go into debt, by MAX_DEBT at most. While a user's bucket is empty, its
 * thread events are not evaluated one by one: their processes are noted as
 * pending, once each, and handed out by user_budget_pop_due() when that
 * user's bucket has a token again; the caller then evaluates the process
 * whole, which covers every thread it has by then, under its final name.
 * Nothing pending is ever dropped. Users do not share a bucket: one user's
 * storm never delays another's threads.
 *
 * Bounded: at most MAX_USERS users (a user whose bucket is full and who has
 * nothing pending is forgotten to make room) and MAX_PENDING pending
 * processes in all; beyond that a check gets USER_BUDGET_FULL and the
 * caller falls back to something coarser that sees the final state (a
 * rescan). Pure logic: time is passed in (CLOCK_MONOTONIC usec).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct UserBudgetConfig {
        unsigned burst;         /* thread evaluations a user gets at once (>= 1) */
        uint64_t interval_usec; /* then one per interval (> 0) */
        unsigned max_debt;      /* tokens a charge can take below zero */
        size_t max_users;       /* users tracked at most (>= 1) */
        size_t max_pending;     /* pending processes in all (>= 1) */
} UserBudgetConfig;

typedef enum UserBudgetVerdict {
        USER_BUDGET_NOW,      /* within the budget: evaluate now, then charge */
        USER_BUDGET_DEFERRED, /* the process is pending (new or already) */
        USER_BUDGET_FULL,     /* not tracked, tables full: the caller must fall back */
} UserBudgetVerdict;

typedef struct UserBudget UserBudget;

/* -EINVAL for a zero burst, interval, max_users or max_pending. */
int user_budget_new(const UserBudgetConfig *c, UserBudget **ret);
UserBudget *user_budget_free(UserBudget *b);
static inline void user_budget_freep(UserBudget **b)
{
        if (*b)
                user_budget_free(*b);
}

/* A thread event of process PID of user UID at NOW. Returns a
 * UserBudgetVerdict, -ENOMEM or -EINVAL (pid <= 0). A process that is
 * pending stays so (DEFERRED) until it is handed out. */
int user_budget_check(UserBudget *b, uid_t uid, pid_t pid, uint64_t now);

/* An evaluation for UID at NOW went through COST threads. */
void user_budget_charge(UserBudget *b, uid_t uid, uint64_t cost, uint64_t now);

/* The earliest time at or after NOW at which user_budget_pop_due() can hand
 * something out; UINT64_MAX when nothing is pending. */
uint64_t user_budget_next_due(UserBudget *b, uint64_t now);

/* Hand out one pending process whose user has a token at NOW: returns 1
 * with *RET_PID and *RET_UID (the caller evaluates it whole and charges
 * it), 0 if none is due. */
int user_budget_pop_due(UserBudget *b, uint64_t now, pid_t *ret_pid, uid_t *ret_uid);

/* A rescan evaluated every process: nothing is pending any more. */
void user_budget_clear_pending(UserBudget *b);

size_t user_budget_n_users(const UserBudget *b);
size_t user_budget_n_pending(const UserBudget *b);
