/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Table: columns of text for the terminal. Cells are sanitized (control
 * characters and bytes that are not UTF-8 become '?', so a process name
 * cannot send escape sequences to the terminal), measured in terminal cells,
 * and the widest shrinkable columns are cut with "…" until the table fits
 * the width (80 unless told otherwise).
 *
 *         _cleanup_(table_freep) Table *t = table_new(3, (const char *[]){ "PID", "NAME", "RULE" });
 *         table_set_align(t, 0, TABLE_ALIGN_RIGHT);
 *         table_add_row(t, (const char *[]){ "1", "systemd", "-" });
 *         table_print(t, stdout);
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct Table Table;

typedef enum TableAlign {
        TABLE_ALIGN_LEFT,
        TABLE_ALIGN_RIGHT,
} TableAlign;

/* NULL on out of memory. */
Table *table_new(size_t n_columns, const char *const *headers);
Table *table_free(Table *t);
static inline void table_freep(Table **t)
{
        if (*t)
                table_free(*t);
}

void table_set_align(Table *t, size_t column, TableAlign align);
/* A column that is never shrunk (numbers); default: every column may shrink. */
void table_set_shrinkable(Table *t, size_t column, bool shrinkable);
/* Maximum line width in cells (default 80; 0: unlimited). */
void table_set_width(Table *t, size_t width);
/* Bold header (and nothing else: colour is the caller's business). */
void table_set_color(Table *t, bool color);
/* Print no header line. */
void table_set_header(Table *t, bool header);
/* "…" (default) or "..." when the terminal is not UTF-8. */
void table_set_ascii(Table *t, bool ascii);

/* Copies CELLS (n_columns strings; NULL prints "-"). 0 or -ENOMEM. */
int table_add_row(Table *t, const char *const *cells);
size_t table_n_rows(const Table *t);

/* 0, or -EIO if writing failed. */
int table_print(const Table *t, FILE *f);

/* Helpers, exported for tests and for single values outside tables. */

/* Copy of S with control characters and invalid UTF-8 replaced by '?'. */
char *cell_sanitize(const char *s);
/* Width of a sanitized string in terminal cells. */
size_t cell_width(const char *s);
/* Copy of S cut to at most WIDTH cells, ending in the ellipsis when cut. */
char *cell_truncate(const char *s, size_t width, bool ascii);

/* The width tables should fit: $COLUMNS if set and valid, else the terminal's
 * width if stdout is a tty, else 80. Never less than 20. */
size_t cli_terminal_width(void);
