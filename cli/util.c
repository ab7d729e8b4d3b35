/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers shared by the latnicectl verbs.
 */
#include <limits.h>
#include <stdarg.h>

#include "config.h"

#include "cli/cli.h"
#include "lib/probe.h"
#include "lib/thread-settings.h"
#include "lib/macro.h"

static char *const default_policy_dirs[] = {
        (char *)VENDOR_POLICY_DIR,
        (char *)RUNTIME_POLICY_DIR,
        (char *)ADMIN_POLICY_DIR,
        NULL,
};

char *const *cli_policy_dirs(const CliOptions *o)
{
        if (o && o->policy_dirs && o->policy_dirs[0])
                return o->policy_dirs;
        return default_policy_dirs;
}

static void vmessage(const char *fmt, va_list ap)
{
        fputs("latnicectl: ", stderr);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
}

int cli_usage_error(const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        vmessage(fmt, ap);
        va_end(ap);
        fputs("Try 'latnicectl --help' for more information.\n", stderr);
        return CLI_EXIT_USAGE;
}

int cli_error(const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        vmessage(fmt, ap);
        va_end(ap);
        return CLI_EXIT_FAILURE;
}

int cli_parse_pid(const char *s, int *ret)
{
        unsigned long long v = 0;

        if (!s || !*s)
                return -EINVAL;
        for (const char *p = s; *p; p++) {
                if (*p < '0' || *p > '9')
                        return -EINVAL;
                v = v * 10 + (unsigned)(*p - '0');
                if (v > INT_MAX)
                        return -EINVAL;
        }
        if (v == 0)
                return -EINVAL;
        *ret = (int)v;
        return 0;
}

const char *cli_color(const CliOptions *o, const char *name)
{
        static const struct {
                const char *name, *seq;
        } colors[] = {
                { "red", "\x1b[31;1m" },  { "yellow", "\x1b[33;1m" }, { "green", "\x1b[32m" },
                { "bold", "\x1b[1m" },    { "grey", "\x1b[2m" },      { "reset", "\x1b[0m" },
        };

        if (!o || !o->color)
                return "";
        for (size_t i = 0; i < ELEMENTSOF(colors); i++)
                if (streq(colors[i].name, name))
                        return colors[i].seq;
        return "";
}

const char *cli_color_stderr(const CliOptions *o, const char *name)
{
        CliOptions e = { .color = o && o->color_stderr };

        return cli_color(&e, name);
}

/* Verbs without options of their own: the positional arguments (argv[1..]),
 * anything that looks like an option is a usage error; after a "--" every
 * argument is positional. *ret is a NULL-terminated array borrowed from argv. */
int cli_positional_args(int argc, char **argv, const char *verb, char ***ret, size_t *ret_n)
{
        char **a = calloc((size_t)argc + 1, sizeof(char *));
        bool dashdash = false;
        size_t n = 0;

        if (!a)
                return cli_error("out of memory");
        for (int i = 1; i < argc; i++) {
                if (!dashdash && streq(argv[i], "--")) {
                        dashdash = true;
                        continue;
                }
                if (!dashdash && argv[i][0] == '-' && argv[i][1] != '\0') {
                        free(a);
                        return cli_usage_error("unknown option '%s' for %s", argv[i], verb);
                }
                a[n++] = argv[i];
        }
        *ret = a;
        *ret_n = n;
        return 0;
}

int cli_apply_context(const CliOptions *o, KernelFeatures *ret_kernel, ApplyContext *ret)
{
        if (kernel_probe(o->cgroup_root, ret_kernel) < 0)
                return cli_error("out of memory");
        *ret = (ApplyContext){
                .backend = ret_kernel->best_backend,
                .base_slice_ns = ret_kernel->base_slice_ns,
                .proc_root = o->proc_root,
        };
        return 0;
}
