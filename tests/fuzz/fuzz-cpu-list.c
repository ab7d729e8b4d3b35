/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target: CPU lists (lib/cpu-list.h), the parser behind CPUAffinity=
 * in policy files, latnicectl set/run and SetTask.
 *
 * Oracles: a failed parse leaves the set untouched and points at a column
 * within the text; a list that parses formats to text that parses back to
 * the same set, and the formatted text is canonical (formatting it again
 * gives the same text).
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cpu-list.h"
#include "lib/macro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        _cleanup_free_ char *text = NULL, *error = NULL, *out = NULL, *out2 = NULL;
        cpu_set_t set, sentinel, again;
        unsigned column = UINT_MAX;
        int r;

        if (size > 4096)
                return 0;
        /* a copy with a NUL after it (the input has none; strndup() under ASan
         * reads one byte past it) */
        text = malloc(size + 1);
        if (!text)
                return 0;
        memcpy(text, data, size);
        text[size] = '\0';
        CPU_ZERO(&set);
        CPU_SET(CPU_SETSIZE - 1, &set);
        sentinel = set;
        r = cpu_list_parse(text, &set, &error, &column);
        if (r < 0) {
                if (r != -EINVAL || !CPU_EQUAL(&set, &sentinel) || column > strlen(text))
                        abort();
                return 0;
        }
        if (CPU_COUNT(&set) == 0)
                abort();
        if (cpu_list_format(&set, &out) < 0)
                return 0;
        if (cpu_list_parse(out, &again, NULL, NULL) < 0 || !CPU_EQUAL(&set, &again))
                abort();
        if (cpu_list_format(&again, &out2) < 0)
                return 0;
        if (!streq(out, out2))
                abort();
        return 0;
}
