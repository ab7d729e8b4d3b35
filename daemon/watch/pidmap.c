/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "daemon/watch/pidmap.h"

#define SLOT_EMPTY 0
#define SLOT_DELETED (-1)
#define MIN_CAPACITY 16u

typedef struct PidMapSlot {
        pid_t key; /* > 0, or SLOT_EMPTY / SLOT_DELETED */
        void *value;
} PidMapSlot;

static size_t hash_pid(pid_t k)
{
        uint32_t x = (uint32_t)k;

        /* pids are sequential: spread them (a small integer mixer) */
        x ^= x >> 16;
        x *= 0x7feb352du;
        x ^= x >> 15;
        x *= 0x846ca68bu;
        x ^= x >> 16;
        return x;
}

static PidMapSlot *find(const PidMap *m, pid_t key)
{
        if (m->capacity == 0 || key <= 0)
                return NULL;
        for (size_t i = hash_pid(key) & (m->capacity - 1), n = 0; n < m->capacity;
             i = (i + 1) & (m->capacity - 1), n++) {
                PidMapSlot *s = &m->slots[i];
                if (s->key == SLOT_EMPTY)
                        return NULL;
                if (s->key == key)
                        return s;
        }
        return NULL;
}

static int resize(PidMap *m, size_t capacity)
{
        PidMapSlot *old = m->slots, *slots;
        size_t old_capacity = m->capacity;

        slots = calloc(capacity, sizeof(PidMapSlot));
        if (!slots)
                return -ENOMEM;
        for (size_t j = 0; j < old_capacity; j++) {
                if (old[j].key <= 0)
                        continue;
                size_t i = hash_pid(old[j].key) & (capacity - 1);
                while (slots[i].key != SLOT_EMPTY)
                        i = (i + 1) & (capacity - 1);
                slots[i] = old[j];
        }
        free(old);
        m->slots = slots;
        m->capacity = capacity;
        m->n_filled = m->n_used;
        return 0;
}

void pidmap_done(PidMap *m)
{
        free(m->slots);
        *m = (PidMap){};
}

size_t pidmap_size(const PidMap *m)
{
        return m->n_used;
}

void *pidmap_get(const PidMap *m, pid_t key)
{
        PidMapSlot *s = find(m, key);
        return s ? s->value : NULL;
}

int pidmap_put(PidMap *m, pid_t key, void *value)
{
        PidMapSlot *s, *tomb = NULL;
        int r;

        if (key <= 0 || !value)
                return -EINVAL;
        if (find(m, key))
                return -EEXIST;

        if ((m->n_filled + 1) * 2 > m->capacity) {
                size_t c = MIN_CAPACITY;
                while (c < (m->n_used + 1) * 4)
                        c *= 2;
                r = resize(m, c);
                if (r < 0)
                        return r;
        }

        for (size_t i = hash_pid(key) & (m->capacity - 1);; i = (i + 1) & (m->capacity - 1)) {
                s = &m->slots[i];
                if (s->key == SLOT_DELETED && !tomb)
                        tomb = s;
                if (s->key == SLOT_EMPTY)
                        break;
        }
        if (tomb)
                s = tomb;
        else
                m->n_filled++;
        s->key = key;
        s->value = value;
        m->n_used++;
        return 0;
}

void *pidmap_remove(PidMap *m, pid_t key)
{
        PidMapSlot *s = find(m, key);
        void *v;

        if (!s)
                return NULL;
        v = s->value;
        s->key = SLOT_DELETED;
        s->value = NULL;
        m->n_used--;
        return v;
}

int pidmap_update(PidMap *m, pid_t key, void *value)
{
        PidMapSlot *s = find(m, key);

        if (!s)
                return -ENOENT;
        if (!value)
                return -EINVAL;
        s->value = value;
        return 0;
}

bool pidmap_iterate(const PidMap *m, size_t *state, pid_t *ret_key, void **ret_value)
{
        for (size_t i = *state; i < m->capacity; i++)
                if (m->slots[i].key > 0) {
                        *state = i + 1;
                        if (ret_key)
                                *ret_key = m->slots[i].key;
                        if (ret_value)
                                *ret_value = m->slots[i].value;
                        return true;
                }
        *state = m->capacity;
        return false;
}
