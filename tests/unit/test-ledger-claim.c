/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit test for daemon/state/ledger-claim.c, on a real state file and a
 * target that is a string in memory: the original is kept from the first
 * write, each write is recorded before it is made with what was written
 * before, a failed write puts the record back (or removes it), a value
 * other than the expected one is someone else's, giving back writes the
 * original only over the expected value and ends the record, and a dead
 * latniced's record is taken over by the ledger's rule; a value latniced's
 * doing put there without a write is settled as expected, and an original
 * that turns out to hold more is kept. Runs as any user.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/state/ledger-claim.h"
#include "lib/macro.h"
#include "test-util.h"

static char dir[] = "/tmp/test-ledger-claim.XXXXXX";
static char path[sizeof(dir) + 16];

/* The target: a value, a write that may be made to fail, and what the
 * state file held when the write came (the record must be there first). */
typedef struct Target {
        char value[64];
        int fail;      /* the next write's error */
        size_t writes;
        StateFile *f;
        size_t used_at_write;
} Target;

static int target_write(const char *value, void *userdata)
{
        Target *t = userdata;

        t->writes++;
        t->used_at_write = state_file_cgroup_n_used(t->f);
        if (t->fail)
                return t->fail;
        snprintf(t->value, sizeof(t->value), "%s", value);
        return 0;
}

static const StateCgroupRecord target_rec = {
        .owner = STATE_CGROUP_UNITS,
        .kind = 2,
        .path = (char *)"/sys/fs/cgroup/test.slice",
        .ino = 42,
};

/* The records of the file as a restarted latniced finds them: F is closed
 * and the file opened again (into *F). */
static size_t reopen(StateFile **f, StateCgroupRecord **recs)
{
        StateFileLoad l = {};
        size_t n = 0;

        state_file_free(*f);
        CHECK(state_file_open(path, f, &l) == 0);
        state_file_load_done(&l);
        CHECK(state_file_cgroup_take(*f, STATE_CGROUP_UNITS, recs, &n) == 0);
        return n;
}

/* Numbers that are the same when equal modulo *CTX (a caller's own idea). */
static bool same_mod(const char *a, const char *b, const void *ctx)
{
        return atoi(a) % *(const int *)ctx == atoi(b) % *(const int *)ctx;
}

static void test_write_record_restore(void)
{
        StateFileLoad l = {};
        StateCgroupRecord *recs = NULL;
        LedgerClaim c = {};
        Target t = { .value = "100" };
        _cleanup_free_ char *orig = NULL;
        int unrec = -1;

        CHECK(state_file_open(path, &t.f, &l) == 0);
        state_file_load_done(&l);

        /* A first write that fails: no claim, no record. */
        t.fail = -EIO;
        check(ledger_claim_write(&c, t.f, &target_rec, t.value, "250", target_write, &t,
                                 &unrec) == -EIO);
        check(unrec == 0);
        check(t.used_at_write == 1); /* recorded before the write */
        check(!ledger_claim_held(&c) && c.slot1 == 0);
        check(state_file_cgroup_n_used(t.f) == 0);

        /* The first write: the original is what was there. */
        t.fail = 0;
        check(ledger_claim_write(&c, t.f, &target_rec, t.value, "250", target_write, &t,
                                 &unrec) == 0);
        check_streq(t.value, "250");
        check(ledger_claim_held(&c));
        check_streq(c.orig, "100");
        check_streq(c.expected, "250");
        check(!ledger_claim_changed(&c, "250", NULL, NULL));
        check(ledger_claim_changed(&c, "100", NULL, NULL));

        /* A second write that fails: the record says what is there. */
        t.fail = -EBUSY;
        check(ledger_claim_write(&c, t.f, &target_rec, t.value, "300", target_write, &t,
                                 NULL) == -EBUSY);
        check_streq(c.orig, "100");
        check_streq(c.expected, "250");
        check(reopen(&t.f, &recs) == 1);
        check_streq(recs[0].orig, "100");
        check_streq(recs[0].written, "250");
        check_streq(recs[0].previous, "");
        check(recs[0].ino == 42 && recs[0].kind == 2);
        check_streq(recs[0].path, target_rec.path);
        c.slot1 = recs[0].slot + 1; /* the reopened file's slot, handed over */
        state_cgroup_records_free(recs, 1);

        /* A second write: the record has what was written before, for a
         * latniced that dies before the write. */
        t.fail = -EINTR;
        check(ledger_claim_write(&c, t.f, &target_rec, t.value, "300", target_write, &t,
                                 NULL) == -EINTR);
        t.fail = 0;
        check(ledger_claim_write(&c, t.f, &target_rec, t.value, "300", target_write, &t,
                                 NULL) == 0);
        check_streq(c.orig, "100");
        check(reopen(&t.f, &recs) == 1);
        check_streq(recs[0].orig, "100");
        check_streq(recs[0].written, "300");
        check_streq(recs[0].previous, "250");
        c.slot1 = recs[0].slot + 1;
        state_cgroup_records_free(recs, 1);

        /* Given back: the original over the expected value. */
        check(ledger_claim_restore(&c, t.f, t.value, NULL, NULL, target_write, &t, &orig) == 1);
        check_streq(t.value, "100");
        check_streq(orig, "100");
        check(!ledger_claim_held(&c) && c.slot1 == 0);
        check(state_file_cgroup_n_used(t.f) == 0);
        check(reopen(&t.f, &recs) == 0);
        free(recs);

        /* Someone else's change is left alone, and the record goes. */
        check(ledger_claim_write(&c, t.f, &target_rec, t.value, "250", target_write, &t,
                                 NULL) == 0);
        snprintf(t.value, sizeof(t.value), "77");
        t.writes = 0;
        check(ledger_claim_changed(&c, t.value, NULL, NULL));
        check(ledger_claim_restore(&c, t.f, t.value, NULL, NULL, target_write, &t, NULL) == 0);
        check(t.writes == 0);
        check_streq(t.value, "77");
        check(!ledger_claim_held(&c) && state_file_cgroup_n_used(t.f) == 0);

        /* A restore that fails ends the claim all the same. */
        check(ledger_claim_write(&c, t.f, &target_rec, t.value, "250", target_write, &t,
                                 NULL) == 0);
        t.fail = -EIO;
        check(ledger_claim_restore(&c, t.f, t.value, NULL, NULL, target_write, &t, NULL) == -EIO);
        check(!ledger_claim_held(&c) && state_file_cgroup_n_used(t.f) == 0);
        t.fail = 0;

        /* A target that cannot be read: nothing written, the claim ends. */
        check(ledger_claim_write(&c, t.f, &target_rec, t.value, "250", target_write, &t,
                                 NULL) == 0);
        t.writes = 0;
        check(ledger_claim_restore(&c, t.f, NULL, NULL, NULL, target_write, &t, NULL) == 0);
        check(t.writes == 0);
        check(!ledger_claim_held(&c) && state_file_cgroup_n_used(t.f) == 0);

        /* A value too long for a record is written, and said unrecorded. */
        check(ledger_claim_write(&c, t.f, &target_rec, t.value,
                                 "0123456789012345678901234567890123", target_write, &t,
                                 &unrec) == 0);
        check(unrec == -EOVERFLOW);
        check(ledger_claim_held(&c) && state_file_cgroup_n_used(t.f) == 0);
        ledger_claim_drop(&c, t.f);

        /* The caller's comparison, with its context. */
        {
                int mod = 100;

                snprintf(t.value, sizeof(t.value), "100");
                check(ledger_claim_write(&c, t.f, &target_rec, t.value, "250", target_write, &t,
                                         NULL) == 0);
                check(!ledger_claim_changed(&c, "350", same_mod, &mod));
                check(ledger_claim_changed(&c, "351", same_mod, &mod));
                check(ledger_claim_restore(&c, t.f, "350", same_mod, &mod, target_write, &t,
                                           NULL) == 1);
                check_streq(t.value, "100");
        }
        state_file_free(t.f);
}

/* A dead latniced's record, taken over by the ledger's rule. */
static void test_adopt(void)
{
        StateCgroupRecord rec = target_rec;
        LedgerClaim c = {};

        rec.slot = 6;
        strcpy(rec.orig, "100");
        strcpy(rec.written, "300");
        strcpy(rec.previous, "250");

        check(ledger_claim_adopt(&c, &rec, "300", NULL, NULL) == LEDGER_OURS);
        check_streq(c.orig, "100");
        check_streq(c.expected, "300");
        check(c.slot1 == 7);
        ledger_claim_done(&c);
        c.slot1 = 0;

        /* died between the record and the write */
        check(ledger_claim_adopt(&c, &rec, "250", NULL, NULL) == LEDGER_OURS);
        check_streq(c.expected, "250");
        ledger_claim_done(&c);
        c.slot1 = 0;

        check(ledger_claim_adopt(&c, &rec, "100", NULL, NULL) == LEDGER_ORIGINAL);
        check(!ledger_claim_held(&c) && c.slot1 == 0);
        check(ledger_claim_adopt(&c, &rec, "42", NULL, NULL) == LEDGER_THEIRS);
        check(!ledger_claim_held(&c) && c.slot1 == 0);

        /* the caller's comparison decides, with its context */
        {
                int mod = 7; /* orig 100: 2, written 300: 6, previous 250: 5 */

                check(ledger_claim_adopt(&c, &rec, "107", same_mod, &mod) == LEDGER_ORIGINAL);
                check(ledger_claim_adopt(&c, &rec, "1000", same_mod, &mod) == LEDGER_OURS);
                check_streq(c.expected, "1000");
                ledger_claim_done(&c);
                c.slot1 = 0;
        }

        /* no previous: "" is nothing, not a value */
        rec.previous[0] = 0;
        check(ledger_claim_adopt(&c, &rec, "", NULL, NULL) == LEDGER_THEIRS);
        check(ledger_claim_adopt(&c, &rec, "250", NULL, NULL) == LEDGER_THEIRS);
}

/* What latniced's doing put in the target without a write of its owner
 * (settled), and an original that turns out to hold more (set_orig). */
static void test_settle_set_orig(void)
{
        StateFileLoad l = {};
        StateCgroupRecord *recs = NULL;
        LedgerClaim c = {};
        Target t = { .value = "100" };
        int unrec = -1;

        CHECK(state_file_open(path, &t.f, &l) == 0);
        state_file_load_done(&l);

        /* Settled first: a claim with that original, expecting that value,
         * recorded, and nothing written. */
        check(ledger_claim_settle(&c, t.f, &target_rec, "100", "250", &unrec) == 0);
        check(unrec == 0);
        check(t.writes == 0);
        check_streq(c.orig, "100");
        check_streq(c.expected, "250");
        check(reopen(&t.f, &recs) == 1);
        check_streq(recs[0].orig, "100");
        check_streq(recs[0].written, "250");
        check_streq(recs[0].previous, "");
        c.slot1 = recs[0].slot + 1;
        state_cgroup_records_free(recs, 1);

        /* Settled while held: the original stays (ORIG is not used), the
         * expected value is the new one, and the record has the old as
         * written before. */
        check(ledger_claim_settle(&c, t.f, &target_rec, "999", "248", NULL) == 0);
        check(t.writes == 0);
        check_streq(c.orig, "100");
        check_streq(c.expected, "248");
        check(!ledger_claim_changed(&c, "248", NULL, NULL));
        check(ledger_claim_changed(&c, "250", NULL, NULL));
        check(reopen(&t.f, &recs) == 1);
        check_streq(recs[0].orig, "100");
        check_streq(recs[0].written, "248");
        check_streq(recs[0].previous, "250");
        c.slot1 = recs[0].slot + 1;
        state_cgroup_records_free(recs, 1);

        /* The original grows: kept, recorded, and what is given back. */
        check(ledger_claim_set_orig(&c, t.f, &target_rec, "100 -3") == 0);
        check_streq(c.orig, "100 -3");
        check_streq(c.expected, "248");
        check(reopen(&t.f, &recs) == 1);
        check_streq(recs[0].orig, "100 -3");
        check_streq(recs[0].written, "248");
        c.slot1 = recs[0].slot + 1;
        state_cgroup_records_free(recs, 1);
        check(ledger_claim_restore(&c, t.f, "248", NULL, NULL, target_write, &t, NULL) == 1);
        check_streq(t.value, "100 -3");
        check(state_file_cgroup_n_used(t.f) == 0);
        state_file_free(t.f);
}

/* A give-back written, its outcome not known (ledger_claim_restore_unknown(),
 * latniced's stop): the claim ends and its record stays as it was, the next
 * latniced's; a known one, or someone else's value, ends it as
 * ledger_claim_restore() does. */
static void test_restore_unknown(void)
{
        StateCgroupRecord *recs = NULL;
        StateFileLoad l = {};
        LedgerClaim c = {};
        Target t = { .value = "100" };
        bool unknown = false;
        uint32_t slot1;

        CHECK(state_file_open(path, &t.f, &l) == 0);
        state_file_load_done(&l);
        check(ledger_claim_write(&c, t.f, &target_rec, t.value, "250", target_write, &t,
                                 NULL) == 0);
        check(ledger_claim_restore_unknown(&c, t.f, t.value, NULL, NULL, target_write, &t,
                                           &unknown, NULL) == 1);
        check(!ledger_claim_held(&c) && state_file_cgroup_n_used(t.f) == 0);

        /* Not known: the record stays, as the claim's last write left it. */
        check(ledger_claim_write(&c, t.f, &target_rec, t.value, "250", target_write, &t,
                                 NULL) == 0);
        unknown = true;
        check(ledger_claim_restore_unknown(&c, t.f, t.value, NULL, NULL, target_write, &t,
                                           &unknown, NULL) == LEDGER_CLAIM_RESTORE_UNKNOWN);
        check_streq(t.value, "100");
        check(!ledger_claim_held(&c) && c.slot1 == 0);
        check(state_file_cgroup_n_used(t.f) == 1);
        CHECK(reopen(&t.f, &recs) == 1);
        check_streq(recs[0].orig, "100");
        check_streq(recs[0].written, "250");
        slot1 = recs[0].slot + 1;
        state_file_cgroup_release(t.f, &slot1);
        state_cgroup_records_free(recs, 1);

        /* Someone else's value: nothing written, the record goes. */
        check(ledger_claim_write(&c, t.f, &target_rec, t.value, "250", target_write, &t,
                                 NULL) == 0);
        snprintf(t.value, sizeof(t.value), "77");
        check(ledger_claim_restore_unknown(&c, t.f, t.value, NULL, NULL, target_write, &t,
                                           &unknown, NULL) == 0);
        check_streq(t.value, "77");
        check(!ledger_claim_held(&c) && state_file_cgroup_n_used(t.f) == 0);
        state_file_free(t.f);
}

int main(void)
{
        CHECK(mkdtemp(dir));
        snprintf(path, sizeof(path), "%s/tasks.state", dir);
        test_write_record_restore();
        test_adopt();
        test_settle_set_orig();
        test_restore_unknown();
        (void)unlink(path);
        (void)rmdir(dir);
        return test_result();
}
