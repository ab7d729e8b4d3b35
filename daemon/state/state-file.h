/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * State file: the task table's entries on tmpfs, so that they outlive the
 * process (SIGKILL, a watchdog abort, a crash) and a restarted latniced
 * gives back the originals the dead one took.
 *
 * Why a file under /run/latnice, and not a memfd in systemd's file
 * descriptor store: the table survives a latniced started by hand, by a
 * test or under another service manager, and an administrator can look at
 * it. /run is tmpfs: a reboot, after which every pid is new anyway, empties
 * it.
 *
 * Written with pwrite(), not through a mapping: the table is kept in memory
 * as well (the file's bytes), each change is one pwrite() of the copy it
 * changes, followed by an fstat() of the file. A store into a shared
 * mapping of a file faults with SIGBUS when its page cannot be had (a hole
 * on a full filesystem) or is gone (the file truncated); a pwrite() at
 * worst fails. Every block of the file is reserved (fallocate()) before
 * the table uses it, at open and before each growth: a growth that finds
 * no space fails (new entries are then not recorded, and not tried again
 * for 5 s), never a write into space already counted. The fstat() after
 * each write notices a file cut short (shorter than the table, or with
 * fewer blocks: a write past a truncation leaves a hole) or removed or
 * replaced (no link left): the file is then written again whole from
 * memory (made again at its path if it is gone), so that it always holds
 * every live entry. The price: two system calls per record written
 * (measured on a loaded 2-CPU VM where a bare system call costs 1.4 us:
 * pwrite() of a copy 2.0-2.3 us, fstat() 1.7-1.8 us of CPU, against
 * 12-14 ns for the store into a mapping), about 8 us per thread latniced
 * changes, which saves it twice.
 *
 * The file and its directory must be latniced's own (secure-path.h): a
 * file owned by someone else or writable by group or others, or in a
 * directory others can write, is refused, and latniced does not start.
 *
 * Layout (native endianness; version 3): one table of records.
 *   header   magic "LNSTATE\0", version, header size, record size, record
 *            count, generation (incremented by every latniced that opens it),
 *            boot id (a file from another boot is set aside).
 *   records  each two copies of 1 KiB. A copy says what it holds: nothing
 *            (free), a thread, or a cgroup file (its kind, and that kind's
 *            version), then its body. A thread's body is its identity (pid,
 *            tid, start time) and one tagged, versioned entry per attribute
 *            (state-attr.h): the setting, the original, the expected value
 *            and the owner, so that an attribute latniced learns later
 *            (CPUAffinity=) is one more entry, not a new layout. A cgroup
 *            record ([Unit] knobs, daemon/groups/units.h; group settings of
 *            rules, daemon/groups/groups.h), a unit property record (a
 *            unit's CPUWeight= that either sets through systemd), or a
 *            process limit record (the RLIMIT_RTTIME of a process latniced
 *            granted real time, daemon/apply/rt-grants.h), is its
 *            owner and kind, the directory's identity,
 *            the original, the written and the previously written value,
 *            and the path. A record or an entry of a kind, tag or version
 *            this latniced does not know (a newer one wrote it) is skipped,
 *            never misread (such a record is dropped: its slot is free).
 *            A write goes to the copy that is not the newest valid one, in
 *            one pwrite(), its checksum last. A copy is valid when its
 *            checksum matches, and the valid copy with the higher sequence
 *            number wins. A process killed in the middle of a write leaves
 *            that copy torn (checksum mismatch) and the other one intact:
 *            the record reads as it was before the write. A write is in the
 *            file (the page cache) when pwrite() returns; a killed process
 *            loses none (only a reboot would, and it empties /run).
 *            A thread's attributes are one record, not one record each:
 *            the attributes of a writer group change in one system call,
 *            and so in the file in one write.
 *
 * A record with both copies written and neither valid, a copy whose
 * checksum matches but whose values are out of range, a bad header, a short
 * file, or another version cannot come from latniced dying: the file is then
 * reported (naming the byte where it ends, or where the first bad record
 * is), a copy (records) or the file itself (header, truncation) is set aside
 * as PATH.corrupt, and the valid records are still used (from a truncated
 * file: the records that are whole before its end, in a new file).
 *
 * Version 2 (fixed fields, a task table and a cgroup table) is read once
 * and converted: its records are written into a new version 3 file that
 * replaces it in one rename() (state-file-v2.h).
 *
 * The file is locked (flock) while a latniced uses it: a second one gets
 * -EBUSY.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon/state/thread-claim.h"
#include "lib/sched.h"
#include "lib/settings.h"

/* The RuntimeDirectory= of latniced.service (kept across restarts). */
#define STATE_FILE_DEFAULT "/run/latnice/tasks.state"

typedef struct StateRecord {
        uint32_t slot;          /* where it is in the file */
        pid_t pid, tid;
        uint64_t starttime;
        bool user_owned;
        /* The thread's claim (thread-claim.h): the SETTING_BITs latniced
         * changed and owns, their originals and expected values. */
        ThreadClaim claim;
        uint32_t pending_mask;  /* being applied when the record was written: may or
                                 * may not have reached the thread */
        Settings settings;      /* task settings only */
} StateRecord;

typedef struct StateFile StateFile;

/* What state_file_open() found in the file it opened. */
typedef struct StateFileLoad {
        StateRecord *records;   /* the valid entries (owned) */
        size_t n_records;
        size_t n_torn;          /* records whose newest write was torn (the older copy used) */
        size_t n_corrupt;       /* records dropped as corrupt */
        char *problem;          /* set when the file was set aside: why (owned) */
        char *set_aside;        /* where it went (owned), or NULL */
        uint64_t generation;    /* of this open: 1 for a new file */
        size_t corrupt_offset;  /* where the first corrupt record is (n_corrupt > 0) */
        bool created;           /* there was no file (or it was converted) */
        size_t n_skipped;       /* records and entries of a newer latniced, skipped */
        uint32_t converted_from; /* the version of a file converted (2), else 0 */
        char *error;            /* set when state_file_open() fails: why, naming the path */
} StateFileLoad;

void state_file_load_done(StateFileLoad *l);

/*
 * Open PATH (create it, and its directory, if missing), lock it, read its
 * records into *RET_LOAD. A file that cannot be used is reported in
 * RET_LOAD->problem, renamed to PATH.corrupt, and a new one is created.
 * Returns 0, -EBUSY if another process holds the lock, -EPERM for a file
 * or directory someone else could write (secure-path.h), -ENOSPC when its
 * first table cannot be reserved, or negative errno (the directory cannot
 * be created or written, out of memory); RET_LOAD->error then says why
 * (except for -EBUSY and -ENOMEM), and is freed by state_file_load_done().
 */
int state_file_open(const char *path, StateFile **ret, StateFileLoad *ret_load);
/* Unmap and close; the file stays as it is (that is the point). NULL ok. */
StateFile *state_file_free(StateFile *f);
static inline void state_file_freep(StateFile **f)
{
        if (*f)
                state_file_free(*f);
}

const char *state_file_path(const StateFile *f);

/* A free slot for a new record (the file grows by doubling when full, its
 * blocks reserved first). -ENOMEM, -ENOSPC (no space to grow: then no
 * growth is tried for 5 s), -EIO (the file could not be kept), or an
 * fallocate() error. */
int state_file_alloc(StateFile *f, uint32_t *ret_slot);
/* Write REC into its slot (REC->slot), unless it holds exactly that
 * already. */
void state_file_put(StateFile *f, const StateRecord *rec);
/* Mark SLOT free (written like any record) and reuse it later. */
void state_file_release(StateFile *f, uint32_t slot);

/* Records in use (for tests and status). */
size_t state_file_n_used(const StateFile *f);

/* ---- Cgroup records --------------------------------------------------- */

/* Longest value (with its NUL) a cgroup record holds: cpu.* files hold
 * numbers, "max", or a percentage ("12.50"). */
#define STATE_VALUE_MAX 32
/* Longest path (with its NUL) a record holds: what is left of a record's
 * 1 KiB copy. A cgroup path is far shorter (a unit name is 255 bytes at
 * most); a longer one is not recorded (-ENAMETOOLONG), and latniced warns
 * that it is not given back after a crash. */
#define STATE_PATH_MAX 864

typedef enum StateCgroupOwner {
        STATE_CGROUP_UNITS = 1,  /* one [Unit] knob file: kind is the knob */
        STATE_CGROUP_GROUPS = 2, /* one group of a rule: kind is its SchedGroupKind */
        STATE_CGROUP_RT_GRANTS = 3, /* a process's limit under a real-time grant
                                     * (daemon/apply/rt-grants.h): kind is the
                                     * resource (RLIMIT_RTTIME) */
} StateCgroupOwner;

/* What a cgroup record's value is of. */
typedef enum StateTarget {
        STATE_TARGET_CGROUP_FILE = 0,   /* a file in the cgroup directory PATH */
        STATE_TARGET_UNIT_PROPERTY = 1, /* a property of the systemd unit whose cgroup is PATH */
        STATE_TARGET_PROCESS_LIMIT = 2, /* a resource limit of the process PID (its start
                                         * time STARTTIME), PATH its PROC/PID */
} StateTarget;

typedef struct StateCgroupRecord {
        uint32_t slot;                 /* where it is (from state_file_cgroup_take()) */
        StateTarget target;            /* (version 2 files: always a cgroup file) */
        StateCgroupOwner owner;
        uint32_t kind;
        char *path;                    /* cgroup directory, or PROC/PID/autogroup */
        uint64_t ino;                  /* the cgroup directory's inode (0: autogroup) */
        uint64_t autogroup_id;         /* autogroup: its id, */
        pid_t pid;                     /* a member the id was read through, */
        uint64_t starttime;            /* and that member's start time */
        char orig[STATE_VALUE_MAX];    /* before latniced's first write */
        char written[STATE_VALUE_MAX]; /* what latniced writes (recorded before the write) */
        char previous[STATE_VALUE_MAX];/* what it wrote before that ("": nothing): the file
                                        * still holds it if latniced died before the write */
} StateCgroupRecord;

/* Write REC into the cgroup record *SLOT1 (1 + slot; 0: a new one, and
 * *SLOT1 is set). No-op without a file (F NULL). -ENAMETOOLONG (path),
 * -EOVERFLOW (a value), -ENOSPC, -ENOMEM, or a growth error: then nothing
 * is recorded. */
int state_file_cgroup_put(StateFile *f, uint32_t *slot1, const StateCgroupRecord *rec);
/* Free the record *SLOT1 (if any) and set *SLOT1 to 0. */
void state_file_cgroup_release(StateFile *f, uint32_t *slot1);
/* Hand over the records of OWNER found when the file was opened (once;
 * then they are the caller's to keep or release). Returns their number;
 * *RET is freed with state_cgroup_records_free(). -ENOMEM. */
int state_file_cgroup_take(StateFile *f, StateCgroupOwner owner, StateCgroupRecord **ret,
                           size_t *ret_n);
void state_cgroup_records_free(StateCgroupRecord *recs, size_t n);
size_t state_file_cgroup_n_used(const StateFile *f);
