/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Manager: latniced's state and event loop.
 *
 * Owns the sd-event loop, the configuration, the policy, the proc connector
 * subscription, the task table and the counters. Start-up order: probe the
 * kernel, load configuration and policy, adopt the entries of the state file
 * (what a killed latniced changed: daemon/state/adopt.h), subscribe to the proc connector,
 * scan /proc (so nothing started in between is missed), READY=1. The
 * control interface for the D-Bus layer is daemon/control.h.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "daemon/control.h"

typedef struct ManagerOptions {
        const char *config_file;  /* NULL: DAEMON_CONFIG_FILE */
        char **policy_dirs;       /* NULL: vendor, runtime, admin directories */
        bool dry_run;
        int log_level;            /* -1: from the configuration, else info */
        const char *bus;          /* "system", "session", "none" or an address */
        const char *cgroup_root;  /* NULL: the cgroup2 mount */
        const char *user_slice;   /* the users' slice in it; NULL: "/user.slice" (focus) */
        const char *user_runtime_dir; /* NULL: "/run/user" (audio: PipeWire sockets) */
        const char *proc_root;    /* NULL: "/proc" */
        size_t recv_buffer;       /* proc connector receive buffer; 0: default */
        const char *state_file;   /* NULL: STATE_FILE_DEFAULT (daemon/state/state-file.h) */
} ManagerOptions;

int manager_new(const ManagerOptions *o, Manager **ret);
Manager *manager_free(Manager *m);
static inline void manager_freep(Manager **m)
{
        if (*m)
                manager_free(*m);
}

/* The front end manager_start() starts (daemon/control.h); none if never
 * called. FE must outlive the manager. */
void manager_set_front_end(Manager *m, const ManagerFrontEnd *fe);

/* Probe, load, subscribe, scan, notify READY=1. */
int manager_start(Manager *m);
/* Run the event loop until SIGTERM/SIGINT; then restore (RestoreOnExit=yes).
 * Returns the exit code of the loop (0) or a negative errno. */
int manager_run(Manager *m);
