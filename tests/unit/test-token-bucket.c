/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit test for lib/token-bucket.c: BURST at once, then one per INTERVAL, a
 * debt bounded by MAX_DEBT. */
#include <stdint.h>

#include "lib/token-bucket.h"
#include "test-util.h"

#define MS 1000u

static void test_burst_then_rate(void)
{
        TokenBucket b = {};
        uint64_t now = 5000 * MS;

        check(token_bucket_full(&b, now));
        for (int i = 0; i < 3; i++) {
                check(token_bucket_ready(&b, 3, 10 * MS, now));
                token_bucket_take(&b, 3, 10 * MS, 1, 0, now);
        }
        /* burst spent: the next token 10 ms later, then one per 10 ms */
        check(!token_bucket_ready(&b, 3, 10 * MS, now));
        check(!token_bucket_full(&b, now));
        check(token_bucket_ready_at(&b, 3, 10 * MS, now) == now + 10 * MS);
        check(!token_bucket_ready(&b, 3, 10 * MS, now + 10 * MS - 1));
        check(token_bucket_ready(&b, 3, 10 * MS, now + 10 * MS));
        token_bucket_take(&b, 3, 10 * MS, 1, 0, now + 10 * MS);
        check(token_bucket_ready_at(&b, 3, 10 * MS, now + 10 * MS) == now + 20 * MS);
        /* full again once every token is back, and not before */
        check(!token_bucket_full(&b, now + 40 * MS - 1));
        check(token_bucket_full(&b, now + 40 * MS));
        /* idle time does not pile up beyond the burst */
        check(token_bucket_ready(&b, 3, 10 * MS, now + 1000 * MS));
        for (int i = 0; i < 3; i++)
                token_bucket_take(&b, 3, 10 * MS, 1, 0, now + 1000 * MS);
        check(!token_bucket_ready(&b, 3, 10 * MS, now + 1000 * MS));
}

static void test_cost_and_debt(void)
{
        TokenBucket b = {};
        uint64_t now = 100 * MS;

        /* 4 tokens, a charge of 500 leaves 20 below zero at most: a token
         * again after 21 intervals */
        token_bucket_take(&b, 4, 10 * MS, 500, 20, now);
        check(token_bucket_ready_at(&b, 4, 10 * MS, now) == now + 21 * 10 * MS);
        /* a cost within the bound is taken whole: 4 - 2 = 2 left */
        b = (TokenBucket){};
        token_bucket_take(&b, 4, 10 * MS, 2, 20, now);
        check(token_bucket_ready(&b, 4, 10 * MS, now));
        token_bucket_take(&b, 4, 10 * MS, 2, 20, now);
        check(token_bucket_ready_at(&b, 4, 10 * MS, now) == now + 10 * MS);
        /* a huge cost does not overflow */
        token_bucket_take(&b, 4, 10 * MS, UINT64_MAX, 0, now);
        check(token_bucket_ready_at(&b, 4, 10 * MS, now) == now + 10 * MS);
}

int main(void)
{
        test_burst_then_rate();
        test_cost_and_debt();
        return test_result();
}
