/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * String vectors: NULL-terminated arrays of malloc()ed strings.
 *
 * strv_free() and _cleanup_strv_free_ are in lib/macro.h with the other
 * cleanup helpers. Every function returns 0 or a negative errno and leaves
 * its ret_ outputs untouched on failure.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Number of strings in L; NULL is the empty vector. */
size_t strv_length(char *const *l);
/* True if S is one of the strings in L. */
bool strv_contains(char *const *l, const char *s);
/* A deep copy of L (NULL: an empty vector, never NULL itself). */
int strv_copy(char *const *l, char ***ret);
/*
 * Append S to *L, which holds *N strings (kept by the caller so that
 * appending stays linear), taking ownership of S: on failure S is freed.
 * S NULL appends nothing and returns 0.
 */
int strv_consume(char ***l, size_t *n, char *s);
