/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: cli/json (the writer), cli/table (cells, widths from glibc,
 * tables cut only to a width given), cli/utf8 (strict decoding).
 */
#include <locale.h>
#include <stdarg.h>
#include <wchar.h>

#include "cli/json.h"
#include "cli/table.h"
#include "cli/utf8.h"
#include "lib/macro.h"
#include "tests/unit/test-util.h"

/* ---- JSON ---------------------------------------------------------------- */

typedef struct Mem {
        char *buf;
        size_t size;
        FILE *f;
} Mem;

static void mem_open(Mem *m)
{
        *m = (Mem){};
        m->f = open_memstream(&m->buf, &m->size);
        if (!m->f)
                abort();
}

static char *mem_close(Mem *m)
{
        fclose(m->f);
        return m->buf;
}

static char *escaped(const char *s, size_t n)
{
        Mem m;
        mem_open(&m);
        json_fputs_escaped(m.f, s, n);
        return mem_close(&m);
}

static void test_json_escape(void)
{
        _cleanup_free_ char *a = escaped("plain", 5);
        _cleanup_free_ char *b = escaped("q\"b\\s/", 6);
        _cleanup_free_ char *c = escaped("\n\t\r\b\f\x01\x1f\x7f", 8);
        _cleanup_free_ char *d = escaped("caf\xc3\xa9 \xe6\x96\x87 \xf0\x9f\x98\x80", 14);
        _cleanup_free_ char *e = escaped("a\xff" "b\xc3", 4);      /* invalid, truncated */
        _cleanup_free_ char *f = escaped("\xed\xa0\x80", 3);        /* a surrogate in UTF-8 */
        _cleanup_free_ char *g = escaped("\xc0\xaf", 2);            /* overlong '/' */
        _cleanup_free_ char *h = escaped("a\0b", 3);                /* NUL inside */

        check_streq(a, "\"plain\"");
        check_streq(b, "\"q\\\"b\\\\s/\"");
        check_streq(c, "\"\\n\\t\\r\\b\\f\\u0001\\u001f\\u007f\"");
        check_streq(d, "\"caf\xc3\xa9 \xe6\x96\x87 \xf0\x9f\x98\x80\"");
        check_streq(e, "\"a\xef\xbf\xbd" "b\xef\xbf\xbd\"");
        check_streq(f, "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
        check_streq(g, "\"\xef\xbf\xbd\xef\xbf\xbd\"");
        check_streq(h, "\"a\\u0000b\"");
}

static void test_json_document(void)
{
        JsonWriter w;
        Mem m;
        _cleanup_free_ char *out = NULL;

        mem_open(&m);
        json_writer_init(&w, m.f);
        json_begin_object(&w);
        json_kv_string(&w, "name", "x\"y");
        json_kv_int(&w, "neg", -20);
        json_kv_uint(&w, "big", UINT64_MAX);
        json_kv_bool(&w, "t", true);
        json_key(&w, "null");
        json_string(&w, NULL);
        json_key(&w, "d");
        json_double(&w, 0.1);
        json_key(&w, "inf");
        json_double(&w, 1.0 / 0.0);
        json_key(&w, "empty");
        json_begin_array(&w);
        json_end_array(&w);
        json_key(&w, "list");
        json_begin_array(&w);
        json_int(&w, 1);
        json_begin_object(&w);
        json_end_object(&w);
        json_end_array(&w);
        json_end_object(&w);
        check(json_writer_finish(&w) == 0);
        out = mem_close(&m);
        check_streq(out, "{\n"
                       "  \"name\": \"x\\\"y\",\n"
                       "  \"neg\": -20,\n"
                       "  \"big\": 18446744073709551615,\n"
                       "  \"t\": true,\n"
                       "  \"null\": null,\n"
                       "  \"d\": 0.1,\n"
                       "  \"inf\": null,\n"
                       "  \"empty\": [],\n"
                       "  \"list\": [\n"
                       "    1,\n"
                       "    {}\n"
                       "  ]\n"
                       "}\n");

        /* compact */
        mem_open(&m);
        json_writer_init(&w, m.f);
        json_writer_set_pretty(&w, false);
        json_begin_array(&w);
        json_string(&w, "a");
        json_kv_int(&w, "k", 1); /* a key inside an array: misuse */
        json_end_array(&w);
        check(json_writer_finish(&w) == -EINVAL);
        free(mem_close(&m));

        mem_open(&m);
        json_writer_init(&w, m.f);
        json_writer_set_pretty(&w, false);
        json_begin_object(&w);
        json_kv_string(&w, "a", "b");
        json_key(&w, "c");
        json_begin_array(&w);
        json_null(&w);
        json_bool(&w, false);
        json_end_array(&w);
        json_end_object(&w);
        check(json_writer_finish(&w) == 0);
        out = (free(out), mem_close(&m));
        check_streq(out, "{\"a\":\"b\",\"c\":[null,false]}\n");
}

static void test_json_misuse(void)
{
        JsonWriter w;
        Mem m;

        /* a value without a key in an object */
        mem_open(&m);
        json_writer_init(&w, m.f);
        json_begin_object(&w);
        json_int(&w, 1);
        json_end_object(&w);
        check(json_writer_finish(&w) == -EINVAL);
        free(mem_close(&m));

        /* unbalanced */
        mem_open(&m);
        json_writer_init(&w, m.f);
        json_begin_object(&w);
        check(json_writer_finish(&w) == -EINVAL);
        free(mem_close(&m));

        /* mismatched end */
        mem_open(&m);
        json_writer_init(&w, m.f);
        json_begin_array(&w);
        json_end_object(&w);
        check(json_writer_finish(&w) == -EINVAL);
        free(mem_close(&m));

        /* two top-level values */
        mem_open(&m);
        json_writer_init(&w, m.f);
        json_int(&w, 1);
        json_int(&w, 2);
        check(json_writer_finish(&w) == -EINVAL);
        free(mem_close(&m));

        /* a key left without its value */
        mem_open(&m);
        json_writer_init(&w, m.f);
        json_begin_object(&w);
        json_key(&w, "k");
        json_end_object(&w);
        check(json_writer_finish(&w) == -EINVAL);
        free(mem_close(&m));

        /* nesting deeper than JSON_MAX_DEPTH */
        mem_open(&m);
        json_writer_init(&w, m.f);
        for (int i = 0; i < JSON_MAX_DEPTH + 1; i++)
                json_begin_array(&w);
        for (int i = 0; i < JSON_MAX_DEPTH + 1; i++)
                json_end_array(&w);
        check(json_writer_finish(&w) == -EINVAL);
        free(mem_close(&m));

        /* nothing at all */
        mem_open(&m);
        json_writer_init(&w, m.f);
        check(json_writer_finish(&w) == -EINVAL);
        free(mem_close(&m));
}

/* ---- UTF-8 --------------------------------------------------------------- */

static void test_utf8(void)
{
        uint32_t cp = 0;
        char buf[4];

        check(utf8_decode("A", 1, &cp) == 1 && cp == 'A');
        check(utf8_decode("\xc3\xa9", 2, &cp) == 2 && cp == 0xe9);
        check(utf8_decode("\xe2\x80\xa6", 3, &cp) == 3 && cp == 0x2026);
        check(utf8_decode("\xf0\x9f\x98\x80", 4, &cp) == 4 && cp == 0x1f600);
        check(utf8_decode("\xc3", 1, &cp) == 0);             /* truncated */
        check(utf8_decode("\xc0\x80", 2, &cp) == 0);         /* overlong NUL */
        check(utf8_decode("\xe0\x80\xaf", 3, &cp) == 0);     /* overlong */
        check(utf8_decode("\xed\xb0\x80", 3, &cp) == 0);     /* surrogate */
        check(utf8_decode("\xf4\x90\x80\x80", 4, &cp) == 0); /* > U+10FFFF */
        check(utf8_decode("\x80", 1, &cp) == 0);             /* continuation byte */
        check(utf8_decode("\xff", 1, &cp) == 0);
        check(utf8_encode(0x1f600, buf) == 4 && memcmp(buf, "\xf0\x9f\x98\x80", 4) == 0);
        check(utf8_encode(0xd800, buf) == 0);
        check(utf8_encode(0x110000, buf) == 0);
        check(utf8_is_valid("caf\xc3\xa9", 5));
        check(!utf8_is_valid("caf\xc3", 4));
}

/* ---- Cells and tables ---------------------------------------------------- */

/* Every code point is as wide as glibc says (the hand-written table this
 * replaced disagreed with it on 10,052 of them). */
static void test_width_is_glibc(void)
{
        size_t differ = 0;

        for (uint32_t cp = 0x20; cp <= 0x10ffff; cp++) {
                char buf[5] = {};
                int w;

                if (utf8_encode(cp, buf) == 0 || (cp >= 0x7f && cp < 0xa0))
                        continue;
                w = wcwidth((wchar_t)cp);
                if (cell_width(buf) != (size_t)(w < 0 ? 1 : w))
                        differ++;
        }
        check(differ == 0);
        check(cell_width("caf\xc3\xa9") == 4);
        check(cell_width("\xe6\x96\x87\xe5\xad\x97") == 4);
        check(cell_width("e\xcc\x81") == 1);
        check(cell_width("\xf0\x9f\x98\x80") == 2);
        check(cell_width("a\xff" "b") == 3); /* an invalid byte is one cell */
}

static void test_cells(void)
{
        _cleanup_free_ char *a = cell_sanitize("ok\x1b[31mred\n\xff" "end");
        _cleanup_free_ char *b = cell_sanitize("caf\xc3\xa9\xc2\x9b");
        _cleanup_free_ char *c = cell_truncate("abcdefghij", 5);
        _cleanup_free_ char *e = cell_truncate("abc", 5);
        _cleanup_free_ char *f = cell_truncate("\xe6\x96\x87\xe5\xad\x97\xe9\x81\x8a", 4);
        _cleanup_free_ char *h = cell_truncate("abcdef", 0);
        _cleanup_free_ char *d = NULL, *g = NULL;

        check_streq(a, "ok?[31mred??end");
        check_streq(b, "caf\xc3\xa9?"); /* C1 control U+009B (CSI) replaced */
        check_streq(c, "abcd\xe2\x80\xa6");
        check_streq(e, "abc");
        /* 3 wide characters = 6 cells; 4 cells: one wide char + ellipsis (3 cells) */
        check_streq(f, "\xe6\x96\x87\xe2\x80\xa6");
        check(cell_width(f) <= 4);
        check_streq(h, "");

        /* not UTF-8: "..." */
        check(setlocale(LC_CTYPE, "C"));
        d = cell_truncate("abcdefghij", 5);
        g = cell_truncate("abcdef", 2);
        check_streq(d, "ab...");
        check_streq(g, "..");
        check(setlocale(LC_CTYPE, "C.UTF-8"));
}

static char *print_table(const Table *t)
{
        Mem m;

        mem_open(&m);
        check(table_print(t, m.f) == 0);
        return mem_close(&m);
}

/* The widest line of S in cells, and how many lines it has. */
static size_t widest_line(const char *s, size_t *ret_lines)
{
        size_t widest = 0, lines = 0;

        while (s && *s) {
                const char *nl = strchr(s, '\n');
                _cleanup_free_ char *l = strndup(s, nl ? (size_t)(nl - s) : strlen(s));

                widest = MAX(widest, cell_width(l));
                lines++;
                s = nl ? nl + 1 : NULL;
        }
        *ret_lines = lines;
        return widest;
}

static void test_table(void)
{
        _cleanup_(table_freep) Table *t = NULL;
        _cleanup_free_ char *out = NULL, *out2 = NULL, *out3 = NULL, *out4 = NULL;
        char longname[200];
        size_t lines;

        t = table_new(3, (const char *[]){ "PID", "NAME", "RULE" });
        check(t);
        if (!t)
                return;
        table_set_align(t, 0, TABLE_ALIGN_RIGHT);
        check(table_add_row(t, (const char *[]){ "1", "systemd", "init" }) == 0);
        check(table_add_row(t, (const char *[]){ "12345", "a\x1b[31mb", NULL }) == 0);
        check(table_n_rows(t) == 2);
        out = print_table(t);
        /* an escape sequence is shown, never sent to the terminal */
        check_streq(out, "  PID NAME       RULE\n"
                         "    1 systemd    init\n"
                         "12345 a\\x1b[31mb -\n");

        /* no width given: a long cell is never cut */
        memset(longname, 'x', sizeof(longname) - 1);
        longname[sizeof(longname) - 1] = '\0';
        check(table_add_row(t, (const char *[]){ "7", longname, "r" }) == 0);
        out2 = print_table(t);
        check(strstr(out2, longname));
        check(widest_line(out2, &lines) > 200 && lines == 4);

        /* a width: every line fits, the long cell is cut */
        table_set_width(t, 80);
        out3 = print_table(t);
        check(!strstr(out3, longname));
        check(widest_line(out3, &lines) <= 80 && lines == 4);
        check(strstr(out3, "xxxxxxxxxx"));

        /* no header */
        table_set_header(t, false);
        table_set_width(t, 0);
        out4 = print_table(t);
        check(strstr(out4, "PID") == NULL);
        check(strstr(out4, longname));
}

static void test_table_color(void)
{
        _cleanup_(table_freep) Table *t = table_new(1, (const char *[]){ "H" });
        _cleanup_free_ char *out = NULL;

        check(t);
        if (!t)
                return;
        table_set_color(t, true);
        check(table_add_row(t, (const char *[]){ "v" }) == 0);
        out = print_table(t);
        check_streq(out, "\x1b[1mH\x1b[0m\nv\n");
}

int main(void)
{
        /* widths and escapes follow the locale, as for the user */
        if (!setlocale(LC_ALL, "C.UTF-8")) {
                printf("test-table: no C.UTF-8 locale\n");
                return 77;
        }
        test_json_escape();
        test_json_document();
        test_json_misuse();
        test_utf8();
        test_width_is_glibc();
        test_cells();
        test_table();
        test_table_color();
        if (test_result() != EXIT_SUCCESS)
                return EXIT_FAILURE;
        printf("test-table: all checks passed\n");
        return 0;
}
