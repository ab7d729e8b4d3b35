/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stddef.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>

#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "daemon/watch/event-merge.h"
#include "daemon/watch/events.h"
#include "lib/log.h"
#include "lib/macro.h"
#include "lib/time-util.h"

/* Datagrams fetched per recvmmsg() call and calls per wake-up: a burst is
 * drained in large batches, yet other event sources (signals, watchdog)
 * get their turn after at most BATCH * ROUNDS events. */
#define BATCH 64
#define ROUNDS 16
/* A proc connector datagram is about 80 bytes; anything that does not fit
 * in this is not one (MSG_TRUNC) and is dropped. */
#define DGRAM_MAX 512
/* The most events one datagram can carry: every message has a netlink
 * header, a cn_msg and the head of a proc_event. */
#define EVENTS_PER_DGRAM                                                                        \
        (DGRAM_MAX / (NLMSG_HDRLEN + sizeof(struct cn_msg) + offsetof(struct proc_event, event_data)))
/* Wake-ups per interval before the prompt source rests (see proc_events_new()). */
#define WAKEUP_INTERVAL_USEC (10 * 1000)
#define WAKEUP_BURST 20
/* After the deferred channel woke latniced by itself, it rests this long
 * (every prompt wake-up drains it meanwhile); the short rest when that
 * wake-up found a full batch or more, so that a fork storm without execs
 * is drained as fast as before. */
#define DEFERRED_REST_USEC (1000 * 1000)
#define DEFERRED_BUSY_REST_USEC (20 * 1000)
/* A quiet storm: QUIET_BURST wake-ups in one WAKEUP_INTERVAL and no event
 * of the interval led to anything (see proc_event_handler_t), a storm of
 * processes the policy does not touch. The prompt watch then rests, and
 * latniced reads both sockets every QUIET_POLL_USEC instead, for as long
 * as events keep coming and none of them matters. */
#define QUIET_BURST 5
#define QUIET_POLL_USEC (2 * 1000)
#define QUIET_ACCURACY_USEC 100

#define TYPE_BIT(t) EVENT_TYPE_BIT(t)
/* What the deferred channel hands on: fork and exit. Nothing waits for
 * them: an exit only forgets, a process's fork leads to nothing (its exec
 * does), and a new thread inherited its process's attributes already. */
#define DEFERRED_TYPES (TYPE_BIT(PROC_EV_FORK) | TYPE_BIT(PROC_EV_EXIT))
#define ALL_TYPES (TYPE_BIT(_PROC_EV_MAX) - 1)

enum { PROMPT, DEFERRED, _CHANNEL_MAX };

/* One proc connector socket: its kernel-side filter and a batch received. */
typedef struct Channel {
        struct nl_sock *sk;
        sd_event_source *io;
        EventQueue q;       /* received, to be handed on: its own types; others are the other channel's */
        uint32_t asked;     /* TYPE_BITs the kernel was asked to send here */
        uint64_t asked_ns;  /* CLOCK_MONOTONIC when it was asked (after the request returned) */

        struct mmsghdr msgs[BATCH];
        struct iovec iov[BATCH];
        struct sockaddr_nl addrs[BATCH];
        size_t n_used;      /* msgs[0..n_used) may have been written by the kernel */
        uint8_t (*bufs)[DGRAM_MAX];
        uint64_t n_received; /* datagrams received here */
        bool unfiltered;    /* an event it was not asked for came after the request */
} Channel;

/*
 * Two sockets, so that fork and exit events do not wake latniced up on
 * their own: a short-lived process causes three events (fork, exec, exit)
 * that arrive apart, and each wake-up costs more than the event. The
 * prompt channel asks the kernel (Linux 6.6+ filters per socket) for exec,
 * uid/gid and rename events and wakes latniced at once; the deferred one
 * asks for fork and exit and is drained whenever the prompt one wakes
 * latniced. When it wakes latniced itself, its watch rests afterwards
 * (DEFERRED_REST_USEC), so that the exit that follows nearly every exec
 * does not cost a wake-up of its own. Events of both are
 * merged in timestamp order, so a handler sees them as one socket would
 * deliver them (an exit before a later exec of the reused pid).
 *
 * A kernel that ignores the filter sends everything to both: each channel
 * hands on only its own types, so every event is still handled once, and
 * the first event a channel did not ask for, stamped after it asked, ends
 * the split: the deferred socket is closed and the prompt one handles all.
 * A fork or exit the deferred socket had handed on before the prompt one
 * read it is then handed on a second time, once: handlers take that (an
 * exit forgets what is gone already, a thread is evaluated again).
 */
struct ProcEvents {
        Channel ch[_CHANNEL_MAX];
        sd_event_source *rest; /* ends the deferred channel's rest (one-shot timer) */
        sd_event_source *quiet; /* reads both channels while the prompt one rests */
        bool split; /* the deferred channel is in use */
        /* The current wake-up interval (CLOCK_MONOTONIC, usec): its start,
         * its wake-ups, whether an event in it led to anything. */
        uint64_t window_start;
        unsigned window_wakeups;
        bool window_mattered;
        proc_event_handler_t handler;
        void *userdata;
        size_t rcvbuf;
        uint64_t n_received, n_lost, n_exec_skipped, n_deferred_wakeups, n_deferred_busy;
        uint64_t n_quiet_storms, n_quiet_polls;
};

static const char *const event_names[_PROC_EV_MAX] = {
        [PROC_EV_FORK] = "fork", [PROC_EV_EXEC] = "exec", [PROC_EV_COMM] = "comm",
        [PROC_EV_UID] = "uid",   [PROC_EV_GID] = "gid",   [PROC_EV_EXIT] = "exit",
        [PROC_EV_LOST] = "lost",
};

const char *proc_event_type_to_string(ProcEventType t)
{
        if ((int)t < 0 || t >= _PROC_EV_MAX)
                return NULL;
        return event_names[t];
}

int proc_event_parse(const void *payload, size_t size, ProcEvent *ret)
{
        const size_t head = offsetof(struct proc_event, event_data);
        struct cn_msg cn;
        struct proc_event ev;
        ProcEvent out = {};
        size_t need;

        if (!payload || size < sizeof(struct cn_msg))
                return -EBADMSG;
        memcpy(&cn, payload, sizeof(cn));
        if (cn.id.idx != CN_IDX_PROC || cn.id.val != CN_VAL_PROC)
                return 0; /* another connector user: not ours */
        if (cn.len > size - sizeof(struct cn_msg) || cn.len < head)
                return -EBADMSG;

        /* Copy what the kernel sent into a zeroed, aligned event; kernels
         * differ in the size of some members (exit grew parent fields). */
        memset(&ev, 0, sizeof(ev));
        memcpy(&ev, (const uint8_t *)payload + sizeof(struct cn_msg), MIN((size_t)cn.len, sizeof(ev)));

        switch (ev.what) {
        case PROC_EVENT_FORK:
                need = sizeof(ev.event_data.fork);
                out.type = PROC_EV_FORK;
                out.pid = ev.event_data.fork.child_tgid;
                out.tid = ev.event_data.fork.child_pid;
                out.parent_pid = ev.event_data.fork.parent_tgid;
                out.parent_tid = ev.event_data.fork.parent_pid;
                break;
        case PROC_EVENT_EXEC:
                need = sizeof(ev.event_data.exec);
                out.type = PROC_EV_EXEC;
                out.pid = ev.event_data.exec.process_tgid;
                out.tid = ev.event_data.exec.process_pid;
                break;
        case PROC_EVENT_COMM:
                need = offsetof(struct comm_proc_event, comm);
                out.type = PROC_EV_COMM;
                out.pid = ev.event_data.comm.process_tgid;
                out.tid = ev.event_data.comm.process_pid;
                break;
        case PROC_EVENT_UID:
        case PROC_EVENT_GID:
                need = sizeof(ev.event_data.id);
                out.type = ev.what == PROC_EVENT_UID ? PROC_EV_UID : PROC_EV_GID;
                out.pid = ev.event_data.id.process_tgid;
                out.tid = ev.event_data.id.process_pid;
                out.id = ev.event_data.id.r.ruid;
                break;
        case PROC_EVENT_EXIT:
                need = offsetof(struct exit_proc_event, exit_code);
                out.type = PROC_EV_EXIT;
                out.pid = ev.event_data.exit.process_tgid;
                out.tid = ev.event_data.exit.process_pid;
                break;
        default:
                return 0; /* ack, sid, ptrace, coredump, or newer */
        }

        if (cn.len < head + need)
                return -EBADMSG;
        if (out.pid <= 0 || out.tid <= 0)
                return -EBADMSG;
        if (out.type == PROC_EV_FORK && (out.parent_pid < 0 || out.parent_tid < 0))
                return -EBADMSG;

        out.timestamp_ns = ev.timestamp_ns;
        *ret = out;
        return 1;
}

int proc_events_dispatch(const void *buf, size_t len, proc_event_handler_t handler,
                         void *userdata)
{
        /* libnl's walk takes a non-const header; it only reads through it. */
        struct nlmsghdr *nlh = (struct nlmsghdr *) buf;
        int remaining = (int) MIN(len, (size_t) INT32_MAX);
        int n = 0;

        if (!buf || !handler || (uintptr_t) buf % NLMSG_ALIGNTO != 0)
                return -EINVAL;

        /* The kernel sends one cn_msg per datagram; walk defensively anyway. */
        for (; nlmsg_ok(nlh, remaining); nlh = nlmsg_next(nlh, &remaining)) {
                ProcEvent e;
                int r;

                if (nlh->nlmsg_type == NLMSG_NOOP)
                        continue;
                if (nlh->nlmsg_type == NLMSG_ERROR || nlh->nlmsg_type == NLMSG_OVERRUN)
                        continue;

                r = proc_event_parse(nlmsg_data(nlh), (size_t) nlmsg_datalen(nlh), &e);
                if (r < 0) {
                        log_debug_errno(r, "Dropping malformed proc connector message: %m");
                        continue;
                }
                if (r == 0)
                        continue;
                if (n < INT_MAX)
                        n++;
                r = handler(&e, userdata);
                if (r < 0)
                        log_debug_errno(r, "Handling %s event of %d/%d failed: %m",
                                        proc_event_type_to_string(e.type), e.pid, e.tid);
        }
        return n;
}

static void report_lost(ProcEvents *p)
{
        ProcEvent e = { .type = PROC_EV_LOST };

        p->n_lost++;
        (void)p->handler(&e, p->userdata);
}

static int collect_event(const ProcEvent *e, void *userdata)
{
        Channel *c = userdata;

        if (!(c->q.types & TYPE_BIT(e->type))) {
                /* The other channel's (it gets its own copy), unless the
                 * kernel sends everything everywhere and did so after the
                 * request: then this channel is told to take all. */
                if (!(c->asked & TYPE_BIT(e->type)) && e->timestamp_ns > c->asked_ns)
                        c->unfiltered = true;
        }
        if (c->q.n_evs >= BATCH * EVENTS_PER_DGRAM)
                return -ENOBUFS; /* cannot happen: bounded by the datagram size */
        c->q.evs[c->q.n_evs++] = *e;
        return 0;
}

/* Receive up to BATCH datagrams on C and collect their events. Returns the
 * number of datagrams, 0 if none was waiting, -ENOBUFS if the kernel
 * dropped events since the last call, other negative errno. */
static int channel_receive(ProcEvents *p, Channel *c)
{
        int fd = nl_socket_get_fd(c->sk), n;

        c->q.n_evs = c->q.head = 0;
        /* Only the headers the last receive handed to the kernel are reset
         * (it writes those it fills and at most one more, the one that
         * ended it): most receives take one datagram of 64, and resetting
         * all of them cost more than the rest of the receive. */
        for (size_t i = 0; i < c->n_used; i++) {
                c->msgs[i].msg_hdr = (struct msghdr){
                        .msg_name = &c->addrs[i],
                        .msg_namelen = sizeof(c->addrs[i]),
                        .msg_iov = &c->iov[i],
                        .msg_iovlen = 1,
                };
                c->msgs[i].msg_len = 0;
        }
        c->q.rx_ns = now_nsec(CLOCK_MONOTONIC);
        do
                n = recvmmsg(fd, c->msgs, BATCH, MSG_DONTWAIT, NULL);
        while (n < 0 && errno == EINTR);
        c->n_used = n < 0 ? 1 : MIN((size_t)n + 1, (size_t)BATCH);
        if (n < 0)
                return errno == EAGAIN ? 0 : -errno;

        for (int i = 0; i < n; i++) {
                const struct msghdr *h = &c->msgs[i].msg_hdr;

                p->n_received++;
                c->n_received++;
                if (h->msg_flags & MSG_TRUNC)
                        continue;
                if (h->msg_namelen < sizeof(struct sockaddr_nl) ||
                    c->addrs[i].nl_family != AF_NETLINK || c->addrs[i].nl_pid != 0)
                        continue; /* only the kernel speaks here */
                (void)proc_events_dispatch(c->bufs[i], c->msgs[i].msg_len, collect_event, c);
        }
        return n;
}

static void channel_done(Channel *c)
{
        c->io = sd_event_source_disable_unref(c->io);
        if (c->sk)
                nl_socket_free(c->sk); /* closes the socket: the kernel stops sending */
        c->sk = NULL;
        c->q.open = false;
        free(c->bufs);
        c->bufs = NULL;
        free(c->q.evs);
        c->q.evs = NULL;
}

/* The kernel does not filter: one socket gets everything. The deferred
 * socket's batch is dropped, the prompt one has the same events. */
static void unsplit(ProcEvents *p)
{
        Channel *b = &p->ch[DEFERRED];

        log_debug("The kernel does not filter proc connector events, using one socket.");
        channel_done(b);
        p->rest = sd_event_source_disable_unref(p->rest);
        b->q.n_evs = b->q.head = 0;
        b->q.drained = true;
        p->ch[PROMPT].q.types = ALL_TYPES;
        p->split = false;
}

/* Hand on the collected events of both channels, each its own types, in
 * timestamp order (each channel's in the order it received them). Stops
 * when a channel that has more queued in the kernel runs out: its next
 * batch may hold events older than the other's rest. An exec whose
 * process's main thread exits later in the batch is handed on marked gone:
 * the process is gone, or a zombie, by now, which the handler would find
 * out with system calls (a short-lived process in a storm); it reads
 * nothing, and only remembers that the process was never read. */
static void dispatch_merged(ProcEvents *p)
{
        Channel *a = &p->ch[PROMPT], *b = &p->ch[DEFERRED];

        for (;;) {
                EventQueue *from = event_merge_next(&a->q, &b->q);
                const ProcEvent *e;
                ProcEvent gone;
                int r;

                if (!from)
                        return;
                e = &from->evs[from->head++];
                if (!(from->types & TYPE_BIT(e->type)))
                        continue;
                if (e->type == PROC_EV_EXEC && (event_queue_has_exit(&a->q, e->pid) ||
                                                event_queue_has_exit(&b->q, e->pid))) {
                        gone = *e;
                        gone.gone = true;
                        e = &gone;
                        p->n_exec_skipped++;
                }
                r = p->handler(e, p->userdata);
                if (r > 0)
                        p->window_mattered = true;
                else if (r < 0)
                        log_debug_errno(r, "Handling %s event of %d/%d failed: %m",
                                        proc_event_type_to_string(e->type), e->pid, e->tid);
        }
}

/* Receive from both channels and hand on, for at most ROUNDS batches each.
 * *RET_DEFERRED: the datagrams the deferred channel gave. */
static int drain(ProcEvents *p, size_t *ret_deferred)
{
        /* A round counts when it received something: one that received
         * nothing still lets the merge go past what it waited for (see
         * channel_received_after()), so it is never the last. */
        for (unsigned round = 0; round < ROUNDS;) {
                bool done = true, got = false;

                for (size_t k = 0; k < _CHANNEL_MAX; k++) {
                        Channel *c = &p->ch[k];
                        int n;

                        if (!c->sk || c->q.head < c->q.n_evs)
                                continue; /* closed, or events left to hand on */
                        n = channel_receive(p, c);
                        if (n == -ENOBUFS)
                                report_lost(p);
                        else if (n < 0)
                                return log_error_errno(n, "Failed to receive proc events: %m");
                        c->q.drained = n >= 0 && n < BATCH;
                        got |= n != 0;
                        if (k == DEFERRED && n > 0)
                                *ret_deferred += (size_t)n;
                }
                round += got;
                if (p->split && (p->ch[PROMPT].unfiltered || p->ch[DEFERRED].unfiltered))
                        unsplit(p);
                dispatch_merged(p);
                for (size_t k = 0; k < _CHANNEL_MAX; k++)
                        if (p->ch[k].q.head < p->ch[k].q.n_evs || !p->ch[k].q.drained)
                                done = false;
                if (done)
                        return 0;
        }
        /* Other sources get their turn; a channel with events left in
         * memory has more queued in the kernel, so its source fires again. */
        return 0;
}

int proc_events_flush_deferred(ProcEvents *p)
{
        Channel *c = &p->ch[DEFERRED];

        if (!p->split || !c->sk)
                return 0; /* one socket: nothing waits */
        for (unsigned round = 0; round < ROUNDS; round++) {
                int n;

                while (c->q.head < c->q.n_evs) {
                        const ProcEvent *e = &c->q.evs[c->q.head++];

                        if (c->q.types & TYPE_BIT(e->type))
                                (void)p->handler(e, p->userdata);
                }
                n = channel_receive(p, c);
                if (n == -ENOBUFS)
                        continue; /* lost: what is queued now still counts */
                if (n < 0)
                        return n;
                if (n == 0)
                        return 0;
        }
        return 0;
}

/* The deferred channel woke latniced by itself: its watch rests, long if
 * that wake-up found little. A watch that cannot rest stays on. */
/* Turn the watch IO off and the one-shot TIMER on, USEC from now (the
 * timer's callback turns the watch on again, or arms it anew). */
static int watch_rest(sd_event_source *io, sd_event_source *timer, uint64_t usec)
{
        int r;

        r = sd_event_source_set_time_relative(timer, usec);
        if (r >= 0)
                r = sd_event_source_set_enabled(timer, SD_EVENT_ONESHOT);
        if (r >= 0)
                r = sd_event_source_set_enabled(io, SD_EVENT_OFF);
        return r;
}

static void deferred_rest(ProcEvents *p, bool busy)
{
        sd_event_source *io = p->ch[DEFERRED].io;
        uint64_t usec = busy ? DEFERRED_BUSY_REST_USEC : DEFERRED_REST_USEC;
        int r;

        if (!io || !p->rest)
                return;
        r = sd_event_source_set_time_accuracy(p->rest, usec / 10);
        if (r >= 0)
                r = watch_rest(io, p->rest, usec);
        if (r < 0) {
                log_debug_errno(r, "Failed to rest the deferred proc connector watch: %m");
                (void)sd_event_source_set_enabled(p->rest, SD_EVENT_OFF);
                (void)sd_event_source_set_enabled(io, SD_EVENT_ON);
        }
}

static int on_rest_end(sd_event_source *s, uint64_t usec, void *userdata)
{
        ProcEvents *p = userdata;

        if (p->ch[DEFERRED].io)
                return sd_event_source_set_enabled(p->ch[DEFERRED].io, SD_EVENT_ON);
        return 0;
}

/* A wake-up in the current interval (a new one if it ended). */
static void window_note(ProcEvents *p, uint64_t now)
{
        if (now - p->window_start >= WAKEUP_INTERVAL_USEC) {
                p->window_start = now;
                p->window_wakeups = 0;
                p->window_mattered = false;
        }
        p->window_wakeups++;
}

/* Read again in QUIET_POLL_USEC, the prompt watch off meanwhile. */
static int quiet_poll_arm(ProcEvents *p)
{
        return watch_rest(p->ch[PROMPT].io, p->quiet, QUIET_POLL_USEC);
}

/* Back to waking up at every event; a new interval starts. */
static void quiet_end(ProcEvents *p, uint64_t now)
{
        (void)sd_event_source_set_enabled(p->quiet, SD_EVENT_OFF);
        if (p->ch[PROMPT].io)
                (void)sd_event_source_set_enabled(p->ch[PROMPT].io, SD_EVENT_ON);
        p->window_start = now;
        p->window_wakeups = 0;
        p->window_mattered = false;
}

/* After a prompt wake-up: a quiet storm starts polling. An event then
 * waits QUIET_POLL_USEC at most; a process that is gone by then (its exit
 * read in the same batch) costs nothing. */
static void quiet_start(ProcEvents *p, uint64_t now)
{
        int r;

        if (!p->ch[PROMPT].io || !p->quiet || p->window_mattered ||
            p->window_wakeups < QUIET_BURST)
                return;
        r = quiet_poll_arm(p);
        if (r < 0) {
                log_debug_errno(r, "Failed to rest the proc connector watch: %m");
                quiet_end(p, now);
                return;
        }
        p->n_quiet_storms++;
}

/* A poll of a quiet storm: read what came, and poll again while events
 * come and none matters; else wake up at every event again. */
static int on_quiet_poll(sd_event_source *s, uint64_t usec, void *userdata)
{
        ProcEvents *p = userdata;
        uint64_t before = p->ch[PROMPT].n_received, now;
        size_t got = 0;
        int r;

        if (sd_event_now(sd_event_source_get_event(s), CLOCK_MONOTONIC, &now) < 0)
                now = usec;
        p->n_quiet_polls++;
        p->window_mattered = false;
        r = drain(p, &got);
        if (!p->ch[PROMPT].io || p->window_mattered || p->ch[PROMPT].n_received == before ||
            quiet_poll_arm(p) < 0)
                quiet_end(p, now);
        return r;
}

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
        ProcEvents *p = userdata;
        bool deferred = s == p->ch[DEFERRED].io; /* unsplit() may end it */
        uint64_t now;
        size_t got = 0;
        int r;

        if (sd_event_now(sd_event_source_get_event(s), CLOCK_MONOTONIC, &now) < 0)
                now = 0;
        window_note(p, now);
        r = drain(p, &got);
        if (deferred) {
                bool busy = got >= BATCH || !p->ch[DEFERRED].q.drained;

                p->n_deferred_wakeups++;
                p->n_deferred_busy += busy;
                deferred_rest(p, busy);
        } else
                quiet_start(p, now);
        return r;
}

static int set_rcvbuf(int fd, size_t want, size_t *ret)
{
        int v = (int)MIN(want, (size_t)INT32_MAX / 2);
        socklen_t l = sizeof(v);

        if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v)) < 0 &&
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)) < 0)
                return -errno;
        if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, &l) < 0)
                return -errno;
        *ret = (size_t)v;
        return 0;
}

/* Event bits of the per-socket filter of Linux 6.6 and later (struct
 * proc_input); Debian 12's uapi headers predate them. */
#define FILTER_FORK 0x00000001u
#define FILTER_EXEC 0x00000002u
#define FILTER_UID 0x00000004u
#define FILTER_GID 0x00000040u
#define FILTER_COMM 0x00000200u
#define FILTER_EXIT 0x80000000u

static uint32_t filter_of_types(uint32_t types)
{
        static const uint32_t bits[_PROC_EV_MAX] = {
                [PROC_EV_FORK] = FILTER_FORK, [PROC_EV_EXEC] = FILTER_EXEC,
                [PROC_EV_COMM] = FILTER_COMM, [PROC_EV_UID] = FILTER_UID,
                [PROC_EV_GID] = FILTER_GID,   [PROC_EV_EXIT] = FILTER_EXIT,
        };
        uint32_t f = 0;

        for (size_t t = 0; t < _PROC_EV_MAX; t++)
                if (types & TYPE_BIT(t))
                        f |= bits[t];
        return f;
}

/* Ask for events: FILTER 0 is the classic request (everything, any
 * kernel); else a struct proc_input with the event bits wanted, which
 * kernels before 6.6 ignore (they keep sending everything). */
static int send_listen(struct nl_sock *sk, uint32_t filter)
{
        struct {
                struct cn_msg cn;
                uint32_t op;
                uint32_t event_type;
        } __attribute__((packed)) req = {
                .cn.id.idx = CN_IDX_PROC,
                .cn.id.val = CN_VAL_PROC,
                .cn.len = filter ? 2 * sizeof(uint32_t) : sizeof(uint32_t),
                .op = PROC_CN_MCAST_LISTEN,
                .event_type = filter,
        };
        struct nl_msg *msg;
        int r;

        msg = nlmsg_alloc_simple(NLMSG_DONE, 0);
        if (!msg)
                return -ENOMEM;
        r = nlmsg_append(msg, &req, sizeof(struct cn_msg) + req.cn.len, 0);
        if (r >= 0)
                r = nl_send_auto(sk, msg);
        nlmsg_free(msg);
        if (r < 0)
                return r == -NLE_NOMEM ? -ENOMEM : -EIO;
        return 0;
}

/* Ask the kernel to send TYPES on C; the kernel handles the request before
 * the send returns, so an event stamped later obeys it (if it filters). */
static int channel_ask(Channel *c, uint32_t types)
{
        struct timespec ts;
        int r;

        r = send_listen(c->sk, filter_of_types(types));
        if (r < 0)
                return r;
        c->asked = types;
        if (clock_gettime(CLOCK_MONOTONIC, &ts) == 0)
                c->asked_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
        return 0;
}

int proc_events_want_comm(ProcEvents *p, bool want)
{
        uint32_t types = TYPE_BIT(PROC_EV_EXEC) | TYPE_BIT(PROC_EV_UID) | TYPE_BIT(PROC_EV_GID);

        if (!p)
                return -EINVAL;
        if (want)
                types |= TYPE_BIT(PROC_EV_COMM);
        if (!p->split)
                types |= DEFERRED_TYPES; /* one socket for everything */
        return channel_ask(&p->ch[PROMPT], types);
}

static int nl_error_to_errno(int r)
{
        switch (-r) {
        case NLE_NOMEM:
                return -ENOMEM;
        case NLE_PERM:
                return -EPERM;
        case NLE_NOACCESS:
                return -EACCES;
        case NLE_PROTO_MISMATCH:
        case NLE_OPNOTSUPP:
                return -EPROTONOSUPPORT;
        default:
                return -EIO;
        }
}

/* Open C's socket, join the proc connector's group, and ask for TYPES
 * (the classic request first: kernels before 6.6 ignore the filtered one). */
static int channel_open(ProcEvents *p, Channel *c, size_t rcvbuf, uint32_t types)
{
        int r, fd;

        c->q.types = types;
        c->q.drained = true;
        c->bufs = malloc(BATCH * DGRAM_MAX);
        c->q.evs = malloc(BATCH * EVENTS_PER_DGRAM * sizeof(ProcEvent));
        if (!c->bufs || !c->q.evs)
                return -ENOMEM;
        for (size_t i = 0; i < BATCH; i++)
                c->iov[i] = (struct iovec){ c->bufs[i], DGRAM_MAX };
        c->n_used = BATCH; /* every header is set up by the first receive */

        c->sk = nl_socket_alloc();
        if (!c->sk)
                return -ENOMEM;
        c->q.open = true;
        nl_socket_disable_seq_check(c->sk);
        nl_socket_disable_auto_ack(c->sk);

        r = nl_connect(c->sk, NETLINK_CONNECTOR);
        if (r < 0)
                return nl_error_to_errno(r);
        fd = nl_socket_get_fd(c->sk);

        /* nl_connect() opened it with SOCK_CLOEXEC; make sure anyway. */
        r = fcntl(fd, F_GETFD);
        if (r >= 0 && !(r & FD_CLOEXEC))
                (void)fcntl(fd, F_SETFD, r | FD_CLOEXEC);

        r = nl_socket_set_nonblocking(c->sk);
        if (r < 0)
                return nl_error_to_errno(r);

        r = set_rcvbuf(fd, rcvbuf, &p->rcvbuf);
        if (r < 0)
                return r;

        r = nl_socket_add_membership(c->sk, CN_IDX_PROC);
        if (r < 0)
                return nl_error_to_errno(r);

        r = send_listen(c->sk, 0);
        if (r < 0)
                return r;
        return channel_ask(c, types);
}

static int channel_watch(ProcEvents *p, Channel *c, sd_event *event, const char *name,
                         uint64_t interval, unsigned burst)
{
        int r;

        r = sd_event_add_io(event, &c->io, nl_socket_get_fd(c->sk), EPOLLIN, on_io, p);
        if (r < 0)
                return r;
        (void)sd_event_source_set_description(c->io, name);
        if (interval == 0)
                return 0;
        r = sd_event_source_set_ratelimit(c->io, interval, burst);
        if (r < 0)
                log_debug_errno(r, "Failed to rate-limit %s wake-ups: %m", name);
        return 0;
}

int proc_events_new(sd_event *event, size_t rcvbuf, proc_event_handler_t handler,
                    void *userdata, ProcEvents **ret)
{
        _cleanup_(proc_events_freep) ProcEvents *p = NULL;
        int r;

        if (!event || !handler || !ret)
                return -EINVAL;

        p = calloc(1, sizeof(*p));
        if (!p)
                return -ENOMEM;
        p->handler = handler;
        p->userdata = userdata;
        if (rcvbuf == 0)
                rcvbuf = PROC_EVENTS_DEFAULT_RCVBUF;

        /* The deferred channel first: until the prompt one has its filter,
         * it gets forks and exits too and leaves them to the deferred one. */
        p->split = true;
        r = channel_open(p, &p->ch[DEFERRED], rcvbuf, DEFERRED_TYPES);
        if (r < 0)
                return r;
        r = channel_open(p, &p->ch[PROMPT], rcvbuf, ALL_TYPES & ~DEFERRED_TYPES);
        if (r < 0)
                return r;

        /* Under a storm the queue is drained a few events per wake-up, and
         * waking up costs more than the events (any process can cause one:
         * a rename loop). Past WAKEUP_BURST wake-ups in WAKEUP_INTERVAL the
         * prompt source rests until the interval ends, and then reads what
         * queued up in large batches: an event waits WAKEUP_INTERVAL at
         * most, and only during a storm. */
        r = channel_watch(p, &p->ch[PROMPT], event, "proc-connector", WAKEUP_INTERVAL_USEC,
                          WAKEUP_BURST);
        if (r >= 0)
                r = channel_watch(p, &p->ch[DEFERRED], event, "proc-connector-deferred", 0, 0);
        if (r >= 0)
                r = sd_event_add_time_relative(event, &p->rest, CLOCK_MONOTONIC,
                                               DEFERRED_REST_USEC, 0, on_rest_end, p);
        if (r >= 0)
                r = sd_event_source_set_enabled(p->rest, SD_EVENT_OFF);
        if (r >= 0)
                r = sd_event_add_time(event, &p->quiet, CLOCK_MONOTONIC, UINT64_MAX,
                                      QUIET_ACCURACY_USEC, on_quiet_poll, p);
        if (r >= 0)
                r = sd_event_source_set_enabled(p->quiet, SD_EVENT_OFF);
        if (r < 0)
                return r;
        (void)sd_event_source_set_description(p->rest, "proc-connector-deferred-rest");
        (void)sd_event_source_set_description(p->quiet, "proc-connector-quiet-poll");

        *ret = TAKE_PTR(p);
        return 0;
}

ProcEvents *proc_events_free(ProcEvents *p)
{
        if (!p)
                return NULL;
        for (size_t k = 0; k < _CHANNEL_MAX; k++)
                channel_done(&p->ch[k]);
        sd_event_source_disable_unref(p->rest);
        sd_event_source_disable_unref(p->quiet);
        free(p);
        return NULL;
}

size_t proc_events_rcvbuf(const ProcEvents *p)
{
        return p->rcvbuf;
}

uint64_t proc_events_n_received(const ProcEvents *p)
{
        return p->n_received;
}

uint64_t proc_events_n_lost(const ProcEvents *p)
{
        return p->n_lost;
}

uint64_t proc_events_n_exec_skipped(const ProcEvents *p)
{
        return p->n_exec_skipped;
}

uint64_t proc_events_n_deferred_wakeups(const ProcEvents *p)
{
        return p->n_deferred_wakeups;
}

uint64_t proc_events_n_deferred_busy(const ProcEvents *p)
{
        return p->n_deferred_busy;
}

uint64_t proc_events_n_quiet_storms(const ProcEvents *p)
{
        return p->n_quiet_storms;
}

uint64_t proc_events_n_quiet_polls(const ProcEvents *p)
{
        return p->n_quiet_polls;
}

bool proc_events_split(const ProcEvents *p)
{
        return p->split;
}

bool proc_events_drained(const ProcEvents *p)
{
        struct pollfd pfd[_CHANNEL_MAX];
        size_t n = 0;

        for (size_t k = 0; k < _CHANNEL_MAX; k++) {
                if (p->ch[k].q.head < p->ch[k].q.n_evs)
                        return false; /* received, not handed on yet */
                if (p->ch[k].sk)
                        pfd[n++] = (struct pollfd){ .fd = nl_socket_get_fd(p->ch[k].sk),
                                                    .events = POLLIN };
        }
        /* An error (none is expected) counts as drained: the caller only
         * waits for the queue, it must never wait for ever. */
        if (poll(pfd, n, 0) <= 0)
                return true;
        for (size_t k = 0; k < n; k++)
                if (pfd[k].revents & POLLIN)
                        return false;
        return true;
}
