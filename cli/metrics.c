/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * latnicectl metrics [-o FILE]: latniced's counters for Prometheus
 * (node-exporter's textfile collector). See cli/metrics.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/metrics.h"
#include "lib/atomic-file.h"
#include "lib/macro.h"
#include "lib/strv.h"

typedef enum MetricType {
        METRIC_COUNTER,
        METRIC_GAUGE,
} MetricType;

/* One sample. Rows of one family (same name) follow each other, so that
 * its HELP and TYPE lines come once, before its first sample. */
typedef struct MetricRow {
        const char *key;    /* in GetStatus */
        const char *name;   /* the family: latnice_..., counters end in _total */
        MetricType type;
        bool usec;          /* latniced says microseconds; written as seconds */
        const char *labels; /* "kind=\"apply\"" or NULL */
        const char *help;
} MetricRow;

#define ERRORS_HELP "Errors of latniced, by kind"
#define LOADS_HELP                                                                      \
        "Policy loads (start and reloads) by result: ok, rejected_files (some files had " \
        "errors; their last good version stayed), failed (the policy in effect stayed)"

static const MetricRow rows[_METRIC_MAX] = {
        [METRIC_START_TIME] = { "StartTimestamp", "latnice_start_time_seconds", METRIC_GAUGE,
                                true, NULL, "When latniced started, in seconds since the epoch" },
        [METRIC_LAST_RELOAD_TIME] = { "LastReloadTimestamp", "latnice_last_reload_time_seconds",
                                      METRIC_GAUGE, true, NULL,
                                      "When latniced last loaded its policy, in seconds since "
                                      "the epoch" },
        [METRIC_EVENTS] = { "Events", "latnice_events_total", METRIC_COUNTER, false, NULL,
                            "Process events (fork, exec, rename, exit) latniced handled" },
        [METRIC_LOST_EVENTS] = { "LostEvents", "latnice_lost_events_total", METRIC_COUNTER, false,
                                 NULL, "Overflows of the event queue, each followed by a rescan" },
        [METRIC_RESCANS] = { "Rescans", "latnice_rescans_total", METRIC_COUNTER, false, NULL,
                             "Walks of every process in /proc" },
        [METRIC_EVALUATIONS] = { "Evaluations", "latnice_evaluations_total", METRIC_COUNTER,
                                 false, NULL, "Processes matched against the policy" },
        [METRIC_APPLIED] = { "Applied", "latnice_applied_total", METRIC_COUNTER, false, NULL,
                             "Settings applied to threads" },
        [METRIC_RESTORED] = { "Restored", "latnice_restored_total", METRIC_COUNTER, false, NULL,
                              "Threads given their original attributes back" },
        [METRIC_PUT_OFF] = { "PutOffEvaluations", "latnice_put_off_evaluations_total",
                             METRIC_COUNTER, false, NULL,
                             "Evaluations put off because a process kept a read of its "
                             "command line waiting" },
        [METRIC_BATCHED_STORMS] = { "BatchedStorms", "latnice_batched_storms_total",
                                    METRIC_COUNTER, false, NULL,
                                    "Storms of events that led to nothing, read in batches" },
        [METRIC_SHARED_GROUPS] = { "SharedGroups", "latnice_shared_groups_total", METRIC_COUNTER,
                                   false, NULL,
                                   "Groups found to hold another user's process: left alone or "
                                   "given back" },
        [METRIC_DEFERRED_THREAD_EVENTS] = { "DeferredThreadEvents",
                                            "latnice_deferred_thread_events_total",
                                            METRIC_COUNTER, false, NULL,
                                            "Thread events put off because their user had "
                                            "spent its budget" },
        [METRIC_ERRORS_APPLY] = { "Failed", "latnice_errors_total", METRIC_COUNTER, false,
                                  "kind=\"apply\"", ERRORS_HELP },
        [METRIC_ERRORS_FD] = { "FdExhaustions", "latnice_errors_total", METRIC_COUNTER, false,
                               "kind=\"fd_exhaustion\"", ERRORS_HELP },
        [METRIC_ERRORS_STATE_FILE] = { "UnrecordedTasks", "latnice_errors_total", METRIC_COUNTER,
                                       false, "kind=\"state_file_full\"", ERRORS_HELP },
        [METRIC_ERRORS_THREAD_OVERFLOW] = { "OverflowedThreadEvents", "latnice_errors_total",
                                            METRIC_COUNTER, false,
                                            "kind=\"thread_event_overflow\"", ERRORS_HELP },
        [METRIC_MANAGED_THREADS] = { "ManagedTasks", "latnice_managed_threads", METRIC_GAUGE,
                                     false, NULL, "Threads whose settings latniced manages now" },
        [METRIC_USER_OWNED_THREADS] = { "UserOwnedTasks", "latnice_user_owned_threads",
                                        METRIC_GAUGE, false, NULL,
                                        "Threads a user set through latniced, left to that "
                                        "user's settings" },
        [METRIC_RULES] = { "Rules", "latnice_policy_rules", METRIC_GAUGE, false, NULL,
                           "Rules of the policy in effect" },
        [METRIC_POLICY_FILES] = { "PolicyFiles", "latnice_policy_files", METRIC_GAUGE, false,
                                  NULL, "Files of the policy in effect" },
        [METRIC_UNITS] = { "Units", "latnice_configured_units", METRIC_GAUGE, false, NULL,
                           "Existing systemd units configured by [Unit] sections" },
        [METRIC_LOADS_OK] = { "PolicyLoads", "latnice_policy_loads_total", METRIC_COUNTER, false,
                              "result=\"ok\"", LOADS_HELP },
        [METRIC_LOADS_REJECTED] = { "PolicyLoadsRejectingFiles", "latnice_policy_loads_total",
                                    METRIC_COUNTER, false, "result=\"rejected_files\"",
                                    LOADS_HELP },
        [METRIC_LOADS_FAILED] = { "PolicyLoadFailures", "latnice_policy_loads_total",
                                  METRIC_COUNTER, false, "result=\"failed\"", LOADS_HELP },
};

static const char *type_to_string(MetricType t)
{
        return t == METRIC_COUNTER ? "counter" : "gauge";
}

void metrics_sample_init(MetricsSample *s)
{
        *s = (MetricsSample){ .dry_run = -1 };
}

bool metrics_sample_set(MetricsSample *s, const char *key, uint64_t value)
{
        for (size_t i = 0; i < ELEMENTSOF(rows); i++)
                if (streq(rows[i].key, key)) {
                        s->value[i] = value;
                        s->have[i] = true;
                        return true;
                }
        return false;
}

void metrics_sample_set_diagnostics(MetricsSample *s, char *const *diagnostics)
{
        s->have_diagnostics = true;
        s->n_reload_errors = s->n_reload_warnings = 0;
        for (char *const *d = diagnostics; d && *d; d++) {
                if (strstr(*d, ": error:"))
                        s->n_reload_errors++;
                else
                        s->n_reload_warnings++;
        }
}

/* One entry of the a{sv}, entered, its key read. */
static int sample_read_entry(sd_bus_message *reply, const char *key, MetricsSample *s)
{
        const char *contents;
        int r;

        r = sd_bus_message_peek_type(reply, NULL, &contents);
        if (r < 0)
                return r;
        if (streq(contents, "t")) {
                uint64_t v;

                r = sd_bus_message_read(reply, "v", "t", &v);
                if (r >= 0)
                        (void)metrics_sample_set(s, key, v);
                return r;
        }
        if (streq(contents, "s") && (streq(key, "Version") || streq(key, "Backend")))
                return sd_bus_message_read(reply, "v", "s",
                                           streq(key, "Version") ? &s->version : &s->backend);
        if (streq(contents, "b") && streq(key, "DryRun"))
                return sd_bus_message_read(reply, "v", "b", &s->dry_run);
        if (streq(contents, "as") && streq(key, "Diagnostics")) {
                _cleanup_strv_free_ char **l = NULL;

                r = sd_bus_message_enter_container(reply, 'v', "as");
                if (r >= 0)
                        r = sd_bus_message_read_strv(reply, &l);
                if (r >= 0)
                        r = sd_bus_message_exit_container(reply);
                if (r >= 0)
                        metrics_sample_set_diagnostics(s, l);
                return r;
        }
        return sd_bus_message_skip(reply, "v");
}

int metrics_sample_from_reply(sd_bus_message *reply, MetricsSample *s)
{
        int r;

        metrics_sample_init(s);
        r = sd_bus_message_enter_container(reply, 'a', "{sv}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(reply, 'e', "sv")) > 0) {
                const char *key;

                r = sd_bus_message_read(reply, "s", &key);
                if (r >= 0)
                        r = sample_read_entry(reply, key, s);
                if (r >= 0)
                        r = sd_bus_message_exit_container(reply);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(reply);
}

static void write_family(FILE *f, const char *name, MetricType type, const char *help)
{
        fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type_to_string(type));
}

/* A label value: backslash, double quote and newline escaped. */
static void write_label_value(FILE *f, const char *v)
{
        for (; *v; v++) {
                if (*v == '\\' || *v == '"')
                        fputc('\\', f);
                if (*v == '\n')
                        fputs("\\n", f);
                else
                        fputc(*v, f);
        }
}

static void write_up(FILE *f, bool up)
{
        write_family(f, "latnice_up", METRIC_GAUGE,
                     "Whether latniced answered on D-Bus (1) or could not be asked (0)");
        fprintf(f, "latnice_up %d\n", up ? 1 : 0);
}

static void write_rows(FILE *f, const MetricsSample *s)
{
        const char *family = NULL;

        for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
                const MetricRow *m = &rows[i];

                if (!s->have[i])
                        continue;
                if (!family || !streq(family, m->name))
                        write_family(f, m->name, m->type, m->help);
                family = m->name;
                fputs(m->name, f);
                if (m->labels)
                        fprintf(f, "{%s}", m->labels);
                if (m->usec)
                        fprintf(f, " %" PRIu64 ".%06" PRIu64 "\n", s->value[i] / 1000000,
                                s->value[i] % 1000000);
                else
                        fprintf(f, " %" PRIu64 "\n", s->value[i]);
        }
}

int metrics_format(FILE *f, const MetricsSample *s)
{
        write_up(f, true);
        write_family(f, "latnice_info", METRIC_GAUGE,
                     "latniced's version and latency backend (always 1)");
        fputs("latnice_info{version=\"", f);
        write_label_value(f, s->version ? s->version : "");
        fputs("\",backend=\"", f);
        write_label_value(f, s->backend ? s->backend : "");
        fputs("\"} 1\n", f);
        if (s->dry_run >= 0) {
                write_family(f, "latnice_dry_run", METRIC_GAUGE,
                             "Whether latniced runs with --dry-run and changes nothing");
                fprintf(f, "latnice_dry_run %d\n", s->dry_run ? 1 : 0);
        }
        write_rows(f, s);
        if (s->have_diagnostics) {
                write_family(f, "latnice_policy_diagnostics", METRIC_GAUGE,
                             "Errors and warnings of the last policy load");
                fprintf(f, "latnice_policy_diagnostics{severity=\"error\"} %" PRIu64 "\n",
                        s->n_reload_errors);
                fprintf(f, "latnice_policy_diagnostics{severity=\"warning\"} %" PRIu64 "\n",
                        s->n_reload_warnings);
        }
        return ferror(f) ? -EIO : 0;
}

int metrics_format_down(FILE *f)
{
        write_up(f, false);
        return ferror(f) ? -EIO : 0;
}

/* ---- The verb ---------------------------------------------------------- */

typedef struct MetricsOutput {
        const MetricsSample *sample; /* NULL: latniced could not be asked */
} MetricsOutput;

static int metrics_fill(FILE *f, void *userdata)
{
        const MetricsOutput *out = userdata;

        return out->sample ? metrics_format(f, out->sample) : metrics_format_down(f);
}

/* To standard output, or atomically to OUTPUT (node-exporter must never
 * read half a file). An exit status. */
static int metrics_write(const CliOptions *o, const MetricsSample *s)
{
        MetricsOutput out = { .sample = s };
        const char *what = NULL;
        int r;

        if (!o->output || streq(o->output, "-")) {
                r = metrics_fill(stdout, &out);
                if (r >= 0 && fflush(stdout) != 0)
                        r = -errno;
                if (r < 0)
                        return cli_error("cannot write the metrics to standard output: %s",
                                         strerror(-r));
                return 0;
        }
        r = atomic_file_write(o->output, "metrics", 0644, metrics_fill, &out, &what);
        if (r == -EEXIST && what)
                return cli_error("%s is %s: -o replaces regular files only", o->output, what);
        if (r < 0)
                return cli_error("cannot write the metrics to %s: %s", o->output, strerror(-r));
        return 0;
}

int verb_metrics(int argc, char **argv, const CliOptions *o)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ char **args = NULL;
        MetricsSample s;
        size_t n;
        int r, status;

        r = cli_positional_args(argc, argv, "metrics", &args, &n);
        if (r != 0)
                return r;
        if (n > 0)
                return cli_usage_error("metrics takes no arguments, found '%s'", args[0]);
        if (o->json)
                return cli_usage_error("metrics writes the Prometheus text format, not JSON");

        /* latniced not there: latnice_up 0 still replaces the file, so that
         * the monitoring stack sees it, not the last numbers of a daemon
         * gone; the exit status says it too (the error is said already). */
        status = cli_daemon_get_status(o, &reply);
        if (status != 0) {
                r = metrics_write(o, NULL);
                return r != 0 ? r : status;
        }
        r = metrics_sample_from_reply(reply, &s);
        if (r < 0)
                return cli_error("cannot parse the reply of latniced: %s", strerror(-r));
        return metrics_write(o, &s);
}
