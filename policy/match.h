/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Matcher: evaluation of match expressions against task snapshots, and the
 * compiled index that makes the cost of matching independent of the number
 * of rules that name an exact process name.
 *
 * Index: for each rule, the set of names one of which a task must have
 * (argv0, exe basename or comm) for the rule to match, derived from exact
 * name: predicates (a || b: the union; a && b: either side's set; anything
 * else: no set). A rule with a set is only evaluated when one of the task's
 * names is in it; rules without a set are always evaluated. The fast path
 * allocates nothing.
 */
#pragma once

#include <stdbool.h>

#include "lib/task.h"
#include "policy/parser.h"

/* A key~regex predicate sees at most this many bytes of a value (see match.c). */
#define REGEX_SUBJECT_MAX 1024

typedef struct Matcher Matcher;

int matcher_new(Rule *const *rules, size_t n_rules, Matcher **ret);
Matcher *matcher_free(Matcher *m);

/* Does predicate E's pattern match S (NULL: unknown, never)? For the
 * snapshot accessors of policy/keys.c. */
bool expr_match_value(const Expr *e, const char *s);

/* Evaluate E on T. *thread_used is set to true if a thread: predicate was evaluated. */
bool expr_eval(const Expr *e, const TaskSnapshot *t, bool *thread_used);
/* Same, and *ret_decider gets the predicate(s) that decided, in source syntax. */
int expr_eval_trace(const Expr *e, const TaskSnapshot *t, bool *thread_used, bool *ret_value,
                    char **ret_decider);

/*
 * The names one of which a task must have for E to match: returns 1 and a
 * NULL-terminated list (may contain duplicates), or 0 if E has no such set.
 */
int expr_required_names(const Expr *e, char ***ret);
/* true if E is a name: exact predicate or an || of them; their names go to *ret. */
int expr_name_disjunction(const Expr *e, char ***ret);
