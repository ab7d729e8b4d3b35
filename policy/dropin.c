/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/atomic-file.h"
#include "lib/macro.h"
#include "policy/dropin.h"
#include "policy/parser.h"
#include "policy/policy.h"

char *unit_dropin_name(const char *unit)
{
        size_t n = strlen(unit);
        char *s = malloc(strlen("90-unit-") + 3 * n + strlen(".policy") + 1), *p;

        if (!s)
                return NULL;
        p = stpcpy(s, "90-unit-");
        for (const char *u = unit; *u; u++) {
                if (*u == '\\')
                        p = stpcpy(p, "%5c");
                else
                        *p++ = *u;
        }
        strcpy(p, ".policy");
        return s;
}

char *unit_glob_escape(const char *unit)
{
        char *g = malloc(2 * strlen(unit) + 1), *p = g;

        if (!g)
                return NULL;
        for (const char *u = unit; *u; u++) {
                if (strchr("\\*?[]", *u))
                        *p++ = '\\';
                *p++ = *u;
        }
        *p = '\0';
        return g;
}

/* Why UNIT cannot be a section name, or NULL. The parser has the last
 * word (unit_dropin_format() reads its text back); this names the reason. */
static const char *section_name_problem(const char *unit)
{
        if (!unit || !*unit)
                return "the unit name is empty";
        for (const unsigned char *u = (const unsigned char *) unit; *u; u++) {
                if (*u == ' ' || *u == '\t')
                        return "a section name cannot hold blanks";
                if (*u < 0x20 || *u == 0x7f)
                        return "a section name cannot hold control characters";
        }
        /* "[Unit " GLOB "]", the glob at most twice as long as the name */
        if (strlen(unit) > (POLICY_LINE_MAX - strlen("[Unit ]")) / 2)
                return "the unit name is too long for a policy line";
        return NULL;
}

static int append_settings(FILE *f, const Settings *s)
{
        for (SettingId id = 0; id < _SETTING_MAX; id++) {
                _cleanup_free_ char *v = NULL;
                int r;

                if (!settings_has(s, id))
                        continue;
                r = setting_format(s, id, &v);
                if (r < 0)
                        return r;
                fprintf(f, "%s = %s\n", setting_to_string(id), v);
        }
        return 0;
}

/* TEXT loads cleanly as one [Unit] section with settings S whose glob matches UNIT. */
static int read_back(const char *unit, const Settings *s, const char *text)
{
        _cleanup_(policy_freep) Policy *p = NULL;
        _cleanup_free_ char *got = NULL, *want = NULL;
        Diagnostics diags = {};
        const UnitSection *u;
        bool ok;
        int r;

        r = policy_load_string("drop-in", text, strlen(text), &p, &diags);
        if (r < 0) {
                diagnostics_done(&diags);
                return r;
        }
        ok = diagnostics_count(&diags, DIAG_ERROR) == 0 &&
             diagnostics_count(&diags, DIAG_WARNING) == 0 && policy_n_units(p) == 1;
        diagnostics_done(&diags);
        if (!ok)
                return -EINVAL;
        u = policy_unit(p, 0);
        if (fnmatch(u->glob, unit, 0) != 0)
                return -EINVAL;
        got = settings_to_string(&u->settings);
        want = settings_to_string(s);
        if (!got || !want)
                return -ENOMEM;
        return streq(got, want) ? 0 : -EINVAL;
}

int unit_dropin_format(const char *unit, const Settings *s, uid_t by, bool runtime, char **ret,
                       const char **ret_why)
{
        _cleanup_free_ char *glob = NULL, *text = NULL;
        _cleanup_fclose_ FILE *f = NULL;
        size_t size = 0;
        const char *why;
        int r;

        why = section_name_problem(unit);
        if (why) {
                *ret_why = why;
                return -EINVAL;
        }
        glob = unit_glob_escape(unit);
        f = open_memstream(&text, &size);
        if (!glob || !f)
                return -ENOMEM;
        fprintf(f,
                "# Written by latniced for uid %u (SetUnit, latnicectl set-unit).\n"
                "# Remove with: latnicectl unset-unit%s %s\n"
                "[Unit %s]\n",
                (unsigned) by, runtime ? " --runtime" : "", unit, glob);
        r = append_settings(f, s);
        if (r < 0)
                return r;
        if (fflush(f) != 0 || ferror(f))
                return -ENOMEM;
        fclose(TAKE_PTR(f)); /* TEXT is complete once F is closed */

        r = read_back(unit, s, text);
        if (r == -EINVAL)
                *ret_why = "the policy parser does not read it back as that unit (invalid UTF-8?)";
        if (r < 0)
                return r;
        *ret = TAKE_PTR(text);
        return 0;
}

/* Create PATH and its missing parents with MODE (latniced runs with
 * UMask=0077: chmod keeps the policy directories readable). */
static int mkdir_parents(const char *path, mode_t mode)
{
        _cleanup_free_ char *copy = strdup(path);

        if (!copy)
                return -ENOMEM;
        for (char *p = copy + 1;; p++) {
                if (*p != '/' && *p != '\0')
                        continue;
                char saved = *p;
                *p = '\0';
                if (mkdir(copy, mode) >= 0) {
                        if (chmod(copy, mode) < 0)
                                return -errno;
                } else if (errno != EEXIST)
                        return -errno;
                *p = saved;
                if (saved == '\0')
                        return 0;
        }
}

static int fill_text(FILE *f, void *userdata)
{
        return fputs(userdata, f) < 0 ? -EIO : 0;
}

int unit_dropin_write(const char *dir, const char *path, const char *text, const char **ret_what)
{
        int r;

        r = mkdir_parents(dir, 0755);
        if (r < 0)
                return r;
        return atomic_file_write(path, "unit", 0644, fill_text, (void *) text, ret_what);
}
