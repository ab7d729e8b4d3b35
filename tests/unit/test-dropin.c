/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * policy/dropin: hostile unit names through the drop-in writer and back
 * through the policy parser. The [Unit] glob read back must match exactly
 * the unit it was written for and no other name.
 */
#include <string.h>

#include "lib/settings.h"
#include "policy/dropin.h"
#include "policy/parser.h"
#include "policy/policy.h"
#include "test-util.h"

static Settings unit_settings(void)
{
        Settings s = {};
        char *msg = NULL;

        CHECK(settings_parse(&s, SETTING_CPU_WEIGHT, "200", &msg, NULL) == 0);
        CHECK(settings_parse(&s, SETTING_LATENCY_NICE, "-5", &msg, NULL) == 0);
        return s;
}

static Policy *load(const char *text)
{
        Policy *p = NULL;
        Diagnostics d = {};

        CHECK(policy_load_string("test.policy", text, strlen(text), &p, &d) == 0);
        if (diagnostics_count(&d, DIAG_ERROR) + diagnostics_count(&d, DIAG_WARNING) > 0)
                test_fail("the drop-in did not load cleanly:\n%s", text);
        diagnostics_done(&d);
        return p;
}

/* Names that differ from UNIT by a little: one more byte, one less, one
 * byte changed (which a '*', '?' or '[...]' left unescaped would match). */
static void check_only(const Policy *p, const char *unit)
{
        size_t n = strlen(unit);
        _cleanup_free_ char *v = malloc(n + 2);

        CHECK(v);
        snprintf(v, n + 2, "%sx", unit);
        check(!policy_match_unit(p, v, NULL));
        snprintf(v, n + 2, "x%s", unit);
        check(!policy_match_unit(p, v, NULL));
        if (n > 1) {
                memcpy(v, unit, n - 1);
                v[n - 1] = '\0';
                check(!policy_match_unit(p, v, NULL));
        }
        for (size_t i = 0; i < n; i++) {
                memcpy(v, unit, n + 1);
                v[i] = v[i] == 'q' ? 'r' : 'q';
                if (policy_match_unit(p, v, NULL))
                        test_fail("the drop-in of \"%s\" matches \"%s\" too", unit, v);
        }
}

static void roundtrip(const char *unit)
{
        _cleanup_(policy_freep) Policy *p = NULL;
        _cleanup_free_ char *text = NULL, *want = NULL, *got = NULL;
        Settings s = unit_settings(), merged = {};
        const char *why = NULL;
        int r;

        r = unit_dropin_format(unit, &s, 1000, false, &text, &why);
        if (r < 0) {
                test_fail("\"%s\" refused: %s (%s)", unit, strerror(-r), strna(why));
                return;
        }
        p = load(text);
        check(policy_n_units(p) == 1);
        if (!policy_match_unit(p, unit, &merged))
                test_fail("the drop-in of \"%s\" does not match it:\n%s", unit, text);
        want = settings_to_string(&s);
        got = settings_to_string(&merged);
        check_streq(got, want);
        check_only(p, unit);
}

static void test_hostile_names(void)
{
        static const char *const units[] = {
                "pipewire.service", "x\\x2dy.mount", "a*b.service", "*", "?", "**.scope",
                "a?b.service", "[ab].service", "[!a].slice", "[", "]", "a]b", "[]]",
                "a\\b", "\\", "\\*", "trailing\\", "quote\"s'.service", "#hash;semi=eq.service",
                "caf\xc3\xa9-\xe6\x97\xa5\xe6\x9c\xac.service", "\xf0\x9f\x8e\xb5.scope",
                "-.slice", "a[[:alpha:]]b", "{a,b}.service", "~$HOME.service",
        };
        char name[(POLICY_LINE_MAX - 7) / 2 + 2];

        for (size_t i = 0; i < ELEMENTSOF(units); i++)
                roundtrip(units[i]);

        /* A 255-byte unit name, and the longest name a policy line holds
         * with every byte escaped. */
        memset(name, 'a', 255);
        strcpy(name + 255 - strlen(".service"), ".service");
        roundtrip(name);
        memset(name, '*', sizeof(name));
        name[(POLICY_LINE_MAX - 7) / 2] = '\0';
        roundtrip(name);
}

static void refused(const char *unit, const char *want_why)
{
        _cleanup_free_ char *text = NULL;
        Settings s = unit_settings();
        const char *why = NULL;

        if (unit_dropin_format(unit, &s, 0, false, &text, &why) != -EINVAL) {
                test_fail("\"%s\" accepted:\n%s", unit, strna(text));
                return;
        }
        check(text == NULL);
        if (!why || !strstr(why, want_why))
                test_fail("\"%s\": \"%s\" does not say \"%s\"", unit, strna(why), want_why);
}

static void test_unwritable_names(void)
{
        char name[(POLICY_LINE_MAX - 7) / 2 + 2];

        refused("", "empty");
        refused("a b.service", "blanks");
        refused("a\tb.service", "blanks");
        refused("a\n[Rule x]\nMatch = name:*\nNice = -20\n", "control");
        refused("a\r.service", "control");
        refused("a\x7f.service", "control");
        refused("\xff.service", "UTF-8");
        refused("caf\xc3.service", "UTF-8");
        memset(name, '*', sizeof(name));
        name[sizeof(name) - 1] = '\0';
        refused(name, "too long");
}

static void test_text(void)
{
        _cleanup_free_ char *a = NULL, *b = NULL;
        Settings s = unit_settings();
        const char *why = NULL;

        /* The text latniced has always written for a valid unit name. */
        CHECK(unit_dropin_format("x\\x2dy.mount", &s, 1000, true, &a, &why) == 0);
        check_streq(a, "# Written by latniced for uid 1000 (SetUnit, latnicectl set-unit).\n"
                       "# Remove with: latnicectl unset-unit --runtime x\\x2dy.mount\n"
                       "[Unit x\\\\x2dy.mount]\n"
                       "LatencyNice = -5\n"
                       "CPUWeight = 200\n");
        b = unit_dropin_name("x\\x2dy.mount");
        check_streq(b, "90-unit-x%5cx2dy.mount.policy");
}

int main(void)
{
        test_hostile_names();
        test_unwritable_names();
        test_text();
        return test_result();
}
