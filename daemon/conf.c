/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "daemon/conf.h"
#include "lib/log.h"
#include "lib/macro.h"
#include "lib/settings.h"
#include "lib/util.h"

/* The daemon configuration is tiny; anything bigger is not one. */
#define CONF_FILE_MAX (64u * 1024u)

typedef struct ParseState {
        const char *filename;
        const char *text, *end, *pos;
        unsigned line;          /* number of the line handed to inih last */
        bool line_too_long;     /* that line did not fit inih's buffer */
        unsigned n_errors;
        char **messages;
        size_t n_messages;
        bool oom;
        DaemonConfig config;
} ParseState;

static void add_message(ParseState *s, const char *level, const char *fmt, ...) _printf_(3, 4);
static void add_message(ParseState *s, const char *level, const char *fmt, ...)
{
        _cleanup_free_ char *body = NULL;
        char *m, **l;
        va_list ap;
        int r;

        if (streq(level, "error"))
                s->n_errors++;
        if (s->oom)
                return;

        va_start(ap, fmt);
        r = vasprintf(&body, fmt, ap);
        va_end(ap);
        if (r < 0) {
                body = NULL;
                s->oom = true;
                return;
        }
        if (asprintf(&m, "%s:%u: %s: %s", s->filename, s->line, level, body) < 0) {
                s->oom = true;
                return;
        }
        l = realloc(s->messages, (s->n_messages + 2) * sizeof(char *));
        if (!l) {
                free(m);
                s->oom = true;
                return;
        }
        l[s->n_messages++] = m;
        l[s->n_messages] = NULL;
        s->messages = l;
}

/* inih reader: hand out one line per call, so the line count is exact. A
 * line that does not fit NUM bytes is recorded as an error and replaced by
 * an empty line. */
static char *reader(char *str, int num, void *stream)
{
        ParseState *s = stream;
        const char *nl;
        size_t len;

        if (s->pos >= s->end || num < 3)
                return NULL;

        nl = memchr(s->pos, '\n', (size_t)(s->end - s->pos));
        len = nl ? (size_t)(nl - s->pos) + 1 : (size_t)(s->end - s->pos);
        s->line++;
        s->line_too_long = false;

        if (len > (size_t)num - 1 || memchr(s->pos, '\0', len)) {
                if (memchr(s->pos, '\0', len))
                        add_message(s, "error", "line contains a NUL byte");
                else
                        add_message(s, "error", "line is longer than %d bytes", num - 3);
                s->line_too_long = true;
                str[0] = '\n';
                str[1] = '\0';
        } else {
                memcpy(str, s->pos, len);
                str[len] = '\0';
        }
        s->pos += len;
        return str;
}

/* Each parser reads VALUE (not empty) into the field it is given. */
static int parse_log_level(const char *v, void *field)
{
        int r = log_level_from_string(v);

        if (r < 0)
                return r;
        *(int *)field = r;
        return 0;
}

static int parse_bool_field(const char *v, void *field)
{
        int r = parse_boolean(v);

        if (r < 0)
                return r;
        *(bool *)field = r;
        return 0;
}

static int parse_backend(const char *v, void *field)
{
        int b = latency_backend_from_string(v);

        if (b < 0 && b != _LATENCY_BACKEND_AUTO)
                return -EINVAL;
        *(LatencyBackend *)field = (LatencyBackend)b;
        return 0;
}

/* "50%", "12.5%" (one decimal at most) or "off"/"0": permille of one CPU. */
static int parse_share(const char *v, void *field)
{
        unsigned long whole = 0, tenth = 0;
        const char *p = v;
        char *e;

        if (streq(v, "off") || streq(v, "0")) {
                *(unsigned *)field = 0;
                return 0;
        }
        if (*p < '0' || *p > '9')
                return -EINVAL;
        errno = 0;
        whole = strtoul(p, &e, 10);
        if (errno || whole > BUDGET_SHARE_MAX / 10)
                return -ERANGE;
        if (*e == '.') {
                if (e[1] < '0' || e[1] > '9')
                        return -EINVAL;
                tenth = (unsigned long)(e[1] - '0');
                e += 2;
        }
        if (!streq(e, "%"))
                return -EINVAL;
        if (whole * 10 + tenth == 0 || whole * 10 + tenth > BUDGET_SHARE_MAX)
                return -ERANGE;
        *(unsigned *)field = (unsigned)(whole * 10 + tenth);
        return 0;
}

/* A whole number 0..MAX into the int at FIELD. */
static int parse_uint_max(const char *v, long max, void *field)
{
        char *e;
        long n;

        if (*v < '0' || *v > '9')
                return -EINVAL;
        errno = 0;
        n = strtol(v, &e, 10);
        if (errno || *e || n > max)
                return -ERANGE;
        *(int *)field = (int)n;
        return 0;
}

/* 0..99: the highest real-time priority granted, 0: none. */
static int parse_rt_priority(const char *v, void *field)
{
        return parse_uint_max(v, 99, field);
}

/* 0..100000: real-time threads of one user granted at once. */
static int parse_rt_per_user(const char *v, void *field)
{
        return parse_uint_max(v, 100000, field);
}

/* "10s", "500ms", "2min": a whole number and a unit. */
static int parse_window(const char *v, void *field)
{
        static const struct { const char *unit; uint64_t usec; } units[] = {
                { "ms", 1000 }, { "s", 1000000 }, { "min", 60000000 },
        };
        unsigned long long n;
        char *e;

        if (*v < '0' || *v > '9')
                return -EINVAL;
        errno = 0;
        n = strtoull(v, &e, 10);
        if (errno)
                return -ERANGE;
        for (size_t i = 0; i < ELEMENTSOF(units); i++) {
                if (!streq(e, units[i].unit))
                        continue;
                if (n > BUDGET_WINDOW_MAX_USEC / units[i].usec ||
                    n * units[i].usec < BUDGET_WINDOW_MIN_USEC)
                        return -ERANGE;
                *(uint64_t *)field = n * units[i].usec;
                return 0;
        }
        return -EINVAL;
}

/* The keys of [Daemon]: an empty value is the default (daemon_config_init),
 * anything else goes through PARSE, and a value it refuses is an error that
 * says what was EXPECTED. */
static const struct {
        const char *name;
        size_t offset, size;
        int (*parse)(const char *value, void *field);
        const char *expected;
} daemon_keys[] = {
#define KEY(name, field, parse, expected) \
        { name, offsetof(DaemonConfig, field), sizeof(((DaemonConfig *)0)->field), parse, expected }
        KEY("LogLevel", log_level, parse_log_level,
            "debug, info, notice, warning, err, crit, alert or emerg"),
        KEY("RestoreOnExit", restore_on_exit, parse_bool_field, "yes or no"),
        KEY("RespectManualChanges", respect_manual_changes, parse_bool_field, "yes or no"),
        KEY("LatencyNiceBackend", backend, parse_backend, "auto, latency-nice, slice or none"),
        KEY("BoostBudgetShare", budget.share_permille, parse_share,
            "a share of one CPU from 0.1% to 10000% (\"50%\") or \"off\""),
        KEY("BoostBudgetWindow", budget.window_usec, parse_window,
            "a duration from 100ms to 60min with a unit (ms, s, min)"),
        KEY("MaxRealtimePriority", rt_max_priority, parse_rt_priority,
            "a real-time priority from 0 (none) to 99"),
        KEY("MaxRealtimeThreadsPerUser", rt_max_per_user, parse_rt_per_user,
            "a number of threads from 0 to 100000"),
#undef KEY
};
/* the texts above name these bounds */
_Static_assert(BUDGET_SHARE_MAX == 100000u, "BoostBudgetShare's text says 10000%");
_Static_assert(BUDGET_WINDOW_MIN_USEC == 100000u && BUDGET_WINDOW_MAX_USEC == 3600000000u,
               "BoostBudgetWindow's text says 100ms to 60min");

static int handler(void *user, const char *section, const char *name, const char *value)
{
        ParseState *s = user;
        DaemonConfig defaults;

        if (s->line_too_long)
                return 1;

        if (!streq(section, "Daemon")) {
                add_message(s, "warning", "unknown section [%s], ignoring", section);
                return 1;
        }

        for (size_t i = 0; i < ELEMENTSOF(daemon_keys); i++) {
                char *field = (char *)&s->config + daemon_keys[i].offset;

                if (!streq(name, daemon_keys[i].name))
                        continue;
                if (!*value) {
                        daemon_config_init(&defaults);
                        memcpy(field, (char *)&defaults + daemon_keys[i].offset,
                               daemon_keys[i].size);
                } else if (daemon_keys[i].parse(value, field) < 0)
                        add_message(s, "error", "%s: expected %s, found \"%s\"", name,
                                    daemon_keys[i].expected, value);
                return 1;
        }
        add_message(s, "warning", "unknown key \"%s\" in [Daemon], ignoring", name);
        return 1;
}

void daemon_config_init(DaemonConfig *c)
{
        *c = (DaemonConfig){
                .log_level = -1,
                .restore_on_exit = true,
                .respect_manual_changes = true,
                .backend = _LATENCY_BACKEND_AUTO,
                .budget = { .share_permille = BUDGET_SHARE_DEFAULT,
                            .window_usec = BUDGET_WINDOW_DEFAULT_USEC },
                .rt_max_priority = RT_MAX_PRIORITY_DEFAULT,
                .rt_max_per_user = RT_MAX_PER_USER_DEFAULT,
        };
}

int daemon_config_parse(const char *filename, const char *text, size_t size, DaemonConfig *ret,
                        char ***ret_messages)
{
        ParseState s = {
                .filename = filename ? filename : "(string)",
                .text = text,
                .pos = text,
                .end = text + size,
        };
        int r;

        if (!text && size > 0)
                return -EINVAL;
        if (!text)
                s.pos = s.end = s.text = "";
        daemon_config_init(&s.config);

        r = ini_parse_stream(reader, &s, handler, &s);
        if (r > 0) {
                /* inih reports the first line it could not parse. */
                unsigned saved = s.line;
                s.line = (unsigned)r;
                add_message(&s, "error", "expected \"[Section]\" or \"Key = value\"");
                s.line = saved;
        } else if (r < 0)
                s.oom = true;

        if (s.oom) {
                strv_free(s.messages);
                return -ENOMEM;
        }

        if (ret_messages)
                *ret_messages = s.messages;
        else
                strv_free(s.messages);

        if (s.n_errors > 0)
                return -EINVAL;
        *ret = s.config;
        return 0;
}

int daemon_config_load(const char *path, DaemonConfig *ret, char ***ret_messages)
{
        _cleanup_free_ char *text = NULL;
        size_t size = 0;
        int r;

        r = read_full_file(path, CONF_FILE_MAX, &text, &size);
        if (r == -ENOENT) {
                daemon_config_init(ret);
                if (ret_messages)
                        *ret_messages = NULL;
                return 0;
        }
        if (r < 0)
                return r;

        return daemon_config_parse(path, text, size, ret, ret_messages);
}
