/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Private to daemon/groups/: the group table (groups.h) as its two files
 * share it. groups.c owns the requests (who asks what of which group, how
 * their asks combine, sharing with other users, protection, GroupScope=own,
 * requests a paused manager put off); group-ledger.c owns what latniced
 * holds of each group as the ledger's claims (daemon/state/ledger-claim.h):
 * writing, settling, giving back, and taking over a dead latniced's
 * records.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon/groups/group-asks.h"
#include "daemon/groups/group-scope.h"
#include "daemon/groups/group-systemd.h"
#include "daemon/groups/groups.h"
#include "daemon/state/ledger-claim.h"
#include "daemon/state/state-file.h"
#include "daemon/watch/pidmap.h"
#include "lib/hashmap.h"
#include "lib/sched-group.h"

/*
 * What latniced holds of a group is the ledger's (ledger-claim.h): the
 * group's state in its files ("weight idle nice [latency]", state_format())
 * and, for a unit's cgroup, the unit's CPUWeight= (a unit property record),
 * each with its original, expected value and record. Of a unit's files only
 * the latency nice is latniced's write (systemd has no property for it):
 * systemd writes the weight and idle from the property.
 */
typedef struct Requester Requester; /* groups.c's */

typedef struct GroupEntry {
        SchedGroup group;
        LedgerClaim files;        /* the group's state (files_same() compares) */
        LedgerClaim unit;         /* its unit's CPUWeight= (systemd_weight_to_string()) */
        char *unit_before;        /* what the unit had before a CPUWeight= set that systemd
                                   * did not answer in time (written, not yet known),
                                   * until a look at the unit settles it; NULL: none */
        bool user_owned;          /* changed by someone else since: theirs */
        bool shared;              /* its subtree holds processes of other users than CHECKED_UID's */
        bool shared_known;        /* SHARED was found out for CHECKED_UID (reset at rescans) */
        uid_t checked_uid;
        pid_t shared_pid;         /* the other user's process that made it SHARED (0: none
                                   * known): its exit or uid change has it looked at again */
        uid_t acting_uid;         /* whose request it holds (0: root's, or not known) */
        Requester *requesters;    /* its requesters, protectors included (a list) */
        size_t n_requesters;
        size_t n_protectors;      /* latency-sensitive members: the group is not demoted */
        size_t n_boosters;        /* protectors whose rules ask for a boost of the group */
        GroupAsks asks;           /* admitted requesters' asks, protectors' not (group-asks.h) */
        GroupAsks booster_asks;   /* admitted boosters' asks: what counts while protected */
        bool latency_noted;       /* its missing cpu.latency.nice was logged */
        bool route_known;         /* whether a systemd unit owns it was asked */
        GroupSystemd sd;          /* its unit, if so: CPUWeight= set through systemd */
        bool own_scope;           /* a scope latniced asked for (group-scope.h) */
} GroupEntry;

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
        bool stopping;             /* group_table_restore_all(): latniced stops */
};

/* Does latniced hold anything of E (it changed it)? */
static inline bool entry_changed(const GroupEntry *e)
{
        return ledger_claim_held(&e->files) || ledger_claim_held(&e->unit);
}

/* ---- groups.c ------------------------------------------------------------ */

/* The claims' records stay: the next latniced's, unless given back first. */
void entry_free(GroupEntry *e);
GroupEntry *entry_find(GroupTable *t, const SchedGroup *g);

/* ---- group-ledger.c ------------------------------------------------------ */

/* "weight 100", "weight 100, idle", and ", latency nice -5" where the group
 * has one: for the log. */
const char *state_describe(const SchedGroupState *s, char buf[static 64]);
/* The state of a claim's value (state_format()'s: "weight idle nice
 * [latency]"). */
SchedGroupState claim_state(const char *v);
/* E's record in the state file, without its values (TARGET: its files, or
 * its unit's property). */
void entry_target(GroupTable *t, const GroupEntry *e, StateTarget target,
                  StateCgroupRecord *ret);
/* A write the state file could not record (UNRECORDED < 0): said once. */
void entry_unrecorded(GroupTable *t, const GroupEntry *e, int unrecorded);
/* Latniced's claim on E's files holds NOW from here on; ORIG: the original
 * if E's files were not latniced's yet. */
void entry_settle(GroupTable *t, GroupEntry *e, const SchedGroupState *orig,
                  const SchedGroupState *now);
/* E's original state: the ledger's, or NOW while latniced holds nothing. */
SchedGroupState entry_orig(GroupTable *t, GroupEntry *e, const SchedGroupState *now);
/* Write WANT to E (NOW: what it has) as the ledger's claims, each recorded
 * in the state file before it is made. */
int entry_write(GroupTable *t, GroupEntry *e, const SchedGroupState *now,
                const SchedGroupState *want);
/* E no longer holds what latniced left (NOW): 1 someone else's change (E
 * is user-owned now), 0 still latniced's, negative: cannot tell yet. */
int entry_foreign(GroupTable *t, GroupEntry *e, const SchedGroupState *now);
/* Give E its original state back where it is still as latniced left it;
 * latniced holds nothing there afterwards. True if something was written. */
bool entry_restore(GroupTable *t, GroupEntry *e);
