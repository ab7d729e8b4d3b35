/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <sys/ioctl.h>

#include "cli/table.h"
#include "cli/utf8.h"
#include "lib/macro.h"

#define MIN_SHRINK_WIDTH 6

struct Table {
        size_t n_columns;
        char **headers;
        TableAlign *align;
        bool *shrinkable;
        char **cells; /* n_rows * n_columns, sanitized */
        size_t n_rows, allocated_rows;
        size_t width;
        bool color, header, ascii;
};

char *cell_sanitize(const char *s)
{
        size_t n = strlen(s);
        char *out = malloc(n + 1), *p = out;
        uint32_t cp;

        if (!out)
                return NULL;
        for (size_t i = 0; i < n;) {
                size_t l = utf8_decode(s + i, n - i, &cp);
                if (l == 0 || cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0)) {
                        *p++ = '?';
                        i += l == 0 ? 1 : l;
                        continue;
                }
                memcpy(p, s + i, l);
                p += l;
                i += l;
        }
        *p = '\0';
        return out;
}

size_t cell_width(const char *s)
{
        size_t n = strlen(s), w = 0;
        uint32_t cp;

        for (size_t i = 0; i < n;) {
                size_t l = utf8_decode(s + i, n - i, &cp);
                if (l == 0) {
                        w++;
                        i++;
                        continue;
                }
                w += utf8_cp_width(cp);
                i += l;
        }
        return w;
}

char *cell_truncate(const char *s, size_t width, bool ascii)
{
        const char *ellipsis = ascii ? "..." : "\xe2\x80\xa6";
        size_t ellipsis_width = ascii ? 3 : 1;
        size_t n = strlen(s), w = 0, i = 0, room;
        uint32_t cp;
        char *out;

        if (cell_width(s) <= width)
                return strdup(s);
        if (width < ellipsis_width) {
                /* no room even for the ellipsis: as many dots as fit */
                out = malloc(width + 1);
                if (!out)
                        return NULL;
                memset(out, '.', width);
                out[width] = '\0';
                return out;
        }
        room = width - ellipsis_width;
        while (i < n) {
                size_t l = utf8_decode(s + i, n - i, &cp);
                unsigned cw = l == 0 ? 1 : utf8_cp_width(cp);
                if (w + cw > room)
                        break;
                w += cw;
                i += l == 0 ? 1 : l;
        }
        out = malloc(i + strlen(ellipsis) + 1);
        if (!out)
                return NULL;
        memcpy(out, s, i);
        strcpy(out + i, ellipsis);
        return out;
}

Table *table_new(size_t n_columns, const char *const *headers)
{
        Table *t;

        if (n_columns == 0)
                return NULL;
        t = calloc(1, sizeof(*t));
        if (!t)
                return NULL;
        t->n_columns = n_columns;
        t->width = 80;
        t->header = true;
        t->headers = calloc(n_columns, sizeof(char *));
        t->align = calloc(n_columns, sizeof(TableAlign));
        t->shrinkable = calloc(n_columns, sizeof(bool));
        if (!t->headers || !t->align || !t->shrinkable)
                return table_free(t);
        for (size_t c = 0; c < n_columns; c++) {
                t->headers[c] = cell_sanitize(headers[c] ? headers[c] : "");
                if (!t->headers[c])
                        return table_free(t);
                t->shrinkable[c] = true;
        }
        return t;
}

Table *table_free(Table *t)
{
        if (!t)
                return NULL;
        if (t->headers)
                for (size_t c = 0; c < t->n_columns; c++)
                        free(t->headers[c]);
        for (size_t i = 0; i < t->n_rows * t->n_columns; i++)
                free(t->cells[i]);
        free(t->cells);
        free(t->headers);
        free(t->align);
        free(t->shrinkable);
        free(t);
        return NULL;
}

void table_set_align(Table *t, size_t column, TableAlign align)
{
        if (column < t->n_columns)
                t->align[column] = align;
}

void table_set_shrinkable(Table *t, size_t column, bool shrinkable)
{
        if (column < t->n_columns)
                t->shrinkable[column] = shrinkable;
}

void table_set_width(Table *t, size_t width)
{
        t->width = width;
}

void table_set_color(Table *t, bool color)
{
        t->color = color;
}

void table_set_header(Table *t, bool header)
{
        t->header = header;
}

void table_set_ascii(Table *t, bool ascii)
{
        t->ascii = ascii;
}

size_t table_n_rows(const Table *t)
{
        return t->n_rows;
}

int table_add_row(Table *t, const char *const *cells)
{
        if (t->n_rows == t->allocated_rows) {
                size_t a = t->allocated_rows ? t->allocated_rows * 2 : 16;
                char **c = reallocarray(t->cells, a * t->n_columns, sizeof(char *));
                if (!c)
                        return -ENOMEM;
                t->cells = c;
                t->allocated_rows = a;
        }
        char **row = t->cells + t->n_rows * t->n_columns;
        for (size_t c = 0; c < t->n_columns; c++) {
                row[c] = cell_sanitize(cells[c] ? cells[c] : "-");
                if (!row[c]) {
                        while (c > 0)
                                free(row[--c]);
                        return -ENOMEM;
                }
        }
        t->n_rows++;
        return 0;
}

static void print_cell(const Table *t, FILE *f, const char *text, size_t column, size_t width,
                       bool last)
{
        _cleanup_free_ char *cut = cell_truncate(text, width, t->ascii);
        const char *s = cut ? cut : text;
        size_t w = cell_width(s), pad = w < width ? width - w : 0;

        if (t->align[column] == TABLE_ALIGN_RIGHT)
                for (size_t i = 0; i < pad; i++)
                        fputc(' ', f);
        fputs(s, f);
        if (t->align[column] == TABLE_ALIGN_LEFT && !last)
                for (size_t i = 0; i < pad; i++)
                        fputc(' ', f);
}

int table_print(const Table *t, FILE *f)
{
        _cleanup_free_ size_t *widths = calloc(t->n_columns, sizeof(size_t));
        size_t total;

        if (!widths)
                return -ENOMEM;
        for (size_t c = 0; c < t->n_columns; c++) {
                if (t->header)
                        widths[c] = cell_width(t->headers[c]);
                for (size_t r = 0; r < t->n_rows; r++)
                        widths[c] = MAX(widths[c], cell_width(t->cells[r * t->n_columns + c]));
        }

        /* Shrink the widest shrinkable column, one cell at a time, until it fits. */
        for (;;) {
                size_t widest = SIZE_MAX;

                total = t->n_columns - 1; /* one space between columns */
                for (size_t c = 0; c < t->n_columns; c++)
                        total += widths[c];
                if (t->width == 0 || total <= t->width)
                        break;
                for (size_t c = 0; c < t->n_columns; c++)
                        if (t->shrinkable[c] && widths[c] > MIN_SHRINK_WIDTH &&
                            (widest == SIZE_MAX || widths[c] > widths[widest]))
                                widest = c;
                if (widest == SIZE_MAX)
                        break; /* cannot shrink further: let it wrap */
                widths[widest]--;
        }

        if (t->header) {
                if (t->color)
                        fputs("\x1b[1m", f);
                for (size_t c = 0; c < t->n_columns; c++) {
                        if (c > 0)
                                fputc(' ', f);
                        print_cell(t, f, t->headers[c], c, widths[c], c == t->n_columns - 1);
                }
                if (t->color)
                        fputs("\x1b[0m", f);
                fputc('\n', f);
        }
        for (size_t r = 0; r < t->n_rows; r++) {
                for (size_t c = 0; c < t->n_columns; c++) {
                        if (c > 0)
                                fputc(' ', f);
                        print_cell(t, f, t->cells[r * t->n_columns + c], c, widths[c],
                                   c == t->n_columns - 1);
                }
                fputc('\n', f);
        }
        if (fflush(f) != 0 || ferror(f))
                return -EIO;
        return 0;
}

size_t cli_terminal_width(void)
{
        const char *e = getenv("COLUMNS");
        struct winsize ws;

        if (e && *e) {
                char *end;
                unsigned long v;
                errno = 0;
                v = strtoul(e, &end, 10);
                if (errno == 0 && *end == '\0' && v > 0 && v < 100000)
                        return MAX(v, 20ul);
        }
        if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
                return MAX((size_t)ws.ws_col, (size_t)20);
        return 80;
}
