/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * D-Bus argument checks of latniced that need no message: escaping caller
 * text for error messages, and the conversion of one entry of a settings
 * a{sv} (SetTask, SetUnit). Unit names are checked by lib/unit-name.h, the
 * drop-in SetUnit writes is made by policy/dropin.h.
 *
 * No sd-bus types here: daemon/bus/bus.c reads the message and hands the parts
 * to these functions, so they can be unit-tested and fuzzed alone.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/settings.h"

/* Bounds on what a caller may send. */
#define BUS_STRING_MAX 4096u
#define BUS_SETTINGS_MAX 16u

/* A non-NULL string of at most BUS_STRING_MAX bytes. */
bool bus_string_ok(const char *s);

/*
 * The first MAX bytes of S for an error message: printable ASCII as is, '\'
 * and '"' escaped, \n \r \t as such, every other byte (control characters,
 * bytes of multi-byte characters) as \xNN, so the result is ASCII and a
 * caller cannot put line breaks or terminal escapes into logs and
 * messages. NULL on OOM.
 */
char *escape_for_message(const char *s, size_t max);

/*
 * Add one entry KEY => VALUE of a settings a{sv} to S. SIGNATURE is the
 * signature of the entry's variant; VALUE its content, read only when
 * SIGNATURE is "s" or setting_bus_type() of KEY's setting (may be NULL
 * otherwise). Checks, in this order: KEY is at most BUS_STRING_MAX bytes, a
 * setting of ALLOWED, not already in S; the variant holds the setting's
 * type or "s" (policy syntax, at most BUS_STRING_MAX bytes); the value is
 * in the setting's range (settings_parse(), as in policy files; numbers go
 * through it as text, durations in ns).
 *
 * Returns 0, or -EINVAL with S unchanged and *RET_ERROR (if not NULL) a
 * message for the caller ("Slice: expected a duration in ..."): caller text
 * in it is escaped, the whole is valid UTF-8 when KEY and a string VALUE
 * are. -ENOMEM on OOM.
 */
int bus_settings_add(Settings *s, uint32_t allowed, const char *key, const char *signature,
                     const SettingBusValue *value, char **ret_error);
