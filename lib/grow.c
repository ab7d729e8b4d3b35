/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Growing arrays (see grow.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"

int array_grow(void **array, size_t *cap, size_t need, size_t size, size_t first)
{
        size_t c = *cap;
        void *p;

        if (need <= c)
                return 0;
        if (c == 0)
                c = first ? first : 1;
        while (c < need) {
                if (c > SIZE_MAX / 2)
                        return -ENOMEM;
                c *= 2;
        }
        /* checked here too: sanitizers abort on an overflowing reallocarray() */
        if (size && c > SIZE_MAX / size)
                return -ENOMEM;
        p = reallocarray(*array, c, size);
        if (!p)
                return -ENOMEM;
        *array = p;
        *cap = c;
        return 0;
}

int array_grow_pow2(void **array, size_t n, size_t size)
{
        void *p = *array;

        if ((n & (n - 1)) == 0) {
                if (n > SIZE_MAX / 2 || (size && (n ? n * 2 : 1) > SIZE_MAX / size))
                        return -ENOMEM;
                p = reallocarray(*array, n ? n * 2 : 1, size);
                if (!p)
                        return -ENOMEM;
                *array = p;
        }
        memset((char *)p + n * size, 0, size);
        return 0;
}
