/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>

#include "config.h"
#include "daemon/apply.h"
#include "daemon/conf.h"
#include "daemon/events.h"
#include "daemon/manager.h"
#include "daemon/tasks.h"
#include "lib/log.h"
#include "lib/macro.h"
#include "lib/proc.h"
#include "lib/sched.h"
#include "daemon/bus.h"
#include "daemon/units.h"

/* After a lost event, wait this long for the burst to pass before the
 * rescan, so a storm that overflows the queue again and again causes one
 * rescan per interval rather than one per overflow. */
#define RESCAN_DELAY_USEC (20 * 1000)
/* STATUS= is refreshed on activity, at most this often (no timer). */
#define STATUS_INTERVAL_USEC (1000 * 1000)

struct Manager {
        ManagerOptions opts;
        char **policy_dirs;
        char *config_file;
        bool log_level_from_cmdline;

        sd_event *event;
        sd_event_source *sig_term, *sig_int, *sig_hup, *rescan_timer;
        ProcEvents *events;
        KernelFeatures kernel;
        DaemonConfig config;
        Policy *policy;
        char **diagnostics;
        TaskTable *tasks;
        AncestorCache *ancestors;
        IdCache *ids;
        Applier applier;
        Bus *bus;
        UnitState *units;
        char *unit_rule;
        bool notify;

        uint64_t start_usec, last_reload_usec, last_status_usec;
        uint64_t n_events, n_lost, n_rescans;
        uint64_t rescan_usec_total, rescan_usec_max;
};

static uint64_t now_usec(clockid_t c)
{
        struct timespec ts;

        clock_gettime(c, &ts);
        return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static char **strv_copy(char *const *l)
{
        size_t n = 0;
        char **c;

        while (l && l[n])
                n++;
        c = calloc(n + 1, sizeof(char *));
        if (!c)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                c[i] = strdup(l[i]);
                if (!c[i])
                        return strv_free(c);
        }
        return c;
}

static int strv_append(char ***l, size_t *n, char *s)
{
        char **c = realloc(*l, (*n + 2) * sizeof(char *));

        if (!c) {
                free(s);
                return -ENOMEM;
        }
        c[(*n)++] = s;
        c[*n] = NULL;
        *l = c;
        return 0;
}

static LatencyBackend resolve_backend(Manager *m)
{
        LatencyBackend want = m->config.backend;

        if ((int)want == _LATENCY_BACKEND_AUTO)
                return m->kernel.best_backend;
        if (want == LATENCY_BACKEND_LATENCY_NICE && !m->kernel.latency_nice_syscall) {
                log_warning("LatencyNiceBackend=latency-nice, but this kernel has no per-task "
                            "latency nice; using %s.",
                            latency_backend_to_string(m->kernel.best_backend));
                return m->kernel.best_backend;
        }
        if (want == LATENCY_BACKEND_SLICE && !m->kernel.eevdf_slice) {
                log_warning("LatencyNiceBackend=slice, but this kernel cannot set the slice; "
                            "LatencyNice is ignored.");
                return LATENCY_BACKEND_NONE;
        }
        return want;
}

static void manager_update_status(Manager *m, bool force)
{
        uint64_t now;

        if (!m->notify)
                return;
        now = now_usec(CLOCK_MONOTONIC);
        if (!force && now - m->last_status_usec < STATUS_INTERVAL_USEC)
                return;
        m->last_status_usec = now;
        (void)sd_notifyf(false,
                         "STATUS=%s%zu tasks managed (%zu user-owned), %" PRIu64
                         " applied, %" PRIu64 " events, %" PRIu64 " lost, %" PRIu64
                         " rescans; backend %s, %zu rules",
                         m->opts.dry_run ? "dry run: " : "", task_table_size(m->tasks),
                         task_table_n_user_owned(m->tasks), m->applier.counters.n_applied,
                         m->n_events, m->n_lost, m->n_rescans,
                         latency_backend_to_string(m->applier.ctx.backend),
                         m->policy ? policy_n_rules(m->policy) : 0);
}

static void on_task_applied(void *userdata, const Task *t)
{
        Manager *m = userdata;

        bus_emit_task_applied(m->bus, t->pid, t->tid, t->rule, &t->settings);
}

static bool unit_base_settings(void *userdata, const ProcTask *p, Settings *ret,
                               const char **ret_rule)
{
        Manager *m = userdata;
        const char *cg = p->view.cgroup;

        if (!m->units || !cg || !m->policy || policy_n_units(m->policy) == 0)
                return false;
        if (!units_seen(m->units, cg))
                (void)units_apply_cgroup(m->units, m->policy, cg);
        if (!units_task_fallback_cgroup(m->units, m->policy, cg, ret))
                return false;
        free(m->unit_rule);
        m->unit_rule = NULL;
        if (p->view.unit && asprintf(&m->unit_rule, "unit:%s", p->view.unit) < 0)
                m->unit_rule = NULL;
        *ret_rule = m->unit_rule ? m->unit_rule : "unit";
        return true;
}

static const Policy *units_get_policy(void *userdata)
{
        Manager *m = userdata;
        return m->policy;
}

/* ---- configuration and policy -------------------------------------- */

static int manager_load_config(Manager *m)
{
        _cleanup_strv_free_ char **msgs = NULL;
        DaemonConfig c;
        int r;

        r = daemon_config_load(m->config_file, &c, &msgs);
        for (char **i = msgs; i && *i; i++)
                log_full(strstr(*i, ": error: ") ? LOG_ERR : LOG_WARNING, "%s", *i);
        if (r == -EINVAL)
                return log_error_errno(r, "%s has errors, keeping the configuration in effect.",
                                       m->config_file);
        if (r < 0)
                return log_error_errno(r, "Failed to read %s, keeping the configuration in "
                                          "effect: %m", m->config_file);

        m->config = c;
        if (!m->log_level_from_cmdline)
                log_set_max_level(c.log_level >= 0 ? c.log_level : LOG_INFO);
        return 0;
}

static int manager_load_policy(Manager *m)
{
        Diagnostics d = {};
        Policy *p = NULL;
        char **diags = NULL;
        size_t n = 0;
        int r;

        r = policy_load(m->policy_dirs, m->policy, &p, &d);
        if (r < 0) {
                diagnostics_done(&d);
                return log_error_errno(r, "Failed to load the policy, keeping the policy in "
                                          "effect: %m");
        }

        for (size_t i = 0; i < d.n; i++) {
                char *s = diagnostic_format(&d.items[i]);
                if (!s)
                        continue;
                log_full(d.items[i].level == DIAG_ERROR ? LOG_ERR : LOG_WARNING, "%s", s);
                (void)strv_append(&diags, &n, s);
        }
        if (diagnostics_count(&d, DIAG_ERROR) > 0)
                log_warning("Policy files with errors were rejected; their last good version "
                            "(if any) stays in effect.");
        diagnostics_done(&d);

        strv_free(m->diagnostics);
        m->diagnostics = diags;

        /* Swap: the task table keeps copies of rule names, nothing else
         * points into the old policy. */
        applier_set_policy(&m->applier, p);
        policy_free(m->policy);
        m->policy = p;
        /* A reload is also how an administrator says "names changed". */
        id_cache_flush(m->ids);

        log_info("Policy: %zu rule(s), %zu profile(s), %zu unit section(s) from %zu file(s)%s%s%s.",
                 policy_n_rules(p), policy_n_profiles(p), policy_n_units(p), policy_n_files(p),
                 m->applier.thread_rules ? ", thread rules" : "",
                 (m->applier.read_flags & PROC_READ_ANCESTORS) ? ", parent/ancestor keys" : "",
                 m->applier.uses_ids ? ", user/group keys" : "");
        return 0;
}

/* ---- rescans ------------------------------------------------------- */

static int manager_rescan(Manager *m, const char *why)
{
        uint64_t t0 = now_usec(CLOCK_MONOTONIC), dt;
        int r;

        r = applier_rescan(&m->applier);
        dt = now_usec(CLOCK_MONOTONIC) - t0;
        m->n_rescans++;
        m->rescan_usec_total += dt;
        m->rescan_usec_max = MAX(m->rescan_usec_max, dt);
        if (r < 0)
                return log_error_errno(r, "Failed to scan processes (%s): %m", why);
        log_full(streq(why, "lost events") ? LOG_NOTICE : LOG_DEBUG,
                 "Rescanned processes (%s) in %" PRIu64 " us: %zu task(s) managed; %" PRIu64
                 " lost-event overflow(s), %" PRIu64 " rescan(s) so far.",
                 why, dt, task_table_size(m->tasks), m->n_lost, m->n_rescans);
        manager_update_status(m, true);
        return 0;
}

static int on_rescan_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
        Manager *m = userdata;

        (void)sd_event_source_set_enabled(s, SD_EVENT_OFF);
        (void)manager_rescan(m, "lost events");
        return 0;
}

static void schedule_rescan(Manager *m)
{
        uint64_t now;
        int enabled = SD_EVENT_OFF, r;

        if (m->rescan_timer && sd_event_source_get_enabled(m->rescan_timer, &enabled) >= 0 &&
            enabled != SD_EVENT_OFF)
                return; /* one is pending already */

        (void)sd_event_now(m->event, CLOCK_MONOTONIC, &now);
        if (m->rescan_timer) {
                r = sd_event_source_set_time(m->rescan_timer, now + RESCAN_DELAY_USEC);
                if (r >= 0)
                        r = sd_event_source_set_enabled(m->rescan_timer, SD_EVENT_ONESHOT);
        } else {
                r = sd_event_add_time(m->event, &m->rescan_timer, CLOCK_MONOTONIC,
                                      now + RESCAN_DELAY_USEC, 0, on_rescan_timer, m);
                if (r >= 0)
                        (void)sd_event_source_set_description(m->rescan_timer, "rescan");
        }
        if (r < 0) {
                log_warning_errno(r, "Failed to schedule a rescan, rescanning now: %m");
                (void)manager_rescan(m, "lost events");
        }
}

/* ---- events -------------------------------------------------------- */

static int on_proc_event(const ProcEvent *e, void *userdata)
{
        Manager *m = userdata;
        int r = 0;

        m->n_events++;
        switch (e->type) {
        case PROC_EV_EXEC:
                ancestor_cache_stale(m->ancestors, e->pid);
                r = applier_process(&m->applier, e->pid);
                break;
        case PROC_EV_COMM:
                if (e->tid == e->pid)
                        ancestor_cache_stale(m->ancestors, e->pid);
                r = applier_thread(&m->applier, e->pid, e->tid);
                break;
        case PROC_EV_UID:
        case PROC_EV_GID:
                if (m->applier.uses_ids || task_table_has_process(m->tasks, e->pid))
                        r = applier_process(&m->applier, e->pid);
                break;
        case PROC_EV_FORK:
                if (proc_event_is_thread_fork(e))
                        r = applier_thread(&m->applier, e->pid, e->tid);
                break;
        case PROC_EV_EXIT:
                if (e->tid == e->pid)
                        ancestor_cache_exit(m->ancestors, e->pid);
                applier_forget(&m->applier, e->pid, e->tid);
                break;
        case PROC_EV_LOST:
                ancestor_cache_flush(m->ancestors);
                m->n_lost++;
                log_debug("Proc connector queue overflowed (%" PRIu64 " so far), rescan scheduled.",
                          m->n_lost);
                schedule_rescan(m);
                break;
        default:
                break;
        }
        if (r == -ENOMEM)
                log_oom();
        manager_update_status(m, false);
        return r;
}

static int on_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
        Manager *m = userdata;

        if (si->ssi_signo == SIGHUP) {
                log_info("Reloading configuration and policy (SIGHUP).");
                (void)manager_reload(m);
                return 0;
        }
        log_info("Exiting on %s.", strsignal((int)si->ssi_signo));
        return sd_event_exit(m->event, 0);
}

/* ---- life cycle ---------------------------------------------------- */

int manager_new(const ManagerOptions *o, Manager **ret)
{
        _cleanup_(manager_freep) Manager *m = NULL;
        static const char *const default_dirs[] = { VENDOR_POLICY_DIR, RUNTIME_POLICY_DIR,
                                                    ADMIN_POLICY_DIR, NULL };
        ApplyContext ctx = {};
        int r;

        m = calloc(1, sizeof(*m));
        if (!m)
                return -ENOMEM;
        m->opts = *o;
        m->log_level_from_cmdline = o->log_level >= 0;
        m->policy_dirs = strv_copy(o->policy_dirs ? o->policy_dirs : (char *const *)default_dirs);
        m->config_file = strdup(o->config_file ? o->config_file : DAEMON_CONFIG_FILE);
        if (!m->policy_dirs || !m->config_file)
                return -ENOMEM;
        daemon_config_init(&m->config);

        r = task_table_new(&m->tasks);
        if (r < 0)
                return r;
        r = ancestor_cache_new(o->proc_root, &m->ancestors);
        if (r < 0)
                return r;
        r = id_cache_new(NULL, NULL, &m->ids);
        if (r < 0)
                return r;

        ctx.dry_run = o->dry_run;
        ctx.proc_root = o->proc_root;
        applier_init(&m->applier, m->tasks, &ctx);
        m->applier.ancestors = m->ancestors;
        m->applier.ids = m->ids;
        m->applier.on_applied = on_task_applied;
        m->applier.userdata = m;

        r = sd_event_default(&m->event);
        if (r < 0)
                return r;

        *ret = TAKE_PTR(m);
        return 0;
}

Manager *manager_free(Manager *m)
{
        if (!m)
                return NULL;
        m->bus = bus_free(m->bus);
        m->units = units_free(m->units);
        free(m->unit_rule);
        m->events = proc_events_free(m->events);
        sd_event_source_disable_unref(m->rescan_timer);
        sd_event_source_disable_unref(m->sig_term);
        sd_event_source_disable_unref(m->sig_int);
        sd_event_source_disable_unref(m->sig_hup);
        sd_event_unref(m->event);
        task_table_free(m->tasks);
        ancestor_cache_free(m->ancestors);
        id_cache_free(m->ids);
        policy_free(m->policy);
        strv_free(m->diagnostics);
        strv_free(m->policy_dirs);
        free(m->config_file);
        free(m);
        return NULL;
}

static void log_kernel(const KernelFeatures *k)
{
        log_info("Kernel %s: latency nice %s, EEVDF slice %s, uclamp %s, cgroup2 cpu %s, "
                 "base slice %" PRIu64 " ns (%s), %u CPU(s), autogroup %s.",
                 k->release, k->latency_nice_syscall ? "yes" : "no",
                 k->eevdf_slice ? "yes" : "no", k->uclamp_task ? "yes" : "no",
                 k->cgroup2_cpu ? "yes" : "no", k->base_slice_ns,
                 k->base_slice_from_debugfs ? "debugfs" : "computed", k->ncpus,
                 k->autogroup > 0 ? "on" : k->autogroup == 0 ? "off" : "n/a");
        if (k->sched_ext_active)
                log_warning("sched_ext is active: slice and latency nice have no effect while "
                            "it runs.");
        if (k->autogroup > 0)
                log_notice("Autogroup is on: nice values only compete within a task's "
                           "autogroup.");
}

int manager_start(Manager *m)
{
        sigset_t ss;
        int r;

        m->start_usec = now_usec(CLOCK_REALTIME);
        m->notify = !!getenv("NOTIFY_SOCKET");

        r = kernel_probe(m->opts.cgroup_root, &m->kernel);
        if (r < 0)
                return log_error_errno(r, "Failed to probe the kernel: %m");
        sched_set_base_slice(m->kernel.base_slice_ns);
        log_kernel(&m->kernel);

        (void)manager_load_config(m);
        m->applier.respect_manual_changes = m->config.respect_manual_changes;
        m->applier.ctx.backend = resolve_backend(m);
        m->applier.ctx.base_slice_ns = m->kernel.base_slice_ns;
        log_info("LatencyNice backend: %s%s.", latency_backend_to_string(m->applier.ctx.backend),
                 m->opts.dry_run ? " (dry run: nothing will be changed)" : "");

        r = manager_load_policy(m);
        if (r < 0)
                return r;

        sigemptyset(&ss);
        sigaddset(&ss, SIGTERM);
        sigaddset(&ss, SIGINT);
        sigaddset(&ss, SIGHUP);
        if (sigprocmask(SIG_BLOCK, &ss, NULL) < 0)
                return log_error_errno(errno, "Failed to block signals: %m");
        r = sd_event_add_signal(m->event, &m->sig_term, SIGTERM, on_signal, m);
        if (r >= 0)
                r = sd_event_add_signal(m->event, &m->sig_int, SIGINT, on_signal, m);
        if (r >= 0)
                r = sd_event_add_signal(m->event, &m->sig_hup, SIGHUP, on_signal, m);
        if (r < 0)
                return log_error_errno(r, "Failed to watch signals: %m");

        r = sd_event_set_watchdog(m->event, true);
        if (r < 0)
                log_warning_errno(r, "Failed to enable the watchdog: %m");

        r = units_new(m->opts.cgroup_root, m->opts.dry_run, &m->units);
        if (r < 0)
                log_notice_errno(r, "No cgroup2 hierarchy to configure units in: %m");
        else {
                unsigned n = 0;
                m->applier.base_settings = unit_base_settings;
                r = units_apply_all(m->units, m->policy, &n);
                if (r < 0)
                        log_warning_errno(r, "Failed to configure units: %m");
                else if (n > 0)
                        log_info("Configured %u unit cgroup(s).", n);
                if (!streq(m->opts.bus, "none")) {
                        r = units_watch_systemd(m->units, m->event, units_get_policy, m);
                        if (r < 0)
                                log_info_errno(r, "Not watching systemd for new units (%m); "
                                                  "new units are found through their processes.");
                }
        }

        /* Subscribe before scanning: a process started between the scan and
         * the subscription would otherwise be missed. */
        r = proc_events_new(m->event, m->opts.recv_buffer, on_proc_event, m, &m->events);
        if (r < 0)
                return log_error_errno(r, "Failed to subscribe to the proc connector (needs "
                                          "CAP_NET_ADMIN in the initial namespaces): %m");
        log_debug("Proc connector receive buffer: %zu bytes.", proc_events_rcvbuf(m->events));

        if (!streq(m->opts.bus, "none")) {
                r = bus_setup(m, m->event, m->opts.bus, &m->bus);
                if (r < 0)
                        log_notice_errno(r, "D-Bus (%s) not available, running without it: %m",
                                         m->opts.bus);
        }

        r = manager_rescan(m, "start-up");
        if (r < 0)
                return r;
        m->n_rescans = 0; /* the start-up scan is not a recovery */
        m->last_reload_usec = m->start_usec;

        log_info("Ready: %zu task(s) managed, %" PRIu64 " thread(s) changed.",
                 task_table_size(m->tasks), m->applier.counters.n_applied);
        if (m->notify)
                (void)sd_notify(false, "READY=1");
        manager_update_status(m, true);
        return 0;
}

int manager_run(Manager *m)
{
        int r, code;

        r = sd_event_loop(m->event);
        code = r;
        if (r < 0)
                log_error_errno(r, "Event loop failed: %m");
        if (m->notify)
                (void)sd_notify(false, "STOPPING=1");

        /* Stop listening first; then put things back. */
        m->events = proc_events_free(m->events);
        if (m->config.restore_on_exit && !m->opts.dry_run) {
                size_t n = applier_restore_all(&m->applier);
                log_info("Restored the original attributes of %zu thread(s).", n);
                if (m->units)
                        (void)units_restore_all(m->units);
        }
        return code;
}

/* ---- control interface (daemon/control.h) -------------------------- */

void manager_get_status(Manager *m, ManagerStatus *ret)
{
        *ret = (ManagerStatus){
                .version = PACKAGE_VERSION,
                .backend = latency_backend_to_string(m->applier.ctx.backend),
                .dry_run = m->opts.dry_run,
                .sched_ext_active = m->kernel.sched_ext_active,
                .start_usec = m->start_usec,
                .last_reload_usec = m->last_reload_usec,
                .n_events = m->n_events,
                .n_lost = m->n_lost,
                .n_rescans = m->n_rescans,
                .n_applied = m->applier.counters.n_applied,
                .n_failed = m->applier.counters.n_failed,
                .n_managed = task_table_size(m->tasks),
                .n_user_owned = task_table_n_user_owned(m->tasks),
                .n_rules = m->policy ? policy_n_rules(m->policy) : 0,
                .n_files = m->policy ? policy_n_files(m->policy) : 0,
                .n_units = m->units ? units_n_configured(m->units) : 0,
                .last_reload_diagnostics = m->diagnostics,
        };
}

const KernelFeatures *manager_kernel(Manager *m)
{
        return &m->kernel;
}

int manager_list_tasks(Manager *m, ManagedTask **ret, size_t *ret_n)
{
        size_t n = task_table_size(m->tasks), i = 0, state = 0;
        ManagedTask *l;
        Task *t;

        l = calloc(n > 0 ? n : 1, sizeof(ManagedTask));
        if (!l)
                return -ENOMEM;
        while (task_table_iterate(m->tasks, &state, &t) && i < n)
                l[i++] = (ManagedTask){
                        .pid = t->pid,
                        .tid = t->tid,
                        .comm = t->comm ? t->comm : "",
                        .rule = t->rule ? t->rule : "",
                        .applied = t->settings,
                        .user_owned = t->user_owned,
                };
        *ret = l;
        *ret_n = i;
        return 0;
}

int manager_explain(Manager *m, pid_t pid, MatchResult *ret_result, MatchTrace *ret_trace)
{
        _cleanup_(proc_task_freep) ProcTask *p = NULL;
        int r;

        if (!m->policy)
                return -EAGAIN;
        r = proc_task_read(m->opts.proc_root, pid, 0, PROC_READ_ANCESTORS, &p);
        if (r < 0)
                return errno_is_gone(r) ? -ESRCH : r;
        return policy_match(m->policy, &p->view, ret_result, ret_trace);
}

int manager_set_task(Manager *m, pid_t pid, const Settings *s, char **ret_error)
{
        return applier_set_manual(&m->applier, pid, s, ret_error);
}

int manager_reload(Manager *m)
{
        int r;

        (void)manager_load_config(m);
        m->applier.respect_manual_changes = m->config.respect_manual_changes;
        m->applier.ctx.backend = resolve_backend(m);

        r = manager_load_policy(m);
        if (r == -ENOMEM)
                return r;

        if (m->units) {
                unsigned n = 0;
                r = units_apply_all(m->units, m->policy, &n);
                if (r < 0)
                        log_warning_errno(r, "Failed to configure units: %m");
        }
        /* Every process again: new matches applied, changed ones updated,
         * tasks whose rule went away get their originals back. */
        r = applier_rescan(&m->applier);
        if (r < 0)
                log_error_errno(r, "Failed to re-evaluate processes after reload: %m");
        m->last_reload_usec = now_usec(CLOCK_REALTIME);
        log_info("Reloaded: %zu task(s) managed.", task_table_size(m->tasks));
        manager_update_status(m, true);
        return r == -ENOMEM ? r : 0;
}

char *const *manager_policy_dirs(Manager *m)
{
        return m->policy_dirs;
}
