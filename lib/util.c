/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Small file and number helpers.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/macro.h"
#include "lib/util.h"

int read_full_file(const char *path, size_t max, char **ret, size_t *ret_size)
{
        _cleanup_close_ int fd = -EBADF;

        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        return read_full_fd(fd, max, ret, ret_size);
}

/* Read from FD to its end, or to MAX bytes: with READ_TRUNCATE, stop there
 * and say so in *RET_TRUNCATED; without, fail with -EFBIG. With
 * READ_SHORT_IS_END a read() that returns less than asked for is the end. */
static int read_fd_bounded(int fd, size_t max, unsigned flags, char **ret, size_t *ret_size,
                           bool *ret_truncated)
{
        _cleanup_free_ char *buf = NULL;
        size_t size = 0, allocated = 0;
        bool truncated = false;

        for (;;) {
                size_t want;
                ssize_t n;

                if (allocated - size < 2) {
                        size_t grow = allocated ? allocated * 2 : 4096;
                        char *p;

                        if (grow > max + 2)
                                grow = max + 2;
                        if (grow <= allocated)
                                return -EFBIG;
                        p = realloc(buf, grow);
                        if (!p)
                                return -ENOMEM;
                        buf = p;
                        allocated = grow;
                }

                want = allocated - size - 1;
                n = read(fd, buf + size, want);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (n == 0)
                        break;
                size += (size_t) n;
                if (size > max) {
                        if (!(flags & READ_TRUNCATE))
                                return -EFBIG;
                        /* One byte past MAX was read: there is more. */
                        size = max;
                        truncated = true;
                        break;
                }
                if ((flags & READ_SHORT_IS_END) && (size_t) n < want)
                        break;
        }

        if (!buf) {
                buf = malloc(1);
                if (!buf)
                        return -ENOMEM;
        }
        buf[size] = 0;
        if (ret_size)
                *ret_size = size;
        if (ret_truncated)
                *ret_truncated = truncated;
        *ret = TAKE_PTR(buf);
        return 0;
}

int read_full_fd(int fd, size_t max, char **ret, size_t *ret_size)
{
        return read_fd_bounded(fd, max, 0, ret, ret_size, NULL);
}

int read_file_flags(const char *path, size_t max, unsigned flags, char **ret, size_t *ret_size,
                    bool *ret_truncated)
{
        _cleanup_close_ int fd = -EBADF;

        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        return read_fd_bounded(fd, max, flags, ret, ret_size, ret_truncated);
}

int read_file_head(const char *path, size_t max, char **ret, size_t *ret_size,
                   bool *ret_truncated)
{
        return read_file_flags(path, max, READ_TRUNCATE, ret, ret_size, ret_truncated);
}

int read_one_line_file(const char *path, char **ret)
{
        char *buf = NULL;
        int r;

        r = read_full_file(path, READ_FULL_FILE_MAX, &buf, NULL);
        if (r < 0)
                return r;
        buf[strcspn(buf, "\n")] = 0;
        *ret = buf;
        return 0;
}

int write_string_file(const char *path, const char *value)
{
        _cleanup_close_ int fd = -EBADF;
        size_t len = strlen(value);
        ssize_t n;

        fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        do
                n = write(fd, value, len);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return -errno;
        if ((size_t) n != len)
                return -EIO;
        return 0;
}

static int strip_newline(const char *s, char **end)
{
        if (**end == '\n')
                (*end)++;
        if (**end != 0 || *end == s)
                return -EINVAL;
        return 0;
}

int safe_atoi64(const char *s, int64_t *ret)
{
        char *end;
        long long v;

        if (!s || *s == 0 || strchr(" \t\n", *s))
                return -EINVAL;
        errno = 0;
        v = strtoll(s, &end, 10);
        if (errno == ERANGE)
                return -ERANGE;
        if (errno != 0 || strip_newline(s, &end) < 0)
                return -EINVAL;
        *ret = v;
        return 0;
}

int safe_atoi(const char *s, int *ret)
{
        int64_t v;
        int r;

        r = safe_atoi64(s, &v);
        if (r < 0)
                return r;
        if (v < INT_MIN || v > INT_MAX)
                return -ERANGE;
        *ret = (int) v;
        return 0;
}

int safe_atou64(const char *s, uint64_t *ret)
{
        char *end;
        unsigned long long v;

        if (!s || *s < '0' || *s > '9')
                return -EINVAL;
        errno = 0;
        v = strtoull(s, &end, 10);
        if (errno == ERANGE)
                return -ERANGE;
        if (errno != 0 || strip_newline(s, &end) < 0)
                return -EINVAL;
        *ret = v;
        return 0;
}

int safe_atou32(const char *s, uint32_t *ret)
{
        uint64_t v;
        int r;

        r = safe_atou64(s, &v);
        if (r < 0)
                return r;
        if (v > UINT32_MAX)
                return -ERANGE;
        *ret = (uint32_t) v;
        return 0;
}

int parse_pid(const char *s, pid_t *ret)
{
        int v, r;

        r = safe_atoi(s, &v);
        if (r < 0)
                return r;
        if (v <= 0)
                return -ERANGE;
        *ret = v;
        return 0;
}

int readlink_malloc(const char *path, char **ret)
{
        size_t size = 256;

        for (;;) {
                _cleanup_free_ char *buf = malloc(size);
                ssize_t n;

                if (!buf)
                        return -ENOMEM;
                n = readlink(path, buf, size);
                if (n < 0)
                        return -errno;
                if ((size_t) n < size) {
                        buf[n] = 0;
                        *ret = TAKE_PTR(buf);
                        return 0;
                }
                if (size >= 1024u * 1024u)
                        return -ENAMETOOLONG;
                size *= 2;
        }
}

const char *path_basename(const char *path)
{
        const char *p = strrchr(path, '/');

        p = p ? p + 1 : path;
        return *p ? p : NULL;
}

int id_to_name(bool group, uint32_t id, char **ret)
{
        for (size_t size = 1024;; size *= 2) {
                _cleanup_free_ char *buf = malloc(size);
                struct passwd pw, *pwres = NULL;
                struct group gr, *grres = NULL;
                const char *name;
                int r;

                if (!buf)
                        return -ENOMEM;
                if (group) {
                        r = getgrgid_r((gid_t) id, &gr, buf, size, &grres);
                        name = grres ? gr.gr_name : NULL;
                } else {
                        r = getpwuid_r((uid_t) id, &pw, buf, size, &pwres);
                        name = pwres ? pw.pw_name : NULL;
                }
                if (r == ERANGE && size < 1024u * 1024u)
                        continue;
                if (r != 0 && r != ENOENT && r != ESRCH)
                        return -r; /* ENOMEM, EIO, EMFILE, ERANGE at the cap, ... */
                if (name) {
                        char *copy = strdup(name);

                        if (!copy)
                                return -ENOMEM;
                        *ret = copy;
                } else
                        *ret = NULL;
                return 0;
        }
}

pid_t ln_gettid(void)
{
        return (pid_t) syscall(SYS_gettid);
}

int pidfd_open_process(pid_t pid)
{
        int fd;

        if (pid <= 0)
                return -EINVAL;
        fd = (int) syscall(SYS_pidfd_open, pid, 0);
        return fd < 0 ? -errno : fd;
}

int pidfd_process_alive(int pidfd)
{
        struct pollfd p = { .fd = pidfd, .events = POLLIN };
        int n;

        if (pidfd < 0)
                return -EBADF;
        do
                n = poll(&p, 1, 0);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return -errno;
        if (p.revents & POLLNVAL)
                return -EBADF;
        return n == 0;
}
