/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The group settings of rules (daemon/groups/groups.h) on a cgroup that a systemd
 * manager owns as a unit's: they go through the unit's CPUWeight= property
 * (daemon/groups/systemd-units.h), as [Unit] sections do. systemd writes cpu.weight
 * and cpu.idle of its units from that property, again on every `systemctl
 * daemon-reload`: a value written straight into the files would be undone
 * there, and latniced would take systemd's write for someone else's change.
 *
 * Only cgroup v2 cgroups are routed (systemd's unit cgroups with the cpu
 * controller); v1 hierarchies and autogroups are written as files. The
 * files are still what latniced reads: systemd's writes land there.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "daemon/groups/systemd-units.h"
#include "daemon/state/state-file.h"
#include "lib/sched-group.h"

/* A group's route: through its unit, or its files. */
typedef struct GroupSystemd {
        char *unit_path; /* the cgroup below the cgroup2 root; NULL: not a unit's (files) */
        uint64_t found;  /* the unit's CPUWeight= when latniced found it (before any write) */
} GroupSystemd;

void group_systemd_done(GroupSystemd *gs);

/* Is G the cgroup of a unit of a systemd manager (S; CGROUP2_ROOT: the
 * cgroup2 mount)? 1: yes, RET has the path and the property now; 0: no
 * (write the files); negative: the manager failed. */
int group_systemd_find(SystemdUnits *s, const char *cgroup2_root, const SchedGroup *g,
                       GroupSystemd *ret);

/* The CPUWeight= that gives WANT: "idle", or the weight. */
uint64_t group_systemd_weight(const SchedGroupState *want);

/* The unit at UNIT_PATH's CPUWeight= (found as LOOKUP says) as the
 * ledger's value of it (systemd_weight_to_string()). */
int group_systemd_get(SystemdUnits *s, const char *unit_path, SystemdUnitsLookup lookup,
                      char **ret);

/*
 * The one writer of a unit's CPUWeight= as a ledger claim's value
 * (ledger-claim.h's writer, USERDATA a GroupSystemdWrite): sets the
 * property from VALUE (systemd_weight_to_string()'s) through the unit's
 * manager, found as LOOKUP says. Rule groups (group-ledger.c) and [Unit]
 * sections (units.c) both set CPUWeight= through it.
 *
 * A call the manager did not answer in time (-ETIMEDOUT) was sent: the
 * manager may still apply it. It counts as written, "written, not yet
 * known" (UNKNOWN set): the claim keeps the original and expects VALUE, so
 * the value is given back whatever came of it, and the owner settles it at
 * its next look at the unit: the unit has VALUE (latniced's), or it has
 * not and VALUE is written again. Other errors are failed writes.
 */
typedef struct GroupSystemdWrite {
        SystemdUnits *systemd;
        const char *unit_path; /* the unit's cgroup, below the cgroup2 root */
        SystemdUnitsLookup lookup;
        bool unknown; /* out: the manager did not answer in time */
} GroupSystemdWrite;

int group_systemd_write(const char *value, void *userdata);

/*
 * A latniced before unit property records kept a unit's CPUWeight= in its
 * group's record, as the suffix " sd=ORIG,WRITTEN" of the original (ORIG
 * before latniced set it, WRITTEN what it was about to set). REC such a
 * record: the suffix is cut from it, and *RET_UNIT gets the unit property
 * record it stands for (the same group; its path is the caller's to
 * free). 1 converted; 0 no suffix (REC and
 * *RET_UNIT untouched); -EINVAL malformed; -ENOMEM.
 */
int group_systemd_convert(StateCgroupRecord *rec, StateCgroupRecord *ret_unit);
