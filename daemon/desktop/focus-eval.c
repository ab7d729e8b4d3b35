/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Focus changes: the processes they concern (see focus-eval.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/desktop/focus-eval.h"
#include "lib/cgroup.h"
#include "lib/log.h"
#include "lib/macro.h"

typedef struct EvalWalk {
        Applier *a;
        int n;
} EvalWalk;

static void evaluate(Applier *a, pid_t pid, int *n)
{
        int r = applier_process(a, pid);

        if (r < 0 && r != -ENOMEM)
                log_debug("Focus: cannot evaluate %d again: %s", (int)pid, strerror(-r));
        else if (r == -ENOMEM)
                log_oom();
        (*n)++;
}

static int walk_one(const char *path, const char *rel, void *userdata)
{
        EvalWalk *w = userdata;
        _cleanup_free_ pid_t *pids = NULL;
        size_t n = 0;

        if (cg_read_procs(path, &pids, &n) < 0)
                return 0;
        for (size_t i = 0; i < n; i++)
                evaluate(w->a, pids[i], &w->n);
        return 0;
}

int focus_eval_cgroup(Applier *a, const char *cgroup_root, const char *cgroup)
{
        _cleanup_free_ char *path = NULL;
        EvalWalk w = { .a = a };
        int r;

        r = cg_path_join(cgroup_root, cgroup, &path);
        if (r < 0)
                return r;
        r = cg_walk(path, walk_one, &w);
        return r < 0 ? r : w.n;
}

/* The children of every thread of PID. */
static void eval_children(Applier *a, const char *proc_root, pid_t pid, int *n)
{
        _cleanup_free_ char *dir = NULL;
        struct dirent *de;
        DIR *d;

        if (asprintf(&dir, "%s/%d/task", proc_root, (int)pid) < 0)
                return (void)log_oom();
        d = opendir(dir);
        if (!d)
                return;
        while ((de = readdir(d))) {
                _cleanup_free_ char *path = NULL;
                FILE *f;
                int child;

                if (de->d_name[0] == '.')
                        continue;
                if (asprintf(&path, "%s/%s/children", dir, de->d_name) < 0)
                        break;
                f = fopen(path, "re");
                if (!f)
                        continue;
                while (fscanf(f, "%d", &child) == 1)
                        if (child > 0)
                                evaluate(a, child, n);
                fclose(f);
        }
        closedir(d);
}

int focus_eval_process(Applier *a, const char *proc_root, const char *cgroup_root, pid_t pid,
                       const char *app_cgroup)
{
        int n = 0, r;

        if (pid > 0) {
                evaluate(a, pid, &n);
                eval_children(a, proc_root, pid, &n);
        }
        if (app_cgroup && cgroup_root) {
                r = focus_eval_cgroup(a, cgroup_root, app_cgroup);
                if (r > 0)
                        n += r;
        }
        return n;
}
