/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * BoundedReader: reads on worker threads with a deadline (see the header).
 *
 * One mutex guards everything shared. A worker's path, buffer and result
 * are the caller's while the worker is idle or done, and the worker's while
 * it is busy; the state says which, and only changes under the mutex.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "lib/bounded-read.h"
#include "lib/log.h"
#include "lib/macro.h"
#include "lib/time-util.h"

#define WORKER_STACK (64u * 1024u)
#define STOP_WAIT_USEC (1000ull * 1000ull)
#define KEEP_TOUCHED 4096u /* of a worker's buffer, stays resident after a read */
/* A read whose worker is only starved of a CPU (runnable, not blocked) is
 * waited for at most this long in all, whatever its timeout. */
#define STARVED_MAX_USEC (2000ull * 1000ull)

typedef enum WorkerState {
        WORKER_IDLE,
        WORKER_BUSY, /* reading: path, buf and the result are the worker's */
        WORKER_DONE, /* the result waits for the caller */
} WorkerState;

typedef struct Worker {
        BoundedReader *b;
        pthread_t thread;
        bool started;
        pid_t tid;   /* set by the worker when it starts (0: not yet) */
        uint64_t done_at; /* when its last read ended (CLOCK_MONOTONIC usec) */
        uint64_t active_done; /* its schedstat active time then (0: not known) */
        bool read_ended; /* atomic: the read is over, the worker only waits for the lock */
        int sched_fd; /* its /proc/self/task/TID/schedstat, opened at first use */
        int stat_fd;  /* its /proc/self/task/TID/stat, the same */
        pthread_cond_t wake;
        WorkerState state;
        bool abandoned; /* the caller gave up on the read in progress */
        uint32_t key;
        char path[BOUNDED_READ_PATH_MAX];
        char *buf; /* max + 1 bytes, mapped */
        size_t size;
        bool truncated;
        int error;
} Worker;

/* What one key has cost: its penalty and its wait budget. A key has one
 * only once a read of it waited past the timeout. */
typedef struct Account {
        uint32_t key;
        uint64_t until;     /* refused before this */
        uint64_t period;    /* the last penalty's length */
        uint64_t wait_left; /* wait past the timeout it may still cost */
        uint64_t wait_at;   /* when wait_left was last topped up */
} Account;

struct BoundedReader {
        pthread_mutex_t lock;
        pthread_cond_t done; /* CLOCK_MONOTONIC */
        size_t max;
        uint64_t timeout_usec;
        BoundedReadBudget budget; /* all 0: no wait past the timeout */
        bool stopping;
        bool start_failed; /* said that a worker could not be started */
        Worker workers[BOUNDED_READ_WORKERS];
        Account accounts[BOUNDED_READ_KEYS];
        size_t n_accounts;
        uint64_t retry_at;
        uint64_t n_timeouts, n_refused, n_late;
};

/* The read itself, outside the lock: as read_fd_bounded() with
 * READ_SHORT_IS_END | READ_TRUNCATE, into the worker's own buffer. */
static void worker_read(Worker *w, size_t max)
{
        size_t size = 0;
        int fd;

        w->truncated = false;
        w->error = 0;
        fd = open(w->path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0) {
                w->error = -errno;
                w->size = 0;
                return;
        }
        for (;;) {
                size_t want = max + 1 - size;
                ssize_t n = read(fd, w->buf + size, want);

                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        w->error = -errno;
                        break;
                }
                if (n == 0)
                        break;
                size += (size_t) n;
                if (size > max) { /* one byte past MAX: there is more */
                        size = max;
                        w->truncated = true;
                        break;
                }
                if ((size_t) n < want)
                        break;
        }
        (void) close(fd);
        w->size = size;
}

/* A thread's time running or waiting for a CPU in all, from its
 * schedstat FD (run time and run-queue delay, the delay counted when it
 * gets the CPU), in usec; 0 if not known. */
static uint64_t schedstat_active_usec(int fd)
{
        unsigned long long run = 0, delay = 0;
        char buf[96];
        ssize_t n;

        if (fd < 0)
                return 0;
        n = pread(fd, buf, sizeof(buf) - 1, 0);
        if (n <= 0)
                return 0;
        buf[n] = 0;
        if (sscanf(buf, "%llu %llu", &run, &delay) != 2)
                return 0;
        return (uint64_t) ((run + delay) / 1000u);
}

static void *worker_main(void *userdata)
{
        Worker *w = userdata;
        BoundedReader *b = w->b;
        /* Its own schedstat, read when a read ends: read by the caller
         * later, it would count what the worker spent after the read
         * (waiting for a CPU to hand it over) as part of it. */
        int self_fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC | O_NOCTTY);

        pthread_mutex_lock(&b->lock);
        w->tid = gettid();
        for (;;) {
                while (w->state != WORKER_BUSY && !b->stopping)
                        pthread_cond_wait(&w->wake, &b->lock);
                if (w->state != WORKER_BUSY)
                        break; /* stopping */
                pthread_mutex_unlock(&b->lock);
                worker_read(w, b->max);
                /* Read by the caller only once the state is DONE. */
                w->active_done = schedstat_active_usec(self_fd);
                w->done_at = now_usec(CLOCK_MONOTONIC);
                /* What the worker waits from here on (for the lock, which
                 * the caller may hold while waiting for a CPU) is not the
                 * read's. */
                __atomic_store_n(&w->read_ended, true, __ATOMIC_RELEASE);
                pthread_mutex_lock(&b->lock);
                if (w->abandoned) {
                        w->abandoned = false;
                        w->state = WORKER_IDLE;
                } else
                        w->state = WORKER_DONE;
                pthread_cond_broadcast(&b->done);
        }
        pthread_mutex_unlock(&b->lock);
        if (self_fd >= 0)
                (void) close(self_fd);
        return NULL;
}

int bounded_reader_new(size_t max, uint64_t timeout_usec, BoundedReader **ret)
{
        pthread_condattr_t ca;
        BoundedReader *b;

        if (max == 0 || max > SIZE_MAX / 2 || timeout_usec == 0)
                return -EINVAL;
        b = calloc(1, sizeof(*b));
        if (!b)
                return -ENOMEM;
        b->max = max;
        b->timeout_usec = timeout_usec;
        pthread_mutex_init(&b->lock, NULL);
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&b->done, &ca);
        pthread_condattr_destroy(&ca);
        for (size_t i = 0; i < ELEMENTSOF(b->workers); i++) {
                b->workers[i].b = b;
                b->workers[i].sched_fd = b->workers[i].stat_fd = -1;
                pthread_cond_init(&b->workers[i].wake, NULL);
        }
        *ret = b;
        return 0;
}

/* Start worker W with every signal blocked (latniced takes its signals
 * through a signalfd on the main thread). */
static int worker_start(Worker *w)
{
        sigset_t all, old;
        pthread_attr_t attr;
        int r;

        if (!w->buf) {
                /* Mapped, not from the heap: what a long read touched is
                 * given back (worker_take()). */
                void *p = mmap(NULL, w->b->max + 1, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                if (p == MAP_FAILED)
                        return -ENOMEM;
                w->buf = p;
        }
        sigfillset(&all);
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, WORKER_STACK);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        r = pthread_create(&w->thread, &attr, worker_main, w);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        pthread_attr_destroy(&attr);
        if (r != 0)
                return -r;
        w->started = true;
        return 0;
}

static Account *account_find(BoundedReader *b, uint32_t key)
{
        for (size_t i = 0; i < b->n_accounts; i++)
                if (b->accounts[i].key == key)
                        return &b->accounts[i];
        return NULL;
}

/* A's wait budget topped up to NOW: budget.per_second for each second
 * since, up to budget.burst. */
static void account_refill(const BoundedReader *b, Account *a, uint64_t now)
{
        unsigned __int128 gained = (unsigned __int128) (now - MIN(a->wait_at, now)) *
                                   b->budget.per_second_usec / USEC_PER_SEC;

        a->wait_left = (uint64_t) MIN(gained + a->wait_left,
                                      (unsigned __int128) b->budget.burst_usec);
        a->wait_at = now;
}

/* When A would be forgotten anyway: its penalty over and its budget full. */
static uint64_t account_settled_at(const BoundedReader *b, const Account *a)
{
        uint64_t full = a->wait_at;

        if (b->budget.per_second_usec > 0)
                full += (b->budget.burst_usec - MIN(a->wait_left, b->budget.burst_usec)) *
                        USEC_PER_SEC / b->budget.per_second_usec;
        return MAX(a->until, full);
}

/* KEY's account, refilled to NOW; a new one (a full budget) if it has none.
 * When the table is full, the account that settles first makes room. */
static Account *account_get(BoundedReader *b, uint32_t key, uint64_t now)
{
        Account *a = account_find(b, key);

        if (!a) {
                if (b->n_accounts < ELEMENTSOF(b->accounts))
                        a = &b->accounts[b->n_accounts++];
                else {
                        a = &b->accounts[0];
                        for (size_t i = 1; i < b->n_accounts; i++)
                                if (account_settled_at(b, &b->accounts[i]) <
                                    account_settled_at(b, a))
                                        a = &b->accounts[i];
                }
                *a = (Account){ .key = key, .wait_left = b->budget.burst_usec,
                                .wait_at = now };
        }
        account_refill(b, a, now);
        return a;
}

/* KEY's read timed out at NOW: refuse it for longer than the last time. */
static void penalize(BoundedReader *b, uint32_t key, uint64_t now)
{
        Account *p = account_get(b, key, now);

        if (p->period == 0 || now > p->until + BOUNDED_READ_PENALTY_FORGET_USEC)
                p->period = BOUNDED_READ_PENALTY_MIN_USEC;
        else
                p->period = MIN(p->period * 2, BOUNDED_READ_PENALTY_MAX_USEC);
        p->until = now + p->period;
}

/* Is a worker still held by an abandoned read of KEY? Then KEY waits for it,
 * however long its penalty: one key never holds two workers. */
static bool key_held(const BoundedReader *b, uint32_t key)
{
        for (size_t i = 0; i < ELEMENTSOF(b->workers); i++)
                if (b->workers[i].state == WORKER_BUSY && b->workers[i].key == key)
                        return true;
        return false;
}

static void note_retry(BoundedReader *b, uint64_t when)
{
        if (b->retry_at == 0 || when < b->retry_at)
                b->retry_at = when;
}

/* An idle worker, started if need be; NULL with *RET_ERROR if none. */
static Worker *worker_get(BoundedReader *b, int *ret_error)
{
        for (size_t i = 0; i < ELEMENTSOF(b->workers); i++) {
                Worker *w = &b->workers[i];

                if (w->state != WORKER_IDLE)
                        continue;
                if (!w->started) {
                        *ret_error = worker_start(w);
                        if (*ret_error == -ENOMEM)
                                return NULL;
                        if (*ret_error < 0) {
                                if (!b->start_failed)
                                        log_warning_errno(*ret_error,
                                                          "Cannot start a thread to read "
                                                          "command lines (%m): reading them "
                                                          "on the event loop.");
                                b->start_failed = true;
                                *ret_error = -EAGAIN;
                                return NULL;
                        }
                }
                return w;
        }
        *ret_error = -EBUSY;
        return NULL;
}

/* Hand W's result over to the caller (W is done). */
static int worker_take(Worker *w, char **ret, size_t *ret_size, bool *ret_truncated)
{
        char *copy;
        int r = w->error;

        w->state = WORKER_IDLE;
        if (r < 0)
                return r;
        copy = malloc(w->size + 1);
        if (!copy)
                return -ENOMEM;
        memcpy(copy, w->buf, w->size);
        copy[w->size] = 0;
        if (w->size > KEEP_TOUCHED) /* a long cmdline: its pages go back */
                (void) madvise(w->buf + KEEP_TOUCHED, w->size - KEEP_TOUCHED, MADV_DONTNEED);
        *ret = copy;
        if (ret_size)
                *ret_size = w->size;
        if (ret_truncated)
                *ret_truncated = w->truncated;
        return 0;
}

/* Wait under the lock until W is done or DEADLINE (CLOCK_MONOTONIC usec)
 * has passed; true if done. */
static bool worker_wait(BoundedReader *b, Worker *w, uint64_t deadline)
{
        struct timespec ts = { .tv_sec = (time_t) (deadline / USEC_PER_SEC),
                               .tv_nsec = (long) (deadline % USEC_PER_SEC) * 1000 };

        while (w->state == WORKER_BUSY)
                if (pthread_cond_timedwait(&b->done, &b->lock, &ts) == ETIMEDOUT)
                        break;
        return w->state == WORKER_DONE;
}

/* The wait past the timeout that KEY may cost now (its budget, at most
 * budget.max_usec). */
static uint64_t key_extra(BoundedReader *b, uint32_t key, uint64_t now)
{
        Account *a = account_find(b, key);

        if (a)
                account_refill(b, a, now);
        return MIN(b->budget.max_usec, a ? a->wait_left : b->budget.burst_usec);
}

/* W's /proc/self/task/TID/NAME in *FD, opened at first use (-1: not yet
 * known). */
static int worker_proc_fd(const Worker *w, int *fd, const char *name)
{
        char path[64];

        if (*fd < 0 && w->tid > 0) {
                snprintf(path, sizeof(path), "/proc/self/task/%d/%s", (int) w->tid, name);
                *fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        }
        return *fd;
}

/* Read W's /proc/self/task/TID/NAME (FD: kept open) into BUF. */
static bool worker_proc_read(const Worker *w, int *fd, const char *name, char *buf, size_t size)
{
        ssize_t n;

        if (worker_proc_fd(w, fd, name) < 0)
                return false;
        n = pread(*fd, buf, size - 1, 0);
        if (n <= 0)
                return false;
        buf[n] = 0;
        return true;
}

/* W's active time now (see schedstat_active_usec()). */
static uint64_t worker_active_usec(Worker *w)
{
        return schedstat_active_usec(worker_proc_fd(w, &w->sched_fd, "schedstat"));
}

/* Is W runnable now (running, or waiting for a CPU: state R)? A worker
 * that has not yet run (no tid: it was started for this read) is. */
static bool worker_runnable(Worker *w)
{
        char buf[512], *p;

        if (w->tid == 0)
                return true;
        if (!worker_proc_read(w, &w->stat_fd, "stat", buf, sizeof(buf)))
                return false;
        p = strrchr(buf, ')');
        return p && p[1] == ' ' && p[2] == 'R';
}

/* Of the WAITED usec since W's read began (W's active time was ACTIVE0
 * then), how long W was blocked: neither running nor waiting for a CPU.
 * A worker starved of a CPU on a busy machine is not held by the process
 * it reads; one blocked in the kernel (a busy mmap_lock) is. Where the
 * kernel does not say (no schedstat), all of it. DONE: the read ended,
 * its active time is the one the worker took at the end. */
static uint64_t worker_blocked_usec(Worker *w, uint64_t active0, uint64_t waited, bool done)
{
        uint64_t active = done && w->active_done > 0 ? w->active_done : worker_active_usec(w);

        active = active > active0 ? active - active0 : 0;
        return waited > active ? waited - active : 0;
}

/* KEY's read was blocked for BLOCKED usec (done or cut at AT), having been
 * allowed EXTRA past the timeout: what it was blocked past the timeout
 * comes off KEY's budget. */
static void key_charge(BoundedReader *b, uint32_t key, uint64_t blocked, uint64_t at,
                       uint64_t extra)
{
        Account *a;

        if (blocked <= b->timeout_usec || b->budget.burst_usec == 0)
                return;
        a = account_get(b, key, at);
        a->wait_left -= MIN(a->wait_left, MIN(blocked - b->timeout_usec, extra));
}

/* Wait for W's read, begun at START (W's active time then: ACTIVE0), while
 * it has been blocked for less than ALLOW and, when only starved of a CPU,
 * for at most STARVED_MAX_USEC in all. True if done; *RET_BLOCKED: how long
 * it was blocked, *RET_NOW: when the wait ended. */
static bool worker_wait_blocked(BoundedReader *b, Worker *w, uint64_t start, uint64_t active0,
                                uint64_t allow, uint64_t *ret_blocked, uint64_t *ret_now)
{
        uint64_t deadline = start + allow, now, blocked;
        bool done;

        for (;;) {
                done = worker_wait(b, w, deadline);
                now = now_usec(CLOCK_MONOTONIC);
                /* Done: until the read ended, not until this thread ran
                 * again (on a busy machine it may wait for a CPU too). */
                if (done)
                        now = MIN(now, w->done_at);
                blocked = worker_blocked_usec(w, active0, now - MIN(start, now), done);
                if (done || now - MIN(start, now) >= STARVED_MAX_USEC)
                        break;
                /* Waiting for a CPU now (the schedstat says so only once it
                 * runs), or for the lock this thread held after the read
                 * was over: look again a timeout later. */
                if (worker_runnable(w) || __atomic_load_n(&w->read_ended, __ATOMIC_ACQUIRE))
                        deadline = now + b->timeout_usec;
                else if (blocked >= allow)
                        break;
                else
                        deadline = now + (allow - blocked);
        }
        *ret_blocked = blocked;
        *ret_now = now;
        return done;
}

int bounded_reader_read(BoundedReader *b, uint32_t key, const char *path, char **ret,
                        size_t *ret_size, bool *ret_truncated)
{
        uint64_t now = now_usec(CLOCK_MONOTONIC), start, extra, active0, blocked;
        Account *p;
        Worker *w;
        int r = 0;

        if (strlen(path) >= BOUNDED_READ_PATH_MAX)
                return -ENAMETOOLONG;
        pthread_mutex_lock(&b->lock);
        p = account_find(b, key);
        if (p && (p->until > now || key_held(b, key))) {
                note_retry(b, MAX(p->until, now + BOUNDED_READ_PENALTY_MIN_USEC));
                b->n_refused++;
                r = -EBUSY;
                goto out;
        }
        w = worker_get(b, &r);
        if (!w) {
                if (r == -EBUSY) {
                        note_retry(b, now + BOUNDED_READ_PENALTY_MIN_USEC);
                        b->n_refused++;
                }
                goto out;
        }
        strcpy(w->path, path);
        w->key = key;
        active0 = worker_active_usec(w);
        w->read_ended = false;
        w->state = WORKER_BUSY;
        pthread_cond_signal(&w->wake);

        start = now;
        extra = key_extra(b, key, now);
        if (worker_wait_blocked(b, w, start, active0, b->timeout_usec + extra, &blocked, &now)) {
                if (now - start > b->timeout_usec)
                        b->n_late++;
                key_charge(b, key, blocked, now, extra);
                r = worker_take(w, ret, ret_size, ret_truncated);
                goto out;
        }
        w->abandoned = true;
        key_charge(b, key, blocked, now, extra);
        penalize(b, key, now);
        note_retry(b, account_find(b, key)->until);
        b->n_timeouts++;
        r = -ETIMEDOUT;
out:
        pthread_mutex_unlock(&b->lock);
        return r;
}

void bounded_reader_set_budget(BoundedReader *b, const BoundedReadBudget *budget)
{
        pthread_mutex_lock(&b->lock);
        b->budget = *budget;
        b->budget.max_usec = MIN(b->budget.max_usec, b->budget.burst_usec);
        for (size_t i = 0; i < b->n_accounts; i++)
                b->accounts[i].wait_left = MIN(b->accounts[i].wait_left, budget->burst_usec);
        pthread_mutex_unlock(&b->lock);
}

uint64_t bounded_reader_wait_left(BoundedReader *b, uint32_t key)
{
        uint64_t left;
        Account *a;

        pthread_mutex_lock(&b->lock);
        a = account_find(b, key);
        if (a)
                account_refill(b, a, now_usec(CLOCK_MONOTONIC));
        left = a ? a->wait_left : b->budget.burst_usec;
        pthread_mutex_unlock(&b->lock);
        return left;
}

uint64_t bounded_reader_take_retry_at(BoundedReader *b)
{
        uint64_t t;

        pthread_mutex_lock(&b->lock);
        t = b->retry_at;
        b->retry_at = 0;
        pthread_mutex_unlock(&b->lock);
        return t;
}

uint64_t bounded_reader_n_timeouts(const BoundedReader *b)
{
        return b->n_timeouts; /* the caller's thread writes it */
}

uint64_t bounded_reader_n_refused(const BoundedReader *b)
{
        return b->n_refused;
}

uint64_t bounded_reader_n_late(const BoundedReader *b)
{
        return b->n_late;
}

/* Wait up to STOP_WAIT_USEC for busy workers; true if none is left. */
static bool wait_workers(BoundedReader *b)
{
        uint64_t deadline = now_usec(CLOCK_MONOTONIC) + STOP_WAIT_USEC;
        struct timespec ts = { .tv_sec = (time_t) (deadline / USEC_PER_SEC),
                               .tv_nsec = (long) (deadline % USEC_PER_SEC) * 1000 };

        for (;;) {
                bool busy = false;

                for (size_t i = 0; i < ELEMENTSOF(b->workers); i++)
                        busy |= b->workers[i].state == WORKER_BUSY;
                if (!busy)
                        return true;
                if (pthread_cond_timedwait(&b->done, &b->lock, &ts) == ETIMEDOUT)
                        return false;
        }
}

BoundedReader *bounded_reader_free(BoundedReader *b)
{
        bool all_done;

        if (!b)
                return NULL;
        pthread_mutex_lock(&b->lock);
        all_done = wait_workers(b);
        b->stopping = true;
        for (size_t i = 0; i < ELEMENTSOF(b->workers); i++)
                pthread_cond_signal(&b->workers[i].wake);
        pthread_mutex_unlock(&b->lock);
        if (!all_done) {
                /* A worker the kernel still holds would wake up to freed
                 * memory: leave it all to the exit. */
                for (size_t i = 0; i < ELEMENTSOF(b->workers); i++)
                        if (b->workers[i].started)
                                pthread_detach(b->workers[i].thread);
                return NULL;
        }
        for (size_t i = 0; i < ELEMENTSOF(b->workers); i++) {
                Worker *w = &b->workers[i];

                if (w->started)
                        pthread_join(w->thread, NULL);
                pthread_cond_destroy(&w->wake);
                if (w->buf)
                        (void) munmap(w->buf, b->max + 1);
                if (w->sched_fd >= 0)
                        (void) close(w->sched_fd);
                if (w->stat_fd >= 0)
                        (void) close(w->stat_fd);
        }
        pthread_cond_destroy(&b->done);
        pthread_mutex_destroy(&b->lock);
        free(b);
        return NULL;
}
