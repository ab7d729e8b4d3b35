/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Regex guards: what the parser checks of an extended regular expression
 * before it hands it to glibc's regcomp(), whose time and memory some
 * patterns make exponential (see regex-guard.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/macro.h"
#include "policy/parser.h"
#include "policy/regex-guard.h"

static size_t sat_mul(size_t a, size_t b)
{
        return a > REGEX_COST_MAX / (b ? b : 1) ? REGEX_COST_MAX + 1 : a * b;
}

static size_t sat_add(size_t a, size_t b)
{
        return a + b > REGEX_COST_MAX ? REGEX_COST_MAX + 1 : a + b;
}

static bool is_digit(char c)
{
        return c >= '0' && c <= '9';
}

/* The length of the bound at RE, or 0: "{m}", "{m,}", "{m,n}", and as
 * glibc also reads them, "{,n}" and "{,}" (from 0). "{}" is none. */
static size_t bound_length(const char *re)
{
        size_t i = 1;
        bool any = false;

        if (re[0] != '{')
                return 0;
        for (; is_digit(re[i]); i++)
                any = true;
        if (re[i] == ',')
                for (i++, any = true; is_digit(re[i]); i++)
                        ;
        return any && re[i] == '}' ? i + 1 : 0;
}

/* Skip the bracket expression that starts at RE[I] ('['): the index of its ']',
 * or of the terminating NUL when it is unterminated (regcomp reports that).
 * Inside it a backslash is an ordinary character, as POSIX EREs have it. */
static size_t regex_skip_bracket(const char *re, size_t i)
{
        i++;
        if (re[i] == '^')
                i++;
        if (re[i] == ']')
                i++;
        while (re[i] && re[i] != ']') {
                if (re[i] == '[' && (re[i + 1] == ':' || re[i + 1] == '.' || re[i + 1] == '=')) {
                        const char *e = strstr(re + i + 2, (char[]){ re[i + 1], ']', 0 });

                        if (e)
                                i = (size_t)(e - re) + 1;
                }
                i++;
        }
        return i;
}

/*
 * An estimate of how large glibc's regcomp() makes RE: it copies the operand
 * of every bounded repetition once per count, and of '+' once more, so
 * stacked or nested repetitions ("a++++", "(a{1,99}){1,99}") grow
 * exponentially in time and memory. Saturates at REGEX_COST_MAX.
 *
 * *ret_copies gets the part of it that bounded repetitions ({m,n}) add: the
 * copies of their operands. Matching time grows with it even on short
 * input (regexec() builds a DFA state per counter position), so it has a
 * limit of its own, REGEX_REPEAT_MAX.
 */
size_t regex_cost(const char *re, size_t *ret_copies)
{
        /* per nesting level: the sum so far and the cost of the last atom */
        size_t sum[EXPR_DEPTH_MAX + 2] = {}, last[EXPR_DEPTH_MAX + 2] = {};
        size_t depth = 0, copies = 0;

        *ret_copies = 0;
        for (const char *c = re; *c; c++) {
                size_t mult = 0, atom = 1;

                switch (*c) {
                case '\\':
                        if (c[1])
                                c++;
                        break;
                case '[':
                        c = re + regex_skip_bracket(re, (size_t)(c - re));
                        if (!*c)
                                return sum[0]; /* unterminated: regcomp reports it */
                        break;
                case '(':
                        if (depth + 1 >= ELEMENTSOF(sum))
                                return REGEX_COST_MAX + 1;
                        depth++;
                        sum[depth] = last[depth] = 0;
                        continue;
                case ')':
                        if (depth == 0)
                                break;
                        atom = sat_add(sum[depth], 1);
                        depth--;
                        break;
                case '|':
                        last[depth] = 0;
                        continue;
                case '*':
                case '+':
                case '?':
                        mult = 2;
                        break;
                case '{': {
                        size_t len = bound_length(c);
                        unsigned long m, n;
                        char *end;

                        if (len == 0)
                                break; /* not a bound: a literal, or an error regcomp reports */
                        m = strtoul(c + 1, &end, 10);
                        n = *end == ',' ? strtoul(end + 1, NULL, 10) : m;
                        mult = (size_t)MIN(MAX(m, n), (unsigned long)REGEX_COST_MAX) + 1;
                        copies = sat_add(copies, sat_mul(last[depth] ? last[depth] : 1, mult - 1));
                        c += len - 1;
                        break;
                }
                default:
                        break;
                }
                if (mult > 0) {
                        size_t grown = sat_mul(last[depth] ? last[depth] : 1, mult);

                        sum[depth] = sat_add(sum[depth] - MIN(last[depth], sum[depth]), grown);
                        last[depth] = grown;
                } else {
                        sum[depth] = sat_add(sum[depth], atom);
                        last[depth] = atom;
                }
                if (sum[depth] > REGEX_COST_MAX)
                        return REGEX_COST_MAX + 1;
        }
        *ret_copies = copies;
        return sum[0];
}

/*
 * The index of the backslash of the first back-reference (\1 to \9) in the
 * ERE RE, or -1. glibc's regexec() recurses without bound on them (a
 * crash) and takes exponential time, so they are refused. In a bracket
 * expression ("[\1]") a backslash is an ordinary character.
 */
ssize_t regex_find_backref(const char *re)
{
        for (size_t i = 0; re[i]; i++) {
                if (re[i] == '[') {
                        i = regex_skip_bracket(re, i);
                        if (!re[i])
                                return -1;
                } else if (re[i] == '\\') {
                        if (re[i + 1] >= '1' && re[i + 1] <= '9')
                                return (ssize_t)i;
                        if (re[i + 1])
                                i++;
                }
        }
        return -1;
}

int regex_repeats(const char *re, size_t *ret_depth, ssize_t *ret_stacked)
{
        /* per group level: the deepest repetition in it so far, and the
         * depth of its last atom (a group's is the deepest inside it) */
        size_t deepest[EXPR_DEPTH_MAX + 2] = {}, atom[EXPR_DEPTH_MAX + 2] = {};
        size_t level = 0;
        bool after_repeat = false;

        *ret_depth = 0;
        *ret_stacked = -1;
        for (size_t i = 0; re[i]; i++) {
                size_t n = re[i] == '{' ? bound_length(re + i) : 0;

                if (re[i] == '*' || re[i] == '+' || re[i] == '?' || n > 0) {
                        if (after_repeat) {
                                *ret_stacked = (ssize_t) i;
                                return -EINVAL;
                        }
                        atom[level]++;
                        deepest[level] = MAX(deepest[level], atom[level]);
                        after_repeat = true;
                        if (n > 0)
                                i += n - 1;
                        continue;
                }
                after_repeat = false;
                switch (re[i]) {
                case '\\':
                        if (re[i + 1])
                                i++;
                        atom[level] = 0;
                        break;
                case '[':
                        i = regex_skip_bracket(re, i);
                        if (!re[i])
                                goto done; /* unterminated: regcomp reports it */
                        atom[level] = 0;
                        break;
                case '(':
                        if (level + 1 >= ELEMENTSOF(deepest))
                                return -E2BIG;
                        level++;
                        deepest[level] = atom[level] = 0;
                        break;
                case ')':
                        if (level == 0) {
                                atom[level] = 0;
                                break;
                        }
                        level--;
                        atom[level] = deepest[level + 1];
                        deepest[level] = MAX(deepest[level], atom[level]);
                        break;
                default:
                        atom[level] = 0;
                        break;
                }
        }
done:
        while (level > 0) { /* unbalanced: regcomp reports it */
                level--;
                deepest[level] = MAX(deepest[level], deepest[level + 1]);
        }
        *ret_depth = deepest[0];
        return 0;
}
