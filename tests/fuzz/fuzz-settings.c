/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target: settings values and KEY=VALUE assignments (lib/settings.h),
 * the parsers behind policy files, latnicectl set/run and the D-Bus methods
 * SetTask/SetUnit (whose a{sv} values daemon/bus/bus.c turns into text for
 * settings_parse(): strings as given, integers in decimal, durations as
 * "<u64>ns").
 *
 * Oracles: a failed parse leaves the Settings untouched; every value that
 * parses formats to text that parses back to the same value; the string of a
 * whole Settings parses back, assignment by assignment, to the same Settings.
 */
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/macro.h"
#include "lib/settings.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every field equal, the absent ones too (settings_equal() ignores those):
 * a failed parse must leave S untouched. */
static bool settings_identical(const Settings *a, const Settings *b)
{
        if (a->mask != b->mask)
                return false;
        for (SettingId id = 0; id < _SETTING_MAX; id++) {
                _cleanup_free_ char *x = NULL, *y = NULL;

                if (!settings_has(a, id))
                        continue;
                if (setting_format(a, id, &x) < 0 || setting_format(b, id, &y) < 0)
                        return false;
                if (!streq(x, y))
                        return false;
        }
        return a->latency_nice == b->latency_nice && a->slice_ns == b->slice_ns &&
               a->nice == b->nice && a->policy == b->policy && a->util_min == b->util_min &&
               a->util_max == b->util_max && a->timer_slack_ns == b->timer_slack_ns &&
               a->cpu_weight == b->cpu_weight && a->cpu_idle == b->cpu_idle;
}

/* Parse VALUE for ID into *S; on success, check the round trip through text. */
static void parse_value(Settings *s, SettingId id, const char *value)
{
        _cleanup_free_ char *error = NULL, *text = NULL;
        Settings before = *s, fresh = {}, again = {};
        unsigned column = UINT_MAX;
        int r;

        r = settings_parse(s, id, value, &error, &column);
        if (r == -ENOMEM)
                return;
        if (r < 0) {
                if (r != -EINVAL || !settings_identical(s, &before) || column > strlen(value))
                        abort();
                return;
        }
        if (!settings_has(s, id))
                abort();

        /* the same value alone, formatted and parsed again, is the same setting */
        if (settings_parse(&fresh, id, value, NULL, NULL) < 0)
                abort();
        if (setting_format(&fresh, id, &text) < 0)
                return;
        if (settings_parse(&again, id, text, NULL, NULL) < 0) {
                fprintf(stderr, "%s=\"%s\" formats as \"%s\", which does not parse\n",
                        setting_to_string(id), value, text);
                abort();
        }
        if (!settings_identical(&fresh, &again)) {
                fprintf(stderr, "%s: \"%s\" -> \"%s\" is another value\n",
                        setting_to_string(id), value, text);
                abort();
        }
}

/* The whole Settings as "K=V K=V" and back. */
static void round_trip(const Settings *s)
{
        _cleanup_free_ char *str = settings_to_string(s);
        Settings back = {};
        char *save = NULL;

        if (!str)
                return;
        for (char *tok = strtok_r(str, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
                if (settings_parse_assignment(&back, tok, NULL) < 0) {
                        fprintf(stderr, "assignment \"%s\" from settings_to_string() fails\n",
                                tok);
                        abort();
                }
        if (!settings_identical(s, &back))
                abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        _cleanup_free_ char *text = NULL, *error = NULL;
        Settings s = {}, before;
        int r;

        if (size > 4096)
                return 0;
        /* values are C strings everywhere (policy lines, argv, D-Bus 's') */
        {
                const uint8_t *nul = memchr(data, 0, size);
                size_t len = nul ? (size_t)(nul - data) : size;

                text = malloc(len + 1);
                if (!text)
                        return 0;
                memcpy(text, data, len);
                text[len] = 0;
        }

        /* as a command line assignment */
        before = s;
        r = settings_parse_assignment(&s, text, &error);
        if (r < 0 && (r != -EINVAL && r != -ENOMEM))
                abort();
        if (r < 0 && !settings_identical(&s, &before))
                abort();

        /* as the value of every setting (what a policy line or a D-Bus 's' gives) */
        for (SettingId id = 0; id < _SETTING_MAX; id++)
                parse_value(&s, id, text);
        round_trip(&s);

        /* what the D-Bus methods make of integer and duration variants */
        if (size >= 8) {
                uint64_t u;
                int32_t i;
                char num[64];

                memcpy(&u, data, sizeof(u));
                memcpy(&i, data, sizeof(i));
                snprintf(num, sizeof(num), "%" PRIu64 "ns", u);
                parse_value(&s, SETTING_SLICE, num);
                parse_value(&s, SETTING_TIMER_SLACK, num);
                snprintf(num, sizeof(num), "%" PRIi32, i);
                for (SettingId id = 0; id < _SETTING_MAX; id++)
                        parse_value(&s, id, num);
                snprintf(num, sizeof(num), "%" PRIu32, (uint32_t)i);
                for (SettingId id = 0; id < _SETTING_MAX; id++)
                        parse_value(&s, id, num);
                round_trip(&s);
        }

        (void)setting_from_string(text);
        (void)sched_policy_from_string(text);
        (void)parse_boolean(text);
        return 0;
}
