/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The strict one-object-per-line JSON reader of the ananicy import.
 */
#include <ctype.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>

#include "cli/ananicy.h"
#include "cli/utf8.h"
#include "lib/macro.h"

typedef struct Reader {
        const char *s;
        size_t n;
        size_t pos;
        char *error;
        size_t error_pos;
} Reader;

static void field_done(AnanicyField *f)
{
        free(f->key);
        free(f->string);
        free(f->text);
        for (size_t j = 0; j < f->n_strings; j++)
                free(f->strings[j]);
        free(f->strings);
        *f = (AnanicyField){};
}

void ananicy_object_done(AnanicyObject *o)
{
        if (!o)
                return;
        for (size_t i = 0; i < o->n; i++)
                field_done(&o->fields[i]);
        free(o->fields);
        *o = (AnanicyObject){};
}

const AnanicyField *ananicy_object_get(const AnanicyObject *o, const char *key)
{
        for (size_t i = 0; i < o->n; i++)
                if (streq(o->fields[i].key, key))
                        return &o->fields[i];
        return NULL;
}

static bool is_json_blank(char c)
{
        return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

bool ananicy_line_is_blank(const char *line, size_t len)
{
        for (size_t i = 0; i < len; i++) {
                if (line[i] == '#')
                        return true;
                if (!is_json_blank(line[i]))
                        return false;
        }
        return true;
}

static void skip_blanks(Reader *r)
{
        while (r->pos < r->n && is_json_blank(r->s[r->pos]))
                r->pos++;
}

/* "'x'", "end of line", "byte 0xff" */
static char *describe_at(const Reader *r, size_t pos)
{
        unsigned char c;
        uint32_t cp;
        size_t l;
        char *d = NULL;

        if (pos >= r->n)
                return strdup("end of line");
        c = (unsigned char)r->s[pos];
        if (c >= 0x20 && c < 0x7f)
                return asprintf(&d, "'%c'", c) < 0 ? NULL : d;
        if (c < 0x20 || c == 0x7f)
                return asprintf(&d, "control character 0x%02x", c) < 0 ? NULL : d;
        l = utf8_decode(r->s + pos, r->n - pos, &cp);
        if (l == 0)
                return asprintf(&d, "byte 0x%02x (not UTF-8)", c) < 0 ? NULL : d;
        return asprintf(&d, "'%.*s'", (int)l, r->s + pos) < 0 ? NULL : d;
}

/* Records "expected WHAT, found <what is at POS>" and returns -EINVAL (or -ENOMEM). */
static int fail_expected(Reader *r, size_t pos, const char *what)
{
        _cleanup_free_ char *found = describe_at(r, pos);

        if (!found)
                return -ENOMEM;
        if (asprintf(&r->error, "expected %s, found %s", what, found) < 0) {
                r->error = NULL;
                return -ENOMEM;
        }
        r->error_pos = pos;
        return -EINVAL;
}

static int fail(Reader *r, size_t pos, const char *message)
{
        r->error = strdup(message);
        if (!r->error)
                return -ENOMEM;
        r->error_pos = pos;
        return -EINVAL;
}

static int hex4(const char *s, uint32_t *ret)
{
        uint32_t v = 0;

        for (int i = 0; i < 4; i++) {
                char c = s[i];
                v <<= 4;
                if (c >= '0' && c <= '9')
                        v |= (uint32_t)(c - '0');
                else if (c >= 'a' && c <= 'f')
                        v |= (uint32_t)(c - 'a' + 10);
                else if (c >= 'A' && c <= 'F')
                        v |= (uint32_t)(c - 'A' + 10);
                else
                        return -EINVAL;
        }
        *ret = v;
        return 0;
}

/* At a '"': reads the string, unescaped, into *ret. */
static int read_string(Reader *r, char **ret)
{
        _cleanup_free_ char *out = NULL;
        size_t o = 0;

        r->pos++; /* opening quote */
        /* Unescaping never makes a string longer than its source. */
        out = malloc(r->n - r->pos + 1);
        if (!out)
                return -ENOMEM;

        for (;;) {
                unsigned char c;

                if (r->pos >= r->n)
                        return fail_expected(r, r->pos, "'\"' closing the string");
                c = (unsigned char)r->s[r->pos];
                if (c == '"') {
                        r->pos++;
                        break;
                }
                if (c < 0x20)
                        return fail_expected(r, r->pos,
                                             "a character or an escape sequence in a string");
                if (c >= 0x80) {
                        uint32_t cp;
                        size_t l = utf8_decode(r->s + r->pos, r->n - r->pos, &cp);
                        if (l == 0)
                                return fail_expected(r, r->pos, "valid UTF-8 in a string");
                        memcpy(out + o, r->s + r->pos, l);
                        o += l;
                        r->pos += l;
                        continue;
                }
                if (c != '\\') {
                        out[o++] = (char)c;
                        r->pos++;
                        continue;
                }

                size_t esc = r->pos;
                r->pos++;
                if (r->pos >= r->n)
                        return fail_expected(r, r->pos, "an escape sequence after '\\'");
                switch (r->s[r->pos]) {
                case '"':
                case '\\':
                case '/':
                        out[o++] = r->s[r->pos++];
                        break;
                case 'b':
                        out[o++] = '\b', r->pos++;
                        break;
                case 'f':
                        out[o++] = '\f', r->pos++;
                        break;
                case 'n':
                        out[o++] = '\n', r->pos++;
                        break;
                case 'r':
                        out[o++] = '\r', r->pos++;
                        break;
                case 't':
                        out[o++] = '\t', r->pos++;
                        break;
                case 'u': {
                        uint32_t cp, lo;
                        char buf[4];
                        size_t l;

                        r->pos++;
                        if (r->n - r->pos < 4 || hex4(r->s + r->pos, &cp) < 0)
                                return fail(r, esc, "expected four hex digits after \\u");
                        r->pos += 4;
                        if (cp >= 0xdc00 && cp <= 0xdfff)
                                return fail(r, esc, "expected a high surrogate before a low "
                                                    "surrogate, found a lone \\u escape of a low surrogate");
                        if (cp >= 0xd800 && cp <= 0xdbff) {
                                if (r->n - r->pos < 6 || r->s[r->pos] != '\\' ||
                                    r->s[r->pos + 1] != 'u' || hex4(r->s + r->pos + 2, &lo) < 0 ||
                                    lo < 0xdc00 || lo > 0xdfff)
                                        return fail(r, esc, "expected a low surrogate \\u escape "
                                                            "after a high surrogate");
                                r->pos += 6;
                                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                        }
                        if (cp == 0)
                                return fail(r, esc, "expected a character, found \\u0000 "
                                                    "(NUL cannot be part of a name)");
                        l = utf8_encode(cp, buf);
                        if (l == 0)
                                return fail(r, esc, "expected a valid \\u escape");
                        memcpy(out + o, buf, l);
                        o += l;
                        break;
                }
                default:
                        return fail_expected(r, r->pos,
                                             "one of \" \\ / b f n r t u after '\\'");
                }
        }
        out[o] = '\0';
        *ret = TAKE_PTR(out);
        return 0;
}

static bool is_digit(char c)
{
        return c >= '0' && c <= '9';
}

static int read_number(Reader *r, AnanicyField *f)
{
        size_t start = r->pos;
        bool integer = true;
        _cleanup_free_ char *copy = NULL;

        if (r->s[r->pos] == '-')
                r->pos++;
        if (r->pos >= r->n || !is_digit(r->s[r->pos]))
                return fail_expected(r, r->pos, "a digit");
        if (r->s[r->pos] == '0') {
                r->pos++;
                if (r->pos < r->n && is_digit(r->s[r->pos]))
                        return fail_expected(r, r->pos,
                                             "'.', 'e' or the end of the number after a leading 0");
        } else
                while (r->pos < r->n && is_digit(r->s[r->pos]))
                        r->pos++;
        if (r->pos < r->n && r->s[r->pos] == '.') {
                integer = false;
                r->pos++;
                if (r->pos >= r->n || !is_digit(r->s[r->pos]))
                        return fail_expected(r, r->pos, "a digit after '.'");
                while (r->pos < r->n && is_digit(r->s[r->pos]))
                        r->pos++;
        }
        if (r->pos < r->n && (r->s[r->pos] == 'e' || r->s[r->pos] == 'E')) {
                integer = false;
                r->pos++;
                if (r->pos < r->n && (r->s[r->pos] == '+' || r->s[r->pos] == '-'))
                        r->pos++;
                if (r->pos >= r->n || !is_digit(r->s[r->pos]))
                        return fail_expected(r, r->pos, "a digit in the exponent");
                while (r->pos < r->n && is_digit(r->s[r->pos]))
                        r->pos++;
        }

        copy = strndup(r->s + start, r->pos - start);
        if (!copy)
                return -ENOMEM;
        errno = 0;
        f->number = strtod(copy, NULL);
        if (!isfinite(f->number))
                return fail(r, start, "expected a number in the range of a double, found an "
                                      "overflowing number");
        if (integer) {
                errno = 0;
                long long v = strtoll(copy, NULL, 10);
                if (errno == 0) {
                        f->type = ANANICY_INTEGER;
                        f->integer = v;
                        return 0;
                }
        }
        f->type = ANANICY_NUMBER;
        return 0;
}

/* "[" (string ("," string)*)? "]": minq-ananicy's "cmdlines". */
static int read_string_array(Reader *r, AnanicyField *f)
{
        r->pos++; /* '[' */
        f->type = ANANICY_STRING_ARRAY;
        skip_blanks(r);
        if (r->pos < r->n && r->s[r->pos] == ']') {
                r->pos++;
                return 0;
        }
        for (;;) {
                char **a, *str = NULL;
                int k;

                skip_blanks(r);
                if (r->pos >= r->n || r->s[r->pos] != '"')
                        return fail_expected(r, r->pos,
                                             "a string in the array (arrays hold strings only)");
                if (f->n_strings >= ANANICY_ARRAY_MAX)
                        return fail(r, r->pos, "expected at most " STRINGIFY(ANANICY_ARRAY_MAX)
                                               " strings in an array, found more");
                k = read_string(r, &str);
                if (k < 0)
                        return k;
                a = reallocarray(f->strings, f->n_strings + 1, sizeof(char *));
                if (!a) {
                        free(str);
                        return -ENOMEM;
                }
                f->strings = a;
                f->strings[f->n_strings++] = str;
                skip_blanks(r);
                if (r->pos < r->n && r->s[r->pos] == ',') {
                        r->pos++;
                        continue;
                }
                if (r->pos < r->n && r->s[r->pos] == ']') {
                        r->pos++;
                        return 0;
                }
                return fail_expected(r, r->pos, "',' or ']' after a string in the array");
        }
}

static int read_value(Reader *r, AnanicyField *f)
{
        static const struct {
                const char *word;
                AnanicyValueType type;
                bool value;
        } words[] = {
                { "true", ANANICY_BOOL, true },
                { "false", ANANICY_BOOL, false },
                { "null", ANANICY_NULL, false },
        };
        char c;

        if (r->pos >= r->n)
                return fail_expected(r, r->pos, "a value");
        c = r->s[r->pos];
        if (c == '"') {
                f->type = ANANICY_STRING;
                return read_string(r, &f->string);
        }
        if (c == '-' || is_digit(c))
                return read_number(r, f);
        if (c == '[')
                return read_string_array(r, f);
        if (c == '{')
                return fail_expected(r, r->pos,
                                     "a string, number, true, false, null or an array of "
                                     "strings (nested objects are not part of ananicy's "
                                     "format)");
        for (size_t i = 0; i < ELEMENTSOF(words); i++) {
                size_t l = strlen(words[i].word);
                if (r->n - r->pos >= l && memcmp(r->s + r->pos, words[i].word, l) == 0 &&
                    (r->n - r->pos == l || !isalnum((unsigned char)r->s[r->pos + l]))) {
                        f->type = words[i].type;
                        f->boolean = words[i].value;
                        r->pos += l;
                        return 0;
                }
        }
        return fail_expected(r, r->pos, "a string, number, true, false or null");
}

int ananicy_parse_line(const char *line, size_t len, AnanicyObject *ret, char **ret_error,
                       unsigned *ret_column)
{
        Reader r = { .s = line, .n = len };
        AnanicyObject o = {};
        int k;

        skip_blanks(&r);
        if (r.pos >= r.n || r.s[r.pos] != '{') {
                k = fail_expected(&r, r.pos, "'{' starting a JSON object");
                goto fail;
        }
        r.pos++;
        skip_blanks(&r);
        if (r.pos < r.n && r.s[r.pos] == '}')
                r.pos++;
        else
                for (;;) {
                        AnanicyField f = {};
                        size_t vstart;

                        skip_blanks(&r);
                        if (r.pos >= r.n || r.s[r.pos] != '"') {
                                k = fail_expected(&r, r.pos, "'\"' starting a key");
                                goto fail;
                        }
                        if (o.n >= ANANICY_FIELDS_MAX) {
                                k = fail(&r, r.pos, "expected at most " STRINGIFY(ANANICY_FIELDS_MAX)
                                                    " keys in an object, found more");
                                goto fail;
                        }
                        f.column = (unsigned)r.pos + 1;
                        k = read_string(&r, &f.key);
                        if (k < 0)
                                goto fail;
                        if (ananicy_object_get(&o, f.key)) {
                                size_t at = f.column - 1;
                                free(f.key);
                                k = fail(&r, at, "expected each key once, found a duplicate key");
                                goto fail;
                        }
                        skip_blanks(&r);
                        if (r.pos >= r.n || r.s[r.pos] != ':') {
                                free(f.key);
                                k = fail_expected(&r, r.pos, "':' after the key");
                                goto fail;
                        }
                        r.pos++;
                        skip_blanks(&r);
                        vstart = r.pos;
                        f.value_column = (unsigned)vstart + 1;
                        k = read_value(&r, &f);
                        if (k >= 0) {
                                f.text = strndup(r.s + vstart, r.pos - vstart);
                                if (!f.text)
                                        k = -ENOMEM;
                        }
                        if (k < 0) {
                                field_done(&f);
                                goto fail;
                        }

                        AnanicyField *a = reallocarray(o.fields, o.n + 1, sizeof(AnanicyField));
                        if (!a) {
                                field_done(&f);
                                k = -ENOMEM;
                                goto fail;
                        }
                        o.fields = a;
                        o.fields[o.n++] = f;

                        skip_blanks(&r);
                        if (r.pos < r.n && r.s[r.pos] == ',') {
                                r.pos++;
                                continue;
                        }
                        if (r.pos < r.n && r.s[r.pos] == '}') {
                                r.pos++;
                                break;
                        }
                        k = fail_expected(&r, r.pos, "',' or '}' after a value");
                        goto fail;
                }

        /* ananicy-cpp reads up to the '}' and ignores the rest of the line:
         * so does this, and says where the ignored text starts. */
        skip_blanks(&r);
        if (r.pos < r.n && r.s[r.pos] != '#')
                o.trailing_column = (unsigned)MIN(r.pos, (size_t)UINT_MAX - 1) + 1;
        *ret = o;
        return 0;

fail:
        ananicy_object_done(&o);
        if (k == -EINVAL) {
                if (ret_error)
                        *ret_error = TAKE_PTR(r.error);
                if (ret_column)
                        *ret_column = (unsigned)MIN(r.error_pos, (size_t)UINT_MAX - 1) + 1;
        }
        free(r.error);
        return k;
}
