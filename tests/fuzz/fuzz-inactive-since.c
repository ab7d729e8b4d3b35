/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target: the value of user.xdg.inactive-since (lib/inactive-since.h),
 * which any user writes on a cgroup of their own and latniced reads.
 *
 * Oracles: a value is accepted only when it is at most INACTIVE_SINCE_MAX
 * bytes of digits, "-1" and white space; a rejected one leaves the result
 * untouched and says why; an accepted one, printed back, parses to the same.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/inactive-since.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        const InactiveSince poison = { .focused = true, .since_usec = 4242 };
        InactiveSince v = poison, w = {};
        const char *s = (const char *)data, *why = NULL;
        char buf[32];
        int r;

        r = inactive_since_parse(s, size, &v, &why);
        if (r < 0) {
                if (r != -EINVAL || !why || v.focused != poison.focused ||
                    v.since_usec != poison.since_usec)
                        abort();
                return 0;
        }
        if (r != 0 || size > INACTIVE_SINCE_MAX)
                abort();
        for (size_t i = 0; i < size; i++)
                if (!strchr("0123456789- \t\n", s[i]) || s[i] == 0)
                        abort();
        if (v.focused ? v.since_usec != 0 : v.since_usec > INT64_MAX)
                abort();
        if (v.focused)
                snprintf(buf, sizeof(buf), "-1");
        else
                snprintf(buf, sizeof(buf), "%" PRIu64, v.since_usec);
        if (inactive_since_parse(buf, strlen(buf), &w, NULL) != 0 || w.focused != v.focused ||
            w.since_usec != v.since_usec)
                abort();
        return 0;
}
