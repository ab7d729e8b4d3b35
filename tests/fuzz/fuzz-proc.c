/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target: the /proc parsers of lib/proc.c, on the content of the files
 * a task (partly) controls: stat (whose comm the task names itself), status
 * (Uid:, Gid:, Tgid: lines), cmdline (argv, or any title the task writes
 * over it), comm (the name it gives itself) and cgroup (a delegated subtree names its own cgroups), then
 * unit_name_from_cgroup_path() on the cgroup path found, and as a mount table
 * (mountinfo_fuse_dev(): whose fuse.SUBTYPE a user's FUSE server names).
 *
 * The input is parsed as each of those files, and also used as a hostile comm
 * inside an otherwise valid stat line and as a cmdline, where the expected
 * result is known exactly.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/macro.h"
#include "lib/proc.h"
#include "lib/trust.h"
#include "lib/unit-name.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* strnlen() without reading past SIZE even under strict_string_checks */
static size_t text_len(const char *s, size_t size)
{
        const char *nul = memchr(s, 0, size);

        return nul ? (size_t)(nul - s) : size;
}

static void *memdup_exact(const void *p, size_t n)
{
        void *q = malloc(n ? n : 1);

        if (q && n)
                memcpy(q, p, n);
        return q;
}

/* Any stat content: no crash, and a comm that comes from inside the input. */
static void parse_stat_any(const char *buf, size_t size)
{
        ProcStat st;
        int r;

        r = proc_stat_parse(buf, size, &st);
        if (r == -ENOMEM || r == -EIO)
                return;
        if (r != 0 || !st.comm || strlen(st.comm) + 2 > text_len(buf, size))
                abort();
        proc_stat_done(&st);
}

/* The input as the comm of a valid stat line: every field must come back. */
static void parse_stat_hostile_comm(const char *data, size_t size)
{
        _cleanup_free_ char *comm = NULL, *line = NULL;
        size_t len = text_len(data, size);
        ProcStat st;
        int n, r;

        comm = malloc(len + 1);
        if (!comm)
                return;
        memcpy(comm, data, len);
        comm[len] = 0;
        /* the kernel's comm has no NUL; anything else goes */
        n = asprintf(&line,
                     "4242 (%s) S 17 4242 4242 0 -1 %u 95 0 0 0 3 1 0 0 20 0 1 0 "
                     "18446744073709551615 8192 100 18446744073709551615 1 1 0 0 0 0 0 0 0 0 "
                     "0 0 17 1 0 0 0 0 0\n",
                     comm, 0x00200040u);
        if (n < 0)
                return;
        r = proc_stat_parse(line, (size_t)n, &st);
        if (r == -ENOMEM)
                return;
        if (r != 0) {
                fprintf(stderr, "stat line with comm [%s] rejected: %d\n", comm, r);
                abort();
        }
        if (!streq(st.comm, comm) || st.state != 'S' || st.ppid != 17 ||
            st.flags != 0x00200040u || st.starttime != UINT64_MAX) {
                fprintf(stderr, "stat line with comm [%s] parsed as [%s] %c %d %#llx %llu\n",
                        comm, st.comm, st.state, (int)st.ppid, (unsigned long long)st.flags,
                        (unsigned long long)st.starttime);
                abort();
        }
        proc_stat_done(&st);
}

static void parse_status(const char *buf, size_t size)
{
        static const char *const keys[] = { "Uid", "Gid", "Tgid", "Pid", "" };

        for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
                uint32_t v = 0x5a5a5a5a;
                int r = proc_status_get_u32(buf, size, keys[i], &v);

                if (r < 0 && r != -ENODATA && r != -EIO && r != -ENOMEM)
                        abort();
                if (r < 0 && v != 0x5a5a5a5a)
                        abort();
        }
}

/* cmdline: the result is known exactly (argv joined by spaces, trailing NULs
 * dropped; argv[0]'s basename). */
static void parse_cmdline(const char *buf, size_t size)
{
        _cleanup_free_ char *cmdline = NULL, *argv0 = NULL;
        size_t n = size;
        int r;

        r = proc_cmdline_parse(buf, size, &cmdline, &argv0);
        if (r == -ENOMEM)
                return;
        if (r != 0)
                abort();
        while (n > 0 && buf[n - 1] == 0)
                n--;
        if (n == 0) {
                if (cmdline || argv0)
                        abort();
                return;
        }
        if (!cmdline || strlen(cmdline) != n)
                abort();
        for (size_t i = 0; i < n; i++)
                if (cmdline[i] != (buf[i] == 0 ? ' ' : buf[i]))
                        abort();

        /* argv0: what follows the last '/' of the first argument, if anything */
        size_t first = text_len(buf, n);
        const char *slash = memrchr(buf, '/', first);
        const char *base = slash ? slash + 1 : buf;
        size_t base_len = first - (size_t)(base - buf);

        if (base_len == 0) {
                if (argv0)
                        abort();
        } else if (!argv0 || strlen(argv0) != base_len || memcmp(argv0, base, base_len) != 0)
                abort();
}

/* comm: the text up to the first NUL, without one trailing '\n' (the
 * kernel's; a name's own newlines stay). */
static void parse_comm(const char *buf, size_t size)
{
        _cleanup_free_ char *comm = NULL;
        size_t n = text_len(buf, size);
        int r;

        r = proc_comm_parse(buf, size, &comm);
        if (r == -ENOMEM)
                return;
        if (r != 0 || !comm)
                abort();
        if (n > 0 && buf[n - 1] == '\n')
                n--;
        if (strlen(comm) != n || memcmp(comm, buf, n) != 0)
                abort();
}

static void parse_cgroup(const char *buf, size_t size)
{
        _cleanup_free_ char *path = NULL, *unit = NULL;
        int r;

        r = proc_cgroup_parse(buf, size, &path);
        if (r == -ENOMEM)
                return;
        if (r != 0)
                abort();
        r = unit_name_from_cgroup_path(path, &unit);
        if (r == -ENXIO || r == -ENOMEM)
                return;
        if (r != 0 || !unit || !*unit || strchr(unit, '/') || !path || !strstr(path, unit))
                abort();
}

/* A mount table: 1 only where a line of that device says "- fuse". Tried
 * with the device of the first line and with 0:48. */
static void parse_mountinfo(const char *buf, size_t size)
{
        _cleanup_free_ char *text = NULL;
        unsigned ma = 0, mi = 48;
        size_t n = text_len(buf, size);
        int r;

        text = malloc(n + 1);
        if (!text)
                return;
        memcpy(text, buf, n);
        text[n] = 0;
        for (int i = 0; i < 2; i++) {
                r = mountinfo_fuse_dev(text, ma, mi);
                if (r != 0 && r != 1)
                        abort();
                if (r == 1 && !strstr(text, " - fuse"))
                        abort();
                if (sscanf(text, "%*u %*u %u:%u", &ma, &mi) != 2)
                        break;
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *buf;

        if (size > 256 * 1024)
                return 0;
        /* exact size, not NUL-terminated: the parsers must stop at SIZE */
        buf = memdup_exact(data, size);
        if (!buf)
                return 0;

        parse_stat_any(buf, size);
        parse_stat_hostile_comm(buf, size);
        parse_status(buf, size);
        parse_cmdline(buf, size);
        parse_comm(buf, size);
        parse_cgroup(buf, size);
        parse_mountinfo(buf, size);

        free(buf);
        return 0;
}
