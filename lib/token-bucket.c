/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "lib/macro.h"
#include "lib/token-bucket.h"

uint64_t token_bucket_ready_at(const TokenBucket *b, unsigned burst, uint64_t interval,
                               uint64_t now)
{
        uint64_t slack = (uint64_t)(burst > 0 ? burst - 1 : 0) * interval;

        if (b->tat <= now + slack)
                return now;
        return b->tat - slack;
}

void token_bucket_take(TokenBucket *b, unsigned burst, uint64_t interval, uint64_t cost,
                       unsigned max_debt, uint64_t now)
{
        /* BURST + MAX_DEBT intervals ahead of NOW is MAX_DEBT tokens below zero */
        uint64_t limit = now + ((uint64_t)burst + max_debt) * interval;

        cost = MIN(cost, (uint64_t)UINT32_MAX);
        b->tat = MIN(MAX(b->tat, now) + cost * interval, MAX(limit, b->tat));
}
