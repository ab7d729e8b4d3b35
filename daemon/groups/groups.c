/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "daemon/groups/group-scope.h"
#include "daemon/groups/group-systemd.h"
#include "daemon/groups/groups.h"
#include "daemon/watch/pidmap.h"
#include "daemon/state/ledger.h"
#include "daemon/state/state-file.h"
#include "lib/group-subtree.h"
#include "lib/hashmap.h"
#include "lib/log.h"
#include "lib/macro.h"
#include "lib/sched-effect.h"
#include "lib/proc.h"
#include "lib/trust.h"
#include "policy/boost.h"

typedef struct GroupEntry {
        SchedGroup group;
        SchedGroupState orig;     /* before latniced's first write */
        SchedGroupState expected; /* what latniced left */
        bool changed;             /* latniced wrote it */
        bool user_owned;          /* changed by someone else since: theirs */
        bool shared;              /* its subtree holds processes of other users than CHECKED_UID's */
        bool shared_known;        /* SHARED was found out for CHECKED_UID (reset at rescans) */
        uid_t checked_uid;
        uid_t acting_uid;         /* whose request it holds (0: root's, or not known) */
        size_t n_requesters;      /* protectors included */
        size_t n_protectors;      /* latency-sensitive members: the group is not demoted */
        size_t n_boosters;        /* protectors whose rules ask for a boost of the group */
        bool by_booster;          /* what latniced left is a booster's request */
        bool latency_noted;       /* its missing cpu.latency.nice was logged */
        uint32_t state_slot;      /* 1 + its record in the state file; 0: none */
        bool route_known;         /* whether a systemd unit owns it was asked */
        GroupSystemd sd;          /* its unit's, if so: written through systemd */
        bool own_scope;           /* a scope latniced asked for (group-scope.h) */
} GroupEntry;

/* A request that a pause of a user's systemd manager put off
 * (systemd_units_refusals()): made again when the pause ends. The latest
 * request of each process. */
typedef struct Deferred {
        uint64_t starttime;
        Settings settings;
        bool protect; /* group_table_protect()'s */
} Deferred;

typedef struct Requester {
        pid_t pid;
        uint64_t starttime;
        GroupEntry *entry;
        bool protector;
        bool booster; /* a protector that asks for a boost of the group itself */
} Requester;

struct GroupTable {
        const char *proc_root;
        bool dry_run;
        SchedGroupRoots roots;
        GroupEntry **entries;
        size_t n_entries;
        PidMap requesters; /* pid -> Requester */
        GroupCounters counters;
        StateFile *state;  /* borrowed; NULL: none */
        bool state_warned;
        SystemdUnits *systemd; /* borrowed; NULL: no systemd PID 1, or a test's /proc */
        PidMap deferred;       /* pid -> Deferred */
        bool latency_unsupported_noted; /* the kernel has no cpu.latency.nice: logged once */
        bool latency_autogroup_noted;
        Hashmap *not_units;    /* cgroup2 paths no manager owns: not asked again */
        GroupScopes *scopes;   /* GroupScope=own: who had how many */
        void (*on_watch)(void *userdata); /* a group to re-check came (group_table_set_watch) */
        void *watch_userdata;
        uint64_t incomplete_since; /* first sweep after a scan that put evaluations off */
        bool sched_ext;            /* group_table_set_sched_ext() */
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

static void entry_free(GroupEntry *e)
{
        sched_group_done(&e->group);
        group_systemd_done(&e->sd);
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

/* "weight 100", "weight 100, idle", and ", latency nice -5" where the group
 * has one: for the log. */
static const char *state_describe(const SchedGroupState *s, char buf[static 64])
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

/* Give E its original state back if it is still as latniced left it.
 * Either way latniced has nothing more to give back there afterwards (the
 * entry goes, or starts over from the state restored now): its state file
 * record goes, after the write. */
static bool entry_restore_systemd(GroupTable *t, GroupEntry *e)
{
        int r = group_systemd_restore(t->systemd, &e->sd);

        if (r < 0) {
                t->counters.n_failed++;
                log_warning_errno(r, "Failed to restore %s through systemd (its unit's CPUWeight=): %m",
                                  e->group.name);
                return false;
        }
        if (r == 0) {
                log_info("%s: its unit's CPUWeight= was changed by someone else, not restoring.",
                         e->group.name);
                return false;
        }
        t->counters.n_restored++;
        log_info("%s: its unit's original CPUWeight= restored through systemd.", e->group.name);
        return true;
}

/* A unit's cpu.latency.nice, which latniced writes itself (systemd has no
 * property for it): back to the original if it is still what latniced
 * wrote. Before the unit's CPUWeight=, whose original may take the cpu
 * controller, and the file, away. */
static bool entry_restore_latency(GroupTable *t, GroupEntry *e)
{
        SchedGroupState now;
        int r;

        if (!e->orig.has_latency_nice || !e->expected.has_latency_nice ||
            e->orig.latency_nice == e->expected.latency_nice)
                return false;
        r = sched_group_read(&e->group, &now);
        if (r < 0 || !now.has_latency_nice)
                return false;
        if (now.latency_nice != e->expected.latency_nice) {
                log_info("%s: its latency nice was changed by someone else, not restoring.",
                         e->group.name);
                return false;
        }
        r = sched_group_write_latency_nice(&e->group, e->orig.latency_nice);
        if (r < 0) {
                if (r != -ENOENT) {
                        t->counters.n_failed++;
                        log_warning_errno(r, "Failed to restore the latency nice of %s: %m",
                                          e->group.name);
                }
                return false;
        }
        log_info("%s: original latency nice %d restored.", e->group.name, e->orig.latency_nice);
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
        state_file_cgroup_release(t->state, &e->state_slot);
        return true;
}

static bool entry_restore(GroupTable *t, GroupEntry *e)
{
        SchedGroupState now;
        bool restored = false;
        char buf[64];
        int r;

        if (!e->changed || e->user_owned || t->dry_run)
                return false;
        if (scope_emptied(t, e))
                return false;
        if (e->sd.set) {
                restored = entry_restore_latency(t, e);
                restored = entry_restore_systemd(t, e) || restored;
                state_file_cgroup_release(t->state, &e->state_slot);
                return restored;
        }
        r = entry_read(t, e, &now);
        if (r < 0) {
                if (r != -ENOENT)
                        log_warning_errno(r, "Cannot read %s to restore it: %m", e->group.name);
        } else if (!sched_group_state_equal(&e->group, &now, &e->expected))
                log_info("%s: changed by someone else, not restoring.", e->group.name);
        else {
                r = sched_group_write_state(&e->group, &now, &e->orig);
                if (r < 0 && r != -ENOENT) {
                        t->counters.n_failed++;
                        log_warning_errno(r, "Failed to restore %s: %m", e->group.name);
                } else if (r >= 0) {
                        t->counters.n_restored++;
                        log_info("%s: original %s restored.", e->group.name,
                                 state_describe(&e->orig, buf));
                        restored = true;
                }
        }
        state_file_cgroup_release(t->state, &e->state_slot);
        return restored;
}

void group_table_release(GroupTable *t, pid_t pid)
{
        Requester *q;
        GroupEntry *e;
        bool booster;

        if (!t)
                return;
        q = pidmap_remove(&t->requesters, pid);
        if (!q)
                return;
        e = q->entry;
        booster = q->booster;
        if (q->protector)
                e->n_protectors--;
        if (booster)
                e->n_boosters--;
        free(q);
        if (--e->n_requesters > 0) {
                /* The boost was the last booster's, and nobody asks for it
                 * any more: the original comes back. What the others ask
                 * for is applied at their next evaluation. */
                if (booster && e->n_boosters == 0 && e->by_booster && entry_restore(t, e))
                        e->changed = e->by_booster = false;
                return;
        }
        (void)entry_restore(t, e);
        entry_remove(t, e);
}

static GroupEntry *entry_find(GroupTable *t, const SchedGroup *g)
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
 * says which process, or why it counts as shared. */
static bool group_shared(GroupTable *t, const SchedGroup *g, uid_t uid, char why[static 96])
{
        pid_t other_pid = 0;
        uid_t other_uid = 0;
        int r;

        why[0] = 0;
        if (uid == 0)
                return false;
        r = group_subtree_other_user(g, t->proc_root, uid, GROUP_SUBTREE_CGROUPS_MAX,
                                     GROUP_SUBTREE_PROCS_MAX, &other_pid, &other_uid);
        if (r == 0 || r == -ENOENT)
                return false;
        if (r > 0)
                snprintf(why, 96, "process %d of uid %u", (int)other_pid, (unsigned)other_uid);
        else if (r == -E2BIG)
                snprintf(why, 96, "over %u cgroups or %u processes below it, too many to check",
                         GROUP_SUBTREE_CGROUPS_MAX, GROUP_SUBTREE_PROCS_MAX);
        else
                snprintf(why, 96, "its processes cannot be read: %s", strerror(-r));
        return true;
}

/* The entry of G (taken over), new if needed: its original state is read now. */
static int entry_get(GroupTable *t, SchedGroup *g, GroupEntry **ret)
{
        GroupEntry *e = entry_find(t, g), **a;
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
        r = sched_group_read(&e->group, &e->orig);
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

/* PID (STARTTIME) is a requester (PROTECTOR: a protector; BOOSTER: a
 * protector that asks for a boost) of E. */
static int requester_set(GroupTable *t, pid_t pid, uint64_t starttime, GroupEntry *e,
                         bool protector, bool booster)
{
        Requester *q = pidmap_get(&t->requesters, pid);
        int r;

        if (q && q->entry == e && q->starttime == starttime && q->protector == protector &&
            q->booster == booster)
                return 0;
        if (q && q->entry == e) {
                /* The same group in another role (a requester that became
                 * latency-sensitive, or back), or a reused pid: PID leaves
                 * E and joins it again. Held meanwhile, or its last
                 * requester leaving would give E's original back and free
                 * E, which the caller and the new requester still hold. */
                e->n_requesters++;
                group_table_release(t, pid);
                e->n_requesters--;
        } else if (q)
                group_table_release(t, pid); /* another group */
        q = malloc(sizeof(Requester));
        if (!q)
                return -ENOMEM;
        *q = (Requester){ .pid = pid, .starttime = starttime, .entry = e, .protector = protector,
                          .booster = booster };
        r = pidmap_put(&t->requesters, pid, q);
        if (r < 0) {
                free(q);
                return r;
        }
        e->n_requesters++;
        if (protector)
                e->n_protectors++;
        if (booster)
                e->n_boosters++;
        return 0;
}

/* ---- State file (state-file.h) ---------------------------------------- */

/* A group state as a record value: "weight idle nice", and " latency-nice"
 * where the group has one (a record of before has three numbers). At most
 * "10000 1 0 -20" for a cgroup (an autogroup's nice never comes with a
 * latency nice): a unit's " sd=default,10000" still fits after it. */
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
        if (v[n] == ' ' && v[n + 1] != 's') {
                if (sscanf(v + n, " %d%n", &latency, &m) != 1 || m == 0 || latency < -20 ||
                    latency > 19)
                        return false;
                s.has_latency_nice = true;
                s.latency_nice = latency;
                n += m;
        }
        /* A unit's record goes on with " sd=..." (group-systemd.h). */
        if (v[n] && strncmp(v + n, " sd=", 4) != 0)
                return false;
        s.weight = weight;
        s.idle = idle;
        s.nice = nice;
        *ret = s;
        return true;
}

/* Record in the state file, before a write, that E had its original state
 * and gets WRITTEN (PREVIOUS: what latniced wrote before, still there if it
 * dies before the write). An autogroup is named by its id and a member
 * (pid and start time); a cgroup by its directory and inode. */
static void entry_record(GroupTable *t, GroupEntry *e, const SchedGroupState *written,
                         const SchedGroupState *previous)
{
        StateCgroupRecord rec = {
                .owner = STATE_CGROUP_GROUPS,
                .kind = e->group.kind,
                .path = e->group.path,
                .autogroup_id = e->group.id,
        };
        struct stat st;
        int r;

        if (!t->state)
                return;
        if (e->group.kind == SCHED_GROUP_AUTOGROUP) {
                size_t n = strlen(t->proc_root);

                if (strncmp(e->group.path, t->proc_root, n) != 0 ||
                    sscanf(e->group.path + n, "/%d/", &rec.pid) != 1 ||
                    proc_starttime(t->proc_root, rec.pid, 0, &rec.starttime) < 0)
                        rec.pid = 0;
        } else if (stat(e->group.path, &st) >= 0)
                rec.ino = st.st_ino;
        state_format(&e->orig, rec.orig);
        if (e->sd.unit_path) {
                _cleanup_free_ char *suffix = NULL;

                if (group_systemd_format(&e->sd, group_systemd_weight(written), &suffix) >= 0)
                        strncat(rec.orig, suffix, STATE_VALUE_MAX - strlen(rec.orig) - 1);
        }
        state_format(written, rec.written);
        if (previous)
                state_format(previous, rec.previous);
        r = state_file_cgroup_put(t->state, &e->state_slot, &rec);
        if (r < 0 && !t->state_warned) {
                log_warning_errno(r, "%s: cannot record it in the state file %s (%m): changed "
                                     "anyway, but not given back should latniced be killed.",
                                  e->group.name, state_file_path(t->state));
                t->state_warned = true;
        }
}

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

/* REC of a dead latniced set a unit's CPUWeight= through systemd: E takes
 * it over if the unit still has that. With GONE (the cgroup is gone: the
 * unit stopped or restarted, and keeps its runtime property), the original
 * is given back at once. 1 taken over, 0 not (theirs, gone, or no systemd). */
static int adopt_systemd(GroupTable *t, const StateCgroupRecord *rec, GroupEntry *e, bool gone)
{
        const char *root = t->roots.cgroup2;
        size_t n;
        int r;

        if (!t->systemd || !root || rec->kind != SCHED_GROUP_CGROUP2)
                return 0;
        n = strlen(root);
        while (n > 0 && root[n - 1] == '/')
                n--;
        if (strncmp(rec->path, root, n) != 0 || rec->path[n] != '/')
                return 0;
        r = group_systemd_parse(rec->orig, rec->path + n, &e->sd);
        if (r <= 0)
                return r == -ENOMEM ? r : 0;
        if (gone) {
                r = group_systemd_restore(t->systemd, &e->sd);
                if (r > 0)
                        log_info("%s: gone; its unit's original CPUWeight= restored through "
                                 "systemd.", rec->path + n);
                return r == -ENOMEM ? r : 0;
        }
        r = group_systemd_still_ours(t->systemd, &e->sd);
        if (r == 0)
                log_info("%s: its unit's CPUWeight= was changed while no latniced ran: theirs.",
                         e->group.name);
        if (r <= 0)
                return r == -ENOMEM ? r : 0;
        e->route_known = true;
        return 1;
}

/* Does NOW's latency nice hold what a dead latniced wrote (WRITTEN), or what
 * it wrote before (PREVIOUS: it died before the write)? A unit's weight is
 * judged through systemd, its latency nice only here. */
static bool adopt_latency_ours(const SchedGroupState *now, const SchedGroupState *written,
                               const char *previous)
{
        SchedGroupState p;

        if (!now->has_latency_nice || !written->has_latency_nice ||
            now->latency_nice == written->latency_nice)
                return true;
        return state_parse(previous, &p) && p.has_latency_nice &&
               p.latency_nice == now->latency_nice;
}

/* The ledger's comparison of two states of the group G (ledger.h). */
static bool group_state_same(const void *a, const void *b, const void *g)
{
        return sched_group_state_equal(g, a, b);
}

/* Take over REC if the group still holds what the dead latniced wrote:
 * its original is the record's. Returns 1 if kept, 0 if dropped. */
static int adopt_one(GroupTable *t, const StateCgroupRecord *rec)
{
        _cleanup_free_ GroupEntry *e = calloc(1, sizeof(GroupEntry));
        SchedGroupState now, written, previous, orig;
        char buf[64], obuf[64];
        GroupEntry **a;
        int r;

        if (!e)
                return -ENOMEM;
        if (!state_parse(rec->orig, &orig) || !state_parse(rec->written, &written))
                return 0;
        r = adopt_group(rec, e);
        if (r >= 0)
                r = entry_read(t, e, &now);
        if (r < 0 || entry_find(t, &e->group)) {
                if (r == -ENOENT && strstr(rec->orig, " sd="))
                        (void)adopt_systemd(t, rec, e, true);
                group_systemd_done(&e->sd);
                sched_group_done(&e->group);
                return r == -ENOMEM ? r : 0; /* gone, the session over, or twice */
        }
        if (strstr(rec->orig, " sd=")) {
                r = adopt_systemd(t, rec, e, false);
                if (r > 0 && !adopt_latency_ours(&now, &written, rec->previous)) {
                        log_info("%s: its latency nice was changed while no latniced ran: theirs.",
                                 e->group.name);
                        r = 0;
                }
                if (r <= 0) {
                        group_systemd_done(&e->sd);
                        sched_group_done(&e->group);
                        return r;
                }
        } else {
                bool has_previous = state_parse(rec->previous, &previous);
                LedgerOwner owner = ledger_recorded_owner(&now, &written,
                                                          has_previous ? &previous : NULL, &orig,
                                                          group_state_same, &e->group);

                if (owner != LEDGER_OURS) {
                        if (owner == LEDGER_THEIRS)
                                log_info("%s: changed by someone else while no latniced ran: "
                                         "theirs.",
                                         e->group.name);
                        sched_group_done(&e->group);
                        return 0;
                }
        }
        a = realloc(t->entries, (t->n_entries + 1) * sizeof(GroupEntry *));
        if (!a) {
                group_systemd_done(&e->sd);
                sched_group_done(&e->group);
                return -ENOMEM;
        }
        t->entries = a;
        e->orig = orig;
        e->expected = now;
        e->changed = true;
        e->state_slot = rec->slot + 1;
        log_info("%s: %s from a previous latniced; its original is %s.", e->group.name,
                 state_describe(&now, buf), state_describe(&orig, obuf));
        t->entries[t->n_entries++] = TAKE_PTR(e);
        return 1;
}

int group_table_attach_state(GroupTable *t, StateFile *f)
{
        StateCgroupRecord *recs = NULL;
        size_t n = 0;
        int r;

        t->state = f;
        r = state_file_cgroup_take(f, STATE_CGROUP_GROUPS, &recs, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                r = adopt_one(t, &recs[i]);
                if (r == 0) {
                        uint32_t slot1 = recs[i].slot + 1;
                        state_file_cgroup_release(f, &slot1);
                }
                if (r == -ENOMEM)
                        break;
        }
        state_cgroup_records_free(recs, n);
        return r == -ENOMEM ? r : 0;
}

/* E no longer holds what latniced left (NOW): is that someone else's
 * change? A unit's is theirs only if its CPUWeight= is not latniced's any
 * more: systemd writes the files its own way, and a moment after the call.
 * 1: theirs (E is user-owned now), 0: still latniced's, negative: cannot
 * tell yet. */
static int entry_foreign(GroupTable *t, GroupEntry *e, const SchedGroupState *now)
{
        char buf[64];

        /* systemd never writes cpu.latency.nice: a change there is always
         * someone else's. */
        if (e->sd.set && !(now->has_latency_nice && e->expected.has_latency_nice &&
                           now->latency_nice != e->expected.latency_nice)) {
                int r = group_systemd_still_ours(t->systemd, &e->sd);

                if (r < 0)
                        return r;
                if (r > 0) {
                        e->expected = *now;
                        return 0;
                }
        }
        e->user_owned = true;
        state_file_cgroup_release(t->state, &e->state_slot);
        log_info("%s: changed by someone else (%s), leaving it alone.", e->group.name,
                 state_describe(now, buf));
        return 1;
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

static int entry_write(GroupTable *t, GroupEntry *e, const SchedGroupState *now,
                       const SchedGroupState *want)
{
        int r;

        if (!e->sd.unit_path)
                return sched_group_write_state(&e->group, now, want);
        /* systemd has no property for cpu.latency.nice and never writes the
         * file (not on daemon-reload either): it is written directly, on a
         * unit's cgroup that has the cpu controller (the file is there). */
        if (now->has_latency_nice && want->has_latency_nice &&
            now->latency_nice != want->latency_nice) {
                r = sched_group_write_latency_nice(&e->group, want->latency_nice);
                if (r < 0)
                        return r;
        }
        if (sched_group_weight_equal(&e->group, now, want))
                return 0;
        return group_systemd_set(t->systemd, &e->sd, want);
}

/* CPULatencyNice= asked for on a group without cpu.latency.nice: said once
 * for the kernel (an unpatched one has it nowhere), once per group for a
 * cgroup without the cpu controller, and at debug level for autogroups
 * (which never have one). The rule's other settings apply regardless. */
static void latency_missing_note(GroupTable *t, GroupEntry *e, pid_t pid, int value)
{
        const char *why = sched_group_latency_nice_missing(&e->group);

        if (!why)
                why = "its cpu.latency.nice cannot be read";
        if (e->group.kind == SCHED_GROUP_AUTOGROUP) {
                if (!t->latency_autogroup_noted)
                        log_debug("CPULatencyNice=%d for %d: not applied to %s: %s.", value,
                                  (int)pid, e->group.name, why);
                t->latency_autogroup_noted = true;
                return;
        }
        if (e->latency_noted || (t->latency_unsupported_noted && strstr(why, "kernel")))
                return;
        e->latency_noted = true;
        if (strstr(why, "kernel"))
                t->latency_unsupported_noted = true;
        log_notice("CPULatencyNice=%d for %d: not applied to %s: %s; the rule's other "
                   "settings apply.", value, (int)pid, e->group.name, why);
}

/* Into WANT, the latency nice S asks for, else E's original, where the
 * group has cpu.latency.nice (NOW). */
static void entry_want_latency(GroupTable *t, GroupEntry *e, pid_t pid, const Settings *s,
                               const SchedGroupState *now, SchedGroupState *want)
{
        /* The file came after the entry (systemd enabled the cpu controller
         * for a unit's weight): what it holds now was not latniced's. */
        if (now->has_latency_nice && !e->orig.has_latency_nice) {
                e->orig.has_latency_nice = true;
                e->orig.latency_nice = now->latency_nice;
        }
        if (!now->has_latency_nice) {
                if (settings_has(s, SETTING_CPU_LATENCY_NICE))
                        latency_missing_note(t, e, pid, s->cpu_latency_nice);
                return;
        }
        want->latency_nice = settings_has(s, SETTING_CPU_LATENCY_NICE) ? s->cpu_latency_nice
                                                                       : e->orig.latency_nice;
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
        e->shared = group_shared(t, &e->group, *ret_uid, why);
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
        return e->changed && !e->user_owned && !e->own_scope && e->acting_uid != 0;
}

/* E is to be watched from now on (entry_watched()): the caller's timer is
 * told, for a cgroup (an autogroup's members change only with events). */
static void entry_watch(GroupTable *t, GroupEntry *e)
{
        if (entry_watched(e) && e->group.kind != SCHED_GROUP_AUTOGROUP && t->on_watch)
                t->on_watch(t->watch_userdata);
}

/* E, changed for ACTING_UID's request, was found shared with another user
 * (WHY: which process): its original comes back, said once. It is not
 * changed for that user's rules again until a check finds it theirs alone
 * (at a rescan). */
static void entry_give_back(GroupTable *t, GroupEntry *e, const char *why)
{
        char buf[64];

        if (!e->shared)
                t->counters.n_shared++;
        e->shared = e->shared_known = true;
        e->checked_uid = e->acting_uid;
        if (!e->changed)
                return;
        log_notice("%s now holds %s as well (in it or a cgroup below it), not only uid %u's: "
                   "its original %s comes back; a group shared with another user is not "
                   "changed for a user's rules.",
                   e->group.name, why, (unsigned)e->acting_uid, state_describe(&e->orig, buf));
        (void)entry_restore(t, e);
        /* Restored, or someone else's since: latniced has nothing there to
         * give back any more (entry_restore() dropped its record). */
        e->changed = e->by_booster = false;
}

/* Write WANT to E (NOW: what it has), recorded in the state file first.
 * 1 written, 0 not (gone), negative errno (logged). */
static int entry_commit(GroupTable *t, GroupEntry *e, pid_t pid, const SchedGroupState *now,
                        const SchedGroupState *want)
{
        uint64_t refused = systemd_units_refusals(t->systemd);
        char buf[64];
        int r;

        if (entry_route(t, e) < 0)
                return 0;
        entry_record(t, e, want, e->changed ? &e->expected : NULL);
        r = entry_write(t, e, now, want);
        if (r < 0) {
                /* Not written: the record says what the group still has. */
                if (e->changed)
                        entry_record(t, e, &e->expected, NULL);
                else
                        state_file_cgroup_release(t->state, &e->state_slot);
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
        if (e->sd.unit_path || sched_group_read(&e->group, &e->expected) < 0)
                e->expected = *want;
        if (!sched_group_state_equal(&e->group, &e->expected, want))
                entry_record(t, e, &e->expected, NULL);
        e->changed = true;
        t->counters.n_applied++;
        log_info("%s: %s for %d.", e->group.name, state_describe(&e->expected, buf), (int)pid);
        return 1;
}

/* Bring E to what S asks for (unset: its original) for PID; BOOSTER: PID
 * is latency-sensitive and S boosts the group, which a protected group
 * still takes (only other processes' requests are held back there). */
static int entry_apply(GroupTable *t, GroupEntry *e, pid_t pid, const Settings *s, bool booster)
{
        SchedGroupState now, want;
        uint32_t weight = e->orig.weight;
        bool idle = e->orig.idle;
        char buf[64];
        char why[96];
        uid_t uid;
        int r;

        if (e->user_owned || (e->n_protectors > 0 && !booster))
                return 0;
        if (entry_shared(t, e, pid, &uid, why)) {
                /* What it holds was asked for by UID, for whom it is
                 * shared now: given back. Another user's request stays. */
                if (e->changed && e->acting_uid == uid)
                        entry_give_back(t, e, why);
                return 0;
        }
        r = sched_group_read(&e->group, &now);
        if (r < 0)
                return r == -ENOENT ? 0 : r;
        if (e->changed && !sched_group_state_equal(&e->group, &now, &e->expected) &&
            entry_foreign(t, e, &now) != 0)
                return 0;
        if (settings_has(s, SETTING_CPU_WEIGHT))
                weight = s->cpu_weight;
        if (settings_has(s, SETTING_CPU_IDLE))
                idle = s->cpu_idle;
        sched_group_state_want(&e->group, &now, weight, idle, &want);
        entry_want_latency(t, e, pid, s, &now, &want);
        /* The latest request wins: the group holds UID's from now on, and
         * is watched for other users' processes if UID is not root. */
        e->acting_uid = uid;
        if (sched_group_state_equal(&e->group, &now, &want)) {
                entry_watch(t, e);
                return 0;
        }
        if (t->dry_run) {
                log_info("%s: would set %s for %d (dry run).", e->group.name,
                         state_describe(&want, buf), (int)pid);
                return 1;
        }
        r = entry_commit(t, e, pid, &now, &want);
        if (r > 0) {
                e->by_booster = booster;
                entry_watch(t, e);
        }
        return r;
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
 * requester or a PROTECTOR (BOOSTER: one that asks for a boost). 1 with
 * *RET set; 0 if there is nothing to do (gone, or in a root group: never
 * the root). */
static int group_join(GroupTable *t, pid_t pid, uint64_t starttime, bool protector,
                      bool booster, GroupEntry **ret)
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
        r = requester_set(t, pid, starttime, *ret, protector || booster, booster);
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
        GroupEntry **a;
        int r;

        if (!e)
                return -ENOMEM;
        r = sched_group_cgroup2_of(&t->roots, t->proc_root, pid, &e->group);
        if (r <= 0)
                return r == -ENOMEM ? r : -ESRCH;
        if (sched_group_read(&e->group, &e->expected) < 0)
                sched_group_state_want(&e->group, &e->expected, 100, weight == SYSTEMD_WEIGHT_IDLE,
                                       &e->expected);
        e->orig = e->expected;
        e->orig.weight = 100;
        e->orig.idle = false;
        e->sd = (GroupSystemd){ .unit_path = strdup(cg), .orig = SYSTEMD_WEIGHT_UNSET,
                                .written = weight, .set = true };
        a = realloc(t->entries, (t->n_entries + 1) * sizeof(GroupEntry *));
        if (!e->sd.unit_path || !a) {
                if (a)
                        t->entries = a;
                entry_free(TAKE_PTR(e));
                return -ENOMEM;
        }
        t->entries = a;
        e->changed = e->route_known = e->own_scope = e->shared_known = true;
        t->entries[t->n_entries++] = e;
        entry_record(t, e, &e->expected, NULL);
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
        r = requester_set(t, pid, starttime, *ret, false, false);
        return r < 0 ? r : 1;
}

static int request(GroupTable *t, pid_t pid, uint64_t starttime, const Settings *s)
{
        Settings masked = *s;
        GroupEntry *e;
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
        if (r == 2)
                r = group_join(t, pid, starttime, false, booster, &e);
        if (r <= 0)
                return r;
        return entry_apply(t, e, pid, s, booster);
}

static int protect(GroupTable *t, pid_t pid, uint64_t starttime)
{
        GroupEntry *e;
        int r;

        r = group_join(t, pid, starttime, true, false, &e);
        if (r <= 0)
                return r;
        /* Demoted before the sensitive process showed up: not any more (a
         * booster's boost stays). */
        if (e->changed && !e->by_booster && entry_restore(t, e)) {
                e->changed = false;
                log_info("%s holds %d, which a rule makes latency-sensitive: not demoted.",
                         e->group.name, (int)pid);
        }
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
                entry_give_back(t, e, why);
        }
        group_place_done(&place);
}

size_t group_table_recheck(GroupTable *t)
{
        size_t n = 0;
        char why[96];

        if (!t)
                return 0;
        for (size_t i = 0; i < t->n_entries; i++) {
                GroupEntry *e = t->entries[i];

                if (!entry_watched(e) || e->group.kind == SCHED_GROUP_AUTOGROUP)
                        continue;
                if (group_shared(t, &e->group, e->acting_uid, why))
                        entry_give_back(t, e, why);
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
