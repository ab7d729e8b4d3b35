/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Tests for daemon/watch/idcache.c: names through NSS once, then from the cache;
 * expiry, misses, account file changes, flush, size bound. The account
 * files watched for changes are copies in a temp dir (NSS itself still
 * reads the system's). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/watch/idcache.h"
#include "lib/macro.h"
#include "tests/unit/test-util.h"

static char dir[] = "/tmp/test-idcache-XXXXXX";
static char passwd[64], group[64];

static void append(const char *path, const char *s)
{
        FILE *f = fopen(path, "ae");

        CHECK(f);
        CHECK(fputs(s, f) >= 0);
        CHECK(fclose(f) == 0);
}

/* A uid no account has (checked). */
static uid_t unnamed_id(uid_t from)
{
        for (uid_t u = from;; u++) {
                _cleanup_(id_cache_freep) IdCache *c = NULL;
                const char *n = "x";

                CHECK(id_cache_new(passwd, group, &c) == 0);
                CHECK(id_cache_user(c, u, 0, &n) == 0);
                if (!n)
                        return u;
        }
}

int main(void)
{
        _cleanup_(id_cache_freep) IdCache *c = NULL;
        const char *u, *g;
        IdCacheStats st;
        uid_t none;
        uint64_t t = 1000;

        CHECK(mkdtemp(dir));
        snprintf(passwd, sizeof(passwd), "%s/passwd", dir);
        snprintf(group, sizeof(group), "%s/group", dir);
        append(passwd, "root:x:0:0::/root:/bin/sh\n");
        append(group, "root:x:0:\n");
        none = unnamed_id(4242420);

        CHECK(id_cache_new(passwd, group, &c) == 0);
        CHECK(id_cache_user(c, 0, t, &u) == 0 && streq_ptr(u, "root"));
        CHECK(id_cache_group(c, 0, t, &g) == 0 && streq_ptr(g, "root"));
        /* a group lookup leaves the user name alone */
        CHECK(streq(u, "root"));
        st = id_cache_stats(c);
        CHECK(st.n_lookups == 2 && st.n_hits == 0);
        CHECK(id_cache_user(c, 0, t + 1, &u) == 0 && streq_ptr(u, "root"));
        CHECK(id_cache_stats(c).n_hits == 1 && id_cache_stats(c).n_lookups == 2);

        /* expiry */
        CHECK(id_cache_user(c, 0, t + ID_CACHE_TTL_USEC - 1, &u) == 0 && streq_ptr(u, "root"));
        CHECK(id_cache_stats(c).n_lookups == 2);
        CHECK(id_cache_user(c, 0, t + ID_CACHE_TTL_USEC, &u) == 0 && streq_ptr(u, "root"));
        CHECK(id_cache_stats(c).n_lookups == 3);
        t += ID_CACHE_TTL_USEC;
        CHECK(id_cache_group(c, 0, t, &g) == 0 && streq_ptr(g, "root"));
        CHECK(id_cache_stats(c).n_lookups == 4);

        /* an id without a name: cached for a shorter while */
        CHECK(id_cache_user(c, none, t, &u) == 0 && !u);
        CHECK(id_cache_user(c, none, t + ID_CACHE_NEGATIVE_TTL_USEC - 1, &u) == 0 && !u);
        CHECK(id_cache_stats(c).n_lookups == 5);
        CHECK(id_cache_user(c, none, t + ID_CACHE_NEGATIVE_TTL_USEC, &u) == 0 && !u);
        CHECK(id_cache_stats(c).n_lookups == 6);

        /* the passwd file changes: users are looked up again, groups are not */
        append(passwd, "nobody:x:65534:65534::/:/bin/false\n");
        CHECK(id_cache_user(c, 0, t + 2, &u) == 0 && streq_ptr(u, "root"));
        CHECK(id_cache_stats(c).n_lookups == 7);
        CHECK(id_cache_group(c, 0, t + 2, &g) == 0 && streq_ptr(g, "root"));
        CHECK(id_cache_stats(c).n_lookups == 7);
        append(group, "nogroup:x:65534:\n");
        CHECK(id_cache_group(c, 0, t + 3, &g) == 0 && streq_ptr(g, "root"));
        CHECK(id_cache_stats(c).n_lookups == 8);
        /* ... and a file that disappears counts as a change too */
        CHECK(unlink(passwd) == 0);
        CHECK(id_cache_user(c, 0, t + 4, &u) == 0 && streq_ptr(u, "root"));
        CHECK(id_cache_stats(c).n_lookups == 9);
        CHECK(id_cache_user(c, 0, t + 5, &u) == 0 && streq_ptr(u, "root"));
        CHECK(id_cache_stats(c).n_lookups == 9);

        /* flush: everything again */
        id_cache_flush(c);
        CHECK(id_cache_user(c, 0, t + 6, &u) == 0 && streq_ptr(u, "root"));
        CHECK(id_cache_group(c, 0, t + 6, &g) == 0 && streq_ptr(g, "root"));
        CHECK(id_cache_stats(c).n_lookups == 11);

        /* bounded: more distinct ids than ID_CACHE_MAX empties the table */
        st = id_cache_stats(c);
        for (unsigned i = 0; i < ID_CACHE_MAX + 10; i++)
                CHECK(id_cache_group(c, (gid_t)(none + i), t + 7, &g) == 0);
        CHECK(id_cache_stats(c).n_flushes == st.n_flushes + 1);
        /* the first of them was dropped with the rest */
        st = id_cache_stats(c);
        CHECK(id_cache_group(c, (gid_t)none, t + 8, &g) == 0);
        CHECK(id_cache_stats(c).n_lookups == st.n_lookups + 1);
        /* the last ones are still there */
        CHECK(id_cache_group(c, (gid_t)(none + ID_CACHE_MAX + 9), t + 8, &g) == 0);
        CHECK(id_cache_stats(c).n_lookups == st.n_lookups + 1);

        unlink(group);
        CHECK(rmdir(dir) == 0);
        return 0;
}
