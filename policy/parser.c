/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parser: match expressions and policy files.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core-sched.h"
#include "lib/grow.h"
#include "lib/macro.h"
#include "policy/diagnostic.h"
#include "policy/parser.h"
#include "policy/regex-guard.h"

/* ---- Expressions ---------------------------------------------------- */

Expr *expr_free(Expr *e)
{
        if (!e)
                return NULL;
        expr_free(e->left);
        expr_free(e->right);
        if (e->type == EXPR_PREDICATE && e->regex && e->pattern)
                regfree(&e->re);
        free(e->argument);
        free(e->pattern);
        free(e->source);
        free(e);
        return NULL;
}

bool glob_is_exact(const char *pattern)
{
        return !strpbrk(pattern, "*?[\\");
}

/* Source syntax of one pattern: bare if the lexer would read it back as is. */
static char *pattern_source(MatchKey key, bool regex, const char *pattern)
{
        bool quote = pattern[0] == 0;
        size_t n = 0;
        char *s, *p;

        for (const char *c = pattern; *c; c++) {
                if (strchr(" \t()\"", *c) || (c[0] == '&' && c[1] == '&') ||
                    (c[0] == '|' && c[1] == '|') || (c == pattern && *c == '\\'))
                        quote = true;
                n += (*c == '"' || *c == '\\') ? 2 : 1;
        }
        s = malloc(strlen(match_key_to_string(key)) + n + 4);
        if (!s)
                return NULL;
        p = stpcpy(s, match_key_to_string(key));
        *p++ = regex ? '~' : ':';
        if (!quote)
                p = stpcpy(p, pattern);
        else {
                *p++ = '"';
                for (const char *c = pattern; *c; c++) {
                        if (*c == '"' || *c == '\\')
                                *p++ = '\\';
                        *p++ = *c;
                }
                *p++ = '"';
                *p = 0;
        }
        return s;
}

typedef struct ExprParser {
        Lexer lexer;
        size_t base_column; /* column of the expression's first byte, for messages */
        Token tok; /* lookahead */
        char *error;
        size_t error_offset;
        unsigned depth;
} ExprParser;

_printf_(3, 4) static int parser_fail(ExprParser *p, size_t offset, const char *fmt, ...)
{
        va_list ap;
        int r;

        if (p->error)
                return -EINVAL;
        va_start(ap, fmt);
        r = vasprintf(&p->error, fmt, ap);
        va_end(ap);
        if (r < 0) {
                p->error = NULL;
                return -ENOMEM;
        }
        p->error_offset = offset;
        return -EINVAL;
}

static int advance(ExprParser *p)
{
        _cleanup_free_ char *error = NULL;
        size_t offset = 0;
        int r;

        token_done(&p->tok);
        r = lexer_next(&p->lexer, &p->tok, &error, &offset);
        if (r == -EINVAL && error) {
                p->tok = (Token){ .type = TOKEN_END, .offset = offset };
                return parser_fail(p, offset, "%s", error);
        }
        if (r < 0) {
                p->tok = (Token){ .type = TOKEN_END };
                return r;
        }
        return 0;
}

static int found(ExprParser *p, const char *expected)
{
        _cleanup_free_ char *what = token_describe(&p->lexer, &p->tok);

        if (!what)
                return -ENOMEM;
        return parser_fail(p, p->tok.offset, "expected %s, found %s", expected, what);
}

static int parse_or(ExprParser *p, Expr **ret);

static int make_node(ExprType type, Expr *left, Expr *right, Expr **ret)
{
        Expr *e = calloc(1, sizeof(*e));

        if (!e) {
                expr_free(left);
                expr_free(right);
                return -ENOMEM;
        }
        e->type = type;
        e->left = left;
        e->right = right;
        *ret = e;
        return 0;
}

/* Offset in the expression text of byte I of token T's (unescaped) pattern. */
static size_t pattern_offset(const Lexer *l, const Token *t, size_t i)
{
        size_t pos = t->offset + strlen(match_key_to_string(t->key)) + 1;

        if (!t->quoted)
                return pos + i;
        pos++; /* the opening quote */
        for (size_t k = 0; k < i && pos < l->size; k++)
                pos += l->text[pos] == '\\' && pos + 1 < l->size &&
                                       (l->text[pos + 1] == '"' || l->text[pos + 1] == '\\')
                               ? 2
                               : 1;
        return pos;
}

/* Compile the regex of T, whose first SKIP bytes are the key's argument. */
static int compile_regex(ExprParser *p, const Token *t, size_t skip, regex_t *ret)
{
        size_t at = skip > 0 ? pattern_offset(&p->lexer, t, skip)
                             : t->offset + strlen(match_key_to_string(t->key)) + 1;
        size_t copies, depth;
        const char *pattern = t->pattern + skip;
        ssize_t backref, stacked;
        char msg[256];
        int r;

        backref = regex_find_backref(pattern);
        if (backref >= 0)
                return parser_fail(p, pattern_offset(&p->lexer, t, skip + (size_t)backref),
                                   "expected a regular expression without back-references, "
                                   "found \"\\%c\" (they can take exponential time)",
                                   pattern[backref + 1]);
        r = regex_repeats(pattern, &depth, &stacked);
        if (r == -EINVAL)
                return parser_fail(p, pattern_offset(&p->lexer, t, skip + (size_t)stacked),
                                   "expected one repetition operator after an atom, found '%c' "
                                   "after another (POSIX leaves stacked repetitions undefined, "
                                   "and glibc takes exponential time on them)",
                                   pattern[stacked]);
        if (r < 0 || depth > REGEX_NEST_MAX)
                return parser_fail(p, at,
                                   "expected a regular expression whose repetitions nest at most "
                                   "%u deep, found \"%.64s\"",
                                   REGEX_NEST_MAX, pattern);
        if (regex_cost(pattern, &copies) > REGEX_COST_MAX)
                return parser_fail(p, at,
                                   "expected a regular expression with fewer or smaller "
                                   "repetitions, found \"%.64s\"",
                                   pattern);
        if (copies > REGEX_REPEAT_MAX)
                return parser_fail(p, at,
                                   "expected a regular expression whose {m,n} repeat at most %u "
                                   "characters in all, found \"%.64s\" (%zu)",
                                   REGEX_REPEAT_MAX, pattern, copies);
        r = regcomp(ret, pattern, REG_EXTENDED | REG_NOSUB);
        if (r != 0) {
                regerror(r, ret, msg, sizeof(msg));
                return parser_fail(p, at, "expected an extended regular expression, found \"%s\": %s",
                                   pattern, msg);
        }
        return 0;
}

/* Split the key's argument (keys.h) off T's pattern into E: *RET_SKIP
 * bytes of it. */
static int split_argument(ExprParser *p, const Token *t, Expr *e, size_t *ret_skip)
{
        const MatchKeyInfo *info = match_key_info(t->key);
        _cleanup_free_ char *error = NULL;
        size_t skip = 0, at = 0;
        int r;

        *ret_skip = 0;
        if (!info || !info->split_argument)
                return 0;
        r = info->split_argument(t->pattern, &skip, &error, &at);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return parser_fail(p, pattern_offset(&p->lexer, t, at), "%s",
                                   error ? error : "invalid argument");
        e->argument = strndup(t->pattern, skip);
        if (!e->argument)
                return -ENOMEM;
        *ret_skip = skip;
        return 0;
}

/* "abc*", "*abc", "*abc*": compared without fnmatch() (same result). */
static void classify_glob(Expr *e)
{
        size_t len = strlen(e->pattern);
        bool lead = e->pattern[0] == '*', trail = len > 1 && e->pattern[len - 1] == '*';
        size_t lit = len - lead - trail;
        const char *l = e->pattern + lead;

        /* a literal with no metacharacter of its own between the stars */
        if ((lead || trail) && lit > 0 && !memchr(l, '*', lit) && !memchr(l, '?', lit) &&
            !memchr(l, '[', lit) && !memchr(l, '\\', lit)) {
                e->glob_kind = lead && trail ? GLOB_CONTAINS : lead ? GLOB_SUFFIX : GLOB_PREFIX;
                e->literal = l;
                e->literal_len = lit;
        }
}

/* The pattern of a duration key (keys.h): a comparison, not a glob. E is
 * taken. */
static int parse_duration(ExprParser *p, const Token *t, Expr *e, Expr **ret)
{
        _cleanup_(expr_freep) Expr *owned = e;
        _cleanup_free_ char *error = NULL;
        size_t at = 0;
        int r;

        if (t->regex)
                return parser_fail(p, t->offset + strlen(match_key_to_string(t->key)),
                                   "expected %s:<DURATION or %s:>DURATION, found '~' (%s "
                                   "compares a time span, it takes no regular expression)",
                                   match_key_to_string(t->key), match_key_to_string(t->key),
                                   match_key_to_string(t->key));
        r = duration_compare_parse(t->pattern, &e->duration, &error, &at);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return parser_fail(p, pattern_offset(&p->lexer, t, at), "%s: %s",
                                   match_key_to_string(t->key), error ? error : "invalid duration");
        e->pattern = strdup(t->pattern);
        if (!e->pattern)
                return -ENOMEM;
        r = advance(p);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(owned);
        return 0;
}

/* "KEY:a, KEY:b or KEY:c" for the fixed values of KEY's row. */
static char *values_describe(MatchKey key)
{
        const MatchKeyInfo *info = match_key_info(key);
        _cleanup_free_ char *s = NULL;
        size_t n = 0;

        while (info->values[n])
                n++;
        for (size_t i = 0; i < n; i++) {
                char *x;

                if (asprintf(&x, "%s%s%s:%s", strempty(s),
                             i == 0 ? "" : i + 1 == n ? " or " : ", ", info->name,
                             info->values[i]) < 0)
                        return NULL;
                free(s);
                s = x;
        }
        return TAKE_PTR(s);
}

/* The pattern of a key with fixed values (keys.h): one of them, as written.
 * E is taken. */
static int parse_fixed_value(ExprParser *p, const Token *t, Expr *e, Expr **ret)
{
        _cleanup_(expr_freep) Expr *owned = e;
        _cleanup_free_ char *expected = values_describe(t->key);
        const char *key = match_key_to_string(t->key);
        bool known = false;
        int r;

        if (!expected)
                return -ENOMEM;
        if (t->regex)
                return parser_fail(p, t->offset + strlen(key),
                                   "expected %s, found '~' (%s takes one of its values, no "
                                   "regular expression)",
                                   expected, key);
        for (const char *const *v = match_key_info(t->key)->values; *v && !known; v++)
                known = streq(*v, t->pattern);
        if (!known)
                return parser_fail(p, pattern_offset(&p->lexer, t, 0),
                                   "expected %s, found \"%s:%.64s\"", expected, key,
                                   t->pattern);
        e->pattern = strdup(t->pattern);
        if (!e->pattern)
                return -ENOMEM;
        e->exact = true;
        r = advance(p);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(owned);
        return 0;
}

static int parse_predicate(ExprParser *p, Expr **ret)
{
        _cleanup_(expr_freep) Expr *e = NULL;
        Token *t = &p->tok;
        size_t skip;
        int r;

        e = calloc(1, sizeof(*e));
        if (!e)
                return -ENOMEM;
        e->type = EXPR_PREDICATE;
        e->key = t->key;
        e->regex = t->regex;
        e->source = pattern_source(t->key, t->regex, t->pattern);
        if (!e->source)
                return -ENOMEM;
        r = split_argument(p, t, e, &skip);
        if (r < 0)
                return r;
        if (match_key_info(t->key)->duration)
                return parse_duration(p, t, TAKE_PTR(e), ret);
        if (match_key_info(t->key)->values)
                return parse_fixed_value(p, t, TAKE_PTR(e), ret);
        if (e->regex) {
                r = compile_regex(p, t, skip, &e->re);
                if (r < 0)
                        return r;
        }
        e->pattern = strdup(t->pattern + skip);
        if (!e->pattern) {
                if (e->regex)
                        regfree(&e->re);
                e->regex = false; /* nothing compiled to free */
                return -ENOMEM;
        }
        if (!e->regex) {
                e->exact = glob_is_exact(e->pattern);
                if (!e->exact)
                        classify_glob(e);
        }

        r = advance(p);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(e);
        return 0;
}

static int parse_unary(ExprParser *p, Expr **ret)
{
        Expr *inner = NULL;
        size_t open;
        int r;

        switch (p->tok.type) {
        case TOKEN_PREDICATE:
                return parse_predicate(p, ret);
        case TOKEN_NOT:
        case TOKEN_LPAREN:
                if (p->depth >= EXPR_DEPTH_MAX)
                        return parser_fail(p, p->tok.offset,
                                           "expected at most %u nested '(' and '!', found more",
                                           EXPR_DEPTH_MAX);
                p->depth++;
                open = p->tok.offset;
                if (p->tok.type == TOKEN_NOT) {
                        r = advance(p);
                        if (r < 0)
                                return r;
                        r = parse_unary(p, &inner);
                        if (r < 0)
                                return r;
                        p->depth--;
                        return make_node(EXPR_NOT, inner, NULL, ret);
                }
                r = advance(p);
                if (r < 0)
                        return r;
                r = parse_or(p, &inner);
                if (r < 0)
                        return r;
                if (p->tok.type != TOKEN_RPAREN) {
                        _cleanup_free_ char *what = token_describe(&p->lexer, &p->tok);

                        expr_free(inner);
                        if (!what)
                                return -ENOMEM;
                        return parser_fail(p, p->tok.offset,
                                           "expected ')' to close the '(' at column %zu, found %s",
                                           p->base_column + open, what);
                }
                r = advance(p);
                if (r < 0) {
                        expr_free(inner);
                        return r;
                }
                p->depth--;
                *ret = inner;
                return 0;
        default:
                return found(p, "a predicate, '!' or '('");
        }
}

static int parse_and(ExprParser *p, Expr **ret)
{
        Expr *left = NULL, *right = NULL;
        int r;

        r = parse_unary(p, &left);
        if (r < 0)
                return r;
        while (p->tok.type == TOKEN_AND) {
                r = advance(p);
                if (r >= 0)
                        r = parse_unary(p, &right);
                if (r < 0) {
                        expr_free(left);
                        return r;
                }
                r = make_node(EXPR_AND, left, right, &left);
                if (r < 0)
                        return r;
        }
        *ret = left;
        return 0;
}

static int parse_or(ExprParser *p, Expr **ret)
{
        Expr *left = NULL, *right = NULL;
        int r;

        r = parse_and(p, &left);
        if (r < 0)
                return r;
        while (p->tok.type == TOKEN_OR) {
                r = advance(p);
                if (r >= 0)
                        r = parse_and(p, &right);
                if (r < 0) {
                        expr_free(left);
                        return r;
                }
                r = make_node(EXPR_OR, left, right, &left);
                if (r < 0)
                        return r;
        }
        *ret = left;
        return 0;
}

int expr_parse(const char *text, size_t size, size_t base_column, Expr **ret, char **ret_error,
               size_t *ret_offset)
{
        ExprParser p = { .base_column = base_column ? base_column : 1 };
        Expr *e = NULL;
        int r;

        lexer_init(&p.lexer, text, size);
        r = advance(&p);
        if (r >= 0) {
                if (p.tok.type == TOKEN_END)
                        r = parser_fail(&p, p.tok.offset,
                                        "expected a match expression, found end of line");
                else
                        r = parse_or(&p, &e);
        }
        if (r >= 0 && p.tok.type != TOKEN_END) {
                r = found(&p, p.tok.type == TOKEN_RPAREN ? "'&&', '||' or end of expression (unbalanced ')')"
                                                         : "'&&', '||' or end of expression");
                e = expr_free(e);
        }
        token_done(&p.tok);
        if (r < 0) {
                if (r == -EINVAL && p.error) {
                        if (ret_error)
                                *ret_error = TAKE_PTR(p.error);
                        if (ret_offset)
                                *ret_offset = p.error_offset;
                }
                free(p.error);
                return r;
        }
        free(p.error);
        *ret = e;
        return 0;
}

static int print_expr(FILE *f, const Expr *e, ExprType parent)
{
        bool paren;

        switch (e->type) {
        case EXPR_PREDICATE:
                fputs(e->source, f);
                return 0;
        case EXPR_NOT:
                fputc('!', f);
                return print_expr(f, e->left, EXPR_NOT);
        case EXPR_AND:
        case EXPR_OR:
                /* parenthesize when the parent binds tighter or is '!' */
                paren = parent == EXPR_NOT || (parent == EXPR_AND && e->type == EXPR_OR);
                if (paren)
                        fputc('(', f);
                print_expr(f, e->left, e->type);
                fputs(e->type == EXPR_AND ? " && " : " || ", f);
                print_expr(f, e->right, e->type);
                if (paren)
                        fputc(')', f);
                return 0;
        }
        return 0;
}

char *expr_to_string(const Expr *e)
{
        char *buf = NULL;
        size_t size = 0;
        FILE *f;

        f = open_memstream(&buf, &size);
        if (!f)
                return NULL;
        print_expr(f, e, EXPR_OR);
        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        return buf;
}

uint32_t expr_keys(const Expr *e)
{
        if (!e)
                return 0;
        if (e->type == EXPR_PREDICATE)
                return match_key_info(e->key) ? POLICY_KEY(e->key) : 0;
        return expr_keys(e->left) | expr_keys(e->right);
}

/* ---- Policy files --------------------------------------------------- */

void rule_done(Rule *r)
{
        free(r->name);
        expr_free(r->match);
        free(r->profile);
        *r = (Rule){};
}

void profile_done(Profile *p)
{
        free(p->name);
        *p = (Profile){};
}

void unit_section_done(UnitSection *u)
{
        free((char *)u->glob);
        *u = (UnitSection){};
}

void parsed_file_done(ParsedFile *f)
{
        for (size_t i = 0; i < f->n_rules; i++)
                rule_done(&f->rules[i]);
        for (size_t i = 0; i < f->n_profiles; i++)
                profile_done(&f->profiles[i]);
        for (size_t i = 0; i < f->n_units; i++)
                unit_section_done(&f->units[i]);
        free(f->rules);
        free(f->profiles);
        free(f->units);
        *f = (ParsedFile){};
}

typedef enum SectionType {
        SECTION_NONE,
        SECTION_INVALID, /* the header had an error: skip its keys quietly */
        SECTION_PROFILE,
        SECTION_RULE,
        SECTION_UNIT,
} SectionType;

static const char *const section_type_names[] = {
        [SECTION_PROFILE] = "Profile",
        [SECTION_RULE] = "Rule",
        [SECTION_UNIT] = "Unit",
};

typedef struct FileParser {
        const char *file;
        Diagnostics *diags;
        ParsedFile *out;
        const Hashmap *earlier_profiles;
        Hashmap *sections; /* "Rule x" -> line (as pointer), for duplicates */

        SectionType section;
        unsigned section_line;
        size_t index;      /* of the current rule/profile/unit in out */
        uint32_t seen_keys; /* bit per key slot, for duplicate keys */
        bool has_match;
        size_t section_errors; /* errors before the current section began */
} FileParser;

_printf_(5, 6) static int error_at(FileParser *fp, DiagLevel level, unsigned line, unsigned column,
                                   const char *fmt, ...)
{
        _cleanup_free_ char *m = NULL;
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = vasprintf(&m, fmt, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;
        if (level == DIAG_ERROR)
                fp->out->n_errors++;
        return diagnostics_add(fp->diags, level, fp->file, line, column, "%s", m);
}

static bool is_blank(char c)
{
        return c == ' ' || c == '\t';
}

/* Length of the valid UTF-8 sequence at S (at most N bytes), or 0 if invalid. */
static size_t utf8_sequence(const unsigned char *s, size_t n)
{
        unsigned char c = s[0];
        size_t len;
        uint32_t cp;

        if (c < 0x80)
                return 1;
        if (c >= 0xc2 && c <= 0xdf) {
                len = 2;
                cp = c & 0x1f;
        } else if (c >= 0xe0 && c <= 0xef) {
                len = 3;
                cp = c & 0x0f;
        } else if (c >= 0xf0 && c <= 0xf4) {
                len = 4;
                cp = c & 0x07;
        } else
                return 0;
        if (n < len)
                return 0;
        for (size_t i = 1; i < len; i++) {
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
                cp = (cp << 6) | (s[i] & 0x3f);
        }
        /* overlong forms, surrogates, beyond U+10FFFF */
        if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
            (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
                return 0;
        return len;
}

/* Check one line: UTF-8, no control characters, no CR. Reports the first problem. */
static int check_line(FileParser *fp, unsigned line, const char *s, size_t len, bool *ret_ok)
{
        const unsigned char *u = (const unsigned char *)s;

        *ret_ok = false;
        if (len > POLICY_LINE_MAX)
                return error_at(fp, DIAG_ERROR, line, POLICY_LINE_MAX + 1,
                                "expected a line of at most %u bytes, found %zu bytes",
                                POLICY_LINE_MAX, len);
        for (size_t i = 0; i < len;) {
                size_t n;

                if (u[i] == '\r' && i + 1 == len)
                        return error_at(fp, DIAG_ERROR, line, (unsigned)i + 1,
                                        "expected LF line endings, found CRLF");
                if (u[i] < 0x20 && u[i] != '\t')
                        return error_at(fp, DIAG_ERROR, line, (unsigned)i + 1,
                                        "expected text, found control character 0x%02x", u[i]);
                if (u[i] == 0x7f)
                        return error_at(fp, DIAG_ERROR, line, (unsigned)i + 1,
                                        "expected text, found control character 0x7f");
                n = utf8_sequence(u + i, len - i);
                if (n == 0)
                        return error_at(fp, DIAG_ERROR, line, (unsigned)i + 1,
                                        "expected UTF-8 text, found byte 0x%02x", u[i]);
                i += n;
        }
        *ret_ok = true;
        return 0;
}

/* The names of the keys of a section, for messages: PREFIX and the settings
 * of MASK (from their tables, lib/settings.h), made once and kept; "..." if
 * out of memory. */
static const char *section_keys(char **cache, const char *prefix, uint32_t mask)
{
        _cleanup_free_ char *names = NULL;

        if (*cache)
                return *cache;
        names = settings_names(mask);
        if (!names || asprintf(cache, "%s%s", prefix, names) < 0) {
                *cache = NULL;
                return "...";
        }
        return *cache;
}

static const char *rule_keys(void)
{
        static char *cache;

        return section_keys(&cache, "Match, Profile, Final, RequireTrustedExe, ",
                            SETTINGS_RULE_MASK);
}

static const char *profile_keys(void)
{
        static char *cache;

        return section_keys(&cache, "", SETTINGS_RULE_MASK);
}

static const char *unit_keys(void)
{
        static char *cache;

        return section_keys(&cache, "", SETTINGS_UNIT_MASK);
}

static int end_section(FileParser *fp)
{
        /* after an error in the section, a missing Match= is most likely its victim */
        if (fp->section == SECTION_RULE && !fp->has_match &&
            fp->out->n_errors == fp->section_errors) {
                Rule *r = &fp->out->rules[fp->index];

                return error_at(fp, DIAG_ERROR, fp->section_line, 1,
                                "expected a Match= key in [Rule %s], found none", r->name);
        }
        return 0;
}

static int parse_section_header(FileParser *fp, unsigned line, const char *s, size_t len,
                                size_t indent)
{
        _cleanup_free_ char *name = NULL, *key = NULL;
        size_t end = len, type_start, type_end, name_start, name_end;
        SectionType type = SECTION_NONE;
        void *prev;
        int r;

        r = end_section(fp);
        if (r < 0)
                return r;
        fp->section = SECTION_INVALID;
        fp->section_line = line;
        fp->seen_keys = 0;
        fp->has_match = false;
        fp->section_errors = fp->out->n_errors;

        while (end > indent && is_blank(s[end - 1]))
                end--;
        if (s[end - 1] != ']' || end - indent < 2) {
                /* Find a ']' followed by something else, for a better message. */
                const char *close = memchr(s + indent, ']', end - indent);

                if (close) {
                        size_t g = (size_t)(close - s) + 1;

                        while (g < end && is_blank(s[g]))
                                g++;
                        return error_at(fp, DIAG_ERROR, line, (unsigned)g + 1,
                                        "expected end of line after ']', found \"%.*s\"",
                                        (int)MIN(end - g, (size_t)32), s + g);
                }
                return error_at(fp, DIAG_ERROR, line, (unsigned)end + 1,
                                "expected ']' to close the section header, found end of line");
        }
        end--; /* the ']' */

        for (type_start = indent + 1; type_start < end && is_blank(s[type_start]); type_start++)
                ;
        for (type_end = type_start; type_end < end && !is_blank(s[type_end]); type_end++)
                ;
        for (size_t t = SECTION_PROFILE; t <= SECTION_UNIT; t++)
                if (type_end - type_start == strlen(section_type_names[t]) &&
                    memcmp(s + type_start, section_type_names[t], type_end - type_start) == 0)
                        type = t;
        if (type == SECTION_NONE)
                return error_at(fp, DIAG_ERROR, line, (unsigned)type_start + 1,
                                "expected a section type (Profile, Rule or Unit), found \"%.*s\"",
                                (int)MIN(type_end - type_start, (size_t)64), s + type_start);

        for (name_start = type_end; name_start < end && is_blank(s[name_start]); name_start++)
                ;
        name_end = end;
        while (name_end > name_start && is_blank(s[name_end - 1]))
                name_end--;
        if (name_start == name_end)
                return error_at(fp, DIAG_ERROR, line, (unsigned)end + 1,
                                "expected a %s after \"%s\", found ']'",
                                type == SECTION_UNIT ? "unit name or glob" : "name",
                                section_type_names[type]);
        for (size_t i = name_start; i < name_end; i++)
                if (is_blank(s[i]))
                        return error_at(fp, DIAG_ERROR, line, (unsigned)i + 1,
                                        "expected one %s without blanks, found \"%.*s\"",
                                        type == SECTION_UNIT ? "unit glob" : "name",
                                        (int)MIN(name_end - name_start, (size_t)64),
                                        s + name_start);

        name = strndup(s + name_start, name_end - name_start);
        if (!name)
                return -ENOMEM;
        if (asprintf(&key, "%s %s", section_type_names[type], name) < 0) {
                key = NULL;
                return -ENOMEM;
        }
        prev = hashmap_get(fp->sections, key);
        if (prev)
                return error_at(fp, DIAG_ERROR, line, (unsigned)name_start + 1,
                                "expected a unique section name, found [%s] again (first at line %u)",
                                key, (unsigned)(uintptr_t)prev);
        r = hashmap_put(fp->sections, key, (void *)(uintptr_t)line);
        if (r < 0)
                return r;

        switch (type) {
        case SECTION_RULE:
                r = array_grow_pow2((void **)&fp->out->rules, fp->out->n_rules, sizeof(Rule));
                if (r < 0)
                        return r;
                fp->index = fp->out->n_rules++;
                fp->out->rules[fp->index] = (Rule){
                        .name = TAKE_PTR(name), .file = fp->file, .line = line };
                break;
        case SECTION_PROFILE:
                r = array_grow_pow2((void **)&fp->out->profiles, fp->out->n_profiles, sizeof(Profile));
                if (r < 0)
                        return r;
                fp->index = fp->out->n_profiles++;
                fp->out->profiles[fp->index] = (Profile){
                        .name = TAKE_PTR(name), .file = fp->file, .line = line };
                break;
        case SECTION_UNIT:
                r = array_grow_pow2((void **)&fp->out->units, fp->out->n_units, sizeof(UnitSection));
                if (r < 0)
                        return r;
                fp->index = fp->out->n_units++;
                fp->out->units[fp->index] = (UnitSection){
                        .glob = TAKE_PTR(name), .file = fp->file, .line = line };
                break;
        default:
                break;
        }
        fp->section = type;
        return 0;
}

/* Collect the operands of a chain of && into ITEMS (at most MAX). */
static size_t conjuncts(const Expr *e, const Expr **items, size_t n, size_t max)
{
        if (e->type == EXPR_AND) {
                n = conjuncts(e->left, items, n, max);
                return conjuncts(e->right, items, n, max);
        }
        if (n < max)
                items[n++] = e;
        return n;
}

static bool key_single_valued(MatchKey k)
{
        const MatchKeyInfo *info = match_key_info(k);

        return info && !info->multi;
}

/* The longest value key K has (its row's max_length), 0 if no bound. */
static size_t key_max_length(MatchKey k)
{
        const MatchKeyInfo *info = match_key_info(k);

        return info ? info->max_length : 0;
}

/* Warn about a rule that can never match (a sound, simple check). */
static int check_never_matches(FileParser *fp, const Rule *rule)
{
        const Expr *items[64];
        size_t n = conjuncts(rule->match, items, 0, ELEMENTSOF(items));

        for (size_t i = 0; i < n; i++) {
                const Expr *a = items[i];

                if (a->type == EXPR_PREDICATE && a->exact && key_max_length(a->key) > 0 &&
                    strlen(a->pattern) > key_max_length(a->key))
                        return error_at(fp, DIAG_WARNING, rule->match_line, rule->match_column,
                                        "expected a %s of at most %zu bytes, found \"%s\": rule "
                                        "\"%s\" can never match (%s)",
                                        match_key_to_string(a->key), key_max_length(a->key),
                                        a->pattern, rule->name,
                                        match_key_info(a->key)->max_length_hint);
                for (size_t j = i + 1; j < n; j++) {
                        const Expr *b = items[j];
                        _cleanup_free_ char *sa = NULL, *sb = NULL;

                        if (a->type == EXPR_PREDICATE && b->type == EXPR_PREDICATE &&
                            a->key == b->key && streq_ptr(a->argument, b->argument) &&
                            a->exact && b->exact &&
                            key_single_valued(a->key) && !streq(a->pattern, b->pattern))
                                return error_at(fp, DIAG_WARNING, rule->match_line,
                                                rule->match_column,
                                                "expected a match expression that can be true, "
                                                "found \"%s && %s\": rule \"%s\" can never match",
                                                a->source, b->source, rule->name);
                        if ((a->type == EXPR_NOT) == (b->type == EXPR_NOT))
                                continue;
                        sa = expr_to_string(a->type == EXPR_NOT ? a->left : a);
                        sb = expr_to_string(b->type == EXPR_NOT ? b->left : b);
                        if (!sa || !sb)
                                return -ENOMEM;
                        if (streq(sa, sb))
                                return error_at(fp, DIAG_WARNING, rule->match_line,
                                                rule->match_column,
                                                "expected a match expression that can be true, "
                                                "found both %s and its negation: rule \"%s\" can "
                                                "never match",
                                                sa, rule->name);
                }
        }
        return 0;
}

typedef enum KeySlot {
        SLOT_MATCH = _SETTING_MAX,
        SLOT_PROFILE,
        SLOT_FINAL,
        SLOT_REQUIRE_TRUSTED_EXE,
} KeySlot;

/*
 * Split "Key = Value" of line LINE (S, LEN bytes, the key at INDENT) into
 * *RET_KEY and *RET_VALUE (without the blanks around it), and the column of
 * the value. 1 on success, 0 if the line is malformed (reported).
 */
static int split_key_line(FileParser *fp, unsigned line, const char *s, size_t len,
                          size_t indent, char **ret_key, char **ret_value,
                          unsigned *ret_value_col)
{
        size_t key_end = indent, p, value_start, value_end;
        char *key, *value;

        while (key_end < len && (s[key_end] == '_' || s[key_end] == '-' ||
                                 (s[key_end] >= 'a' && s[key_end] <= 'z') ||
                                 (s[key_end] >= 'A' && s[key_end] <= 'Z') ||
                                 (s[key_end] >= '0' && s[key_end] <= '9')))
                key_end++;
        if (key_end == indent)
                return error_at(fp, DIAG_ERROR, line, (unsigned)indent + 1,
                                "expected a key, a section header or a comment, found \"%.*s\"",
                                (int)MIN(len - indent, (size_t)32), s + indent);
        for (p = key_end; p < len && is_blank(s[p]); p++)
                ;
        if (p >= len || s[p] != '=')
                return error_at(fp, DIAG_ERROR, line, (unsigned)p + 1,
                                "expected '=' after \"%.*s\", found %s%.*s%s",
                                (int)(key_end - indent), s + indent, p >= len ? "end of line" : "\"",
                                (int)(p >= len ? 0 : MIN(len - p, (size_t)32)), s + p,
                                p >= len ? "" : "\"");

        for (value_start = p + 1; value_start < len && is_blank(s[value_start]); value_start++)
                ;
        value_end = len;
        while (value_end > value_start && is_blank(s[value_end - 1]))
                value_end--;
        key = strndup(s + indent, key_end - indent);
        value = strndup(s + value_start, value_end - value_start);
        if (!key || !value) {
                free(key);
                free(value);
                return -ENOMEM;
        }
        *ret_key = key;
        *ret_value = value;
        *ret_value_col = (unsigned)value_start + 1;
        return 1;
}

/* The settings of the current section, which of them it takes, and the names
 * of its keys (for messages). false outside of a valid section. */
static bool section_settings(FileParser *fp, Settings **ret_settings, uint32_t *ret_mask,
                             const char **ret_allowed)
{
        switch (fp->section) {
        case SECTION_RULE:
                *ret_settings = &fp->out->rules[fp->index].own;
                *ret_mask = SETTINGS_RULE_MASK;
                *ret_allowed = rule_keys();
                return true;
        case SECTION_PROFILE:
                *ret_settings = &fp->out->profiles[fp->index].settings;
                *ret_mask = SETTINGS_RULE_MASK;
                *ret_allowed = profile_keys();
                return true;
        case SECTION_UNIT:
                *ret_settings = &fp->out->units[fp->index].settings;
                *ret_mask = SETTINGS_UNIT_MASK;
                *ret_allowed = unit_keys();
                return true;
        default:
                return false;
        }
}

/*
 * Which slot KEY (at column INDENT + 1) fills in the current section: a
 * SettingId or a KeySlot, in *RET_SLOT. 1 if the value is to be parsed, 0
 * if the key is wrong here (reported). Warns about a key given twice.
 */
static int key_line_slot(FileParser *fp, unsigned line, size_t indent, const char *key,
                         uint32_t mask, const char *allowed, int *ret_slot)
{
        SettingId id = setting_from_string(key);
        int slot, r;

        if (id >= 0)
                slot = id;
        else if (fp->section == SECTION_RULE && streq(key, "Match"))
                slot = SLOT_MATCH;
        else if (fp->section == SECTION_RULE && streq(key, "Profile"))
                slot = SLOT_PROFILE;
        else if (fp->section == SECTION_RULE && streq(key, "Final"))
                slot = SLOT_FINAL;
        else if (fp->section == SECTION_RULE && streq(key, "RequireTrustedExe"))
                slot = SLOT_REQUIRE_TRUSTED_EXE;
        else if (streq(key, "Match") || streq(key, "Profile") || streq(key, "Final") ||
                 streq(key, "RequireTrustedExe"))
                return error_at(fp, DIAG_ERROR, line, (unsigned)indent + 1,
                                "expected a key of [%s] (%s), found \"%s\", which only [Rule] "
                                "sections take",
                                section_type_names[fp->section], allowed, key);
        else
                return error_at(fp, DIAG_WARNING, line, (unsigned)indent + 1,
                                "expected a key of [%s] (%s), found unknown key \"%s\", ignored",
                                section_type_names[fp->section], allowed, key);

        if (id >= 0 && !(mask & SETTING_BIT(id)))
                return error_at(fp, DIAG_ERROR, line, (unsigned)indent + 1,
                                "expected a key of [%s] (%s), found \"%s\", which only %s "
                                "sections take",
                                section_type_names[fp->section], allowed, key,
                                fp->section == SECTION_UNIT ? "[Rule] and [Profile]" : "[Unit]");

        if (fp->seen_keys & (UINT32_C(1) << slot)) {
                r = error_at(fp, DIAG_WARNING, line, (unsigned)indent + 1,
                             "expected \"%s\" once per section, found it again (the later value "
                             "wins)",
                             key);
                if (r < 0)
                        return r;
        }
        fp->seen_keys |= UINT32_C(1) << slot;
        *ret_slot = slot;
        return 1;
}

static int parse_match_value(FileParser *fp, unsigned line, Rule *rule, const char *value,
                             unsigned value_col)
{
        _cleanup_(expr_freep) Expr *e = NULL;
        _cleanup_free_ char *error = NULL;
        size_t offset = 0;
        int r;

        fp->has_match = true; /* even if invalid: no second error about it */
        r = expr_parse(value, strlen(value), value_col, &e, &error, &offset);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return error_at(fp, DIAG_ERROR, line, value_col + (unsigned)offset, "%s",
                                error ? error : "invalid match expression");
        expr_free(rule->match);
        rule->match = TAKE_PTR(e);
        rule->match_line = line;
        rule->match_column = value_col;
        rule->uses_thread = match_keys_per_thread(expr_keys(rule->match));
        return check_never_matches(fp, rule);
}

/* The value of a key only [Rule] sections take (SLOT); *VALUE may be taken. */
static int parse_rule_key(FileParser *fp, unsigned line, size_t indent, KeySlot slot,
                          char **value, unsigned value_col)
{
        Rule *rule = &fp->out->rules[fp->index];
        int r;

        switch (slot) {
        case SLOT_MATCH:
                return parse_match_value(fp, line, rule, *value, value_col);
        case SLOT_PROFILE:
                if ((*value)[0] == 0)
                        return error_at(fp, DIAG_ERROR, line, value_col,
                                        "expected the name of a [Profile], found end of line");
                free(rule->profile);
                rule->profile = TAKE_PTR(*value);
                /* resolved at the end of the file; remember where */
                rule->profile_line = line;
                rule->profile_column = value_col;
                return 0;
        case SLOT_FINAL:
                r = parse_boolean(*value);
                if (r < 0)
                        return error_at(fp, DIAG_ERROR, line, value_col,
                                        "expected yes or no, found \"%s\"", *value);
                rule->final = r;
                return 0;
        case SLOT_REQUIRE_TRUSTED_EXE:
                r = parse_boolean(*value);
                if (r < 0)
                        return error_at(fp, DIAG_ERROR, line, value_col,
                                        "expected yes or no, found \"%s\"", *value);
                rule->untrusted_ok = !r;
                if (!r)
                        return error_at(fp, DIAG_WARNING, line, (unsigned)indent + 1,
                                        "RequireTrustedExe=no: the boosts of rule \"%s\" reach "
                                        "any program that matches, including one a user copied "
                                        "or named to match",
                                        rule->name);
                return 0;
        }
        return 0;
}

static int parse_key_line(FileParser *fp, unsigned line, const char *s, size_t len, size_t indent)
{
        _cleanup_free_ char *key = NULL, *value = NULL, *error = NULL;
        unsigned value_col = 0, column = 0;
        Settings *settings = NULL;
        const char *allowed = NULL;
        uint32_t mask = 0;
        int slot = 0, r;

        r = split_key_line(fp, line, s, len, indent, &key, &value, &value_col);
        if (r <= 0)
                return r;
        if (fp->section == SECTION_NONE)
                return error_at(fp, DIAG_ERROR, line, (unsigned)indent + 1,
                                "expected a section header ([Profile NAME], [Rule NAME] or "
                                "[Unit GLOB]) before the first key, found \"%s\"",
                                key);
        if (!section_settings(fp, &settings, &mask, &allowed))
                return 0; /* an invalid section header, reported */
        r = key_line_slot(fp, line, indent, key, mask, allowed, &slot);
        if (r <= 0)
                return r;

        if (slot >= _SETTING_MAX)
                return parse_rule_key(fp, line, indent, (KeySlot)slot, &value, value_col);
        r = settings_parse(settings, (SettingId)slot, value, &error, &column);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return error_at(fp, DIAG_ERROR, line, value_col + column, "%s",
                                error ? error : "invalid value");
        return 0;
}

static int resolve_profiles(FileParser *fp)
{
        _cleanup_(hashmap_freep) Hashmap *own = NULL;
        ParsedFile *out = fp->out;
        int r;

        /* an index of this file's profiles (names are unique within a file):
         * a lookup per rule in a list was quadratic in the size of the file */
        r = hashmap_new(&own);
        if (r < 0)
                return r;
        for (size_t j = 0; j < out->n_profiles; j++) {
                r = hashmap_replace(own, out->profiles[j].name, &out->profiles[j]);
                if (r < 0)
                        return r;
        }

        for (size_t i = 0; i < out->n_rules; i++) {
                Rule *rule = &out->rules[i];
                const Profile *profile = NULL;

                if (rule->profile) {
                        profile = hashmap_get(own, rule->profile);
                        if (!profile)
                                profile = hashmap_get(fp->earlier_profiles, rule->profile);
                        if (!profile) {
                                r = error_at(fp, DIAG_ERROR, rule->profile_line,
                                             rule->profile_column,
                                             "expected the name of a [Profile] defined in this "
                                             "file or in a file that sorts earlier, found \"%s\"",
                                             rule->profile);
                                if (r < 0)
                                        return r;
                        }
                }
                rule->settings = (Settings){};
                if (profile)
                        settings_merge(&rule->settings, &profile->settings);
                settings_merge(&rule->settings, &rule->own);
                if (settings_has(&rule->settings, SETTING_CORE_SCHED) &&
                    rule->settings.core_sched.mode == CORE_SCHED_RULE)
                        rule->settings.core_sched.group = core_sched_group_of(rule->name);
        }
        return 0;
}

int policy_file_parse(const char *file, const char *text, size_t size,
                      const Hashmap *earlier_profiles, ParsedFile *ret, Diagnostics *diags)
{
        _cleanup_(hashmap_freep) Hashmap *sections = NULL;
        ParsedFile out = {};
        FileParser fp = {
                .file = file,
                .diags = diags,
                .out = &out,
                .earlier_profiles = earlier_profiles,
        };
        bool any_section = false;
        unsigned line = 0;
        size_t pos = 0;
        int r;

        r = hashmap_new(&sections);
        if (r < 0)
                return r;
        fp.sections = sections;

        /* A UTF-8 byte order mark is allowed at the start and skipped. */
        if (size >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
                pos = 3;

        while (pos < size) {
                const char *s = text + pos, *nl = memchr(s, '\n', size - pos);
                size_t len = nl ? (size_t)(nl - s) : size - pos, indent;
                bool ok;

                pos += len + 1;
                line++;

                r = check_line(&fp, line, s, len, &ok);
                if (r < 0)
                        goto fail;
                if (!ok)
                        continue;

                for (indent = 0; indent < len && is_blank(s[indent]); indent++)
                        ;
                if (indent == len || s[indent] == '#' || s[indent] == ';')
                        continue;
                if (s[indent] == '[') {
                        any_section = true;
                        r = parse_section_header(&fp, line, s, len, indent);
                } else
                        r = parse_key_line(&fp, line, s, len, indent);
                if (r < 0)
                        goto fail;
        }
        r = end_section(&fp);
        if (r < 0)
                goto fail;

        if (!any_section) {
                r = error_at(&fp, DIAG_WARNING, 0, 0,
                             "expected at least one section, found %s",
                             size == 0 ? "an empty file" : "none");
                if (r < 0)
                        goto fail;
        }

        r = resolve_profiles(&fp);
        if (r < 0)
                goto fail;

        *ret = out;
        return 0;
fail:
        parsed_file_done(&out);
        return r;
}
