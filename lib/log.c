/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SD_JOURNAL_SUPPRESS_LOCATION 1
#include <systemd/sd-journal.h>

#include "lib/log.h"

static LogTarget log_target = LOG_TARGET_CONSOLE;
static int log_max_level = LOG_INFO;
static const char *log_program = "latnice";

static const char *const level_names[] = {
        [LOG_EMERG] = "emerg",   [LOG_ALERT] = "alert",   [LOG_CRIT] = "crit",
        [LOG_ERR] = "err",       [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice",
        [LOG_INFO] = "info",     [LOG_DEBUG] = "debug",
};

void log_set_target(LogTarget t)
{
        log_target = t;
}

LogTarget log_get_target(void)
{
        return log_target;
}

void log_set_max_level(int level)
{
        log_max_level = CLAMP(level, LOG_EMERG, LOG_DEBUG);
}

int log_get_max_level(void)
{
        return log_max_level;
}

void log_set_program_name(const char *name)
{
        log_program = name;
}

int log_level_from_string(const char *s)
{
        if (!s || !*s)
                return -EINVAL;
        if (s[0] >= '0' && s[0] <= '7' && s[1] == '\0')
                return s[0] - '0';
        if (streq(s, "error"))
                return LOG_ERR;
        for (size_t i = 0; i < ELEMENTSOF(level_names); i++)
                if (streq(s, level_names[i]))
                        return (int)i;
        return -EINVAL;
}

const char *log_level_to_string(int level)
{
        if (level < 0 || (size_t)level >= ELEMENTSOF(level_names))
                return NULL;
        return level_names[level];
}

static int log_emit(int level, int error, const char *const *fields, const char *fmt, va_list ap)
{
        int saved = errno;
        int e = error < 0 ? -error : error;
        char buf[2048];

        /* %m must print the error passed in, not whatever errno is now. */
        errno = e;
        vsnprintf(buf, sizeof(buf), fmt, ap);

        switch (log_target) {
        case LOG_TARGET_JOURNAL: {
                /* sd_journal_send() takes a varargs list; structured fields are few, so
                 * send them through sd_journal_sendv(). */
                struct iovec iov[16];
                char msg[2100], prio[32], errbuf[32];
                size_t n = 0;

                snprintf(msg, sizeof(msg), "MESSAGE=%s", buf);
                snprintf(prio, sizeof(prio), "PRIORITY=%d", level);
                iov[n++] = (struct iovec){ msg, strlen(msg) };
                iov[n++] = (struct iovec){ prio, strlen(prio) };
                if (e > 0) {
                        snprintf(errbuf, sizeof(errbuf), "ERRNO=%d", e);
                        iov[n++] = (struct iovec){ errbuf, strlen(errbuf) };
                }
                for (size_t i = 0; fields && fields[i] && n < ELEMENTSOF(iov); i++)
                        iov[n++] = (struct iovec){ (void *)fields[i], strlen(fields[i]) };
                if (sd_journal_sendv(iov, (int)n) >= 0)
                        break;
        }
                /* The journal is not there: fall back to stderr. */
                /* fall through */
        case LOG_TARGET_KMSG_PREFIX:
                fprintf(stderr, "<%d>%s\n", level, buf);
                break;
        case LOG_TARGET_CONSOLE:
        default:
                fprintf(stderr, "%s: %s\n", log_program, buf);
                break;
        }

        errno = saved;
        return -e;
}

int log_internal(int level, int error, const char *file, int line, const char *func,
                 const char *fmt, ...)
{
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = log_emit(level, error, NULL, fmt, ap);
        va_end(ap);
        return r;
}

int log_struct_internal(int level, int error, const char *const *fields, const char *fmt, ...)
{
        va_list ap;
        int r;

        if (level > log_max_level)
                return -(error < 0 ? -error : error);
        va_start(ap, fmt);
        r = log_emit(level, error, fields, fmt, ap);
        va_end(ap);
        return r;
}
