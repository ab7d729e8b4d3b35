/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdarg.h>
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

static int parse_backend(const char *v, DaemonConfig *c)
{
        int b = latency_backend_from_string(v);

        if (b < 0 && b != _LATENCY_BACKEND_AUTO)
                return -EINVAL;
        c->backend = (LatencyBackend)b;
        return 0;
}

/* "50%", "12.5%" (one decimal at most) or "off"/"0": permille of one CPU. */
static int parse_share(const char *v, unsigned *ret)
{
        unsigned long whole = 0, tenth = 0;
        const char *p = v;
        char *e;

        if (streq(v, "off") || streq(v, "0")) {
                *ret = 0;
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
        *ret = (unsigned)(whole * 10 + tenth);
        return 0;
}

/* "10s", "500ms", "2min": a whole number and a unit. */
static int parse_window(const char *v, uint64_t *ret)
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
                *ret = n * units[i].usec;
                return 0;
        }
        return -EINVAL;
}

static void parse_budget(ParseState *s, const char *name, const char *value)
{
        DaemonConfig *c = &s->config;
        int r;

        if (streq(name, "BoostBudgetShare")) {
                if (!*value) {
                        c->budget.share_permille = BUDGET_SHARE_DEFAULT;
                        return;
                }
                r = parse_share(value, &c->budget.share_permille);
                if (r < 0)
                        add_message(s, "error",
                                    "BoostBudgetShare: expected a share of one CPU from 0.1%% "
                                    "to %u%% (\"50%%\") or \"off\", found \"%s\"",
                                    BUDGET_SHARE_MAX / 10, value);
                return;
        }
        if (!*value) {
                c->budget.window_usec = BUDGET_WINDOW_DEFAULT_USEC;
                return;
        }
        r = parse_window(value, &c->budget.window_usec);
        if (r < 0)
                add_message(s, "error",
                            "BoostBudgetWindow: expected a duration from 100ms to 60min with a "
                            "unit (ms, s, min), found \"%s\"",
                            value);
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
        ParseState *s = user;
        DaemonConfig *c = &s->config;
        int r;

        if (s->line_too_long)
                return 1;

        if (!streq(section, "Daemon")) {
                add_message(s, "warning", "unknown section [%s], ignoring", section);
                return 1;
        }

        if (streq(name, "LogLevel")) {
                if (!*value) {
                        c->log_level = -1;
                        return 1;
                }
                r = log_level_from_string(value);
                if (r < 0)
                        add_message(s, "error",
                                    "LogLevel: expected debug, info, notice, warning, err, crit, "
                                    "alert or emerg, found \"%s\"", value);
                else
                        c->log_level = r;
        } else if (streq(name, "RestoreOnExit") || streq(name, "RespectManualChanges")) {
                bool *field = streq(name, "RestoreOnExit") ? &c->restore_on_exit
                                                            : &c->respect_manual_changes;
                if (!*value) {
                        *field = true;
                        return 1;
                }
                r = parse_boolean(value);
                if (r < 0)
                        add_message(s, "error", "%s: expected yes or no, found \"%s\"", name,
                                    value);
                else
                        *field = r;
        } else if (streq(name, "LatencyNiceBackend")) {
                if (!*value) {
                        c->backend = _LATENCY_BACKEND_AUTO;
                        return 1;
                }
                if (parse_backend(value, c) < 0)
                        add_message(s, "error",
                                    "LatencyNiceBackend: expected auto, latency-nice, slice or "
                                    "none, found \"%s\"", value);
        } else if (streq(name, "BoostBudgetShare") || streq(name, "BoostBudgetWindow"))
                parse_budget(s, name, value);
        else
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
