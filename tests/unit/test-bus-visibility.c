/* SPDX-License-Identifier: GPL-2.0-or-later */
/* daemon/bus-visibility: hidepid from a mount table, uids from a status file. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/bus/bus-visibility.h"
#include "lib/macro.h"
#include "tests/unit/test-util.h"

#define ROOT_LINE "22 1 0:21 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n"
#define PROC(id, parent, where, super)                                                   \
        id " " parent " 0:22 / " where " rw,nosuid,nodev,noexec,relatime shared:12 - proc " \
           "proc " super "\n"

static void test_hidepid(void)
{
        /* no proc at all, proc without hidepid, each level by name and number */
        check(mountinfo_proc_hidepid(ROOT_LINE, "/proc") == 0);
        check(mountinfo_proc_hidepid("", "/proc") == 0);
        check(mountinfo_proc_hidepid(ROOT_LINE PROC("23", "22", "/proc", "rw"), "/proc") == 0);
        check(mountinfo_proc_hidepid(PROC("23", "22", "/proc", "rw,hidepid=invisible"),
                                     "/proc") == 2);
        check(mountinfo_proc_hidepid(PROC("23", "22", "/proc", "rw,hidepid=2"), "/proc") == 2);
        check(mountinfo_proc_hidepid(PROC("23", "22", "/proc", "rw,hidepid=noaccess,gid=4"),
                                     "/proc") == 1);
        check(mountinfo_proc_hidepid(PROC("23", "22", "/proc", "rw,gid=4,hidepid=ptraceable"),
                                     "/proc") == 4);
        check(mountinfo_proc_hidepid(PROC("23", "22", "/proc", "rw,hidepid=off"), "/proc") == 0);
        check(mountinfo_proc_hidepid(PROC("23", "22", "/proc", "rw,hidepid=0,subset=pid"),
                                     "/proc") == 0);
        /* a value this code does not know hides */
        check(mountinfo_proc_hidepid(PROC("23", "22", "/proc", "rw,hidepid=7"), "/proc") == 2);
        /* only the mount at the mount point counts; the last one there is on top */
        check(mountinfo_proc_hidepid(PROC("23", "22", "/proc", "rw,hidepid=2"), "/proc/sys") == 0);
        check(mountinfo_proc_hidepid(PROC("23", "22", "/procx", "rw,hidepid=2"), "/proc") == 0);
        check(mountinfo_proc_hidepid(PROC("23", "22", "/proc", "rw")
                                     PROC("40", "23", "/proc", "rw,hidepid=invisible"),
                                     "/proc") == 2);
        check(mountinfo_proc_hidepid(PROC("23", "22", "/proc", "rw,hidepid=2")
                                     PROC("40", "23", "/proc", "rw"), "/proc") == 0);
        /* not proc: a tmpfs that says hidepid= is not /proc's */
        check(mountinfo_proc_hidepid("23 22 0:30 / /proc rw - tmpfs tmpfs rw,hidepid=2\n",
                                     "/proc") == 0);
        /* an escaped mount point (a space is \040), and the last line without '\n' */
        check(mountinfo_proc_hidepid("23 22 0:22 / /tmp/my\\040proc rw - proc proc rw,hidepid=2",
                                     "/tmp/my proc") == 2);
        check(mountinfo_proc_hidepid("23 22 0:22 / /tmp/my\\040proc rw - proc proc rw,hidepid=2",
                                     "/tmp/my") == 0);
        /* a cut line */
        check(mountinfo_proc_hidepid("23 22 0:22 / /proc", "/proc") == 0);
        check(mountinfo_proc_hidepid("23 22 0:22 / /proc rw - proc", "/proc") == 0);
}

static void test_uids(void)
{
        uid_t u[4];

        check(proc_status_uids_parse("Name:\tx\nUid:\t1000\t0\t1000\t0\nGid:\t1\t1\t1\t1\n",
                                     u) == 0);
        check(u[0] == 1000 && u[1] == 0 && u[2] == 1000 && u[3] == 0);
        check(proc_status_uids_parse("Name:\tx\nGid:\t1\t1\t1\t1\n", u) == -EIO);
        check(proc_status_uids_parse("Uid:\t1000\t1000\n", u) == -EIO);
}

/* proc_owned_by() on a fake proc root: own means real, effective and saved. */
static void test_owned(void)
{
        char root[] = "/tmp/test-bus-visibility.XXXXXX";
        char path[128];
        FILE *f;

        CHECK(mkdtemp(root));
        snprintf(path, sizeof(path), "%s/42", root);
        CHECK(mkdir(path, 0755) == 0);
        snprintf(path, sizeof(path), "%s/42/status", root);

        CHECK((f = fopen(path, "we")));
        fputs("Name:\tx\nUid:\t1000\t1000\t1000\t1000\n", f);
        fclose(f);
        check(proc_owned_by(root, 42, 1000) == 1);
        check(proc_owned_by(root, 42, 0) == 0);
        check(proc_owned_by(root, 43, 1000) == -ESRCH);

        /* a setuid program the user started: not the user's own */
        CHECK((f = fopen(path, "we")));
        fputs("Name:\tx\nUid:\t1000\t0\t0\t0\n", f);
        fclose(f);
        check(proc_owned_by(root, 42, 1000) == 0);
        check(proc_owned_by(root, 42, 0) == 0);

        unlink(path);
        snprintf(path, sizeof(path), "%s/42", root);
        rmdir(path);
        rmdir(root);
}

static void test_all(void)
{
        check(bus_visibility_all(true, 2));
        check(bus_visibility_all(false, 0));
        check(!bus_visibility_all(false, 1));
        check(!bus_visibility_all(false, 2));
        check(!bus_visibility_all(false, 4));
        check(!bus_visibility_all(false, -EACCES)); /* a mount table not read hides */
}

int main(void)
{
        test_hidepid();
        test_uids();
        test_owned();
        test_all();
        return test_result();
}
