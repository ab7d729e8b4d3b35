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
#include "lib/setting-field.h"
#include "lib/task-attr.h"

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
        if (streq(s, "rr"))
                return SCHED_RR;
        if (streq(s, "fifo"))
                return SCHED_FIFO;
        return -EINVAL;
}

bool sched_policy_is_rt(int policy)
{
        return policy == SCHED_RR || policy == SCHED_FIFO;
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
void setting_error(char **ret_error, const char *fmt, ...)
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
        setting_error(ret_error, "expected an integer in %" PRIi64 "..%" PRIi64 ", found \"%s\"",
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
                setting_error(ret_error, "expected a duration in %s with a unit (ns, us, ms), found \"%s\"",
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
                        setting_error(ret_error,
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
                setting_error(ret_error, "expected a unit (ns, us, ms) after \"%s\", found end of value",
                          v);
        else
                setting_error(ret_error, "expected a unit (ns, us, ms), found \"%s\"", v + n);
        if (ret_column)
                *ret_column = (unsigned)n;
        return -EINVAL;
range:
        setting_error(ret_error, "expected a duration in %s, found \"%s\"", range_text, v);
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
        setting_error(ret_error, "expected an integer in 0..1024 or a percentage in 0..100%%, found \"%s\"",
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

/* ---- The field helpers (lib/setting-field.h) ---------------------------- */

int setting_parse_int_field(const SettingField *f, const char *v, void *field, char **ret_error,
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

int setting_parse_duration_field(const SettingField *f, const char *v, void *field,
                                char **ret_error, unsigned *ret_column)
{
        return parse_duration(v, (uint64_t)f->min, (uint64_t)f->max, f->range_text, field,
                              ret_error, ret_column);
}

int setting_parse_policy_field(const SettingField *f, const char *v, void *field, char **ret_error,
                              unsigned *ret_column)
{
        int r = sched_policy_from_string(v);

        if (r < 0) {
                setting_error(ret_error, "expected other, batch, idle, rr or fifo, found \"%s\"", v);
                return -EINVAL;
        }
        *(int32_t *)field = r;
        return 0;
}

int setting_parse_io_class_field(const SettingField *f, const char *v, void *field,
                                char **ret_error, unsigned *ret_column)
{
        int r = ioprio_class_from_string(v);

        if (r < 0) {
                setting_error(ret_error, "expected realtime, best-effort or idle, found \"%s\"", v);
                return -EINVAL;
        }
        *(int32_t *)field = r;
        return 0;
}

/* CoreSched=: the mode; a rule's group is the policy loader's to set. */
int setting_parse_core_sched_field(const SettingField *f, const char *v, void *field,
                                  char **ret_error, unsigned *ret_column)
{
        int r = core_sched_mode_from_string(v);

        if (r < 0) {
                setting_error(ret_error, "expected process, rule, pod or none, found \"%s\"", v);
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

static int setting_parse_group_scope_field(const SettingField *f, const char *v, void *field,
                                   char **ret_error, unsigned *ret_column)
{
        int r = group_scope_from_string(v);

        if (r < 0) {
                setting_error(ret_error, "expected shared or own, found \"%s\"", v);
                return -EINVAL;
        }
        *(int32_t *)field = r;
        return 0;
}

int setting_parse_util_field(const SettingField *f, const char *v, void *field, char **ret_error,
                            unsigned *ret_column)
{
        return parse_util(v, field, ret_error);
}

static int setting_parse_bool_field(const SettingField *f, const char *v, void *field, char **ret_error,
                            unsigned *ret_column)
{
        int r = parse_boolean(v);

        if (r < 0) {
                setting_error(ret_error, "expected yes or no, found \"%s\"", v);
                return -EINVAL;
        }
        *(bool *)field = r;
        return 0;
}

int setting_format_int_field(const SettingField *f, const void *field, char **ret)
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

int setting_format_duration_field(const SettingField *f, const void *field, char **ret)
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

int setting_format_policy_field(const SettingField *f, const void *field, char **ret)
{
        int32_t policy = *(const int32_t *)field;
        const char *str = sched_policy_to_string(policy);

        if (!str)
                return setting_format_int_field(f, field, ret); /* not one we set: the number */
        return format_string(str, ret);
}

int setting_format_io_class_field(const SettingField *f, const void *field, char **ret)
{
        const char *str = ioprio_class_to_string(*(const int32_t *)field);

        if (!str)
                return setting_format_int_field(f, field, ret);
        return format_string(str, ret);
}

int setting_format_core_sched_field(const SettingField *f, const void *field, char **ret)
{
        const char *str = core_sched_mode_to_string(((const CoreSchedSetting *)field)->mode);

        if (!str)
                return setting_format_int_field(f, field, ret); /* mode is the first member */
        return format_string(str, ret);
}

static int setting_format_group_scope_field(const SettingField *f, const void *field, char **ret)
{
        const char *str = group_scope_to_string(*(const int32_t *)field);

        if (!str)
                return setting_format_int_field(f, field, ret);
        return format_string(str, ret);
}

int setting_format_util_field(const SettingField *f, const void *field, char **ret)
{
        return format_util(*(const uint32_t *)field, ret);
}

static int setting_format_bool_field(const SettingField *f, const void *field, char **ret)
{
        return format_string(*(const bool *)field ? "yes" : "no", ret);
}

#define FIELD(member) SETTING_FIELD_AT(member)

/* The group settings; the task attributes' fields are in their descriptors
 * (lib/task-attr.c). */
static const SettingField group_fields[_SETTING_MAX] = {
        [SETTING_CPU_WEIGHT] = { "CPUWeight", 'u', FIELD(cpu_weight), setting_parse_int_field,
                                 setting_format_int_field, 1, 10000, NULL },
        [SETTING_CPU_IDLE] = { "CPUIdle", 'b', FIELD(cpu_idle), setting_parse_bool_field,
                               setting_format_bool_field, 0, 1, NULL },
        [SETTING_CPU_LATENCY_NICE] = { "CPULatencyNice", 'i', FIELD(cpu_latency_nice),
                                       setting_parse_int_field, setting_format_int_field, -20, 19,
                                       NULL },
        [SETTING_GROUP_SCOPE] = { "GroupScope", 's', FIELD(group_scope),
                                  setting_parse_group_scope_field,
                                  setting_format_group_scope_field, 0, 0, NULL,
                                  group_scope_to_string },
};

static const SettingField *setting_field(SettingId id)
{
        const TaskAttr *a = task_attr(id);

        if (a)
                return &a->field;
        if (id < 0 || id >= _SETTING_MAX || !group_fields[id].name)
                return NULL;
        return &group_fields[id];
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
        for (SettingId i = 0; i < _SETTING_MAX; i++) {
                const char *name = setting_to_string(i);

                if (name && strlen(name) == n && strncmp(key, name, n) == 0)
                        return i;
        }
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
                setting_error(ret_error, "expected KEY=VALUE, found \"%s\"", assignment);
                return -EINVAL;
        }
        key = strndup(assignment, (size_t)(eq - assignment));
        if (!key)
                return -ENOMEM;
        id = setting_from_string(key);
        if (id < 0) {
                _cleanup_free_ char *names = settings_names(UINT32_MAX);

                setting_error(ret_error, "expected a setting (%s), found \"%s\"", strna(names),
                              key);
                return -EINVAL;
        }
        return settings_parse(s, id, eq + 1, ret_error, NULL);
}

void settings_merge(Settings *dst, const Settings *src)
{
        for (SettingId id = 0; id < _SETTING_MAX; id++) {
                const SettingField *f = setting_field(id);

                if (f && settings_has(src, id))
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
        int r;

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
        case 's': /* a named value (Policy, IOClass) or a text (CPUAffinity) */
                if (f->name_of) {
                        v.s = f->name_of(*(const int32_t *)field) ?: "n/a";
                        break;
                }
                r = f->format(f, field, &v.owned);
                if (r < 0)
                        return r;
                v.s = v.owned;
                break;
        default:
                return -EINVAL;
        }
        *ret = v;
        return 0;
}

void setting_bus_value_done(SettingBusValue *v)
{
        v->owned = mfree(v->owned);
}

char *settings_names(uint32_t mask)
{
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);

        if (!f)
                return NULL;
        for (SettingId id = 0; id < _SETTING_MAX; id++)
                if ((mask & SETTING_BIT(id)) && setting_to_string(id))
                        fprintf(f, "%s%s", ftell(f) > 0 ? ", " : "", setting_to_string(id));
        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        return buf;
}
