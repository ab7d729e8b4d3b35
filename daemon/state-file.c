/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/state-file.h"
#include "lib/ioprio.h"
#include "lib/core-sched.h"
#include "lib/macro.h"

#define STATE_MAGIC "LNSTATE"
/* 2: CoreSched (the cookies and the setting) at the end of a copy. A
 * version 1 file is set aside like any other version. */
#define STATE_VERSION 2u
#define STATE_INITIAL_RECORDS 256u
/* 4 Mi records (1.6 GiB): far beyond any task count, a bound for a header
 * that says otherwise. */
#define STATE_MAX_RECORDS (1u << 22)

#define COPY_USED 0x1u
#define COPY_USER_OWNED 0x2u

typedef struct DiskSched {
        int32_t policy, nice;
        uint32_t priority, util_min, util_max;
        int32_t latency_nice;
        uint64_t slice_ns, flags, timer_slack_ns;
        uint8_t custom_slice, has_latency_nice;
        int16_t ioprio, oom_score_adj; /* were padding: 0 in older files, unused there */
        uint8_t pad[2];
} DiskSched;

typedef struct DiskCopy {
        uint64_t seq; /* 0: never written */
        uint64_t starttime;
        int32_t pid, tid;
        uint32_t flags, applied_mask, pending_mask, settings_mask;
        int32_t s_latency_nice, s_nice, s_policy;
        uint32_t s_util_min, s_util_max;
        uint8_t s_io_class, s_io_nice; /* were padding, as s_oom_score_adj */
        int16_t s_oom_score_adj;
        uint64_t s_slice_ns, s_timer_slack_ns;
        uint64_t orig_core_cookie, expected_core_cookie; /* SchedState.core_cookie */
        uint64_t s_core_group;
        int32_t s_core_mode;
        uint32_t pad_core;
        DiskSched orig, expected;
        uint64_t checksum; /* of everything before it; written last */
} DiskCopy;

typedef struct DiskRecord {
        DiskCopy copy[2];
} DiskRecord;

typedef struct DiskCgCopy {
        uint64_t seq; /* 0: never written */
        uint64_t ino, autogroup_id, starttime;
        uint32_t flags;
        uint8_t owner, kind;
        uint16_t path_len;
        int32_t pid;
        uint32_t pad;
        char orig[STATE_VALUE_MAX], written[STATE_VALUE_MAX], previous[STATE_VALUE_MAX];
        char path[STATE_PATH_MAX];
        uint64_t checksum; /* of everything before it; written last */
} DiskCgCopy;

typedef struct DiskCgRecord {
        DiskCgCopy copy[2];
} DiskCgRecord;

typedef struct DiskHeader {
        char magic[8];
        uint32_t version, header_size, record_size, n_records;
        uint64_t generation;
        uint8_t boot_id[16];
        uint32_t n_cg_records; /* the cgroup table after the task records; 0: none */
        uint8_t reserved[12];
} DiskHeader;

_Static_assert(sizeof(DiskSched) == 56, "DiskSched layout");
_Static_assert(sizeof(DiskCopy) == 232, "DiskCopy layout");
_Static_assert(sizeof(DiskHeader) == 64, "DiskHeader layout");
_Static_assert(sizeof(DiskCgCopy) == 4248, "DiskCgCopy layout");

#define STATE_INITIAL_CG_RECORDS 16u
/* 64 Ki cgroup records (1 GiB): a bound for a header that says otherwise. */
#define STATE_MAX_CG_RECORDS (1u << 16)

/* Per-slot bookkeeping of the cgroup table (the task table's is inline in
 * StateFile, older). */
/* The in-memory side of a table of two-copy records (tasks, cgroups). */
typedef struct Slots {
        uint32_t n;
        uint64_t *seq;     /* per slot: sequence number of its newest valid copy */
        int8_t *active;    /* per slot: that copy (0, 1), -1 none */
        uint32_t *free;    /* stack of free slots, lowest on top */
        size_t n_free, n_used;
        StateCgroupRecord *loaded; /* cgroup table: found at open, until taken */
        size_t n_loaded;
} Slots;

struct StateFile {
        char *path;
        int fd;
        uint8_t *map;
        size_t map_size;
        Slots tasks;
        Slots cg;
};

static DiskHeader *header(StateFile *f)
{
        return (DiskHeader *)f->map;
}

static DiskRecord *record(StateFile *f, uint32_t slot)
{
        return (DiskRecord *)(f->map + sizeof(DiskHeader)) + slot;
}

static uint64_t bytes_checksum(const void *c, size_t n)
{
        const uint8_t *p = c;
        uint64_t h = 0xcbf29ce484222325ull ^ 0x4c4e535441544531ull; /* FNV-1a, salted */

        for (size_t i = 0; i < n; i++) {
                h ^= p[i];
                h *= 0x100000001b3ull;
        }
        return h;
}

static uint64_t copy_checksum(const DiskCopy *c)
{
        return bytes_checksum(c, offsetof(DiskCopy, checksum));
}

static bool copy_is_zero(const DiskCopy *c)
{
        const uint8_t *p = (const uint8_t *)c;

        for (size_t i = 0; i < sizeof(*c); i++)
                if (p[i])
                        return false;
        return true;
}

static void sched_encode(const SchedState *s, DiskSched *d)
{
        *d = (DiskSched){
                .policy = s->policy,
                .nice = s->nice,
                .priority = s->priority,
                .util_min = s->util_min,
                .util_max = s->util_max,
                .latency_nice = s->latency_nice,
                .slice_ns = s->slice_ns,
                .flags = s->flags,
                .timer_slack_ns = s->timer_slack_ns,
                .custom_slice = s->custom_slice,
                .has_latency_nice = s->has_latency_nice,
                .ioprio = (int16_t)s->ioprio,
                .oom_score_adj = (int16_t)s->oom_score_adj,
        };
}

static bool sched_decode(const DiskSched *d, SchedState *s)
{
        if (d->policy < 0 || d->policy > 7 || d->nice < -20 || d->nice > 19 ||
            d->latency_nice < -20 || d->latency_nice > 19 || d->util_min > 1024 ||
            d->util_max > 1024 || d->custom_slice > 1 || d->has_latency_nice > 1 ||
            d->ioprio < 0 || LN_IOPRIO_CLASS(d->ioprio) > LN_IOPRIO_CLASS_IDLE ||
            d->oom_score_adj < OOM_SCORE_ADJ_MIN || d->oom_score_adj > OOM_SCORE_ADJ_MAX)
                return false;
        *s = (SchedState){
                .policy = d->policy,
                .nice = d->nice,
                .priority = d->priority,
                .slice_ns = d->slice_ns,
                .custom_slice = d->custom_slice,
                .util_min = d->util_min,
                .util_max = d->util_max,
                .has_latency_nice = d->has_latency_nice,
                .latency_nice = d->latency_nice,
                .flags = d->flags,
                .timer_slack_ns = d->timer_slack_ns,
                .ioprio = d->ioprio,
                .oom_score_adj = d->oom_score_adj,
        };
        return true;
}

/* REC as a copy; seq and checksum left 0. */
static void record_encode(const StateRecord *rec, bool used, DiskCopy *c)
{
        memset(c, 0, sizeof(*c));
        if (!used)
                return;
        c->flags = COPY_USED | (rec->user_owned ? COPY_USER_OWNED : 0);
        c->pid = rec->pid;
        c->tid = rec->tid;
        c->starttime = rec->starttime;
        c->applied_mask = rec->applied_mask;
        c->pending_mask = rec->pending_mask;
        c->settings_mask = rec->settings.mask & SETTINGS_TASK_MASK;
        c->s_latency_nice = rec->settings.latency_nice;
        c->s_nice = rec->settings.nice;
        c->s_policy = rec->settings.policy;
        c->s_util_min = rec->settings.util_min;
        c->s_util_max = rec->settings.util_max;
        c->s_slice_ns = rec->settings.slice_ns;
        c->s_timer_slack_ns = rec->settings.timer_slack_ns;
        c->s_io_class = (uint8_t)rec->settings.io_class;
        c->s_io_nice = (uint8_t)rec->settings.io_nice;
        c->s_oom_score_adj = (int16_t)rec->settings.oom_score_adj;
        c->s_core_mode = rec->settings.core_sched.mode;
        c->s_core_group = rec->settings.core_sched.group;
        c->orig_core_cookie = rec->orig.core_cookie;
        c->expected_core_cookie = rec->expected.core_cookie;
        sched_encode(&rec->orig, &c->orig);
        sched_encode(&rec->expected, &c->expected);
}

/* A valid, used copy into *REC. False if its values are out of range. */
static bool record_decode(const DiskCopy *c, uint32_t slot, StateRecord *rec)
{
        StateRecord r = {
                .slot = slot,
                .pid = c->pid,
                .tid = c->tid,
                .starttime = c->starttime,
                .user_owned = c->flags & COPY_USER_OWNED,
                .applied_mask = c->applied_mask,
                .pending_mask = c->pending_mask,
                .settings = {
                        .mask = c->settings_mask,
                        .latency_nice = c->s_latency_nice,
                        .slice_ns = c->s_slice_ns,
                        .nice = c->s_nice,
                        .policy = c->s_policy,
                        .util_min = c->s_util_min,
                        .util_max = c->s_util_max,
                        .timer_slack_ns = c->s_timer_slack_ns,
                        .core_sched = { .mode = c->s_core_mode, .group = c->s_core_group },
                        .io_class = c->s_io_class,
                        .io_nice = c->s_io_nice,
                        .oom_score_adj = c->s_oom_score_adj,
                },
        };

        if (c->pid <= 0 || c->tid <= 0 || (c->flags & ~(COPY_USED | COPY_USER_OWNED)) ||
            ((c->applied_mask | c->pending_mask | c->settings_mask) & ~SETTINGS_TASK_MASK) ||
            c->s_io_class > LN_IOPRIO_CLASS_IDLE || c->s_io_nice > 7 ||
            c->s_oom_score_adj < OOM_SCORE_ADJ_MIN || c->s_oom_score_adj > OOM_SCORE_ADJ_MAX)
                return false;
        if (!sched_decode(&c->orig, &r.orig) || !sched_decode(&c->expected, &r.expected))
                return false;
        if (c->s_core_mode < 0 || c->s_core_mode >= _CORE_SCHED_MAX || c->pad_core != 0)
                return false;
        r.orig.core_cookie = c->orig_core_cookie;
        r.expected.core_cookie = c->expected_core_cookie;
        *rec = r;
        return true;
}

/* /proc/sys/kernel/random/boot_id as 16 bytes; zeros if unreadable. */
static void read_boot_id(uint8_t ret[16])
{
        char buf[64] = {}, *p = buf;
        _cleanup_close_ int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
        ssize_t n;

        memset(ret, 0, 16);
        if (fd < 0)
                return;
        n = read(fd, buf, sizeof(buf) - 1);
        if (n <= 0)
                return;
        for (unsigned i = 0; i < 16 && *p; i++) {
                unsigned v;
                if (*p == '-')
                        p++;
                if (sscanf(p, "%2x", &v) != 1) {
                        memset(ret, 0, 16);
                        return;
                }
                ret[i] = (uint8_t)v;
                p += 2;
        }
}

StateFile *state_file_free(StateFile *f)
{
        if (!f)
                return NULL;
        if (f->map)
                (void)munmap(f->map, f->map_size);
        safe_close(f->fd);
        free(f->tasks.seq);
        free(f->tasks.active);
        free(f->tasks.free);
        free(f->cg.seq);
        free(f->cg.active);
        free(f->cg.free);
        state_cgroup_records_free(f->cg.loaded, f->cg.n_loaded);
        free(f->path);
        free(f);
        return NULL;
}

void state_file_load_done(StateFileLoad *l)
{
        free(l->records);
        free(l->problem);
        free(l->set_aside);
        *l = (StateFileLoad){};
}

const char *state_file_path(const StateFile *f)
{
        return f->path;
}

size_t state_file_n_used(const StateFile *f)
{
        return f->tasks.n_used;
}

/* Size a table's per-slot arrays for N records; new slots are free (pushed
 * highest first, so the lowest is used first). */
static int slots_resize(Slots *s, uint32_t n)
{
        uint64_t *seq;
        int8_t *active;
        uint32_t *fr;

        if (n <= s->n)
                return 0;
        seq = realloc(s->seq, n * sizeof(uint64_t));
        if (!seq)
                return -ENOMEM;
        s->seq = seq;
        active = realloc(s->active, n * sizeof(int8_t));
        if (!active)
                return -ENOMEM;
        s->active = active;
        fr = realloc(s->free, n * sizeof(uint32_t));
        if (!fr)
                return -ENOMEM;
        s->free = fr;
        for (uint32_t i = s->n; i < n; i++) {
                s->seq[i] = 0;
                s->active[i] = -1;
        }
        memmove(s->free + (n - s->n), s->free, s->n_free * sizeof(uint32_t));
        for (uint32_t i = 0; i < n - s->n; i++)
                s->free[i] = n - 1 - i;
        s->n_free += n - s->n;
        s->n = n;
        return 0;
}

static size_t file_size_for(uint32_t n)
{
        return sizeof(DiskHeader) + (size_t)n * sizeof(DiskRecord);
}

static bool slot_used(StateFile *f, uint32_t slot)
{
        return f->tasks.active[slot] >= 0 && (record(f, slot)->copy[f->tasks.active[slot]].flags & COPY_USED);
}

/* The free stack of table S from scratch: every slot USED says is not in
 * use, lowest on top. */
static void slots_free_rebuild(StateFile *f, Slots *s, bool (*used)(StateFile *, uint32_t))
{
        s->n_free = 0;
        s->n_used = 0;
        for (uint32_t i = s->n; i > 0; i--) {
                if (used(f, i - 1))
                        s->n_used++;
                else
                        s->free[s->n_free++] = i - 1;
        }
}

/* Write copy C (seq and checksum filled in here) into the older copy of
 * SLOT. The checksum goes last, after a compiler barrier: until it is
 * stored, the copy does not match it and the other copy is the record. */
static void slot_write(StateFile *f, uint32_t slot, DiskCopy *c)
{
        int target = f->tasks.active[slot] == 0 ? 1 : 0;
        DiskCopy *d = &record(f, slot)->copy[target];
        uint64_t sum;

        c->seq = f->tasks.seq[slot] + 1;
        sum = copy_checksum(c);
        memcpy(d, c, offsetof(DiskCopy, checksum));
        atomic_signal_fence(memory_order_seq_cst);
        __atomic_store_n(&d->checksum, sum, __ATOMIC_RELEASE);
        f->tasks.seq[slot] = c->seq;
        f->tasks.active[slot] = (int8_t)target;
}

void state_file_put(StateFile *f, const StateRecord *rec)
{
        DiskCopy c;
        bool was_used;

        if (!f || rec->slot >= f->tasks.n)
                return;
        record_encode(rec, true, &c);
        was_used = slot_used(f, rec->slot);
        if (was_used) {
                const DiskCopy *cur = &record(f, rec->slot)->copy[f->tasks.active[rec->slot]];
                /* Unchanged: nothing to write (most re-evaluations). */
                if (memcmp((const uint8_t *)cur + offsetof(DiskCopy, starttime),
                           (const uint8_t *)&c + offsetof(DiskCopy, starttime),
                           offsetof(DiskCopy, checksum) - offsetof(DiskCopy, starttime)) == 0)
                        return;
        }
        slot_write(f, rec->slot, &c);
        if (!was_used)
                f->tasks.n_used++;
}

void state_file_release(StateFile *f, uint32_t slot)
{
        DiskCopy c;

        if (!f || slot >= f->tasks.n || !slot_used(f, slot))
                return;
        record_encode(NULL, false, &c);
        slot_write(f, slot, &c);
        f->tasks.n_used--;
        f->tasks.free[f->tasks.n_free++] = slot;
}

static size_t cg_size_for(uint32_t n)
{
        return (size_t)n * sizeof(DiskCgRecord);
}

/* Grow the file and the mapping to N task records. The size first, the
 * cgroup table copied behind the new task slots, then the header's count,
 * which moves both at once (a file longer than its header says is read as
 * the header says); the stale cgroup table, now in new task slots, is
 * cleared last (state-file.h: the window this leaves). */
static int state_file_grow(StateFile *f, uint32_t n)
{
        size_t old_end = file_size_for(f->tasks.n), cg = cg_size_for(f->cg.n);
        size_t size = file_size_for(n) + cg;
        void *p;
        int r;

        if (n > STATE_MAX_RECORDS)
                return -ENOSPC;
        r = slots_resize(&f->tasks, n);
        if (r < 0)
                return r;
        if (ftruncate(f->fd, (off_t)size) < 0)
                return -errno;
        p = mremap(f->map, f->map_size, size, MREMAP_MAYMOVE);
        if (p == MAP_FAILED)
                return -errno;
        f->map = p;
        f->map_size = size;
        if (cg > 0)
                memmove(f->map + file_size_for(n), f->map + old_end, cg);
        __atomic_store_n(&header(f)->n_records, n, __ATOMIC_RELEASE);
        atomic_signal_fence(memory_order_seq_cst);
        memset(f->map + old_end, 0, file_size_for(n) - old_end);
        return 0;
}

int state_file_alloc(StateFile *f, uint32_t *ret_slot)
{
        int r;

        if (f->tasks.n_free == 0) {
                uint32_t old = f->tasks.n;

                r = state_file_grow(f, old * 2);
                if (r < 0) {
                        /* The arrays may be larger already; the file is not. */
                        if (f->tasks.n != old) {
                                f->tasks.n = old;
                                slots_free_rebuild(f, &f->tasks, slot_used);
                        }
                        return r;
                }
        }
        *ret_slot = f->tasks.free[--f->tasks.n_free];
        return 0;
}

/* ---- Cgroup table (state-file.h) ------------------------------------- */

static DiskCgRecord *cg_record(StateFile *f, uint32_t slot)
{
        return (DiskCgRecord *)(f->map + file_size_for(f->tasks.n)) + slot;
}

static uint64_t cg_copy_checksum(const DiskCgCopy *c)
{
        return bytes_checksum(c, offsetof(DiskCgCopy, checksum));
}

static bool cg_slot_used(StateFile *f, uint32_t slot)
{
        return f->cg.active[slot] >= 0 &&
               (cg_record(f, slot)->copy[f->cg.active[slot]].flags & COPY_USED);
}


/* As slot_write(), for the cgroup table. */
static void cg_slot_write(StateFile *f, uint32_t slot, DiskCgCopy *c)
{
        int target = f->cg.active[slot] == 0 ? 1 : 0;
        DiskCgCopy *d = &cg_record(f, slot)->copy[target];
        uint64_t sum;

        c->seq = f->cg.seq[slot] + 1;
        sum = cg_copy_checksum(c);
        memcpy(d, c, offsetof(DiskCgCopy, checksum));
        atomic_signal_fence(memory_order_seq_cst);
        __atomic_store_n(&d->checksum, sum, __ATOMIC_RELEASE);
        f->cg.seq[slot] = c->seq;
        f->cg.active[slot] = (int8_t)target;
}

static int value_encode(const char v[STATE_VALUE_MAX], char dst[STATE_VALUE_MAX])
{
        size_t n = strnlen(v, STATE_VALUE_MAX);

        if (n >= STATE_VALUE_MAX)
                return -EOVERFLOW;
        memcpy(dst, v, n);
        return 0;
}

static int cg_encode(const StateCgroupRecord *rec, DiskCgCopy *c)
{
        size_t n = rec->path ? strlen(rec->path) : 0;
        int r;

        memset(c, 0, sizeof(*c));
        if (n == 0 || n >= STATE_PATH_MAX)
                return -ENAMETOOLONG;
        c->flags = COPY_USED;
        c->owner = (uint8_t)rec->owner;
        c->kind = (uint8_t)rec->kind;
        c->path_len = (uint16_t)n;
        c->pid = rec->pid;
        c->ino = rec->ino;
        c->autogroup_id = rec->autogroup_id;
        c->starttime = rec->starttime;
        memcpy(c->path, rec->path, n);
        r = value_encode(rec->orig, c->orig);
        if (r >= 0)
                r = value_encode(rec->written, c->written);
        if (r >= 0)
                r = value_encode(rec->previous, c->previous);
        return r;
}

/* A valid, used copy into *REC (path allocated). -EINVAL if out of range. */
static int cg_decode(const DiskCgCopy *c, uint32_t slot, StateCgroupRecord *rec)
{
        StateCgroupRecord r = {
                .slot = slot,
                .owner = c->owner,
                .kind = c->kind,
                .ino = c->ino,
                .autogroup_id = c->autogroup_id,
                .pid = c->pid,
                .starttime = c->starttime,
        };

        if (c->flags != COPY_USED ||
            (c->owner != STATE_CGROUP_UNITS && c->owner != STATE_CGROUP_GROUPS) ||
            c->path_len == 0 || c->path_len >= STATE_PATH_MAX ||
            memchr(c->path, 0, c->path_len) || c->path[c->path_len] ||
            !memchr(c->orig, 0, STATE_VALUE_MAX) || !memchr(c->written, 0, STATE_VALUE_MAX) ||
            !memchr(c->previous, 0, STATE_VALUE_MAX))
                return -EINVAL;
        memcpy(r.orig, c->orig, STATE_VALUE_MAX);
        memcpy(r.written, c->written, STATE_VALUE_MAX);
        memcpy(r.previous, c->previous, STATE_VALUE_MAX);
        r.path = strndup(c->path, c->path_len);
        if (!r.path)
                return -ENOMEM;
        *rec = r;
        return 0;
}

/* The cgroup table's N records (mapped): valid ones into F->cg.loaded, as
 * records_read() for the task table. */
static int cg_records_read(StateFile *f, uint32_t n, StateFileLoad *l)
{
        int r;

        r = slots_resize(&f->cg, n);
        if (r < 0)
                return r;
        if (n == 0)
                return 0;
        f->cg.loaded = calloc(n, sizeof(StateCgroupRecord));
        if (!f->cg.loaded)
                return -ENOMEM;
        for (uint32_t i = 0; i < n; i++) {
                DiskCgRecord *d = cg_record(f, i);
                int best = -1;
                bool torn = false;

                for (int k = 0; k < 2; k++) {
                        const DiskCgCopy *c = &d->copy[k];

                        if (c->seq == 0 && c->checksum == 0 && c->flags == 0)
                                continue; /* never written (cheap: not the whole 4 KiB) */
                        if (c->seq == 0 || c->checksum != cg_copy_checksum(c)) {
                                torn = true;
                                continue;
                        }
                        if (best < 0 || c->seq > d->copy[best].seq)
                                best = k;
                }
                if (best < 0 && torn && d->copy[0].seq && d->copy[1].seq) {
                        l->n_corrupt++;
                        continue;
                }
                l->n_torn += torn && best >= 0;
                if (best < 0)
                        continue;
                f->cg.active[i] = (int8_t)best;
                f->cg.seq[i] = d->copy[best].seq;
                if (!(d->copy[best].flags & COPY_USED))
                        continue;
                r = cg_decode(&d->copy[best], i, &f->cg.loaded[f->cg.n_loaded]);
                if (r == -ENOMEM)
                        return r;
                if (r < 0) {
                        l->n_corrupt++;
                        f->cg.active[i] = -1;
                        continue;
                }
                f->cg.n_loaded++;
        }
        return 0;
}

/* Grow the cgroup table (at the end of the file) to twice its size. The new
 * slots are cleared before the header counts them: a file longer than its
 * header says may hold anything there. */
static int cg_grow(StateFile *f)
{
        uint32_t old = f->cg.n, n = old ? old * 2 : STATE_INITIAL_CG_RECORDS;
        size_t end = file_size_for(f->tasks.n), size = end + cg_size_for(n);
        void *p;
        int r;

        if (n > STATE_MAX_CG_RECORDS)
                return -ENOSPC;
        if (ftruncate(f->fd, (off_t)size) < 0)
                return -errno;
        p = mremap(f->map, f->map_size, size, MREMAP_MAYMOVE);
        if (p == MAP_FAILED)
                return -errno;
        f->map = p;
        f->map_size = size;
        r = slots_resize(&f->cg, n);
        if (r < 0)
                return r; /* the header still says OLD: the file is as before */
        memset(f->map + end + cg_size_for(old), 0, cg_size_for(n) - cg_size_for(old));
        atomic_signal_fence(memory_order_seq_cst);
        __atomic_store_n(&header(f)->n_cg_records, n, __ATOMIC_RELEASE);
        return 0;
}

int state_file_cgroup_put(StateFile *f, uint32_t *slot1, const StateCgroupRecord *rec)
{
        DiskCgCopy c;
        uint32_t slot;
        int r;

        if (!f)
                return 0;
        r = cg_encode(rec, &c);
        if (r < 0)
                return r;
        if (*slot1 == 0) {
                if (f->cg.n_free == 0) {
                        r = cg_grow(f);
                        if (r < 0)
                                return r;
                }
                slot = f->cg.free[--f->cg.n_free];
                f->cg.n_used++;
                *slot1 = slot + 1;
        }
        cg_slot_write(f, *slot1 - 1, &c);
        return 0;
}

void state_file_cgroup_release(StateFile *f, uint32_t *slot1)
{
        DiskCgCopy c = {};
        uint32_t slot = *slot1 - 1;

        if (*slot1 == 0)
                return;
        *slot1 = 0;
        if (!f || slot >= f->cg.n || !cg_slot_used(f, slot))
                return;
        cg_slot_write(f, slot, &c);
        f->cg.n_used--;
        f->cg.free[f->cg.n_free++] = slot;
}

void state_cgroup_records_free(StateCgroupRecord *recs, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(recs[i].path);
        free(recs);
}

int state_file_cgroup_take(StateFile *f, StateCgroupOwner owner, StateCgroupRecord **ret,
                           size_t *ret_n)
{
        StateCgroupRecord *out;
        size_t n = 0, j = 0;

        if (!f || f->cg.n_loaded == 0) {
                *ret = NULL;
                *ret_n = 0;
                return 0;
        }
        out = calloc(f->cg.n_loaded, sizeof(StateCgroupRecord));
        if (!out)
                return -ENOMEM;
        for (size_t i = 0; i < f->cg.n_loaded; i++) {
                if (f->cg.loaded[i].owner == owner)
                        out[n++] = f->cg.loaded[i];
                else
                        f->cg.loaded[j++] = f->cg.loaded[i];
        }
        f->cg.n_loaded = j;
        *ret = out;
        *ret_n = n;
        return 0;
}

size_t state_file_cgroup_n_used(const StateFile *f)
{
        return f ? f->cg.n_used : 0;
}

/* Why header H (of a file of SIZE bytes) cannot be used, or NULL. */
static char *header_problem(const DiskHeader *h, size_t size, const uint8_t boot_id[16])
{
        static const uint8_t zero[16];
        char *s = NULL;
        int r = 0;

        if (size < sizeof(DiskHeader))
                r = asprintf(&s, "truncated: %zu bytes, shorter than its %zu-byte header", size,
                             sizeof(DiskHeader));
        else if (memcmp(h->magic, STATE_MAGIC, sizeof(h->magic)) != 0)
                r = asprintf(&s, "not a latniced state file (bad magic)");
        else if (h->version != STATE_VERSION)
                r = asprintf(&s, "version %u, this latniced reads version %u", h->version,
                             STATE_VERSION);
        else if (h->header_size != sizeof(DiskHeader) || h->record_size != sizeof(DiskRecord))
                r = asprintf(&s, "header size %u and record size %u, expected %zu and %zu",
                             h->header_size, h->record_size, sizeof(DiskHeader),
                             sizeof(DiskRecord));
        else if (h->n_records == 0 || h->n_records > STATE_MAX_RECORDS)
                r = asprintf(&s, "record count %u out of range 1..%u", h->n_records,
                             STATE_MAX_RECORDS);
        else if (h->n_cg_records > STATE_MAX_CG_RECORDS)
                r = asprintf(&s, "cgroup record count %u out of range 0..%u", h->n_cg_records,
                             STATE_MAX_CG_RECORDS);
        else if (size < file_size_for(h->n_records) + cg_size_for(h->n_cg_records))
                r = asprintf(&s, "truncated: %zu bytes, its %u task and %u cgroup records need "
                             "%zu", size, h->n_records, h->n_cg_records,
                             file_size_for(h->n_records) + cg_size_for(h->n_cg_records));
        else if (memcmp(boot_id, zero, 16) != 0 && memcmp(h->boot_id, zero, 16) != 0 &&
                 memcmp(h->boot_id, boot_id, 16) != 0)
                r = asprintf(&s, "written before the last reboot (another boot id)");
        else
                return NULL;
        return r < 0 ? strdup("unusable") : s;
}

/* Read every slot: the newest valid copy is the record. Counts torn and
 * corrupt records into L; corrupt ones are freed in place. */
static int records_read(StateFile *f, StateFileLoad *l)
{
        StateRecord *recs;

        recs = calloc(f->tasks.n, sizeof(StateRecord));
        if (!recs)
                return -ENOMEM;
        for (uint32_t i = 0; i < f->tasks.n; i++) {
                DiskRecord *d = record(f, i);
                int best = -1;
                bool torn = false;

                for (int k = 0; k < 2; k++) {
                        const DiskCopy *c = &d->copy[k];

                        if (copy_is_zero(c))
                                continue;
                        if (c->seq == 0 || c->checksum != copy_checksum(c)) {
                                torn = true;
                                continue;
                        }
                        if (best < 0 || c->seq > d->copy[best].seq)
                                best = k;
                }
                if (best < 0 && torn && !copy_is_zero(&d->copy[0]) &&
                    !copy_is_zero(&d->copy[1])) {
                        /* Both written, neither valid: a crash tears one copy only. */
                        l->n_corrupt++;
                        continue;
                }
                l->n_torn += torn && best >= 0;
                if (best < 0)
                        continue;
                f->tasks.active[i] = (int8_t)best;
                f->tasks.seq[i] = d->copy[best].seq;
                if (!(d->copy[best].flags & COPY_USED))
                        continue;
                if (!record_decode(&d->copy[best], i, &recs[l->n_records])) {
                        l->n_corrupt++;
                        f->tasks.active[i] = -1;
                        continue;
                }
                l->n_records++;
        }
        l->records = recs;
        return 0;
}

/* Map FD (SIZE bytes) shared into F. */
static int state_file_map(StateFile *f, size_t size)
{
        void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd, 0);

        if (p == MAP_FAILED)
                return -errno;
        f->map = p;
        f->map_size = size;
        return 0;
}

/* A new, empty table in F->fd (locked, empty file). */
static int state_file_init(StateFile *f, const uint8_t boot_id[16])
{
        int r;

        if (ftruncate(f->fd, (off_t)file_size_for(STATE_INITIAL_RECORDS)) < 0)
                return -errno;
        r = state_file_map(f, file_size_for(STATE_INITIAL_RECORDS));
        if (r < 0)
                return r;
        r = slots_resize(&f->tasks, STATE_INITIAL_RECORDS);
        if (r < 0)
                return r;
        *header(f) = (DiskHeader){
                .magic = STATE_MAGIC,
                .version = STATE_VERSION,
                .header_size = sizeof(DiskHeader),
                .record_size = sizeof(DiskRecord),
                .n_records = STATE_INITIAL_RECORDS,
                .generation = 1,
        };
        memcpy(header(f)->boot_id, boot_id, 16);
        return 0;
}

/* Open PATH without following a symlink, never blocking on a FIFO; lock it.
 * *RET_PROBLEM is set (fd returned anyway, or -EBADF) for a file that is
 * not a regular file. */
static int open_locked(const char *path, int *ret_fd, char **ret_problem)
{
        _cleanup_close_ int fd = -EBADF;
        struct stat st;

        *ret_problem = NULL;
        if (lstat(path, &st) >= 0 && !S_ISREG(st.st_mode)) {
                if (asprintf(ret_problem, "not a regular file (mode %o)", st.st_mode) < 0)
                        return -ENOMEM;
                *ret_fd = -EBADF;
                return 0;
        }
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0600);
        if (fd < 0)
                return -errno;
        if (flock(fd, LOCK_EX | LOCK_NB) < 0)
                return errno == EWOULDBLOCK ? -EBUSY : -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode) && asprintf(ret_problem, "not a regular file") < 0)
                return -ENOMEM;
        *ret_fd = TAKE_FD(fd);
        return 0;
}

/* Move PATH out of the way to PATH.corrupt (replacing an older one). */
static int set_aside(const char *path, char **ret)
{
        _cleanup_free_ char *dst = NULL;

        if (asprintf(&dst, "%s.corrupt", path) < 0)
                return -ENOMEM;
        if (rename(path, dst) < 0)
                return -errno;
        *ret = TAKE_PTR(dst);
        return 0;
}

/* Keep a copy of the mapped file as PATH.corrupt, for a look later. */
static int copy_aside(StateFile *f, char **ret)
{
        _cleanup_free_ char *dst = NULL;
        _cleanup_close_ int fd = -EBADF;
        size_t done = 0;

        if (asprintf(&dst, "%s.corrupt", f->path) < 0)
                return -ENOMEM;
        fd = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
        if (fd < 0)
                return -errno;
        while (done < f->map_size) {
                ssize_t n = write(fd, f->map + done, f->map_size - done);
                if (n < 0)
                        return -errno;
                done += (size_t)n;
        }
        *ret = TAKE_PTR(dst);
        return 0;
}

/* Create the directory of PATH if it is missing (one level: /run/latnice
 * when latniced runs outside its unit). */
static void make_parent(const char *path)
{
        _cleanup_free_ char *dir = strdup(path);
        char *slash = dir ? strrchr(dir, '/') : NULL;

        if (!slash || slash == dir)
                return;
        *slash = 0;
        (void)mkdir(dir, 0755);
}

/* The existing table in F (mapped, header checked): its records into L,
 * corrupt ones copied aside and cleared. */
static int state_file_adopt_existing(StateFile *f, uint32_t n, const uint8_t boot_id[16],
                                     StateFileLoad *l)
{
        int r;

        r = slots_resize(&f->tasks, n);
        if (r < 0)
                return r;
        r = records_read(f, l);
        if (r < 0)
                return r;
        r = cg_records_read(f, header(f)->n_cg_records, l);
        if (r < 0)
                return r;
        if (l->n_corrupt > 0) {
                if (asprintf(&l->problem, "%zu corrupt record(s) (both copies bad, or values "
                                          "out of range), dropped",
                             l->n_corrupt) < 0)
                        return -ENOMEM;
                r = copy_aside(f, &l->set_aside);
                if (r == -ENOMEM)
                        return r;
                for (uint32_t i = 0; i < n; i++)
                        if (f->tasks.active[i] < 0)
                                memset(record(f, i), 0, sizeof(DiskRecord));
                for (uint32_t i = 0; i < f->cg.n; i++)
                        if (f->cg.active[i] < 0)
                                memset(cg_record(f, i), 0, sizeof(DiskCgRecord));
        }
        slots_free_rebuild(f, &f->tasks, slot_used);
        slots_free_rebuild(f, &f->cg, cg_slot_used);
        header(f)->generation++;
        memcpy(header(f)->boot_id, boot_id, 16);
        l->generation = header(f)->generation;
        return 0;
}

int state_file_open(const char *path, StateFile **ret, StateFileLoad *ret_load)
{
        _cleanup_(state_file_freep) StateFile *f = NULL;
        _cleanup_(state_file_load_done) StateFileLoad l = {};
        _cleanup_free_ char *problem = NULL;
        uint8_t boot_id[16];
        struct stat st;
        int r;

        f = calloc(1, sizeof(*f));
        if (!f)
                return -ENOMEM;
        f->fd = -EBADF;
        f->path = strdup(path);
        if (!f->path)
                return -ENOMEM;
        read_boot_id(boot_id);
        make_parent(path);

        r = open_locked(path, &f->fd, &problem);
        if (r < 0)
                return r;
        if (!problem) {
                if (fstat(f->fd, &st) < 0)
                        return -errno;
                if (st.st_size == 0)
                        l.created = true;
                else if ((size_t)st.st_size < sizeof(DiskHeader))
                        problem = header_problem(NULL, (size_t)st.st_size, boot_id);
                else {
                        r = state_file_map(f, sizeof(DiskHeader));
                        if (r < 0)
                                return r;
                        problem = header_problem(header(f), (size_t)st.st_size, boot_id);
                        if (!problem) {
                                uint32_t n = header(f)->n_records;
                                size_t cg = cg_size_for(header(f)->n_cg_records);

                                (void)munmap(f->map, f->map_size);
                                f->map = NULL;
                                r = state_file_map(f, file_size_for(n) + cg);
                                if (r < 0)
                                        return r;
                                r = state_file_adopt_existing(f, n, boot_id, &l);
                                if (r < 0)
                                        return r;
                        }
                }
        }
        if (problem) {
                /* Unusable: out of the way (still locked by us), and a new one. */
                l.problem = TAKE_PTR(problem);
                if (f->map)
                        (void)munmap(f->map, f->map_size);
                f->map = NULL;
                r = set_aside(path, &l.set_aside);
                if (r < 0)
                        return r;
                f->fd = safe_close(f->fd);
                r = open_locked(path, &f->fd, &problem);
                if (r < 0)
                        return r;
                if (problem)
                        return -EEXIST; /* replaced under us again */
                l.created = true;
        }
        if (l.created) {
                r = state_file_init(f, boot_id);
                if (r < 0)
                        return r;
                l.generation = 1;
        }
        *ret = TAKE_PTR(f);
        *ret_load = l;
        l = (StateFileLoad){};
        return 0;
}
