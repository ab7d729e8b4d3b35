/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <time.h>
#include <unistd.h>

#include "cli/daemon-find.h"
#include "lib/macro.h"
#include "lib/proc.h"
#include "lib/trust.h"
#include "lib/util.h"

/* latniced's short options that take a value (daemon/latniced.c) */
#define SHORT_WITH_VALUE "cplb"

const char *daemon_bus_of_cmdline(const char *argv, size_t n)
{
        const char *bus = "system", *end = argv + n;
        bool want_bus = false, want_value = false;

        /* argv[0] first: skip it */
        for (const char *a = argv + strnlen(argv, n) + 1; a < end; a += strnlen(a, end - a) + 1) {
                if (want_bus || want_value) {
                        if (want_bus)
                                bus = a;
                        want_bus = want_value = false;
                        continue;
                }
                if (streq(a, "--"))
                        break;
                if (strncmp(a, "--bus=", 6) == 0)
                        bus = a + 6;
                else if (streq(a, "--bus"))
                        want_bus = true;
                else if (a[0] == '-' && a[1] != '-')
                        /* a cluster of short options: the first that takes a value takes the rest */
                        for (const char *c = a + 1; *c; c++) {
                                if (!strchr(SHORT_WITH_VALUE, *c))
                                        continue;
                                if (c[1])
                                        bus = *c == 'b' ? c + 1 : bus;
                                else
                                        want_bus = *c == 'b', want_value = *c != 'b';
                                break;
                        }
                else if (strncmp(a, "--", 2) == 0 && !strchr(a, '=') &&
                         (streq(a, "--config") || streq(a, "--policy-dir") ||
                          streq(a, "--log-level") || streq(a, "--cgroup-root") ||
                          streq(a, "--proc-root") || streq(a, "--recv-buffer") ||
                          streq(a, "--state-file")))
                        want_value = true;
        }
        return bus;
}

/* When PID started, as wall-clock time: its start (clock ticks after boot)
 * plus the boot time of /proc/stat. 0 if unknown. */
static uint64_t start_usec(const char *proc_root, pid_t pid)
{
        _cleanup_free_ char *path = NULL, *stat = NULL;
        uint64_t ticks, btime = 0;
        long hz = sysconf(_SC_CLK_TCK);
        const char *b;

        if (proc_starttime(proc_root, pid, pid, &ticks) < 0 || hz <= 0 ||
            asprintf(&path, "%s/stat", proc_root) < 0 ||
            read_full_file(path, 1 << 20, &stat, NULL) < 0)
                return 0;
        b = strstr(stat, "\nbtime ");
        if (!b || sscanf(b + 7, "%" SCNu64, &btime) != 1)
                return 0;
        return btime * 1000000 + ticks * 1000000 / (uint64_t)hz;
}

/* Is PID a latniced? 1 and its entry, 0, or -ENOMEM. */
static int daemon_probe(const char *proc_root, pid_t pid, DaemonProcess *ret)
{
        _cleanup_free_ char *comm = NULL, *path = NULL, *cmdline = NULL;
        size_t n = 0;
        uid_t uid;
        int r;

        r = proc_thread_comm(proc_root, pid, pid, &comm);
        if (r == -ENOMEM)
                return r;
        if (r < 0 || !streq(comm, "latniced"))
                return 0;
        r = proc_real_uid(proc_root, pid, &uid);
        if (r == -ENOMEM)
                return r;
        if (r < 0 || uid != 0)
                return 0;
        if (asprintf(&path, "%s/%d/cmdline", proc_root, (int)pid) < 0)
                return -ENOMEM;
        /* latniced's own arguments: a few hundred bytes */
        r = read_file_head(path, 64 * 1024, &cmdline, &n, NULL);
        if (r == -ENOMEM)
                return r;
        *ret = (DaemonProcess){
                .pid = pid,
                .bus = strdup(r >= 0 ? daemon_bus_of_cmdline(cmdline, n) : "system"),
                .start_usec = start_usec(proc_root, pid),
        };
        return ret->bus ? 1 : -ENOMEM;
}

int daemon_find(const char *proc_root, DaemonProcess **ret, size_t *ret_n)
{
        _cleanup_free_ pid_t *pids = NULL;
        DaemonProcess *found = NULL;
        size_t n_pids = 0, n = 0;
        int r;

        r = proc_pids(proc_root, &pids, &n_pids);
        if (r == -ENOMEM)
                return r;
        for (size_t i = 0; r >= 0 && i < n_pids; i++) {
                DaemonProcess d, *m;

                r = daemon_probe(proc_root, pids[i], &d);
                if (r < 0) {
                        daemon_processes_free(found, n);
                        return r;
                }
                if (r == 0)
                        continue;
                m = realloc(found, (n + 1) * sizeof(DaemonProcess));
                if (!m) {
                        free(d.bus);
                        daemon_processes_free(found, n);
                        return -ENOMEM;
                }
                found = m;
                found[n++] = d;
        }
        *ret = found;
        *ret_n = n;
        return 0;
}

void daemon_processes_free(DaemonProcess *d, size_t n)
{
        for (size_t i = 0; d && i < n; i++)
                free(d[i].bus);
        free(d);
}
