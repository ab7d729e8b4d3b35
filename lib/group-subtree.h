/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Group subtree: whose processes a setting of a scheduling group reaches.
 *
 * The kernel weighs a cgroup against its siblings with everything below it:
 * cpu.idle or cpu.shares of a cgroup reaches every process in every cgroup
 * of its subtree, not only the processes in its own cgroup.procs. Whether a
 * group holds processes of another user is therefore read from the whole
 * subtree (every descendant's cgroup.procs; an autogroup has no subtree, its
 * members are read from PROC_ROOT), and the read is bounded: a subtree with
 * more cgroups or processes than the caller allows is too large to check,
 * which the caller takes as shared.
 *
 * And where a process is (its cgroup2 and v1 cpu cgroups, its autogroup),
 * to tell cheaply whether an event's process is inside a group's subtree.
 *
 * Readers only; every path is a parameter (a test's tree, a test's /proc).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/sched-group.h"

/* Bounds for latniced: a user's build tree is far below them. */
#define GROUP_SUBTREE_CGROUPS_MAX 1024u
#define GROUP_SUBTREE_PROCS_MAX 65536u

/*
 * Is there a process whose real uid is not UID in G or in any cgroup below
 * it (for an autogroup: among its members)? Pids are read from each
 * cgroup's cgroup.procs (cgroup.threads where a threaded cgroup has no
 * process list), uids from PROC_ROOT/PID/status; a process gone meanwhile
 * is skipped. 1 with *RET_PID and *RET_UID (both optional) set to one such
 * process; 0 if there is none; -E2BIG if the subtree has more than
 * MAX_CGROUPS cgroups (or is deeper than CG_WALK_DEPTH_MAX) or more than
 * MAX_PROCS pids; another negative errno if it cannot be read (a cgroup
 * directory that vanished is not an error). Stops at the first one found.
 */
int group_subtree_other_user(const SchedGroup *g, const char *proc_root, uid_t uid,
                             size_t max_cgroups, size_t max_procs, pid_t *ret_pid,
                             uid_t *ret_uid);

/* Where a process is: its cgroup2 cgroup and its v1 cpu cgroup (full
 * directories under the ROOTS; NULL where it has none or is in the root),
 * and its autogroup's id (0: not read or none). */
typedef struct GroupPlace {
        char *cgroup2;
        char *cpu_v1;
        uint64_t autogroup;
} GroupPlace;

/* Read the place of PID from PROC_ROOT/PID/cgroup, and with AUTOGROUP its
 * /proc/PID/autogroup too (one more file). -ESRCH if it is gone. */
int group_place_of(const SchedGroupRoots *roots, const char *proc_root, pid_t pid, bool autogroup,
                   GroupPlace *ret);
void group_place_done(GroupPlace *p);
/* Is a process at P inside G's subtree (G's cgroup or one below it, of the
 * same hierarchy; for an autogroup, the same autogroup)? */
bool group_place_within(const GroupPlace *p, const SchedGroup *g);
