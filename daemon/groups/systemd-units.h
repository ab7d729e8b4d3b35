/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SystemdUnits: CPUWeight= of a unit through the systemd manager that owns
 * its cgroup.
 *
 * systemd writes cpu.weight and cpu.idle of every unit cgroup it manages
 * from the unit's CPUWeight= (a weight, "idle", or unset: 100, not idle),
 * and writes them again on `systemctl daemon-reload` and whenever it
 * re-realizes the cgroup. A value written straight into those files lasts
 * only until then. So for a cgroup a systemd manager owns, latniced sets the
 * unit's CPUWeight= as a runtime property (SetUnitProperties, runtime=true:
 * a drop-in in /run that lasts until reboot), and puts the original
 * property back the same way.
 *
 * The manager of a cgroup: the user manager of UID for a cgroup below
 * user@UID.service (not that unit itself), reached as root on its private
 * socket /run/user/UID/systemd/private (root may manage units of a user
 * manager: systemd grants a caller that is root when it is not root
 * itself); the system manager on the system bus otherwise (root's uid is
 * the manager's own). A cgroup is the unit's only if the manager has a unit
 * of that name whose ControlGroup is exactly that path: a cgroup someone
 * created with a unit-like name, or one inside a container's delegated
 * tree, is not, and its files are written directly as before.
 *
 * Calls are synchronous with a short timeout: SYSTEMD_UNITS_TIMEOUT_USEC for
 * the system manager (longer while latniced stops: systemd_units_stopping()),
 * 0.5 s for a user's, whose user can stop it or keep it busy; that bound
 * covers the connection's authentication too. A call that timed out
 * (-ETIMEDOUT) was sent all the same, and the manager may still carry it
 * out: the callers keep a property set that timed out as set, not yet
 * known (group-systemd.h), and settle it at their next look at the unit. latniced's
 * waits for a user's manager are counted: one that did not answer in time,
 * or kept latniced waiting for more than about a tenth of its time (beyond
 * a burst of 2 s), is asked about no new unit for 10 s (-EHOSTDOWN at
 * once): a user's stuck manager costs latniced one timeout per pause. A
 * manager that answers in a few hundred ms on a loaded machine is not
 * paused. What a pause put off is not lost: the callers hear when it ends
 * (systemd_units_on_resume()) and ask again. Giving back what latniced set
 * (SYSTEMD_UNITS_BY_NAME) is still tried meanwhile. A connection that
 * failed is dropped and opened again at the next call.
 */
#pragma once

#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#define SYSTEMD_WEIGHT_IDLE UINT64_C(0)      /* CPUWeight=idle */
#define SYSTEMD_WEIGHT_UNSET UINT64_MAX      /* CPUWeight= (systemd's default) */
#define SYSTEMD_UNITS_TIMEOUT_USEC (2 * 1000 * 1000)
/* The system manager's time for all calls of latniced's stop together
 * (systemd_units_stopping()): within latniced.service's TimeoutStopSec=10s,
 * with room for the rest of the stop. */
#define SYSTEMD_UNITS_STOP_USEC (7 * 1000 * 1000)

typedef struct SystemdUnits SystemdUnits;

/* RUN_DIR: where the managers live ("/run"; tests may point elsewhere).
 * -ENOMEDIUM when PID 1 is not systemd (no RUN_DIR/systemd/system). */
int systemd_units_new(const char *run_dir, SystemdUnits **ret);
SystemdUnits *systemd_units_free(SystemdUnits *s);
static inline void systemd_units_freep(SystemdUnits **s)
{
        if (*s)
                systemd_units_free(*s);
}

typedef enum SystemdUnitsLookup {
        /* The unit whose ControlGroup is exactly CGROUP_PATH. */
        SYSTEMD_UNITS_OWNED,
        /* The unit named like CGROUP_PATH's last component, of the manager
         * that owns that path, loaded if need be, whatever its cgroup is now:
         * for giving back what latniced set when the cgroup is gone (a
         * stopped or restarted unit keeps its runtime properties). */
        SYSTEMD_UNITS_BY_NAME,
} SystemdUnitsLookup;

/*
 * The CPUWeight= property of the unit at CGROUP_PATH (as in /proc/PID/cgroup,
 * relative to the cgroup2 root), found as LOOKUP says: SYSTEMD_WEIGHT_IDLE,
 * 1..10000 or SYSTEMD_WEIGHT_UNSET. -ENXIO: no manager has that unit (write
 * the cgroup's files yourself); other negative errnos: the manager failed.
 */
int systemd_units_get_weight(SystemdUnits *s, const char *cgroup_path, SystemdUnitsLookup lookup,
                             uint64_t *ret);

/* Set it, at runtime. Same errors. */
int systemd_units_set_weight(SystemdUnits *s, const char *cgroup_path, SystemdUnitsLookup lookup,
                             uint64_t weight);

/*
 * The manager that owns the unit at CGROUP_PATH: *RET_UID is the uid of the
 * user manager, or (uid_t)-1 for the system manager. -ENXIO if the path's
 * last component names no unit type with a cgroup. Pure: asks no manager.
 */
int systemd_units_cgroup_owner(const char *cgroup_path, uid_t *ret_uid);

/*
 * latniced is stopping and gives back what it set: from now on a call to
 * the system manager may take what is left of SYSTEMD_UNITS_STOP_USEC from
 * the first call of this (never less than SYSTEMD_UNITS_TIMEOUT_USEC). PID
 * 1 is no user's, and on a loaded machine it can take longer than usual:
 * a give-back that timed out would leave the unit's CPUWeight= behind. A
 * user's manager keeps its short timeout (its user could stall the stop).
 * S may be NULL.
 */
void systemd_units_stopping(SystemdUnits *s);

/* A transient scope for one process (systemd_units_start_scope()). */
typedef struct SystemdScopeRequest {
        const char *unit_cgroup; /* the cgroup of the unit the process is in now */
        const char *name;        /* the scope's unit name, "....scope" */
        const char *description;
        pid_t pid;
        uint64_t weight; /* its CPUWeight= from the start */
} SystemdScopeRequest;

/*
 * Ask the manager that owns the unit at REQ->unit_cgroup (a unit of its own
 * whose ControlGroup is exactly that) for the transient scope REQ->name
 * with REQ->pid (PIDs=; systemd 252 has no PIDFDs=), in that unit's slice,
 * with CPUWeight=REQ->weight, and wait for its start job (JobRemoved, within
 * the manager's timeout). *RET_CGROUP: the scope's ControlGroup.
 * -ENXIO: no manager owns that unit; -EBUSY: REQ->pid is the main process
 * of that unit, a service (never moved); -EREMOTEIO: the manager refused or the
 * job failed, -ETIMEDOUT: no answer in time, -EHOSTDOWN: a user's manager
 * paused (see above); with *RET_REASON (may be NULL)
 * saying why as the manager put it. Whether the process is there is the
 * caller's to check (/proc/PID/cgroup).
 */
int systemd_units_start_scope(SystemdUnits *s, const SystemdScopeRequest *req, char **ret_cgroup,
                              char **ret_reason);

/*
 * How many calls a pause of a user's manager has put off so far: refused
 * at once (-EHOSTDOWN), or the call that started the pause (it ran out of
 * time, or the manager owed too much). A caller that sees it grow across
 * its calls put something off, and asks again when CB is called (S may be
 * NULL: 0).
 */
uint64_t systemd_units_refusals(const SystemdUnits *s);

/*
 * Call CB(USERDATA) from EVENT's loop when a pause of a user's manager has
 * ended (a timer at its end, also for pauses that began before), to ask
 * again for what it put off. One EVENT per S; at most 4 listeners
 * (-ENOSPC). Remove it before USERDATA goes.
 */
int systemd_units_on_resume(SystemdUnits *s, sd_event *event, void (*cb)(void *userdata),
                            void *userdata);
void systemd_units_on_resume_remove(SystemdUnits *s, void (*cb)(void *userdata), void *userdata);

/* What the system manager's unit signals are handed on to (UNIT: the
 * unit's name): a job of UNIT ended with "done" (JobRemoved), UNIT was
 * loaded (UnitNew). */
typedef struct SystemdUnitsWatch {
        void (*job_done)(const char *unit, void *userdata);
        void (*unit_new)(const char *unit, void *userdata);
} SystemdUnitsWatch;

/*
 * Subscribe to the system manager's unit signals on the one system
 * connection, attached to EVENT, and hand them to W (with USERDATA): from
 * the event loop, never from inside another call of this module (a signal
 * that comes while latniced waits for a scope's job is held until the
 * loop runs again). After a failed call the connection is opened again at
 * the next, and the watch with it. Replaces an earlier watch.
 */
int systemd_units_watch(SystemdUnits *s, sd_event *event, const SystemdUnitsWatch *w,
                        void *userdata);
void systemd_units_unwatch(SystemdUnits *s);

/* WEIGHT as text for logs and the state file ("idle", "default", "200"),
 * and back (-EINVAL for anything else). */
int systemd_weight_to_string(uint64_t weight, char **ret);
int systemd_weight_from_string(const char *s, uint64_t *ret);
