/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Boosts: settings that give a task more than its user could take, and
 * which of them a task may keep.
 *
 * latniced is root and acts for every user; a rule matches on names, command
 * lines and cgroups that users choose. So a boost applies only where its user
 * cannot have steered the match:
 *   - the task's user may take the boost anyway (root, or a nice within its
 *     RLIMIT_NICE), or
 *   - its executable is trusted (lib/trust.h) and the rules still grant the
 *     same value when the task is matched on what its user cannot choose:
 *     names from the executable only (not argv[0], not a comm set with
 *     prctl()), no ancestors, and no cgroup or unit delegated to a user
 *     (below user@UID.service), or
 *   - the value comes from a [Unit] section of a unit that is not delegated
 *     to a user (only root puts processes into system units), or
 *   - the rule that set the value says RequireTrustedExe=no.
 * A real-time grant (Policy=rr|fifo, RealtimePriority=) only ever on the
 * second: a trusted executable whose trusted view the rules grant it.
 * And whatever the above grants but a rule's RequireTrustedExe=no is withheld
 * from a process that is tampered with (lib/tamper.h: traced, or started
 * with LD_PRELOAD, LD_LIBRARY_PATH or LD_AUDIT).
 * Demotions are never withheld.
 *
 * Pure functions: the facts come from lib/trust.h.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "lib/trust.h"
#include "policy/policy.h"

/* The real-time grant S asks for (Policy=rr|fifo and RealtimePriority=):
 * withheld from every unprivileged task unless the rules grant it to the
 * trusted view of a trusted executable (task_snapshot_trusted_view()), the
 * same value; RequireTrustedExe=no and a [Unit]'s base never make it
 * trusted. */
uint32_t settings_rt_mask(const Settings *s);

/*
 * The SETTING_BIT()s of S that are boosts for a user whose lowest nice is
 * NICE_FLOOR: a task attribute whose descriptor calls its value a boost over
 * the defaults (lib/task-attr.c; a Nice below min(0, NICE_FLOOR), a Slice
 * below BASE_SLICE_NS), a group CPUWeight above 100, a group CPULatencyNice
 * < 0. CPUIdle never is (an idle group only yields).
 */
uint32_t settings_boost_mask(const Settings *s, int nice_floor, uint64_t base_slice_ns);

/* Could S be a boost for some user (NICE_FLOOR 20)? Cheap: no facts needed. */
static inline bool settings_may_boost(const Settings *s, uint64_t base_slice_ns)
{
        return settings_boost_mask(s, 20, base_slice_ns) != 0;
}

/* True if CGROUP lies below a user's service manager (user@UID.service),
 * where the user names units and moves processes. NULL: false. */
bool cgroup_is_delegated(const char *cgroup);

/*
 * TASK as its user cannot change it: argv[0] unknown, comm and exe names the
 * basename of the executable (comm cut to 15 bytes, as the kernel does), no
 * cgroup or unit if they are delegated, and a trusted_view, in which every
 * key the registry marks as the user's (KEY_TRUST_USER in policy/keys.c:
 * parent, ancestor) matches nothing. COMM_BUF holds the comm. The thread
 * name and the command line are kept: a trusted executable chose its thread
 * names, and its arguments are read by its own code.
 */
void task_snapshot_trusted_view(const TaskSnapshot *task, TaskSnapshot *ret,
                                char comm_buf[static 16]);

/*
 * Take out of S (task settings: the rules' RES merged over BASE, the [Unit]
 * settings of TASK's unit, which may be NULL) every boost TASK may not
 * have, by the rules above. *RET_WITHHELD gets the SETTING_BIT()s taken
 * out. Returns 0 or -ENOMEM.
 */
int policy_limit_boosts(const Policy *p, const TaskSnapshot *task, const MatchResult *res,
                        const Settings *base, const BoostFacts *f, Settings *s,
                        uint32_t *ret_withheld);

/* The boosts of S that rest on trust (policy_limit_boosts() kept them, and
 * no rule with RequireTrustedExe=no set them): none for a privileged task.
 * Only when there are any are the tamper facts worth reading. */
uint32_t policy_trusted_boosts(const MatchResult *res, const BoostFacts *f, const Settings *s);

/* Take policy_trusted_boosts() out of S when F says the process is tampered
 * with; *RET_WITHHELD gets them. */
void policy_withhold_tampered(const MatchResult *res, const BoostFacts *f, Settings *s,
                              uint32_t *ret_withheld);

/*
 * Boosts WITHHELD (the rules' RES) were withheld from TASK, whose exe is
 * trusted: was it because the rules matched names its user chose (a comm set
 * with prctl(), an argv[0]) and not the exe's own? 1 with *RET = "the
 * executable's name (sleep) differs from the rule's (pipewire, matched as its
 * argv[0])" when the rules grant the withheld values to TASK's own names
 * without its ancestors and delegated cgroup; 0 (*RET NULL) when not;
 * -ENOMEM.
 */
int policy_name_reason(const Policy *p, const TaskSnapshot *task, const MatchResult *res,
                       uint32_t withheld, char **ret);
