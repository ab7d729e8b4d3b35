/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit test for daemon/state/state-file.c and daemon/state/adopt.c: records survive a
 * reopen, a write torn by SIGKILL reads as the previous version, unusable
 * files are set aside, and adoption against fake start times keeps the
 * living task, drops the exited one and the reused tid. Cgroup records
 * (cgroup files latniced writes), in the same table, the same: through growths,
 * handed to its owner, torn writes. A file or directory others could write
 * is refused; a file truncated, removed or replaced under latniced is put
 * back whole at the next write; on a full filesystem growth fails cleanly.
 * Version 3: every attribute (CPUAffinity= too) survives, an attribute or
 * a record of a kind a newer latniced wrote is skipped, not misread, and a
 * version 2 file written by the version 2 code is converted once.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "daemon/state/adopt.h"
#include "daemon/state/state-attr.h"
#include "daemon/state/state-copy.h"
#include "daemon/state/state-file.h"
#include "daemon/apply/tasks.h"
#include "lib/macro.h"
#include "lib/sched.h"
#include "test-util.h"

/* The file layout (state-file.c, version 3): a 64-byte header, then records
 * of two 1024-byte copies; a copy's body starts at byte 16 of it, its
 * checksum is its last 8 bytes. */
#define HEADER_SIZE 64
#define COPY_SIZE 1024
#define RECORD_SIZE (2 * COPY_SIZE)
#define BODY 16

static char dir[] = "/tmp/test-state-file.XXXXXX";

/* Every field derived from K, so a record mixing two writes is visible. */
static StateRecord rec_of(uint32_t slot, uint32_t k)
{
        StateRecord r = {
                .slot = slot,
                .pid = (pid_t)(1000 + k),
                .tid = (pid_t)(2000 + k),
                .starttime = 3000 + k,
                .user_owned = k % 2,
                .claim.applied_mask =
                        SETTING_BIT(SETTING_NICE) | (k % 3 ? SETTING_BIT(SETTING_TIMER_SLACK) : 0),
                .pending_mask = k % 5 ? 0 : SETTING_BIT(SETTING_POLICY),
                .settings = { .mask = SETTING_BIT(SETTING_NICE) | SETTINGS_IO_MASK |
                                      SETTING_BIT(SETTING_OOM_SCORE_ADJ),
                              .nice = (int32_t)(k % 40) - 20, .io_class = 1 + (int32_t)(k % 3),
                              .io_nice = (int32_t)(k % 8), .oom_score_adj = -(int32_t)(k % 1001) },
                .claim.orig = { .policy = 0, .nice = (int)(k % 20), .timer_slack_ns = 50000 + k,
                          .slice_ns = 700000 + k, .oom_score_adj = (int)(k % 1001),
                          .ioprio = (int)((k % 4) << 13 | (k % 8)) },
                .claim.expected = { .policy = 3, .nice = -(int)(k % 20), .timer_slack_ns = 1000 + k,
                              .util_max = k % 1024, .oom_score_adj = -(int)(k % 1001),
                              .ioprio = (int)(3 << 13) },
        };

        if (k % 4) {
                r.settings.mask |= SETTING_BIT(SETTING_CORE_SCHED);
                r.settings.core_sched.mode = (int32_t)(k % 4) - 1;
                r.settings.core_sched.group = k % 4 == 3 ? UINT64_C(0x9e3779b97f4a7c15) * k : 0;
                r.claim.expected.core_cookie = UINT64_C(0xc0c1e00000000) + k;
        }
        return r;
}

static bool rec_is(const StateRecord *r, uint32_t k)
{
        StateRecord c = rec_of(r->slot, k);

        /* CoreSched: the setting (its group too) and both cookies. */
        if (r->settings.core_sched.mode != c.settings.core_sched.mode ||
            r->settings.core_sched.group != c.settings.core_sched.group ||
            r->claim.orig.core_cookie != c.claim.orig.core_cookie ||
            r->claim.expected.core_cookie != c.claim.expected.core_cookie)
                return false;
        StateRecord w = rec_of(r->slot, k);

        return r->pid == w.pid && r->tid == w.tid && r->starttime == w.starttime &&
               r->user_owned == w.user_owned && r->claim.applied_mask == w.claim.applied_mask &&
               r->pending_mask == w.pending_mask && r->settings.mask == w.settings.mask &&
               r->settings.nice == w.settings.nice && r->claim.orig.nice == w.claim.orig.nice &&
               r->claim.orig.timer_slack_ns == w.claim.orig.timer_slack_ns &&
               r->claim.orig.slice_ns == w.claim.orig.slice_ns &&
               r->claim.expected.policy == w.claim.expected.policy &&
               r->claim.expected.nice == w.claim.expected.nice &&
               r->claim.expected.timer_slack_ns == w.claim.expected.timer_slack_ns &&
               r->claim.expected.util_max == w.claim.expected.util_max &&
               r->settings.io_class == w.settings.io_class &&
               r->settings.io_nice == w.settings.io_nice &&
               r->settings.oom_score_adj == w.settings.oom_score_adj &&
               r->claim.orig.ioprio == w.claim.orig.ioprio &&
               r->claim.orig.oom_score_adj == w.claim.orig.oom_score_adj &&
               r->claim.expected.ioprio == w.claim.expected.ioprio &&
               r->claim.expected.oom_score_adj == w.claim.expected.oom_score_adj;
}

static char *path_in(const char *name)
{
        char *p;

        CHECK(asprintf(&p, "%s/%s", dir, name) >= 0);
        return p;
}

static void test_roundtrip(void)
{
        _cleanup_free_ char *path = path_in("roundtrip");
        StateFileLoad l = {};
        StateFile *f = NULL, *g = NULL;
        uint32_t slot;

        CHECK(state_file_open(path, &f, &l) == 0);
        check(l.created && l.generation == 1 && l.n_records == 0 && !l.problem);
        state_file_load_done(&l);
        /* 600 records: the file grows past its 64, three times */
        for (uint32_t k = 0; k < 600; k++) {
                StateRecord r;
                CHECK(state_file_alloc(f, &slot) == 0);
                check(slot == k);
                r = rec_of(slot, k);
                state_file_put(f, &r);
        }
        state_file_release(f, 7);
        check(state_file_n_used(f) == 599);
        /* a second open is refused while this one holds the file */
        check(state_file_open(path, &g, &l) == -EBUSY);
        f = state_file_free(f);

        CHECK(state_file_open(path, &f, &l) == 0);
        check(!l.created && l.generation == 2 && !l.problem && l.n_torn == 0);
        check(l.n_records == 599);
        for (size_t i = 0; i < l.n_records; i++) {
                check(l.records[i].slot != 7);
                check(rec_is(&l.records[i], l.records[i].slot));
        }
        /* the released slot is the first one given out again */
        check(state_file_alloc(f, &slot) == 0 && slot == 7);
        state_file_load_done(&l);
        state_file_free(f);
}

/* A write torn in the middle (as SIGKILL would leave it): the copy being
 * written has new bytes and an old checksum. Slot 0's third write (to copy
 * 0) and slot 1's second write (to copy 1) are torn. */
static void test_torn_bytes(void)
{
        _cleanup_free_ char *path = path_in("torn");
        StateFileLoad l = {};
        StateFile *f = NULL;
        StateRecord r;
        uint32_t slot;
        int fd;

        CHECK(state_file_open(path, &f, &l) == 0);
        state_file_load_done(&l);
        for (uint32_t i = 0; i < 2; i++) {
                CHECK(state_file_alloc(f, &slot) == 0 && slot == i);
                r = rec_of(slot, 10 * i + 1);
                state_file_put(f, &r); /* copy 0 */
                r = rec_of(slot, 10 * i + 2);
                state_file_put(f, &r); /* copy 1 */
        }
        f = state_file_free(f);

        fd = open(path, O_RDWR | O_CLOEXEC);
        CHECK(fd >= 0);
        CHECK(pwrite(fd, "\x99\x99\x99\x99", 4, HEADER_SIZE + 20) == 4);
        CHECK(pwrite(fd, "\x77", 1, HEADER_SIZE + RECORD_SIZE + COPY_SIZE + 30) == 1);
        CHECK(state_file_open(path, &f, &l) == 0);
        check(l.n_records == 2 && l.n_torn == 2 && l.n_corrupt == 0 && !l.problem);
        for (size_t i = 0; i < l.n_records; i++)
                check(rec_is(&l.records[i], l.records[i].slot == 0 ? 2 : 11));
        state_file_load_done(&l);
        f = state_file_free(f);

        /* both copies bad cannot come from a crash: corrupt */
        CHECK(pwrite(fd, "\x55", 1, HEADER_SIZE + COPY_SIZE + 30) == 1);
        CHECK(state_file_open(path, &f, &l) == 0);
        check(l.n_records == 1 && l.n_corrupt == 1 && l.problem && l.set_aside);
        state_file_load_done(&l);
        f = state_file_free(f);
        close(fd);
}

/* SIGKILL a writer at random points: every record reads back as one of the
 * versions written, never a mix. */
static void test_torn_kill(void)
{
        _cleanup_free_ char *path = path_in("kill");
        size_t torn = 0;

        srand((unsigned)time(NULL));
        for (int round = 0; round < 60; round++) {
                StateFileLoad l = {};
                StateFile *f = NULL;
                struct timespec ts = { 0, (rand() % 3000) * 1000L };
                int ready[2];
                char c;
                pid_t child;

                /* Killed while it opens the file (header and set-aside) is
                 * not what this tests: the kill comes once the writer runs. */
                CHECK(pipe(ready) == 0);
                child = fork();
                CHECK(child >= 0);
                if (child == 0) {
                        StateFileLoad cl = {};
                        uint32_t slot;

                        close(ready[0]);
                        if (state_file_open(path, &f, &cl) < 0)
                                _exit(1);
                        (void)!write(ready[1], "r", 1);
                        for (uint32_t k = 1;; k++) {
                                StateRecord r;
                                if (state_file_alloc(f, &slot) < 0)
                                        _exit(1);
                                r = rec_of(slot, k);
                                state_file_put(f, &r);
                                if (k % 8 == 0)
                                        for (uint32_t s = 0; s < 8; s++)
                                                state_file_release(f, slot - s);
                        }
                }
                close(ready[1]);
                CHECK(read(ready[0], &c, 1) == 1);
                close(ready[0]);
                nanosleep(&ts, NULL);
                kill(child, SIGKILL);
                CHECK(waitpid(child, NULL, 0) == child);

                CHECK(state_file_open(path, &f, &l) == 0);
                check(!l.problem && l.n_corrupt == 0);
                torn += l.n_torn;
                for (size_t i = 0; i < l.n_records; i++)
                        check(rec_is(&l.records[i], (uint32_t)(l.records[i].pid - 1000)));
                state_file_load_done(&l);
                state_file_free(f);
        }
        printf("torn records found after SIGKILL: %zu\n", torn);
}

static void write_file(const char *path, const void *data, size_t n)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

        CHECK(fd >= 0);
        CHECK(write(fd, data, n) == (ssize_t)n);
        close(fd);
}

/* NAME opens with WANT_PROBLEM reported, set aside, N_SALVAGED records
 * from it used in the new file. */
static void expect_salvaged(const char *name, const char *want_problem, size_t n_salvaged)
{
        _cleanup_free_ char *path = path_in(name), *aside = NULL;
        StateFileLoad l = {};
        StateFile *f = NULL;
        StateRecord r = rec_of(0, 1);
        uint32_t slot;

        CHECK(state_file_open(path, &f, &l) == 0);
        if (!l.problem || !strstr(l.problem, want_problem))
                test_fail("%s: problem [%s], want [%s]", name, strna(l.problem), want_problem);
        CHECK(asprintf(&aside, "%s.corrupt", path) >= 0);
        check_streq(l.set_aside, aside);
        check(access(aside, F_OK) == 0);
        check(l.created && l.n_records == n_salvaged);
        /* and the new one works */
        check(state_file_alloc(f, &slot) == 0);
        r.slot = slot;
        state_file_put(f, &r);
        state_file_load_done(&l);
        f = state_file_free(f);
        CHECK(state_file_open(path, &f, &l) == 0);
        check(!l.problem && l.n_records == n_salvaged + 1);
        state_file_load_done(&l);
        state_file_free(f);
}

static void expect_set_aside(const char *name, const char *want_problem)
{
        expect_salvaged(name, want_problem, 0);
}

static void test_corrupt(void)
{
        _cleanup_free_ char *garbage = path_in("garbage"), *trunc = path_in("truncated"),
                            *version = path_in("version"), *shorter = path_in("short"),
                            *fifo = path_in("fifo");
        char buf[4096];
        StateFileLoad l = {};
        StateFile *f = NULL;
        uint32_t slot;
        StateRecord r;
        int fd;

        for (size_t i = 0; i < sizeof(buf); i++)
                buf[i] = (char)(i * 7 + 3);
        write_file(garbage, buf, sizeof(buf));
        expect_set_aside("garbage", "bad magic");

        write_file(shorter, "LNSTATE", 7);
        expect_set_aside("short", "truncated");

        /* a valid file cut in the middle of its records */
        CHECK(state_file_open(trunc, &f, &l) == 0);
        state_file_load_done(&l);
        CHECK(state_file_alloc(f, &slot) == 0);
        r = rec_of(slot, 3);
        state_file_put(f, &r);
        f = state_file_free(f);
        CHECK(truncate(trunc, HEADER_SIZE + 10 * RECORD_SIZE) == 0);
        expect_salvaged("truncated", "truncated at byte 20544", 1);

        /* another version */
        CHECK(state_file_open(version, &f, &l) == 0);
        state_file_load_done(&l);
        f = state_file_free(f);
        fd = open(version, O_RDWR | O_CLOEXEC);
        CHECK(fd >= 0);
        CHECK(pwrite(fd, &(uint32_t){ 99 }, 4, 8) == 4);
        close(fd);
        expect_set_aside("version", "version 99");

        CHECK(mkfifo(fifo, 0600) == 0);
        expect_set_aside("fifo", "not a regular file");
}

/* Record corruption inside a good file: that record goes, the others stay. */
static void test_corrupt_record(void)
{
        _cleanup_free_ char *path = path_in("badrecord");
        StateFileLoad l = {};
        StateFile *f = NULL;
        StateRecord r;
        uint32_t slot;
        int fd;

        CHECK(state_file_open(path, &f, &l) == 0);
        state_file_load_done(&l);
        for (uint32_t k = 0; k < 3; k++) {
                CHECK(state_file_alloc(f, &slot) == 0);
                r = rec_of(slot, k);
                state_file_put(f, &r);
                state_file_put(f, &(StateRecord){ .slot = slot, .pid = 1, .tid = 1 });
                r = rec_of(slot, k);
                state_file_put(f, &r);
        }
        f = state_file_free(f);
        fd = open(path, O_RDWR | O_CLOEXEC);
        CHECK(fd >= 0);
        CHECK(pwrite(fd, "xx", 2, HEADER_SIZE + RECORD_SIZE + 40) == 2);
        CHECK(pwrite(fd, "yy", 2, HEADER_SIZE + RECORD_SIZE + COPY_SIZE + 40) == 2);
        close(fd);

        CHECK(state_file_open(path, &f, &l) == 0);
        check(l.n_corrupt == 1 && l.n_records == 2 && l.problem && l.set_aside);
        for (size_t i = 0; i < l.n_records; i++)
                check(l.records[i].slot != 1 && rec_is(&l.records[i], l.records[i].slot));
        state_file_load_done(&l);
        f = state_file_free(f);
        /* cleared: the next open finds nothing wrong */
        CHECK(state_file_open(path, &f, &l) == 0);
        check(l.n_corrupt == 0 && !l.problem && l.n_records == 2);
        state_file_load_done(&l);
        state_file_free(f);
}

/* A real-time thread after a crash: latniced's own grant (Policy held, the
 * policy and priority read back after it) is latniced's to give back; real
 * time by anyone else's doing, or a grant latniced was writing when the
 * thread made itself real-time otherwise, is theirs, whole. */
static void test_adopt_rt(const StateRecord *base)
{
        const uint32_t rt = SETTING_BIT(SETTING_POLICY) | SETTING_BIT(SETTING_REALTIME_PRIORITY);
        StateRecord rec = *base, e;
        SchedState now;
        uint32_t changed;

        rec.claim.applied_mask = rt | SETTING_BIT(SETTING_TIMER_SLACK);
        rec.pending_mask = 0;
        rec.settings.mask = rt;
        rec.settings.policy = SCHED_RR;
        rec.settings.rt_priority = 50;
        rec.claim.expected.policy = SCHED_RR;
        rec.claim.expected.priority = 20;
        rec.claim.expected.nice = 0;

        /* its grant: latniced's, nothing changed */
        now = rec.claim.expected;
        check(adopt_decide(&rec, 1, &now, true, &e, &changed) == ADOPT_KEEP);
        check(changed == 0 && e.claim.applied_mask == rec.claim.applied_mask && !e.user_owned);
        /* another priority, another real-time policy: theirs */
        now.priority = 50;
        check(adopt_decide(&rec, 1, &now, true, &e, &changed) == ADOPT_KEEP);
        check(e.claim.applied_mask == 0 && e.user_owned);
        now = rec.claim.expected;
        now.policy = SCHED_FIFO;
        check(adopt_decide(&rec, 1, &now, false, &e, &changed) == ADOPT_KEEP);
        check(e.claim.applied_mask == 0 && e.user_owned);
        /* real time, where latniced held no Policy: theirs */
        rec.claim.applied_mask = SETTING_BIT(SETTING_TIMER_SLACK);
        now = rec.claim.expected;
        check(adopt_decide(&rec, 1, &now, true, &e, &changed) == ADOPT_KEEP);
        check(e.claim.applied_mask == 0 && e.user_owned);
        /* a grant being written: the rule's policy at most at its priority
         * is latniced's, anything above it the thread's own */
        rec.pending_mask = rt;
        now.priority = 20;
        check(adopt_decide(&rec, 1, &now, true, &e, &changed) == ADOPT_KEEP);
        check(changed == 0 && (e.claim.applied_mask & rt) == rt && !e.user_owned);
        now.priority = 60;
        check(adopt_decide(&rec, 1, &now, true, &e, &changed) == ADOPT_KEEP);
        check(e.claim.applied_mask == 0 && e.user_owned);
}

static void test_decide(void)
{
        StateRecord rec = rec_of(0, 1), e;
        SchedState now;
        uint32_t changed;

        rec.pending_mask = 0;
        rec.claim.applied_mask = SETTING_BIT(SETTING_NICE) | SETTING_BIT(SETTING_TIMER_SLACK);
        rec.claim.expected = (SchedState){ .policy = 0, .nice = 7, .timer_slack_ns = 1000 };
        rec.claim.orig = (SchedState){ .policy = 0, .nice = 0, .timer_slack_ns = 50000 };
        rec.user_owned = false;

        check(adopt_decide(&rec, 0, NULL, true, &e, &changed) == ADOPT_GONE);
        check(adopt_decide(&rec, -1, NULL, true, &e, &changed) == ADOPT_GONE);

        /* as latniced left it: adopted whole, originals from the record */
        now = rec.claim.expected;
        check(adopt_decide(&rec, 1, &now, true, &e, &changed) == ADOPT_KEEP);
        check(changed == 0 && e.claim.applied_mask == rec.claim.applied_mask && !e.user_owned);
        check(e.claim.orig.nice == 0 && e.claim.orig.timer_slack_ns == 50000);

        /* reniced while no latniced ran: the nice is theirs, the slack ours */
        now.nice = 3;
        check(adopt_decide(&rec, 1, &now, true, &e, &changed) == ADOPT_KEEP);
        check(changed == SETTING_BIT(SETTING_NICE) && e.user_owned);
        check(e.claim.applied_mask == SETTING_BIT(SETTING_TIMER_SLACK));
        /* ... unless RespectManualChanges=no */
        check(adopt_decide(&rec, 1, &now, false, &e, &changed) == ADOPT_KEEP);
        check(changed == 0 && e.claim.applied_mask == rec.claim.applied_mask);

        /* made real-time: theirs altogether */
        now = rec.claim.expected;
        now.policy = 1;
        check(adopt_decide(&rec, 1, &now, true, &e, &changed) == ADOPT_KEEP);
        check(e.claim.applied_mask == 0 && e.user_owned);

        test_adopt_rt(&rec);

        /* died in the middle of a change: its attributes are latniced's, and
         * the present state what it left */
        rec.pending_mask = SETTING_BIT(SETTING_POLICY);
        now = rec.claim.expected;
        now.policy = 3;
        check(adopt_decide(&rec, 1, &now, true, &e, &changed) == ADOPT_KEEP);
        check(changed == 0 && e.pending_mask == 0);
        check(e.claim.applied_mask == (rec.claim.applied_mask | SETTING_BIT(SETTING_POLICY)));
        check(e.claim.expected.policy == 3 && e.claim.orig.policy == 0);
}

/* PROC/PID/task/TID/stat with start time ST (field 22). */
static void fake_stat(const char *proc, pid_t pid, uint64_t st)
{
        char p[256], line[256];

        snprintf(p, sizeof(p), "%s/%d", proc, (int)pid);
        (void)mkdir(p, 0755);
        snprintf(p, sizeof(p), "%s/%d/task", proc, (int)pid);
        (void)mkdir(p, 0755);
        snprintf(p, sizeof(p), "%s/%d/task/%d", proc, (int)pid, (int)pid);
        (void)mkdir(p, 0755);
        snprintf(p, sizeof(p), "%s/%d/task/%d/stat", proc, (int)pid, (int)pid);
        snprintf(line, sizeof(line),
                 "%d (sleeper) S 1 1 1 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 %llu 0 0\n",
                 (int)pid, (unsigned long long)st);
        write_file(p, line, strlen(line));
}

/* Adoption against fake start times, on real children (their scheduler
 * state is read from the kernel). */
static void test_adopt(void)
{
        _cleanup_free_ char *path = path_in("adopt"), *proc = path_in("proc");
        _cleanup_(task_table_freep) TaskTable *t = NULL;
        StateFileLoad l = {};
        StateFile *f = NULL;
        SchedState live;
        AdoptStats stats;
        pid_t kids[2];
        Task *task;

        for (int i = 0; i < 2; i++) {
                kids[i] = fork();
                CHECK(kids[i] >= 0);
                if (kids[i] == 0) {
                        pause();
                        _exit(0);
                }
        }
        CHECK(mkdir(proc, 0755) == 0);
        fake_stat(proc, kids[0], 111);
        fake_stat(proc, kids[1], 222);
        CHECK(sched_state_read(kids[0], &live) == 0);

        CHECK(state_file_open(path, &f, &l) == 0);
        state_file_load_done(&l);
        {
                /* kids[0] as it runs: kept; kids[1] with another start time:
                 * its tid is another task's; pid 999999: gone */
                StateRecord recs[3] = {
                        { .pid = kids[0], .tid = kids[0], .starttime = 111,
                          .claim.applied_mask = SETTING_BIT(SETTING_NICE),
                          .claim.orig = { .nice = -3 }, .claim.expected = live },
                        { .pid = kids[1], .tid = kids[1], .starttime = 221,
                          .claim.applied_mask = SETTING_BIT(SETTING_NICE) },
                        { .pid = 999999, .tid = 999999, .starttime = 5,
                          .claim.applied_mask = SETTING_BIT(SETTING_NICE) },
                };
                for (int i = 0; i < 3; i++) {
                        CHECK(state_file_alloc(f, &recs[i].slot) == 0);
                        state_file_put(f, &recs[i]);
                }
        }
        f = state_file_free(f);

        CHECK(state_file_open(path, &f, &l) == 0);
        CHECK(l.n_records == 3);
        CHECK(task_table_new(&t) == 0);
        task_table_attach_state(t, f);
        check(tasks_adopt(t, l.records, l.n_records, proc, true, &stats) == 0);
        check(stats.n_adopted == 1 && stats.n_reused == 1 && stats.n_gone == 1);
        check(stats.n_changed == 0);
        check(task_table_size(t) == 1);
        task = task_table_get(t, kids[0]);
        check(task && task->claim.orig.nice == -3 &&
              task->claim.applied_mask == SETTING_BIT(SETTING_NICE));
        check(!task_table_get(t, kids[1]));
        /* the dropped records are free in the file */
        check(state_file_n_used(f) == 1);
        state_file_load_done(&l);
        t = task_table_free(t);

        /* what stays after the table is gone is the one record */
        CHECK(state_file_open(path, &f, &l) == 0);
        check(l.n_records == 1 && l.records[0].pid == kids[0] &&
              l.records[0].claim.orig.nice == -3);
        state_file_load_done(&l);
        state_file_free(f);

        for (int i = 0; i < 2; i++) {
                kill(kids[i], SIGKILL);
                waitpid(kids[i], NULL, 0);
        }
}

/* A cgroup record derived from K (path, values and identity differ per K). */
static StateCgroupRecord cg_of(uint32_t k, char *path_buf, size_t n)
{
        StateCgroupRecord r = {
                .target = k % 5 == 0 ? STATE_TARGET_UNIT_PROPERTY : STATE_TARGET_CGROUP_FILE,
                .owner = k % 2 ? STATE_CGROUP_GROUPS : STATE_CGROUP_UNITS,
                .kind = k % 4,
                .path = path_buf,
                .ino = 5000 + k,
                .autogroup_id = 6000 + k,
                .pid = (pid_t)(7000 + k),
                .starttime = 8000 + k,
        };

        snprintf(path_buf, n, "/sys/fs/cgroup/system.slice/unit-%u.service", k);
        snprintf(r.orig, sizeof(r.orig), "%u", 100 + k);
        snprintf(r.written, sizeof(r.written), "%u", 200 + k);
        if (k % 3)
                snprintf(r.previous, sizeof(r.previous), "%u.50", 300 + k);
        return r;
}

static bool cg_is(const StateCgroupRecord *r, uint32_t k)
{
        char buf[128];
        StateCgroupRecord w = cg_of(k, buf, sizeof(buf));

        return r->target == w.target && r->owner == w.owner && r->kind == w.kind &&
               streq_ptr(r->path, w.path) &&
               r->ino == w.ino && r->autogroup_id == w.autogroup_id && r->pid == w.pid &&
               r->starttime == w.starttime && streq(r->orig, w.orig) &&
               streq(r->written, w.written) && streq(r->previous, w.previous);
}

/* Which K a loaded cgroup record stands for (from its path), or -1. */
static int cg_k(const StateCgroupRecord *r)
{
        unsigned k;

        if (!r->path || sscanf(r->path, "/sys/fs/cgroup/system.slice/unit-%u.service", &k) != 1)
                return -1;
        return (int)k;
}

/* The cgroup table: records survive a reopen through both table growths
 * (the task table's moves it), are handed to their owner once, a released
 * one is gone, and a path too long or a value without its NUL is refused. */
static void test_cgroup_table(void)
{
        _cleanup_free_ char *path = path_in("cgroups");
        char buf[128], *longpath;
        uint32_t slots[40] = {}, slot;
        StateCgroupRecord *recs = NULL, r;
        StateFileLoad l = {};
        StateFile *f = NULL;
        size_t n_units = 0, n_groups = 0, n = 0;
        bool seen[40] = {};

        CHECK(state_file_open(path, &f, &l) == 0);
        state_file_load_done(&l);
        /* 40 cgroup records (the table grows from 16 to 64), then 600 task
         * records (the task table grows past 256, twice, moving it) */
        for (uint32_t k = 0; k < 40; k++) {
                r = cg_of(k, buf, sizeof(buf));
                CHECK(state_file_cgroup_put(f, &slots[k], &r) == 0);
                check(slots[k] == k + 1);
        }
        for (uint32_t k = 0; k < 600; k++) {
                StateRecord tr;
                CHECK(state_file_alloc(f, &slot) == 0);
                tr = rec_of(slot, k);
                state_file_put(f, &tr);
        }
        /* a second write to one record, and a release */
        r = cg_of(39, buf, sizeof(buf));
        CHECK(state_file_cgroup_put(f, &slots[39], &r) == 0);
        state_file_cgroup_release(f, &slots[5]);
        check(slots[5] == 0 && state_file_cgroup_n_used(f) == 39);
        /* refused, nothing recorded */
        longpath = malloc(STATE_PATH_MAX + 1);
        CHECK(longpath);
        memset(longpath, 'a', STATE_PATH_MAX);
        longpath[STATE_PATH_MAX] = 0;
        r.path = longpath;
        slot = 0;
        check(state_file_cgroup_put(f, &slot, &r) == -ENAMETOOLONG && slot == 0);
        free(longpath);
        r = cg_of(1, buf, sizeof(buf));
        memset(r.written, '9', sizeof(r.written)); /* no NUL */
        check(state_file_cgroup_put(f, &slot, &r) == -EOVERFLOW && slot == 0);
        f = state_file_free(f);

        CHECK(state_file_open(path, &f, &l) == 0);
        check(!l.problem && l.n_corrupt == 0 && l.n_records == 600);
        state_file_load_done(&l);
        CHECK(state_file_cgroup_take(f, STATE_CGROUP_UNITS, &recs, &n_units) == 0);
        for (size_t i = 0; i < n_units; i++) {
                int k = cg_k(&recs[i]);
                check(k >= 0 && k < 40 && k % 2 == 0 && cg_is(&recs[i], (uint32_t)k));
                if (k >= 0 && k < 40)
                        seen[k] = true;
        }
        state_cgroup_records_free(recs, n_units);
        CHECK(state_file_cgroup_take(f, STATE_CGROUP_GROUPS, &recs, &n_groups) == 0);
        for (size_t i = 0; i < n_groups; i++) {
                int k = cg_k(&recs[i]);
                check(k >= 0 && k < 40 && k % 2 == 1 && cg_is(&recs[i], (uint32_t)k));
                if (k >= 0 && k < 40)
                        seen[k] = true;
        }
        state_cgroup_records_free(recs, n_groups);
        check(n_units == 20 && n_groups == 19 && !seen[5] && seen[39]);
        /* handed over once */
        CHECK(state_file_cgroup_take(f, STATE_CGROUP_UNITS, &recs, &n) == 0);
        check(n == 0 && !recs);
        f = state_file_free(f);
}

/* A torn write to a cgroup record (new bytes, old checksum, as SIGKILL
 * would leave it) reads as the version before. The record is the first of
 * the table. */
static void test_cgroup_torn(void)
{
        _cleanup_free_ char *path = path_in("cgroups-torn");
        const off_t table = HEADER_SIZE, copy = COPY_SIZE;
        StateCgroupRecord *recs = NULL, r;
        StateFileLoad l = {};
        StateFile *f = NULL;
        uint32_t slot = 0;
        char buf[128];
        size_t n = 0;
        int fd;

        CHECK(state_file_open(path, &f, &l) == 0);
        state_file_load_done(&l);
        r = cg_of(2, buf, sizeof(buf));
        CHECK(state_file_cgroup_put(f, &slot, &r) == 0); /* copy 0 */
        strcpy(r.written, "777");
        CHECK(state_file_cgroup_put(f, &slot, &r) == 0); /* copy 1 */
        f = state_file_free(f);

        fd = open(path, O_RDWR | O_CLOEXEC);
        CHECK(fd >= 0);
        CHECK(pwrite(fd, "8", 1, table + copy + 60) == 1);
        close(fd);
        CHECK(state_file_open(path, &f, &l) == 0);
        check(l.n_torn == 1 && l.n_corrupt == 0 && !l.problem);
        state_file_load_done(&l);
        CHECK(state_file_cgroup_take(f, STATE_CGROUP_UNITS, &recs, &n) == 0);
        check(n == 1 && cg_is(&recs[0], 2));
        state_cgroup_records_free(recs, n);
        f = state_file_free(f);
}

/* Opening PATH is refused (-EPERM) with a message naming WANT_PATH and
 * holding WANT. */
static void expect_refused(const char *path, const char *want_path, const char *want)
{
        StateFileLoad l = {};
        StateFile *f = NULL;
        int r = state_file_open(path, &f, &l);

        if (r != -EPERM || !l.error || !strstr(l.error, want_path) || !strstr(l.error, want))
                test_fail("%s: %d [%s], want -EPERM [%s ... %s]", path, r, strna(l.error),
                          want_path, want);
        check(!f);
        state_file_load_done(&l);
}

/* A file or directory others could write is refused, with the path and the
 * reason; an ancestor may be writable by others only when sticky. */
static void test_refused(void)
{
        _cleanup_free_ char *open_dir = path_in("open"), *in_open = path_in("open/tasks.state"),
                            *sticky = path_in("sticky"), *in_sticky = path_in("sticky/tasks.state"),
                            *mode = path_in("mode666"), *up = path_in("up"),
                            *below = path_in("up/d"), *in_below = path_in("up/d/tasks.state"),
                            *sticky_up = path_in("stickyup"), *sd = path_in("stickyup/d"),
                            *in_sd = path_in("stickyup/d/tasks.state");
        StateFileLoad l = {};
        StateFile *f = NULL;
        int fd;

        /* the file: mode 0666, then 0620, refused; 0644 used */
        fd = open(mode, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        CHECK(fd >= 0 && fchmod(fd, 0666) == 0);
        close(fd);
        expect_refused(mode, mode, "writable by its group and others");
        CHECK(chmod(mode, 0620) == 0);
        expect_refused(mode, mode, "(mode 0620) is writable by its group");
        CHECK(chmod(mode, 0644) == 0);
        CHECK(state_file_open(mode, &f, &l) == 0);
        check(l.created && !l.error);
        state_file_load_done(&l);
        f = state_file_free(f);
        if (geteuid() == 0) {
                CHECK(chown(mode, 65534, 65534) == 0);
                CHECK(chmod(mode, 0600) == 0);
                expect_refused(mode, mode, "owned by uid 65534");
        }

        /* its directory: writable by others, sticky or not */
        CHECK(mkdir(open_dir, 0700) == 0 && chmod(open_dir, 0777) == 0);
        expect_refused(in_open, open_dir, "(mode 0777) is writable by its group and others");
        check(access(in_open, F_OK) < 0); /* nothing made there */
        CHECK(mkdir(sticky, 0700) == 0 && chmod(sticky, 01777) == 0);
        expect_refused(in_sticky, sticky, "writable by its group and others");

        /* an ancestor: writable by others and not sticky refused, sticky used */
        CHECK(mkdir(up, 0700) == 0 && mkdir(below, 0700) == 0 && chmod(up, 0757) == 0);
        expect_refused(in_below, below, "1 level(s) above");
        CHECK(mkdir(sticky_up, 0700) == 0 && mkdir(sd, 0700) == 0 && chmod(sticky_up, 01777) == 0);
        CHECK(state_file_open(in_sd, &f, &l) == 0);
        state_file_load_done(&l);
        f = state_file_free(f);
        if (geteuid() == 0) {
                CHECK(chown(sd, 65534, 65534) == 0);
                expect_refused(in_sd, sd, "owned by uid 65534");
        }
}

/* The file truncated, then removed, under an open StateFile: the next
 * write puts it back whole, every record in it. */
static void test_changed_under(void)
{
        _cleanup_free_ char *path = path_in("under"), *other = path_in("under.other");
        StateFileLoad l = {};
        StateFile *f = NULL;
        uint32_t slot;
        StateRecord r;
        struct stat st;
        int fd;

        CHECK(state_file_open(path, &f, &l) == 0);
        state_file_load_done(&l);
        for (uint32_t k = 0; k < 100; k++) {
                CHECK(state_file_alloc(f, &slot) == 0);
                r = rec_of(slot, k);
                state_file_put(f, &r);
        }
        /* cut to nothing, then one write */
        CHECK(truncate(path, 0) == 0);
        CHECK(state_file_alloc(f, &slot) == 0);
        r = rec_of(slot, 100);
        state_file_put(f, &r);
        CHECK(stat(path, &st) == 0);
        check(st.st_size == HEADER_SIZE + 128 * RECORD_SIZE);
        /* cut in the middle of a page, then a write before the cut */
        CHECK(truncate(path, HEADER_SIZE + 50 * RECORD_SIZE + 100) == 0);
        r = rec_of(3, 103);
        state_file_put(f, &r);
        /* removed, then replaced by another file */
        CHECK(unlink(path) == 0);
        r = rec_of(4, 104);
        state_file_put(f, &r);
        CHECK(stat(path, &st) == 0);
        write_file(other, "junk", 4);
        CHECK(rename(other, path) == 0);
        r = rec_of(5, 105);
        state_file_put(f, &r);
        f = state_file_free(f);

        fd = open(path, O_RDONLY | O_CLOEXEC);
        CHECK(fd >= 0);
        close(fd);
        CHECK(state_file_open(path, &f, &l) == 0);
        check(!l.problem && l.n_records == 101 && l.n_corrupt == 0);
        for (size_t i = 0; i < l.n_records; i++) {
                uint32_t s = l.records[i].slot;
                check(rec_is(&l.records[i], s >= 3 && s <= 5 ? 100 + s : s));
        }
        state_file_load_done(&l);
        state_file_free(f);
}

/* A state file on a full filesystem (root: a 192 KiB tmpfs in a mount
 * namespace of a child's own): what is reserved is written, a growth fails
 * with -ENOSPC (and is not tried again at once), nothing faults; the file
 * holds the records that had room. */
static void test_full(void)
{
        _cleanup_free_ char *mnt = path_in("small"), *path = path_in("small/tasks.state"),
                            *fill = path_in("small/fill");
        pid_t child;
        int status;

        if (geteuid() != 0) {
                printf("test_full: skipped (needs root for a tmpfs)\n");
                return;
        }
        CHECK(mkdir(mnt, 0700) == 0);
        child = fork();
        CHECK(child >= 0);
        if (child == 0) {
                StateFileLoad l = {};
                StateFile *f = NULL;
                char page[4096] = { 1 };
                uint32_t slot = 0;
                StateRecord r;
                int fd;

                if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
                    mount("tmpfs", mnt, "tmpfs", 0, "size=192k,mode=0700") < 0)
                        _exit(77);
                if (state_file_open(path, &f, &l) < 0)
                        _exit(2);
                state_file_load_done(&l);
                fd = open(fill, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
                while (write(fd, page, sizeof(page)) == sizeof(page))
                        ;
                close(fd);
                for (uint32_t k = 0; k < 64; k++) {
                        if (state_file_alloc(f, &slot) < 0)
                                _exit(3);
                        r = rec_of(slot, k);
                        state_file_put(f, &r);
                }
                if (state_file_alloc(f, &slot) != -ENOSPC || state_file_alloc(f, &slot) != -ENOSPC)
                        _exit(4);
                state_file_release(f, 10);
                if (state_file_alloc(f, &slot) < 0 || slot != 10)
                        _exit(5);
                r = rec_of(slot, 200);
                state_file_put(f, &r);
                f = state_file_free(f);
                if (state_file_open(path, &f, &l) < 0 || l.problem || l.n_records != 64)
                        _exit(6);
                state_file_load_done(&l);
                state_file_free(f);
                _exit(0);
        }
        CHECK(waitpid(child, &status, 0) == child);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
                printf("test_full: skipped (no mount namespace)\n");
                return;
        }
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                test_fail("full filesystem: child ended with status %#x", status);
        (void)rmdir(mnt);
}


/* ---- Version 3 ---------------------------------------------------------- */

/* CPUAffinity= (the setting, the original and the expected set, up to CPU
 * 1023) survives a reopen, as every other attribute. */
static void test_affinity(void)
{
        _cleanup_free_ char *path = path_in("affinity");
        StateRecord r = rec_of(0, 3);
        StateFileLoad l = {};
        StateFile *f = NULL;

        check(state_attr_complete());
        CHECK(state_file_open(path, &f, &l) == 0);
        state_file_load_done(&l);
        CHECK(state_file_alloc(f, &r.slot) == 0);
        r.claim.applied_mask |= SETTING_BIT(SETTING_CPU_AFFINITY);
        r.settings.mask |= SETTING_BIT(SETTING_CPU_AFFINITY);
        CPU_SET(2, &r.settings.cpu_affinity.cpus);
        CPU_SET(1023, &r.settings.cpu_affinity.cpus);
        r.settings.cpu_affinity.cache = 1;
        for (int c = 0; c < CPU_SETSIZE; c++)
                CPU_SET(c, &r.claim.orig.cpu_affinity); /* the longest a part gets */
        r.claim.expected.cpu_affinity = r.settings.cpu_affinity.cpus;
        state_file_put(f, &r);
        f = state_file_free(f);

        CHECK(state_file_open(path, &f, &l) == 0);
        check(!l.problem && l.n_records == 1 && l.n_skipped == 0);
        if (l.n_records == 1) {
                const StateRecord *g = &l.records[0];

                check(g->pid == r.pid && g->claim.applied_mask == r.claim.applied_mask &&
                      g->settings.mask == r.settings.mask &&
                      g->claim.orig.nice == r.claim.orig.nice);
                check(CPU_EQUAL(&g->settings.cpu_affinity.cpus, &r.settings.cpu_affinity.cpus));
                check(g->settings.cpu_affinity.cache == 1);
                check(CPU_COUNT(&g->claim.orig.cpu_affinity) == CPU_SETSIZE);
                check(CPU_EQUAL(&g->claim.expected.cpu_affinity, &r.claim.expected.cpu_affinity));
        }
        state_file_load_done(&l);
        state_file_free(f);
}

/* Rewrite copy 0 of slot 0 of PATH through EDIT (on its bytes), with a
 * checksum that matches: what a newer latniced could have written. */
static void copy_rewrite(const char *path, void (*edit)(uint8_t *c))
{
        uint8_t c[COPY_SIZE];
        uint64_t sum;
        int fd = open(path, O_RDWR | O_CLOEXEC);

        CHECK(fd >= 0);
        CHECK(pread(fd, c, sizeof(c), HEADER_SIZE) == sizeof(c));
        edit(c);
        sum = state_copy_checksum(c, COPY_SIZE - 8);
        memcpy(c + COPY_SIZE - 8, &sum, 8);
        CHECK(pwrite(fd, c, sizeof(c), HEADER_SIZE) == sizeof(c));
        close(fd);
}

/* The offset in copy C of the entry of TAG of its thread record. */
static size_t entry_of(const uint8_t *c, uint16_t want)
{
        uint32_t len;
        size_t off = BODY + 16; /* the thread's pid, tid, start time */

        memcpy(&len, c + 12, 4);
        while (off + STATE_ENTRY_HEADER <= BODY + len) {
                uint16_t tag, n;

                memcpy(&tag, c + off, 2);
                memcpy(&n, c + off + 4, 2);
                if (tag == want)
                        return off;
                off += STATE_ENTRY_HEADER + n;
        }
        test_fail("no entry of tag %u found", want);
        return 0;
}

/* The entry of the CPUAffinity= tag (12) gets tag 999 and version 7. */
static void edit_tag(uint8_t *c)
{
        size_t off = entry_of(c, 12);

        if (off == 0)
                return;
        memcpy(c + off, &(uint16_t){ 999 }, 2);
        c[off + 2] = 7;
}

/* The record becomes of kind 9. */
static void edit_kind(uint8_t *c)
{
        memcpy(c + 8, &(uint16_t){ 9 }, 2);
}

/* The entry of an unknown tag is skipped (its attribute reads as unset),
 * the record's other attributes are read; a record of an unknown kind is
 * skipped whole, and its slot reused. */
static void test_unknown_tag(void)
{
        _cleanup_free_ char *path = path_in("unknown");
        StateRecord r = rec_of(0, 5);
        StateFileLoad l = {};
        StateFile *f = NULL;
        uint32_t slot;

        CHECK(state_file_open(path, &f, &l) == 0);
        state_file_load_done(&l);
        CHECK(state_file_alloc(f, &r.slot) == 0 && r.slot == 0);
        r.claim.applied_mask |= SETTING_BIT(SETTING_CPU_AFFINITY);
        CPU_SET(1, &r.claim.orig.cpu_affinity);
        state_file_put(f, &r);
        f = state_file_free(f);

        copy_rewrite(path, edit_tag);
        CHECK(state_file_open(path, &f, &l) == 0);
        check(!l.problem && l.n_corrupt == 0 && l.n_records == 1 && l.n_skipped == 1);
        if (l.n_records == 1) {
                check(rec_is(&l.records[0], 5));
                check(!(l.records[0].claim.applied_mask & SETTING_BIT(SETTING_CPU_AFFINITY)));
                check(CPU_COUNT(&l.records[0].claim.orig.cpu_affinity) == 0);
        }
        state_file_load_done(&l);
        f = state_file_free(f);

        copy_rewrite(path, edit_kind);
        CHECK(state_file_open(path, &f, &l) == 0);
        check(!l.problem && l.n_corrupt == 0 && l.n_records == 0 && l.n_skipped == 1);
        check(state_file_alloc(f, &slot) == 0 && slot == 0);
        state_file_load_done(&l);
        state_file_free(f);
}

/* What edit_orig() writes: BYTES (N of them) at AT of the original value
 * of the entry of TAG. */
static struct {
        uint16_t tag;
        size_t at, n;
        uint8_t bytes[4];
} orig_edit;

static void edit_orig(uint8_t *c)
{
        size_t off = entry_of(c, orig_edit.tag), p;

        if (off == 0)
                return;
        p = off + STATE_ENTRY_HEADER;
        p += 1 + c[p]; /* past the setting: at the original's length */
        CHECK(orig_edit.at + orig_edit.n <= c[p]);
        memcpy(c + p + 1 + orig_edit.at, orig_edit.bytes, orig_edit.n);
}

/* A value out of the range its attribute's descriptor gives for a member
 * makes the record corrupt (it is never restored), one at the edge does
 * not. */
static void test_out_of_range(void)
{
        static const struct {
                uint16_t tag; /* Nice, LatencyNice, IOClass, OOMScoreAdj */
                size_t at, n;
                int32_t value;
                bool ok;
        } cases[] = {
                { 2, 0, 4, 19, true },      { 2, 0, 4, 20, false },
                { 2, 0, 4, -21, false },    { 4, 4, 1, 1, true },
                { 4, 4, 1, 2, false },      { 8, 0, 4, (3 << 13) | 7, true },
                { 8, 0, 4, 4 << 13, false }, { 10, 0, 4, -1000, true },
                { 10, 0, 4, 1001, false },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *path = NULL;
                StateRecord r = rec_of(0, 1);
                StateFileLoad l = {};
                StateFile *f = NULL;

                CHECK(asprintf(&path, "%s/range%zu", dir, i) > 0);
                CHECK(state_file_open(path, &f, &l) == 0);
                state_file_load_done(&l);
                CHECK(state_file_alloc(f, &r.slot) == 0 && r.slot == 0);
                state_file_put(f, &r);
                f = state_file_free(f);

                orig_edit.tag = cases[i].tag;
                orig_edit.at = cases[i].at;
                orig_edit.n = cases[i].n;
                memcpy(orig_edit.bytes, &cases[i].value, cases[i].n);
                copy_rewrite(path, edit_orig);
                CHECK(state_file_open(path, &f, &l) == 0);
                if (cases[i].ok)
                        check(l.n_corrupt == 0 && l.n_records == 1);
                else
                        check(l.n_corrupt == 1 && l.n_records == 0);
                state_file_load_done(&l);
                state_file_free(f);
        }
}

/* The fixture: a version 2 file written by the version 2 code (commit
 * c702322, its boot id zeroed): three threads and two cgroup records. */
#define V2_FIXTURE SOURCE_ROOT "/tests/fuzz/state-file/v2-written-by-version-2.state"

static bool v2_thread_is(const StateRecord *r, int k)
{
        uint32_t applied = SETTING_BIT(SETTING_NICE) | SETTING_BIT(SETTING_TIMER_SLACK) |
                           (k == 2 ? SETTING_BIT(SETTING_CORE_SCHED) : 0);
        uint32_t mask = SETTING_BIT(SETTING_NICE) | SETTING_BIT(SETTING_TIMER_SLACK) |
                        SETTINGS_IO_MASK | SETTING_BIT(SETTING_OOM_SCORE_ADJ) |
                        (k == 2 ? SETTING_BIT(SETTING_CORE_SCHED) : 0);

        return r->pid == 100 + k && r->tid == 200 + k && r->starttime == (uint64_t)(300 + k) &&
               r->user_owned == (k == 1) && r->claim.applied_mask == applied &&
               r->pending_mask == (k == 0 ? SETTING_BIT(SETTING_OOM_SCORE_ADJ) : 0) &&
               r->settings.mask == mask && r->settings.nice == 5 + k &&
               r->settings.timer_slack_ns == (uint64_t)(1000 + k) &&
               r->settings.io_class == 2 && r->settings.io_nice == k &&
               r->settings.oom_score_adj == -100 * k && r->claim.orig.nice == k &&
               r->claim.orig.timer_slack_ns == 50000 && r->claim.orig.slice_ns == 2800000 &&
               r->claim.orig.util_max == 1024 && r->claim.orig.ioprio == ((2 << 13) | 4) &&
               r->claim.orig.oom_score_adj == 10 * k && r->claim.expected.nice == 5 + k &&
               r->claim.expected.timer_slack_ns == (uint64_t)(1000 + k) &&
               r->claim.expected.ioprio == ((2 << 13) | k) &&
               r->claim.expected.oom_score_adj == -100 * k &&
               r->settings.core_sched.mode == (k == 2 ? 2 : 0) &&
               r->settings.core_sched.group == (k == 2 ? 0x1234567890abcdefull : 0) &&
               r->claim.expected.core_cookie == (k == 2 ? 0xc0c1e : 0);
}

/* One open of LOAD's file: its threads and cgroup records are the
 * fixture's. */
static void check_v2_records(StateFile *f, const StateFileLoad *l)
{
        StateCgroupRecord *recs = NULL;
        bool seen[3] = {};
        size_t n = 0;

        check(l->n_records == 3 && l->n_corrupt == 0 && !l->problem);
        for (size_t i = 0; i < l->n_records; i++) {
                int k = l->records[i].pid - 100;

                check(k >= 0 && k < 3 && v2_thread_is(&l->records[i], k));
                if (k >= 0 && k < 3)
                        seen[k] = true;
        }
        check(seen[0] && seen[1] && seen[2]);
        CHECK(state_file_cgroup_take(f, STATE_CGROUP_UNITS, &recs, &n) == 0);
        check(n == 1 && recs[0].kind == 1 && recs[0].ino == 4242 &&
              streq(recs[0].path, "/sys/fs/cgroup/app.slice/v2.service") &&
              streq(recs[0].orig, "100") && streq(recs[0].written, "250") &&
              streq(recs[0].previous, ""));
        state_cgroup_records_free(recs, n);
        CHECK(state_file_cgroup_take(f, STATE_CGROUP_GROUPS, &recs, &n) == 0);
        check(n == 1 && recs[0].kind == 2 && recs[0].autogroup_id == 77 &&
              recs[0].pid == 4321 && recs[0].starttime == 999 &&
              streq(recs[0].path, "/proc/4321/autogroup") && streq(recs[0].orig, "0") &&
              streq(recs[0].written, "5") && streq(recs[0].previous, "3"));
        state_cgroup_records_free(recs, n);
}

/* A version 2 file is read once and converted: the file is version 3
 * afterwards, with the same records, and the next open reads it as such. */
static void test_v2_convert(void)
{
        _cleanup_free_ char *path = path_in("v2"), *cmd = NULL;
        StateFileLoad l = {};
        StateFile *f = NULL;
        uint32_t version = 0;
        int fd;

        CHECK(asprintf(&cmd, "cp '%s' '%s'", V2_FIXTURE, path) >= 0);
        CHECK(system(cmd) == 0);
        CHECK(state_file_open(path, &f, &l) == 0);
        check(l.converted_from == 2);
        check_v2_records(f, &l);
        state_file_load_done(&l);
        f = state_file_free(f);

        fd = open(path, O_RDONLY | O_CLOEXEC);
        CHECK(fd >= 0);
        CHECK(pread(fd, &version, 4, 8) == 4);
        close(fd);
        check(version == 3);
        CHECK(state_file_open(path, &f, &l) == 0);
        check(l.converted_from == 0 && !l.created && l.generation == 2);
        check_v2_records(f, &l);
        state_file_load_done(&l);
        state_file_free(f);
}

int main(void)
{
        CHECK(mkdtemp(dir));
        test_roundtrip();
        test_torn_bytes();
        test_torn_kill();
        test_corrupt();
        test_corrupt_record();
        test_decide();
        test_adopt();
        test_cgroup_table();
        test_cgroup_torn();
        test_refused();
        test_changed_under();
        test_full();
        test_affinity();
        test_unknown_tag();
        test_out_of_range();
        test_v2_convert();
        {
                char cmd[128];
                snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
                (void)system(cmd);
        }
        return test_result();
}
