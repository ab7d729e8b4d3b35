/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "daemon/watch/idcache.h"
#include "lib/grow.h"
#include "lib/macro.h"
#include "lib/util.h"

typedef struct IdEntry {
        uint32_t id;
        char *name;       /* NULL: the id has no name */
        uint64_t expires; /* CLOCK_MONOTONIC usec */
} IdEntry;

typedef struct FileStamp {
        bool exists;
        dev_t dev;
        ino_t ino;
        off_t size;
        struct timespec mtime;
} FileStamp;

typedef struct IdTable {
        char *file;
        FileStamp stamp;
        IdEntry *entries;
        size_t n, allocated;
} IdTable;

struct IdCache {
        IdTable users, groups;
        IdCacheStats stats;
};

static void table_clear(IdTable *t)
{
        for (size_t i = 0; i < t->n; i++)
                free(t->entries[i].name);
        t->n = 0;
}

static void table_done(IdTable *t)
{
        table_clear(t);
        free(t->entries);
        free(t->file);
        *t = (IdTable){};
}

int id_cache_new(const char *passwd_file, const char *group_file, IdCache **ret)
{
        IdCache *c = calloc(1, sizeof(*c));

        if (!c)
                return -ENOMEM;
        c->users.file = strdup(passwd_file ?: "/etc/passwd");
        c->groups.file = strdup(group_file ?: "/etc/group");
        if (!c->users.file || !c->groups.file) {
                id_cache_free(c);
                return -ENOMEM;
        }
        *ret = c;
        return 0;
}

IdCache *id_cache_free(IdCache *c)
{
        if (!c)
                return NULL;
        table_done(&c->users);
        table_done(&c->groups);
        free(c);
        return NULL;
}

void id_cache_flush(IdCache *c)
{
        table_clear(&c->users);
        table_clear(&c->groups);
        c->users.stamp = c->groups.stamp = (FileStamp){};
        c->stats.n_flushes++;
}

IdCacheStats id_cache_stats(const IdCache *c)
{
        return c->stats;
}

/* Empty T if its account file changed since the last call. */
static void table_check_file(IdCache *c, IdTable *t)
{
        FileStamp now = {};
        struct stat st;

        if (stat(t->file, &st) == 0)
                now = (FileStamp){ .exists = true, .dev = st.st_dev, .ino = st.st_ino,
                                   .size = st.st_size, .mtime = st.st_mtim };
        if (now.exists == t->stamp.exists && now.dev == t->stamp.dev &&
            now.ino == t->stamp.ino && now.size == t->stamp.size &&
            now.mtime.tv_sec == t->stamp.mtime.tv_sec &&
            now.mtime.tv_nsec == t->stamp.mtime.tv_nsec)
                return;
        if (t->n > 0) {
                table_clear(t);
                c->stats.n_flushes++;
        }
        t->stamp = now;
}

/* NSS: 1 and *ret (NULL: no such id), or 0 when the lookup failed (not cacheable). */
static int lookup_name(bool user, uint32_t id, char **ret)
{
        int r = id_to_name(!user, id, ret);

        if (r == -ENOMEM)
                return r;
        return r < 0 ? 0 : 1;
}

static int table_get(IdCache *c, IdTable *t, bool user, uint32_t id, uint64_t now,
                     const char **ret)
{
        IdEntry *e = NULL;
        char *name = NULL;
        int r;

        table_check_file(c, t);
        for (size_t i = 0; i < t->n; i++)
                if (t->entries[i].id == id) {
                        e = &t->entries[i];
                        break;
                }
        if (e && now < e->expires) {
                c->stats.n_hits++;
                *ret = e->name;
                return 0;
        }

        c->stats.n_lookups++;
        r = lookup_name(user, id, &name);
        if (r < 0)
                return r;
        if (r == 0) {
                /* Not cacheable; drop a stale entry, answer "no name". */
                if (e) {
                        free(e->name);
                        *e = t->entries[--t->n];
                }
                *ret = NULL;
                return 0;
        }

        if (!e) {
                if (t->n >= ID_CACHE_MAX) {
                        table_clear(t);
                        c->stats.n_flushes++;
                }
                if (GROW(t->entries, t->allocated, t->n + 1, 16) < 0) {
                        free(name);
                        return -ENOMEM;
                }
                e = &t->entries[t->n++];
        } else
                free(e->name);
        *e = (IdEntry){
                .id = id,
                .name = name,
                .expires = now + (name ? ID_CACHE_TTL_USEC : ID_CACHE_NEGATIVE_TTL_USEC),
        };
        *ret = e->name;
        return 0;
}

int id_cache_user(IdCache *c, uid_t uid, uint64_t now_usec, const char **ret)
{
        return table_get(c, &c->users, true, (uint32_t)uid, now_usec, ret);
}

int id_cache_group(IdCache *c, gid_t gid, uint64_t now_usec, const char **ret)
{
        return table_get(c, &c->groups, false, (uint32_t)gid, now_usec, ret);
}
