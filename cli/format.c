/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>

#include "cli/format.h"
#include "lib/macro.h"

char *format_duration_ns(uint64_t ns, bool utf8)
{
        char *s = NULL;
        int r;

        if (ns < 1000)
                r = asprintf(&s, "%" PRIu64 " ns", ns);
        else if (ns < 1000000)
                r = asprintf(&s, "%.1f %s", (double)ns / 1e3, utf8 ? "\xc2\xb5s" : "us");
        else if (ns < 1000000000)
                r = asprintf(&s, "%.2f ms", (double)ns / 1e6);
        else
                r = asprintf(&s, "%.2f s", (double)ns / 1e9);
        return r < 0 ? NULL : s;
}
