/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <assert.h>
#include <stdbool.h>

#include "cli/table-fit.h"
#include "cli/table.h"
#include "lib/macro.h"

/* The width of the N bytes at S. */
static size_t width_of(const char *s, size_t n)
{
        _cleanup_free_ char *c = strndup(s, n);

        return c ? cell_width(c) : n;
}

static bool is_blank(char c)
{
        return c == ' ' || c == '\t';
}

char *text_wrap(const char *s, size_t width, bool break_words)
{
        char *buf = NULL;
        size_t size = 0, line = 0;
        FILE *f = open_memstream(&buf, &size);

        if (!f)
                return NULL;
        if (width == 0)
                width = 1;
        for (const char *p = s; *p;) {
                size_t n, w;

                if (is_blank(*p)) {
                        p++;
                        continue;
                }
                for (n = 0; p[n] && !is_blank(p[n]); n++)
                        ;
                w = width_of(p, n);
                if (line > 0 && line + 1 + w <= width) {
                        fputc(' ', f);
                        line += 1 + w;
                } else {
                        if (line > 0)
                                fputc('\n', f);
                        line = 0;
                        /* a word wider than a line: broken, or alone on its line */
                        while (break_words && w > width) {
                                size_t k = cell_prefix_bytes(p, n, width);

                                fwrite(p, 1, k, f);
                                fputc('\n', f);
                                p += k;
                                n -= k;
                                w = width_of(p, n);
                        }
                        line = w;
                }
                fwrite(p, 1, n, f);
                p += n;
        }
        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        return buf;
}

/* The widest blank-separated word of S. */
static size_t widest_word(const char *s)
{
        size_t widest = 0;

        for (const char *p = s; *p;) {
                size_t n;

                if (is_blank(*p)) {
                        p++;
                        continue;
                }
                for (n = 0; p[n] && !is_blank(p[n]); n++)
                        ;
                widest = MAX(widest, width_of(p, n));
                p += n;
        }
        return widest;
}

/* A column's width as it is, and the least it may be narrowed to. */
static void column_widths(char **cells, size_t n_rows, size_t n_columns, size_t c,
                          const char *header, const TableFitColumn *col, size_t *ret_natural,
                          size_t *ret_min)
{
        size_t natural = header ? cell_width(header) : 0, min = MAX(natural, col->min_width);

        for (size_t r = 0; r < n_rows; r++) {
                const char *cell = cells[r * n_columns + c] ?: "-";

                natural = MAX(natural, cell_width(cell));
                if (col->fit == TABLE_FIT_WRAP_WORDS)
                        min = MAX(min, widest_word(cell));
        }
        *ret_natural = natural;
        *ret_min = col->fit == TABLE_FIT_KEEP ? natural : MIN(MAX(min, (size_t)1), natural);
}

int table_fit(char **cells, size_t n_rows, size_t n_columns, const char *const *headers,
              const TableFitColumn *columns, const size_t *yield, size_t n_yield, size_t width)
{
        _cleanup_free_ size_t *natural = calloc(n_columns ?: 1, sizeof(size_t));
        _cleanup_free_ size_t *min = calloc(n_columns ?: 1, sizeof(size_t));
        size_t total;

        if (!natural || !min)
                return -ENOMEM;
        if (width == 0 || n_columns == 0)
                return 0;
        total = n_columns - 1; /* the blanks between columns */
        for (size_t c = 0; c < n_columns; c++) {
                column_widths(cells, n_rows, n_columns, c, headers ? headers[c] : NULL,
                              &columns[c], &natural[c], &min[c]);
                total += natural[c];
        }
        for (size_t i = 0; i < n_yield && total > width; i++) {
                size_t c = yield[i], give;

                assert(c < n_columns);
                give = MIN(natural[c] - min[c], total - width);
                total -= give;
                /* natural[] becomes the width the column gets */
                natural[c] -= give;
        }
        for (size_t c = 0; c < n_columns; c++) {
                if (columns[c].fit == TABLE_FIT_KEEP)
                        continue;
                for (size_t r = 0; r < n_rows; r++) {
                        char **cell = &cells[r * n_columns + c];
                        char *w;

                        if (!*cell || cell_width(*cell) <= natural[c])
                                continue;
                        w = text_wrap(*cell, natural[c], columns[c].fit == TABLE_FIT_WRAP);
                        if (!w)
                                return -ENOMEM;
                        free(*cell);
                        *cell = w;
                }
        }
        return 0;
}
