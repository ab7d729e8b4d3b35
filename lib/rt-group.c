/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/cgroup.h"
#include "lib/macro.h"
#include "lib/proc.h"
#include "lib/rt-group.h"
#include "lib/util.h"

/* /proc/PID/task/TID/cgroup: a line per hierarchy, each path at most
 * PATH_MAX (the kernel's buffer). */
#define TASK_CGROUP_FILE_MAX (64u * 1024u)

/* The runtime of cgroup REL below ROOT (KIND names the tree): 1 with RET,
 * 0 for the root group and for a cgroup without the file. */
static int runtime_of(const char *root, const char *rel, const char *kind, RtGroup *ret)
{
        _cleanup_free_ char *dir = NULL, *value = NULL;
        int64_t us;
        int r;

        if (!rel || streq(rel, "/"))
                return 0;
        r = cg_path_join(root, rel, &dir);
        if (r < 0)
                return r;
        r = cg_read(dir, "cpu.rt_runtime_us", &value);
        if (r == -ENOENT || r == -ENOTDIR)
                return 0;
        if (r < 0)
                return r;
        if (safe_atoi64(value, &us) < 0 || us < -1)
                return -EIO;
        if (asprintf(&ret->name, "%s %s", kind, rel) < 0) {
                ret->name = NULL;
                return -ENOMEM;
        }
        ret->runtime_us = us;
        return 1;
}

int rt_group_of(const SchedGroupRoots *roots, const char *proc_root, pid_t pid, pid_t tid,
                RtGroup *ret)
{
        _cleanup_free_ char *path = NULL, *buf = NULL, *rel = NULL;
        int r;

        *ret = (RtGroup){};
        r = proc_task_path(&path, proc_root ?: "/proc", pid, tid, "cgroup");
        if (r < 0)
                return r;
        r = read_full_file(path, TASK_CGROUP_FILE_MAX, &buf, NULL);
        if (r == -ENOENT)
                return -ESRCH;
        if (r < 0)
                return r;
        /* On a hybrid host the cpu controller is the v1 hierarchy's: there
         * the thread's v1 cgroup decides, its cgroup2 one has no cpu files. */
        if (roots->cpu_v1) {
                r = sched_group_cgroup_line(buf, true, &rel);
                if (r < 0)
                        return r;
                if (rel)
                        return runtime_of(roots->cpu_v1, rel, "cgroup (v1 cpu)", ret);
        }
        if (!roots->cgroup2)
                return 0;
        r = sched_group_cgroup_line(buf, false, &rel);
        if (r < 0)
                return r;
        return runtime_of(roots->cgroup2, rel, "cgroup", ret);
}

void rt_group_done(RtGroup *g)
{
        g->name = mfree(g->name);
}
