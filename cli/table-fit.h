/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Table fitting: lay the cells of a table out for a terminal WIDTH cells
 * wide by wrapping columns, never by cutting them. Each column says what it
 * may give up: nothing (a rule name: it is what the reader looks for), its
 * line at blanks only (settings: "KEY=VALUE" stays whole), or its line
 * anywhere (a predicate, a path). The columns that may wrap are narrowed in
 * the order given, each down to its minimum before the next gives up
 * anything, until a line fits: a table that cannot fit even then is as
 * narrow as it can be, and wider than WIDTH (what must stay whole does).
 *
 *         TableFitColumn cols[] = { {TABLE_FIT_KEEP}, {TABLE_FIT_WRAP, 12} };
 *         size_t yield[] = { 1 };
 *         table_fit(cells, n_rows, 2, headers, cols, yield, 1, 80);
 *
 * A wrapped cell has its lines separated by "\n" (the caller prints each
 * on a table row of its own). Widths are display widths
 * (cell_width()); columns are separated by one blank, as Table prints them.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

typedef enum TableFit {
        TABLE_FIT_KEEP,        /* never narrowed */
        TABLE_FIT_WRAP_WORDS,  /* wrapped at blanks; a word is never broken */
        TABLE_FIT_WRAP,        /* wrapped at blanks, a word wider than the column broken */
} TableFit;

typedef struct TableFitColumn {
        TableFit fit;
        size_t min_width;      /* never narrower (nor than its header, nor, for
                                * TABLE_FIT_WRAP_WORDS, than its widest word) */
} TableFitColumn;

/* CELLS: N_ROWS * N_COLUMNS strings, row by row, malloc()ed (NULL is "-");
 * a cell that gets wrapped is replaced (the old one freed). YIELD: the
 * columns that may narrow, first to give up first. WIDTH 0: leave all as
 * they are. 0 or -ENOMEM (then the cells are unchanged or wrapped, each
 * valid). */
int table_fit(char **cells, size_t n_rows, size_t n_columns, const char *const *headers,
              const TableFitColumn *columns, const size_t *yield, size_t n_yield, size_t width);

/* S wrapped to lines of at most WIDTH cells joined by "\n": at blanks, and
 * with BREAK_WORDS a word wider than WIDTH broken too (else it stands on a
 * line of its own, wider). Blanks at a break are dropped. NULL on out of
 * memory. */
char *text_wrap(const char *s, size_t width, bool break_words);
