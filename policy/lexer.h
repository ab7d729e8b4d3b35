/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Lexer: tokens of a match expression.
 *
 *   ||  &&  !  (  )  key:glob  key~regex  key:"quoted pattern"
 *
 * An unquoted pattern runs up to a blank, '(' or ')', or the start of "&&"
 * or "||". A double-quoted pattern may contain anything; inside it \" is a
 * quote and \\ a backslash, any other backslash is kept as written (so
 * regular expression escapes like \. work). Offsets are 0-based bytes into
 * the expression.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "policy/keys.h"

typedef enum TokenType {
        TOKEN_END,
        TOKEN_OR,
        TOKEN_AND,
        TOKEN_NOT,
        TOKEN_LPAREN,
        TOKEN_RPAREN,
        TOKEN_PREDICATE,
} TokenType;

typedef struct Token {
        TokenType type;
        size_t offset; /* where the token starts */
        size_t length; /* bytes of source text */
        /* TOKEN_PREDICATE only: */
        MatchKey key;
        bool regex;    /* '~' rather than ':' */
        bool quoted;
        char *pattern; /* unescaped, owned by the token */
} Token;

typedef struct Lexer {
        const char *text;
        size_t size;
        size_t pos;
} Lexer;

void lexer_init(Lexer *l, const char *text, size_t size);

/*
 * Read the next token into *ret (its pattern must be freed with token_done()).
 * On a lexical error returns -EINVAL with *ret_error (a message) and
 * *ret_offset (where the problem is); -ENOMEM on allocation failure.
 */
int lexer_next(Lexer *l, Token *ret, char **ret_error, size_t *ret_offset);

void token_done(Token *t);

/* Human description of a token for "found ..." ("'&&'", "end of expression"). */
char *token_describe(const Lexer *l, const Token *t);
