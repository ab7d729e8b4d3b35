/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What latniced holds of each group of the group table (groups.h,
 * groups-internal.h), as the ledger's claims (daemon/state/ledger-claim.h):
 * the group's state in its files ("weight idle nice [latency]",
 * state_format()) and, for a unit's cgroup, the unit's CPUWeight= (a unit
 * property record), each with its original, expected value and record. Of
 * a unit's files only the latency nice is latniced's write (systemd has no
 * property for it): systemd writes the weight and idle from the property.
 * Here: writing them, settling what the kernel made of a write, telling
 * someone else's change, giving the originals back, and taking over a dead
 * latniced's records.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "daemon/groups/groups-internal.h"
#include "lib/invariant.h"
#include "lib/log.h"
#include "lib/macro.h"
#include "lib/proc.h"

/* "weight 100", "weight 100, idle", and ", latency nice -5" where the group
 * has one: for the log. */
const char *state_describe(const SchedGroupState *s, char buf[static 64])
{
        int n = snprintf(buf, 64, "weight %" PRIu32 "%s", s->weight, s->idle ? ", idle" : "");

        if (s->has_latency_nice && n > 0 && n < 64)
                snprintf(buf + n, (size_t)(64 - n), ", latency nice %d", s->latency_nice);
        return buf;
}

/* An autogroup is reached through /proc/PID/autogroup of one member: when
 * that one has left, find another. */
static int entry_read(GroupTable *t, GroupEntry *e, SchedGroupState *ret)
{
        _cleanup_free_ pid_t *members = NULL;
        size_t n = 0;
        int r;

        r = sched_group_read(&e->group, ret);
        if (r != -ENOENT || e->group.kind != SCHED_GROUP_AUTOGROUP)
                return r;
        r = sched_group_members(&e->group, t->proc_root, 0, 1, &members, &n);
        if (r < 0)
                return r;
        if (n == 0)
                return -ENOENT; /* the session is over */
        free(e->group.path);
        if (asprintf(&e->group.path, "%s/%d/autogroup", t->proc_root, (int)members[0]) < 0) {
                e->group.path = NULL;
                return -ENOMEM;
        }
        return sched_group_read(&e->group, ret);
}

/* ---- What latniced holds: the ledger's claims (ledger-claim.h) ---------- */

/* A group state as a claim's value: "weight idle nice", and " latency-nice"
 * where the group has one. At most "10000 1 0 -20" (an autogroup's nice
 * never comes with a latency nice). */
static void state_format(const SchedGroupState *s, char ret[STATE_VALUE_MAX])
{
        int n = snprintf(ret, STATE_VALUE_MAX, "%" PRIu32 " %d %d", s->weight, s->idle ? 1 : 0,
                         s->nice);

        if (s->has_latency_nice && n > 0 && n < STATE_VALUE_MAX)
                snprintf(ret + n, (size_t)(STATE_VALUE_MAX - n), " %d", s->latency_nice);
}

static bool state_parse(const char *v, SchedGroupState *ret)
{
        SchedGroupState s = {};
        unsigned weight;
        int idle, nice, latency, n = 0, m = 0;

        if (sscanf(v, "%u %d %d%n", &weight, &idle, &nice, &n) != 3 || weight < 1 ||
            weight > 10000 || (idle != 0 && idle != 1) || nice < -20 || nice > 19)
                return false;
        if (v[n] == ' ') {
                if (sscanf(v + n, " %d%n", &latency, &m) != 1 || m == 0 || latency < -20 ||
                    latency > 19)
                        return false;
                s.has_latency_nice = true;
                s.latency_nice = latency;
                n += m;
        }
        if (v[n])
                return false;
        s.weight = weight;
        s.idle = idle;
        s.nice = nice;
        *ret = s;
        return true;
}

/* The state of a claim's value: only state_format() makes them, and a
 * dead latniced's records are checked before they are taken over. */
SchedGroupState claim_state(const char *v)
{
        SchedGroupState s = {};
        bool ok = state_parse(v, &s);

        ln_assert(ok);
        return s;
}

/* The ledger's "same value" of E's files (CTX: E). A unit's weight and idle
 * are systemd's writes from its CPUWeight= (judged by the unit's claim):
 * only the latency nice counts. A group without the file has no latency
 * nice to differ in. */
static bool files_same(const char *a, const char *b, const void *ctx)
{
        const GroupEntry *e = ctx;
        SchedGroupState x = claim_state(a), y = claim_state(b);

        if (e->sd.unit_path)
                return !(x.has_latency_nice && y.has_latency_nice &&
                         x.latency_nice != y.latency_nice);
        return sched_group_state_equal(&e->group, &x, &y);
}

/* E's record in the state file, without its values: an autogroup is named
 * by its id and a member (pid and start time); a cgroup by its directory
 * and inode. TARGET: its files, or its unit's property. */
void entry_target(GroupTable *t, const GroupEntry *e, StateTarget target,
                         StateCgroupRecord *ret)
{
        struct stat st;

        *ret = (StateCgroupRecord){
                .target = target,
                .owner = STATE_CGROUP_GROUPS,
                .kind = e->group.kind,
                .path = e->group.path,
                .autogroup_id = e->group.id,
        };
        if (e->group.kind == SCHED_GROUP_AUTOGROUP) {
                size_t n = strlen(t->proc_root);

                if (strncmp(e->group.path, t->proc_root, n) != 0 ||
                    sscanf(e->group.path + n, "/%d/", &ret->pid) != 1 ||
                    proc_starttime(t->proc_root, ret->pid, 0, &ret->starttime) < 0)
                        ret->pid = 0;
        } else if (stat(e->group.path, &st) >= 0)
                ret->ino = st.st_ino;
}

/* A write the state file could not record (UNRECORDED < 0): said once. */
void entry_unrecorded(GroupTable *t, const GroupEntry *e, int unrecorded)
{
        if (unrecorded >= 0 || t->state_warned)
                return;
        log_warning_errno(unrecorded, "%s: cannot record it in the state file %s (%m): changed "
                                      "anyway, but not given back should latniced be killed.",
                          e->group.name, state_file_path(t->state));
        t->state_warned = true;
}

/* Writes E's files from a claim's value, over NOW. A unit's: only its
 * cpu.latency.nice, which systemd has no property for and never writes
 * (not on daemon-reload either), on a cgroup that has the cpu controller
 * (the file is there). */
typedef struct FilesWrite {
        GroupEntry *e;
        const SchedGroupState *now;
        bool wrote;
} FilesWrite;

static int files_write(const char *value, void *userdata)
{
        FilesWrite *w = userdata;
        SchedGroupState want = claim_state(value);
        const SchedGroupState *now = w->now;
        int r;

        if (!w->e->sd.unit_path)
                r = sched_group_write_state(&w->e->group, now, &want);
        else if (now->has_latency_nice && want.has_latency_nice &&
                 now->latency_nice != want.latency_nice)
                r = sched_group_write_latency_nice(&w->e->group, want.latency_nice);
        else
                return 0;
        w->wrote = r >= 0;
        return r;
}

/* Latniced's claim on E's files holds NOW from here on (what the kernel or
 * systemd made of its write, or a scope made with it); ORIG: the original
 * if E's files were not latniced's yet. */
void entry_settle(GroupTable *t, GroupEntry *e, const SchedGroupState *orig,
                         const SchedGroupState *now)
{
        char o[STATE_VALUE_MAX], v[STATE_VALUE_MAX];
        StateCgroupRecord target;
        int r, unrecorded;

        state_format(orig, o);
        state_format(now, v);
        entry_target(t, e, STATE_TARGET_CGROUP_FILE, &target);
        r = ledger_claim_settle(&e->files, t->state, &target, o, v, &unrecorded);
        if (r < 0)
                log_oom();
        entry_unrecorded(t, e, unrecorded);
}

/* E's original state: what the ledger kept at latniced's first write, or
 * (NOW) what the group holds while it holds nothing. A latency nice the
 * group got after that write (systemd enabled the cpu controller for a
 * unit's weight) was not latniced's: what it held then is the original. */
SchedGroupState entry_orig(GroupTable *t, GroupEntry *e, const SchedGroupState *now)
{
        SchedGroupState orig;
        char v[STATE_VALUE_MAX];
        StateCgroupRecord target;

        if (!ledger_claim_held(&e->files))
                return *now;
        orig = claim_state(e->files.orig);
        if (orig.has_latency_nice || !now->has_latency_nice)
                return orig;
        orig.has_latency_nice = true;
        orig.latency_nice = now->latency_nice;
        state_format(&orig, v);
        entry_target(t, e, STATE_TARGET_CGROUP_FILE, &target);
        if (ledger_claim_set_orig(&e->files, t->state, &target, v) == -ENOMEM)
                log_oom();
        return orig;
}

/* Give back E's files: written if they still hold what latniced left. The
 * claim and its record end either way. *RET_THEIRS: someone else changed
 * them. */
static bool entry_restore_files(GroupTable *t, GroupEntry *e, bool *ret_theirs)
{
        SchedGroupState now, orig;
        FilesWrite w = { .e = e, .now = &now };
        char v[STATE_VALUE_MAX], buf[64];
        int r;

        if (!ledger_claim_held(&e->files))
                return false;
        orig = claim_state(e->files.orig);
        r = e->sd.unit_path ? sched_group_read(&e->group, &now) : entry_read(t, e, &now);
        if (r < 0 && r != -ENOENT && !e->sd.unit_path)
                log_warning_errno(r, "Cannot read %s to restore it: %m", e->group.name);
        if (r >= 0) {
                state_format(&now, v);
                *ret_theirs = ledger_claim_changed(&e->files, v, files_same, e);
                if (*ret_theirs)
                        log_info(e->sd.unit_path ? "%s: its latency nice was changed by someone "
                                                   "else, not restoring."
                                                 : "%s: changed by someone else, not restoring.",
                                 e->group.name);
        }
        r = ledger_claim_restore(&e->files, t->state, r >= 0 ? v : NULL, files_same, e,
                                 files_write, &w, NULL);
        if (r < 0 && r != -ENOENT) {
                t->counters.n_failed++;
                if (e->sd.unit_path)
                        log_warning_errno(r, "Failed to restore the latency nice of %s: %m",
                                          e->group.name);
                else
                        log_warning_errno(r, "Failed to restore %s: %m", e->group.name);
        }
        if (r <= 0)
                return false;
        if (e->sd.unit_path) {
                if (w.wrote)
                        log_info("%s: original latency nice %d restored.", e->group.name,
                                 orig.latency_nice);
                return w.wrote;
        }
        t->counters.n_restored++;
        log_info("%s: original %s restored.", e->group.name, state_describe(&orig, buf));
        return true;
}

/* E's unit has CUR, and latniced's last CPUWeight= set was not answered in
 * time (E->unit_before): if CUR is what the unit had before it, the set was
 * lost, and CUR is latniced's own doing (the claim settles on it: set again,
 * or given back, like any value latniced left). True if so. Either way the
 * set is settled from now on: there (CUR the value set), or someone else's
 * (neither). */
static bool unit_lost_settle(GroupTable *t, GroupEntry *e, const char *cur)
{
        StateCgroupRecord target;
        bool lost;
        int unrecorded = 0;

        if (!e->unit_before)
                return false;
        lost = ledger_claim_held(&e->unit) && streq(cur, e->unit_before);
        e->unit_before = mfree(e->unit_before);
        if (!lost)
                return false;
        entry_target(t, e, STATE_TARGET_UNIT_PROPERTY, &target);
        if (ledger_claim_settle(&e->unit, t->state, &target, e->unit.orig, cur, &unrecorded) ==
            -ENOMEM)
                log_oom();
        entry_unrecorded(t, e, unrecorded);
        log_info("%s: systemd did not carry out the CPUWeight= it did not answer in time: "
                 "its unit still has what it had before.", e->group.name);
        return true;
}

/* Give back E's unit's CPUWeight= if it still has what latniced set (also
 * when the unit was stopped or restarted meanwhile: looked up by name). The
 * claim ends either way, and so does its record, except for a give-back
 * at latniced's stop that the manager did not answer in time: written, not
 * yet known, its record stays for the next latniced to settle
 * (ledger_claim_restore_unknown()). Such a give-back, or one while
 * latniced runs on, is not counted as restored. */
static bool entry_restore_unit(GroupTable *t, GroupEntry *e, bool *ret_theirs)
{
        GroupSystemdWrite w = { .systemd = t->systemd,
                                .unit_path = e->sd.unit_path,
                                .lookup = SYSTEMD_UNITS_BY_NAME };
        _cleanup_free_ char *cur = NULL;
        int r;

        if (!ledger_claim_held(&e->unit))
                return false;
        r = group_systemd_get(t->systemd, e->sd.unit_path, SYSTEMD_UNITS_BY_NAME, &cur);
        if (r >= 0)
                (void)unit_lost_settle(t, e, cur);
        if (r >= 0 && ledger_claim_changed(&e->unit, cur, NULL, NULL)) {
                *ret_theirs = true;
                log_info("%s: its unit's CPUWeight= was changed by someone else, not restoring.",
                         e->group.name);
        }
        if (r >= 0)
                r = ledger_claim_restore_unknown(&e->unit, t->state, cur, NULL, NULL,
                                                 group_systemd_write, &w,
                                                 t->stopping ? &w.unknown : NULL, NULL);
        else
                ledger_claim_drop(&e->unit, t->state);
        if (r < 0) {
                t->counters.n_failed++;
                log_warning_errno(r, "Failed to restore %s through systemd (its unit's CPUWeight=): %m",
                                  e->group.name);
        }
        if (r <= 0)
                return false;
        if (w.unknown) {
                log_warning("%s: systemd did not answer in time when its unit's original "
                            "CPUWeight= was given back (it may still apply it)%s.",
                            e->group.name,
                            r == LEDGER_CLAIM_RESTORE_UNKNOWN
                                    ? "; the record stays for the next latniced to check"
                                    : "");
                return false;
        }
        t->counters.n_restored++;
        log_info("%s: its unit's original CPUWeight= restored through systemd.", e->group.name);
        return true;
}

/* A scope of latniced's that is empty or gone: systemd removes it, there is
 * nothing to give back. */
static bool scope_emptied(GroupTable *t, GroupEntry *e)
{
        _cleanup_free_ pid_t *members = NULL;
        size_t n = 0;

        if (!e->own_scope ||
            (sched_group_members(&e->group, t->proc_root, 0, 1, &members, &n) >= 0 && n > 0))
                return false;
        ledger_claim_drop(&e->files, t->state);
        ledger_claim_drop(&e->unit, t->state);
        return true;
}

/* Give E its original state back where it is still as latniced left it:
 * a unit's latency nice first, then its CPUWeight= (whose original may take
 * the cpu controller, and the file, away). Either way latniced holds
 * nothing there afterwards, and what someone else changed is theirs from
 * then on. */
bool entry_restore(GroupTable *t, GroupEntry *e)
{
        bool restored, theirs = false;

        if (!entry_changed(e) || e->user_owned || t->dry_run)
                return false;
        if (scope_emptied(t, e))
                return false;
        restored = entry_restore_files(t, e, &theirs);
        restored = entry_restore_unit(t, e, &theirs) || restored;
        if (theirs)
                e->user_owned = true;
        return restored;
}

/* ---- A dead latniced's records (state-file.h) ---------------------------- */

/* Record REC of a dead latniced: the group it names, if that is still the
 * same group (a cgroup directory with the same inode; an autogroup with the
 * same id, found through the recorded member or another one). */
static int adopt_group(const StateCgroupRecord *rec, GroupEntry *e)
{
        struct stat st;

        e->group.kind = rec->kind;
        e->group.id = rec->autogroup_id;
        e->group.path = strdup(rec->path);
        if (!e->group.path)
                return -ENOMEM;
        switch (rec->kind) {
        case SCHED_GROUP_AUTOGROUP:
                if (asprintf(&e->group.name, "autogroup %" PRIu64, rec->autogroup_id) < 0)
                        e->group.name = NULL;
                break;
        case SCHED_GROUP_CGROUP1:
        case SCHED_GROUP_CGROUP2:
                if (stat(rec->path, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_ino != rec->ino)
                        return -ENOENT;
                if (asprintf(&e->group.name, "%s %s",
                             rec->kind == SCHED_GROUP_CGROUP2 ? "cgroup" : "cgroup (v1 cpu)",
                             rec->path) < 0)
                        e->group.name = NULL;
                break;
        default:
                return -EINVAL;
        }
        return e->group.name ? 0 : -ENOMEM;
}

/* The unit's cgroup of a unit property record REC (below the cgroup2
 * root), if latniced can ask systemd about it; NULL otherwise. */
static const char *unit_record_path(GroupTable *t, const StateCgroupRecord *rec)
{
        const char *root = t->roots.cgroup2;
        uint64_t w;
        size_t n;

        if (!t->systemd || !root || rec->kind != SCHED_GROUP_CGROUP2 ||
            systemd_weight_from_string(rec->orig, &w) < 0 ||
            systemd_weight_from_string(rec->written, &w) < 0 ||
            (rec->previous[0] && systemd_weight_from_string(rec->previous, &w) < 0))
                return NULL;
        n = strlen(root);
        while (n > 0 && root[n - 1] == '/')
                n--;
        if (strncmp(rec->path, root, n) != 0 || rec->path[n] != '/')
                return NULL;
        return rec->path + n;
}

/* A dead latniced's unit property record REC of a group that no entry
 * takes over (its cgroup is gone: the unit stopped or restarted, and keeps
 * its runtime property): the original is given back at once, if the unit
 * still has what that latniced set. The record is the caller's to drop. */
static void unit_record_restore(GroupTable *t, const StateCgroupRecord *rec)
{
        const char *path = unit_record_path(t, rec);
        _cleanup_free_ char *cur = NULL;
        LedgerClaim c = {};
        int r;

        if (!path || group_systemd_get(t->systemd, path, SYSTEMD_UNITS_BY_NAME, &cur) < 0 ||
            ledger_claim_adopt(&c, rec, cur, NULL, NULL) != LEDGER_OURS)
                return;
        c.slot1 = 0; /* the caller's */
        r = ledger_claim_restore(&c, NULL, cur, NULL, NULL, group_systemd_write,
                                 &(GroupSystemdWrite){.systemd = t->systemd,
                                                      .unit_path = path,
                                                      .lookup = SYSTEMD_UNITS_BY_NAME},
                                 NULL);
        if (r > 0)
                log_info("%s: gone; its unit's original CPUWeight= restored through systemd.",
                         path);
}

/* E takes over UNIT, the unit property record of its group: if the unit
 * still has what the dead latniced set. 1 taken over, 0 not (theirs, the
 * original, or no systemd to ask). */
static int adopt_unit(GroupTable *t, const StateCgroupRecord *unit, GroupEntry *e)
{
        const char *path = unit_record_path(t, unit);
        _cleanup_free_ char *cur = NULL;
        int r;

        if (!path)
                return 0;
        r = group_systemd_get(t->systemd, path, SYSTEMD_UNITS_BY_NAME, &cur);
        if (r < 0)
                return r == -ENOMEM ? r : 0;
        e->sd.unit_path = strdup(path);
        if (!e->sd.unit_path || systemd_weight_from_string(unit->orig, &e->sd.found) < 0)
                return -ENOMEM;
        r = ledger_claim_adopt(&e->unit, unit, cur, NULL, NULL);
        if (r == LEDGER_THEIRS)
                log_info("%s: its unit's CPUWeight= was changed while no latniced ran: theirs.",
                         e->group.name);
        if (r != LEDGER_OURS)
                return r == -ENOMEM ? r : 0;
        e->route_known = true;
        return 1;
}

/* Are REC's values group states (a dead latniced's, or a newer one's)? */
static bool files_record_valid(const StateCgroupRecord *rec)
{
        SchedGroupState s;

        return state_parse(rec->orig, &s) && state_parse(rec->written, &s) &&
               (!rec->previous[0] || state_parse(rec->previous, &s));
}

/* Take over REC (and UNIT, the unit property record of the same group, or
 * NULL) where the group still holds what the dead latniced wrote, by the
 * ledger's rule: the originals are the records'. A unit's group is taken
 * over only with its CPUWeight=. Returns 1 if kept, 0 if dropped. */
static int adopt_one(GroupTable *t, const StateCgroupRecord *rec, const StateCgroupRecord *unit)
{
        _cleanup_free_ GroupEntry *e = calloc(1, sizeof(GroupEntry));
        SchedGroupState now, orig;
        char v[STATE_VALUE_MAX], buf[64], obuf[64];
        GroupEntry **a;
        int r;

        if (!e)
                return -ENOMEM;
        if (!files_record_valid(rec))
                return 0;
        r = adopt_group(rec, e);
        if (r >= 0)
                r = entry_read(t, e, &now);
        if (r < 0 || entry_find(t, &e->group)) {
                if (r == -ENOENT && unit)
                        unit_record_restore(t, unit);
                r = r == -ENOMEM ? r : 0; /* gone, the session over, or twice */
                goto drop;
        }
        if (unit) {
                r = adopt_unit(t, unit, e);
                if (r <= 0)
                        goto drop;
        }
        state_format(&now, v);
        r = ledger_claim_adopt(&e->files, rec, v, files_same, e);
        if (r == LEDGER_THEIRS)
                log_info(unit ? "%s: its latency nice was changed while no latniced ran: theirs."
                              : "%s: changed by someone else while no latniced ran: theirs.",
                         e->group.name);
        if (r != LEDGER_OURS) {
                r = r == -ENOMEM ? r : 0;
                goto drop;
        }
        a = realloc(t->entries, (t->n_entries + 1) * sizeof(GroupEntry *));
        if (!a) {
                r = -ENOMEM;
                goto drop;
        }
        t->entries = a;
        orig = claim_state(e->files.orig);
        log_info("%s: %s from a previous latniced; its original is %s.", e->group.name,
                 state_describe(&now, buf), state_describe(&orig, obuf));
        t->entries[t->n_entries++] = TAKE_PTR(e);
        return 1;
drop:
        /* The records are the caller's to drop. */
        e->files.slot1 = e->unit.slot1 = 0;
        entry_free(TAKE_PTR(e));
        return r;
}

/* Records of a latniced before unit property records (its unit's
 * CPUWeight= in the group's record: group-systemd.h) become the group's
 * record and a unit property record, in the file too: the unit's first
 * (a latniced killed in between converts again, and finds the group's
 * record and two of the unit's, one of which is dropped). A malformed one
 * stays as it was (and is dropped). *RECS grows by the new records. */
static int records_convert(GroupTable *t, StateCgroupRecord **recs, size_t *n)
{
        size_t m = *n;

        for (size_t i = 0; i < m; i++) {
                StateCgroupRecord u, *a;
                uint32_t slot1 = 0, old1 = (*recs)[i].slot + 1;
                int r;

                if ((*recs)[i].target != STATE_TARGET_CGROUP_FILE)
                        continue;
                r = group_systemd_convert(&(*recs)[i], &u);
                if (r == -ENOMEM)
                        return r;
                if (r <= 0)
                        continue;
                a = realloc(*recs, (*n + 1) * sizeof(StateCgroupRecord));
                if (!a) {
                        free(u.path);
                        return -ENOMEM;
                }
                *recs = a;
                r = state_file_cgroup_put(t->state, &slot1, &u);
                if (r >= 0)
                        r = state_file_cgroup_put(t->state, &old1, &(*recs)[i]);
                if (r < 0)
                        log_warning_errno(r, "%s: cannot convert its record in the state file "
                                             "%s (%m): kept as it is.",
                                          u.path, state_file_path(t->state));
                /* A unit record not in the file has no slot (slot1 0). */
                u.slot = slot1 - 1;
                (*recs)[(*n)++] = u;
        }
        return 0;
}

/* The unit property record among RECS (N) of the group REC records, not
 * yet taken (TAKEN: per record). */
static const StateCgroupRecord *unit_record_of(const StateCgroupRecord *rec,
                                               const StateCgroupRecord *recs, size_t n,
                                               bool *taken)
{
        for (size_t i = 0; i < n; i++)
                if (!taken[i] && recs[i].target == STATE_TARGET_UNIT_PROPERTY &&
                    recs[i].kind == rec->kind && streq(recs[i].path, rec->path)) {
                        taken[i] = true;
                        return &recs[i];
                }
        return NULL;
}

/* Is there an entry for the cgroup at PATH? */
static bool entry_at(GroupTable *t, const char *path)
{
        for (size_t i = 0; i < t->n_entries; i++)
                if (t->entries[i]->group.kind == SCHED_GROUP_CGROUP2 &&
                    streq(t->entries[i]->group.path, path))
                        return true;
        return false;
}

static void record_drop(StateFile *f, const StateCgroupRecord *rec)
{
        uint32_t slot1 = rec->slot + 1;

        state_file_cgroup_release(f, &slot1);
}

int group_table_attach_state(GroupTable *t, StateFile *f)
{
        _cleanup_free_ bool *taken = NULL;
        StateCgroupRecord *recs = NULL;
        size_t n = 0;
        int r;

        t->state = f;
        r = state_file_cgroup_take(f, STATE_CGROUP_GROUPS, &recs, &n);
        if (r >= 0)
                r = records_convert(t, &recs, &n);
        if (r >= 0 && !(taken = calloc(MAX(n, 1u), sizeof(bool))))
                r = -ENOMEM;
        for (size_t i = 0; r >= 0 && i < n; i++) {
                const StateCgroupRecord *unit;

                if (recs[i].target != STATE_TARGET_CGROUP_FILE)
                        continue;
                taken[i] = true;
                unit = unit_record_of(&recs[i], recs, n, taken);
                r = adopt_one(t, &recs[i], unit);
                if (r == 0) {
                        record_drop(f, &recs[i]);
                        if (unit)
                                record_drop(f, unit);
                }
        }
        /* A unit's record without its group's (a latniced killed between
         * the two, or a second one): given back unless its group is held. */
        for (size_t i = 0; r >= 0 && i < n; i++)
                if (!taken[i]) {
                        if (!entry_at(t, recs[i].path))
                                unit_record_restore(t, &recs[i]);
                        record_drop(f, &recs[i]);
                }
        state_cgroup_records_free(recs, n);
        return r == -ENOMEM ? r : 0;
}

/* E no longer holds what latniced left (NOW): is that someone else's
 * change? A unit's is theirs only if its latency nice changed, or its
 * CPUWeight= is not latniced's any more: systemd writes the files its own
 * way, and a moment after the call. 1: theirs (E is user-owned now),
 * 0: still latniced's, negative: cannot tell yet. */
int entry_foreign(GroupTable *t, GroupEntry *e, const SchedGroupState *now)
{
        char v[STATE_VALUE_MAX], buf[64];

        state_format(now, v);
        if (!ledger_claim_changed(&e->files, v, files_same, e)) {
                _cleanup_free_ char *cur = NULL;
                int r = 1;

                if (ledger_claim_held(&e->unit)) {
                        r = group_systemd_get(t->systemd, e->sd.unit_path, SYSTEMD_UNITS_BY_NAME,
                                              &cur);
                        if (r < 0)
                                return r;
                        (void)unit_lost_settle(t, e, cur);
                        r = ledger_claim_changed(&e->unit, cur, NULL, NULL);
                }
                if (r == 0) {
                        entry_settle(t, e, now, now);
                        return 0;
                }
        }
        e->user_owned = true;
        ledger_claim_drop(&e->files, t->state);
        ledger_claim_drop(&e->unit, t->state);
        log_info("%s: changed by someone else (%s), leaving it alone.", e->group.name,
                 state_describe(now, buf));
        return 1;
}

/* Write WANT to E (NOW: what it has) as the ledger's claims: a unit's
 * CPUWeight= through systemd first (it realizes the cgroup's cpu
 * controller), then its files (of a unit's, the latency nice), each
 * recorded in the state file before it is made. */
int entry_write(GroupTable *t, GroupEntry *e, const SchedGroupState *now,
                       const SchedGroupState *want)
{
        char n[STATE_VALUE_MAX], w[STATE_VALUE_MAX];
        StateCgroupRecord target;
        int r, unrecorded;

        if (e->sd.unit_path && !sched_group_weight_equal(&e->group, now, want)) {
                _cleanup_free_ char *found = NULL, *weight = NULL, *before = NULL;
                GroupSystemdWrite sw = { .systemd = t->systemd,
                                         .unit_path = e->sd.unit_path,
                                         .lookup = SYSTEMD_UNITS_OWNED };

                if (systemd_weight_to_string(e->sd.found, &found) < 0 ||
                    systemd_weight_to_string(group_systemd_weight(want), &weight) < 0)
                        return -ENOMEM;
                /* What the unit has now, as far as latniced knows. */
                before = strdup(ledger_claim_held(&e->unit) ? e->unit.expected : found);
                if (!before)
                        return -ENOMEM;
                entry_target(t, e, STATE_TARGET_UNIT_PROPERTY, &target);
                r = ledger_claim_write(&e->unit, t->state, &target, found, weight,
                                       group_systemd_write, &sw, &unrecorded);
                entry_unrecorded(t, e, unrecorded);
                if (r < 0)
                        return r;
                /* Not answered in time: written, not yet known; the next look
                 * at the unit settles it (unit_lost_settle()). */
                free(e->unit_before);
                e->unit_before = sw.unknown ? TAKE_PTR(before) : NULL;
        }
        state_format(now, n);
        state_format(want, w);
        entry_target(t, e, STATE_TARGET_CGROUP_FILE, &target);
        r = ledger_claim_write(&e->files, t->state, &target, n, w, files_write,
                               &(FilesWrite){ .e = e, .now = now }, &unrecorded);
        entry_unrecorded(t, e, unrecorded);
        return r;
}

