/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit test for daemon/state/ledger.c: who owns a value a restarted
 * latniced finds where a dead one recorded it (written, or written before,
 * is latniced's; the original is nothing to give back; anything else is
 * someone else's), for strings, numbers and a caller's comparison.
 */
#include <stdlib.h>

#include "daemon/state/ledger.h"
#include "test-util.h"

/* Numbers equal within 10 (a caller's own idea of "the same"). */
static bool same_within_10(const void *a, const void *b, const void *ctx)
{
        int d = *(const int *)a - *(const int *)b;

        check(ctx == (const void *)same_within_10);
        return abs(d) < 10;
}

static LedgerOwner owner_int(int now, int written, const int *previous, int orig)
{
        return ledger_recorded_owner(&now, &written, previous, &orig, same_within_10,
                                     (const void *)same_within_10);
}

int main(void)
{
        uint64_t p = 300;
        int pi = 300;

        /* strings: a cgroup file's contents */
        check(ledger_recorded_owner_str("250", "250", "", "100") == LEDGER_OURS);
        check(ledger_recorded_owner_str("300", "250", "300", "100") == LEDGER_OURS);
        check(ledger_recorded_owner_str("100", "250", "300", "100") == LEDGER_ORIGINAL);
        check(ledger_recorded_owner_str("42", "250", "300", "100") == LEDGER_THEIRS);
        /* an empty previous is nothing, not a value "" */
        check(ledger_recorded_owner_str("", "250", "", "100") == LEDGER_THEIRS);
        check(ledger_recorded_owner_str("300", "250", NULL, "100") == LEDGER_THEIRS);
        /* written wins over original when they are equal */
        check(ledger_recorded_owner_str("100", "100", "", "100") == LEDGER_OURS);

        /* numbers: a unit's CPUWeight= */
        check(ledger_recorded_owner_u64(250, 250, NULL, 100) == LEDGER_OURS);
        check(ledger_recorded_owner_u64(300, 250, &p, 100) == LEDGER_OURS);
        check(ledger_recorded_owner_u64(300, 250, NULL, 100) == LEDGER_THEIRS);
        check(ledger_recorded_owner_u64(100, 250, &p, 100) == LEDGER_ORIGINAL);
        check(ledger_recorded_owner_u64(7, 250, &p, 100) == LEDGER_THEIRS);

        /* the caller's comparison, with its context */
        check(owner_int(255, 250, NULL, 100) == LEDGER_OURS);
        check(owner_int(305, 250, &pi, 100) == LEDGER_OURS);
        check(owner_int(95, 250, &pi, 100) == LEDGER_ORIGINAL);
        check(owner_int(500, 250, &pi, 100) == LEDGER_THEIRS);
        return test_result();
}
