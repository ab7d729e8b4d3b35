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
#include "lib/macro.h"

#define STATE_MAGIC "LNSTATE"
#define STATE_VERSION 1u
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
        uint8_t custom_slice, has_latency_nice, pad[6];
} DiskSched;

typedef struct DiskCopy {
        uint64_t seq; /* 0: never written */
        uint64_t starttime;
        int32_t pid, tid;
        uint32_t flags, applied_mask, pending_mask, settings_mask;
        int32_t s_latency_nice, s_nice, s_policy;
        uint32_t s_util_min, s_util_max, pad;
        uint64_t s_slice_ns, s_timer_slack_ns;
        DiskSched orig, expected;
        uint64_t checksum; /* of everything before it; written last */
} DiskCopy;

typedef struct DiskRecord {
        DiskCopy copy[2];
} DiskRecord;

typedef struct DiskHeader {
        char magic[8];
        uint32_t version, header_size, record_size, n_records;
        uint64_t generation;
        uint8_t boot_id[16];
        uint8_t reserved[16];
} DiskHeader;

_Static_assert(sizeof(DiskSched) == 56, "DiskSched layout");
_Static_assert(sizeof(DiskCopy) == 200, "DiskCopy layout");
_Static_assert(sizeof(DiskHeader) == 64, "DiskHeader layout");

struct StateFile {
        char *path;
        int fd;
        uint8_t *map;
        size_t map_size;
        uint32_t n_records;
        uint64_t *seq;     /* per slot: sequence number of its newest valid copy */
        int8_t *active;    /* per slot: that copy (0, 1), -1 none */
        uint32_t *free;    /* stack of free slots, lowest on top */
        size_t n_free;
        size_t n_used;
};

static DiskHeader *header(StateFile *f)
{
        return (DiskHeader *)f->map;
}

static DiskRecord *record(StateFile *f, uint32_t slot)
{
        return (DiskRecord *)(f->map + sizeof(DiskHeader)) + slot;
}

static uint64_t copy_checksum(const DiskCopy *c)
{
        const uint8_t *p = (const uint8_t *)c;
        uint64_t h = 0xcbf29ce484222325ull ^ 0x4c4e535441544531ull; /* FNV-1a, salted */

        for (size_t i = 0; i < offsetof(DiskCopy, checksum); i++) {
                h ^= p[i];
                h *= 0x100000001b3ull;
        }
        return h;
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
        };
}

static bool sched_decode(const DiskSched *d, SchedState *s)
{
        if (d->policy < 0 || d->policy > 7 || d->nice < -20 || d->nice > 19 ||
            d->latency_nice < -20 || d->latency_nice > 19 || d->util_min > 1024 ||
            d->util_max > 1024 || d->custom_slice > 1 || d->has_latency_nice > 1)
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
                },
        };

        if (c->pid <= 0 || c->tid <= 0 || (c->flags & ~(COPY_USED | COPY_USER_OWNED)) ||
            ((c->applied_mask | c->pending_mask | c->settings_mask) & ~SETTINGS_TASK_MASK))
                return false;
        if (!sched_decode(&c->orig, &r.orig) || !sched_decode(&c->expected, &r.expected))
                return false;
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
        free(f->seq);
        free(f->active);
        free(f->free);
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
        return f->n_used;
}

/* Size the per-slot arrays for N records; the new slots are free. */
static int slots_resize(StateFile *f, uint32_t n)
{
        uint64_t *seq = realloc(f->seq, n * sizeof(uint64_t));
        int8_t *active;
        uint32_t *fr;

        if (!seq)
                return -ENOMEM;
        f->seq = seq;
        active = realloc(f->active, n * sizeof(int8_t));
        if (!active)
                return -ENOMEM;
        f->active = active;
        fr = realloc(f->free, n * sizeof(uint32_t));
        if (!fr)
                return -ENOMEM;
        f->free = fr;
        for (uint32_t i = f->n_records; i < n; i++) {
                f->seq[i] = 0;
                f->active[i] = -1;
        }
        /* Free slots are pushed highest first, so the lowest is used first. */
        memmove(f->free + (n - f->n_records), f->free, f->n_free * sizeof(uint32_t));
        for (uint32_t i = 0; i < n - f->n_records; i++)
                f->free[i] = n - 1 - i;
        f->n_free += n - f->n_records;
        f->n_records = n;
        return 0;
}

static size_t file_size_for(uint32_t n)
{
        return sizeof(DiskHeader) + (size_t)n * sizeof(DiskRecord);
}

static bool slot_used(StateFile *f, uint32_t slot)
{
        return f->active[slot] >= 0 && (record(f, slot)->copy[f->active[slot]].flags & COPY_USED);
}

/* The free stack from scratch: every slot not in use, lowest on top. */
static void free_rebuild(StateFile *f)
{
        f->n_free = 0;
        f->n_used = 0;
        for (uint32_t i = f->n_records; i > 0; i--) {
                if (slot_used(f, i - 1))
                        f->n_used++;
                else
                        f->free[f->n_free++] = i - 1;
        }
}

/* Write copy C (seq and checksum filled in here) into the older copy of
 * SLOT. The checksum goes last, after a compiler barrier: until it is
 * stored, the copy does not match it and the other copy is the record. */
static void slot_write(StateFile *f, uint32_t slot, DiskCopy *c)
{
        int target = f->active[slot] == 0 ? 1 : 0;
        DiskCopy *d = &record(f, slot)->copy[target];
        uint64_t sum;

        c->seq = f->seq[slot] + 1;
        sum = copy_checksum(c);
        memcpy(d, c, offsetof(DiskCopy, checksum));
        atomic_signal_fence(memory_order_seq_cst);
        __atomic_store_n(&d->checksum, sum, __ATOMIC_RELEASE);
        f->seq[slot] = c->seq;
        f->active[slot] = (int8_t)target;
}

void state_file_put(StateFile *f, const StateRecord *rec)
{
        DiskCopy c;
        bool was_used;

        if (!f || rec->slot >= f->n_records)
                return;
        record_encode(rec, true, &c);
        was_used = slot_used(f, rec->slot);
        if (was_used) {
                const DiskCopy *cur = &record(f, rec->slot)->copy[f->active[rec->slot]];
                /* Unchanged: nothing to write (most re-evaluations). */
                if (memcmp((const uint8_t *)cur + offsetof(DiskCopy, starttime),
                           (const uint8_t *)&c + offsetof(DiskCopy, starttime),
                           offsetof(DiskCopy, checksum) - offsetof(DiskCopy, starttime)) == 0)
                        return;
        }
        slot_write(f, rec->slot, &c);
        if (!was_used)
                f->n_used++;
}

void state_file_release(StateFile *f, uint32_t slot)
{
        DiskCopy c;

        if (!f || slot >= f->n_records || !slot_used(f, slot))
                return;
        record_encode(NULL, false, &c);
        slot_write(f, slot, &c);
        f->n_used--;
        f->free[f->n_free++] = slot;
}

/* Grow the file and the mapping to N records. The size first, the header's
 * count after: a file longer than its header says is read as the header
 * says. */
static int state_file_grow(StateFile *f, uint32_t n)
{
        size_t size = file_size_for(n);
        void *p;
        int r;

        if (n > STATE_MAX_RECORDS)
                return -ENOSPC;
        r = slots_resize(f, n);
        if (r < 0)
                return r;
        if (ftruncate(f->fd, (off_t)size) < 0)
                return -errno;
        p = mremap(f->map, f->map_size, size, MREMAP_MAYMOVE);
        if (p == MAP_FAILED)
                return -errno;
        f->map = p;
        f->map_size = size;
        __atomic_store_n(&header(f)->n_records, n, __ATOMIC_RELEASE);
        return 0;
}

int state_file_alloc(StateFile *f, uint32_t *ret_slot)
{
        int r;

        if (f->n_free == 0) {
                uint32_t old = f->n_records;

                r = state_file_grow(f, old * 2);
                if (r < 0) {
                        /* The arrays may be larger already; the file is not. */
                        if (f->n_records != old) {
                                f->n_records = old;
                                free_rebuild(f);
                        }
                        return r;
                }
        }
        *ret_slot = f->free[--f->n_free];
        return 0;
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
        else if (size < file_size_for(h->n_records))
                r = asprintf(&s, "truncated: %zu bytes, its %u records need %zu", size,
                             h->n_records, file_size_for(h->n_records));
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

        recs = calloc(f->n_records, sizeof(StateRecord));
        if (!recs)
                return -ENOMEM;
        for (uint32_t i = 0; i < f->n_records; i++) {
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
                f->active[i] = (int8_t)best;
                f->seq[i] = d->copy[best].seq;
                if (!(d->copy[best].flags & COPY_USED))
                        continue;
                if (!record_decode(&d->copy[best], i, &recs[l->n_records])) {
                        l->n_corrupt++;
                        f->active[i] = -1;
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
        r = slots_resize(f, STATE_INITIAL_RECORDS);
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

        r = slots_resize(f, n);
        if (r < 0)
                return r;
        r = records_read(f, l);
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
                        if (f->active[i] < 0)
                                memset(record(f, i), 0, sizeof(DiskRecord));
        }
        free_rebuild(f);
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

                                (void)munmap(f->map, f->map_size);
                                f->map = NULL;
                                r = state_file_map(f, file_size_for(n));
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
