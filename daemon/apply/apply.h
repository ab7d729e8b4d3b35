/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Applier: the policy decision for a task and its application.
 *
 * For a process: read a snapshot from /proc (only what the policy needs),
 * match it (per thread when a thread: predicate took part), apply the result
 * to every thread, and remember in the task table what each thread had
 * before. Before changing a thread again, check that its attributes are
 * still what latniced left: if not, someone else (renice, chrt, rtkit) owns
 * it now and it is left alone, and so are threads its process creates
 * later. Ownership is per attribute: a thread that no longer matches (or
 * latniced's exit) gets back the original of every attribute latniced set
 * and nobody changed since. See "Races with the task" in apply.c. Kernel threads and RT/DL tasks are never
 * touched; a recycled pid is told apart by a pidfd and the start time
 * (see "Pid reuse" in apply.c).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon/watch/ancestors.h"
#include "daemon/apply/budget.h"
#include "daemon/control.h"
#include "daemon/desktop/audio.h"
#include "daemon/desktop/focus.h"
#include "daemon/groups/groups.h"
#include "daemon/watch/idcache.h"
#include "daemon/apply/inherit.h"
#include "daemon/watch/proc-cache.h"
#include "daemon/apply/rt-grants.h"
#include "daemon/apply/tasks.h"
#include "daemon/watch/process-log.h"
#include "lib/thread-settings.h"
#include "lib/proc.h"
#include "policy/policy.h"

typedef struct Applier Applier;

/* Called after settings were applied to (or, dry run, would be applied to)
 * one thread. */
typedef void (*applier_applied_t)(void *userdata, const Task *task);

/* Slots of the processes whose exec was not read (a power of two). */
#define APPLIER_UNREAD_MAX 4096
#define APPLIER_GIVEN_BACK_MAX 64
/* A fork whose event came less than this after latniced changed the parent
 * may have copied the parent's attributes before the change: the kernel
 * copies them when the fork begins (dup_task_struct()) but stamps the
 * event when it ends (proc_fork_connector()), and a fork takes that long
 * on a busy machine. Such a child is evaluated; a later one inherited. */
#define APPLIER_FORK_COPY_NSEC (1000ull * 1000ull * 1000ull)

/* A task that got back what it inherited of a boost (see applier_fork()). */
typedef struct GivenBack {
        pid_t pid;            /* 0: free */
        uint64_t ns;          /* CLOCK_MONOTONIC when it was given back */
        InheritSource src;    /* what it had inherited from (rule NULL) */
} GivenBack;

typedef struct ApplierCounters {
        uint64_t n_evaluated;  /* processes matched against the policy */
        uint64_t n_acted;      /* of them, to be changed or restored (evaluation_acts()) */
        uint64_t n_applied;    /* threads changed */
        uint64_t n_failed;     /* threads where applying failed (not counting vanished ones) */
        uint64_t n_restored;   /* threads given their original attributes back */
        uint64_t n_skipped;    /* threads left alone: RT/DL, kernel thread, user-owned */
        uint64_t n_reused;     /* pid reuse detected between read and apply */
        uint64_t n_deferred;   /* evaluations put off: the process kept its cmdline read waiting */
} ApplierCounters;

struct Applier {
        const Policy *policy;      /* borrowed; set with applier_set_policy() */
        TaskTable *tasks;          /* borrowed */
        AncestorCache *ancestors;  /* borrowed, optional: parent/ancestor names */
        IdCache *ids;              /* borrowed, optional: user/group names (else NSS per read) */
        GroupTable *groups;        /* borrowed, optional: group settings of rules */
        FocusStore *focus;         /* borrowed, optional: the "focused" key (daemon/desktop/focus.h) */
        AudioStore *audio;         /* borrowed, optional: the "audio" key (daemon/desktop/audio.h) */
        /* Borrowed, optional: what is known of a process for its threads (a
         * thread event then reads only the thread's name), and "boosts
         * withheld" and "thread rules applied" said once per process and
         * reason, not per thread (daemon/watch/proc-cache.h, daemon/watch/process-log.h). */
        ProcCache *proc_cache;
        ProcessLog *withheld, *thread_applied;
        /* Threads the last evaluation went through (its cost, for the
         * per-user thread budget of the caller). */
        size_t last_n_threads;
        ApplyContext ctx;          /* backend, base slice, dry run, proc root */
        /* The cgroup2 tree whose [Unit] sections give processes their base
         * settings (policy/unit-base.h); borrowed, NULL: none. */
        const char *cgroup_root;
        bool respect_manual_changes;
        /* A sched_ext scheduler runs: what it does not read is not written
         * (lib/sched-effect.h: sched_ext_mask_settings() on every thread's
         * settings before anything is compared or applied). */
        bool sched_ext;
        ProcReadPlan read_plan;    /* policy_read_plan() */
        bool thread_rules;         /* policy_has_thread_rules() */
        bool uses_ids;             /* the policy looks at user or group */
        bool pidfds;               /* hold processes by pidfd (proc root is /proc) */
        applier_applied_t on_applied;
        /* The apply step of [Unit] sections for P's cgroup (optional), after
         * its task settings. */
        void (*configure_units)(void *userdata, const ProcTask *p);
        /* PID could not be evaluated now: the bounded reader cut a read of
         * its (or an ancestor's) cmdline short or refused it (lib/proc.h).
         * Nothing of it was changed; the caller arranges to try again. */
        void (*deferred)(void *userdata, pid_t pid);
        /* The boost budget (borrowed, optional): a process it took the
         * boosts of gets none, and every thread given a boost (or no longer
         * holding one) is noted there. BUDGET_TRACKING is called when a
         * process is tracked (the caller arms its timer). */
        Budget *budget;
        void (*budget_tracking)(void *userdata);
        /* The bounds of real-time grants (borrowed, optional): a process's
         * RLIMIT_RTTIME before its first grant and back after its last,
         * and the per-user limit of granted threads (daemon/apply/rt-grants.h).
         * Without it no thread is granted real time. */
        RtGrants *rt;
        void *userdata;
        ApplierCounters counters;
        bool core_sched_warned;    /* said that the kernel cannot do CoreSched= */
        bool snapshot_gone;        /* the last snapshot found its process gone (or a zombie) */
        /* Processes whose exec latniced did not get to read: they were
         * gone first (see applier_fork()). Slot PID % APPLIER_UNREAD_MAX. */
        pid_t unread[APPLIER_UNREAD_MAX];
        /* While a child of a boosted process is evaluated at its fork: what
         * it inherits from (daemon/apply/inherit.h). */
        bool has_inherit;
        InheritSource inherit;
        /* The last APPLIER_GIVEN_BACK_MAX processes that got back what they
         * had inherited: a child they forked before has it too. */
        GivenBack given_back[APPLIER_GIVEN_BACK_MAX];
        unsigned given_back_next;
};

/* A ProcCache for Applier.proc_cache, of at most MAX processes, each kept
 * TTL_USEC at most (daemon/watch/proc-cache.h). */
int applier_proc_cache_new(size_t max, uint64_t ttl_usec, ProcCache **ret);

/* Start with no policy; CTX is copied (proc_root borrowed). */
void applier_init(Applier *a, TaskTable *tasks, const ApplyContext *ctx);
/* Use POLICY from now on (borrowed) and read of each process what it needs
 * (policy_read_plan()). */
void applier_set_policy(Applier *a, const Policy *policy);

/*
 * Evaluate process PID and every thread of it: apply, re-apply, or restore.
 * Returns 0 (also when the process vanished or is left alone), negative
 * errno on resource failures.
 */
int applier_process(Applier *a, pid_t pid);
/* The same for a process that has just called exec (its exec event): its
 * cmdline may be read without the bounded reader (PROC_READ_FRESH). */
int applier_exec(Applier *a, pid_t pid);
/* PID called exec and was gone before it could be read (its exit came in
 * the same batch of events): nothing is read, but a child it forked is
 * evaluated at its fork (applier_fork()). */
void applier_exec_gone(Applier *a, pid_t pid);
/* Thread PARENT_TID of process PARENT forked process CHILD at FORK_NS
 * (CLOCK_MONOTONIC, the event's stamp). A child inherits its parent's
 * attributes, which covers what latniced gave the parent before the fork,
 * not after: the child is evaluated itself if latniced changed the parent
 * only after the fork, or never read the parent's exec (it was gone
 * first). A child of a boosted thread (daemon/apply/inherit.h) is always
 * evaluated, and what it has of the boost and its own settings do not ask
 * for goes back to the parent's originals; so is a child forked by a
 * process before what it inherited was given back. Else nothing is read. */
int applier_fork(Applier *a, pid_t parent, pid_t parent_tid, pid_t child, uint64_t fork_ns);
/* Evaluate every thread of PID, the process as latniced last read it if it
 * keeps that (Applier.proc_cache), else read now: the merged evaluation of
 * threads put off (new or renamed). */
int applier_threads(Applier *a, pid_t pid);
/* Evaluate one thread TID of PID (new thread, renamed thread). */
int applier_thread(Applier *a, pid_t pid, pid_t tid);
/* TID exited: forget it. */
void applier_forget(Applier *a, pid_t pid, pid_t tid);

/* Evaluate every process in /proc, then drop table entries of tasks that
 * no longer exist (or whose tid was reused). */
int applier_rescan(Applier *a);

/* Give every managed, living thread the original of each attribute latniced
 * set and nobody changed since, and empty the table. Returns the number of
 * threads restored. */
size_t applier_restore_all(Applier *a);

/* SetTask (manager_set_task() in daemon/control.h): read PID and its threads
 * once, refuse kernel threads, pid 1 and RT/DL processes (-EPERM), let CHECK
 * (optional) judge what was read, then apply S to every thread and mark
 * them user-owned. -ESRCH, -EPERM, CHECK's error, other negative errno;
 * *ret_error (optional, NULL on entry) gets a message. */
int applier_set_manual(Applier *a, pid_t pid, const Settings *s, set_task_check_t check,
                       void *userdata, char **ret_error);

/* Settings a MatchResult asks a task to get: the merged settings limited to
 * what a task can carry, or an empty set when no rule matched. */
Settings applier_task_settings(const MatchResult *m);
