/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>

#include "lib/core-sched.h"
#include "lib/macro.h"
#include "policy/boost.h"
#include "policy/decide.h"

static const char *withheld_reason(const BoostFacts *f, bool tampered)
{
        if (!f)
                return "its executable could not be checked";
        if (tampered)
                return f->tamper_reason ? f->tamper_reason : "it is tampered with";
        if (!f->exe_trusted)
                return f->reason ? f->reason : "its executable is not trusted";
        if (f->name_reason)
                return f->name_reason;
        return "the boosting rule matches only on what its user chose (argv[0], comm, "
               "ancestors, the environment, or a unit of the user's own service manager)";
}

/* Take every boost out of S that a revoked process (FACTS->revoked) still has. */
static void withhold_revoked(const BoostFactsCache *facts, const BoostFacts *f, Settings *s,
                             Decision *d)
{
        uint32_t boosts;

        if (!facts || !facts->revoked || !f || f->privileged)
                return;
        boosts = settings_boost_mask(s, f->nice_floor, f->base_slice_ns);
        if (boosts == 0)
                return;
        s->mask &= ~boosts;
        d->withheld |= boosts;
        d->withheld_reason = facts->revoked;
}

/* Boosts: policy_limit_boosts(), then, if some boost still rests on trust,
 * the tamper facts (read only then). */
static int decide_boosts(const Policy *p, const TaskSnapshot *task, const Settings *base,
                         BoostFactsCache *facts, Decision *d, Settings *s)
{
        BoostFacts fallback = { .nice_floor = 20, .base_slice_ns = UINT64_MAX };
        const BoostFacts *f = &fallback; /* no facts: every slice counts */
        uint32_t tampered = 0;
        int r;

        if (facts) {
                r = boost_facts_get(facts, &f);
                if (r < 0)
                        return r;
        }
        r = policy_limit_boosts(p, task, &d->match, base, f, s, &d->withheld);
        if (r < 0)
                return r;
        if (facts && policy_trusted_boosts(&d->match, f, s) != 0) {
                r = boost_facts_get_tamper(facts, &f);
                if (r < 0)
                        return r;
                policy_withhold_tampered(&d->match, f, s, &tampered);
        }
        if (facts && f->exe_trusted && d->withheld && !tampered) {
                free(facts->facts.name_reason);
                r = policy_name_reason(p, task, &d->match, d->withheld,
                                       &facts->facts.name_reason);
                if (r < 0)
                        return r;
        }
        d->withheld |= tampered;
        if (d->withheld)
                d->withheld_reason = withheld_reason(facts ? f : NULL, tampered != 0);
        withhold_revoked(facts, f, s, d);
        return 0;
}

int policy_decide(const Policy *p, const TaskSnapshot *task, const Settings *base,
                  const char *base_rule, BoostFactsCache *facts, Decision *ret,
                  MatchTrace *trace)
{
        Decision d = {};
        Settings s = {};
        int r;

        r = policy_match(p, task, &d.match, trace);
        if (r < 0)
                return r;
        if (base) {
                s = *base;
                s.mask &= SETTINGS_TASK_MASK;
        }
        if (d.match.n_matched > 0)
                settings_merge(&s, &d.match.settings);
        s.mask &= SETTINGS_RULE_MASK;
        if (settings_has(&s, SETTING_CORE_SCHED))
                core_sched_for_pod(&s.core_sched, task->pod);
        d.rule = d.match.rule ? d.match.rule : s.mask ? base_rule : NULL;

        /* Boosts: only now, and only if one is at stake, read the facts. */
        if (settings_may_boost(&s, UINT64_MAX)) {
                r = decide_boosts(p, task, base, facts, &d, &s);
                if (r < 0)
                        return r;
        }
        d.settings = s;
        d.settings.mask &= SETTINGS_TASK_MASK;
        d.group = s;
        d.group.mask &= SETTINGS_GROUP_MASK;
        *ret = d;
        return 0;
}
