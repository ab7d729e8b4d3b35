/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stddef.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>

#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "daemon/events.h"
#include "lib/log.h"
#include "lib/macro.h"

/* Datagrams fetched per recvmmsg() call and calls per wake-up: a burst is
 * drained in large batches, yet other event sources (signals, watchdog)
 * get their turn after at most BATCH * ROUNDS events. */
#define BATCH 64
#define ROUNDS 16
/* A proc connector datagram is about 80 bytes; anything that does not fit
 * in this is not one (MSG_TRUNC) and is dropped. */
#define DGRAM_MAX 512
/* Wake-ups per interval before the source rests (see proc_events_new()). */
#define WAKEUP_INTERVAL_USEC (10 * 1000)
#define WAKEUP_BURST 20

struct ProcEvents {
        struct nl_sock *sk;
        sd_event_source *io;
        proc_event_handler_t handler;
        void *userdata;
        size_t rcvbuf;
        uint64_t n_received, n_lost;

        struct mmsghdr msgs[BATCH];
        struct iovec iov[BATCH];
        struct sockaddr_nl addrs[BATCH];
        uint8_t (*bufs)[DGRAM_MAX];
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

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
        ProcEvents *p = userdata;

        for (unsigned round = 0; round < ROUNDS; round++) {
                int n;

                for (size_t i = 0; i < BATCH; i++) {
                        p->msgs[i].msg_hdr.msg_name = &p->addrs[i];
                        p->msgs[i].msg_hdr.msg_namelen = sizeof(p->addrs[i]);
                        p->msgs[i].msg_hdr.msg_iov = &p->iov[i];
                        p->msgs[i].msg_hdr.msg_iovlen = 1;
                        p->msgs[i].msg_hdr.msg_control = NULL;
                        p->msgs[i].msg_hdr.msg_controllen = 0;
                        p->msgs[i].msg_hdr.msg_flags = 0;
                        p->msgs[i].msg_len = 0;
                }

                n = recvmmsg(fd, p->msgs, BATCH, MSG_DONTWAIT, NULL);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        if (errno == EAGAIN)
                                return 0;
                        if (errno == ENOBUFS) {
                                report_lost(p);
                                continue;
                        }
                        return log_error_errno(errno, "Failed to receive proc events: %m");
                }
                if (n == 0)
                        return 0;

                for (int i = 0; i < n; i++) {
                        const struct msghdr *h = &p->msgs[i].msg_hdr;

                        p->n_received++;
                        if (h->msg_flags & MSG_TRUNC)
                                continue;
                        if (h->msg_namelen < sizeof(struct sockaddr_nl) ||
                            p->addrs[i].nl_family != AF_NETLINK || p->addrs[i].nl_pid != 0)
                                continue; /* only the kernel speaks here */
                        (void) proc_events_dispatch(p->bufs[i], p->msgs[i].msg_len, p->handler,
                                                    p->userdata);
                }
                if (n < BATCH)
                        return 0;
        }
        return 0;
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

int proc_events_want_comm(ProcEvents *p, bool want)
{
        uint32_t filter = FILTER_FORK | FILTER_EXEC | FILTER_UID | FILTER_GID | FILTER_EXIT;

        if (!p)
                return -EINVAL;
        return send_listen(p->sk, want ? filter | FILTER_COMM : filter);
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

int proc_events_new(sd_event *event, size_t rcvbuf, proc_event_handler_t handler,
                    void *userdata, ProcEvents **ret)
{
        _cleanup_(proc_events_freep) ProcEvents *p = NULL;
        int r, fd;

        if (!event || !handler || !ret)
                return -EINVAL;

        p = calloc(1, sizeof(*p));
        if (!p)
                return -ENOMEM;
        p->handler = handler;
        p->userdata = userdata;
        p->bufs = calloc(BATCH, DGRAM_MAX);
        if (!p->bufs)
                return -ENOMEM;
        for (size_t i = 0; i < BATCH; i++)
                p->iov[i] = (struct iovec){ p->bufs[i], DGRAM_MAX };

        p->sk = nl_socket_alloc();
        if (!p->sk)
                return -ENOMEM;
        nl_socket_disable_seq_check(p->sk);
        nl_socket_disable_auto_ack(p->sk);

        r = nl_connect(p->sk, NETLINK_CONNECTOR);
        if (r < 0)
                return nl_error_to_errno(r);
        fd = nl_socket_get_fd(p->sk);

        /* nl_connect() opened it with SOCK_CLOEXEC; make sure anyway. */
        r = fcntl(fd, F_GETFD);
        if (r >= 0 && !(r & FD_CLOEXEC))
                (void)fcntl(fd, F_SETFD, r | FD_CLOEXEC);

        r = nl_socket_set_nonblocking(p->sk);
        if (r < 0)
                return nl_error_to_errno(r);

        r = set_rcvbuf(fd, rcvbuf > 0 ? rcvbuf : PROC_EVENTS_DEFAULT_RCVBUF, &p->rcvbuf);
        if (r < 0)
                return r;

        r = nl_socket_add_membership(p->sk, CN_IDX_PROC);
        if (r < 0)
                return nl_error_to_errno(r);

        r = send_listen(p->sk, 0);
        if (r < 0)
                return r;

        r = sd_event_add_io(event, &p->io, fd, EPOLLIN, on_io, p);
        if (r < 0)
                return r;
        (void)sd_event_source_set_description(p->io, "proc-connector");
        /* Under a storm the queue is drained a few events per wake-up, and
         * waking up costs more than the events (any process can cause one:
         * a rename loop). Past WAKEUP_BURST wake-ups in WAKEUP_INTERVAL the
         * source rests until the interval ends, and then reads what queued
         * up in large batches: an event waits WAKEUP_INTERVAL at most, and
         * only during a storm. */
        r = sd_event_source_set_ratelimit(p->io, WAKEUP_INTERVAL_USEC, WAKEUP_BURST);
        if (r < 0)
                log_debug_errno(r, "Failed to rate-limit proc connector wake-ups: %m");

        *ret = TAKE_PTR(p);
        return 0;
}

ProcEvents *proc_events_free(ProcEvents *p)
{
        if (!p)
                return NULL;
        sd_event_source_disable_unref(p->io);
        if (p->sk)
                nl_socket_free(p->sk); /* closes the socket: the kernel stops sending */
        free(p->bufs);
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

bool proc_events_drained(const ProcEvents *p)
{
        struct pollfd pfd = { .fd = nl_socket_get_fd(p->sk), .events = POLLIN };

        /* An error (none is expected) counts as drained: the caller only
         * waits for the queue, it must never wait for ever. */
        return poll(&pfd, 1, 0) <= 0 || !(pfd.revents & POLLIN);
}
