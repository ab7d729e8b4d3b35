/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Owns the state file (state-file.h): its one record table on disk and in
 * memory, written through with pwrite(), read back and converted. */
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
#include "daemon/state/state-attr.h"
#include "daemon/state/state-copy.h"
#include "daemon/state/state-file-v2.h"
#include "daemon/state/state-file.h"
#include "lib/log.h"
#include "lib/macro.h"
#include "lib/time-util.h"

#define STATE_MAGIC "LNSTATE"
/* 3: one table of tagged records (a thread, a cgroup file), each attribute
 * of a thread a tagged entry (state-attr.h). 2 (fixed fields, a task and a
 * cgroup table) is read once and converted; 1 is set aside. */
#define STATE_VERSION 3u
/* One copy of a record: room for a thread with every attribute (CPU sets
 * of 1024 CPUs included) or a cgroup file with a path shorter than
 * STATE_PATH_MAX. */
#define STATE_COPY_SIZE 1024u
#define STATE_RECORD_SIZE (2 * STATE_COPY_SIZE)
/* 64 records: 131,136 bytes, reserved at once (a tmpfs /run of a few pages
 * left takes it); the table doubles as needed. */
#define STATE_INITIAL_RECORDS 64u
/* After a growth found no space, the next try waits this long (a storm of
 * new tasks on a full filesystem costs no allocation each). */
#define STATE_GROW_RETRY_USEC (5 * USEC_PER_SEC)
/* 1 Mi records (2 GiB): far beyond any task count, a bound for a header
 * that says otherwise. */
#define STATE_MAX_RECORDS (1u << 20)

/* A copy: its sequence number, what it holds (KIND_*) and that kind's
 * version, the length of its body, the body, zeros, the checksum of
 * everything before it (written last). */
#define COPY_SEQ 0u
#define COPY_KIND 8u
#define COPY_KIND_VERSION 10u
#define COPY_BODY_LEN 12u
#define COPY_BODY 16u
#define COPY_SUM (STATE_COPY_SIZE - 8u)
#define BODY_MAX (COPY_SUM - COPY_BODY)

typedef enum RecordKind {
        KIND_FREE = 0,   /* released, or never used */
        KIND_THREAD = 1, /* ThreadHead, then the attributes' entries (state-attr.h) */
        KIND_CGROUP = 2, /* CgroupHead, the three values, the path */
        KIND_UNIT_PROPERTY = 3, /* a systemd unit's property: as KIND_CGROUP (the path is
                                 * the unit's cgroup, where its name comes from) */
        KIND_PROCESS_LIMIT = 4, /* a process's resource limit: as KIND_CGROUP (the path
                                 * is PROC/PID, the pid and start time name the process) */
} RecordKind;

static bool kind_is_cgroup(unsigned k)
{
        return k == KIND_CGROUP || k == KIND_UNIT_PROPERTY || k == KIND_PROCESS_LIMIT;
}
#define KIND_VERSION 1u

typedef struct __attribute__((packed)) ThreadHead {
        int32_t pid, tid;
        uint64_t starttime;
} ThreadHead;

typedef struct __attribute__((packed)) CgroupHead {
        uint8_t owner, zero;
        uint16_t path_len;
        uint32_t kind;
        uint64_t ino, autogroup_id, starttime;
        int32_t pid;
        uint32_t zero2;
} CgroupHead;

typedef struct DiskHeader {
        char magic[8];
        uint32_t version, header_size, record_size, n_records;
        uint64_t generation;
        uint8_t boot_id[16];
        uint8_t reserved[16];
} DiskHeader;

_Static_assert(sizeof(DiskHeader) == 64, "DiskHeader layout");
_Static_assert(sizeof(DiskHeader) == STATE_V2_HEADER_SIZE, "the header's start as in version 2");
_Static_assert(BODY_MAX >= sizeof(CgroupHead) + 3 * STATE_VALUE_MAX + STATE_PATH_MAX - 1,
               "a cgroup record fits a copy");

/* The in-memory side of the table. */
typedef struct Slots {
        uint32_t n;
        uint64_t *seq;     /* per slot: sequence number of its newest valid copy */
        int8_t *active;    /* per slot: that copy (0, 1), -1 none */
        uint8_t *kind;     /* per slot: the RecordKind it holds (KIND_FREE: on the free stack) */
        uint32_t *free;    /* stack of free slots, lowest on top */
        size_t n_free, n_tasks, n_cg;
        StateCgroupRecord *loaded; /* cgroup records found at open, until taken */
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
        Slots s;
};

static DiskHeader *header(StateFile *f)
{
        return (DiskHeader *)f->image;
}

static uint8_t *record(StateFile *f, uint32_t slot)
{
        return f->image + sizeof(DiskHeader) + (size_t)slot * STATE_RECORD_SIZE;
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
                            f->path, f->s.n_tasks, f->s.n_cg);
                r = file_recreate(f);
                if (r < 0)
                        file_break(f, r, "cannot make it again");
                return;
        }
        log_warning("State file %s was cut short by someone else (%jd bytes, %jd allocated, of "
                    "%zu): written again from memory (%zu task and %zu cgroup records).",
                    f->path, (intmax_t)st.st_size, (intmax_t)st.st_blocks * 512, f->image_size,
                    f->s.n_tasks, f->s.n_cg);
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

/* ---- Two-copy records (state-copy.h) ----------------------------------- */

uint64_t state_copy_checksum(const void *c, size_t n)
{
        const uint8_t *p = c;
        uint64_t h = 0xcbf29ce484222325ull ^ 0x4c4e535441544531ull; /* FNV-1a, salted */

        for (size_t i = 0; i < n; i++) {
                h ^= p[i];
                h *= 0x100000001b3ull;
        }
        return h;
}

uint64_t state_copy_u64(const uint8_t *c, size_t off)
{
        uint64_t v;

        memcpy(&v, c + off, sizeof(v));
        return v;
}

int state_copy_best(const uint8_t *record, size_t size, bool (*unwritten)(const void *c),
                    bool *ret_torn)
{
        size_t sum_off = size - sizeof(uint64_t);
        int best = -1;

        *ret_torn = false;
        for (int k = 0; k < 2; k++) {
                const uint8_t *c = record + (size_t)k * size;
                uint64_t seq = state_copy_u64(c, 0);

                if (unwritten(c))
                        continue;
                if (seq == 0 || state_copy_u64(c, sum_off) != state_copy_checksum(c, sum_off)) {
                        *ret_torn = true;
                        continue;
                }
                if (best < 0 || seq > state_copy_u64(record + (size_t)best * size, 0))
                        best = k;
        }
        return best;
}

/* Never written: no sequence number, kind, length nor checksum (a record
 * is cleared whole when it is made). */
static bool copy_unwritten(const void *p)
{
        const uint8_t *c = p;

        return state_copy_u64(c, COPY_SEQ) == 0 && state_copy_u64(c, COPY_KIND) == 0 &&
               state_copy_u64(c, COPY_SUM) == 0;
}

static uint16_t copy_kind(const uint8_t *c)
{
        uint16_t k;

        memcpy(&k, c + COPY_KIND, sizeof(k));
        return k;
}

/* The active copy of SLOT (a valid one: active >= 0). */
static const uint8_t *slot_copy(StateFile *f, uint32_t slot)
{
        return record(f, slot) + (size_t)f->s.active[slot] * STATE_COPY_SIZE;
}

/* A copy of KIND with the body BODY (LEN bytes) into C (STATE_COPY_SIZE
 * bytes); seq and checksum are left to slot_write(). */
static void copy_fill(uint8_t *c, RecordKind kind, const uint8_t *body, size_t len)
{
        uint16_t k = (uint16_t)kind, v = kind == KIND_FREE ? 0 : KIND_VERSION;
        uint32_t n = (uint32_t)len;

        assert(len <= BODY_MAX);
        memset(c, 0, STATE_COPY_SIZE);
        memcpy(c + COPY_KIND, &k, sizeof(k));
        memcpy(c + COPY_KIND_VERSION, &v, sizeof(v));
        memcpy(c + COPY_BODY_LEN, &n, sizeof(n));
        if (len > 0)
                memcpy(c + COPY_BODY, body, len);
}

/* Write copy C into the older copy of SLOT, in memory and in the file (one
 * pwrite() of the copy, its checksum last): a write cut short leaves a copy
 * that does not match its checksum, and the other copy is the record. */
static void slot_write(StateFile *f, uint32_t slot, uint8_t *c)
{
        int target = f->s.active[slot] == 0 ? 1 : 0;
        uint8_t *d = record(f, slot) + (size_t)target * STATE_COPY_SIZE;
        uint64_t seq = f->s.seq[slot] + 1, sum;

        memcpy(c + COPY_SEQ, &seq, sizeof(seq));
        sum = state_copy_checksum(c, COPY_SUM);
        memcpy(c + COPY_SUM, &sum, sizeof(sum));
        memcpy(d, c, STATE_COPY_SIZE);
        f->s.seq[slot] = seq;
        f->s.active[slot] = (int8_t)target;
        file_write(f, (size_t)(d - f->image), STATE_COPY_SIZE);
}

/* Whether C holds what SLOT's active copy holds (then no write). */
static bool slot_same(StateFile *f, uint32_t slot, const uint8_t *c)
{
        return f->s.active[slot] >= 0 &&
               memcmp(slot_copy(f, slot) + COPY_KIND, c + COPY_KIND, COPY_SUM - COPY_KIND) == 0;
}

/* ---- Records ----------------------------------------------------------- */

/* A thread's record as a body: its identity, then its attributes' entries. */
static size_t thread_encode(const StateRecord *rec, uint8_t *body)
{
        ThreadHead h = { .pid = rec->pid, .tid = rec->tid, .starttime = rec->starttime };

        memcpy(body, &h, sizeof(h));
        return sizeof(h) + state_attr_encode(rec, body + sizeof(h), BODY_MAX - sizeof(h));
}

/* A valid thread body (LEN bytes) into *REC. False if out of range. */
static bool thread_decode(const uint8_t *body, size_t len, uint32_t slot, StateRecord *rec,
                          size_t *n_skipped)
{
        StateRecord r = { .slot = slot };
        ThreadHead h;

        if (len < sizeof(h))
                return false;
        memcpy(&h, body, sizeof(h));
        if (h.pid <= 0 || h.tid <= 0)
                return false;
        r.pid = h.pid;
        r.tid = h.tid;
        r.starttime = h.starttime;
        if (!state_attr_decode(body + sizeof(h), len - sizeof(h), &r, n_skipped))
                return false;
        *rec = r;
        return true;
}

/* One value: its length, then its bytes (no NUL). */
static int value_put(const char v[STATE_VALUE_MAX], uint8_t **p)
{
        size_t n = strnlen(v, STATE_VALUE_MAX);

        if (n >= STATE_VALUE_MAX)
                return -EOVERFLOW;
        **p = (uint8_t)n;
        memcpy(*p + 1, v, n);
        *p += 1 + n;
        return 0;
}

static bool value_get(const uint8_t **p, const uint8_t *end, char v[STATE_VALUE_MAX])
{
        size_t n;

        if (*p >= end || **p >= STATE_VALUE_MAX || **p > end - *p - 1)
                return false;
        n = **p;
        memcpy(v, *p + 1, n);
        v[n] = 0;
        if (strlen(v) != n)
                return false;
        *p += 1 + n;
        return true;
}

static int cgroup_encode(const StateCgroupRecord *rec, uint8_t *body, size_t *ret_len)
{
        size_t n = rec->path ? strlen(rec->path) : 0;
        CgroupHead h = {
                .owner = (uint8_t)rec->owner,
                .path_len = (uint16_t)n,
                .kind = rec->kind,
                .ino = rec->ino,
                .autogroup_id = rec->autogroup_id,
                .starttime = rec->starttime,
                .pid = rec->pid,
        };
        uint8_t *p = body + sizeof(h);
        int r;

        if (n == 0 || n >= STATE_PATH_MAX)
                return -ENAMETOOLONG;
        memcpy(body, &h, sizeof(h));
        r = value_put(rec->orig, &p);
        if (r >= 0)
                r = value_put(rec->written, &p);
        if (r >= 0)
                r = value_put(rec->previous, &p);
        if (r < 0)
                return r;
        memcpy(p, rec->path, n);
        *ret_len = (size_t)(p - body) + n;
        return 0;
}

/* A valid cgroup body (LEN bytes) into *REC (path allocated). -EINVAL if
 * out of range. */
static int cgroup_decode(const uint8_t *body, size_t len, uint32_t slot, StateCgroupRecord *rec)
{
        const uint8_t *p = body + sizeof(CgroupHead), *end = body + len;
        StateCgroupRecord r = { .slot = slot };
        CgroupHead h;

        if (len < sizeof(h))
                return -EINVAL;
        memcpy(&h, body, sizeof(h));
        if ((h.owner != STATE_CGROUP_UNITS && h.owner != STATE_CGROUP_GROUPS &&
             h.owner != STATE_CGROUP_RT_GRANTS) || h.zero ||
            h.zero2 || h.path_len == 0 || h.path_len >= STATE_PATH_MAX)
                return -EINVAL;
        if (!value_get(&p, end, r.orig) || !value_get(&p, end, r.written) ||
            !value_get(&p, end, r.previous) || (size_t)(end - p) != h.path_len ||
            memchr(p, 0, h.path_len))
                return -EINVAL;
        r.owner = h.owner;
        r.kind = h.kind;
        r.ino = h.ino;
        r.autogroup_id = h.autogroup_id;
        r.starttime = h.starttime;
        r.pid = h.pid;
        r.path = strndup((const char *)p, h.path_len);
        if (!r.path)
                return -ENOMEM;
        *rec = r;
        return 0;
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

/* ---- The table ---------------------------------------------------------- */

StateFile *state_file_free(StateFile *f)
{
        if (!f)
                return NULL;
        free(f->image);
        safe_close(f->fd);
        safe_close(f->dir_fd);
        free(f->name);
        free(f->s.seq);
        free(f->s.active);
        free(f->s.kind);
        free(f->s.free);
        state_cgroup_records_free(f->s.loaded, f->s.n_loaded);
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
        return f->s.n_tasks;
}

size_t state_file_cgroup_n_used(const StateFile *f)
{
        return f ? f->s.n_cg : 0;
}

/* Size the per-slot arrays for N records; new slots are free (pushed
 * highest first, so the lowest is used first). */
static int slots_resize(Slots *s, uint32_t n)
{
        uint64_t *seq;
        int8_t *active;
        uint8_t *kind;
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
        kind = realloc(s->kind, n * sizeof(uint8_t));
        if (!kind)
                return -ENOMEM;
        s->kind = kind;
        fr = realloc(s->free, n * sizeof(uint32_t));
        if (!fr)
                return -ENOMEM;
        s->free = fr;
        for (uint32_t i = s->n; i < n; i++) {
                s->seq[i] = 0;
                s->active[i] = -1;
                s->kind[i] = KIND_FREE;
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
        return sizeof(DiskHeader) + (size_t)n * STATE_RECORD_SIZE;
}

/* The free stack and the counts from the slots' kinds, lowest free on top. */
static void slots_free_rebuild(Slots *s)
{
        s->n_free = s->n_tasks = s->n_cg = 0;
        for (uint32_t i = s->n; i > 0; i--) {
                if (s->kind[i - 1] == KIND_THREAD)
                        s->n_tasks++;
                else if (kind_is_cgroup(s->kind[i - 1]))
                        s->n_cg++;
                else
                        s->free[s->n_free++] = i - 1;
        }
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

/* Grow the table to twice its records: the file's blocks reserved, the new
 * slots cleared in the file (a file longer than its header says may hold
 * anything there), then the header's count. */
static int table_grow(StateFile *f)
{
        uint32_t old = f->s.n, n = old * 2;
        int r;

        if (n > STATE_MAX_RECORDS)
                return -ENOSPC;
        r = table_extend(f, file_size_for(n));
        if (r < 0)
                return r;
        r = slots_resize(&f->s, n);
        if (r < 0)
                return r; /* the header still says OLD: the file is as before */
        file_write(f, file_size_for(old), file_size_for(n) - file_size_for(old));
        header(f)->n_records = n;
        file_write(f, 0, sizeof(DiskHeader));
        return 0;
}

/* A free slot, the table grown if there is none. */
static int slot_alloc(StateFile *f, uint32_t *ret_slot)
{
        int r;

        if (f->s.n_free == 0) {
                r = table_grow(f);
                if (r < 0)
                        return r;
        }
        *ret_slot = f->s.free[--f->s.n_free];
        return 0;
}

int state_file_alloc(StateFile *f, uint32_t *ret_slot)
{
        return slot_alloc(f, ret_slot);
}

/* SLOT now holds a record of KIND (from KIND_FREE when it was allocated). */
static void slot_take(StateFile *f, uint32_t slot, RecordKind kind)
{
        if (f->s.kind[slot] == kind)
                return;
        f->s.kind[slot] = (uint8_t)kind;
        if (kind == KIND_THREAD)
                f->s.n_tasks++;
        else
                f->s.n_cg++;
}

/* SLOT written free and back on the free stack. */
static void slot_release(StateFile *f, uint32_t slot)
{
        uint8_t c[STATE_COPY_SIZE];

        copy_fill(c, KIND_FREE, NULL, 0);
        slot_write(f, slot, c);
        if (f->s.kind[slot] == KIND_THREAD)
                f->s.n_tasks--;
        else
                f->s.n_cg--;
        f->s.kind[slot] = KIND_FREE;
        f->s.free[f->s.n_free++] = slot;
}

void state_file_put(StateFile *f, const StateRecord *rec)
{
        uint8_t c[STATE_COPY_SIZE], body[BODY_MAX];
        size_t len;

        if (!f || rec->slot >= f->s.n || kind_is_cgroup(f->s.kind[rec->slot]))
                return;
        len = thread_encode(rec, body);
        copy_fill(c, KIND_THREAD, body, len);
        /* Unchanged: nothing to write (most re-evaluations). */
        if (f->s.kind[rec->slot] == KIND_THREAD && slot_same(f, rec->slot, c))
                return;
        slot_write(f, rec->slot, c);
        slot_take(f, rec->slot, KIND_THREAD);
}

void state_file_release(StateFile *f, uint32_t slot)
{
        if (!f || slot >= f->s.n || f->s.kind[slot] != KIND_THREAD)
                return;
        slot_release(f, slot);
}

int state_file_cgroup_put(StateFile *f, uint32_t *slot1, const StateCgroupRecord *rec)
{
        uint8_t c[STATE_COPY_SIZE], body[BODY_MAX];
        RecordKind kind;
        uint32_t slot;
        size_t len;
        int r;

        if (!f)
                return 0;
        r = cgroup_encode(rec, body, &len);
        if (r < 0)
                return r;
        if (*slot1 == 0) {
                r = slot_alloc(f, &slot);
                if (r < 0)
                        return r;
                *slot1 = slot + 1;
        }
        slot = *slot1 - 1;
        kind = rec->target == STATE_TARGET_UNIT_PROPERTY     ? KIND_UNIT_PROPERTY
               : rec->target == STATE_TARGET_PROCESS_LIMIT ? KIND_PROCESS_LIMIT
                                                           : KIND_CGROUP;
        if (kind_is_cgroup(f->s.kind[slot]) && f->s.kind[slot] != kind) {
                f->s.n_cg--; /* the same slot, another kind of cgroup target */
                f->s.kind[slot] = KIND_FREE;
        }
        copy_fill(c, kind, body, len);
        slot_write(f, slot, c);
        slot_take(f, slot, kind);
        return 0;
}

void state_file_cgroup_release(StateFile *f, uint32_t *slot1)
{
        uint32_t slot = *slot1 - 1;

        if (*slot1 == 0)
                return;
        *slot1 = 0;
        if (!f || slot >= f->s.n || !kind_is_cgroup(f->s.kind[slot]))
                return;
        slot_release(f, slot);
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

        if (!f || f->s.n_loaded == 0) {
                *ret = NULL;
                *ret_n = 0;
                return 0;
        }
        out = calloc(f->s.n_loaded, sizeof(StateCgroupRecord));
        if (!out)
                return -ENOMEM;
        for (size_t i = 0; i < f->s.n_loaded; i++) {
                if (f->s.loaded[i].owner == owner)
                        out[n++] = f->s.loaded[i];
                else
                        f->s.loaded[j++] = f->s.loaded[i];
        }
        f->s.n_loaded = j;
        *ret = out;
        *ret_n = n;
        return 0;
}

/* ---- Reading ------------------------------------------------------------ */

/* One more corrupt record in L, at P in the table (the first one's offset
 * goes into the report). */
static void note_corrupt(const StateFile *f, StateFileLoad *l, const void *p)
{
        if (l->n_corrupt++ == 0)
                l->corrupt_offset = (size_t)((const uint8_t *)p - f->image);
}

/* Set up slot I from its record: its newest valid copy becomes the active
 * one. Returns that copy if it holds a record (*RET_LEN its body's
 * length), else NULL; a record both of whose copies were written and
 * neither is valid is noted as corrupt, since a crash tears one copy only. */
static const uint8_t *slot_load(StateFile *f, StateFileLoad *l, uint32_t i, size_t *ret_len)
{
        const uint8_t *rec = record(f, i), *c;
        bool torn;
        int best = state_copy_best(rec, STATE_COPY_SIZE, copy_unwritten, &torn);
        uint32_t len;

        if (best < 0 && torn && state_copy_u64(rec, COPY_SEQ) != 0 &&
            state_copy_u64(rec + STATE_COPY_SIZE, COPY_SEQ) != 0) {
                note_corrupt(f, l, rec);
                return NULL;
        }
        l->n_torn += torn && best >= 0;
        if (best < 0)
                return NULL;
        c = rec + (size_t)best * STATE_COPY_SIZE;
        f->s.active[i] = (int8_t)best;
        f->s.seq[i] = state_copy_u64(c, COPY_SEQ);
        memcpy(&len, c + COPY_BODY_LEN, sizeof(len));
        if (copy_kind(c) == KIND_FREE) {
                if (len != 0)
                        note_corrupt(f, l, rec);
                return NULL;
        }
        if (len > BODY_MAX) {
                note_corrupt(f, l, rec);
                return NULL;
        }
        *ret_len = len;
        return c;
}

/* The record in slot I (copy C, body LEN bytes) into L or the cgroup
 * records: its kind set, or counted as corrupt or skipped. */
static int slot_decode(StateFile *f, StateFileLoad *l, uint32_t i, const uint8_t *c, size_t len)
{
        uint16_t kind = copy_kind(c), version;
        int r;

        memcpy(&version, c + COPY_KIND_VERSION, sizeof(version));
        if (version != KIND_VERSION || (kind != KIND_THREAD && !kind_is_cgroup(kind))) {
                /* A newer latniced's: this one cannot give it back, and
                 * drops it (its slot is free here). */
                l->n_skipped++;
                memset(record(f, i), 0, STATE_RECORD_SIZE);
                f->s.active[i] = -1;
                f->s.seq[i] = 0;
                return 0;
        }
        if (kind == KIND_THREAD) {
                if (!thread_decode(c + COPY_BODY, len, i, &l->records[l->n_records],
                                   &l->n_skipped))
                        goto corrupt;
                l->n_records++;
        } else {
                r = cgroup_decode(c + COPY_BODY, len, i, &f->s.loaded[f->s.n_loaded]);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        goto corrupt;
                if (kind == KIND_UNIT_PROPERTY)
                        f->s.loaded[f->s.n_loaded].target = STATE_TARGET_UNIT_PROPERTY;
                else if (kind == KIND_PROCESS_LIMIT)
                        f->s.loaded[f->s.n_loaded].target = STATE_TARGET_PROCESS_LIMIT;
                f->s.n_loaded++;
        }
        f->s.kind[i] = (uint8_t)kind;
        return 0;
corrupt:
        note_corrupt(f, l, record(f, i));
        f->s.active[i] = -1;
        return 0;
}

/* Read every slot: the newest valid copy is the record. Counts torn,
 * corrupt and skipped records into L. */
static int records_read(StateFile *f, StateFileLoad *l)
{
        l->records = calloc(MAX(f->s.n, 1u), sizeof(StateRecord));
        f->s.loaded = calloc(MAX(f->s.n, 1u), sizeof(StateCgroupRecord));
        if (!l->records || !f->s.loaded)
                return -ENOMEM;
        for (uint32_t i = 0; i < f->s.n; i++) {
                size_t len;
                const uint8_t *c = slot_load(f, l, i, &len);
                int r;

                if (!c)
                        continue;
                r = slot_decode(f, l, i, c, len);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* ---- Opening ------------------------------------------------------------ */

/* Why header H (of a file of SIZE bytes) cannot be used, or NULL. A file
 * shorter than its records is not refused here (table_salvage()); nor is
 * version 2 (converted), whose sizes state_v2_header_problem() checks. */
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
        else if (h->version != STATE_VERSION && h->version != 2)
                r = asprintf(&s, "version %u, this latniced reads version %u (and converts 2)",
                             h->version, STATE_VERSION);
        else if (h->version == STATE_VERSION && (h->header_size != sizeof(DiskHeader) ||
                                                 h->record_size != STATE_RECORD_SIZE))
                r = asprintf(&s, "header size %u and record size %u, expected %zu and %u",
                             h->header_size, h->record_size, sizeof(DiskHeader),
                             STATE_RECORD_SIZE);
        else if (h->version == STATE_VERSION &&
                 (h->n_records == 0 || h->n_records > STATE_MAX_RECORDS))
                r = asprintf(&s, "record count %u out of range 1..%u", h->n_records,
                             STATE_MAX_RECORDS);
        else if (memcmp(boot_id, zero, 16) != 0 && memcmp(h->boot_id, zero, 16) != 0 &&
                 memcmp(h->boot_id, boot_id, 16) != 0)
                r = asprintf(&s, "written before the last reboot (another boot id)");
        else if (h->version == 2)
                return state_v2_header_problem((const uint8_t *)h, size);
        else
                return NULL;
        return r < 0 ? strdup("unusable") : s;
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
        r = slots_resize(&f->s, STATE_INITIAL_RECORDS);
        if (r < 0)
                return r;
        *header(f) = (DiskHeader){
                .magic = STATE_MAGIC,
                .version = STATE_VERSION,
                .header_size = sizeof(DiskHeader),
                .record_size = STATE_RECORD_SIZE,
                .n_records = STATE_INITIAL_RECORDS,
                .generation = 1,
        };
        memcpy(header(f)->boot_id, boot_id, 16);
        return 0;
}

/* Forget the table read from a file being set aside or converted; the
 * cgroup records found stay (to be settled in the new table). */
static void table_reset(StateFile *f)
{
        StateCgroupRecord *loaded = f->s.loaded;
        size_t n_loaded = f->s.n_loaded;

        f->image = mfree(f->image);
        f->image_size = 0;
        free(f->s.seq);
        free(f->s.active);
        free(f->s.kind);
        free(f->s.free);
        f->s = (Slots){ .loaded = loaded, .n_loaded = n_loaded };
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

/* Clear the records that could not be used, so that the file holds only
 * what the table does; keep the file as it was as PATH.corrupt first. */
static int table_drop_corrupt(StateFile *f, StateFileLoad *l)
{
        int r;

        if (asprintf(&l->problem, "%zu corrupt record(s) (the first at byte %zu; both copies "
                                  "bad, or values out of range), dropped",
                     l->n_corrupt, l->corrupt_offset) < 0)
                return -ENOMEM;
        r = copy_aside(f, &l->set_aside);
        if (r == -ENOMEM)
                return r;
        for (uint32_t i = 0; i < f->s.n; i++)
                if (f->s.active[i] < 0)
                        memset(record(f, i), 0, STATE_RECORD_SIZE);
        return 0;
}

/* The table just read (header checked): its records into L, corrupt ones
 * copied aside and cleared. */
static int table_adopt(StateFile *f, uint32_t n, const uint8_t boot_id[16], StateFileLoad *l)
{
        int r;

        r = slots_resize(&f->s, n);
        if (r < 0)
                return r;
        r = records_read(f, l);
        if (r < 0)
                return r;
        if (l->n_corrupt > 0) {
                r = table_drop_corrupt(f, l);
                if (r < 0)
                        return r;
        }
        slots_free_rebuild(&f->s);
        header(f)->generation++;
        memcpy(header(f)->boot_id, boot_id, 16);
        l->generation = header(f)->generation;
        return 0;
}

/* A file shorter than its header says (H; READ bytes of it are in F's
 * table): the records that are whole before its end into L, the rest
 * lost; *RET_PROBLEM says where it ends. The file is then set aside, and
 * the records get slots in a new one (table_resettle()). */
static int table_salvage(StateFile *f, const DiskHeader *h, size_t read, size_t need,
                         StateFileLoad *l, char **ret_problem)
{
        uint32_t whole = 0;
        int r;

        if (read > sizeof(DiskHeader))
                whole = (uint32_t)MIN((read - sizeof(DiskHeader)) / STATE_RECORD_SIZE,
                                      (size_t)UINT32_MAX);
        if (whole > h->n_records)
                whole = h->n_records;
        r = slots_resize(&f->s, whole);
        if (r < 0)
                return r;
        r = records_read(f, l);
        if (r < 0)
                return r;
        if (asprintf(ret_problem, "truncated at byte %zu: its %u records end at byte %zu; "
                                  "%zu task and %zu cgroup record(s) found in the %u whole "
                                  "records before that are used, the rest is lost",
                     read, h->n_records, need, l->n_records, f->s.n_loaded, whole) < 0)
                return -ENOMEM;
        return 0;
}

/* A version 2 file (SIZE bytes, its header checked): its records into L
 * and F's cgroup records, to be written into a new version 3 table
 * (l->converted_from). What it holds that cannot be used is reported as in
 * a version 3 file, the file kept as PATH.corrupt. */
static int table_convert(StateFile *f, size_t size, StateFileLoad *l)
{
        _cleanup_(state_v2_done) StateV2 v = {};
        int r;

        r = state_v2_read(f->image, size, &v);
        if (r < 0)
                return r;
        l->records = TAKE_PTR(v.records);
        l->n_records = v.n_records;
        f->s.loaded = TAKE_PTR(v.cg);
        f->s.n_loaded = v.n_cg;
        v.n_records = v.n_cg = 0;
        l->n_torn = v.n_torn;
        l->n_corrupt = v.n_corrupt;
        l->corrupt_offset = v.corrupt_offset;
        l->converted_from = 2;
        if (v.n_corrupt > 0 || v.whole < v.need) {
                if (asprintf(&l->problem, "version 2 file %s: %zu corrupt record(s)%s, dropped",
                             v.whole < v.need ? "truncated" : "read", v.n_corrupt,
                             v.whole < v.need ? " and the records past its end" : "") < 0)
                        return -ENOMEM;
                r = copy_aside(f, &l->set_aside);
                if (r == -ENOMEM)
                        return r;
        }
        table_reset(f);
        l->created = true;
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
        need = h.version == 2 ? size : file_size_for(h.n_records);
        f->image = malloc(MIN(size, need));
        if (!f->image)
                return -ENOMEM;
        n = pread_all(f->fd, f->image, MIN(size, need), 0);
        if (n < 0)
                return (int)n;
        f->image_size = (size_t)n;
        if (h.version == 2)
                return table_convert(f, (size_t)n, l);
        if ((size_t)n < need)
                return table_salvage(f, &h, (size_t)n, need, l, ret_problem);
        return table_adopt(f, h.n_records, boot_id, l);
}

/* Slots in the new table for the records L salvaged or converted, and
 * for the cgroup records found. */
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
        for (size_t i = 0; i < f->s.n_loaded; i++) {
                uint32_t slot1 = 0;
                int r = state_file_cgroup_put(f, &slot1, &f->s.loaded[i]);

                if (r < 0)
                        return r;
                f->s.loaded[i].slot = slot1 - 1;
        }
        return 0;
}

/* The table written to a new file that then takes the place of F's, in
 * one rename(): a latniced killed while it converts leaves the old file
 * or the new one, never half of each. */
static int file_replace(StateFile *f)
{
        _cleanup_free_ char *name = NULL;
        _cleanup_close_ int fd = -EBADF;
        int r;

        if (asprintf(&name, "%s.new", f->name) < 0)
                return -ENOMEM;
        (void)unlinkat(f->dir_fd, name, 0);
        fd = openat(f->dir_fd, name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW |
                                             O_NOCTTY, 0600);
        if (fd < 0)
                return -errno;
        if (flock(fd, LOCK_EX | LOCK_NB) < 0)
                r = -errno;
        else
                r = file_write_all(f, fd);
        if (r >= 0 && renameat(f->dir_fd, name, f->dir_fd, f->name) < 0)
                r = -errno;
        if (r < 0) {
                (void)unlinkat(f->dir_fd, name, 0);
                return r;
        }
        safe_close(f->fd);
        f->fd = TAKE_FD(fd);
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
                 * now on a write can only fail if the file is changed under us.
                 * A converted file is replaced whole instead. */
                r = l.converted_from ? file_replace(f) : file_write_all(f, f->fd);
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
