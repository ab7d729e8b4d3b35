/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ownership ledger's claim: latniced's hold on one value of one target
 * (a cgroup file of a [Unit] knob or of a rule's group, a systemd unit's
 * property) and that value's record in the state file. One bookkeeping for
 * every such owner, which says only what it wants written, how its target
 * is read and written, and what "the same value" is:
 *
 *   - the original is kept from latniced's first write until it gives the
 *     value back;
 *   - every write is recorded before it is made, with what latniced wrote
 *     before (the target still holds that if latniced dies in between);
 *     a write that fails puts the record back to what the target holds;
 *   - a value that is not the one latniced expects was changed by someone
 *     else, and is theirs;
 *   - giving back (the rule or section went away, reload, exit) writes the
 *     original only over the expected value, and ends the claim and its
 *     record either way (but a give-back at latniced's stop whose outcome
 *     is not known keeps its record for the next latniced:
 *     ledger_claim_restore_unknown());
 *   - after a crash a record is taken over by ledger.h's rule.
 *
 * Values are strings, as the state file holds them (STATE_VALUE_MAX). A
 * claim is a plain struct inside its owner's entry; the owner passes its
 * state file (NULL: none) and its record's target (owner, kind, path,
 * identity: StateCgroupRecord without the values) to each call.
 * (A thread is one target of many attributes, held per attribute with one
 * record: daemon/state/thread-claim.h, the same rules.)
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "daemon/state/ledger.h"
#include "daemon/state/state-file.h"

typedef struct LedgerClaim {
        char *orig;     /* before latniced's first write; NULL: latniced holds nothing */
        char *expected; /* what latniced wrote last */
        uint32_t slot1; /* 1 + its record in the state file; 0: none */
} LedgerClaim;

/* Are A and B the same value of the target (CTX: the owner's)? NULL: the
 * same string. */
typedef bool (*ledger_claim_same_t)(const char *a, const char *b, const void *ctx);

/* Write VALUE to the target (USERDATA: the owner's); 0 or negative errno. */
typedef int (*ledger_claim_write_t)(const char *value, void *userdata);

static inline bool ledger_claim_held(const LedgerClaim *c)
{
        return c->orig;
}

/* The one rule for "changed by someone else": does NOW (what the target
 * holds) differ from what latniced left there? False if C holds nothing. */
bool ledger_claim_changed(const LedgerClaim *c, const char *now, ledger_claim_same_t same,
                          const void *ctx);

/*
 * Write WANT over NOW (what the target holds) through WRITE, recorded in F
 * first as TARGET's record. C keeps the original (NOW, at its first write)
 * and expects WANT afterwards. A failed write leaves C as it was and its
 * record saying what the target still holds (no record if C held nothing).
 * Returns WRITE's result, or -ENOMEM (nothing written). A record that
 * cannot be made (-EOVERFLOW: a value or the path too long; -ENOSPC, ...)
 * does not stop the write: its error goes to *RET_UNRECORDED (0: recorded,
 * or no file), and the value is not given back should latniced die.
 */
int ledger_claim_write(LedgerClaim *c, StateFile *f, const StateCgroupRecord *target,
                       const char *now, const char *want, ledger_claim_write_t write,
                       void *userdata, int *ret_unrecorded);

/*
 * The target holds NOW by latniced's doing, but not by a write of C's
 * owner (the kernel rounded what latniced wrote; systemd wrote a unit's
 * files from the property latniced set; a scope latniced had made with
 * it): NOW is the expected value from now on, recorded like a write, with
 * ORIG the original if C held nothing. Same results as ledger_claim_write().
 */
int ledger_claim_settle(LedgerClaim *c, StateFile *f, const StateCgroupRecord *target,
                        const char *orig, const char *now, int *ret_unrecorded);

/*
 * C's original turns out to hold more than the target had at latniced's
 * first write (a file that came after it, such as the cpu.latency.nice
 * systemd's cpu controller brings): ORIG is the original from now on,
 * recorded. C must hold a value. 0, -ENOMEM (C unchanged), or the record's
 * error (C changed, the record not).
 */
int ledger_claim_set_orig(LedgerClaim *c, StateFile *f, const StateCgroupRecord *target,
                          const char *orig);

/*
 * Give the original back: written through WRITE if NOW is still what
 * latniced left (NOW NULL: the target could not be read, nothing is
 * written). Ends C and its record whatever the outcome. Returns 1 if
 * written, 0 if C held nothing, NOW is NULL or someone else changed it,
 * WRITE's negative errno. *RET_ORIG (if not NULL) gets the original
 * (the caller's to free; NULL if C held nothing).
 */
int ledger_claim_restore(LedgerClaim *c, StateFile *f, const char *now, ledger_claim_same_t same,
                         const void *ctx, ledger_claim_write_t write, void *userdata,
                         char **ret_orig);

/*
 * ledger_claim_restore() at latniced's stop, for a WRITE that can be "written,
 * not yet known" (group-systemd.h: a call the manager did not answer in
 * time, which it may still carry out or not): *UNKNOWN, set by WRITE, says
 * so. Such a give-back returns LEDGER_CLAIM_RESTORE_UNKNOWN, and C ends but
 * its record stays as it was, the next latniced's: by ledger.h's rule the
 * target then holds the original (the give-back came: the record goes) or
 * latniced's value (it did not: given back again). Not while latniced runs
 * on: a record nobody holds would stay until the next start.
 */
#define LEDGER_CLAIM_RESTORE_UNKNOWN 2
int ledger_claim_restore_unknown(LedgerClaim *c, StateFile *f, const char *now,
                                 ledger_claim_same_t same, const void *ctx,
                                 ledger_claim_write_t write, void *userdata,
                                 const bool *unknown, char **ret_orig);

/* End C without writing (the target is gone, or someone else's now): its
 * record goes. */
void ledger_claim_drop(LedgerClaim *c, StateFile *f);

/* Free C's values and keep its record (latniced exits without giving back:
 * the record is the next latniced's). */
void ledger_claim_done(LedgerClaim *c);

/*
 * Take over REC, a dead latniced's record of this target, where the target
 * holds NOW: by ledger.h's rule (SAME NULL: the same string). On
 * LEDGER_OURS C holds REC's original, expects NOW and keeps REC's slot;
 * otherwise C is untouched and REC's record is the caller's to release.
 * C must hold nothing. Returns the owner, or -ENOMEM.
 */
int ledger_claim_adopt(LedgerClaim *c, const StateCgroupRecord *rec, const char *now,
                       ledger_claim_same_t same, const void *ctx);
