/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Hashmap: a small string-keyed open-addressing hash table.
 *
 * Keys are copied on insertion; values are opaque pointers the caller owns.
 * Linear probing, power-of-two capacity, load factor at most 1/2, no removal
 * (the policy index is built once and then only read). Lookups never
 * allocate.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct Hashmap Hashmap;

int hashmap_new(Hashmap **ret);
/* Frees the table and its key copies, not the values. Accepts NULL. */
Hashmap *hashmap_free(Hashmap *h);
static inline void hashmap_freep(Hashmap **h)
{
        if (*h)
                hashmap_free(*h);
}

/* Insert KEY -> VALUE (VALUE must not be NULL). -EEXIST if KEY is present
 * (the table is unchanged), -ENOMEM, -EINVAL. */
int hashmap_put(Hashmap *h, const char *key, void *value);
/* Insert or replace. Returns 0 if inserted, 1 if replaced. */
int hashmap_replace(Hashmap *h, const char *key, void *value);
/* The value of KEY, or NULL. */
void *hashmap_get(const Hashmap *h, const char *key);
size_t hashmap_size(const Hashmap *h);

/* Iterate: *state starts at 0; returns false at the end. */
bool hashmap_iterate(const Hashmap *h, size_t *state, const char **ret_key, void **ret_value);

uint64_t hashmap_hash_string(const char *s);
