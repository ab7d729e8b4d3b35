/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * latniced: command line, logging set-up, and the manager's life cycle.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "daemon/bus/bus.h"
#include "daemon/watch/events.h"
#include "daemon/manager.h"
#include "lib/log.h"
#include "daemon/state/state-file.h"
#include "lib/macro.h"
#include "lib/namespace.h"
#include "lib/util.h"

static ManagerOptions arg = {
        .log_level = -1,
        .bus = "system",
};
static char **arg_policy_dirs;
static size_t arg_n_policy_dirs;

static void help(void)
{
        printf("Usage: latniced [OPTION...]\n"
               "\n"
               "Give processes the scheduling latency they need, by policy.\n"
               "\n"
               "  -c, --config FILE       configuration file (default %s)\n"
               "  -p, --policy-dir DIR    policy directory; repeatable, lowest priority first;\n"
               "                          replaces %s, %s and %s\n"
               "  -f, --foreground        stay attached (latniced never forks anyway: it is\n"
               "                          a Type=notify service)\n"
               "  -n, --dry-run           log what would be done, change nothing\n"
               "  -l, --log-level LEVEL   debug, info, notice, warning, err (default info)\n"
               "  -b, --bus BUS           system, session, none, or a D-Bus address\n"
               "                          (default system)\n"
               "      --cgroup-root DIR   the cgroup2 hierarchy (default: from /proc/self/mounts)\n"
               "      --user-slice PATH   where the users' slices are in it, whose app cgroups'\n"
               "                          user.xdg.inactive-since tells the focus (default\n"
               "                          /user.slice; tests)\n"
               "      --user-runtime-dir DIR  where the users' runtime directories are, with\n"
               "                          their PipeWire sockets (default /run/user; tests)\n"
               "      --proc-root DIR     where /proc is (tests)\n"
               "      --recv-buffer BYTES proc connector receive buffer (default %u; tests use\n"
               "                          a tiny one to force lost events)\n"
               "      --state-file FILE   where what latniced changed is kept, so that a killed\n"
               "                          latniced's originals come back (default %s)\n"
               "  -h, --help              show this help\n"
               "      --version           show the version\n",
               DAEMON_CONFIG_FILE, VENDOR_POLICY_DIR, RUNTIME_POLICY_DIR, ADMIN_POLICY_DIR,
               PROC_EVENTS_DEFAULT_RCVBUF, STATE_FILE_DEFAULT);
}

static int parse_size(const char *s, size_t *ret)
{
        uint64_t v;
        char *end = NULL;

        errno = 0;
        v = strtoull(s, &end, 10);
        if (errno || end == s || *s == '-')
                return -EINVAL;
        if (*end == 'K' || *end == 'k')
                v *= 1024, end++;
        else if (*end == 'M')
                v *= 1024 * 1024, end++;
        if (*end || v == 0 || v > (1u << 30))
                return -EINVAL;
        *ret = (size_t)v;
        return 0;
}

static int parse_argv(int argc, char *argv[])
{
        enum {
                ARG_VERSION = 0x100,
                ARG_CGROUP_ROOT,
                ARG_PROC_ROOT,
                ARG_RECV_BUFFER,
                ARG_STATE_FILE,
                ARG_USER_SLICE,
                ARG_USER_RUNTIME_DIR,
        };
        static const struct option options[] = {
                { "config", required_argument, NULL, 'c' },
                { "policy-dir", required_argument, NULL, 'p' },
                { "foreground", no_argument, NULL, 'f' },
                { "dry-run", no_argument, NULL, 'n' },
                { "log-level", required_argument, NULL, 'l' },
                { "bus", required_argument, NULL, 'b' },
                { "cgroup-root", required_argument, NULL, ARG_CGROUP_ROOT },
                { "proc-root", required_argument, NULL, ARG_PROC_ROOT },
                { "recv-buffer", required_argument, NULL, ARG_RECV_BUFFER },
                { "state-file", required_argument, NULL, ARG_STATE_FILE },
                { "user-slice", required_argument, NULL, ARG_USER_SLICE },
                { "user-runtime-dir", required_argument, NULL, ARG_USER_RUNTIME_DIR },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                {}
        };
        int c, r;

        while ((c = getopt_long(argc, argv, "c:p:fnl:b:h", options, NULL)) >= 0) {
                switch (c) {
                case 'c':
                        arg.config_file = optarg;
                        break;
                case 'p': {
                        char **l = realloc(arg_policy_dirs, (arg_n_policy_dirs + 2) * sizeof(char *));
                        if (!l)
                                return log_oom();
                        arg_policy_dirs = l;
                        l[arg_n_policy_dirs++] = optarg;
                        l[arg_n_policy_dirs] = NULL;
                        break;
                }
                case 'f':
                        break;
                case 'n':
                        arg.dry_run = true;
                        break;
                case 'l':
                        r = log_level_from_string(optarg);
                        if (r < 0) {
                                log_error("Unknown log level \"%s\".", optarg);
                                return -EINVAL;
                        }
                        arg.log_level = r;
                        break;
                case 'b':
                        if (!*optarg) {
                                log_error("--bus needs system, session, none or an address.");
                                return -EINVAL;
                        }
                        arg.bus = optarg;
                        break;
                case ARG_CGROUP_ROOT:
                        arg.cgroup_root = optarg;
                        break;
                case ARG_USER_SLICE:
                        if (optarg[0] != '/') {
                                log_error("--user-slice: expected a path below the cgroup2 "
                                          "root starting with '/', got \"%s\"", optarg);
                                return -EINVAL;
                        }
                        arg.user_slice = optarg;
                        break;
                case ARG_USER_RUNTIME_DIR:
                        if (optarg[0] != '/' || strlen(optarg) < 2) {
                                log_error("--user-runtime-dir: expected an absolute path "
                                          "other than /, got \"%s\"", optarg);
                                return -EINVAL;
                        }
                        arg.user_runtime_dir = optarg;
                        break;
                case ARG_PROC_ROOT:
                        arg.proc_root = optarg;
                        break;
                case ARG_RECV_BUFFER:
                        if (parse_size(optarg, &arg.recv_buffer) < 0) {
                                log_error("Invalid --recv-buffer \"%s\": expected bytes "
                                          "(K and M suffixes allowed).", optarg);
                                return -EINVAL;
                        }
                        break;
                case ARG_STATE_FILE:
                        if (optarg[0] != '/') {
                                log_error("--state-file needs an absolute path, found \"%s\".",
                                          optarg);
                                return -EINVAL;
                        }
                        arg.state_file = optarg;
                        break;
                case 'h':
                        help();
                        return 0;
                case ARG_VERSION:
                        printf("latniced %s\n", PACKAGE_VERSION);
                        return 0;
                case '?':
                        return -EINVAL;
                default:
                        return -EINVAL;
                }
        }
        if (optind < argc) {
                log_error("Unexpected argument \"%s\".", argv[optind]);
                return -EINVAL;
        }
        arg.policy_dirs = arg_policy_dirs;
        return 1;
}

/* Log to the journal when stderr is the journal stream systemd gave us,
 * to the console on a terminal, else "<N>" prefixes for whoever reads. */
static void setup_logging(void)
{
        const char *e = getenv("JOURNAL_STREAM");
        struct stat st;

        log_set_program_name("latniced");
        if (e && fstat(STDERR_FILENO, &st) >= 0) {
                unsigned long long dev, ino;
                if (sscanf(e, "%llu:%llu", &dev, &ino) == 2 && dev == (unsigned long long)st.st_dev &&
                    ino == (unsigned long long)st.st_ino) {
                        log_set_target(LOG_TARGET_JOURNAL);
                        return;
                }
        }
        log_set_target(isatty(STDERR_FILENO) ? LOG_TARGET_CONSOLE : LOG_TARGET_KMSG_PREFIX);
}

/* Every evaluation holds a few file descriptors; a unit or a shell may
 * start latniced with a small soft limit (1024, or less under prlimit).
 * Raise it to the hard limit, as systemd does for itself: latniced never
 * uses select(), so high descriptor numbers are harmless. Whether enough
 * are free is checked before READY=1 (manager_start()). */
static void raise_nofile_limit(void)
{
        struct rlimit rl;

        if (getrlimit(RLIMIT_NOFILE, &rl) < 0) {
                log_warning_errno(errno, "Failed to read RLIMIT_NOFILE: %m");
                return;
        }
        if (rl.rlim_cur >= rl.rlim_max)
                return;
        const rlim_t old = rl.rlim_cur;
        rl.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
                log_warning_errno(errno, "Failed to raise the soft RLIMIT_NOFILE from %llu to "
                                         "%llu: %m", (unsigned long long)old,
                                  (unsigned long long)rl.rlim_max);
        else
                log_debug("Raised the soft RLIMIT_NOFILE from %llu to %llu.",
                          (unsigned long long)old, (unsigned long long)rl.rlim_max);
}

/* Refuse to run blind (lib/namespace.h): "Ready" and then no process seen
 * would be worse than not starting. */
static int check_namespaces(void)
{
        NamespaceCheck ns;
        int r;

        r = namespace_check(&ns);
        if (r < 0)
                return log_error_errno(r, "Cannot read /proc/self/ns (%m): latniced needs the "
                                          "host's /proc.");
        if (r == 0) {
                log_error("latniced runs in a %s namespace that is not the host's "
                          "(%s:[%" PRIu64 "]): %s.",
                          ns.which, streq(ns.which, "PID") ? "pid" : "user", ns.inode, ns.fix);
                return -EPERM;
        }
        return 0;
}

int main(int argc, char *argv[])
{
        _cleanup_(manager_freep) Manager *m = NULL;
        int r;

        setup_logging();
        r = parse_argv(argc, argv);
        if (r <= 0) {
                free(arg_policy_dirs);
                return r < 0 ? 2 : 0;
        }
        if (arg.log_level >= 0)
                log_set_max_level(arg.log_level);
        raise_nofile_limit();

        r = check_namespaces();
        if (r < 0)
                goto finish;

        r = manager_new(&arg, &m);
        if (r < 0) {
                log_error_errno(r, "Failed to set up: %m");
                goto finish;
        }
        manager_set_front_end(m, &bus_front_end);
        r = manager_start(m);
        if (r < 0)
                goto finish;
        r = manager_run(m);

finish:
        m = manager_free(m);
        free(arg_policy_dirs);
        return r < 0 ? 1 : 0;
}
