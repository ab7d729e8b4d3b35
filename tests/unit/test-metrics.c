/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: cli/metrics (latniced's counters in the Prometheus text
 * format). A made-up set of counters becomes text; the text is checked line
 * by line against the exposition format and the naming conventions: every
 * family has one HELP and one TYPE line before its samples, which follow
 * each other; counters end in _total, nothing else does; names and label
 * names are valid; no series appears twice; values are numbers.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cli/metrics.h"
#include "lib/macro.h"
#include "tests/unit/test-util.h"

#define MAX_FAMILIES 64

typedef struct Family {
        char name[128];
        char type[16];
        bool help;
        size_t n_samples;
        bool done; /* another family came after it */
} Family;

typedef struct Checker {
        Family f[MAX_FAMILIES];
        size_t n;
        Family *current; /* the family whose lines come now */
        char seen[4096]; /* "\n" and each series seen so far, "\n"-terminated */
} Checker;

static bool name_valid(const char *s, size_t len)
{
        if (len == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_' || s[0] == ':'))
                return false;
        for (size_t i = 1; i < len; i++)
                if (!(isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == ':'))
                        return false;
        return true;
}

static Family *family_get(Checker *c, const char *name, size_t len, bool create)
{
        for (size_t i = 0; i < c->n; i++)
                if (strlen(c->f[i].name) == len && strncmp(c->f[i].name, name, len) == 0)
                        return &c->f[i];
        if (!create || c->n >= MAX_FAMILIES || len >= sizeof(c->f[0].name))
                return NULL;
        memcpy(c->f[c->n].name, name, len);
        return &c->f[c->n++];
}

/* "# HELP name text" or "# TYPE name type" */
static bool check_comment(Checker *c, const char *line)
{
        bool help = strncmp(line, "# HELP ", 7) == 0;
        const char *name = line + 7, *end;
        Family *f;

        if (!help && strncmp(line, "# TYPE ", 7) != 0)
                return false;
        end = strchr(name, ' ');
        if (!end || !name_valid(name, (size_t)(end - name)) || strncmp(name, "latnice_", 8) != 0)
                return false;
        f = family_get(c, name, (size_t)(end - name), true);
        if (!f || f->done)
                return false; /* a family's lines split by another's */
        if (c->current != f && c->current)
                c->current->done = true;
        c->current = f;
        if (f->n_samples > 0 || (help ? f->help : f->type[0] != 0))
                return false; /* metadata after samples, or twice */
        if (help) {
                f->help = true;
                return end[1] != 0;
        }
        if (!streq(end + 1, "counter") && !streq(end + 1, "gauge"))
                return false;
        snprintf(f->type, sizeof(f->type), "%s", end + 1);
        return true;
}

static bool check_labels(const char *l, const char *end)
{
        while (l < end) {
                const char *eq = strchr(l, '=');

                if (!eq || eq > end || !name_valid(l, (size_t)(eq - l)) || eq[1] != '"')
                        return false;
                for (l = eq + 2; l < end && *l != '"'; l++)
                        if (*l == '\\')
                                l++;
                if (l >= end)
                        return false;
                l++; /* the closing quote */
                if (l < end && *l++ != ',')
                        return false;
        }
        return true;
}

/* "name{labels} value" */
static bool check_sample(Checker *c, const char *line)
{
        const char *brace = strchr(line, '{'), *space, *end_name, *v;
        size_t len;
        Family *f;
        char *e;

        space = brace ? strstr(brace, "} ") : strchr(line, ' ');
        if (!space)
                return false;
        end_name = brace ? brace : space;
        len = (size_t)(end_name - line);
        if (!name_valid(line, len))
                return false;
        f = family_get(c, line, len, false);
        if (!f || f != c->current || !f->help || !f->type[0])
                return false; /* samples follow their family's HELP and TYPE */
        f->n_samples++;
        if (streq(f->type, "counter") != (len > 6 && strncmp(line + len - 6, "_total", 6) == 0))
                return false;
        if (brace && !check_labels(brace + 1, space))
                return false;
        v = brace ? space + 2 : space + 1;
        (void)strtod(v, &e);
        if (e == v || *e != 0)
                return false;
        /* the series (name and labels) once only */
        {
                char key[512];

                snprintf(key, sizeof(key), "\n%.*s\n", (int)(v - 1 - line), line);
                if (strstr(c->seen, key))
                        return false;
                if (strlen(c->seen) + strlen(key) < sizeof(c->seen))
                        strcat(c->seen, key + (c->seen[0] ? 1 : 0));
        }
        return true;
}

/* Check TEXT; a line that breaks a rule is printed. */
static bool exposition_valid(char *text)
{
        Checker *c = calloc(1, sizeof(Checker));
        bool ok = c != NULL;

        for (char *line = strtok(text, "\n"); ok && line; line = strtok(NULL, "\n")) {
                if (line[0] == '#')
                        ok = check_comment(c, line);
                else
                        ok = check_sample(c, line);
                if (!ok)
                        fprintf(stderr, "not in the exposition format: %s\n", line);
        }
        free(c);
        return ok;
}

static char *format(const MetricsSample *s)
{
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);

        if (!f)
                return NULL;
        if ((s ? metrics_format(f, s) : metrics_format_down(f)) < 0) {
                fclose(f);
                free(buf);
                return NULL;
        }
        fclose(f);
        return buf;
}

static void test_counters(void)
{
        char *diag[] = { "a.policy:3:1: error: unknown key", "b.policy:1:1: warning: x",
                         "c.policy:2:5: error: bad value", NULL };
        MetricsSample s;
        char *text, *copy;

        metrics_sample_init(&s);
        check(metrics_sample_set(&s, "Events", 12345));
        check(metrics_sample_set(&s, "Applied", 77));
        check(metrics_sample_set(&s, "Failed", 3));
        check(metrics_sample_set(&s, "FdExhaustions", 1));
        check(metrics_sample_set(&s, "OverflowedThreadEvents", 0));
        check(metrics_sample_set(&s, "UnrecordedTasks", 2));
        check(metrics_sample_set(&s, "PutOffEvaluations", 4));
        check(metrics_sample_set(&s, "BatchedStorms", 5));
        check(metrics_sample_set(&s, "ManagedTasks", 40));
        check(metrics_sample_set(&s, "UserOwnedTasks", 1));
        check(metrics_sample_set(&s, "Rules", 210));
        check(metrics_sample_set(&s, "PolicyFiles", 7));
        check(metrics_sample_set(&s, "StartTimestamp", UINT64_C(1700000000123456)));
        check(metrics_sample_set(&s, "LastReloadTimestamp", UINT64_C(1700000100000001)));
        check(!metrics_sample_set(&s, "NoSuchCounter", 9));
        metrics_sample_set_diagnostics(&s, diag);
        s.version = "0.9 \"x\"\\y";
        s.backend = "slice";
        s.dry_run = 0;

        text = format(&s);
        check(text);
        if (!text)
                return;
        fputs(text, stdout);
        check(strstr(text, "latnice_up 1\n"));
        check(strstr(text, "# TYPE latnice_events_total counter\nlatnice_events_total 12345\n"));
        check(strstr(text, "latnice_applied_total 77\n"));
        check(strstr(text, "# TYPE latnice_errors_total counter\n"
                           "latnice_errors_total{kind=\"apply\"} 3\n"
                           "latnice_errors_total{kind=\"fd_exhaustion\"} 1\n"
                           "latnice_errors_total{kind=\"state_file_full\"} 2\n"
                           "latnice_errors_total{kind=\"thread_event_overflow\"} 0\n"));
        check(strstr(text, "latnice_put_off_evaluations_total 4\n"));
        check(strstr(text, "latnice_batched_storms_total 5\n"));
        check(strstr(text, "# TYPE latnice_managed_threads gauge\nlatnice_managed_threads 40\n"));
        check(strstr(text, "latnice_policy_rules 210\n"));
        check(strstr(text, "latnice_start_time_seconds 1700000000.123456\n"));
        check(strstr(text, "latnice_last_reload_time_seconds 1700000100.000001\n"));
        check(strstr(text, "latnice_policy_diagnostics{severity=\"error\"} 2\n"
                           "latnice_policy_diagnostics{severity=\"warning\"} 1\n"));
        check(strstr(text, "latnice_info{version=\"0.9 \\\"x\\\"\\\\y\",backend=\"slice\"} 1\n"));
        check(strstr(text, "latnice_dry_run 0\n"));
        /* not reported, not written */
        check(!strstr(text, "latnice_rescans_total"));
        check(!strstr(text, "latnice_configured_units"));
        check(!strstr(text, "NoSuchCounter"));

        copy = strdup(text);
        check(copy && exposition_valid(copy));
        free(copy);
        free(text);
}

/* Every row of the table, all at once, passes the conventions. */
static void test_all_rows(void)
{
        static const char *const keys[] = {
                "StartTimestamp", "LastReloadTimestamp", "Events", "LostEvents", "Rescans",
                "Evaluations", "Applied", "Restored", "PutOffEvaluations", "BatchedStorms",
                "SharedGroups", "DeferredThreadEvents", "Failed", "FdExhaustions",
                "UnrecordedTasks", "OverflowedThreadEvents", "ManagedTasks", "UserOwnedTasks",
                "Rules", "PolicyFiles", "Units", "PolicyLoads", "PolicyLoadsRejectingFiles",
                "PolicyLoadFailures",
        };
        MetricsSample s;
        char *text;

        metrics_sample_init(&s);
        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                check(metrics_sample_set(&s, keys[i], i));
        for (size_t i = 0; i < _METRIC_MAX; i++)
                check(s.have[i]); /* each row has a key here */
        text = format(&s);
        check(text && exposition_valid(text));
        free(text);
}

static void test_down(void)
{
        char *text = format(NULL);

        check(text && streq(text, "# HELP latnice_up Whether latniced answered on D-Bus (1) or "
                                  "could not be asked (0)\n# TYPE latnice_up gauge\n"
                                  "latnice_up 0\n"));
        free(text);
}

/* The checker itself rejects what breaks the conventions. */
static void test_checker(void)
{
        static const char *const bad[] = {
                "# HELP latnice_x_total x\n# TYPE latnice_x_total gauge\nlatnice_x_total 1\n",
                "# HELP latnice_x x\n# TYPE latnice_x counter\nlatnice_x 1\n",
                "latnice_x 1\n",
                "# HELP latnice_x x\n# TYPE latnice_x gauge\nlatnice_x one\n",
                "# HELP latnice_x x\n# TYPE latnice_x gauge\nlatnice_x 1\nlatnice_x 2\n",
                "# HELP latnice_x x\n# TYPE latnice_x gauge\nlatnice_x{k=v} 1\n",
                "# HELP latnice_a a\n# TYPE latnice_a gauge\nlatnice_a 1\n"
                "# HELP latnice_b b\n# TYPE latnice_b gauge\nlatnice_b 1\nlatnice_a{k=\"v\"} 2\n",
                "# HELP latnice-x x\n# TYPE latnice-x gauge\nlatnice-x 1\n",
        };
        char good[] = "# HELP latnice_x_total x\n# TYPE latnice_x_total counter\n"
                      "latnice_x_total{k=\"a\\\"b\"} 1\nlatnice_x_total{k=\"c\"} 2.5\n";

        check(exposition_valid(good));
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                char *copy = strdup(bad[i]);

                check(copy && !exposition_valid(copy));
                free(copy);
        }
}

int main(void)
{
        test_checker();
        test_counters();
        test_all_rows();
        test_down();
        if (test_result() != EXIT_SUCCESS)
                return EXIT_FAILURE;
        printf("test-metrics: all checks passed\n");
        return 0;
}
