/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ln-busrace ADDRESS PID OUT: the caller of the pid-reuse race against
 * org.latnice.Daemon1 (test-dbus-pidreuse.sh, not installed). It connects to
 * the bus at ADDRESS, sends SetTask(PID, {Nice: -5}) without waiting for the
 * answer, and forks: the parent prints "SENDER HOLDER" (its own pid, the
 * pid of the bus, SO_PEERCRED, has; and the child's) and exits at once, the
 * child keeps the connection open and writes the answer to the file OUT:
 * "return", "error NAME: MESSAGE", or "timeout" after 120 s. So the
 * connection outlives the pid the bus knows it by, which someone else can
 * then take.
 *
 * The child reads the raw socket (sd-bus is not for use after a fork):
 * little-endian D-Bus messages, as sd-bus and dbus-daemon write them on x86.
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

static uint32_t le32(const uint8_t *p)
{
        return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 |
               (uint32_t) p[3] << 24;
}

static size_t align8(size_t n)
{
        return (n + 7) & ~(size_t) 7;
}

/* The header fields of message M (LEN bytes): reply serial, error name. */
static void header_fields(const uint8_t *m, size_t len, uint32_t *reply_serial,
                          const char **error_name)
{
        size_t end = 16 + le32(m + 12), i = 16;

        while (i + 4 < end && end <= len) {
                uint8_t code = m[i], siglen = m[i + 1];
                char sig = (char) m[i + 2];
                size_t v = i + 3 + siglen; /* past code, length, signature, NUL */

                if (sig == 'u') {
                        v = (v + 3) & ~(size_t) 3;
                        if (code == 5)
                                *reply_serial = le32(m + v);
                        v += 4;
                } else if (sig == 's' || sig == 'o') {
                        v = (v + 3) & ~(size_t) 3;
                        if (code == 4)
                                *error_name = (const char *) m + v + 4;
                        v += 4 + le32(m + v) + 1;
                } else if (sig == 'g') {
                        v += 1 + m[v] + 1;
                } else
                        return;
                i = align8(v);
        }
}

/* Read messages from FD until the answer to SERIAL; write it to OUT. */
static int await_answer(int fd, uint32_t serial, FILE *out)
{
        static uint8_t buf[1 << 20];
        size_t have = 0;
        time_t until = time(NULL) + 120;

        for (;;) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                ssize_t n;

                while (have >= 16) {
                        size_t total = 16 + align8(le32(buf + 12)) + le32(buf + 4);
                        uint32_t reply_serial = 0;
                        const char *name = "";

                        if (buf[0] != 'l' || total > sizeof(buf))
                                return fprintf(out, "unreadable message\n"), 1;
                        if (have < total)
                                break;
                        header_fields(buf, total, &reply_serial, &name);
                        if (reply_serial == serial && buf[1] == 2)
                                return fprintf(out, "return\n"), 0;
                        if (reply_serial == serial && buf[1] == 3) {
                                /* the body's first string: the message */
                                size_t b = 16 + align8(le32(buf + 12));
                                const char *text = le32(buf + 4) >= 5
                                                           ? (const char *) buf + b + 4
                                                           : "";
                                return fprintf(out, "error %s: %s\n", name, text), 0;
                        }
                        memmove(buf, buf + total, have - total);
                        have -= total;
                }
                if (time(NULL) >= until)
                        return fprintf(out, "timeout\n"), 1;
                if (poll(&p, 1, 1000) <= 0)
                        continue;
                n = read(fd, buf + have, sizeof(buf) - have);
                if (n <= 0)
                        return fprintf(out, "connection closed\n"), 1;
                have += (size_t) n;
        }
}

int main(int argc, char **argv)
{
        sd_bus *bus = NULL;
        sd_bus_message *m = NULL;
        uint64_t cookie = 0;
        FILE *out;
        pid_t child;
        int fd, r;

        if (argc != 4) {
                fprintf(stderr, "usage: %s ADDRESS PID OUT\n", argv[0]);
                return 2;
        }
        r = sd_bus_new(&bus);
        if (r >= 0)
                r = sd_bus_set_address(bus, argv[1]);
        if (r >= 0)
                r = sd_bus_set_bus_client(bus, 1);
        if (r >= 0)
                r = sd_bus_start(bus);
        /* a call of our own first: Hello answered, NameAcquired read */
        if (r >= 0)
                r = sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                       "org.freedesktop.DBus", "GetId", NULL, NULL, "");
        if (r >= 0)
                r = sd_bus_message_new_method_call(bus, &m, "org.latnice.Daemon1",
                                                   "/org/latnice/Daemon1",
                                                   "org.latnice.Daemon1", "SetTask");
        if (r >= 0)
                r = sd_bus_message_append(m, "ua{sv}", (uint32_t) atoi(argv[2]), 1, "Nice",
                                          "i", -5);
        if (r >= 0)
                r = sd_bus_send(bus, m, &cookie);
        if (r >= 0)
                r = sd_bus_flush(bus);
        if (r >= 0)
                r = fd = sd_bus_get_fd(bus);
        if (r < 0) {
                fprintf(stderr, "ln-busrace: %s\n", strerror(-r));
                return 1;
        }
        out = fopen(argv[3], "we");
        if (!out)
                return perror("ln-busrace: OUT"), 1;
        child = fork();
        if (child < 0)
                return perror("ln-busrace: fork"), 1;
        if (child > 0) {
                printf("%d %d\n", (int) getpid(), (int) child);
                fflush(stdout);
                /* Exit at once, the bus left as it is: _exit, so that no
                 * exit handler (LeakSanitizer's under ASan) sees it. */
                _exit(0);
        }
        setvbuf(out, NULL, _IONBF, 0);
        _exit(await_answer(fd, (uint32_t) cookie, out));
}
