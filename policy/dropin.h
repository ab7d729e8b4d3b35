/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit drop-ins: the policy files SetUnit (latnicectl set-unit) writes, one
 * per unit, "[Unit GLOB]" with the unit's settings. Written here, next to
 * the parser that reads them back: the glob is escaped so that it matches
 * exactly the unit it was written for, and a text the parser would not
 * read back as that one [Unit] section is never written.
 */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "lib/settings.h"

/* "90-unit-<UNIT>.policy", every '\' of UNIT written as "%5c" ('%' never
 * occurs in a valid unit name, so distinct units get distinct names). For a
 * name unit_name_is_valid() accepted. NULL on OOM. */
char *unit_dropin_name(const char *unit);

/* UNIT as an fnmatch(3) glob that matches exactly UNIT: '\', '*', '?', '['
 * and ']' escaped with a backslash. NULL on OOM. */
char *unit_glob_escape(const char *unit);

/*
 * The text of the drop-in that gives unit UNIT the settings S (at least
 * one): a comment naming uid BY and the command that removes it (RUNTIME:
 * "unset-unit --runtime"), "[Unit GLOB]" (unit_glob_escape()), and a
 * "Key = value" line per setting. Before it is returned the text is parsed
 * (policy_load_string()): it must load without a diagnostic, as one [Unit]
 * section with those settings whose glob matches UNIT.
 *
 * -EINVAL (and *RET_WHY, a static message) if UNIT cannot be written as a
 * section name: empty, blanks, control characters, invalid UTF-8, longer
 * than a policy line. -ENOMEM.
 */
int unit_dropin_format(const char *unit, const Settings *s, uid_t by, bool runtime, char **ret,
                       const char **ret_why);

/* Write TEXT to PATH (in directory DIR, which is created with mode 0755 if
 * missing) with lib/atomic-file, mode 0644. -EEXIST and *RET_WHAT if PATH
 * is not a regular file (atomic_file_write()). */
int unit_dropin_write(const char *dir, const char *path, const char *text, const char **ret_what);
