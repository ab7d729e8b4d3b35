/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ownership ledger's claim on a thread: latniced's hold on the task
 * attributes (lib/task-attr.h) it wrote to one thread. The claim is per
 * attribute, and the attributes of one thread share one record in the
 * state file (the thread's entry, daemon/apply/tasks.h): a writer group
 * writes several attributes in one system call, and a thread is one
 * target of many attributes. The rules are ledger-claim.h's, per
 * attribute:
 *
 *   - the original is kept from latniced's first write (or the creator's,
 *     for what a new task inherited of latniced's change to it) until it
 *     gives the value back;
 *   - an attribute whose value is not the one latniced expects was changed
 *     by someone else, and is theirs (a thread that left the fair class:
 *     all of them);
 *   - giving back writes the original only over the expected value, and
 *     ends the claim on the attribute either way;
 *   - after a crash a record is taken over by ledger.h's rule, per
 *     attribute (daemon/state/adopt.c).
 *
 * Values are the attributes' members of a SchedState, compared by the
 * registry's changed(). The owner (the task table's entry) reads the
 * values and writes the record; the claim says which attributes are held
 * and what they were and should be.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "lib/sched.h"

typedef struct ThreadClaim {
        uint32_t applied_mask; /* SETTING_BITs latniced wrote and still holds */
        SchedState orig;       /* before latniced first wrote them */
        SchedState expected;   /* as read back after latniced's last write */
} ThreadClaim;

/* Put the originals of MASK (ORIG) back on the thread (USERDATA: the
 * owner's). 0 or negative errno. */
typedef int (*thread_claim_write_t)(const SchedState *orig, uint32_t mask, void *userdata);

static inline uint32_t thread_claim_held(const ThreadClaim *c)
{
        return c->applied_mask;
}

/* A thread latniced has not written (or gave everything back): NOW is its
 * original and what it is expected to have; nothing is held. */
void thread_claim_init(ThreadClaim *c, const SchedState *now);

/* The one rule for "changed by someone else": the attributes of MASK held
 * by C whose value in NOW (what the thread has) is not the expected one. */
uint32_t thread_claim_changed(const ThreadClaim *c, const SchedState *now, uint32_t mask);

/* The attributes of MASK are someone else's (or the thread's own) from
 * now on: the claim on them ends without giving anything back. */
void thread_claim_drop(ThreadClaim *c, uint32_t mask);

/* Latniced is about to write the attributes of MASK: those of them whose
 * writer group holds nothing yet keep their value in NOW as the original
 * (a held writer group has its original already). */
void thread_claim_take_orig(ThreadClaim *c, const SchedState *now, uint32_t mask);

/* The attributes of MASK were written (their expected values are what the
 * owner reads back into C->expected): held from now on. */
void thread_claim_wrote(ThreadClaim *c, uint32_t mask);

/* A new task has MASK of latniced's change to the creator whose claim is
 * FROM: held, with the creator's originals as its own. */
void thread_claim_inherit(ThreadClaim *c, const ThreadClaim *from, uint32_t mask);

/*
 * Give back the attributes of MASK that C holds: their originals are
 * written through WRITE, except those someone else changed (NOW, what the
 * thread has, differs from the expected value; NOW NULL: not compared),
 * which are theirs and go to *RET_THEIRS. The claim on MASK ends whatever
 * the outcome. Returns 1 if written, 0 if nothing was to be written,
 * WRITE's negative errno.
 */
int thread_claim_restore(ThreadClaim *c, const SchedState *now, uint32_t mask,
                         thread_claim_write_t write, void *userdata, uint32_t *ret_theirs);

/*
 * Take over C, a dead latniced's claim as the thread's record has it (held:
 * what it had written; PENDING: what it recorded it was about to write,
 * a write that may or may not have landed), on a thread in the fair class
 * that has NOW. A pending attribute is latniced's whatever the thread
 * holds, and what it holds is what latniced left (C expects NOW). Every
 * other held attribute is judged by ledger.h's rule, compared by the
 * registry's changed(). Returns the held attributes that are not
 * latniced's any more (LEDGER_THEIRS, or LEDGER_ORIGINAL: put back by
 * someone else); C still holds them, for the caller to drop.
 */
uint32_t thread_claim_adopt(ThreadClaim *c, const SchedState *now, uint32_t pending);
