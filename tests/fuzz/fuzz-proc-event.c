/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target: the proc connector message parser of latniced,
 * proc_event_parse() (daemon/watch/events.h).
 *
 * The input is used twice: as one cn_msg payload, as the daemon hands it to
 * the parser, and as a received netlink datagram, handed to
 * proc_events_dispatch(), the walk of the daemon's receive path.
 *
 * Oracle: a message is accepted only with positive ids and a known type,
 * and *ret is untouched unless one is accepted; the walk hands on only
 * such events, as many as it says, and never more than the datagram can
 * hold.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/connector.h>
#include <linux/netlink.h>

#include "daemon/watch/events.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_event(const ProcEvent *e)
{
        if (!proc_event_type_to_string(e->type) || e->type == PROC_EV_LOST)
                abort();
        if (e->pid <= 0 || e->tid <= 0)
                abort();
        if (e->type == PROC_EV_FORK && (e->parent_pid < 0 || e->parent_tid < 0))
                abort();
        (void)proc_event_is_thread_fork(e);
}

static void parse_one(const void *payload, size_t size)
{
        ProcEvent e, canary;
        int r;

        memset(&e, 0x5a, sizeof(e));
        canary = e;
        r = proc_event_parse(payload, size, &e);
        if (r < 0 && r != -EBADMSG)
                abort();
        if (r <= 0) {
                if (memcmp(&e, &canary, sizeof(e)) != 0)
                        abort();
                return;
        }
        if (r != 1)
                abort();
        check_event(&e);
}

static int on_event(const ProcEvent *e, void *userdata)
{
        unsigned *n = userdata;

        check_event(e);
        (*n)++;
        /* a failing handler must not stop the walk */
        return (*n % 2) ? -EIO : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        unsigned n = 0;
        void *copy;
        int r;

        if (size > 64 * 1024)
                return 0;

        /* an exact-size heap copy, so ASan sees any read past the end; malloc
         * also gives the 4-byte alignment struct nlmsghdr needs */
        copy = malloc(size ? size : 1);
        if (!copy)
                return 0;
        if (size)
                memcpy(copy, data, size);
        parse_one(copy, size);

        r = proc_events_dispatch(copy, size, on_event, &n);
        if (r < 0 || (unsigned)r != n)
                abort();
        /* every message takes at least a netlink header and a cn_msg */
        if (n > size / (sizeof(struct nlmsghdr) + sizeof(struct cn_msg)))
                abort();
        free(copy);
        return 0;
}
