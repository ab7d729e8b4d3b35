/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Units: per-unit configuration ([Unit GLOB] sections) on the cgroup v2 tree.
 *
 * A systemd unit's cgroup is a directory named exactly like the unit
 * (foo.service, bar.scope, baz.slice, ...) anywhere below the cgroup root,
 * so system units and user units (user@1000.service/app.slice/x.service)
 * are found the same way. For every such directory whose name matches a
 * [Unit] section, the section's settings are written to the cgroup files
 * the kernel offers there:
 *
 *     LatencyNice  -> cpu.latency.nice   (-20..19, latnice kernel patch set)
 *     CPUWeight    -> cpu.weight         (1..10000)
 *     CPUIdle      -> cpu.idle           (0/1)
 *     UtilMin/Max  -> cpu.uclamp.min/max (0..1024 as a percentage, 2 decimals)
 *
 * A setting whose file does not exist in that cgroup (no patch set, cpu
 * controller not enabled there, no CONFIG_UCLAMP_TASK_GROUP) becomes a
 * per-task "fallback" setting that the daemon applies to every task of the
 * unit: LatencyNice and UtilMin/UtilMax as themselves, CPUWeight as the Nice
 * value of the nearest task weight, CPUIdle=yes as Policy=idle. Slice has no
 * cgroup file and is always per task. Where a slice and a unit inside it
 * both fall back, the inner unit's settings win setting by setting.
 *
 * A cgroup that a systemd manager owns as a unit's (daemon/groups/systemd-units.h:
 * the system manager, or a user manager below user@UID.service) does not get
 * cpu.weight and cpu.idle written: systemd would put its own values back on
 * the next `systemctl daemon-reload`. The unit's CPUWeight= is set instead,
 * as a runtime property (CPUIdle=yes as CPUWeight=idle, which wins over a
 * CPUWeight= as cpu.idle does in the kernel), and systemd writes both files;
 * the original property is set again to restore. This needs the real
 * hierarchy (no --cgroup-root) and systemd as PID 1; otherwise, and for
 * cgroups no manager claims, the files are written as below.
 *
 * Every value written is remembered with the value it replaced; a setting
 * that goes away on reload, and everything on units_restore_all(), gets the
 * original back (unless someone else changed the file since, which then
 * stays theirs). A cgroup that vanishes while being configured (ENOENT,
 * ENODEV) is dropped quietly (debug log).
 *
 * Paths of cgroups are given as in /proc/PID/cgroup: "/system.slice/x.service",
 * relative to the cgroup root; "/" is the root itself.
 *
 * What the daemon calls, and when:
 *
 *  1. Start:   units_new(cgroup_root, dry_run, systemd, &u), with
 *              --cgroup-root (or NULL: the cgroup2 mount from
 *              /proc/self/mounts) and the daemon's one SystemdUnits.
 *              After the policy is loaded: units_apply_all(u, policy, &n).
 *              If a system bus is wanted (--bus is not "none"):
 *              units_watch_systemd(u, event, get_policy, manager); failure
 *              only means units are noticed through exec events (log at
 *              info, continue).
 *  2. Reload:  units_apply_all(u, new_policy, &n) once the new policy is in
 *              effect (restores settings that went away, drops vanished
 *              cgroups, configures new matches).
 *  3. Every task the daemon reads (exec, comm, uid/gid change, the initial
 *              scan and rescans), with the task's cgroup path (ProcTask.cgroup):
 *                  if (!units_seen(u, cgroup))
 *                          units_apply_cgroup(u, policy, cgroup);
 *                  Settings base;
 *                  if (unit_task_base(policy, units_cgroup_root(u), cgroup, &base))
 *                          ... merge: base first, then the task's rule
 *                              settings on top (settings_merge(&base, &rule))
 *                              and apply that to every thread of the task.
 *              A task whose cgroup has fallback settings is managed even if
 *              no [Rule] matches it (it is "matched" by its unit; use the
 *              unit name as the rule name in list/explain, e.g.
 *              "unit:pipewire.service"). Forks inherit the attributes; new
 *              threads of a managed process get the same settings.
 *  4. SIGTERM with RestoreOnExit=yes: units_restore_all(u); then units_free(u).
 *              Without RestoreOnExit: units_free(u) only.
 *
 * Nothing polls. The only blocking calls are those to a systemd manager
 * for a unit's CPUWeight= (at most SYSTEMD_UNITS_TIMEOUT_USEC each).
 */
#pragma once

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "lib/settings.h"
#include "policy/policy.h"

typedef struct UnitState UnitState;

typedef struct SystemdUnits SystemdUnits;

/* CGROUP_ROOT: the cgroup2 hierarchy (--cgroup-root), or NULL to use the
 * cgroup2 mount from /proc/self/mounts (-ENOMEDIUM if there is none).
 * DRY_RUN: log what would be written, write nothing. SYSTEMD: the systemd
 * managers (borrowed, outliving U; NULL: no systemd, or a --cgroup-root
 * tree, whose cgroups are nobody's units). */
int units_new(const char *cgroup_root, bool dry_run, SystemdUnits *systemd, UnitState **ret);
UnitState *units_free(UnitState *u);
static inline void units_freep(UnitState **u)
{
        if (*u)
                units_free(*u);
}

/*
 * Keep what latniced writes to cgroup files in F as well (state-file.h;
 * borrowed, NULL: none), so that a latniced that dies gives nothing away:
 * each write is recorded before it is made, and dropped once the original
 * is back. F's [Unit] records of a previous latniced are taken over by the
 * next units_apply_all(): a file that still holds what it wrote gets the
 * record's original (restored if no [Unit] section wants it any more, else
 * kept and restored later as usual); a file that holds anything else, a
 * cgroup that is gone or another cgroup at its path, drop the record.
 * Call before the first units_apply_all(). -ENOMEM.
 */
typedef struct StateFile StateFile;
int units_attach_state(UnitState *u, StateFile *f);

/* The cgroup root in use (borrowed). */
const char *units_cgroup_root(const UnitState *u);

/*
 * Walk the whole tree under the root and configure every unit cgroup that
 * matches a [Unit] section of P; restore what earlier calls wrote for
 * settings (or units) P no longer has; forget cgroups that are gone.
 * RET_N_UNITS (optional): number of unit cgroups configured now.
 * Returns 0, or a negative errno if the root cannot be read at all.
 * Failures on single cgroups are logged and skipped.
 */
int units_apply_all(UnitState *u, const Policy *p, unsigned *ret_n_units);

/* Whether a sched_ext scheduler runs (lib/sched-effect.h): from the next
 * units_apply_all() on, [Unit] settings such a scheduler does not read are
 * not written, and what was written for them is given back. */
void units_set_sched_ext(UnitState *u, bool sched_ext);

/*
 * Configure one cgroup CGROUP_PATH (and every ancestor not seen yet): a
 * cgroup that appeared after the last walk. Already seen ancestors are not
 * touched again. A path that does not exist (any more) is fine: returns 0.
 */
int units_apply_cgroup(UnitState *u, const Policy *p, const char *cgroup_path);

/*
 * Find every cgroup named UNIT under the root that is not configured yet and
 * configure it (used for units systemd reports as started). Cheap when no
 * [Unit] section matches UNIT: no walk then.
 */
int units_apply_unit(UnitState *u, const Policy *p, const char *unit);

/* true if CGROUP_PATH has been examined since the last units_apply_all()
 * (configured or not). A bounded cache: may forget and return false again. */
bool units_seen(UnitState *u, const char *cgroup_path);

/*
 * Settings the daemon must apply per task to a task in CGROUP_PATH, because
 * the cgroup files for them are missing there, merged over every configured
 * ancestor (outermost first). Not a pure lookup: if CGROUP_PATH was not
 * examined yet, it is configured now through units_apply_cgroup(), which
 * writes the [Unit] settings of P to its cgroup files and to those of every
 * ancestor not seen yet (the fallback is what could not be written). Returns
 * false (and leaves *RET untouched) if there is nothing to apply per task.
 * Deciding does not come here: unit_task_base() (policy/unit-base.h) finds
 * the same settings without writing, for the front door (policy/front-door.h).
 */
bool units_task_fallback_cgroup(UnitState *u, const Policy *p, const char *cgroup_path,
                                Settings *ret);

/* The same by unit name (lib/unit-name unit_name_from_cgroup_path()): the
 * fallback of the first configured cgroup named UNIT. Slices around it are
 * not included: prefer units_task_fallback_cgroup() when the cgroup path is
 * known. Writes too: a UNIT not configured yet is configured now through
 * units_apply_unit(). */
bool units_task_fallback(UnitState *u, const Policy *p, const char *unit, Settings *ret);

/* Write back every original value (cgroups that are gone are skipped
 * quietly) and forget them: latniced stops, and the system manager gets
 * longer to answer (systemd_units_stopping()). Returns 0 or the first
 * error. */
int units_restore_all(UnitState *u);

/* Number of unit cgroups currently configured. */
unsigned units_n_configured(const UnitState *u);

/*
 * Subscribe to systemd (org.freedesktop.systemd1.Manager Subscribe, signals
 * JobRemoved and UnitNew) through U's SystemdUnits (systemd_units_watch():
 * its one system connection, attached to EVENT), and configure units as
 * they start. GET_POLICY returns the policy in effect when a signal arrives
 * (never cached here). Returns a negative errno when U has no SystemdUnits
 * (-ENOMEDIUM) or there is no system bus: then new units are noticed
 * through units_seen()/units_apply_cgroup() only.
 */
int units_watch_systemd(UnitState *u, sd_event *event,
                        const Policy *(*get_policy)(void *userdata), void *userdata);

/* ---- For tests ------------------------------------------------------- */

/* Called right before each cgroup file write with the cgroup path and the
 * file name, so a test can remove the cgroup in between. */
void units_set_write_hook(UnitState *u, void (*hook)(const char *cgroup_path, const char *file,
                                                     void *userdata),
                          void *userdata);
/* UTIL (0..1024) as the percentage cpu.uclamp.* takes, "12.50". */
int units_util_to_percent(unsigned util, char **ret);
