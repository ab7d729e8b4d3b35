/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <math.h>

#include "cli/json.h"
#include "cli/utf8.h"
#include "lib/macro.h"

/* latnicectl --json=pretty|short picks the format once for the whole process,
 * so every writer, in any verb, starts in it. */
static bool default_pretty = true;

void json_set_default_pretty(bool pretty)
{
        default_pretty = pretty;
}

void json_writer_init(JsonWriter *w, FILE *f)
{
        *w = (JsonWriter){ .f = f, .pretty = default_pretty };
}

void json_writer_set_pretty(JsonWriter *w, bool pretty)
{
        w->pretty = pretty;
}

int json_writer_finish(JsonWriter *w)
{
        if (w->depth != 0 || w->key_pending || !w->done)
                w->misuse = true;
        fputc('\n', w->f);
        if (fflush(w->f) != 0 || ferror(w->f))
                return -EIO;
        return w->misuse ? -EINVAL : 0;
}

static void newline_indent(JsonWriter *w)
{
        if (!w->pretty)
                return;
        fputc('\n', w->f);
        for (unsigned i = 0; i < w->depth; i++)
                fputs("  ", w->f);
}

/* Called before every value: separators, and checks that a value may come here. */
static bool before_value(JsonWriter *w)
{
        if (w->depth == 0) {
                if (w->done) {
                        w->misuse = true;
                        return false;
                }
                return true;
        }
        if (w->is_object[w->depth - 1]) {
                if (!w->key_pending) {
                        w->misuse = true;
                        return false;
                }
                w->key_pending = false;
                return true;
        }
        if (!w->first[w->depth - 1])
                fputc(',', w->f);
        w->first[w->depth - 1] = false;
        newline_indent(w);
        return true;
}

static void after_value(JsonWriter *w)
{
        if (w->depth == 0)
                w->done = true;
}

void json_fputs_escaped(FILE *f, const char *s, size_t n)
{
        fputc('"', f);
        for (size_t i = 0; i < n;) {
                unsigned char c = (unsigned char)s[i];
                uint32_t cp;
                size_t l;

                if (c < 0x80) {
                        switch (c) {
                        case '"':
                                fputs("\\\"", f);
                                break;
                        case '\\':
                                fputs("\\\\", f);
                                break;
                        case '\n':
                                fputs("\\n", f);
                                break;
                        case '\t':
                                fputs("\\t", f);
                                break;
                        case '\r':
                                fputs("\\r", f);
                                break;
                        case '\b':
                                fputs("\\b", f);
                                break;
                        case '\f':
                                fputs("\\f", f);
                                break;
                        default:
                                if (c < 0x20 || c == 0x7f)
                                        fprintf(f, "\\u%04x", c);
                                else
                                        fputc(c, f);
                        }
                        i++;
                        continue;
                }
                l = utf8_decode(s + i, n - i, &cp);
                if (l == 0) {
                        fputs("\xef\xbf\xbd", f); /* U+FFFD for a byte that is not UTF-8 */
                        i++;
                        continue;
                }
                fwrite(s + i, 1, l, f);
                i += l;
        }
        fputc('"', f);
}

void json_begin_object(JsonWriter *w)
{
        if (!before_value(w))
                return;
        if (w->depth >= JSON_MAX_DEPTH) {
                w->misuse = true;
                return;
        }
        fputc('{', w->f);
        w->first[w->depth] = true;
        w->is_object[w->depth] = true;
        w->depth++;
}

void json_begin_array(JsonWriter *w)
{
        if (!before_value(w))
                return;
        if (w->depth >= JSON_MAX_DEPTH) {
                w->misuse = true;
                return;
        }
        fputc('[', w->f);
        w->first[w->depth] = true;
        w->is_object[w->depth] = false;
        w->depth++;
}

static void end_container(JsonWriter *w, bool object)
{
        if (w->depth == 0 || w->is_object[w->depth - 1] != object || w->key_pending) {
                w->misuse = true;
                return;
        }
        w->depth--;
        if (!w->first[w->depth])
                newline_indent(w);
        fputc(object ? '}' : ']', w->f);
        after_value(w);
}

void json_end_object(JsonWriter *w)
{
        end_container(w, true);
}

void json_end_array(JsonWriter *w)
{
        end_container(w, false);
}

void json_key(JsonWriter *w, const char *key)
{
        if (w->depth == 0 || !w->is_object[w->depth - 1] || w->key_pending || !key) {
                w->misuse = true;
                return;
        }
        if (!w->first[w->depth - 1])
                fputc(',', w->f);
        w->first[w->depth - 1] = false;
        newline_indent(w);
        json_fputs_escaped(w->f, key, strlen(key));
        fputs(w->pretty ? ": " : ":", w->f);
        w->key_pending = true;
}

void json_string_len(JsonWriter *w, const char *s, size_t n)
{
        if (!before_value(w))
                return;
        json_fputs_escaped(w->f, s, n);
        after_value(w);
}

void json_string(JsonWriter *w, const char *s)
{
        if (!s) {
                json_null(w);
                return;
        }
        json_string_len(w, s, strlen(s));
}

void json_int(JsonWriter *w, int64_t v)
{
        if (!before_value(w))
                return;
        fprintf(w->f, "%" PRIi64, v);
        after_value(w);
}

void json_uint(JsonWriter *w, uint64_t v)
{
        if (!before_value(w))
                return;
        fprintf(w->f, "%" PRIu64, v);
        after_value(w);
}

void json_double(JsonWriter *w, double v)
{
        if (!isfinite(v)) {
                json_null(w);
                return;
        }
        if (!before_value(w))
                return;
        char buf[32];
        /* the shortest of the two that reads back as the same double */
        snprintf(buf, sizeof(buf), "%.15g", v);
        if (strtod(buf, NULL) != v)
                snprintf(buf, sizeof(buf), "%.17g", v);
        fputs(buf, w->f);
        after_value(w);
}

void json_bool(JsonWriter *w, bool v)
{
        if (!before_value(w))
                return;
        fputs(v ? "true" : "false", w->f);
        after_value(w);
}

void json_null(JsonWriter *w)
{
        if (!before_value(w))
                return;
        fputs("null", w->f);
        after_value(w);
}

void json_kv_string(JsonWriter *w, const char *key, const char *s)
{
        json_key(w, key);
        json_string(w, s);
}

void json_kv_int(JsonWriter *w, const char *key, int64_t v)
{
        json_key(w, key);
        json_int(w, v);
}

void json_kv_uint(JsonWriter *w, const char *key, uint64_t v)
{
        json_key(w, key);
        json_uint(w, v);
}

void json_kv_bool(JsonWriter *w, const char *key, bool v)
{
        json_key(w, key);
        json_bool(w, v);
}
