/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/bus/bus-visibility.h"
#include "lib/macro.h"
#include "lib/proc.h"
#include "lib/util.h"

/* Does the mountinfo field at F (up to the next space) name PATH? The kernel
 * writes a space, tab, newline and backslash as \ooo. */
static bool field_is_path(const char *f, const char *path)
{
        for (;; f++, path++) {
                char c = *f;

                if (c == '\\' && f[1] >= '0' && f[1] <= '3' && f[2] >= '0' && f[2] <= '7' &&
                    f[3] >= '0' && f[3] <= '7') {
                        c = (char) ((f[1] - '0') << 6 | (f[2] - '0') << 3 | (f[3] - '0'));
                        f += 3;
                } else if (c == ' ' || c == '\n' || c == 0)
                        return *path == 0;
                if (c != *path)
                        return false;
        }
}

/* The level of one "hidepid=VALUE" option, VALUE ending at a comma, space,
 * newline or NUL. */
static int hidepid_value(const char *v)
{
        static const struct {
                const char *name;
                int level;
        } values[] = { { "0", 0 }, { "off", 0 },       { "1", 1 }, { "noaccess", 1 },
                       { "2", 2 }, { "invisible", 2 }, { "4", 4 }, { "ptraceable", 4 } };
        size_t n = strcspn(v, ", \n");

        for (size_t i = 0; i < ELEMENTSOF(values); i++)
                if (strlen(values[i].name) == n && strncmp(v, values[i].name, n) == 0)
                        return values[i].level;
        return 2;
}

/* The hidepid level of one mountinfo line L (up to EOL) if it is a proc
 * mount at MOUNT_POINT, else -1. */
static int line_hidepid(const char *l, const char *eol, const char *mount_point)
{
        const char *f = l, *sep, *opts;

        /* "ID PARENT MAJOR:MINOR ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER" */
        for (int i = 0; i < 4; i++) {
                f = memchr(f, ' ', (size_t) (eol - f));
                if (!f)
                        return -1;
                f++;
        }
        if (!field_is_path(f, mount_point))
                return -1;
        sep = memmem(f, (size_t) (eol - f), " - ", 3);
        if (!sep || eol - sep < 8 || memcmp(sep + 3, "proc ", 5) != 0)
                return -1;
        opts = memchr(sep + 8, ' ', (size_t) (eol - (sep + 8))); /* past SOURCE */
        if (!opts)
                return 0;
        for (const char *o = opts + 1; o < eol; o += strcspn(o, ",\n") + 1)
                if (strncmp(o, "hidepid=", 8) == 0)
                        return hidepid_value(o + 8);
        return 0;
}

int mountinfo_proc_hidepid(const char *buf, const char *mount_point)
{
        int level = 0;

        for (const char *l = buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
                int r = line_hidepid(l, strchrnul(l, '\n'), mount_point);

                if (r >= 0)
                        level = r;
        }
        return level;
}

int proc_root_hidepid(const char *proc_root)
{
        _cleanup_free_ char *buf = NULL;
        int r;

        r = read_full_file("/proc/self/mountinfo", READ_FULL_FILE_MAX, &buf, NULL);
        if (r < 0)
                return r;
        return mountinfo_proc_hidepid(buf, proc_root ? proc_root : "/proc");
}

int proc_status_uids_parse(const char *buf, uid_t ret[4])
{
        const char *l = buf;
        unsigned u[4];

        while (l && strncmp(l, "Uid:", 4) != 0) {
                l = strchr(l, '\n');
                l = l ? l + 1 : NULL;
        }
        if (!l || sscanf(l + 4, "%u %u %u %u", &u[0], &u[1], &u[2], &u[3]) != 4)
                return -EIO;
        for (int i = 0; i < 4; i++)
                ret[i] = (uid_t) u[i];
        return 0;
}

int proc_owned_by(const char *proc_root, pid_t pid, uid_t uid)
{
        _cleanup_free_ char *buf = NULL;
        uid_t uids[4];
        int r;

        r = proc_status_read(proc_root ? proc_root : "/proc", pid, &buf);
        if (r < 0)
                return r;
        r = proc_status_uids_parse(buf, uids);
        if (r < 0)
                return r;
        return uids[0] == uid && uids[1] == uid && uids[2] == uid;
}
