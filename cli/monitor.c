/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * latnicectl monitor: follows latniced's TaskApplied, FocusChanged and
 * AudioStream signals and prints a line (or a JSON object) for each, until
 * Ctrl-C, SIGTERM, latniced leaving the bus or the bus going away (exit 1).
 */
#include <inttypes.h>
#include <signal.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>
#include <time.h>

#include "cli/bus-call.h"
#include "cli/cli.h"
#include "cli/json.h"
#include "cli/table.h"
#include "lib/bus-names.h"
#include "lib/log.h"
#include "lib/macro.h"
#include "lib/util.h"

/* One monitor line as JSON: the object is opened with the time and, for a
 * signal other than TaskApplied, its "event"; the caller adds its fields and
 * ends it with monitor_json_end(). */
static void monitor_json_begin(JsonWriter *w, const struct timespec *ts, const char *event)
{
        json_writer_init(w, stdout);
        json_writer_set_pretty(w, false);
        json_begin_object(w);
        json_kv_uint(w, "timestamp_usec",
                     (uint64_t) ts->tv_sec * 1000000u + (uint64_t) ts->tv_nsec / 1000u);
        if (event)
                json_kv_string(w, "event", event);
}

static int monitor_json_end(JsonWriter *w)
{
        json_end_object(w);
        return json_writer_finish(w);
}

/* "HH:MM:SS.mmm" of TS, local time, in WHEN. */
static void monitor_when(const struct timespec *ts, char when[static 48])
{
        char hms[32] = "";
        struct tm tm;
        time_t t = ts->tv_sec;

        if (localtime_r(&t, &tm))
                strftime(hms, sizeof(hms), "%H:%M:%S", &tm);
        snprintf(when, 48, "%s.%03ld", hms, ts->tv_nsec / 1000000);
}

/* A text line was printed: flushed, or the monitor ends (stdout gone). */
static int monitor_flush(void)
{
        return fflush(stdout) == 0 ? 0 : -EIO;
}

/* R < 0: writing failed, the monitor ends with exit status 1. */
static int monitor_done(sd_bus_message *m, int r)
{
        if (r < 0)
                return sd_event_exit(sd_bus_get_event(sd_bus_message_get_bus(m)), 1);
        return 0;
}

static int on_task_applied(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        const CliOptions *o = userdata;
        const char *rule, *settings;
        uint32_t pid, tid;
        struct timespec ts;
        int r;

        r = sd_bus_message_read(m, "uuss", &pid, &tid, &rule, &settings);
        if (r < 0) {
                log_warning_errno(r, "Ignoring a malformed TaskApplied signal: %m");
                return 0;
        }
        clock_gettime(CLOCK_REALTIME, &ts);

        if (o->json) {
                JsonWriter w;

                monitor_json_begin(&w, &ts, NULL);
                json_kv_uint(&w, "pid", pid);
                json_kv_uint(&w, "tid", tid);
                json_kv_string(&w, "rule", rule);
                json_kv_string(&w, "settings", settings);
                r = monitor_json_end(&w);
        } else {
                _cleanup_free_ char *r_clean = cell_sanitize(rule), *s_clean = cell_sanitize(settings);
                char when[48];

                monitor_when(&ts, when);
                printf("%s pid %" PRIu32 " tid %" PRIu32 " rule %s: %s\n", when, pid, tid,
                       r_clean ? r_clean : "?", s_clean ? s_clean : "?");
                r = monitor_flush();
        }
        return monitor_done(m, r);
}

/* FocusChanged(cgroup, pid, state, fact): one line, "focus" instead of a rule. */
static int on_focus_changed(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        const CliOptions *o = userdata;
        const char *cgroup, *state, *fact;
        uint32_t pid;
        struct timespec ts;
        int r;

        r = sd_bus_message_read(m, "suss", &cgroup, &pid, &state, &fact);
        if (r < 0) {
                log_warning_errno(r, "Ignoring a malformed FocusChanged signal: %m");
                return 0;
        }
        clock_gettime(CLOCK_REALTIME, &ts);
        if (o->json) {
                JsonWriter w;

                monitor_json_begin(&w, &ts, "focus");
                json_kv_string(&w, "cgroup", cgroup);
                json_kv_uint(&w, "pid", pid);
                json_kv_string(&w, "focused", state);
                json_kv_string(&w, "fact", fact);
                r = monitor_json_end(&w);
        } else {
                _cleanup_free_ char *f_clean = cell_sanitize(fact), *c_clean = cell_sanitize(cgroup);
                char when[48];

                monitor_when(&ts, when);
                if (pid > 0)
                        printf("%s focus pid %" PRIu32 ": %s\n", when, pid, f_clean ? f_clean : "?");
                else
                        printf("%s focus %s: %s\n", when, c_clean ? c_clean : "?",
                               f_clean && *f_clean ? f_clean : "no longer known");
                r = monitor_flush();
        }
        return monitor_done(m, r);
}

/* AudioStream(pid, state, fact, node): one line, "audio" instead of a rule. */
static int on_audio_stream(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        const CliOptions *o = userdata;
        const char *state, *fact;
        uint32_t pid, node;
        struct timespec ts;
        int r;

        r = sd_bus_message_read(m, "ussu", &pid, &state, &fact, &node);
        if (r < 0) {
                log_warning_errno(r, "Ignoring a malformed AudioStream signal: %m");
                return 0;
        }
        clock_gettime(CLOCK_REALTIME, &ts);
        if (o->json) {
                JsonWriter w;

                monitor_json_begin(&w, &ts, "audio");
                json_kv_uint(&w, "pid", pid);
                json_kv_string(&w, "audio", state);
                json_kv_uint(&w, "node", node);
                json_kv_string(&w, "fact", fact);
                r = monitor_json_end(&w);
        } else {
                _cleanup_free_ char *f_clean = cell_sanitize(fact);
                char when[48];

                monitor_when(&ts, when);
                printf("%s audio pid %" PRIu32 ": %s\n", when, pid,
                       f_clean && *f_clean ? f_clean : "no longer known");
                r = monitor_flush();
        }
        return monitor_done(m, r);
}

/* USERDATA is the monitor's event loop: once the connection is closing,
 * sd-bus has detached it, and sd_bus_get_event() no longer finds it. */
static int on_monitor_disconnect(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        log_error("Lost the connection to the bus");
        return sd_event_exit(userdata, 1);
}

static int on_name_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        const char *name, *old_owner, *new_owner;

        if (sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner) < 0)
                return 0;
        if (streq(name, LATNICE_BUS_NAME) && *new_owner == '\0') {
                log_error("latniced left the bus");
                return sd_event_exit(userdata, 1);
        }
        return 0;
}

int verb_monitor(int argc, char **argv, const CliOptions *o)
{
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(sd_bus_slot_unrefp) sd_bus_slot *s1 = NULL, *s2 = NULL, *s3 = NULL, *s4 = NULL,
                                             *s5 = NULL;
        _cleanup_(sd_event_unrefp) sd_event *event = NULL;
        sigset_t mask;
        int r, code = 0;

        r = cli_no_arguments(argc, argv, "monitor");
        if (r != 0)
                return r;
        r = cli_bus_open(o, &bus);
        if (r != 0)
                return r;

        r = sd_event_new(&event);
        if (r < 0)
                return log_error_errno(r, "Cannot create an event loop: %m"), 1;
        sigemptyset(&mask);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGTERM);
        sigprocmask(SIG_BLOCK, &mask, NULL);
        /* A NULL handler ends the loop with exit code 0 (userdata). */
        r = sd_event_add_signal(event, NULL, SIGINT, NULL, NULL);
        if (r >= 0)
                r = sd_event_add_signal(event, NULL, SIGTERM, NULL, NULL);
        if (r < 0)
                return log_error_errno(r, "Cannot watch signals: %m"), 1;

        r = sd_bus_match_signal(bus, &s1, LATNICE_BUS_NAME, LATNICE_BUS_PATH,
                                LATNICE_BUS_INTERFACE, "TaskApplied", on_task_applied, (void *) o);
        if (r >= 0)
                r = sd_bus_match_signal(bus, &s2, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                        "org.freedesktop.DBus", "NameOwnerChanged",
                                        on_name_owner_changed, event);
        if (r >= 0)
                r = sd_bus_match_signal(bus, &s4, LATNICE_BUS_NAME, LATNICE_BUS_PATH,
                                        LATNICE_BUS_INTERFACE, "FocusChanged", on_focus_changed,
                                        (void *) o);
        if (r >= 0)
                r = sd_bus_match_signal(bus, &s5, LATNICE_BUS_NAME, LATNICE_BUS_PATH,
                                        LATNICE_BUS_INTERFACE, "AudioStream", on_audio_stream,
                                        (void *) o);
        if (r >= 0)
                r = sd_bus_match_signal(bus, &s3, NULL, "/org/freedesktop/DBus/Local",
                                        "org.freedesktop.DBus.Local", "Disconnected",
                                        on_monitor_disconnect, event);
        if (r < 0)
                return log_error_errno(r, "Cannot subscribe to TaskApplied: %m"), 1;

        /* Subscribed first, then checked: no signal is lost in between, and a
         * daemon that is not there is reported instead of waited for. */
        r = cli_call_no_args(o, bus, "GetStatus", &reply);
        if (r != 0)
                return r;

        r = sd_bus_attach_event(bus, event, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0)
                return log_error_errno(r, "Cannot attach the bus to the event loop: %m"), 1;
        if (!o->json && !o->quiet) {
                printf("Following TaskApplied, FocusChanged and AudioStream signals of latniced "
                       "(Ctrl-C to stop).\n");
                fflush(stdout);
        }
        r = sd_event_loop(event);
        if (r < 0)
                return log_error_errno(r, "Event loop failed: %m"), 1;
        code = r;
        (void) sd_bus_detach_event(bus);
        return code == 0 ? 0 : 1;
}
