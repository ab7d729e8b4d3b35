/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <langinfo.h>
#include <libsmartcols/libsmartcols.h>
#include <sys/ioctl.h>
#include <wchar.h>

#include "cli/cli.h"
#include "cli/table.h"
#include "cli/utf8.h"
#include "lib/macro.h"

struct Table {
        struct libscols_table *tb;
        size_t n_columns;
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

/* The next character of S (N bytes left): its length in bytes and its width
 * in cells, from glibc. Something mbrtowc() cannot decode is one byte, one
 * cell; a character wcwidth() calls unprintable is one cell too, as the
 * callers print sanitized strings where it became '?'. */
static size_t next_char(const char *s, size_t n, mbstate_t *st, unsigned *ret_width)
{
        wchar_t wc;
        size_t l = mbrtowc(&wc, s, n, st);
        int w;

        if (l == (size_t)-1 || l == (size_t)-2 || l == 0) {
                memset(st, 0, sizeof(*st));
                *ret_width = 1;
                return 1;
        }
        w = wcwidth(wc);
        *ret_width = w < 0 ? 1 : (unsigned)w;
        return l;
}

size_t cell_width(const char *s)
{
        mbstate_t st = {};
        size_t n = strlen(s), w = 0;

        for (size_t i = 0; i < n;) {
                unsigned cw;
                i += next_char(s + i, n - i, &st, &cw);
                w += cw;
        }
        return w;
}

size_t cell_prefix_bytes(const char *s, size_t n, size_t width)
{
        mbstate_t st = {};
        size_t i = 0, w = 0;

        while (i < n) {
                unsigned cw;
                size_t l = next_char(s + i, n - i, &st, &cw);

                if (i > 0 && w + cw > width)
                        break;
                w += cw;
                i += l;
        }
        return i;
}

char *cell_truncate(const char *s, size_t width)
{
        bool utf8 = streq(nl_langinfo(CODESET), "UTF-8");
        const char *ellipsis = utf8 ? "\xe2\x80\xa6" : "...";
        size_t ellipsis_width = utf8 ? 1 : 3;
        size_t n = strlen(s), w = 0, i = 0, room;
        mbstate_t st = {};
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
                mbstate_t before = st;
                unsigned cw;
                size_t l = next_char(s + i, n - i, &st, &cw);

                if (w + cw > room) {
                        st = before;
                        break;
                }
                w += cw;
                i += l;
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
        t->tb = scols_new_table();
        if (!t->tb)
                return table_free(t);
        /* never cut unless told a width (table_set_width) */
        if (scols_table_set_termforce(t->tb, SCOLS_TERMFORCE_NEVER) < 0)
                return table_free(t);
        for (size_t c = 0; c < n_columns; c++)
                if (!scols_table_new_column(t->tb, headers[c] ? headers[c] : "", 0,
                                            SCOLS_FL_TRUNC))
                        return table_free(t);
        return t;
}

Table *cli_table_new(const CliOptions *o, size_t n_columns, const char *const *headers)
{
        Table *t = table_new(n_columns, headers);

        if (!t)
                return NULL;
        table_set_color(t, o->color);
        table_set_header(t, o->legend);
        if (o->tty && !o->full)
                table_set_width(t, o->columns);
        return t;
}

Table *table_free(Table *t)
{
        if (!t)
                return NULL;
        scols_unref_table(t->tb);
        free(t);
        return NULL;
}

static void column_flag(Table *t, size_t column, int flag, bool on)
{
        struct libscols_column *cl = column < t->n_columns ? scols_table_get_column(t->tb, column)
                                                          : NULL;

        if (cl)
                (void)scols_column_set_flags(cl, on ? scols_column_get_flags(cl) | flag
                                                    : scols_column_get_flags(cl) & ~flag);
}

void table_set_align(Table *t, size_t column, TableAlign align)
{
        column_flag(t, column, SCOLS_FL_RIGHT, align == TABLE_ALIGN_RIGHT);
}

void table_set_shrinkable(Table *t, size_t column, bool shrinkable)
{
        column_flag(t, column, SCOLS_FL_TRUNC, shrinkable);
}

void table_set_width(Table *t, size_t width)
{
        (void)scols_table_set_termforce(t->tb, width > 0 ? SCOLS_TERMFORCE_ALWAYS
                                                         : SCOLS_TERMFORCE_NEVER);
        (void)scols_table_set_termwidth(t->tb, width);
}

void table_set_color(Table *t, bool color)
{
        (void)scols_table_enable_colors(t->tb, color);
        for (size_t c = 0; c < t->n_columns; c++) {
                struct libscols_column *cl = scols_table_get_column(t->tb, c);
                (void)scols_cell_set_color(scols_column_get_header(cl), color ? "bold" : NULL);
        }
}

void table_set_header(Table *t, bool header)
{
        (void)scols_table_enable_noheadings(t->tb, !header);
}

size_t table_n_rows(const Table *t)
{
        return scols_table_get_nlines(t->tb);
}

int table_add_row(Table *t, const char *const *cells)
{
        struct libscols_line *ln = scols_table_new_line(t->tb, NULL);

        if (!ln)
                return -ENOMEM;
        for (size_t c = 0; c < t->n_columns; c++)
                if (scols_line_set_data(ln, c, cells[c] ? cells[c] : "-") < 0) {
                        (void)scols_table_remove_line(t->tb, ln);
                        return -ENOMEM;
                }
        return 0;
}

int table_print(const Table *t, FILE *f)
{
        int r;

        r = scols_table_set_stream(t->tb, f);
        if (r >= 0)
                r = scols_print_table(t->tb);
        if (r < 0)
                return r == -ENOMEM ? -ENOMEM : -EIO;
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
