/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/state/secure-path.h"
#include "lib/macro.h"

#define WRITABLE_BY_OTHERS (S_IWGRP | S_IWOTH)

static const char *writers(mode_t mode)
{
        if ((mode & S_IWGRP) && (mode & S_IWOTH))
                return "its group and others";
        return mode & S_IWGRP ? "its group" : "others";
}

static int why(char **ret_why, int r, const char *fmt, ...) _printf_(3, 4);
static int why(char **ret_why, int r, const char *fmt, ...)
{
        va_list ap;
        int n;

        va_start(ap, fmt);
        n = vasprintf(ret_why, fmt, ap);
        va_end(ap);
        if (n < 0) {
                *ret_why = NULL;
                return -ENOMEM;
        }
        return r;
}

/* The directory itself: latniced's user's, written by nobody else. */
static int dir_check(const struct stat *st, const char *dir, char **ret_why)
{
        if (!S_ISDIR(st->st_mode))
                return why(ret_why, -ENOTDIR, "%s is not a directory", dir);
        if (st->st_uid != geteuid())
                return why(ret_why, -EPERM, "directory %s is owned by uid %u, not by uid %u "
                           "(latniced's): its owner could replace the file", dir,
                           (unsigned)st->st_uid, (unsigned)geteuid());
        if (st->st_mode & WRITABLE_BY_OTHERS)
                return why(ret_why, -EPERM, "directory %s (mode %04o) is writable by %s, who "
                           "could create, replace or remove the file", dir,
                           (unsigned)(st->st_mode & 07777), writers(st->st_mode));
        return 0;
}

/* An ancestor, N levels above DIR: root's or latniced's user's, and sticky
 * if others may write it. */
static int ancestor_check(const struct stat *st, const char *dir, unsigned n, char **ret_why)
{
        if (st->st_uid != 0 && st->st_uid != geteuid())
                return why(ret_why, -EPERM, "the directory %u level(s) above %s is owned by "
                           "uid %u: its owner could move what is below it", n, dir,
                           (unsigned)st->st_uid);
        if ((st->st_mode & WRITABLE_BY_OTHERS) && !(st->st_mode & S_ISVTX))
                return why(ret_why, -EPERM, "the directory %u level(s) above %s (mode %04o) is "
                           "writable by %s and not sticky: they could move what is below it",
                           n, dir, (unsigned)(st->st_mode & 07777), writers(st->st_mode));
        return 0;
}

int secure_dir_open(const char *dir, int *ret_fd, char **ret_why)
{
        _cleanup_close_ int fd = -EBADF, cur = -EBADF;
        struct stat st, root;
        int r;

        *ret_why = NULL;
        fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return why(ret_why, -errno, "cannot open directory %s: %s", dir, strerror(errno));
        if (fstat(fd, &st) < 0 || stat("/", &root) < 0)
                return why(ret_why, -errno, "cannot stat %s: %s", dir, strerror(errno));
        r = dir_check(&st, dir, ret_why);
        if (r < 0)
                return r;
        cur = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        if (cur < 0)
                return why(ret_why, -errno, "cannot duplicate a descriptor: %s", strerror(errno));
        /* Up to the root: ".." of the root is the root. A bound for a
         * hierarchy that never gets there (a directory moved meanwhile). */
        for (unsigned n = 1; n <= 4096; n++) {
                int up;

                if (st.st_dev == root.st_dev && st.st_ino == root.st_ino) {
                        *ret_fd = TAKE_FD(fd);
                        return 0;
                }
                up = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
                if (up < 0)
                        return why(ret_why, -errno, "cannot open the directory %u level(s) above "
                                   "%s: %s", n, dir, strerror(errno));
                safe_close(cur);
                cur = up;
                if (fstat(cur, &st) < 0)
                        return why(ret_why, -errno, "cannot stat the directory %u level(s) above "
                                   "%s: %s", n, dir, strerror(errno));
                r = ancestor_check(&st, dir, n, ret_why);
                if (r < 0)
                        return r;
        }
        return why(ret_why, -ELOOP, "%s: more than 4096 levels of directories", dir);
}

int secure_file_check(const struct stat *st, const char *path, char **ret_why)
{
        *ret_why = NULL;
        if (st->st_uid != geteuid())
                return why(ret_why, -EPERM, "%s is owned by uid %u, not by uid %u (latniced's): "
                           "someone else made it, and could change it", path,
                           (unsigned)st->st_uid, (unsigned)geteuid());
        if (st->st_mode & WRITABLE_BY_OTHERS)
                return why(ret_why, -EPERM, "%s (mode %04o) is writable by %s", path,
                           (unsigned)(st->st_mode & 07777), writers(st->st_mode));
        return 0;
}
