/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * The order in which the events of the proc connector's two channels are
 * handed on (see events.c): the oldest first, and never one that an event
 * still queued in the kernel may have caused. Pure, no sockets: events.c
 * receives, and tests/unit/test-event-merge.c scripts the receives.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/watch/events.h"

#define EVENT_TYPE_BIT(t) (1u << (t))

/* What one channel received and has not handed on yet. */
typedef struct EventQueue {
        ProcEvent *evs;
        size_t n_evs, head; /* evs[head..n_evs) are still to be handed on */
        uint32_t types;     /* EVENT_TYPE_BITs handed on from here */
        bool open;          /* its socket is open: more may come */
        bool drained;       /* the last receive emptied the kernel's queue */
        uint64_t rx_ns;     /* CLOCK_MONOTONIC when the last receive began */
} EventQueue;

/* The queue whose head event is to be handed on next, or NULL when the
 * merge must wait until a queue is received again. */
EventQueue *event_merge_next(EventQueue *a, EventQueue *b);

/* Does the rest of Q hold the exit of process PID's main thread, of a
 * type Q hands on? */
bool event_queue_has_exit(const EventQueue *q, pid_t pid);
