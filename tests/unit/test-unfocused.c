/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The focus history as a match key: unfocused:>DURATION and
 * unfocused:<DURATION (policy/duration.c, the "unfocused" row of
 * policy/keys.c, policy_durations()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/macro.h"
#include "policy/duration.h"
#include "policy/keys.h"
#include "policy/parser.h"
#include "policy/policy.h"
#include "tests/unit/test-util.h"

#define SEC UINT64_C(1000000)

static bool parses(const char *pattern, char op, uint64_t usec)
{
        DurationCompare c = {};
        char *error = NULL;
        size_t at = 99;
        int r = duration_compare_parse(pattern, &c, &error, &at);

        if (r < 0)
                fprintf(stderr, "\"%s\": %s\n", pattern, error ? error : "?");
        free(error);
        return r == 0 && c.op == op && c.usec == usec;
}

/* ERROR at byte AT */
static void refused(const char *pattern, size_t at, const char *error)
{
        DurationCompare c = {};
        char *got = NULL;
        size_t got_at = 99;

        check(duration_compare_parse(pattern, &c, &got, &got_at) == -EINVAL);
        check_streq(got, error);
        if (got_at != at)
                test_fail("\"%s\": at %zu, expected %zu", pattern, got_at, at);
        free(got);
}

static void test_parse(void)
{
        check(parses(">5min", '>', 300 * SEC));
        check(parses("<10s", '<', 10 * SEC));
        check(parses(">1s", '>', SEC));
        check(parses(">24h", '>', 24 * 3600 * SEC));
        check(parses("<2h", '<', 7200 * SEC));
        check(parses(">0090s", '>', 90 * SEC));
        refused("5min", 0, "expected '<' or '>' and a duration (\">5min\", \"<10s\"), found \"5min\"");
        refused("=5s", 0, "expected '<' or '>' and a duration (\">5min\", \"<10s\"), found \"=5s\"");
        refused(">", 1, "expected a whole number of s, min or h after '>', found \"\"");
        refused("<-5s", 1, "expected a whole number of s, min or h after '<', found \"-5s\"");
        refused(">5", 2, "expected a unit (s, min, h) after \">5\", found end of pattern");
        refused(">5m", 2, "expected a unit (s, min, h) after \">5\", found \"m\"");
        refused(">5ms", 2, "expected a unit (s, min, h) after \">5\", found \"ms\"");
        refused(">5 min", 2, "expected a unit (s, min, h) after \">5\", found \" min\"");
        refused(">1.5h", 2, "expected a unit (s, min, h) after \">1\", found \".5h\"");
        refused(">0s", 1, "expected a duration from 1s to 24h, found \"0s\"");
        refused(">25h", 1, "expected a duration from 1s to 24h, found \"25h\"");
        refused(">1441min", 1, "expected a duration from 1s to 24h, found \"1441min\"");
        /* many digits neither overflow nor pass */
        refused(">99999999999999999999999999s", 1,
                "expected a duration from 1s to 24h, found \"99999999999999999999999999s\"");
}

static Policy *load(const char *match, Diagnostics *d)
{
        char text[512];
        Policy *p = NULL;

        snprintf(text, sizeof(text), "[Rule r]\nMatch = %s\nNice = 1\n", match);
        if (policy_load_string("u.policy", text, strlen(text), &p, d) < 0)
                abort();
        return p;
}

/* The one diagnostic of MATCH, "u.policy:2:COL: error: ..." */
static void check_error(const char *match, const char *want)
{
        Diagnostics d = {};
        Policy *p = load(match, &d);
        char *got = d.n == 1 ? diagnostic_format(&d.items[0]) : NULL;

        if (d.n != 1)
                test_fail("%s: %zu diagnostics, expected 1", match, d.n);
        check_streq(got, want);
        check(policy_n_rules(p) == 0);
        free(got);
        diagnostics_done(&d);
        policy_free(p);
}

static void test_errors(void)
{
        check_error("unfocused:5min",
                    "u.policy:2:19: error: unfocused: expected '<' or '>' and a duration "
                    "(\">5min\", \"<10s\"), found \"5min\"");
        check_error("name:x && unfocused:>5m",
                    "u.policy:2:31: error: unfocused: expected a unit (s, min, h) after \">5\", "
                    "found \"m\"");
        check_error("unfocused:\">5 min\"",
                    "u.policy:2:22: error: unfocused: expected a unit (s, min, h) after \">5\", "
                    "found \" min\"");
        check_error("unfocused:>0s",
                    "u.policy:2:20: error: unfocused: expected a duration from 1s to 24h, "
                    "found \"0s\"");
        check_error("unfocused~>5s",
                    "u.policy:2:18: error: expected unfocused:<DURATION or unfocused:>DURATION, "
                    "found '~' (unfocused compares a time span, it takes no regular expression)");
        check_error("unfocused:",
                    "u.policy:2:19: error: expected a pattern after \"unfocused:\", found end of "
                    "expression");
}

static bool matches(const char *match, const char *focused, uint64_t unfocused, bool trusted)
{
        Diagnostics d = {};
        Policy *p = load(match, &d);
        TaskSnapshot t = { .names = { .comm = "x" }, .focused = focused,
                           .unfocused_usec = unfocused, .trusted_view = trusted };
        MatchResult m = {};

        check(d.n == 0);
        CHECK(policy_match(p, &t, &m, NULL) == 0);
        diagnostics_done(&d);
        policy_free(p);
        return m.n_matched == 1;
}

static void test_match(void)
{
        check(matches("unfocused:>5min", "no", 300 * SEC, false));
        check(matches("unfocused:>5min", "no", 3600 * SEC, false));
        check(!matches("unfocused:>5min", "no", 300 * SEC - 1, false));
        check(matches("unfocused:<10s", "no", 0, false));
        check(matches("unfocused:<10s", "no", 10 * SEC - 1, false));
        check(!matches("unfocused:<10s", "no", 10 * SEC, false));
        /* only while unfocused: not focused, not unknown */
        check(!matches("unfocused:<10s", "yes", 0, false));
        check(!matches("unfocused:<10s", NULL, 0, false));
        check(!matches("unfocused:>1s", "yes", 3600 * SEC, false));
        check(matches("focused:yes || unfocused:<10s", "yes", 0, false));
        check(matches("focused:no && !unfocused:<10s", "no", 11 * SEC, false));
        check(!matches("focused:no && !unfocused:<10s", "no", 9 * SEC, false));
        /* the user's choice: nothing in the trusted view */
        check(!matches("unfocused:>1s", "no", 3600 * SEC, true));
        /* a range is no contradiction (no "can never match" warning: d.n == 0) */
        check(matches("unfocused:>1min && unfocused:<5min", "no", 120 * SEC, false));
}

static void test_durations(void)
{
        Diagnostics d = {};
        const char *text = "[Rule a]\nMatch = unfocused:>5min || unfocused:<10s\nNice = 1\n"
                           "[Rule b]\nMatch = name:x && !unfocused:\"<10s\"\nNice = 2\n"
                           "[Rule c]\nMatch = focused:no\nNice = 3\n";
        Policy *p = NULL;
        uint64_t *spans = NULL;
        size_t n = 99;
        char *s;

        check(policy_durations(NULL, &spans, &n) == 0 && n == 0 && !spans);
        check(policy_load_string("d.policy", text, strlen(text), &p, &d) == 0 && d.n == 0);
        check(policy_durations(p, &spans, &n) == 0);
        check(n == 2 && spans && spans[0] == 10 * SEC && spans[1] == 300 * SEC);
        free(spans);
        /* the source form reads back */
        {
                const char *src = "unfocused:>5min || !unfocused:\"<10s\"";
                char *error = NULL;
                size_t off = 0;
                Expr *e = NULL;

                check(expr_parse(src, strlen(src), 1, &e, &error, &off) == 0);
                s = e ? expr_to_string(e) : NULL;
                check_streq(s, "unfocused:>5min || !unfocused:<10s");
                free(s);
                free(error);
                expr_free(e);
        }
        check(policy_used_keys(p) &
              POLICY_KEY(match_key_from_string_n("unfocused", strlen("unfocused"))));
        diagnostics_done(&d);
        policy_free(p);
}

int main(void)
{
        test_parse();
        test_errors();
        test_match();
        test_durations();
        return test_result();
}
