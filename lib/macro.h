/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Macros: cleanup helpers, array sizes, small arithmetic.
 *
 * Ownership follows the systemd convention: foo_free() accepts NULL and
 * returns NULL, DEFINE_TRIVIAL_CLEANUP_FUNC() makes foo_freep() for use with
 * _cleanup_(foo_freep).
 */
#pragma once

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <stdbool.h>
#include <sys/uio.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_ __attribute__((unused))
#define _pure_ __attribute__((pure))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _likely_(x) __builtin_expect(!!(x), 1)
#define _unlikely_(x) __builtin_expect(!!(x), 0)
#define _noreturn_ __attribute__((noreturn))
#define _warn_unused_result_ __attribute__((warn_unused_result))

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define CLAMP(x, lo, hi) ((x) < (lo) ? (lo) : (x) > (hi) ? (hi) : (x))

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

/* Transfer ownership out of a _cleanup_ variable. */
#define TAKE_PTR(p)                                  \
        ({                                           \
                __typeof__(p) _taken_ = (p);         \
                (p) = NULL;                          \
                _taken_;                             \
        })
#define TAKE_FD(fd)                                  \
        ({                                           \
                int _fd_ = (fd);                     \
                (fd) = -EBADF;                       \
                _fd_;                                \
        })

#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func)      \
        static inline void func##p(type *p)          \
        {                                            \
                if (*p)                              \
                        func(*p);                    \
        }

/* free() that returns NULL: "p = mfree(p);". */
static inline void *mfree(void *p)
{
        free(p);
        return NULL;
}

static inline void freep(void *p)
{
        free(*(void **)p);
}
#define _cleanup_free_ _cleanup_(freep)

static inline int safe_close(int fd)
{
        if (fd >= 0) {
                int saved = errno;
                close(fd);
                errno = saved;
        }
        return -EBADF;
}
static inline void closep(int *fd)
{
        safe_close(*fd);
}
#define _cleanup_close_ _cleanup_(closep)

static inline void fclosep(FILE **f)
{
        if (*f)
                fclose(*f);
}
#define _cleanup_fclose_ _cleanup_(fclosep)

static inline void closedirp(DIR **d)
{
        if (*d)
                closedir(*d);
}
#define _cleanup_closedir_ _cleanup_(closedirp)

/* NULL-terminated string vectors. */
static inline char **strv_free(char **l)
{
        if (l) {
                for (char **i = l; *i; i++)
                        free(*i);
                free(l);
        }
        return NULL;
}
DEFINE_TRIVIAL_CLEANUP_FUNC(char **, strv_free);
#define _cleanup_strv_free_ _cleanup_(strv_freep)

static inline const char *strempty(const char *s)
{
        return s ? s : "";
}
static inline const char *strna(const char *s)
{
        return s ? s : "n/a";
}
static inline bool streq_ptr(const char *a, const char *b)
{
        if (!a || !b)
                return a == b;
        return strcmp(a, b) == 0;
}
#define streq(a, b) (strcmp((a), (b)) == 0)

/* Errno that means "the task went away", which is normal, not an error. */
static inline bool errno_is_gone(int r)
{
        r = r < 0 ? -r : r;
        return r == ESRCH || r == ENOENT;
}
