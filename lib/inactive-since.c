/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The value of user.xdg.inactive-since (see inactive-since.h).
 */
#include <errno.h>
#include <stdint.h>

#include "lib/inactive-since.h"

static bool is_blank(char c)
{
        return c == ' ' || c == '\t' || c == '\n';
}

static int fail(const char **ret_why, const char *why)
{
        if (ret_why)
                *ret_why = why;
        return -EINVAL;
}

int inactive_since_parse(const char *s, size_t n, InactiveSince *ret, const char **ret_why)
{
        size_t a = 0, b = n;
        uint64_t v = 0;

        if (!s)
                return fail(ret_why, "no value");
        if (n > INACTIVE_SINCE_MAX)
                return fail(ret_why, "longer than 64 bytes");
        while (a < b && is_blank(s[a]))
                a++;
        while (b > a && is_blank(s[b - 1]))
                b--;
        if (a == b)
                return fail(ret_why, "empty");
        if (b - a == 2 && s[a] == '-' && s[a + 1] == '1') {
                *ret = (InactiveSince){ .focused = true };
                return 0;
        }
        for (size_t i = a; i < b; i++) {
                unsigned d;

                if (s[i] < '0' || s[i] > '9')
                        return fail(ret_why, s[i] == '-' ? "negative, and not -1"
                                                         : "not a decimal number or -1");
                d = (unsigned)(s[i] - '0');
                if (v > ((uint64_t)INT64_MAX - d) / 10)
                        return fail(ret_why, "larger than a 63-bit number of microseconds");
                v = v * 10 + d;
        }
        *ret = (InactiveSince){ .focused = false, .since_usec = v };
        return 0;
}
