/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * latnicectl import-ananicy [DIR] [-o FILE]
 */
#include "cli/ananicy.h"
#include "cli/cli.h"
#include "cli/json.h"
#include "lib/atomic-file.h"
#include "lib/macro.h"

#define ANANICY_DEFAULT_DIR "/etc/ananicy.d"

static void print_stats_json(const AnanicyStats *s, const char *dir, const char *output)
{
        JsonWriter w;

        json_writer_init(&w, stdout);
        json_begin_object(&w);
        json_kv_string(&w, "directory", dir);
        json_kv_string(&w, "output", output);
        json_kv_uint(&w, "files", s->files);
        json_kv_uint(&w, "rules", s->rules);
        json_kv_uint(&w, "rules_renamed", s->rules_renamed);
        json_kv_uint(&w, "rules_duplicate", s->rules_duplicate);
        json_kv_uint(&w, "types", s->types);
        json_kv_uint(&w, "types_duplicate", s->types_duplicate);
        json_kv_uint(&w, "cgroups", s->cgroups);
        json_kv_uint(&w, "settings", s->settings);
        json_key(&w, "not_converted");
        json_begin_object(&w);
        for (AnanicyDrop d = 0; d < _DROP_MAX; d++)
                json_kv_uint(&w, ananicy_drop_to_string(d), s->dropped[d]);
        json_end_object(&w);
        json_kv_uint(&w, "malformed_lines", s->malformed);
        json_kv_uint(&w, "trailing_text_lines", s->trailing);
        json_end_object(&w);
        (void)json_writer_finish(&w);
}

static void print_stats(const AnanicyStats *s)
{
        size_t total = 0;

        fprintf(stderr,
                "latnicectl: converted %zu rules and %zu types from %zu files; %zu cgroups "
                "kept as comments\n",
                s->rules, s->types, s->files, s->cgroups);
        for (AnanicyDrop d = 0; d < _DROP_MAX; d++)
                total += s->dropped[d];
        if (total > 0) {
                bool first = true;
                fputs("latnicectl: not converted (see the comments):", stderr);
                for (AnanicyDrop d = 0; d < _DROP_MAX; d++) {
                        if (s->dropped[d] == 0)
                                continue;
                        fprintf(stderr, "%s %s %zu", first ? "" : ",", ananicy_drop_to_string(d),
                                s->dropped[d]);
                        first = false;
                }
                fputc('\n', stderr);
        }
        if (s->rules_duplicate > 0)
                fprintf(stderr,
                        "latnicectl: note: %zu rule%s replaced by a later rule of the same name, "
                        "as ananicy-cpp does (see the comments)\n",
                        s->rules_duplicate, s->rules_duplicate == 1 ? "" : "s");
        if (s->trailing > 0)
                fprintf(stderr,
                        "latnicectl: warning: %zu line%s had text after the object; it was "
                        "ignored, as ananicy-cpp does (see the comments)\n",
                        s->trailing, s->trailing == 1 ? "" : "s");
        if (s->malformed > 0)
                fprintf(stderr, "latnicectl: %zu malformed line%s skipped (see the comments)\n",
                        s->malformed, s->malformed == 1 ? "" : "s");
}

typedef struct Conversion {
        const char *dir;
        AnanicyStats *stats;
        char **error_path;
        bool failed; /* the conversion failed, not the file: it named the path */
} Conversion;

static int convert_fill(FILE *f, void *userdata)
{
        Conversion *c = userdata;
        int r;

        r = ananicy_convert(c->dir, f, c->stats, c->error_path);
        c->failed = r < 0;
        return r;
}

/* Write atomically (lib/atomic-file.h): OUTPUT is replaced only if it is a
 * regular file, checked again right before the rename. */
static int convert_to_file(const char *dir, const char *output, AnanicyStats *stats,
                           char **error_path, const char **ret_what)
{
        Conversion c = { .dir = dir, .stats = stats, .error_path = error_path };
        int r;

        r = atomic_file_write(output, "import", 0644, convert_fill, &c, ret_what);
        if (r < 0 && !c.failed)
                *error_path = strdup(output);
        return r;
}

int verb_import_ananicy(int argc, char **argv, const CliOptions *o)
{
        _cleanup_free_ char *error_path = NULL;
        _cleanup_free_ char **args = NULL;
        const char *dir = ANANICY_DEFAULT_DIR, *output = o->output, *what = NULL;
        AnanicyStats stats = {};
        size_t n_args;
        int r;

        /* -o is parsed with the other options (cli/latnicectl.c) */
        r = cli_positional_args(argc, argv, "import-ananicy", &args, &n_args);
        if (r != 0)
                return r;
        if (n_args > 1)
                return cli_usage_error("import-ananicy takes one directory, found '%s' too",
                                       args[1]);
        if (n_args == 1)
                dir = args[0];
        if (output && streq(output, "-"))
                output = NULL; /* "-o -": standard output */
        if (o->json && !output)
                return cli_usage_error("import-ananicy --json needs -o FILE: the policy "
                                       "itself goes to standard output");

        if (output) {
                r = atomic_file_check_target(output, &what);
                if (r >= 0)
                        r = convert_to_file(dir, output, &stats, &error_path, &what);
                else if (r != -EEXIST)
                        error_path = strdup(output);
        } else {
                r = ananicy_convert(dir, stdout, &stats, &error_path);
                if (r >= 0 && (fflush(stdout) != 0 || ferror(stdout)))
                        return cli_error("failed to write the policy to standard output");
        }
        if (r == -ENOMSG)
                return cli_error("no ananicy rules or types found in %s (%zu files read, %zu "
                                 "malformed lines)",
                                 dir, stats.files, stats.malformed);
        if (r == -EEXIST && what)
                return cli_error("%s is %s: -o replaces regular files only%s", output, what,
                                 streq(what, "a symbolic link") ? " (give the path it points to)"
                                                                : "");
        if (r == -ENOMEM)
                return cli_error("out of memory");
        if (r == -E2BIG)
                return cli_error("%s holds more files or rules than import-ananicy reads", dir);
        if (r < 0) {
                errno = -r;
                return cli_error("%s: %m", error_path ? error_path : dir);
        }

        if (o->json)
                print_stats_json(&stats, dir, output);
        else
                print_stats(&stats);
        return CLI_EXIT_SUCCESS;
}
