/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Hashmap: a small string-keyed open-addressing hash table.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hashmap.h"

typedef struct Entry {
        char *key; /* NULL: empty slot */
        void *value;
        uint64_t hash;
} Entry;

struct Hashmap {
        Entry *entries;
        size_t capacity; /* power of two, or 0 */
        size_t n;
};

/* FNV-1a 64 with a final avalanche (splitmix64), so that linear probing
 * sees well-spread low bits. */
uint64_t hashmap_hash_string(const char *s)
{
        uint64_t h = UINT64_C(0xcbf29ce484222325);

        for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
                h ^= *p;
                h *= UINT64_C(0x100000001b3);
        }
        h ^= h >> 30;
        h *= UINT64_C(0xbf58476d1ce4e5b9);
        h ^= h >> 27;
        h *= UINT64_C(0x94d049bb133111eb);
        h ^= h >> 31;
        return h;
}

int hashmap_new(Hashmap **ret)
{
        Hashmap *h;

        if (!ret)
                return -EINVAL;
        h = calloc(1, sizeof(*h));
        if (!h)
                return -ENOMEM;
        *ret = h;
        return 0;
}

Hashmap *hashmap_free(Hashmap *h)
{
        if (!h)
                return NULL;
        for (size_t i = 0; i < h->capacity; i++)
                free(h->entries[i].key);
        free(h->entries);
        free(h);
        return NULL;
}

static Entry *find_slot(Entry *entries, size_t capacity, const char *key, uint64_t hash)
{
        size_t mask = capacity - 1;

        for (size_t i = hash & mask;; i = (i + 1) & mask) {
                Entry *e = &entries[i];

                if (!e->key)
                        return e;
                if (e->hash == hash && strcmp(e->key, key) == 0)
                        return e;
        }
}

static int grow(Hashmap *h)
{
        size_t capacity = h->capacity ? h->capacity * 2 : 16;
        Entry *entries;

        if (capacity < h->capacity || capacity > SIZE_MAX / sizeof(Entry))
                return -ENOMEM;
        entries = calloc(capacity, sizeof(Entry));
        if (!entries)
                return -ENOMEM;
        for (size_t i = 0; i < h->capacity; i++) {
                Entry *old = &h->entries[i];

                if (old->key)
                        *find_slot(entries, capacity, old->key, old->hash) = *old;
        }
        free(h->entries);
        h->entries = entries;
        h->capacity = capacity;
        return 0;
}

static int insert(Hashmap *h, const char *key, void *value, bool replace)
{
        uint64_t hash;
        Entry *e;
        int r;

        if (!h || !key || !value)
                return -EINVAL;

        /* Keep the load factor at most 1/2. */
        if ((h->n + 1) * 2 > h->capacity) {
                r = grow(h);
                if (r < 0)
                        return r;
        }

        hash = hashmap_hash_string(key);
        e = find_slot(h->entries, h->capacity, key, hash);
        if (e->key) {
                if (!replace)
                        return -EEXIST;
                e->value = value;
                return 1;
        }

        e->key = strdup(key);
        if (!e->key)
                return -ENOMEM;
        e->value = value;
        e->hash = hash;
        h->n++;
        return 0;
}

int hashmap_put(Hashmap *h, const char *key, void *value)
{
        return insert(h, key, value, false);
}

int hashmap_replace(Hashmap *h, const char *key, void *value)
{
        return insert(h, key, value, true);
}

void *hashmap_get(const Hashmap *h, const char *key)
{
        Entry *e;

        if (!h || !key || h->n == 0)
                return NULL;
        e = find_slot(h->entries, h->capacity, key, hashmap_hash_string(key));
        return e->key ? e->value : NULL;
}

size_t hashmap_size(const Hashmap *h)
{
        return h ? h->n : 0;
}

bool hashmap_iterate(const Hashmap *h, size_t *state, const char **ret_key, void **ret_value)
{
        if (!h || !state)
                return false;
        for (; *state < h->capacity; (*state)++) {
                Entry *e = &h->entries[*state];

                if (e->key) {
                        (*state)++;
                        if (ret_key)
                                *ret_key = e->key;
                        if (ret_value)
                                *ret_value = e->value;
                        return true;
                }
        }
        return false;
}
