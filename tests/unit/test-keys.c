/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The match-key registry (policy/keys.c) and the read plan it gives
 * (policy_read_plan()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/macro.h"
#include "policy/boost.h"
#include "policy/keys.h"
#include "policy/policy.h"
#include "tests/unit/test-util.h"

static Policy *load(const char *text)
{
        Diagnostics d = {};
        Policy *p = NULL;

        if (policy_load_string("k.policy", text, strlen(text), &p, &d) < 0)
                abort();
        for (size_t i = 0; i < d.n; i++) {
                char *s = diagnostic_format(&d.items[i]);
                fprintf(stderr, "%s\n", s);
                free(s);
        }
        if (diagnostics_count(&d, DIAG_ERROR) > 0)
                test_failures++;
        diagnostics_done(&d);
        return p;
}

/* Every row is complete, and found by its name. */
static void test_rows(void)
{
        check(match_key_count() >= 11 && match_key_count() <= 32);
        for (size_t k = 0; k < match_key_count(); k++) {
                const MatchKeyInfo *i = match_key_info((MatchKey)k);

                check(i && i->name && i->match);
                check(match_key_from_string_n(i->name, strlen(i->name)) == (MatchKey)k);
                check(strstr(match_key_list(), i->name));
                /* every key reads something, or is a thread's (whoever
                 * matches a thread knows its id) */
                check(i->reads != 0 || i->per_thread);
                /* fixed values are matched as written */
                check(!i->values || (!i->duration && !i->split_argument && !i->name_index));
                check(!i->max_length == !i->max_length_hint);
        }
        check(match_key_info((MatchKey)match_key_count()) == NULL);
        check(match_key_info(_KEY_INVALID) == NULL);
        /* the name index is the name key's */
        check(match_key_info(KEY_NAME)->name_index && !match_key_info(KEY_COMM)->name_index);
        /* per thread: thread: and main-thread:, no other */
        for (size_t k = 0; k < match_key_count(); k++)
                check(match_key_info((MatchKey)k)->per_thread ==
                      (k == KEY_THREAD || k == KEY_MAIN_THREAD));
        check(match_keys_per_thread(POLICY_KEY(KEY_NAME) | POLICY_KEY(KEY_MAIN_THREAD)));
        check(!match_keys_per_thread(POLICY_KEY(KEY_NAME) | POLICY_KEY(KEY_COMM)));
}

static ProcReadPlan plan_of(const char *match, const char *extra)
{
        char text[512];
        ProcReadPlan plan;
        Policy *p;

        snprintf(text, sizeof(text), "[Rule r]\nMatch = %s\nNice = 1\n%s", match, extra);
        p = load(text);
        plan = policy_read_plan(p);
        policy_free(p);
        return plan;
}

/* What each key makes latniced read, and what renames it cares about. */
static void test_read_plan(void)
{
        check(policy_read_plan(NULL) == 0);
        check(plan_of("name:x", "") == (PROC_READ_COMM | PROC_READ_CMDLINE | PROC_READ_EXE));
        check(plan_of("comm:x", "") == PROC_READ_COMM);
        check(plan_of("exe:/x", "") == PROC_READ_EXE);
        check(plan_of("cmdline:*x*", "") == PROC_READ_CMDLINE);
        check(plan_of("user:root || !group:adm", "") == (PROC_READ_IDS | PROC_READ_NAMES));
        check(plan_of("cgroup:/x", "") == PROC_READ_CGROUP);
        check(plan_of("unit:x.service", "") == PROC_READ_CGROUP);
        check(plan_of("parent:x", "") == (PROC_READ_ANCESTORS | PROC_READ_STAT));
        check(plan_of("ancestor:x", "") == (PROC_READ_ANCESTORS | PROC_READ_STAT));
        check(plan_of("thread:x", "") == PROC_READ_THREAD);
        /* the thread's id needs no read, and its renames do not matter */
        check(plan_of("main-thread:no", "") == 0);
        /* a [Unit] section needs the cgroup for the per-task fallback */
        check(plan_of("exe:/x", "[Unit x.service]\nCPUWeight = 5\n") ==
              (PROC_READ_EXE | PROC_READ_CGROUP));
        /* a negated predicate needs its value as much */
        check(plan_of("!exe:/x && comm:y", "") == (PROC_READ_EXE | PROC_READ_COMM));
        /* a key in a comment or a pattern is no key */
        check(plan_of("name:\"user:root\"", "# cgroup:/x\n") ==
              (PROC_READ_COMM | PROC_READ_CMDLINE | PROC_READ_EXE));
}

/* The trusted view (policy/boost.h) drops what the registry marks as the
 * user's choice, wherever the snapshot has it from. */
static void test_trusted_view(void)
{
        static const TaskNames anc[] = { { .comm = "bash", .argv0 = "bash", .exe = "bash" } };
        TaskSnapshot t = {
                .names = { .comm = "pipewire", .argv0 = "pipewire", .exe = "pipewire" },
                .ancestors = anc,
                .n_ancestors = 1,
        }, v;
        Policy *p = load("[Rule r]\nMatch = parent:bash\nNice = 1\n");
        MatchResult m;
        char comm[16];

        check(policy_match(p, &t, &m, NULL) == 0 && m.n_matched == 1);
        t.trusted_view = true; /* ancestors still there: the registry says no */
        check(policy_match(p, &t, &m, NULL) == 0 && m.n_matched == 0);
        t.trusted_view = false;
        task_snapshot_trusted_view(&t, &v, comm);
        check(v.trusted_view);
        check(policy_match(p, &v, &m, NULL) == 0 && m.n_matched == 0);
        policy_free(p);
}

/* The one diagnostic of loading TEXT, formatted ("k.policy:2:13: error: ..."),
 * NULL if there is none. */
static char *diagnostic_of(const char *text)
{
        Diagnostics d = {};
        Policy *p = NULL;
        char *s = NULL;

        if (policy_load_string("k.policy", text, strlen(text), &p, &d) < 0)
                abort();
        if (d.n == 1)
                s = diagnostic_format(&d.items[0]);
        else if (d.n > 1)
                test_fail("%zu diagnostics for %s", d.n, text);
        diagnostics_done(&d);
        policy_free(p);
        return s;
}

static void check_diagnostic(const char *match, const char *want)
{
        char text[256], *got;

        snprintf(text, sizeof(text), "[Rule r]\nMatch = %s\nNice = 1\n", match);
        got = diagnostic_of(text);
        check_streq(got, want);
        free(got);
}

/* Does the rule "Match = MATCH" match T? */
static bool snapshot_matches(const char *match, const TaskSnapshot *t)
{
        char text[256];
        MatchResult m;
        Policy *p;

        snprintf(text, sizeof(text), "[Rule r]\nMatch = %s\nNice = 1\n", match);
        p = load(text);
        CHECK(policy_match(p, t, &m, NULL) == 0);
        policy_free(p);
        return m.n_matched == 1;
}

static bool env_matches(const char *match, const char *env, size_t size, bool trusted)
{
        TaskSnapshot t = { .names = { .comm = "x" }, .env = env, .env_size = size,
                           .trusted_view = trusted };

        return snapshot_matches(match, &t);
}

/* env:NAME=glob: the first entry of NAME, globs and regexes on its value;
 * nothing without an environment, and nothing in the trusted view. */
static void test_env(void)
{
        static const char env[] = "HOME=/root\0GAME=portal 2\0EMPTY=\0GAME=other\0LAST=x";
        const size_t n = sizeof(env) - 1;

        check(plan_of("env:A=b", "") == PROC_READ_ENVIRON);
        check(env_matches("env:HOME=/root", env, n, false));
        check(env_matches("env:\"GAME=portal 2\"", env, n, false));
        check(env_matches("env:GAME=portal*", env, n, false));
        check(!env_matches("env:GAME=other", env, n, false)); /* the first one counts */
        check(env_matches("env~GAME=^por.*2$", env, n, false));
        check(env_matches("env:EMPTY=", env, n, false));
        check(env_matches("env:LAST=x", env, n, false)); /* the NUL after the buffer */
        check(!env_matches("env:HOM=/root", env, n, false));
        check(!env_matches("env:OME=/root", env, n, false));
        check(!env_matches("env:NONE=*", env, n, false));
        check(env_matches("!env:NONE=*", env, n, false));
        check(!env_matches("env:HOME=*", NULL, 0, false));
        check(!env_matches("env:HOME=/root", env, n, true));
        check(!env_matches("env:HOME=/root", env, 4, false)); /* within ENV_SIZE only */

        /* source syntax, and "can never match" only for one variable */
        check_diagnostic("env:A=x && env:A=y",
                         "k.policy:2:9: warning: expected a match expression that can be true, "
                         "found \"env:A=x && env:A=y\": rule \"r\" can never match");
        check(!diagnostic_of("[Rule r]\nMatch = env:A=x && env:B=y\nNice = 1\n"));
}

/* Bad env: values: where (file:line:column) and what. */
static void test_env_errors(void)
{
        check_diagnostic("env:FOO",
                         "k.policy:2:13: error: expected env:NAME=pattern, found \"FOO\" "
                         "without '='");
        check_diagnostic("env:=x",
                         "k.policy:2:13: error: expected the name of an environment variable "
                         "before '=', found none");
        check_diagnostic("name:a && env:1A=x",
                         "k.policy:2:23: error: expected the name of an environment variable "
                         "(letters, digits and '_', not a digit first) before '=', found '1' "
                         "in \"1A\"");
        check_diagnostic("env:\"A-B=x\"",
                         "k.policy:2:15: error: expected the name of an environment variable "
                         "(letters, digits and '_', not a digit first) before '=', found '-' "
                         "in \"A-B\"");
        check_diagnostic("env~\"A=(\"",
                         "k.policy:2:16: error: expected an extended regular expression, found "
                         "\"(\": Unmatched ( or \\(");
}

static bool focused_matches(const char *match, const char *focused, bool trusted)
{
        TaskSnapshot t = { .names = { .comm = "x" }, .focused = focused,
                           .trusted_view = trusted };

        return snapshot_matches(match, &t);
}

/* focused:yes|no: the focus store's verdict; nothing when it is unknown,
 * and nothing in the trusted view (the user chooses their focus). */
static void test_focused(void)
{
        check(plan_of("focused:yes", "") == (PROC_READ_IDS | PROC_READ_CGROUP | PROC_READ_STAT));
        check(focused_matches("focused:yes", "yes", false));
        check(!focused_matches("focused:yes", "no", false));
        check(focused_matches("focused:no", "no", false));
        check(!focused_matches("focused:yes", NULL, false));
        check(!focused_matches("focused:no", NULL, false));
        check(focused_matches("!focused:yes", NULL, false));
        check(!focused_matches("focused:yes", "yes", true));
}

static bool audio_matches(const char *match, const char *audio, bool trusted)
{
        TaskSnapshot t = { .names = { .comm = "x" }, .audio = audio, .trusted_view = trusted };

        return snapshot_matches(match, &t);
}

/* audio:playing|no: the audio store's verdict; nothing when it is unknown,
 * and nothing in the trusted view (the user starts their own streams). */
static void test_audio(void)
{
        check(plan_of("audio:playing", "") == PROC_READ_IDS);
        check(audio_matches("audio:playing", "playing", false));
        check(!audio_matches("audio:playing", "no", false));
        check(audio_matches("audio:no", "no", false));
        check(!audio_matches("audio:playing", NULL, false));
        check(!audio_matches("audio:no", NULL, false));
        check(audio_matches("!audio:playing", NULL, false));
        check(!audio_matches("audio:playing", "playing", true));
}

int main(void)
{
        test_rows();
        test_read_plan();
        test_trusted_view();
        test_env();
        test_env_errors();
        test_focused();
        test_audio();
        return test_result();
}
