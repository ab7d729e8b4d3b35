/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * String vectors (see strv.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/macro.h"
#include "lib/strv.h"

size_t strv_length(char *const *l)
{
        size_t n = 0;

        while (l && l[n])
                n++;
        return n;
}

bool strv_contains(char *const *l, const char *s)
{
        for (size_t i = 0; l && l[i]; i++)
                if (streq(l[i], s))
                        return true;
        return false;
}

int strv_copy(char *const *l, char ***ret)
{
        _cleanup_strv_free_ char **c = NULL;
        size_t n = strv_length(l);

        c = calloc(n + 1, sizeof(char *));
        if (!c)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                c[i] = strdup(l[i]);
                if (!c[i])
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(c);
        return 0;
}

int strv_consume(char ***l, size_t *n, char *s)
{
        char **c;

        if (!s)
                return 0;
        c = reallocarray(*l, *n + 2, sizeof(char *));
        if (!c) {
                free(s);
                return -ENOMEM;
        }
        c[(*n)++] = s;
        c[*n] = NULL;
        *l = c;
        return 0;
}
