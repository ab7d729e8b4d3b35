/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ownership ledger's rule for a value latniced recorded in the state
 * file before writing it (a cgroup file of a [Unit] knob or a rule's group,
 * a unit's systemd property): who owns the value a restarted latniced
 * finds there. One rule for every such target:
 *
 *   - it holds what latniced wrote, or what latniced wrote before that (it
 *     died between recording and writing): latniced's, and the recorded
 *     original is what it gives back (LEDGER_OURS);
 *   - it holds the original: nothing to give back (LEDGER_ORIGINAL);
 *   - anything else: someone else changed it while no latniced ran, and it
 *     is theirs (LEDGER_THEIRS).
 *
 * Values are compared by the caller's SAME (strings, numbers, a group's
 * weight, idle and latency nice); the ledger does not know their type.
 * A thread's attributes are judged by it one by one (thread-claim.h's
 * thread_claim_adopt(), comparing by the task attribute registry).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

typedef enum LedgerOwner {
        LEDGER_OURS,
        LEDGER_ORIGINAL,
        LEDGER_THEIRS,
} LedgerOwner;

/* Are A and B the same value (CTX: the caller's, e.g. the group they are
 * of)? */
typedef bool (*ledger_same_t)(const void *a, const void *b, const void *ctx);

/* Who owns NOW, found where latniced recorded ORIG before writing WRITTEN
 * (PREVIOUS: what it had written before that, NULL if nothing). */
LedgerOwner ledger_recorded_owner(const void *now, const void *written, const void *previous,
                                  const void *orig, ledger_same_t same, const void *ctx);

/* The same for values that are strings (a cgroup file's contents), and
 * for numbers; an empty PREVIOUS string is nothing. */
LedgerOwner ledger_recorded_owner_str(const char *now, const char *written,
                                      const char *previous, const char *orig);
LedgerOwner ledger_recorded_owner_u64(uint64_t now, uint64_t written, const uint64_t *previous,
                                      uint64_t orig);
