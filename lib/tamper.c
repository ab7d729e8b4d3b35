/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/macro.h"
#include "lib/proc.h"
#include "lib/tamper.h"
#include "lib/util.h"

static const char *const loader_variables[] = { "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT" };

const char *environ_loader_variable(const char *buf, size_t size)
{
        const char *end = buf + size;

        for (const char *v = buf; v && v < end;) {
                const char *z = memchr(v, 0, (size_t)(end - v));
                size_t n = z ? (size_t)(z - v) : (size_t)(end - v);

                for (size_t i = 0; i < ELEMENTSOF(loader_variables); i++) {
                        size_t k = strlen(loader_variables[i]);

                        /* "NAME=" and at least one byte of value */
                        if (n > k + 1 && memcmp(v, loader_variables[i], k) == 0 && v[k] == '=')
                                return loader_variables[i];
                }
                v = z ? z + 1 : NULL;
        }
        return NULL;
}

int status_tracer_pid(const char *buf, size_t size, pid_t *ret)
{
        uint32_t v;
        int r;

        r = proc_status_get_u32(buf, size, "TracerPid", &v);
        if (r < 0)
                return r;
        if (v > INT32_MAX)
                return -EIO;
        *ret = (pid_t)v;
        return 0;
}

static int tampered(char **ret_reason, const char *fmt, ...) _printf_(2, 3);
static int tampered(char **ret_reason, const char *fmt, ...)
{
        va_list ap;
        int r;

        if (!ret_reason)
                return 1;
        va_start(ap, fmt);
        r = vasprintf(ret_reason, fmt, ap);
        va_end(ap);
        if (r < 0) {
                *ret_reason = NULL;
                return -ENOMEM;
        }
        return 1;
}

/* TracerPid of PID, from the head of its status (the line comes within the
 * first ten; "Groups:" and what follows can be long). */
static int read_tracer(const char *proc_root, pid_t pid, pid_t *ret)
{
        _cleanup_free_ char *buf = NULL;
        int r;

        r = proc_status_read(proc_root, pid, &buf);
        if (r < 0)
                return r;
        return status_tracer_pid(buf, strlen(buf), ret);
}

int proc_tampered(const char *proc_root, pid_t pid, uint32_t uid, bool fresh, char **ret_reason)
{
        _cleanup_free_ char *env = NULL;
        const char *var;
        bool truncated = false;
        pid_t tracer = 0;
        size_t n = 0;
        int r;

        if (!proc_root)
                proc_root = "/proc";
        r = read_tracer(proc_root, pid, &tracer);
        if (r == -ESRCH || r == -ENOMEM)
                return r;
        if (r < 0)
                return tampered(ret_reason, "whether it is being traced cannot be read: %s",
                                strerror(-r));
        if (tracer != 0)
                return tampered(ret_reason, "it is being traced (by pid %d)", (int)tracer);

        r = proc_environ_read(proc_root, pid, uid, fresh, &env, &n, &truncated);
        if (r == -ESRCH || r == -ENOMEM)
                return r;
        if (r == -EAGAIN)
                return tampered(ret_reason,
                                "its environment could not be read in time (it keeps its "
                                "memory busy), so LD_PRELOAD and the like cannot be ruled out");
        if (r < 0)
                return tampered(ret_reason, "its environment cannot be read: %s", strerror(-r));
        var = environ_loader_variable(env, n);
        if (var)
                return tampered(ret_reason,
                                "it was started with %s in its environment, which loads code "
                                "its user chose", var);
        if (truncated)
                return tampered(ret_reason,
                                "its environment is longer than the %u KiB read, so LD_PRELOAD "
                                "and the like cannot be ruled out", PROC_CMDLINE_MAX / 1024);
        return 0;
}
