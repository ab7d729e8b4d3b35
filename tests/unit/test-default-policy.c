/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The shipped default policy (policy/default) against the sample table
 * tests/unit/default-policy-samples.tsv, through the real loader and matcher:
 *
 *   - the policy loads with no error and no warning;
 *   - every sample matches exactly the rules the table names, and gets
 *     exactly the expected settings (indexed and traced paths alike);
 *   - every rule of the policy has at least one sample (the check is shown
 *     to fail on a policy with one extra, unsampled rule);
 *   - do no harm: no result asks for more than the audio class does, and
 *     nothing latency-sensitive is also made batch or idle;
 *   - names as installed: a sample's boosts reach an unprivileged user's
 *     program that root installed at the sample's exe path (the trusted view
 *     of policy/boost.h, which knows it by its executable's name only), so
 *     a rule that names "vim" but not Debian's vim.basic fails here; a
 *     sample whose boosts are withheld from users by design says "!trust"
 *     after its expected settings.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/macro.h"
#include "lib/sched.h"
#include "policy/boost.h"
#include "policy/policy.h"
#include "tests/unit/test-util.h"

#define POLICY_DIR SOURCE_ROOT "/policy/default"
#define SAMPLES SOURCE_ROOT "/tests/unit/default-policy-samples.tsv"

/* The strongest settings the default policy may hand out (the audio class). */
#define MIN_NICE (-11)
#define MIN_LATENCY_NICE (-15)

typedef struct ProfileExpect {
        char *name;
        Settings settings;
} ProfileExpect;

typedef struct Sample {
        unsigned line;
        char **rules;      /* expected set of matching rules, NULL-terminated */
        char *fields[9];   /* the raw columns, "-" already turned into NULL */
        char *env;         /* the live column's env: entries, NUL-separated */
        size_t env_size;
        const char *focused;
        uint64_t unfocused_usec;
        const char *audio;
        TaskNames *ancestors;
        size_t n_ancestors;
        Settings expected; /* mask 0: nothing */
        bool untrusted;    /* "!trust": its boosts are withheld from users */
        TaskSnapshot task;
        char *argv0_base;
        char *exe_base;
} Sample;

enum { COL_RULES, COL_ARGV0, COL_COMM, COL_EXE, COL_CMDLINE, COL_THREAD, COL_ANCESTORS, COL_EXPECTED,
       COL_LIVE };

typedef struct Table {
        ProfileExpect *profiles;
        size_t n_profiles;
        Sample *samples;
        size_t n_samples;
} Table;

static char *xstrdup(const char *s)
{
        char *r = strdup(s);
        if (!r)
                abort();
        return r;
}

static void *xrealloc(void *p, size_t n, size_t size)
{
        void *r = reallocarray(p, n, size);
        if (!r)
                abort();
        return r;
}

/* Split S at SEP into a NULL-terminated vector of copies. */
static char **split(const char *s, char sep, size_t *ret_n)
{
        char **v = NULL;
        size_t n = 0;

        for (;;) {
                const char *e = strchr(s, sep);
                size_t len = e ? (size_t) (e - s) : strlen(s);

                v = xrealloc(v, n + 2, sizeof(char *));
                v[n] = strndup(s, len);
                if (!v[n])
                        abort();
                v[++n] = NULL;
                if (!e)
                        break;
                s = e + 1;
        }
        if (ret_n)
                *ret_n = n;
        return v;
}

static const char *basename_of(const char *path)
{
        const char *slash = strrchr(path, '/');
        return slash && slash[1] ? slash + 1 : path;
}

/* "Key=Value Key=Value" into *ret; 0 or -EINVAL (reported). */
static int parse_settings(const char *text, unsigned line, Settings *ret)
{
        Settings s = {};
        size_t n;
        char **words = split(text, ' ', &n);
        int r = 0;

        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *err = NULL;

                if (words[i][0] == '\0')
                        continue;
                if (settings_parse_assignment(&s, words[i], &err) < 0) {
                        test_fail("%s:%u: bad setting \"%s\": %s", SAMPLES, line, words[i],
                             strna(err));
                        r = -EINVAL;
                }
        }
        strv_free(words);
        if (r == 0)
                *ret = s;
        return r;
}

static const ProfileExpect *table_profile(const Table *t, const char *name)
{
        for (size_t i = 0; i < t->n_profiles; i++)
                if (streq(t->profiles[i].name, name))
                        return &t->profiles[i];
        return NULL;
}

/* The live column: "focused:yes", "focused:no", "unfocused:SECONDS" (no, for
 * that long), "audio:playing", "audio:no", "env:NAME=value", comma-separated. */
static int parse_live(Sample *s, unsigned lineno)
{
        size_t n;
        char **items = split(s->fields[COL_LIVE], ',', &n);
        int r = 0;

        for (size_t i = 0; i < n && r == 0; i++) {
                const char *it = items[i];

                if (streq(it, "focused:yes") || streq(it, "focused:no"))
                        s->focused = it[8] == 'y' ? "yes" : "no";
                else if (strncmp(it, "unfocused:", 10) == 0 && it[10] >= '0' && it[10] <= '9') {
                        s->focused = "no";
                        s->unfocused_usec = strtoull(it + 10, NULL, 10) * UINT64_C(1000000);
                }
                else if (streq(it, "audio:playing") || streq(it, "audio:no"))
                        s->audio = it[6] == 'p' ? "playing" : "no";
                else if (strncmp(it, "env:", 4) == 0 && strchr(it + 4, '=')) {
                        size_t l = strlen(it + 4) + 1;

                        s->env = xrealloc(s->env, s->env_size + l + 1, 1);
                        memcpy(s->env + s->env_size, it + 4, l);
                        s->env_size += l;
                        s->env[s->env_size] = 0;
                } else {
                        test_fail("%s:%u: live fact \"%s\": expected focused:yes, focused:no, unfocused:N, "
                                  "audio:playing, audio:no or env:NAME=value", SAMPLES, lineno, it);
                        r = -EINVAL;
                }
        }
        strv_free(items);
        return r;
}

static int parse_sample(Table *t, char *line, unsigned lineno)
{
        size_t n;
        char **cols = split(line, '\t', &n);
        Sample s = { .line = lineno };

        if (n != 8 && n != 9) {
                test_fail("%s:%u: expected 8 or 9 tab-separated columns, found %zu", SAMPLES,
                          lineno, n);
                strv_free(cols);
                return -EINVAL;
        }
        for (size_t i = 0; i < n; i++) {
                if (streq(cols[i], "-"))
                        free(cols[i]);
                else
                        s.fields[i] = cols[i];
        }
        free(cols);

        if (!s.fields[COL_ARGV0] || !s.fields[COL_COMM] || !s.fields[COL_EXPECTED]) {
                test_fail("%s:%u: argv0, comm and expected are required", SAMPLES, lineno);
                return -EINVAL;
        }
        if (strlen(s.fields[COL_COMM]) > 15) {
                test_fail("%s:%u: comm \"%s\" is longer than the kernel's 15 bytes", SAMPLES, lineno,
                     s.fields[COL_COMM]);
                return -EINVAL;
        }

        s.rules = s.fields[COL_RULES] ? split(s.fields[COL_RULES], ',', NULL) : split("", ',', NULL);
        if (!s.fields[COL_RULES]) {
                free(s.rules[0]);
                s.rules[0] = NULL;
        }

        char *exp = s.fields[COL_EXPECTED];
        char *mark = strstr(exp, " !trust");
        if (mark && streq(mark, " !trust")) {
                s.untrusted = true;
                *mark = '\0';
        }
        if (exp[0] == '@') {
                const ProfileExpect *pe = table_profile(t, exp + 1);
                if (!pe) {
                        test_fail("%s:%u: unknown profile \"%s\" (define it with an @ line first)",
                             SAMPLES, lineno, exp);
                        return -EINVAL;
                }
                s.expected = pe->settings;
        } else if (!streq(exp, "none")) {
                if (parse_settings(exp, lineno, &s.expected) < 0)
                        return -EINVAL;
        }
        if ((s.expected.mask == 0) != (s.rules[0] == NULL)) {
                test_fail("%s:%u: a sample matched by no rule must expect \"none\", and only then",
                     SAMPLES, lineno);
                return -EINVAL;
        }

        if (s.fields[COL_ANCESTORS]) {
                char **names = split(s.fields[COL_ANCESTORS], ',', &s.n_ancestors);
                s.ancestors = xrealloc(NULL, s.n_ancestors, sizeof(TaskNames));
                for (size_t i = 0; i < s.n_ancestors; i++)
                        s.ancestors[i] = (TaskNames) { .comm = names[i], .argv0 = names[i],
                                                       .exe = names[i] };
                free(names); /* the strings now belong to s.ancestors */
        }

        if (s.fields[COL_LIVE] && parse_live(&s, lineno) < 0)
                return -EINVAL;
        s.argv0_base = xstrdup(basename_of(s.fields[COL_ARGV0]));
        s.exe_base = s.fields[COL_EXE] ? xstrdup(basename_of(s.fields[COL_EXE])) : NULL;
        t->samples = xrealloc(t->samples, t->n_samples + 1, sizeof(Sample));
        t->samples[t->n_samples++] = s;
        return 0;
}

/* Build the snapshots once the sample array no longer moves. */
static void table_fix_snapshots(Table *t)
{
        for (size_t i = 0; i < t->n_samples; i++) {
                Sample *s = &t->samples[i];
                s->task = (TaskSnapshot) {
                        .pid = 1000 + (pid_t) i,
                        .tid = 1000 + (pid_t) i,
                        .names = { .comm = s->fields[COL_COMM], .argv0 = s->argv0_base,
                                   .exe = s->exe_base },
                        .exe_path = s->fields[COL_EXE],
                        .cmdline = s->fields[COL_CMDLINE] ? s->fields[COL_CMDLINE]
                                                          : s->fields[COL_ARGV0],
                        .uid = 1000,
                        .gid = 1000,
                        .user = "alice",
                        .group = "alice",
                        .cgroup = "/user.slice/user-1000.slice/session-2.scope",
                        .thread = s->fields[COL_THREAD],
                        .env = s->env,
                        .env_size = s->env_size,
                        .focused = s->focused,
                        .unfocused_usec = s->unfocused_usec,
                        .audio = s->audio,
                        .ancestors = s->ancestors,
                        .n_ancestors = s->n_ancestors,
                };
        }
}

static int table_load(Table *t)
{
        _cleanup_fclose_ FILE *f = fopen(SAMPLES, "re");
        _cleanup_free_ char *line = NULL;
        size_t size = 0;
        unsigned lineno = 0;
        ssize_t len;

        if (!f) {
                test_fail("%s: %m", SAMPLES);
                return -errno;
        }
        while ((len = getline(&line, &size, f)) >= 0) {
                lineno++;
                if (len > 0 && line[len - 1] == '\n')
                        line[--len] = '\0';
                if (len == 0 || line[0] == '#')
                        continue;
                if (line[0] == '@') {
                        char *tab = strchr(line, '\t');
                        ProfileExpect pe = {};

                        if (!tab) {
                                test_fail("%s:%u: expected \"@profile<TAB>settings\"", SAMPLES, lineno);
                                continue;
                        }
                        *tab = '\0';
                        if (parse_settings(tab + 1, lineno, &pe.settings) < 0)
                                continue;
                        pe.name = xstrdup(line + 1);
                        t->profiles = xrealloc(t->profiles, t->n_profiles + 1, sizeof(pe));
                        t->profiles[t->n_profiles++] = pe;
                        continue;
                }
                (void) parse_sample(t, line, lineno);
        }
        table_fix_snapshots(t);
        return 0;
}

static void table_done(Table *t)
{
        for (size_t i = 0; i < t->n_profiles; i++)
                free(t->profiles[i].name);
        free(t->profiles);
        for (size_t i = 0; i < t->n_samples; i++) {
                Sample *s = &t->samples[i];
                strv_free(s->rules);
                for (size_t j = 0; j < ELEMENTSOF(s->fields); j++)
                        free(s->fields[j]);
                free(s->env);
                for (size_t j = 0; j < s->n_ancestors; j++)
                        free((char *) s->ancestors[j].comm);
                free(s->ancestors);
                free(s->argv0_base);
                free(s->exe_base);
        }
        free(t->samples);
}

static bool strv_contains(char *const *v, const char *s)
{
        for (; v && *v; v++)
                if (streq(*v, s))
                        return true;
        return false;
}

static void check_no_harm(const Sample *s, const Settings *r)
{
        bool sensitive = false;

        if (settings_has(r, SETTING_NICE)) {
                if (r->nice < MIN_NICE)
                        test_fail("%s:%u: Nice=%d is stronger than the audio class (%d)", SAMPLES,
                             s->line, r->nice, MIN_NICE);
                sensitive |= r->nice < 0;
        }
        if (settings_has(r, SETTING_LATENCY_NICE)) {
                if (r->latency_nice < MIN_LATENCY_NICE)
                        test_fail("%s:%u: LatencyNice=%d is stronger than the audio class (%d)",
                             SAMPLES, s->line, r->latency_nice, MIN_LATENCY_NICE);
                sensitive |= r->latency_nice < 0;
        }
        if (settings_has(r, SETTING_POLICY)) {
                /* Real time only for PipeWire's data loops (the server's
                 * and its own clients'), as rtkit would grant it (the cap,
                 * RLIMIT_RTTIME and the per-user limit are latniced's). */
                if (sched_policy_is_rt(r->policy) &&
                    !(r->policy == SCHED_RR && s->fields[COL_THREAD] &&
                      strncmp(s->fields[COL_THREAD], "data-loop", 9) == 0 &&
                      (strv_contains(s->rules, "pipewire-data-loop") ||
                       strv_contains(s->rules, "pipewire-client-data-loop"))))
                        test_fail("%s:%u: real-time policy %d outside PipeWire's data loops",
                                  SAMPLES, s->line, r->policy);
                if (!sched_policy_is_rt(r->policy) && r->policy != SCHED_OTHER &&
                    r->policy != SCHED_BATCH && r->policy != SCHED_IDLE)
                        test_fail("%s:%u: policy %d is not other, batch or idle", SAMPLES, s->line,
                             r->policy);
                if (sensitive && r->policy != SCHED_OTHER && !sched_policy_is_rt(r->policy))
                        test_fail("%s:%u: latency-sensitive settings with a batch/idle policy",
                             SAMPLES, s->line);
        }
}

/* The sample run by an unprivileged user from a trusted executable at its
 * exe path: every boost of its settings must stay, unless it says !trust
 * (and then some must go). */
static void check_trusted(const Policy *p, const Sample *s, const MatchResult *res)
{
        BoostFacts f = { .exe_trusted = true, .nice_floor = 20, .base_slice_ns = 3000000 };
        Settings kept = res->settings;
        uint32_t withheld = 0;

        if (!s->task.names.exe || settings_boost_mask(&res->settings, 20, f.base_slice_ns) == 0)
                return;
        if (policy_limit_boosts(p, &s->task, res, NULL, &f, &kept, &withheld) < 0) {
                test_fail("%s:%u: policy_limit_boosts failed", SAMPLES, s->line);
                return;
        }
        if (withheld && !s->untrusted) {
                _cleanup_free_ char *w = settings_to_string(&res->settings);
                test_fail("%s:%u: a user's %s (installed by root) would not get its boosts (%s): "
                          "the rules do not name its executable \"%s\"",
                          SAMPLES, s->line, s->fields[COL_EXE], strna(w), s->task.names.exe);
        } else if (!withheld && s->untrusted)
                test_fail("%s:%u: says !trust, but a user's %s gets every boost", SAMPLES, s->line,
                          s->fields[COL_EXE]);
}

/*
 * Match every sample against P. With CHECK_EXPECTED, compare each with its
 * expected rules and settings. Returns the number of rules of P that no
 * sample matched (each reported when REPORT), or -ENOMEM.
 */
static int run_samples(const Policy *p, const Table *t, bool check_expected, bool report)
{
        const char **names = NULL;
        bool *seen = NULL;
        size_t n_rules = 0;
        int uncovered = 0;

        for (size_t i = 0; i < t->n_samples; i++) {
                const Sample *s = &t->samples[i];
                MatchTrace trace = {};
                MatchResult traced = {}, fast = {};
                size_t n_matched = 0;

                if (policy_match(p, &s->task, &traced, &trace) < 0)
                        return -ENOMEM;
                if (policy_match(p, &s->task, &fast, NULL) < 0) {
                        match_trace_done(&trace);
                        return -ENOMEM;
                }

                if (!names) {
                        n_rules = trace.n;
                        names = xrealloc(NULL, n_rules + 1, sizeof(char *));
                        seen = xrealloc(NULL, n_rules + 1, sizeof(bool));
                        for (size_t j = 0; j < n_rules; j++) {
                                names[j] = trace.rules[j].rule;
                                seen[j] = false;
                        }
                }

                for (size_t j = 0; j < trace.n && j < n_rules; j++) {
                        const RuleTrace *rt = &trace.rules[j];

                        if (rt->verdict != RULE_MATCHED)
                                continue;
                        seen[j] = true;
                        n_matched++;
                        if (check_expected && !strv_contains(s->rules, rt->rule))
                                test_fail("%s:%u: also matched by rule %s (%s:%u, decided by %s)",
                                     SAMPLES, s->line, rt->rule, rt->file, rt->line,
                                     strna(rt->decider));
                }

                if (check_expected) {
                        for (char **r = s->rules; *r; r++) {
                                bool found = false;
                                for (size_t j = 0; j < trace.n; j++)
                                        if (streq(trace.rules[j].rule, *r) &&
                                            trace.rules[j].verdict == RULE_MATCHED)
                                                found = true;
                                if (!found)
                                        test_fail("%s:%u: not matched by rule %s", SAMPLES, s->line,
                                             *r);
                        }
                        if (!settings_equal(&traced.settings, &s->expected)) {
                                _cleanup_free_ char *got = settings_to_string(&traced.settings);
                                _cleanup_free_ char *want = settings_to_string(&s->expected);
                                test_fail("%s:%u: settings \"%s\", expected \"%s\"", SAMPLES, s->line,
                                     strna(got), strna(want));
                        }
                        check_no_harm(s, &traced.settings);
                        check_trusted(p, s, &traced);
                }

                /* The indexed path must agree with the traced one. */
                if (!settings_equal(&fast.settings, &traced.settings) ||
                    fast.n_matched != traced.n_matched || traced.n_matched != n_matched)
                        test_fail("%s:%u: indexed match (%zu rules) differs from traced match (%zu)",
                             SAMPLES, s->line, fast.n_matched, traced.n_matched);

                match_trace_done(&trace);
        }

        for (size_t j = 0; j < n_rules; j++)
                if (!seen[j]) {
                        uncovered++;
                        if (report)
                                test_fail("rule %s has no sample in %s", names[j], SAMPLES);
                }
        free(names);
        free(seen);
        return uncovered;
}

static Policy *load_dirs(char *const *dirs, size_t *ret_errors, size_t *ret_warnings)
{
        Diagnostics d = {};
        Policy *p = NULL;

        if (policy_load(dirs, NULL, &p, &d) < 0) {
                test_fail("policy_load failed");
                diagnostics_done(&d);
                return NULL;
        }
        for (size_t i = 0; i < d.n; i++) {
                _cleanup_free_ char *msg = diagnostic_format(&d.items[i]);
                fprintf(stderr, "%s\n", strna(msg));
        }
        *ret_errors = diagnostics_count(&d, DIAG_ERROR);
        *ret_warnings = diagnostics_count(&d, DIAG_WARNING);
        diagnostics_done(&d);
        return p;
}

/* The coverage check must be able to fail: add one rule no sample matches. */
static void test_coverage_can_fail(const Table *t)
{
        char dir[] = "/tmp/test-default-policy-XXXXXX";
        _cleanup_free_ char *path = NULL;
        size_t errors = 0, warnings = 0;
        FILE *f;

        if (!mkdtemp(dir)) {
                test_fail("mkdtemp: %m");
                return;
        }
        if (asprintf(&path, "%s/99-extra.policy", dir) < 0)
                abort();
        f = fopen(path, "we");
        if (!f) {
                test_fail("%s: %m", path);
                (void) rmdir(dir);
                return;
        }
        fputs("[Rule extra-unsampled]\nMatch = name:no-sample-has-this-name\nNice = 5\n", f);
        if (fclose(f) != 0)
                test_fail("%s: write failed", path);

        char *dirs[] = { (char *) POLICY_DIR, dir, NULL };
        Policy *p = load_dirs(dirs, &errors, &warnings);
        if (p) {
                int r = run_samples(p, t, false, false);
                if (r != 1)
                        test_fail("coverage check with one unsampled rule: %d uncovered, expected 1", r);
                policy_free(p);
        }
        (void) unlink(path);
        (void) rmdir(dir);
}

int main(void)
{
        char *dirs[] = { (char *) POLICY_DIR, NULL };
        size_t errors = 0, warnings = 0;
        Table t = {};
        Policy *p;
        int r;

        if (table_load(&t) < 0)
                return 1;
        if (t.n_samples == 0)
                test_fail("%s: no samples", SAMPLES);

        p = load_dirs(dirs, &errors, &warnings);
        if (!p) {
                table_done(&t);
                return 1;
        }
        if (errors > 0 || warnings > 0)
                test_fail("%s: %zu error(s), %zu warning(s); the default policy must have none",
                     POLICY_DIR, errors, warnings);
        if (policy_n_rules(p) == 0)
                test_fail("%s: no rules loaded", POLICY_DIR);
        for (size_t i = 0; i < policy_n_files(p); i++) {
                const PolicyFileInfo *fi = policy_file(p, i);
                if (fi->rejected || fi->masked)
                        test_fail("%s: rejected or masked", fi->path);
        }

        r = run_samples(p, &t, true, true);
        if (r < 0)
                test_fail("out of memory");
        printf("%zu samples, %zu rules in %zu files, %d rule(s) without a sample\n", t.n_samples,
               policy_n_rules(p), policy_n_files(p), r);

        test_coverage_can_fail(&t);

        policy_free(p);
        table_done(&t);
        return test_result();
}
