/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Adoption: the entries a latniced that died left in the state file, taken
 * over by the next one before its first scan.
 *
 * Each record is checked against the live task: a tid that no longer exists,
 * or exists with another start time (a pid reused while no latniced ran),
 * is dropped. A living task gets its entry back with the record's originals:
 * what it has now is what the dead latniced gave it, never taken for an
 * original. The first scan then applies, keeps or restores as usual, so a
 * task no rule wants any more gets its originals back at start-up.
 *
 * Each attribute of a record is judged by the ledger's rule (ledger.h,
 * through thread_claim_adopt()): one someone else changed while no
 * latniced ran (renice, chrt; or put back to its original) differs from
 * what the record expects, is theirs, as when latniced runs, and is never
 * restored over; a task made real-time is left alone altogether. A record
 * written right before a change (pending, latniced died between writing it
 * and finishing the change) cannot say whether the change landed: its
 * attributes are taken as latniced's, and the task's present state as what
 * latniced left.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "daemon/state/state-file.h"
#include "daemon/apply/tasks.h"

typedef enum AdoptVerdict {
        ADOPT_GONE,     /* no such task any more, or another one at its tid */
        ADOPT_KEEP,     /* managed again, with the record's originals */
} AdoptVerdict;

typedef struct AdoptStats {
        size_t n_adopted;       /* entries taken over */
        size_t n_gone;          /* dropped: the task exited */
        size_t n_reused;        /* dropped: another task has its tid now */
        size_t n_changed;       /* adopted, but someone else changed attributes meanwhile */
} AdoptStats;

/*
 * The pure decision for record REC. ALIVE: 1 if REC->tid of REC->pid runs
 * with REC->starttime, 0 if it does not exist, -1 if another task has the
 * tid. NOW: its state (read when ALIVE is 1; with the timer slack).
 * RESPECT: RespectManualChanges=. Fills *RET_ENTRY (a copy of REC with
 * its claim, user_owned and pending_mask as the entry starts
 * with) for ADOPT_KEEP, and *RET_CHANGED with the attributes someone else
 * changed.
 */
AdoptVerdict adopt_decide(const StateRecord *rec, int alive, const SchedState *now, bool respect,
                          StateRecord *ret_entry, uint32_t *ret_changed);

/* Take over RECS (from state_file_open()) into T (which has the state file
 * attached): check each against /proc under PROC_ROOT (NULL: /proc) and the
 * kernel, add the entries to keep, release the records of the others.
 * -ENOMEM; other failures drop the record concerned. */
int tasks_adopt(TaskTable *t, const StateRecord *recs, size_t n, const char *proc_root,
                bool respect, AdoptStats *ret);

/* Start-up: open PATH, report what was found (a file set aside: why and
 * where), attach it to T and adopt its entries. A state file that cannot be
 * opened leaves latniced running without one, with a warning; one that
 * others could write (secure-path.h) is refused with an error: -EPERM.
 * Otherwise returns 0 or -ENOMEM. */
int tasks_open_state(TaskTable *t, const char *path, const char *proc_root, bool respect);
