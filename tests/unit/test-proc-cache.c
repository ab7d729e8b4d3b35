/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit test for daemon/watch/proc-cache.c (kept per process until dropped, a
 * flush or its TTL; bounded) and daemon/watch/process-log.c (said once per
 * process and reason, then counted, at most once per interval). */
#include <stdint.h>
#include <stdlib.h>

#include "daemon/watch/proc-cache.h"
#include "daemon/watch/process-log.h"
#include "test-util.h"

#define MS 1000u

static int n_freed;

static void value_free(void *v)
{
        n_freed++;
        free(v);
}

static void *value(void)
{
        void *v = malloc(1);

        CHECK(v);
        return v;
}

static void test_cache(void)
{
        ProcCache *c = NULL;
        uid_t uid = 0;
        void *v;

        check(proc_cache_new(0, 1, value_free, &c) == -EINVAL && !c);
        CHECK(proc_cache_new(2, 100 * MS, value_free, &c) == 0);
        check(!proc_cache_get(c, 10, 0, NULL));
        v = value();
        check(proc_cache_put(c, 10, 1000, v, 0) == 0);
        check(proc_cache_get(c, 10, 50 * MS, &uid) == v && uid == 1000);
        /* A second value for the pid replaces the first. */
        check(proc_cache_put(c, 10, 1001, value(), 0) == 0 && n_freed == 1);
        /* Expired: gone, but its uid is known until then. */
        check(proc_cache_uid(c, 10, &uid) == 0 && uid == 1001);
        check(!proc_cache_get(c, 10, 100 * MS, NULL) && n_freed == 2);
        check(proc_cache_uid(c, 10, &uid) == -ENOENT);

        /* Bounded: a third process replaces one of two. */
        check(proc_cache_put(c, 1, 1, value(), 0) == 0);
        check(proc_cache_put(c, 2, 2, value(), 0) == 0);
        check(proc_cache_put(c, 3, 3, value(), 0) == 0);
        check(proc_cache_size(c) == 2 && n_freed == 3);
        check(proc_cache_get(c, 3, 0, NULL));

        /* A flush (rescan, reload): nothing handed out, the pid still known
         * to have had thread events. */
        proc_cache_flush(c);
        check(proc_cache_has(c, 3));
        check(!proc_cache_get(c, 3, 0, NULL));
        check(!proc_cache_has(c, 3));
        proc_cache_drop(c, 99);
        proc_cache_free(c);
        check(n_freed == 5);
}

static void test_log(void)
{
        ProcessLog *l = NULL;
        char *reason = NULL;
        uint64_t n = 0;

        check(process_log_new(1, 0, &l) == -EINVAL && !l);
        CHECK(process_log_new(2, 10 * 1000 * MS, &l) == 0);
        /* The first thread is said, the next 9,999 are counted. */
        check(process_log_note(l, 10, "untrusted", 1, 0, &n) == 1 && n == 1);
        for (int i = 0; i < 9999; i++)
                check(process_log_note(l, 10, "untrusted", 1, i * MS, &n) == 0);
        /* Another reason of the same process is said at once, and kept apart. */
        check(process_log_note(l, 10, "rule a", 1, 20 * MS, &n) == 1);
        check(process_log_note(l, 10, "rule a", 1, 21 * MS, &n) == 0);
        check(process_log_note(l, 10, "untrusted", 1, 22 * MS, &n) == 0);
        /* After the interval: said with what was counted. */
        check(process_log_note(l, 10, "untrusted", 1, 10 * 1000 * MS, &n) == 1 && n == 10001);
        check(process_log_note(l, 10, "untrusted", 2, 10 * 1000 * MS + 1, &n) == 0);
        /* At the exit: the rest. */
        check(process_log_forget(l, 10, &reason) == 2);
        check_streq(reason, "untrusted");
        free(reason);
        check(process_log_forget(l, 10, &reason) == 0 && !reason);
        /* Bounded. */
        for (pid_t p = 1; p <= 5; p++)
                check(process_log_note(l, p, "x", 1, 0, &n) == 1);
        check(process_log_size(l) == 2);
        process_log_free(l);
}

int main(void)
{
        test_cache();
        test_log();
        return test_result();
}
