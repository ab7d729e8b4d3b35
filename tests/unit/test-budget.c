/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit test for daemon/apply/budget.c: the share over a window from synthetic
 * samples, the stat and schedstat parsers, and the accounting against a
 * fake /proc tree (threads that each stay under and together exceed, a
 * sleeper that stays under, a revocation that lasts, a reused pid). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/apply/budget.h"
#include "test-util.h"

#define MS UINT64_C(1000000) /* ns */

static const BudgetConfig half = { .share_permille = 500, .window_usec = 1000000 };

static void test_judge(void)
{
        BudgetConfig off = { .share_permille = 0, .window_usec = 1000000 };
        unsigned pm = 0;

        /* 600 ms of CPU over 1 s: 60% > 50%. */
        check(budget_judge(&half, 600 * MS, 1000 * MS, &pm) == 1 && pm == 600);
        check(budget_judge(&half, 500 * MS, 1000 * MS, &pm) == 0 && pm == 500);
        check(budget_judge(&half, 10 * MS, 1000 * MS, &pm) == 0 && pm == 10);
        /* Two threads at 40% each over 2 s: 80% together. */
        check(budget_judge(&half, 2 * 800 * MS, 2000 * MS, &pm) == 1 && pm == 800);
        /* Under half a window: not judged yet, whatever it used. */
        check(budget_judge(&half, 400 * MS, 400 * MS, &pm) == -EAGAIN && pm == 1000);
        check(budget_judge(&half, 0, 0, &pm) == -EAGAIN && pm == 0);
        /* Off: never over. */
        check(budget_judge(&off, 5000 * MS, 1000 * MS, &pm) == 0);
        /* More than one CPU (threads together) is a share above 100%. */
        check(budget_judge(&half, 3000 * MS, 1000 * MS, &pm) == 1 && pm == 3000);
}

static void test_parse(void)
{
        const char *stat = "42 (a) b) c) R 1 42 42 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 "
                           "1 0 1234 1000 10 18446744073709551615\n";
        uint64_t ns = 0;

        check(budget_parse_stat(stat, strlen(stat), 100, &ns) == 0 && ns == 3000 * MS);
        check(budget_parse_stat(stat, strlen(stat), 250, &ns) == 0 && ns == 1200 * MS);
        check(budget_parse_stat("42 (x) R 1", 10, 100, &ns) == -EIO);
        check(budget_parse_stat("no stat", 7, 100, &ns) == -EIO);
        check(budget_parse_schedstat("123456789 5 7\n", 14, &ns) == 0 && ns == 123456789);
        check(budget_parse_schedstat("x 5 7\n", 6, &ns) == -EIO);
        check(budget_parse_schedstat("", 0, &ns) == -EIO);
        check(budget_parse_schedstat("12", 2, &ns) == -EIO);
}

/* A fake /proc: ROOT/PID/stat and ROOT/PID/task/TID/schedstat. */
static char root[] = "/tmp/test-budget.XXXXXX";

static void put(const char *rel, const char *text)
{
        char path[256], dir[256];

        snprintf(path, sizeof(path), "%s/%s", root, rel);
        snprintf(dir, sizeof(dir), "%s", path);
        for (char *p = dir + strlen(root) + 1; (p = strchr(p, '/')); p++) {
                *p = 0;
                (void)mkdir(dir, 0755);
                *p = '/';
        }
        FILE *f = fopen(path, "we");
        CHECK(f);
        fputs(text, f);
        fclose(f);
}

static void set_thread(pid_t pid, pid_t tid, uint64_t ns)
{
        char rel[64], text[64];

        snprintf(rel, sizeof(rel), "%d/task/%d/schedstat", (int)pid, (int)tid);
        snprintf(text, sizeof(text), "%llu 0 1\n", (unsigned long long)ns);
        put(rel, text);
}

/* The process total as a stat line (utime in ticks of 100 Hz, stime 0). */
static void set_process(pid_t pid, uint64_t ns)
{
        char rel[64], text[128];

        snprintf(rel, sizeof(rel), "%d/stat", (int)pid);
        snprintf(text, sizeof(text), "%d (p) S 1 1 1 0 -1 0 0 0 0 0 %llu 0 0 0 20 0 1 0 77 1000 10\n",
                 (int)pid, (unsigned long long)(ns / (10 * MS)));
        put(rel, text);
}

static pid_t revoked_pids[8];
static size_t n_revoked;

static void on_revoked(void *userdata, pid_t pid)
{
        if (n_revoked < ELEMENTSOF(revoked_pids))
                revoked_pids[n_revoked++] = pid;
}

static void test_accounting(void)
{
        Budget b;
        uint64_t t = 1000 * MS;
        const char *why;

        CHECK(mkdtemp(root));
        budget_init(&b, root);
        b.tick_hz = 100;
        budget_configure(&b, &half, 0);
        check(!budget_active(&b));

        /* 100: thread rules, threads 101 and 102 boosted, each at 40%. */
        set_thread(100, 101, 0);
        set_thread(100, 102, 0);
        check(budget_note(&b, 100, 77, 101, true, false, "audio", t) == 1);
        check(budget_note(&b, 100, 77, 102, true, false, "audio", t) == 1);
        /* 200: a whole process at 5%, a sleeper. */
        set_process(200, 0);
        check(budget_note(&b, 200, 88, 200, true, true, "audio", t) == 1);
        /* 300: one boosted thread at 45%, under. */
        set_thread(300, 300, 0);
        check(budget_note(&b, 300, 99, 300, true, false, "game", t) == 1);
        check(budget_active(&b));

        /* Half a window later nothing is judged yet. */
        set_thread(100, 101, 200 * MS);
        set_thread(100, 102, 200 * MS);
        budget_sample(&b, t + 400 * MS, on_revoked, NULL);
        check(n_revoked == 0);

        /* One window: 100 used 80% together and is over; 200 and 300 are not. */
        set_thread(100, 101, 400 * MS);
        set_thread(100, 102, 400 * MS);
        set_process(200, 50 * MS);
        set_thread(300, 300, 450 * MS);
        budget_sample(&b, t + 1000 * MS, on_revoked, NULL);
        check(n_revoked == 1 && revoked_pids[0] == 100);
        why = budget_revoked(&b, 100, 77);
        check(why && strstr(why, "used 80.0% of a CPU over 1.0 s") &&
              strstr(why, "BoostBudgetShare=50.0%") && strstr(why, "(rule audio)"));
        check(!budget_revoked(&b, 100, 78)); /* another process on that pid */
        check(!budget_revoked(&b, 200, 88));
        check(!budget_revoked(&b, 300, 99));
        check(b.n_revoked == 1);

        /* Revoked for good: noting it again (unboosted or boosted) changes
         * nothing, it is not sampled and not reported again. */
        check(budget_note(&b, 100, 77, 101, false, false, "audio", t) == 0);
        check(budget_note(&b, 100, 77, 101, true, false, "audio", t) == 0);
        set_thread(100, 101, 1400 * MS);
        budget_sample(&b, t + 2000 * MS, on_revoked, NULL);
        check(n_revoked == 1 && budget_revoked(&b, 100, 77));

        /* 200 spins now: 100% over the next window. */
        set_process(200, 1050 * MS);
        set_thread(300, 300, 500 * MS);
        budget_sample(&b, t + 3000 * MS, on_revoked, NULL);
        check(n_revoked == 2 && revoked_pids[1] == 200);
        check(budget_revoked(&b, 200, 88) && strstr(budget_revoked(&b, 200, 88), "used 100.0%"));

        /* A reused pid starts afresh; the end of a process forgets it. */
        set_process(200, 0);
        check(budget_note(&b, 200, 89, 200, true, true, "audio", t) == 1);
        check(!budget_revoked(&b, 200, 89));
        budget_forget(&b, 100, 100);
        check(!budget_revoked(&b, 100, 77));

        /* A thread that is no longer boosted is not counted; the last one
         * leaves the table. */
        check(budget_note(&b, 300, 99, 300, false, false, NULL, t) == 0);
        budget_forget(&b, 200, 200);
        check(!budget_active(&b));

        /* Off forgets everything. */
        set_process(400, 0);
        check(budget_note(&b, 400, 1, 400, true, true, "x", t) == 1);
        budget_configure(&b, &(BudgetConfig){ .share_permille = 0, .window_usec = 1000000 }, t);
        check(!budget_active(&b));
        check(budget_note(&b, 400, 1, 400, true, true, "x", t) == 0);
        budget_done(&b);

        char cmd[64];
        snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
        check(system(cmd) == 0);
}

int main(void)
{
        test_judge();
        test_parse();
        test_accounting();
        return test_result();
}
