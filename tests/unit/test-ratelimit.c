/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit test for daemon/watch/ratelimit.c: bursts, coalescing (the last request is
 * never lost), the global bucket, round robin, bounded memory. */
#include <stdint.h>

#include "daemon/watch/ratelimit.h"
#include "test-util.h"

#define MS 1000u

static const RateLimitConfig config = {
        .burst = 3,
        .interval_usec = 100 * MS,
        .global_burst = 1000,
        .global_interval_usec = 1,
        .max_entries = 4,
};

static RateLimiter *new_limiter(const RateLimitConfig *c)
{
        RateLimiter *l = NULL;

        CHECK(rate_limiter_new(c, &l) == 0 && l);
        return l;
}

static void test_invalid(void)
{
        RateLimitConfig c = config;
        RateLimiter *l = NULL;

        c.burst = 0;
        check(rate_limiter_new(&c, &l) == -EINVAL && !l);
        c = config;
        c.max_entries = 0;
        check(rate_limiter_new(&c, &l) == -EINVAL && !l);
        l = new_limiter(&config);
        check(rate_limiter_check(l, 0, 1, 0) == -EINVAL);
        check(rate_limiter_check(l, 1, -1, 0) == -EINVAL);
        rate_limiter_free(l);
}

static void test_burst_then_coalesce(void)
{
        _cleanup_(rate_limiter_freep) RateLimiter *l = new_limiter(&config);
        uint64_t t = 1000 * MS;
        pid_t pid = 0, tid = 0;

        /* The burst is handled at once. */
        for (unsigned i = 0; i < config.burst; i++)
                check(rate_limiter_check(l, 100, 100, t) == RATE_LIMIT_NOW);
        check(rate_limiter_next_due(l, t) == UINT64_MAX);

        /* Then everything is one pending request, whatever the count. */
        for (unsigned i = 0; i < 10000; i++)
                check(rate_limiter_check(l, 100, 100, t + i) == RATE_LIMIT_DEFERRED);
        check(rate_limiter_n_pending(l) == 1);
        check(rate_limiter_size(l) == 1);

        /* Not before a token is back, then exactly once. */
        check(rate_limiter_next_due(l, t + 10000) == t + config.interval_usec);
        check(rate_limiter_pop_due(l, t + config.interval_usec - 1, &pid, &tid) == 0);
        check(pid == 0 && tid == 0);
        check(rate_limiter_pop_due(l, t + config.interval_usec, &pid, &tid) == 1);
        check(pid == 100 && tid == 100);
        check(rate_limiter_pop_due(l, t + config.interval_usec, &pid, &tid) == 0);
        check(rate_limiter_n_pending(l) == 0);

        /* A request after the pending one was handed out is a new one: the
         * final state is always evaluated. */
        check(rate_limiter_check(l, 100, 100, t + config.interval_usec + 1) ==
              RATE_LIMIT_DEFERRED);
        check(rate_limiter_n_pending(l) == 1);

        /* Idle long enough, the full burst is back. */
        rate_limiter_clear_pending(l);
        t += 100 * config.interval_usec;
        for (unsigned i = 0; i < config.burst; i++)
                check(rate_limiter_check(l, 100, 100, t) == RATE_LIMIT_NOW);
}

static void test_threads_merge(void)
{
        _cleanup_(rate_limiter_freep) RateLimiter *l = new_limiter(&config);
        pid_t pid = 0, tid = 0;

        for (unsigned i = 0; i < config.burst; i++)
                check(rate_limiter_check(l, 200, 201, 0) == RATE_LIMIT_NOW);
        check(rate_limiter_check(l, 200, 201, 0) == RATE_LIMIT_DEFERRED);
        check(rate_limiter_check(l, 200, 201, 0) == RATE_LIMIT_DEFERRED);
        check(rate_limiter_pop_due(l, 10 * config.interval_usec, &pid, &tid) == 1);
        check(pid == 200 && tid == 201); /* one thread: just that thread */

        for (unsigned i = 0; i < config.burst; i++)
                (void)rate_limiter_check(l, 200, 201, 20 * config.interval_usec);
        check(rate_limiter_check(l, 200, 202, 20 * config.interval_usec) == RATE_LIMIT_DEFERRED);
        check(rate_limiter_check(l, 200, 203, 20 * config.interval_usec) == RATE_LIMIT_DEFERRED);
        check(rate_limiter_pop_due(l, 30 * config.interval_usec, &pid, &tid) == 1);
        check(pid == 200 && tid == 200); /* two threads: the whole process */
}

static void test_global_round_robin(void)
{
        RateLimitConfig c = config;
        _cleanup_(rate_limiter_freep) RateLimiter *l = NULL;
        unsigned seen[4] = {};
        uint64_t t = 0;
        pid_t pid, tid;

        c.global_burst = 1;
        c.global_interval_usec = 10 * MS;
        l = new_limiter(&c);

        /* One gets the single global token, the other three wait. */
        check(rate_limiter_check(l, 1, 1, 0) == RATE_LIMIT_NOW);
        for (pid_t p = 2; p <= 4; p++)
                check(rate_limiter_check(l, p, p, 0) == RATE_LIMIT_DEFERRED);
        check(rate_limiter_next_due(l, 0) == c.global_interval_usec);

        /* The global bucket paces them; each keeps renaming, and each still
         * gets its turn. */
        for (unsigned round = 0; round < 300; round++) {
                t += c.global_interval_usec;
                if (rate_limiter_pop_due(l, t, &pid, &tid) == 1) {
                        CHECK(pid >= 1 && pid <= 4 && tid == pid);
                        seen[pid - 1]++;
                }
                for (pid_t p = 1; p <= 4; p++)
                        (void)rate_limiter_check(l, p, p, t);
        }
        for (unsigned i = 0; i < 4; i++)
                check(seen[i] >= 5);
}

static void test_bounded(void)
{
        _cleanup_(rate_limiter_freep) RateLimiter *l = new_limiter(&config);
        pid_t pid, tid;

        /* Four processes renaming hard fill the table; a fifth is refused
         * (the caller falls back), it is not silently dropped. */
        for (pid_t p = 1; p <= 4; p++)
                for (unsigned i = 0; i <= config.burst; i++)
                        (void)rate_limiter_check(l, p, p, 0);
        check(rate_limiter_size(l) == 4);
        check(rate_limiter_n_pending(l) == 4);
        check(rate_limiter_check(l, 5, 5, 0) == RATE_LIMIT_FULL);
        check(rate_limiter_size(l) == 4);

        /* An exit does not lose a pending request... */
        rate_limiter_exit(l, 1, 1);
        check(rate_limiter_n_pending(l) == 4);
        /* ... but entries with nothing pending and a full bucket expire. */
        while (rate_limiter_pop_due(l, 10 * config.interval_usec, &pid, &tid) == 1)
                ;
        check(rate_limiter_n_pending(l) == 0);
        check(rate_limiter_check(l, 5, 5, 100 * config.interval_usec) == RATE_LIMIT_NOW);
        check(rate_limiter_size(l) == 1);

        /* A main thread's exit without anything pending drops the entry. */
        rate_limiter_exit(l, 5, 6);
        check(rate_limiter_size(l) == 1);
        rate_limiter_exit(l, 5, 5);
        check(rate_limiter_size(l) == 0);
}

int main(void)
{
        test_invalid();
        test_burst_then_coalesce();
        test_threads_merge();
        test_global_round_robin();
        test_bounded();
        return test_result();
}
