/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * UTF-8: strict decoding (no overlongs, no surrogates, nothing above
 * U+10FFFF) and encoding, without the locale. Terminal widths come from
 * glibc's wcwidth(3) (cli/table.h), not from a table of our own.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Decode one code point from S (N bytes available, N > 0). Returns its length
 * in bytes (1..4) and sets *ret_cp, or 0 if S does not start with a valid
 * UTF-8 sequence. */
size_t utf8_decode(const char *s, size_t n, uint32_t *ret_cp);
/* Encode CP (must be a valid scalar value) into BUF (at least 4 bytes).
 * Returns the length, or 0 for a surrogate or a value above U+10FFFF. */
size_t utf8_encode(uint32_t cp, char buf[static 4]);
/* true if the N bytes of S are valid UTF-8 */
int utf8_is_valid(const char *s, size_t n);
