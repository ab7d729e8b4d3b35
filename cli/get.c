/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * latnicectl get PID: the scheduler attributes of every thread of PID, as
 * the kernel reports them (sched_getattr, /proc), no daemon needed.
 */
#include <inttypes.h>
#include <langinfo.h>

#include "cli/cli.h"
#include "cli/format.h"
#include "cli/json.h"
#include "cli/table.h"
#include "lib/macro.h"
#include "lib/probe.h"
#include "lib/proc.h"
#include "lib/sched.h"
#include "lib/settings.h"
#include "lib/task-attr.h"

typedef struct ThreadState {
        pid_t tid;
        char *name;
        SchedState s;
} ThreadState;

static const char *policy_name(int policy)
{
        const char *s = sched_policy_to_string(policy);
        return s ? s : "unknown";
}

/* The columns after UCLAMP: the attributes the registry shows on their own
 * (lib/task-attr.h). */
#define FIXED_COLUMNS 7
#define MAX_COLUMNS (FIXED_COLUMNS + _SETTING_MAX)

/* The value of attribute A of S as a table cell (NULL: empty) in *RET. */
static int attr_cell(const TaskAttr *a, const SchedState *s, bool utf8, char **ret)
{
        _cleanup_free_ char *text = NULL;
        uint64_t ns = 0;
        int r;

        *ret = NULL;
        r = a->show_value(s, &ns, &text);
        if (r <= 0)
                return r;
        if (a->show == ATTR_SHOW_DURATION)
                *ret = format_duration_ns(ns, utf8);
        else
                *ret = TAKE_PTR(text);
        return *ret ? 0 : -ENOMEM;
}

static int print_table(const ThreadState *ts, size_t n, const KernelFeatures *k,
                       const CliOptions *o)
{
        _cleanup_(table_freep) Table *t = NULL;
        bool utf8 = streq(nl_langinfo(CODESET), "UTF-8");
        const char *header[MAX_COLUMNS] = { "TID", "NAME", "POLICY", "NICE", "SLICE", "LATNICE",
                                            "UCLAMP" };
        size_t n_columns = FIXED_COLUMNS;
        int r;

        TASK_ATTR_FOREACH(a)
                if (a->show != ATTR_SHOW_NONE)
                        header[n_columns++] = a->show_column;
        t = cli_table_new(o, n_columns, header);
        if (!t)
                return -ENOMEM;
        for (size_t c = 0; c < n_columns; c++)
                if (c != 1) {
                        table_set_align(t, c, c == 2 ? TABLE_ALIGN_LEFT : TABLE_ALIGN_RIGHT);
                        table_set_shrinkable(t, c, false);
                }

        for (size_t i = 0; i < n; i++) {
                const SchedState *s = &ts[i].s;
                _cleanup_free_ char *slice = NULL, *policy = NULL;
                char *cells[MAX_COLUMNS] = {}, tid[16], nice[16], ln[16], uclamp[32];
                size_t c = FIXED_COLUMNS;
                bool fair = sched_policy_is_fair(s->policy);

                snprintf(tid, sizeof(tid), "%d", (int)ts[i].tid);
                if (fair)
                        snprintf(nice, sizeof(nice), "%d", s->nice);
                else
                        snprintf(nice, sizeof(nice), "-");
                if (fair && s->slice_ns > 0) {
                        _cleanup_free_ char *v = format_duration_ns(s->slice_ns, utf8);
                        if (!v || asprintf(&slice, "%s%s", v, s->custom_slice ? "" : " (def)") < 0)
                                return -ENOMEM;
                }
                if (s->has_latency_nice)
                        snprintf(ln, sizeof(ln), "%d", s->latency_nice);
                else
                        snprintf(ln, sizeof(ln), "n/a");
                if (k->uclamp_task)
                        snprintf(uclamp, sizeof(uclamp), "%" PRIu32 "-%" PRIu32, s->util_min,
                                 s->util_max);
                else
                        snprintf(uclamp, sizeof(uclamp), "n/a");
                if (fair)
                        policy = strdup(policy_name(s->policy));
                else if (asprintf(&policy, "%s/%" PRIu32, policy_name(s->policy), s->priority) < 0)
                        policy = NULL;
                if (!policy)
                        return -ENOMEM;
                r = 0;
                TASK_ATTR_FOREACH(a)
                        if (a->show != ATTR_SHOW_NONE && r >= 0)
                                r = attr_cell(a, s, utf8, &cells[c++]);
                if (r >= 0) {
                        memcpy(cells, (char *[]){ tid, ts[i].name, policy, nice, slice, ln, uclamp },
                               FIXED_COLUMNS * sizeof(char *));
                        r = table_add_row(t, (const char **)cells);
                }
                for (c = FIXED_COLUMNS; c < n_columns; c++)
                        free(cells[c]);
                if (r < 0)
                        return r;
        }
        return table_print(t, stdout);
}

/* The value of attribute A of S under its key: a number of ns, a text, or
 * null when unset. */
static void attr_json(JsonWriter *w, const TaskAttr *a, const SchedState *s)
{
        _cleanup_free_ char *text = NULL;
        uint64_t ns = 0;

        json_key(w, a->show_key);
        if (a->show_value(s, &ns, &text) <= 0)
                json_null(w);
        else if (a->show == ATTR_SHOW_DURATION)
                json_uint(w, ns);
        else
                json_string(w, text);
}

static void print_json(pid_t pid, const ThreadState *ts, size_t n, const KernelFeatures *k)
{
        JsonWriter w;

        json_writer_init(&w, stdout);
        json_begin_object(&w);
        json_kv_int(&w, "pid", pid);
        json_kv_uint(&w, "base_slice_ns", k->base_slice_ns);
        json_key(&w, "threads");
        json_begin_array(&w);
        for (size_t i = 0; i < n; i++) {
                const SchedState *s = &ts[i].s;

                json_begin_object(&w);
                json_kv_int(&w, "tid", ts[i].tid);
                json_kv_string(&w, "name", ts[i].name);
                json_kv_string(&w, "policy", policy_name(s->policy));
                json_kv_int(&w, "nice", s->nice);
                json_kv_uint(&w, "rt_priority", s->priority);
                json_kv_uint(&w, "slice_ns", s->slice_ns);
                json_kv_bool(&w, "custom_slice", s->custom_slice);
                json_key(&w, "latency_nice");
                if (s->has_latency_nice)
                        json_int(&w, s->latency_nice);
                else
                        json_null(&w);
                json_key(&w, "util_min");
                if (k->uclamp_task)
                        json_uint(&w, s->util_min);
                else
                        json_null(&w);
                json_key(&w, "util_max");
                if (k->uclamp_task)
                        json_uint(&w, s->util_max);
                else
                        json_null(&w);
                TASK_ATTR_FOREACH(a)
                        if (a->show != ATTR_SHOW_NONE)
                                attr_json(&w, a, s);
                json_kv_bool(&w, "reset_on_fork", s->flags & LN_SCHED_FLAG_RESET_ON_FORK);
                json_end_object(&w);
        }
        json_end_array(&w);
        json_end_object(&w);
        (void)json_writer_finish(&w);
}

int verb_get(int argc, char **argv, const CliOptions *o)
{
        _cleanup_free_ char **args = NULL;
        _cleanup_free_ pid_t *tids = NULL;
        ThreadState *ts = NULL;
        size_t n_args, n_tids = 0, n = 0;
        KernelFeatures k;
        pid_t pid;
        int r, ret;

        r = cli_positional_args(argc, argv, "get", &args, &n_args);
        if (r != 0)
                return r;
        if (n_args == 0)
                return cli_usage_error("get needs a PID");
        if (n_args > 1)
                return cli_usage_error("get takes one PID, found '%s' too", args[1]);
        if (cli_parse_pid(args[0], &pid) < 0)
                return cli_usage_error("expected a PID (a positive number), found '%s'", args[0]);

        /* The base slice tells a custom slice from the default one. */
        r = kernel_probe(o->cgroup_root, &k);
        if (r < 0)
                return cli_error("out of memory");

        r = proc_threads(o->proc_root, pid, &tids, &n_tids);
        if (errno_is_gone(r))
                return cli_error("no process with PID %d", (int)pid);
        if (r < 0) {
                errno = -r;
                return cli_error("failed to list the threads of %d: %m", (int)pid);
        }

        ts = calloc(n_tids ? n_tids : 1, sizeof(ThreadState));
        if (!ts)
                return cli_error("out of memory");
        for (size_t i = 0; i < n_tids; i++) {
                r = sched_state_read(tids[i], &ts[n].s);
                if (errno_is_gone(r))
                        continue;
                if (r < 0) {
                        errno = -r;
                        ret = cli_error("failed to read the attributes of thread %d: %m",
                                        (int)tids[i]);
                        goto finish;
                }
                r = proc_thread_comm(o->proc_root, pid, tids[i], &ts[n].name);
                if (errno_is_gone(r))
                        continue;
                if (r < 0) {
                        errno = -r;
                        ret = cli_error("failed to read the name of thread %d: %m", (int)tids[i]);
                        goto finish;
                }
                ts[n].tid = tids[i];
                n++;
        }
        if (n == 0) {
                ret = cli_error("no process with PID %d", (int)pid);
                goto finish;
        }

        if (o->json) {
                print_json(pid, ts, n, &k);
                r = ferror(stdout) ? -EIO : 0;
        } else
                r = print_table(ts, n, &k, o);
        if (r == -ENOMEM)
                ret = cli_error("out of memory");
        else if (r < 0)
                ret = cli_error("failed to write the output");
        else
                ret = CLI_EXIT_SUCCESS;
finish:
        for (size_t i = 0; i < n_tids; i++)
                free(ts[i].name);
        free(ts);
        return ret;
}
