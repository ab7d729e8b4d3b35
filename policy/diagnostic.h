/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Diagnostic list: errors and warnings with file:line:column, collected
 * by the parser and the loader (the public type is in policy.h).
 */
#pragma once

#include "lib/macro.h"
#include "policy/policy.h"

/* Append one diagnostic. Returns 0 or -ENOMEM. D may be NULL (dropped). */
int diagnostics_add(Diagnostics *d, DiagLevel level, const char *file, unsigned line,
                    unsigned column, const char *fmt, ...) _printf_(6, 7);

/* Move every item of SRC to the end of DST (SRC is left empty). */
int diagnostics_append(Diagnostics *dst, Diagnostics *src);

/* Stable sort by line, then column. */
int diagnostics_sort(Diagnostics *d);
