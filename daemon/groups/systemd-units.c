/* SPDX-License-Identifier: GPL-2.0-or-later */
/* SystemdUnits: CPUWeight= of a unit through its systemd manager (see the header). */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "daemon/groups/systemd-units.h"
#include "lib/log.h"
#include "lib/macro.h"
#include "lib/time-util.h"
#include "lib/unit-name.h"
#include "lib/util.h"

/* Connections to user managers kept open; beyond this the oldest is closed. */
#define USER_BUSES_MAX 64u

/* A user's manager is the user's own process: its user can stop it or keep
 * it busy, and every call waits for it with latniced's main loop. So a user
 * manager gets a shorter timeout than the system manager, and latniced's
 * waits for it are counted: each call adds its duration to the manager's
 * debt, which drains by 1/USER_WAIT_SHARE of the time that passes (100 ms a
 * second). A call that ran out of time, or a debt over USER_WAIT_BURST_USEC,
 * pauses the manager for USER_PAUSE_USEC: it is asked to take on nothing new
 * (no lookup for a new group, no scope) meanwhile, and the callers hear of
 * the pause's end (systemd_units_on_resume()) to ask again. A stuck manager
 * costs latniced one timeout per pause (5% of its time), one that answers
 * slowly about 10% and a burst; a manager that is slow now and then on a
 * loaded machine (a few hundred ms) is not paused. Giving back what
 * latniced set (BY_NAME) is still tried. */
#define USER_TIMEOUT_USEC (500 * 1000)
#define USER_WAIT_SHARE 10u
#define USER_WAIT_BURST_USEC (2 * 1000 * 1000)
#define USER_PAUSE_USEC (10 * 1000 * 1000)
#define RESUME_LISTENERS_MAX 4u

#define SD_DEST "org.freedesktop.systemd1"
#define SD_PATH "/org/freedesktop/systemd1"
#define SD_MANAGER "org.freedesktop.systemd1.Manager"

typedef struct UserBus {
        uid_t uid;
        sd_bus *bus;
} UserBus;

/* What waiting for the manager of UID cost latniced (see USER_WAIT_SHARE). */
typedef struct UserCost {
        uid_t uid;
        uint64_t debt;  /* usec, as of AT */
        uint64_t at;    /* CLOCK_MONOTONIC */
        uint64_t until; /* paused until then (CLOCK_MONOTONIC); 0: never was */
        bool resume_due; /* its pause's end is still to be told */
} UserCost;

typedef struct ResumeListener {
        void (*cb)(void *userdata);
        void *userdata;
} ResumeListener;

/* A signal of the system manager that came while latniced waited for a job
 * (bus_dispatch_until()): handed on from the event loop, never from inside
 * a call of units.c or groups.c. */
typedef struct HeldSignal {
        bool job_done; /* JobRemoved "done"; else UnitNew */
        char *unit;
} HeldSignal;

#define HELD_MAX 256u

struct SystemdUnits {
        char *run_dir;
        sd_bus *system;
        /* systemd_units_watch(): the system connection is attached to EVENT
         * and carries these (again after a reconnection). */
        sd_event *event;
        SystemdUnitsWatch watch;
        void *watch_userdata;
        sd_bus_slot *job_removed, *unit_new, *subscribe;
        bool waiting; /* in bus_dispatch_until() on the system connection */
        HeldSignal held[HELD_MAX];
        size_t n_held;
        sd_event_source *deliver;
        UserBus users[USER_BUSES_MAX];
        size_t n_users;
        UserCost costs[USER_BUSES_MAX];
        size_t n_costs;
        uint64_t n_refused; /* calls put off by a pause (systemd_units_refusals()) */
        sd_event *resume_event; /* systemd_units_on_resume() */
        sd_event_source *resume;
        ResumeListener listeners[RESUME_LISTENERS_MAX];
        size_t n_listeners;
        uint64_t stop_until; /* systemd_units_stopping(): CLOCK_MONOTONIC; 0: not stopping */
};

/* The D-Bus interface that carries ControlGroup and CPUWeight for each unit type. */
static const char *const unit_interfaces[_UNIT_TYPE_MAX] = {
        [UNIT_SERVICE] = "org.freedesktop.systemd1.Service",
        [UNIT_SCOPE] = "org.freedesktop.systemd1.Scope",
        [UNIT_SLICE] = "org.freedesktop.systemd1.Slice",
        [UNIT_SOCKET] = "org.freedesktop.systemd1.Socket",
        [UNIT_MOUNT] = "org.freedesktop.systemd1.Mount",
        [UNIT_SWAP] = "org.freedesktop.systemd1.Swap",
};

int systemd_units_new(const char *run_dir, SystemdUnits **ret)
{
        _cleanup_free_ SystemdUnits *s = NULL;
        _cleanup_free_ char *marker = NULL;

        /* sd_booted()'s test, under RUN_DIR. */
        if (asprintf(&marker, "%s/systemd/system", run_dir) < 0)
                return -ENOMEM;
        if (access(marker, F_OK) < 0)
                return -ENOMEDIUM;
        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->run_dir = strdup(run_dir);
        if (!s->run_dir)
                return -ENOMEM;
        *ret = TAKE_PTR(s);
        return 0;
}

static void watch_detach(SystemdUnits *s)
{
        s->job_removed = sd_bus_slot_unref(s->job_removed);
        s->unit_new = sd_bus_slot_unref(s->unit_new);
        s->subscribe = sd_bus_slot_unref(s->subscribe);
        if (s->system)
                (void) sd_bus_detach_event(s->system);
}

static void held_clear(SystemdUnits *s)
{
        for (size_t i = 0; i < s->n_held; i++)
                free(s->held[i].unit);
        s->n_held = 0;
}

SystemdUnits *systemd_units_free(SystemdUnits *s)
{
        if (!s)
                return NULL;
        sd_event_source_disable_unref(s->resume);
        sd_event_unref(s->resume_event);
        systemd_units_unwatch(s);
        sd_bus_flush_close_unref(s->system);
        for (size_t i = 0; i < s->n_users; i++)
                sd_bus_close_unref(s->users[i].bus);
        free(s->run_dir);
        free(s);
        return NULL;
}

/*
 * Split CGROUP_PATH into the unit (its last component, which must name a
 * unit type with a cgroup) and the uid of the user manager that owns it
 * (the last user@UID.service above it), or UID_INVALID for the system
 * manager. -ENXIO: not a unit's cgroup.
 */
static int cgroup_owner(const char *cgroup_path, const char **ret_unit, UnitType *ret_type,
                        uid_t *ret_uid)
{
        const char *leaf = strrchr(cgroup_path, '/');
        uid_t uid = (uid_t)-1;
        UnitType t;

        leaf = leaf ? leaf + 1 : cgroup_path;
        t = unit_type_from_name(leaf, strlen(leaf));
        if (t < 0)
                return -ENXIO;
        for (const char *p = cgroup_path; p < leaf;) {
                size_t n = strcspn(p, "/");
                unsigned long v;
                int end = 0;

                if (n > 0 && p + n < leaf &&
                    sscanf(p, "user@%lu.service%n", &v, &end) == 1 && (size_t)end == n &&
                    v < (unsigned long)(uid_t)-1)
                        uid = (uid_t)v;
                p += n + (p[n] == '/');
        }
        *ret_unit = leaf;
        *ret_type = t;
        *ret_uid = uid;
        return 0;
}

/* Dispatch what BUS receives until DONE(BUS, USERDATA) is true (1; < 0 an
 * error) or TIMEOUT_USEC passed (-ETIMEDOUT). Every wait on a manager goes
 * through here, so none outlasts its bound. */
static int bus_dispatch_until(sd_bus *bus, int (*done)(sd_bus *bus, void *userdata),
                              void *userdata, uint64_t timeout_usec)
{
        uint64_t end = now_usec(CLOCK_MONOTONIC) + timeout_usec;

        for (;;) {
                uint64_t n;
                int r = done(bus, userdata);

                if (r != 0)
                        return r < 0 ? r : 0;
                r = sd_bus_process(bus, NULL);
                if (r < 0)
                        return r;
                if (r > 0)
                        continue;
                n = now_usec(CLOCK_MONOTONIC);
                if (n >= end)
                        return -ETIMEDOUT;
                r = sd_bus_wait(bus, end - n);
                if (r < 0 && r != -EINTR)
                        return r;
        }
}

/* Dispatch on the system connection holds back the watch's signals
 * (signal_pass()). */
static int system_dispatch_until(SystemdUnits *s, sd_bus *bus,
                                 int (*done)(sd_bus *bus, void *userdata), void *userdata,
                                 uint64_t timeout_usec)
{
        bool system = bus == s->system, was = s->waiting;
        int r;

        s->waiting |= system;
        r = bus_dispatch_until(bus, done, userdata, timeout_usec);
        s->waiting = was;
        return r;
}

/* BUS's authentication has ended. sd-bus bounds it only by its own 90 s,
 * and a stopped manager's socket still accepts the connection: its user
 * could hold latniced that long. */
static int bus_ready(sd_bus *bus, void *userdata)
{
        return sd_bus_is_ready(bus);
}

static int user_bus_open(SystemdUnits *s, uid_t uid, sd_bus **ret)
{
        /* Never flushed: a manager that stopped reading would hold
         * latniced in the flush (every call is answered or timed out, so
         * nothing is left to flush). */
        _cleanup_(sd_bus_close_unrefp) sd_bus *bus = NULL;
        _cleanup_free_ char *sock = NULL, *address = NULL;
        struct stat st;
        int r;

        if (asprintf(&sock, "%s/user/%u/systemd/private", s->run_dir, (unsigned)uid) < 0)
                return -ENOMEM;
        /* Only the user's own manager: a socket there owned by anyone else is not it. */
        if (lstat(sock, &st) < 0)
                return errno == ENOENT ? -ENXIO : -errno;
        if (!S_ISSOCK(st.st_mode) || st.st_uid != uid)
                return -ENXIO;
        if (asprintf(&address, "unix:path=%s", sock) < 0)
                return -ENOMEM;
        r = sd_bus_new(&bus);
        if (r < 0)
                return r;
        r = sd_bus_set_address(bus, address);
        if (r < 0)
                return r;
        r = sd_bus_set_description(bus, "user-manager");
        if (r < 0)
                return r;
        r = sd_bus_start(bus);
        if (r < 0)
                return r;
        r = bus_dispatch_until(bus, bus_ready, NULL, USER_TIMEOUT_USEC);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(bus);
        return 0;
}

static uint64_t manager_timeout(const SystemdUnits *s, uid_t uid)
{
        uint64_t now;

        if (uid != (uid_t)-1)
                return USER_TIMEOUT_USEC;
        if (s->stop_until == 0)
                return SYSTEMD_UNITS_TIMEOUT_USEC;
        now = now_usec(CLOCK_MONOTONIC);
        /* What is left of the stop's time, never less than usual. */
        if (s->stop_until > now + SYSTEMD_UNITS_TIMEOUT_USEC)
                return s->stop_until - now;
        return SYSTEMD_UNITS_TIMEOUT_USEC;
}

void systemd_units_stopping(SystemdUnits *s)
{
        if (s && s->stop_until == 0)
                s->stop_until = now_usec(CLOCK_MONOTONIC) + SYSTEMD_UNITS_STOP_USEC;
}

static int watch_attach(SystemdUnits *s);

/* The connection to the manager of UID (UID_INVALID: the system manager),
 * opened on first use; the system manager's carries the watch, if any. */
static int manager_bus(SystemdUnits *s, uid_t uid, sd_bus **ret)
{
        sd_bus *bus = NULL;
        int r;

        if (uid == (uid_t)-1) {
                if (!s->system) {
                        r = sd_bus_open_system(&s->system);
                        if (r < 0)
                                return r;
                        if (s->event && watch_attach(s) < 0)
                                log_warning("Not watching systemd for new units again after "
                                            "reconnecting: they are found through their "
                                            "processes.");
                }
                bus = s->system;
        } else {
                for (size_t i = 0; i < s->n_users; i++)
                        if (s->users[i].uid == uid) {
                                /* A manager sends its signals to every
                                 * direct connection: drop what came
                                 * meanwhile, or it piles up in the read
                                 * queue until sd-bus refuses more. */
                                while (sd_bus_process(s->users[i].bus, NULL) > 0)
                                        ;
                                *ret = s->users[i].bus;
                                return 0;
                        }
                r = user_bus_open(s, uid, &bus);
                if (r < 0)
                        return r;
                if (s->n_users == USER_BUSES_MAX) {
                        sd_bus_close_unref(s->users[0].bus);
                        memmove(s->users, s->users + 1, sizeof(s->users[0]) * --s->n_users);
                }
                s->users[s->n_users++] = (UserBus) { .uid = uid, .bus = bus };
        }
        r = sd_bus_set_method_call_timeout(bus, manager_timeout(s, uid));
        if (r < 0)
                return r;
        *ret = bus;
        return 0;
}

/* Is the manager of user UID paused at NOW? */
static bool user_paused(SystemdUnits *s, uid_t uid, uint64_t now)
{
        for (size_t i = 0; i < s->n_costs; i++)
                if (s->costs[i].uid == uid)
                        return now < s->costs[i].until;
        return false;
}

/* C's debt at NOW, drained since it was last counted. */
static uint64_t cost_debt(const UserCost *c, uint64_t now)
{
        uint64_t drained = now > c->at ? (now - c->at) / USER_WAIT_SHARE : 0;

        return c->debt > drained ? c->debt - drained : 0;
}

static bool cost_paused(const UserCost *c, uint64_t now)
{
        return now < c->until || c->resume_due;
}

/* Should C make room before O? One not paused before a paused one; of
 * those not paused the one that owes least, of paused ones the one whose
 * pause ends first. */
static bool cost_evict_before(const UserCost *c, const UserCost *o, uint64_t now)
{
        if (cost_paused(c, now) != cost_paused(o, now))
                return !cost_paused(c, now);
        if (cost_paused(c, now))
                return c->until < o->until;
        return cost_debt(c, now) < cost_debt(o, now);
}

/* The cost record of UID, new if needed (when all are taken, see
 * cost_evict_before()). */
static UserCost *cost_of(SystemdUnits *s, uid_t uid, uint64_t now)
{
        UserCost *c;

        for (size_t i = 0; i < s->n_costs; i++)
                if (s->costs[i].uid == uid)
                        return &s->costs[i];
        if (s->n_costs < USER_BUSES_MAX)
                c = &s->costs[s->n_costs++];
        else {
                c = &s->costs[0];
                for (size_t i = 1; i < s->n_costs; i++)
                        if (cost_evict_before(&s->costs[i], c, now))
                                c = &s->costs[i];
        }
        *c = (UserCost){ .uid = uid, .at = now };
        return c;
}

static void resume_arm(SystemdUnits *s);

/* A call to the manager of the unit at CGROUP_PATH began at START and
 * ended with R: if it is a user's, count what it cost, and pause that
 * manager if it ran out of time or owes too much (see USER_WAIT_SHARE). */
static void user_call_done(SystemdUnits *s, const char *cgroup_path, uint64_t start, int r)
{
        uint64_t now = now_usec(CLOCK_MONOTONIC);
        const char *unit;
        UnitType t;
        UserCost *c;
        uid_t uid;

        if (r == -EHOSTDOWN) {
                s->n_refused++;
                return;
        }
        if (cgroup_owner(cgroup_path, &unit, &t, &uid) < 0 || uid == (uid_t)-1)
                return;
        c = cost_of(s, uid, now);
        c->debt = cost_debt(c, now) + (now - start);
        c->at = now;
        if (r != -ETIMEDOUT && c->debt <= USER_WAIT_BURST_USEC)
                return;
        s->n_refused++; /* what was asked is put off until the pause ends */
        if (now >= c->until)
                log_warning("The systemd manager of uid %u %s for %s: no new unit of that user "
                            "is asked about for %u s.",
                            (unsigned)uid,
                            r == -ETIMEDOUT ? "did not answer in time"
                                            : "kept latniced waiting too long in total",
                            unit, (unsigned)(USER_PAUSE_USEC / (1000 * 1000)));
        c->until = now + USER_PAUSE_USEC;
        c->debt = 0;
        c->resume_due = true;
        resume_arm(s);
}

uint64_t systemd_units_refusals(const SystemdUnits *s)
{
        return s ? s->n_refused : 0;
}

/* ---- The end of a pause ------------------------------------------------- */

static int on_resume(sd_event_source *es, uint64_t usec, void *userdata)
{
        SystemdUnits *s = userdata;
        uint64_t now = now_usec(CLOCK_MONOTONIC);
        bool any = false;

        for (size_t i = 0; i < s->n_costs; i++)
                if (s->costs[i].resume_due && s->costs[i].until <= now) {
                        s->costs[i].resume_due = false;
                        any = true;
                }
        resume_arm(s);
        /* Each listener asks again for what it put off; a manager that is
         * paused again meanwhile puts it off again, and its end comes here. */
        for (size_t i = 0; any && i < s->n_listeners; i++)
                s->listeners[i].cb(s->listeners[i].userdata);
        return 0;
}

/* The timer at the end of the pause that ends first and is still to be told. */
static void resume_arm(SystemdUnits *s)
{
        uint64_t when = UINT64_MAX;
        int r;

        if (!s->resume_event)
                return;
        for (size_t i = 0; i < s->n_costs; i++)
                if (s->costs[i].resume_due && s->costs[i].until < when)
                        when = s->costs[i].until;
        if (when == UINT64_MAX) {
                if (s->resume)
                        (void) sd_event_source_set_enabled(s->resume, SD_EVENT_OFF);
                return;
        }
        if (!s->resume) {
                r = sd_event_add_time(s->resume_event, &s->resume, CLOCK_MONOTONIC, when, 0,
                                      on_resume, s);
                if (r >= 0)
                        (void) sd_event_source_set_description(s->resume, "systemd-resume");
        } else {
                r = sd_event_source_set_time(s->resume, when);
                if (r >= 0)
                        r = sd_event_source_set_enabled(s->resume, SD_EVENT_ONESHOT);
        }
        if (r < 0)
                log_warning_errno(r, "Cannot arm the timer at the end of a systemd manager's "
                                     "pause (%m): what it put off waits for the next event.");
}

int systemd_units_on_resume(SystemdUnits *s, sd_event *event, void (*cb)(void *userdata),
                            void *userdata)
{
        if (!s || !event || !cb || (s->resume_event && s->resume_event != event))
                return -EINVAL;
        if (s->n_listeners == RESUME_LISTENERS_MAX)
                return -ENOSPC;
        if (!s->resume_event)
                s->resume_event = sd_event_ref(event);
        s->listeners[s->n_listeners++] = (ResumeListener){ .cb = cb, .userdata = userdata };
        resume_arm(s); /* pauses of before */
        return 0;
}

void systemd_units_on_resume_remove(SystemdUnits *s, void (*cb)(void *userdata), void *userdata)
{
        for (size_t i = 0; s && i < s->n_listeners; i++)
                if (s->listeners[i].cb == cb && s->listeners[i].userdata == userdata) {
                        memmove(s->listeners + i, s->listeners + i + 1,
                                sizeof(s->listeners[0]) * (s->n_listeners - i - 1));
                        s->n_listeners--;
                        return;
                }
}

/* A call failed for a reason other than the manager's answer: start afresh next time. */
static void manager_bus_drop(SystemdUnits *s, uid_t uid)
{
        if (uid == (uid_t)-1) {
                watch_detach(s);
                s->system = sd_bus_flush_close_unref(s->system);
                return;
        }
        for (size_t i = 0; i < s->n_users; i++)
                if (s->users[i].uid == uid) {
                        sd_bus_close_unref(s->users[i].bus);
                        memmove(s->users + i, s->users + i + 1,
                                sizeof(s->users[0]) * (s->n_users - i - 1));
                        s->n_users--;
                        return;
                }
}

/* The manager's object of the unit at CGROUP_PATH, found as LOOKUP says. */
static int unit_lookup(SystemdUnits *s, const char *cgroup_path, SystemdUnitsLookup lookup,
                       sd_bus **ret_bus, uid_t *ret_uid,
                       const char **ret_unit, const char **ret_iface, char **ret_object)
{
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ char *object = NULL, *cg = NULL;
        const char *unit, *path;
        sd_bus *bus;
        UnitType t;
        uid_t uid;
        int r;

        r = cgroup_owner(cgroup_path, &unit, &t, &uid);
        if (r < 0)
                return r;
        if (lookup == SYSTEMD_UNITS_OWNED && uid != (uid_t)-1 &&
            user_paused(s, uid, now_usec(CLOCK_MONOTONIC)))
                return -EHOSTDOWN;
        r = manager_bus(s, uid, &bus);
        if (r < 0)
                return r;
        r = sd_bus_call_method(bus, SD_DEST, SD_PATH, SD_MANAGER,
                               lookup == SYSTEMD_UNITS_OWNED ? "GetUnit" : "LoadUnit", &error,
                               &reply, "s", unit);
        if (r < 0) {
                if (sd_bus_error_has_name(&error, "org.freedesktop.systemd1.NoSuchUnit"))
                        return -ENXIO;
                if (!sd_bus_error_is_set(&error))
                        manager_bus_drop(s, uid);
                return r;
        }
        r = sd_bus_message_read(reply, "o", &path);
        if (r < 0)
                return r;
        object = strdup(path);
        if (!object)
                return -ENOMEM;
        if (lookup == SYSTEMD_UNITS_BY_NAME)
                goto found;
        r = sd_bus_get_property_string(bus, SD_DEST, object, unit_interfaces[t], "ControlGroup",
                                       &error, &cg);
        if (r < 0) {
                if (!sd_bus_error_is_set(&error))
                        manager_bus_drop(s, uid);
                return r;
        }
        if (!streq(cg, cgroup_path))
                return -ENXIO; /* a namesake: not the cgroup this manager gave the unit */
found:
        *ret_bus = bus;
        *ret_uid = uid;
        *ret_unit = unit;
        *ret_iface = unit_interfaces[t];
        *ret_object = TAKE_PTR(object);
        return 0;
}

static int get_weight(SystemdUnits *s, const char *cgroup_path, SystemdUnitsLookup lookup,
                      uint64_t *ret)
{
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *object = NULL;
        const char *unit, *iface;
        uint64_t w;
        sd_bus *bus;
        uid_t uid;
        int r;

        r = unit_lookup(s, cgroup_path, lookup, &bus, &uid, &unit, &iface, &object);
        if (r < 0)
                return r;
        r = sd_bus_get_property_trivial(bus, SD_DEST, object, iface, "CPUWeight", &error, 't', &w);
        if (r < 0) {
                if (!sd_bus_error_is_set(&error))
                        manager_bus_drop(s, uid);
                return r;
        }
        *ret = w;
        return 0;
}

static int set_weight(SystemdUnits *s, const char *cgroup_path, SystemdUnitsLookup lookup,
                      uint64_t weight)
{
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *object = NULL;
        const char *unit, *iface;
        sd_bus *bus;
        uid_t uid;
        int r;

        r = unit_lookup(s, cgroup_path, lookup, &bus, &uid, &unit, &iface, &object);
        if (r < 0)
                return r;
        r = sd_bus_call_method(bus, SD_DEST, SD_PATH, SD_MANAGER, "SetUnitProperties", &error,
                               NULL, "sba(sv)", unit, 1, 1, "CPUWeight", "t", weight);
        if (r < 0) {
                if (sd_bus_error_is_set(&error))
                        log_debug("SetUnitProperties(%s, CPUWeight) failed: %s: %s", unit,
                                  error.name, strna(error.message));
                else
                        manager_bus_drop(s, uid);
                return r;
        }
        return 0;
}

int systemd_units_get_weight(SystemdUnits *s, const char *cgroup_path, SystemdUnitsLookup lookup,
                             uint64_t *ret)
{
        uint64_t start = now_usec(CLOCK_MONOTONIC);
        int r = get_weight(s, cgroup_path, lookup, ret);

        user_call_done(s, cgroup_path, start, r);
        return r;
}

int systemd_units_set_weight(SystemdUnits *s, const char *cgroup_path, SystemdUnitsLookup lookup,
                             uint64_t weight)
{
        uint64_t start = now_usec(CLOCK_MONOTONIC);
        int r = set_weight(s, cgroup_path, lookup, weight);

        user_call_done(s, cgroup_path, start, r);
        return r;
}

int systemd_units_cgroup_owner(const char *cgroup_path, uid_t *ret_uid)
{
        const char *unit;
        UnitType t;
        uid_t uid;
        int r;

        r = cgroup_owner(cgroup_path, &unit, &t, &uid);
        if (r < 0)
                return r;
        *ret_uid = uid;
        return 0;
}

/* The end of one start job, from the manager's JobRemoved signal. */
typedef struct JobWait {
        const char *unit;
        char *job;    /* once the reply named it; before, the unit's name decides */
        char *result; /* "done", "failed", ...: set when it ended */
} JobWait;

static int job_removed(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        JobWait *w = userdata;
        const char *job, *unit, *result;
        uint32_t id;

        if (w->result || sd_bus_message_read(m, "uoss", &id, &job, &unit, &result) < 0)
                return 0;
        if (!streq(unit, w->unit) || (w->job && !streq(job, w->job)))
                return 0;
        w->result = strdup(result);
        return w->result ? 0 : -ENOMEM;
}

/* W's job has ended (its JobRemoved arrived). */
static int job_ended(sd_bus *bus, void *userdata)
{
        const JobWait *w = userdata;

        return w->result != NULL;
}

/* A call to the manager of UID failed with R: the manager's refusal
 * (-EREMOTEIO, *RET_REASON its message) or the connection (dropped). */
static int call_failed(SystemdUnits *s, uid_t uid, const sd_bus_error *error, int r,
                       char **ret_reason)
{
        if (!sd_bus_error_is_set(error)) {
                manager_bus_drop(s, uid);
                return r;
        }
        if (ret_reason)
                *ret_reason = strdup(error->message ?: error->name);
        return -EREMOTEIO;
}

/* The ControlGroup of the scope NAME on BUS. */
static int scope_cgroup(sd_bus *bus, const char *name, sd_bus_error *error, char **ret)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *object;
        int r;

        r = sd_bus_call_method(bus, SD_DEST, SD_PATH, SD_MANAGER, "GetUnit", error, &reply, "s",
                               name);
        if (r < 0)
                return r;
        r = sd_bus_message_read(reply, "o", &object);
        if (r < 0)
                return r;
        return sd_bus_get_property_string(bus, SD_DEST, object, unit_interfaces[UNIT_SCOPE],
                                          "ControlGroup", error, ret);
}

/* UNIT_CGROUP's directory, if it is the slice SLICE's, with NAME: 1 and
 * *RET, 0 if it is not. */
static int scope_cgroup_beside(const char *unit_cgroup, const char *slice, const char *name,
                               char **ret)
{
        const char *end = strrchr(unit_cgroup, '/'), *dir;

        if (!end || end == unit_cgroup)
                return 0;
        for (dir = end; dir > unit_cgroup && dir[-1] != '/';)
                dir--;
        if ((size_t)(end - dir) != strlen(slice) || strncmp(dir, slice, end - dir) != 0)
                return 0;
        return asprintf(ret, "%.*s/%s", (int)(end - unit_cgroup), unit_cgroup, name) < 0 ? -ENOMEM
                                                                                         : 1;
}

/* The scope NAME was made but its start job did not end in time: latniced
 * leaves its group settings out, so the CPUWeight= it was made with must
 * not stay when the job ends later. Unset it without waiting (the manager
 * is slow): the unit exists since StartTransientUnit answered, and the
 * manager takes the calls of one connection in order. */
static void scope_weight_drop(sd_bus *bus, const char *name)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
        int r;

        r = sd_bus_message_new_method_call(bus, &m, SD_DEST, SD_PATH, SD_MANAGER,
                                           "SetUnitProperties");
        if (r >= 0)
                r = sd_bus_message_append(m, "sba(sv)", name, 1, 1, "CPUWeight", "t",
                                          SYSTEMD_WEIGHT_UNSET);
        if (r >= 0)
                r = sd_bus_message_set_expect_reply(m, 0);
        if (r >= 0) /* no flush: a stopped manager would hold latniced */
                r = sd_bus_send(bus, m, NULL);
        if (r < 0)
                log_warning_errno(r, "%s: cannot unset the CPUWeight= it was made with (%m); "
                                     "it stays until the scope ends.", name);
}

static int start_scope(SystemdUnits *s, const SystemdScopeRequest *req, char **ret_cgroup,
                       char **ret_reason)
{
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(sd_bus_slot_unrefp) sd_bus_slot *slot = NULL;
        _cleanup_free_ char *object = NULL, *slice = NULL, *cg = NULL;
        JobWait w = { .unit = req->name };
        const char *unit, *iface, *job;
        sd_bus *bus;
        uid_t uid;
        int r;

        r = unit_lookup(s, req->unit_cgroup, SYSTEMD_UNITS_OWNED, &bus, &uid, &unit, &iface,
                        &object);
        if (r < 0)
                return r;
        /* A service's main process stays: systemd follows the service by
         * it, and would lose track of what it stops. */
        if (streq(iface, unit_interfaces[UNIT_SERVICE])) {
                uint32_t main_pid;

                r = sd_bus_get_property_trivial(bus, SD_DEST, object, iface, "MainPID", &error,
                                                'u', &main_pid);
                if (r < 0)
                        return call_failed(s, uid, &error, r, ret_reason);
                if (main_pid == (uint32_t)req->pid) {
                        if (ret_reason)
                                *ret_reason = strdup("it is the main process of its service");
                        return -EBUSY;
                }
        }
        r = sd_bus_get_property_string(bus, SD_DEST, object, iface, "Slice", &error, &slice);
        if (r < 0)
                return call_failed(s, uid, &error, r, ret_reason);
        /* Before the call, so that a job that ends at once is not missed. A
         * direct connection's messages carry no sender to match. */
        r = sd_bus_match_signal(bus, &slot, sd_bus_is_bus_client(bus) > 0 ? SD_DEST : NULL,
                                SD_PATH, SD_MANAGER, "JobRemoved", job_removed, &w);
        if (r < 0)
                return r;
        r = sd_bus_call_method(bus, SD_DEST, SD_PATH, SD_MANAGER, "StartTransientUnit", &error,
                               &reply, "ssa(sv)a(sa(sv))", req->name, "fail", 5,
                               "Description", "s", req->description, "Slice", "s", slice,
                               "PIDs", "au", 1, (uint32_t)req->pid, "CPUWeight", "t",
                               req->weight, "CollectMode", "s", "inactive-or-failed", 0);
        if (r < 0)
                return call_failed(s, uid, &error, r, ret_reason);
        r = sd_bus_message_read(reply, "o", &job);
        if (r >= 0) {
                w.job = strdup(job);
                r = w.job ? system_dispatch_until(s, bus, job_ended, &w, manager_timeout(s, uid))
                          : -ENOMEM;
        }
        free(w.job);
        if (r >= 0 && !streq(w.result, "done")) {
                if (ret_reason && asprintf(ret_reason, "its start job ended with \"%s\"",
                                           w.result) < 0)
                        *ret_reason = NULL;
                r = -EREMOTEIO;
        } else if (r == -ETIMEDOUT) {
                if (ret_reason)
                        *ret_reason = strdup("its start job did not end in time");
                scope_weight_drop(bus, req->name);
        } else if (r < 0)
                manager_bus_drop(s, uid);
        free(w.result);
        if (r < 0)
                return r;
        /* A unit's cgroup is its slice's, then its name: where the unit
         * asked about sits right in its slice, the scope's is known. */
        r = scope_cgroup_beside(req->unit_cgroup, slice, req->name, &cg);
        if (r < 0)
                return r;
        if (r == 0) {
                r = scope_cgroup(bus, req->name, &error, &cg);
                if (r < 0)
                        return call_failed(s, uid, &error, r, ret_reason);
        }
        *ret_cgroup = TAKE_PTR(cg);
        return 0;
}

int systemd_units_start_scope(SystemdUnits *s, const SystemdScopeRequest *req, char **ret_cgroup,
                              char **ret_reason)
{
        uint64_t start = now_usec(CLOCK_MONOTONIC);
        int r = start_scope(s, req, ret_cgroup, ret_reason);

        user_call_done(s, req->unit_cgroup, start, r);
        return r;
}

/* ---- The watch of the system manager ------------------------------------ */

static int on_deliver(sd_event_source *es, void *userdata)
{
        SystemdUnits *s = userdata;

        (void) sd_event_source_set_enabled(es, SD_EVENT_OFF);
        /* Taken out one by one: a callback may call the manager. */
        while (s->n_held > 0 && s->event) {
                HeldSignal h = s->held[0];

                memmove(s->held, s->held + 1, sizeof(h) * --s->n_held);
                (h.job_done ? s->watch.job_done : s->watch.unit_new)(h.unit, s->watch_userdata);
                free(h.unit);
        }
        return 0;
}

/* Hand UNIT's signal on now, or from the event loop if it came while
 * latniced waits for a job of its own. */
static void signal_pass(SystemdUnits *s, bool job_done, const char *unit)
{
        char *copy;
        int r;

        if (!s->waiting) {
                (job_done ? s->watch.job_done : s->watch.unit_new)(unit, s->watch_userdata);
                return;
        }
        if (s->n_held == HELD_MAX) {
                log_debug("Too many systemd signals while waiting; %s is found through its "
                          "processes.", unit);
                return;
        }
        copy = strdup(unit);
        if (!copy) {
                log_oom();
                return;
        }
        s->held[s->n_held++] = (HeldSignal) { .job_done = job_done, .unit = copy };
        if (!s->deliver) {
                r = sd_event_add_defer(s->event, &s->deliver, on_deliver, s);
                if (r >= 0)
                        (void) sd_event_source_set_description(s->deliver, "systemd-held");
        } else
                r = sd_event_source_set_enabled(s->deliver, SD_EVENT_ONESHOT);
        if (r < 0)
                log_warning_errno(r, "Cannot hand on systemd's signals (%m): new units are "
                                     "found through their processes.");
}

static int on_job_removed(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        const char *unit, *result, *job;
        uint32_t id;
        int r;

        r = sd_bus_message_read(m, "uoss", &id, &job, &unit, &result);
        if (r < 0) {
                log_debug_errno(r, "Malformed JobRemoved signal: %m");
                return 0;
        }
        if (streq(result, "done"))
                signal_pass(userdata, true, unit);
        return 0;
}

static int on_unit_new(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        const char *unit, *path;
        int r;

        r = sd_bus_message_read(m, "so", &unit, &path);
        if (r < 0) {
                log_debug_errno(r, "Malformed UnitNew signal: %m");
                return 0;
        }
        signal_pass(userdata, false, unit);
        return 0;
}

static int on_subscribed(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        const sd_bus_error *e = sd_bus_message_get_error(m);

        if (e)
                log_info("systemd did not accept Subscribe (%s: %s); new units are configured "
                         "when their first process starts",
                         e->name, strna(e->message));
        else
                log_debug("Subscribed to systemd unit signals");
        return 0;
}

/* The watch onto the (open) system connection. */
static int watch_attach(SystemdUnits *s)
{
        int r;

        r = sd_bus_attach_event(s->system, s->event, SD_EVENT_PRIORITY_NORMAL);
        /* Not closed when the event loop exits (sd-bus does that to an
         * attached connection by default): latniced gives units their
         * CPUWeight= back through it after its loop ended. */
        if (r >= 0)
                r = sd_bus_set_close_on_exit(s->system, false);
        if (r >= 0)
                r = sd_bus_match_signal_async(s->system, &s->job_removed, SD_DEST, SD_PATH,
                                              SD_MANAGER, "JobRemoved", on_job_removed, NULL, s);
        if (r >= 0)
                r = sd_bus_match_signal_async(s->system, &s->unit_new, SD_DEST, SD_PATH,
                                              SD_MANAGER, "UnitNew", on_unit_new, NULL, s);
        if (r >= 0)
                r = sd_bus_call_method_async(s->system, &s->subscribe, SD_DEST, SD_PATH,
                                             SD_MANAGER, "Subscribe", on_subscribed, s, NULL);
        if (r < 0)
                watch_detach(s);
        return r;
}

int systemd_units_watch(SystemdUnits *s, sd_event *event, const SystemdUnitsWatch *w,
                        void *userdata)
{
        sd_bus *bus;
        int r;

        if (!event || !w || !w->job_done || !w->unit_new)
                return -EINVAL;
        systemd_units_unwatch(s);
        s->event = event;
        s->watch = *w;
        s->watch_userdata = userdata;
        r = s->system ? watch_attach(s) : manager_bus(s, (uid_t)-1, &bus);
        if (r >= 0 && !s->job_removed)
                r = -ENOTCONN; /* opened, but the watch could not be attached */
        if (r < 0)
                systemd_units_unwatch(s);
        return r;
}

void systemd_units_unwatch(SystemdUnits *s)
{
        watch_detach(s);
        held_clear(s);
        s->deliver = sd_event_source_disable_unref(s->deliver);
        s->event = NULL;
}

int systemd_weight_to_string(uint64_t weight, char **ret)
{
        char *s;

        if (weight == SYSTEMD_WEIGHT_IDLE)
                s = strdup("idle");
        else if (weight == SYSTEMD_WEIGHT_UNSET)
                s = strdup("default");
        else if (asprintf(&s, "%" PRIu64, weight) < 0)
                s = NULL;
        if (!s)
                return -ENOMEM;
        *ret = s;
        return 0;
}

int systemd_weight_from_string(const char *s, uint64_t *ret)
{
        unsigned long long v;
        char *end;

        if (streq(s, "idle")) {
                *ret = SYSTEMD_WEIGHT_IDLE;
                return 0;
        }
        if (streq(s, "default")) {
                *ret = SYSTEMD_WEIGHT_UNSET;
                return 0;
        }
        if (s[0] < '1' || s[0] > '9')
                return -EINVAL;
        errno = 0;
        v = strtoull(s, &end, 10);
        if (errno != 0 || *end != 0 || v > 10000)
                return -EINVAL;
        *ret = v;
        return 0;
}
