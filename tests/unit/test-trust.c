/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for lib/trust.c: executable trust on real files and directories
 * (owners and modes set with chown/chmod, so the path checks run as root),
 * a real child process through /proc, the real uid and the nice floor.
 */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/proc.h"
#include "lib/trust.h"
#include "lib/util.h"
#include "tests/unit/test-util.h"

static char root[] = "/tmp/test-trust-XXXXXX";

static void mk(const char *rel, mode_t mode, uid_t uid, bool dir)
{
        char p[512];

        snprintf(p, sizeof(p), "%s/%s", root, rel);
        if (dir)
                CHECK(mkdir(p, mode) == 0);
        else {
                int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
                CHECK(fd >= 0);
                close(fd);
        }
        CHECK(chown(p, uid, 0) == 0);
        CHECK(chmod(p, mode) == 0);
}

/* 1 trusted, 0 not; the reason must contain WANT (NULL: trusted). */
static void check_path(const char *rel, const char *want)
{
        _cleanup_free_ char *reason = NULL;
        char p[512];
        struct stat st;
        int r;

        snprintf(p, sizeof(p), "%s/%s", root, rel);
        CHECK(stat(p, &st) == 0);
        r = exe_path_trusted(p, &st, true, &reason);
        if (!want) {
                if (r != 1)
                        test_fail("%s: expected trusted, got %d (%s)", rel, r, strna(reason));
                return;
        }
        if (r != 0 || !reason || !strstr(reason, want))
                test_fail("%s: expected untrusted with \"%s\", got %d (%s)", rel, want, r,
                          strna(reason));
}

static void test_paths(void)
{
        /* mkdtemp gives 0700 root:root under /tmp (world-writable): the
         * temp root itself is below an untrusted directory, so everything
         * here must be untrusted; the walk must name /tmp. */
        mk("bin", 0755, 0, true);
        mk("bin/good", 0755, 0, false);
        check_path("bin/good", "directory /tmp is writable by others");
}

static void test_paths_in_trusted_root(void)
{
        /* The same tree below a root-only directory (/run is 0755 root):
         * now the checks of the file and its own directories decide. */
        char base[] = "/run/test-trust-XXXXXX";

        if (!mkdtemp(base)) {
                test_fail("mkdtemp /run: %m");
                return;
        }
        CHECK(chmod(base, 0755) == 0);
        snprintf(root, sizeof(root), "%s", base); /* same length: /run vs /tmp */
        mk("bin", 0755, 0, true);
        mk("bin/good", 0755, 0, false);
        mk("bin/user-owned", 0755, 65534, false);
        mk("bin/group-writable", 0775, 0, false);
        mk("bin/other-writable", 0757, 0, false);
        mk("open", 0777, 0, true);
        mk("open/prog", 0755, 0, false);
        mk("sticky", 01777, 0, true);
        mk("sticky/prog", 0755, 0, false);
        mk("home", 0755, 65534, true);
        mk("home/prog", 0755, 0, false);

        check_path("bin/good", NULL);
        check_path("bin/user-owned", "owned by uid 65534");
        check_path("bin/group-writable", "writable by group");
        check_path("bin/other-writable", "writable by others");
        check_path("open/prog", "is writable by others");
        check_path("sticky/prog", "is writable by others");
        check_path("home/prog", "is owned by uid 65534");

        /* A path that does not lead to the file (renamed since exec). */
        {
                _cleanup_free_ char *reason = NULL;
                char p[512], q[512];
                struct stat st;

                snprintf(p, sizeof(p), "%s/bin/good", root);
                snprintf(q, sizeof(q), "%s/bin/group-writable", root);
                CHECK(stat(p, &st) == 0);
                check(exe_path_trusted(q, &st, true, &reason) == 0);
                check(reason && strstr(reason, "does not lead"));
                /* Deleted (check_path false): the directories decide. */
                free(reason);
                reason = NULL;
                check(exe_path_trusted(q, &st, false, &reason) == 1);
                check(exe_path_trusted("relative/x", &st, false, NULL) == 0);
        }

        /* A real process running a copy of true(1) in the tree. */
        {
                _cleanup_free_ char *reason = NULL;
                char p[512];
                pid_t pid;
                int status;

                snprintf(p, sizeof(p), "%s/bin/sleeper", root);
                CHECK(system("true") == 0);
                {
                        char cmd[1100];
                        snprintf(cmd, sizeof(cmd), "cp /bin/sleep %s && chmod 0755 %s", p, p);
                        CHECK(system(cmd) == 0);
                }
                pid = fork();
                CHECK(pid >= 0);
                if (pid == 0) {
                        execl(p, "sleeper", "30", (char *)NULL);
                        _exit(127);
                }
                /* Wait for the exec to happen. */
                for (int i = 0; i < 3000; i++) {
                        char exe[64], *t = NULL;
                        snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)pid);
                        if (readlink_malloc(exe, &t) >= 0 && strstr(t, "sleeper")) {
                                free(t);
                                break;
                        }
                        free(t);
                        usleep(10000);
                }
                check(proc_exe_trusted("/proc", pid, &reason) == 1);
                free(reason);
                reason = NULL;
                /* Make the file the user's: no longer trusted. */
                CHECK(chown(p, 65534, 0) == 0);
                check(proc_exe_trusted("/proc", pid, &reason) == 0);
                check(reason && strstr(reason, "owned by uid 65534"));
                free(reason);
                reason = NULL;
                /* Deleted while running: the directory decides, the suffix is gone. */
                CHECK(chown(p, 0, 0) == 0);
                CHECK(unlink(p) == 0);
                check(proc_exe_trusted("/proc", pid, &reason) == 1);
                kill(pid, SIGKILL);
                waitpid(pid, &status, 0);
                check(proc_exe_trusted("/proc", pid, &reason) == -ESRCH);
        }
        {
                char cmd[600];
                snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
                check(system(cmd) == 0);
        }
}

/* Wait until PID runs something whose exe link mentions WANT. */
static void wait_exe(pid_t pid, const char *want)
{
        for (int i = 0; i < 3000; i++) {
                char exe[64], *t = NULL;

                snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)pid);
                if (readlink_malloc(exe, &t) >= 0 && strstr(t, want)) {
                        free(t);
                        return;
                }
                free(t);
                usleep(10000);
        }
        test_fail("pid %d never ran %s", (int)pid, want);
}

/* The exe name as latniced's matcher gets it. */
static void check_exe_name(pid_t pid, const char *want)
{
        _cleanup_(proc_task_freep) ProcTask *t = NULL;

        CHECK(proc_task_read("/proc", pid, 0,
                             PROC_READ_TASK & ~(PROC_READ_CMDLINE | PROC_READ_CGROUP), &t) == 0);
        if (!t->view.names.exe || !streq(t->view.names.exe, want))
                test_fail("pid %d: exe name \"%s\", expected \"%s\"", (int)pid,
                          strna(t->view.names.exe), want);
}

/* 0 or 1, and the reason must contain WANT (NULL: trusted). */
static void check_proc(pid_t pid, const char *want, const char *what)
{
        _cleanup_free_ char *reason = NULL;
        int r = proc_exe_trusted("/proc", pid, &reason);

        if (want ? (r != 0 || !reason || !strstr(reason, want)) : r != 1)
                test_fail("%s: got %d (%s), expected %s%s", what, r, strna(reason),
                          want ? "untrusted with " : "trusted", want ?: "");
}

/* Fork a child that, in a mount namespace of its own (all mounts private),
 * runs SETUP (a shell command, may be NULL) and then execs PATH ("sleeper
 * 30"). */
static pid_t spawn_in_mount_ns(const char *setup, const char *path)
{
        pid_t pid = fork();

        CHECK(pid >= 0);
        if (pid == 0) {
                if (unshare(CLONE_NEWNS) < 0 ||
                    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
                        _exit(126);
                if (setup && system(setup) != 0)
                        _exit(125);
                execl(path, "sleeper", "30", (char *)NULL);
                _exit(127);
        }
        return pid;
}

static void reap(pid_t pid)
{
        int status;

        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
}

/*
 * " (deleted)" is what the file says (no links left), never the link text;
 * a path is checked in latniced's own mount namespace; a deleted exe in
 * another mount namespace (or on a mount of another one) is not trusted.
 * Real processes, real mount namespaces (root).
 */
static void test_mount_namespaces(void)
{
        char base[] = "/run/test-trust-ns-XXXXXX";
        char good[100], fake[100], tmpfs[100], cmd[1000];
        pid_t pid;

        CHECK(mkdtemp(base));
        CHECK(chmod(base, 0755) == 0);
        snprintf(good, sizeof(good), "%s/sleeper", base);
        snprintf(fake, sizeof(fake), "%s/lnpipewire (deleted)", base);
        snprintf(tmpfs, sizeof(tmpfs), "%s/bin", base);
        snprintf(cmd, sizeof(cmd), "cp /bin/sleep %s && chmod 0755 %s && mkdir -m 0755 %s",
                 good, good, tmpfs);
        CHECK(system(cmd) == 0);

        check(proc_same_mount_ns("/proc", getpid()) == 1);

        /* A root file really named "... (deleted)", not deleted: its own
         * name (the suffix kept), and trusted where root put it. */
        snprintf(cmd, sizeof(cmd), "cp /bin/sleep '%s' && chmod 0755 '%s'", fake, fake);
        CHECK(system(cmd) == 0);
        pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
                execl(fake, "sleeper", "30", (char *)NULL);
                _exit(127);
        }
        wait_exe(pid, "lnpipewire");
        check_exe_name(pid, "lnpipewire (deleted)");
        check_proc(pid, NULL, "a file named 'lnpipewire (deleted)'");
        reap(pid);
        CHECK(unlink(fake) == 0);

        /* The attack: in its own mount namespace, a tmpfs over a root-only
         * directory, root's binary bound over a file named "lnpipewire
         * (deleted)" there. The file has links: its name is its own, and the
         * path leads nowhere in latniced's namespace. */
        snprintf(cmd, sizeof(cmd),
                 "mount -t tmpfs -o mode=0755 none %s && touch '%s/lnpipewire (deleted)' && "
                 "mount --bind %s '%s/lnpipewire (deleted)'", tmpfs, tmpfs, good, tmpfs);
        {
                char path[200];

                snprintf(path, sizeof(path), "%s/lnpipewire (deleted)", tmpfs);
                pid = spawn_in_mount_ns(cmd, path);
        }
        wait_exe(pid, "lnpipewire");
        check_exe_name(pid, "lnpipewire (deleted)");
        check(proc_same_mount_ns("/proc", pid) == 0);
        check_proc(pid, "does not lead to the running file", "bound over '... (deleted)'");
        reap(pid);

        /* Root's file bound over another root file's path in another
         * namespace: the path leads to another file here. */
        snprintf(cmd, sizeof(cmd), "mount --bind /usr/bin/sleep %s", good);
        pid = spawn_in_mount_ns(cmd, good);
        wait_exe(pid, "sleeper");
        check_proc(pid, "does not lead to the running file", "bind mount over a real path");
        reap(pid);

        /* Another mount namespace, not deleted: the path leads to the same
         * file here, trusted. Then deleted: its path cannot be checked. */
        pid = spawn_in_mount_ns(NULL, good);
        wait_exe(pid, "sleeper");
        check_proc(pid, NULL, "another mount namespace, same file");
        CHECK(unlink(good) == 0);
        check_exe_name(pid, "sleeper");
        check_proc(pid, "another mount namespace", "deleted, another mount namespace");
        reap(pid);

        /* Deleted in latniced's own namespace (a package upgrade): trusted,
         * where it lived. */
        snprintf(cmd, sizeof(cmd), "cp /bin/sleep %s && chmod 0755 %s", good, good);
        CHECK(system(cmd) == 0);
        pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
                execl(good, "sleeper", "30", (char *)NULL);
                _exit(127);
        }
        wait_exe(pid, "sleeper");
        CHECK(unlink(good) == 0);
        check_exe_name(pid, "sleeper");
        check_proc(pid, NULL, "deleted in latniced's namespace");
        reap(pid);

        snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
        check(system(cmd) == 0);
}

static void test_mountinfo_mount(void)
{
        const char *table = "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
                            "1234 22 0:48 / /run rw - tmpfs tmpfs rw\n";

        check(mountinfo_has_mount(table, 22) == 1);
        check(mountinfo_has_mount(table, 1234) == 1);
        check(mountinfo_has_mount(table, 1) == 0);
        check(mountinfo_has_mount(table, 123) == 0);
        check(mountinfo_has_mount("", 22) == 0);
}

static void test_uid_and_floor(void)
{
        struct rlimit rl = { .rlim_cur = 0, .rlim_max = 0 };
        uid_t uid = 12345;
        int floor = 99;
        pid_t pid;
        int status, fds[2];
        char c;

        check(proc_real_uid("/proc", getpid(), &uid) == 0 && uid == getuid());
        check(proc_real_uid("/proc", 0x7ffffff0, &uid) == -ESRCH);

        CHECK(pipe(fds) == 0);
        pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
                close(fds[1]);
                if (setrlimit(RLIMIT_NICE, &rl) < 0)
                        _exit(1);
                (void)!read(fds[0], &c, 1);
                _exit(0);
        }
        close(fds[0]);
        for (int i = 0; i < 3000; i++) {
                struct rlimit now;
                if (prlimit(pid, RLIMIT_NICE, NULL, &now) == 0 && now.rlim_max == 0)
                        break;
                usleep(10000);
        }
        check(proc_nice_floor("/proc", pid, &floor) == 0 && floor == 20);
        /* Raising a hard limit needs CAP_SYS_RESOURCE, which a container
         * may not give even to root: then only the lowered limit is tried. */
        rl = (struct rlimit){ .rlim_cur = 5, .rlim_max = 25 };
        if (prlimit(pid, RLIMIT_NICE, &rl, NULL) == 0) {
                check(proc_nice_floor("/proc", pid, &floor) == 0 && floor == -5);
                rl = (struct rlimit){ .rlim_cur = RLIM_INFINITY, .rlim_max = RLIM_INFINITY };
                CHECK(prlimit(pid, RLIMIT_NICE, &rl, NULL) == 0);
                check(proc_nice_floor("/proc", pid, &floor) == 0 && floor == -20);
        } else
                fprintf(stderr, "cannot raise RLIMIT_NICE (%m): higher limits not tried\n");
        close(fds[1]);
        waitpid(pid, &status, 0);
}

static void test_limits_parse(void)
{
        uint64_t v = 0;

        check(proc_limits_nice_max("Limit  Soft Limit  Hard Limit  Units\n"
                                   "Max nice priority         0                    25\n"
                                   "Max realtime priority     0                    0\n",
                                   &v) == 0 && v == 25);
        check(proc_limits_nice_max("Max nice priority  unlimited  unlimited\n", &v) == 0 &&
              v == UINT64_MAX);
        check(proc_limits_nice_max("Max open files 1 2\n", &v) == -ENODATA);
        check(proc_limits_nice_max("Max nice priority 0\n", &v) == -EIO);
        check(proc_limits_nice_max("Max nice priority 0 x\n", &v) < 0);
}

/* FUSE mounts in a mount table, by device: the types fuse, fuseblk and
 * fuse.SUBTYPE, optional fields before the " - ", other devices and types
 * (fusectl, tmpfs on the same minor) not. */
static void test_mountinfo_fuse(void)
{
        const char *table =
                "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
                "40 22 0:35 / /run/user/1000 rw,nosuid,nodev,relatime shared:20 - tmpfs tmpfs rw\n"
                "41 40 0:48 / /run/user/1000/doc rw,nosuid,nodev shared:21 master:3 - fuse.portal portal rw,user_id=1000\n"
                "42 22 0:49 / /mnt/s rw - fuse sshfs rw,user_id=1000,allow_other\n"
                "43 22 8:17 / /mnt/ntfs rw - fuseblk /dev/sdb1 rw\n"
                "44 22 0:50 / /sys/fs/fuse/connections rw - fusectl fusectl rw\n"
                "45 22 0:51 / /mnt/weird rw - fusefake x rw\n"
                "garbage line\n"
                "46 22 0:52 / /mnt/nosep rw fuse x rw";

        check(mountinfo_fuse_dev(table, 0, 48) == 1);
        check(mountinfo_fuse_dev(table, 0, 49) == 1);
        check(mountinfo_fuse_dev(table, 8, 17) == 1);
        check(mountinfo_fuse_dev(table, 0, 35) == 0);
        check(mountinfo_fuse_dev(table, 8, 1) == 0);
        check(mountinfo_fuse_dev(table, 0, 50) == 0);
        check(mountinfo_fuse_dev(table, 0, 51) == 0);
        check(mountinfo_fuse_dev(table, 0, 52) == 0);
        check(mountinfo_fuse_dev(table, 0, 99) == 0);
        check(mountinfo_fuse_dev("", 0, 48) == 0);
}

int main(void)
{
        test_limits_parse();
        test_mountinfo_fuse();
        test_mountinfo_mount();
        if (geteuid() != 0) {
                fprintf(stderr, "needs root (chown, prlimit on a child)\n");
                return 77;
        }
        CHECK(mkdtemp(root));
        test_paths();
        {
                char cmd[600];
                snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
                check(system(cmd) == 0);
        }
        test_paths_in_trusted_root();
        test_uid_and_floor();
        test_mount_namespaces();
        return test_result();
}
