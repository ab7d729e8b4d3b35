/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * PidMap: an open-addressing hash table from pid (> 0) to a pointer.
 *
 * Linear probing with tombstones: removal never moves other entries, so an
 * iteration may remove the entry it is at. Capacity is a power of two with
 * live entries plus tombstones kept under half of it; it shrinks again when
 * most entries are gone.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct PidMap {
        struct PidMapSlot *slots;
        size_t capacity;
        size_t n_used;   /* live entries */
        size_t n_filled; /* live entries and tombstones */
} PidMap;

/* A zeroed PidMap is empty and valid. pidmap_done() frees the slots (not
 * the values). */
void pidmap_done(PidMap *m);
size_t pidmap_size(const PidMap *m);

void *pidmap_get(const PidMap *m, pid_t key);
/* VALUE must not be NULL. -EEXIST if KEY is present (unchanged), -EINVAL,
 * -ENOMEM. */
int pidmap_put(PidMap *m, pid_t key, void *value);
/* Remove KEY; returns its value or NULL. */
void *pidmap_remove(PidMap *m, pid_t key);
/* Replace the value of a present KEY; -ENOENT if absent. */
int pidmap_update(PidMap *m, pid_t key, void *value);

/* *state starts at 0; false at the end. Removing the current key is fine,
 * adding keys during the iteration is not. */
bool pidmap_iterate(const PidMap *m, size_t *state, pid_t *ret_key, void **ret_value);
