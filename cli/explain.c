/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * latnicectl explain PID... [--tid TID] [--all]: what the policy on disk
 * decides for a process, from /proc (no daemon needed): the rules that apply
 * and the predicate that decided each, or with --all every rule, matched or
 * not. Several PIDs (explain $(pidof pipewire)) are explained one after the
 * other against the same policy, read once.
 */
#include <inttypes.h>

#include "cli/cli.h"
#include "cli/json.h"
#include "cli/table-fit.h"
#include "cli/table.h"
#include "lib/macro.h"
#include "lib/sched-info.h"
#include "lib/sched-effect.h"
#include "lib/proc.h"
#include "lib/group-subtree.h"
#include "lib/sched-group.h"
#include "lib/trust.h"
#include "lib/settings.h"
#include "lib/cgroup.h"
#include "policy/decide-task.h"

/* Settings as an object of policy-syntax strings: {"LatencyNice": "-5", ...}. */
static void json_settings(JsonWriter *w, const Settings *s)
{
        json_begin_object(w);
        for (SettingId id = 0; id < _SETTING_MAX; id++) {
                _cleanup_free_ char *v = NULL;

                if (!settings_has(s, id))
                        continue;
                if (setting_format(s, id, &v) < 0)
                        continue;
                json_kv_string(w, setting_to_string(id), v);
        }
        json_end_object(w);
}

static const char *name_of(const TaskNames *n)
{
        return n->argv0 ? n->argv0 : n->exe ? n->exe : n->comm;
}

static void json_names(JsonWriter *w, const TaskNames *n)
{
        json_begin_object(w);
        json_kv_string(w, "comm", n->comm);
        json_kv_string(w, "argv0", n->argv0);
        json_kv_string(w, "exe", n->exe);
        json_end_object(w);
}

static void json_task(JsonWriter *w, const ProcTask *t)
{
        const TaskSnapshot *v = &t->view;

        json_begin_object(w);
        json_kv_int(w, "pid", v->pid);
        json_kv_int(w, "ppid", t->ppid);
        json_kv_string(w, "comm", v->names.comm);
        json_kv_string(w, "argv0", v->names.argv0);
        json_kv_string(w, "exe", v->exe_path);
        json_kv_string(w, "cmdline", v->cmdline);
        json_kv_uint(w, "uid", v->uid);
        json_kv_string(w, "user", v->user);
        json_kv_uint(w, "gid", v->gid);
        json_kv_string(w, "group", v->group);
        json_kv_string(w, "cgroup", v->cgroup);
        json_kv_string(w, "unit", v->unit);
        json_kv_bool(w, "kernel_thread", t->kernel_thread);
        json_key(w, "ancestors");
        json_begin_array(w);
        for (size_t i = 0; i < v->n_ancestors; i++)
                json_names(w, &v->ancestors[i]);
        json_end_array(w);
        json_end_object(w);
}

/* Without --all, only the rules that matched are shown (text and JSON). */
static bool rule_shown(const RuleTrace *r, const CliOptions *o)
{
        return o->all || r->verdict == RULE_MATCHED;
}

static void json_trace(JsonWriter *w, const MatchTrace *trace, const CliOptions *o)
{
        json_begin_array(w);
        for (size_t i = 0; i < trace->n; i++) {
                const RuleTrace *r = &trace->rules[i];

                if (!rule_shown(r, o))
                        continue;

                json_begin_object(w);
                json_kv_string(w, "rule", r->rule);
                json_kv_string(w, "file", r->file);
                json_kv_uint(w, "line", r->line);
                json_kv_string(w, "verdict", rule_verdict_to_string(r->verdict));
                json_kv_string(w, "decider", r->decider);
                json_key(w, "settings");
                json_settings(w, &r->settings);
                json_end_object(w);
        }
        json_end_array(w);
}

static void json_result(JsonWriter *w, const Decision *d)
{
        _cleanup_free_ char *s = settings_to_string(&d->settings);
        Settings withheld = d->match.settings;

        withheld.mask = d->withheld;
        json_begin_object(w);
        json_kv_uint(w, "matched_rules", d->match.n_matched);
        json_kv_string(w, "last_rule", d->match.rule);
        json_kv_bool(w, "thread_dependent", d->match.thread_dependent);
        json_key(w, "settings");
        json_settings(w, &d->settings);
        json_kv_string(w, "summary", s);
        json_key(w, "withheld");
        json_settings(w, &withheld);
        json_kv_string(w, "withheld_reason", d->withheld_reason);
        json_end_object(w);
}

/* ---- Text ---------------------------------------------------------------- */

/* "  label:     value", the value cut to fit a terminal unless --full, and
 * whole when the output is not a terminal (JSON has it whole too). */
static void fact(const char *label, const char *value, const CliOptions *o)
{
        _cleanup_free_ char *clean = value ? cell_sanitize(value) : NULL, *cut = NULL;
        size_t width = o->columns;

        if (clean && o->tty && !o->full)
                cut = cell_truncate(clean, width > 13 ? width - 13 : 1);
        printf("  %-10s %s\n", label, cut ? cut : clean ? clean : value ? "?" : "-");
}

static void print_task(const ProcTask *t, const CliOptions *o)
{
        const TaskSnapshot *v = &t->view;
        _cleanup_free_ char *comm = cell_sanitize(v->names.comm ? v->names.comm : "");
        _cleanup_free_ char *parents = NULL, *user = NULL, *group = NULL;
        char buf[64];

        printf("%sProcess %d (%s)%s\n", cli_color(o, "bold"), (int)v->pid, comm ? comm : "?",
               cli_color(o, "reset"));
        fact("comm:", v->names.comm, o);
        fact("argv[0]:", v->names.argv0, o);
        fact("exe:", v->exe_path, o);
        fact("cmdline:", v->cmdline, o);
        if (asprintf(&user, "%u (%s)", (unsigned)v->uid, v->user ? v->user : "no name") < 0)
                user = NULL;
        fact("user:", user, o);
        if (asprintf(&group, "%u (%s)", (unsigned)v->gid, v->group ? v->group : "no name") < 0)
                group = NULL;
        fact("group:", group, o);
        fact("cgroup:", v->cgroup, o);
        fact("unit:", v->unit, o);
        snprintf(buf, sizeof(buf), "%d", (int)t->ppid);
        fact("ppid:", buf, o);
        for (size_t i = 0; i < v->n_ancestors; i++) {
                char *n;
                if (asprintf(&n, "%s%s%s", parents ? parents : "", i == 0 ? "" : " < ",
                             name_of(&v->ancestors[i])) < 0)
                        break;
                free(parents);
                parents = n;
        }
        fact("parents:", parents, o);
        if (t->kernel_thread)
                printf("  %sA kernel thread: latniced never touches it.%s\n",
                       cli_color(o, "yellow"), cli_color(o, "reset"));
}

static const char *short_path(const char *path)
{
        const char *s = path ? strrchr(path, '/') : NULL;
        return s ? s + 1 : strempty(path);
}

/* "N rules did not match, M come after Final=yes: --all shows them" */
static void print_hidden(const MatchTrace *trace, const CliOptions *o)
{
        size_t no = 0, skipped = 0;

        for (size_t i = 0; i < trace->n; i++)
                if (trace->rules[i].verdict == RULE_NOT_MATCHED)
                        no++;
                else if (trace->rules[i].verdict == RULE_SKIPPED_FINAL)
                        skipped++;
        if (o->all || !o->legend || no + skipped == 0)
                return;
        printf("%s(", cli_color(o, "grey"));
        if (no > 0)
                printf("%zu rule%s did not match", no, no == 1 ? "" : "s");
        if (skipped > 0)
                printf("%s%zu rule%s came after Final=yes", no > 0 ? ", " : "", skipped,
                       skipped == 1 ? "" : "s");
        printf("; --all shows %s)%s\n", no + skipped == 1 ? "it" : "them", cli_color(o, "reset"));
}

static void cells_free(char **cells, size_t n)
{
        for (size_t i = 0; cells && i < n; i++)
                free(cells[i]);
        free(cells);
}

/* Add a row whose cells may hold several lines ("\n", from table_fit()) as
 * that many table rows, the Nth line of each cell in the Nth ("" where a
 * cell has fewer lines). 0 or -ENOMEM. */
static int add_wrapped_row(Table *t, char *const *cells, size_t n_columns)
{
        _cleanup_free_ const char **pos = calloc(n_columns, sizeof(char *));
        _cleanup_free_ char **line = calloc(n_columns, sizeof(char *));
        bool more = true;
        int r = 0;

        if (!pos || !line)
                return -ENOMEM;
        for (size_t c = 0; c < n_columns; c++)
                pos[c] = cells[c];
        for (bool first = true; more && r >= 0; first = false) {
                more = false;
                for (size_t c = 0; c < n_columns; c++) {
                        const char *p = pos[c], *nl = p ? strchr(p, '\n') : NULL;

                        /* NULL: "-" on the first line; a cell that has ended: "" */
                        line[c] = p ? strndup(p, nl ? (size_t)(nl - p) : strlen(p))
                                    : strdup(first ? "-" : "");
                        if (!line[c])
                                r = -ENOMEM;
                        pos[c] = nl ? nl + 1 : NULL;
                        more = more || nl;
                }
                if (r >= 0)
                        r = table_add_row(t, (const char *const *)line);
                for (size_t c = 0; c < n_columns; c++)
                        line[c] = mfree(line[c]);
        }
        return r;
}

/* Fit the cells to the terminal (never cut, --full, a pipe: as they are) and
 * print them: the columns of YIELD wrap, first to give up first; what is
 * TABLE_FIT_KEEP is never cut. 0 or a negative errno. */
static int print_fitted(const CliOptions *o, char **cells, size_t n_rows, size_t n_columns,
                        const char *const *headers, const TableFitColumn *fit,
                        const size_t *yield, size_t n_yield, const size_t *right)
{
        _cleanup_(table_freep) Table *t = NULL;
        int r;

        r = table_fit(cells, n_rows, n_columns, o->legend ? headers : NULL, fit, yield, n_yield,
                      o->tty && !o->full ? o->columns : 0);
        if (r < 0)
                return r;
        t = cli_table_new(o, n_columns, headers);
        if (!t)
                return -ENOMEM;
        table_set_width(t, 0); /* fitted already: libsmartcols cuts nothing */
        for (size_t c = 0; right && c < n_columns; c++)
                if (right[c])
                        table_set_align(t, c, TABLE_ALIGN_RIGHT);
        for (size_t i = 0; i < n_rows; i++) {
                r = add_wrapped_row(t, cells + i * n_columns, n_columns);
                if (r < 0)
                        return r;
        }
        return table_print(t, stdout);
}

/* The rules' table. On a narrow terminal the predicate wraps first, then
 * the file:line, then the settings (at blanks); the rule's name is never
 * cut, nor is a setting. */
static int print_trace(const MatchTrace *trace, const CliOptions *o)
{
        static const char *const headers[] = { "VERDICT", "RULE", "WHERE", "DECIDED BY", "SETS" };
        static const TableFitColumn fit[] = {
                { TABLE_FIT_KEEP, 0 }, { TABLE_FIT_KEEP, 0 }, { TABLE_FIT_WRAP, 12 },
                { TABLE_FIT_WRAP, 16 }, { TABLE_FIT_WRAP_WORDS, 0 },
        };
        static const size_t yield[] = { 3, 2, 4 };
        char **cells = NULL;
        size_t n = 0;
        int r = 0;

        if (trace->n == 0) {
                printf("\nThe policy has no rules.\n");
                return 0;
        }
        cells = calloc(trace->n * 5, sizeof(char *));
        if (!cells)
                return -ENOMEM;
        for (size_t i = 0; i < trace->n && r >= 0; i++) {
                const RuleTrace *rt = &trace->rules[i];
                _cleanup_free_ char *sets = NULL;
                char **row = cells + n * 5;

                if (!rule_shown(rt, o))
                        continue;
                n++;
                sets = settings_to_string(&rt->settings);
                row[0] = strdup(rt->verdict == RULE_MATCHED       ? "matched"
                                : rt->verdict == RULE_NOT_MATCHED ? "no"
                                                                  : "skipped");
                row[1] = strdup(strempty(rt->rule));
                if (asprintf(&row[2], "%s:%u", short_path(rt->file), rt->line) < 0)
                        row[2] = NULL;
                row[3] = strdup(rt->verdict == RULE_SKIPPED_FINAL ? "an earlier rule has Final=yes"
                                                                  : strempty(rt->decider));
                row[4] = strdup(sets && sets[0] ? sets : "-");
                for (size_t c = 0; c < 5; c++)
                        if (!row[c])
                                r = -ENOMEM;
        }
        fputc('\n', stdout);
        if (r >= 0 && n > 0)
                r = print_fitted(o, cells, n, 5, headers, fit, yield, ELEMENTSOF(yield), NULL);
        cells_free(cells, n * 5);
        if (r < 0)
                return r;
        print_hidden(trace, o);
        return 0;
}

/* The [Unit] settings latniced applies per task to a process in its cgroup
 * (the cpu.* files for them are missing there), under the rules' own. */
static void print_unit_base(const TaskDecision *td, const CliOptions *o)
{
        _cleanup_free_ char *s = NULL;

        if (!td->has_base)
                return;
        s = settings_to_string(&td->base);
        printf("\n%s[Unit] settings%s of its cgroup (%s), per task: %s%s%s\n",
               cli_color(o, "bold"), cli_color(o, "reset"), strna(td->base_rule),
               cli_color(o, "green"), strna(s), cli_color(o, "reset"));
}

static void print_result(const TaskDecision *td, const Decision *d, const CliOptions *o,
                         const char *what)
{
        _cleanup_free_ char *s = settings_to_string(&d->settings);
        const MatchResult *m = &d->match;

        if (m->n_matched == 0 && !d->settings.mask && m->thread_dependent &&
            !td->p->view.thread) {
                /* thread:, main-thread: are false for the process as a whole */
                printf("\n%sResult%s for %s: no rule matches it as a whole; its threads are "
                       "matched one by one%s.\n",
                       cli_color(o, "bold"), cli_color(o, "reset"), what,
                       td->n_threads > 0 ? " (below)" : "");
                return;
        }
        if (m->n_matched == 0 && !d->settings.mask) {
                printf("\n%sResult%s for %s: no rule matches; latniced leaves it alone.\n",
                       cli_color(o, "bold"), cli_color(o, "reset"), what);
                return;
        }
        printf("\n%sResult%s for %s: %s%s%s\n", cli_color(o, "bold"), cli_color(o, "reset"), what,
               cli_color(o, "green"), s && s[0] ? s : "no settings", cli_color(o, "reset"));
        if (m->n_matched > 0)
                printf("  from %zu matching rule%s, the last one \"%s\"%s\n", m->n_matched,
                       m->n_matched == 1 ? "" : "s", strna(m->rule),
                       td->has_base ? ", over the [Unit] settings" : "");
        else
                printf("  from the [Unit] settings of %s; no rule matches\n",
                       strna(td->base_rule));
        if (d->withheld) {
                Settings w = td->has_base ? td->base : (Settings){};
                _cleanup_free_ char *ws = NULL, *why = NULL;

                /* The rules' values over the [Unit] base's, as decided. */
                if (m->n_matched > 0)
                        settings_merge(&w, &m->settings);
                w.mask = d->withheld;
                ws = settings_to_string(&w);
                why = cell_sanitize(strna(d->withheld_reason));
                printf("  %sBoosts withheld%s: %s, as %s\n", cli_color(o, "yellow"),
                       cli_color(o, "reset"), strna(ws), why ? why : "?");
        }
}

/* ---- The verb ------------------------------------------------------------ */

/* Everything explain shows, gathered before anything is printed. */
typedef struct Explanation {
        pid_t pid, tid;
        const Policy *policy;   /* borrowed: one for every PID explained */
        size_t n_errors;
        MatchTrace trace;
        TaskDecision td;        /* the front door's: snapshot, [Unit] base, decisions */
        SchedGroup group;       /* the group that holds the process (group settings) */
        pid_t *members;         /* its other processes, at most GROUP_MEMBERS_MAX */
        size_t n_members;
        const char *latency_missing; /* why CPULatencyNice= cannot reach it; NULL: it can */
        int shared;             /* group_subtree_other_user() for the process's uid; 0: not */
        pid_t shared_pid;       /* with shared 1: another user's process in its subtree */
        uid_t shared_uid;

        char *budget_reason;    /* latniced took the boosts back (its budget), or NULL */
        char *scx_state, *scx_ops; /* the sched_ext state (latniced's, else sysfs's) */
        Settings scx_task, scx_group; /* what latniced writes under it (sched-effect.h) */
        uint32_t scx_masked;    /* what it leaves out or caps; 0: nothing */
        char *focus_state;      /* latniced's focus store: "yes", "no", or NULL */
        char *focus_fact;       /* and why, in its words */
        uint64_t unfocused_usec; /* for how long it has been unfocused ("unfocused" key) */
        char *audio_state;      /* latniced's audio store: "playing", "no", or NULL */
        char *audio_fact;       /* and why, in its words */
} Explanation;

#define GROUP_MEMBERS_MAX 16

static void explanation_done(Explanation *e)
{
        free(e->scx_state);
        free(e->scx_ops);
        task_decision_done(&e->td);
        match_trace_done(&e->trace);
        sched_group_done(&e->group);
        free(e->members);
        free(e->budget_reason);
        free(e->focus_state);
        free(e->focus_fact);
        free(e->audio_state);
        free(e->audio_fact);
}

/* Under a sched_ext scheduler (as latniced sees it, else as sysfs says),
 * what latniced writes of the result: E->scx_*. 0 or -ENOMEM. */
static int explain_sched_ext(Explanation *e, const CliOptions *o)
{
        int r = cli_daemon_sched_ext(o, &e->scx_state, &e->scx_ops);

        if (r == 0) {
                ScxState st;

                r = scx_state_read(NULL, &st, &e->scx_ops);
                if (r >= 0 && !(e->scx_state = strdup(scx_state_to_string(st))))
                        r = -ENOMEM;
        }
        if (r < 0)
                return r;
        e->scx_task = e->td.d.settings;
        e->scx_group = e->td.d.group;
        if (streq(e->scx_state, "enabled") || streq(e->scx_state, "enabling")) {
                e->scx_masked = sched_ext_mask_settings(true, &e->scx_task);
                e->scx_masked |= sched_ext_mask_settings(true, &e->scx_group);
        }
        return 0;
}

/* What a sched_ext scheduler leaves of the result, said once. */
static void print_sched_ext(const Explanation *e, const CliOptions *o)
{
        _cleanup_free_ char *t = NULL, *g = NULL;

        if (!e->scx_masked)
                return;
        t = settings_to_string(&e->scx_task);
        g = settings_to_string(&e->scx_group);
        printf("  %sUnder sched_ext%s (scheduler %s, %s): it reads no slice, no latency nice and "
               "no group settings, so latniced writes only %s%s%s, Nice= kept within -%d..%d\n",
               cli_color(o, "yellow"), cli_color(o, "reset"), e->scx_ops ? e->scx_ops : "unknown",
               e->scx_state, t && *t ? t : "nothing", g && *g ? " and for the group " : "",
               g && *g ? g : "", SCHED_EXT_NICE_CAP, SCHED_EXT_NICE_CAP);
}

/* The PIDs of ARGV (NULL-terminated copy in *RET): all numbers, at least one,
 * and only one with --tid. CLI_EXIT_SUCCESS or a usage error. */
static int parse_pids(int argc, char **argv, const CliOptions *o, pid_t **ret, size_t *ret_n)
{
        _cleanup_free_ char **args = NULL;
        _cleanup_free_ pid_t *pids = NULL;
        size_t n;
        int r;

        r = cli_positional_args(argc, argv, "explain", &args, &n);
        if (r != 0)
                return r;
        if (n == 0)
                return cli_usage_error("explain needs a PID, found none (with $(pidof NAME): no "
                                       "process of that name runs)");
        if (n > 1 && o->tid > 0)
                return cli_usage_error("--tid %d names a thread of one process, found %zu PIDs",
                                       (int)o->tid, n);
        pids = calloc(n, sizeof(pid_t));
        if (!pids)
                return cli_error("out of memory");
        for (size_t i = 0; i < n; i++)
                if (cli_parse_pid(args[i], &pids[i]) < 0)
                        return cli_usage_error("expected a PID (a positive number), found '%s'",
                                               args[i]);
        *ret = TAKE_PTR(pids);
        *ret_n = n;
        return CLI_EXIT_SUCCESS;
}

/* The process of the PID given, and --tid from O; a thread id given as PID
 * means that thread. An exit status, after saying what is wrong. */
static int resolve_target(pid_t given, const CliOptions *o, pid_t *ret_pid, pid_t *ret_tid)
{
        pid_t pid = given, tid = o->tid, tgid;
        int r;

        r = proc_tgid(o->proc_root, pid, &tgid);
        if (errno_is_gone(r))
                return cli_error("no process with PID %d", (int)pid);
        if (r >= 0 && tgid != pid) {
                if (tid > 0 && tid != pid)
                        return cli_usage_error("%d is a thread of process %d, and --tid %d was "
                                               "given too",
                                               (int)pid, (int)tgid, (int)tid);
                tid = pid;
                pid = tgid;
        }
        if (tid > 0) {
                pid_t owner;
                r = proc_tgid(o->proc_root, tid, &owner);
                if (r < 0 || owner != pid)
                        return cli_error("no thread %d in process %d", (int)tid, (int)pid);
        }
        *ret_pid = pid;
        *ret_tid = tid;
        return CLI_EXIT_SUCCESS;
}

/* Is the group shared with another user than the process's, in its whole
 * subtree, as latniced decides it (daemon/groups/groups.h: root's processes may
 * change theirs)? */
static int explain_shared(Explanation *e, const CliOptions *o)
{
        uid_t uid;
        int r;

        if (!e->td.d.group.mask || e->group.kind == SCHED_GROUP_NONE ||
            proc_real_uid(o->proc_root, e->pid, &uid) < 0 || uid == 0)
                return 0;
        r = group_subtree_other_user(&e->group, o->proc_root, uid, GROUP_SUBTREE_CGROUPS_MAX,
                                     GROUP_SUBTREE_PROCS_MAX, &e->shared_pid, &e->shared_uid);
        if (r == -ENOMEM)
                return r;
        e->shared = r == -ENOENT ? 0 : r;
        return 0;
}

/* The group the group settings act on, and who else is in it. */
static int explain_group(Explanation *e, const CliOptions *o)
{
        SchedGroupRoots roots = {};
        int r;

        r = sched_group_roots_find(&roots);
        if (r >= 0)
                r = sched_group_of(&roots, o->proc_root, e->pid, &e->group);
        sched_group_roots_done(&roots);
        if (r < 0)
                return r == -ENOMEM || r == -ESRCH ? r : 0;
        if (settings_has(&e->td.d.group, SETTING_CPU_LATENCY_NICE))
                e->latency_missing = sched_group_latency_nice_missing(&e->group);
        r = sched_group_members(&e->group, o->proc_root, e->pid, GROUP_MEMBERS_MAX, &e->members,
                                &e->n_members);
        if (r == -ENOMEM)
                return r;
        return explain_shared(e, o);
}

/* The policy on disk, read once for every PID; its errors are counted and
 * said once. A CLI exit status. */
static int explain_load_policy(const CliOptions *o, Policy **ret, size_t *ret_errors)
{
        Diagnostics diags = {};
        size_t n_errors;
        int r;

        r = policy_load(cli_policy_dirs(o), NULL, ret, &diags);
        n_errors = diagnostics_count(&diags, DIAG_ERROR);
        diagnostics_done(&diags);
        if (r < 0) {
                errno = -r;
                return cli_error("failed to load the policy: %m");
        }
        if (n_errors > 0)
                fprintf(stderr,
                        "latnicectl: the policy has %zu error%s; files with errors are left out "
                        "(see 'latnicectl check')\n",
                        n_errors, n_errors == 1 ? "" : "s");
        *ret_errors = n_errors;
        return CLI_EXIT_SUCCESS;
}

/* The cgroup2 tree whose [Unit] sections latniced applies: --cgroup-root,
 * else the cgroup2 mount (*RET NULL when there is none: no [Unit] base). */
static int explain_cgroup_root(const CliOptions *o, char **ret)
{
        int r;

        *ret = NULL;
        if (o->cgroup_root) {
                *ret = strdup(o->cgroup_root);
                return *ret ? 0 : -ENOMEM;
        }
        r = cg_find_mount(ret);
        return r == -ENOMEM ? r : 0;
}

/* The snapshot's live facts, which latniced knows and /proc does not. */
static int explain_prepare(void *userdata, TaskDecision *td)
{
        const Explanation *e = userdata;

        td->p->view.focused = e->focus_state;
        td->p->view.unfocused_usec = e->unfocused_usec;
        td->p->view.audio = e->audio_state;
        return 0;
}

/* Read the task and decide (E->policy is read already), through the front
 * door, as latniced decides. A CLI exit status. */
static int explain_gather(Explanation *e, const CliOptions *o)
{
        _cleanup_free_ char *cgroup_root = NULL;
        int r;

        /* What the policy on disk says, but a boost latniced's budget took
         * back stays taken: ask it (best effort, nothing if it is not there). */
        if (cli_daemon_budget_reason(o, e->pid, &e->budget_reason) == -ENOMEM ||
            explain_cgroup_root(o, &cgroup_root) < 0)
                return cli_error("out of memory");
        /* The focus is latniced's to know (daemon/desktop/focus.h): ask it. */
        if (cli_daemon_focus(o, e->pid, &e->focus_state, &e->focus_fact, &e->unfocused_usec) == -ENOMEM)
                return cli_error("out of memory");
        /* So are its audio streams (daemon/desktop/audio.h). */
        if (cli_daemon_audio(o, e->pid, &e->audio_state, &e->audio_fact) == -ENOMEM)
                return cli_error("out of memory");
        /* All of the task that is shown, and whatever else the policy reads;
         * per-thread results when thread rules exist (and no single thread
         * was asked for). */
        r = task_decide(&(const DecideRequest){ .policy = e->policy,
                                                .proc_root = o->proc_root,
                                                .cgroup_root = cgroup_root,
                                                .pid = e->pid,
                                                .tid = e->tid,
                                                .read = PROC_READ_TASK | PROC_READ_ANCESTORS,
                                                .threads = true,
                                                .revoked = e->budget_reason,
                                                .prepare = explain_prepare,
                                                .userdata = e,
                                                .trace = &e->trace },
                        &e->td);
        if (r >= 0 && e->td.d.group.mask)
                r = explain_group(e, o);
        if (r >= 0)
                r = explain_sched_ext(e, o);
        if (errno_is_gone(r))
                return cli_error("no process with PID %d", (int)e->pid);
        if (r < 0 && !e->td.p) {
                errno = -r;
                return cli_error("failed to read process %d from %s: %m", (int)e->pid,
                                 o->proc_root);
        }
        if (r < 0) {
                errno = -r;
                return cli_error("failed to read the threads of %d: %m", (int)e->pid);
        }
        return CLI_EXIT_SUCCESS;
}

/* One process's object, into W (the document, or an array of several). */
static void explain_json(JsonWriter *wp, const Explanation *e, const CliOptions *o)
{
#define w (*wp)
        json_begin_object(&w);
        json_kv_int(&w, "pid", e->pid);
        json_key(&w, "tid");
        if (e->tid > 0)
                json_int(&w, e->tid);
        else
                json_null(&w);
        json_kv_string(&w, "thread", e->td.p->view.thread);
        json_kv_string(&w, "focused", e->focus_state);
        json_kv_string(&w, "focus", e->focus_fact);
        json_kv_string(&w, "audio", e->audio_state);
        json_kv_string(&w, "audio_fact", e->audio_fact);
        json_key(&w, "task");
        json_task(&w, e->td.p);
        json_key(&w, "policy");
        json_begin_object(&w);
        json_kv_uint(&w, "files", policy_n_files(e->policy));
        json_kv_uint(&w, "rules", policy_n_rules(e->policy));
        json_kv_uint(&w, "errors", e->n_errors);
        json_kv_bool(&w, "thread_rules", policy_has_thread_rules(e->policy));
        json_end_object(&w);
        json_kv_bool(&w, "all_rules", o->all);
        json_key(&w, "rules");
        json_trace(&w, &e->trace, o);
        json_key(&w, "unit_settings");
        if (e->td.has_base) {
                json_begin_object(&w);
                json_kv_string(&w, "rule", e->td.base_rule);
                json_key(&w, "settings");
                json_settings(&w, &e->td.base);
                json_end_object(&w);
        } else
                json_null(&w);
        json_key(&w, "result");
        json_result(&w, &e->td.d);
        json_key(&w, "sched_ext");
        json_begin_object(&w);
        json_kv_string(&w, "state", e->scx_state);
        json_kv_string(&w, "scheduler", e->scx_ops);
        json_key(&w, "task_settings_written");
        json_settings(&w, &e->scx_task);
        json_key(&w, "group_settings_written");
        json_settings(&w, &e->scx_group);
        json_end_object(&w);
        json_key(&w, "group");
        json_begin_object(&w);
        json_kv_string(&w, "name", e->group.kind == SCHED_GROUP_NONE ? NULL : e->group.name);
        json_key(&w, "settings");
        json_settings(&w, &e->td.d.group);
        json_kv_string(&w, "latency_nice_missing", e->latency_missing);
        json_kv_bool(&w, "shared_with_other_user", e->shared != 0);
        json_key(&w, "other_members");
        json_begin_array(&w);
        for (size_t i = 0; i < e->n_members; i++)
                json_int(&w, e->members[i]);
        json_end_array(&w);
        json_end_object(&w);
        json_key(&w, "threads");
        json_begin_array(&w);
        for (size_t i = 0; i < e->td.n_threads; i++) {
                json_begin_object(&w);
                json_kv_int(&w, "tid", e->td.threads[i].tid);
                json_kv_string(&w, "name", e->td.threads[i].name);
                json_key(&w, "result");
                json_result(&w, &e->td.threads[i].d);
                json_end_object(&w);
        }
        json_end_array(&w);
        json_end_object(&w);
#undef w
}

/* Per thread: the thread's name wraps first, then the settings (at blanks);
 * the rule's name is never cut. */
static int print_threads(const Explanation *e, const CliOptions *o)
{
        static const char *const headers[] = { "TID", "THREAD", "RULE", "SETTINGS" };
        static const TableFitColumn fit[] = {
                { TABLE_FIT_KEEP, 0 }, { TABLE_FIT_WRAP, 8 }, { TABLE_FIT_KEEP, 0 },
                { TABLE_FIT_WRAP_WORDS, 0 },
        };
        static const size_t yield[] = { 1, 3 }, right[] = { 1, 0, 0, 0 };
        char **cells = calloc(e->td.n_threads * 4 + 1, sizeof(char *));
        int r = 0;

        printf("\nThreads (matched one by one, as the policy has thread rules):\n");
        if (!cells)
                return -ENOMEM;
        for (size_t i = 0; r >= 0 && i < e->td.n_threads; i++) {
                const Decision *d = &e->td.threads[i].d;
                _cleanup_free_ char *s = settings_to_string(&d->settings);
                char **row = cells + i * 4;

                if (asprintf(&row[0], "%d", (int)e->td.threads[i].tid) < 0)
                        row[0] = NULL;
                row[1] = strdup(strempty(e->td.threads[i].name));
                row[2] = strdup(d->rule ? d->rule : "-");
                row[3] = strdup(s && s[0] ? s : "-");
                for (size_t c = 0; c < 4; c++)
                        if (!row[c])
                                r = -ENOMEM;
        }
        if (r >= 0)
                r = print_fitted(o, cells, e->td.n_threads, 4, headers, fit, yield, ELEMENTSOF(yield),
                                 right);
        cells_free(cells, e->td.n_threads * 4);
        return r;
}

static void print_shared(const Explanation *e, const CliOptions *o)
{
        if (e->shared > 0)
                printf("  %sshared with another user%s: process %d of uid %u is in it or a cgroup "
                       "below it; latniced does not change the group for this process's rules\n",
                       cli_color(o, "yellow"), cli_color(o, "reset"), (int)e->shared_pid,
                       (unsigned)e->shared_uid);
        else if (e->shared < 0)
                printf("  %sshared with another user%s, as latniced counts it: %s; latniced does "
                       "not change the group for this process's rules\n",
                       cli_color(o, "yellow"), cli_color(o, "reset"),
                       e->shared == -E2BIG ? "too many cgroups or processes below it to check"
                                           : "its processes cannot all be read");
}

static void print_group(const Explanation *e, const CliOptions *o)
{
        _cleanup_free_ char *s = NULL;

        if (!e->td.d.group.mask)
                return;
        s = settings_to_string(&e->td.d.group);
        if (e->group.kind == SCHED_GROUP_NONE) {
                printf("  Group settings %s: the process is in a root group, which latniced "
                       "never changes\n",
                       strna(s));
                return;
        }
        printf("  Group settings %s for its %s\n", strna(s), e->group.name);
        if (e->latency_missing)
                printf("  %sCPULatencyNice= does not reach it%s: %s\n", cli_color(o, "yellow"),
                       cli_color(o, "reset"), e->latency_missing);
        print_shared(e, o);
        if (e->n_members == 0) {
                printf("  which holds no other process\n");
                return;
        }
        printf("  %swhich also holds%s", cli_color(o, "yellow"), cli_color(o, "reset"));
        for (size_t i = 0; i < e->n_members; i++) {
                _cleanup_free_ char *comm = NULL, *clean = NULL;

                (void)proc_thread_comm(o->proc_root, e->members[i], e->members[i], &comm);
                clean = comm ? cell_sanitize(comm) : NULL;
                printf("%s %d (%s)", i == 0 ? "" : ",", (int)e->members[i], clean ? clean : "?");
        }
        printf("%s\n", e->n_members == GROUP_MEMBERS_MAX ? ", ..." : "");
        if (settings_has(&e->td.d.group, SETTING_GROUP_SCOPE) &&
            e->td.d.group.group_scope == GROUP_SCOPE_OWN)
                printf("  GroupScope=own: not these: latniced asks systemd for a scope of its own "
                       "for the process, or else leaves the group settings out (see "
                       "latnice.policy(5))\n");
}

static int explain_text(const Explanation *e, const CliOptions *o)
{
        const Policy *p = e->policy;
        char what[64];
        int r;

        print_task(e->td.p, o);
        if (e->focus_fact)
                fact("focus:", e->focus_fact, o);
        if (e->audio_fact)
                fact("audio:", e->audio_fact, o);
        if (e->tid > 0) {
                _cleanup_free_ char *n = cell_sanitize(strempty(e->td.p->view.thread));
                printf("  %-10s %d (%s)\n", "thread:", (int)e->tid, n ? n : "?");
        }
        printf("\nPolicy: %zu file%s, %zu rule%s%s\n", policy_n_files(p),
               policy_n_files(p) == 1 ? "" : "s", policy_n_rules(p),
               policy_n_rules(p) == 1 ? "" : "s",
               policy_has_thread_rules(p) ? ", with thread rules" : "");
        r = print_trace(&e->trace, o);
        if (r < 0)
                return r;
        if (e->tid > 0)
                snprintf(what, sizeof(what), "thread %d", (int)e->tid);
        else
                snprintf(what, sizeof(what), "process %d", (int)e->pid);
        print_unit_base(&e->td, o);
        print_result(&e->td, &e->td.d, o, what);
        print_sched_ext(e, o);
        print_group(e, o);
        if (e->td.d.match.thread_dependent && e->tid == 0 && e->td.n_threads == 0)
                printf("A thread predicate (thread:, main-thread:) took part: see --tid TID.\n");
        if (e->td.n_threads > 0) {
                r = print_threads(e, o);
                if (r < 0)
                        return r;
        }
        return fflush(stdout) == 0 && !ferror(stdout) ? 0 : -EIO;
}

/* Explain the process GIVEN: text on stdout, or its object into W. An
 * exit status; a failure has been said, naming the PID. */
static int explain_one(pid_t given, const Policy *p, size_t n_errors, JsonWriter *w,
                       const CliOptions *o)
{
        _cleanup_(explanation_done) Explanation e = { .policy = p, .n_errors = n_errors };
        int r;

        r = resolve_target(given, o, &e.pid, &e.tid);
        if (r != CLI_EXIT_SUCCESS)
                return r;
        r = explain_gather(&e, o);
        if (r != CLI_EXIT_SUCCESS)
                return r;
        if (w) {
                explain_json(w, &e, o);
                return CLI_EXIT_SUCCESS;
        }
        r = explain_text(&e, o);
        if (r == -ENOMEM)
                return cli_error("out of memory");
        if (r < 0)
                return cli_error("failed to write the output");
        return CLI_EXIT_SUCCESS;
}

int verb_explain(int argc, char **argv, const CliOptions *o)
{
        _cleanup_(policy_freep) Policy *p = NULL;
        _cleanup_free_ pid_t *pids = NULL;
        size_t n = 0, n_errors = 0;
        JsonWriter w;
        int r, ret = CLI_EXIT_SUCCESS;
        bool shown = false;

        r = parse_pids(argc, argv, o, &pids, &n);
        if (r != CLI_EXIT_SUCCESS)
                return r;
        r = explain_load_policy(o, &p, &n_errors);
        if (r != CLI_EXIT_SUCCESS)
                return r;

        /* JSON: one object for one PID, an array of them for several */
        if (o->json) {
                json_writer_init(&w, stdout);
                if (n > 1)
                        json_begin_array(&w);
        }
        for (size_t i = 0; i < n; i++) {
                /* text: a blank line between two processes */
                if (!o->json && shown)
                        fputc('\n', stdout);
                r = explain_one(pids[i], p, n_errors, o->json ? &w : NULL, o);
                if (r == CLI_EXIT_SUCCESS)
                        shown = true;
                else if (n == 1 || r == CLI_EXIT_USAGE)
                        return r;
                else
                        ret = CLI_EXIT_FAILURE; /* said, naming the PID; go on with the next */
                (void)fflush(stdout);
        }
        if (o->json) {
                if (n > 1)
                        json_end_array(&w);
                r = json_writer_finish(&w); /* with several, the array even if empty */
                if (r < 0)
                        return cli_error("failed to write the output");
        }
        return ret;
}
