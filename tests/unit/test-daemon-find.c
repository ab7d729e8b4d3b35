/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: cli/daemon-find (the bus latniced was started on, read from
 * its command line as its getopt_long() reads it).
 */
#include <assert.h>

#include "cli/daemon-find.h"
#include "lib/macro.h"
#include "tests/unit/test-util.h"

/* ARGS: the arguments joined by '|', as /proc/PID/cmdline has them with NULs */
static const char *bus_of(const char *args)
{
        static char buf[512];
        size_t n = strlen(args);

        assert(n < sizeof(buf));
        for (size_t i = 0; i <= n; i++)
                buf[i] = args[i] == '|' ? '\0' : args[i];
        return daemon_bus_of_cmdline(buf, n + 1);
}

int main(void)
{
        check_streq(bus_of("/usr/sbin/latniced"), "system");
        check_streq(bus_of("latniced|--foreground"), "system");
        check_streq(bus_of("latniced|--bus|none"), "none");
        check_streq(bus_of("latniced|--bus=none"), "none");
        check_streq(bus_of("latniced|-b|session"), "session");
        check_streq(bus_of("latniced|-bnone"), "none");
        check_streq(bus_of("latniced|-fnb|none"), "none");
        check_streq(bus_of("latniced|-fnbunix:path=/x"), "unix:path=/x");
        /* values of other options are not options */
        check_streq(bus_of("latniced|--policy-dir|--bus=none"), "system");
        check_streq(bus_of("latniced|-p|-bnone"), "system");
        check_streq(bus_of("latniced|-pb|--bus|none"), "none");
        check_streq(bus_of("latniced|--state-file|-b|--bus|session"), "session");
        /* the last one wins; nothing after "--" */
        check_streq(bus_of("latniced|--bus|session|-b|none"), "none");
        check_streq(bus_of("latniced|--|--bus=none"), "system");
        /* a value that is missing at the end */
        check_streq(bus_of("latniced|--bus"), "system");
        if (test_result() != EXIT_SUCCESS)
                return EXIT_FAILURE;
        printf("test-daemon-find: all checks passed\n");
        return 0;
}
