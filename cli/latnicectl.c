/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * latnicectl: global options and verb dispatch.
 *
 * Global options may stand anywhere before a "--" (so "latnicectl check
 * --json" works); they are removed and the verb gets the rest, its own
 * options included. Everything after "--" is the verb's, untouched (run).
 */
#include <locale.h>

#include "config.h"

#include "cli/cli.h"
#include "lib/log.h"
#include "lib/macro.h"

typedef struct Verb {
        const char *name;
        int (*func)(int argc, char **argv, const CliOptions *o);
} Verb;

static const Verb verbs[] = {
        { "status", verb_status },
        { "kernel", verb_kernel },
        { "list", verb_list },
        { "explain", verb_explain },
        { "get", verb_get },
        { "set", verb_set },
        { "run", verb_run },
        { "check", verb_check },
        { "cat-policy", verb_cat_policy },
        { "reload", verb_reload },
        { "monitor", verb_monitor },
        { "set-unit", verb_set_unit },
        { "unset-unit", verb_unset_unit },
        { "import-ananicy", verb_import_ananicy },
};

static void help(void)
{
        printf("latnicectl [OPTIONS...] COMMAND [ARGS...]\n"
               "\n"
               "Inspect, explain, validate and steer latniced, the latency policy daemon.\n"
               "\n"
               "Commands that talk to latniced:\n"
               "  status                     Daemon, kernel backend, counters, reload errors\n"
               "  list                       Tasks latniced manages and their attributes\n"
               "  set PID KEY=VALUE...       Apply settings to a process now (it becomes\n"
               "                             user-owned)\n"
               "  reload                     Reload the configuration and the policy\n"
               "  monitor                    Follow the settings latniced applies\n"
               "  set-unit UNIT KEY=VALUE... [--runtime]\n"
               "                             Configure a systemd unit (drop-in policy file\n"
               "                             under /etc, or /run with --runtime) and reload\n"
               "  unset-unit UNIT [--runtime]\n"
               "                             Remove what set-unit configured, and reload\n"
               "\n"
               "Commands that work without latniced:\n"
               "  kernel                     What the kernel supports; the latency-nice ->\n"
               "                             slice table of this machine\n"
               "  explain PID [--tid TID]    Every rule: matched or not, the predicate that\n"
               "                             decided, and the resulting settings\n"
               "  get PID                    Scheduler attributes of every thread of PID\n"
               "  run KEY=VALUE... -- CMD [ARG...]\n"
               "                             Run a command with these attributes\n"
               "  check [FILE...]            Validate policy files (default: the policy\n"
               "                             directories); exit 1 on errors\n"
               "  cat-policy                 The merged policy files in effect, with\n"
               "                             overrides and masks\n"
               "  import-ananicy [DIR] [-o FILE]\n"
               "                             Convert ananicy rules (default /etc/ananicy.d)\n"
               "                             to a latnice policy (standard output by default)\n"
               "\n"
               "Options:\n"
               "  -h --help                  Show this help\n"
               "     --version               Show the version\n"
               "     --json                  Machine-readable output (JSON)\n"
               "     --policy-dir DIR        Read the policy from DIR instead of the system\n"
               "                             directories (repeatable, lowest priority first)\n"
               "     --bus BUS               Reach latniced on BUS: system (default),\n"
               "                             session, or a D-Bus address\n"
               "     --cgroup-root DIR       The cgroup2 hierarchy to look at\n"
               "     --no-pager              Accepted; latnicectl never pages its output\n"
               "\n"
               "Settings (KEY=VALUE): LatencyNice=-20..19  Slice=0.1ms..100ms  Nice=-20..19\n"
               "  Policy=other|batch|idle  UtilMin=, UtilMax=0..1024 or N%%\n"
               "  TimerSlack=1ns..100ms\n"
               "\n"
               "Exit status: 0 success, 1 failure, 2 usage error.\n"
               "See latnicectl(1) and latnice.policy(5).\n");
}

/* Takes the value of an option "--name VALUE" or "--name=VALUE" at argv[*i]. */
static int option_value(int argc, char **argv, int *i, const char *name, const char **ret)
{
        size_t l = strlen(name);
        const char *a = argv[*i];

        if (strncmp(a, name, l) != 0)
                return 0;
        if (a[l] == '=') {
                *ret = a + l + 1;
                return 1;
        }
        if (a[l] != '\0')
                return 0;
        if (*i + 1 >= argc)
                return -EINVAL;
        *ret = argv[++*i];
        return 1;
}

int main(int argc, char **argv)
{
        _cleanup_free_ char **rest = NULL, **dirs = NULL;
        CliOptions o = {
                .bus = "system",
                .proc_root = "/proc",
        };
        size_t n_rest = 0, n_dirs = 0;
        const char *no_color = getenv("NO_COLOR"), *term = getenv("TERM");

        setlocale(LC_ALL, "");
        log_set_program_name("latnicectl");
        log_set_target(LOG_TARGET_CONSOLE);
        log_set_max_level(LOG_NOTICE);

        o.color = isatty(STDOUT_FILENO) && !no_color && !(term && streq(term, "dumb"));

        rest = calloc((size_t)argc + 1, sizeof(char *));
        dirs = calloc((size_t)argc + 1, sizeof(char *));
        if (!rest || !dirs)
                return cli_error("out of memory");

        for (int i = 1; i < argc; i++) {
                const char *a = argv[i], *v = NULL;
                int r;

                if (streq(a, "--")) {
                        /* the rest belongs to the verb, untouched */
                        for (; i < argc; i++)
                                rest[n_rest++] = argv[i];
                        break;
                }
                if (streq(a, "-h") || streq(a, "--help")) {
                        help();
                        return CLI_EXIT_SUCCESS;
                }
                if (streq(a, "--version")) {
                        printf("latnicectl %s\n", PACKAGE_VERSION);
                        return CLI_EXIT_SUCCESS;
                }
                if (streq(a, "--json")) {
                        o.json = true;
                        continue;
                }
                if (streq(a, "--no-pager")) {
                        o.no_pager = true;
                        continue;
                }
                if ((r = option_value(argc, argv, &i, "--policy-dir", &v)) != 0) {
                        if (r < 0)
                                return cli_usage_error("option '--policy-dir' needs a directory");
                        if (!*v)
                                return cli_usage_error("option '--policy-dir' needs a directory, "
                                                       "found an empty string");
                        dirs[n_dirs++] = (char *)v;
                        continue;
                }
                if ((r = option_value(argc, argv, &i, "--bus", &v)) != 0) {
                        if (r < 0 || !*v)
                                return cli_usage_error("option '--bus' needs system, session "
                                                       "or a D-Bus address");
                        o.bus = v;
                        continue;
                }
                if ((r = option_value(argc, argv, &i, "--cgroup-root", &v)) != 0) {
                        if (r < 0 || !*v)
                                return cli_usage_error("option '--cgroup-root' needs a directory");
                        o.cgroup_root = v;
                        continue;
                }
                rest[n_rest++] = argv[i];
        }
        if (n_dirs > 0)
                o.policy_dirs = dirs;

        if (n_rest == 0)
                return cli_usage_error("expected a command, found none");
        if (rest[0][0] == '-')
                return cli_usage_error("unknown option '%s'", rest[0]);

        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                if (streq(verbs[i].name, rest[0]))
                        return verbs[i].func((int)n_rest, rest, &o);

        return cli_usage_error("unknown command '%s'", rest[0]);
}
