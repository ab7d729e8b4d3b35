/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target: the proc connector message parser of latniced,
 * proc_event_parse() (daemon/events.h).
 *
 * The input is used twice: as one cn_msg payload, as the daemon hands it to
 * the parser, and as a received netlink datagram, walked message by message
 * with libnl's nlmsg_ok()/nlmsg_next() the way the daemon's receive path
 * does (that walk is static in daemon/events.c, so it is repeated here).
 *
 * Oracle: a message is accepted only with positive ids and a known type,
 * and *ret is untouched unless one is accepted.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>

#include <netlink/msg.h>

#include "daemon/events.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
        if (!proc_event_type_to_string(e.type) || e.type == PROC_EV_LOST)
                abort();
        if (e.pid <= 0 || e.tid <= 0)
                abort();
        if (e.type == PROC_EV_FORK && (e.parent_pid < 0 || e.parent_tid < 0))
                abort();
        (void)proc_event_is_thread_fork(&e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        void *copy;

        if (size > 64 * 1024)
                return 0;

        /* an exact-size heap copy, so ASan sees any read past the end */
        copy = malloc(size ? size : 1);
        if (!copy)
                return 0;
        if (size)
                memcpy(copy, data, size);
        parse_one(copy, size);

        /* as a datagram: struct nlmsghdr needs 4-byte alignment, malloc gives more */
        {
                struct nlmsghdr *nlh = copy;
                int remaining = (int)size;

                for (; nlmsg_ok(nlh, remaining); nlh = nlmsg_next(nlh, &remaining)) {
                        if (nlh->nlmsg_type == NLMSG_NOOP || nlh->nlmsg_type == NLMSG_ERROR ||
                            nlh->nlmsg_type == NLMSG_OVERRUN)
                                continue;
                        parse_one(nlmsg_data(nlh), (size_t)nlmsg_datalen(nlh));
                }
        }
        free(copy);
        return 0;
}
