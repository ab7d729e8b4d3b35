/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Duration comparisons in match patterns (see duration.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/macro.h"
#include "policy/duration.h"

static const struct {
        const char *name;
        uint64_t usec;
} units[] = {
        { "s", UINT64_C(1000000) },
        { "min", UINT64_C(60000000) },
        { "h", UINT64_C(3600000000) },
};

_printf_(2, 3) static int fail(char **ret_error, const char *fmt, ...)
{
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = vasprintf(ret_error, fmt, ap);
        va_end(ap);
        if (r < 0) {
                *ret_error = NULL;
                return -ENOMEM;
        }
        return -EINVAL;
}

static int parse_unit(const char *u, uint64_t *ret)
{
        for (size_t i = 0; i < ELEMENTSOF(units); i++)
                if (streq(u, units[i].name)) {
                        *ret = units[i].usec;
                        return 0;
                }
        return -EINVAL;
}

int duration_compare_parse(const char *pattern, DurationCompare *ret, char **ret_error,
                           size_t *ret_at)
{
        const char *p = pattern + 1;
        uint64_t n = 0, unit;

        *ret_error = NULL;
        *ret_at = 0;
        if (pattern[0] != '<' && pattern[0] != '>')
                return fail(ret_error,
                            "expected '<' or '>' and a duration (\">5min\", \"<10s\"), found "
                            "\"%.32s\"", pattern);
        *ret_at = 1;
        if (*p < '0' || *p > '9')
                return fail(ret_error,
                            "expected a whole number of s, min or h after '%c', found \"%.32s\"",
                            pattern[0], p);
        for (; *p >= '0' && *p <= '9'; p++)
                if (n <= DURATION_MAX_USEC)
                        n = n * 10 + (uint64_t)(*p - '0');
        *ret_at = (size_t)(p - pattern);
        if (*p == 0)
                return fail(ret_error,
                            "expected a unit (s, min, h) after \"%.*s\", found end of pattern",
                            (int)MIN(*ret_at, (size_t)32), pattern);
        if (parse_unit(p, &unit) < 0)
                return fail(ret_error,
                            "expected a unit (s, min, h) after \"%.*s\", found \"%.32s\"",
                            (int)MIN(*ret_at, (size_t)32), pattern, p);
        if (n > DURATION_MAX_USEC / unit || n * unit < DURATION_MIN_USEC) {
                *ret_at = 1;
                return fail(ret_error, "expected a duration from 1s to 24h, found \"%.32s\"",
                            pattern + 1);
        }
        *ret = (DurationCompare){ .op = pattern[0], .usec = n * unit };
        return 0;
}

bool duration_compare_match(const DurationCompare *c, uint64_t value)
{
        return c->op == '<' ? value < c->usec : value >= c->usec;
}
