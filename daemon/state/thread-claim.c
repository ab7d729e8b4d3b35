/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Owns the ledger's claim on the attributes of a thread: which ones
 * latniced holds, their originals and expected values (thread-claim.h). */
#include "daemon/state/ledger.h"
#include "daemon/state/thread-claim.h"
#include "lib/task-attr.h"
#include "lib/thread-settings.h"

void thread_claim_init(ThreadClaim *c, const SchedState *now)
{
        c->applied_mask = 0;
        c->orig = *now;
        c->expected = *now;
}

uint32_t thread_claim_changed(const ThreadClaim *c, const SchedState *now, uint32_t mask)
{
        mask &= c->applied_mask;
        return mask ? sched_state_changed(now, &c->expected, mask) : 0;
}

void thread_claim_drop(ThreadClaim *c, uint32_t mask)
{
        c->applied_mask &= ~mask;
}

void thread_claim_take_orig(ThreadClaim *c, const SchedState *now, uint32_t mask)
{
        TASK_ATTR_FOREACH(a)
                if ((mask & SETTING_BIT(a->id)) && !(c->applied_mask & a->group))
                        a->take(&c->orig, now);
}

void thread_claim_wrote(ThreadClaim *c, uint32_t mask)
{
        c->applied_mask |= mask;
}

void thread_claim_inherit(ThreadClaim *c, const ThreadClaim *from, uint32_t mask)
{
        sched_state_take(&c->orig, &from->orig, mask);
        c->applied_mask |= mask;
}

int thread_claim_restore(ThreadClaim *c, const SchedState *now, uint32_t mask,
                         thread_claim_write_t write, void *userdata, uint32_t *ret_theirs)
{
        uint32_t theirs;
        int r = 0;

        mask &= c->applied_mask;
        theirs = now ? thread_claim_changed(c, now, mask) : 0;
        if (ret_theirs)
                *ret_theirs = theirs;
        if (mask & ~theirs) {
                r = write(&c->orig, mask & ~theirs, userdata);
                if (r >= 0)
                        r = 1;
        }
        thread_claim_drop(c, mask);
        return r;
}

/* ledger_same_t for one attribute (CTX: its TaskAttr) of two SchedStates. */
static bool attr_same(const void *a, const void *b, const void *ctx)
{
        const TaskAttr *attr = ctx;

        return !attr->changed(a, b);
}

uint32_t thread_claim_adopt(ThreadClaim *c, const SchedState *now, uint32_t pending)
{
        uint32_t lost = 0;

        if (pending) {
                /* Died between the record and the write: what the thread
                 * has is what latniced left. */
                c->applied_mask |= pending;
                c->expected = *now;
        }
        TASK_ATTR_FOREACH(a)
                if ((c->applied_mask & SETTING_BIT(a->id)) &&
                    ledger_recorded_owner(now, &c->expected, NULL, &c->orig, attr_same, a) !=
                            LEDGER_OURS)
                        lost |= SETTING_BIT(a->id);
        return lost;
}
