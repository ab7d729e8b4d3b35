/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * latnicectl run KEY=VALUE... -- CMD [ARGS...]: like nice(1) or chrt(1), set
 * the attributes on this thread and exec the command, which keeps them. No
 * daemon involved.
 */
#include "cli/cli.h"
#include "lib/thread-settings.h"
#include "lib/macro.h"
#include "lib/probe.h"
#include "lib/settings.h"
#include "lib/util.h"

/* Exit statuses of a command runner (as env(1), nice(1)): the command was
 * found but could not be run, or was not found. */
#define EXIT_CANNOT_RUN 126
#define EXIT_NOT_FOUND 127

void cli_warn_unsupported(uint32_t unsupported, const KernelFeatures *k)
{
        for (SettingId id = 0; id < _SETTING_MAX; id++) {
                if (!(unsupported & SETTING_BIT(id)))
                        continue;
                fprintf(stderr, "latnicectl: warning: %s is not supported by this kernel "
                                "(%s); ignored\n",
                        setting_to_string(id),
                        id == SETTING_LATENCY_NICE ? "neither latency nice nor the EEVDF slice"
                        : id == SETTING_SLICE      ? "no EEVDF slice"
                        : id == SETTING_UTIL_MIN || id == SETTING_UTIL_MAX
                                ? "no CONFIG_UCLAMP_TASK"
                                : "the kernel refused it");
        }
}

int verb_run(int argc, char **argv, const CliOptions *o)
{
        Settings s = {};
        KernelFeatures k;
        ApplyContext ctx;
        SchedState before;
        uint32_t applied = 0, unsupported = 0;
        int i, r;

        /* KEY=VALUE... up to "--" or the first argument without '=' (the command). */
        for (i = 1; i < argc; i++) {
                _cleanup_free_ char *error = NULL;
                SettingId id;
                const char *eq;

                if (streq(argv[i], "--")) {
                        i++;
                        break;
                }
                eq = strchr(argv[i], '=');
                if (!eq) {
                        if (argv[i][0] == '-')
                                return cli_usage_error("unknown option '%s' for run", argv[i]);
                        break;
                }
                r = settings_parse_assignment(&s, argv[i], &error);
                if (r == -ENOMEM)
                        return cli_error("out of memory");
                if (r < 0)
                        return cli_usage_error("invalid setting '%s': %s", argv[i],
                                               error ? error : "invalid value");
                {
                        _cleanup_free_ char *key = strndup(argv[i], (size_t)(eq - argv[i]));
                        if (!key)
                                return cli_error("out of memory");
                        id = setting_from_string(key);
                }
                if (id >= 0 && !(SETTINGS_TASK_MASK & SETTING_BIT(id)))
                        return cli_usage_error("invalid setting '%s': %s applies to [Unit] "
                                               "sections only, not to a process",
                                               argv[i], setting_to_string(id));
        }
        if (s.mask == 0)
                return cli_usage_error("run needs at least one KEY=VALUE setting before the "
                                       "command");
        if (i >= argc)
                return cli_usage_error("run needs a command after the settings (-- CMD [ARGS...])");

        r = cli_apply_context(o, &k, &ctx);
        if (r != 0)
                return r;

        r = settings_apply_tid(&ctx, ln_gettid(), &s, &before, &applied, &unsupported);
        if (r == -EPERM || r == -EACCES)
                return cli_error("not allowed to set these attributes (raising priority or "
                                 "lowering latency nice needs root or CAP_SYS_NICE)");
        if (r == -EBUSY)
                return cli_error("latnicectl runs under a real-time or deadline policy; "
                                 "latnice never changes such tasks");
        if (r < 0) {
                errno = -r;
                return cli_error("failed to apply the settings: %m");
        }
        if (unsupported)
                cli_warn_unsupported(unsupported, &k);

        fflush(stdout);
        execvp(argv[i], argv + i);
        r = errno;
        errno = r;
        cli_error("failed to run %s: %m", argv[i]);
        return r == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN;
}
