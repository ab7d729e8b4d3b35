/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Process events: the netlink proc connector (libnl-3 socket) on an sd-event
 * io source.
 *
 * Every datagram from the kernel is length-checked before use; events the
 * daemon does not care about are dropped here. A receive queue overflow
 * (ENOBUFS: events were lost) is reported as PROC_EV_LOST so the owner can
 * rescan /proc. Nothing runs while no event arrives.
 *
 * Fork and exit events come on a second socket that wakes the daemon by
 * itself about once a second at most (every 20 ms while it finds them by
 * the batch): they are handed on together with the next exec or rename, in
 * the kernel's order (see events.c). An exec whose process's exit is
 * already in hand is not handed on.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

typedef enum ProcEventType {
        PROC_EV_FORK,   /* new task: tid/pid of the child, parent_tid/parent_pid of its
                         * real parent (for a thread: the parent of the process) */
        PROC_EV_EXEC,   /* pid/tid execed */
        PROC_EV_COMM,   /* tid renamed itself (prctl PR_SET_NAME, /proc/.../comm) */
        PROC_EV_UID,    /* real/effective uid changed */
        PROC_EV_GID,    /* real/effective gid changed */
        PROC_EV_EXIT,   /* tid exited */
        PROC_EV_LOST,   /* the kernel dropped events (ENOBUFS): rescan */
        _PROC_EV_MAX,
        _PROC_EV_INVALID = -EINVAL,
} ProcEventType;

typedef struct ProcEvent {
        ProcEventType type;
        pid_t pid;        /* thread group id */
        pid_t tid;        /* thread id */
        pid_t parent_pid; /* PROC_EV_FORK: tgid of the parent */
        pid_t parent_tid; /* PROC_EV_FORK: the thread that forked */
        uint32_t id;      /* PROC_EV_UID/GID: the new real id */
        uint64_t timestamp_ns; /* CLOCK_MONOTONIC (boot time based) of the event */
        bool gone;        /* PROC_EV_EXEC: the exit of the process's main thread came
                           * later in the same batch; it is gone (or a zombie), there
                           * is nothing to read */
} ProcEvent;

const char *proc_event_type_to_string(ProcEventType t);

/* True for a fork event that created a thread rather than a process. The
 * kernel reports the real parent of the task, which for a new thread is the
 * parent of its process, not the thread that called clone(): the only sign
 * of a thread is a tid that differs from its tgid. */
static inline bool proc_event_is_thread_fork(const ProcEvent *e)
{
        return e->type == PROC_EV_FORK && e->tid != e->pid;
}

/*
 * Parse one netlink message payload (a struct cn_msg followed by its data)
 * of SIZE bytes. Returns 1 and fills *ret for an event the daemon handles,
 * 0 for a valid message that is not interesting (ack, sid, ptrace,
 * coredump, unknown types), -EBADMSG for a truncated or inconsistent
 * message. *ret is untouched unless 1 is returned.
 */
int proc_event_parse(const void *payload, size_t size, ProcEvent *ret);

typedef struct ProcEvents ProcEvents;

/* Called for every event; a negative return is logged at debug level only.
 * A positive one says the event led to something (a process matched, a
 * setting changed): latniced stays prompt. While none does, a storm of
 * events is read in batches (see quiet_start() in events.c). */
typedef int (*proc_event_handler_t)(const ProcEvent *e, void *userdata);

/*
 * Walk one received proc connector datagram of LEN bytes (one or more
 * netlink messages; the kernel sends one) and call HANDLER for every event
 * proc_event_parse() accepts. NOOP, ERROR and OVERRUN messages, messages of
 * other connector users and malformed messages are skipped (the latter
 * logged at debug level); a message that claims more than LEN bytes ends the
 * walk. BUF must be aligned for struct nlmsghdr (4 bytes). This is the
 * receive path's own walk. Returns the number of events handed to HANDLER,
 * or -EINVAL for a NULL or misaligned BUF or a NULL HANDLER.
 */
int proc_events_dispatch(const void *buf, size_t len, proc_event_handler_t handler,
                         void *userdata);

/*
 * Open the proc connector, join its multicast group and ask the kernel to
 * start sending (PROC_CN_MCAST_LISTEN). RCVBUF: receive buffer in bytes (0:
 * the default of several MB); SO_RCVBUFFORCE is tried first so the limit
 * of net.core.rmem_max does not apply to root. Attach to EVENT.
 * Needs CAP_NET_ADMIN in the initial user and pid namespace.
 */
int proc_events_new(sd_event *event, size_t rcvbuf, proc_event_handler_t handler,
                    void *userdata, ProcEvents **ret);
ProcEvents *proc_events_free(ProcEvents *p);
static inline void proc_events_freep(ProcEvents **p)
{
        if (*p)
                proc_events_free(*p);
}

/*
 * Whether the kernel should send rename (comm) events at all: any process can
 * send them at will, and each costs latniced a receive even when nothing
 * looks at it. Also stops the events latniced never handles (sid, ptrace,
 * coredump). Linux 6.6 and later filter per socket; older kernels ignore
 * the request and send everything, so handlers must not rely on it.
 */
int proc_events_want_comm(ProcEvents *p, bool want);

/* Receive buffer size in effect (as the kernel reports it). */
size_t proc_events_rcvbuf(const ProcEvents *p);
/* Datagrams received / ENOBUFS overflows seen so far. */
uint64_t proc_events_n_received(const ProcEvents *p);
uint64_t proc_events_n_lost(const ProcEvents *p);
/* Exec events handed on marked gone because the process's main thread
 * exited later in the same batch (see events.c). */
uint64_t proc_events_n_exec_skipped(const ProcEvents *p);
/* Hand on the fork and exit events queued on their own socket now (when
 * stopping: a thread started just before is then known and put back too). */
int proc_events_flush_deferred(ProcEvents *p);
/* Wake-ups the fork and exit socket caused by itself, and those of them
 * that found a full batch (its watch then rests only briefly). */
uint64_t proc_events_n_deferred_wakeups(const ProcEvents *p);
uint64_t proc_events_n_deferred_busy(const ProcEvents *p);
/* Storms of events that led to nothing, in which latniced read the
 * sockets every few milliseconds instead of waking up at every event, and
 * the reads it made so. */
uint64_t proc_events_n_quiet_storms(const ProcEvents *p);
uint64_t proc_events_n_quiet_polls(const ProcEvents *p);
/* True while fork and exit events come on a socket of their own, drained
 * with the others (see events.c); false once the kernel was found to
 * ignore the filter (before Linux 6.6). */
bool proc_events_split(const ProcEvents *p);
/* True when no event is waiting in the receive queues right now. */
bool proc_events_drained(const ProcEvents *p);

#define PROC_EVENTS_DEFAULT_RCVBUF (8u * 1024u * 1024u)
