/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The merge order of the proc connector's two channels (event-merge.h). */
#include "daemon/watch/event-merge.h"

bool event_queue_has_exit(const EventQueue *q, pid_t pid)
{
        if (!(q->types & EVENT_TYPE_BIT(PROC_EV_EXIT)))
                return false;
        for (size_t i = q->head; i < q->n_evs; i++)
                if (q->evs[i].type == PROC_EV_EXIT && q->evs[i].tid == pid && q->evs[i].pid == pid)
                        return true;
        return false;
}

/*
 * May E, the oldest event in memory, be handed on while queue Q has none
 * in memory? Only if Q's last receive began after E happened. An event
 * that caused another (a process's exec and then its fork or exit, a
 * thread's creation and then its rename) was queued on its socket by the
 * kernel before the later one happened, so a queue received after E's
 * time holds every event that caused E. Without this, an exec queued
 * between the two channels' receives was handed on after the process's
 * fork and exit (daemon-forkexit caught 1 of 30 children that kept what
 * they had inherited), or, received the other way round, a thread's rename
 * before its creation.
 */
static bool received_after(const EventQueue *q, const ProcEvent *e)
{
        return !q->open || q->head < q->n_evs || q->rx_ns > e->timestamp_ns;
}

EventQueue *event_merge_next(EventQueue *a, EventQueue *b)
{
        bool ha = a->head < a->n_evs, hb = b->head < b->n_evs;
        EventQueue *from;

        /* A queue that ran out while the kernel holds more for it: its
         * next batch may hold events older than the other's rest. */
        if ((!ha && !a->drained) || (!hb && !b->drained) || (!ha && !hb))
                return NULL;
        if (ha && (!hb || a->evs[a->head].timestamp_ns <= b->evs[b->head].timestamp_ns))
                from = a;
        else
                from = b;
        if (!received_after(from == a ? b : a, &from->evs[from->head]))
                return NULL; /* the other one is received again first */
        return from;
}
