/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Diagnostic list: errors and warnings with file:line:column.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/diagnostic.h"

static int reserve(Diagnostics *d, size_t extra)
{
        Diagnostic *items;

        items = reallocarray(d->items, d->n + extra, sizeof(Diagnostic));
        if (!items)
                return -ENOMEM;
        d->items = items;
        return 0;
}

int diagnostics_add(Diagnostics *d, DiagLevel level, const char *file, unsigned line,
                    unsigned column, const char *fmt, ...)
{
        _cleanup_free_ char *message = NULL, *f = NULL;
        va_list ap;
        int r;

        if (!d)
                return 0;

        va_start(ap, fmt);
        r = vasprintf(&message, fmt, ap);
        va_end(ap);
        if (r < 0) {
                message = NULL;
                return -ENOMEM;
        }
        f = strdup(strempty(file));
        if (!f)
                return -ENOMEM;
        r = reserve(d, 1);
        if (r < 0)
                return r;
        d->items[d->n++] = (Diagnostic){
                .level = level,
                .file = TAKE_PTR(f),
                .line = line,
                .column = column,
                .message = TAKE_PTR(message),
        };
        return 0;
}

int diagnostics_append(Diagnostics *dst, Diagnostics *src)
{
        int r;

        if (!src || src->n == 0)
                return 0;
        if (!dst) {
                diagnostics_done(src);
                return 0;
        }
        r = reserve(dst, src->n);
        if (r < 0)
                return r;
        memcpy(dst->items + dst->n, src->items, src->n * sizeof(Diagnostic));
        dst->n += src->n;
        free(src->items);
        *src = (Diagnostics){};
        return 0;
}

void diagnostics_done(Diagnostics *d)
{
        if (!d)
                return;
        for (size_t i = 0; i < d->n; i++) {
                free(d->items[i].file);
                free(d->items[i].message);
        }
        free(d->items);
        *d = (Diagnostics){};
}

size_t diagnostics_count(const Diagnostics *d, DiagLevel level)
{
        size_t n = 0;

        if (!d)
                return 0;
        for (size_t i = 0; i < d->n; i++)
                if (d->items[i].level == level)
                        n++;
        return n;
}

char *diagnostic_format(const Diagnostic *d)
{
        const char *level = d->level == DIAG_ERROR ? "error" : "warning";
        char *s;
        int r;

        if (d->line > 0 && d->column > 0)
                r = asprintf(&s, "%s:%u:%u: %s: %s", strempty(d->file), d->line, d->column, level,
                             strempty(d->message));
        else if (d->line > 0)
                r = asprintf(&s, "%s:%u: %s: %s", strempty(d->file), d->line, level,
                             strempty(d->message));
        else
                r = asprintf(&s, "%s: %s: %s", strempty(d->file), level, strempty(d->message));
        return r < 0 ? NULL : s;
}

static bool diag_before(const Diagnostic *a, const Diagnostic *b)
{
        return a->line < b->line || (a->line == b->line && a->column < b->column);
}

int diagnostics_sort(Diagnostics *d)
{
        Diagnostic *tmp;

        if (!d || d->n < 2)
                return 0;
        tmp = reallocarray(NULL, d->n, sizeof(Diagnostic));
        if (!tmp)
                return -ENOMEM;
        /* bottom-up merge sort: stable, so diagnostics of one place keep their order */
        for (size_t width = 1; width < d->n; width *= 2) {
                for (size_t lo = 0; lo < d->n; lo += 2 * width) {
                        size_t mid = MIN(lo + width, d->n), hi = MIN(lo + 2 * width, d->n);
                        size_t i = lo, j = mid, k = lo;

                        while (i < mid && j < hi)
                                tmp[k++] = diag_before(&d->items[j], &d->items[i]) ? d->items[j++]
                                                                                   : d->items[i++];
                        while (i < mid)
                                tmp[k++] = d->items[i++];
                        while (j < hi)
                                tmp[k++] = d->items[j++];
                }
                memcpy(d->items, tmp, d->n * sizeof(Diagnostic));
        }
        free(tmp);
        return 0;
}
