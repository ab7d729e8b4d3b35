/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ln-sigwatch ADDRESS: which TaskApplied signals of org.latnice.Daemon1 reach
 * this connection (test-dbus-hidepid.sh, not installed). It subscribes to
 * the signal on the bus at ADDRESS and prints "ready". Then, for each line it
 * reads on stdin, it calls GetStatus on latniced and prints one line
 * "signal PID TID RULE" for every TaskApplied that arrived before the reply,
 * then "sync". latniced sends its messages in order and the bus forwards
 * them in order, so after "sync" every signal latniced emitted before it
 * answered has been printed if this connection received it at all: a test
 * can check what did not arrive without waiting for it not to happen.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#define DEST "org.latnice.Daemon1"
#define PATH "/org/latnice/Daemon1"

static int on_signal(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        uint32_t pid, tid;
        const char *rule, *settings;

        (void) userdata;
        (void) ret_error;
        if (sd_bus_message_read(m, "uuss", &pid, &tid, &rule, &settings) < 0)
                printf("malformed\n");
        else
                printf("signal %u %u %s\n", pid, tid, rule);
        return 0;
}

/* A GetStatus round trip, then every message queued before its reply. */
static int sync_with_daemon(sd_bus *bus)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_call_method(bus, DEST, PATH, DEST, "GetStatus", &error, &reply, "");
        if (r < 0) {
                fprintf(stderr, "ln-sigwatch: GetStatus: %s\n", error.message ? error.message : strerror(-r));
                sd_bus_error_free(&error);
                return r;
        }
        sd_bus_message_unref(reply);
        /* sd_bus_call() queued what came before the reply: dispatch it */
        while ((r = sd_bus_process(bus, NULL)) > 0)
                ;
        if (r < 0)
                return r;
        printf("sync\n");
        fflush(stdout);
        return 0;
}

int main(int argc, char **argv)
{
        sd_bus *bus = NULL;
        char line[64];
        int r;

        if (argc != 2) {
                fprintf(stderr, "usage: ln-sigwatch ADDRESS\n");
                return 2;
        }
        r = sd_bus_new(&bus);
        if (r >= 0)
                r = sd_bus_set_address(bus, argv[1]);
        if (r >= 0)
                r = sd_bus_set_bus_client(bus, 1);
        if (r >= 0)
                r = sd_bus_start(bus);
        if (r < 0) {
                fprintf(stderr, "ln-sigwatch: cannot connect to %s: %s\n", argv[1], strerror(-r));
                return 1;
        }
        /* synchronous: the match is in place on the bus when this returns */
        r = sd_bus_match_signal(bus, NULL, DEST, PATH, DEST, "TaskApplied", on_signal, NULL);
        if (r < 0) {
                fprintf(stderr, "ln-sigwatch: cannot subscribe: %s\n", strerror(-r));
                return 1;
        }
        printf("ready\n");
        fflush(stdout);
        while (fgets(line, sizeof(line), stdin))
                if (sync_with_daemon(bus) < 0)
                        return 1;
        sd_bus_flush_close_unref(bus);
        return 0;
}
