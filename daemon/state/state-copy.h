/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Two-copy records, as every version of the state file writes them: a
 * record is two copies of one size, each starting with its sequence number
 * (0: never written) and ending with the checksum of the bytes before it,
 * written last. Shared by the file (state-file.c) and the reader of
 * version 2 (state-file-v2.c).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

uint64_t state_copy_checksum(const void *c, size_t n);
uint64_t state_copy_u64(const uint8_t *c, size_t off);

/* The newest valid copy of the record at RECORD (copies of SIZE bytes): 0
 * or 1, -1 if none; *RET_TORN tells whether a copy that UNWRITTEN does not
 * call never written fails its checksum. */
int state_copy_best(const uint8_t *record, size_t size, bool (*unwritten)(const void *c),
                    bool *ret_torn);
