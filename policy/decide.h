/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Decision: what one task gets from the policy, as plain data.
 *
 * The one place where "what would latniced do with this task" is answered:
 * latniced's applier calls it for every process and thread it evaluates,
 * and both Explain paths (the D-Bus method and latnicectl explain) call it
 * to say so. It writes nothing; applying the decision is the caller's step.
 *
 *   settings = [Unit] settings of the task's unit (BASE, task part)
 *              + the settings of every matching rule, merged in file order
 *              - every boost the task may not have (policy/boost.h)
 *   group    = the group settings (CPUWeight, CPUIdle) of the matching rules,
 *              for the scheduling group that holds the task
 *              - boosts the task may not have
 */
#pragma once

#include "lib/trust.h"
#include "policy/policy.h"

/* How latniced's boost budget (daemon/apply/budget.h) begins its reason, so that
 * latnicectl explain can tell it from the daemon's other reasons. */
#define BOOST_BUDGET_REASON_PREFIX "over its boost budget"

typedef struct Decision {
        MatchResult match;      /* the rules as matched (settings before BASE and boosts) */
        Settings settings;      /* what the task gets: SETTINGS_TASK_MASK only */
        Settings group;         /* what the group that holds it gets (rules only):
                                 * SETTINGS_GROUP_MASK only */
        const char *rule;       /* the last matching rule, else BASE_RULE; borrowed */
        uint32_t withheld;      /* SETTING_BIT()s of boosts taken out */
        const char *withheld_reason; /* why, when WITHHELD; borrowed from FACTS */
} Decision;

/*
 * Decide for TASK (a process, or one of its threads when task->thread is
 * set). BASE (may be NULL) holds the per-task settings of the task's [Unit]
 * section, named BASE_RULE ("unit:x.service") in listings. FACTS gives the
 * boost facts of the task's process when a boost is at stake (read once,
 * on first use; NULL: every boost is withheld, "no facts"); with
 * FACTS->revoked set every boost is withheld, for that reason. TRACE, if not
 * NULL, gets every rule's verdict (policy_match()).
 * Returns 0, -ESRCH (the process vanished while its facts were read) or
 * -ENOMEM.
 */
int policy_decide(const Policy *p, const TaskSnapshot *task, const Settings *base,
                  const char *base_rule, BoostFactsCache *facts, Decision *ret,
                  MatchTrace *trace);
