/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Tests for policy/lexer.c: every token type, every key, quoting, offsets, errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/macro.h"
#include "policy/lexer.h"
#include "tests/unit/test-util.h"

/* Lex TEXT completely; returns the token types as a string: | & ! ( ) p $ */
static char *types(const char *text, char ***ret_patterns)
{
        static const char sym[] = { [TOKEN_END] = '$', [TOKEN_OR] = '|', [TOKEN_AND] = '&',
                                    [TOKEN_NOT] = '!', [TOKEN_LPAREN] = '(', [TOKEN_RPAREN] = ')',
                                    [TOKEN_PREDICATE] = 'p' };
        char *out = calloc(strlen(text) + 2, 1), **pats = calloc(strlen(text) + 1, sizeof(char *));
        size_t n = 0, np = 0;
        Lexer l;

        lexer_init(&l, text, strlen(text));
        for (;;) {
                Token t;

                if (lexer_next(&l, &t, NULL, NULL) < 0) {
                        out[n++] = 'E';
                        break;
                }
                out[n++] = sym[t.type];
                if (t.type == TOKEN_PREDICATE)
                        pats[np++] = TAKE_PTR(t.pattern);
                token_done(&t);
                if (t.type == TOKEN_END)
                        break;
        }
        *ret_patterns = pats;
        return out;
}

static void expect(const char *text, const char *tys, const char *const *pats)
{
        char **got = NULL;
        char *s = types(text, &got);

        if (!streq(s, tys)) {
                fprintf(stderr, "lex %s: got %s expected %s\n", text, s, tys);
                test_failures++;
        }
        for (size_t i = 0; pats && pats[i]; i++)
                if (!got[i] || !streq(got[i], pats[i])) {
                        fprintf(stderr, "lex %s: pattern %zu got %s expected %s\n", text, i,
                                strna(got[i]), pats[i]);
                        test_failures++;
                }
        strv_free(got);
        free(s);
}

static void test_tokens(void)
{
        expect("", "$", NULL);
        expect("   \t ", "$", NULL);
        expect("name:a", "p$", (const char *const[]){ "a", NULL });
        expect("name:a||comm:b&&!(exe:c)", "p|p&!(p)$",
               (const char *const[]){ "a", "b", "c", NULL });
        expect("cmdline:\"a b && c || (d)\"", "p$",
               (const char *const[]){ "a b && c || (d)", NULL });
        expect("cmdline:\"q\\\"q\\\\q\\.q\"", "p$", (const char *const[]){ "q\"q\\q\\.q", NULL });
        expect("name:a!b", "p$", (const char *const[]){ "a!b", NULL });
        expect("name:a|b", "p$", (const char *const[]){ "a|b", NULL });
        expect("name:a&b", "p$", (const char *const[]){ "a&b", NULL });
        expect("exe~^/usr/.*$", "p$", (const char *const[]){ "^/usr/.*$", NULL });
        expect("name:caf\xc3\xa9", "p$", (const char *const[]){ "caf\xc3\xa9", NULL });
        expect("name:\"x\")", "p)$", (const char *const[]){ "x", NULL });
        expect("name:x&&", "p&$", NULL);
        expect("&", "E", NULL);
        expect("name:", "E", NULL);
        expect("name:\"", "E", NULL);
        expect("bogus:x", "E", NULL);
        expect("name", "E", NULL);
        expect("name:\"a\"b", "E", NULL);
        expect(":x", "E", NULL);
}

static void test_keys(void)
{
        for (MatchKey k = 0; k < _KEY_MAX; k++) {
                const char *name = match_key_to_string(k);
                char text[64];
                Lexer l;
                Token t;

                check(name);
                check(match_key_from_string_n(name, strlen(name)) == k);
                check(strstr(match_key_list(), name));
                snprintf(text, sizeof(text), " %s~x", name);
                lexer_init(&l, text, strlen(text));
                check(lexer_next(&l, &t, NULL, NULL) == 0);
                check(t.type == TOKEN_PREDICATE && t.key == k && t.regex && !t.quoted);
                check(t.offset == 1 && t.length == strlen(name) + 2);
                token_done(&t);
        }
        check(match_key_from_string_n("nam", 3) == _KEY_INVALID);
        check(match_key_from_string_n("names", 5) == _KEY_INVALID);
        check(match_key_to_string(_KEY_MAX) == NULL);
}

static void test_errors(void)
{
        static const struct {
                const char *text;
                size_t offset;
                const char *message;
        } cases[] = {
                { "  foo:x", 2, "expected a key (name, comm, exe, cmdline, user, group, cgroup, "
                                "unit, parent, ancestor, thread, main-thread, env, focused, pod, audio, unfocused), "
                                "found \"foo\"" },
                { "name:\"abc", 5, "expected a closing '\"', found end of expression" },
                { "comm", 4, "expected ':' or '~' after \"comm\", found end of expression" },
                { "comm x", 4, "expected ':' or '~' after \"comm\", found ' '" },
                { "hello world", 0, "expected a predicate (key:glob or key~regex), found \"hello\"" },
                { "|", 0, "expected '&&', '||', '!', '(', ')' or a predicate, found \"|\"" },
                { "exe:", 4, "expected a pattern after \"exe:\", found end of expression" },
                { "exe:&&", 4, "expected a pattern after \"exe:\", found '&&'" },
                { "exe:a\"b\"", 5,
                  "expected a pattern quoted as a whole (key:\"...\"), found '\"' inside a pattern" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *error = NULL;
                size_t offset = 999;
                Lexer l;
                Token t = {};

                lexer_init(&l, cases[i].text, strlen(cases[i].text));
                check(lexer_next(&l, &t, &error, &offset) == -EINVAL);
                if (!error || !streq(error, cases[i].message) || offset != cases[i].offset) {
                        fprintf(stderr, "lex error %s: got %zu %s\n", cases[i].text, offset,
                                strna(error));
                        test_failures++;
                }
        }
}

static void test_offsets(void)
{
        const char *text = "  name:a  &&  !(cmdline:\"x y\")";
        size_t offsets[] = { 2, 10, 14, 15, 16, 29 };
        TokenType tt[] = { TOKEN_PREDICATE, TOKEN_AND, TOKEN_NOT, TOKEN_LPAREN, TOKEN_PREDICATE,
                           TOKEN_RPAREN };
        Lexer l;

        lexer_init(&l, text, strlen(text));
        for (size_t i = 0; i < ELEMENTSOF(offsets); i++) {
                Token t;

                check(lexer_next(&l, &t, NULL, NULL) == 0);
                check(t.type == tt[i] && t.offset == offsets[i]);
                if (i == 4) {
                        check(t.quoted && t.length == 13);
                        {
                                _cleanup_free_ char *d = token_describe(&l, &t);
                                check(d && streq(d, "\"cmdline:\"x y\"\""));
                        }
                }
                token_done(&t);
        }
}

int main(void)
{
        test_tokens();
        test_keys();
        test_errors();
        test_offsets();
        return test_result();
}
