/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Cgroup access (see cgroup.h for why this writes the files directly).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cgroup.h"
#include "lib/grow.h"
#include "lib/macro.h"
#include "lib/util.h"

static int cg_gone(int r)
{
        return r == -ENODEV ? -ENOENT : r;
}

static char *strjoin_slash(const char *rel)
{
        char *p;

        return asprintf(&p, "/%s", rel) < 0 ? NULL : p;
}

int cg_path_join(const char *root, const char *rel, char **ret)
{
        size_t n = strlen(root);
        char *p;

        while (n > 1 && root[n - 1] == '/')
                n--;
        rel = rel ? rel + strspn(rel, "/") : "";
        if (*rel == 0)
                p = strndup(root, n);
        else if (n == 1 && root[0] == '/')
                p = strjoin_slash(rel);
        else if (asprintf(&p, "%.*s/%s", (int) n, root, rel) < 0)
                p = NULL;
        if (!p)
                return -ENOMEM;
        *ret = p;
        return 0;
}

int cg_path_normalize(const char *path, char **ret)
{
        _cleanup_free_ char *out = NULL;
        size_t len = 0;

        if (!path)
                return -EINVAL;
        out = malloc(strlen(path) + 2);
        if (!out)
                return -ENOMEM;
        for (const char *p = path; *p;) {
                size_t n;

                p += strspn(p, "/");
                n = strcspn(p, "/");
                if (n == 0)
                        break;
                if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
                        return -EINVAL;
                out[len++] = '/';
                memcpy(out + len, p, n);
                len += n;
                p += n;
        }
        if (len == 0)
                out[len++] = '/';
        out[len] = 0;
        *ret = TAKE_PTR(out);
        return 0;
}

int cg_write(const char *dir, const char *file, const char *value)
{
        _cleanup_free_ char *p = NULL;
        int r;

        r = cg_path_join(dir, file, &p);
        if (r < 0)
                return r;
        return cg_gone(write_string_file(p, value));
}

int cg_read(const char *dir, const char *file, char **ret)
{
        _cleanup_free_ char *p = NULL, *buf = NULL;
        size_t n;
        int r;

        r = cg_path_join(dir, file, &p);
        if (r < 0)
                return r;
        r = read_full_file(p, 16u * 1024u * 1024u, &buf, &n);
        if (r < 0)
                return cg_gone(r);
        if (n > 0 && buf[n - 1] == '\n')
                buf[n - 1] = 0;
        *ret = TAKE_PTR(buf);
        return 0;
}

bool cg_has_file(const char *dir, const char *file)
{
        _cleanup_free_ char *p = NULL;

        if (cg_path_join(dir, file, &p) < 0)
                return false;
        return access(p, F_OK) == 0;
}

static int read_pid_list(const char *dir, const char *file, pid_t **ret, size_t *ret_n)
{
        _cleanup_free_ char *buf = NULL;
        _cleanup_free_ pid_t *pids = NULL;
        size_t n = 0, allocated = 0;
        char *line, *sp = NULL;
        int r;

        r = cg_read(dir, file, &buf);
        if (r < 0)
                return r;
        for (line = strtok_r(buf, "\n", &sp); line; line = strtok_r(NULL, "\n", &sp)) {
                pid_t p;

                if (parse_pid(line, &p) < 0)
                        return -EIO;
                if (GROW(pids, allocated, n + 1, 16) < 0)
                        return -ENOMEM;
                pids[n++] = p;
        }
        *ret = TAKE_PTR(pids);
        *ret_n = n;
        return 0;
}

int cg_read_procs(const char *dir, pid_t **ret, size_t *ret_n)
{
        return read_pid_list(dir, "cgroup.procs", ret, ret_n);
}

int cg_read_threads(const char *dir, pid_t **ret, size_t *ret_n)
{
        return read_pid_list(dir, "cgroup.threads", ret, ret_n);
}

static int walk(int dfd, const char *path, const char *rel, unsigned depth, cg_walk_func_t cb,
                void *userdata)
{
        _cleanup_closedir_ DIR *d = NULL;
        struct dirent *de;
        int r;

        r = cb(path, rel, userdata);
        if (r < 0 || r == CG_WALK_SKIP || depth >= CG_WALK_DEPTH_MAX) {
                safe_close(dfd);
                return r < 0 ? r : 0;
        }

        d = fdopendir(dfd);
        if (!d) {
                safe_close(dfd);
                return -errno;
        }
        while ((errno = 0, de = readdir(d))) {
                _cleanup_free_ char *sub = NULL, *subrel = NULL;
                int fd;

                if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
                        continue;
                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                fd = openat(dirfd(d), de->d_name,
                            O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0) {
                        if (errno == ENOENT || errno == ENODEV || errno == ENOTDIR ||
                            errno == ELOOP)
                                continue; /* vanished, or not a directory */
                        return -errno;
                }
                if (asprintf(&sub, "%s/%s", path, de->d_name) < 0 ||
                    asprintf(&subrel, "%s/%s", streq(rel, "/") ? "" : rel, de->d_name) < 0) {
                        safe_close(fd);
                        return -ENOMEM;
                }
                r = walk(fd, sub, subrel, depth + 1, cb, userdata);
                if (r < 0)
                        return r;
        }
        if (errno != 0 && errno != ENOENT && errno != ENODEV)
                return -errno;
        return 0;
}

int cg_walk(const char *root, cg_walk_func_t cb, void *userdata)
{
        _cleanup_free_ char *path = NULL;
        int fd, r;

        r = cg_path_join(root, NULL, &path);
        if (r < 0)
                return r;
        fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return cg_gone(-errno);
        return walk(fd, path, "/", 0, cb, userdata);
}

/* Decode the octal escapes (\040 etc.) the kernel uses in mounts files. */
static void unescape_mount_field(char *s)
{
        char *w = s;

        for (char *r = s; *r;) {
                if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
                    r[3] >= '0' && r[3] <= '7') {
                        *w++ = (char) (((r[1] - '0') << 6) | ((r[2] - '0') << 3) | (r[3] - '0'));
                        r += 4;
                } else
                        *w++ = *r++;
        }
        *w = 0;
}

int cg_find_mount_in(const char *mounts_path, char **ret)
{
        _cleanup_free_ char *buf = NULL;
        char *line, *saveptr = NULL;
        int r;

        r = read_full_file(mounts_path, 16u * 1024u * 1024u, &buf, NULL);
        if (r < 0)
                return r;

        for (line = strtok_r(buf, "\n", &saveptr); line; line = strtok_r(NULL, "\n", &saveptr)) {
                char *fields[3], *sp = NULL, *f = line;
                size_t n = 0;

                for (char *tok = strtok_r(f, " ", &sp); tok && n < 3; tok = strtok_r(NULL, " ", &sp))
                        fields[n++] = tok;
                if (n < 3 || !streq(fields[2], "cgroup2"))
                        continue;

                unescape_mount_field(fields[1]);
                if (fields[1][0] != '/')
                        continue;
                char *p = strdup(fields[1]);
                if (!p)
                        return -ENOMEM;
                *ret = p;
                return 0;
        }
        return -ENOENT;
}

int cg_find_mount(char **ret)
{
        return cg_find_mount_in("/proc/self/mounts", ret);
}

static bool file_exists_at(int dfd, const char *file)
{
        return faccessat(dfd, file, F_OK, 0) == 0;
}

int cg_tree_has_file(const char *root, const char *file)
{
        _cleanup_closedir_ DIR *d = NULL;
        struct dirent *de;

        d = opendir(root);
        if (!d)
                return -errno;
        if (file_exists_at(dirfd(d), file))
                return 1;

        while ((errno = 0, de = readdir(d))) {
                _cleanup_free_ char *p = NULL;

                if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
                        continue;
                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                if (asprintf(&p, "%s/%s", de->d_name, file) < 0)
                        return -ENOMEM;
                if (file_exists_at(dirfd(d), p))
                        return 1;
        }
        return 0;
}

int cg_has_controller(const char *root, const char *controller)
{
        _cleanup_free_ char *p = NULL, *buf = NULL;
        char *tok, *sp = NULL;
        int r;

        if (asprintf(&p, "%s/cgroup.controllers", root) < 0)
                return -ENOMEM;
        r = read_full_file(p, READ_FULL_FILE_MAX, &buf, NULL);
        if (r < 0)
                return r;
        for (tok = strtok_r(buf, " \t\n", &sp); tok; tok = strtok_r(NULL, " \t\n", &sp))
                if (streq(tok, controller))
                        return 1;
        return 0;
}
