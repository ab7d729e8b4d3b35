/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/cgroup.h"
#include "lib/latency-slice.h"
#include "lib/macro.h"
#include "lib/proc.h"
#include "lib/sched-group.h"
#include "lib/util.h"

/* ---- Where the cpu controller lives ---------------------------------- */

/* True if the comma-separated OPTIONS has the word WORD. */
static bool has_option(const char *options, const char *word)
{
        size_t n = strlen(word);

        for (const char *p = options; p && *p;) {
                const char *end = strchrnul(p, ',');

                if ((size_t)(end - p) == n && strncmp(p, word, n) == 0)
                        return true;
                p = *end ? end + 1 : end;
        }
        return false;
}

int sched_group_roots_find(SchedGroupRoots *ret)
{
        _cleanup_free_ char *buf = NULL, *ag = NULL;
        SchedGroupRoots r = {};
        char *save = NULL;
        int k;

        k = read_full_file("/proc/self/mounts", 16u * 1024u * 1024u, &buf, NULL);
        if (k < 0)
                return k;
        for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                char dev[256], dir[4096], type[64], opts[1024];

                if (sscanf(line, "%255s %4095s %63s %1023s", dev, dir, type, opts) != 4)
                        continue;
                if (streq(type, "cgroup2") && !r.cgroup2)
                        r.cgroup2 = strdup(dir);
                else if (streq(type, "cgroup") && has_option(opts, "cpu") && !r.cpu_v1)
                        r.cpu_v1 = strdup(dir);
        }
        if (read_one_line_file("/proc/sys/kernel/sched_autogroup_enabled", &ag) >= 0)
                r.autogroup = streq(ag, "1");
        *ret = r;
        return 0;
}

void sched_group_roots_done(SchedGroupRoots *r)
{
        free(r->cgroup2);
        free(r->cpu_v1);
        *r = (SchedGroupRoots){};
}

/* ---- Which group holds a process -------------------------------------- */

int autogroup_parse(const char *line, uint64_t *ret_id, int *ret_nice)
{
        unsigned long long id;
        int nice, n = 0;

        if (sscanf(line, "/autogroup-%llu nice %d%n", &id, &nice, &n) != 2 || n == 0)
                return -EIO;
        if (nice < -20 || nice > 19)
                return -EIO;
        *ret_id = id;
        *ret_nice = nice;
        return 0;
}

int sched_group_cgroup_line(const char *buf, bool v1_cpu, char **ret)
{
        const char *line = buf;

        *ret = NULL;
        while (line && *line) {
                const char *end = strchrnul(line, '\n'), *c1 = strchr(line, ':'), *c2;

                if (c1 && c1 < end && (c2 = strchr(c1 + 1, ':')) && c2 < end) {
                        _cleanup_free_ char *ctrl = strndup(c1 + 1, (size_t)(c2 - c1 - 1));

                        if (!ctrl)
                                return -ENOMEM;
                        if (v1_cpu ? has_option(ctrl, "cpu") : (c2 == c1 + 1 && line[0] == '0')) {
                                *ret = strndup(c2 + 1, (size_t)(end - c2 - 1));
                                return *ret ? 0 : -ENOMEM;
                        }
                }
                line = *end ? end + 1 : NULL;
        }
        return 0;
}

static int group_set(SchedGroup *g, SchedGroupKind kind, const char *root, const char *rel)
{
        int r;

        g->kind = kind;
        r = cg_path_join(root, rel, &g->path);
        if (r < 0)
                return r;
        if (asprintf(&g->name, "%s %s", kind == SCHED_GROUP_CGROUP2 ? "cgroup" : "cgroup (v1 cpu)",
                     rel) < 0) {
                g->name = NULL;
                return -ENOMEM;
        }
        return 1;
}

/* 1 if PID is in a non-root cgroup that has a cpu controller, 0 if not. */
static int group_of_cgroups(const SchedGroupRoots *roots, const char *cgroups, SchedGroup *g)
{
        _cleanup_free_ char *rel = NULL, *dir = NULL;
        int r;

        if (roots->cgroup2) {
                r = sched_group_cgroup_line(cgroups, false, &rel);
                if (r < 0)
                        return r;
                if (rel && !streq(rel, "/") && cg_path_join(roots->cgroup2, rel, &dir) >= 0 &&
                    cg_has_file(dir, "cpu.weight"))
                        return group_set(g, SCHED_GROUP_CGROUP2, roots->cgroup2, rel);
                free(rel);
                rel = NULL;
        }
        if (roots->cpu_v1) {
                r = sched_group_cgroup_line(cgroups, true, &rel);
                if (r < 0)
                        return r;
                if (rel && !streq(rel, "/"))
                        return group_set(g, SCHED_GROUP_CGROUP1, roots->cpu_v1, rel);
        }
        return 0;
}

int sched_group_of(const SchedGroupRoots *roots, const char *proc_root, pid_t pid,
                   SchedGroup *ret)
{
        _cleanup_free_ char *path = NULL, *cgroups = NULL, *line = NULL;
        SchedGroup g = {};
        uint64_t id;
        int nice, r;

        r = proc_cgroup_read(proc_root, pid, &cgroups);
        if (r < 0)
                return r;
        r = group_of_cgroups(roots, cgroups, &g);
        if (r != 0) {
                if (r < 0)
                        sched_group_done(&g);
                else
                        *ret = g;
                return r < 0 ? r : 0;
        }

        /* Root cgroup of the cpu controller: the autogroup, if any. */
        if (roots->autogroup) {
                free(path);
                if (asprintf(&path, "%s/%d/autogroup", proc_root ?: "/proc", (int)pid) < 0)
                        return -ENOMEM;
                r = read_one_line_file(path, &line);
                if (r == -ENOENT)
                        return -ESRCH;
                if (r >= 0 && autogroup_parse(line, &id, &nice) >= 0 && id > 0) {
                        g.kind = SCHED_GROUP_AUTOGROUP;
                        g.id = id;
                        g.path = TAKE_PTR(path);
                        if (asprintf(&g.name, "autogroup %" PRIu64, id) < 0) {
                                g.name = NULL;
                                sched_group_done(&g);
                                return -ENOMEM;
                        }
                }
        }
        *ret = g;
        return 0;
}

int sched_group_cgroup2_of(const SchedGroupRoots *roots, const char *proc_root, pid_t pid,
                           SchedGroup *ret)
{
        _cleanup_free_ char *cgroups = NULL, *rel = NULL;
        SchedGroup g = {};
        int r;

        if (!roots->cgroup2)
                return 0;
        r = proc_cgroup_read(proc_root, pid, &cgroups);
        if (r < 0)
                return r;
        r = sched_group_cgroup_line(cgroups, false, &rel);
        if (r < 0 || !rel || streq(rel, "/"))
                return r;
        r = group_set(&g, SCHED_GROUP_CGROUP2, roots->cgroup2, rel);
        if (r < 0) {
                sched_group_done(&g);
                return r;
        }
        *ret = g;
        return 1;
}

void sched_group_done(SchedGroup *g)
{
        free(g->path);
        free(g->name);
        *g = (SchedGroup){};
}

bool sched_group_equal(const SchedGroup *a, const SchedGroup *b)
{
        if (a->kind != b->kind)
                return false;
        if (a->kind == SCHED_GROUP_AUTOGROUP)
                return a->id == b->id;
        return streq_ptr(a->path, b->path);
}

/* ---- Knobs ------------------------------------------------------------- */

uint64_t sched_group_weight_to_shares(uint32_t weight)
{
        return CLAMP((uint64_t)weight * 1024 / 100, 2, 262144);
}

uint32_t sched_group_shares_to_weight(uint64_t shares)
{
        return (uint32_t)CLAMP((shares * 100 + 512) / 1024, 1, 10000);
}

int sched_group_weight_to_nice(uint32_t weight)
{
        uint64_t want = (uint64_t)weight * 1024 / 100;
        int best = 0;

        for (int i = 0; i < 40; i++) {
                uint64_t w = (uint64_t)sched_prio_to_weight[i];
                uint64_t d = w > want ? w - want : want - w;
                uint64_t bw = (uint64_t)sched_prio_to_weight[best];
                uint64_t bd = bw > want ? bw - want : want - bw;

                if (d < bd)
                        best = i;
        }
        return best - 20;
}

uint32_t sched_group_nice_to_weight(int nice)
{
        return sched_group_shares_to_weight((uint64_t)sched_prio_to_weight[CLAMP(nice, -20, 19) + 20]);
}

static int read_u64_file(const char *dir, const char *file, uint64_t *ret)
{
        _cleanup_free_ char *v = NULL;
        int r;

        r = cg_read(dir, file, &v);
        if (r < 0)
                return r;
        return safe_atou64(v, ret);
}

/* cpu.latency.nice: -ENOENT if the kernel (or the cgroup) has none. */
static int read_latency_nice(const char *dir, int *ret)
{
        _cleanup_free_ char *v = NULL;
        int64_t n;
        int r;

        r = cg_read(dir, "cpu.latency.nice", &v);
        if (r < 0)
                return r;
        r = safe_atoi64(v, &n);
        if (r < 0)
                return r;
        if (n < -20 || n > 19)
                return -EIO;
        *ret = (int)n;
        return 0;
}

int sched_group_read(const SchedGroup *g, SchedGroupState *ret)
{
        SchedGroupState s = { .weight = 100 };
        _cleanup_free_ char *line = NULL;
        uint64_t v, id;
        int r;

        switch (g->kind) {
        case SCHED_GROUP_CGROUP2:
        case SCHED_GROUP_CGROUP1:
                r = read_u64_file(g->path, g->kind == SCHED_GROUP_CGROUP2 ? "cpu.weight" : "cpu.shares",
                                  &v);
                /* A cgroup2 cgroup the cpu controller is not enabled for
                 * (yet: systemd enables it when a unit asks for a weight)
                 * has the defaults. */
                if (r == -ENOENT && g->kind == SCHED_GROUP_CGROUP2 && access(g->path, F_OK) >= 0) {
                        *ret = s;
                        return 0;
                }
                if (r < 0)
                        return r;
                s.weight = g->kind == SCHED_GROUP_CGROUP2 ? (uint32_t)CLAMP(v, 1, 10000)
                                                          : sched_group_shares_to_weight(v);
                /* cpu.idle needs Linux 5.15; without it a group is not idle. */
                if (read_u64_file(g->path, "cpu.idle", &v) >= 0)
                        s.idle = v != 0;
                r = read_latency_nice(g->path, &s.latency_nice);
                if (r < 0 && r != -ENOENT)
                        return r;
                s.has_latency_nice = r >= 0;
                break;
        case SCHED_GROUP_AUTOGROUP:
                r = read_one_line_file(g->path, &line);
                if (r < 0)
                        return r == -ESRCH ? -ENOENT : r;
                r = autogroup_parse(line, &id, &s.nice);
                if (r < 0)
                        return r;
                if (id != g->id)
                        return -ENOENT; /* the process it was found through left it */
                s.weight = sched_group_nice_to_weight(s.nice);
                s.idle = s.nice == 19;
                break;
        default:
                return -EINVAL;
        }
        *ret = s;
        return 0;
}

int sched_group_write_latency_nice(const SchedGroup *g, int latency_nice)
{
        char buf[16];

        if (g->kind != SCHED_GROUP_CGROUP2 && g->kind != SCHED_GROUP_CGROUP1)
                return -EOPNOTSUPP;
        snprintf(buf, sizeof(buf), "%d", latency_nice);
        return cg_write(g->path, "cpu.latency.nice", buf);
}

int sched_group_write_state(const SchedGroup *g, const SchedGroupState *cur,
                            const SchedGroupState *want)
{
        char buf[32];
        int r;

        switch (g->kind) {
        case SCHED_GROUP_CGROUP2:
        case SCHED_GROUP_CGROUP1:
                if (cur->has_latency_nice && want->has_latency_nice &&
                    cur->latency_nice != want->latency_nice) {
                        r = sched_group_write_latency_nice(g, want->latency_nice);
                        if (r < 0)
                                return r;
                }
                /* An idle group's weight cannot be written (EINVAL) and reads
                 * as the idle weight: leave idle first, and write a weight
                 * only to a group that is not idle. */
                if (cur->idle && !want->idle) {
                        r = cg_write(g->path, "cpu.idle", "0");
                        if (r < 0)
                                return r;
                }
                if (!want->idle && (want->weight != cur->weight || cur->idle)) {
                        if (g->kind == SCHED_GROUP_CGROUP2)
                                snprintf(buf, sizeof(buf), "%" PRIu32, want->weight);
                        else
                                snprintf(buf, sizeof(buf), "%" PRIu64,
                                         sched_group_weight_to_shares(want->weight));
                        r = cg_write(g->path, g->kind == SCHED_GROUP_CGROUP2 ? "cpu.weight"
                                                                             : "cpu.shares",
                                     buf);
                        if (r < 0)
                                return r;
                }
                if (want->idle && !cur->idle)
                        return cg_write(g->path, "cpu.idle", "1");
                return 0;
        case SCHED_GROUP_AUTOGROUP:
                if (want->nice == cur->nice)
                        return 0;
                snprintf(buf, sizeof(buf), "%d", want->nice);
                r = write_string_file(g->path, buf);
                return r == -ESRCH ? -ENOENT : r;
        default:
                return -EINVAL;
        }
}

void sched_group_state_want(const SchedGroup *g, const SchedGroupState *cur, uint32_t weight,
                            bool idle, SchedGroupState *ret)
{
        SchedGroupState w = { .weight = weight, .idle = idle, .nice = cur->nice,
                              .has_latency_nice = cur->has_latency_nice,
                              .latency_nice = cur->latency_nice };

        if (g->kind == SCHED_GROUP_AUTOGROUP) {
                /* Keep the nice when the weight is what it already gives. */
                if (!(weight == cur->weight && idle == cur->idle))
                        w.nice = idle ? 19 : sched_group_weight_to_nice(weight);
                w.weight = sched_group_nice_to_weight(w.nice);
                w.idle = w.nice == 19;
        }
        *ret = w;
}

bool sched_group_state_equal(const SchedGroup *g, const SchedGroupState *a,
                             const SchedGroupState *b)
{
        /* A group without the file (an unpatched kernel, no cpu controller
         * yet) has no latency nice to differ in. */
        if (a->has_latency_nice && b->has_latency_nice && a->latency_nice != b->latency_nice)
                return false;
        return sched_group_weight_equal(g, a, b);
}

bool sched_group_weight_equal(const SchedGroup *g, const SchedGroupState *a,
                              const SchedGroupState *b)
{
        if (g->kind == SCHED_GROUP_AUTOGROUP)
                return a->nice == b->nice;
        /* The weight of an idle group is the kernel's idle weight. */
        if (a->idle || b->idle)
                return a->idle == b->idle;
        return a->weight == b->weight;
}

const char *sched_group_latency_nice_missing(const SchedGroup *g)
{
        switch (g->kind) {
        case SCHED_GROUP_AUTOGROUP:
                return "an autogroup has no latency nice";
        case SCHED_GROUP_CGROUP2:
        case SCHED_GROUP_CGROUP1:
                if (cg_has_file(g->path, "cpu.latency.nice"))
                        return NULL;
                /* A cgroup2 cgroup the cpu controller is not enabled for has
                 * no cpu.* file at all; a v1 cpu cgroup always has shares. */
                if (g->kind == SCHED_GROUP_CGROUP2 && !cg_has_file(g->path, "cpu.weight"))
                        return "its cgroup has no cpu controller";
                return "not supported by this kernel (no cpu.latency.nice)";
        default:
                return "the process is in a root group";
        }
}

/* ---- Members ------------------------------------------------------------ */

static int autogroup_members(const SchedGroup *g, const char *proc_root, pid_t pid, size_t max,
                             pid_t **ret, size_t *ret_n)
{
        _cleanup_free_ pid_t *pids = NULL, *out = NULL;
        size_t n = 0, k = 0;
        int r;

        r = proc_pids(proc_root ?: "/proc", &pids, &n);
        if (r < 0)
                return r;
        out = calloc(max ? max : 1, sizeof(pid_t));
        if (!out)
                return -ENOMEM;
        for (size_t i = 0; i < n && k < max; i++) {
                _cleanup_free_ char *path = NULL, *line = NULL;
                uint64_t id;
                int nice;

                if (pids[i] == pid)
                        continue;
                if (asprintf(&path, "%s/%d/autogroup", proc_root ?: "/proc", (int)pids[i]) < 0)
                        return -ENOMEM;
                if (read_one_line_file(path, &line) < 0)
                        continue;
                if (autogroup_parse(line, &id, &nice) >= 0 && id == g->id)
                        out[k++] = pids[i];
        }
        *ret = TAKE_PTR(out);
        *ret_n = k;
        return 0;
}

int sched_group_members(const SchedGroup *g, const char *proc_root, pid_t pid, size_t max,
                        pid_t **ret, size_t *ret_n)
{
        _cleanup_free_ pid_t *all = NULL;
        size_t n = 0, k = 0;
        int r;

        if (g->kind == SCHED_GROUP_AUTOGROUP)
                return autogroup_members(g, proc_root, pid, max, ret, ret_n);
        if (g->kind == SCHED_GROUP_NONE) {
                *ret = NULL;
                *ret_n = 0;
                return 0;
        }
        r = cg_read_procs(g->path, &all, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n && k < max; i++)
                if (all[i] != pid)
                        all[k++] = all[i];
        *ret = TAKE_PTR(all);
        *ret_n = k;
        return 0;
}
