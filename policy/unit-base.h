/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The [Unit] base of a task: the per-task settings a process gets from the
 * [Unit] sections that match its cgroup and the cgroups around it.
 *
 * A [Unit] setting goes to a cgroup file where the cgroup has one (latniced
 * writes it there, daemon/groups/units.c), and per task where it has not:
 *
 *     LatencyNice  cpu.latency.nice   per task: LatencyNice
 *     CPUWeight    cpu.weight         per task: the Nice of the nearest task weight
 *     CPUIdle      cpu.idle           per task: Policy=idle (CPUIdle=no: nothing)
 *     UtilMin/Max  cpu.uclamp.min/max per task: UtilMin/UtilMax
 *     Slice        (no file)          always per task
 *
 * So the base is a pure function of the policy, the cgroup's path and which
 * of these files exist under the cgroup root; the root is a parameter, so
 * tests point it at a tree of their own. Where a slice and a unit inside it
 * both fall back, the inner unit's settings win setting by setting: what an
 * inner unit sets itself (in a file or per task) is not inherited.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "lib/settings.h"
#include "policy/policy.h"

typedef enum UnitKnob {
        UNIT_KNOB_LATENCY_NICE,
        UNIT_KNOB_WEIGHT,
        UNIT_KNOB_IDLE,
        UNIT_KNOB_UCLAMP_MIN,
        UNIT_KNOB_UCLAMP_MAX,
        _UNIT_KNOB_MAX,
} UnitKnob;

/* Each knob's cgroup file and the [Unit] setting it holds. */
typedef struct UnitKnobInfo {
        const char *file;
        SettingId id;
} UnitKnobInfo;

extern const UnitKnobInfo unit_knobs[_UNIT_KNOB_MAX];

/* The per-task form of knob K's setting in S, added to FALLBACK. */
void unit_knob_fallback(UnitKnob k, const Settings *s, Settings *fallback);

/* The SETTING_BIT()s of per-task settings that stand for the [Unit]
 * settings of S (whether they went to files or not). */
uint32_t unit_task_mask(const Settings *s);

/*
 * The per-task settings of a process in CGROUP_PATH (as in /proc/PID/cgroup,
 * "/system.slice/x.service"), under the cgroup2 tree at CGROUP_ROOT, for the
 * [Unit] sections of P: every unit-named cgroup on the path, outermost first,
 * contributes the settings whose file it lacks. Reads only whether files
 * exist; writes nothing. Returns true with *RET filled, or false (*RET
 * untouched) when there is nothing to apply per task (also for a NULL
 * argument or a path that is not a cgroup path).
 */
bool unit_task_base(const Policy *p, const char *cgroup_root, const char *cgroup_path,
                    Settings *ret);
