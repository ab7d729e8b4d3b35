/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit test for daemon/groups/group-asks.c, the requests on one group
 * combined as counts, against a reference written here that walks every
 * live ask (what groups.c did at each request and exit before): idle if
 * any asks for CPUIdle=yes, else not idle if any asks no; the lowest
 * CPUWeight=; the highest CPULatencyNice=; the highest uid other than
 * root's. Requesters join and leave in every order (all orders of four,
 * and long random runs with few distinct values, so that ties are the
 * rule), the last asker of a field leaves, and one that asks nothing
 * joins. Runs as any user.
 */
#include <stdlib.h>
#include <string.h>

#include "daemon/groups/group-asks.h"
#include "test-util.h"

typedef struct Live {
        GroupAsk ask;
        uid_t uid;
        bool in;
} Live;

/* The reference: a walk over the live asks. */
static bool reference(const Live *l, size_t n, GroupAsk *ret, uid_t *ret_uid)
{
        bool asked = false;

        *ret = (GroupAsk){};
        *ret_uid = 0;
        for (size_t i = 0; i < n; i++) {
                const GroupAsk *a = &l[i].ask;

                if (!l[i].in)
                        continue;
                asked = asked || a->has_weight || a->has_idle || a->has_latency_nice;
                if (a->has_idle) {
                        ret->idle = ret->has_idle ? ret->idle || a->idle : a->idle;
                        ret->has_idle = true;
                }
                if (a->has_weight) {
                        ret->weight = ret->has_weight ? MIN(ret->weight, a->weight) : a->weight;
                        ret->has_weight = true;
                }
                if (a->has_latency_nice) {
                        ret->latency_nice = ret->has_latency_nice
                                                    ? MAX(ret->latency_nice, a->latency_nice)
                                                    : a->latency_nice;
                        ret->has_latency_nice = true;
                }
                if (l[i].uid != 0)
                        *ret_uid = MAX(*ret_uid, l[i].uid);
        }
        return asked;
}

static bool same(const GroupAsk *a, const GroupAsk *b)
{
        return a->has_idle == b->has_idle && (!a->has_idle || a->idle == b->idle) &&
               a->has_weight == b->has_weight && (!a->has_weight || a->weight == b->weight) &&
               a->has_latency_nice == b->has_latency_nice &&
               (!a->has_latency_nice || a->latency_nice == b->latency_nice);
}

/* A's combination is the reference's for L; STEP names the failure. */
static bool agrees(const GroupAsks *a, const Live *l, size_t n, const char *step)
{
        GroupAsk got, want;
        uid_t got_uid, want_uid;
        bool got_asked = group_asks_combine(a, &got, &got_uid);
        bool want_asked = reference(l, n, &want, &want_uid);

        if (got_asked == want_asked && same(&got, &want) && got_uid == want_uid)
                return true;
        test_fail("%s: got asked %d idle %d/%d weight %d/%u latency %d/%d uid %u; "
                  "want asked %d idle %d/%d weight %d/%u latency %d/%d uid %u",
                  step, got_asked, got.has_idle, got.idle, got.has_weight, got.weight,
                  got.has_latency_nice, got.latency_nice, (unsigned)got_uid, want_asked,
                  want.has_idle, want.idle, want.has_weight, want.weight,
                  want.has_latency_nice, want.latency_nice, (unsigned)want_uid);
        return false;
}

static void join(GroupAsks *a, Live *l)
{
        CHECK(group_asks_add(a, &l->ask, l->uid) == 0);
        l->in = true;
}

static void leave(GroupAsks *a, Live *l)
{
        group_asks_remove(a, &l->ask, l->uid);
        l->in = false;
}

/* Nothing asked; one that asks nothing; the last asker of each field. */
static void test_fields(void)
{
        GroupAsks a = {};
        GroupAsk c;
        uid_t uid;
        Live l[] = {
                { .ask = {} },
                { .ask = { .has_idle = true, .idle = true }, .uid = 1000 },
                { .ask = { .has_idle = true, .idle = false, .has_weight = true, .weight = 50 } },
                { .ask = { .has_weight = true, .weight = 50, .has_latency_nice = true,
                           .latency_nice = -3 },
                  .uid = 1000 },
                { .ask = { .has_latency_nice = true, .latency_nice = 7 } },
        };

        check(!group_asks_combine(&a, &c, &uid) && !c.has_idle && !c.has_weight &&
              !c.has_latency_nice && uid == 0);
        join(&a, &l[0]);
        check(!group_asks_combine(&a, &c, &uid) && a.n == 1 && uid == 0);
        for (size_t i = 1; i < ELEMENTSOF(l); i++) {
                join(&a, &l[i]);
                check(agrees(&a, l, ELEMENTSOF(l), "join"));
        }
        check(group_asks_combine(&a, &c, &uid) && c.has_idle && c.idle && c.weight == 50 &&
              c.latency_nice == 7 && uid == 1000);
        /* The idle asker leaves: the one that asks no decides. */
        leave(&a, &l[1]);
        check(group_asks_combine(&a, &c, &uid) && c.has_idle && !c.idle && uid == 1000);
        /* A tie of weights: one of them leaving changes nothing. */
        leave(&a, &l[2]);
        check(group_asks_combine(&a, &c, NULL) && !c.has_idle && c.has_weight &&
              c.weight == 50);
        /* The highest latency nice leaves: the next one. */
        leave(&a, &l[4]);
        check(group_asks_combine(&a, &c, NULL) && c.latency_nice == -3);
        /* The last asker leaves: nothing asked, the uid root's. */
        leave(&a, &l[3]);
        check(!group_asks_combine(&a, &c, &uid) && !c.has_weight && !c.has_latency_nice &&
              uid == 0 && a.n == 1);
        check(a.weight.n == 0 && a.latency_nice.n == 0 && a.uid.n == 0);
        leave(&a, &l[0]);
        check(a.n == 0 && a.n_asking == 0 && a.n_idle == 0 && a.n_not_idle == 0);
        group_asks_done(&a);
}

/* Reserved room: adding as many asks allocates nothing. */
static void test_reserve(void)
{
        GroupAsks a = {};
        Live l[6];
        const AskCount *w;

        CHECK(group_asks_reserve(&a, ELEMENTSOF(l)) == 0);
        w = a.weight.items;
        for (size_t i = 0; i < ELEMENTSOF(l); i++) {
                l[i] = (Live){ .ask = { .has_weight = true, .weight = 600 - 100 * (uint32_t)i,
                                        .has_latency_nice = true, .latency_nice = (int)i },
                               .uid = 1000 + (uid_t)i };
                join(&a, &l[i]);
        }
        check(a.weight.items == w && a.weight.n == ELEMENTSOF(l));
        check(agrees(&a, l, ELEMENTSOF(l), "reserved"));
        /* More than reserved: it grows. */
        Live more = { .ask = { .has_weight = true, .weight = 1 } };
        join(&a, &more);
        check(a.weight.n == ELEMENTSOF(l) + 1 && a.weight.items[0].value == 1);
        group_asks_done(&a);
}

static const GroupAsk orders_asks[] = {
        { .has_idle = true, .idle = true, .has_weight = true, .weight = 100 },
        { .has_weight = true, .weight = 50, .has_latency_nice = true, .latency_nice = 5 },
        { .has_idle = true, .idle = false, .has_latency_nice = true, .latency_nice = 5 },
        { .has_weight = true, .weight = 50, .has_latency_nice = true, .latency_nice = -2 },
};
static const uid_t orders_uids[] = { 0, 1000, 0, 1001 };

/* Permutation K of 0..3 (K < 24) into P. */
static void permutation(unsigned k, unsigned p[4])
{
        unsigned pool[4] = { 0, 1, 2, 3 };

        for (unsigned i = 0, n = 4; i < 4; i++, n--) {
                unsigned f = 1;

                for (unsigned j = 2; j < n; j++)
                        f *= j;
                unsigned idx = k / f;

                k %= f;
                p[i] = pool[idx];
                memmove(pool + idx, pool + idx + 1, (n - idx - 1) * sizeof(unsigned));
        }
}

/* Four requesters join in every order and leave in every order. */
static void test_every_order(void)
{
        unsigned bad = 0;

        for (unsigned in = 0; in < 24; in++)
                for (unsigned out = 0; out < 24; out++) {
                        GroupAsks a = {};
                        Live l[4];
                        unsigned pin[4], pout[4];

                        permutation(in, pin);
                        permutation(out, pout);
                        for (unsigned i = 0; i < 4; i++)
                                l[i] = (Live){ .ask = orders_asks[i], .uid = orders_uids[i] };
                        for (unsigned i = 0; i < 4; i++) {
                                join(&a, &l[pin[i]]);
                                bad += !agrees(&a, l, 4, "in order");
                        }
                        for (unsigned i = 0; i < 4; i++) {
                                leave(&a, &l[pout[i]]);
                                bad += !agrees(&a, l, 4, "out of order");
                        }
                        check(a.n == 0 && a.weight.n == 0 && a.latency_nice.n == 0);
                        group_asks_done(&a);
                        if (bad > 5)
                                return;
                }
}

static GroupAsk random_ask(void)
{
        static const uint32_t weights[] = { 1, 50, 50, 100, 10000 };
        static const int latencies[] = { -20, -5, 0, 0, 19 };
        GroupAsk a = {};

        a.has_idle = rand() % 3 == 0;
        a.idle = rand() % 2;
        a.has_weight = rand() % 2;
        a.weight = weights[rand() % ELEMENTSOF(weights)];
        a.has_latency_nice = rand() % 3 == 0;
        a.latency_nice = latencies[rand() % ELEMENTSOF(latencies)];
        return a;
}

/* Requesters come, go and change what they ask at random, few values,
 * many ties; after each step the counts agree with the walk. */
static void test_random(void)
{
        static const uid_t uids[] = { 0, 0, 1000, 1001 };
        Live l[48];

        for (unsigned seed = 1; seed <= 20; seed++) {
                GroupAsks a = {};
                unsigned bad = 0;

                srand(seed);
                memset(l, 0, sizeof(l));
                for (unsigned step = 0; step < 4000 && bad < 5; step++) {
                        Live *q = &l[rand() % ELEMENTSOF(l)];

                        if (q->in)
                                leave(&a, q);
                        if (!q->in && rand() % 3 != 0) {
                                q->ask = random_ask();
                                q->uid = uids[rand() % ELEMENTSOF(uids)];
                                join(&a, q);
                        }
                        bad += !agrees(&a, l, ELEMENTSOF(l), "random");
                }
                /* Everyone leaves, the last asker of each field included. */
                for (size_t i = 0; i < ELEMENTSOF(l); i++)
                        if (l[i].in) {
                                leave(&a, &l[i]);
                                bad += !agrees(&a, l, ELEMENTSOF(l), "all leave");
                        }
                check(a.n == 0 && a.n_asking == 0 && a.weight.n == 0 &&
                      a.latency_nice.n == 0 && a.uid.n == 0);
                group_asks_done(&a);
        }
}

int main(void)
{
        test_fields();
        test_reserve();
        test_every_order();
        test_random();
        return test_result();
}
