/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * latnicectl: options and verb dispatch.
 *
 * One getopt_long() table holds every option, global or of one verb. It is
 * read in two passes: up to the verb, then the verb's arguments, where
 * options may stand anywhere before a "--" (so "latnicectl check --json"
 * works). run is the exception: its arguments end the options at the first
 * KEY=VALUE, as the command after them has options of its own. A verb gets
 * its positional arguments only; an option meant for another verb is a
 * usage error.
 */
#include <getopt.h>
#include <locale.h>
#include <string.h>

#include "config.h"

#include "cli/cli.h"
#include "cli/json.h"
#include "cli/pager.h"
#include "cli/table.h"
#include "lib/log.h"
#include "lib/macro.h"
#include "lib/task-attr.h"

/* The options that belong to one verb or another. */
typedef enum VerbOption {
        VERB_OPTION_ALL = 1 << 0,
        VERB_OPTION_TID = 1 << 1,
        VERB_OPTION_RUNTIME = 1 << 2,
        VERB_OPTION_OUTPUT = 1 << 3,
        VERB_OPTION_MACHINE = 1 << 4,
} VerbOption;

typedef struct Verb {
        const char *name;
        int (*func)(int argc, char **argv, const CliOptions *o);
        unsigned options;  /* VerbOption bits it takes */
        bool pager;        /* output that can be long goes through the pager */
        bool raw_args;     /* options end at its first argument (run) */
} Verb;

static const Verb verbs[] = {
        { "status", verb_status, 0, true, false },
        { "kernel", verb_kernel, VERB_OPTION_MACHINE, true, false },
        { "list", verb_list, 0, true, false },
        { "explain", verb_explain, VERB_OPTION_ALL | VERB_OPTION_TID, true, false },
        { "get", verb_get, 0, true, false },
        { "set", verb_set, 0, false, false },
        { "run", verb_run, 0, false, true },
        { "check", verb_check, 0, false, false },
        { "cat-policy", verb_cat_policy, 0, true, false },
        { "reload", verb_reload, 0, false, false },
        { "monitor", verb_monitor, 0, false, false },
        { "metrics", verb_metrics, VERB_OPTION_OUTPUT, false, false },
        { "set-unit", verb_set_unit, VERB_OPTION_RUNTIME, false, false },
        { "unset-unit", verb_unset_unit, VERB_OPTION_RUNTIME, false, false },
        { "import-ananicy", verb_import_ananicy, VERB_OPTION_OUTPUT, false, false },
};

/* "Settings (KEY=VALUE): Nice=-20..19 ...": every task attribute and its
 * values (lib/task-attr.c), in lines of at most 79 columns. */
static void help_settings(void)
{
        const size_t header = printf("Settings (KEY=VALUE):");
        size_t col = header;

        TASK_ATTR_FOREACH(a) {
                size_t n = strlen(a->field.name) + 1 + strlen(a->help);

                if (col + 2 + n > 79) {
                        printf("\n");
                        col = 0;
                }
                col += printf("%s%s=%s", col == header ? " " : "  ", a->field.name, a->help);
        }
        printf("\n");
}

static void help(void)
{
        printf("latnicectl [OPTIONS...] COMMAND [ARGS...]\n"
               "\n"
               "Inspect, explain, validate and steer latniced, the latency policy daemon.\n"
               "\n"
               "Commands that talk to latniced:\n"
               "  status                     Daemon, kernel backend, counters, reload errors\n"
               "                             (for a latniced off the bus: its pid, its bus)\n"
               "  list                       Tasks latniced manages and their attributes\n"
               "  set PID KEY=VALUE...       Apply settings to a process now (it becomes\n"
               "                             user-owned); without latniced, applied directly\n"
               "                             and never restored\n"
               "  reload                     Reload the configuration and the policy\n"
               "  monitor                    Follow the settings latniced applies\n"
               "  metrics [-o FILE]          Counters in the Prometheus text format (for\n"
               "                             node-exporter's textfile collector); -o\n"
               "                             replaces FILE atomically\n"
               "  set-unit UNIT KEY=VALUE... [--runtime]\n"
               "                             Configure a systemd unit (drop-in policy file\n"
               "                             under /etc, or /run with --runtime) and reload\n"
               "  unset-unit UNIT [--runtime]\n"
               "                             Remove what set-unit configured, and reload\n"
               "\n"
               "Commands that work without latniced:\n"
               "  kernel [--machine]         What the kernel supports (without EEVDF, as on\n"
               "                             Debian 12's 6.1: that LatencyNice= and Slice= do\n"
               "                             nothing), its preemption model, HZ, sched_ext and\n"
               "                             which settings act; the latency-nice -> slice\n"
               "                             table (--machine: the machine lines benchmarks\n"
               "                             print)\n"
               "  explain PID... [--tid TID] [--all]\n"
               "                             The rules that apply to each process, the\n"
               "                             predicate that decided, and the resulting settings\n"
               "                             (--all: every rule, matched or not)\n"
               "  get PID                    Scheduler attributes of every thread of PID\n"
               "  run KEY=VALUE... -- CMD [ARG...]\n"
               "                             Run a command with these attributes\n"
               "  check [FILE...]            Validate policy files (default: the policy\n"
               "                             directories); diagnostics on stderr; exit 1 on\n"
               "                             errors or when no policy file is found\n"
               "  cat-policy                 The merged policy files in effect, with\n"
               "                             overrides and masks (exit 1 if there are none)\n"
               "  import-ananicy [DIR] [-o FILE]\n"
               "                             Convert ananicy rules (default /etc/ananicy.d)\n"
               "                             to a latnice policy (standard output by default)\n"
               "\n"
               "Options:\n"
               "  -h --help                  Show this help\n"
               "     --version               Show the version\n"
               "     --json=MODE             Machine-readable output: pretty (the default of\n"
               "                             a bare --json), short (one line) or off\n"
               "     --no-pager              Do not pipe the output into a pager\n"
               "     --no-legend             No table headers, hints and summaries\n"
               "  -l --full                  Do not cut or wrap table cells to the terminal's\n"
               "                             width (explain wraps, never cuts a rule or setting)\n"
               "                             (output that is not a terminal is never cut)\n"
               "  -q --quiet                 No success messages (set, set-unit, unset-unit,\n"
               "                             monitor, check); errors and warnings stay\n"
               "     --policy-dir DIR        Read the policy from DIR instead of the system\n"
               "                             directories (repeatable, lowest priority first)\n"
               "     --bus BUS               Reach latniced on BUS: system (default),\n"
               "                             session, or a D-Bus address\n"
               "     --cgroup-root DIR       The cgroup2 hierarchy to look at\n"
               "\n"
               "Options of one command:\n"
               "  -a --all                   explain: every rule, not only those that apply\n"
               "     --tid TID               explain: one thread of the process\n"
               "     --runtime               set-unit, unset-unit: under /run, until reboot\n"
               "  -o --output FILE           import-ananicy, metrics: write to FILE\n"
               "\n");
        help_settings();
        printf("\n"
               "Exit status: 0 success, 1 failure, 2 usage error.\n"
               "See latnicectl(1) and latnice.policy(5).\n");
}

enum {
        ARG_VERSION = 0x100,
        ARG_JSON,
        ARG_NO_PAGER,
        ARG_NO_LEGEND,
        ARG_POLICY_DIR,
        ARG_BUS,
        ARG_CGROUP_ROOT,
        ARG_TID,
        ARG_RUNTIME,
        ARG_MACHINE,
};

static const struct option options[] = {
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, ARG_VERSION },
        { "json", optional_argument, NULL, ARG_JSON },
        { "no-pager", no_argument, NULL, ARG_NO_PAGER },
        { "no-legend", no_argument, NULL, ARG_NO_LEGEND },
        { "full", no_argument, NULL, 'l' },
        { "quiet", no_argument, NULL, 'q' },
        { "policy-dir", required_argument, NULL, ARG_POLICY_DIR },
        { "bus", required_argument, NULL, ARG_BUS },
        { "cgroup-root", required_argument, NULL, ARG_CGROUP_ROOT },
        { "all", no_argument, NULL, 'a' },
        { "tid", required_argument, NULL, ARG_TID },
        { "runtime", no_argument, NULL, ARG_RUNTIME },
        { "machine", no_argument, NULL, ARG_MACHINE },
        { "output", required_argument, NULL, 'o' },
        {},
};

#define SHORT_OPTIONS ":hlqao:"

/* What parsing found besides CliOptions. */
typedef struct Parsed {
        char **dirs;             /* --policy-dir values, argc + 1 slots */
        size_t n_dirs;
        unsigned verb_options;   /* VerbOption bits given */
        const char *verb_option_names[5]; /* as given, for errors, by bit */
        bool exit_now;           /* --help, --version */
} Parsed;

static int parse_json_mode(const char *arg, JsonMode *ret)
{
        if (!arg || streq(arg, "pretty"))
                *ret = JSON_PRETTY;
        else if (streq(arg, "short"))
                *ret = JSON_SHORT;
        else if (streq(arg, "off"))
                *ret = JSON_OFF;
        else
                return cli_usage_error("option '--json' takes pretty, short or off, found '%s'",
                                       arg);
        return 0;
}

static void verb_option_seen(Parsed *p, VerbOption bit, const char *name)
{
        p->verb_options |= bit;
        p->verb_option_names[__builtin_ctz(bit)] = name;
}

/* One option C of the table; its text is ARGV[optind - 1]. 0 or an exit status. */
static int parse_option(int c, char **argv, CliOptions *o, Parsed *p)
{
        switch (c) {
        case 'h':
                help();
                p->exit_now = true;
                return 0;
        case ARG_VERSION:
                printf("latnicectl %s\n", PACKAGE_VERSION);
                p->exit_now = true;
                return 0;
        case ARG_JSON:
                return parse_json_mode(optarg, &o->json);
        case ARG_NO_PAGER:
                o->no_pager = true;
                return 0;
        case ARG_NO_LEGEND:
                o->legend = false;
                return 0;
        case 'l':
                o->full = true;
                return 0;
        case 'q':
                o->quiet = true;
                return 0;
        case ARG_POLICY_DIR:
                if (!*optarg)
                        return cli_usage_error("option '--policy-dir' needs a directory, found "
                                               "an empty string");
                p->dirs[p->n_dirs++] = optarg;
                return 0;
        case ARG_BUS:
                if (!*optarg)
                        return cli_usage_error("option '--bus' needs system, session or a D-Bus "
                                               "address");
                o->bus = optarg;
                return 0;
        case ARG_CGROUP_ROOT:
                if (!*optarg)
                        return cli_usage_error("option '--cgroup-root' needs a directory");
                o->cgroup_root = optarg;
                return 0;
        case 'a':
                o->all = true;
                verb_option_seen(p, VERB_OPTION_ALL, "--all");
                return 0;
        case ARG_TID:
                if (cli_parse_pid(optarg, &o->tid) < 0)
                        return cli_usage_error("option '--tid' needs a thread id, found '%s'",
                                               optarg);
                verb_option_seen(p, VERB_OPTION_TID, "--tid");
                return 0;
        case ARG_RUNTIME:
                o->runtime = true;
                verb_option_seen(p, VERB_OPTION_RUNTIME, "--runtime");
                return 0;
        case ARG_MACHINE:
                o->machine = true;
                verb_option_seen(p, VERB_OPTION_MACHINE, "--machine");
                return 0;
        case 'o':
                if (!*optarg)
                        return cli_usage_error("option '-o' needs a file name");
                o->output = optarg;
                verb_option_seen(p, VERB_OPTION_OUTPUT, "--output");
                return 0;
        case ':':
                return cli_usage_error("option '%s' needs a value", argv[optind - 1]);
        default:
                if (optopt > 0 && optopt < 0x100)
                        return cli_usage_error("unknown option '-%c'", optopt);
                return cli_usage_error("unknown option '%s'", argv[optind - 1]);
        }
}

/* getopt_long() over ARGV from scratch; the index of the first argument it
 * did not take, or -(exit status + 1). */
static int parse_pass(int argc, char **argv, const char *optstring, CliOptions *o, Parsed *p)
{
        int c, r;

        opterr = 0;
        optind = 0; /* glibc: start over, also after a previous pass */
        while ((c = getopt_long(argc, argv, optstring, options, NULL)) >= 0) {
                r = parse_option(c, argv, o, p);
                if (r != 0)
                        return -(r + 1);
                if (p->exit_now)
                        return -(CLI_EXIT_SUCCESS + 1);
        }
        return optind;
}

static const Verb *verb_find(const char *name)
{
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                if (streq(verbs[i].name, name))
                        return &verbs[i];
        return NULL;
}

/* A verb option given to a verb that does not take it. */
static int check_verb_options(const Verb *v, const Parsed *p)
{
        unsigned wrong = p->verb_options & ~v->options;

        if (wrong == 0)
                return 0;
        return cli_usage_error("option '%s' does not apply to %s",
                               p->verb_option_names[__builtin_ctz(wrong)], v->name);
}

/* Parse ARGV into O and the verb's own argument vector *RET_ARGV (verb name,
 * for all but run a "--", then the positional arguments). An exit status,
 * or -1 to go on. */
static int parse_argv(int argc, char **argv, CliOptions *o, Parsed *p, const Verb **ret_verb,
                      char ***ret_argv, int *ret_argc)
{
        const Verb *v;
        char **sub, **args;
        int i, n_sub, n = 0;

        i = parse_pass(argc, argv, "+" SHORT_OPTIONS, o, p);
        if (i < 0)
                return -i - 1;
        if (i >= argc)
                return cli_usage_error("expected a command, found none");
        v = verb_find(argv[i]);
        if (!v)
                return cli_usage_error("unknown command '%s'", argv[i]);

        /* argv[i] is the verb: getopt takes it for the program name */
        sub = argv + i;
        n_sub = argc - i;
        i = parse_pass(n_sub, sub, v->raw_args ? "+" SHORT_OPTIONS : SHORT_OPTIONS, o, p);
        if (i < 0)
                return -i - 1;
        if (check_verb_options(v, p) != 0)
                return CLI_EXIT_USAGE;

        args = calloc((size_t)(n_sub - i) + 3, sizeof(char *));
        if (!args)
                return cli_error("out of memory");
        args[n++] = sub[0];
        /* the arguments are positional even if they start with '-' */
        if (!v->raw_args)
                args[n++] = (char *)"--";
        for (; i < n_sub; i++)
                args[n++] = sub[i];
        *ret_verb = v;
        *ret_argv = args;
        *ret_argc = n;
        return -1;
}

int main(int argc, char **argv)
{
        _cleanup_free_ char **dirs = NULL, **args = NULL;
        CliOptions o = {
                .bus = "system",
                .proc_root = "/proc",
                .legend = true,
        };
        Parsed p = {};
        const Verb *v = NULL;
        const char *no_color = getenv("NO_COLOR"), *term = getenv("TERM");
        int r, n_args = 0;
        pid_t pager = 0;

        setlocale(LC_ALL, "");
        log_set_program_name("latnicectl");
        log_set_target(LOG_TARGET_CONSOLE);
        log_set_max_level(LOG_NOTICE);

        o.tty = isatty(STDOUT_FILENO);
        o.color = o.tty && !no_color && !(term && streq(term, "dumb"));
        o.color_stderr = isatty(STDERR_FILENO) && !no_color && !(term && streq(term, "dumb"));
        if (o.tty)
                o.columns = cli_terminal_width();

        dirs = calloc((size_t)argc + 1, sizeof(char *));
        if (!dirs)
                return cli_error("out of memory");
        p.dirs = dirs;
        r = parse_argv(argc, argv, &o, &p, &v, &args, &n_args);
        if (r >= 0)
                return r;
        if (p.n_dirs > 0)
                o.policy_dirs = dirs;
        json_set_default_pretty(o.json != JSON_SHORT);

        if (v->pager && !o.no_pager)
                pager = pager_open(); /* if it fails, the output goes to the terminal */
        r = v->func(n_args, args, &o);
        pager_close(pager);
        return r;
}
