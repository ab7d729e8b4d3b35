/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parser: match expressions (an AST) and policy files (INI sections
 * [Profile NAME], [Rule NAME], [Unit GLOB] with their settings).
 *
 * The INI reader is our own line reader: it keeps line and column of every
 * token (Debian 12's inih has a 200-byte line limit, truncates section
 * names at 50 bytes and gives its handler no line numbers).
 */
#pragma once

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/hashmap.h"
#include "lib/settings.h"
#include "policy/duration.h"
#include "policy/lexer.h"
#include "policy/policy.h"

/* Longest accepted line, in bytes (without the newline). */
#define POLICY_LINE_MAX 4096
/* Deepest nesting of '(' and '!' in a match expression. */
#define EXPR_DEPTH_MAX 64

typedef enum ExprType {
        EXPR_PREDICATE,
        EXPR_NOT,
        EXPR_AND,
        EXPR_OR,
} ExprType;

typedef struct Expr Expr;
struct Expr {
        ExprType type;
        Expr *left, *right; /* EXPR_NOT uses left only */

        /* EXPR_PREDICATE: */
        MatchKey key;
        bool regex;
        bool exact;    /* a glob without metacharacters: plain string compare */
        /* "abc*", "*abc", "*abc*": compared without fnmatch() (same result) */
        enum { GLOB_GENERIC, GLOB_PREFIX, GLOB_SUFFIX, GLOB_CONTAINS } glob_kind;
        size_t literal_len; /* of the literal part for PREFIX/SUFFIX/CONTAINS */
        const char *literal; /* points into pattern */
        char *argument; /* the key's argument and separator ("HOME="), or NULL (keys.h) */
        char *pattern; /* unescaped, without the argument */
        char *source;  /* in source syntax, quoted when needed: cmdline:"a b" */
        regex_t re;    /* compiled when regex */
        DurationCompare duration; /* a duration key's (keys.h): its pattern parsed */
};

Expr *expr_free(Expr *e);
static inline void expr_freep(Expr **e)
{
        if (*e)
                expr_free(*e);
}

/*
 * Parse a match expression. On a syntax error returns -EINVAL with a
 * message in *ret_error and the 0-based byte offset of the problem in
 * *ret_offset; -ENOMEM on allocation failure. BASE_COLUMN (1-based column of
 * TEXT in its line, 0 if none) is only used in messages that name a column.
 */
int expr_parse(const char *text, size_t size, size_t base_column, Expr **ret, char **ret_error,
               size_t *ret_offset);

/* The expression in canonical source syntax: operands of && that are || are
 * parenthesized, "!" binds to its operand. */
char *expr_to_string(const Expr *e);
/* POLICY_KEY(key) for every MatchKey that appears in a predicate of E. */
uint32_t expr_keys(const Expr *e);
/* true if PATTERN has no glob metacharacter (* ? [ \) */
bool glob_is_exact(const char *pattern);

typedef struct Profile {
        char *name;
        const char *file;
        unsigned line;
        Settings settings;
} Profile;

typedef struct Rule {
        char *name;
        const char *file; /* borrowed from the Policy's file table */
        unsigned line;    /* of the [Rule] header */
        Expr *match;
        unsigned match_line, match_column;
        char *profile; /* name given in Profile=, or NULL */
        unsigned profile_line, profile_column;
        Settings own;  /* the rule's own settings */
        Settings settings; /* what it contributes: profile first, then its own */
        bool final;
        bool untrusted_ok; /* RequireTrustedExe=no (policy/boost.h) */
        bool uses_thread;
} Rule;

void rule_done(Rule *r);
void profile_done(Profile *p);
void unit_section_done(UnitSection *u);

typedef struct ParsedFile {
        Rule *rules;
        size_t n_rules;
        Profile *profiles;
        size_t n_profiles;
        UnitSection *units;
        size_t n_units;
        size_t n_errors;
} ParsedFile;

void parsed_file_done(ParsedFile *f);

/*
 * Parse the text of one policy file. FILE (borrowed, must outlive the
 * result) names it in diagnostics and in the result. EARLIER_PROFILES
 * (name -> Profile*, may be NULL) holds the profiles of files that sort
 * earlier. Errors and warnings go to DIAGS; ret->n_errors counts the
 * errors. Returns 0, or -ENOMEM.
 */
int policy_file_parse(const char *file, const char *text, size_t size,
                      const Hashmap *earlier_profiles, ParsedFile *ret, Diagnostics *diags);
