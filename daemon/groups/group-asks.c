/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The requests on one group combined, as counts (group-asks.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/groups/group-asks.h"
#include "lib/invariant.h"
#include "lib/macro.h"

/* Where V is in C, or where it would go (the first item above it). */
static size_t counts_find(const AskCounts *c, int64_t v)
{
        size_t lo = 0, hi = c->n;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;

                if (c->items[mid].value < v)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo;
}

static int counts_reserve(AskCounts *c, size_t n)
{
        AskCount *items;

        if (c->allocated >= n)
                return 0;
        items = reallocarray(c->items, n, sizeof(AskCount));
        if (!items)
                return -ENOMEM;
        c->items = items;
        c->allocated = n;
        return 0;
}

/* One more ask of V (C has room for it). */
static void counts_add(AskCounts *c, int64_t v)
{
        size_t i = counts_find(c, v);

        if (i < c->n && c->items[i].value == v) {
                c->items[i].count++;
                return;
        }
        ln_assert(c->n < c->allocated);
        memmove(c->items + i + 1, c->items + i, (c->n - i) * sizeof(AskCount));
        c->items[i] = (AskCount){ .value = v, .count = 1 };
        c->n++;
}

/* One ask of V fewer (C has one). */
static void counts_remove(AskCounts *c, int64_t v)
{
        size_t i = counts_find(c, v);

        ln_assert(i < c->n && c->items[i].value == v && c->items[i].count > 0);
        if (--c->items[i].count > 0)
                return;
        memmove(c->items + i, c->items + i + 1, (c->n - i - 1) * sizeof(AskCount));
        c->n--;
}

int group_asks_reserve(GroupAsks *a, size_t n)
{
        if (n <= a->reserved)
                return 0;
        n = MAX(n, MAX(2 * a->reserved, (size_t)8)); /* growing one by one would copy it all */
        /* Each ask adds one value at most to each count. */
        if (counts_reserve(&a->weight, n) < 0 || counts_reserve(&a->latency_nice, n) < 0 ||
            counts_reserve(&a->uid, n) < 0)
                return -ENOMEM;
        a->reserved = n;
        return 0;
}

static bool ask_asks(const GroupAsk *ask)
{
        return ask->has_weight || ask->has_idle || ask->has_latency_nice;
}

int group_asks_add(GroupAsks *a, const GroupAsk *ask, uid_t uid)
{
        if (group_asks_reserve(a, a->n + 1) < 0)
                return -ENOMEM;
        a->n++;
        if (ask_asks(ask))
                a->n_asking++;
        if (ask->has_idle) {
                if (ask->idle)
                        a->n_idle++;
                else
                        a->n_not_idle++;
        }
        if (ask->has_weight)
                counts_add(&a->weight, ask->weight);
        if (ask->has_latency_nice)
                counts_add(&a->latency_nice, ask->latency_nice);
        if (uid != 0)
                counts_add(&a->uid, uid);
        return 0;
}

void group_asks_remove(GroupAsks *a, const GroupAsk *ask, uid_t uid)
{
        ln_assert(a->n > 0);
        a->n--;
        if (ask_asks(ask)) {
                ln_assert(a->n_asking > 0);
                a->n_asking--;
        }
        if (ask->has_idle) {
                size_t *n = ask->idle ? &a->n_idle : &a->n_not_idle;

                ln_assert(*n > 0);
                (*n)--;
        }
        if (ask->has_weight)
                counts_remove(&a->weight, ask->weight);
        if (ask->has_latency_nice)
                counts_remove(&a->latency_nice, ask->latency_nice);
        if (uid != 0)
                counts_remove(&a->uid, uid);
}

bool group_asks_combine(const GroupAsks *a, GroupAsk *ret, uid_t *ret_uid)
{
        *ret = (GroupAsk){};
        if (a->n_idle + a->n_not_idle > 0) {
                ret->has_idle = true;
                ret->idle = a->n_idle > 0;
        }
        if (a->weight.n > 0) {
                ret->has_weight = true;
                ret->weight = (uint32_t)a->weight.items[0].value;
        }
        if (a->latency_nice.n > 0) {
                ret->has_latency_nice = true;
                ret->latency_nice = (int)a->latency_nice.items[a->latency_nice.n - 1].value;
        }
        if (ret_uid)
                *ret_uid = a->uid.n > 0 ? (uid_t)a->uid.items[a->uid.n - 1].value : 0;
        return a->n_asking > 0;
}

void group_asks_done(GroupAsks *a)
{
        free(a->weight.items);
        free(a->latency_nice.items);
        free(a->uid.items);
        *a = (GroupAsks){};
}
