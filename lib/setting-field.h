/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Setting fields: how one setting is named, parsed, formatted and carried on
 * D-Bus. The task attributes' fields are part of their descriptors
 * (lib/task-attr.c), the group settings' are in lib/settings.c; every
 * per-setting operation of lib/settings.h goes through one of them.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "lib/macro.h"
#include "lib/settings.h"

typedef struct SettingField SettingField;

/* Parse V (blanks stripped) into FIELD, the member of Settings F describes.
 * On error: -EINVAL, FIELD untouched, *RET_ERROR as settings_parse() says,
 * *RET_COLUMN (never NULL) the offset in V if not 0. */
typedef int (*setting_parse_t)(const SettingField *f, const char *v, void *field, char **ret_error,
                               unsigned *ret_column);
/* FIELD in policy syntax. */
typedef int (*setting_format_t)(const SettingField *f, const void *field, char **ret);

struct SettingField {
        const char *name;
        /* 'i' int32_t, 'u' uint32_t, 't' uint64_t, 'b' bool, 's' a named
         * value (int32_t, NAME_OF) or, without NAME_OF, the text FORMAT gives */
        char bus_type;
        size_t offset, size;
        setting_parse_t parse;
        setting_format_t format;
        int64_t min, max;       /* integers and durations */
        const char *range_text; /* durations: the range as the error names it */
        const char *(*name_of)(int value); /* bus type 's': the value's name */
};

#define SETTING_FIELD_AT(member)                                                               \
        .offset = offsetof(Settings, member), .size = sizeof(((Settings *)NULL)->member)

/* Set *RET_ERROR (if not NULL) to a printf-formatted message; NULL on ENOMEM. */
_printf_(2, 3) void setting_error(char **ret_error, const char *fmt, ...);

/* The shared parsers and formatters of the fields. */
int setting_parse_int_field(const SettingField *f, const char *v, void *field, char **ret_error,
                            unsigned *ret_column);
int setting_parse_duration_field(const SettingField *f, const char *v, void *field,
                                 char **ret_error, unsigned *ret_column);
int setting_parse_policy_field(const SettingField *f, const char *v, void *field, char **ret_error,
                               unsigned *ret_column);
int setting_parse_io_class_field(const SettingField *f, const char *v, void *field,
                                 char **ret_error, unsigned *ret_column);
int setting_parse_core_sched_field(const SettingField *f, const char *v, void *field,
                                   char **ret_error, unsigned *ret_column);
int setting_parse_util_field(const SettingField *f, const char *v, void *field, char **ret_error,
                             unsigned *ret_column);
int setting_format_int_field(const SettingField *f, const void *field, char **ret);
int setting_format_duration_field(const SettingField *f, const void *field, char **ret);
int setting_format_policy_field(const SettingField *f, const void *field, char **ret);
int setting_format_io_class_field(const SettingField *f, const void *field, char **ret);
int setting_format_core_sched_field(const SettingField *f, const void *field, char **ret);
int setting_format_util_field(const SettingField *f, const void *field, char **ret);
