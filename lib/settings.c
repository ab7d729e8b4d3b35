/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Settings: parsing, formatting and merging of scheduler attributes.
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/macro.h"
#include "lib/settings.h"

#ifndef SCHED_BATCH
#define SCHED_BATCH 3
#endif
#ifndef SCHED_IDLE
#define SCHED_IDLE 5
#endif
#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif

#define NSEC_PER_USEC UINT64_C(1000)
#define NSEC_PER_MSEC UINT64_C(1000000)

static const char *const setting_names[_SETTING_MAX] = {
        [SETTING_LATENCY_NICE] = "LatencyNice",
        [SETTING_SLICE] = "Slice",
        [SETTING_NICE] = "Nice",
        [SETTING_POLICY] = "Policy",
        [SETTING_UTIL_MIN] = "UtilMin",
        [SETTING_UTIL_MAX] = "UtilMax",
        [SETTING_TIMER_SLACK] = "TimerSlack",
        [SETTING_CPU_WEIGHT] = "CPUWeight",
        [SETTING_CPU_IDLE] = "CPUIdle",
};

const char *setting_to_string(SettingId id)
{
        if (id < 0 || id >= _SETTING_MAX)
                return NULL;
        return setting_names[id];
}

/* Blanks around KEY are ignored, as around values (settings_parse()) and in
 * the policy files, so " Nice = 5" means the same on the command line. */
SettingId setting_from_string(const char *key)
{
        size_t n;

        if (!key)
                return _SETTING_INVALID;
        key += strspn(key, " \t");
        n = strlen(key);
        while (n > 0 && (key[n - 1] == ' ' || key[n - 1] == '\t'))
                n--;
        for (SettingId i = 0; i < _SETTING_MAX; i++)
                if (strlen(setting_names[i]) == n && strncmp(key, setting_names[i], n) == 0)
                        return i;
        return _SETTING_INVALID;
}

int parse_boolean(const char *s)
{
        static const char *const yes[] = { "yes", "true", "on", "1" };
        static const char *const no[] = { "no", "false", "off", "0" };

        if (!s)
                return -EINVAL;
        for (size_t i = 0; i < ELEMENTSOF(yes); i++)
                if (streq(s, yes[i]))
                        return 1;
        for (size_t i = 0; i < ELEMENTSOF(no); i++)
                if (streq(s, no[i]))
                        return 0;
        return -EINVAL;
}

const char *sched_policy_to_string(int policy)
{
        switch (policy) {
        case SCHED_OTHER:
                return "other";
        case SCHED_FIFO:
                return "fifo";
        case SCHED_RR:
                return "rr";
        case SCHED_BATCH:
                return "batch";
        case SCHED_IDLE:
                return "idle";
        case SCHED_DEADLINE:
                return "deadline";
        default:
                return NULL;
        }
}

int sched_policy_from_string(const char *s)
{
        if (!s)
                return -EINVAL;
        if (streq(s, "other"))
                return SCHED_OTHER;
        if (streq(s, "batch"))
                return SCHED_BATCH;
        if (streq(s, "idle"))
                return SCHED_IDLE;
        return -EINVAL;
}

static bool is_blank(char c)
{
        return c == ' ' || c == '\t';
}

static bool is_digit(char c)
{
        return c >= '0' && c <= '9';
}

/* Set *ret_error to a printf-formatted message; tolerate ENOMEM by leaving it NULL. */
_printf_(2, 3) static void set_error(char **ret_error, const char *fmt, ...)
{
        va_list ap;
        char *m;

        if (!ret_error)
                return;
        va_start(ap, fmt);
        if (vasprintf(&m, fmt, ap) < 0)
                m = NULL;
        va_end(ap);
        *ret_error = m;
}

/*
 * A decimal number: digits, optionally '.' and digits. Returns the value
 * scaled by 10^9 (so up to 9 fractional digits are exact) in *ret, and the
 * number of bytes consumed, or 0 if there is no number or it overflows.
 */
static size_t parse_decimal_nano(const char *s, uint64_t *ret)
{
        uint64_t ip = 0, frac = 0, scale = UINT64_C(100000000);
        size_t i = 0;
        bool any = false;

        while (is_digit(s[i])) {
                if (ip > (UINT64_MAX / 10 - 9) / UINT64_C(1000000000))
                        return 0;
                ip = ip * 10 + (uint64_t)(s[i] - '0');
                i++;
                any = true;
        }
        if (s[i] == '.') {
                i++;
                while (is_digit(s[i])) {
                        if (scale == 0) {
                                if (s[i] != '0')
                                        return 0; /* more precision than we keep */
                        } else {
                                frac += (uint64_t)(s[i] - '0') * scale;
                                scale /= 10;
                        }
                        i++;
                        any = true;
                }
        }
        if (!any)
                return 0;
        if (ip > (UINT64_MAX - frac) / UINT64_C(1000000000))
                return 0;
        *ret = ip * UINT64_C(1000000000) + frac;
        return i;
}

typedef struct Range {
        int64_t min, max;
} Range;

static int parse_int_range(const char *v, Range range, int64_t *ret, char **ret_error)
{
        const char *p = v;
        bool neg = false;
        int64_t x = 0;

        if (*p == '-' || *p == '+') {
                neg = *p == '-';
                p++;
        }
        if (!is_digit(*p))
                goto fail;
        for (; is_digit(*p); p++) {
                if (x > 1000000000)
                        goto fail; /* far outside every range we use */
                x = x * 10 + (*p - '0');
        }
        if (*p)
                goto fail;
        if (neg)
                x = -x;
        if (x < range.min || x > range.max)
                goto fail;
        *ret = x;
        return 0;
fail:
        set_error(ret_error, "expected an integer in %" PRIi64 "..%" PRIi64 ", found \"%s\"",
                  range.min, range.max, v);
        return -EINVAL;
}

/* "0.1ms", "50us", "1000ns": a unit is required. */
static int parse_duration(const char *v, uint64_t min, uint64_t max, const char *range_text,
                          uint64_t *ret, char **ret_error, unsigned *ret_column)
{
        static const struct {
                const char *suffix;
                uint64_t mult;
        } units[] = {
                { "ns", 1 },
                { "us", NSEC_PER_USEC },
                { "ms", NSEC_PER_MSEC },
        };
        uint64_t nano, ns;
        size_t n;

        n = parse_decimal_nano(v, &nano);
        if (n == 0) {
                set_error(ret_error, "expected a duration in %s with a unit (ns, us, ms), found \"%s\"",
                          range_text, v);
                if (ret_column)
                        *ret_column = 0;
                return -EINVAL;
        }
        for (size_t i = 0; i < ELEMENTSOF(units); i++) {
                if (!streq(v + n, units[i].suffix))
                        continue;
                /* nano is value * 1e9; ns = nano * mult / 1e9, exact or refused. */
                if (nano > UINT64_MAX / units[i].mult)
                        goto range;
                if ((nano * units[i].mult) % UINT64_C(1000000000) != 0) {
                        set_error(ret_error,
                                  "expected a whole number of nanoseconds, found \"%s\"", v);
                        if (ret_column)
                                *ret_column = 0;
                        return -EINVAL;
                }
                ns = nano * units[i].mult / UINT64_C(1000000000);
                if (ns < min || ns > max)
                        goto range;
                *ret = ns;
                return 0;
        }
        if (v[n] == 0)
                set_error(ret_error, "expected a unit (ns, us, ms) after \"%s\", found end of value",
                          v);
        else
                set_error(ret_error, "expected a unit (ns, us, ms), found \"%s\"", v + n);
        if (ret_column)
                *ret_column = (unsigned)n;
        return -EINVAL;
range:
        set_error(ret_error, "expected a duration in %s, found \"%s\"", range_text, v);
        if (ret_column)
                *ret_column = 0;
        return -EINVAL;
}

/* "0..1024" or "N%" with N in 0..100 (may have decimals). */
static int parse_util(const char *v, uint32_t *ret, char **ret_error)
{
        size_t len = strlen(v);

        if (len > 0 && v[len - 1] == '%') {
                uint64_t nano;
                size_t n = parse_decimal_nano(v, &nano);

                if (n == 0 || n != len - 1 || nano > UINT64_C(100) * 1000000000)
                        goto fail;
                /* round to nearest: pct * 1024 / 100 */
                *ret = (uint32_t)((nano * 1024 / 100 + 500000000) / 1000000000);
                return 0;
        } else {
                int64_t x;

                if (parse_int_range(v, (Range){ 0, 1024 }, &x, NULL) < 0)
                        goto fail;
                *ret = (uint32_t)x;
                return 0;
        }
fail:
        set_error(ret_error, "expected an integer in 0..1024 or a percentage in 0..100%%, found \"%s\"",
                  v);
        return -EINVAL;
}

int settings_parse(Settings *s, SettingId id, const char *value, char **ret_error,
                   unsigned *ret_column)
{
        _cleanup_free_ char *v = NULL;
        Settings t;
        size_t start, len;
        unsigned column = 0;
        int64_t x;
        int r;

        if (!s || !value || id < 0 || id >= _SETTING_MAX)
                return -EINVAL;

        for (start = 0; is_blank(value[start]); start++)
                ;
        len = strlen(value + start);
        while (len > 0 && is_blank(value[start + len - 1]))
                len--;
        v = strndup(value + start, len);
        if (!v)
                return -ENOMEM;

        t = *s;
        switch (id) {
        case SETTING_LATENCY_NICE:
        case SETTING_NICE:
                r = parse_int_range(v, (Range){ -20, 19 }, &x, ret_error);
                if (r < 0)
                        break;
                if (id == SETTING_NICE)
                        t.nice = (int32_t)x;
                else
                        t.latency_nice = (int32_t)x;
                break;
        case SETTING_SLICE:
                r = parse_duration(v, 100 * NSEC_PER_USEC, 100 * NSEC_PER_MSEC, "0.1ms..100ms",
                                   &t.slice_ns, ret_error, &column);
                break;
        case SETTING_TIMER_SLACK:
                r = parse_duration(v, 1, 100 * NSEC_PER_MSEC, "1ns..100ms", &t.timer_slack_ns,
                                   ret_error, &column);
                break;
        case SETTING_POLICY:
                r = sched_policy_from_string(v);
                if (r < 0) {
                        set_error(ret_error, "expected other, batch or idle, found \"%s\"", v);
                        break;
                }
                t.policy = r;
                r = 0;
                break;
        case SETTING_UTIL_MIN:
                r = parse_util(v, &t.util_min, ret_error);
                break;
        case SETTING_UTIL_MAX:
                r = parse_util(v, &t.util_max, ret_error);
                break;
        case SETTING_CPU_WEIGHT:
                r = parse_int_range(v, (Range){ 1, 10000 }, &x, ret_error);
                if (r >= 0)
                        t.cpu_weight = (uint32_t)x;
                break;
        case SETTING_CPU_IDLE:
                r = parse_boolean(v);
                if (r < 0) {
                        set_error(ret_error, "expected yes or no, found \"%s\"", v);
                        break;
                }
                t.cpu_idle = r;
                r = 0;
                break;
        default:
                return -EINVAL;
        }
        if (r < 0) {
                if (ret_column)
                        *ret_column = (unsigned)start + column;
                return -EINVAL;
        }

        t.mask |= SETTING_BIT(id);
        *s = t;
        return 0;
}

int settings_parse_assignment(Settings *s, const char *assignment, char **ret_error)
{
        _cleanup_free_ char *key = NULL;
        const char *eq;
        SettingId id;

        if (!s || !assignment)
                return -EINVAL;
        eq = strchr(assignment, '=');
        if (!eq) {
                set_error(ret_error, "expected KEY=VALUE, found \"%s\"", assignment);
                return -EINVAL;
        }
        key = strndup(assignment, (size_t)(eq - assignment));
        if (!key)
                return -ENOMEM;
        id = setting_from_string(key);
        if (id < 0) {
                set_error(ret_error,
                          "expected a setting (LatencyNice, Slice, Nice, Policy, UtilMin, UtilMax, "
                          "TimerSlack, CPUWeight, CPUIdle), found \"%s\"",
                          key);
                return -EINVAL;
        }
        return settings_parse(s, id, eq + 1, ret_error, NULL);
}

void settings_merge(Settings *dst, const Settings *src)
{
        uint32_t m = src->mask;

        if (m & SETTING_BIT(SETTING_LATENCY_NICE))
                dst->latency_nice = src->latency_nice;
        if (m & SETTING_BIT(SETTING_SLICE))
                dst->slice_ns = src->slice_ns;
        if (m & SETTING_BIT(SETTING_NICE))
                dst->nice = src->nice;
        if (m & SETTING_BIT(SETTING_POLICY))
                dst->policy = src->policy;
        if (m & SETTING_BIT(SETTING_UTIL_MIN))
                dst->util_min = src->util_min;
        if (m & SETTING_BIT(SETTING_UTIL_MAX))
                dst->util_max = src->util_max;
        if (m & SETTING_BIT(SETTING_TIMER_SLACK))
                dst->timer_slack_ns = src->timer_slack_ns;
        if (m & SETTING_BIT(SETTING_CPU_WEIGHT))
                dst->cpu_weight = src->cpu_weight;
        if (m & SETTING_BIT(SETTING_CPU_IDLE))
                dst->cpu_idle = src->cpu_idle;
        dst->mask |= m;
}

/* ns as "0.1ms", "50us", "7ns": the largest unit that keeps it short and exact. */
static int format_duration(uint64_t ns, char **ret)
{
        char *s;
        int n;

        if (ns >= 100 * NSEC_PER_USEC) {
                char frac[8];
                uint64_t f = ns % NSEC_PER_MSEC;

                if (f == 0)
                        n = asprintf(&s, "%" PRIu64 "ms", ns / NSEC_PER_MSEC);
                else {
                        int len;

                        snprintf(frac, sizeof(frac), "%06" PRIu64, f);
                        for (len = 6; len > 0 && frac[len - 1] == '0'; len--)
                                ;
                        frac[len] = 0;
                        n = asprintf(&s, "%" PRIu64 ".%sms", ns / NSEC_PER_MSEC, frac);
                }
        } else if (ns % NSEC_PER_USEC == 0)
                n = asprintf(&s, "%" PRIu64 "us", ns / NSEC_PER_USEC);
        else
                n = asprintf(&s, "%" PRIu64 "ns", ns);
        if (n < 0)
                return -ENOMEM;
        *ret = s;
        return 0;
}

static int format_util(uint32_t v, char **ret)
{
        char *s;
        int n;

        if ((v * 100) % 1024 == 0)
                n = asprintf(&s, "%" PRIu32 "%%", v * 100 / 1024);
        else
                n = asprintf(&s, "%" PRIu32, v);
        if (n < 0)
                return -ENOMEM;
        *ret = s;
        return 0;
}

int setting_format(const Settings *s, SettingId id, char **ret)
{
        const char *str = NULL;
        char *out;
        int n = 0;

        if (!s || !ret || id < 0 || id >= _SETTING_MAX)
                return -EINVAL;
        if (!settings_has(s, id))
                return -ENODATA;

        switch (id) {
        case SETTING_LATENCY_NICE:
                n = asprintf(&out, "%" PRIi32, s->latency_nice);
                break;
        case SETTING_NICE:
                n = asprintf(&out, "%" PRIi32, s->nice);
                break;
        case SETTING_SLICE:
                return format_duration(s->slice_ns, ret);
        case SETTING_TIMER_SLACK:
                return format_duration(s->timer_slack_ns, ret);
        case SETTING_POLICY:
                str = sched_policy_to_string(s->policy);
                if (!str) {
                        n = asprintf(&out, "%" PRIi32, s->policy);
                        str = NULL;
                }
                break;
        case SETTING_UTIL_MIN:
                return format_util(s->util_min, ret);
        case SETTING_UTIL_MAX:
                return format_util(s->util_max, ret);
        case SETTING_CPU_WEIGHT:
                n = asprintf(&out, "%" PRIu32, s->cpu_weight);
                break;
        case SETTING_CPU_IDLE:
                str = s->cpu_idle ? "yes" : "no";
                break;
        default:
                return -EINVAL;
        }
        if (str) {
                out = strdup(str);
                if (!out)
                        return -ENOMEM;
        } else if (n < 0)
                return -ENOMEM;
        *ret = out;
        return 0;
}

char *settings_to_string(const Settings *s)
{
        char *buf = NULL;
        size_t size = 0;
        FILE *f;

        f = open_memstream(&buf, &size);
        if (!f)
                return NULL;
        for (SettingId id = 0; id < _SETTING_MAX; id++) {
                _cleanup_free_ char *v = NULL;

                if (!settings_has(s, id))
                        continue;
                if (setting_format(s, id, &v) < 0) {
                        fclose(f);
                        free(buf);
                        return NULL;
                }
                fprintf(f, "%s%s=%s", size > 0 || ftell(f) > 0 ? " " : "", setting_to_string(id), v);
        }
        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        return buf;
}

char setting_bus_type(SettingId id)
{
        static const char types[_SETTING_MAX] = {
                [SETTING_LATENCY_NICE] = 'i', [SETTING_SLICE] = 't',      [SETTING_NICE] = 'i',
                [SETTING_POLICY] = 's',       [SETTING_UTIL_MIN] = 'u',   [SETTING_UTIL_MAX] = 'u',
                [SETTING_TIMER_SLACK] = 't',  [SETTING_CPU_WEIGHT] = 'u', [SETTING_CPU_IDLE] = 'b',
        };

        if (id < 0 || id >= _SETTING_MAX)
                return 0;
        return types[id];
}

int setting_to_bus_value(const Settings *s, SettingId id, SettingBusValue *ret)
{
        SettingBusValue v = { .type = setting_bus_type(id) };

        if (!s || !ret || v.type == 0)
                return -EINVAL;
        if (!settings_has(s, id))
                return -ENODATA;

        switch (id) {
        case SETTING_LATENCY_NICE:
                v.i = s->latency_nice;
                break;
        case SETTING_NICE:
                v.i = s->nice;
                break;
        case SETTING_SLICE:
                v.t = s->slice_ns;
                break;
        case SETTING_TIMER_SLACK:
                v.t = s->timer_slack_ns;
                break;
        case SETTING_POLICY:
                v.s = sched_policy_to_string(s->policy) ?: "n/a";
                break;
        case SETTING_UTIL_MIN:
                v.u = s->util_min;
                break;
        case SETTING_UTIL_MAX:
                v.u = s->util_max;
                break;
        case SETTING_CPU_WEIGHT:
                v.u = s->cpu_weight;
                break;
        case SETTING_CPU_IDLE:
                v.b = s->cpu_idle;
                break;
        default:
                return -EINVAL;
        }
        *ret = v;
        return 0;
}
