/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>

#include "daemon/state/adopt.h"
#include "daemon/state/thread-claim.h"
#include "lib/thread-settings.h"
#include "lib/core-sched.h"
#include "lib/log.h"
#include "lib/macro.h"
#include "lib/proc.h"
#include "lib/sched.h"

/* Is NOW's real time latniced's own grant, which E's record holds (its
 * Policy held, or recorded as about to be written), so that it is given
 * back like any attribute? The policy and priority read back after the
 * grant; for a grant latniced died writing, the rule's policy at no more
 * than the rule's priority. Real time by anyone else's doing never is. */
static bool adopt_rt_granted(const StateRecord *e, const SchedState *now)
{
        const uint32_t policy = SETTING_BIT(SETTING_POLICY);

        if (!sched_policy_is_rt(now->policy) ||
            !((e->claim.applied_mask | e->pending_mask) & policy))
                return false;
        if (e->pending_mask & policy)
                return settings_has(&e->settings, SETTING_POLICY) &&
                       now->policy == e->settings.policy &&
                       (int)now->priority <= settings_rt_priority(&e->settings);
        return sched_state_rt_granted(now, &e->claim.expected);
}

AdoptVerdict adopt_decide(const StateRecord *rec, int alive, const SchedState *now, bool respect,
                          StateRecord *ret_entry, uint32_t *ret_changed)
{
        StateRecord e = *rec;
        uint32_t changed = 0, lost;
        bool rt_ours;

        *ret_changed = 0;
        if (alive <= 0)
                return ADOPT_GONE;

        /* Per attribute by the ledger's rule; a pending one (latniced died
         * between writing the record and finishing the change) is
         * latniced's with what the task has now (or still the original,
         * which a restore then rewrites unchanged). */
        rt_ours = adopt_rt_granted(&e, now);
        lost = thread_claim_adopt(&e.claim, now, e.pending_mask);
        if (!sched_policy_is_fair(now->policy) && !rt_ours)
                changed = thread_claim_held(&e.claim); /* made real-time: theirs, whole */
        else if (respect)
                changed = lost; /* even one put back to its original: theirs */
        thread_claim_drop(&e.claim, changed);
        e.pending_mask = 0;
        if (changed)
                e.user_owned = true;

        *ret_entry = e;
        *ret_changed = changed;
        return ADOPT_KEEP;
}

/* 1: REC's task runs, 0: gone, 2: another task has its tid, or negative
 * errno (other than "gone"). */
static int record_alive(const StateRecord *rec, const char *proc_root)
{
        uint64_t st;
        int r;

        r = proc_starttime(proc_root, rec->pid, rec->tid, &st);
        if (r < 0)
                return errno_is_gone(r) ? 0 : r;
        return st == rec->starttime ? 1 : 2;
}

int tasks_adopt(TaskTable *t, const StateRecord *recs, size_t n, const char *proc_root,
                bool respect, AdoptStats *ret)
{
        StateFile *f = task_table_state(t);
        AdoptStats stats = {};
        int r;

        for (size_t i = 0; i < n; i++) {
                const StateRecord *rec = &recs[i];
                SchedState now = {};
                StateRecord e;
                uint32_t changed;
                int alive;

                alive = record_alive(rec, proc_root);
                if (alive == 1) {
                        r = sched_state_read(rec->tid, &now);
                        if (r >= 0 && ((thread_claim_held(&rec->claim) | rec->pending_mask) &
                                       SETTING_BIT(SETTING_CORE_SCHED)) &&
                            core_sched_get(rec->tid, &now.core_cookie) < 0)
                                now.core_cookie = 0;
                        if (r < 0)
                                alive = errno_is_gone(r) ? 0 : r;
                }
                if (alive < 0) {
                        log_debug_errno(alive, "Cannot check %d/%d of the state file, "
                                               "dropping it: %m", (int)rec->pid, (int)rec->tid);
                        alive = 0;
                } else if (alive == 2)
                        alive = -1;
                if (adopt_decide(rec, alive, &now, respect, &e, &changed) == ADOPT_GONE) {
                        if (alive < 0)
                                stats.n_reused++;
                        else
                                stats.n_gone++;
                        state_file_release(f, rec->slot);
                        continue;
                }

                r = task_table_add_record(t, &e, NULL);
                if (r == -ENOMEM)
                        return r;
                if (r < 0) {
                        /* -EEXIST: a second record of one tid, which latniced
                         * never writes; the first one stays. */
                        state_file_release(f, rec->slot);
                        continue;
                }
                stats.n_adopted++;
                if (changed) {
                        stats.n_changed++;
                        log_info("%d/%d: attributes changed by someone else while no latniced "
                                 "ran; they are theirs, the others are restored as usual.",
                                 (int)rec->pid, (int)rec->tid);
                }
        }
        if (ret)
                *ret = stats;
        return 0;
}

static void log_load(const char *path, const StateFileLoad *l)
{
        if (l->problem)
                log_warning("State file %s: %s. %s%s%s", path, l->problem,
                            l->set_aside ? "Set aside as " : "Could not set it aside",
                            strempty(l->set_aside),
                            l->n_records > 0 ? "; its valid records are used."
                                             : "; starting with an empty table.");
        if (l->n_torn > 0)
                log_info("State file %s: %zu record(s) were being written when the previous "
                         "latniced stopped; their previous version is used.",
                         path, l->n_torn);
        if (l->converted_from > 0)
                log_info("State file %s: version %u converted to this latniced's, with its "
                         "%zu task record(s) and its cgroup records.",
                         path, l->converted_from, l->n_records);
        if (l->n_skipped > 0)
                log_warning("State file %s: %zu record(s) or attribute(s) written by a newer "
                            "latniced are skipped: this one cannot give them back.",
                            path, l->n_skipped);
}

int tasks_open_state(TaskTable *t, const char *path, const char *proc_root, bool respect)
{
        _cleanup_(state_file_load_done) StateFileLoad l = {};
        AdoptStats stats = {};
        StateFile *f = NULL;
        int r;

        r = state_file_open(path, &f, &l);
        if (r == -EBUSY) {
                log_warning("Another latniced uses the state file %s: this one runs without, "
                            "and what it changes is not given back should it be killed.",
                            path);
                return 0;
        }
        if (r == -ENOMEM)
                return r;
        if (r == -EPERM) {
                log_error("Refusing the state file %s: %s. Others could change what a "
                          "restarted latniced gives back, or make it fail; use a file in a "
                          "directory only root can write (the default is %s).",
                          path, strna(l.error), STATE_FILE_DEFAULT);
                return r;
        }
        if (r < 0) {
                log_warning("Cannot open the state file %s (%s): what latniced changes is not "
                            "given back should it be killed.",
                            path, l.error ?: strerror(-r));
                return 0;
        }
        log_load(path, &l);
        task_table_attach_state(t, f);

        r = tasks_adopt(t, l.records, l.n_records, proc_root, respect, &stats);
        if (r < 0)
                return r;
        if (l.n_records > 0)
                log_info("State file %s (generation %" PRIu64 "): adopted %zu task(s) a previous "
                         "latniced changed, with their original attributes; %zu had exited, "
                         "%zu tid(s) now belong to other tasks, %zu changed by someone else.",
                         path, l.generation, stats.n_adopted, stats.n_gone, stats.n_reused,
                         stats.n_changed);
        else
                log_debug("State file %s (generation %" PRIu64 "%s): no entries to adopt.", path,
                          l.generation, l.created ? ", new" : "");
        return 0;
}
