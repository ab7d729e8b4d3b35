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
                /* every key reads something, or looks at the comm */
                check(i->reads != 0);
                check(!i->max_length == !i->max_length_hint);
        }
        check(match_key_info((MatchKey)match_key_count()) == NULL);
        check(match_key_info(_KEY_INVALID) == NULL);
        /* the name index is the name key's */
        check(match_key_info(KEY_NAME)->name_index && !match_key_info(KEY_COMM)->name_index);
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

int main(void)
{
        test_rows();
        test_read_plan();
        test_trusted_view();
        return test_result();
}
