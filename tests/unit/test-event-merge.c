/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit test for daemon/watch/event-merge.c: the order in which the two
 * proc connector channels' events are handed on, on scripted receives. A
 * "socket" here is what the kernel queued for a channel, each event at its
 * time; a receive at time T takes what was queued before T. */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "daemon/watch/event-merge.h"
#include "lib/macro.h"

#define MAX_EVS 16

typedef struct Socket {
        ProcEvent queued[MAX_EVS];
        size_t n, taken;
        ProcEvent got[MAX_EVS];
        EventQueue q;
} Socket;

static void sock_init(Socket *s, uint32_t types)
{
        memset(s, 0, sizeof(*s));
        s->q = (EventQueue){ .evs = s->got, .types = types, .open = true, .drained = true };
}

static void queue_event(Socket *s, ProcEventType type, pid_t pid, pid_t tid, uint64_t t)
{
        assert(s->n < MAX_EVS);
        s->queued[s->n++] = (ProcEvent){ .type = type, .pid = pid, .tid = tid, .timestamp_ns = t };
}

/* A receive that begins at time T: everything queued before T, up to MAX
 * events (a batch); drained when nothing older than T is left behind. */
static void receive(Socket *s, uint64_t t, size_t max)
{
        assert(s->q.head == s->q.n_evs);
        s->q.n_evs = s->q.head = 0;
        s->q.rx_ns = t;
        while (s->taken < s->n && s->queued[s->taken].timestamp_ns < t && s->q.n_evs < max)
                s->got[s->q.n_evs++] = s->queued[s->taken++];
        s->q.drained = !(s->taken < s->n && s->queued[s->taken].timestamp_ns < t);
}

/* Hand on what may be handed on; appends "type:tid" words to OUT. */
static void dispatch(Socket *a, Socket *b, char *out, size_t size)
{
        EventQueue *from;

        while ((from = event_merge_next(&a->q, &b->q))) {
                const ProcEvent *e = &from->evs[from->head++];
                size_t l = strlen(out);

                if (from->types & EVENT_TYPE_BIT(e->type))
                        snprintf(out + l, size - l, "%s%s:%d", l ? " " : "",
                                 proc_event_type_to_string(e->type), (int)e->tid);
        }
}

#define PROMPT_TYPES                                                                            \
        (EVENT_TYPE_BIT(PROC_EV_EXEC) | EVENT_TYPE_BIT(PROC_EV_COMM) | EVENT_TYPE_BIT(PROC_EV_UID))
#define DEFERRED_TYPES (EVENT_TYPE_BIT(PROC_EV_FORK) | EVENT_TYPE_BIT(PROC_EV_EXIT))

/* The daemon-forkexit case: a process execs (prompt channel), then forks
 * and exits (deferred). The prompt channel was received before the exec
 * was queued, the deferred one after the exit: the fork must wait until
 * the prompt channel is received again, or its child is evaluated from a
 * parent whose exec was never seen. */
static void test_exec_before_fork(void)
{
        Socket pr, df;
        char out[256] = "";

        sock_init(&pr, PROMPT_TYPES);
        sock_init(&df, DEFERRED_TYPES);
        queue_event(&pr, PROC_EV_EXEC, 100, 100, 10);
        queue_event(&df, PROC_EV_FORK, 101, 101, 11);
        queue_event(&df, PROC_EV_EXIT, 100, 100, 12);

        receive(&pr, 8, MAX_EVS); /* nothing yet */
        receive(&df, 20, MAX_EVS);
        dispatch(&pr, &df, out, sizeof(out));
        assert(streq(out, "")); /* the fork waits for the prompt channel */
        assert(event_queue_has_exit(&df.q, 100) && !event_queue_has_exit(&df.q, 101));
        receive(&pr, 21, MAX_EVS);
        dispatch(&pr, &df, out, sizeof(out));
        printf("exec before fork: %s\n", out);
        assert(streq(out, "exec:100 fork:101 exit:100"));
}

/* The other way round: a thread is created (deferred) and renamed
 * (prompt); the prompt channel was received after the rename, the
 * deferred one before the creation. */
static void test_clone_before_rename(void)
{
        Socket pr, df;
        char out[256] = "";

        sock_init(&pr, PROMPT_TYPES);
        sock_init(&df, DEFERRED_TYPES);
        queue_event(&df, PROC_EV_FORK, 200, 201, 10);
        queue_event(&pr, PROC_EV_COMM, 200, 201, 11);

        receive(&df, 5, MAX_EVS);
        receive(&pr, 20, MAX_EVS);
        dispatch(&pr, &df, out, sizeof(out));
        assert(streq(out, ""));
        receive(&df, 21, MAX_EVS);
        dispatch(&pr, &df, out, sizeof(out));
        printf("clone before rename: %s\n", out);
        assert(streq(out, "fork:201 comm:201"));
}

/* Both received after everything: timestamp order, the prompt channel
 * first on a tie; each channel's events in the order received. */
static void test_timestamp_order(void)
{
        Socket pr, df;
        char out[256] = "";

        sock_init(&pr, PROMPT_TYPES);
        sock_init(&df, DEFERRED_TYPES);
        queue_event(&pr, PROC_EV_EXEC, 1, 1, 3);
        queue_event(&pr, PROC_EV_EXEC, 2, 2, 5);
        queue_event(&df, PROC_EV_FORK, 3, 3, 4);
        queue_event(&df, PROC_EV_EXIT, 1, 1, 5);
        queue_event(&df, PROC_EV_EXIT, 2, 2, 9);
        receive(&pr, 30, MAX_EVS);
        receive(&df, 30, MAX_EVS);
        dispatch(&pr, &df, out, sizeof(out));
        printf("timestamp order: %s\n", out);
        assert(streq(out, "exec:1 fork:3 exec:2 exit:1 exit:2"));
}

/* A channel whose batch ran out while the kernel holds more for it stops
 * the merge: its next batch may be older than the other's rest. A closed
 * channel never stops it. */
static void test_batch_and_closed(void)
{
        Socket pr, df;
        char out[256] = "";

        sock_init(&pr, PROMPT_TYPES);
        sock_init(&df, DEFERRED_TYPES);
        queue_event(&df, PROC_EV_FORK, 1, 1, 1);
        queue_event(&df, PROC_EV_FORK, 2, 2, 2);
        queue_event(&pr, PROC_EV_EXEC, 3, 3, 3);
        receive(&df, 30, 1); /* one of two */
        receive(&pr, 30, MAX_EVS);
        assert(!df.q.drained);
        dispatch(&pr, &df, out, sizeof(out));
        assert(streq(out, "fork:1"));
        receive(&df, 31, 1);
        dispatch(&pr, &df, out, sizeof(out));
        assert(streq(out, "fork:1 fork:2 exec:3"));

        /* closed: its old receive time does not hold the other back */
        sock_init(&pr, PROMPT_TYPES);
        sock_init(&df, DEFERRED_TYPES);
        out[0] = 0;
        queue_event(&pr, PROC_EV_EXEC, 4, 4, 40);
        receive(&df, 1, MAX_EVS);
        receive(&pr, 50, MAX_EVS);
        dispatch(&pr, &df, out, sizeof(out));
        assert(streq(out, ""));
        df.q.open = false;
        dispatch(&pr, &df, out, sizeof(out));
        assert(streq(out, "exec:4"));
        /* an exit a channel does not hand on is not its exit */
        df.q.types = PROMPT_TYPES;
        queue_event(&df, PROC_EV_EXIT, 5, 5, 41);
        receive(&df, 60, MAX_EVS);
        assert(!event_queue_has_exit(&df.q, 5));
}

int main(void)
{
        test_exec_before_fork();
        test_clone_before_rename();
        test_timestamp_order();
        test_batch_and_closed();
        return 0;
}
