/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/state/secure-path.h"
#include "daemon/state/state-file.h"
#include "lib/ioprio.h"
#include "lib/core-sched.h"
#include "lib/log.h"
#include "lib/macro.h"
#include "lib/time-util.h"

#define STATE_MAGIC "LNSTATE"
/* 2: CoreSched (the cookies and the setting) at the end of a copy. A
 * version 1 file is set aside like any other version. */
#define STATE_VERSION 2u
/* 64 records: 29,760 bytes, reserved at once (a tmpfs /run of a few pages
 * left takes it); the table doubles as needed. */
#define STATE_INITIAL_RECORDS 64u
/* After a growth found no space, the next try waits this long (a storm of
 * new tasks on a full filesystem costs no allocation each). */
#define STATE_GROW_RETRY_USEC (5 * USEC_PER_SEC)
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
        char *name;        /* the file's name in dir_fd */
        int dir_fd;        /* its directory (O_PATH), checked at open (secure-path.h) */
        int fd;
        uint8_t *image;    /* the file's contents, in memory: written through with pwrite() */
        size_t image_size;
        bool reserved;     /* its blocks are allocated (fallocate()): a write cannot fail for space */
        bool writing;      /* open done: changes go to the file (before, only to memory) */
        bool broken;       /* the file could not be written nor made again: no more writes */
        uint64_t grow_retry_usec; /* CLOCK_MONOTONIC: no growth before (no space last time) */
        Slots tasks;
        Slots cg;
};

static DiskHeader *header(StateFile *f)
{
        return (DiskHeader *)f->image;
}

static DiskRecord *record(StateFile *f, uint32_t slot)
{
        return (DiskRecord *)(f->image + sizeof(DiskHeader)) + slot;
}

/* ---- The file under the table ----------------------------------------- */

/* Allocate the blocks of FD's first SIZE bytes (and make it that long at
 * least): written through pwrite() later, they cannot fail for want of
 * space. A filesystem without fallocate() gets the size only. */
static int file_reserve(StateFile *f, int fd, size_t size)
{
        struct stat st;

        if (fallocate(fd, 0, 0, (off_t)size) >= 0) {
                f->reserved = true;
                return 0;
        }
        if (errno != EOPNOTSUPP && errno != ENOSYS)
                return -errno;
        f->reserved = false;
        if (fstat(fd, &st) < 0)
                return -errno;
        if ((size_t)st.st_size < size && ftruncate(fd, (off_t)size) < 0)
                return -errno;
        return 0;
}

static int pwrite_all(int fd, const uint8_t *p, size_t len, size_t off)
{
        while (len > 0) {
                ssize_t n = pwrite(fd, p, len, (off_t)off);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        return -EIO;
                p += n;
                off += (size_t)n;
                len -= (size_t)n;
        }
        return 0;
}

/* Bytes of FD from OFF into BUF (LEN at most, fewer at its end). */
static ssize_t pread_all(int fd, uint8_t *buf, size_t len, size_t off)
{
        size_t done = 0;

        while (done < len) {
                ssize_t n = pread(fd, buf + done, len - done, (off_t)(off + done));

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        break;
                done += (size_t)n;
        }
        return (ssize_t)done;
}

/* The whole table into FD: reserved first, then every byte. */
static int file_write_all(StateFile *f, int fd)
{
        int r = file_reserve(f, fd, f->image_size);

        return r < 0 ? r : pwrite_all(fd, f->image, f->image_size, 0);
}

/* No more writes: said once, at error level (a crash now loses originals). */
static void file_break(StateFile *f, int err, const char *what)
{
        if (f->broken)
                return;
        f->broken = true;
        log_error_errno(err, "State file %s: %s (%m). Changes are no longer recorded: should "
                             "latniced be killed, the attributes it changed are not given back.",
                        f->path, what);
}

/* Make the file again at its path, after it was removed or replaced: a new
 * one (checked like the first), locked, holding the whole table. */
static int file_recreate(StateFile *f)
{
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *why = NULL;
        struct stat st;
        int r;

        fd = openat(f->dir_fd, f->name,
                    O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0600);
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EEXIST;
        r = secure_file_check(&st, f->path, &why);
        if (r < 0) {
                log_error("State file %s: %s.", f->path, strna(why));
                return r;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) < 0)
                return errno == EWOULDBLOCK ? -EBUSY : -errno;
        if (ftruncate(fd, 0) < 0)
                return -errno;
        r = file_write_all(f, fd);
        if (r < 0)
                return r;
        safe_close(f->fd);
        f->fd = TAKE_FD(fd);
        return 0;
}

/* Whether the file is still what latniced wrote: the same inode at the path
 * (still linked), as long as the table, its blocks allocated. If not, it
 * is written again from memory (made again if it was removed or replaced);
 * if that fails, no more writes. Called after each write: a file truncated
 * under latniced before a write is sparse after it. */
static void file_check(StateFile *f)
{
        struct stat st;
        int r;

        if (fstat(f->fd, &st) < 0) {
                file_break(f, -errno, "cannot stat it");
                return;
        }
        if (st.st_nlink > 0 && (size_t)st.st_size >= f->image_size &&
            (!f->reserved || (size_t)st.st_blocks * 512 >= f->image_size))
                return;
        if (st.st_nlink == 0) {
                log_warning("State file %s was removed or replaced by someone else: made again "
                            "from memory (%zu task and %zu cgroup records).",
                            f->path, f->tasks.n_used, f->cg.n_used);
                r = file_recreate(f);
                if (r < 0)
                        file_break(f, r, "cannot make it again");
                return;
        }
        log_warning("State file %s was cut short by someone else (%jd bytes, %jd allocated, of "
                    "%zu): written again from memory (%zu task and %zu cgroup records).",
                    f->path, (intmax_t)st.st_size, (intmax_t)st.st_blocks * 512, f->image_size,
                    f->tasks.n_used, f->cg.n_used);
        r = file_write_all(f, f->fd);
        if (r < 0) {
                file_break(f, r, "cannot write it again");
                return;
        }
        /* A filesystem that counts fewer blocks than it was given (one that
         * compresses): its block count says nothing, only its size is
         * checked from now on. */
        if (fstat(f->fd, &st) >= 0 && (size_t)st.st_blocks * 512 < f->image_size)
                f->reserved = false;
}

/* LEN bytes of the table at OFF into the file, then the file checked. */
static void file_write(StateFile *f, size_t off, size_t len)
{
        int r;

        if (!f->writing || f->broken || len == 0)
                return;
        assert(off + len <= f->image_size);
        r = pwrite_all(f->fd, f->image + off, len, off);
        if (r < 0)
                log_debug_errno(r, "State file %s: write of %zu bytes at %zu failed (%m).",
                                f->path, len, off);
        file_check(f); /* a failed write comes from a changed file, or it breaks here */
        if (r < 0 && !f->broken && pwrite_all(f->fd, f->image + off, len, off) < 0)
                file_break(f, r, "cannot write it");
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

static bool copy_is_zero(const DiskCopy *c)
{
        const uint8_t *p = (const uint8_t *)c;

        for (size_t i = 0; i < sizeof(*c); i++)
                if (p[i])
                        return false;
        return true;
}

static bool copy_unwritten(const void *c)
{
        return copy_is_zero(c);
}

static bool copy_written(const void *c)
{
        return !copy_is_zero(c);
}

/* ---- Two-copy records (both tables) ------------------------------------
 * A record is two copies of SIZE bytes each, a copy starting with its
 * sequence number (0: never written) and ending with the checksum of the
 * bytes before it, written last. */
_Static_assert(offsetof(DiskCopy, seq) == 0 &&
               offsetof(DiskCopy, checksum) == sizeof(DiskCopy) - sizeof(uint64_t),
               "DiskCopy: seq first, checksum last");
_Static_assert(offsetof(DiskCgCopy, seq) == 0 &&
               offsetof(DiskCgCopy, checksum) == sizeof(DiskCgCopy) - sizeof(uint64_t),
               "DiskCgCopy: seq first, checksum last");

static uint64_t copy_u64(const uint8_t *c, size_t off)
{
        uint64_t v;

        memcpy(&v, c + off, sizeof(v));
        return v;
}

/* The newest valid copy of the record at RECORD (0 or 1), -1 if none;
 * *RET_TORN tells whether a copy that UNWRITTEN does not call never written
 * fails its checksum. */
static int record_best_copy(const uint8_t *record, size_t size, bool (*unwritten)(const void *c),
                            bool *ret_torn)
{
        size_t sum_off = size - sizeof(uint64_t);
        int best = -1;

        *ret_torn = false;
        for (int k = 0; k < 2; k++) {
                const uint8_t *c = record + (size_t)k * size;
                uint64_t seq = copy_u64(c, 0);

                if (unwritten(c))
                        continue;
                if (seq == 0 || copy_u64(c, sum_off) != bytes_checksum(c, sum_off)) {
                        *ret_torn = true;
                        continue;
                }
                if (best < 0 || seq > copy_u64(record + (size_t)best * size, 0))
                        best = k;
        }
        return best;
}

/* Write copy C (SIZE bytes; seq and checksum filled in here) into the older
 * copy of SLOT of table S, whose record is at RECORD, in memory and in the
 * file (one pwrite() of the copy, its checksum last): a write cut short
 * leaves a copy that does not match its checksum, and the other copy is the
 * record. */
static void slot_write_copy(StateFile *f, Slots *s, uint32_t slot, uint8_t *record, void *c,
                            size_t size)
{
        int target = s->active[slot] == 0 ? 1 : 0;
        uint8_t *d = record + (size_t)target * size;
        size_t sum_off = size - sizeof(uint64_t);
        uint64_t seq = s->seq[slot] + 1, sum;

        memcpy(c, &seq, sizeof(seq));
        sum = bytes_checksum(c, sum_off);
        memcpy((uint8_t *)c + sum_off, &sum, sizeof(sum));
        memcpy(d, c, size);
        s->seq[slot] = seq;
        s->active[slot] = (int8_t)target;
        file_write(f, (size_t)(d - f->image), size);
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
        free(f->image);
        safe_close(f->fd);
        safe_close(f->dir_fd);
        free(f->name);
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
        free(l->error);
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

static void slot_write(StateFile *f, uint32_t slot, DiskCopy *c)
{
        slot_write_copy(f, &f->tasks, slot, (uint8_t *)record(f, slot), c, sizeof(*c));
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

/* Whether a growth may be tried now (none for a while after one found no
 * space). */
static bool grow_allowed(StateFile *f)
{
        return f->grow_retry_usec == 0 || now_usec(CLOCK_MONOTONIC) >= f->grow_retry_usec;
}

/* Reserve SIZE bytes of the file and make the table in memory that long
 * (the new bytes zero). -ENOSPC (and no growth for a while), -ENOMEM, or an
 * fallocate() error: then nothing changed, in the file as in memory. */
static int table_extend(StateFile *f, size_t size)
{
        uint8_t *p;
        int r;

        if (f->broken)
                return -EIO;
        if (!grow_allowed(f))
                return -ENOSPC;
        r = file_reserve(f, f->fd, size);
        if (r == -ENOSPC || r == -EDQUOT) {
                f->grow_retry_usec = now_usec(CLOCK_MONOTONIC) + STATE_GROW_RETRY_USEC;
                return -ENOSPC;
        }
        if (r < 0)
                return r;
        f->grow_retry_usec = 0;
        if (size <= f->image_size)
                return 0;
        p = realloc(f->image, size);
        if (!p)
                return -ENOMEM;
        memset(p + f->image_size, 0, size - f->image_size);
        f->image = p;
        f->image_size = size;
        return 0;
}

/* Grow the table to N task records: the file's blocks reserved first, the
 * cgroup table copied behind the new task slots, then the header's count,
 * which moves both at once (a file longer than its header says is read as
 * the header says); the stale cgroup table, now in new task slots, is
 * cleared last (state-file.h: the window this leaves). */
static int state_file_grow(StateFile *f, uint32_t n)
{
        size_t old_end = file_size_for(f->tasks.n), cg = cg_size_for(f->cg.n);
        size_t size = file_size_for(n) + cg;
        int r;

        if (n > STATE_MAX_RECORDS)
                return -ENOSPC;
        r = slots_resize(&f->tasks, n);
        if (r < 0)
                return r;
        r = table_extend(f, size);
        if (r < 0)
                return r;
        if (cg > 0)
                memmove(f->image + file_size_for(n), f->image + old_end, cg);
        header(f)->n_records = n;
        memset(f->image + old_end, 0, file_size_for(n) - old_end);
        file_write(f, file_size_for(n), cg);
        file_write(f, 0, sizeof(DiskHeader));
        file_write(f, old_end, file_size_for(n) - old_end);
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

/* One more corrupt record in L, at P in the table (the first one's offset
 * goes into the report). */
static void note_corrupt(const StateFile *f, StateFileLoad *l, const void *p)
{
        if (l->n_corrupt++ == 0)
                l->corrupt_offset = (size_t)((const uint8_t *)p - f->image);
}

/* Set up slot I of table S from its record at RECORD (copies of SIZE bytes,
 * their flags at FLAGS_OFF): its newest valid copy becomes the active one.
 * Returns that copy if it holds a record, else NULL; a record both of whose
 * copies were written (WRITTEN) and neither is valid is noted as corrupt,
 * since a crash tears one copy only. */
static const void *slot_load(StateFile *f, StateFileLoad *l, Slots *s, uint32_t i,
                             const uint8_t *record, size_t size, size_t flags_off,
                             bool (*unwritten)(const void *c), bool (*written)(const void *c))
{
        bool torn;
        int best = record_best_copy(record, size, unwritten, &torn);
        const uint8_t *c;
        uint32_t flags;

        if (best < 0 && torn && written(record) && written(record + size)) {
                note_corrupt(f, l, record);
                return NULL;
        }
        l->n_torn += torn && best >= 0;
        if (best < 0)
                return NULL;
        c = record + (size_t)best * size;
        s->active[i] = (int8_t)best;
        s->seq[i] = copy_u64(c, 0);
        memcpy(&flags, c + flags_off, sizeof(flags));
        return flags & COPY_USED ? c : NULL;
}

/* ---- Cgroup table (state-file.h) ------------------------------------- */

static DiskCgRecord *cg_record(StateFile *f, uint32_t slot)
{
        return (DiskCgRecord *)(f->image + file_size_for(f->tasks.n)) + slot;
}

/* Never written (cheap: not the whole 4 KiB). */
static bool cg_copy_unwritten(const void *p)
{
        const DiskCgCopy *c = p;

        return c->seq == 0 && c->checksum == 0 && c->flags == 0;
}

/* Written at some time, valid or not (for telling a corrupt record). */
static bool cg_copy_written(const void *p)
{
        return ((const DiskCgCopy *)p)->seq != 0;
}

static bool cg_slot_used(StateFile *f, uint32_t slot)
{
        return f->cg.active[slot] >= 0 &&
               (cg_record(f, slot)->copy[f->cg.active[slot]].flags & COPY_USED);
}


static void cg_slot_write(StateFile *f, uint32_t slot, DiskCgCopy *c)
{
        slot_write_copy(f, &f->cg, slot, (uint8_t *)cg_record(f, slot), c, sizeof(*c));
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
                const DiskCgCopy *c = slot_load(f, l, &f->cg, i, (const uint8_t *)d,
                                                sizeof(*c), offsetof(DiskCgCopy, flags),
                                                cg_copy_unwritten, cg_copy_written);

                if (!c)
                        continue;
                r = cg_decode(c, i, &f->cg.loaded[f->cg.n_loaded]);
                if (r == -ENOMEM)
                        return r;
                if (r < 0) {
                        note_corrupt(f, l, d);
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
        int r;

        if (n > STATE_MAX_CG_RECORDS)
                return -ENOSPC;
        r = table_extend(f, size);
        if (r < 0)
                return r;
        r = slots_resize(&f->cg, n);
        if (r < 0)
                return r; /* the header still says OLD: the file is as before */
        file_write(f, end + cg_size_for(old), cg_size_for(n) - cg_size_for(old));
        header(f)->n_cg_records = n;
        file_write(f, 0, sizeof(DiskHeader));
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

/* Why header H (of a file of SIZE bytes) cannot be used, or NULL. A file
 * shorter than its records is not refused here (state_file_salvage()). */
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
                const DiskCopy *c = slot_load(f, l, &f->tasks, i, (const uint8_t *)d, sizeof(*c),
                                              offsetof(DiskCopy, flags), copy_unwritten,
                                              copy_written);

                if (!c)
                        continue;
                if (!record_decode(c, i, &recs[l->n_records])) {
                        note_corrupt(f, l, d);
                        f->tasks.active[i] = -1;
                        continue;
                }
                l->n_records++;
        }
        l->records = recs;
        return 0;
}

/* A new, empty table for F, in memory (state_file_open() writes it). */
static int table_init(StateFile *f, const uint8_t boot_id[16])
{
        size_t size = file_size_for(STATE_INITIAL_RECORDS);
        int r;

        f->image = calloc(1, size);
        if (!f->image)
                return -ENOMEM;
        f->image_size = size;
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

static void slots_reset(Slots *s)
{
        free(s->seq);
        free(s->active);
        free(s->free);
        state_cgroup_records_free(s->loaded, s->n_loaded);
        *s = (Slots){};
}

/* Forget the table read from a file being set aside. */
static void table_reset(StateFile *f)
{
        f->image = mfree(f->image);
        f->image_size = 0;
        slots_reset(&f->tasks);
        slots_reset(&f->cg);
}

/* Open F's file in its directory without following a symlink, never
 * blocking on a FIFO; check who may write it (on the descriptor); lock it.
 * *RET_PROBLEM is set (fd -EBADF) for what is not a regular file; -EPERM
 * and *RET_ERROR for a file someone else could write. */
static int open_locked(StateFile *f, int *ret_fd, char **ret_problem, char **ret_error)
{
        _cleanup_close_ int fd = -EBADF;
        struct stat st;
        int r;

        *ret_problem = NULL;
        *ret_fd = -EBADF;
        if (fstatat(f->dir_fd, f->name, &st, AT_SYMLINK_NOFOLLOW) >= 0 && !S_ISREG(st.st_mode))
                return asprintf(ret_problem, "not a regular file (mode %o)", st.st_mode) < 0
                               ? -ENOMEM : 0;
        fd = openat(f->dir_fd, f->name,
                    O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0600);
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return asprintf(ret_problem, "not a regular file") < 0 ? -ENOMEM : 0;
        r = secure_file_check(&st, f->path, ret_error);
        if (r < 0)
                return r;
        if (flock(fd, LOCK_EX | LOCK_NB) < 0)
                return errno == EWOULDBLOCK ? -EBUSY : -errno;
        *ret_fd = TAKE_FD(fd);
        return 0;
}

/* Move F's file out of the way to NAME.corrupt (replacing an older one). */
static int set_aside(StateFile *f, char **ret)
{
        _cleanup_free_ char *name = NULL, *dst = NULL;

        if (asprintf(&name, "%s.corrupt", f->name) < 0 ||
            asprintf(&dst, "%s.corrupt", f->path) < 0)
                return -ENOMEM;
        if (renameat(f->dir_fd, f->name, f->dir_fd, name) < 0)
                return -errno;
        *ret = TAKE_PTR(dst);
        return 0;
}

/* Keep a copy of the table as read as PATH.corrupt, for a look later. */
static int copy_aside(StateFile *f, char **ret)
{
        _cleanup_free_ char *name = NULL, *dst = NULL;
        _cleanup_close_ int fd = -EBADF;
        int r;

        if (asprintf(&name, "%s.corrupt", f->name) < 0 ||
            asprintf(&dst, "%s.corrupt", f->path) < 0)
                return -ENOMEM;
        fd = openat(f->dir_fd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW |
                                             O_NOCTTY, 0600);
        if (fd < 0)
                return -errno;
        r = pwrite_all(fd, f->image, f->image_size, 0);
        if (r < 0)
                return r;
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

/* PATH's directory, opened and checked (secure-path.h), and its name. */
static int open_dir(StateFile *f, char **ret_error)
{
        _cleanup_free_ char *dir = strdup(f->path);
        char *slash = dir ? strrchr(dir, '/') : NULL;

        if (!dir)
                return -ENOMEM;
        if (!slash || !slash[1] || streq(slash + 1, ".") || streq(slash + 1, ".."))
                return asprintf(ret_error, "%s does not name a file", f->path) < 0 ? -ENOMEM
                                                                                   : -EINVAL;
        f->name = strdup(slash + 1);
        if (!f->name)
                return -ENOMEM;
        slash[slash == dir ? 1 : 0] = 0;
        return secure_dir_open(dir, &f->dir_fd, ret_error);
}

/* The table just read (TABLE, header checked): its records into L,
 * corrupt ones copied aside and cleared. */
static int table_adopt(StateFile *f, uint32_t n, const uint8_t boot_id[16], StateFileLoad *l)
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
                if (asprintf(&l->problem, "%zu corrupt record(s) (the first at byte %zu; both "
                                          "copies bad, or values out of range), dropped",
                             l->n_corrupt, l->corrupt_offset) < 0)
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

/* A file shorter than its header says (H; READ bytes of it are in F's
 * table): the task records that are whole before its end into L, the rest
 * lost; *RET_PROBLEM says where it ends. The file is then set aside, and
 * the records get slots in a new one (table_resettle()). */
static int table_salvage(StateFile *f, const DiskHeader *h, size_t read, size_t need,
                         StateFileLoad *l, char **ret_problem)
{
        uint32_t whole = 0;
        int r;

        if (read > sizeof(DiskHeader))
                whole = (uint32_t)MIN((read - sizeof(DiskHeader)) / sizeof(DiskRecord),
                                      (size_t)UINT32_MAX);
        if (whole > h->n_records)
                whole = h->n_records;
        r = slots_resize(&f->tasks, whole);
        if (r < 0)
                return r;
        r = records_read(f, l);
        if (r < 0)
                return r;
        if (asprintf(ret_problem, "truncated at byte %zu: its %u task and %u cgroup records end "
                                  "at byte %zu; %zu record(s) found in the %u whole task records "
                                  "before that are used, the rest is lost",
                     read, h->n_records, h->n_cg_records, need, l->n_records, whole) < 0)
                return -ENOMEM;
        return 0;
}

/* The file F->fd (SIZE bytes when looked at) into F's table and L. A
 * problem (*RET_PROBLEM) when it cannot be used as it is. Memory: at most
 * what the file holds. */
static int table_read(StateFile *f, size_t size, const uint8_t boot_id[16], StateFileLoad *l,
                      char **ret_problem)
{
        DiskHeader h;
        size_t need;
        ssize_t n;

        n = pread_all(f->fd, (uint8_t *)&h, sizeof(h), 0);
        if (n < 0)
                return (int)n;
        if ((size_t)n < sizeof(h)) {
                *ret_problem = header_problem(NULL, (size_t)n, boot_id);
                return *ret_problem ? 0 : -ENOMEM;
        }
        *ret_problem = header_problem(&h, size, boot_id);
        if (*ret_problem)
                return 0;
        need = file_size_for(h.n_records) + cg_size_for(h.n_cg_records);
        f->image = malloc(MIN(size, need));
        if (!f->image)
                return -ENOMEM;
        n = pread_all(f->fd, f->image, MIN(size, need), 0);
        if (n < 0)
                return (int)n;
        f->image_size = (size_t)n;
        if ((size_t)n < need)
                return table_salvage(f, &h, (size_t)n, need, l, ret_problem);
        return table_adopt(f, h.n_records, boot_id, l);
}

/* Slots in the new table for the records L salvaged from a file set aside. */
static int table_resettle(StateFile *f, StateFileLoad *l)
{
        for (size_t i = 0; i < l->n_records; i++) {
                uint32_t slot;
                int r = state_file_alloc(f, &slot);

                if (r < 0)
                        return r;
                l->records[i].slot = slot;
                state_file_put(f, &l->records[i]);
        }
        return 0;
}

/* Open F->path's directory and file; *RET_PROBLEM for a file to set aside. */
static int state_file_open_fd(StateFile *f, char **ret_problem, char **ret_error)
{
        int r;

        make_parent(f->path);
        r = open_dir(f, ret_error);
        if (r < 0)
                return r;
        return open_locked(f, &f->fd, ret_problem, ret_error);
}

/* What could not be read goes aside; a new file takes its place. */
static int state_file_replace(StateFile *f, StateFileLoad *l, char **problem, char **ret_error)
{
        int r;

        l->problem = TAKE_PTR(*problem);
        table_reset(f);
        r = set_aside(f, &l->set_aside);
        if (r < 0)
                return r;
        f->fd = safe_close(f->fd);
        r = open_locked(f, &f->fd, problem, ret_error);
        if (r < 0)
                return r;
        if (*problem)
                return -EEXIST; /* replaced under us again */
        l->created = true;
        return 0;
}

int state_file_open(const char *path, StateFile **ret, StateFileLoad *ret_load)
{
        _cleanup_(state_file_freep) StateFile *f = NULL;
        _cleanup_(state_file_load_done) StateFileLoad l = {};
        _cleanup_free_ char *problem = NULL, *error = NULL;
        uint8_t boot_id[16];
        struct stat st;
        int r;

        *ret_load = (StateFileLoad){};
        f = calloc(1, sizeof(*f));
        if (!f)
                return -ENOMEM;
        f->fd = f->dir_fd = -EBADF;
        f->path = strdup(path);
        if (!f->path)
                return -ENOMEM;
        read_boot_id(boot_id);

        r = state_file_open_fd(f, &problem, &error);
        if (r >= 0 && !problem) {
                if (fstat(f->fd, &st) < 0)
                        r = -errno;
                else if (st.st_size == 0)
                        l.created = true;
                else
                        r = table_read(f, (size_t)st.st_size, boot_id, &l, &problem);
        }
        if (r >= 0 && problem)
                r = state_file_replace(f, &l, &problem, &error);
        if (r >= 0 && l.created) {
                r = table_init(f, boot_id);
                l.generation = 1;
                if (r >= 0)
                        r = table_resettle(f, &l);
        }
        if (r >= 0) {
                /* Every block reserved, then the table written out whole: from
                 * now on a write can only fail if the file is changed under us. */
                r = file_write_all(f, f->fd);
                if (r < 0 && asprintf(&error, "cannot reserve and write its %zu bytes: %s",
                                      f->image_size, strerror(-r)) < 0)
                        r = -ENOMEM;
        }
        if (r < 0) {
                ret_load->error = TAKE_PTR(error);
                return r;
        }
        f->writing = true;
        *ret = TAKE_PTR(f);
        *ret_load = l;
        l = (StateFileLoad){};
        return 0;
}
