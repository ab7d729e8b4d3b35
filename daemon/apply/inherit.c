/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "daemon/apply/inherit.h"
#include "lib/task-attr.h"
#include "lib/thread-settings.h"
#include "policy/boost.h"

bool task_boosted(const Task *t, uint64_t base_slice_ns)
{
        Settings s = t->settings;

        s.mask &= thread_claim_held(&t->claim);
        return s.mask != 0 &&
               settings_boost_mask(&s, 20, base_slice_ns ?: sched_base_slice()) != 0;
}

void inherit_source_init(InheritSource *ret, const Task *t, bool process,
                         uint64_t base_slice_ns)
{
        *ret = (InheritSource){
                .claim = t->claim,
                .base_slice_ns = base_slice_ns,
                .rule = t->rule,
        };
        if (!process || t->tid != t->pid)
                thread_claim_drop(&ret->claim, task_attr_process_mask());
}

uint32_t inherit_mask(const InheritSource *src, const SchedState *now)
{
        ThreadClaim forked = src->claim;
        uint32_t held = thread_claim_held(&src->claim);

        if (held == 0)
                return 0;
        /* As latniced left the creator, or as the kernel made that at the
         * clone: the creator's claim, or its claim on the clone. */
        sched_state_forked(&src->claim.expected, src->base_slice_ns, &forked.expected);
        return held & ~(thread_claim_changed(&src->claim, now, held) &
                        thread_claim_changed(&forked, now, held));
}

uint32_t inherit_foreign(const InheritSource *src, const SchedState *now)
{
        return thread_claim_held(&src->claim) & ~inherit_mask(src, now) &
               sched_state_changed(now, &src->claim.orig, thread_claim_held(&src->claim));
}
