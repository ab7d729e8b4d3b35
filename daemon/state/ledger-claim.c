/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Owns the ledger's claim on one value of a cgroup file or unit property:
 * its original, its expected value and its state file record
 * (ledger-claim.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/state/ledger-claim.h"
#include "lib/invariant.h"
#include "lib/macro.h"

static bool same_value(const char *a, const char *b, ledger_claim_same_t same, const void *ctx)
{
        return same ? same(a, b, ctx) : strcmp(a, b) == 0;
}

bool ledger_claim_changed(const LedgerClaim *c, const char *now, ledger_claim_same_t same,
                          const void *ctx)
{
        return ledger_claim_held(c) && !same_value(now, c->expected, same, ctx);
}

/* Record in F that TARGET had ORIG and gets WRITTEN (PREVIOUS: what latniced
 * wrote before, NULL: nothing). */
static int claim_record(LedgerClaim *c, StateFile *f, const StateCgroupRecord *target,
                        const char *orig, const char *written, const char *previous)
{
        StateCgroupRecord rec = *target;

        if (!f)
                return 0;
        if (strlen(orig) >= STATE_VALUE_MAX || strlen(written) >= STATE_VALUE_MAX ||
            (previous && strlen(previous) >= STATE_VALUE_MAX))
                return -EOVERFLOW;
        strcpy(rec.orig, orig);
        strcpy(rec.written, written);
        strcpy(rec.previous, previous ?: "");
        return state_file_cgroup_put(f, &c->slot1, &rec);
}

int ledger_claim_write(LedgerClaim *c, StateFile *f, const StateCgroupRecord *target,
                       const char *now, const char *want, ledger_claim_write_t write,
                       void *userdata, int *ret_unrecorded)
{
        _cleanup_free_ char *orig = NULL, *expected = strdup(want);
        bool held = ledger_claim_held(c);
        int r, unrecorded;

        ln_assert(!held || c->expected);
        if (ret_unrecorded)
                *ret_unrecorded = 0;
        if (!expected || (!held && !(orig = strdup(now))))
                return -ENOMEM;
        unrecorded = claim_record(c, f, target, held ? c->orig : now, want,
                                  held ? c->expected : NULL);
        r = write(want, userdata);
        if (r < 0) {
                /* Not written: the record says what the target still holds. */
                if (held) {
                        int q = claim_record(c, f, target, c->orig, c->expected, NULL);

                        if (unrecorded >= 0)
                                unrecorded = q;
                } else
                        state_file_cgroup_release(f, &c->slot1);
        } else {
                if (!held)
                        c->orig = TAKE_PTR(orig);
                free(c->expected);
                c->expected = TAKE_PTR(expected);
        }
        if (ret_unrecorded)
                *ret_unrecorded = unrecorded < 0 ? unrecorded : 0;
        return r;
}

/* What was settled is in the target already. */
static int settled(const char *value, void *userdata)
{
        (void)value;
        (void)userdata;
        return 0;
}

int ledger_claim_settle(LedgerClaim *c, StateFile *f, const StateCgroupRecord *target,
                        const char *orig, const char *now, int *ret_unrecorded)
{
        return ledger_claim_write(c, f, target, orig, now, settled, NULL, ret_unrecorded);
}

int ledger_claim_set_orig(LedgerClaim *c, StateFile *f, const StateCgroupRecord *target,
                          const char *orig)
{
        char *o = strdup(orig);

        ln_assert(ledger_claim_held(c));
        if (!o)
                return -ENOMEM;
        free(c->orig);
        c->orig = o;
        return claim_record(c, f, target, c->orig, c->expected, NULL);
}

int ledger_claim_restore(LedgerClaim *c, StateFile *f, const char *now, ledger_claim_same_t same,
                         const void *ctx, ledger_claim_write_t write, void *userdata,
                         char **ret_orig)
{
        return ledger_claim_restore_unknown(c, f, now, same, ctx, write, userdata, NULL,
                                            ret_orig);
}

int ledger_claim_restore_unknown(LedgerClaim *c, StateFile *f, const char *now,
                                 ledger_claim_same_t same, const void *ctx,
                                 ledger_claim_write_t write, void *userdata,
                                 const bool *unknown, char **ret_orig)
{
        int r = 0;

        if (ret_orig)
                *ret_orig = NULL;
        if (!ledger_claim_held(c))
                return 0;
        if (now && !ledger_claim_changed(c, now, same, ctx)) {
                r = write(c->orig, userdata);
                if (r >= 0)
                        r = 1;
        }
        if (ret_orig)
                *ret_orig = TAKE_PTR(c->orig);
        if (r > 0 && unknown && *unknown) {
                /* Written, not yet known: the record stays, the next
                 * latniced's. */
                ledger_claim_done(c);
                c->slot1 = 0;
                return LEDGER_CLAIM_RESTORE_UNKNOWN;
        }
        ledger_claim_drop(c, f);
        return r;
}

void ledger_claim_drop(LedgerClaim *c, StateFile *f)
{
        ledger_claim_done(c);
        state_file_cgroup_release(f, &c->slot1);
}

void ledger_claim_done(LedgerClaim *c)
{
        c->orig = mfree(c->orig);
        c->expected = mfree(c->expected);
}

typedef struct SameCtx {
        ledger_claim_same_t same;
        const void *ctx;
} SameCtx;

static bool same_adapter(const void *a, const void *b, const void *ctx)
{
        const SameCtx *s = ctx;

        return same_value(a, b, s->same, s->ctx);
}

int ledger_claim_adopt(LedgerClaim *c, const StateCgroupRecord *rec, const char *now,
                       ledger_claim_same_t same, const void *ctx)
{
        SameCtx s = { same, ctx };
        LedgerOwner owner;

        ln_assert(!ledger_claim_held(c));
        owner = ledger_recorded_owner(now, rec->written, rec->previous[0] ? rec->previous : NULL,
                                      rec->orig, same_adapter, &s);
        if (owner != LEDGER_OURS)
                return owner;
        c->orig = strdup(rec->orig);
        c->expected = strdup(now);
        if (!c->orig || !c->expected) {
                ledger_claim_done(c);
                return -ENOMEM;
        }
        c->slot1 = rec->slot + 1;
        return LEDGER_OURS;
}
