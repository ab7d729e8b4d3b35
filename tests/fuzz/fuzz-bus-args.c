/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target: the D-Bus argument checks of latniced (daemon/bus/bus-util.h),
 * what SetUnit and SetTask do with a caller's unit name and settings a{sv}
 * once sd-bus has taken the message apart.
 *
 * Input: one flags byte, then NUL-separated fields (D-Bus strings hold no
 * NUL): a unit name, then triples KEY, SIGNATURE, VALUE. A VALUE is used as
 * the string for signature "s" and read as a decimal number for "i", "u",
 * "t" and "b" (any other signature passes no value, as bus.c does).
 * Flags: bit 0 unit settings (SETTINGS_UNIT_MASK) instead of task settings,
 * bit 1 no error message requested.
 *
 * Oracles: a refused entry leaves the Settings unchanged and returns
 * -EINVAL with a message, valid UTF-8 when the caller's strings were (sd-bus
 * cannot send it otherwise), with a refused key shown escaped (ASCII); an
 * accepted entry sets exactly its bit, comes back unchanged through
 * setting_to_bus_value(), and is refused a second time. A valid unit name
 * (lib/unit-name.h) has a drop-in name "90-unit-*.policy" without '/', from
 * which the unit name comes back, and a drop-in text (policy/dropin.h, which
 * reads it back through the parser); any other unit name gets a text or
 * -EINVAL with a reason; escape_for_message() gives printable ASCII.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/bus/bus-util.h"
#include "lib/macro.h"
#include "lib/settings.h"
#include "lib/unit-name.h"
#include "policy/dropin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool utf8_valid(const char *s)
{
        const unsigned char *p = (const unsigned char *) s;

        while (*p) {
                unsigned n, cp;

                if (*p < 0x80) {
                        p++;
                        continue;
                }
                if (*p >= 0xc2 && *p <= 0xdf)
                        n = 1, cp = *p & 0x1f;
                else if (*p >= 0xe0 && *p <= 0xef)
                        n = 2, cp = *p & 0x0f;
                else if (*p >= 0xf0 && *p <= 0xf4)
                        n = 3, cp = *p & 0x07;
                else
                        return false;
                p++;
                for (unsigned i = 0; i < n; i++, p++) {
                        if ((*p & 0xc0) != 0x80)
                                return false;
                        cp = (cp << 6) | (*p & 0x3f);
                }
                if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
                    (cp >= 0xd800 && cp <= 0xdfff))
                        return false;
        }
        return true;
}

static bool printable_ascii(const char *s)
{
        for (; *s; s++)
                if ((unsigned char) *s < 0x20 || (unsigned char) *s >= 0x7f)
                        return false;
        return true;
}

static void check_unit(const char *unit)
{
        _cleanup_free_ char *shown = NULL, *name = NULL, *text = NULL;
        Settings s = { .mask = SETTING_BIT(SETTING_CPU_WEIGHT), .cpu_weight = 100 };
        const char *why = NULL;
        size_t n;
        int r;

        shown = escape_for_message(unit, 64);
        if (!shown)
                return;
        if (!printable_ascii(shown) || strlen(shown) > 4 * 64)
                abort();

        r = unit_dropin_format(unit, &s, 0, false, &text, &why);
        if (r == -EINVAL && !why)
                abort();
        if (!unit_name_is_valid(unit))
                return;
        if (r == -EINVAL)
                abort(); /* a valid unit name always has a drop-in */
        n = strlen(unit);
        if (n == 0 || n > UNIT_NAME_MAX || !printable_ascii(unit))
                abort();
        name = unit_dropin_name(unit);
        if (!name)
                return;
        if (strncmp(name, "90-unit-", 8) != 0 || strchr(name, '/'))
                abort();
        n = strlen(name);
        if (n < 8 + 7 || !streq(name + n - 7, ".policy"))
                abort();
        /* the unit comes back: "%5c" is '\', nothing else changed */
        {
                _cleanup_free_ char *back = malloc(n);
                char *o = back;

                if (!back)
                        return;
                for (const char *p = name + 8; p < name + n - 7; p++) {
                        if (*p == '%') {
                                if (strncmp(p, "%5c", 3) != 0)
                                        abort();
                                *o++ = '\\';
                                p += 2;
                        } else
                                *o++ = *p;
                }
                *o = 0;
                if (!streq(back, unit))
                        abort();
        }
}

static void value_from_text(char type, const char *text, SettingBusValue *ret)
{
        *ret = (SettingBusValue){ .type = type };
        switch (type) {
        case 's':
                ret->s = text;
                break;
        case 'i':
                ret->i = (int32_t) strtoll(text, NULL, 10);
                break;
        case 'u':
                ret->u = (uint32_t) strtoull(text, NULL, 10);
                break;
        case 't':
                ret->t = strtoull(text, NULL, 10);
                break;
        case 'b':
                ret->b = (int) strtol(text, NULL, 10);
                break;
        }
}

static void check_entry(Settings *s, uint32_t allowed, bool want_msg, const char *key,
                        const char *sig, const char *text)
{
        _cleanup_free_ char *msg = NULL, *msg2 = NULL;
        Settings before = *s, again = {};
        SettingBusValue v, back;
        bool typed = strlen(sig) == 1 && strchr("iutsb", sig[0]);
        SettingId id;
        int r;

        if (typed)
                value_from_text(sig[0], text, &v);
        r = bus_settings_add(s, allowed, key, sig, typed ? &v : NULL, want_msg ? &msg : NULL);
        if (r == -ENOMEM)
                return;
        id = setting_from_string(key);

        if (r < 0) {
                if (r != -EINVAL || memcmp(s, &before, sizeof(*s)) != 0)
                        abort();
                if (!want_msg) {
                        if (msg)
                                abort();
                        return;
                }
                if (!msg || strlen(msg) > 2 * BUS_STRING_MAX + 256)
                        abort();
                if (utf8_valid(key) && (!typed || sig[0] != 's' || utf8_valid(text)) &&
                    !utf8_valid(msg))
                        abort();
                if ((id < 0 || !(allowed & SETTING_BIT(id))) && !printable_ascii(msg))
                        abort();
                return;
        }

        if (r != 0 || msg || !typed || id < 0 || !(allowed & SETTING_BIT(id)))
                abort();
        if (settings_has(&before, id) || s->mask != (before.mask | SETTING_BIT(id)))
                abort();
        if (setting_to_bus_value(s, id, &back) < 0 || back.type != setting_bus_type(id))
                abort();
        if (bus_settings_add(&again, allowed, key, (const char[]){ back.type, '\0' }, &back,
                             NULL) != 0)
                abort();
        {
                _cleanup_free_ char *a = NULL, *b = NULL;

                if (setting_format(s, id, &a) >= 0 && setting_format(&again, id, &b) >= 0 &&
                    !streq(a, b))
                        abort();
        }
        before = *s;
        if (bus_settings_add(s, allowed, key, sig, &v, &msg2) != -EINVAL ||
            memcmp(s, &before, sizeof(*s)) != 0)
                abort();
}

/* The next NUL-terminated field of the buffer, or NULL at its end. */
static const char *next_field(const char **p, const char *end)
{
        const char *f = *p;

        if (f >= end)
                return NULL;
        *p = f + strlen(f) + 1;
        return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        _cleanup_free_ char *buf = NULL;
        const char *p, *end, *unit;
        Settings s = {};
        uint32_t allowed;
        bool want_msg;

        if (size < 1 || size > 256 * 1024)
                return 0;
        allowed = data[0] & 1 ? SETTINGS_UNIT_MASK : SETTINGS_TASK_MASK;
        want_msg = !(data[0] & 2);

        /* a copy with a NUL after the last field */
        buf = malloc(size);
        if (!buf)
                return 0;
        memcpy(buf, data + 1, size - 1);
        buf[size - 1] = 0;
        p = buf;
        end = buf + size - 1;

        unit = next_field(&p, end);
        check_unit(unit ? unit : "");

        for (unsigned n = 0; n < 4 * BUS_SETTINGS_MAX; n++) {
                const char *key = next_field(&p, end), *sig = next_field(&p, end),
                           *text = next_field(&p, end);

                if (!key)
                        break;
                check_entry(&s, allowed, want_msg, key, sig ? sig : "", text ? text : "");
        }
        return 0;
}
