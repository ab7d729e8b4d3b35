/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Table: columns of text, laid out by libsmartcols (util-linux, what lsblk
 * and findmnt use). libsmartcols measures cells with glibc's wcwidth(3) in
 * the current locale, and prints control characters and bytes that are not
 * valid in the locale as "\x1b"-style escapes, so a process name cannot send
 * escape sequences to the terminal.
 *
 * A table is cut only when it is given a width (table_set_width): then the
 * columns marked shrinkable are truncated until each line fits. Without one
 * (the default, and what cli_table_new() picks when stdout is not a terminal
 * or --full was given) nothing is ever cut.
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
typedef struct CliOptions CliOptions;

typedef enum TableAlign {
        TABLE_ALIGN_LEFT,
        TABLE_ALIGN_RIGHT,
} TableAlign;

/* NULL on out of memory. */
Table *table_new(size_t n_columns, const char *const *headers);
/* A table as the command line asks for: bold header with colour, no header
 * with --no-legend, and the terminal's width on a terminal unless --full. */
Table *cli_table_new(const CliOptions *o, size_t n_columns, const char *const *headers);
Table *table_free(Table *t);
static inline void table_freep(Table **t)
{
        if (*t)
                table_free(*t);
}

void table_set_align(Table *t, size_t column, TableAlign align);
/* A column that may be truncated to fit the width; default: every column
 * may, numbers should not. */
void table_set_shrinkable(Table *t, size_t column, bool shrinkable);
/* Fit every line into WIDTH cells by truncating shrinkable columns; 0 (the
 * default): never cut. */
void table_set_width(Table *t, size_t width);
/* Bold header (and nothing else: colour is the caller's business). */
void table_set_color(Table *t, bool color);
/* Print no header line. */
void table_set_header(Table *t, bool header);

/* Copies CELLS (n_columns strings; NULL prints "-"). 0 or -ENOMEM. */
int table_add_row(Table *t, const char *const *cells);
size_t table_n_rows(const Table *t);

/* 0, -ENOMEM, or -EIO if writing failed. */
int table_print(const Table *t, FILE *f);

/* Helpers for single values outside tables. */

/* Copy of S with control characters and invalid UTF-8 replaced by '?'. */
char *cell_sanitize(const char *s);
/* Width of a string in terminal cells, from wcwidth(3) in the current locale
 * (a byte or character it cannot measure counts one cell). */
size_t cell_width(const char *s);
/* The length in bytes of the longest start of the N bytes at S that is at
 * most WIDTH cells wide, but at least one character (so that a caller that
 * breaks S into pieces always moves on). */
size_t cell_prefix_bytes(const char *s, size_t n, size_t width);
/* Copy of S cut to at most WIDTH cells, ending in "…" (or "..." when the
 * locale is not UTF-8) when cut. */
char *cell_truncate(const char *s, size_t width);

/* The terminal's width: $COLUMNS if set and valid, else the width of stdout
 * if it is a terminal, else 80. Never less than 20. */
size_t cli_terminal_width(void);
