/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Control interface: what the D-Bus layer (daemon/bus/bus.c) may ask of the
 * manager, and nothing else. Implemented by the manager (daemon/manager.c).
 *
 * Strings returned are owned by the caller unless marked borrowed.
 * Authorization is the bus layer's job (daemon/bus/bus-auth.h); these functions
 * trust their caller, except that manager_set_task() lets it judge the
 * process it read before it changes anything. What latniced never changes
 * (kernel threads, pid 1, real-time tasks) is refused here, for every caller.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "lib/probe.h"
#include "lib/sched.h"
#include "lib/settings.h"
#include "policy/decide-task.h"

typedef struct Manager Manager;
typedef struct FocusStore FocusStore; /* daemon/desktop/focus.h */

/* A front end of the manager; the D-Bus service (daemon/bus/bus.c) is the one
 * latniced has. The manager starts it once it listens to the proc connector
 * (START gets the --bus address; a failure is logged and latniced runs
 * without it), tells it of every thread it applies settings to, and frees
 * it with itself. The manager knows it only through this table, so the bus
 * and the manager do not include each other. */
typedef struct ManagerFrontEnd {
        const char *name; /* for the log: "D-Bus" */
        int (*start)(Manager *m, sd_event *event, const char *address, void **ret);
        void (*task_applied)(void *fe, pid_t pid, pid_t tid, const char *rule,
                             const Settings *s);
        /* App cgroup CGROUP's focus changed (PID 0), or PID was named the
         * foreground process (CGROUP its app cgroup, or NULL); STORE says
         * what is known now. Optional. */
        void (*focus_changed)(void *fe, FocusStore *store, const char *cgroup, pid_t pid);
        /* Process PID started or stopped playing audio (manager_get_audio()
         * says what is known now). Optional. */
        void (*audio_changed)(void *fe, pid_t pid);
        void (*free)(void *fe);
} ManagerFrontEnd;

typedef struct ManagerStatus {
        const char *version;          /* borrowed */
        const char *backend;          /* latency backend in use: "latency-nice", "slice", "none" */
        bool dry_run;
        bool sched_ext_active;
        const char *sched_ext_state;      /* scx_state_to_string(), live */
        const char *sched_ext_scheduler;  /* its name, NULL if none */
        const char *preemption_model;     /* preempt_model_to_string() */
        const char *preemption;           /* sched_info_preempt_describe() */
        uint32_t hz;                      /* 0: unknown */
        uint32_t settings_in_effect;      /* sched_effect_mask(): the SETTING_BIT()s that act now */
        const char *core_sched;       /* core_sched_status_to_string(): "yes" or why not */
        uint64_t start_usec;          /* CLOCK_REALTIME */
        uint64_t last_reload_usec;
        uint64_t n_events;            /* proc connector events handled */
        uint64_t n_lost;              /* ENOBUFS occurrences */
        uint64_t n_rescans;
        uint64_t n_evaluated;         /* processes matched against the policy */
        uint64_t n_applied;           /* successful applications (threads) */
        uint64_t n_restored;          /* threads given their original attributes back */
        uint64_t n_failed;
        uint64_t n_managed;           /* tasks (threads) currently managed */
        uint64_t n_user_owned;        /* tasks left alone after someone else changed them */
        uint64_t n_fd_exhaustions;    /* evaluations failed for want of file descriptors */
        uint64_t n_put_off;           /* evaluations put off: a cmdline read cut short or held off */
        uint64_t n_batched_storms;    /* storms of events that led to nothing, read in batches */
        uint64_t n_shared_groups;     /* groups found shared with another user (left, given back) */

        uint64_t n_unrecorded;        /* tasks that got no record in the state file (no space) */
        uint64_t n_threads_deferred;  /* thread events put off: their user was over its budget */
        uint64_t n_threads_full;      /* thread events left to a rescan: the budget's tables full */
        uint64_t n_rules, n_files, n_units;
        /* Policy loads (start and reloads) by result: every file taken,
         * some files rejected (their last good version kept), the load
         * failed as a whole (the policy in effect kept). */
        uint64_t n_loads_ok, n_loads_rejected, n_loads_failed;
        /* Diagnostics (errors and warnings) of the last load, formatted
         * "file:line:col: error: msg"; NULL-terminated, owned by the manager. */
        char *const *last_reload_diagnostics;
} ManagerStatus;

void manager_get_status(Manager *m, ManagerStatus *ret);
const KernelFeatures *manager_kernel(Manager *m);

typedef struct ManagedTask {
        pid_t pid, tid;
        const char *comm;      /* borrowed */
        const char *rule;      /* borrowed; last matching rule, or "manual" for SetTask */
        Settings applied;      /* what latniced applied */
        bool user_owned;
} ManagedTask;

/* Snapshot of the managed tasks; *ret is a malloc'ed array (free() it),
 * string pointers stay valid until the next event-loop iteration. */
int manager_list_tasks(Manager *m, ManagedTask **ret, size_t *ret_n);

/* Explain PID with the policy in effect, as the applier decides it, through
 * the front door (policy/decide-task.h: the [Unit] settings of its cgroup,
 * the rules, boosts withheld): reads /proc, fills *RET (the caller calls
 * task_decision_done(); its decision is RET->d), with THREADS every
 * thread's decision too (when the policy has thread rules), and TRACE
 * (optional; the caller calls match_trace_done()). Writes nothing. -ESRCH
 * if no such process, -EBUSY if its cmdline (or an ancestor's) could not be
 * read in time, -EAGAIN without a policy. */
int manager_explain(Manager *m, pid_t pid, bool threads, MatchTrace *ret_trace,
                    TaskDecision *ret);

/* A process as manager_set_task() read it, once, before changing anything. */
typedef struct SetTaskTarget {
        pid_t pid;
        uid_t uid;                /* real uid */
        const char *comm;         /* borrowed */
        size_t n_threads;
        const pid_t *tids;        /* borrowed; threads that exited while read are not here */
        const SchedState *states; /* borrowed; states[i] is the state of tids[i] */
} SetTaskTarget;

/* Judges a SetTaskTarget: 0 lets the change go on; a negative errno refuses
 * it, with a message for the caller in *ret_why. */
typedef int (*set_task_check_t)(const SetTaskTarget *target, void *userdata, char **ret_why);

/* Apply S to every thread of PID now; the task becomes user-owned (the
 * policy leaves it alone from then on). The process is read once: CHECK
 * (optional) sees what was read and may refuse before anything changes.
 * -ESRCH, -EPERM (kernel thread, pid 1, RT/DL task), CHECK's error, or
 * other negative errno; *ret_error (NULL on entry) gets a message. */
int manager_set_task(Manager *m, pid_t pid, const Settings *s, set_task_check_t check,
                     void *userdata, char **ret_error);

/* Reload configuration and policy (like SIGHUP). Returns 0 even when files
 * were rejected (see status diagnostics); negative errno on resource failure. */
int manager_reload(Manager *m);

/* The /proc the manager reads ("/proc" unless the tests point it elsewhere). */
const char *manager_proc_root(Manager *m);

/* Policy directories in effect (borrowed, NULL-terminated; admin dir last). */
char *const *manager_policy_dirs(Manager *m);

/* ---- Focus (daemon/desktop/focus.h) ------------------------------------------ */

/*
 * Make PID the foreground process of its user (SetFocus,
 * SetForegroundProcess), named through METHOD (a static string) by the
 * process CALLER_PID of CALLER_UID: refused with -EACCES unless PRIVILEGED
 * or PID's real uid is CALLER_UID; -ESRCH if there is no such process, it
 * is a kernel thread, or it exited while it was read (it is held by a
 * pidfd meanwhile, so what is read is of the process PID named when the
 * call was handled); -EINVAL if PID is a thread, not a process, or
 * CALLER_PID is in another PID namespace than latniced (focus-ns.h). The
 * processes whose focus changed are evaluated again. *RET_ERROR (NULL on entry) gets a message on failure.
 */
int manager_set_focus(Manager *m, pid_t pid, uid_t caller_uid, bool privileged,
                      pid_t caller_pid, const char *method, char **ret_error);

/*
 * What the focus store says of PID, as text: *RET_STATE "yes", "no" or ""
 * (static), *RET_FACT (owned by the caller) the live fact, like "focused
 * since 12:03:11 (user.xdg.inactive-since on CGROUP)" or "focused
 * (SetForegroundProcess from pid 812)", "" when unknown; *RET_UNFOCUSED_USEC
 * (optional) for how long it has been unfocused (µs; 0 unless "no", the
 * "unfocused" key); *RET_UID the process's real uid. PID is read held by a pidfd (as manager_set_focus()):
 * -ESRCH, -EINVAL (a thread id; *RET_ERROR says which process), -ENOMEM.
 */
int manager_get_focus(Manager *m, pid_t pid, const char **ret_state, char **ret_fact,
                      uint64_t *ret_unfocused_usec, uid_t *ret_uid, char **ret_error);

/* ---- Audio (daemon/desktop/audio.h) ------------------------------------------ */

/*
 * What the audio store says of PID: *RET_STATE "playing", "no" or ""
 * (static), *RET_FACT (owned by the caller) the live fact, like "playing
 * audio through PipeWire node 57 since 12:03:11 (uid 1000's PipeWire)", ""
 * when unknown; *RET_NODE the running node (0: none); *RET_UID the
 * process's real uid. As manager_get_focus(): -ESRCH, -EINVAL (*RET_ERROR),
 * -ENOMEM.
 */
int manager_get_audio(Manager *m, pid_t pid, const char **ret_state, char **ret_fact,
                      uint32_t *ret_node, uid_t *ret_uid, char **ret_error);
