/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Focus changes: which processes to evaluate again, through the applier's
 * ordinary path (applier_process()), when the focus store changed.
 */
#pragma once

#include <sys/types.h>

#include "daemon/apply/apply.h"

/* Every process in CGROUP_ROOT/CGROUP and the cgroups below it. Returns
 * the number evaluated, or a negative errno (-ENOENT: the cgroup is gone). */
int focus_eval_cgroup(Applier *a, const char *cgroup_root, const char *cgroup);

/* Process PID (0: none), its children (PROC_ROOT/PID/task/TID/children), and,
 * if APP_CGROUP is not NULL, the processes of that app cgroup. Returns the
 * number evaluated. */
int focus_eval_process(Applier *a, const char *proc_root, const char *cgroup_root, pid_t pid,
                       const char *app_cgroup);
