/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Owns the ledger's rule for recorded values (ledger.h). */
#include <string.h>

#include "daemon/state/ledger.h"

LedgerOwner ledger_recorded_owner(const void *now, const void *written, const void *previous,
                                  const void *orig, ledger_same_t same, const void *ctx)
{
        if (same(now, written, ctx) || (previous && same(now, previous, ctx)))
                return LEDGER_OURS;
        if (same(now, orig, ctx))
                return LEDGER_ORIGINAL;
        return LEDGER_THEIRS;
}

static bool same_str(const void *a, const void *b, const void *ctx)
{
        return strcmp(a, b) == 0;
}

LedgerOwner ledger_recorded_owner_str(const char *now, const char *written,
                                      const char *previous, const char *orig)
{
        return ledger_recorded_owner(now, written, previous && previous[0] ? previous : NULL,
                                     orig, same_str, NULL);
}

static bool same_u64(const void *a, const void *b, const void *ctx)
{
        return *(const uint64_t *)a == *(const uint64_t *)b;
}

LedgerOwner ledger_recorded_owner_u64(uint64_t now, uint64_t written, const uint64_t *previous,
                                      uint64_t orig)
{
        return ledger_recorded_owner(&now, &written, previous, &orig, same_u64, NULL);
}
