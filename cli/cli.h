/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * latnicectl: shared options and the verbs. cli/latnicectl.c parses every
 * option (global and per verb, one getopt_long table) and dispatches; each
 * verb is int verb_NAME(int argc, char **argv, const CliOptions *o) where
 * argv[0] is the verb name and the rest are its positional arguments (after
 * a "--" that cli_positional_args() skips; run gets its arguments as given). Verbs return an
 * exit status: 0 success, 1 failure, 2 usage error, and print errors as
 * "latnicectl: ..." (log_error with the console target).
 */
#pragma once

#include "lib/probe.h"
#include "lib/sched-info.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* --json=MODE; JSON_OFF is 0, so "if (o->json)" asks for any JSON. */
typedef enum JsonMode {
        JSON_OFF = 0,
        JSON_PRETTY,
        JSON_SHORT,
} JsonMode;

typedef struct CliOptions {
        JsonMode json;
        bool no_pager;
        bool legend;           /* false with --no-legend: no table headers, hints, footers */
        bool quiet;            /* -q: no success messages (errors and warnings stay) */
        bool full;             /* --full: never cut, even on a terminal */
        bool color;            /* stdout is a tty and NO_COLOR is unset */
        bool color_stderr;     /* the same for stderr (diagnostics) */
        bool tty;              /* stdout was a terminal (before any pager took it) */
        size_t columns;        /* the terminal's width, when tty */
        char **policy_dirs;    /* --policy-dir (NULL-terminated) or NULL for the defaults */
        const char *bus;       /* --bus: "system" (default), "session" or an address */
        const char *proc_root; /* "/proc" */
        const char *cgroup_root; /* --cgroup-root or NULL */
        /* Options of one verb each (the table in cli/latnicectl.c checks which). */
        bool all;              /* explain --all */
        pid_t tid;             /* explain --tid, 0 if not given */
        bool runtime;          /* set-unit/unset-unit --runtime */
        const char *output;    /* import-ananicy -o, NULL if not given */
        bool machine;          /* kernel --machine */
} CliOptions;

/* Offline verbs (cli/check.c, cli/explain.c, cli/kernel.c, cli/get.c, cli/run.c,
 * cli/import.c): no daemon needed. */
int verb_check(int argc, char **argv, const CliOptions *o);
int verb_cat_policy(int argc, char **argv, const CliOptions *o);
int verb_explain(int argc, char **argv, const CliOptions *o);
int verb_kernel(int argc, char **argv, const CliOptions *o);
/* On a kernel where LatencyNice= or Slice= do nothing (no EEVDF: Debian
 * 12's 6.1), a "Note:" saying so and what still acts (cli/kernel-note.h);
 * nothing on other kernels. Used by kernel and status. */
void cli_print_latency_note(const CliOptions *o, bool eevdf_slice, bool latency_nice_syscall);
/* latnicectl kernel's lines on the scheduler: the preemption model, HZ,
 * sched_ext and the settings that act (lib/sched-effect.h). -ENOMEM. */
int cli_print_scheduler(const CliOptions *o, const SchedInfo *si, const KernelFeatures *k);
/* When not in the host's PID and user namespaces (where latniced cannot run),
 * say so on stderr. Returns R. */
int cli_namespace_note(int r);
int verb_get(int argc, char **argv, const CliOptions *o);
int verb_run(int argc, char **argv, const CliOptions *o);
int verb_import_ananicy(int argc, char **argv, const CliOptions *o);

typedef struct KernelFeatures KernelFeatures;
typedef struct Settings Settings;
/* "warning: X is not supported by this kernel" for each SETTING_BIT of
 * UNSUPPORTED, on stderr (cli/run.c). */
void cli_warn_unsupported(uint32_t unsupported, const KernelFeatures *k);
/* set without latniced (cli/set-direct.c): apply S to every thread of PID
 * here and warn that nothing will restore the previous values (and that
 * latniced is not on the system bus rather than not running, with
 * DAEMON_OFF_BUS). An exit status. */
int cli_set_direct(const CliOptions *o, pid_t pid, const Settings *s, bool daemon_off_bus);

/* Daemon verbs (cli/busctl.c; monitor: cli/monitor.c), over D-Bus
 * org.latnice.Daemon1. */
int verb_status(int argc, char **argv, const CliOptions *o);
int verb_list(int argc, char **argv, const CliOptions *o);
int verb_set(int argc, char **argv, const CliOptions *o);
int verb_reload(int argc, char **argv, const CliOptions *o);
int verb_monitor(int argc, char **argv, const CliOptions *o);
int verb_set_unit(int argc, char **argv, const CliOptions *o);
int verb_unset_unit(int argc, char **argv, const CliOptions *o);
/* latniced's GetStatus reply (never starting latniced for it), or the exit
 * status after saying why not (not running, off the bus, an error). */
typedef struct sd_bus_message sd_bus_message;
int cli_daemon_get_status(const CliOptions *o, sd_bus_message **ret_reply);
/* cli/metrics.c */
int verb_metrics(int argc, char **argv, const CliOptions *o);
/* Did the running latniced take the boosts of PID back (its boost budget)?
 * 1 and *RET_REASON (latniced's words), or 0: no, or latniced cannot be
 * asked (not running, no bus); nothing is printed. */
int cli_daemon_budget_reason(const CliOptions *o, pid_t pid, char **ret_reason);
/* The running latniced's sched_ext state and scheduler (its SchedExtState
 * and SchedExtScheduler properties): 1 and *RET_STATE ("enabled", ...) and
 * *RET_OPS (NULL if none), or 0: latniced cannot be asked. -ENOMEM. */
int cli_daemon_sched_ext(const CliOptions *o, char **ret_state, char **ret_ops);

/* What the running latniced knows of PID's focus (GetFocus): 1 and
 * *RET_STATE ("yes" or "no") and *RET_FACT (latniced's words: "focused since
 * 12:03:11 (...)") and *RET_UNFOCUSED_USEC (for how long it has been
 * unfocused, 0 unless "no"), or 0: unknown, or latniced cannot be asked. */
int cli_daemon_focus(const CliOptions *o, pid_t pid, char **ret_state, char **ret_fact,
                     uint64_t *ret_unfocused_usec);
/* What the running latniced knows of PID's audio streams (GetAudio): 1 and
 * *RET_STATE ("playing" or "no") and *RET_FACT (latniced's words: "playing
 * audio through PipeWire node 57 since ..."); 0 when latniced is not there
 * or does not know; -ENOMEM. */
int cli_daemon_audio(const CliOptions *o, pid_t pid, char **ret_state, char **ret_fact);

/* The policy directories in effect: o->policy_dirs or the three defaults. */
char *const *cli_policy_dirs(const CliOptions *o);
/* After loading P from them: every --policy-dir exists and together they
 * hold a policy file; else say which directories were searched (cli/check.c).
 * 0 or CLI_EXIT_FAILURE. */
typedef struct Policy Policy;
int cli_policy_found(const CliOptions *o, const Policy *p);

/* ---- Helpers for verbs (cli/util.c) ---------------------------------- */

#define CLI_EXIT_SUCCESS 0
#define CLI_EXIT_FAILURE 1
#define CLI_EXIT_USAGE 2

/* Prints "latnicectl: MESSAGE" and "Try 'latnicectl --help' ..." to stderr;
 * returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "latnicectl: MESSAGE" to stderr; returns CLI_EXIT_FAILURE. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* For verbs without options of their own: the positional arguments of
 * argv[1..] (NULL-terminated, borrowed from argv; free the array). Anything
 * that looks like an option is a usage error (returns CLI_EXIT_USAGE after
 * printing it); after "--" every argument is positional. 0 on success. */
int cli_positional_args(int argc, char **argv, const char *verb, char ***ret, size_t *ret_n);
/* What applying settings directly needs of the kernel (its latency-nice
 * backend, the base slice), probed now, and the probe itself: 0, or
 * CLI_EXIT_FAILURE after saying why. */
struct ApplyContext;
struct KernelFeatures;
int cli_apply_context(const CliOptions *o, struct KernelFeatures *ret_kernel,
                      struct ApplyContext *ret);
/* A pid or tid given on the command line: decimal, 1..INT_MAX. 0 or -EINVAL. */
int cli_parse_pid(const char *s, int *ret);
/* Colour escape for stdout, "" when o->color is off: "red", "yellow",
 * "green", "bold", "grey", "reset". */
const char *cli_color(const CliOptions *o, const char *name);
/* The same for stderr (o->color_stderr). */
const char *cli_color_stderr(const CliOptions *o, const char *name);
