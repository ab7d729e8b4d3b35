/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Id cache: user and group names of uids and gids, so that a policy with
 * "user:" or "group:" predicates does not pay an NSS lookup (8-25 us with
 * nss_files: /etc/nsswitch.conf, /etc/passwd and /etc/group are re-read
 * every time) for every exec.
 *
 * Staleness: names change when an administrator edits the account files
 * (useradd, usermod) or when another NSS source changes its answer (LDAP,
 * systemd DynamicUser= ids come and go with their unit). So:
 *  - a change of /etc/passwd (or /etc/group) — inode, size or mtime — drops
 *    every user (group) entry; checked with one stat() per lookup, which
 *    costs far less than the lookup it saves;
 *  - an entry is used for at most ID_CACHE_TTL_USEC (a miss, "no such id",
 *    for at most ID_CACHE_NEGATIVE_TTL_USEC), for the other sources;
 *  - id_cache_flush() drops everything (latniced calls it on reload).
 * Bounded: at most ID_CACHE_MAX entries of each kind; when full, the table
 * is emptied (ids a process can take are few outside user namespaces).
 */
#pragma once

#include <stdint.h>
#include <sys/types.h>

#define ID_CACHE_TTL_USEC (10u * 1000u * 1000u)
#define ID_CACHE_NEGATIVE_TTL_USEC (1000u * 1000u)
#define ID_CACHE_MAX 512

typedef struct IdCache IdCache;

/* PASSWD_FILE, GROUP_FILE: the files whose change empties the cache (NULL:
 * /etc/passwd and /etc/group). */
int id_cache_new(const char *passwd_file, const char *group_file, IdCache **ret);
IdCache *id_cache_free(IdCache *c);
static inline void id_cache_freep(IdCache **c)
{
        if (*c)
                id_cache_free(*c);
}

/*
 * The name of UID (GID) at time NOW_USEC (CLOCK_MONOTONIC): *ret is NULL if
 * it has none, else borrowed until the next id_cache_user() (for users) or
 * id_cache_group() (for groups) call or id_cache_flush(). -ENOMEM only.
 */
int id_cache_user(IdCache *c, uid_t uid, uint64_t now_usec, const char **ret);
int id_cache_group(IdCache *c, gid_t gid, uint64_t now_usec, const char **ret);

void id_cache_flush(IdCache *c);

/* Counters, for tests and status. */
typedef struct IdCacheStats {
        uint64_t n_hits, n_lookups; /* lookups: cache misses that asked NSS */
        uint64_t n_flushes;         /* account file changes, size bound, flush calls */
} IdCacheStats;
IdCacheStats id_cache_stats(const IdCache *c);
