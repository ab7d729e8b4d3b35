/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit test for lib/inactive-since.c: the value of user.xdg.inactive-since,
 * as GNOME's Mutter writes it. */
#include <stdint.h>
#include <string.h>

#include "lib/inactive-since.h"
#include "test-util.h"

static int parse(const char *s, InactiveSince *ret)
{
        return inactive_since_parse(s, strlen(s), ret, NULL);
}

static void test_valid(void)
{
        InactiveSince v;

        check(parse("-1", &v) == 0 && v.focused && v.since_usec == 0);
        check(parse(" -1\n", &v) == 0 && v.focused);
        check(parse("0", &v) == 0 && !v.focused && v.since_usec == 0);
        check(parse("123456789", &v) == 0 && !v.focused && v.since_usec == 123456789);
        check(parse("\t42 \n", &v) == 0 && !v.focused && v.since_usec == 42);
        check(parse("9223372036854775807", &v) == 0 && v.since_usec == INT64_MAX);
        check(parse("000017", &v) == 0 && v.since_usec == 17);
}

static void test_invalid(void)
{
        static const char *const bad[] = {
                "", "  \n", "-2", "-10", "--1", "-1-1", "- 1", "+5", "0x10", "1e6", "12a",
                "1 2", "-", "9223372036854775808", "18446744073709551616",
                "99999999999999999999999", "-1\r",
        };
        InactiveSince v = { .focused = true, .since_usec = 99 };
        const char *why;

        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                why = NULL;
                if (inactive_since_parse(bad[i], strlen(bad[i]), &v, &why) != -EINVAL)
                        test_fail("\"%s\" was accepted", bad[i]);
                else if (!why)
                        test_fail("\"%s\": no reason given", bad[i]);
        }
        /* a failure leaves the result alone */
        check(v.focused && v.since_usec == 99);
        /* NUL bytes inside the value, and a value longer than the bound */
        check(inactive_since_parse("-1\0", 3, &v, NULL) == -EINVAL);
        check(inactive_since_parse("1\0002", 3, &v, NULL) == -EINVAL);
        char longv[INACTIVE_SINCE_MAX + 2];
        memset(longv, ' ', sizeof(longv));
        longv[0] = '5';
        check(inactive_since_parse(longv, INACTIVE_SINCE_MAX, &v, NULL) == 0 &&
              v.since_usec == 5);
        check(inactive_since_parse(longv, INACTIVE_SINCE_MAX + 1, &v, NULL) == -EINVAL);
        check(inactive_since_parse(NULL, 0, &v, NULL) == -EINVAL);
}

int main(void)
{
        test_valid();
        test_invalid();
        return test_result();
}
