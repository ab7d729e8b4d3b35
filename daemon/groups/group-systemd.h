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
#include "lib/sched-group.h"

typedef struct GroupSystemd {
        char *unit_path;  /* the cgroup below the cgroup2 root; NULL: not a unit's (files) */
        uint64_t orig;    /* the unit's CPUWeight= before latniced set it */
        uint64_t written; /* what latniced set last */
        bool set;         /* latniced set it */
} GroupSystemd;

void group_systemd_done(GroupSystemd *gs);

/* Is G the cgroup of a unit of a systemd manager (S; CGROUP2_ROOT: the
 * cgroup2 mount)? 1: yes, RET has the path and the property now as its
 * original; 0: no (write the files); negative: the manager failed. */
int group_systemd_find(SystemdUnits *s, const char *cgroup2_root, const SchedGroup *g,
                       GroupSystemd *ret);

/* The CPUWeight= that gives WANT: "idle", or the weight. */
uint64_t group_systemd_weight(const SchedGroupState *want);

/* Set the unit's CPUWeight= for WANT (at runtime). */
int group_systemd_set(SystemdUnits *s, GroupSystemd *gs, const SchedGroupState *want);

/* Is the unit's CPUWeight= still what latniced set? 1 yes, 0 no (someone
 * else set it: theirs), negative: cannot tell. */
int group_systemd_still_ours(SystemdUnits *s, GroupSystemd *gs);

/* Give the unit its original CPUWeight= back if it still has what latniced
 * set (also when the unit was stopped or restarted meanwhile). 1 restored,
 * 0 someone else's, negative errno. */
int group_systemd_restore(SystemdUnits *s, GroupSystemd *gs);

/* The state file's record suffix: " sd=ORIG,WRITTEN" with WRITTEN the
 * property about to be set (empty when not routed), and back. */
int group_systemd_format(const GroupSystemd *gs, uint64_t written, char **ret);
/* Parse the suffix at V (after the file state); 0 and GS untouched if there
 * is none, 1 if parsed, -EINVAL if malformed. */
int group_systemd_parse(const char *v, const char *unit_path, GroupSystemd *gs);
