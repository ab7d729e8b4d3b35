/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit test for daemon/state/thread-claim.c, the ledger's claim on the
 * attributes of a thread, on states in memory: the original of an
 * attribute is kept from its writer group's first write; only a held
 * attribute whose value is not the expected one is someone else's; giving
 * back writes the originals only over the expected values, hands the
 * changed ones to their new owner and ends the claim on what was asked
 * even when the write fails; an inherited claim has the creator's
 * originals; a dead latniced's claim is taken over per attribute by the
 * ledger's rule. Runs as any user.
 */
#include <errno.h>
#include <sched.h>

#include "daemon/state/thread-claim.h"
#include "lib/settings.h"
#include "test-util.h"

#define B(x) SETTING_BIT(SETTING_##x)

/* The thread's write: what it was asked to put back, and its result. */
typedef struct Writes {
        unsigned n;
        uint32_t mask;
        SchedState orig;
        int fail;
} Writes;

static int record_write(const SchedState *orig, uint32_t mask, void *userdata)
{
        Writes *w = userdata;

        w->n++;
        w->mask = mask;
        w->orig = *orig;
        return w->fail;
}

static const SchedState start = {
        .policy = SCHED_OTHER, .nice = 2, .slice_ns = 3000000, .timer_slack_ns = 50000,
        .util_max = 1024,
};

static void test_take_and_change(void)
{
        ThreadClaim c;
        SchedState now = start;

        thread_claim_init(&c, &start);
        check(thread_claim_held(&c) == 0);
        check(thread_claim_changed(&c, &now, ~0u) == 0);

        /* Nothing held yet: the first write's original is what it has. */
        now.nice = 4;
        now.timer_slack_ns = 70000;
        thread_claim_take_orig(&c, &now, B(NICE) | B(TIMER_SLACK));
        check(c.orig.nice == 4 && c.orig.timer_slack_ns == 70000);
        c.expected = now;
        c.expected.nice = -5;
        thread_claim_wrote(&c, B(NICE));

        /* Its writer group (Policy, Nice, Slice) holds its original already:
         * the slice latniced is about to write keeps it; TimerSlack, not
         * held, takes the value it has now. */
        now.slice_ns = 1000000;
        now.timer_slack_ns = 80000;
        thread_claim_take_orig(&c, &now, B(SLICE) | B(TIMER_SLACK));
        check(c.orig.slice_ns == start.slice_ns && c.orig.timer_slack_ns == 80000);

        /* Only a held attribute that differs from the expected value. */
        now = c.expected;
        check(thread_claim_changed(&c, &now, ~0u) == 0);
        now.timer_slack_ns = 1; /* not held: not latniced's to judge */
        check(thread_claim_changed(&c, &now, ~0u) == 0);
        now.nice = 7;
        check(thread_claim_changed(&c, &now, ~0u) == B(NICE));
        check(thread_claim_changed(&c, &now, B(TIMER_SLACK)) == 0);
        now.nice = c.expected.nice;
        now.policy = SCHED_FIFO; /* left the fair class: every held attribute */
        check(thread_claim_changed(&c, &now, ~0u) == B(NICE));

        thread_claim_drop(&c, B(NICE));
        check(thread_claim_held(&c) == 0);
}

static void test_restore(void)
{
        ThreadClaim c;
        SchedState now;
        Writes w = {};
        uint32_t theirs = 123;

        thread_claim_init(&c, &start);
        c.expected.nice = -5;
        c.expected.timer_slack_ns = 1000;
        thread_claim_wrote(&c, B(NICE) | B(TIMER_SLACK));

        /* Someone else reniced it: the nice is theirs, the slack goes back. */
        now = c.expected;
        now.nice = 10;
        check(thread_claim_restore(&c, &now, ~0u, record_write, &w, &theirs) == 1);
        check(theirs == B(NICE));
        check(w.n == 1 && w.mask == B(TIMER_SLACK) && w.orig.timer_slack_ns == 50000);
        check(thread_claim_held(&c) == 0);

        /* All of it theirs: nothing written, the claim ends. */
        thread_claim_wrote(&c, B(NICE));
        w = (Writes){};
        check(thread_claim_restore(&c, &now, ~0u, record_write, &w, &theirs) == 0);
        check(theirs == B(NICE) && w.n == 0 && thread_claim_held(&c) == 0);

        /* Not compared (NOW NULL), only the attributes asked for; a failed
         * write ends the claim on them too. */
        thread_claim_wrote(&c, B(NICE) | B(TIMER_SLACK));
        w = (Writes){ .fail = -EPERM };
        check(thread_claim_restore(&c, NULL, B(NICE) | B(IO_NICE), record_write, &w, &theirs) ==
              -EPERM);
        check(theirs == 0 && w.n == 1 && w.mask == B(NICE) && w.orig.nice == 2);
        check(thread_claim_held(&c) == B(TIMER_SLACK));

        /* Nothing held of what is asked: nothing written. */
        w = (Writes){};
        check(thread_claim_restore(&c, NULL, B(NICE), record_write, &w, NULL) == 0 && w.n == 0);
}

static void test_inherit(void)
{
        ThreadClaim c, creator;
        SchedState now = start;

        thread_claim_init(&creator, &start);
        creator.orig.nice = 0;
        creator.orig.timer_slack_ns = 50;
        now.nice = -5;
        thread_claim_init(&c, &now);
        thread_claim_inherit(&c, &creator, B(NICE));
        check(thread_claim_held(&c) == B(NICE));
        check(c.orig.nice == 0 && c.orig.timer_slack_ns == start.timer_slack_ns);
        check(c.expected.nice == -5);
}

static void test_adopt(void)
{
        ThreadClaim rec, c;
        SchedState now;

        thread_claim_init(&rec, &start);
        rec.expected.nice = -5;
        rec.expected.timer_slack_ns = 1000;
        rec.expected.util_min = 100;
        thread_claim_wrote(&rec, B(NICE) | B(TIMER_SLACK) | B(UTIL_MIN));

        /* As latniced left it: all of it latniced's. */
        c = rec;
        now = rec.expected;
        now.ioprio = 7; /* not held: not judged */
        check(thread_claim_adopt(&c, &now, 0) == 0);
        check(thread_claim_held(&c) == thread_claim_held(&rec));

        /* Reniced by someone else; a slack put back to its original; the
         * clamp as latniced left it. The claim still holds them all. */
        c = rec;
        now.nice = 3;
        now.timer_slack_ns = start.timer_slack_ns;
        check(thread_claim_adopt(&c, &now, 0) == (B(NICE) | B(TIMER_SLACK)));
        check(thread_claim_held(&c) == thread_claim_held(&rec));
        check(c.expected.nice == -5);

        /* Died between the record and the write of the slice: whatever the
         * thread has is what latniced left, and expected from now on. */
        c = rec;
        now.slice_ns = 700000;
        check(thread_claim_adopt(&c, &now, B(SLICE)) == 0);
        check(thread_claim_held(&c) == (thread_claim_held(&rec) | B(SLICE)));
        check(c.expected.nice == 3 && c.expected.slice_ns == 700000);
        check(c.orig.nice == start.nice && c.orig.slice_ns == start.slice_ns);
}

int main(void)
{
        test_take_and_change();
        test_restore();
        test_inherit();
        test_adopt();
        return test_result();
}
