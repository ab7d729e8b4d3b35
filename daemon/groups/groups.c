/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The group table's requests (daemon/groups/groups.h): who asks what of
 * which group (Requester), how the asks of one group combine, sharing with
 * other users and protection, GroupScope=own, and requests a paused
 * systemd manager put off. What latniced holds of a group, and a dead
 * latniced's records, are group-ledger.c's (groups-internal.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/groups/groups-internal.h"
#include "lib/group-subtree.h"
#include "lib/invariant.h"
#include "lib/log.h"
#include "lib/macro.h"
#include "lib/sched-effect.h"
#include "lib/proc.h"
#include "lib/trust.h"
#include "policy/boost.h"

/* A request that a pause of a user's systemd manager put off
 * (systemd_units_refusals()): made again when the pause ends. The latest
 * request of each process. */
typedef struct Deferred {
        uint64_t starttime;
        Settings settings;
        bool protect; /* group_table_protect()'s */
} Deferred;

struct Requester {
        pid_t pid;
        uint64_t starttime;
        GroupEntry *entry;
        Requester *prev, *next; /* ENTRY's requesters */
        bool protector;
        bool booster;  /* a protector that asks for a boost of the group itself */
        bool demoted;  /* a booster until its latest request: its boost leaves the group's
                        * state (entry_apply()) */
        bool counted;  /* its ask counts in ENTRY's state: the group is not shared with
                        * another user for it (entry_admit()) */
        bool summed;   /* its ask (for UID) is in ENTRY's sums (requester_sums()) */
        uid_t uid;     /* its real uid when it was admitted */
        GroupAsk ask;
};

/* Taken-over groups nobody asks for wait for a complete scan at most that
 * long: a machine busy enough to put evaluations off all the time must not
 * keep a dead latniced's change for ever. */
#define ADOPT_GRACE_USEC (30 * USEC_PER_SEC)

/* More distinct cgroups than that and the list starts over. */
#define NOT_UNITS_MAX 4096

int group_table_new(const char *proc_root, bool dry_run, SystemdUnits *systemd, GroupTable **ret)
{
        GroupTable *t = calloc(1, sizeof(GroupTable));
        int r;

        if (!t)
                return -ENOMEM;
        t->proc_root = proc_root ?: "/proc";
        t->dry_run = dry_run;
        r = sched_group_roots_find(&t->roots);
        if (r < 0)
                log_debug_errno(r, "Cannot find the cpu controller's mounts: %m");
        t->systemd = systemd;
        if (group_scopes_new(&t->scopes) < 0) {
                group_table_free(t);
                return -ENOMEM;
        }
        *ret = t;
        return 0;
}

void entry_free(GroupEntry *e)
{
        group_asks_done(&e->asks);
        group_asks_done(&e->booster_asks);
        sched_group_done(&e->group);
        group_systemd_done(&e->sd);
        free(e->unit_before);
        ledger_claim_done(&e->files);
        ledger_claim_done(&e->unit);
        free(e);
}

static void entry_remove(GroupTable *t, GroupEntry *e)
{
        for (size_t i = 0; i < t->n_entries; i++)
                if (t->entries[i] == e) {
                        t->entries[i] = t->entries[--t->n_entries];
                        break;
                }
        entry_free(e);
}

static void on_systemd_resume(void *userdata);
static int entry_update(GroupTable *t, GroupEntry *e, pid_t pid, bool left);
static void shared_pid_gone(GroupTable *t, pid_t pid);

GroupTable *group_table_free(GroupTable *t)
{
        size_t state = 0;
        pid_t pid;
        void *v;

        if (!t)
                return NULL;
        while (pidmap_iterate(&t->requesters, &state, &pid, &v))
                free(v);
        pidmap_done(&t->requesters);
        state = 0;
        while (pidmap_iterate(&t->deferred, &state, &pid, &v))
                free(v);
        pidmap_done(&t->deferred);
        for (size_t i = 0; i < t->n_entries; i++)
                entry_free(t->entries[i]);
        free(t->entries);
        sched_group_roots_done(&t->roots);
        systemd_units_on_resume_remove(t->systemd, on_systemd_resume, t);
        hashmap_free(t->not_units);
        group_scopes_free(t->scopes);
        free(t);
        return NULL;
}

/* The sums that Q's ask goes in once admitted: its entry's boosters' or
 * its other requesters' (a protector that is no booster asks nothing). */
static GroupAsks *requester_sums(Requester *q)
{
        if (q->booster)
                return &q->entry->booster_asks;
        return q->protector ? NULL : &q->entry->asks;
}

/* Q's ask joins its entry's sums if it counts there: admitted (and
 * entry_reserve() made room for it). */
static void requester_sum(Requester *q)
{
        GroupAsks *sums = requester_sums(q);
        int r;

        if (q->summed || !q->counted || !sums)
                return;
        r = group_asks_add(sums, &q->ask, q->uid);
        ln_assert(r == 0);
        q->summed = true;
}

/* Q's ask leaves its entry's sums (before its ask, uid, role or entry
 * changes). */
static void requester_unsum(Requester *q)
{
        if (!q->summed)
                return;
        group_asks_remove(requester_sums(q), &q->ask, q->uid);
        q->summed = false;
}

/* Room in E's sums for one more requester in the role of a booster
 * (BOOSTER) or not: requester_sum() then cannot fail. */
static int entry_reserve(GroupEntry *e, bool protector, bool booster)
{
        if (booster)
                return group_asks_reserve(&e->booster_asks, e->n_boosters + 1);
        if (protector)
                return 0;
        return group_asks_reserve(&e->asks, e->n_requesters - e->n_protectors + 1);
}

/* Q joins E's requesters. */
static void requester_link(GroupEntry *e, Requester *q)
{
        q->entry = e;
        q->prev = NULL;
        q->next = e->requesters;
        if (q->next)
                q->next->prev = q;
        e->requesters = q;
        e->n_requesters++;
        if (q->protector)
                e->n_protectors++;
        if (q->booster)
                e->n_boosters++;
        requester_sum(q);
}

/* Q leaves its entry's requesters. */
static void requester_unlink(Requester *q)
{
        GroupEntry *e = q->entry;

        requester_unsum(q);
        if (q->prev)
                q->prev->next = q->next;
        else
                e->requesters = q->next;
        if (q->next)
                q->next->prev = q->prev;
        q->prev = q->next = NULL;
        e->n_requesters--;
        if (q->protector)
                e->n_protectors--;
        if (q->booster)
                e->n_boosters--;
}

void group_table_release(GroupTable *t, pid_t pid)
{
        Requester *q;
        GroupEntry *e;
        bool update;

        if (!t)
                return;
        q = pidmap_remove(&t->requesters, pid);
        if (q) {
                e = q->entry;
                /* What it asked for was part of the group's state, or it
                 * held the others' back (a protector): the others' state
                 * now, each field nobody asks for any more given back. */
                update = q->protector || (q->counted && entry_changed(e));
                requester_unlink(q);
                free(q);
                if (e->n_requesters == 0) {
                        (void)entry_restore(t, e);
                        entry_remove(t, e);
                } else if (update)
                        (void)entry_update(t, e, pid, true);
        }
        shared_pid_gone(t, pid);
}

GroupEntry *entry_find(GroupTable *t, const SchedGroup *g)
{
        for (size_t i = 0; i < t->n_entries; i++)
                if (sched_group_equal(&t->entries[i]->group, g))
                        return t->entries[i];
        return NULL;
}

/* Does G's subtree (its cgroup and every cgroup below it, which its
 * settings reach too) hold a process of another user than UID? Then a rule
 * that matched a process of UID (whose name its user chose) must not change
 * the group for them: a cron job named cc1 must not make cron.service idle
 * for everyone, nor a user's cgroup idle for root's processes in a cgroup
 * below it. Root's processes may change their groups. A subtree too large
 * to check, or one that cannot be read, counts as shared. WHY (for the log)
 * says which process, or why it counts as shared; *RET_PID is that process
 * (0: none, too many or unreadable). */
static bool group_shared(GroupTable *t, const SchedGroup *g, uid_t uid, char why[static 96],
                         pid_t *ret_pid)
{
        pid_t other_pid = 0;
        uid_t other_uid = 0;
        int r;

        why[0] = 0;
        *ret_pid = 0;
        if (uid == 0)
                return false;
        r = group_subtree_other_user(g, t->proc_root, uid, GROUP_SUBTREE_CGROUPS_MAX,
                                     GROUP_SUBTREE_PROCS_MAX, &other_pid, &other_uid);
        if (r == 0 || r == -ENOENT)
                return false;
        if (r > 0)
                *ret_pid = other_pid;
        if (r > 0)
                snprintf(why, 96, "process %d of uid %u", (int)other_pid, (unsigned)other_uid);
        else if (r == -E2BIG)
                snprintf(why, 96, "over %u cgroups or %u processes below it, too many to check",
                         GROUP_SUBTREE_CGROUPS_MAX, GROUP_SUBTREE_PROCS_MAX);
        else
                snprintf(why, 96, "its processes cannot be read: %s", strerror(-r));
        return true;
}

/* The entry of G (taken over), new if needed (read now: is it there?). */
static int entry_get(GroupTable *t, SchedGroup *g, GroupEntry **ret)
{
        GroupEntry *e = entry_find(t, g), **a;
        SchedGroupState now;
        int r;

        if (e) {
                *ret = e;
                return 0;
        }
        e = calloc(1, sizeof(GroupEntry));
        if (!e)
                return -ENOMEM;
        e->group = *g;
        *g = (SchedGroup){};
        r = sched_group_read(&e->group, &now);
        if (r < 0) {
                entry_free(e);
                return r;
        }
        a = realloc(t->entries, (t->n_entries + 1) * sizeof(GroupEntry *));
        if (!a) {
                entry_free(e);
                return -ENOMEM;
        }
        t->entries = a;
        t->entries[t->n_entries++] = e;
        *ret = e;
        return 0;
}

/* What S (NULL: nothing) asks of a group. */
static GroupAsk ask_of(const Settings *s)
{
        GroupAsk a = {};

        if (!s)
                return a;
        a.has_weight = settings_has(s, SETTING_CPU_WEIGHT);
        a.weight = s->cpu_weight;
        a.has_idle = settings_has(s, SETTING_CPU_IDLE);
        a.idle = s->cpu_idle;
        a.has_latency_nice = settings_has(s, SETTING_CPU_LATENCY_NICE);
        a.latency_nice = s->cpu_latency_nice;
        return a;
}

/* PID (STARTTIME) is a requester of E that asks for ASK (PROTECTOR: a
 * protector; BOOSTER: a protector that asks for a boost). It counts in E's
 * state once admitted (entry_admit()). */
static int requester_set(GroupTable *t, pid_t pid, uint64_t starttime, GroupEntry *e,
                         bool protector, bool booster, const GroupAsk *ask)
{
        Requester *q = pidmap_get(&t->requesters, pid);
        int r;

        if (q && q->entry != e) {
                group_table_release(t, pid); /* another group */
                q = NULL;
        }
        r = entry_reserve(e, protector, booster);
        if (r < 0)
                return r;
        if (q) {
                /* The same group, maybe in another role (a requester that
                 * became latency-sensitive, or back) or asking for other
                 * values, or a reused pid: changed in place. Not released
                 * and joined again: its last requester leaving would give
                 * E back (and free it, which the caller holds), and the
                 * others' state would be written meanwhile. */
                requester_unlink(q);
                if (q->starttime != starttime)
                        q->counted = false; /* another process: admitted anew */
                q->demoted = q->booster && !booster;
                q->starttime = starttime;
                q->protector = protector;
                q->booster = booster;
                q->ask = *ask;
                requester_link(e, q);
                return 0;
        }
        q = calloc(1, sizeof(Requester));
        if (!q)
                return -ENOMEM;
        *q = (Requester){ .pid = pid, .starttime = starttime, .protector = protector,
                          .booster = booster, .ask = *ask };
        r = pidmap_put(&t->requesters, pid, q);
        if (r < 0) {
                free(q);
                return r;
        }
        requester_link(e, q);
        return 0;
}

/* Did a pause of a user's systemd manager put off a call since REFUSED
 * (systemd_units_refusals() before it)? */
static bool put_off(GroupTable *t, uint64_t refused)
{
        return systemd_units_refusals(t->systemd) != refused;
}

/* Is E a systemd unit's cgroup? Asked before the first write, until a
 * manager answers. -EHOSTDOWN: its manager is paused, nothing is to be
 * written before it answers (the request is made again at the pause's
 * end); a manager that failed otherwise: the files are written this time. */
static int entry_route(GroupTable *t, GroupEntry *e)
{
        uint64_t refused = systemd_units_refusals(t->systemd);
        int r;

        if (e->route_known)
                return 0;
        r = group_systemd_find(t->systemd, t->roots.cgroup2, &e->group, &e->sd);
        if (r < 0 && put_off(t, refused)) {
                log_info("%s: its systemd manager is paused; set when the pause ends.",
                         e->group.name);
                return -EHOSTDOWN;
        }
        if (r < 0) {
                log_warning_errno(r, "%s: cannot ask systemd whether a unit owns it (%m): its "
                                     "files are written this time.", e->group.name);
                return 0;
        }
        e->route_known = true;
        if (r > 0)
                log_debug("%s: a systemd unit's cgroup, set through its CPUWeight=.",
                          e->group.name);
        return 0;
}

/* A requester of E whose ask counts in E's state and asks for a
 * CPULatencyNice=, for the log (a walk: once per group at most). */
static pid_t latency_asker(const GroupEntry *e)
{
        pid_t pid = 0;

        for (const Requester *q = e->requesters; q; q = q->next)
                if (q->summed && (e->n_protectors == 0 || q->booster) &&
                    q->ask.has_latency_nice)
                        pid = q->pid;
        return pid;
}

/* CPULatencyNice=VALUE asked for on a group without cpu.latency.nice: said
 * once for the kernel (an unpatched one has it nowhere), once per group for
 * a cgroup without the cpu controller, and at debug level for autogroups
 * (which never have one). The rule's other settings apply regardless. */
static void latency_missing_note(GroupTable *t, GroupEntry *e, int value)
{
        const char *why = sched_group_latency_nice_missing(&e->group);

        if (!why)
                why = "its cpu.latency.nice cannot be read";
        if (e->group.kind == SCHED_GROUP_AUTOGROUP) {
                if (!t->latency_autogroup_noted)
                        log_debug("CPULatencyNice=%d for %d: not applied to %s: %s.", value,
                                  (int)latency_asker(e), e->group.name, why);
                t->latency_autogroup_noted = true;
                return;
        }
        if (e->latency_noted || (t->latency_unsupported_noted && strstr(why, "kernel")))
                return;
        e->latency_noted = true;
        if (strstr(why, "kernel"))
                t->latency_unsupported_noted = true;
        log_notice("CPULatencyNice=%d for %d: not applied to %s: %s; the rule's other "
                   "settings apply.", value, (int)latency_asker(e), e->group.name, why);
}

/* Does E's subtree hold processes of other users than PID's (whose uid
 * goes to *RET_UID)? Found out on the first request of each uid that would
 * change it, again after a rescan, and kept up to date between them while
 * latniced has changed it (group_table_member_event(), group_table_recheck()):
 * the member scan of an autogroup reads all of /proc. Said once each time
 * it becomes shared. */
static bool entry_shared(GroupTable *t, GroupEntry *e, pid_t pid, uid_t *ret_uid,
                         char why[static 96])
{
        bool was = e->shared;

        snprintf(why, 96, "processes of other users");
        if (proc_real_uid(t->proc_root, pid, ret_uid) < 0) {
                *ret_uid = (uid_t)-1;
                return true; /* gone, or unreadable: not changed for it */
        }
        if (*ret_uid == 0)
                return false;
        if (e->shared_known && e->checked_uid == *ret_uid)
                return e->shared;
        e->shared = group_shared(t, &e->group, *ret_uid, why, &e->shared_pid);
        e->shared_known = true;
        e->checked_uid = *ret_uid;
        if (e->shared && !was) {
                t->counters.n_shared++;
                log_info("%s holds processes of other users than %d's (%s, in it or a cgroup "
                         "below it): not changed for its rules.",
                         e->group.name, (int)pid, why);
        }
        return e->shared;
}

/* Is E changed by latniced for a user other than root, whose subtree then
 * must hold none but that user's processes? */
static bool entry_watched(const GroupEntry *e)
{
        return entry_changed(e) && !e->user_owned && !e->own_scope && e->acting_uid != 0;
}

/* E is to be watched from now on (entry_watched()): the caller's timer is
 * told, for a cgroup (an autogroup's members change only with events). */
static void entry_watch(GroupTable *t, GroupEntry *e)
{
        if (entry_watched(e) && e->group.kind != SCHED_GROUP_AUTOGROUP && t->on_watch)
                t->on_watch(t->watch_userdata);
}

/* E, changed for ACTING_UID's request, was found shared with another user
 * (WHY: which process, OTHER_PID: its pid, 0 if none): its original comes
 * back, said once. It is not changed for that user's rules again until a
 * check finds it theirs alone (at a rescan, or when OTHER_PID exits,
 * changes its uid or execs: shared_pid_gone()). */
static void entry_give_back(GroupTable *t, GroupEntry *e, const char *why, pid_t other_pid)
{
        SchedGroupState orig = { .weight = 100 };
        char buf[64];

        if (!e->shared)
                t->counters.n_shared++;
        e->shared = e->shared_known = true;
        e->checked_uid = e->acting_uid;
        e->shared_pid = other_pid;
        for (Requester *q = e->requesters; q; q = q->next)
                if (q->uid == e->acting_uid) {
                        requester_unsum(q);
                        q->counted = false;
                }
        if (!entry_changed(e))
                return;
        if (ledger_claim_held(&e->files))
                orig = claim_state(e->files.orig);
        log_notice("%s now holds %s as well (in it or a cgroup below it), not only uid %u's: "
                   "its original %s comes back; a group shared with another user is not "
                   "changed for a user's rules.",
                   e->group.name, why, (unsigned)e->acting_uid, state_describe(&orig, buf));
        /* Restored, or someone else's since (user-owned): latniced holds
         * nothing there any more (entry_restore() ends its claims). */
        (void)entry_restore(t, e);
}

/* Write WANT to E (NOW: what it has), recorded in the state file first,
 * for PID (LEFT: for the others, PID having left). 1 written, 0 not (gone),
 * negative errno (logged). */
static int entry_commit(GroupTable *t, GroupEntry *e, pid_t pid, bool left,
                        const SchedGroupState *now, const SchedGroupState *want)
{
        uint64_t refused = systemd_units_refusals(t->systemd);
        SchedGroupState back;
        char buf[64];
        int r;

        if (entry_route(t, e) < 0)
                return 0;
        r = entry_write(t, e, now, want);
        if (r < 0) {
                /* Not written: the claims' records say what the group
                 * still has. */
                if (r == -ENOENT)
                        return 0;
                if (put_off(t, refused)) {
                        log_info("%s: its systemd manager is paused; %s for %d when the pause "
                                 "ends.", e->group.name, state_describe(want, buf), (int)pid);
                        return 0;
                }
                t->counters.n_failed++;
                return log_warning_errno(r, "Failed to set %s for %d: %m", e->group.name,
                                         (int)pid);
        }
        /* What the kernel made of it (cpu.shares rounds); systemd writes a
         * unit's files after its call returns. */
        if (e->sd.unit_path || sched_group_read(&e->group, &back) < 0)
                back = *want;
        if (!sched_group_state_equal(&e->group, &back, want))
                entry_settle(t, e, now, &back);
        t->counters.n_applied++;
        log_info(left ? "%s: %s for the processes still asking, %d having left."
                      : "%s: %s for %d.",
                 e->group.name, state_describe(&back, buf), (int)pid);
        return 1;
}

/* The sums of the asks that count in E's state: admitted, and in a
 * protected group only a booster's. */
static const GroupAsks *entry_counting(const GroupEntry *e)
{
        /* A booster is a protector: unprotected, E has none. */
        return e->n_protectors == 0 ? &e->asks : &e->booster_asks;
}

/* Does any requester that counts ask for anything? */
static bool entry_asked(const GroupEntry *e)
{
        return entry_counting(e)->n_asking > 0;
}

/*
 * Into WANT, over NOW (ORIG: E's original), what E's requesters that count
 * ask for together (group-asks.h: idle if any asks for CPUIdle=yes, else
 * not if any asks CPUIdle=no; the lowest CPUWeight= asked; the highest
 * CPULatencyNice= asked, where the group has the file). A field nobody
 * asks for is ORIG's: the last requester of a field gives it back.
 * Processes coming and going with one field do not flip another. Returns
 * the uid they act for: a user's, or root's (0) if all are root's.
 */
static uid_t entry_want(GroupTable *t, GroupEntry *e, const SchedGroupState *now,
                        const SchedGroupState *orig, SchedGroupState *want)
{
        GroupAsk c;
        uid_t uid;

        (void)group_asks_combine(entry_counting(e), &c, &uid);
        sched_group_state_want(&e->group, now, c.has_weight ? c.weight : orig->weight,
                               c.has_idle ? c.idle : orig->idle, want);
        if (now->has_latency_nice)
                want->latency_nice = c.has_latency_nice ? c.latency_nice : orig->latency_nice;
        else if (c.has_latency_nice)
                latency_missing_note(t, e, c.latency_nice);
        return uid;
}

/* Bring E to what its requesters ask for together (entry_want()); where
 * none that counts asks for anything, give it back. For PID (LEFT: PID
 * left it), for the log. 1 written, 0 not, negative errno. */
static int entry_update(GroupTable *t, GroupEntry *e, pid_t pid, bool left)
{
        SchedGroupState now, want, orig;
        char buf[64];
        int r;

        if (e->user_owned)
                return 0;
        if (!entry_asked(e))
                return entry_changed(e) && entry_restore(t, e) ? 1 : 0;
        r = sched_group_read(&e->group, &now);
        if (r < 0)
                return r == -ENOENT ? 0 : r;
        if (ledger_claim_held(&e->files)) {
                SchedGroupState expected = claim_state(e->files.expected);

                if (!sched_group_state_equal(&e->group, &now, &expected) &&
                    entry_foreign(t, e, &now) != 0)
                        return 0;
        }
        orig = entry_orig(t, e, &now);
        /* The group holds their request from now on, and is watched for
         * other users' processes if they are not root's. */
        e->acting_uid = entry_want(t, e, &now, &orig, &want);
        if (sched_group_state_equal(&e->group, &now, &want)) {
                entry_watch(t, e);
                return 0;
        }
        if (t->dry_run) {
                log_info("%s: would set %s for %d (dry run).", e->group.name,
                         state_describe(&want, buf), (int)pid);
                return 1;
        }
        r = entry_commit(t, e, pid, left, &now, &want);
        if (r > 0)
                entry_watch(t, e);
        return r;
}

/* Is E shared with another user for Q? If not, Q is admitted: its ask
 * counts in E's state. If so, it does not, and what E holds is given back
 * if it was asked for by Q's user (another user's request stays). */
static bool entry_admit(GroupTable *t, GroupEntry *e, Requester *q)
{
        char why[96];
        uid_t uid;

        requester_unsum(q);
        if (entry_shared(t, e, q->pid, &uid, why)) {
                q->counted = false;
                if (entry_changed(e) && e->acting_uid == uid)
                        entry_give_back(t, e, why, e->shared_pid);
                return false;
        }
        q->uid = uid;
        q->counted = true;
        requester_sum(q);
        return true;
}

/* PID's request (its requester's ask) on its group: admitted, and the group
 * brought to what its requesters ask for together. A protected group takes
 * only a booster's: the others count once the last protector is gone. */
static int entry_apply(GroupTable *t, pid_t pid)
{
        Requester *q = pidmap_get(&t->requesters, pid);
        GroupEntry *e;

        if (!q || q->entry->user_owned)
                return 0;
        e = q->entry;
        /* In a protected group only a booster's request changes what counts,
         * or one's that was a booster until now. */
        if (!entry_admit(t, e, q) || (e->n_protectors > 0 && !q->booster && !q->demoted))
                return 0;
        q->demoted = false;
        return entry_update(t, e, pid, false);
}

/* E was found shared with another user for the uid of some of its
 * requesters: look again, now that the process that made it so
 * (E->shared_pid) exited, changed its uid or exec'd. Those it is theirs
 * alone for now are admitted, and the group brought to what they ask for
 * with the rest; said once. */
static void entry_reconsider(GroupTable *t, GroupEntry *e)
{
        pid_t pid = 0;

        e->shared_known = false;
        e->shared_pid = 0;
        for (Requester *q = e->requesters; q; q = q->next)
                if (!q->counted && entry_admit(t, e, q) && pid == 0)
                        pid = q->pid;
        if (pid == 0)
                return;
        log_info("%s: its other users' processes are gone: changed for its rules again.",
                 e->group.name);
        (void)entry_update(t, e, pid, false);
}

/* PID exited, stopped asking, changed its uid or exec'd: a group it made
 * shared with another user is looked at again. */
static void shared_pid_gone(GroupTable *t, pid_t pid)
{
        for (size_t i = 0; i < t->n_entries; i++) {
                GroupEntry *e = t->entries[i];

                if (e->shared && e->shared_pid == pid && e->n_requesters > 0)
                        entry_reconsider(t, e);
        }
}

static void not_unit_add(GroupTable *t, const char *path)
{
        if (t->not_units && hashmap_size(t->not_units) >= NOT_UNITS_MAX)
                t->not_units = hashmap_free(t->not_units);
        if (!t->not_units && hashmap_new(&t->not_units) < 0)
                return;
        (void)hashmap_put(t->not_units, path, (void *)1);
}

/* On a systemd machine the cpu controller reaches a unit's cgroup only once
 * the unit asks for a weight: until then the process is weighed in an
 * ancestor (or, with no controller at the root, its autogroup), which is
 * not for its rules to change. The cgroup of its unit is, through systemd,
 * which enables the controller for it. 1 with *G replaced by the unit's
 * cgroup, 0 if there is none (not a unit's, no systemd), -EHOSTDOWN if its
 * manager is paused. */
static int group_of_unit(GroupTable *t, pid_t pid, SchedGroup *g)
{
        uint64_t refused = systemd_units_refusals(t->systemd);
        SchedGroup u = {};
        GroupSystemd gs = {};
        int r;

        if (!t->systemd)
                return 0;
        r = sched_group_cgroup2_of(&t->roots, t->proc_root, pid, &u);
        if (r <= 0)
                return r == -ENOMEM ? r : 0;
        /* Asked once per cgroup: later processes find its entry, or the
         * cgroup among those that are no unit's. */
        if (!entry_find(t, &u)) {
                if (t->not_units && hashmap_get(t->not_units, u.path)) {
                        sched_group_done(&u);
                        return 0;
                }
                r = group_systemd_find(t->systemd, t->roots.cgroup2, &u, &gs);
                group_systemd_done(&gs);
                if (r == 0)
                        not_unit_add(t, u.path);
                if (r <= 0) {
                        sched_group_done(&u);
                        /* Paused: not the group below for now, but asked
                         * again at the pause's end. */
                        return r == -ENOMEM ? r : r < 0 && put_off(t, refused) ? -EHOSTDOWN : 0;
                }
        }
        sched_group_done(g);
        *g = u;
        return 1;
}

/* PID (STARTTIME) joins the entry of the group that holds it, as a
 * requester of ASK or a PROTECTOR (BOOSTER: one that asks for a boost). 1 with
 * *RET set; 0 if there is nothing to do (gone, or in a root group: never
 * the root). */
static int group_join(GroupTable *t, pid_t pid, uint64_t starttime, bool protector,
                      bool booster, const GroupAsk *ask, GroupEntry **ret)
{
        SchedGroup g = {};
        int r;

        r = sched_group_of(&t->roots, t->proc_root, pid, &g);
        if (r < 0)
                return r == -ESRCH || r == -EACCES ? 0 : r;
        if (g.kind == SCHED_GROUP_NONE || g.kind == SCHED_GROUP_AUTOGROUP) {
                r = group_of_unit(t, pid, &g);
                if (r < 0) {
                        sched_group_done(&g);
                        return r == -EHOSTDOWN ? 0 : r;
                }
        }
        if (g.kind == SCHED_GROUP_NONE) {
                group_table_release(t, pid);
                return 0;
        }
        r = entry_get(t, &g, ret);
        sched_group_done(&g);
        if (r < 0)
                return r == -ENOENT || r == -ESRCH ? 0 : r;
        r = requester_set(t, pid, starttime, *ret, protector || booster, booster, ask);
        return r < 0 ? r : 1;
}

/* ---- GroupScope=own (group-scope.h) ------------------------------------ */

/* Does G hold a process other than PID for which no rule asks group
 * settings (not a requester, or a protector)? */
static int has_unmatched(GroupTable *t, const SchedGroup *g, pid_t pid)
{
        _cleanup_free_ pid_t *members = NULL;
        size_t n = 0;
        int r;

        r = sched_group_members(g, t->proc_root, pid, 65536, &members, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                Requester *q = pidmap_get(&t->requesters, members[i]);

                if (!q || q->protector)
                        return 1;
        }
        return 0;
}

/* The entry of the scope at CG (below the cgroup2 root) that PID was just
 * put in, with CPUWeight=WEIGHT: latniced's from the start, and systemd's
 * default (unset) is what it gets back. */
static int scope_entry_new(GroupTable *t, pid_t pid, const char *cg, uint64_t weight,
                           GroupEntry **ret)
{
        _cleanup_free_ GroupEntry *e = calloc(1, sizeof(GroupEntry));
        _cleanup_free_ char *unset = NULL, *w = NULL;
        SchedGroupState now = { .weight = 100 }, orig;
        StateCgroupRecord target;
        GroupEntry **a;
        int r, unrecorded;

        if (!e)
                return -ENOMEM;
        r = sched_group_cgroup2_of(&t->roots, t->proc_root, pid, &e->group);
        if (r <= 0)
                return r == -ENOMEM ? r : -ESRCH;
        if (sched_group_read(&e->group, &now) < 0)
                sched_group_state_want(&e->group, &now, 100, weight == SYSTEMD_WEIGHT_IDLE, &now);
        orig = now;
        orig.weight = 100;
        orig.idle = false;
        e->sd = (GroupSystemd){ .unit_path = strdup(cg), .found = SYSTEMD_WEIGHT_UNSET };
        a = realloc(t->entries, (t->n_entries + 1) * sizeof(GroupEntry *));
        if (a)
                t->entries = a;
        if (!e->sd.unit_path || !a || systemd_weight_to_string(SYSTEMD_WEIGHT_UNSET, &unset) < 0 ||
            systemd_weight_to_string(weight, &w) < 0) {
                entry_free(TAKE_PTR(e));
                return -ENOMEM;
        }
        e->route_known = e->own_scope = e->shared_known = true;
        /* Made with CPUWeight=WEIGHT: latniced's from the start. */
        entry_target(t, e, STATE_TARGET_UNIT_PROPERTY, &target);
        r = ledger_claim_settle(&e->unit, t->state, &target, unset, w, &unrecorded);
        entry_unrecorded(t, e, unrecorded);
        if (r >= 0)
                entry_settle(t, e, &orig, &now);
        if (r < 0 || !ledger_claim_held(&e->files)) {
                ledger_claim_drop(&e->unit, t->state);
                entry_free(TAKE_PTR(e));
                return -ENOMEM;
        }
        t->entries[t->n_entries++] = e;
        *ret = TAKE_PTR(e);
        return 0;
}

/* The CPUWeight= S asks for, from the start: "idle", a weight, else unset. */
static uint64_t scope_weight(const Settings *s)
{
        if (settings_has(s, SETTING_CPU_IDLE) && s->cpu_idle)
                return SYSTEMD_WEIGHT_IDLE;
        return settings_has(s, SETTING_CPU_WEIGHT) ? s->cpu_weight : SYSTEMD_WEIGHT_UNSET;
}

/* GroupScope=own for PID (STARTTIME): 1 with *RET, the entry of a scope of
 * its own made now; 2: its group is to be taken as with GroupScope=shared
 * (it holds only processes that ask for group settings, or is a scope of
 * latniced's already: a child of a process that got one); 0: no group
 * settings for PID (shared with others, and no scope to be had). */
static int scope_join(GroupTable *t, pid_t pid, uint64_t starttime, const Settings *s,
                      GroupEntry **ret)
{
        _cleanup_free_ char *cg = NULL;
        SchedGroup g = {};
        GroupAsk ask;
        size_t n;
        int r;

        r = t->systemd ? sched_group_cgroup2_of(&t->roots, t->proc_root, pid, &g) : 0;
        if (r == 0)
                r = sched_group_of(&t->roots, t->proc_root, pid, &g);
        if (r < 0)
                return r == -ESRCH || r == -EACCES ? 0 : r;
        if (g.kind == SCHED_GROUP_NONE || group_scope_is_ours(g.path)) {
                sched_group_done(&g);
                return 2;
        }
        /* An autogroup's members are found by reading all of /proc: not for
         * every exec. It is no unit's, so it gets no group settings here. */
        r = g.kind == SCHED_GROUP_AUTOGROUP ? 1 : has_unmatched(t, &g, pid);
        if (r <= 0 || g.kind != SCHED_GROUP_CGROUP2 || !t->systemd || t->dry_run) {
                if (r > 0)
                        log_debug("%s is shared with processes no rule asks group settings for, "
                                  "and %s: GroupScope=own leaves them out for %d.",
                                  g.name, t->dry_run ? "this is a dry run" : "no systemd owns it",
                                  (int)pid);
                sched_group_done(&g);
                return r < 0 ? (r == -ENOMEM ? r : 0) : r > 0 ? 0 : 2;
        }
        n = strlen(t->roots.cgroup2);
        while (n > 0 && t->roots.cgroup2[n - 1] == '/')
                n--;
        r = group_scope_make(t->scopes, t->systemd, &t->roots, t->proc_root, pid, starttime,
                             g.path + n, scope_weight(s), &cg);
        sched_group_done(&g);
        if (r <= 0)
                return r;
        group_table_release(t, pid); /* its old group */
        r = scope_entry_new(t, pid, cg, scope_weight(s), ret);
        if (r < 0)
                return r == -ENOMEM ? r : 0;
        t->counters.n_applied++;
        ask = ask_of(s);
        r = requester_set(t, pid, starttime, *ret, false, false, &ask);
        return r < 0 ? r : 1;
}

static int request(GroupTable *t, pid_t pid, uint64_t starttime, const Settings *s)
{
        Settings masked = *s;
        GroupEntry *e;
        GroupAsk ask;
        bool booster;
        int r;

        /* Under a sched_ext scheduler none of the group settings is read. */
        if (sched_ext_mask_settings(t->sched_ext, &masked))
                s = &masked;
        if (!(s->mask & SETTINGS_GROUP_MASK)) {
                group_table_release(t, pid);
                return 0;
        }
        /* A boost of the group (a weight above the default, a negative
         * latency nice) is asked for by a latency-sensitive process: it
         * protects its group as well. Its trust was checked with the rule
         * (policy/boost.h); S holds only what the process may have. */
        booster = settings_may_boost(s, UINT64_MAX);
        r = 2;
        if (settings_has(s, SETTING_GROUP_SCOPE) && s->group_scope == GROUP_SCOPE_OWN)
                r = scope_join(t, pid, starttime, s, &e);
        if (r == 0)
                group_table_release(t, pid);
        ask = ask_of(s);
        if (r == 2)
                r = group_join(t, pid, starttime, false, booster, &ask, &e);
        if (r <= 0)
                return r;
        return entry_apply(t, pid);
}

static int protect(GroupTable *t, pid_t pid, uint64_t starttime)
{
        GroupEntry *e;
        bool changed;
        int r;

        r = group_join(t, pid, starttime, true, false, &(GroupAsk){}, &e);
        if (r <= 0)
                return r;
        /* Demoted before the sensitive process showed up: not any more (a
         * booster's boost stays). */
        changed = entry_changed(e);
        (void)entry_update(t, e, pid, false);
        if (changed && !entry_changed(e))
                log_info("%s holds %d, which a rule makes latency-sensitive: not demoted.",
                         e->group.name, (int)pid);
        return 0;
}

/* ---- Requests a paused manager put off ---------------------------------- */

/* PID's request (S; PROTECT: group_table_protect()'s) was put off, or not
 * (PUT_OFF false): kept for the pause's end, or forgotten. */
static int deferred_note(GroupTable *t, pid_t pid, uint64_t starttime, const Settings *s,
                         bool protect, bool put_off)
{
        Deferred *d = pidmap_get(&t->deferred, pid);
        int r;

        if (!put_off) {
                free(pidmap_remove(&t->deferred, pid));
                return 0;
        }
        if (!d) {
                d = calloc(1, sizeof(Deferred));
                if (!d)
                        return -ENOMEM;
                r = pidmap_put(&t->deferred, pid, d);
                if (r < 0) {
                        free(d);
                        return r;
                }
        }
        *d = (Deferred){ .starttime = starttime, .protect = protect };
        if (s)
                d->settings = *s;
        return 0;
}

/* A pause of a user's manager ended: every request put off is made again
 * (one whose manager is paused still is put off again at once, without a
 * call). */
static void on_systemd_resume(void *userdata)
{
        GroupTable *t = userdata;
        _cleanup_free_ pid_t *pids = NULL;
        size_t n = 0, state = 0;
        pid_t pid;
        void *v;

        if (pidmap_size(&t->deferred) == 0)
                return;
        pids = calloc(pidmap_size(&t->deferred), sizeof(pid_t));
        if (!pids) {
                log_oom();
                return;
        }
        while (pidmap_iterate(&t->deferred, &state, &pid, &v))
                pids[n++] = pid;
        log_debug("A systemd manager's pause ended: %zu group request(s) made again.", n);
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ Deferred *d = pidmap_remove(&t->deferred, pids[i]);
                uint64_t st;

                if (!d || proc_starttime(t->proc_root, pids[i], 0, &st) < 0 ||
                    st != d->starttime)
                        continue; /* gone */
                if (d->protect)
                        (void)group_table_protect(t, pids[i], st);
                else
                        (void)group_table_request(t, pids[i], st, &d->settings);
        }
}

int group_table_request(GroupTable *t, pid_t pid, uint64_t starttime, const Settings *s)
{
        uint64_t refused;
        int r, k;

        if (!t)
                return 0;
        refused = systemd_units_refusals(t->systemd);
        r = request(t, pid, starttime, s);
        k = deferred_note(t, pid, starttime, s, false, put_off(t, refused));
        return r < 0 ? r : k < 0 ? k : r;
}

int group_table_protect(GroupTable *t, pid_t pid, uint64_t starttime)
{
        uint64_t refused;
        int r, k;

        if (!t)
                return 0;
        refused = systemd_units_refusals(t->systemd);
        r = protect(t, pid, starttime);
        k = deferred_note(t, pid, starttime, NULL, true, put_off(t, refused));
        return r < 0 ? r : k < 0 ? k : r;
}

int group_table_attach_event(GroupTable *t, sd_event *event)
{
        if (!t || !t->systemd)
                return 0;
        return systemd_units_on_resume(t->systemd, event, on_systemd_resume, t);
}

void group_table_set_sched_ext(GroupTable *t, bool sched_ext)
{
        if (t)
                t->sched_ext = sched_ext;
}

void group_table_set_watch(GroupTable *t, void (*on_watch)(void *userdata), void *userdata)
{
        t->on_watch = on_watch;
        t->watch_userdata = userdata;
}

void group_table_member_event(GroupTable *t, pid_t pid)
{
        GroupPlace place = {};
        bool any = false, autogroup = false, uid_known = false;
        char why[96];
        uid_t uid;

        if (!t)
                return;
        /* The process that made a group shared changed its uid or exec'd
         * (a setuid program: no uid event): that group is looked at again. */
        shared_pid_gone(t, pid);
        for (size_t i = 0; i < t->n_entries; i++)
                if (entry_watched(t->entries[i])) {
                        any = true;
                        autogroup = autogroup || t->entries[i]->group.kind == SCHED_GROUP_AUTOGROUP;
                }
        if (!any || group_place_of(&t->roots, t->proc_root, pid, autogroup, &place) < 0)
                return;
        for (size_t i = 0; i < t->n_entries; i++) {
                GroupEntry *e = t->entries[i];

                if (!entry_watched(e) || !group_place_within(&place, &e->group))
                        continue;
                if (!uid_known && proc_real_uid(t->proc_root, pid, &uid) < 0)
                        break; /* gone */
                uid_known = true;
                if (uid == e->acting_uid)
                        continue;
                snprintf(why, sizeof(why), "process %d of uid %u", (int)pid, (unsigned)uid);
                entry_give_back(t, e, why, pid);
        }
        group_place_done(&place);
}

size_t group_table_recheck(GroupTable *t)
{
        size_t n = 0;
        char why[96];
        pid_t other;

        if (!t)
                return 0;
        for (size_t i = 0; i < t->n_entries; i++) {
                GroupEntry *e = t->entries[i];

                if (!entry_watched(e) || e->group.kind == SCHED_GROUP_AUTOGROUP)
                        continue;
                if (group_shared(t, &e->group, e->acting_uid, why, &other))
                        entry_give_back(t, e, why, other);
                else
                        n++;
        }
        return n;
}

void group_table_rescan_begin(GroupTable *t)
{
        if (!t)
                return;
        for (size_t i = 0; i < t->n_entries; i++)
                t->entries[i]->shared_known = false;
}

void group_table_sweep(GroupTable *t, bool complete)
{
        size_t state = 0;
        pid_t pid;
        void *v;

        if (!t)
                return;
        while (pidmap_iterate(&t->requesters, &state, &pid, &v)) {
                Requester *q = v;
                uint64_t st;

                if (proc_starttime(t->proc_root, pid, 0, &st) < 0 || st != q->starttime)
                        group_table_release(t, pid);
        }
        state = 0;
        while (pidmap_iterate(&t->deferred, &state, &pid, &v)) {
                uint64_t st;

                if (proc_starttime(t->proc_root, pid, 0, &st) < 0 ||
                    st != ((Deferred *)v)->starttime)
                        free(pidmap_remove(&t->deferred, pid));
        }
        /* Taken over from a dead latniced, and no process asks for it (the
         * first scan is over, and it evaluated every process): its original
         * comes back. A process whose evaluation was put off may still ask:
         * restoring now would flip the group back and forth; so that waits
         * for a complete scan, ADOPT_GRACE_USEC at most. */
        if (!complete) {
                uint64_t now = now_usec(CLOCK_MONOTONIC);

                if (t->incomplete_since == 0)
                        t->incomplete_since = now;
                complete = now - t->incomplete_since >= ADOPT_GRACE_USEC;
        }
        if (complete)
                t->incomplete_since = 0;
        for (size_t i = 0; complete && i < t->n_entries;) {
                GroupEntry *e = t->entries[i];

                if (e->n_requesters > 0) {
                        i++;
                        continue;
                }
                (void)entry_restore(t, e);
                entry_remove(t, e);
        }
        /* Other users' processes moved in without an event of theirs. */
        (void)group_table_recheck(t);
}

size_t group_table_restore_all(GroupTable *t)
{
        size_t state = 0, n = 0;
        pid_t pid;
        void *v;

        if (!t)
                return 0;
        systemd_units_stopping(t->systemd);
        t->stopping = true;
        while (pidmap_iterate(&t->requesters, &state, &pid, &v))
                free(v);
        pidmap_done(&t->requesters);
        t->requesters = (PidMap){};
        for (size_t i = 0; i < t->n_entries; i++) {
                if (entry_restore(t, t->entries[i]))
                        n++;
                entry_free(t->entries[i]);
        }
        t->n_entries = 0;
        return n;
}

size_t group_table_size(const GroupTable *t)
{
        return t ? t->n_entries : 0;
}

const GroupCounters *group_table_counters(const GroupTable *t)
{
        return &t->counters;
}
