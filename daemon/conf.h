/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Daemon configuration: /etc/latnice/latniced.conf, section [Daemon].
 *
 *   LogLevel = debug|info|notice|warning|err|...   (the command line wins)
 *   RestoreOnExit = yes|no                          (default yes)
 *   RespectManualChanges = yes|no                   (default yes)
 *   LatencyNiceBackend = auto|latency-nice|slice|none (default auto)
 *   BoostBudgetShare = PERCENT|off                  (default 50%, daemon/apply/budget.h)
 *   BoostBudgetWindow = DURATION (ms, s, min)       (default 10s)
 *   MaxRealtimePriority = 0..99                     (default 20, rtkit's; 0: no real time)
 *   MaxRealtimeThreadsPerUser = 0..100000           (default 25, rtkit's)
 *
 * Unknown sections and keys are warnings; a bad value, a line inih cannot
 * parse or a line longer than inih's line buffer (Debian builds it with
 * 200 bytes) is an error that rejects the whole file, so a reload keeps the
 * configuration in effect. Every message names FILE:LINE.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "daemon/apply/budget.h"
#include "lib/probe.h"

typedef struct DaemonConfig {
        int log_level;              /* -1: not set in the file */
        bool restore_on_exit;
        bool respect_manual_changes;
        LatencyBackend backend;     /* _LATENCY_BACKEND_AUTO for "auto" */
        BudgetConfig budget;        /* share_permille 0: off */
        int rt_max_priority;        /* Policy=rr|fifo: the cap (ApplyContext.rt_max_priority) */
        int rt_max_per_user;        /* granted threads of one user at once (rt-grants.h) */
} DaemonConfig;

/* rtkit's default cap on the priority it grants. */
#define RT_MAX_PRIORITY_DEFAULT 20
/* rtkit's default limit of real-time threads per user
 * (RT_GRANT_THREADS_PER_USER_DEFAULT). */
#define RT_MAX_PER_USER_DEFAULT 25

void daemon_config_init(DaemonConfig *c);

/*
 * Parse TEXT (SIZE bytes, need not be NUL-terminated); FILENAME is used in
 * messages. On success *ret gets the defaults overridden by the file. On
 * error (-EINVAL) *ret is untouched. Either way, if RET_MESSAGES is not
 * NULL it gets a NULL-terminated list of "FILE:LINE: error: ..." and
 * "FILE:LINE: warning: ..." lines (NULL if there are none).
 */
int daemon_config_parse(const char *filename, const char *text, size_t size, DaemonConfig *ret,
                        char ***ret_messages);

/* Read and parse PATH. A missing file is not an error (defaults). -EINVAL on
 * parse errors, other negative errno if the file cannot be read. */
int daemon_config_load(const char *path, DaemonConfig *ret, char ***ret_messages);
