/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Control interface: what the D-Bus layer (daemon/bus.c) may ask of the
 * manager, and nothing else. Implemented by the manager (daemon/manager.c).
 *
 * Strings returned are owned by the caller unless marked borrowed.
 * Authorization is the bus layer's job; these functions trust their caller.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/probe.h"
#include "lib/settings.h"
#include "policy/decide.h"

typedef struct Manager Manager;

typedef struct ManagerStatus {
        const char *version;          /* borrowed */
        const char *backend;          /* latency backend in use: "latency-nice", "slice", "none" */
        bool dry_run;
        bool sched_ext_active;
        uint64_t start_usec;          /* CLOCK_REALTIME */
        uint64_t last_reload_usec;
        uint64_t n_events;            /* proc connector events handled */
        uint64_t n_lost;              /* ENOBUFS occurrences */
        uint64_t n_rescans;
        uint64_t n_applied;           /* successful applications (threads) */
        uint64_t n_failed;
        uint64_t n_managed;           /* tasks (threads) currently managed */
        uint64_t n_user_owned;        /* tasks left alone after someone else changed them */
        uint64_t n_fd_exhaustions;    /* evaluations failed for want of file descriptors */
        uint64_t n_rules, n_files, n_units;
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

/* Explain PID with the policy in effect, as the applier decides it
 * (policy_decide(): the [Unit] settings of its cgroup, the rules, boosts
 * withheld): reads /proc, fills RESULT and TRACE (caller calls
 * match_trace_done). Writes nothing. -ESRCH if no such process. RESULT's
 * strings live until the next event-loop iteration. */
int manager_explain(Manager *m, pid_t pid, Decision *ret_result, MatchTrace *ret_trace);

/* Apply S to every thread of PID now; the task becomes user-owned (the
 * policy leaves it alone from then on). -ESRCH, -EPERM (kernel thread,
 * RT/DL task), or other negative errno; *ret_error gets a message. */
int manager_set_task(Manager *m, pid_t pid, const Settings *s, char **ret_error);

/* Reload configuration and policy (like SIGHUP). Returns 0 even when files
 * were rejected (see status diagnostics); negative errno on resource failure. */
int manager_reload(Manager *m);

/* Policy directories in effect (borrowed, NULL-terminated; admin dir last). */
char *const *manager_policy_dirs(Manager *m);
