/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Caller limit (see caller-limit.h).
 */
#include "daemon/bus/caller-limit.h"

bool caller_limit_take(CallerLimit *l, uid_t uid, uint64_t now)
{
        TokenBucket *b = NULL;

        for (size_t i = 0; i < l->n_callers && !b; i++)
                if (l->callers[i].uid == uid)
                        b = &l->callers[i].bucket;
        if (!b) {
                for (size_t i = 0; i < l->n_callers; i++)
                        if (token_bucket_full(&l->callers[i].bucket, now)) {
                                l->callers[i] = l->callers[--l->n_callers];
                                break;
                        }
                if (l->n_callers >= CALLER_LIMIT_MAX)
                        return false;
                l->callers[l->n_callers].uid = uid;
                l->callers[l->n_callers].bucket = (TokenBucket){};
                b = &l->callers[l->n_callers++].bucket;
        }
        if (!token_bucket_ready(b, l->burst, l->interval_usec, now))
                return false;
        token_bucket_take(b, l->burst, l->interval_usec, 1, 0, now);
        return true;
}
