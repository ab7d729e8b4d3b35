/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

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

/* Bytes that could end the line or steer a terminal: C0 controls, DEL, and
 * C1 controls (U+0080..U+009F, "\xc2\x80".."\xc2\x9f" in UTF-8). */
static size_t control_len(const unsigned char *p)
{
        if (p[0] < 0x20 || p[0] == 0x7f)
                return 1;
        if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
                return 2;
        return 0;
}

/*
 * MSG with every control character written as an escape ("\n", "\t", "\r",
 * "\x1b", ...), so that one message is one line: a process name, path or
 * command line with a newline in it cannot start a line of its own, let alone
 * one with a "<N>" priority prefix of its choosing. A backslash itself is left
 * alone: no raw control byte gets through either way, and messages that
 * quote escaped text already (D-Bus keys) stay readable. NULL on ENOMEM.
 */
static char *log_escape(const char *msg)
{
        size_t n = 0;
        char *out, *o;

        for (const unsigned char *p = (const unsigned char *)msg; *p;) {
                size_t c = control_len(p);

                n += c == 0 ? 1 : 4 * c;
                p += c == 0 ? 1 : c;
        }
        out = malloc(n + 1);
        if (!out)
                return NULL;
        o = out;
        for (const unsigned char *p = (const unsigned char *)msg; *p;) {
                size_t c = control_len(p);

                if (c == 0) {
                        *o++ = (char)*p++;
                        continue;
                }
                for (; c > 0; c--, p++) {
                        const char *named = *p == '\n' ? "\\n" : *p == '\t' ? "\\t" :
                                            *p == '\r' ? "\\r" : NULL;

                        o += named ? sprintf(o, "%s", named) : sprintf(o, "\\x%02x", *p);
                }
        }
        *o = 0;
        return out;
}

/* Structured fields are few: sd_journal_sendv() with an iovec each. Negative
 * errno when the journal is not there (or memory is short). */
static int log_journal(int level, int e, const char *const *fields, const char *msg)
{
        _cleanup_free_ char *message = NULL;
        struct iovec iov[16];
        char prio[32], errbuf[32];
        size_t n = 0;

        if (asprintf(&message, "MESSAGE=%s", msg) < 0) {
                message = NULL;
                return -ENOMEM;
        }
        snprintf(prio, sizeof(prio), "PRIORITY=%d", level);
        iov[n++] = (struct iovec){ message, strlen(message) };
        iov[n++] = (struct iovec){ prio, strlen(prio) };
        if (e > 0) {
                snprintf(errbuf, sizeof(errbuf), "ERRNO=%d", e);
                iov[n++] = (struct iovec){ errbuf, strlen(errbuf) };
        }
        for (size_t i = 0; fields && fields[i] && n < ELEMENTSOF(iov); i++)
                iov[n++] = (struct iovec){ (void *)fields[i], strlen(fields[i]) };
        return sd_journal_sendv(iov, (int)n);
}

static void log_write(int level, int e, const char *const *fields, const char *msg)
{
        switch (log_target) {
        case LOG_TARGET_JOURNAL:
                if (log_journal(level, e, fields, msg) >= 0)
                        break;
                /* The journal is not there: fall back to stderr. */
                /* fall through */
        case LOG_TARGET_KMSG_PREFIX:
                fprintf(stderr, "<%d>%s\n", level, msg);
                break;
        case LOG_TARGET_CONSOLE:
        default:
                fprintf(stderr, "%s: %s\n", log_program, msg);
                break;
        }
}

static int log_emit(int level, int error, const char *const *fields, const char *fmt, va_list ap)
{
        _cleanup_free_ char *text = NULL, *msg = NULL;
        int saved = errno;
        int e = error < 0 ? -error : error;

        /* %m must print the error passed in, not whatever errno is now. */
        errno = e;
        if (vasprintf(&text, fmt, ap) < 0)
                text = NULL;
        msg = text ? log_escape(text) : NULL;
        log_write(level, e, fields, msg ?: "(out of memory while formatting a log message)");

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
