/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * latnicectl import-ananicy [DIR] [-o FILE]
 */
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <sys/stat.h>

#include "cli/ananicy.h"
#include "cli/cli.h"
#include "cli/json.h"
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
        if (s->malformed > 0)
                fprintf(stderr, "latnicectl: %zu malformed line%s skipped (see the comments)\n",
                        s->malformed, s->malformed == 1 ? "" : "s");
}

/*
 * Whether OUTPUT may be replaced: it does not exist or is a regular file.
 * rename() replaces whatever is there: run as root, "-o /dev/null" would put
 * a regular file in place of the device, and "-o LINK" would replace the
 * link rather than write its target. A symlink is refused too, not followed:
 * in a directory others can write (/tmp) it may point anywhere.
 * -EEXIST and *RET_WHAT ("a FIFO", ...) when it is something else.
 */
static int output_check(const char *output, const char **ret_what)
{
        struct stat st;

        if (lstat(output, &st) < 0)
                return errno == ENOENT ? 0 : -errno;
        if (S_ISREG(st.st_mode))
                return 0;
        *ret_what = S_ISLNK(st.st_mode)    ? "a symbolic link"
                    : S_ISDIR(st.st_mode)  ? "a directory"
                    : S_ISFIFO(st.st_mode) ? "a FIFO"
                    : S_ISCHR(st.st_mode)  ? "a character device"
                    : S_ISBLK(st.st_mode)  ? "a block device"
                    : S_ISSOCK(st.st_mode) ? "a socket"
                                           : "not a regular file";
        return -EEXIST;
}

/* Write atomically: a temporary file beside OUTPUT, renamed over it once
 * OUTPUT is checked (again: it may have changed while we converted). */
static int convert_to_file(const char *dir, const char *output, AnanicyStats *stats,
                           char **error_path, const char **ret_what)
{
        _cleanup_free_ char *copy = strdup(output), *tmp = NULL;
        _cleanup_fclose_ FILE *f = NULL;
        const char *parent;
        int fd, r;

        if (!copy)
                return -ENOMEM;
        parent = dirname(copy);
        if (asprintf(&tmp, "%s/.#latnice-import-XXXXXX", parent) < 0) {
                tmp = NULL;
                return -ENOMEM;
        }
        fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0) {
                *error_path = strdup(output);
                return -errno;
        }
        f = fdopen(fd, "w");
        if (!f) {
                r = -errno;
                safe_close(fd);
                goto fail;
        }
        r = ananicy_convert(dir, f, stats, error_path);
        if (r < 0)
                goto fail;
        if (fflush(f) != 0 || ferror(f) || fchmod(fd, 0644) < 0 || fsync(fd) < 0) {
                r = errno > 0 ? -errno : -EIO;
                *error_path = strdup(output);
                goto fail;
        }
        r = output_check(output, ret_what);
        if (r < 0) {
                *error_path = strdup(output);
                goto fail;
        }
        if (rename(tmp, output) < 0) {
                r = -errno;
                *error_path = strdup(output);
                goto fail;
        }
        return 0;
fail:
        unlink(tmp);
        return r;
}

int verb_import_ananicy(int argc, char **argv, const CliOptions *o)
{
        static const struct option options[] = {
                { "output", required_argument, NULL, 'o' },
                {},
        };
        _cleanup_free_ char *error_path = NULL;
        const char *dir = ANANICY_DEFAULT_DIR, *output = NULL, *what = NULL;
        AnanicyStats stats = {};
        int c, r;

        opterr = 0;
        optind = 0;
        while ((c = getopt_long(argc, argv, "+:o:", options, NULL)) >= 0) {
                switch (c) {
                case 'o':
                        if (!*optarg)
                                return cli_usage_error("option '-o' needs a file name");
                        output = optarg;
                        break;
                case ':':
                        return cli_usage_error("option '%s' needs a file name", argv[optind - 1]);
                default:
                        return cli_usage_error("unknown option '%s' for import-ananicy",
                                               argv[optind - 1]);
                }
        }
        if (optind < argc)
                dir = argv[optind++];
        /* an -o after DIR */
        while ((c = getopt_long(argc, argv, "+:o:", options, NULL)) >= 0) {
                if (c != 'o')
                        return cli_usage_error("unknown option '%s' for import-ananicy",
                                               argv[optind - 1]);
                output = optarg;
        }
        if (optind < argc)
                return cli_usage_error("import-ananicy takes one directory, found '%s' too",
                                       argv[optind]);
        if (output && streq(output, "-"))
                output = NULL; /* "-o -": standard output */
        if (o->json && !output)
                return cli_usage_error("import-ananicy --json needs -o FILE: the policy "
                                       "itself goes to standard output");

        if (output) {
                r = output_check(output, &what);
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
