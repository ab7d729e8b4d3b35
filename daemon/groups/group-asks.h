/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the requesters of one group ask of it together (issue 31), by one
 * rule, field by field:
 *
 *   - CPUIdle=: idle if any asks for CPUIdle=yes, else not idle if any
 *     asks for CPUIdle=no;
 *   - CPUWeight=: the lowest asked;
 *   - CPULatencyNice=: the highest asked;
 *   - a field nobody asks for is not part of the combination (the group's
 *     original then);
 *   - the uid they act for: a user's if any of them is not root's (the
 *     highest such uid), else root's (0).
 *
 * Kept as counts, not as a list walked at each request: a count each for
 * idle and not idle, and a count per distinct value asked of the weight,
 * the latency nice and the uid (a sorted array: the values come from the
 * policy, few, and a user with tens of thousands of processes in one
 * scope makes a request and an exit cost O(log k) to find and O(k) at most
 * to insert, k the distinct values, not O(n) in the processes). Pure data:
 * the group table (groups.c) says whose asks count, and adds and removes
 * them as that changes.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What one requester asks of its group (a protector that is no booster:
 * nothing). */
typedef struct GroupAsk {
        bool has_weight, has_idle, has_latency_nice;
        bool idle;
        uint32_t weight;
        int latency_nice;
} GroupAsk;

/* How many asks have each value, sorted by value. */
typedef struct AskCount {
        int64_t value;
        size_t count;
} AskCount;

typedef struct AskCounts {
        AskCount *items;
        size_t n, allocated;
} AskCounts;

typedef struct GroupAsks {
        size_t n;                      /* asks in it */
        size_t n_asking;               /* of them, those that ask for a field */
        size_t n_idle, n_not_idle;     /* CPUIdle=yes, CPUIdle=no */
        AskCounts weight, latency_nice;
        AskCounts uid;                 /* the asks of a uid other than root's */
        size_t reserved;               /* room for that many asks: adding allocates nothing */
} GroupAsks;

/* Room for N asks in all: until there are more, group_asks_add() cannot
 * fail. 0 or -ENOMEM (what was reserved before stays). */
int group_asks_reserve(GroupAsks *a, size_t n);

/* ASK, made for UID, joins A. 0, or -ENOMEM if A holds as many asks as
 * were reserved and could not grow (nothing was added). */
int group_asks_add(GroupAsks *a, const GroupAsk *ask, uid_t uid);

/* ASK, made for UID, added to A before, leaves it. */
void group_asks_remove(GroupAsks *a, const GroupAsk *ask, uid_t uid);

/* The asks of A combined (above) into *RET (a field nobody asks for is
 * not set), and the uid they act for into *RET_UID (may be NULL). True if
 * any of them asks for a field. */
bool group_asks_combine(const GroupAsks *a, GroupAsk *ret, uid_t *ret_uid);

/* Frees what A holds; A is empty afterwards. */
void group_asks_done(GroupAsks *a);
