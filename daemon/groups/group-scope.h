/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * GroupScopes: a systemd scope of its own for a matched process whose rules
 * say GroupScope=own, where its unit's cgroup also holds processes no rule
 * asked group settings for (the shell that started make). The group settings
 * then act on that scope alone (daemon/groups/groups.h).
 *
 * latniced never moves a process itself: it asks the systemd manager that
 * owns the process's unit for a transient scope with the process in it
 * (StartTransientUnit, PIDs=), in the slice of that unit, with the rule's
 * CPUWeight= from the start, and waits for the start job
 * (systemd_units_start_scope()). Children forked later are born in the
 * scope, so a process tree costs one scope, for its first matched process:
 * four calls to the manager and its start job. systemd removes the scope
 * once it is empty.
 *
 * Who may get one: names are their users' choice, so a user's process gets
 * a scope only from that user's own manager, or from the system manager in
 * the user's own user-UID.slice (a login session's scope), never from the
 * system manager out of a system service; root's processes from either.
 * Each user has a budget of GROUP_SCOPE_BURST scopes, then one more every
 * GROUP_SCOPE_INTERVAL_USEC: a user who starts processes named like a
 * compiler in a loop costs latniced and the manager that much and no more.
 * A manager that does not answer pauses its user's scopes for a minute; a
 * user's manager that systemd-units.c paused does not (its requests come
 * again when that pause ends, daemon/groups/groups.h).
 * A refusal leaves the rule's group settings out for that process (its task
 * settings still apply); it is logged once per unit (up to
 * GROUP_SCOPE_LOGGED_MAX units, then the list starts over), an empty budget
 * once until the user gets a scope again.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon/groups/systemd-units.h"
#include "lib/sched-group.h"
#include "lib/time-util.h"

#define GROUP_SCOPE_PREFIX "latnice-"
#define GROUP_SCOPE_BURST 16u
#define GROUP_SCOPE_INTERVAL_USEC (2 * USEC_PER_SEC)
#define GROUP_SCOPE_PAUSE_USEC (60 * USEC_PER_SEC)
#define GROUP_SCOPE_USERS_MAX 1024u
#define GROUP_SCOPE_LOGGED_MAX 4096u

typedef struct GroupScopes GroupScopes;

int group_scopes_new(GroupScopes **ret);
GroupScopes *group_scopes_free(GroupScopes *g);
static inline void group_scopes_freep(GroupScopes **g)
{
        if (*g)
                group_scopes_free(*g);
}

/* "latnice-STARTTIME-PID.scope": unique per process, also after pid reuse. */
int group_scope_name(pid_t pid, uint64_t starttime, char **ret);

/* Is CGROUP_PATH (any prefix) a scope latniced asked for (its last
 * component "latnice-*.scope")? A process there is on its own already. */
bool group_scope_is_ours(const char *cgroup_path);

/* May a process of UID get a scope from the manager that owns the unit at
 * UNIT_CGROUP (relative to the cgroup2 root)? 1 yes; 0 no, with
 * *RET_REASON (static text); -ENXIO: not a unit's cgroup. */
int group_scope_permitted(uid_t uid, const char *unit_cgroup, const char **ret_reason);

/* Take one scope of UID's budget at NOW (CLOCK_MONOTONIC usec): true if
 * there was one. With GROUP_SCOPE_USERS_MAX users tracked, the one whose
 * budget is fullest makes room (a full budget is worth nothing). */
bool group_scopes_take(GroupScopes *g, uid_t uid, uint64_t now);

/* UID's manager did not answer (a stopped or stuck user manager, which its
 * user can arrange): no scope for UID before NOW + GROUP_SCOPE_PAUSE_USEC,
 * so that such a manager costs latniced one timeout per pause, not one per
 * process. */
void group_scopes_pause(GroupScopes *g, uid_t uid, uint64_t now);

/*
 * Ask for PID's scope (STARTTIME: its start time) out of the unit at
 * UNIT_CGROUP, with CPUWeight=WEIGHT, through S, and check that PID is in
 * it (/proc/PID/cgroup under PROC_ROOT, ROOTS->cgroup2). 1 with
 * *RET_CGROUP (the scope's cgroup, relative to the cgroup2 root); 0 if
 * there is none (refused, failed, gone: logged); -ENOMEM.
 */
int group_scope_make(GroupScopes *g, SystemdUnits *s, const SchedGroupRoots *roots,
                     const char *proc_root, pid_t pid, uint64_t starttime,
                     const char *unit_cgroup, uint64_t weight, char **ret_cgroup);
