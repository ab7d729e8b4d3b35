/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Group subtree: whose processes a group setting reaches (see the header). */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cgroup.h"
#include "lib/group-subtree.h"
#include "lib/macro.h"
#include "lib/proc.h"
#include "lib/trust.h"
#include "lib/util.h"

/* The walk's state: what is counted, and what was found. */
typedef struct SubtreeWalk {
        const char *proc_root;
        uid_t uid;
        size_t max_cgroups, max_procs;
        size_t n_cgroups, n_procs;
        pid_t found_pid;
        uid_t found_uid;
} SubtreeWalk;

/* Stops the walk: a process of another user was found. */
#define SUBTREE_FOUND (-ECANCELED)

/* 1 if one of PIDS (N) is a living process of another user than W's (put
 * in W), 0 if none, negative errno if a uid cannot be read. */
static int pids_other_user(SubtreeWalk *w, const pid_t *pids, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                uid_t uid;
                int r = proc_real_uid(w->proc_root, pids[i], &uid);

                if (r == -ESRCH || r == -ENOENT)
                        continue; /* gone */
                if (r < 0)
                        return r;
                if (uid != w->uid) {
                        w->found_pid = pids[i];
                        w->found_uid = uid;
                        return 1;
                }
        }
        return 0;
}

static size_t rel_depth(const char *rel)
{
        size_t d = 0;

        for (const char *p = rel; *p; p++)
                if (*p == '/' && p[1])
                        d++;
        return d;
}

static int subtree_visit(const char *path, const char *rel, void *userdata)
{
        _cleanup_free_ pid_t *pids = NULL;
        SubtreeWalk *w = userdata;
        size_t n = 0;
        int r;

        if (++w->n_cgroups > w->max_cgroups || rel_depth(rel) + 1 >= CG_WALK_DEPTH_MAX)
                return -E2BIG;
        r = cg_read_procs(path, &pids, &n);
        /* A threaded cgroup of cgroup2 lists threads only. */
        if (r == -EOPNOTSUPP)
                r = cg_read_threads(path, &pids, &n);
        if (r == -ENOENT)
                return CG_WALK_SKIP; /* removed meanwhile */
        if (r < 0)
                return r;
        if (n > w->max_procs || w->n_procs > w->max_procs - n)
                return -E2BIG;
        w->n_procs += n;
        r = pids_other_user(w, pids, n);
        if (r < 0)
                return r;
        return r > 0 ? SUBTREE_FOUND : 0;
}

static int autogroup_other_user(SubtreeWalk *w, const SchedGroup *g)
{
        _cleanup_free_ pid_t *pids = NULL;
        size_t n = 0;
        int r;

        r = sched_group_members(g, w->proc_root, 0, w->max_procs + 1, &pids, &n);
        if (r < 0)
                return r;
        if (n > w->max_procs)
                return -E2BIG;
        return pids_other_user(w, pids, n);
}

int group_subtree_other_user(const SchedGroup *g, const char *proc_root, uid_t uid,
                             size_t max_cgroups, size_t max_procs, pid_t *ret_pid,
                             uid_t *ret_uid)
{
        SubtreeWalk w = { .proc_root = proc_root ?: "/proc", .uid = uid,
                          .max_cgroups = max_cgroups, .max_procs = max_procs };
        int r;

        switch (g->kind) {
        case SCHED_GROUP_AUTOGROUP:
                r = autogroup_other_user(&w, g);
                break;
        case SCHED_GROUP_CGROUP1:
        case SCHED_GROUP_CGROUP2:
                r = cg_walk(g->path, subtree_visit, &w);
                if (r == SUBTREE_FOUND)
                        r = 1;
                break;
        default:
                return 0;
        }
        if (r <= 0)
                return r;
        if (ret_pid)
                *ret_pid = w.found_pid;
        if (ret_uid)
                *ret_uid = w.found_uid;
        return 1;
}

/* ---- Where a process is ------------------------------------------------ */

static int place_join(const char *root, char *rel, char **ret)
{
        if (!root || !rel || streq(rel, "/"))
                return 0;
        return cg_path_join(root, rel, ret);
}

int group_place_of(const SchedGroupRoots *roots, const char *proc_root, pid_t pid, bool autogroup,
                   GroupPlace *ret)
{
        _cleanup_free_ char *path = NULL, *buf = NULL, *v2 = NULL, *v1 = NULL, *line = NULL;
        GroupPlace p = {};
        int nice, r;

        r = proc_cgroup_read(proc_root, pid, &buf);
        if (r < 0)
                return r;
        r = sched_group_cgroup_line(buf, false, &v2);
        if (r >= 0)
                r = sched_group_cgroup_line(buf, true, &v1);
        if (r >= 0)
                r = place_join(roots->cgroup2, v2, &p.cgroup2);
        if (r >= 0)
                r = place_join(roots->cpu_v1, v1, &p.cpu_v1);
        if (r >= 0 && autogroup) {
                free(path);
                if (asprintf(&path, "%s/%d/autogroup", proc_root ?: "/proc", (int)pid) < 0)
                        path = NULL;
                /* No autogroup file (autogroup off): no autogroup. */
                if (path && read_one_line_file(path, &line) >= 0 &&
                    autogroup_parse(line, &p.autogroup, &nice) < 0)
                        p.autogroup = 0;
                r = path ? 0 : -ENOMEM;
        }
        if (r < 0) {
                group_place_done(&p);
                return r;
        }
        *ret = p;
        return 0;
}

void group_place_done(GroupPlace *p)
{
        free(p->cgroup2);
        free(p->cpu_v1);
        *p = (GroupPlace){};
}

/* Is DIR the directory TOP or one below it? */
static bool dir_within(const char *dir, const char *top)
{
        size_t n = strlen(top);

        while (n > 1 && top[n - 1] == '/')
                n--;
        return dir && strncmp(dir, top, n) == 0 && (dir[n] == 0 || dir[n] == '/');
}

bool group_place_within(const GroupPlace *p, const SchedGroup *g)
{
        switch (g->kind) {
        case SCHED_GROUP_CGROUP2:
                return dir_within(p->cgroup2, g->path);
        case SCHED_GROUP_CGROUP1:
                return dir_within(p->cpu_v1, g->path);
        case SCHED_GROUP_AUTOGROUP:
                return p->autogroup != 0 && p->autogroup == g->id;
        default:
                return false;
        }
}
