/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Matcher: expression evaluation and the exact-name index.
 */
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/hashmap.h"
#include "lib/macro.h"
#include "policy/match.h"
#include "policy/policy-internal.h"

typedef struct Posting {
        uint32_t *ids; /* rule indices, ascending */
        size_t n;
} Posting;

struct Matcher {
        Hashmap *index;     /* name -> Posting* */
        Posting *postings;
        size_t n_postings;
        uint32_t *always;   /* rules without a required name set, ascending */
        size_t n_always;
        char ***required;   /* per rule: required names, or NULL if unindexed */
        size_t n_rules;
};

/* ---- Evaluation ----------------------------------------------------- */

/*
 * glibc's regexec() takes time quadratic in the length of the subject for
 * unanchored patterns ("a.*b$" over 64 KiB: seconds), so a regex sees at
 * most REGEX_SUBJECT_MAX bytes of a value. Of a value cut there, '$' does
 * not match at the cut: the real end was not seen.
 */
static bool regex_match(const regex_t *re, const char *s)
{
        size_t n = strnlen(s, REGEX_SUBJECT_MAX + 1);
        regmatch_t range = { .rm_so = 0, .rm_eo = (regoff_t)MIN(n, (size_t)REGEX_SUBJECT_MAX) };

        return regexec(re, s, 0, &range, REG_STARTEND | (n > REGEX_SUBJECT_MAX ? REG_NOTEOL : 0)) ==
               0;
}

bool expr_match_value(const Expr *e, const char *s)
{
        if (!s)
                return false;
        if (e->regex)
                return regex_match(&e->re, s);
        if (e->exact)
                return strcmp(e->pattern, s) == 0;
        switch (e->glob_kind) {
        case GLOB_PREFIX:
                return strncmp(s, e->literal, e->literal_len) == 0;
        case GLOB_SUFFIX: {
                size_t n = strlen(s);

                return n >= e->literal_len &&
                       memcmp(s + n - e->literal_len, e->literal, e->literal_len) == 0;
        }
        case GLOB_CONTAINS:
                return memmem(s, strlen(s), e->literal, e->literal_len) != NULL;
        default:
                return fnmatch(e->pattern, s, 0) == 0;
        }
}

static bool eval_predicate(const Expr *e, const TaskSnapshot *t, bool *thread_used)
{
        const MatchKeyInfo *info = match_key_info(e->key);

        if (!info)
                return false;
        if (thread_used && info->per_thread)
                *thread_used = true;
        /* the trusted view (policy/boost.h): what its user chose is unknown */
        if (t->trusted_view && info->trust == KEY_TRUST_USER)
                return false;
        return info->match(e, t);
}

bool expr_eval(const Expr *e, const TaskSnapshot *t, bool *thread_used)
{
        for (;;)
                switch (e->type) {
                case EXPR_PREDICATE:
                        return eval_predicate(e, t, thread_used);
                case EXPR_NOT:
                        return !expr_eval(e->left, t, thread_used);
                case EXPR_AND:
                        if (!expr_eval(e->left, t, thread_used))
                                return false;
                        e = e->right;
                        break;
                case EXPR_OR:
                        if (expr_eval(e->left, t, thread_used))
                                return true;
                        e = e->right;
                        break;
                default:
                        return false;
                }
}

/* Parenthesize a decider that holds an operator (OP, or either when OP is NULL). */
static char *wrap(char *d, const char *op)
{
        char *s;

        if (!d)
                return NULL;
        if (op ? !strstr(d, op) : !strstr(d, " && ") && !strstr(d, " || "))
                return d;
        if (asprintf(&s, "(%s)", d) < 0)
                s = NULL;
        free(d);
        return s;
}

int expr_eval_trace(const Expr *e, const TaskSnapshot *t, bool *thread_used, bool *ret_value,
                    char **ret_decider)
{
        _cleanup_free_ char *l = NULL, *r = NULL;
        bool lv, rv;
        char *d;
        int k;

        switch (e->type) {
        case EXPR_PREDICATE:
                d = strdup(e->source);
                if (!d)
                        return -ENOMEM;
                *ret_value = eval_predicate(e, t, thread_used);
                *ret_decider = d;
                return 0;
        case EXPR_NOT:
                k = expr_eval_trace(e->left, t, thread_used, &lv, &l);
                if (k < 0)
                        return k;
                l = wrap(TAKE_PTR(l), NULL);
                if (!l || asprintf(&d, "!%s", l) < 0)
                        return -ENOMEM;
                *ret_value = !lv;
                *ret_decider = d;
                return 0;
        case EXPR_AND:
        case EXPR_OR:
                k = expr_eval_trace(e->left, t, thread_used, &lv, &l);
                if (k < 0)
                        return k;
                /* a false operand decides &&, a true one decides || */
                if (lv == (e->type == EXPR_OR)) {
                        *ret_value = lv;
                        *ret_decider = TAKE_PTR(l);
                        return 0;
                }
                k = expr_eval_trace(e->right, t, thread_used, &rv, &r);
                if (k < 0)
                        return k;
                if (rv == (e->type == EXPR_OR)) {
                        *ret_value = rv;
                        *ret_decider = TAKE_PTR(r);
                        return 0;
                }
                /* all operands agreed: all of them decided */
                /* the other operator binds differently: parenthesize it */
                l = wrap(TAKE_PTR(l), e->type == EXPR_AND ? " || " : " && ");
                r = wrap(TAKE_PTR(r), e->type == EXPR_AND ? " || " : " && ");
                if (!l || !r ||
                    asprintf(&d, "%s %s %s", l, e->type == EXPR_AND ? "&&" : "||", r) < 0)
                        return -ENOMEM;
                *ret_value = rv;
                *ret_decider = d;
                return 0;
        }
        return -EINVAL;
}

/* ---- Required name sets --------------------------------------------- */

static int strv_extend(char ***l, char *const *add)
{
        size_t n = 0, m = 0;
        char **x;

        while (*l && (*l)[n])
                n++;
        while (add && add[m])
                m++;
        x = reallocarray(*l, n + m + 1, sizeof(char *));
        if (!x)
                return -ENOMEM;
        for (size_t i = 0; i < m; i++) {
                x[n + i] = strdup(add[i]);
                if (!x[n + i]) {
                        x[n + i] = NULL;
                        *l = x;
                        return -ENOMEM;
                }
        }
        x[n + m] = NULL;
        *l = x;
        return 0;
}

static size_t strv_length(char *const *l)
{
        size_t n = 0;

        while (l && l[n])
                n++;
        return n;
}

int expr_required_names(const Expr *e, char ***ret)
{
        _cleanup_strv_free_ char **a = NULL, **b = NULL;
        int ra, rb, r;

        switch (e->type) {
        case EXPR_PREDICATE:
                if (!match_key_info(e->key) || !match_key_info(e->key)->name_index || e->regex ||
                    !e->exact)
                        return 0;
                r = strv_extend(&a, (char *const[]){ e->pattern, NULL });
                if (r < 0)
                        return r;
                *ret = TAKE_PTR(a);
                return 1;
        case EXPR_OR:
        case EXPR_AND:
                ra = expr_required_names(e->left, &a);
                if (ra < 0)
                        return ra;
                rb = expr_required_names(e->right, &b);
                if (rb < 0)
                        return rb;
                if (e->type == EXPR_OR) {
                        if (!ra || !rb)
                                return 0;
                        r = strv_extend(&a, b);
                        if (r < 0)
                                return r;
                        *ret = TAKE_PTR(a);
                        return 1;
                }
                if (!ra && !rb)
                        return 0;
                /* either side's set is a valid requirement: take the smaller */
                if (ra && (!rb || strv_length(a) <= strv_length(b)))
                        *ret = TAKE_PTR(a);
                else
                        *ret = TAKE_PTR(b);
                return 1;
        default:
                return 0;
        }
}

int expr_name_disjunction(const Expr *e, char ***ret)
{
        _cleanup_strv_free_ char **a = NULL, **b = NULL;
        int r;

        if (e->type == EXPR_PREDICATE)
                return expr_required_names(e, ret);
        if (e->type != EXPR_OR)
                return 0;
        r = expr_name_disjunction(e->left, &a);
        if (r <= 0)
                return r;
        r = expr_name_disjunction(e->right, &b);
        if (r <= 0)
                return r;
        r = strv_extend(&a, b);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(a);
        return 1;
}

/* ---- The index ------------------------------------------------------ */

Matcher *matcher_free(Matcher *m)
{
        if (!m)
                return NULL;
        hashmap_free(m->index);
        for (size_t i = 0; i < m->n_postings; i++)
                free(m->postings[i].ids);
        free(m->postings);
        free(m->always);
        for (size_t i = 0; i < m->n_rules; i++)
                strv_free(m->required[i]);
        free(m->required);
        free(m);
        return NULL;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(Matcher *, matcher_free);

static int posting_add(Posting *p, uint32_t id)
{

        /* a rule may name the same name twice: keep the list duplicate-free */
        if (p->n > 0 && p->ids[p->n - 1] == id)
                return 0;
        if (array_grow_pow2((void **)&p->ids, p->n, sizeof(uint32_t)) < 0)
                return -ENOMEM;
        p->ids[p->n++] = id;
        return 0;
}

int matcher_new(Rule *const *rules, size_t n_rules, Matcher **ret)
{
        _cleanup_(matcher_freep) Matcher *m = NULL;
        size_t cap = 0;
        int r;

        if (n_rules > UINT32_MAX)
                return -E2BIG;
        m = calloc(1, sizeof(*m));
        if (!m)
                return -ENOMEM;
        r = hashmap_new(&m->index);
        if (r < 0)
                return r;
        m->required = calloc(n_rules ? n_rules : 1, sizeof(char **));
        if (!m->required)
                return -ENOMEM;
        m->n_rules = n_rules;
        m->always = calloc(n_rules ? n_rules : 1, sizeof(uint32_t));
        if (!m->always)
                return -ENOMEM;

        for (size_t i = 0; i < n_rules; i++) {
                char **names = NULL;

                r = rules[i]->match ? expr_required_names(rules[i]->match, &names) : 0;
                if (r < 0)
                        return r;
                if (r == 0) {
                        m->always[m->n_always++] = (uint32_t)i;
                        continue;
                }
                m->required[i] = names;
                for (char **n = names; *n; n++) {
                        void *v = hashmap_get(m->index, *n);
                        size_t pi;

                        if (v)
                                pi = (size_t)(uintptr_t)v - 1;
                        else {
                                if (GROW(m->postings, cap, m->n_postings + 1, 64) < 0)
                                        return -ENOMEM;
                                pi = m->n_postings++;
                                m->postings[pi] = (Posting){};
                                r = hashmap_put(m->index, *n, (void *)(uintptr_t)(pi + 1));
                                if (r < 0)
                                        return r;
                        }
                        r = posting_add(&m->postings[pi], (uint32_t)i);
                        if (r < 0)
                                return r;
                }
        }
        *ret = TAKE_PTR(m);
        return 0;
}

static const Posting *lookup(const Matcher *m, const char *name)
{
        void *v;

        if (!name)
                return NULL;
        v = hashmap_get(m->index, name);
        return v ? &m->postings[(uintptr_t)v - 1] : NULL;
}

/* true if the task can match rule I as far as the index is concerned */
static bool is_candidate(const Matcher *m, size_t i, const TaskSnapshot *t)
{
        if (!m->required[i])
                return true;
        for (char **n = m->required[i]; *n; n++)
                if (streq_ptr(*n, t->names.argv0) || streq_ptr(*n, t->names.exe) ||
                    streq_ptr(*n, t->names.comm))
                        return true;
        return false;
}

/* ---- policy_match --------------------------------------------------- */

static void apply_rule(MatchResult *res, const Rule *rule)
{
        /* Whose value each setting now has: this rule's for all it sets. */
        res->untrusted_ok &= ~rule->settings.mask;
        if (rule->untrusted_ok)
                res->untrusted_ok |= rule->settings.mask;
        settings_merge(&res->settings, &rule->settings);
        res->n_matched++;
        res->rule = rule->name;
}

static int match_trace(const Policy *p, const TaskSnapshot *task, MatchResult *ret,
                       MatchTrace *trace)
{
        MatchResult res = {};
        RuleTrace *rt;
        bool stopped = false;

        rt = calloc(p->n_rules ? p->n_rules : 1, sizeof(RuleTrace));
        if (!rt)
                return -ENOMEM;

        for (size_t i = 0; i < p->n_rules; i++) {
                const Rule *rule = p->rules[i];
                bool value = false, thread = false;
                char *decider = NULL;
                int r;

                rt[i] = (RuleTrace){
                        .rule = rule->name,
                        .file = rule->file,
                        .line = rule->line,
                        .verdict = RULE_SKIPPED_FINAL,
                        .settings = rule->settings,
                };
                if (stopped)
                        continue;
                r = expr_eval_trace(rule->match, task, &thread, &value, &decider);
                if (r < 0) {
                        MatchTrace t = { rt, i };
                        match_trace_done(&t);
                        return r;
                }
                rt[i].decider = decider;
                rt[i].verdict = value ? RULE_MATCHED : RULE_NOT_MATCHED;
                if (thread && is_candidate(p->matcher, i, task))
                        res.thread_dependent = true;
                if (value) {
                        apply_rule(&res, rule);
                        if (rule->final)
                                stopped = true;
                }
        }
        *trace = (MatchTrace){ rt, p->n_rules };
        *ret = res;
        return 0;
}

int policy_match(const Policy *p, const TaskSnapshot *task, MatchResult *ret, MatchTrace *trace)
{
        const Matcher *m;
        const uint32_t *lists[4];
        size_t lens[4], pos[4] = {}, n = 0;
        const char *names[3];
        MatchResult res = {};

        if (!p || !task || !ret)
                return -EINVAL;
        if (trace)
                return match_trace(p, task, ret, trace);

        m = p->matcher;
        names[0] = task->names.comm;
        names[1] = task->names.argv0;
        names[2] = task->names.exe;
        for (size_t i = 0; i < 3; i++) {
                const Posting *post;

                if (!names[i] || (i >= 1 && streq_ptr(names[i], names[0])) ||
                    (i == 2 && streq_ptr(names[2], names[1])))
                        continue;
                post = lookup(m, names[i]);
                if (post) {
                        lists[n] = post->ids;
                        lens[n++] = post->n;
                }
        }
        lists[n] = m->always;
        lens[n++] = m->n_always;

        /* Merge the sorted candidate lists, evaluating each rule once, in order. */
        for (;;) {
                uint32_t next = UINT32_MAX;
                const Rule *rule;
                bool thread = false;

                for (size_t i = 0; i < n; i++)
                        if (pos[i] < lens[i] && lists[i][pos[i]] < next)
                                next = lists[i][pos[i]];
                if (next == UINT32_MAX)
                        break;
                for (size_t i = 0; i < n; i++)
                        if (pos[i] < lens[i] && lists[i][pos[i]] == next)
                                pos[i]++;

                rule = p->rules[next];
                if (!expr_eval(rule->match, task, &thread)) {
                        res.thread_dependent |= thread;
                        continue;
                }
                res.thread_dependent |= thread;
                apply_rule(&res, rule);
                if (rule->final)
                        break;
        }
        *ret = res;
        return 0;
}

const char *rule_verdict_to_string(RuleVerdict v)
{
        switch (v) {
        case RULE_MATCHED:
                return "matched";
        case RULE_NOT_MATCHED:
                return "not-matched";
        case RULE_SKIPPED_FINAL:
                return "skipped-final";
        }
        return "unknown";
}

void match_trace_done(MatchTrace *t)
{
        if (!t)
                return;
        for (size_t i = 0; i < t->n; i++)
                free(t->rules[i].decider);
        free(t->rules);
        *t = (MatchTrace){};
}

bool policy_match_unit(const Policy *p, const char *unit, Settings *ret)
{
        Settings s = {};
        bool any = false;

        if (!p || !unit)
                return false;
        for (size_t i = 0; i < p->n_units; i++) {
                const UnitSection *u = p->units[i];

                if (fnmatch(u->glob, unit, 0) != 0)
                        continue;
                settings_merge(&s, &u->settings);
                any = true;
        }
        if (ret)
                *ret = s;
        return any;
}
