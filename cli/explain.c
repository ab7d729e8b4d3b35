/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * latnicectl explain PID [--tid TID]: what the policy on disk decides for a
 * process, rule by rule, from /proc (no daemon needed).
 */
#include <getopt.h>
#include <inttypes.h>
#include <langinfo.h>

#include "cli/cli.h"
#include "cli/json.h"
#include "cli/table.h"
#include "lib/macro.h"
#include "lib/proc.h"
#include "lib/settings.h"
#include "policy/policy.h"

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

static void json_trace(JsonWriter *w, const MatchTrace *trace)
{
        json_begin_array(w);
        for (size_t i = 0; i < trace->n; i++) {
                const RuleTrace *r = &trace->rules[i];

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

static void json_result(JsonWriter *w, const MatchResult *m)
{
        _cleanup_free_ char *s = settings_to_string(&m->settings);

        json_begin_object(w);
        json_kv_uint(w, "matched_rules", m->n_matched);
        json_kv_string(w, "last_rule", m->rule);
        json_kv_bool(w, "thread_dependent", m->thread_dependent);
        json_key(w, "settings");
        json_settings(w, &m->settings);
        json_kv_string(w, "summary", s);
        json_end_object(w);
}

/* ---- Text ---------------------------------------------------------------- */

/* "  label:     value", the value cut to fit the terminal (JSON has it whole). */
static void fact(const char *label, const char *value)
{
        _cleanup_free_ char *clean = value ? cell_sanitize(value) : NULL, *cut = NULL;
        size_t width = cli_terminal_width();

        if (clean)
                cut = cell_truncate(clean, width > 13 ? width - 13 : 1,
                                    !streq(nl_langinfo(CODESET), "UTF-8"));
        printf("  %-10s %s\n", label, cut ? cut : value ? "?" : "-");
}

static void print_task(const ProcTask *t, const CliOptions *o)
{
        const TaskSnapshot *v = &t->view;
        _cleanup_free_ char *comm = cell_sanitize(v->names.comm ? v->names.comm : "");
        _cleanup_free_ char *parents = NULL, *user = NULL, *group = NULL;
        char buf[64];

        printf("%sProcess %d (%s)%s\n", cli_color(o, "bold"), (int)v->pid, comm ? comm : "?",
               cli_color(o, "reset"));
        fact("comm:", v->names.comm);
        fact("argv[0]:", v->names.argv0);
        fact("exe:", v->exe_path);
        fact("cmdline:", v->cmdline);
        if (asprintf(&user, "%u (%s)", (unsigned)v->uid, v->user ? v->user : "no name") < 0)
                user = NULL;
        fact("user:", user);
        if (asprintf(&group, "%u (%s)", (unsigned)v->gid, v->group ? v->group : "no name") < 0)
                group = NULL;
        fact("group:", group);
        fact("cgroup:", v->cgroup);
        fact("unit:", v->unit);
        snprintf(buf, sizeof(buf), "%d", (int)t->ppid);
        fact("ppid:", buf);
        for (size_t i = 0; i < v->n_ancestors; i++) {
                char *n;
                if (asprintf(&n, "%s%s%s", parents ? parents : "", i == 0 ? "" : " < ",
                             name_of(&v->ancestors[i])) < 0)
                        break;
                free(parents);
                parents = n;
        }
        fact("parents:", parents);
        if (t->kernel_thread)
                printf("  %sA kernel thread: latniced never touches it.%s\n",
                       cli_color(o, "yellow"), cli_color(o, "reset"));
}

static const char *short_path(const char *path)
{
        const char *s = path ? strrchr(path, '/') : NULL;
        return s ? s + 1 : strempty(path);
}

static int print_trace(const MatchTrace *trace, const CliOptions *o, bool utf8)
{
        _cleanup_(table_freep) Table *t = NULL;
        int r;

        if (trace->n == 0) {
                printf("\nThe policy has no rules.\n");
                return 0;
        }
        t = table_new(5, (const char *[]){ "VERDICT", "RULE", "WHERE", "DECIDED BY", "SETS" });
        if (!t)
                return -ENOMEM;
        table_set_shrinkable(t, 0, false);
        table_set_color(t, o->color);
        table_set_width(t, cli_terminal_width());
        table_set_ascii(t, !utf8);
        for (size_t i = 0; i < trace->n; i++) {
                const RuleTrace *rt = &trace->rules[i];
                _cleanup_free_ char *where = NULL, *sets = NULL;
                const char *verdict = rt->verdict == RULE_MATCHED       ? "matched"
                                      : rt->verdict == RULE_NOT_MATCHED ? "no"
                                                                        : "skipped";

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
        return table_print(t, stdout);
}

static void print_result(const MatchResult *m, const CliOptions *o, const char *what)
{
        _cleanup_free_ char *s = settings_to_string(&m->settings);

        if (m->n_matched == 0) {
                printf("\n%sResult%s for %s: no rule matches; latniced leaves it alone.\n",
                       cli_color(o, "bold"), cli_color(o, "reset"), what);
                return;
        }
        printf("\n%sResult%s for %s: %s%s%s\n", cli_color(o, "bold"), cli_color(o, "reset"), what,
               cli_color(o, "green"), s && s[0] ? s : "no settings", cli_color(o, "reset"));
        printf("  from %zu matching rule%s, the last one \"%s\"\n", m->n_matched,
               m->n_matched == 1 ? "" : "s", strna(m->rule));
}

/* ---- The verb ------------------------------------------------------------ */

typedef struct ThreadResult {
        pid_t tid;
        char *name;
        MatchResult result;
} ThreadResult;

static void thread_results_free(ThreadResult *r, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(r[i].name);
        free(r);
}

/* Match every thread of PID separately (thread rules). */
static int match_threads(const CliOptions *o, const Policy *p, pid_t pid, ThreadResult **ret,
                         size_t *ret_n)
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

                r = proc_task_read(o->proc_root, pid, tids[i], PROC_READ_ANCESTORS | PROC_READ_THREAD,
                                   &t);
                if (errno_is_gone(r))
                        continue; /* the thread exited meanwhile */
                if (r < 0) {
                        thread_results_free(res, n);
                        return r;
                }
                r = policy_match(p, &t->view, &res[n].result, NULL);
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

int verb_explain(int argc, char **argv, const CliOptions *o)
{
        static const struct option options[] = {
                { "tid", required_argument, NULL, 't' },
                {},
        };
        _cleanup_(proc_task_freep) ProcTask *task = NULL;
        _cleanup_(policy_freep) Policy *p = NULL;
        ThreadResult *threads = NULL;
        size_t n_threads = 0, n_errors;
        Diagnostics diags = {};
        MatchTrace trace = {};
        MatchResult result;
        pid_t pid = 0, tid = 0, tgid;
        bool utf8 = streq(nl_langinfo(CODESET), "UTF-8");
        int c, r, ret = CLI_EXIT_FAILURE;

        opterr = 0;
        optind = 0;
        while ((c = getopt_long(argc, argv, ":", options, NULL)) >= 0) {
                switch (c) {
                case 't':
                        if (cli_parse_pid(optarg, &tid) < 0)
                                return cli_usage_error("option '--tid' needs a thread id, found '%s'",
                                                       optarg);
                        break;
                case ':':
                        return cli_usage_error("option '%s' needs a thread id", argv[optind - 1]);
                default:
                        return cli_usage_error("unknown option '%s' for explain", argv[optind - 1]);
                }
        }
        if (optind >= argc)
                return cli_usage_error("explain needs a PID");
        if (cli_parse_pid(argv[optind], &pid) < 0)
                return cli_usage_error("expected a PID (a positive number), found '%s'",
                                       argv[optind]);
        if (optind + 1 < argc)
                return cli_usage_error("explain takes one PID, found '%s' too", argv[optind + 1]);

        /* A thread id given as PID: explain that thread of its process. */
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

        r = proc_task_read(o->proc_root, pid, tid,
                           PROC_READ_ANCESTORS | (tid > 0 ? PROC_READ_THREAD : 0), &task);
        if (errno_is_gone(r))
                return cli_error("no process with PID %d", (int)pid);
        if (r < 0) {
                errno = -r;
                return cli_error("failed to read process %d from %s: %m", (int)pid, o->proc_root);
        }

        r = policy_load(cli_policy_dirs(o), NULL, &p, &diags);
        if (r < 0) {
                errno = -r;
                ret = cli_error("failed to load the policy: %m");
                goto finish;
        }
        n_errors = diagnostics_count(&diags, DIAG_ERROR);
        if (n_errors > 0)
                fprintf(stderr,
                        "latnicectl: the policy has %zu error%s; files with errors are left out "
                        "(see 'latnicectl check')\n",
                        n_errors, n_errors == 1 ? "" : "s");

        r = policy_match(p, &task->view, &result, &trace);
        if (r < 0) {
                ret = cli_error("out of memory");
                goto finish;
        }
        /* Per-thread results when thread rules exist (and no single thread was asked for). */
        if (tid == 0 && policy_has_thread_rules(p)) {
                r = match_threads(o, p, pid, &threads, &n_threads);
                if (r == -ESRCH) {
                        ret = cli_error("no process with PID %d", (int)pid);
                        goto finish;
                }
                if (r < 0) {
                        errno = -r;
                        ret = cli_error("failed to read the threads of %d: %m", (int)pid);
                        goto finish;
                }
        }

        if (o->json) {
                JsonWriter w;

                json_writer_init(&w, stdout);
                json_begin_object(&w);
                json_kv_int(&w, "pid", pid);
                json_key(&w, "tid");
                if (tid > 0)
                        json_int(&w, tid);
                else
                        json_null(&w);
                json_kv_string(&w, "thread", task->view.thread);
                json_key(&w, "task");
                json_task(&w, task);
                json_key(&w, "policy");
                json_begin_object(&w);
                json_kv_uint(&w, "files", policy_n_files(p));
                json_kv_uint(&w, "rules", policy_n_rules(p));
                json_kv_uint(&w, "errors", n_errors);
                json_kv_bool(&w, "thread_rules", policy_has_thread_rules(p));
                json_end_object(&w);
                json_key(&w, "rules");
                json_trace(&w, &trace);
                json_key(&w, "result");
                json_result(&w, &result);
                json_key(&w, "threads");
                json_begin_array(&w);
                for (size_t i = 0; i < n_threads; i++) {
                        json_begin_object(&w);
                        json_kv_int(&w, "tid", threads[i].tid);
                        json_kv_string(&w, "name", threads[i].name);
                        json_key(&w, "result");
                        json_result(&w, &threads[i].result);
                        json_end_object(&w);
                }
                json_end_array(&w);
                json_end_object(&w);
                r = json_writer_finish(&w);
        } else {
                char what[64];

                print_task(task, o);
                if (tid > 0) {
                        _cleanup_free_ char *n = cell_sanitize(strempty(task->view.thread));
                        printf("  %-10s %d (%s)\n", "thread:", (int)tid, n ? n : "?");
                }
                printf("\nPolicy: %zu file%s, %zu rule%s%s\n", policy_n_files(p),
                       policy_n_files(p) == 1 ? "" : "s", policy_n_rules(p),
                       policy_n_rules(p) == 1 ? "" : "s",
                       policy_has_thread_rules(p) ? ", with thread rules" : "");
                r = print_trace(&trace, o, utf8);
                if (r >= 0) {
                        if (tid > 0)
                                snprintf(what, sizeof(what), "thread %d", (int)tid);
                        else
                                snprintf(what, sizeof(what), "process %d", (int)pid);
                        print_result(&result, o, what);
                        if (result.thread_dependent && tid == 0 && n_threads == 0)
                                printf("A thread: predicate took part: see --tid TID.\n");
                }
                if (r >= 0 && n_threads > 0) {
                        _cleanup_(table_freep) Table *t = NULL;

                        printf("\nThreads (matched one by one, as the policy has thread rules):\n");
                        t = table_new(4, (const char *[]){ "TID", "THREAD", "RULE", "SETTINGS" });
                        if (!t)
                                r = -ENOMEM;
                        else {
                                table_set_align(t, 0, TABLE_ALIGN_RIGHT);
                                table_set_shrinkable(t, 0, false);
                                table_set_color(t, o->color);
                                table_set_width(t, cli_terminal_width());
                                table_set_ascii(t, !utf8);
                        }
                        for (size_t i = 0; r >= 0 && i < n_threads; i++) {
                                _cleanup_free_ char *s = settings_to_string(&threads[i].result.settings);
                                char tbuf[16];

                                snprintf(tbuf, sizeof(tbuf), "%d", (int)threads[i].tid);
                                r = table_add_row(t, (const char *[]){
                                                             tbuf, threads[i].name,
                                                             threads[i].result.rule,
                                                             s && s[0] ? s : NULL });
                        }
                        if (r >= 0)
                                r = table_print(t, stdout);
                }
                if (r >= 0)
                        r = fflush(stdout) == 0 && !ferror(stdout) ? 0 : -EIO;
        }
        if (r == -ENOMEM)
                ret = cli_error("out of memory");
        else if (r < 0)
                ret = cli_error("failed to write the output");
        else
                ret = CLI_EXIT_SUCCESS;
finish:
        thread_results_free(threads, n_threads);
        match_trace_done(&trace);
        diagnostics_done(&diags);
        return ret;
}
