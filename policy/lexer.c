/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Lexer: tokens of a match expression.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/macro.h"
#include "policy/lexer.h"

void lexer_init(Lexer *l, const char *text, size_t size)
{
        *l = (Lexer){ .text = text, .size = size };
}

void token_done(Token *t)
{
        if (!t)
                return;
        free(t->pattern);
        t->pattern = NULL;
}

static bool is_blank(char c)
{
        return c == ' ' || c == '\t';
}

static bool is_key_char(char c)
{
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '-';
}

_printf_(3, 4) static int fail(char **ret_error, void *unused, const char *fmt, ...)
{
        va_list ap;
        char *m;

        if (!ret_error)
                return -EINVAL;
        va_start(ap, fmt);
        if (vasprintf(&m, fmt, ap) < 0) {
                va_end(ap);
                return -ENOMEM;
        }
        va_end(ap);
        *ret_error = m;
        return -EINVAL;
}

/* A short quotable excerpt of S (at most 32 bytes, up to a blank). */
static char *excerpt(const char *s, size_t n)
{
        size_t len = 0;

        while (len < n && len < 32 && !is_blank(s[len]))
                len++;
        return strndup(s, len);
}

static bool at_operator(const Lexer *l, size_t i)
{
        return i + 1 < l->size && ((l->text[i] == '&' && l->text[i + 1] == '&') ||
                                   (l->text[i] == '|' && l->text[i + 1] == '|'));
}

/* What is at offset I, for "found ..." after a key. */
static const char *describe_at(const Lexer *l, size_t i)
{
        if (i >= l->size)
                return "end of expression";
        if (is_blank(l->text[i]))
                return "a blank";
        if (at_operator(l, i))
                return l->text[i] == '&' ? "'&&'" : "'||'";
        switch (l->text[i]) {
        case '"':
                return "\"\"";
        case '(':
                return "'('";
        case ')':
                return "')'";
        }
        return "a pattern";
}

/* The operator or parenthesis at START as a token; length 0 if there is none. */
static Token lex_punctuation(const Lexer *l, size_t start)
{
        const char *t = l->text;
        Token tok = { .offset = start };

        if (at_operator(l, start)) {
                tok.type = t[start] == '&' ? TOKEN_AND : TOKEN_OR;
                tok.length = 2;
        } else if (t[start] == '!') {
                tok.type = TOKEN_NOT;
                tok.length = 1;
        } else if (t[start] == '(') {
                tok.type = TOKEN_LPAREN;
                tok.length = 1;
        } else if (t[start] == ')') {
                tok.type = TOKEN_RPAREN;
                tok.length = 1;
        }
        return tok;
}

/* What is at START when it is not "key:" or "key~", as an error. */
static int fail_not_predicate(const Lexer *l, size_t start, size_t key_end, char **ret_error,
                              size_t *ret_offset)
{
        const char *t = l->text;
        _cleanup_free_ char *what = NULL;
        MatchKey k = match_key_from_string_n(t + start, key_end - start);

        if (ret_offset)
                *ret_offset = k >= 0 ? key_end : start;
        if (k >= 0 && key_end >= l->size)
                return fail(ret_error, NULL,
                            "expected ':' or '~' after \"%s\", found end of expression",
                            match_key_to_string(k));
        if (k >= 0)
                return fail(ret_error, NULL, "expected ':' or '~' after \"%s\", found '%c'",
                            match_key_to_string(k), t[key_end]);
        what = excerpt(t + start, l->size - start);
        if (!what)
                return -ENOMEM;
        if (t[start] == '&' || t[start] == '|')
                return fail(ret_error, NULL,
                            "expected '&&', '||', '!', '(', ')' or a predicate, found \"%c\"",
                            t[start]);
        return fail(ret_error, NULL, "expected a predicate (key:glob or key~regex), found \"%s\"",
                    what);
}

/* The key of the predicate at START, and the offset of the ':' or '~' after it. */
static int lex_key(const Lexer *l, size_t start, MatchKey *ret_key, size_t *ret_key_end,
                   char **ret_error, size_t *ret_offset)
{
        const char *t = l->text;
        size_t key_end = start;
        MatchKey key;

        while (key_end < l->size && is_key_char(t[key_end]))
                key_end++;
        if (key_end == start || key_end >= l->size || (t[key_end] != ':' && t[key_end] != '~'))
                return fail_not_predicate(l, start, key_end, ret_error, ret_offset);

        key = match_key_from_string_n(t + start, key_end - start);
        if (key < 0) {
                _cleanup_free_ char *what = strndup(t + start, key_end - start);

                if (!what)
                        return -ENOMEM;
                if (ret_offset)
                        *ret_offset = start;
                return fail(ret_error, NULL, "expected a key (%s), found \"%s\"", match_key_list(),
                            what);
        }
        *ret_key = key;
        *ret_key_end = key_end;
        return 0;
}

/* The quoted pattern whose opening '"' is at l->pos, into TOK. */
static int lex_quoted_pattern(Lexer *l, Token *tok, char **ret_error, size_t *ret_offset)
{
        const char *t = l->text;
        size_t quote = l->pos, n = 0;
        char *p;

        p = malloc(l->size - quote);
        if (!p)
                return -ENOMEM;
        for (l->pos = quote + 1;; l->pos++) {
                if (l->pos >= l->size) {
                        free(p);
                        if (ret_offset)
                                *ret_offset = quote;
                        return fail(ret_error, NULL,
                                    "expected a closing '\"', found end of expression");
                }
                if (t[l->pos] == '"')
                        break;
                if (t[l->pos] == '\\' && l->pos + 1 < l->size &&
                    (t[l->pos + 1] == '"' || t[l->pos + 1] == '\\'))
                        l->pos++;
                p[n++] = t[l->pos];
        }
        p[n] = 0;
        l->pos++; /* the closing quote */
        tok->quoted = true;
        tok->pattern = p;
        if (l->pos < l->size && !is_blank(t[l->pos]) && t[l->pos] != ')' &&
            !at_operator(l, l->pos)) {
                _cleanup_free_ char *what = excerpt(t + l->pos, l->size - l->pos);

                token_done(tok);
                if (!what)
                        return -ENOMEM;
                if (ret_offset)
                        *ret_offset = l->pos;
                return fail(ret_error, NULL,
                            "expected '&&', '||', ')' or a blank after '\"', found \"%s\"", what);
        }
        return 0;
}

/* The unquoted pattern at l->pos, into TOK. */
static int lex_bare_pattern(Lexer *l, Token *tok, char **ret_error, size_t *ret_offset)
{
        const char *t = l->text;
        size_t b = l->pos;

        while (l->pos < l->size && !is_blank(t[l->pos]) && t[l->pos] != '(' && t[l->pos] != ')' &&
               t[l->pos] != '"' && !at_operator(l, l->pos))
                l->pos++;
        if (l->pos < l->size && t[l->pos] == '"') {
                if (ret_offset)
                        *ret_offset = l->pos;
                return fail(ret_error, NULL,
                            "expected a pattern quoted as a whole (key:\"...\"), found '\"' inside a pattern");
        }
        tok->pattern = strndup(t + b, l->pos - b);
        if (!tok->pattern)
                return -ENOMEM;
        return 0;
}

int lexer_next(Lexer *l, Token *ret, char **ret_error, size_t *ret_offset)
{
        const char *t = l->text;
        size_t start, key_end = 0;
        Token tok = {};
        MatchKey key = _KEY_INVALID;
        int r;

        while (l->pos < l->size && is_blank(t[l->pos]))
                l->pos++;
        start = l->pos;

        if (start >= l->size) {
                *ret = (Token){ .type = TOKEN_END, .offset = start };
                return 0;
        }

        tok = lex_punctuation(l, start);
        if (tok.length > 0) {
                l->pos += tok.length;
                *ret = tok;
                return 0;
        }

        /* A predicate: key, ':' or '~', pattern. */
        r = lex_key(l, start, &key, &key_end, ret_error, ret_offset);
        if (r < 0)
                return r;
        tok.type = TOKEN_PREDICATE;
        tok.key = key;
        tok.regex = t[key_end] == '~';
        l->pos = key_end + 1;

        if (l->pos < l->size && t[l->pos] == '"')
                r = lex_quoted_pattern(l, &tok, ret_error, ret_offset);
        else
                r = lex_bare_pattern(l, &tok, ret_error, ret_offset);
        if (r < 0)
                return r;

        if (tok.pattern[0] == 0) {
                token_done(&tok);
                if (ret_offset)
                        *ret_offset = key_end + 1;
                return fail(ret_error, NULL, "expected a pattern after \"%s%c\", found %s",
                            match_key_to_string(key), t[key_end], describe_at(l, key_end + 1));
        }

        tok.length = l->pos - start;
        *ret = tok;
        return 0;
}

char *token_describe(const Lexer *l, const Token *t)
{
        char *s;

        switch (t->type) {
        case TOKEN_END:
                return strdup("end of expression");
        case TOKEN_OR:
                return strdup("'||'");
        case TOKEN_AND:
                return strdup("'&&'");
        case TOKEN_NOT:
                return strdup("'!'");
        case TOKEN_LPAREN:
                return strdup("'('");
        case TOKEN_RPAREN:
                return strdup("')'");
        case TOKEN_PREDICATE:
                if (asprintf(&s, "\"%.*s\"", (int)MIN(t->length, (size_t)64),
                             l->text + t->offset) < 0)
                        return NULL;
                return s;
        }
        return NULL;
}
