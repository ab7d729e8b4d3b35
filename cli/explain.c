/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * latnicectl explain PID [--tid TID] [--all]: what the policy on disk decides
 * for a process, from /proc (no daemon needed): the rules that apply and the
 * predicate that decided each, or with --all every rule, matched or not.
 */
#include <inttypes.h>

#include "cli/cli.h"
#include "cli/json.h"
#include "cli/table.h"
#include "lib/macro.h"
#include "lib/proc.h"
#include "lib/group-subtree.h"
#include "lib/sched-group.h"
#include "lib/trust.h"
#include "lib/settings.h"
#include "policy/decide.h"

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

static int print_trace(const MatchTrace *trace, const CliOptions *o)
{
        _cleanup_(table_freep) Table *t = NULL;
        int r;

        if (trace->n == 0) {
                printf("\nThe policy has no rules.\n");
                return 0;
        }
        t = cli_table_new(o, 5, (const char *[]){ "VERDICT", "RULE", "WHERE", "DECIDED BY", "SETS" });
        if (!t)
                return -ENOMEM;
        table_set_shrinkable(t, 0, false);
        for (size_t i = 0; i < trace->n; i++) {
                const RuleTrace *rt = &trace->rules[i];
                _cleanup_free_ char *where = NULL, *sets = NULL;
                const char *verdict = rt->verdict == RULE_MATCHED       ? "matched"
                                      : rt->verdict == RULE_NOT_MATCHED ? "no"
                                                                        : "skipped";

                if (!rule_shown(rt, o))
                        continue;
                if (asprintf(&where, "%s:%u", short_path(rt->file), rt->line) < 0) {
                        where = NULL;
                        return -ENOMEM;
                }
                sets = settings_to_string(&rt->settings);
                if (!sets)
                        return -ENOMEM;
                r = table_add_row(t, (const char *[]){
                                             verdict, rt->rule, where,
                                             rt->verdict == RULE_SKIPPED_FINAL
                                                     ? "an earlier rule has Final=yes"
                                                     : rt->decider,
                                             sets[0] ? sets : "-" });
                if (r < 0)
                        return r;
        }
        fputc('\n', stdout);
        if (table_n_rows(t) > 0) {
                r = table_print(t, stdout);
                if (r < 0)
                        return r;
        }
        print_hidden(trace, o);
        return 0;
}

static void print_result(const Decision *d, const CliOptions *o, const char *what)
{
        _cleanup_free_ char *s = settings_to_string(&d->settings);
        const MatchResult *m = &d->match;

        if (m->n_matched == 0) {
                printf("\n%sResult%s for %s: no rule matches; latniced leaves it alone.\n",
                       cli_color(o, "bold"), cli_color(o, "reset"), what);
                return;
        }
        printf("\n%sResult%s for %s: %s%s%s\n", cli_color(o, "bold"), cli_color(o, "reset"), what,
               cli_color(o, "green"), s && s[0] ? s : "no settings", cli_color(o, "reset"));
        printf("  from %zu matching rule%s, the last one \"%s\"\n", m->n_matched,
               m->n_matched == 1 ? "" : "s", strna(m->rule));
        if (d->withheld) {
                Settings w = m->settings;
                _cleanup_free_ char *ws = NULL, *why = NULL;

                w.mask = d->withheld;
                ws = settings_to_string(&w);
                why = cell_sanitize(strna(d->withheld_reason));
                printf("  %sBoosts withheld%s: %s, as %s\n", cli_color(o, "yellow"),
                       cli_color(o, "reset"), strna(ws), why ? why : "?");
        }
}

/* ---- The verb ------------------------------------------------------------ */

typedef struct ThreadResult {
        pid_t tid;
        char *name;
        Decision result;
} ThreadResult;

static void thread_results_free(ThreadResult *r, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(r[i].name);
        free(r);
}

/* What explain reads of a task: all of it that is shown, and whatever else
 * the policy P reads (policy_read_plan()). */
static ProcReadPlan explain_plan(const Policy *p)
{
        return PROC_READ_TASK | PROC_READ_ANCESTORS | (policy_read_plan(p) & ~PROC_READ_THREAD);
}

/* Match every thread of PID separately (thread rules). */
static int match_threads(const CliOptions *o, const Policy *p, pid_t pid, BoostFactsCache *facts,
                         ThreadResult **ret, size_t *ret_n)
{
        _cleanup_free_ pid_t *tids = NULL;
        ThreadResult *res = NULL;
        size_t n_tids = 0, n = 0;
        int r;

        r = proc_threads(o->proc_root, pid, &tids, &n_tids);
        if (r < 0)
                return r;
        res = calloc(n_tids ? n_tids : 1, sizeof(ThreadResult));
        if (!res)
                return -ENOMEM;
        for (size_t i = 0; i < n_tids; i++) {
                _cleanup_(proc_task_freep) ProcTask *t = NULL;

                r = proc_task_read(o->proc_root, pid, tids[i], explain_plan(p) | PROC_READ_THREAD,
                                   &t);
                if (errno_is_gone(r))
                        continue; /* the thread exited meanwhile */
                if (r < 0) {
                        thread_results_free(res, n);
                        return r;
                }
                r = policy_decide(p, &t->view, NULL, NULL, facts, &res[n].result, NULL);
                if (r < 0) {
                        thread_results_free(res, n);
                        return r;
                }
                res[n].tid = tids[i];
                res[n].name = strdup(strempty(t->view.thread));
                if (!res[n].name) {
                        thread_results_free(res, n);
                        return -ENOMEM;
                }
                n++;
        }
        *ret = res;
        *ret_n = n;
        return 0;
}

/* Everything explain shows, gathered before anything is printed. */
typedef struct Explanation {
        pid_t pid, tid;
        ProcTask *task;
        Policy *policy;
        size_t n_errors;
        MatchTrace trace;
        Decision result;
        ThreadResult *threads;
        size_t n_threads;
        BoostFactsCache facts;
        SchedGroup group;       /* the group that holds the process (group settings) */
        pid_t *members;         /* its other processes, at most GROUP_MEMBERS_MAX */
        size_t n_members;
        const char *latency_missing; /* why CPULatencyNice= cannot reach it; NULL: it can */
        int shared;             /* group_subtree_other_user() for the process's uid; 0: not */
        pid_t shared_pid;       /* with shared 1: another user's process in its subtree */
        uid_t shared_uid;

        char *budget_reason;    /* latniced took the boosts back (its budget), or NULL */
} Explanation;

#define GROUP_MEMBERS_MAX 16

static void explanation_done(Explanation *e)
{
        thread_results_free(e->threads, e->n_threads);
        match_trace_done(&e->trace);
        boost_facts_cache_done(&e->facts);
        sched_group_done(&e->group);
        free(e->members);
        free(e->budget_reason);
        policy_free(e->policy);
        proc_task_free(e->task);
}

/* PID from ARGV, --tid from O; a thread id given as PID means that thread. */
static int parse_target(int argc, char **argv, const CliOptions *o, pid_t *ret_pid, pid_t *ret_tid)
{
        _cleanup_free_ char **args = NULL;
        pid_t pid = 0, tid = o->tid, tgid;
        size_t n;
        int r;

        r = cli_positional_args(argc, argv, "explain", &args, &n);
        if (r != 0)
                return r;
        if (n == 0)
                return cli_usage_error("explain needs a PID");
        if (cli_parse_pid(args[0], &pid) < 0)
                return cli_usage_error("expected a PID (a positive number), found '%s'", args[0]);
        if (n > 1)
                return cli_usage_error("explain takes one PID, found '%s' too", args[1]);

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
 * subtree, as latniced decides it (daemon/groups.h: root's processes may
 * change theirs)? */
static int explain_shared(Explanation *e, const CliOptions *o)
{
        uid_t uid;
        int r;

        if (!e->result.group.mask || e->group.kind == SCHED_GROUP_NONE ||
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
        if (settings_has(&e->result.group, SETTING_CPU_LATENCY_NICE))
                e->latency_missing = sched_group_latency_nice_missing(&e->group);
        r = sched_group_members(&e->group, o->proc_root, e->pid, GROUP_MEMBERS_MAX, &e->members,
                                &e->n_members);
        if (r == -ENOMEM)
                return r;
        return explain_shared(e, o);
}

/* Read the task and the policy, and decide. A CLI exit status. */
static int explain_gather(Explanation *e, const CliOptions *o)
{
        Diagnostics diags = {};
        int r;

        /* the policy first: it says what else to read of the task */
        r = policy_load(cli_policy_dirs(o), NULL, &e->policy, &diags);
        e->n_errors = diagnostics_count(&diags, DIAG_ERROR);
        diagnostics_done(&diags);
        if (r < 0) {
                errno = -r;
                return cli_error("failed to load the policy: %m");
        }
        r = proc_task_read(o->proc_root, e->pid, e->tid,
                           explain_plan(e->policy) | (e->tid > 0 ? PROC_READ_THREAD : 0),
                           &e->task);
        if (errno_is_gone(r))
                return cli_error("no process with PID %d", (int)e->pid);
        if (r < 0) {
                errno = -r;
                return cli_error("failed to read process %d from %s: %m", (int)e->pid,
                                 o->proc_root);
        }
        if (e->n_errors > 0)
                fprintf(stderr,
                        "latnicectl: the policy has %zu error%s; files with errors are left out "
                        "(see 'latnicectl check')\n",
                        e->n_errors, e->n_errors == 1 ? "" : "s");

        e->facts = (BoostFactsCache){ .proc_root = o->proc_root, .pid = e->pid,
                                      .uid = e->task->view.uid };
        /* What the policy on disk says, but a boost latniced's budget took
         * back stays taken: ask it (best effort, nothing if it is not there). */
        if (cli_daemon_budget_reason(o, e->pid, &e->budget_reason) == -ENOMEM)
                return cli_error("out of memory");
        e->facts.revoked = e->budget_reason;
        r = policy_decide(e->policy, &e->task->view, NULL, NULL, &e->facts, &e->result, &e->trace);
        if (r == 0 && e->tid == 0 && policy_has_thread_rules(e->policy))
                /* Per-thread results when thread rules exist (and no single thread was asked for). */
                r = match_threads(o, e->policy, e->pid, &e->facts, &e->threads, &e->n_threads);
        if (r == 0 && e->result.group.mask)
                r = explain_group(e, o);
        if (r == -ESRCH)
                return cli_error("no process with PID %d", (int)e->pid);
        if (r < 0) {
                errno = -r;
                return cli_error("failed to read the threads of %d: %m", (int)e->pid);
        }
        return CLI_EXIT_SUCCESS;
}

static int explain_json(const Explanation *e, const CliOptions *o)
{
        JsonWriter w;

        json_writer_init(&w, stdout);
        json_begin_object(&w);
        json_kv_int(&w, "pid", e->pid);
        json_key(&w, "tid");
        if (e->tid > 0)
                json_int(&w, e->tid);
        else
                json_null(&w);
        json_kv_string(&w, "thread", e->task->view.thread);
        json_key(&w, "task");
        json_task(&w, e->task);
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
        json_key(&w, "result");
        json_result(&w, &e->result);
        json_key(&w, "group");
        json_begin_object(&w);
        json_kv_string(&w, "name", e->group.kind == SCHED_GROUP_NONE ? NULL : e->group.name);
        json_key(&w, "settings");
        json_settings(&w, &e->result.group);
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
        for (size_t i = 0; i < e->n_threads; i++) {
                json_begin_object(&w);
                json_kv_int(&w, "tid", e->threads[i].tid);
                json_kv_string(&w, "name", e->threads[i].name);
                json_key(&w, "result");
                json_result(&w, &e->threads[i].result);
                json_end_object(&w);
        }
        json_end_array(&w);
        json_end_object(&w);
        return json_writer_finish(&w);
}

static int print_threads(const Explanation *e, const CliOptions *o)
{
        _cleanup_(table_freep) Table *t = NULL;
        int r = 0;

        printf("\nThreads (matched one by one, as the policy has thread rules):\n");
        t = cli_table_new(o, 4, (const char *[]){ "TID", "THREAD", "RULE", "SETTINGS" });
        if (!t)
                return -ENOMEM;
        table_set_align(t, 0, TABLE_ALIGN_RIGHT);
        table_set_shrinkable(t, 0, false);
        for (size_t i = 0; r >= 0 && i < e->n_threads; i++) {
                const Decision *d = &e->threads[i].result;
                _cleanup_free_ char *s = settings_to_string(&d->settings);
                char tbuf[16];

                snprintf(tbuf, sizeof(tbuf), "%d", (int)e->threads[i].tid);
                r = table_add_row(t, (const char *[]){ tbuf, e->threads[i].name, d->rule,
                                                       s && s[0] ? s : NULL });
        }
        return r < 0 ? r : table_print(t, stdout);
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

        if (!e->result.group.mask)
                return;
        s = settings_to_string(&e->result.group);
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
        if (settings_has(&e->result.group, SETTING_GROUP_SCOPE) &&
            e->result.group.group_scope == GROUP_SCOPE_OWN)
                printf("  GroupScope=own: not these: latniced asks systemd for a scope of its own "
                       "for the process, or else leaves the group settings out (see "
                       "latnice.policy(5))\n");
}

static int explain_text(const Explanation *e, const CliOptions *o)
{
        const Policy *p = e->policy;
        char what[64];
        int r;

        print_task(e->task, o);
        if (e->tid > 0) {
                _cleanup_free_ char *n = cell_sanitize(strempty(e->task->view.thread));
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
        print_result(&e->result, o, what);
        print_group(e, o);
        if (e->result.match.thread_dependent && e->tid == 0 && e->n_threads == 0)
                printf("A thread: predicate took part: see --tid TID.\n");
        if (e->n_threads > 0) {
                r = print_threads(e, o);
                if (r < 0)
                        return r;
        }
        return fflush(stdout) == 0 && !ferror(stdout) ? 0 : -EIO;
}

int verb_explain(int argc, char **argv, const CliOptions *o)
{
        _cleanup_(explanation_done) Explanation e = {};
        int r;

        r = parse_target(argc, argv, o, &e.pid, &e.tid);
        if (r != CLI_EXIT_SUCCESS)
                return r;
        r = explain_gather(&e, o);
        if (r != CLI_EXIT_SUCCESS)
                return r;
        r = o->json ? explain_json(&e, o) : explain_text(&e, o);
        if (r == -ENOMEM)
                return cli_error("out of memory");
        if (r < 0)
                return cli_error("failed to write the output");
        return CLI_EXIT_SUCCESS;
}
