/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Settings: parsing, formatting and merging of scheduler attributes.
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/ioprio.h"
#include "lib/core-sched.h"
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

/* ---- The field table ---------------------------------------------------- */

typedef struct SettingField SettingField;

/* Parse V (blanks stripped) into FIELD, the member of Settings F describes.
 * On error: -EINVAL, FIELD untouched, *RET_ERROR as settings_parse() says,
 * *RET_COLUMN (never NULL) the offset in V if not 0. */
typedef int (*setting_parse_t)(const SettingField *f, const char *v, void *field, char **ret_error,
                               unsigned *ret_column);
/* FIELD in policy syntax. */
typedef int (*setting_format_t)(const SettingField *f, const void *field, char **ret);

/*
 * One setting: its key, its D-Bus type, where it lives in Settings, how it
 * is parsed and formatted. Every per-setting operation (parse, format,
 * merge, compare, D-Bus value) goes through this table, so a new setting is
 * one line here plus its parser and formatter if no existing one fits.
 */
struct SettingField {
        const char *name;
        char bus_type;  /* 'i' int32_t, 'u' uint32_t, 't' uint64_t, 'b' bool, 's' policy (int32_t) */
        size_t offset, size;
        setting_parse_t parse;
        setting_format_t format;
        int64_t min, max;       /* integers and durations */
        const char *range_text; /* durations: the range as the error names it */
        const char *(*name_of)(int value); /* bus type 's': the value's name */
};

static int parse_int_field(const SettingField *f, const char *v, void *field, char **ret_error,
                           unsigned *ret_column)
{
        int64_t x;
        int r;

        r = parse_int_range(v, (Range){ f->min, f->max }, &x, ret_error);
        if (r < 0)
                return r;
        if (f->bus_type == 'u')
                *(uint32_t *)field = (uint32_t)x;
        else
                *(int32_t *)field = (int32_t)x;
        return 0;
}

static int parse_duration_field(const SettingField *f, const char *v, void *field,
                                char **ret_error, unsigned *ret_column)
{
        return parse_duration(v, (uint64_t)f->min, (uint64_t)f->max, f->range_text, field,
                              ret_error, ret_column);
}

static int parse_policy_field(const SettingField *f, const char *v, void *field, char **ret_error,
                              unsigned *ret_column)
{
        int r = sched_policy_from_string(v);

        if (r < 0) {
                set_error(ret_error, "expected other, batch or idle, found \"%s\"", v);
                return -EINVAL;
        }
        *(int32_t *)field = r;
        return 0;
}

static int parse_io_class_field(const SettingField *f, const char *v, void *field,
                                char **ret_error, unsigned *ret_column)
{
        int r = ioprio_class_from_string(v);

        if (r < 0) {
                set_error(ret_error, "expected realtime, best-effort or idle, found \"%s\"", v);
                return -EINVAL;
        }
        *(int32_t *)field = r;
        return 0;
}

/* CoreSched=: the mode; a rule's group is the policy loader's to set. */
static int parse_core_sched_field(const SettingField *f, const char *v, void *field,
                                  char **ret_error, unsigned *ret_column)
{
        int r = core_sched_mode_from_string(v);

        if (r < 0) {
                set_error(ret_error, "expected process, rule or none, found \"%s\"", v);
                return -EINVAL;
        }
        *(CoreSchedSetting *)field = (CoreSchedSetting){ .mode = r };
        return 0;
}

static const char *const group_scope_names[_GROUP_SCOPE_MAX] = {
        [GROUP_SCOPE_SHARED] = "shared",
        [GROUP_SCOPE_OWN] = "own",
};

const char *group_scope_to_string(int mode)
{
        return mode >= 0 && mode < _GROUP_SCOPE_MAX ? group_scope_names[mode] : NULL;
}

int group_scope_from_string(const char *s)
{
        for (int i = 0; i < _GROUP_SCOPE_MAX; i++)
                if (s && strcmp(s, group_scope_names[i]) == 0)
                        return i;
        return -EINVAL;
}

static int parse_group_scope_field(const SettingField *f, const char *v, void *field,
                                   char **ret_error, unsigned *ret_column)
{
        int r = group_scope_from_string(v);

        if (r < 0) {
                set_error(ret_error, "expected shared or own, found \"%s\"", v);
                return -EINVAL;
        }
        *(int32_t *)field = r;
        return 0;
}

static int parse_util_field(const SettingField *f, const char *v, void *field, char **ret_error,
                            unsigned *ret_column)
{
        return parse_util(v, field, ret_error);
}

static int parse_bool_field(const SettingField *f, const char *v, void *field, char **ret_error,
                            unsigned *ret_column)
{
        int r = parse_boolean(v);

        if (r < 0) {
                set_error(ret_error, "expected yes or no, found \"%s\"", v);
                return -EINVAL;
        }
        *(bool *)field = r;
        return 0;
}

static int format_int_field(const SettingField *f, const void *field, char **ret)
{
        char *s;
        int n;

        if (f->bus_type == 'u')
                n = asprintf(&s, "%" PRIu32, *(const uint32_t *)field);
        else
                n = asprintf(&s, "%" PRIi32, *(const int32_t *)field);
        if (n < 0)
                return -ENOMEM;
        *ret = s;
        return 0;
}

static int format_duration_field(const SettingField *f, const void *field, char **ret)
{
        return format_duration(*(const uint64_t *)field, ret);
}

static int format_string(const char *str, char **ret)
{
        char *s = strdup(str);

        if (!s)
                return -ENOMEM;
        *ret = s;
        return 0;
}

static int format_policy_field(const SettingField *f, const void *field, char **ret)
{
        int32_t policy = *(const int32_t *)field;
        const char *str = sched_policy_to_string(policy);

        if (!str)
                return format_int_field(f, field, ret); /* not one we set: the number */
        return format_string(str, ret);
}

static int format_io_class_field(const SettingField *f, const void *field, char **ret)
{
        const char *str = ioprio_class_to_string(*(const int32_t *)field);

        if (!str)
                return format_int_field(f, field, ret);
        return format_string(str, ret);
}

static int format_core_sched_field(const SettingField *f, const void *field, char **ret)
{
        const char *str = core_sched_mode_to_string(((const CoreSchedSetting *)field)->mode);

        if (!str)
                return format_int_field(f, field, ret); /* mode is the first member */
        return format_string(str, ret);
}

static int format_group_scope_field(const SettingField *f, const void *field, char **ret)
{
        const char *str = group_scope_to_string(*(const int32_t *)field);

        if (!str)
                return format_int_field(f, field, ret);
        return format_string(str, ret);
}

static int format_util_field(const SettingField *f, const void *field, char **ret)
{
        return format_util(*(const uint32_t *)field, ret);
}

static int format_bool_field(const SettingField *f, const void *field, char **ret)
{
        return format_string(*(const bool *)field ? "yes" : "no", ret);
}

#define FIELD(member) .offset = offsetof(Settings, member), .size = sizeof(((Settings *)NULL)->member)

static const SettingField setting_fields[_SETTING_MAX] = {
        [SETTING_LATENCY_NICE] = { "LatencyNice", 'i', FIELD(latency_nice), parse_int_field,
                                   format_int_field, -20, 19, NULL },
        [SETTING_SLICE] = { "Slice", 't', FIELD(slice_ns), parse_duration_field,
                            format_duration_field, 100 * NSEC_PER_USEC, 100 * NSEC_PER_MSEC,
                            "0.1ms..100ms" },
        [SETTING_NICE] = { "Nice", 'i', FIELD(nice), parse_int_field, format_int_field, -20, 19,
                           NULL },
        [SETTING_POLICY] = { "Policy", 's', FIELD(policy), parse_policy_field, format_policy_field,
                             0, 0, NULL, sched_policy_to_string },
        [SETTING_UTIL_MIN] = { "UtilMin", 'u', FIELD(util_min), parse_util_field,
                               format_util_field, 0, 1024, NULL },
        [SETTING_UTIL_MAX] = { "UtilMax", 'u', FIELD(util_max), parse_util_field,
                               format_util_field, 0, 1024, NULL },
        [SETTING_TIMER_SLACK] = { "TimerSlack", 't', FIELD(timer_slack_ns), parse_duration_field,
                                  format_duration_field, 1, 100 * NSEC_PER_MSEC, "1ns..100ms" },
        [SETTING_IO_CLASS] = { "IOClass", 's', FIELD(io_class), parse_io_class_field,
                               format_io_class_field, 0, 0, NULL, ioprio_class_to_string },
        [SETTING_IO_NICE] = { "IONice", 'i', FIELD(io_nice), parse_int_field, format_int_field, 0,
                              7, NULL },
        [SETTING_OOM_SCORE_ADJ] = { "OOMScoreAdj", 'i', FIELD(oom_score_adj), parse_int_field,
                                    format_int_field, OOM_SCORE_ADJ_MIN, OOM_SCORE_ADJ_MAX, NULL },
        [SETTING_CORE_SCHED] = { "CoreSched", 's', FIELD(core_sched), parse_core_sched_field,
                                 format_core_sched_field, 0, 0, NULL, core_sched_mode_to_string },
        [SETTING_CPU_WEIGHT] = { "CPUWeight", 'u', FIELD(cpu_weight), parse_int_field,
                                 format_int_field, 1, 10000, NULL },
        [SETTING_CPU_IDLE] = { "CPUIdle", 'b', FIELD(cpu_idle), parse_bool_field,
                               format_bool_field, 0, 1, NULL },
        [SETTING_CPU_LATENCY_NICE] = { "CPULatencyNice", 'i', FIELD(cpu_latency_nice),
                                       parse_int_field, format_int_field, -20, 19, NULL },
        [SETTING_GROUP_SCOPE] = { "GroupScope", 's', FIELD(group_scope), parse_group_scope_field,
                                  format_group_scope_field, 0, 0, NULL, group_scope_to_string },
};

/* Every field has the size its D-Bus type says. */
_Static_assert(sizeof(((Settings *)NULL)->latency_nice) == 4 && sizeof(((Settings *)NULL)->nice) == 4 &&
                       sizeof(((Settings *)NULL)->policy) == 4 &&
                       sizeof(((Settings *)NULL)->util_min) == 4 &&
                       sizeof(((Settings *)NULL)->util_max) == 4 &&
                       sizeof(((Settings *)NULL)->io_class) == 4 &&
                       sizeof(((Settings *)NULL)->io_nice) == 4 &&
                       sizeof(((Settings *)NULL)->oom_score_adj) == 4 &&
                       sizeof(((Settings *)NULL)->cpu_weight) == 4 &&
                       sizeof(((Settings *)NULL)->cpu_latency_nice) == 4 &&
                       sizeof(((Settings *)NULL)->group_scope) == 4 &&
                       sizeof(((Settings *)NULL)->slice_ns) == 8 &&
                       sizeof(((Settings *)NULL)->timer_slack_ns) == 8,
               "Settings field sizes match setting_fields[]");

static const SettingField *setting_field(SettingId id)
{
        if (id < 0 || id >= _SETTING_MAX)
                return NULL;
        return &setting_fields[id];
}

static void *field_of(Settings *s, const SettingField *f)
{
        return (uint8_t *)s + f->offset;
}

static const void *field_of_const(const Settings *s, const SettingField *f)
{
        return (const uint8_t *)s + f->offset;
}

const char *setting_to_string(SettingId id)
{
        const SettingField *f = setting_field(id);

        return f ? f->name : NULL;
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
                if (strlen(setting_fields[i].name) == n &&
                    strncmp(key, setting_fields[i].name, n) == 0)
                        return i;
        return _SETTING_INVALID;
}

/* ---- Operations over the table ------------------------------------------- */

int settings_parse(Settings *s, SettingId id, const char *value, char **ret_error,
                   unsigned *ret_column)
{
        const SettingField *f = setting_field(id);
        _cleanup_free_ char *v = NULL;
        Settings t;
        size_t start, len;
        unsigned column = 0;
        int r;

        if (!s || !value || !f)
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
        r = f->parse(f, v, field_of(&t, f), ret_error, &column);
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
                          "TimerSlack, IOClass, IONice, OOMScoreAdj, CoreSched, CPUWeight, CPUIdle, "
                          "CPULatencyNice, GroupScope), found "
                          "\"%s\"",
                          key);
                return -EINVAL;
        }
        return settings_parse(s, id, eq + 1, ret_error, NULL);
}

void settings_merge(Settings *dst, const Settings *src)
{
        for (SettingId id = 0; id < _SETTING_MAX; id++) {
                const SettingField *f = &setting_fields[id];

                if (settings_has(src, id))
                        memcpy(field_of(dst, f), field_of_const(src, f), f->size);
        }
        dst->mask |= src->mask;
}

bool settings_equal_at(const Settings *x, const Settings *y, SettingId id)
{
        const SettingField *f = setting_field(id);

        if (!f)
                return false;
        if (settings_has(x, id) != settings_has(y, id))
                return false;
        return !settings_has(x, id) ||
               memcmp(field_of_const(x, f), field_of_const(y, f), f->size) == 0;
}

bool settings_equal(const Settings *x, const Settings *y)
{
        if (x->mask != y->mask)
                return false;
        for (SettingId id = 0; id < _SETTING_MAX; id++)
                if (!settings_equal_at(x, y, id))
                        return false;
        return true;
}

int setting_format(const Settings *s, SettingId id, char **ret)
{
        const SettingField *f = setting_field(id);

        if (!s || !ret || !f)
                return -EINVAL;
        if (!settings_has(s, id))
                return -ENODATA;
        return f->format(f, field_of_const(s, f), ret);
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
        const SettingField *f = setting_field(id);

        return f ? f->bus_type : 0;
}

int setting_to_bus_value(const Settings *s, SettingId id, SettingBusValue *ret)
{
        const SettingField *f = setting_field(id);
        SettingBusValue v = {};
        const void *field;

        if (!s || !ret || !f)
                return -EINVAL;
        if (!settings_has(s, id))
                return -ENODATA;

        field = field_of_const(s, f);
        v.type = f->bus_type;
        switch (f->bus_type) {
        case 'i':
                v.i = *(const int32_t *)field;
                break;
        case 'u':
                v.u = *(const uint32_t *)field;
                break;
        case 't':
                v.t = *(const uint64_t *)field;
                break;
        case 'b':
                v.b = *(const bool *)field;
                break;
        case 's': /* a named value: Policy, IOClass */
                v.s = f->name_of(*(const int32_t *)field) ?: "n/a";
                break;
        default:
                return -EINVAL;
        }
        *ret = v;
        return 0;
}
