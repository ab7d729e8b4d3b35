/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Metrics: latniced's counters (its GetStatus reply) in the Prometheus text
 * exposition format (version 0.0.4), as node-exporter's textfile collector
 * reads them. One row of a table per value latniced reports: its bus key,
 * the metric family, the type, the labels of the sample. The formatter is a
 * pure function of a MetricsSample, so tests feed it made-up counters.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <systemd/sd-bus.h>

/* The counters of GetStatus that become metrics, in the table's order. */
typedef enum MetricId {
        METRIC_START_TIME,
        METRIC_LAST_RELOAD_TIME,
        METRIC_EVENTS,
        METRIC_LOST_EVENTS,
        METRIC_RESCANS,
        METRIC_EVALUATIONS,
        METRIC_APPLIED,
        METRIC_RESTORED,
        METRIC_PUT_OFF,
        METRIC_BATCHED_STORMS,
        METRIC_SHARED_GROUPS,
        METRIC_DEFERRED_THREAD_EVENTS,
        METRIC_ERRORS_APPLY,
        METRIC_ERRORS_FD,
        METRIC_ERRORS_STATE_FILE,
        METRIC_ERRORS_THREAD_OVERFLOW,
        METRIC_MANAGED_THREADS,
        METRIC_USER_OWNED_THREADS,
        METRIC_RULES,
        METRIC_POLICY_FILES,
        METRIC_UNITS,
        METRIC_LOADS_OK,
        METRIC_LOADS_REJECTED,
        METRIC_LOADS_FAILED,
        _METRIC_MAX,
} MetricId;

typedef struct MetricsSample {
        uint64_t value[_METRIC_MAX];
        bool have[_METRIC_MAX];        /* latniced reported it (an older one may not) */
        const char *version, *backend; /* borrowed; NULL if not reported */
        int dry_run;                   /* -1 if not reported */
        bool have_diagnostics;
        uint64_t n_reload_errors, n_reload_warnings;
} MetricsSample;

void metrics_sample_init(MetricsSample *s);
/* Record the counter latniced calls KEY ("Events", "Failed", ...). true if
 * KEY is one of the table's, false (nothing recorded) otherwise. */
bool metrics_sample_set(MetricsSample *s, const char *key, uint64_t value);
/* Count the diagnostics of the last policy load: "...: error: ..." lines are
 * errors, the others warnings. */
void metrics_sample_set_diagnostics(MetricsSample *s, char *const *diagnostics);
/* Fill S from latniced's GetStatus reply (a{sv}); strings stay borrowed
 * from REPLY. 0 or a negative errno. */
int metrics_sample_from_reply(sd_bus_message *reply, MetricsSample *s);

/* Write S as metrics, latnice_up 1 first. 0 or -EIO. */
int metrics_format(FILE *f, const MetricsSample *s);
/* What to write when latniced cannot be asked: latnice_up 0 alone. */
int metrics_format_down(FILE *f);
