/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit test for lib/grow.c: doubling with a capacity field and with an
 * implied one, and nothing changed when the size cannot be had. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "lib/grow.h"
#include "test-util.h"

static void test_grow_with_cap(void)
{
        int *a = NULL;
        size_t cap = 0;

        check(GROW(a, cap, 0, 16) == 0);
        check(!a && cap == 0);
        CHECK(GROW(a, cap, 1, 16) == 0);
        CHECK(a && cap == 16);
        for (int i = 0; i < 16; i++)
                a[i] = i;
        check(GROW(a, cap, 16, 16) == 0); /* fits: unchanged */
        check(cap == 16);
        CHECK(GROW(a, cap, 17, 16) == 0);
        check(cap == 32);
        CHECK(GROW(a, cap, 100, 16) == 0); /* 32 -> 64 -> 128 */
        check(cap == 128);
        for (int i = 0; i < 16; i++)
                check(a[i] == i);
        free(a);

        /* first 0 counts as 1 */
        a = NULL;
        cap = 0;
        CHECK(GROW(a, cap, 3, 0) == 0);
        check(cap == 4);
        free(a);
}

static void test_grow_overflow(void)
{
        uint64_t *a = NULL;
        size_t cap = 4;
        uint64_t *keep;

        a = calloc(4, sizeof(*a));
        CHECK(a);
        keep = a;
        /* the capacity cannot double past SIZE_MAX */
        check(GROW(a, cap, SIZE_MAX, 4) == -ENOMEM);
        check(a == keep && cap == 4);
        /* the byte count overflows (reallocarray) */
        check(GROW(a, cap, SIZE_MAX / 8 + 1, 4) == -ENOMEM);
        check(a == keep && cap == 4);
        free(a);
}

static void test_grow_pow2(void)
{
        int *a = NULL;

        for (size_t n = 0; n < 1000; n++) {
                CHECK(array_grow_pow2((void **)&a, n, sizeof(int)) == 0);
                check(a[n] == 0); /* zeroed */
                a[n] = (int)n + 1;
        }
        for (size_t n = 0; n < 1000; n++)
                check(a[n] == (int)n + 1);
        free(a);
}

int main(void)
{
        test_grow_with_cap();
        test_grow_overflow();
        test_grow_pow2();
        return test_result();
}
