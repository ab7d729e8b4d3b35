/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/bus/bus-util.h"
#include "lib/macro.h"

bool bus_string_ok(const char *s)
{
        return s && strnlen(s, BUS_STRING_MAX + 1) <= BUS_STRING_MAX;
}

char *escape_for_message(const char *s, size_t max)
{
        size_t n = strnlen(s, max);
        char *e = malloc(4 * n + 1), *p = e;

        if (!e)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char) s[i];

                switch (c) {
                case '\\':
                case '"':
                        *p++ = '\\';
                        *p++ = (char) c;
                        break;
                case '\n':
                        p = stpcpy(p, "\\n");
                        break;
                case '\r':
                        p = stpcpy(p, "\\r");
                        break;
                case '\t':
                        p = stpcpy(p, "\\t");
                        break;
                default:
                        if (c >= 0x20 && c < 0x7f)
                                *p++ = (char) c;
                        else
                                p += sprintf(p, "\\x%02x", c);
                }
        }
        *p = '\0';
        return e;
}

/* -EINVAL with a message in *ret_error (if not NULL); -ENOMEM if it cannot be made. */
_printf_(2, 3) static int fail(char **ret_error, const char *fmt, ...)
{
        va_list ap;
        int r;

        if (!ret_error)
                return -EINVAL;
        va_start(ap, fmt);
        r = vasprintf(ret_error, fmt, ap);
        va_end(ap);
        if (r < 0) {
                *ret_error = NULL;
                return -ENOMEM;
        }
        return -EINVAL;
}

/* VALUE of D-Bus type TYPE as policy-syntax text for settings_parse(). */
static int bus_value_to_text(char type, const SettingBusValue *v, char **ret)
{
        char *text = NULL;
        int r;

        switch (type) {
        case 's':
                text = strdup(v->s);
                r = text ? 0 : -1;
                break;
        case 'i':
                r = asprintf(&text, "%" PRIi32, v->i);
                break;
        case 'u':
                r = asprintf(&text, "%" PRIu32, v->u);
                break;
        case 't':
                r = asprintf(&text, "%" PRIu64 "ns", v->t);
                break;
        case 'b':
                text = strdup(v->b ? "yes" : "no");
                r = text ? 0 : -1;
                break;
        default:
                return -EINVAL;
        }
        if (r < 0)
                return -ENOMEM;
        *ret = text;
        return 0;
}

int bus_settings_add(Settings *s, uint32_t allowed, const char *key, const char *signature,
                     const SettingBusValue *value, char **ret_error)
{
        _cleanup_free_ char *text = NULL, *msg = NULL, *shown = NULL;
        SettingId id;
        char want;
        int r;

        if (!s || !key || !signature)
                return -EINVAL;

        if (!bus_string_ok(key))
                return fail(ret_error, "key longer than %u bytes", BUS_STRING_MAX);
        id = setting_from_string(key);
        if (id < 0 || !(allowed & SETTING_BIT(id))) {
                shown = escape_for_message(key, 64);
                if (!shown)
                        return -ENOMEM;
                return fail(ret_error, "unknown or unsupported key \"%s%s\" here", shown,
                            strlen(key) > 64 ? "..." : "");
        }
        /* From here on KEY is the name of a setting: plain ASCII. */
        if (settings_has(s, id))
                return fail(ret_error, "%s given twice", key);

        want = setting_bus_type(id);
        if (strlen(signature) != 1 || (signature[0] != 's' && signature[0] != want)) {
                shown = escape_for_message(signature, 16);
                if (!shown)
                        return -ENOMEM;
                return fail(ret_error,
                            "%s must be of D-Bus type \"%c\" (or \"s\" in policy syntax), got "
                            "\"%s\"",
                            key, want, shown);
        }
        if (!value)
                return -EINVAL;
        if (signature[0] == 's' && !bus_string_ok(value->s))
                return fail(ret_error, "value of %s longer than %u bytes", key, BUS_STRING_MAX);

        r = bus_value_to_text(signature[0], value, &text);
        if (r < 0)
                return r;
        r = settings_parse(s, id, text, &msg, NULL);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return fail(ret_error, "%s: %s", key, msg ? msg : "invalid value");
        return 0;
}
