/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Growing arrays: the one place that doubles a heap array. Two shapes:
 *
 *   array_grow()      an array that keeps its capacity in a field beside it;
 *   array_grow_pow2() an array whose capacity is implied by its length (the
 *                     next power of two), for small arrays kept by the
 *                     thousand (a rule list, a posting list) where a
 *                     capacity field would cost more than the slack.
 *
 * Both leave the array and its capacity as they were when they fail, check
 * the multiplication for overflow (reallocarray) and return 0 or -ENOMEM.
 */
#pragma once

#include <stddef.h>

/* Make room for NEED elements of SIZE bytes in *ARRAY, whose capacity is
 * *CAP: doubling from FIRST (at least 1) until it fits. */
int array_grow(void **array, size_t *cap, size_t need, size_t size, size_t first);

/* Make room for element N of *ARRAY (N elements of SIZE bytes in use, the
 * capacity implied) and zero it. */
int array_grow_pow2(void **array, size_t n, size_t size);

/* GROW(p, cap, need, first): array_grow() for a typed pointer P. */
#define GROW(p, cap, need, first) \
        array_grow((void **)&(p), &(cap), (need), sizeof(*(p)), (first))
