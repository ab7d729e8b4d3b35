/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * latnicectl check [FILE...] and latnicectl cat-policy: the policy files on
 * disk, validated or shown as merged.
 */
#include <getopt.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/json.h"
#include "lib/macro.h"
#include "policy/policy.h"

static const char *level_name(DiagLevel l)
{
        return l == DIAG_ERROR ? "error" : "warning";
}

/* file:line:column: level: message, like a compiler; on stderr, as every
 * diagnostic of latnicectl (reload's too): stdout has the result alone. */
static void print_diagnostic(const Diagnostic *d, const CliOptions *o)
{
        fputs(cli_color_stderr(o, "bold"), stderr);
        fputs(d->file ? d->file : "-", stderr);
        if (d->line > 0) {
                fprintf(stderr, ":%u", d->line);
                if (d->column > 0)
                        fprintf(stderr, ":%u", d->column);
        }
        fprintf(stderr, ":%s %s%s:%s %s\n", cli_color_stderr(o, "reset"),
                cli_color_stderr(o, d->level == DIAG_ERROR ? "red" : "yellow"),
                level_name(d->level), cli_color_stderr(o, "reset"), d->message);
}

/* "A, B or C" of the policy directories in effect; NULL on out of memory. */
static char *dirs_joined(char *const *dirs)
{
        char *s = strdup("");

        for (size_t i = 0; s && dirs[i]; i++) {
                char *n;

                if (asprintf(&n, "%s%s%s", s, i == 0 ? "" : dirs[i + 1] ? ", " : " or ",
                             dirs[i]) < 0)
                        n = NULL;
                free(s);
                s = n;
        }
        return s;
}

/* A policy read from the directories must come from somewhere: a directory
 * given with --policy-dir must exist, and together they must hold a policy
 * file. A mistyped directory or a policy not installed would otherwise
 * check as "0 errors". 0, or the exit status after saying what is wrong. */
int cli_policy_found(const CliOptions *o, const Policy *p)
{
        _cleanup_free_ char *all = NULL;
        char *const *dirs = cli_policy_dirs(o);

        for (size_t i = 0; o->policy_dirs && dirs[i]; i++) {
                struct stat st;

                if (stat(dirs[i], &st) < 0 && errno == ENOENT)
                        return cli_error("--policy-dir %s: no such directory", dirs[i]);
        }
        if (policy_n_files(p) > 0)
                return 0;
        all = dirs_joined(dirs);
        if (!all)
                return cli_error("out of memory");
        return cli_error("no policy files (*.policy) in %s; %s", all,
                         o->policy_dirs ? "check the --policy-dir directories"
                                        : "is the default policy installed? (--policy-dir DIR "
                                          "reads another directory)");
}

/* The files a check covers: the arguments, or every file of the policy in effect. */
static int write_json_files(JsonWriter *w, const Policy *p, char **files)
{
        json_key(w, "files");
        json_begin_array(w);
        if (files)
                for (char **f = files; *f; f++)
                        json_string(w, *f);
        else
                for (size_t i = 0; i < policy_n_files(p); i++)
                        json_string(w, policy_file(p, i)->path);
        json_end_array(w);
        return 0;
}

int verb_check(int argc, char **argv, const CliOptions *o)
{
        _cleanup_(policy_freep) Policy *p = NULL;
        _cleanup_free_ char **args = NULL;
        char **files = NULL;
        Diagnostics diags = {};
        size_t n_files = 0, errors, warnings;
        int r;

        r = cli_positional_args(argc, argv, "check", &args, &n_files);
        if (r != 0)
                return r;
        if (n_files > 0)
                files = args;

        if (files)
                r = policy_load_files(files, &p, &diags);
        else
                r = policy_load(cli_policy_dirs(o), NULL, &p, &diags);
        if (r < 0) {
                diagnostics_done(&diags);
                errno = -r;
                return cli_error("failed to load the policy: %m");
        }
        for (size_t i = 0; i < diags.n; i++)
                if (!o->json)
                        print_diagnostic(&diags.items[i], o);
        if (!files) {
                r = cli_policy_found(o, p);
                if (r != 0) {
                        diagnostics_done(&diags);
                        return r;
                }
        }

        errors = diagnostics_count(&diags, DIAG_ERROR);
        warnings = diagnostics_count(&diags, DIAG_WARNING);

        if (o->json) {
                JsonWriter w;

                json_writer_init(&w, stdout);
                json_begin_object(&w);
                write_json_files(&w, p, files);
                json_key(&w, "diagnostics");
                json_begin_array(&w);
                for (size_t i = 0; i < diags.n; i++) {
                        const Diagnostic *d = &diags.items[i];
                        json_begin_object(&w);
                        json_kv_string(&w, "file", d->file);
                        json_kv_uint(&w, "line", d->line);
                        json_kv_uint(&w, "column", d->column);
                        json_kv_string(&w, "level", level_name(d->level));
                        json_kv_string(&w, "message", d->message);
                        json_end_object(&w);
                }
                json_end_array(&w);
                json_kv_uint(&w, "rules", policy_n_rules(p));
                json_kv_uint(&w, "profiles", policy_n_profiles(p));
                json_kv_uint(&w, "units", policy_n_units(p));
                json_kv_uint(&w, "errors", errors);
                json_kv_uint(&w, "warnings", warnings);
                json_end_object(&w);
                r = json_writer_finish(&w);
        } else {
                size_t n = files ? n_files : policy_n_files(p);

                if (!o->quiet)
                        printf("%zu file%s, %zu rule%s, %zu profile%s, %zu unit section%s: "
                               "%s%zu error%s%s, %s%zu warning%s%s\n",
                               n, n == 1 ? "" : "s", policy_n_rules(p), policy_n_rules(p) == 1 ? "" : "s",
                               policy_n_profiles(p), policy_n_profiles(p) == 1 ? "" : "s",
                               policy_n_units(p), policy_n_units(p) == 1 ? "" : "s",
                               errors > 0 ? cli_color(o, "red") : "", errors, errors == 1 ? "" : "s",
                               errors > 0 ? cli_color(o, "reset") : "",
                               warnings > 0 ? cli_color(o, "yellow") : "", warnings,
                               warnings == 1 ? "" : "s", warnings > 0 ? cli_color(o, "reset") : "");
                r = fflush(stdout) == 0 && !ferror(stdout) ? 0 : -EIO;
        }
        diagnostics_done(&diags);
        if (r < 0)
                return cli_error("failed to write the result");
        return errors > 0 ? CLI_EXIT_FAILURE : CLI_EXIT_SUCCESS;
}

int verb_cat_policy(int argc, char **argv, const CliOptions *o)
{
        _cleanup_(policy_freep) Policy *p = NULL;
        _cleanup_free_ char **args = NULL;
        Diagnostics diags = {};
        size_t n_args;
        int r;

        r = cli_positional_args(argc, argv, "cat-policy", &args, &n_args);
        if (r != 0)
                return r;
        if (n_args > 0)
                return cli_usage_error("cat-policy takes no arguments, found '%s'", args[0]);

        r = policy_load(cli_policy_dirs(o), NULL, &p, &diags);
        if (r < 0) {
                diagnostics_done(&diags);
                errno = -r;
                return cli_error("failed to load the policy: %m");
        }
        r = cli_policy_found(o, p);
        if (r != 0) {
                diagnostics_done(&diags);
                return r;
        }

        if (o->json) {
                JsonWriter w;

                json_writer_init(&w, stdout);
                json_begin_object(&w);
                json_key(&w, "directories");
                json_begin_array(&w);
                for (char *const *d = cli_policy_dirs(o); *d; d++)
                        json_string(&w, *d);
                json_end_array(&w);
                json_key(&w, "files");
                json_begin_array(&w);
                for (size_t i = 0; i < policy_n_files(p); i++) {
                        const PolicyFileInfo *f = policy_file(p, i);

                        json_begin_object(&w);
                        json_kv_string(&w, "name", f->name);
                        json_kv_string(&w, "path", f->path);
                        json_key(&w, "overrides");
                        json_begin_array(&w);
                        for (char *const *x = f->overrides; x && *x; x++)
                                json_string(&w, *x);
                        json_end_array(&w);
                        json_kv_bool(&w, "masked", f->masked);
                        json_kv_bool(&w, "rejected", f->rejected);
                        json_kv_string(&w, "text", f->text);
                        json_end_object(&w);
                }
                json_end_array(&w);
                json_kv_uint(&w, "errors", diagnostics_count(&diags, DIAG_ERROR));
                json_end_object(&w);
                r = json_writer_finish(&w);
        } else {
                for (size_t i = 0; i < policy_n_files(p); i++) {
                        const PolicyFileInfo *f = policy_file(p, i);
                        size_t len;

                        if (i > 0)
                                fputc('\n', stdout);
                        if (f->masked) {
                                /* the files it hides, each "masked by" the /dev/null link */
                                if (!f->overrides || !f->overrides[0])
                                        printf("%s# %s%s\n", cli_color(o, "bold"), f->path,
                                               cli_color(o, "reset"));
                                for (char *const *x = f->overrides; x && *x; x++)
                                        printf("%s# %s%s\n", cli_color(o, "bold"), *x,
                                               cli_color(o, "reset"));
                                printf("%s# masked by %s%s\n", cli_color(o, "yellow"), f->path,
                                       cli_color(o, "reset"));
                                continue;
                        }
                        printf("%s# %s%s\n", cli_color(o, "bold"), f->path, cli_color(o, "reset"));
                        for (char *const *x = f->overrides; x && *x; x++)
                                printf("%s# overrides %s%s\n", cli_color(o, "grey"), *x,
                                       cli_color(o, "reset"));
                        if (f->rejected && !f->from_previous) {
                                printf("%s# rejected: this file has errors (latnicectl check "
                                       "%s)%s\n",
                                       cli_color(o, "red"), f->path, cli_color(o, "reset"));
                                continue;
                        }
                        if (!f->text)
                                continue;
                        len = strlen(f->text);
                        fwrite(f->text, 1, len, stdout);
                        if (len > 0 && f->text[len - 1] != '\n')
                                fputc('\n', stdout);
                }
                r = fflush(stdout) == 0 && !ferror(stdout) ? 0 : -EIO;
                if (diagnostics_count(&diags, DIAG_ERROR) > 0)
                        fprintf(stderr,
                                "latnicectl: some policy files have errors and are not in "
                                "effect; see 'latnicectl check'\n");
        }
        diagnostics_done(&diags);
        if (r < 0)
                return cli_error("failed to write the policy");
        return CLI_EXIT_SUCCESS;
}
