/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * latnicectl daemon verbs: status, list, set, reload, set-unit, unset-unit
 * (monitor: cli/monitor.c). They talk to latniced over D-Bus (org.latnice.Daemon1, see
 * man/org.latnice.Daemon1.5.scd) and never link daemon code.
 */
#include <inttypes.h>
#include <signal.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>
#include <time.h>

#include "cli/bus-call.h"
#include "cli/cli.h"
#include "cli/kernel-note.h"
#include "cli/daemon-find.h"
#include "cli/json.h"
#include "cli/table.h"
#include "lib/bus-names.h"
#include "lib/bus-settings.h"
#include "lib/log.h"
#include "lib/namespace.h"
#include "lib/probe.h"
#include "lib/macro.h"
#include "lib/settings.h"
#include "lib/time-util.h"
#include "lib/util.h"
#include "policy/decide.h"

/* ---- Connecting and calling ------------------------------------------ */

static const char *bus_address(const CliOptions *o)
{
        return o && o->bus ? o->bus : "system";
}

/* "the system bus", "the session bus", "the bus unix:path=..." */
static char *bus_description(const CliOptions *o)
{
        const char *a = bus_address(o);
        char *s = NULL;

        if (streq(a, "system") || streq(a, "session"))
                return asprintf(&s, "the %s bus", a) < 0 ? NULL : s;
        return asprintf(&s, "the bus %s", a) < 0 ? NULL : s;
}

/* The latniced processes that run but not on the system bus, when that is
 * the bus asked (the default: where latniced.service puts it; a bus named
 * with --bus is asked about that bus alone), in the host's PID and user
 * namespaces. Their count, 0, or -ENOMEM. */
static int daemons_elsewhere(const CliOptions *o, DaemonProcess **ret, size_t *ret_n)
{
        NamespaceCheck ns;
        int r;

        *ret = NULL;
        *ret_n = 0;
        if (!streq(bus_address(o), "system"))
                return 0;
        /* Outside the host's namespaces no latniced runs (the callers say
         * why), whatever a /proc of the host shows. */
        if (namespace_check(&ns) == 0)
                return 0;
        r = daemon_find(o->proc_root, ret, ret_n);
        return r < 0 ? r : (int)*ret_n;
}

/* "without its D-Bus API (started with --bus none)" or "on another bus
 * (started with --bus X)" */
static void describe_elsewhere(FILE *f, const DaemonProcess *d)
{
        _cleanup_free_ char *clean = cell_sanitize(d->bus);

        if (streq(d->bus, "none"))
                fprintf(f, "latniced runs without its D-Bus API (pid %d, started with --bus none)",
                        (int)d->pid);
        else
                fprintf(f, "latniced runs on another bus (pid %d, started with --bus %s), not on "
                           "the system bus",
                        (int)d->pid, clean ? clean : "?");
}

static int report_not_running(const CliOptions *o, const char *why)
{
        _cleanup_free_ char *d = bus_description(o);
        DaemonProcess *found = NULL;
        size_t n = 0;

        if (daemons_elsewhere(o, &found, &n) > 0) {
                for (size_t i = 0; i < n; i++) {
                        fputs("latnicectl: ", stderr);
                        describe_elsewhere(stderr, &found[i]);
                        fputs(": this command needs latniced on the system bus\n", stderr);
                }
                daemon_processes_free(found, n);
                return 1;
        }
        if (why)
                log_error("latniced is not running (%s)", why);
        else
                log_error("latniced is not running (" LATNICE_BUS_NAME " is not on %s)",
                          strna(d));
        return 1;
}

/* Connect to the bus of O. 0 or a negative errno. */
static int bus_connect(const CliOptions *o, sd_bus **ret)
{
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        const char *a = bus_address(o);
        int r;

        if (streq(a, "system"))
                r = sd_bus_open_system(&bus);
        else if (streq(a, "session"))
                r = sd_bus_open_user(&bus);
        else {
                r = sd_bus_new(&bus);
                if (r >= 0)
                        r = sd_bus_set_address(bus, a);
                if (r >= 0)
                        r = sd_bus_set_bus_client(bus, true);
                if (r >= 0)
                        r = sd_bus_start(bus);
        }
        if (r < 0)
                return r;
        *ret = TAKE_PTR(bus);
        return 0;
}

/* Connect; on failure print why and return the exit status (1). */
int cli_bus_open(const CliOptions *o, sd_bus **ret)
{
        _cleanup_free_ char *d = NULL, *why = NULL;
        int r;

        r = bus_connect(o, ret);
        if (r >= 0)
                return 0;
        d = bus_description(o);
        if (asprintf(&why, "cannot connect to %s: %s", strna(d), strerror(-r)) < 0)
                return log_oom(), 1;
        return report_not_running(o, why);
}

/* The call failed because latniced is not there: no one owns its name, and
 * activating it failed. */
static bool daemon_absent(const sd_bus_error *error)
{
        return sd_bus_error_has_names(error, SD_BUS_ERROR_SERVICE_UNKNOWN,
                                      SD_BUS_ERROR_NAME_HAS_NO_OWNER) ||
               (error->name && strncmp(error->name, "org.freedesktop.DBus.Error.Spawn.", 33) == 0);
}

/* Print a failed call's error; returns the exit status (1). */
static int report_error(const CliOptions *o, const char *method, const sd_bus_error *error,
                        int r)
{
        if (daemon_absent(error))
                return report_not_running(o, NULL);
        if (sd_bus_error_is_set(error))
                log_error("%s", error->message && *error->message ? error->message : error->name);
        else
                log_error("%s failed: %s", method, strerror(r < 0 ? -r : r));
        return 1;
}

static int method_new(sd_bus *bus, const char *method, sd_bus_message **ret)
{
        return sd_bus_message_new_method_call(bus, ret, LATNICE_BUS_NAME, LATNICE_BUS_PATH,
                                              LATNICE_BUS_INTERFACE, method);
}

/* Call M; on failure print and return the exit status 1, else 0. */
static int call(const CliOptions *o, sd_bus *bus, sd_bus_message *m, const char *method,
                sd_bus_message **ret_reply)
{
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        r = sd_bus_call(bus, m, 0, &error, ret_reply);
        if (r < 0)
                return report_error(o, method, &error, r);
        return 0;
}

int cli_daemon_budget_reason(const CliOptions *o, pid_t pid, char **ret_reason)
{
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        const char *why = NULL;
        char *s;

        *ret_reason = NULL;
        /* Never start latniced for this, and never wait long for it. */
        if (bus_connect(o, &bus) < 0 || method_new(bus, "Explain", &m) < 0 ||
            sd_bus_message_append(m, "u", (uint32_t)pid) < 0 ||
            sd_bus_message_set_auto_start(m, false) < 0 ||
            sd_bus_call(bus, m, 2 * USEC_PER_SEC, &error, &reply) < 0)
                return 0;
        if (sd_bus_message_skip(reply, "a{sv}sba(ssussa{sv})a{sv}") < 0 ||
            sd_bus_message_read(reply, "s", &why) < 0 || !why ||
            strncmp(why, BOOST_BUDGET_REASON_PREFIX, strlen(BOOST_BUDGET_REASON_PREFIX)) != 0)
                return 0;
        s = strdup(why);
        if (!s)
                return -ENOMEM;
        *ret_reason = s;
        return 1;
}

int cli_daemon_sched_ext(const CliOptions *o, char **ret_state, char **ret_ops)
{
        static const char *const props[] = { "SchedExtState", "SchedExtScheduler" };
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        char *got[2] = {};

        *ret_state = *ret_ops = NULL;
        if (bus_connect(o, &bus) < 0)
                return 0;
        for (size_t i = 0; i < ELEMENTSOF(props); i++) {
                _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
                _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
                const char *v;

                /* Never start latniced for this, and never wait long for it. */
                if (sd_bus_message_new_method_call(bus, &m, LATNICE_BUS_NAME, LATNICE_BUS_PATH,
                                                   "org.freedesktop.DBus.Properties", "Get") < 0 ||
                    sd_bus_message_append(m, "ss", LATNICE_BUS_INTERFACE, props[i]) < 0 ||
                    sd_bus_message_set_auto_start(m, false) < 0 ||
                    sd_bus_call(bus, m, 2 * USEC_PER_SEC, &error, &reply) < 0 ||
                    sd_bus_message_read(reply, "v", "s", &v) < 0) {
                        free(got[0]);
                        return 0; /* not there, or a latniced before the property */
                }
                got[i] = strdup(v);
                if (!got[i]) {
                        free(got[0]);
                        return -ENOMEM;
                }
        }
        *ret_state = got[0];
        if (*got[1])
                *ret_ops = got[1];
        else
                free(got[1]);
        return 1;
}

int cli_daemon_focus(const CliOptions *o, pid_t pid, char **ret_state, char **ret_fact,
                     uint64_t *ret_unfocused_usec)
{
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        const char *state = NULL, *fact = NULL;

        *ret_state = *ret_fact = NULL;
        *ret_unfocused_usec = 0;
        if (bus_connect(o, &bus) < 0 || method_new(bus, "GetFocus", &m) < 0 ||
            sd_bus_message_append(m, "u", (uint32_t)pid) < 0 ||
            sd_bus_message_set_auto_start(m, false) < 0 ||
            sd_bus_call(bus, m, 2 * USEC_PER_SEC, &error, &reply) < 0 ||
            sd_bus_message_read(reply, "sst", &state, &fact, ret_unfocused_usec) < 0 || !state ||
            !*state)
                return 0;
        *ret_state = strdup(state);
        *ret_fact = strdup(strempty(fact));
        if (!*ret_state || !*ret_fact) {
                free(*ret_state);
                free(*ret_fact);
                *ret_state = *ret_fact = NULL;
                return -ENOMEM;
        }
        return 1;
}

int cli_daemon_audio(const CliOptions *o, pid_t pid, char **ret_state, char **ret_fact)
{
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        const char *state = NULL, *fact = NULL;
        uint32_t node = 0;

        *ret_state = *ret_fact = NULL;
        if (bus_connect(o, &bus) < 0 || method_new(bus, "GetAudio", &m) < 0 ||
            sd_bus_message_append(m, "u", (uint32_t)pid) < 0 ||
            sd_bus_message_set_auto_start(m, false) < 0 ||
            sd_bus_call(bus, m, 2 * USEC_PER_SEC, &error, &reply) < 0 ||
            sd_bus_message_read(reply, "ssu", &state, &fact, &node) < 0 || !state || !*state)
                return 0;
        *ret_state = strdup(state);
        *ret_fact = strdup(strempty(fact));
        if (!*ret_state || !*ret_fact) {
                free(*ret_state);
                free(*ret_fact);
                *ret_state = *ret_fact = NULL;
                return -ENOMEM;
        }
        return 1;
}

int cli_daemon_get_status(const CliOptions *o, sd_bus_message **ret_reply)
{
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        r = cli_bus_open(o, &bus);
        if (r != 0)
                return r;
        r = method_new(bus, "GetStatus", &m);
        if (r >= 0)
                r = sd_bus_message_set_auto_start(m, false);
        if (r < 0) {
                log_error_errno(r, "Cannot make the GetStatus call: %m");
                return 1;
        }
        r = sd_bus_call(bus, m, 0, &error, ret_reply);
        if (r < 0)
                return report_error(o, "GetStatus", &error, r);
        return 0;
}

static int bus_parse_error(int r)
{
        log_error_errno(r, "Cannot parse the reply of latniced: %m");
        return 1;
}

/* ---- Settings on the command line ------------------------------------ */

/* Parse KEY=VALUE arguments for VERB (settings of ALLOWED only); usage errors
 * print and return 2, like those of run. */
static int parse_assignments(char **args, size_t n, uint32_t allowed, const char *verb,
                             Settings *ret)
{
        Settings s = {};

        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *err = NULL, *key = NULL;
                const char *eq = strchr(args[i], '=');
                SettingId id;

                if (!eq || eq == args[i])
                        return cli_usage_error("invalid setting '%s': expected KEY=VALUE",
                                               args[i]);
                key = strndup(args[i], eq - args[i]);
                if (!key)
                        return cli_error("out of memory");
                id = setting_from_string(key);
                if (id < 0) {
                        _cleanup_free_ char *names = settings_names(allowed);

                        return cli_usage_error("invalid setting '%s': unknown key '%s' (%s takes "
                                               "%s)",
                                               args[i], key, verb, strna(names));
                }
                if (!(allowed & SETTING_BIT(id)))
                        return cli_usage_error("invalid setting '%s': %s applies to %s only, "
                                               "not to %s",
                                               args[i], key,
                                               allowed == SETTINGS_UNIT_MASK ? "processes"
                                                                             : "[Unit] sections",
                                               allowed == SETTINGS_UNIT_MASK ? "a unit"
                                                                             : "a process");
                if (settings_parse(&s, id, eq + 1, &err, NULL) < 0)
                        return cli_usage_error("invalid setting '%s': %s", args[i],
                                               err ? err : "invalid value");
        }
        *ret = s;
        return 0;
}

/* Verbs without arguments: anything given is a usage error. */
int cli_no_arguments(int argc, char **argv, const char *verb)
{
        _cleanup_free_ char **args = NULL;
        size_t n;
        int r;

        r = cli_positional_args(argc, argv, verb, &args, &n);
        if (r != 0)
                return r;
        if (n > 0)
                return cli_usage_error("%s takes no arguments, found '%s'", verb, args[0]);
        return 0;
}

/* Call METHOD, which takes no arguments; on failure print and return the
 * exit status 1, else 0. */
int cli_call_no_args(const CliOptions *o, sd_bus *bus, const char *method,
                      sd_bus_message **ret_reply)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        int r;

        r = method_new(bus, method, &m);
        if (r < 0)
                return bus_parse_error(r);
        return call(o, bus, m, method, ret_reply);
}

/* The start of a verb without arguments that makes one call: check that
 * none were given, connect, call METHOD. 0, or the exit status to return. */
static int simple_verb(int argc, char **argv, const CliOptions *o, const char *verb,
                       const char *method, sd_bus **ret_bus, sd_bus_message **ret_reply)
{
        int r;

        r = cli_no_arguments(argc, argv, verb);
        if (r != 0)
                return r;
        r = cli_bus_open(o, ret_bus);
        if (r != 0)
                return r;
        return cli_call_no_args(o, *ret_bus, method, ret_reply);
}

/* ---- Generic reply -> JSON ------------------------------------------- */

/* "LatencyNiceSyscall" -> "latency_nice_syscall", "EEVDFSlice" -> "eevdf_slice" */
static char *camel_to_snake(const char *s)
{
        size_t n = strlen(s);
        char *out = malloc(2 * n + 1), *p = out;

        if (!out)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                char c = s[i];
                bool upper = c >= 'A' && c <= 'Z';

                if (upper && i > 0) {
                        char prev = s[i - 1], next = s[i + 1];
                        bool prev_lower = (prev >= 'a' && prev <= 'z') || (prev >= '0' && prev <= '9');
                        bool prev_upper = prev >= 'A' && prev <= 'Z';
                        bool next_lower = next >= 'a' && next <= 'z';
                        /* "CPUs": a plural s does not start a word */
                        if (prev_lower || (prev_upper && next_lower && !(next == 's' && s[i + 2] == '\0')))
                                *p++ = '_';
                }
                *p++ = upper ? (char) (c - 'A' + 'a') : c;
        }
        *p = '\0';
        return out;
}

static int json_dump_value(JsonWriter *w, sd_bus_message *m);

static int json_dump_basic(JsonWriter *w, sd_bus_message *m, char type, bool as_key)
{
        union {
                uint8_t u8;
                uint16_t u16;
                int16_t s16;
                uint32_t u32;
                int32_t s32;
                uint64_t u64;
                int64_t s64;
                double d;
                int b;
                const char *s;
        } v;
        char buf[32];
        int r;

        r = sd_bus_message_read_basic(m, type, &v);
        if (r < 0)
                return r;
        switch (type) {
        case 's':
        case 'o':
        case 'g':
                if (as_key) {
                        _cleanup_free_ char *k = camel_to_snake(v.s);
                        if (!k)
                                return -ENOMEM;
                        json_key(w, k);
                } else
                        json_string(w, v.s);
                return 0;
        case 'b':
                if (as_key)
                        json_key(w, v.b ? "true" : "false");
                else
                        json_bool(w, v.b);
                return 0;
        case 'y':
                snprintf(buf, sizeof(buf), "%u", v.u8);
                break;
        case 'q':
                snprintf(buf, sizeof(buf), "%u", v.u16);
                break;
        case 'n':
                snprintf(buf, sizeof(buf), "%d", v.s16);
                break;
        case 'u':
                snprintf(buf, sizeof(buf), "%" PRIu32, v.u32);
                break;
        case 'i':
        case 'h':
                snprintf(buf, sizeof(buf), "%" PRIi32, v.s32);
                break;
        case 't':
                snprintf(buf, sizeof(buf), "%" PRIu64, v.u64);
                break;
        case 'x':
                snprintf(buf, sizeof(buf), "%" PRIi64, v.s64);
                break;
        case 'd':
                if (as_key)
                        snprintf(buf, sizeof(buf), "%g", v.d);
                else {
                        json_double(w, v.d);
                        return 0;
                }
                break;
        default:
                return -EINVAL;
        }
        if (as_key)
                json_key(w, buf);
        else if (type == 'i' || type == 'x' || type == 'n' || type == 'h')
                json_int(w, type == 'x' ? v.s64 : type == 'n' ? v.s16 : v.s32);
        else
                json_uint(w, type == 't' ? v.u64 : type == 'u' ? v.u32 : type == 'q' ? v.u16 : v.u8);
        return 0;
}

/* Write the next complete value of M as JSON: a{..} as objects (keys in
 * snake_case), other arrays and structs as arrays, variants unwrapped. */
static int json_dump_value(JsonWriter *w, sd_bus_message *m)
{
        const char *contents;
        char type;
        int r;

        r = sd_bus_message_peek_type(m, &type, &contents);
        if (r < 0)
                return r;
        if (r == 0)
                return -ENXIO;

        switch (type) {
        case 'v':
        case 'r':
                r = sd_bus_message_enter_container(m, type, contents);
                if (r < 0)
                        return r;
                if (type == 'r')
                        json_begin_array(w);
                while ((r = sd_bus_message_at_end(m, false)) == 0) {
                        r = json_dump_value(w, m);
                        if (r < 0)
                                return r;
                }
                if (r < 0)
                        return r;
                if (type == 'r')
                        json_end_array(w);
                return sd_bus_message_exit_container(m);
        case 'a': {
                bool dict = contents[0] == '{';

                r = sd_bus_message_enter_container(m, 'a', contents);
                if (r < 0)
                        return r;
                dict ? json_begin_object(w) : json_begin_array(w);
                for (;;) {
                        if (dict) {
                                const char *ec;
                                char et;

                                r = sd_bus_message_peek_type(m, &et, &ec);
                                if (r <= 0)
                                        break;
                                r = sd_bus_message_enter_container(m, 'e', ec);
                                if (r < 0)
                                        return r;
                                r = json_dump_basic(w, m, ec[0], true);
                                if (r < 0)
                                        return r;
                                r = json_dump_value(w, m);
                                if (r < 0)
                                        return r;
                                r = sd_bus_message_exit_container(m);
                                if (r < 0)
                                        return r;
                        } else {
                                r = sd_bus_message_at_end(m, false);
                                if (r != 0)
                                        break;
                                r = json_dump_value(w, m);
                                if (r < 0)
                                        return r;
                        }
                }
                if (r < 0)
                        return r;
                dict ? json_end_object(w) : json_end_array(w);
                return sd_bus_message_exit_container(m);
        }
        default:
                return json_dump_basic(w, m, type, false);
        }
}

/* Dump the whole reply: one value as is, several as an array. */
static int print_reply_json(sd_bus_message *reply)
{
        JsonWriter w;
        int r;

        json_writer_init(&w, stdout);
        r = json_dump_value(&w, reply);
        if (r < 0)
                return bus_parse_error(r);
        r = json_writer_finish(&w);
        if (r < 0)
                return log_error_errno(r, "Cannot write JSON: %m"), 1;
        return 0;
}

/* ---- status ----------------------------------------------------------- */

typedef struct StatusInfo {
        const char *version, *backend;
        const char *core_sched;
        const char *preemption, *sched_ext_state, *sched_ext_scheduler;
        uint32_t hz;
        char **in_effect;
        int dry_run, sched_ext_active;
        uint64_t start, last_reload, events, lost, rescans, applied, failed, managed,
                user_owned, rules, files, units, fd_exhaustions, put_off, batched, shared_groups,
                unrecorded, threads_deferred, threads_full;
        char **diagnostics, **dirs;
} StatusInfo;

static void status_info_done(StatusInfo *i)
{
        strv_free(i->diagnostics);
        strv_free(i->dirs);
        strv_free(i->in_effect);
}

static int status_read(sd_bus_message *reply, StatusInfo *i)
{
        static const struct {
                const char *key;
                size_t offset;
        } counters[] = {
                { "StartTimestamp", offsetof(StatusInfo, start) },
                { "LastReloadTimestamp", offsetof(StatusInfo, last_reload) },
                { "Events", offsetof(StatusInfo, events) },
                { "LostEvents", offsetof(StatusInfo, lost) },
                { "Rescans", offsetof(StatusInfo, rescans) },
                { "Applied", offsetof(StatusInfo, applied) },
                { "Failed", offsetof(StatusInfo, failed) },
                { "ManagedTasks", offsetof(StatusInfo, managed) },
                { "UserOwnedTasks", offsetof(StatusInfo, user_owned) },
                { "FdExhaustions", offsetof(StatusInfo, fd_exhaustions) },
                { "PutOffEvaluations", offsetof(StatusInfo, put_off) },
                { "BatchedStorms", offsetof(StatusInfo, batched) },
                { "SharedGroups", offsetof(StatusInfo, shared_groups) },

                { "UnrecordedTasks", offsetof(StatusInfo, unrecorded) },
                { "DeferredThreadEvents", offsetof(StatusInfo, threads_deferred) },
                { "OverflowedThreadEvents", offsetof(StatusInfo, threads_full) },
                { "Rules", offsetof(StatusInfo, rules) },
                { "PolicyFiles", offsetof(StatusInfo, files) },
                { "Units", offsetof(StatusInfo, units) },
        };
        int r;

        r = sd_bus_message_enter_container(reply, 'a', "{sv}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(reply, 'e', "sv")) > 0) {
                const char *key, *contents;
                bool done = false;

                r = sd_bus_message_read(reply, "s", &key);
                if (r < 0)
                        return r;
                r = sd_bus_message_peek_type(reply, NULL, &contents);
                if (r < 0)
                        return r;

                if (streq(contents, "s") && (streq(key, "Version") || streq(key, "Backend"))) {
                        r = sd_bus_message_read(reply, "v", "s",
                                                streq(key, "Version") ? &i->version : &i->backend);
                        done = true;
                } else if (streq(contents, "s") && streq(key, "CoreScheduling")) {
                        r = sd_bus_message_read(reply, "v", "s", &i->core_sched);
                        done = true;
                } else if (streq(contents, "s") &&
                           (streq(key, "Preemption") || streq(key, "SchedExtState") ||
                            streq(key, "SchedExtScheduler"))) {
                        r = sd_bus_message_read(reply, "v", "s",
                                                streq(key, "Preemption")      ? &i->preemption
                                                : streq(key, "SchedExtState") ? &i->sched_ext_state
                                                                              : &i->sched_ext_scheduler);
                        done = true;
                } else if (streq(contents, "u") && streq(key, "HZ")) {
                        r = sd_bus_message_read(reply, "v", "u", &i->hz);
                        done = true;
                } else if (streq(contents, "b") &&
                           (streq(key, "DryRun") || streq(key, "SchedExtActive"))) {
                        r = sd_bus_message_read(reply, "v", "b",
                                                streq(key, "DryRun") ? &i->dry_run
                                                                     : &i->sched_ext_active);
                        done = true;
                } else if (streq(contents, "as") &&
                           (streq(key, "Diagnostics") || streq(key, "PolicyDirectories") ||
                            streq(key, "SettingsInEffect"))) {
                        char ***l = streq(key, "Diagnostics")         ? &i->diagnostics
                                    : streq(key, "PolicyDirectories") ? &i->dirs
                                                                      : &i->in_effect;
                        r = sd_bus_message_enter_container(reply, 'v', "as");
                        if (r >= 0) {
                                *l = strv_free(*l);
                                r = sd_bus_message_read_strv(reply, l);
                        }
                        if (r >= 0)
                                r = sd_bus_message_exit_container(reply);
                        done = true;
                } else if (streq(contents, "t")) {
                        for (size_t k = 0; k < ELEMENTSOF(counters); k++)
                                if (streq(key, counters[k].key)) {
                                        r = sd_bus_message_read(
                                                reply, "v", "t",
                                                (uint64_t *) ((char *) i + counters[k].offset));
                                        done = true;
                                        break;
                                }
                }
                if (r < 0)
                        return r;
                if (!done) {
                        r = sd_bus_message_skip(reply, "v");
                        if (r < 0)
                                return r;
                }
                r = sd_bus_message_exit_container(reply);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(reply);
}

static size_t strv_count(char *const *l)
{
        size_t n = 0;

        while (l && l[n])
                n++;
        return n;
}

static void format_timestamp(uint64_t usec, char *buf, size_t size)
{
        time_t t = (time_t) (usec / 1000000);
        struct tm tm;

        if (usec == 0 || !localtime_r(&t, &tm) ||
            strftime(buf, size, "%a %Y-%m-%d %H:%M:%S %Z", &tm) == 0)
                snprintf(buf, size, "n/a");
}

static const char *backend_explained(const char *b)
{
        if (streq_ptr(b, "latency-nice"))
                return "per-task latency nice (kernel patch set)";
        if (streq_ptr(b, "slice"))
                return "latency nice emulated with the EEVDF slice";
        if (streq_ptr(b, "none"))
                return "latency nice unavailable";
        return NULL;
}

/* From latniced's GetKernel (best effort): did its kernel probe find EEVDF
 * slices and the latency nice syscall? 0, or -errno (nothing is printed). */
static int kernel_of_daemon(sd_bus *bus, bool *ret_eevdf, bool *ret_latency_nice)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        int eevdf = -1, ln = -1, r;

        r = method_new(bus, "GetKernel", &m);
        if (r >= 0)
                r = sd_bus_call(bus, m, 0, &error, &reply);
        if (r >= 0)
                r = sd_bus_message_enter_container(reply, 'a', "{sv}");
        while (r >= 0 && (r = sd_bus_message_enter_container(reply, 'e', "sv")) > 0) {
                const char *key;

                r = sd_bus_message_read(reply, "s", &key);
                if (r >= 0 && (streq(key, "EEVDFSlice") || streq(key, "LatencyNiceSyscall")))
                        r = sd_bus_message_read(reply, "v", "b",
                                                streq(key, "EEVDFSlice") ? &eevdf : &ln);
                else if (r >= 0)
                        r = sd_bus_message_skip(reply, "v");
                if (r >= 0)
                        r = sd_bus_message_exit_container(reply);
        }
        if (r < 0)
                return r;
        if (eevdf < 0 || ln < 0)
                return -ENODATA;
        *ret_eevdf = eevdf;
        *ret_latency_nice = ln;
        return 0;
}

/* latniced runs, but not on the system bus (latniced --bus none): say so,
 * with what /proc tells, instead of "not running". An exit status. */
static int status_elsewhere(const CliOptions *o, const DaemonProcess *found, size_t n)
{
        if (o->json) {
                JsonWriter w;

                json_writer_init(&w, stdout);
                json_begin_object(&w);
                json_kv_bool(&w, "running", true);
                json_kv_bool(&w, "on_bus", false);
                json_key(&w, "processes");
                json_begin_array(&w);
                for (size_t i = 0; i < n; i++) {
                        json_begin_object(&w);
                        json_kv_int(&w, "pid", found[i].pid);
                        json_kv_string(&w, "bus", found[i].bus);
                        json_kv_uint(&w, "start_timestamp", found[i].start_usec);
                        json_end_object(&w);
                }
                json_end_array(&w);
                json_end_object(&w);
                return json_writer_finish(&w) < 0 ? 1 : 0;
        }
        for (size_t i = 0; i < n; i++) {
                char started[64];

                format_timestamp(found[i].start_usec, started, sizeof(started));
                fputs(cli_color(o, "bold"), stdout);
                describe_elsewhere(stdout, &found[i]);
                printf("%s, running since %s\n", cli_color(o, "reset"), started);
        }
        printf("  Its counters, list, set, reload and monitor need latniced on the system bus;\n"
               "  its log (journalctl -u latniced, or its standard error) tells what it does.\n");
        /* what the kernel lets the settings do, from a probe of our own */
        {
                KernelFeatures k;

                if (kernel_probe(o->cgroup_root, &k) >= 0)
                        cli_print_latency_note(o, k.eevdf_slice, k.latency_nice_syscall);
        }
        return fflush(stdout) == 0 ? 0 : 1;
}

/* GetStatus, or what can be said without it. 0 with *RET_REPLY; 0 without
 * one when latniced runs off the bus (said so); or the exit status after
 * saying why not. */
static int status_call(int argc, char **argv, const CliOptions *o, sd_bus **ret_bus,
                       sd_bus_message **ret_reply)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        DaemonProcess *found = NULL;
        size_t n = 0;
        int r;

        r = cli_no_arguments(argc, argv, "status");
        if (r != 0)
                return r;
        r = bus_connect(o, ret_bus);
        if (r >= 0) {
                r = method_new(*ret_bus, "GetStatus", &m);
                if (r < 0)
                        return bus_parse_error(r);
                r = sd_bus_call(*ret_bus, m, 0, &error, ret_reply);
                if (r >= 0)
                        return 0;
                if (!daemon_absent(&error))
                        return report_error(o, "GetStatus", &error, r);
        }
        r = daemons_elsewhere(o, &found, &n);
        if (r == -ENOMEM)
                return log_oom(), 1;
        if (r > 0) {
                r = status_elsewhere(o, found, n);
                daemon_processes_free(found, n);
                return r;
        }
        /* not running: cli_bus_open() and call() say so, each as it does */
        *ret_bus = sd_bus_flush_close_unref(*ret_bus);
        r = cli_bus_open(o, ret_bus);
        return r != 0 ? r : cli_call_no_args(o, *ret_bus, "GetStatus", ret_reply);
}

/* The preemption model, HZ, sched_ext and what acts, as latniced sees
 * them (a latniced before these entries: nothing). -ENOMEM. */
static int print_scheduler(const StatusInfo *i)
{
        _cleanup_free_ char *scx = NULL;

        if (i->preemption && *i->preemption) {
                printf("   Preemption: %s", i->preemption);
                if (i->hz)
                        printf(", HZ %" PRIu32 "\n", i->hz);
                else
                        printf(", HZ unknown\n");
        }
        if (i->sched_ext_state && *i->sched_ext_state) {
                scx = kernel_sched_ext_note(i->sched_ext_state, i->sched_ext_scheduler &&
                                                                        *i->sched_ext_scheduler
                                                                ? i->sched_ext_scheduler
                                                                : NULL);
                if (!scx)
                        return -ENOMEM;
                printf("    sched_ext: %s\n", scx);
        } else if (i->sched_ext_active)
                printf("    sched_ext: active: slice and latency nice have no effect\n");
        if (i->in_effect) {
                printf("    In effect:");
                for (char **n = i->in_effect; *n; n++)
                        printf(" %s=%s", *n, n[1] ? "," : "");
                printf("%s\n", i->in_effect[0] ? "" : " none");
        }
        return 0;
}

int verb_status(int argc, char **argv, const CliOptions *o)
{
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(status_info_done) StatusInfo i = {};
        char started[64], reloaded[64];
        const char *on, *off;
        size_t n_errors = 0;
        int r;

        r = status_call(argc, argv, o, &bus, &reply);
        if (r != 0)
                return cli_namespace_note(r);
        if (!reply)
                return 0; /* latniced runs without the bus: said so */

        if (o->json)
                return print_reply_json(reply);

        r = status_read(reply, &i);
        if (r < 0)
                return bus_parse_error(r);

        on = o->color ? "\033[1m" : "";
        off = o->color ? "\033[0m" : "";
        format_timestamp(i.start, started, sizeof(started));
        format_timestamp(i.last_reload, reloaded, sizeof(reloaded));
        for (char **d = i.diagnostics; d && *d; d++)
                if (strstr(*d, ": error:"))
                        n_errors++;

        printf("%slatniced %s%s, running since %s\n", on, strna(i.version), off, started);
        printf("      Backend: %s%s%s%s\n", strna(i.backend),
               backend_explained(i.backend) ? " (" : "", strempty(backend_explained(i.backend)),
               backend_explained(i.backend) ? ")" : "");
        {
                bool eevdf = true, latency_nice = true;

                if (kernel_of_daemon(bus, &eevdf, &latency_nice) >= 0)
                        cli_print_latency_note(o, eevdf, latency_nice);
        }
        r = print_scheduler(&i);
        if (r < 0)
                return log_oom(), 1;
        if (i.core_sched)
                printf("   Core sched: %s\n", i.core_sched);
        printf("      Dry run: %s\n", i.dry_run ? "yes (nothing is changed)" : "no");
        printf("       Policy: %" PRIu64 " rules in %" PRIu64 " files\n", i.rules, i.files);
        for (char **d = i.dirs; d && *d; d++)
                printf("%s %s\n", d == i.dirs ? "  Directories:" : "              ", *d);
        printf("  Last reload: %s\n", reloaded);
        printf("        Tasks: %" PRIu64 " managed, %" PRIu64 " user-owned\n", i.managed,
               i.user_owned);
        printf("        Units: %" PRIu64 " unit cgroups configured\n", i.units);
        printf("       Events: %" PRIu64 " handled, %" PRIu64 " lost, %" PRIu64 " rescans, %" PRIu64
               " storms read in batches\n",
               i.events, i.lost, i.rescans, i.batched);
        printf("      Applied: %" PRIu64 " (%" PRIu64 " failed)\n", i.applied, i.failed);
        if (i.fd_exhaustions > 0)
                printf("      Warning: %" PRIu64 " evaluations failed for want of file "
                       "descriptors (raise LimitNOFILE=)\n", i.fd_exhaustions);
        if (i.put_off > 0)
                printf("      Put off: %" PRIu64 " evaluations: a process kept a read of its command "
                       "line waiting (see the log)\n", i.put_off);
        if (i.shared_groups > 0)
                printf("       Groups: %" PRIu64 " times a group was found shared with another "
                       "user: left alone, or given back (see the log)\n", i.shared_groups);

        if (i.unrecorded > 0)
                printf("      Warning: %" PRIu64 " tasks not in the state file (no space to grow "
                       "it): not given back should latniced be killed\n", i.unrecorded);
        if (i.threads_deferred > 0 || i.threads_full > 0)
                printf("      Threads: %" PRIu64 " new or renamed thread events put off (their user "
                       "was over its budget), %" PRIu64 " left to a rescan (see the log)\n",
                       i.threads_deferred, i.threads_full);
        if (!i.diagnostics || !i.diagnostics[0])
                printf("  Diagnostics: none\n");
        else {
                printf("  Diagnostics: %zu error%s, %zu warning%s\n", n_errors,
                       n_errors == 1 ? "" : "s", strv_count(i.diagnostics) - n_errors,
                       strv_count(i.diagnostics) - n_errors == 1 ? "" : "s");
                for (char **d = i.diagnostics; *d; d++) {
                        _cleanup_free_ char *clean = cell_sanitize(*d);
                        printf("               %s\n", clean ? clean : "?");
                }
        }
        return fflush(stdout) == 0 ? 0 : 1;
}

/* ---- list ------------------------------------------------------------- */

int verb_list(int argc, char **argv, const CliOptions *o)
{
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(table_freep) Table *t = NULL;
        JsonWriter w;
        uint32_t pid, tid;
        const char *comm, *rule, *settings;
        int user_owned, r;

        r = simple_verb(argc, argv, o, "list", "ListTasks", &bus, &reply);
        if (r != 0)
                return r;

        if (o->json) {
                json_writer_init(&w, stdout);
                json_begin_array(&w);
        } else {
                t = cli_table_new(o, 6, (const char *[]){ "PID", "TID", "NAME", "RULE", "OWNER",
                                                          "SETTINGS" });
                if (!t)
                        return log_oom(), 1;
                table_set_align(t, 0, TABLE_ALIGN_RIGHT);
                table_set_align(t, 1, TABLE_ALIGN_RIGHT);
                table_set_shrinkable(t, 0, false);
                table_set_shrinkable(t, 1, false);
                table_set_shrinkable(t, 4, false);
        }

        r = sd_bus_message_enter_container(reply, 'a', "(uusssb)");
        if (r < 0)
                return bus_parse_error(r);
        while ((r = sd_bus_message_read(reply, "(uusssb)", &pid, &tid, &comm, &rule, &settings,
                                        &user_owned)) > 0) {
                if (o->json) {
                        json_begin_object(&w);
                        json_kv_uint(&w, "pid", pid);
                        json_kv_uint(&w, "tid", tid);
                        json_kv_string(&w, "comm", comm);
                        json_kv_string(&w, "rule", rule);
                        json_kv_string(&w, "settings", settings);
                        json_kv_bool(&w, "user_owned", user_owned);
                        json_end_object(&w);
                } else {
                        char p[16], ti[16];
                        snprintf(p, sizeof(p), "%" PRIu32, pid);
                        snprintf(ti, sizeof(ti), "%" PRIu32, tid);
                        r = table_add_row(t, (const char *[]){ p, ti, comm, rule,
                                                               user_owned ? "user" : "latniced",
                                                               *settings ? settings : "-" });
                        if (r < 0)
                                return log_oom(), 1;
                }
        }
        if (r < 0)
                return bus_parse_error(r);

        if (o->json) {
                json_end_array(&w);
                r = json_writer_finish(&w);
                if (r < 0)
                        return log_error_errno(r, "Cannot write JSON: %m"), 1;
                return 0;
        }
        if (table_n_rows(t) == 0) {
                if (o->legend)
                        printf("No tasks managed.\n");
                return 0;
        }
        r = table_print(t, stdout);
        if (r < 0)
                return log_error_errno(r, "Cannot write the table: %m"), 1;
        return 0;
}

/* ---- set -------------------------------------------------------------- */

static int print_done_json(const char *key1, const char *v1, const char *key2, uint64_t pid,
                           const Settings *s)
{
        _cleanup_free_ char *str = s ? settings_to_string(s) : NULL;
        JsonWriter w;
        int r;

        json_writer_init(&w, stdout);
        json_writer_set_pretty(&w, false);
        json_begin_object(&w);
        if (key1)
                json_kv_string(&w, key1, v1);
        if (key2)
                json_kv_uint(&w, key2, pid);
        if (s)
                json_kv_string(&w, "settings", str ? str : "");
        json_end_object(&w);
        r = json_writer_finish(&w);
        if (r < 0)
                return log_error_errno(r, "Cannot write JSON: %m"), 1;
        return 0;
}

/* set without latniced on the bus: applied here, as renice and chrt -p do.
 * A latniced that runs off the system bus is named (it cannot be asked). */
static int set_direct(const CliOptions *o, pid_t pid, const Settings *s)
{
        DaemonProcess *found = NULL;
        size_t n = 0;
        int r;

        r = daemons_elsewhere(o, &found, &n);
        if (r == -ENOMEM)
                return log_oom(), 1;
        for (size_t i = 0; i < n; i++) {
                fputs("latnicectl: ", stderr);
                describe_elsewhere(stderr, &found[i]);
                fputs(": set cannot ask it\n", stderr);
        }
        daemon_processes_free(found, n);
        return cli_set_direct(o, pid, s, n > 0);
}

int verb_set(int argc, char **argv, const CliOptions *o)
{
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        _cleanup_free_ char *str = NULL;
        _cleanup_free_ char **args = NULL;
        size_t n;
        Settings s;
        pid_t pid;
        int r;

        r = cli_positional_args(argc, argv, "set", &args, &n);
        if (r != 0)
                return r;
        if (n == 0)
                return cli_usage_error("set needs a PID and at least one KEY=VALUE setting");
        if (cli_parse_pid(args[0], &pid) < 0)
                return cli_usage_error("expected a PID (a positive number), found '%s'", args[0]);
        if (n == 1)
                return cli_usage_error("set needs at least one KEY=VALUE setting after the PID");
        r = parse_assignments(args + 1, n - 1, SETTINGS_TASK_MASK, "set", &s);
        if (r != 0)
                return r;

        /* Without latniced (no bus, or no one owns its name and activation
         * fails), set works as renice and chrt -p do. */
        r = bus_connect(o, &bus);
        if (r < 0)
                return set_direct(o, pid, &s);
        r = method_new(bus, "SetTask", &m);
        if (r >= 0)
                r = sd_bus_message_append(m, "u", (uint32_t) pid);
        if (r >= 0)
                r = bus_append_settings(m, &s);
        if (r < 0)
                return bus_parse_error(r);
        r = sd_bus_call(bus, m, 0, &error, &reply);
        if (r < 0 && daemon_absent(&error))
                return set_direct(o, pid, &s);
        if (r < 0)
                return report_error(o, "SetTask", &error, r);

        if (o->json)
                return print_done_json(NULL, NULL, "pid", (uint64_t) pid, &s);
        if (o->quiet)
                return 0;
        str = settings_to_string(&s);
        printf("pid %d: %s\n", (int) pid, str ? str : "set");
        return 0;
}

/* ---- reload ----------------------------------------------------------- */

int verb_reload(int argc, char **argv, const CliOptions *o)
{
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_strv_free_ char **diags = NULL;
        size_t n_errors = 0;
        int r;

        r = simple_verb(argc, argv, o, "reload", "Reload", &bus, &reply);
        if (r != 0)
                return r;
        r = sd_bus_message_read_strv(reply, &diags);
        if (r < 0)
                return bus_parse_error(r);

        for (char **d = diags; d && *d; d++)
                if (strstr(*d, ": error:"))
                        n_errors++;

        if (o->json) {
                JsonWriter w;

                json_writer_init(&w, stdout);
                json_begin_object(&w);
                json_kv_uint(&w, "errors", n_errors);
                json_kv_uint(&w, "warnings", strv_count(diags) - n_errors);
                json_key(&w, "diagnostics");
                json_begin_array(&w);
                for (char **d = diags; d && *d; d++)
                        json_string(&w, *d);
                json_end_array(&w);
                json_end_object(&w);
                r = json_writer_finish(&w);
                if (r < 0)
                        return log_error_errno(r, "Cannot write JSON: %m"), 1;
        } else
                for (char **d = diags; d && *d; d++) {
                        _cleanup_free_ char *clean = cell_sanitize(*d);
                        fprintf(stderr, "%s\n", clean ? clean : "?");
                }
        if (n_errors > 0) {
                if (!o->json)
                        log_error("reload: %zu policy error%s; the rejected files keep their "
                                  "previous version",
                                  n_errors, n_errors == 1 ? "" : "s");
                return 1;
        }
        return 0;
}

/* ---- set-unit / unset-unit -------------------------------------------- */

static int unit_call(const CliOptions *o, const char *verb, const char *unit, const Settings *s,
                     bool runtime)
{
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
        const char *path;
        int r;

        r = cli_bus_open(o, &bus);
        if (r != 0)
                return r;
        r = method_new(bus, "SetUnit", &m);
        if (r >= 0)
                r = sd_bus_message_append(m, "s", unit);
        if (r >= 0)
                r = bus_append_settings(m, s);
        if (r >= 0)
                r = sd_bus_message_append(m, "b", (int) runtime);
        if (r < 0)
                return bus_parse_error(r);
        r = call(o, bus, m, "SetUnit", &reply);
        if (r != 0)
                return r;
        r = sd_bus_message_read(reply, "s", &path);
        if (r < 0)
                return bus_parse_error(r);

        if (o->json) {
                _cleanup_free_ char *str = settings_to_string(s);
                JsonWriter w;

                json_writer_init(&w, stdout);
                json_writer_set_pretty(&w, false);
                json_begin_object(&w);
                json_kv_string(&w, "unit", unit);
                json_kv_string(&w, "path", path);
                json_kv_bool(&w, "runtime", runtime);
                json_kv_bool(&w, "removed", s->mask == 0);
                json_kv_string(&w, "settings", str ? str : "");
                json_end_object(&w);
                r = json_writer_finish(&w);
                if (r < 0)
                        return log_error_errno(r, "Cannot write JSON: %m"), 1;
        } else if (!o->quiet)
                printf("%s %s, policy reloaded.\n", s->mask ? "Wrote" : "Removed", path);
        return 0;
}

int verb_set_unit(int argc, char **argv, const CliOptions *o)
{
        _cleanup_free_ char **pos = NULL;
        Settings s;
        size_t n;
        int r;

        /* "--" comes before the arguments: "-.slice" is a unit here */
        r = cli_positional_args(argc, argv, "set-unit", &pos, &n);
        if (r != 0)
                return r;
        if (n == 0)
                return cli_usage_error("set-unit needs a UNIT and at least one KEY=VALUE setting");
        if (n == 1)
                return cli_usage_error("set-unit needs at least one KEY=VALUE setting after the "
                                       "unit (unset-unit removes its settings)");
        r = parse_assignments(pos + 1, n - 1, SETTINGS_UNIT_MASK, "set-unit", &s);
        if (r != 0)
                return r;
        return unit_call(o, "set-unit", pos[0], &s, o->runtime);
}

int verb_unset_unit(int argc, char **argv, const CliOptions *o)
{
        _cleanup_free_ char **pos = NULL;
        Settings s = {};
        size_t n;
        int r;

        r = cli_positional_args(argc, argv, "unset-unit", &pos, &n);
        if (r != 0)
                return r;
        if (n == 0)
                return cli_usage_error("unset-unit needs a UNIT");
        if (n > 1)
                return cli_usage_error("unset-unit takes one UNIT, found '%s' too", pos[1]);
        return unit_call(o, "unset-unit", pos[0], &s, o->runtime);
}
