/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Tests for lib/cgroup.c on a temp directory used as a fake cgroup root, and
 * read-only on the real cgroup2 mount when there is one. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cgroup.h"
#include "lib/macro.h"
#include "lib/probe.h"
#include "tests/unit/test-util.h"

static char root[] = "/tmp/test-cgroup-XXXXXX";

static void mk(const char *rel)
{
        char p[PATH_MAX];
        snprintf(p, sizeof(p), "%s%s", root, rel);
        CHECK(mkdir(p, 0755) == 0);
}

static void put(const char *rel, const char *content)
{
        char p[PATH_MAX];
        FILE *f;

        snprintf(p, sizeof(p), "%s%s", root, rel);
        f = fopen(p, "we");
        CHECK(f);
        CHECK(fputs(content, f) >= 0);
        CHECK(fclose(f) == 0);
}

typedef struct Seen {
        char *rels[32];
        size_t n;
        const char *skip;
        const char *fail_at;
        const char *base; /* the walk's root; NULL: the fake root */
} Seen;

static int collect(const char *path, const char *rel, void *userdata)
{
        Seen *s = userdata;
        const char *base = s->base ?: root;

        CHECK(strncmp(path, base, strlen(base)) == 0);
        CHECK(streq(path + strlen(base), streq(rel, "/") ? "" : rel));
        CHECK(s->n < ELEMENTSOF(s->rels));
        s->rels[s->n] = strdup(rel);
        CHECK(s->rels[s->n]);
        s->n++;
        if (s->fail_at && streq(rel, s->fail_at))
                return -EBADMSG;
        if (s->skip && streq(rel, s->skip))
                return CG_WALK_SKIP;
        return 0;
}

static bool seen(const Seen *s, const char *rel)
{
        for (size_t i = 0; i < s->n; i++)
                if (streq(s->rels[i], rel))
                        return true;
        return false;
}

static void seen_free(Seen *s)
{
        for (size_t i = 0; i < s->n; i++)
                free(s->rels[i]);
        s->n = 0;
}

static void test_fake_root(void)
{
        char *v = NULL, *p = NULL, sub[PATH_MAX], gone[PATH_MAX];
        pid_t *pids = NULL;
        size_t n;
        Seen s = {};

        mk("/system.slice");
        mk("/system.slice/foo.service");
        mk("/system.slice/foo.service/payload");
        mk("/user.slice");
        put("/cgroup.procs", "1\n");
        put("/system.slice/foo.service/cgroup.procs", "123\n456\n");
        put("/system.slice/foo.service/cgroup.threads", "123\n124\n456\n");
        put("/system.slice/foo.service/cpu.weight", "100\n");
        put("/system.slice/cgroup.procs", "12\nnot-a-pid\n");
        put("/system.slice/foo.service/cgroup.type", "domain"); /* no newline */
        {
                char link[PATH_MAX];
                snprintf(link, sizeof(link), "%s/user.slice/loop", root);
                CHECK(symlink(root, link) == 0); /* must not be followed */
        }

        snprintf(sub, sizeof(sub), "%s/system.slice/foo.service", root);
        CHECK(cg_read(sub, "cpu.weight", &v) == 0);
        CHECK(streq(v, "100"));
        free(v);
        CHECK(cg_read(sub, "cgroup.type", &v) == 0);
        CHECK(streq(v, "domain"));
        free(v);
        CHECK(cg_write(sub, "cpu.weight", "200") == 0);
        CHECK(cg_read(sub, "cpu.weight", &v) == 0);
        CHECK(streq(v, "200"));
        free(v);
        CHECK(cg_has_file(sub, "cpu.weight"));
        CHECK(!cg_has_file(sub, "cpu.latency.nice"));
        /* a missing attribute file: -ENOENT (cg_write never creates files) */
        CHECK(cg_write(sub, "cpu.latency.nice", "-5") == -ENOENT);
        CHECK(!cg_has_file(sub, "cpu.latency.nice"));

        CHECK(cg_read_procs(sub, &pids, &n) == 0);
        CHECK(n == 2 && pids[0] == 123 && pids[1] == 456);
        free(pids);
        CHECK(cg_read_threads(sub, &pids, &n) == 0);
        CHECK(n == 3 && pids[1] == 124);
        free(pids);
        pids = NULL;
        /* garbage in a member list is an error, not a silent skip */
        snprintf(gone, sizeof(gone), "%s/system.slice", root);
        CHECK(cg_read_procs(gone, &pids, &n) == -EIO);
        CHECK(!pids);

        /* a vanished cgroup is quiet: -ENOENT everywhere */
        snprintf(gone, sizeof(gone), "%s/system.slice/gone.service", root);
        CHECK(cg_write(gone, "cpu.weight", "100") == -ENOENT);
        CHECK(cg_read(gone, "cpu.weight", &v) == -ENOENT);
        CHECK(cg_read_procs(gone, &pids, &n) == -ENOENT);
        CHECK(!pids);
        CHECK(cg_walk(gone, collect, &s) == -ENOENT);
        CHECK(s.n == 0);

        /* path joining */
        CHECK(cg_path_join("/sys/fs/cgroup/", "/system.slice/a.service", &p) == 0);
        CHECK(streq(p, "/sys/fs/cgroup/system.slice/a.service"));
        free(p);
        CHECK(cg_path_join("/sys/fs/cgroup", "/", &p) == 0);
        CHECK(streq(p, "/sys/fs/cgroup"));
        free(p);
        CHECK(cg_path_join("/", "x", &p) == 0);
        CHECK(streq(p, "/x"));
        free(p);

        /* walk */
        CHECK(cg_walk(root, collect, &s) == 0);
        CHECK(s.n == 5);
        CHECK(streq(s.rels[0], "/"));
        CHECK(seen(&s, "/system.slice") && seen(&s, "/system.slice/foo.service") &&
              seen(&s, "/system.slice/foo.service/payload") && seen(&s, "/user.slice"));
        CHECK(!seen(&s, "/user.slice/loop"));
        seen_free(&s);

        s.skip = "/system.slice/foo.service";
        CHECK(cg_walk(root, collect, &s) == 0);
        CHECK(s.n == 4 && seen(&s, "/system.slice/foo.service"));
        CHECK(!seen(&s, "/system.slice/foo.service/payload"));
        seen_free(&s);
        s.skip = NULL;

        s.fail_at = "/system.slice";
        CHECK(cg_walk(root, collect, &s) == -EBADMSG);
        seen_free(&s);
}

static void test_real_root(void)
{
        char *mnt = NULL, *v = NULL;
        pid_t *pids = NULL;
        size_t n;
        Seen s = {};
        int r;

        r = cg_find_mount(&mnt);
        if (r < 0) {
                printf("no cgroup2 mount, real-root checks skipped\n");
                return;
        }
        CHECK(cg_read(mnt, "cgroup.controllers", &v) == 0);
        free(v);
        /* the root lists processes, at least pid 1 unless namespaced */
        CHECK(cg_read_procs(mnt, &pids, &n) == 0);
        free(pids);
        s.base = mnt;
        s.skip = "/"; /* the root only: do not walk a whole host tree */
        CHECK(cg_walk(mnt, collect, &s) == 0);
        CHECK(s.n == 1);
        seen_free(&s);

        /* a real cgroup that is removed: writes and reads are -ENOENT */
        if (geteuid() == 0) {
                char name[64], *dir = NULL;

                snprintf(name, sizeof(name), "latnice-test-cgroup-%d", (int) getpid());
                CHECK(cg_path_join(mnt, name, &dir) == 0);
                if (mkdir(dir, 0755) == 0) {
                        CHECK(cg_read_procs(dir, &pids, &n) == 0 && n == 0);
                        free(pids);
                        CHECK(rmdir(dir) == 0);
                        CHECK(cg_write(dir, "cgroup.procs", "0") == -ENOENT);
                        CHECK(cg_read(dir, "cgroup.procs", &v) == -ENOENT);
                } else
                        printf("cannot create a cgroup under %s: %m\n", mnt);
                free(dir);
        }
        free(mnt);
}

int main(void)
{
        char cmd[300];

        CHECK(mkdtemp(root));
        test_fake_root();
        test_real_root();
        snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", root);
        CHECK(system(cmd) == 0);
        return 0;
}
