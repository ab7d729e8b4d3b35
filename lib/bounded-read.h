/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * BoundedReader: read a file on a worker thread, and wait for it a bounded
 * time.
 *
 * For /proc/PID/cmdline: the kernel copies argv out of the process's memory
 * under that process's mmap_lock, and a process can keep its own mmap_lock
 * busy without any privilege (threads calling mprotect() over a large
 * mapping in a loop): a read of its cmdline then waits as long as the
 * process likes (146 ms on average, 200 ms at most, for 1 GiB and 8 such
 * threads here). latniced's event loop must not wait that long.
 *
 * What counts against the timeout is the time the worker is blocked: not
 * running and not waiting for a CPU (its /proc/self/task/TID/schedstat, run
 * time and run-queue delay, and its state R while it still waits). A worker
 * only starved of a CPU on a busy machine is not held by the process it
 * reads, and is waited for, up to 2 s in all per read; one blocked in the
 * kernel (a busy mmap_lock) is. Every read may be blocked for the timeout.
 * A read may be blocked longer only from its KEY's (latniced: the process's
 * uid) wait budget (bounded_reader_set_budget(); none by default): what it
 * is blocked past the timeout comes off that key's budget, which fills up
 * again at a fixed rate (a woken waiter waits for a CPU too, which the
 * budget covers). So what one key can cost the caller beyond the timeout
 * of each read is bounded: the burst, then the rate. Where the kernel has
 * no schedstat, all of a read's time counts, as blocked.
 *
 * A read that takes longer than the timeout and its key's allowance is
 * abandoned: its worker goes on until the kernel lets it go and is then free
 * again; the caller gets -ETIMEDOUT, and the read's KEY is refused (-EBUSY,
 * at once) for a penalty: 1 s after its first timeout, doubling with each
 * further one up to 64 s, back to 1 s after ten quiet minutes. So a user who
 * keeps their memory busy costs the caller at most one timeout per penalty
 * and their wait budget, and other keys are read as before. A key is also refused while an
 * abandoned read of its own still holds a worker, however long ago its
 * penalty ended: one key never holds two workers. When every worker is held
 * by an abandoned read, reads are refused (-EBUSY) too.
 *
 * Workers never allocate (each has its buffer from the start) and block every
 * signal. The calling side is single-threaded: one read at a time.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BOUNDED_READ_WORKERS 4
#define BOUNDED_READ_KEYS 64
/* Paths read are short ("/proc/PID/cmdline" under a proc root): longer ones
 * get -ENAMETOOLONG. Each worker holds one, from the start. */
#define BOUNDED_READ_PATH_MAX 512
#define BOUNDED_READ_PENALTY_MIN_USEC (1000ull * 1000ull)
#define BOUNDED_READ_PENALTY_MAX_USEC (64ull * 1000ull * 1000ull)
#define BOUNDED_READ_PENALTY_FORGET_USEC (600ull * 1000ull * 1000ull)

typedef struct BoundedReader BoundedReader;

/* Reads of at most MAX bytes, waited for at most TIMEOUT_USEC (and what a
 * budget allows). Workers start on the first read that needs one. */
int bounded_reader_new(size_t max, uint64_t timeout_usec, BoundedReader **ret);

/* How much longer than the timeout each key's reads may be waited for, in
 * all: BURST_USEC at first, PER_SECOND_USEC more each second up to BURST_USEC
 * again, at most MAX_USEC (capped at BURST_USEC) for one read. All 0 (the
 * default): never past the timeout. */
typedef struct BoundedReadBudget {
        uint64_t max_usec;
        uint64_t burst_usec;
        uint64_t per_second_usec;
} BoundedReadBudget;

void bounded_reader_set_budget(BoundedReader *b, const BoundedReadBudget *budget);

/* What KEY may still be waited for past the timeout, in all (usec). */
uint64_t bounded_reader_wait_left(BoundedReader *b, uint32_t key);

/* Stops the workers. One still held by the kernel after a second is left
 * running, and what it uses is not freed (the process is exiting). */
BoundedReader *bounded_reader_free(BoundedReader *b);
static inline void bounded_reader_freep(BoundedReader **b)
{
        if (*b)
                bounded_reader_free(*b);
}

/*
 * Read PATH as read_file_flags(READ_SHORT_IS_END | READ_TRUNCATE) would (at
 * most MAX bytes, a NUL after them, *RET_TRUNCATED if there was more), for
 * KEY. Returns 0, the read's negative errno, -ETIMEDOUT (abandoned, KEY
 * penalized), -EBUSY (refused: KEY is penalized, or no worker is free),
 * -ENOMEM, or -EAGAIN: no worker could be started (a thread limit, a
 * sandbox; said once in the log), and the caller is to read PATH itself.
 */
int bounded_reader_read(BoundedReader *b, uint32_t key, const char *path, char **ret,
                        size_t *ret_size, bool *ret_truncated);

/* The earliest end of a penalty that refused or cut a read since the last
 * call (CLOCK_MONOTONIC usec; for no free worker, a second after that
 * refusal), then forgotten; 0 if nothing was refused. When a caller should
 * try again. */
uint64_t bounded_reader_take_retry_at(BoundedReader *b);

/* Reads cut short (timeouts) and refused, since the start. */
uint64_t bounded_reader_n_timeouts(const BoundedReader *b);
uint64_t bounded_reader_n_refused(const BoundedReader *b);
/* Reads done after the timeout, on their key's budget. */
uint64_t bounded_reader_n_late(const BoundedReader *b);
