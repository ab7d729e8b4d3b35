/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The state file of version 2 (latniced before the one record table):
 * read once, when a latniced finds one, and converted (state-file.c writes
 * its records into a version 3 file). Version 2 had fixed fields per
 * attribute, a task table of two 232-byte copies per record and a cgroup
 * table of two 4248-byte copies behind it.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "daemon/state/state-file.h"

#define STATE_V2_HEADER_SIZE 64u
#define STATE_V2_RECORD_SIZE 464u
#define STATE_V2_CG_RECORD_SIZE 8496u

typedef struct StateV2 {
        StateRecord *records; /* slot: the v2 slot (a new one is given) */
        size_t n_records;
        StateCgroupRecord *cg;
        size_t n_cg;
        size_t n_torn, n_corrupt;
        size_t corrupt_offset; /* of the first corrupt record */
        size_t whole;          /* bytes of records read (less than the header says: truncated) */
        size_t need;           /* bytes the header says */
} StateV2;

/* The header fields version 2 adds to the common start (magic, version),
 * checked: NULL if usable, else why (allocated). */
char *state_v2_header_problem(const uint8_t *image, size_t size);

/* The records of the version 2 file IMAGE (SIZE bytes, its header checked)
 * into *RET; records of a file cut short are read as far as they are whole.
 * -ENOMEM. */
int state_v2_read(const uint8_t *image, size_t size, StateV2 *ret);
void state_v2_done(StateV2 *v);
