/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Real-time group scheduling (CONFIG_RT_GROUP_SCHED): on such a kernel a
 * cpu cgroup has cpu.rt_runtime_us, the CPU time per period its real-time
 * threads may use, and the kernel refuses to make a thread real-time
 * (sched_setattr() fails with EPERM) while its own cgroup's runtime is 0,
 * which is what every new child group starts with. The root group and
 * autogroups are never refused this way.
 *
 * Only files are read here: which group holds a thread and what its
 * runtime is. What to do about it is the caller's.
 */
#pragma once

#include <stdint.h>
#include <sys/types.h>

#include "lib/sched-group.h"

typedef struct RtGroup {
        char *name;         /* for people: "cgroup (v1 cpu) /a/b", "cgroup /a/b" */
        int64_t runtime_us; /* its cpu.rt_runtime_us: 0 none, -1 unlimited */
} RtGroup;

/*
 * The real-time runtime of the cpu cgroup that holds thread TID of process
 * PID (PROC_ROOT/PID/task/TID/cgroup; PROC_ROOT NULL: "/proc"), in the v1
 * cpu hierarchy of ROOTS when there is one, else in its cgroup2 tree.
 * 1 with RET when that is a child cgroup with cpu.rt_runtime_us; 0 when the
 * kernel does not bound real time there (no real-time group scheduling, the
 * root group); -ESRCH when the thread is gone, -ENOMEM, -EIO for a value
 * that is not a number, or the error reading it.
 */
int rt_group_of(const SchedGroupRoots *roots, const char *proc_root, pid_t pid, pid_t tid,
                RtGroup *ret);
void rt_group_done(RtGroup *g);
