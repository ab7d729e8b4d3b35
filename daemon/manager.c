/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>

#include "config.h"
#include "daemon/desktop/audio-watch.h"
#include "daemon/desktop/focus-eval.h"
#include "daemon/desktop/focus-ns.h"
#include "daemon/desktop/focus-pid.h"
#include "daemon/desktop/focus-timer.h"
#include "policy/keys.h"
#include "daemon/desktop/focus-watch.h"
#include "daemon/state/adopt.h"
#include "daemon/apply/apply.h"
#include "daemon/apply/budget.h"
#include "daemon/conf.h"
#include "daemon/watch/events.h"
#include "daemon/manager.h"
#include "daemon/watch/ratelimit.h"
#include "daemon/watch/scx-watch.h"
#include "daemon/apply/tasks.h"
#include "daemon/watch/user-budget.h"
#include "lib/bounded-read.h"
#include "lib/log.h"
#include "lib/macro.h"
#include "lib/proc.h"
#include "lib/sched.h"
#include "lib/sched-effect.h"
#include "lib/sched-info.h"
#include "lib/strv.h"
#include "lib/time-util.h"
#include "daemon/groups/systemd-units.h"
#include "daemon/groups/units.h"

/* After a lost event, wait this long for the burst to pass before the
 * rescan, so a storm that overflows the queue again and again causes one
 * rescan per interval rather than one per overflow. */
#define RESCAN_DELAY_USEC (20 * 1000)
/* Rescans are rate-limited: the next one starts no earlier than this long,
 * or ten times the last one's duration, after the last one ended, so that a
 * sustained storm cannot keep latniced rescanning back to back. */
#define RESCAN_MIN_INTERVAL_USEC (500 * 1000)
/* A due rescan waits while the proc connector still has events queued
 * (they are cheaper than a rescan and may make it unnecessary), but not
 * longer than this: a storm that never drains must not starve it. */
#define RESCAN_MAX_WAIT_USEC (2000 * 1000)
/* Renames (prctl(PR_SET_NAME), no privilege needed) re-evaluate a process.
 * A process gets RENAME_BURST at once, then one per RENAME_INTERVAL, the
 * rest coalesced into one deferred re-evaluation of its final name; all
 * processes together get RENAME_GLOBAL_BURST, then one per
 * RENAME_GLOBAL_INTERVAL. At most RENAME_MAX_PROCESSES are tracked; beyond
 * that a rename schedules a (rate-limited) rescan. */
#define RENAME_BURST 4u
#define RENAME_INTERVAL_USEC (250 * 1000)
#define RENAME_GLOBAL_BURST 64u
#define RENAME_GLOBAL_INTERVAL_USEC (5 * 1000)
#define RENAME_MAX_PROCESSES 1024u
/* Deferred re-evaluations run per timer wake-up, at most (then the
 * proc connector gets its turn again). */
#define RENAME_BATCH 32u
/* Warnings that can repeat (running out of file descriptors, evaluations put
 * off) are said at most this often. */
#define WARNING_INTERVAL_USEC (10 * 1000 * 1000)
/* How long the event loop waits for a cmdline read that lib/proc.c does not
 * do right away (all but those at an exec of a small process with one
 * thread: any other process can keep its memory busy; see
 * lib/bounded-read.h). Such a read normally takes microseconds; one of a
 * swapped-out argv a few milliseconds. */
#define CMDLINE_READ_TIMEOUT_USEC (10 * 1000)
/* Past those 10 ms a read waits only on its user's wait budget: a worker
 * starved of a CPU on a busy machine takes longer without a lock held
 * against it, and latniced cannot tell the two apart (a lock's waiter, once
 * woken, waits for a CPU too). A user's reads may be waited for 100 ms more
 * at most each, 500 ms more in all, and 50 ms more each second after that:
 * a user costs latniced's loop at most 10 ms per read plus 5% of its time
 * (beyond that their reads are cut at 10 ms and held off as before). */
#define CMDLINE_READ_EXTRA_MAX_USEC (100 * 1000)
#define CMDLINE_READ_EXTRA_BURST_USEC (500 * 1000)
#define CMDLINE_READ_EXTRA_PER_SECOND_USEC (50 * 1000)
/* Free file descriptors latniced needs before it says READY=1: evaluating a
 * process holds a pidfd, a /proc directory and a file, NSS lookups a few
 * more; the rest is margin. */
#define FDS_NEEDED 16
/* New threads and renames (neither needs privilege) share one budget per
 * user (daemon/watch/user-budget.h), in thread evaluations: THREAD_BURST at once,
 * then one per THREAD_INTERVAL; a whole process costs its threads, and a
 * user's debt is bounded by THREAD_MAX_DEBT. Beyond it the user's processes
 * are evaluated whole when its budget allows, at most THREAD_BATCH of them
 * per timer wake-up. THREAD_MAX_USERS users and THREAD_MAX_PENDING
 * processes are tracked at most; beyond that a thread event schedules a
 * (rate-limited) rescan. */
#define THREAD_BURST 256u
#define THREAD_INTERVAL_USEC 2000
#define THREAD_MAX_DEBT 2500u
#define THREAD_MAX_USERS 1024u
#define THREAD_MAX_PENDING 4096u
#define THREAD_BATCH 4u
/* What latniced read of a process for its threads (daemon/watch/proc-cache.h):
 * kept for this many processes, each at most this long (a change that comes
 * without an event, such as a move to another cgroup, is seen at a thread
 * event after that). */
#define PROC_CACHE_MAX 1024u
#define PROC_CACHE_TTL_USEC (1000 * 1000)
/* "boosts withheld" and "thread rules applied" are said once per process and
 * reason, then at most this often with the count of its threads since
 * (daemon/watch/process-log.h), for this many processes at once. */
#define PROCESS_LOG_INTERVAL_USEC (10 * 1000 * 1000)
#define PROCESS_LOG_MAX 4096u
/* STATUS= is refreshed on activity, at most this often (no timer). */
#define STATUS_INTERVAL_USEC (1000 * 1000)

/* A warning said at most every WARNING_INTERVAL_USEC, with the count of
 * those left unsaid since. */
typedef struct WarningLimit {
        uint64_t last_usec; /* 0: never said */
        uint64_t n_unwarned;
} WarningLimit;

/* Is the warning due at NOW? If not, it is counted as unsaid. */
static bool warning_due(WarningLimit *w, uint64_t now)
{
        if (w->last_usec != 0 && now - w->last_usec < WARNING_INTERVAL_USEC) {
                w->n_unwarned++;
                return false;
        }
        return true;
}

/* The warning was said at NOW. */
static void warning_done(WarningLimit *w, uint64_t now)
{
        w->last_usec = now;
        w->n_unwarned = 0;
}

struct Manager {
        ManagerOptions opts;
        char **policy_dirs;
        char *config_file;
        bool log_level_from_cmdline;

        sd_event *event;
        sd_event_source *sig_term, *sig_int, *sig_hup, *rescan_timer, *rename_timer;
        sd_event_source *thread_timer;

        sd_event_source *group_timer; /* re-checks groups changed for a user (groups.h) */

        sd_event_source *budget_timer;
        Budget budget;
        RtGrants *rt;           /* the bounds of real-time grants */
        ProcEvents *events;
        RateLimiter *renames;
        UserBudget *threads;
        KernelFeatures kernel;
        SchedInfo sched;               /* preemption model, HZ (read at start) */
        ScxWatch *scx;                 /* the sched_ext state, followed */
        uint32_t effect_mask;          /* sched_effect_mask(): what acts now */
        char *preempt_text;            /* sched_info_preempt_describe() */
        DaemonConfig config;
        Policy *policy;
        char **diagnostics;
        TaskTable *tasks;
        AncestorCache *ancestors;
        IdCache *ids;
        ProcCache *proc_cache;
        ProcessLog *withheld, *thread_applied;
        Applier applier;
        const ManagerFrontEnd *front_end; /* NULL: none (manager_set_front_end) */
        void *front;
        UnitState *units;
        GroupTable *groups;
        /* The connections to the systemd managers (one per manager), for
         * units and groups alike; NULL: no systemd, or a test's tree. */
        SystemdUnits *systemd;
        bool notify;

        uint64_t start_usec, last_reload_usec, last_status_usec;
        uint64_t n_events, n_lost, n_rescans;
        uint64_t n_loads_ok, n_loads_rejected, n_loads_failed;
        uint64_t rescan_usec_total, rescan_usec_max;
        uint64_t rescan_end_usec, rescan_last_usec; /* last rescan: end, duration */
        uint64_t rescan_wanted_usec; /* when the pending rescan was asked for */
        char rescan_why[80];         /* the pending rescan's reasons, joined */
        uint64_t n_renames_deferred, n_renames_full;
        uint64_t n_threads_deferred, n_threads_full;
        uint64_t n_fd_exhausted;
        WarningLimit fd_warnings, deferred_warnings, thread_warnings;
        BoundedReader *cmdline_reader;
        FocusStore *focus;             /* daemon/desktop/focus.h */
        FocusWatch *focus_watch;
        FocusTimer *focus_timer;       /* daemon/desktop/focus-timer.h */
        AudioStore *audio;             /* daemon/desktop/audio.h */
        AudioWatch *audio_watch;
};

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

        if (m->front)
                m->front_end->task_applied(m->front, t->pid, t->tid, t->rule, &t->settings);
}

/* The apply step of [Unit] sections for a process's cgroup: configure it
 * the first time latniced sees it (the applier calls this after it applied
 * the process's task settings). */
static void unit_configure(void *userdata, const ProcTask *p)
{
        Manager *m = userdata;
        const char *cg = p->view.cgroup;

        if (!m->units || !cg || !m->policy || policy_n_units(m->policy) == 0)
                return;
        if (!units_seen(m->units, cg))
                (void)units_apply_cgroup(m->units, m->policy, cg);
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
        m->applier.ctx.rt_max_priority = c.rt_max_priority;
        if (m->rt)
                rt_grants_set_max_per_user(m->rt, (unsigned)c.rt_max_per_user);
        budget_configure(&m->budget, &c.budget, now_nsec(CLOCK_MONOTONIC));
        if (!m->log_level_from_cmdline)
                log_set_max_level(c.log_level >= 0 ? c.log_level : LOG_INFO);
        return 0;
}

static void manager_focus_spans(Manager *m);

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
                m->n_loads_failed++;
                return log_error_errno(r, "Failed to load the policy, keeping the policy in "
                                          "effect: %m");
        }

        for (size_t i = 0; i < d.n; i++) {
                char *s = diagnostic_format(&d.items[i]);
                if (!s)
                        continue;
                log_full(d.items[i].level == DIAG_ERROR ? LOG_ERR : LOG_WARNING, "%s", s);
                (void)strv_consume(&diags, &n, s);
        }
        if (diagnostics_count(&d, DIAG_ERROR) > 0)
                m->n_loads_rejected++;
        else
                m->n_loads_ok++;
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
        manager_focus_spans(m);
        /* A reload is also how an administrator says "names changed". */
        id_cache_flush(m->ids);

        log_info("Policy: %zu rule(s), %zu profile(s), %zu unit section(s) from %zu file(s)%s%s%s.",
                 policy_n_rules(p), policy_n_profiles(p), policy_n_units(p), policy_n_files(p),
                 m->applier.thread_rules ? ", thread rules" : "",
                 (m->applier.read_plan & PROC_READ_ANCESTORS) ? ", parent/ancestor keys" : "",
                 m->applier.uses_ids ? ", user/group keys" : "");
        return 0;
}

static int on_rescan_timer(sd_event_source *s, uint64_t usec, void *userdata);
static int on_rename_timer(sd_event_source *s, uint64_t usec, void *userdata);
static int on_thread_timer(sd_event_source *s, uint64_t usec, void *userdata);

static int on_group_timer(sd_event_source *s, uint64_t usec, void *userdata);

/* ---- resource exhaustion ------------------------------------------ */

/* Out of file descriptors, latniced is blind: every evaluation fails. Say
 * so loudly, but at most once per interval (the count of the others in the
 * next message), so that it cannot flood the journal. */
static void manager_note_error(Manager *m, int r, pid_t pid)
{
        uint64_t now;

        if (r != -EMFILE && r != -ENFILE)
                return;
        m->n_fd_exhausted++;
        now = now_usec(CLOCK_MONOTONIC);
        if (!warning_due(&m->fd_warnings, now))
                return;
        log_warning_errno(r, "Out of file descriptors %s %d (%m): processes are not being "
                             "managed (%" PRIu64 " time(s) so far, %" PRIu64 " since the last "
                             "warning). Raise LimitNOFILE= or the %s limit.",
                          pid > 0 ? "evaluating process" : "scanning processes, pid", (int)pid,
                          m->n_fd_exhausted, m->fd_warnings.n_unwarned,
                          r == -ENFILE ? "system-wide (fs.file-max)" : "RLIMIT_NOFILE");
        warning_done(&m->fd_warnings, now);
}

/* Can latniced open the file descriptors an evaluation needs? Checked before
 * READY=1: a daemon that cannot read /proc must not say it is ready. */
static int manager_check_fds(void)
{
        int fds[FDS_NEEDED], r = 0;
        size_t n = 0;

        fds[n] = open("/proc/self/status", O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fds[n] < 0)
                r = -errno;
        else
                for (n = 1; n < FDS_NEEDED; n++) {
                        fds[n] = fcntl(fds[0], F_DUPFD_CLOEXEC, 3);
                        if (fds[n] < 0) {
                                r = -errno;
                                break;
                        }
                }
        for (size_t i = 0; i < n; i++)
                safe_close(fds[i]);
        return r;
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
        m->rescan_end_usec = t0 + dt;
        m->rescan_last_usec = dt;
        if (r < 0) {
                manager_note_error(m, r, 0);
                return log_error_errno(r, "Failed to scan processes (%s): %m", why);
        }
        /* Every process was read just now: deferred renames and threads
         * are done. */
        rate_limiter_clear_pending(m->renames);
        user_budget_clear_pending(m->threads);
        log_full(streq(why, "start-up") || streq(why, "reload") ? LOG_DEBUG : LOG_NOTICE,
                 "Rescanned processes (%s) in %" PRIu64 " us: %zu task(s) managed; %" PRIu64
                 " lost-event overflow(s), %" PRIu64 " rescan(s) so far.",
                 why, dt, task_table_size(m->tasks), m->n_lost, m->n_rescans);
        manager_update_status(m, true);
        return 0;
}

/* The earliest time the next rescan may start. */
static uint64_t rescan_allowed_at(Manager *m, uint64_t now)
{
        uint64_t gap = MAX((uint64_t)RESCAN_MIN_INTERVAL_USEC, 10 * m->rescan_last_usec);

        if (m->rescan_end_usec == 0)
                return now + RESCAN_DELAY_USEC;
        return MAX(now + RESCAN_DELAY_USEC, m->rescan_end_usec + gap);
}

static int rescan_timer_arm(Manager *m, uint64_t when)
{
        int r;

        if (!m->rescan_timer) {
                r = sd_event_add_time(m->event, &m->rescan_timer, CLOCK_MONOTONIC, when, 0,
                                      on_rescan_timer, m);
                if (r >= 0)
                        (void)sd_event_source_set_description(m->rescan_timer, "rescan");
                return r;
        }
        r = sd_event_source_set_time(m->rescan_timer, when);
        if (r >= 0)
                r = sd_event_source_set_enabled(m->rescan_timer, SD_EVENT_ONESHOT);
        return r;
}

/* Run the pending rescan; a request made during it is a new one. */
static void rescan_now(Manager *m)
{
        char why[sizeof(m->rescan_why)];

        memcpy(why, m->rescan_why, sizeof(why));
        m->rescan_why[0] = '\0';
        m->rescan_wanted_usec = 0;
        (void)manager_rescan(m, why[0] ? why : "lost events");
}

static int on_rescan_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
        Manager *m = userdata;
        uint64_t now = now_usec(CLOCK_MONOTONIC);

        /* Let the queued events go first, unless they never end. */
        if (m->events && !proc_events_drained(m->events) &&
            now - m->rescan_wanted_usec < RESCAN_MAX_WAIT_USEC &&
            rescan_timer_arm(m, now + RESCAN_DELAY_USEC) >= 0)
                return 0;

        (void)sd_event_source_set_enabled(s, SD_EVENT_OFF);
        rescan_now(m);
        return 0;
}

/* Add WHY to the pending rescan's reasons (its log line names them all:
 * lost events must not hide behind a rescan already asked for threads). */
static void rescan_why_add(Manager *m, const char *why)
{
        size_t len = strlen(m->rescan_why), add = strlen(why), sep = len > 0 ? 2 : 0;

        if (strstr(m->rescan_why, why) || len + sep + add >= sizeof(m->rescan_why))
                return;
        memcpy(m->rescan_why + len, ", ", sep);
        memcpy(m->rescan_why + len + sep, why, add + 1);
}

/* Ask for a rescan: at most one is pending (a second request joins it), it
 * runs when the event queue is drained, and no sooner than the rate limit
 * allows (rescan_allowed_at()). */
static void schedule_rescan_at(Manager *m, const char *why, uint64_t not_before)
{
        uint64_t now = now_usec(CLOCK_MONOTONIC);

        rescan_why_add(m, why);
        if (m->rescan_wanted_usec != 0)
                return; /* one is pending already */
        m->rescan_wanted_usec = now;
        if (rescan_timer_arm(m, MAX(rescan_allowed_at(m, now), not_before)) < 0) {
                log_warning("Failed to schedule a rescan, rescanning now.");
                rescan_now(m);
        }
}

static void schedule_rescan(Manager *m, const char *why)
{
        schedule_rescan_at(m, why, 0);
}

/* An evaluation was put off (Applier.deferred): a cmdline read took over
 * CMDLINE_READ_TIMEOUT_USEC or was refused for its user's penalty, or the
 * threads a process whose main thread exited was read through exited as
 * they were read (lib/proc-live.h). A rescan, no sooner than the penalty
 * ends (a second without one), evaluates it again. */
static void on_evaluation_deferred(void *userdata, pid_t pid)
{
        Manager *m = userdata;
        uint64_t now = now_usec(CLOCK_MONOTONIC);
        uint64_t at = bounded_reader_take_retry_at(m->cmdline_reader);

        if (at == 0)
                at = now + USEC_PER_SEC;
        if (warning_due(&m->deferred_warnings, now)) {
                log_warning("Process %d was not evaluated: reading its command line (or an "
                            "ancestor's) took over %u ms and its user's wait budget, or is held "
                            "off after that for its user, or the threads it was read through "
                            "exited meanwhile (%" PRIu64 " read(s) cut short, %" PRIu64
                            " held off, %" PRIu64 " since the last warning); trying again in %"
                            PRIu64 " ms.",
                            (int)pid, (unsigned)(CMDLINE_READ_TIMEOUT_USEC / 1000),
                            bounded_reader_n_timeouts(m->cmdline_reader),
                            bounded_reader_n_refused(m->cmdline_reader),
                            m->deferred_warnings.n_unwarned, (at > now ? at - now : 0) / 1000);
                warning_done(&m->deferred_warnings, now);
        }
        schedule_rescan_at(m, "evaluations put off", at);
}

/* ---- threads: one budget per user ---------------------------------- */

static int thread_timer_arm(Manager *m, uint64_t when)
{
        int r;

        if (when == UINT64_MAX)
                return m->thread_timer ? sd_event_source_set_enabled(m->thread_timer, SD_EVENT_OFF)
                                       : 0;
        if (!m->thread_timer) {
                r = sd_event_add_time(m->event, &m->thread_timer, CLOCK_MONOTONIC, when, 0,
                                      on_thread_timer, m);
                if (r >= 0)
                        (void)sd_event_source_set_description(m->thread_timer, "threads");
                return r;
        }
        r = sd_event_source_set_time(m->thread_timer, when);
        if (r >= 0)
                r = sd_event_source_set_enabled(m->thread_timer, SD_EVENT_ONESHOT);
        return r;
}

/* Charge UID (or, if unknown, the uid the evaluation of PID found) with
 * what the last evaluation cost. */
static void thread_charge(Manager *m, pid_t pid, bool have_uid, uid_t uid, uint64_t now)
{
        size_t cost = m->applier.last_n_threads;

        if (cost == 0)
                return; /* nothing acted on: no thread was gone through */
        if (have_uid || proc_cache_uid(m->proc_cache, pid, &uid) >= 0)
                user_budget_charge(m->threads, uid, cost, now);
}

static void thread_note_deferred(Manager *m, uid_t uid, pid_t pid, uint64_t now)
{
        m->n_threads_deferred++;
        if (warning_due(&m->thread_warnings, now)) {
                log_notice("New and renamed threads of uid %u exceed its budget (%u at once, "
                           "then %u/s): process %d and any other of its processes with such "
                           "events are evaluated whole when the budget allows (%" PRIu64
                           " event(s) put off so far).",
                           (unsigned)uid, THREAD_BURST,
                           (unsigned)(USEC_PER_SEC / THREAD_INTERVAL_USEC), (int)pid,
                           m->n_threads_deferred);
                warning_done(&m->thread_warnings, now);
        }
        if (m->thread_timer && sd_event_source_get_enabled(m->thread_timer, NULL) > 0)
                return;
        if (thread_timer_arm(m, user_budget_next_due(m->threads, now)) < 0)
                schedule_rescan(m, "thread events");
}

/* Thread TID of PID was created or renamed (TID 0: renames of several of
 * its threads, merged): evaluate it now while its user is within its
 * budget, else note its process for a whole evaluation later. A process
 * seen for the first time is evaluated now (its uid is learnt then) and
 * charged. */
static int on_thread(Manager *m, pid_t pid, pid_t tid)
{
        uint64_t now = now_usec(CLOCK_MONOTONIC);
        bool have_uid;
        uid_t uid = (uid_t)-1;
        int r;

        have_uid = proc_cache_uid(m->proc_cache, pid, &uid) >= 0;
        if (have_uid) {
                r = user_budget_check(m->threads, uid, pid, now);
                if (r == USER_BUDGET_DEFERRED) {
                        thread_note_deferred(m, uid, pid, now);
                        return 0;
                }
                if (r == USER_BUDGET_FULL || r == -ENOMEM) {
                        m->n_threads_full++;
                        schedule_rescan(m, "thread events");
                        return 0;
                }
                if (r < 0)
                        return r;
        }
        r = tid > 0 ? applier_thread(&m->applier, pid, tid) : applier_threads(&m->applier, pid);
        thread_charge(m, pid, have_uid, uid, now);
        return r;
}

static int on_thread_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
        Manager *m = userdata;
        uint64_t now = now_usec(CLOCK_MONOTONIC);
        pid_t pid;
        uid_t uid;

        for (unsigned i = 0; i < THREAD_BATCH; i++) {
                int r;

                if (user_budget_pop_due(m->threads, now, &pid, &uid) <= 0)
                        break;
                /* One evaluation of the process covers all its threads. */
                r = applier_threads(&m->applier, pid);
                thread_charge(m, pid, true, uid, now);
                manager_note_error(m, r, pid);
                if (r == -ENOMEM)
                        log_oom();
        }
        if (thread_timer_arm(m, user_budget_next_due(m->threads, now_usec(CLOCK_MONOTONIC))) < 0)
                schedule_rescan(m, "thread events");
        return 0;
}

/* ---- groups changed for a user ------------------------------------- */

/* A cgroup was changed for a user other than root: re-check the cgroups of
 * that kind every GROUP_RECHECK_USEC while there are any (a process moved
 * in by a write to cgroup.procs brings no event). Armed once; the timer
 * re-arms itself. */
static void on_group_watch(void *userdata)
{
        Manager *m = userdata;
        uint64_t when = now_usec(CLOCK_MONOTONIC) + GROUP_RECHECK_USEC;
        int r;

        if (m->group_timer && sd_event_source_get_enabled(m->group_timer, NULL) > 0)
                return;
        if (!m->group_timer) {
                r = sd_event_add_time(m->event, &m->group_timer, CLOCK_MONOTONIC, when, 0,
                                      on_group_timer, m);
                if (r >= 0)
                        (void)sd_event_source_set_description(m->group_timer, "groups");
        } else {
                r = sd_event_source_set_time(m->group_timer, when);
                if (r >= 0)
                        r = sd_event_source_set_enabled(m->group_timer, SD_EVENT_ONESHOT);
        }
        if (r < 0)
                log_warning_errno(r, "Cannot arm the timer that re-checks groups changed for a "
                                     "user (%m): they are checked at events and rescans only.");
}

static int on_group_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
        Manager *m = userdata;

        (void)sd_event_source_set_enabled(s, SD_EVENT_OFF);
        if (group_table_recheck(m->groups) > 0)
                on_group_watch(m);
        return 0;
}

/* ---- renames ------------------------------------------------------- */

static int rename_timer_arm(Manager *m, uint64_t when)
{
        int r;

        if (when == UINT64_MAX)
                return m->rename_timer ? sd_event_source_set_enabled(m->rename_timer, SD_EVENT_OFF)
                                       : 0;
        if (!m->rename_timer) {
                r = sd_event_add_time(m->event, &m->rename_timer, CLOCK_MONOTONIC, when, 0,
                                      on_rename_timer, m);
                if (r >= 0)
                        (void)sd_event_source_set_description(m->rename_timer, "renames");
                return r;
        }
        r = sd_event_source_set_time(m->rename_timer, when);
        if (r >= 0)
                r = sd_event_source_set_enabled(m->rename_timer, SD_EVENT_ONESHOT);
        return r;
}

static int on_rename_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
        Manager *m = userdata;
        uint64_t now = now_usec(CLOCK_MONOTONIC);
        pid_t pid, tid;

        for (unsigned i = 0; i < RENAME_BATCH; i++) {
                int r;

                if (rate_limiter_pop_due(m->renames, now, &pid, &tid) <= 0)
                        break;
                /* tid == pid: renames of several threads, merged (the main
                 * thread's among them or not: applier_threads() tells). */
                r = on_thread(m, pid, tid == pid ? 0 : tid);
                manager_note_error(m, r, pid);
                if (r == -ENOMEM)
                        log_oom();
        }
        if (rename_timer_arm(m, rate_limiter_next_due(m->renames, now)) < 0)
                schedule_rescan(m, "renames"); /* no timer: the rescan sees the final names */
        return 0;
}

/* Does a rename of TID in PID matter to the policy at all? Only if it reads
 * thread names, or (the main thread's name is the process's) the comm. */
static bool rename_matters(Manager *m, pid_t pid, pid_t tid)
{
        ProcReadPlan plan = m->applier.read_plan;

        return (plan & PROC_READ_THREAD) || (tid == pid && (plan & PROC_READ_COMM));
}

/* Without name, comm and thread keys, the kernel need not send renames at
 * all (Linux 6.6+; older kernels send them and rename_matters() drops
 * them). Called after every policy load, before the rescan that follows
 * it: renames not sent in between are read by that rescan. */
static void manager_filter_events(Manager *m)
{
        bool want = !m->policy || rename_matters(m, 1, 1);
        int r;

        if (!m->events)
                return;
        r = proc_events_want_comm(m->events, want);
        if (r < 0)
                log_warning_errno(r, "Failed to %s rename events: %m",
                                  want ? "ask for" : "filter out");
        else
                log_debug("Rename events %s.",
                          want ? "wanted" : "not needed by the policy, filtered out");
}

/* A rename: evaluate now while the process is within its rate, else
 * coalesce (see RENAME_*). A rate-limited rename costs a hash lookup. */
static int on_rename(Manager *m, pid_t pid, pid_t tid)
{
        uint64_t now;
        int r;

        if (tid == pid)
                ancestor_cache_stale(m->ancestors, pid);
        if (!rename_matters(m, pid, tid))
                return 0;

        now = now_usec(CLOCK_MONOTONIC);
        r = rate_limiter_check(m->renames, pid, tid, now);
        if (r == RATE_LIMIT_NOW)
                return on_thread(m, pid, tid);
        if (r == RATE_LIMIT_FULL || r == -ENOMEM) {
                m->n_renames_full++;
                schedule_rescan(m, "renames");
                return 0;
        }
        if (r < 0)
                return r;

        m->n_renames_deferred++;
        /* An armed timer fires within one interval and re-arms for whatever
         * is pending then: no need to look for the earliest due time here. */
        if (m->rename_timer && sd_event_source_get_enabled(m->rename_timer, NULL) > 0)
                return 0;
        if (rename_timer_arm(m, rate_limiter_next_due(m->renames, now)) < 0)
                schedule_rescan(m, "renames");
        return 0;
}

/* ---- events -------------------------------------------------------- */

/* Returns > 0 when the event led to an evaluation that acts (see
 * proc_event_handler_t: latniced then stays prompt). */
static int on_proc_event(const ProcEvent *e, void *userdata)
{
        Manager *m = userdata;
        uint64_t acted = m->applier.counters.n_acted;
        int r = 0;

        m->n_events++;
        switch (e->type) {
        case PROC_EV_EXEC:
                ancestor_cache_stale(m->ancestors, e->pid);
                if (!e->gone)
                        group_table_member_event(m->groups, e->pid);
                if (e->gone)
                        applier_exec_gone(&m->applier, e->pid);
                else
                        r = applier_exec(&m->applier, e->pid);
                break;
        case PROC_EV_COMM:
                r = on_rename(m, e->pid, e->tid);
                break;
        case PROC_EV_UID:
        case PROC_EV_GID:
                if (e->type == PROC_EV_UID)
                        group_table_member_event(m->groups, e->pid);
                if (m->applier.uses_ids || task_table_has_process(m->tasks, e->pid))
                        r = applier_process(&m->applier, e->pid);
                break;
        case PROC_EV_FORK:
                if (proc_event_is_thread_fork(e))
                        r = on_thread(m, e->pid, e->tid);
                else {
                        group_table_member_event(m->groups, e->pid);
                        r = applier_fork(&m->applier, e->parent_pid, e->parent_tid, e->pid,
                                         e->timestamp_ns);
                }
                break;
        case PROC_EV_EXIT:
                if (e->tid == e->pid)
                        ancestor_cache_exit(m->ancestors, e->pid);
                rate_limiter_exit(m->renames, e->pid, e->tid);
                applier_forget(&m->applier, e->pid, e->tid);
                budget_forget(&m->budget, e->pid, e->tid);
                break;
        case PROC_EV_LOST:
                ancestor_cache_flush(m->ancestors);
                m->n_lost++;
                log_debug("Proc connector queue overflowed (%" PRIu64 " so far), rescan scheduled.",
                          m->n_lost);
                schedule_rescan(m, "lost events");
                break;
        default:
                break;
        }
        manager_note_error(m, r, e->pid);
        if (r == -ENOMEM)
                log_oom();
        manager_update_status(m, false);
        if (r >= 0 && m->applier.counters.n_acted != acted)
                return 1;
        return r;
}

/* ---- the boost budget ---------------------------------------------- */

/* A process was found over its budget: evaluate it again, now without its
 * boosts (the decision asks the budget). */
static void on_budget_revoked(void *userdata, pid_t pid)
{
        Manager *m = userdata;
        int r = applier_process(&m->applier, pid);

        manager_note_error(m, r, pid);
        if (r == -ENOMEM)
                log_oom();
}

/* One wake-up per window while a boosted process is tracked; none else. */
static void budget_timer_arm(Manager *m)
{
        uint64_t when;

        if (!m->budget_timer || !budget_active(&m->budget)) {
                if (m->budget_timer)
                        (void)sd_event_source_set_enabled(m->budget_timer, SD_EVENT_OFF);
                return;
        }
        when = now_usec(CLOCK_MONOTONIC) + m->budget.config.window_usec;
        if (sd_event_source_set_time(m->budget_timer, when) < 0 ||
            sd_event_source_set_enabled(m->budget_timer, SD_EVENT_ONESHOT) < 0)
                log_warning("Failed to arm the boost budget's timer.");
}

static int on_budget_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
        Manager *m = userdata;

        budget_sample(&m->budget, now_nsec(CLOCK_MONOTONIC), on_budget_revoked, m);
        budget_timer_arm(m);
        return 0;
}

/* The applier tracks a boosted process: the timer runs if it does not. */
static void on_budget_tracking(void *userdata)
{
        Manager *m = userdata;

        if (m->budget_timer && sd_event_source_get_enabled(m->budget_timer, NULL) <= 0)
                budget_timer_arm(m);
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

static bool real_proc(const ManagerOptions *o)
{
        return streq(o->proc_root ?: "/proc", "/proc");
}

/* The one SystemdUnits of latniced: [Unit] knobs on the real cgroup2
 * hierarchy and rule groups of the real /proc go through it; a test's
 * /proc and a --cgroup-root tree hold nobody's units. */
static void manager_open_systemd(Manager *m)
{
        int r;

        if (!real_proc(&m->opts) && m->opts.cgroup_root)
                return;
        r = systemd_units_new("/run", &m->systemd);
        if (r < 0 && r != -ENOMEDIUM)
                log_warning_errno(r, "Cannot set up systemd's units (%m): CPUWeight=, CPUIdle= "
                                     "and group settings are written to cgroup files, where "
                                     "systemd may overwrite them.");
}

/* The bounded reader every read of a process's memory (cmdline, environ)
 * goes through, with its budget; made the proc readers' own. */
static int cmdline_reader_new(Manager *m)
{
        int r;

        r = bounded_reader_new(PROC_CMDLINE_MAX, CMDLINE_READ_TIMEOUT_USEC, &m->cmdline_reader);
        if (r < 0)
                return r;
        bounded_reader_set_budget(m->cmdline_reader,
                                  &(BoundedReadBudget){
                                          .max_usec = CMDLINE_READ_EXTRA_MAX_USEC,
                                          .burst_usec = CMDLINE_READ_EXTRA_BURST_USEC,
                                          .per_second_usec = CMDLINE_READ_EXTRA_PER_SECOND_USEC,
                                  });
        proc_set_cmdline_reader(m->cmdline_reader);
        return 0;
}

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
        r = strv_copy(o->policy_dirs ? o->policy_dirs : (char *const *)default_dirs,
                      &m->policy_dirs);
        if (r < 0)
                return r;
        m->config_file = strdup(o->config_file ? o->config_file : DAEMON_CONFIG_FILE);
        if (!m->config_file)
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
        r = rate_limiter_new(&(const RateLimitConfig){
                                     .burst = RENAME_BURST,
                                     .interval_usec = RENAME_INTERVAL_USEC,
                                     .global_burst = RENAME_GLOBAL_BURST,
                                     .global_interval_usec = RENAME_GLOBAL_INTERVAL_USEC,
                                     .max_entries = RENAME_MAX_PROCESSES,
                             },
                             &m->renames);
        if (r < 0)
                return r;

        r = user_budget_new(&(const UserBudgetConfig){
                                    .burst = THREAD_BURST,
                                    .interval_usec = THREAD_INTERVAL_USEC,
                                    .max_debt = THREAD_MAX_DEBT,
                                    .max_users = THREAD_MAX_USERS,
                                    .max_pending = THREAD_MAX_PENDING,
                            },
                            &m->threads);
        if (r < 0)
                return r;
        r = applier_proc_cache_new(PROC_CACHE_MAX, PROC_CACHE_TTL_USEC, &m->proc_cache);
        if (r < 0)
                return r;
        r = process_log_new(PROCESS_LOG_MAX, PROCESS_LOG_INTERVAL_USEC, &m->withheld);
        if (r >= 0)
                r = process_log_new(PROCESS_LOG_MAX, PROCESS_LOG_INTERVAL_USEC,
                                    &m->thread_applied);
        if (r < 0)
                return r;

        ctx.dry_run = o->dry_run;
        ctx.proc_root = o->proc_root;
        ctx.rt_max_priority = m->config.rt_max_priority;
        applier_init(&m->applier, m->tasks, &ctx);
        m->applier.ancestors = m->ancestors;
        m->applier.ids = m->ids;
        m->applier.proc_cache = m->proc_cache;
        m->applier.withheld = m->withheld;
        m->applier.thread_applied = m->thread_applied;
        manager_open_systemd(m);
        r = group_table_new(o->proc_root, o->dry_run, real_proc(o) ? m->systemd : NULL,
                            &m->groups);
        if (r < 0)
                return r;
        m->applier.groups = m->groups;
        r = focus_store_new(&m->focus);
        if (r < 0)
                return r;
        m->applier.focus = m->focus;
        r = audio_store_new(&m->audio);
        if (r < 0)
                return r;
        m->applier.audio = m->audio;
        group_table_set_watch(m->groups, on_group_watch, m);
        m->applier.on_applied = on_task_applied;
        m->applier.deferred = on_evaluation_deferred;
        budget_init(&m->budget, o->proc_root);
        m->applier.budget = &m->budget;
        r = rt_grants_new(m->tasks, NULL, o->proc_root, &m->rt);
        if (r < 0)
                return r;
        rt_grants_set_max_per_user(m->rt, (unsigned)m->config.rt_max_per_user);
        m->applier.rt = m->rt;
        m->applier.budget_tracking = on_budget_tracking;
        m->applier.userdata = m;
        r = cmdline_reader_new(m);
        if (r < 0)
                return r;

        /* A loop of its own: sd_event_default()'s loop checks its thread with a
         * gettid() system call on every iteration. */
        r = sd_event_new(&m->event);
        if (r < 0)
                return r;
        /* What a paused user manager put off comes again at the pause's end. */
        r = group_table_attach_event(m->groups, m->event);
        if (r < 0)
                log_warning_errno(r, "Cannot follow the pauses of systemd's user managers (%m): "
                                     "group settings they put off wait for the next evaluation.");

        *ret = TAKE_PTR(m);
        return 0;
}

Manager *manager_free(Manager *m)
{
        if (!m)
                return NULL;
        if (m->front)
                m->front_end->free(m->front);
        m->front = NULL;
        m->applier.cgroup_root = NULL;
        m->focus_watch = focus_watch_free(m->focus_watch);
        m->focus_timer = focus_timer_free(m->focus_timer);
        m->focus = focus_store_free(m->focus);
        m->audio_watch = audio_watch_free(m->audio_watch);
        m->audio = audio_store_free(m->audio);
        m->units = units_free(m->units);
        m->groups = group_table_free(m->groups);
        m->systemd = systemd_units_free(m->systemd); /* after both, which borrow it */
        m->scx = scx_watch_free(m->scx);
        sched_info_done(&m->sched);
        free(m->preempt_text);
        m->events = proc_events_free(m->events);
        sd_event_source_disable_unref(m->rescan_timer);
        sd_event_source_disable_unref(m->rename_timer);
        sd_event_source_disable_unref(m->group_timer);

        sd_event_source_disable_unref(m->budget_timer);
        budget_done(&m->budget);
        rate_limiter_free(m->renames);
        sd_event_source_disable_unref(m->thread_timer);
        user_budget_free(m->threads);
        sd_event_source_disable_unref(m->sig_term);
        sd_event_source_disable_unref(m->sig_int);
        sd_event_source_disable_unref(m->sig_hup);
        sd_event_unref(m->event);
        rt_grants_free(m->rt);
        task_table_free(m->tasks);
        proc_cache_free(m->proc_cache);
        process_log_free(m->withheld);
        process_log_free(m->thread_applied);
        ancestor_cache_free(m->ancestors);
        id_cache_free(m->ids);
        proc_set_cmdline_reader(NULL);
        bounded_reader_free(m->cmdline_reader);
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
        log_info("Core scheduling (CoreSched=): %s.", core_sched_status_to_string(&k->core_sched));
        if (k->autogroup > 0)
                log_notice("Autogroup is on: nice values only compete within a task's "
                           "autogroup.");
}

/* SIGTERM, SIGINT and SIGHUP through the event loop. */
static int manager_watch_signals(Manager *m)
{
        sigset_t ss;
        int r;

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
        return 0;
}

/* [Unit] sections on the cgroup2 tree, and systemd's new units. Without a
 * cgroup2 hierarchy latniced goes on without them. */
static void manager_start_units(Manager *m)
{
        unsigned n = 0;
        int r;

        r = units_new(m->opts.cgroup_root, m->opts.dry_run, m->systemd, &m->units);
        if (r < 0) {
                log_notice_errno(r, "No cgroup2 hierarchy to configure units in: %m");
                return;
        }
        m->applier.cgroup_root = units_cgroup_root(m->units);
        m->applier.configure_units = unit_configure;
        units_set_sched_ext(m->units, m->applier.sched_ext);
        /* Before the first walk, which takes over a killed latniced's [Unit] files. */
        if (units_attach_state(m->units, task_table_state(m->tasks)) < 0)
                log_oom();
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

void manager_set_front_end(Manager *m, const ManagerFrontEnd *fe)
{
        m->front_end = fe;
}

/* ---- sched_ext ------------------------------------------------------- */

/* Under a sched_ext scheduler (or not): mask decisions, and say so. At
 * start-up (STARTING) only a loaded scheduler is worth a line. */
static void sched_ext_use(Manager *m, ScxState state, const char *ops, bool starting)
{
        bool active = scx_state_active(state);

        if (active && !m->applier.sched_ext)
                log_warning("sched_ext scheduler %s is %s: it reads no slice and no latency "
                            "nice, and group weights only if it implements them, so latniced "
                            "stops writing Slice=, LatencyNice=, CPUWeight=, CPUIdle= and "
                            "CPULatencyNice=, keeps Nice= within -%d..%d and Policy=idle, and "
                            "gives back the slices and groups it set.",
                            ops ? ops : "(unnamed)", scx_state_to_string(state),
                            SCHED_EXT_NICE_CAP, SCHED_EXT_NICE_CAP);
        else if (!active && m->applier.sched_ext)
                log_notice("sched_ext is %s: latniced writes Slice=, LatencyNice= and the group "
                           "settings again, and Nice= as the rules say.",
                           scx_state_to_string(state));
        m->applier.sched_ext = active;
        m->kernel.sched_ext_active = active;
        group_table_set_sched_ext(m->groups, active);
        units_set_sched_ext(m->units, active);
        m->effect_mask = sched_effect_mask(&m->kernel, active);
        if (!starting) {
                if (m->units && units_apply_all(m->units, m->policy, NULL) < 0)
                        log_warning("Failed to configure units for the sched_ext change.");
                schedule_rescan(m, "sched_ext");
        }
}

static void on_scx_changed(void *userdata, ScxState state, const char *ops)
{
        Manager *m = userdata;

        log_info("sched_ext: %s%s%s.", scx_state_to_string(state), ops ? ", scheduler " : "",
                 strempty(ops));
        sched_ext_use(m, state, ops, false);
}

/* LATNICED_SCHED_EXT_ROOT: a test's fake tree (latniced(8)). */
static int manager_watch_sched_ext(Manager *m)
{
        const char *root = getenv("LATNICED_SCHED_EXT_ROOT");
        int r;

        r = sched_info_read(NULL, &m->sched);
        if (r < 0)
                return log_oom();
        m->preempt_text = sched_info_preempt_describe(&m->sched);
        if (!m->preempt_text)
                return log_oom();
        if (m->sched.hz)
                log_info("Preemption model %s, HZ %u.", m->preempt_text, m->sched.hz);
        else
                log_info("Preemption model %s, HZ unknown (no kernel config).", m->preempt_text);
        if (root && *root)
                log_notice("Reading sched_ext below %s (LATNICED_SCHED_EXT_ROOT, for tests).", root);
        r = scx_watch_new(m->event, root && *root ? root : NULL, on_scx_changed, m, &m->scx);
        if (r < 0)
                return log_error_errno(r, "Failed to watch the sched_ext state: %m");
        sched_ext_use(m, scx_watch_state(m->scx), scx_watch_ops(m->scx), true);
        return 0;
}

/* ---- focus (daemon/desktop/focus.h) ------------------------------------------ */

/* Tell the front end: app cgroup CGROUP's focus changed (PID 0), or PID was
 * named the foreground process. */
static void manager_emit_focus(Manager *m, const char *cgroup, pid_t pid)
{
        if (m->front && m->front_end->focus_changed)
                m->front_end->focus_changed(m->front, m->focus, cgroup, pid);
}

static void on_focus_changed(void *userdata, const char *cgroup)
{
        Manager *m = userdata;
        int n;

        n = focus_eval_cgroup(&m->applier, m->kernel.cgroup_root, cgroup);
        log_debug("Focus of %s changed: %d process(es) evaluated again.", cgroup, MAX(n, 0));
        focus_timer_update(m->focus_timer);
        manager_emit_focus(m, cgroup, 0);
}

static bool manager_uses_focus(Manager *m)
{
        uint32_t keys = policy_used_keys(m->policy);

        return m->policy && (keys & (POLICY_KEY(match_key_from_string_n("focused", 7)) |
                                     POLICY_KEY(match_key_from_string_n("unfocused", 9))));
}

/* The focus timer (focus-timer.h) says: a span of the policy has passed
 * since CGROUP (or PID, or UID's other apps) lost the focus. */
static void on_focus_crossed(void *userdata, uid_t uid, const char *cgroup, pid_t pid)
{
        Manager *m = userdata;
        int n;

        if (pid > 0 || (cgroup && focus_app_cgroup(cgroup, NULL, NULL)))
                n = focus_eval_process(&m->applier, manager_proc_root(m), m->kernel.cgroup_root,
                                       pid, cgroup);
        else if (cgroup)
                n = focus_eval_cgroup(&m->applier, m->kernel.cgroup_root, cgroup);
        else {
                schedule_rescan(m, "focus time");
                return;
        }
        log_debug("Focus time of %s%s (uid %u) crossed a span: %d process(es) evaluated again.",
                  strempty(cgroup), pid > 0 ? " / a process" : "", (unsigned)uid, MAX(n, 0));
        manager_emit_focus(m, cgroup, pid);
}

/* The policy's spans for the "unfocused" key into the focus timer. */
static void manager_focus_spans(Manager *m)
{
        _cleanup_free_ uint64_t *spans = NULL;
        size_t n = 0;

        if (!m->focus_timer)
                return;
        if (policy_durations(m->policy, &spans, &n) < 0 ||
            focus_timer_set_spans(m->focus_timer, spans, n) < 0)
                log_oom();
}

/* Follow user.xdg.inactive-since below the users' slice, if there is one. */
static void manager_start_focus(Manager *m)
{
        const char *slice = m->opts.user_slice ?: "/user.slice";
        int r;

        r = focus_timer_new(m->event, m->focus, on_focus_crossed, m, &m->focus_timer);
        if (r < 0)
                log_oom();
        manager_focus_spans(m);
        if (!m->kernel.cgroup_root[0])
                return;
        r = focus_watch_new(m->event, m->kernel.cgroup_root, slice, m->focus, on_focus_changed,
                            m, &m->focus_watch);
        if (r == -ENOENT)
                log_info("No %s%s: the focus is known only from D-Bus calls.",
                         m->kernel.cgroup_root, slice);
        else if (r < 0)
                log_warning_errno(r, "Cannot follow the focus below %s%s: %m",
                                  m->kernel.cgroup_root, slice);
        else
                log_debug("Following the focus below %s%s (%zu cgroups watched).",
                          m->kernel.cgroup_root, slice, focus_watch_n_watches(m->focus_watch));
}

int manager_set_focus(Manager *m, pid_t pid, uid_t caller_uid, bool privileged,
                      pid_t caller_pid, const char *method, char **ret_error)
{
        _cleanup_(proc_task_freep) ProcTask *p = NULL;
        _cleanup_free_ char *old_cgroup = NULL, *app = NULL;
        pid_t old_pid = 0;
        size_t end;
        bool first;
        int r;

        /* a pid is a number in the caller's PID namespace: from another one
         * (a sandboxed app) it would name another process here */
        if (focus_caller_same_pidns(m->opts.proc_root, caller_pid, ret_error) == 0)
                return -EINVAL;
        r = focus_pid_read(m->opts.proc_root, m->applier.ctx.kernel, m->applier.pidfds, pid, &p,
                           ret_error);
        if (r < 0)
                return r;
        if (!privileged && p->view.uid != caller_uid) {
                (void)asprintf(ret_error, "pid %d is not yours (uid %u): a user may name only "
                               "their own processes as the focused one", (int)pid,
                               (unsigned)p->view.uid);
                return -EACCES;
        }
        first = !focus_store_has_foreground(m->focus, p->view.uid);
        r = focus_store_set_foreground(m->focus, p->view.uid, pid, p->view.cgroup, caller_pid,
                                       method, now_usec(CLOCK_MONOTONIC), &old_pid,
                                       &old_cgroup);
        if (r < 0)
                return r;
        log_debug("%s: pid %d of uid %u is in the foreground (from pid %d of uid %u).", method,
                  (int)pid, (unsigned)p->view.uid, (int)caller_pid, (unsigned)caller_uid);
        if (focus_app_cgroup(p->view.cgroup, NULL, &end))
                app = strndup(p->view.cgroup, end);
        focus_timer_update(m->focus_timer);
        if (first && manager_uses_focus(m))
                /* every other app of the user is unfocused from now on */
                schedule_rescan(m, "first focus");
        if (old_pid != pid || !streq_ptr(old_cgroup, app))
                (void)focus_eval_process(&m->applier, manager_proc_root(m),
                                         m->kernel.cgroup_root, old_pid, old_cgroup);
        (void)focus_eval_process(&m->applier, manager_proc_root(m), m->kernel.cgroup_root, pid,
                                 app);
        manager_emit_focus(m, app, pid);
        return 0;
}

int manager_get_focus(Manager *m, pid_t pid, const char **ret_state, char **ret_fact,
                      uint64_t *ret_unfocused_usec, uid_t *ret_uid, char **ret_error)
{
        _cleanup_(proc_task_freep) ProcTask *p = NULL;
        uint64_t mono;
        FocusFact f;
        int r;

        /* Held by a pidfd, as SetFocus: the uid that decides who may see
         * the answer and the cgroup it is looked up by are one process's. */
        r = focus_pid_read(m->opts.proc_root, m->applier.ctx.kernel, m->applier.pidfds, pid, &p,
                           ret_error);
        if (r < 0)
                return r;
        f = focus_store_lookup(m->focus, p->view.uid, pid, p->ppid, p->view.cgroup);
        mono = now_usec(CLOCK_MONOTONIC);
        r = focus_fact_format(&f, mono, now_usec(CLOCK_REALTIME), ret_fact);
        if (r < 0)
                return r;
        *ret_state = strempty(focus_state_to_string(f.state));
        if (ret_unfocused_usec)
                *ret_unfocused_usec = focus_fact_unfocused_for(&f, mono);
        *ret_uid = p->view.uid;
        return 0;
}

/* ---- audio (daemon/desktop/audio.h) ------------------------------------------ */

/* Process PID of UID started or stopped playing (node NODE; 0: its user's
 * PipeWire went away): evaluated again at once. */
static void on_audio_changed(void *userdata, uid_t uid, pid_t pid, uint32_t node)
{
        Manager *m = userdata;
        AudioFact f = audio_store_lookup(m->audio, uid, pid);
        int r;

        log_debug("Audio: pid %d of uid %u %s (node %u).", (int)pid, (unsigned)uid,
                  f.state == AUDIO_PLAYING ? "plays" : "plays no more", (unsigned)node);
        r = applier_process(&m->applier, pid);
        if (r == -ENOMEM)
                log_oom();
        else if (r < 0)
                log_debug("Audio: cannot evaluate %d again: %s", (int)pid, strerror(-r));
        if (m->front && m->front_end->audio_changed)
                m->front_end->audio_changed(m->front, pid);
}

int manager_get_audio(Manager *m, pid_t pid, const char **ret_state, char **ret_fact,
                      uint32_t *ret_node, uid_t *ret_uid, char **ret_error)
{
        _cleanup_(proc_task_freep) ProcTask *p = NULL;
        AudioFact f;
        int r;

        /* As GetFocus: one process's uid and pid, held by a pidfd. */
        r = focus_pid_read(m->opts.proc_root, m->applier.ctx.kernel, m->applier.pidfds, pid, &p,
                           ret_error);
        if (r < 0)
                return r;
        f = audio_store_lookup(m->audio, p->view.uid, pid);
        r = audio_fact_format(&f, now_usec(CLOCK_MONOTONIC), now_usec(CLOCK_REALTIME),
                              ret_fact);
        if (r < 0)
                return r;
        *ret_state = strempty(audio_state_to_string(f.state));
        *ret_node = f.state == AUDIO_PLAYING ? f.node : 0;
        *ret_uid = p->view.uid;
        return 0;
}

/* Follow every user's PipeWire below /run/user, if latniced was built with it. */
static void manager_start_audio(Manager *m)
{
        const char *dir = m->opts.user_runtime_dir ?: "/run/user";
        int r;

        r = audio_watch_new(m->event, dir, manager_proc_root(m), m->audio, on_audio_changed, m,
                            &m->audio_watch);
        if (r == -EOPNOTSUPP)
                log_info("Built without libpipewire: audio: is unknown (matches nothing).");
        else if (r < 0)
                log_warning_errno(r, "Cannot follow the users' PipeWire below %s, audio: is "
                                     "unknown: %m", dir);
        else
                log_debug("Following the users' PipeWire below %s (%zu followed).", dir,
                          audio_store_n_users(m->audio));
}

/* The rescan, rename, group and budget timers, created disabled. */
static int manager_add_timers(Manager *m)
{
        int r;

        /* The timers exist from the start, disabled: sd-event opens its timer
         * fd with the first one, and running out of descriptors later must
         * not stop rescans, renames or the event loop itself (the proc
         * connector's wake-up rate limit needs that fd too). */
        r = sd_event_add_time(m->event, &m->rescan_timer, CLOCK_MONOTONIC, UINT64_MAX, 0,
                              on_rescan_timer, m);
        if (r >= 0)
                r = sd_event_add_time(m->event, &m->rename_timer, CLOCK_MONOTONIC, UINT64_MAX, 0,
                                      on_rename_timer, m);
        if (r >= 0)
                r = sd_event_add_time(m->event, &m->budget_timer, CLOCK_MONOTONIC, UINT64_MAX, 0,
                                      on_budget_timer, m);
        if (r >= 0)
                r = sd_event_source_set_enabled(m->rescan_timer, SD_EVENT_OFF);
        if (r >= 0)
                r = sd_event_source_set_enabled(m->rename_timer, SD_EVENT_OFF);
        if (r >= 0 && !m->group_timer) {
                r = sd_event_add_time(m->event, &m->group_timer, CLOCK_MONOTONIC, UINT64_MAX, 0,
                                      on_group_timer, m);
                if (r >= 0)
                        r = sd_event_source_set_enabled(m->group_timer, SD_EVENT_OFF);
        }
        if (r >= 0)
                r = sd_event_source_set_enabled(m->budget_timer, SD_EVENT_OFF);
        if (r < 0)
                return log_error_errno(r, "Failed to create timers: %m");
        (void)sd_event_source_set_description(m->rescan_timer, "rescan");
        (void)sd_event_source_set_description(m->rename_timer, "renames");
        (void)sd_event_source_set_description(m->group_timer, "groups");
        (void)sd_event_source_set_description(m->budget_timer, "boost-budget");
        /* Processes boosted before the timer existed (none yet: the rescan
         * comes later), and from now on as they are noted. */
        on_budget_tracking(m);
        return 0;
}

int manager_start(Manager *m)
{
        int r;

        m->start_usec = now_usec(CLOCK_REALTIME);
        m->notify = !!getenv("NOTIFY_SOCKET");

        r = kernel_probe(m->opts.cgroup_root, &m->kernel);
        if (r < 0)
                return log_error_errno(r, "Failed to probe the kernel: %m");
        log_kernel(&m->kernel);
        r = manager_watch_sched_ext(m);
        if (r < 0)
                return r;

        (void)manager_load_config(m);
        m->applier.respect_manual_changes = m->config.respect_manual_changes;
        m->applier.ctx.backend = resolve_backend(m);
        m->applier.ctx.base_slice_ns = m->kernel.base_slice_ns;
        log_info("LatencyNice backend: %s%s.", latency_backend_to_string(m->applier.ctx.backend),
                 m->opts.dry_run ? " (dry run: nothing will be changed)" : "");

        r = manager_load_policy(m);
        if (r < 0)
                return r;

        /* What a killed latniced changed comes back before anything is
         * applied (daemon/state/adopt.h); a dry run changes nothing to keep. */
        if (!m->opts.dry_run) {
                r = tasks_open_state(m->tasks, m->opts.state_file ?: STATE_FILE_DEFAULT,
                                     m->opts.proc_root, m->applier.respect_manual_changes);
                if (r == -ENOMEM)
                        return log_oom();
                if (r < 0)
                        return r; /* refused, and said why */
        }
        /* The RLIMIT_RTTIME of processes a killed latniced granted real
         * time, after their threads. */
        if (!m->opts.dry_run) {
                r = rt_grants_adopt(m->rt);
                if (r < 0)
                        return log_oom();
                if (r > 0)
                        log_info("State file: took over the RLIMIT_RTTIME of %d process(es) a "
                                 "previous latniced granted real time.", r);
        }
        /* The groups of rules a killed latniced changed, through the same file. */
        if (group_table_attach_state(m->groups, task_table_state(m->tasks)) < 0)
                return log_oom();

        r = manager_watch_signals(m);
        if (r < 0)
                return r;

        r = sd_event_set_watchdog(m->event, true);
        if (r < 0)
                log_warning_errno(r, "Failed to enable the watchdog: %m");

        manager_start_units(m);

        r = manager_add_timers(m);
        if (r < 0)
                return r;

        /* Subscribe before scanning: a process started between the scan and
         * the subscription would otherwise be missed. */
        r = proc_events_new(m->event, m->opts.recv_buffer, on_proc_event, m, &m->events);
        if (r < 0)
                return log_error_errno(r, "Failed to subscribe to the proc connector (needs "
                                          "CAP_NET_ADMIN in the initial namespaces): %m");
        log_debug("Proc connector receive buffer: %zu bytes.", proc_events_rcvbuf(m->events));
        manager_filter_events(m);

        if (m->front_end && !streq(m->opts.bus, "none")) {
                r = m->front_end->start(m, m->event, m->opts.bus, &m->front);
                if (r < 0) {
                        m->front = NULL;
                        log_notice_errno(r, "%s (%s) not available, running without it: %m",
                                         m->front_end->name, m->opts.bus);
                }
        }

        manager_start_focus(m);
        manager_start_audio(m);

        r = manager_check_fds();
        if (r < 0)
                return log_error_errno(r, "Cannot open %d file descriptors (%m): latniced could "
                                          "not read processes and would manage nothing. Raise "
                                          "LimitNOFILE= (RLIMIT_NOFILE) and restart.",
                                       FDS_NEEDED);

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
        bool restore;
        int r, code;

        r = sd_event_loop(m->event);
        code = r;
        if (r < 0)
                log_error_errno(r, "Event loop failed: %m");
        if (m->notify)
                (void)sd_notify(false, "STOPPING=1");

        /* Stop listening first; then put things back. The threads that
         * managed processes started meanwhile inherited latniced's settings:
         * their forks are handed on first, so that they are put back too. */
        restore = m->config.restore_on_exit && !m->opts.dry_run;
        if (m->events && restore)
                (void)proc_events_flush_deferred(m->events);
        m->events = proc_events_free(m->events);
        if (restore) {
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
                .sched_ext_state = scx_state_to_string(scx_watch_state(m->scx)),
                .sched_ext_scheduler = scx_watch_ops(m->scx),
                .preemption_model = preempt_model_to_string(m->sched.preempt),
                .preemption = m->preempt_text,
                .hz = m->sched.hz,
                .settings_in_effect = m->effect_mask,
                .core_sched = core_sched_status_to_string(&m->kernel.core_sched),
                .start_usec = m->start_usec,
                .last_reload_usec = m->last_reload_usec,
                .n_events = m->n_events,
                .n_lost = m->n_lost,
                .n_rescans = m->n_rescans,
                .n_evaluated = m->applier.counters.n_evaluated,
                .n_applied = m->applier.counters.n_applied,
                .n_restored = m->applier.counters.n_restored,
                .n_failed = m->applier.counters.n_failed,
                .n_managed = task_table_size(m->tasks),
                .n_user_owned = task_table_n_user_owned(m->tasks),
                .n_fd_exhaustions = m->n_fd_exhausted,
                .n_put_off = m->applier.counters.n_deferred,
                .n_batched_storms = m->events ? proc_events_n_quiet_storms(m->events) : 0,
                .n_shared_groups = m->groups ? group_table_counters(m->groups)->n_shared : 0,

                .n_unrecorded = task_table_n_unrecorded(m->tasks),
                .n_threads_deferred = m->n_threads_deferred,
                .n_threads_full = m->n_threads_full,
                .n_rules = m->policy ? policy_n_rules(m->policy) : 0,
                .n_files = m->policy ? policy_n_files(m->policy) : 0,
                .n_units = m->units ? units_n_configured(m->units) : 0,
                .n_loads_ok = m->n_loads_ok,
                .n_loads_rejected = m->n_loads_rejected,
                .n_loads_failed = m->n_loads_failed,
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

/* The budget's word on a process Explain reads (DecideRequest.prepare). */
static int explain_prepare(void *userdata, TaskDecision *td)
{
        Manager *m = userdata;
        FocusFact f;

        td->facts.revoked = budget_revoked(&m->budget, td->p->view.pid, td->p->starttime);
        /* the focus, as the applier sees it (snapshot_borrow()) */
        f = focus_store_lookup(m->focus, td->p->view.uid, td->p->view.pid, td->p->ppid,
                               td->p->view.cgroup);
        td->p->view.focused = focus_state_to_string(f.state);
        td->p->view.unfocused_usec = focus_fact_unfocused_for(&f, now_usec(CLOCK_MONOTONIC));
        td->p->view.audio = audio_state_to_string(
                audio_store_lookup(m->audio, td->p->view.uid, td->p->view.pid).state);
        return 0;
}

/* Does S ask for a real-time grant that latniced may make at all? */
static bool rt_asked(const Manager *m, const Settings *s)
{
        return m->rt && settings_has(s, SETTING_POLICY) && sched_policy_is_rt(s->policy) &&
               m->applier.ctx.rt_max_priority > 0;
}

/* The grant left out of D, for REASON (unless D has one already). */
static void rt_withhold(Decision *d, const char *reason)
{
        const uint32_t rt = SETTING_BIT(SETTING_POLICY) | SETTING_BIT(SETTING_REALTIME_PRIORITY);

        d->withheld |= d->settings.mask & rt;
        d->settings.mask &= ~rt;
        if (!d->withheld_reason)
                d->withheld_reason = reason;
}

/* What the applier does with the real-time grant D asks for thread TID of
 * TD's process (daemon/apply/rt-grants.h, rt_grant_bound()): a thread that
 * holds one keeps it; else it is withheld past the user's limit and where
 * the kernel gives the thread's cpu group no real-time runtime. */
static void explain_rt_bound_one(Manager *m, const TaskDecision *td, pid_t tid, Decision *d)
{
        const Task *t = task_table_get(m->tasks, tid);

        if (!rt_asked(m, &d->settings) || (t && task_rt_granted(t)))
                return;
        if (rt_grants_user_count(m->rt, td->p->view.uid) >= rt_grants_max_per_user(m->rt))
                rt_withhold(d, "its user holds as many real-time grants as "
                               "MaxRealtimeThreadsPerUser= allows");
        else if (rt_grants_group_refuses(m->rt, td->p->view.pid, tid, NULL) > 0)
                rt_withhold(d, "the kernel gives its cpu cgroup no real-time runtime "
                               "(cpu.rt_runtime_us is 0)");
}

static void explain_rt_bound(Manager *m, TaskDecision *td)
{
        if (!td->p)
                return;
        explain_rt_bound_one(m, td, td->p->view.pid, &td->d);
        for (size_t i = 0; i < td->n_threads; i++)
                explain_rt_bound_one(m, td, td->threads[i].tid, &td->threads[i].d);
}

int manager_explain(Manager *m, pid_t pid, bool threads, MatchTrace *ret_trace,
                    TaskDecision *ret)
{
        /* All of the task that is shown, and whatever else the policy
         * reads; decided as the applier decides (Explain writes nothing). */
        const DecideRequest req = {
                .policy = m->policy,
                .proc_root = m->opts.proc_root,
                .cgroup_root = m->applier.cgroup_root,
                .pid = pid,
                .read = PROC_READ_TASK | PROC_READ_ANCESTORS,
                .prepare = explain_prepare,
                .userdata = m,
                .threads = threads,
                .base_slice_ns = m->applier.ctx.base_slice_ns,
                .trace = ret_trace,
        };
        int r;

        *ret = (TaskDecision){};
        if (!m->policy)
                return -EAGAIN;
        r = task_decide(&req, ret);
        if (r < 0)
                task_decision_done(ret);
        if (r == -EAGAIN)
                return -EBUSY; /* a cmdline read cut short or held off */
        if (r < 0)
                return errno_is_gone(r) ? -ESRCH : r;
        explain_rt_bound(m, ret);
        /* what latniced writes: under sched_ext, less (lib/sched-effect.h) */
        (void)sched_ext_mask_settings(m->applier.sched_ext, &ret->d.settings);
        (void)sched_ext_mask_settings(m->applier.sched_ext, &ret->d.group);
        for (size_t i = 0; i < ret->n_threads; i++)
                (void)sched_ext_mask_settings(m->applier.sched_ext, &ret->threads[i].d.settings);
        return 0;
}

int manager_set_task(Manager *m, pid_t pid, const Settings *s, set_task_check_t check,
                     void *userdata, char **ret_error)
{
        return applier_set_manual(&m->applier, pid, s, check, userdata, ret_error);
}

const char *manager_proc_root(Manager *m)
{
        return m->opts.proc_root ? m->opts.proc_root : "/proc";
}

int manager_reload(Manager *m)
{
        int r;

        (void)manager_load_config(m);
        m->applier.respect_manual_changes = m->config.respect_manual_changes;
        m->applier.ctx.backend = resolve_backend(m);
        budget_timer_arm(m); /* a new window, or none */

        r = manager_load_policy(m);
        if (r == -ENOMEM)
                return r;
        manager_filter_events(m);

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
