/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Logging: to stderr with "<N>" syslog priority prefixes (journald reads
 * them), or plain "prog: message" lines for interactive tools, or to the
 * journal with structured fields.
 *
 * Library code does not log except at debug level; callers add context once:
 *         return log_error_errno(r, "Failed to read %s: %m", path);
 * log_*_errno() sets errno from r so %m prints it, and returns -abs(r).
 */
#pragma once

#include <stdbool.h>
#include <syslog.h>

#include "lib/macro.h"

typedef enum LogTarget {
        LOG_TARGET_CONSOLE,  /* "prog: message" on stderr, for CLI tools */
        LOG_TARGET_KMSG_PREFIX, /* "<N>message" on stderr, for daemons under systemd */
        LOG_TARGET_JOURNAL,  /* sd_journal_send() with structured fields */
} LogTarget;

void log_set_target(LogTarget t);
LogTarget log_get_target(void);
void log_set_max_level(int level);
int log_get_max_level(void);
void log_set_program_name(const char *name);
/* "debug", "info", "notice", "warning", "err"/"error", "crit", "alert", "emerg", or 0..7 */
int log_level_from_string(const char *s);
const char *log_level_to_string(int level);

/* Returns -abs(error) (or 0 if error is 0). %m prints strerror(abs(error)). */
int log_internal(int level, int error, const char *file, int line, const char *func,
                 const char *fmt, ...) _printf_(6, 7);
/* With extra journal fields: NULL-terminated list of "KEY=value" strings. */
int log_struct_internal(int level, int error, const char *const *fields, const char *fmt, ...)
        _printf_(4, 5);

#define log_full_errno(level, error, ...)                                                   \
        ({                                                                                  \
                int _l = (level), _e = (error);                                             \
                _l <= log_get_max_level()                                                   \
                        ? log_internal(_l, _e, __FILE__, __LINE__, __func__, __VA_ARGS__)   \
                        : -(_e < 0 ? -_e : _e);                                             \
        })
#define log_full(level, ...) (void)log_full_errno(level, 0, __VA_ARGS__)

#define log_debug(...) log_full(LOG_DEBUG, __VA_ARGS__)
#define log_info(...) log_full(LOG_INFO, __VA_ARGS__)
#define log_notice(...) log_full(LOG_NOTICE, __VA_ARGS__)
#define log_warning(...) log_full(LOG_WARNING, __VA_ARGS__)
#define log_error(...) log_full(LOG_ERR, __VA_ARGS__)

#define log_debug_errno(e, ...) log_full_errno(LOG_DEBUG, e, __VA_ARGS__)
#define log_info_errno(e, ...) log_full_errno(LOG_INFO, e, __VA_ARGS__)
#define log_notice_errno(e, ...) log_full_errno(LOG_NOTICE, e, __VA_ARGS__)
#define log_warning_errno(e, ...) log_full_errno(LOG_WARNING, e, __VA_ARGS__)
#define log_error_errno(e, ...) log_full_errno(LOG_ERR, e, __VA_ARGS__)

#define log_oom() log_error_errno(ENOMEM, "Out of memory.")
