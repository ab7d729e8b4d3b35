/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target: latniced.conf parsing, daemon_config_parse() (daemon/conf.h),
 * the function daemon_config_load() calls on the file's content.
 *
 * Oracle: every message names the file and a line; a rejected file has at
 * least one error and leaves the output untouched; an accepted one has none
 * and holds values in range.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/conf.h"
#include "lib/macro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool startswith(const char *s, const char *prefix)
{
        return strncmp(s, prefix, strlen(prefix)) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        DaemonConfig c, canary;
        char **messages = NULL;
        size_t n_errors = 0;
        char *copy;
        int r;

        if (size > 128 * 1024)
                return 0;
        /* exact size, not NUL-terminated: the parser must not read past SIZE */
        copy = malloc(size ? size : 1);
        if (!copy)
                return 0;
        if (size)
                memcpy(copy, data, size);

        memset(&c, 0x5a, sizeof(c));
        canary = c;
        r = daemon_config_parse("fuzz.conf", copy, size, &c, &messages);
        free(copy);
        if (r == -ENOMEM)
                return 0;
        if (r != 0 && r != -EINVAL)
                abort();

        for (char **m = messages; m && *m; m++) {
                const char *p = *m;

                if (!startswith(p, "fuzz.conf:"))
                        abort();
                p += strlen("fuzz.conf:");
                if (*p < '1' || *p > '9')
                        abort(); /* a line number, 1-based */
                p += strspn(p, "0123456789");
                if (startswith(p, ": error: "))
                        n_errors++;
                else if (!startswith(p, ": warning: "))
                        abort();
        }
        strv_free(messages);

        if (r == -EINVAL) {
                if (n_errors == 0 || memcmp(&c, &canary, sizeof(c)) != 0)
                        abort();
                return 0;
        }
        if (n_errors > 0)
                abort();
        if (c.log_level < -1 || c.log_level > 7)
                abort();
        if ((int)c.backend != _LATENCY_BACKEND_AUTO &&
            ((int)c.backend < 0 || c.backend >= _LATENCY_BACKEND_MAX))
                abort();
        return 0;
}
