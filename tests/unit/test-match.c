/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for policy/match.c: every key, globs, regexes, NULL fields, merge
 * order, profiles, Final, thread rules, trace deciders, and the index
 * against the unindexed trace path over generated snapshots.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/macro.h"
#include "policy/match.h"
#include "policy/policy.h"
#include "tests/unit/test-util.h"

static Policy *load(const char *text)
{
        Diagnostics d = {};
        Policy *p = NULL;

        if (policy_load_string("m.policy", text, strlen(text), &p, &d) < 0)
                abort();
        if (diagnostics_count(&d, DIAG_ERROR) > 0)
                for (size_t i = 0; i < d.n; i++) {
                        char *s = diagnostic_format(&d.items[i]);
                        fprintf(stderr, "%s\n", s);
                        free(s);
                        test_failures++;
                }
        diagnostics_done(&d);
        return p;
}

static const TaskNames ancestors[] = {
        { .comm = "bash", .argv0 = "-bash", .exe = "bash" },
        { .comm = "sshd", .argv0 = "sshd:", .exe = "sshd" },
        { .comm = "systemd", .argv0 = "init", .exe = "systemd" },
};

static TaskSnapshot base_task(void)
{
        return (TaskSnapshot){
                .pid = 100,
                .tid = 100,
                .names = { .comm = "Web Content", .argv0 = "firefox-bin", .exe = "firefox" },
                .exe_path = "/usr/lib/firefox/firefox",
                .cmdline = "/usr/lib/firefox/firefox -contentproc -childID 3",
                .uid = 1000,
                .gid = 100,
                .user = "alice",
                .group = "users",
                .cgroup = "/user.slice/user-1000.slice/app.slice/firefox.scope",
                .unit = "firefox.scope",
                .thread = NULL,
                .ancestors = ancestors,
                .n_ancestors = ELEMENTSOF(ancestors),
        };
}

/* Does a one-rule policy with MATCH match T? Also checks that trace and fast path agree. */
static bool matches(const char *match, const TaskSnapshot *t)
{
        _cleanup_free_ char *text = NULL;
        MatchResult fast, slow;
        MatchTrace trace = {};
        Policy *p;

        check(asprintf(&text, "[Rule r]\nMatch = %s\nNice = 1\n", match) > 0);
        p = load(text);
        check(policy_n_rules(p) == 1);
        check(policy_match(p, t, &fast, NULL) == 0);
        check(policy_match(p, t, &slow, &trace) == 0);
        check(fast.n_matched == slow.n_matched);
        check(trace.n == 1);
        match_trace_done(&trace);
        policy_free(p);
        return fast.n_matched == 1;
}

static void test_keys(void)
{
        TaskSnapshot t = base_task();

        /* name: argv0, exe basename or comm */
        check(matches("name:firefox-bin", &t));
        check(matches("name:firefox", &t));
        check(matches("name:\"Web Content\"", &t));
        check(matches("name:Web*", &t));
        check(!matches("name:Web", &t));
        check(!matches("name:web*", &t)); /* case-sensitive */
        check(matches("comm:\"Web Content\"", &t));
        check(!matches("comm:firefox", &t));
        check(matches("exe:/usr/lib/firefox/firefox", &t));
        check(matches("exe:*/firefox", &t));
        check(!matches("exe:firefox", &t)); /* whole string */
        check(matches("cmdline:*-contentproc*", &t));
        check(matches("cmdline:\"*-childID 3\"", &t));
        check(!matches("cmdline:-contentproc", &t));
        check(matches("user:alice", &t));
        check(matches("user:1000", &t));
        check(matches("user:1*", &t));
        check(!matches("user:root", &t));
        check(!matches("user:0", &t));
        check(matches("group:users", &t));
        check(matches("group:100", &t));
        check(!matches("group:1000", &t));
        check(matches("cgroup:/user.slice/*", &t));
        check(matches("cgroup:*/firefox.scope", &t));
        check(matches("unit:firefox.scope", &t));
        check(matches("unit:*.scope", &t));
        check(matches("parent:bash", &t));
        check(matches("parent:-bash", &t));
        check(!matches("parent:sshd", &t));
        check(matches("ancestor:sshd", &t));
        check(matches("ancestor:init", &t));
        check(!matches("ancestor:firefox", &t));
        check(!matches("thread:*", &t)); /* process-level: thread is NULL */
        t.thread = "Renderer";
        check(matches("thread:Render*", &t));
        check(!matches("thread:Compositor", &t));

        /* regex: unanchored search, extended syntax */
        check(matches("exe~fire", &t));
        check(matches("exe~\"^/usr/lib/\"", &t));
        check(!matches("exe~\"^/lib\"", &t));
        check(matches("cmdline~\"-childID [0-9]+$\"", &t));
        check(matches("name~\"^(firefox|chrome)$\"", &t));
        check(matches("user~^al", &t));
        check(matches("user~\"^1000$\"", &t));

        /* globs: character classes, ?, escapes */
        check(matches("name:fire[f]ox", &t));
        check(matches("name:firefo?", &t));
        check(matches("name:fire\\fox", &t));
        check(!matches("name:fire[!f]ox", &t));

        /* operators */
        check(matches("name:firefox && user:alice", &t));
        check(!matches("name:firefox && user:bob", &t));
        check(matches("name:chrome || user:alice", &t));
        check(matches("!name:chrome", &t));
        check(!matches("!(name:chrome || name:firefox)", &t));
        check(matches("name:a || name:b && name:c || name:firefox", &t));
        check(!matches("(name:a || name:firefox) && name:c", &t));
}

static void test_null_fields(void)
{
        TaskSnapshot t = { .names = { .comm = "kworker/0:1" } };

        check(matches("name:kworker*", &t));
        check(!matches("exe:*", &t));
        check(!matches("exe~.", &t));
        check(!matches("cmdline:*", &t));
        check(!matches("cgroup:*", &t));
        check(!matches("unit:*", &t));
        check(!matches("parent:*", &t));
        check(!matches("ancestor:*", &t));
        check(!matches("thread:*", &t));
        check(matches("!exe:*", &t));
        /* user without a name still matches its id */
        check(!matches("user:alice", &t));
        check(matches("user:0", &t));
}

static void test_merge(void)
{
        Policy *p = load("[Profile audio]\n"
                         "LatencyNice = -15\n"
                         "Nice = -5\n"
                         "[Rule a]\n"
                         "Match = name:pipewire\n"
                         "Profile = audio\n"
                         "Nice = -2\n"
                         "[Rule b]\n"
                         "Match = user:1000\n"
                         "LatencyNice = 3\n"
                         "Slice = 2ms\n"
                         "[Rule c]\n"
                         "Match = name:pipewire && user:1000\n"
                         "Slice = 1ms\n"
                         "Final = yes\n"
                         "[Rule d]\n"
                         "Match = name:pipewire\n"
                         "Nice = 10\n"
                         "[Rule e]\n"
                         "Match = name:wireplumber\n"
                         "Policy = batch\n");
        TaskSnapshot t = { .names = { .comm = "pipewire" }, .uid = 1000 };
        MatchResult m;
        MatchTrace tr = {};

        check(policy_match(p, &t, &m, NULL) == 0);
        check(m.n_matched == 3);
        check(streq(m.rule, "c"));
        /* a: profile LN -15, Nice -5, then own Nice -2; b: LN 3, Slice 2ms; c: Slice 1ms; Final */
        check(m.settings.mask == (SETTING_BIT(SETTING_LATENCY_NICE) | SETTING_BIT(SETTING_NICE) |
                                  SETTING_BIT(SETTING_SLICE)));
        check(m.settings.latency_nice == 3);
        check(m.settings.nice == -2);
        check(m.settings.slice_ns == 1000000);
        check(!m.thread_dependent);

        check(policy_match(p, &t, &m, &tr) == 0);
        check(tr.n == 5);
        check(tr.rules[0].verdict == RULE_MATCHED && streq(tr.rules[0].decider, "name:pipewire"));
        check(tr.rules[0].settings.latency_nice == -15 && tr.rules[0].settings.nice == -2);
        check(tr.rules[1].verdict == RULE_MATCHED && streq(tr.rules[1].decider, "user:1000"));
        check(tr.rules[2].verdict == RULE_MATCHED &&
              streq(tr.rules[2].decider, "name:pipewire && user:1000"));
        check(tr.rules[3].verdict == RULE_SKIPPED_FINAL && !tr.rules[3].decider);
        check(tr.rules[4].verdict == RULE_SKIPPED_FINAL);
        check(streq(tr.rules[0].file, "m.policy") && tr.rules[0].line == 4);
        check(m.n_matched == 3 && m.settings.nice == -2);
        match_trace_done(&tr);

        /* not user 1000: c does not match, d does, e does not */
        t.uid = 0;
        check(policy_match(p, &t, &m, NULL) == 0);
        check(m.n_matched == 2 && streq(m.rule, "d"));
        check(m.settings.nice == 10 && m.settings.latency_nice == -15);

        /* no rule: mask 0, rule NULL */
        t.names.comm = "bash";
        check(policy_match(p, &t, &m, NULL) == 0);
        check(m.n_matched == 0 && m.settings.mask == 0 && !m.rule);
        policy_free(p);
}

static void test_deciders(void)
{
        Policy *p = load("[Rule a]\nMatch = name:x && user:root\n"
                         "[Rule b]\nMatch = name:x && user:alice && !cmdline:*rdd*\n"
                         "[Rule c]\nMatch = name:y || name:x || name:z\n"
                         "[Rule d]\nMatch = !(name:x || name:y)\n"
                         "[Rule e]\nMatch = name:q || comm:r\n"
                         "[Rule f]\nMatch = !name:q\n"
                         "[Rule g]\nMatch = (name:a || name:x) && (user:bob || user:alice)\n");
        TaskSnapshot t = { .names = { .comm = "x" }, .user = "alice", .cmdline = "x --y" };
        MatchResult m;
        MatchTrace tr = {};
        static const struct {
                RuleVerdict v;
                const char *d;
        } expect[] = {
                { RULE_NOT_MATCHED, "user:root" },
                { RULE_MATCHED, "name:x && user:alice && !cmdline:*rdd*" },
                { RULE_MATCHED, "name:x" },
                { RULE_NOT_MATCHED, "!name:x" },
                { RULE_NOT_MATCHED, "name:q || comm:r" },
                { RULE_MATCHED, "!name:q" },
                { RULE_MATCHED, "name:x && user:alice" },
        };

        check(policy_match(p, &t, &m, &tr) == 0);
        check(tr.n == ELEMENTSOF(expect));
        for (size_t i = 0; i < tr.n && i < ELEMENTSOF(expect); i++) {
                if (tr.rules[i].verdict != expect[i].v || !streq_ptr(tr.rules[i].decider, expect[i].d)) {
                        fprintf(stderr, "rule %s: verdict %d decider %s, expected %d %s\n",
                                tr.rules[i].rule, tr.rules[i].verdict, strna(tr.rules[i].decider),
                                expect[i].v, expect[i].d);
                        test_failures++;
                }
        }
        match_trace_done(&tr);
        policy_free(p);
}

static void test_threads(void)
{
        Policy *p = load("[Rule pw]\nMatch = name:pipewire\nLatencyNice = -10\n"
                         "[Rule loop]\nMatch = name:pipewire && thread:data-loop*\nSlice = 0.1ms\n");
        TaskSnapshot t = { .names = { .comm = "pipewire" } };
        MatchResult m;

        check(policy_has_thread_rules(p));
        check(policy_match(p, &t, &m, NULL) == 0);
        check(m.n_matched == 1 && m.thread_dependent);
        t.thread = "data-loop.0";
        check(policy_match(p, &t, &m, NULL) == 0);
        check(m.n_matched == 2 && m.thread_dependent && m.settings.slice_ns == 100000);
        t.thread = "pipewire";
        check(policy_match(p, &t, &m, NULL) == 0);
        check(m.n_matched == 1 && m.thread_dependent);
        /* another process: the thread predicate never ran */
        t.names.comm = "bash";
        check(policy_match(p, &t, &m, NULL) == 0);
        check(m.n_matched == 0 && !m.thread_dependent);
        policy_free(p);

        p = load("[Rule a]\nMatch = name:x\n");
        check(!policy_has_thread_rules(p));
        policy_free(p);
}

/* main-thread: by the thread's id, thread by thread; false while the
 * process as a whole is matched (as thread: is), whatever its tid says. */
static void test_main_thread(void)
{
        /* Debian 12's PipeWire: both threads are named "pipewire" */
        Policy *p = load("[Rule pw]\nMatch = name:pipewire\nNice = -11\n"
                         "[Rule loop]\nMatch = name:pipewire && (thread:data-loop* || "
                         "(thread:pipewire && main-thread:no))\nSlice = 0.1ms\n");
        TaskSnapshot t = { .pid = 100, .tid = 100, .names = { .comm = "pipewire" } };
        MatchResult m;

        check(policy_has_thread_rules(p));
        /* the process as a whole: only its own rule, and threads differ */
        check(policy_match(p, &t, &m, NULL) == 0);
        check(m.n_matched == 1 && m.thread_dependent && !settings_has(&m.settings, SETTING_SLICE));
        /* its main thread, named as the process */
        t.thread = "pipewire";
        check(policy_match(p, &t, &m, NULL) == 0);
        check(m.n_matched == 1 && m.thread_dependent && !settings_has(&m.settings, SETTING_SLICE));
        /* the data thread, named the same */
        t.tid = 101;
        check(policy_match(p, &t, &m, NULL) == 0);
        check(m.n_matched == 2 && m.settings.slice_ns == 100000 && m.settings.nice == -11);
        /* a named data loop (newer PipeWire) */
        t.tid = 102;
        t.thread = "data-loop.0";
        check(policy_match(p, &t, &m, NULL) == 0);
        check(m.n_matched == 2 && m.settings.slice_ns == 100000);
        /* another thread of another name: not the data thread */
        t.thread = "gmain";
        check(policy_match(p, &t, &m, NULL) == 0);
        check(m.n_matched == 1);
        /* another process's thread: the name decides first */
        t.names.comm = "bash";
        t.thread = "bash";
        check(policy_match(p, &t, &m, NULL) == 0);
        check(m.n_matched == 0 && !m.thread_dependent);
        policy_free(p);

        /* the key alone makes a policy match threads one by one */
        p = load("[Rule a]\nMatch = name:x && main-thread:yes\nNice = 1\n");
        check(policy_has_thread_rules(p));
        /* and reads nothing: a thread's id is known to whoever matches it */
        check(policy_read_plan(p) == (PROC_READ_COMM | PROC_READ_CMDLINE | PROC_READ_EXE));
        policy_free(p);

        t = base_task(); /* pid 100, tid 100, thread NULL: the process */
        check(!matches("main-thread:yes", &t));
        check(!matches("main-thread:no", &t));
        check(matches("!main-thread:yes", &t));
        t.thread = "Web Content";
        check(matches("main-thread:yes", &t));
        check(!matches("main-thread:no", &t));
        check(matches("thread:Web* && main-thread:yes", &t));
        t.tid = 101;
        check(!matches("main-thread:yes", &t));
        check(matches("main-thread:no", &t));
        check(matches("name:firefox && main-thread:no && thread:\"Web Content\"", &t));
        check(!matches("name:firefox && main-thread:no && thread:Renderer", &t));
        /* the trusted view keeps it: the program's own code makes its threads */
        t.trusted_view = true;
        check(matches("main-thread:no", &t));
}

/* ---- policy_used_keys ----------------------------------------------- */

static void test_used_keys(void)
{
        Policy *p;

        check(policy_used_keys(NULL) == 0);

        /* Keys named in comments, patterns, profiles and rule names do not count. */
        p = load("# user:root group~x cgroup:/a unit:b\n"
                 "; parent:a ancestor:b\n"
                 "[Profile user:x]\nNice = 1\n"
                 "[Rule cgroup:y]\nMatch = name:\"user:alice\" || comm~\"unit:.*\"\nNice = 2\n");
        check(policy_n_rules(p) == 1);
        check(policy_used_keys(p) == (POLICY_KEY(KEY_NAME) | POLICY_KEY(KEY_COMM)));
        policy_free(p);

        /* Negated and nested predicates count, in every rule. */
        p = load("[Rule a]\nMatch = exe:/usr/bin/* && !(user:root || group~^wheel$)\nNice = 1\n"
                 "[Rule b]\nMatch = cmdline:*x* || (cgroup:/system.slice/* && !unit:*.scope)\n"
                 "Nice = 2\n"
                 "[Rule c]\nMatch = parent:bash || ancestor:sshd || thread:worker*\nNice = 3\n");
        check(policy_used_keys(p) ==
              (POLICY_KEY(KEY_EXE) | POLICY_KEY(KEY_USER) | POLICY_KEY(KEY_GROUP) |
               POLICY_KEY(KEY_CMDLINE) | POLICY_KEY(KEY_CGROUP) | POLICY_KEY(KEY_UNIT) |
               POLICY_KEY(KEY_PARENT) | POLICY_KEY(KEY_ANCESTOR) | POLICY_KEY(KEY_THREAD)));
        check(!(policy_used_keys(p) & (POLICY_KEY(KEY_NAME) | POLICY_KEY(KEY_COMM))));
        policy_free(p);

        /* [Unit] sections and profiles use no match key. */
        p = load("[Unit foo.service]\nCPUWeight = 50\n[Profile x]\nNice = 1\n");
        check(policy_used_keys(p) == 0);
        policy_free(p);
}

/* ---- index vs. trace over generated snapshots ----------------------- */

static unsigned long long rng_state = 88172645463325252ULL;

static unsigned rnd(unsigned n)
{
        rng_state ^= rng_state << 13;
        rng_state ^= rng_state >> 7;
        rng_state ^= rng_state << 17;
        return (unsigned)(rng_state % n);
}

static const char *const words[] = { "a", "b", "c", "pipewire", "x.exe", "d e", "f" };
static const char *const keys[] = { "name",   "comm",   "exe",         "user",
                                    "parent", "ancestor", "thread", "main-thread",
                                    "cmdline" };

static void gen_expr(FILE *f, int depth)
{
        unsigned k = depth > 3 ? 0 : rnd(6);

        switch (k) {
        case 0:
        case 1: {
                const char *key = rnd(2) ? "name" : keys[rnd(ELEMENTSOF(keys))];
                const char *w = words[rnd(ELEMENTSOF(words))];

                if (streq(key, "main-thread")) /* yes or no, nothing else */
                        fprintf(f, "%s:%s", key, rnd(2) ? "yes" : "no");
                else if (rnd(8) == 0)
                        fprintf(f, "%s:\"%s*\"", key, w);
                else if (rnd(10) == 0)
                        fprintf(f, "%s~\"^%s\"", key, w);
                else
                        fprintf(f, "%s:\"%s\"", key, w);
                break;
        }
        case 2:
                fputs("!", f);
                gen_expr(f, depth + 1);
                break;
        case 3:
        case 4:
                fputs("(", f);
                gen_expr(f, depth + 1);
                fputs(k == 3 ? " && " : " || ", f);
                gen_expr(f, depth + 1);
                fputs(")", f);
                break;
        default:
                gen_expr(f, depth + 1);
                fputs(" || ", f);
                gen_expr(f, depth + 1);
                break;
        }
}

static const char *pick(void)
{
        return rnd(5) == 0 ? NULL : words[rnd(ELEMENTSOF(words))];
}

static void test_index(void)
{
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);
        Policy *p;
        size_t compared = 0;

        check(f);
        for (int i = 0; i < 300; i++) {
                fprintf(f, "[Rule r%d]\nMatch = ", i);
                gen_expr(f, 0);
                fprintf(f, "\nNice = %d\nLatencyNice = %d\n", (int)rnd(40) - 20, (int)rnd(40) - 20);
                if (rnd(40) == 0)
                        fputs("Final = yes\n", f);
                if (rnd(3) == 0)
                        fprintf(f, "Slice = %ums\n", 1 + rnd(99));
        }
        fclose(f);
        p = load(text);
        check(policy_n_rules(p) == 300);

        for (int i = 0; i < 3000; i++) {
                TaskNames anc[2] = {
                        { .comm = words[rnd(ELEMENTSOF(words))], .argv0 = pick(), .exe = pick() },
                        { .comm = words[rnd(ELEMENTSOF(words))], .argv0 = pick(), .exe = pick() },
                };
                TaskSnapshot t = {
                        .pid = 7,
                        .tid = 7 + (pid_t)rnd(2), /* the main thread or another */
                        .names = { .comm = words[rnd(ELEMENTSOF(words))], .argv0 = pick(), .exe = pick() },
                        .exe_path = pick(),
                        .cmdline = pick(),
                        .user = pick(),
                        .thread = pick(),
                        .ancestors = anc,
                        .n_ancestors = rnd(3),
                };
                MatchResult a, b;
                MatchTrace tr = {};

                check(policy_match(p, &t, &a, NULL) == 0);
                check(policy_match(p, &t, &b, &tr) == 0);
                if (a.n_matched != b.n_matched || !streq_ptr(a.rule, b.rule) ||
                    memcmp(&a.settings, &b.settings, sizeof(Settings)) != 0 ||
                    a.thread_dependent != b.thread_dependent) {
                        fprintf(stderr, "index mismatch on snapshot %d: %zu/%zu %s/%s\n", i,
                                a.n_matched, b.n_matched, strna(a.rule), strna(b.rule));
                        test_failures++;
                }
                compared += a.n_matched;
                match_trace_done(&tr);
        }
        /* the generator must produce matches, or the comparison proves nothing */
        check(compared > 1000);
        policy_free(p);
        free(text);
}

/* CMDLINE: LEN bytes of FILL, then TAIL (so TAIL ends at byte LEN + strlen(TAIL)). */
static char *long_cmdline(size_t len, char fill, const char *tail)
{
        size_t t = strlen(tail);
        char *s = malloc(len + t + 1);

        CHECK(s);
        memset(s, fill, len);
        memcpy(s + len, tail, t + 1);
        return s;
}

/* A regex sees the first REGEX_SUBJECT_MAX bytes of a value; '$' never matches at the cut. */
static void test_regex_subject_cap(void)
{
        TaskSnapshot t = base_task();
        _cleanup_free_ char *within = long_cmdline(REGEX_SUBJECT_MAX - 4, 'a', " tab"),
                            *beyond = long_cmdline(REGEX_SUBJECT_MAX - 3, 'a', " tab"),
                            *huge = long_cmdline(200 * 1024, 'a', "b");

        t.cmdline = within; /* " tab" ends at byte 1024 exactly: seen whole */
        check(matches("cmdline~\" tab$\"", &t));
        check(matches("cmdline~^a+", &t));
        t.cmdline = beyond; /* ends at byte 1025: the end is not seen */
        check(!matches("cmdline~\" tab$\"", &t));
        check(!matches("cmdline~b", &t));
        check(matches("cmdline~\" ta\"", &t));  /* bytes 1022..1024 */
        check(!matches("cmdline~\" tab\"", &t)); /* needs byte 1025 */
        check(matches("cmdline~^a+", &t));
        /* quadratic in the value for glibc: seconds over 200 KiB without the cap */
        t.cmdline = huge;
        check(!matches("cmdline~a.*b$", &t));
        check(!matches("cmdline~\"(a|aa)*c\"", &t));
        check(matches("cmdline~\"a.*a\"", &t));
        /* a glob still sees the whole value */
        check(matches("cmdline:*b", &t));
}

/* The shortcuts for "abc*", "*abc" and "*abc*" agree with fnmatch(). */
static void test_glob_kinds(void)
{
        static const char *const pats[] = { "ab*", "*ab", "*ab*", "*", "**", "a*b", "*a*b*",
                                            "*.exe", "*/firefox*", "ab**", "*a", "a*" };
        static const char *const strs[] = { "", "a", "ab", "ba", "abab", "xaby", "b", "x.exe",
                                            ".exe", "/usr/lib/firefox/firefox", "aab", "ab*" };

        for (size_t i = 0; i < ELEMENTSOF(pats); i++)
                for (size_t j = 0; j < ELEMENTSOF(strs); j++) {
                        TaskSnapshot t = { .names = { .comm = strs[j] } };
                        _cleanup_free_ char *m = NULL;

                        check(asprintf(&m, "comm:\"%s\"", pats[i]) > 0);
                        if (matches(m, &t) != (fnmatch(pats[i], strs[j], 0) == 0)) {
                                fprintf(stderr, "glob %s on \"%s\" disagrees with fnmatch\n",
                                        pats[i], strs[j]);
                                test_failures++;
                        }
                }
}

int main(void)
{
        test_glob_kinds();
        test_regex_subject_cap();
        test_keys();
        test_null_fields();
        test_merge();
        test_deciders();
        test_threads();
        test_main_thread();
        test_used_keys();
        test_index();
        return test_result();
}
