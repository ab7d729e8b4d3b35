/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * D-Bus service org.latnice.Daemon1: object /org/latnice/Daemon1, interface
 * org.latnice.Daemon1 (see man/org.latnice.Daemon1.5.scd for the API).
 *
 * Everything a caller sends is checked here before the manager sees it:
 * argument bounds, setting ranges (settings_parse, as in policy files), and
 * authorization from the caller's credentials as the bus vouches for them
 * (caller_get()). Read methods are open to everyone; changes need root,
 * except that any user may make their own processes less latency-sensitive.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <systemd/sd-bus.h>

#include "config.h"
#include "daemon/bus/bus.h"
#include "daemon/bus/bus-audio.h"
#include "daemon/bus/bus-focus.h"
#include "daemon/bus/bus-auth.h"
#include "daemon/bus/bus-util.h"
#include "daemon/bus/bus-visibility.h"
#include "lib/bus-names.h"
#include "lib/bus-settings.h"
#include "lib/log.h"
#include "lib/macro.h"
#include "lib/probe.h"
#include "lib/proc.h"
#include "lib/sched.h"
#include "lib/time-util.h"
#include "lib/settings.h"
#include "lib/unit-name.h"
#include "lib/util.h"
#include "policy/dropin.h"

/* Short names for the error names of lib/bus-names.h. */
#define BUS_ERROR_ACCESS_DENIED LATNICE_BUS_ERROR_ACCESS_DENIED
#define BUS_ERROR_NO_SUCH_PROCESS LATNICE_BUS_ERROR_NO_SUCH_PROCESS
#define BUS_ERROR_REFUSED LATNICE_BUS_ERROR_REFUSED

struct Bus {
        Manager *manager;
        sd_bus *bus;
        sd_bus_slot *object_slot;
        sd_bus_slot *disconnect_slot;
        pid_t pid_max;
        char *address;
        BusFocus *focus;
};


static const sd_bus_error_map latnice_error_map[] = {
        SD_BUS_ERROR_MAP(BUS_ERROR_ACCESS_DENIED, EACCES),
        SD_BUS_ERROR_MAP(BUS_ERROR_NO_SUCH_PROCESS, ESRCH),
        SD_BUS_ERROR_MAP(BUS_ERROR_REFUSED, EPERM),
        SD_BUS_ERROR_MAP_END,
};

/* ---- Helpers ---------------------------------------------------------- */

static int append_entry(sd_bus_message *m, const char *key, const char *type, ...)
{
        va_list ap;
        int r;

        r = bus_open_entry(m, key, type);
        if (r < 0)
                return r;
        va_start(ap, type);
        r = sd_bus_message_appendv(m, type, ap);
        va_end(ap);
        if (r < 0)
                return r;
        return bus_close_entry(m);
}

static int append_strv_entry(sd_bus_message *m, const char *key, char *const *l)
{
        static char *const empty[] = { NULL };
        int r;

        r = bus_open_entry(m, key, "as");
        if (r < 0)
                return r;
        r = sd_bus_message_append_strv(m, (char **) (l ? l : empty));
        if (r < 0)
                return r;
        return bus_close_entry(m);
}

/*
 * Read an a{sv} of settings from M into *RET. Only keys in ALLOWED are
 * accepted; every value goes through settings_parse(), so the ranges are the
 * policy language's. ARG names the argument in error messages.
 */
static int read_settings(sd_bus_message *m, uint32_t allowed, const char *arg, Settings *ret,
                         sd_bus_error *error)
{
        Settings s = {};
        unsigned n = 0;
        int r;

        r = sd_bus_message_enter_container(m, 'a', "{sv}");
        if (r < 0)
                return r;

        /* Count first: too many entries is the error, whatever they hold. */
        while ((r = sd_bus_message_skip(m, "{sv}")) > 0)
                if (++n > BUS_SETTINGS_MAX)
                        return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                                 "%s: too many settings (at most %u)", arg,
                                                 BUS_SETTINGS_MAX);
        if (r < 0)
                return r;
        r = sd_bus_message_rewind(m, false);
        if (r < 0)
                return r;

        for (;;) {
                _cleanup_free_ char *msg = NULL;
                const char *key, *contents;
                SettingBusValue v = {};
                bool have_value = false;
                char type;

                r = sd_bus_message_enter_container(m, 'e', "sv");
                if (r < 0)
                        return r;
                if (r == 0)
                        break;

                r = sd_bus_message_read(m, "s", &key);
                if (r < 0)
                        return r;
                r = sd_bus_message_peek_type(m, &type, &contents);
                if (r < 0)
                        return r;
                if (type != 'v' || !contents)
                        return -EBADMSG;
                /* Read the value when it is of a type a setting can have; the
                 * key and the type are judged by bus_settings_add(). */
                if (strlen(contents) == 1 && strchr("iutsb", contents[0])) {
                        r = sd_bus_message_enter_container(m, 'v', contents);
                        if (r < 0)
                                return r;
                        r = sd_bus_message_read_basic(m, contents[0],
                                                      contents[0] == 's' ? (void *) &v.s : &v.t);
                        if (r < 0)
                                return r;
                        r = sd_bus_message_exit_container(m);
                        if (r < 0)
                                return r;
                        have_value = true;
                } else {
                        r = sd_bus_message_skip(m, "v");
                        if (r < 0)
                                return r;
                }

                r = bus_settings_add(&s, allowed, key, contents, have_value ? &v : NULL, &msg);
                if (r == -EINVAL)
                        return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "%s: %s", arg,
                                                 msg ? msg : "invalid setting");
                if (r < 0)
                        return r;

                r = sd_bus_message_exit_container(m);
                if (r < 0)
                        return r;
        }

        r = sd_bus_message_exit_container(m);
        if (r < 0)
                return r;
        *ret = s;
        return 0;
}

/*
 * Who sent M, from what the bus vouches for (bus_caller_from_creds()): the
 * uid the bus read from the socket when the caller connected. Nothing is
 * asked with SD_BUS_CREDS_AUGMENT: that reads /proc/PID of the caller's pid,
 * which may be another process's by now (a caller that exited, its
 * connection kept by a child, its pid taken by a setuid-root program). The
 * caller's pid is not asked for at all.
 */
static int caller_get(sd_bus_message *m, BusCaller *ret, sd_bus_error *error)
{
        _cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
        _cleanup_free_ char *why = NULL;
        uint64_t have, augmented;
        BusCreds c = {};
        int r;

        r = sd_bus_query_sender_creds(m, SD_BUS_CREDS_EUID | SD_BUS_CREDS_EFFECTIVE_CAPS, &creds);
        if (r < 0)
                return sd_bus_error_set_errnof(error, r,
                                               "Cannot determine the caller's credentials: %s",
                                               strerror(-r));
        have = sd_bus_creds_get_mask(creds);
        augmented = sd_bus_creds_get_augmented_mask(creds);
        c.has_euid = sd_bus_creds_get_euid(creds, &c.euid) >= 0;
        c.euid_augmented = augmented & SD_BUS_CREDS_EUID;
        c.has_caps = have & SD_BUS_CREDS_EFFECTIVE_CAPS;
        c.caps_augmented = augmented & SD_BUS_CREDS_EFFECTIVE_CAPS;
        c.cap_sys_nice = c.has_caps && sd_bus_creds_has_effective_cap(creds, CAP_SYS_NICE) > 0;
        r = bus_caller_from_creds(&c, geteuid(), ret, &why);
        if (r == -EPERM)
                return sd_bus_error_set(error, BUS_ERROR_ACCESS_DENIED, why);
        return r;
}

int bus_caller_get(sd_bus_message *m, BusCaller *ret, sd_bus_error *error)
{
        return caller_get(m, ret, error);
}

Manager *bus_manager(Bus *b)
{
        return b->manager;
}

BusFocus *bus_focus_of(Bus *b)
{
        return b->focus;
}

/* The caller of M, if it may call WHAT (bus_auth_privileged()). */
static int require_privileged(sd_bus_message *m, const char *what, BusCaller *ret,
                              sd_bus_error *error)
{
        _cleanup_free_ char *why = NULL;
        BusCaller c = {};
        int r;

        r = caller_get(m, &c, error);
        if (r < 0)
                return r;
        r = bus_auth_privileged(&c, what, &why);
        if (r == -EACCES)
                return sd_bus_error_set(error, BUS_ERROR_ACCESS_DENIED, why);
        if (r < 0)
                return r;
        *ret = c;
        return 0;
}

static int read_pid_max(const char *proc_root, pid_t *ret)
{
        _cleanup_free_ char *path = NULL, *line = NULL;
        int v, r;

        if (asprintf(&path, "%s/sys/kernel/pid_max", proc_root) < 0)
                return -ENOMEM;
        r = read_one_line_file(path, &line);
        if (r < 0)
                return r;
        r = safe_atoi(line, &v);
        if (r < 0)
                return r;
        if (v <= 0)
                return -ERANGE;
        *ret = v;
        return 0;
}

/* ---- Properties ------------------------------------------------------- */

static const struct {
        const char *name;
        size_t offset;
} counter_properties[] = {
        { "StartTimestamp", offsetof(ManagerStatus, start_usec) },
        { "LastReloadTimestamp", offsetof(ManagerStatus, last_reload_usec) },
        { "Events", offsetof(ManagerStatus, n_events) },
        { "LostEvents", offsetof(ManagerStatus, n_lost) },
        { "Rescans", offsetof(ManagerStatus, n_rescans) },
        { "Evaluations", offsetof(ManagerStatus, n_evaluated) },
        { "Applied", offsetof(ManagerStatus, n_applied) },
        { "Restored", offsetof(ManagerStatus, n_restored) },
        { "Failed", offsetof(ManagerStatus, n_failed) },
        { "ManagedTasks", offsetof(ManagerStatus, n_managed) },
        { "UserOwnedTasks", offsetof(ManagerStatus, n_user_owned) },
        { "FdExhaustions", offsetof(ManagerStatus, n_fd_exhaustions) },
        { "PutOffEvaluations", offsetof(ManagerStatus, n_put_off) },
        { "BatchedStorms", offsetof(ManagerStatus, n_batched_storms) },
        { "SharedGroups", offsetof(ManagerStatus, n_shared_groups) },

        { "UnrecordedTasks", offsetof(ManagerStatus, n_unrecorded) },
        { "DeferredThreadEvents", offsetof(ManagerStatus, n_threads_deferred) },
        { "OverflowedThreadEvents", offsetof(ManagerStatus, n_threads_full) },
        { "Rules", offsetof(ManagerStatus, n_rules) },
        { "PolicyFiles", offsetof(ManagerStatus, n_files) },
        { "Units", offsetof(ManagerStatus, n_units) },
        { "PolicyLoads", offsetof(ManagerStatus, n_loads_ok) },
        { "PolicyLoadsRejectingFiles", offsetof(ManagerStatus, n_loads_rejected) },
        { "PolicyLoadFailures", offsetof(ManagerStatus, n_loads_failed) },
};

static int property_get_counter(sd_bus *bus, const char *path, const char *interface,
                                const char *property, sd_bus_message *reply, void *userdata,
                                sd_bus_error *error)
{
        Bus *b = userdata;
        ManagerStatus st = {};

        manager_get_status(b->manager, &st);
        for (size_t i = 0; i < ELEMENTSOF(counter_properties); i++)
                if (streq(counter_properties[i].name, property))
                        return sd_bus_message_append(
                                reply, "t",
                                *(const uint64_t *) ((const char *) &st +
                                                     counter_properties[i].offset));
        return -EINVAL;
}

static int property_get_status_string(sd_bus *bus, const char *path, const char *interface,
                                      const char *property, sd_bus_message *reply,
                                      void *userdata, sd_bus_error *error)
{
        Bus *b = userdata;
        ManagerStatus st = {};
        const KernelFeatures *kf;

        manager_get_status(b->manager, &st);
        if (streq(property, "Version"))
                return sd_bus_message_append(reply, "s", strempty(st.version));
        if (streq(property, "Backend"))
                return sd_bus_message_append(reply, "s", strempty(st.backend));
        if (streq(property, "PreemptionModel"))
                return sd_bus_message_append(reply, "s", strempty(st.preemption_model));
        if (streq(property, "Preemption"))
                return sd_bus_message_append(reply, "s", strempty(st.preemption));
        if (streq(property, "SchedExtState"))
                return sd_bus_message_append(reply, "s", strempty(st.sched_ext_state));
        if (streq(property, "SchedExtScheduler"))
                return sd_bus_message_append(reply, "s", strempty(st.sched_ext_scheduler));
        if (streq(property, "KernelRelease")) {
                kf = manager_kernel(b->manager);
                return sd_bus_message_append(reply, "s", kf ? kf->release : "");
        }
        return -EINVAL;
}

/* The names of the settings in MASK ("Nice", ...), an "as". */
static int append_setting_names(sd_bus_message *reply, uint32_t mask)
{
        int r = sd_bus_message_open_container(reply, 'a', "s");

        for (int id = 0; r >= 0 && id < _SETTING_MAX; id++)
                if (mask & SETTING_BIT(id))
                        r = sd_bus_message_append(reply, "s", setting_to_string(id));
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

static int property_get_scheduler(sd_bus *bus, const char *path, const char *interface,
                                  const char *property, sd_bus_message *reply, void *userdata,
                                  sd_bus_error *error)
{
        Bus *b = userdata;
        ManagerStatus st = {};

        manager_get_status(b->manager, &st);
        if (streq(property, "HZ"))
                return sd_bus_message_append(reply, "u", st.hz);
        if (streq(property, "SettingsInEffect"))
                return append_setting_names(reply, st.settings_in_effect);
        return -EINVAL;
}

/* KEY => an "as" of the settings in MASK, as an a{sv} entry. */
static int append_settings_entry(sd_bus_message *reply, const char *key, uint32_t mask)
{
        int r = sd_bus_message_open_container(reply, 'e', "sv");

        if (r >= 0)
                r = sd_bus_message_append(reply, "s", key);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'v', "as");
        if (r >= 0)
                r = append_setting_names(reply, mask);
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

/* The scheduler entries of GetStatus and GetKernel. */
static int append_scheduler_entries(sd_bus_message *reply, const ManagerStatus *st)
{
        int r = append_entry(reply, "PreemptionModel", "s", strempty(st->preemption_model));

        if (r >= 0)
                r = append_entry(reply, "Preemption", "s", strempty(st->preemption));
        if (r >= 0)
                r = append_entry(reply, "HZ", "u", st->hz);
        if (r >= 0)
                r = append_entry(reply, "SchedExtState", "s", strempty(st->sched_ext_state));
        if (r >= 0)
                r = append_entry(reply, "SchedExtScheduler", "s",
                                 strempty(st->sched_ext_scheduler));
        if (r >= 0)
                r = append_settings_entry(reply, "SettingsInEffect", st->settings_in_effect);
        return r;
}

static int property_get_status_bool(sd_bus *bus, const char *path, const char *interface,
                                    const char *property, sd_bus_message *reply, void *userdata,
                                    sd_bus_error *error)
{
        Bus *b = userdata;
        ManagerStatus st = {};

        manager_get_status(b->manager, &st);
        if (streq(property, "DryRun"))
                return sd_bus_message_append(reply, "b", (int) st.dry_run);
        if (streq(property, "SchedExtActive"))
                return sd_bus_message_append(reply, "b", (int) st.sched_ext_active);
        return -EINVAL;
}

/* ---- Methods ---------------------------------------------------------- */

static int method_get_status(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        Bus *b = userdata;
        ManagerStatus st = {};
        int r;

        manager_get_status(b->manager, &st);

        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "{sv}");
        if (r < 0)
                return r;
        r = append_entry(reply, "Version", "s", strempty(st.version));
        if (r >= 0)
                r = append_entry(reply, "Backend", "s", strempty(st.backend));
        if (r >= 0)
                r = append_entry(reply, "DryRun", "b", (int) st.dry_run);
        if (r >= 0)
                r = append_entry(reply, "SchedExtActive", "b", (int) st.sched_ext_active);
        if (r >= 0)
                r = append_entry(reply, "CoreScheduling", "s", strempty(st.core_sched));
        if (r >= 0)
                r = append_scheduler_entries(reply, &st);
        for (size_t i = 0; r >= 0 && i < ELEMENTSOF(counter_properties); i++)
                r = append_entry(reply, counter_properties[i].name, "t",
                                 *(const uint64_t *) ((const char *) &st +
                                                      counter_properties[i].offset));
        if (r >= 0)
                r = append_strv_entry(reply, "Diagnostics", st.last_reload_diagnostics);
        if (r >= 0)
                r = append_strv_entry(reply, "PolicyDirectories", manager_policy_dirs(b->manager));
        if (r < 0)
                return r;
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int method_get_kernel(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        Bus *b = userdata;
        const KernelFeatures *kf = manager_kernel(b->manager);
        ManagerStatus st = {};
        int r;

        if (!kf)
                return sd_bus_error_set(error, SD_BUS_ERROR_FAILED,
                                        "The kernel has not been probed yet");
        manager_get_status(b->manager, &st);

        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "{sv}");
        if (r < 0)
                return r;

        r = append_entry(reply, "Release", "s", kf->release);
        if (r >= 0)
                r = append_entry(reply, "LatencyNiceSyscall", "b", (int) kf->latency_nice_syscall);
        if (r >= 0)
                r = append_entry(reply, "LatencyNiceCgroup", "b", (int) kf->latency_nice_cgroup);
        if (r >= 0)
                r = append_entry(reply, "EEVDFSlice", "b", (int) kf->eevdf_slice);
        if (r >= 0)
                r = append_entry(reply, "UclampTask", "b", (int) kf->uclamp_task);
        if (r >= 0)
                r = append_entry(reply, "UclampCgroup", "b", (int) kf->uclamp_cgroup);
        if (r >= 0)
                r = append_entry(reply, "CgroupCPU", "b", (int) kf->cgroup2_cpu);
        if (r >= 0)
                r = append_entry(reply, "SchedExtActive", "b", (int) kf->sched_ext_active);
        if (r >= 0)
                r = append_scheduler_entries(reply, &st);
        if (r >= 0)
                r = append_entry(reply, "CoreScheduling", "s",
                                 core_sched_status_to_string(&kf->core_sched));
        if (r >= 0)
                r = append_entry(reply, "SMTControl", "s", strempty(kf->core_sched.smt_control));
        if (r >= 0)
                r = append_entry(reply, "Autogroup", "i", (int32_t) kf->autogroup);
        if (r >= 0)
                r = append_entry(reply, "BaseSlice", "t", kf->base_slice_ns);
        if (r >= 0)
                r = append_entry(reply, "BaseSliceFromDebugfs", "b",
                                 (int) kf->base_slice_from_debugfs);
        if (r >= 0)
                r = append_entry(reply, "CPUs", "u", (uint32_t) kf->ncpus);
        if (r >= 0)
                r = append_entry(reply, "CgroupRoot", "s", kf->cgroup_root);
        if (r >= 0)
                r = append_entry(reply, "BestBackend", "s",
                                 strempty(latency_backend_to_string(kf->best_backend)));
        if (r >= 0)
                r = append_entry(reply, "Backend", "s", strempty(st.backend));
        if (r < 0)
                return r;

        /* The latency-nice -> slice table: a(ix), slice in ns (0: no custom slice) */
        r = bus_open_entry(reply, "LatencyNiceSlices", "a(ix)");
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "(ix)");
        for (int ln = -20; r >= 0 && ln <= 19; ln++)
                r = sd_bus_message_append(reply, "(ix)", (int32_t) ln,
                                          (int64_t) latency_nice_to_slice(ln, kf->base_slice_ns));
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r >= 0)
                r = bus_close_entry(reply);
        if (r < 0)
                return r;

        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

/*
 * Is the caller of M told about every process (bus-visibility.h)? If not,
 * *ret_uid is its uid, whose processes it is told about. Only then is the
 * bus asked who the caller is.
 */
static int caller_sees_all(Bus *b, sd_bus_message *m, bool *ret_all, uid_t *ret_uid,
                           sd_bus_error *error)
{
        BusCaller c = {};
        int hidepid, r;

        hidepid = proc_root_hidepid(manager_proc_root(b->manager));
        if (hidepid < 0)
                log_debug_errno(hidepid,
                                "Cannot read the mount table, taking /proc as hidepid: %m");
        if (hidepid == 0) {
                *ret_all = true;
                return 0;
        }
        r = caller_get(m, &c, error);
        if (r < 0)
                return r;
        *ret_all = bus_visibility_all(c.privileged, hidepid);
        *ret_uid = c.uid;
        return 0;
}

static int task_cmp(const void *a, const void *b)
{
        const ManagedTask *x = a, *y = b;

        if (x->pid != y->pid)
                return x->pid < y->pid ? -1 : 1;
        return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* Drop from TASKS (N of them) the processes that are not UID's own; their
 * threads are read once per process (the list is sorted by pid first). */
static void tasks_keep_own(const char *proc_root, ManagedTask *tasks, size_t *n, uid_t uid)
{
        size_t k = 0;
        pid_t last = 0;
        bool own = false;

        qsort(tasks, *n, sizeof(ManagedTask), task_cmp);
        for (size_t i = 0; i < *n; i++) {
                if (i == 0 || tasks[i].pid != last) {
                        last = tasks[i].pid;
                        own = proc_owned_by(proc_root, last, uid) > 0;
                }
                if (own)
                        tasks[k++] = tasks[i];
        }
        *n = k;
}

static int method_list_tasks(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ ManagedTask *tasks = NULL;
        Bus *b = userdata;
        size_t n = 0;
        bool all = false;
        uid_t uid = 0;
        int r;

        r = caller_sees_all(b, m, &all, &uid, error);
        if (r < 0)
                return r;
        r = manager_list_tasks(b->manager, &tasks, &n);
        if (r < 0)
                return sd_bus_error_set_errnof(error, r, "Cannot list tasks: %s", strerror(-r));
        if (!all)
                tasks_keep_own(manager_proc_root(b->manager), tasks, &n, uid);

        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "(uusssb)");
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *str = settings_to_string(&tasks[i].applied);
                if (!str)
                        return -ENOMEM;
                r = sd_bus_message_append(reply, "(uusssb)", (uint32_t) tasks[i].pid,
                                          (uint32_t) tasks[i].tid, strempty(tasks[i].comm),
                                          strempty(tasks[i].rule), str,
                                          (int) tasks[i].user_owned);
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int read_pid_arg(Bus *b, sd_bus_message *m, pid_t *ret, sd_bus_error *error)
{
        uint32_t pid;
        int r;

        r = sd_bus_message_read(m, "u", &pid);
        if (r < 0)
                return r;
        if (pid == 0 || pid >= (uint32_t) b->pid_max)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "pid: %" PRIu32 " is out of range 1..%d", pid,
                                         (int) b->pid_max - 1);
        *ret = (pid_t) pid;
        return 0;
}

int bus_read_pid_arg(Bus *b, sd_bus_message *m, pid_t *ret, sd_bus_error *error)
{
        return read_pid_arg(b, m, ret, error);
}

static int no_such_process(sd_bus_error *error, pid_t pid)
{
        return sd_bus_error_setf(error, BUS_ERROR_NO_SUCH_PROCESS, "No process %d", (int) pid);
}

/*
 * Is PID hidden from the caller of M (caller_sees_all())? 1 if it is not
 * the caller's own (or does not exist): the caller hears what it hears of a
 * pid that does not exist, also when the process's command line could not
 * be read in time. 0 otherwise; then, if the caller sees only its own,
 * *RET_UID is its uid and *RET_PIDFD (when the kernel gives one) holds the
 * process, for still_own() after the explanation.
 */
static int explain_hidden(Bus *b, sd_bus_message *m, pid_t pid, int *ret_pidfd, uid_t *ret_uid,
                          sd_bus_error *error)
{
        bool all = false;
        uid_t uid = 0;
        int fd, r;

        r = caller_sees_all(b, m, &all, &uid, error);
        if (r < 0 || all)
                return r;
        fd = pidfd_open_process(pid); /* a thread has none: still_own() reads its uids */
        if (fd == -ESRCH)
                return 1;
        r = proc_owned_by(manager_proc_root(b->manager), pid, uid);
        if (r <= 0) {
                safe_close(fd);
                return r == 0 || r == -ESRCH ? 1 : sd_bus_error_set_errnof(
                        error, r, "Cannot explain pid %d: %s", (int) pid, strerror(-r));
        }
        *ret_pidfd = fd >= 0 ? fd : -EBADF;
        *ret_uid = uid;
        return 0;
}

/* After the explanation: PID is still the process held in PIDFD (if any),
 * and still UID's own (it may have run a setuid program meanwhile). */
static bool still_own(Bus *b, pid_t pid, int pidfd, uid_t uid)
{
        if (pidfd >= 0 && pidfd_process_alive(pidfd) == 0)
                return false;
        return proc_owned_by(manager_proc_root(b->manager), pid, uid) > 0;
}

/* Explain's and ExplainThreads' common part: the pid of M, checked, and the
 * front door's decision on it (manager_explain(); THREADS: every thread's
 * too; TRACE optional) into *TD. 0, or a negative errno with ERROR set. */
static int explain_decide(Bus *b, sd_bus_message *m, bool threads, MatchTrace *trace,
                          TaskDecision *td, sd_bus_error *error)
{
        _cleanup_close_ int pidfd = -EBADF;
        uid_t uid = (uid_t) -1;
        pid_t pid;
        int r;

        r = read_pid_arg(b, m, &pid, error);
        if (r < 0)
                return r;
        r = explain_hidden(b, m, pid, &pidfd, &uid, error);
        if (r != 0)
                return r < 0 ? r : no_such_process(error, pid);

        r = manager_explain(b->manager, pid, threads, trace, td);
        if (r >= 0 && uid != (uid_t) -1 && !still_own(b, pid, pidfd, uid))
                r = -ESRCH;
        if (r >= 0)
                return 0;
        task_decision_done(td);
        if (r == -ESRCH)
                return no_such_process(error, pid);
        if (r == -EBUSY)
                return sd_bus_error_set_errnof(error, r,
                                               "Cannot explain pid %d now: reading its command "
                                               "line (or an ancestor's) takes too long, the "
                                               "process keeps its memory busy; try again later",
                                               (int) pid);
        return sd_bus_error_set_errnof(error, r, "Cannot explain pid %d: %s", (int) pid,
                                       strerror(-r));
}

/* The boosts D withheld, as settings ("a{sv}"), and why ("s"). */
static int append_withheld(sd_bus_message *reply, const Decision *d)
{
        Settings withheld = d->match.settings;
        int r;

        withheld.mask = d->withheld;
        r = bus_append_settings(reply, &withheld);
        if (r < 0)
                return r;
        return sd_bus_message_append(reply, "s", strempty(d->withheld_reason));
}

/* Every rule's verdict: "a(ssussa{sv})". */
static int append_trace(sd_bus_message *reply, const MatchTrace *trace)
{
        int r;

        r = sd_bus_message_open_container(reply, 'a', "(ssussa{sv})");
        if (r < 0)
                return r;
        for (size_t i = 0; i < trace->n; i++) {
                const RuleTrace *t = &trace->rules[i];

                r = sd_bus_message_open_container(reply, 'r', "ssussa{sv}");
                if (r < 0)
                        return r;
                r = sd_bus_message_append(reply, "ssuss", strempty(t->rule), strempty(t->file),
                                          (uint32_t) t->line, rule_verdict_to_string(t->verdict),
                                          strempty(t->decider));
                if (r < 0)
                        return r;
                r = bus_append_settings(reply, &t->settings);
                if (r < 0)
                        return r;
                r = sd_bus_message_close_container(reply);
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(reply);
}

static int method_explain(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(task_decision_done) TaskDecision td = {};
        Bus *b = userdata;
        MatchTrace trace = {};
        int r;

        r = explain_decide(b, m, false, &trace, &td, error);
        if (r < 0) {
                match_trace_done(&trace);
                return r;
        }
        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                goto finish;
        r = bus_append_settings(reply, &td.d.settings);
        if (r < 0)
                goto finish;
        r = sd_bus_message_append(reply, "sb", strempty(td.d.rule),
                                  (int) td.d.match.thread_dependent);
        if (r < 0)
                goto finish;
        r = append_trace(reply, &trace);
        if (r < 0)
                goto finish;
        r = append_withheld(reply, &td.d);
        if (r < 0)
                goto finish;
        r = sd_bus_send(NULL, reply, NULL);
finish:
        match_trace_done(&trace);
        return r;
}

/* ExplainThreads: every thread's decision, "a(usa{sv}sa{sv}s)": tid, name,
 * settings, rule, withheld, withheld_reason; empty when the policy has no
 * thread rules (every thread then gets what Explain says). */
static int method_explain_threads(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(task_decision_done) TaskDecision td = {};
        Bus *b = userdata;
        int r;

        r = explain_decide(b, m, true, NULL, &td, error);
        if (r < 0)
                return r;
        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "(usa{sv}sa{sv}s)");
        if (r < 0)
                return r;
        for (size_t i = 0; i < td.n_threads; i++) {
                const ThreadDecision *t = &td.threads[i];

                r = sd_bus_message_open_container(reply, 'r', "usa{sv}sa{sv}s");
                if (r < 0)
                        return r;
                r = sd_bus_message_append(reply, "us", (uint32_t) t->tid, strempty(t->name));
                if (r < 0)
                        return r;
                r = bus_append_settings(reply, &t->d.settings);
                if (r < 0)
                        return r;
                r = sd_bus_message_append(reply, "s", strempty(t->d.rule));
                if (r < 0)
                        return r;
                r = append_withheld(reply, &t->d);
                if (r < 0)
                        return r;
                r = sd_bus_message_close_container(reply);
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

/* SetTask's arguments, checked, and who asks. */
typedef struct SetTaskRequest {
        pid_t pid;
        Settings settings; /* at least one */
        BusCaller caller;
} SetTaskRequest;

static int set_task_request_read(Bus *b, sd_bus_message *m, SetTaskRequest *ret,
                                 sd_bus_error *error)
{
        SetTaskRequest req = {};
        int r;

        r = read_pid_arg(b, m, &req.pid, error);
        if (r < 0)
                return r;
        r = read_settings(m, SETTINGS_TASK_MASK & ~SETTING_BIT(SETTING_REALTIME_PRIORITY),
                          "settings", &req.settings, error);
        if (r < 0)
                return r;
        if (req.settings.mask == 0)
                return sd_bus_error_set(error, SD_BUS_ERROR_INVALID_ARGS,
                                        "settings: empty, nothing to set");
        /* Real time is granted by a rule only, where its bounds are kept
         * (lib/rt-grant.h); a manual task is user-owned and outside them. */
        if (settings_has(&req.settings, SETTING_POLICY) &&
            sched_policy_is_rt(req.settings.policy))
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "settings: Policy: %s is real time, which only a "
                                         "policy rule grants (with its limits); SetTask "
                                         "takes other, batch or idle",
                                         sched_policy_to_string(req.settings.policy));
        r = caller_get(m, &req.caller, error);
        if (r < 0)
                return r;
        *ret = req;
        return 0;
}

/*
 * A pidfd of PID, held while the manager reads and changes it, so that what
 * it read is known to be about this process (pidfd_process_alive()). A pid
 * that is a thread, not a process, is refused here. -EBADF (no pidfd, the
 * kernel has none) is no error.
 */
static int hold_process(Bus *b, pid_t pid, int *ret_fd, sd_bus_error *error)
{
        int fd = pidfd_open_process(pid);
        pid_t tgid;

        if (fd == -ESRCH)
                return sd_bus_error_setf(error, BUS_ERROR_NO_SUCH_PROCESS, "No process %d",
                                         (int) pid);
        if (fd == -EINVAL || fd == -ENOENT) {
                /* a thread that is not a thread group leader (EINVAL before 6.9, ENOENT since) */
                if (proc_tgid(manager_proc_root(b->manager), pid, &tgid) >= 0 && tgid != pid)
                        return sd_bus_error_setf(error, BUS_ERROR_REFUSED,
                                                 "pid %d is a thread, not a process: pass its "
                                                 "thread group id %d",
                                                 (int) pid, (int) tgid);
                return sd_bus_error_setf(error, BUS_ERROR_NO_SUCH_PROCESS, "No process %d",
                                         (int) pid);
        }
        if (fd < 0 && fd != -ENOSYS)
                return sd_bus_error_set_errnof(error, fd, "Cannot open pid %d: %s", (int) pid,
                                               strerror(-fd));
        *ret_fd = fd < 0 ? -EBADF : fd;
        return 0;
}

typedef struct SetTaskCheck {
        Bus *bus;
        const SetTaskRequest *req;
        int pidfd;
        bool refused; /* the refusal is ours, with our message */
} SetTaskCheck;

/* What the manager read must still be about the process we hold, and the
 * caller must be allowed the change (bus_auth_set_task()). */
static int set_task_check(const SetTaskTarget *target, void *userdata, char **ret_why)
{
        SetTaskCheck *c = userdata;
        const KernelFeatures *kf = manager_kernel(c->bus->manager);
        int r;

        c->refused = true;
        if (c->pidfd >= 0 && pidfd_process_alive(c->pidfd) == 0) {
                if (asprintf(ret_why, "Process %d exited", (int) target->pid) < 0)
                        *ret_why = NULL;
                return -ESRCH;
        }
        r = bus_auth_set_task(&c->req->caller, target, &c->req->settings,
                              kf ? kf->base_slice_ns : 0, ret_why);
        c->refused = r == -EACCES;
        return r;
}

static int set_task_error(const SetTaskRequest *req, const SetTaskCheck *check, int r,
                          const char *err, sd_bus_error *error)
{
        _cleanup_free_ char *str = settings_to_string(&req->settings);
        int pid = (int) req->pid;

        if (!str)
                return -ENOMEM;
        if (check->refused && r == -EACCES)
                return sd_bus_error_set(error, BUS_ERROR_ACCESS_DENIED, err);
        if (check->refused && r == -ESRCH)
                return sd_bus_error_set(error, BUS_ERROR_NO_SUCH_PROCESS, err);
        if (r == -ESRCH)
                return sd_bus_error_setf(error, BUS_ERROR_NO_SUCH_PROCESS, "No process %d%s%s",
                                         pid, err ? ": " : "", strempty(err));
        if (r == -EPERM)
                return sd_bus_error_setf(error, BUS_ERROR_REFUSED, "Cannot set %s on pid %d: %s",
                                         str, pid, err ? err : "refused");
        return sd_bus_error_set_errnof(error, r, "Cannot set %s on pid %d: %s", str, pid,
                                       err ? err : strerror(-r));
}

/* Is REQ's process hidden from its caller (bus-visibility.h)? Then SetTask
 * answers as for a pid that does not exist, not "it belongs to uid N". */
static bool set_task_hidden(Bus *b, const SetTaskRequest *req)
{
        const char *proc_root = manager_proc_root(b->manager);

        if (req->caller.privileged || bus_visibility_all(false, proc_root_hidepid(proc_root)))
                return false;
        return proc_owned_by(proc_root, req->pid, req->caller.uid) <= 0;
}

static int method_set_task(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        _cleanup_free_ char *err = NULL, *str = NULL;
        _cleanup_close_ int pidfd = -EBADF;
        Bus *b = userdata;
        SetTaskRequest req;
        SetTaskCheck check = { .bus = b, .req = &req };
        int r;

        r = set_task_request_read(b, m, &req, error);
        if (r < 0)
                return r;
        if (set_task_hidden(b, &req))
                return no_such_process(error, req.pid);
        r = hold_process(b, req.pid, &pidfd, error);
        if (r < 0)
                return r;
        check.pidfd = pidfd;

        r = manager_set_task(b->manager, req.pid, &req.settings, set_task_check, &check, &err);
        if (r < 0)
                return set_task_error(&req, &check, r, err, error);

        str = settings_to_string(&req.settings);
        if (!str)
                return -ENOMEM;
        log_info("SetTask: %s on pid %d by uid %u", str, (int) req.pid, (unsigned) req.caller.uid);
        return sd_bus_reply_method_return(m, NULL);
}

/*
 * Where SetUnit writes: the admin directory is the last policy directory in
 * effect (/etc/latnice/policy.d by default, the last --policy-dir
 * otherwise). The runtime directory is RUNTIME_POLICY_DIR when it is in
 * effect, else the directory just below the admin directory in priority (so
 * a test running latniced with --policy-dir VENDOR --policy-dir RUN
 * --policy-dir ADMIN gets RUN); with a single --policy-dir there is none.
 */
static int unit_dropin_dir(Bus *b, bool runtime, const char **ret, sd_bus_error *error)
{
        char *const *dirs = manager_policy_dirs(b->manager);
        size_t n = 0;

        while (dirs && dirs[n])
                n++;
        if (n == 0)
                return sd_bus_error_set(error, SD_BUS_ERROR_FAILED,
                                        "latniced has no policy directory");
        if (!runtime) {
                *ret = dirs[n - 1];
                return 0;
        }
        for (size_t i = 0; i + 1 < n; i++)
                if (streq(dirs[i], RUNTIME_POLICY_DIR)) {
                        *ret = dirs[i];
                        return 0;
                }
        if (n >= 2) {
                *ret = dirs[n - 2];
                return 0;
        }
        return sd_bus_error_setf(error, SD_BUS_ERROR_NOT_SUPPORTED,
                                 "runtime: latniced runs with the single policy directory %s, "
                                 "so there is no runtime directory (give it two or more "
                                 "--policy-dir)",
                                 dirs[0]);
}

/* The first error diagnostic of the last reload about PATH, or NULL. */
static const char *reload_error_about(Bus *b, const char *path)
{
        ManagerStatus st = {};
        size_t n = strlen(path);

        manager_get_status(b->manager, &st);
        for (char *const *d = st.last_reload_diagnostics; d && *d; d++)
                if (strncmp(*d, path, n) == 0 && (*d)[n] == ':' && strstr(*d + n, ": error:"))
                        return *d;
        return NULL;
}

/* SetUnit's drop-in for UNIT at PATH in DIR (policy/dropin.h). */
static int write_dropin(const char *unit, const Settings *s, bool runtime, uid_t by,
                        const char *dir, const char *path, sd_bus_error *error)
{
        _cleanup_free_ char *text = NULL;
        const char *why = NULL;
        int r;

        r = unit_dropin_format(unit, s, by, runtime, &text, &why);
        if (r == -EINVAL)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "Cannot write a drop-in for %s: %s", unit, why);
        if (r < 0)
                return r;
        r = unit_dropin_write(dir, path, text, &why);
        if (r == -EEXIST)
                return sd_bus_error_setf(error, SD_BUS_ERROR_FILE_EXISTS,
                                         "Cannot write %s: it is %s, and only a regular file "
                                         "is replaced",
                                         path, why);
        if (r < 0)
                return sd_bus_error_set_errnof(error, r, "Cannot write %s: %s", path,
                                               strerror(-r));
        return 0;
}

static int method_set_unit(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        _cleanup_free_ char *name = NULL, *path = NULL, *diag = NULL;
        Bus *b = userdata;
        const char *unit, *dir = NULL;
        Settings s = {};
        BusCaller c = {};
        int r, runtime;

        r = sd_bus_message_read(m, "s", &unit);
        if (r < 0)
                return r;
        if (!unit_name_is_valid(unit)) {
                _cleanup_free_ char *shown = escape_for_message(unit, 64);

                if (!shown)
                        return -ENOMEM;
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "unit: \"%s%s\" is not a valid systemd unit name "
                                         "(letters, digits, \":_.\\@-\", the suffix of a unit "
                                         "type with a cgroup: .service, .scope, .slice, .socket, "
                                         ".mount or .swap; at most %u bytes)",
                                         shown, strnlen(unit, 65) > 64 ? "..." : "",
                                         UNIT_NAME_MAX);
        }
        r = read_settings(m, SETTINGS_UNIT_MASK, "settings", &s, error);
        if (r < 0)
                return r;
        r = sd_bus_message_read(m, "b", &runtime);
        if (r < 0)
                return r;

        r = require_privileged(m, "SetUnit", &c, error);
        if (r < 0)
                return r;

        r = unit_dropin_dir(b, runtime, &dir, error);
        if (r < 0)
                return r;
        name = unit_dropin_name(unit);
        if (!name || asprintf(&path, "%s/%s", dir, name) < 0)
                return -ENOMEM;

        if (s.mask == 0) {
                if (unlink(path) < 0) {
                        if (errno == ENOENT)
                                return sd_bus_error_setf(error, SD_BUS_ERROR_FILE_NOT_FOUND,
                                                         "No drop-in for %s: %s does not exist",
                                                         unit, path);
                        return sd_bus_error_set_errnof(error, errno, "Cannot remove %s: %m",
                                                       path);
                }
                log_info("SetUnit: removed %s (uid %u)", path, (unsigned) c.uid);
        } else {
                r = write_dropin(unit, &s, runtime, c.uid, dir, path, error);
                if (r < 0)
                        return r;
                log_info("SetUnit: wrote %s (uid %u)", path, (unsigned) c.uid);
        }

        r = manager_reload(b->manager);
        if (r < 0)
                return sd_bus_error_set_errnof(error, r, "Wrote %s, but the reload failed: %s",
                                               path, strerror(-r));

        if (s.mask != 0) {
                const char *d = reload_error_about(b, path);
                if (d) {
                        diag = strdup(d);
                        (void) unlink(path);
                        (void) manager_reload(b->manager);
                        return sd_bus_error_setf(error, SD_BUS_ERROR_FAILED,
                                                 "The policy loader rejected the drop-in, "
                                                 "removed it again: %s",
                                                 diag ? diag : path);
                }
        }

        return sd_bus_reply_method_return(m, "s", path);
}

static int method_reload(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        Bus *b = userdata;
        ManagerStatus st = {};
        static char *const empty[] = { NULL };
        BusCaller c = {};
        int r;

        r = require_privileged(m, "Reload", &c, error);
        if (r < 0)
                return r;
        log_info("Reload requested over D-Bus by uid %u", (unsigned) c.uid);
        r = manager_reload(b->manager);
        if (r < 0)
                return sd_bus_error_set_errnof(error, r, "Reload failed: %s", strerror(-r));

        manager_get_status(b->manager, &st);
        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_append_strv(reply, (char **) (st.last_reload_diagnostics
                                                                 ? st.last_reload_diagnostics
                                                                 : empty));
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

/* ---- Object ----------------------------------------------------------- */

#define COUNTER(name) \
        SD_BUS_PROPERTY(name, "t", property_get_counter, 0, 0)

static const sd_bus_vtable daemon_vtable[] = {
        SD_BUS_VTABLE_START(0),

        SD_BUS_PROPERTY("Version", "s", property_get_status_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("KernelRelease", "s", property_get_status_string, 0,
                        SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Backend", "s", property_get_status_string, 0, 0),
        SD_BUS_PROPERTY("DryRun", "b", property_get_status_bool, 0, 0),
        SD_BUS_PROPERTY("SchedExtActive", "b", property_get_status_bool, 0, 0),
        SD_BUS_PROPERTY("SchedExtState", "s", property_get_status_string, 0, 0),
        SD_BUS_PROPERTY("SchedExtScheduler", "s", property_get_status_string, 0, 0),
        SD_BUS_PROPERTY("SettingsInEffect", "as", property_get_scheduler, 0, 0),
        SD_BUS_PROPERTY("PreemptionModel", "s", property_get_status_string, 0,
                        SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Preemption", "s", property_get_status_string, 0,
                        SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("HZ", "u", property_get_scheduler, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("StartTimestamp", "t", property_get_counter, 0,
                        SD_BUS_VTABLE_PROPERTY_CONST),
        COUNTER("LastReloadTimestamp"),
        COUNTER("Events"),
        COUNTER("LostEvents"),
        COUNTER("Rescans"),
        COUNTER("Evaluations"),
        COUNTER("Applied"),
        COUNTER("Restored"),
        COUNTER("Failed"),
        COUNTER("ManagedTasks"),
        COUNTER("UserOwnedTasks"),
        COUNTER("FdExhaustions"),
        COUNTER("PutOffEvaluations"),
        COUNTER("BatchedStorms"),
        COUNTER("SharedGroups"),

        COUNTER("UnrecordedTasks"),
        COUNTER("DeferredThreadEvents"),
        COUNTER("OverflowedThreadEvents"),
        COUNTER("Rules"),
        COUNTER("PolicyFiles"),
        COUNTER("Units"),
        COUNTER("PolicyLoads"),
        COUNTER("PolicyLoadsRejectingFiles"),
        COUNTER("PolicyLoadFailures"),

        SD_BUS_METHOD_WITH_ARGS("GetStatus", SD_BUS_NO_ARGS, SD_BUS_RESULT("a{sv}", status),
                                method_get_status, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetKernel", SD_BUS_NO_ARGS, SD_BUS_RESULT("a{sv}", kernel),
                                method_get_kernel, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ListTasks", SD_BUS_NO_ARGS,
                                SD_BUS_RESULT("a(uusssb)", tasks), method_list_tasks,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Explain", SD_BUS_ARGS("u", pid),
                                SD_BUS_RESULT("a{sv}", settings, "s", rule, "b",
                                              thread_dependent, "a(ssussa{sv})", rules,
                                              "a{sv}", withheld, "s", withheld_reason),
                                method_explain, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ExplainThreads", SD_BUS_ARGS("u", pid),
                                SD_BUS_RESULT("a(usa{sv}sa{sv}s)", threads),
                                method_explain_threads, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetTask", SD_BUS_ARGS("u", pid, "a{sv}", settings),
                                SD_BUS_NO_RESULT, method_set_task, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetUnit",
                                SD_BUS_ARGS("s", unit, "a{sv}", settings, "b", runtime),
                                SD_BUS_RESULT("s", path), method_set_unit,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Reload", SD_BUS_NO_ARGS, SD_BUS_RESULT("as", diagnostics),
                                method_reload, SD_BUS_VTABLE_UNPRIVILEGED),

        SD_BUS_METHOD_WITH_ARGS("SetFocus", SD_BUS_ARGS("u", pid), SD_BUS_NO_RESULT,
                                bus_method_set_focus, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetFocus", SD_BUS_ARGS("u", pid),
                                SD_BUS_RESULT("s", state, "s", fact, "t", unfocused_usec),
                                bus_method_get_focus,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetAudio", SD_BUS_ARGS("u", pid),
                                SD_BUS_RESULT("s", state, "s", fact, "u", node),
                                bus_method_get_audio, SD_BUS_VTABLE_UNPRIVILEGED),

        SD_BUS_SIGNAL_WITH_ARGS("TaskApplied",
                                SD_BUS_ARGS("u", pid, "u", tid, "s", rule, "s", settings), 0),
        SD_BUS_SIGNAL_WITH_ARGS("FocusChanged",
                                SD_BUS_ARGS("s", cgroup, "u", pid, "s", state, "s", fact), 0),
        SD_BUS_SIGNAL_WITH_ARGS("AudioStream",
                                SD_BUS_ARGS("u", pid, "s", state, "s", fact, "u", node), 0),

        SD_BUS_VTABLE_END,
};

static int on_disconnected(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        Bus *b = userdata;

        log_warning("Lost the connection to the D-Bus bus %s; continuing without D-Bus",
                    strna(b->address));
        b->disconnect_slot = sd_bus_slot_unref(b->disconnect_slot);
        return 0;
}

static int bus_connect(const char *address, sd_bus **ret)
{
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        int r;

        if (streq(address, "system"))
                r = sd_bus_open_system_with_description(&bus, "latniced");
        else if (streq(address, "session"))
                r = sd_bus_open_user_with_description(&bus, "latniced");
        else {
                r = sd_bus_new(&bus);
                if (r < 0)
                        return r;
                r = sd_bus_set_address(bus, address);
                if (r < 0)
                        return r;
                r = sd_bus_set_bus_client(bus, true);
                if (r < 0)
                        return r;
                r = sd_bus_set_description(bus, "latniced");
                if (r < 0)
                        return r;
                r = sd_bus_start(bus);
        }
        if (r < 0)
                return r;
        *ret = TAKE_PTR(bus);
        return 0;
}

static Bus *bus_free(Bus *b);

static int bus_setup(Manager *m, sd_event *event, const char *address, Bus **ret)
{
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        Bus *b;
        int r;

        if (!address)
                address = "system";
        if (streq(address, "none")) {
                *ret = NULL;
                return 0;
        }

        b = calloc(1, sizeof(*b));
        if (!b)
                return -ENOMEM;
        b->manager = m;
        b->address = strdup(address);
        if (!b->address) {
                r = -ENOMEM;
                goto fail;
        }
        r = read_pid_max(manager_proc_root(m), &b->pid_max);
        if (r < 0)
                b->pid_max = 4194304; /* PID_MAX_LIMIT on 64-bit */

        r = sd_bus_error_add_map(latnice_error_map);
        if (r < 0)
                goto fail;

        r = bus_connect(address, &bus);
        if (r < 0) {
                log_debug_errno(r, "Cannot connect to the bus %s: %m", address);
                goto fail;
        }
        b->bus = TAKE_PTR(bus);

        r = sd_bus_add_object_vtable(b->bus, &b->object_slot, LATNICE_BUS_PATH,
                                     LATNICE_BUS_INTERFACE, daemon_vtable, b);
        if (r < 0)
                goto fail;

        r = sd_bus_match_signal(b->bus, &b->disconnect_slot, "org.freedesktop.DBus.Local",
                                "/org/freedesktop/DBus/Local", "org.freedesktop.DBus.Local",
                                "Disconnected", on_disconnected, b);
        if (r < 0)
                goto fail;

        r = sd_bus_request_name(b->bus, LATNICE_BUS_NAME, 0);
        if (r < 0) {
                log_debug_errno(r, "Cannot take the bus name " LATNICE_BUS_NAME ": %m");
                goto fail;
        }

        r = bus_focus_new(&b->focus);
        if (r < 0)
                goto fail;
        bus_focus_setup(b, b->bus);

        r = sd_bus_attach_event(b->bus, event, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0)
                goto fail;

        log_debug("Serving " LATNICE_BUS_NAME " on %s", address);
        *ret = b;
        return 0;

fail:
        bus_free(b);
        return r;
}

static Bus *bus_free(Bus *b)
{
        if (!b)
                return NULL;
        b->object_slot = sd_bus_slot_unref(b->object_slot);
        b->disconnect_slot = sd_bus_slot_unref(b->disconnect_slot);
        if (b->bus) {
                (void) sd_bus_detach_event(b->bus);
                b->bus = sd_bus_flush_close_unref(b->bus);
        }
        b->focus = bus_focus_free(b->focus);
        free(b->address);
        free(b);
        return NULL;
}

static void bus_emit_task_applied(Bus *b, pid_t pid, pid_t tid, const char *rule,
                                  const Settings *s)
{
        _cleanup_free_ char *str = NULL;
        int r;

        if (!b || !b->bus || !b->disconnect_slot)
                return;
        str = s ? settings_to_string(s) : strdup("");
        if (!str)
                return (void) log_oom();
        r = sd_bus_emit_signal(b->bus, LATNICE_BUS_PATH, LATNICE_BUS_INTERFACE, "TaskApplied",
                               "uuss", (uint32_t) pid, (uint32_t) tid, strempty(rule), str);
        if (r < 0)
                log_debug_errno(r, "Cannot emit TaskApplied for %d/%d: %m", (int) pid,
                                (int) tid);
}

static void bus_emit_focus_changed(Bus *b, FocusStore *store, const char *cgroup,
                                   pid_t pid)
{
        _cleanup_free_ char *fact = NULL;
        FocusFact f = {};
        uid_t uid;
        int r;

        if (!b || !b->bus || !b->disconnect_slot)
                return;
        /* the fact of the app: of its cgroup's owner, or of the foreground process */
        if (pid > 0) {
                const char *state;

                if (manager_get_focus(b->manager, pid, &state, &fact, NULL, &uid, NULL) < 0)
                        return;
                f.state = streq(state, "yes") ? FOCUS_YES : streq(state, "no") ? FOCUS_NO
                                                                             : FOCUS_UNKNOWN;
        } else {
                if (!focus_app_cgroup(cgroup, &uid, NULL))
                        return;
                f = focus_store_lookup(store, uid, 0, 0, cgroup);
                if (focus_fact_format(&f, now_usec(CLOCK_MONOTONIC), now_usec(CLOCK_REALTIME),
                                      &fact) < 0)
                        return (void)log_oom();
        }
        r = sd_bus_emit_signal(b->bus, LATNICE_BUS_PATH, LATNICE_BUS_INTERFACE, "FocusChanged",
                               "suss", strempty(cgroup), (uint32_t)MAX(pid, 0),
                               strempty(focus_state_to_string(f.state)), strempty(fact));
        if (r < 0)
                log_debug_errno(r, "Cannot emit FocusChanged: %m");
}

static int front_start(Manager *m, sd_event *event, const char *address, void **ret)
{
        return bus_setup(m, event, address, (Bus **) ret);
}

static void front_task_applied(void *fe, pid_t pid, pid_t tid, const char *rule,
                               const Settings *s)
{
        bus_emit_task_applied(fe, pid, tid, rule, s);
}

static void front_focus_changed(void *fe, FocusStore *store, const char *cgroup, pid_t pid)
{
        bus_emit_focus_changed(fe, store, cgroup, pid);
}

static void front_audio_changed(void *fe, pid_t pid)
{
        Bus *b = fe;

        if (b && b->bus && b->disconnect_slot)
                bus_emit_audio_stream(b, b->bus, pid);
}

static void front_free(void *fe)
{
        bus_free(fe);
}

const ManagerFrontEnd bus_front_end = {
        .name = "D-Bus",
        .start = front_start,
        .task_applied = front_task_applied,
        .focus_changed = front_focus_changed,
        .audio_changed = front_audio_changed,
        .free = front_free,
};
