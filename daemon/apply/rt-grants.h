/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What bounds latniced's real-time grants (Policy=rr|fifo) besides the
 * priority cap and SCHED_FLAG_RESET_ON_FORK of lib/thread-settings.c: the
 * two other bounds rtkit puts on the real time it grants (its defaults
 * are where the figures come from; the code is latnice's).
 *
 *   - RLIMIT_RTTIME. Before latniced grants real time to a thread, its
 *     process gets an RLIMIT_RTTIME of at most RT_GRANT_RTTIME_USEC, soft
 *     and hard (a lower limit it has stays): a real-time thread that runs
 *     that long without blocking gets SIGXCPU at the soft limit and
 *     SIGKILL at the hard one (setrlimit(2)), so no grant can hold a CPU.
 *     A hard limit lowered is given back only with CAP_SYS_RESOURCE (the
 *     service has it); without it only the soft limit is bounded (the
 *     process could raise it to its hard limit itself), and said at start.
 *     The original is a ledger claim (daemon/state/ledger-claim.h) with a
 *     process limit record in the state file, given back when the process
 *     has no grant left (a rule went away, reload, exit), only if the limit
 *     is still what latniced set; after a crash the record is taken over
 *     by the ledger's rule (rt_grants_adopt()).
 *   - Per user: at most MaxRealtimeThreadsPerUser= (latniced.conf(5);
 *     rtkit: 25) threads of one user hold a grant at once. Past it a new
 *     grant is withheld (the rule's other settings apply), said once per
 *     user until the user is below the limit again.
 *
 * Which threads hold a grant is the task table's word (task_rt_granted():
 * the entry holds Policy at a real-time policy), counted per process by
 * the table as it changes (task_table_grant_sync()); this keeps the
 * processes that have grants, their user, their limit's claim, and each
 * user's count, kept as the table's counts change: a decision costs O(1),
 * never a walk over the grants or the table.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon/apply/tasks.h"
#include "lib/kernel-ops.h"

/* rtkit's rttime-usec-max: the RLIMIT_RTTIME a granted process has at most. */
#define RT_GRANT_RTTIME_USEC 200000
/* rtkit's threads-per-user-max. */
#define RT_GRANT_THREADS_PER_USER_DEFAULT 25
/* Groups said to refuse real time (rt_grants_group_may()): a user can
 * make cgroups in a delegated subtree, so not one line per group for ever. */
#define RT_GROUPS_SAID_MAX 32

typedef struct RtGrants RtGrants;

/* The grants of the threads in TASKS (borrowed; its state file, when one
 * is attached, keeps the limits' records), through kernel K (NULL: the
 * real one), PROC_ROOT (NULL: "/proc") for start times. -ENOMEM. */
int rt_grants_new(TaskTable *tasks, const KernelOps *k, const char *proc_root, RtGrants **ret);
/* Frees G; the records stay (a latniced that exits without giving back
 * leaves them to the next). NULL ok. */
RtGrants *rt_grants_free(RtGrants *g);

/* At most MAX threads of one user hold a grant (0: none may). */
void rt_grants_set_max_per_user(RtGrants *g, unsigned max);
unsigned rt_grants_max_per_user(const RtGrants *g);

/* Threads of user UID that hold a grant (of processes with an entry). O(1). */
unsigned rt_grants_user_count(const RtGrants *g, uid_t uid);

/*
 * May one more thread of user UID (PID's, named COMM) be granted real
 * time? False past the limit, said once (log) until the user is below it
 * again.
 */
bool rt_grants_user_may(RtGrants *g, uid_t uid, pid_t pid, const char *comm);

/*
 * The kernel's own bound (lib/rt-group.h): with real-time group scheduling
 * it refuses real time to a thread whose cpu cgroup has no real-time
 * runtime. rt_grants_group_refuses(): 1 if it would refuse thread TID of
 * PID (the group's name in *RET_GROUP, NULL ok), 0 if not or if that cannot
 * be told (the write finds out), -ENOMEM. rt_grants_group_may(): 1 if
 * the grant may be tried, 0 if not, said in the log once per group (the
 * first RT_GROUPS_SAID_MAX), -ENOMEM. Checked before RLIMIT_RTTIME is
 * held, so that a grant the kernel refuses costs no limit and no record.
 */
int rt_grants_group_refuses(RtGrants *g, pid_t pid, pid_t tid, char **ret_group);
int rt_grants_group_may(RtGrants *g, pid_t pid, pid_t tid, const char *comm);
/* The kernel refused a grant all the same (EPERM): said once. */
void rt_grants_refused(RtGrants *g, pid_t pid, pid_t tid, const char *comm);

/*
 * A thread of process PID (start time ST) of user UID is to be granted real
 * time, or holds a grant: its process's RLIMIT_RTTIME is made at most
 * RT_GRANT_RTTIME_USEC, the original kept and recorded before the write.
 * 0 (bounded: by latniced's limit or a lower one of its own), -ENOMEM, or
 * the kernel's error (-ESRCH gone, -EPERM): then the grant must not be made.
 */
int rt_grants_hold(RtGrants *g, pid_t pid, uint64_t st, uid_t uid);

/* The grants of PID may have ended (a thread given back, gone): with none
 * left in the task table, its limit is given back (if latniced set one and
 * it is still as latniced left it) and its entry goes; a process that is
 * gone only loses its entry and record. */
void rt_grants_settle(RtGrants *g, pid_t pid);

/* Give back every process's limit (latniced stops; the threads were
 * given back first). Returns how many were written. */
size_t rt_grants_restore_all(RtGrants *g);

/*
 * Take over a dead latniced's process limit records from the task table's
 * state file, once, after its thread records were adopted: a limit that
 * still holds what latniced set (or the original) is latniced's, one
 * someone else changed is theirs (ledger.h); a process with no adopted
 * grant left gets its limit back at once. Returns how many were taken
 * over, or -ENOMEM.
 */
int rt_grants_adopt(RtGrants *g);

/* Is the hard limit bounded too (CAP_SYS_RESOURCE)? A test of a model
 * kernel says so itself. */
bool rt_grants_bounds_hard(const RtGrants *g);
void rt_grants_set_bounds_hard(RtGrants *g, bool b);

/* Processes with an entry (for tests and status). */
size_t rt_grants_n_processes(const RtGrants *g);
/* The user process PID's entry counts its grants for, in *RET; false if
 * it has no entry (for tests). */
bool rt_grants_process_user(const RtGrants *g, pid_t pid, uid_t *ret);
