/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Boost budget: a boosted process that does not mostly sleep loses its
 * boosts.
 *
 * The latency classes are for tasks that wake, do a little and sleep again
 * (a sound server's quantum, a compositor's frame). A boost (policy/boost.h:
 * what its user could not take itself) on a task that keeps a CPU busy takes
 * that CPU from everyone else, whoever chose the code it runs (LD_PRELOAD,
 * a debugger, a plug-in). rtkit bounds what it grants in the same spirit
 * (RLIMIT_RTTIME, and a canary that demotes every real-time task when they
 * starve the system).
 *
 * What is measured: per process, the CPU time of its boosted threads
 * together, over a window (BoostBudgetWindow=). When every thread of the
 * process is boosted (a rule on the process, no thread rules) that is the
 * process's own total from /proc/PID/stat, which also counts threads that
 * ended between two samples; otherwise the sum of each boosted thread's
 * run time from /proc/PID/task/TID/schedstat. A process whose share of one
 * CPU over a window is above BoostBudgetShare= is over budget: it is logged
 * once, with its numbers, and the applier evaluates it again, now with
 * every boost withheld (they go back to what the rules give without boosts,
 * or to the originals), for as long as the process lives. An exec does not
 * give them back: a process could otherwise spin for most of a window, exec
 * itself and start again. A new process (a restarted service) starts afresh.
 *
 * Cost: one timer, armed only while a boosted process is tracked, one
 * wake-up per window; per tracked process one read of a small /proc file
 * (per boosted thread with thread rules). Neither file takes the process's
 * mmap_lock (the kernel prints se.sum_exec_runtime for schedstat and the
 * cputime sums for stat), so a process cannot hold the sampling up.
 *
 * The judging is pure (budget_judge()); budget_sample() reads /proc under
 * a root the caller gives, so tests can point it at files of their own.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon/watch/pidmap.h"

/* The defaults (latniced.conf(5)); docs/benchmarks.md says how they were measured. */
#define BUDGET_SHARE_DEFAULT 500u                 /* permille of one CPU: 50% */
#define BUDGET_WINDOW_DEFAULT_USEC (10u * 1000000u) /* 10 s */
#define BUDGET_WINDOW_MIN_USEC (100u * 1000u)
#define BUDGET_WINDOW_MAX_USEC (3600u * 1000000u)
#define BUDGET_SHARE_MAX 100000u                  /* 10000% */
/* Processes tracked at most; beyond that a new boosted process is judged
 * over budget at once (its boosts are withheld), so the table is bounded
 * and nothing escapes it. */
#define BUDGET_PROCESSES_MAX 4096u

typedef struct BudgetConfig {
        unsigned share_permille; /* 0: no budget */
        uint64_t window_usec;
} BudgetConfig;

/*
 * Is CPU_NS of CPU time over WALL_NS of wall clock more than C allows?
 * Returns 1 over, 0 within, -EAGAIN if WALL_NS is too short to judge (under
 * half a window: the sample waits for the next one). *RET_PERMILLE gets the
 * share of one CPU, in permille (also on -EAGAIN).
 */
int budget_judge(const BudgetConfig *c, uint64_t cpu_ns, uint64_t wall_ns,
                 unsigned *ret_permille);

/* The CPU time of a stat line (utime + stime, fields 14 and 15, in clock
 * ticks of TICK_HZ) in ns. -EIO if it is not a stat line. */
int budget_parse_stat(const char *buf, size_t size, unsigned long tick_hz, uint64_t *ret_ns);
/* The run time of a schedstat line (its first field, ns). -EIO if none. */
int budget_parse_schedstat(const char *buf, size_t size, uint64_t *ret_ns);

typedef struct BudgetProcess BudgetProcess;

typedef struct Budget {
        BudgetConfig config;
        const char *proc_root; /* borrowed; NULL: /proc */
        PidMap processes;      /* pid -> BudgetProcess */
        unsigned long tick_hz;
        uint64_t n_revoked;    /* processes that lost their boosts */
        bool warned_full;      /* said that the table is full */
} Budget;

void budget_init(Budget *b, const char *proc_root);
void budget_done(Budget *b);
/* A new configuration: a change of window or share starts every window
 * afresh; share 0 forgets everything (and gives nothing back by itself:
 * the caller re-evaluates what it wants). */
void budget_configure(Budget *b, const BudgetConfig *c, uint64_t now_ns);

/*
 * Thread TID of process PID (start time STARTTIME) holds a boost by rule
 * RULE (BOOSTED), or no longer does. WHOLE: the decision is the process's,
 * every thread of it has it. Returns 1 if the process is tracked now and
 * the timer is needed, 0 if not, -ENOMEM. A process that is not tracked
 * when a table of BUDGET_PROCESSES_MAX is full is marked over budget.
 */
int budget_note(Budget *b, pid_t pid, uint64_t starttime, pid_t tid, bool boosted, bool whole,
                const char *rule, uint64_t now_ns);
/* TID of PID ended (TID == PID: the process). */
void budget_forget(Budget *b, pid_t pid, pid_t tid);

/* Why PID (started at STARTTIME) may have no boosts, or NULL. Borrowed
 * until the process is forgotten. */
const char *budget_revoked(const Budget *b, pid_t pid, uint64_t starttime);
/* Is anything tracked that needs sampling? */
bool budget_active(const Budget *b);

/* Sample every tracked process at NOW_NS; mark and log once each that is
 * over budget now, and then call REVOKED for each (it may note and forget). */
void budget_sample(Budget *b, uint64_t now_ns, void (*revoked)(void *userdata, pid_t pid),
                   void *userdata);
