/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit names: which systemd units latnice can configure, and the unit a
 * cgroup path belongs to.
 *
 * latnice acts on units through their cgroups (cpu.weight, cpu.latency.nice,
 * ... and the tasks inside), so the unit types it knows are the ones with a
 * cgroup of their own, the types systemd gives a cgroup context:
 *
 *   .service .scope  run processes (the common case)
 *   .socket .mount .swap  run processes too (ExecStartPre=, mount(8),
 *                    swapon(8)), each in the unit's own cgroup
 *   .slice           groups units; its cgroup holds no process itself
 *
 * .target, .timer, .path, .device and .automount never have a cgroup: a
 * [Unit] section or a SetUnit for one could never take effect, so those
 * names are refused rather than accepted and silently unused.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

/* The longest unit name systemd accepts (UNIT_NAME_MAX without the NUL). */
#define UNIT_NAME_MAX 255u

typedef enum UnitType {
        UNIT_SERVICE,
        UNIT_SCOPE,
        UNIT_SLICE,
        UNIT_SOCKET,
        UNIT_MOUNT,
        UNIT_SWAP,
        _UNIT_TYPE_MAX,
        _UNIT_TYPE_INVALID = -EINVAL,
} UnitType;

/*
 * The type of the unit named by the N bytes at NAME (need not be
 * NUL-terminated): one of the suffixes above after at least one byte.
 * _UNIT_TYPE_INVALID for anything else. Only the suffix is looked at: a
 * cgroup directory name from the kernel needs no further check.
 */
UnitType unit_type_from_name(const char *name, size_t n);

/*
 * A unit name from outside (D-Bus, the command line): 1..UNIT_NAME_MAX bytes
 * of [A-Za-z0-9:_.\@-] (systemd's unit name characters) with a suffix of a
 * unit type above. NULL is not one.
 */
bool unit_name_is_valid(const char *name);

/*
 * The unit that owns the cgroup at path CGROUP (as in /proc/PID/cgroup): its
 * deepest component named like a unit of a type above other than .slice (a
 * slice only groups units, a process is never in one itself; the cgroups a
 * unit delegates below itself belong to it). -ENXIO if there is none.
 */
int unit_name_from_cgroup_path(const char *cgroup, char **ret);
