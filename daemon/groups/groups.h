/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Groups: the group-level settings rules ask for (CPUWeight=, CPUIdle=,
 * CPULatencyNice= in a [Rule] or [Profile]), applied to the scheduling group
 * that holds each matched process (lib/sched-group.h: its cgroup under the
 * cpu controller, v2 or v1, else its autogroup), with ownership as for task
 * attributes. CPULatencyNice= needs cpu.latency.nice (a patched kernel, a
 * cgroup with the cpu controller): where the group has none it is said once
 * and the other settings still apply; an autogroup never has one.
 *
 * A group is changed while at least one living process whose rules ask for
 * it is in it; every such process is a requester. When the last requester
 * exits, leaves the group or stops asking (rule removed, reload), and on
 * exit, the group gets its original weight and idle flag back, unless
 * someone else changed them since latniced did: then they are theirs and
 * are left alone. Each requester's request is kept, and a group gets what
 * its live requesters ask for together, by one rule per field: idle if any
 * asks for CPUIdle=yes (else not if any asks CPUIdle=no), the lowest
 * CPUWeight=, the highest CPULatencyNice=; a field none asks for has its
 * original, so the last requester of a field that goes gives it back, and
 * requesters coming and going with one field never flip another (an
 * unfocused terminal's CPUWeight=50 beside its compilers' CPUIdle=yes).
 *
 * A group whose subtree (its cgroup and every cgroup below it, which its
 * settings reach too; lib/group-subtree.h) holds processes of another user
 * than the process that asks for it (unless that one is root's) is not
 * changed for it: names are the user's choice, the group is not only
 * theirs. A subtree too large to check counts as shared.
 * Sharing is checked at the first request of each user, again after each
 * rescan, and while latniced has changed a group for a user, also whenever
 * a process in it or entering it forks, execs or changes its uid
 * (group_table_member_event()) and on the caller's timer
 * (group_table_recheck(), for a process moved in by a write to
 * cgroup.procs, which brings no event): a group that becomes shared gets
 * its original back, said once. A group found shared is looked at again
 * when the other user's process found in it exits (group_table_release()),
 * changes its uid or execs (group_table_member_event()).
 *
 * Protection: a group that holds a latency-sensitive process (a protector)
 * is not changed for other processes' rules. A protector whose rules ask
 * for a boost of the group itself (CPUWeight= above 100, CPULatencyNice=
 * below 0; a boost it may have under policy/boost.h) is a booster: its
 * request applies there, over a demotion of before; while a protector is
 * in a group, only its boosters' requests count. When the last booster
 * goes, the group gets its original back; when the last protector goes,
 * what the other requesters ask for.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/sched-group.h"
#include "lib/settings.h"

typedef struct GroupTable GroupTable;

typedef struct GroupCounters {
        uint64_t n_applied;  /* group writes */
        uint64_t n_restored; /* groups given their originals back */
        uint64_t n_failed;
        uint64_t n_shared;   /* times a group was found shared with another user (left
                              * alone, or given its original back) */
} GroupCounters;

typedef struct SystemdUnits SystemdUnits;

/* PROC_ROOT borrowed ("/proc" if NULL); DRY_RUN: decide and log, write nothing.
 * SYSTEMD: the systemd managers (borrowed, outliving the table; NULL: no
 * systemd, or a test's /proc whose cgroups are nobody's units). */
int group_table_new(const char *proc_root, bool dry_run, SystemdUnits *systemd, GroupTable **ret);
GroupTable *group_table_free(GroupTable *t);

/*
 * Process PID (which started at STARTTIME) asks for the group settings of S
 * (SETTINGS_GROUP_MASK; empty: it asks for nothing, as group_table_release())
 * on the group that holds it now; if S boosts the group, as a booster.
 * Returns 1 if a group was written, 0 if not (nothing to do, no group, the
 * group is someone else's or protected), negative errno on resource failure.
 */
int group_table_request(GroupTable *t, pid_t pid, uint64_t starttime, const Settings *s);
/*
 * Process PID (STARTTIME) is latency-sensitive (its rules give it a boost):
 * the group that holds it is not demoted for other processes' rules while it
 * is in it, and is restored now if it was. A group is the unit of weight;
 * idling it for a build would idle the audio server in it too.
 */
int group_table_protect(GroupTable *t, pid_t pid, uint64_t starttime);
/* PID asks for nothing any more (it exited, or its rules changed): its
 * group gets what the others ask for. If PID made a group shared with
 * another user, that group is looked at again. */
void group_table_release(GroupTable *t, pid_t pid);
/* Forget requesters that no longer run; restore what nobody asks for
 * (when COMPLETE: every process was evaluated, none put off, so that nobody
 * asking is known; else once scans have been incomplete for 30 s); give back what is shared now
 * (group_table_recheck()). After a rescan. */
void group_table_sweep(GroupTable *t, bool complete);
/*
 * A request that needs a user's systemd manager while that manager is
 * paused (daemon/groups/systemd-units.h) is put off: nothing is written for
 * it (not the cgroup's files in the unit's stead, not an ancestor), and the
 * latest request of each such process is made again when the pause ends,
 * from EVENT's loop. Without an event, only its next evaluation does.
 */
typedef struct sd_event sd_event;
int group_table_attach_event(GroupTable *t, sd_event *event);

/* Before a rescan: sharing is checked again at each group's next request. */
void group_table_rescan_begin(GroupTable *t);

/*
 * ON_WATCH(USERDATA) is called whenever a cgroup is changed for a user
 * other than root: from then on the caller calls group_table_recheck()
 * now and then (latniced: every GROUP_RECHECK_USEC) until it returns 0.
 */
#define GROUP_RECHECK_USEC (1000 * 1000)
/* A sched_ext scheduler runs (SCHED_EXT): requests lose what it does not
 * read (lib/sched-effect.h), all group settings; the next request of each
 * process gives its group back. */
void group_table_set_sched_ext(GroupTable *t, bool sched_ext);
void group_table_set_watch(GroupTable *t, void (*on_watch)(void *userdata), void *userdata);
/* PID forked (the child), exec'd or changed its uid: if it is in the
 * subtree of a group latniced changed for another user, that group is
 * given back. Reads nothing while no such group exists; else PID's cgroup
 * file (and its autogroup where an autogroup was changed) and, if it is in
 * one, its uid. If PID made a group shared, that group is looked at
 * again. */
void group_table_member_event(GroupTable *t, pid_t pid);
/* Check the subtree of every cgroup latniced changed for a user other than
 * root, and give back those that hold another user's process now (or are
 * too large to check). Returns how many such cgroups remain. */
size_t group_table_recheck(GroupTable *t);
/* Restore every group latniced changed and forget everything (latniced
 * stops: the system manager gets longer to answer, systemd_units_stopping()).
 * Returns the number of groups restored. */
size_t group_table_restore_all(GroupTable *t);

/*
 * Keep every group latniced changes in F as well (state-file.h; borrowed,
 * NULL: none), as the ledger's claims (daemon/state/ledger-claim.h): the
 * group's state in its files, and a unit's CPUWeight= set through systemd
 * as a unit property record of its own; recorded before the write, dropped
 * once the original is back, so a latniced that dies gives nothing away.
 * F's group records of a previous latniced are taken over now (an older
 * latniced's record of a unit's group, with the unit's CPUWeight= in it, is
 * converted first, in F too): a group that still has what it wrote gets the
 * record's original, kept while a process asks for it, and restored by the
 * first complete group_table_sweep() (after a scan that put no evaluation
 * off) if none does; a group changed by someone else since, a cgroup that is
 * recreated, an autogroup whose session is over: the record is dropped. A
 * unit whose cgroup is gone gets its original CPUWeight= back at once, if
 * it still has latniced's. -ENOMEM.
 */
typedef struct StateFile StateFile;
int group_table_attach_state(GroupTable *t, StateFile *f);

size_t group_table_size(const GroupTable *t);
const GroupCounters *group_table_counters(const GroupTable *t);
