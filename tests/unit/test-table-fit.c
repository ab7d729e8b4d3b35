/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: cli/table-fit (wrapping, never cutting, columns that keep
 * their width, the order in which columns give up width).
 */
#include <locale.h>

#include "cli/table-fit.h"
#include "cli/table.h"
#include "lib/macro.h"
#include "tests/unit/test-util.h"

static void test_wrap(void)
{
        _cleanup_free_ char *a = text_wrap("name:a || name:b || comm:c", 10, true);
        _cleanup_free_ char *b = text_wrap("LatencyNice=-15 Nice=-11", 5, false);
        _cleanup_free_ char *c = text_wrap("abcdefghij", 4, true);
        _cleanup_free_ char *d = text_wrap("  two  blanks  ", 20, true);
        _cleanup_free_ char *e = text_wrap("\xc2\xb5s \xc2\xb5s \xc2\xb5s", 5, true); /* µ: one cell */
        _cleanup_free_ char *f = text_wrap("", 3, true);

        check_streq(a, "name:a ||\nname:b ||\ncomm:c");
        check_streq(b, "LatencyNice=-15\nNice=-11");     /* words whole, wider than 5 */
        check_streq(c, "abcd\nefgh\nij");
        check_streq(d, "two blanks");
        check_streq(e, "\xc2\xb5s \xc2\xb5s\n\xc2\xb5s");
        check_streq(f, "");
}

/* cells[] of string literals, copied, so that table_fit() may replace them */
static char **cells_new(const char *const *src, size_t n)
{
        char **c = calloc(n, sizeof(char *));

        for (size_t i = 0; c && i < n; i++)
                c[i] = src[i] ? strdup(src[i]) : NULL;
        return c;
}

static void cells_free(char **c, size_t n)
{
        for (size_t i = 0; c && i < n; i++)
                free(c[i]);
        free(c);
}

static const char *const headers[] = { "RULE", "DECIDED BY", "SETS" };
static const TableFitColumn fit[] = {
        { TABLE_FIT_KEEP, 0 },
        { TABLE_FIT_WRAP, 8 },
        { TABLE_FIT_WRAP_WORDS, 0 },
};
static const size_t yield[] = { 1, 2 };
static const char *const rows[] = {
        "pipewire-data-loop", "name:pipewire || name:wireplumber", "LatencyNice=-15 Nice=-11",
        "short", NULL, "Nice=19",
};

static void test_fit(void)
{
        char **c;

        /* wide enough (18 + 1 + 33 + 1 + 24 = 77): nothing changes */
        c = cells_new(rows, 6);
        check(c && table_fit(c, 2, 3, headers, fit, yield, 2, 77) == 0);
        check_streq(c[1], rows[1]);
        check_streq(c[2], rows[2]);
        cells_free(c, 6);

        /* 60: the predicate gives up 17 cells first; the rule and settings stay */
        c = cells_new(rows, 6);
        check(c && table_fit(c, 2, 3, headers, fit, yield, 2, 60) == 0);
        check_streq(c[0], "pipewire-data-loop");
        check_streq(c[1], "name:pipewire ||\nname:wireplumber");
        check_streq(c[2], "LatencyNice=-15 Nice=-11");
        check(c[4] == NULL);
        cells_free(c, 6);

        /* 40: the predicate down to its least (its header, 10), then the
         * settings at blanks (24 -> 10 would break a word: 15 it is) */
        c = cells_new(rows, 6);
        check(c && table_fit(c, 2, 3, headers, fit, yield, 2, 40) == 0);
        check_streq(c[0], "pipewire-data-loop");
        check_streq(c[1], "name:pipew\nire ||\nname:wirep\nlumber");
        check_streq(c[2], "LatencyNice=-15\nNice=-11");
        check_streq(c[5], "Nice=19");
        cells_free(c, 6);

        /* 10: narrower than the rule's name: nothing is cut, all are as
         * narrow as they may be */
        c = cells_new(rows, 6);
        check(c && table_fit(c, 2, 3, headers, fit, yield, 2, 10) == 0);
        check_streq(c[0], "pipewire-data-loop");
        check_streq(c[2], "LatencyNice=-15\nNice=-11");
        cells_free(c, 6);

        /* width 0: never fitted */
        c = cells_new(rows, 6);
        check(c && table_fit(c, 2, 3, headers, fit, yield, 2, 0) == 0);
        check_streq(c[1], rows[1]);
        cells_free(c, 6);
}

int main(void)
{
        if (!setlocale(LC_ALL, "C.UTF-8")) {
                printf("test-table-fit: no C.UTF-8 locale\n");
                return 77;
        }
        test_wrap();
        test_fit();
        if (test_result() != EXIT_SUCCESS)
                return EXIT_FAILURE;
        printf("test-table-fit: all checks passed\n");
        return 0;
}
