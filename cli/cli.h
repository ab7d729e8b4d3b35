/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * latnicectl: shared options and the verbs. cli/latnicectl.c parses the
 * global options and dispatches; each verb is int verb_NAME(int argc, char
 * **argv, const CliOptions *o) where argv[0] is the verb name and the rest
 * are its own arguments (global options already removed). Verbs return an
 * exit status: 0 success, 1 failure, 2 usage error, and print errors as
 * "latnicectl: ..." (log_error with the console target).
 */
#pragma once

#include <stdbool.h>

typedef struct CliOptions {
        bool json;
        bool no_pager;
        bool color;            /* stdout is a tty and NO_COLOR is unset */
        char **policy_dirs;    /* --policy-dir (NULL-terminated) or NULL for the defaults */
        const char *bus;       /* --bus: "system" (default), "session" or an address */
        const char *proc_root; /* "/proc" */
        const char *cgroup_root; /* --cgroup-root or NULL */
} CliOptions;

/* Offline verbs (cli/offline.c, cli/ananicy.c): no daemon needed. */
int verb_check(int argc, char **argv, const CliOptions *o);
int verb_cat_policy(int argc, char **argv, const CliOptions *o);
int verb_explain(int argc, char **argv, const CliOptions *o);
int verb_kernel(int argc, char **argv, const CliOptions *o);
int verb_get(int argc, char **argv, const CliOptions *o);
int verb_run(int argc, char **argv, const CliOptions *o);
int verb_import_ananicy(int argc, char **argv, const CliOptions *o);

/* Daemon verbs (cli/busctl.c), over D-Bus org.latnice.Daemon1. */
int verb_status(int argc, char **argv, const CliOptions *o);
int verb_list(int argc, char **argv, const CliOptions *o);
int verb_set(int argc, char **argv, const CliOptions *o);
int verb_reload(int argc, char **argv, const CliOptions *o);
int verb_monitor(int argc, char **argv, const CliOptions *o);
int verb_set_unit(int argc, char **argv, const CliOptions *o);
int verb_unset_unit(int argc, char **argv, const CliOptions *o);

/* The policy directories in effect: o->policy_dirs or the three defaults. */
char *const *cli_policy_dirs(const CliOptions *o);
