/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CPU lists ("0-3,8", as in /sys and /proc/PID/status Cpus_allowed_list) and
 * the CPUs that share the largest last-level cache, from sysfs
 * (SYSFS_ROOT/devices/system/cpu/cpu*\/cache/index*\/{level,type,size,
 * shared_cpu_list}). SYSFS_ROOT NULL means "/sys"; tests pass a tree of
 * their own. CPUAffinity= (lib/task-attr.c) is made of these.
 */
#pragma once

#include <sched.h>

/* "0-3,8": CPU numbers and ranges N-M (N <= M) below CPU_SETSIZE, separated
 * by commas, no blanks, at least one CPU. On error -EINVAL, *RET untouched,
 * *RET_ERROR (if not NULL) a message and *RET_COLUMN (if not NULL) the
 * 0-based offset in S where it starts. */
int cpu_list_parse(const char *s, cpu_set_t *ret, char **ret_error, unsigned *ret_column);
/* SET as a list, ranges joined ("0-3,8"); "" for no CPU. */
int cpu_list_format(const cpu_set_t *set, char **ret);

/* The CPUs that share the last-level cache (the highest level a CPU has a
 * data or unified cache of) that is largest (its size; the one with the
 * lowest CPU among equals). -ENOENT if sysfs describes no cache (some
 * virtual machines); -errno for another error. */
int cpu_llc_read(const char *sysfs_root, cpu_set_t *ret);
/* SYSFS_ROOT/devices/system/cpu/online. */
int cpu_online_read(const char *sysfs_root, cpu_set_t *ret);
