/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Tests for lib/proc.c: a fake /proc full of hostile contents, then the real
 * /proc on this test and its children. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/bounded-read.h"
#include "lib/cgroup.h"
#include "lib/macro.h"
#include "lib/proc.h"
#include "lib/tamper.h"
#include "lib/trust.h"
#include "lib/unit-name.h"
#include "lib/util.h"
#include "tests/unit/test-util.h"

static char root[] = "/tmp/test-proc-XXXXXX";

static void put(const char *rel, const void *data, size_t len)
{
        char path[PATH_MAX], *slash;
        int fd;

        snprintf(path, sizeof(path), "%s/%s", root, rel);
        /* mkdir -p the parent */
        for (slash = strchr(path + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
                *slash = 0;
                CHECK(mkdir(path, 0755) == 0 || errno == EEXIST);
                *slash = '/';
        }
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        CHECK(fd >= 0);
        CHECK(write(fd, data, len) == (ssize_t) len);
        close(fd);
}

static void put_str(const char *rel, const char *s)
{
        put(rel, s, strlen(s));
}

static void put_stat(const char *rel, int pid, const char *comm, char state, int ppid,
                     unsigned long flags, unsigned long long starttime)
{
        char *s;

        CHECK(asprintf(&s,
                       "%d (%s) %c %d 0 0 0 -1 %lu 0 0 0 0 0 0 0 0 20 0 1 0 %llu 1234 56 "
                       "18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n",
                       pid, comm, state, ppid, flags, starttime) >= 0);
        put_str(rel, s);
        free(s);
        /* and the comm file beside it, as the kernel writes it: raw, '\n' */
        size_t n = strlen(rel);
        CHECK(n >= 4 && streq(rel + n - 4, "stat"));
        char *crel, *c;
        CHECK(asprintf(&crel, "%.*scomm", (int) (n - 4), rel) >= 0);
        CHECK(asprintf(&c, "%s\n", comm) >= 0);
        put_str(crel, c);
        free(crel);
        free(c);
}

static void put_status(int pid, unsigned uid, unsigned gid)
{
        char rel[64], *s;

        snprintf(rel, sizeof(rel), "%d/status", pid);
        CHECK(asprintf(&s,
                       "Name:\tx\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t%d\nPid:\t%d\n"
                       "PPid:\t1\nUid:\t%u\t%u\t%u\t%u\nGid:\t%u\t%u\t%u\t%u\n",
                       pid, pid, uid, uid + 1, uid + 2, uid + 3, gid, gid + 1, gid, gid) >= 0);
        put_str(rel, s);
        free(s);
}

static void put_link(const char *rel, const char *target)
{
        char path[PATH_MAX];

        snprintf(path, sizeof(path), "%s/%s", root, rel);
        CHECK(symlink(target, path) == 0);
}

static void build_fake_proc(void)
{
        /* init */
        put_stat("1/stat", 1, "systemd", 'S', 0, 0x400100, 5);
        put_status(1, 0, 0);
        put("1/cmdline", "/sbin/init\0splash\0", 18);
        put_str("1/cgroup", "0::/init.scope\n");
        put_link("1/exe", "/usr/lib/systemd/systemd");

        /* kthreadd: PF_KTHREAD, empty cmdline, no exe */
        put_stat("2/stat", 2, "kthreadd", 'S', 0, 0x208040, 6);
        put_status(2, 0, 0);
        put("2/cmdline", "", 0);
        put_str("2/cgroup", "0::/\n");

        /* a parent whose comm has spaces and whose exe was deleted */
        put_stat("50/stat", 50, "name with spaces", 'S', 1, 0x400000, 40);
        put_status(50, 1000, 1000);
        put("50/cmdline", "/usr/bin/py thon\0script.py\0", 27);
        put_str("50/cgroup", "0::/user.slice/user-1000.slice/session-2.scope\n");
        put_link("50/exe", "/usr/bin/py thon3.11 (deleted)");

        /* the hostile one: comm "a) b (c", 8 KiB cmdline, hybrid cgroup file */
        put_stat("100/stat", 100, "a) b (c", 'R', 50, 0x400000, 123456789012ULL);
        put_status(100, 0, 0);
        {
                size_t n = 8192 + 10;
                char *c = malloc(n);
                CHECK(c);
                memcpy(c, "/opt/x/a-very-long-process-name", 31);
                c[31] = 0;
                memset(c + 32, 'A', n - 32 - 2);
                c[n - 2] = 0;
                c[n - 1] = 0; /* two trailing NULs (setproctitle padding) */
                put("100/cmdline", c, n);
                free(c);
        }
        put_str("100/cgroup",
                "12:pids:/system.slice/foo.service\n"
                "1:name=systemd:/system.slice/foo.service\n"
                "0::/system.slice/foo.service/payload\n");
        put_link("100/exe", "/usr/bin/foo bar");
        put_stat("100/task/100/stat", 100, "a) b (c", 'R', 50, 0x400000, 123456789012ULL);
        put_stat("100/task/101/stat", 101, "with\nnewline)", 'S', 50, 0x400040, 123456789099ULL);
        put_stat("100/task/105/stat", 105, "", 'S', 50, 0x400040, 123456789100ULL);
        put_str("100/task/notatid", "");

        /* a zombie */
        put_stat("200/stat", 200, "defunct", 'Z', 1, 0x40040c, 70);
        put_status(200, 0, 0);
        put("200/cmdline", "", 0);
        put_str("200/cgroup", "0::/\n");

        /* status missing mid-way */
        put_stat("300/stat", 300, "vanishing", 'S', 1, 0, 80);

        /* parent does not exist, uid/gid without names */
        put_stat("400/stat", 400, "orphan", 'S', 399, 0, 90);
        put_status(400, 4242424, 4242424);
        put("400/cmdline", "relative/argv0/\0", 16);
        put_str("400/cgroup", "1:name=systemd:/\n");

        /* garbage stat */
        put_str("500/stat", "500 (broken S 1 2 3\n");
        put_status(500, 0, 0);

        /* a parent loop 600 <-> 601 must stop at the depth cap */
        put_stat("600/stat", 600, "loop-a", 'S', 601, 0, 1);
        put_status(600, 0, 0);
        put("600/cmdline", "a\0", 2);
        put_str("600/cgroup", "0::/\n");
        put_stat("601/stat", 601, "loop-b", 'S', 600, 0, 1);
        put_status(601, 0, 0);
        put("601/cmdline", "b\0", 2);
        put_str("601/cgroup", "0::/\n");

        put_str("self", "");
        put_str("1x/stat", "");
}

static void test_fake(void)
{
        ProcTask *t = NULL;
        char *s = NULL;
        uint64_t st;
        pid_t *pids = NULL, tgid;
        size_t n;

        CHECK(proc_task_read(root, 100, 0, PROC_READ_TASK | PROC_READ_ANCESTORS | PROC_READ_THREAD,
                             &t) == 0);
        CHECK(streq(t->view.names.comm, "a) b (c"));
        CHECK(streq(t->view.names.argv0, "a-very-long-process-name"));
        CHECK(streq(t->view.names.exe, "foo bar"));
        CHECK(streq(t->view.exe_path, "/usr/bin/foo bar"));
        CHECK(strlen(t->view.cmdline) == 8192 + 10 - 2);
        CHECK(strncmp(t->view.cmdline, "/opt/x/a-very-long-process-name AAAA", 36) == 0);
        CHECK(t->view.cmdline[strlen(t->view.cmdline) - 1] == 'A');
        CHECK(t->view.uid == 0 && t->view.gid == 0);
        CHECK(streq(t->view.user, "root") && streq(t->view.group, "root"));
        CHECK(streq(t->view.cgroup, "/system.slice/foo.service/payload"));
        CHECK(streq(t->view.unit, "foo.service"));
        CHECK(streq(t->view.thread, "a) b (c"));
        CHECK(t->view.pid == 100 && t->view.tid == 100);
        CHECK(t->ppid == 50 && t->state == 'R' && !t->zombie && !t->kernel_thread);
        CHECK(t->starttime == 123456789012ULL);
        CHECK(t->n_threads == 1); /* what stat says, not the task/ directory */
        CHECK(t->view.n_ancestors == 2);
        CHECK(streq(t->view.ancestors[0].comm, "name with spaces"));
        CHECK(streq(t->view.ancestors[0].argv0, "py thon"));
        /* The link says " (deleted)", the file (a dangling link here) does
         * not: the name is kept whole (a file may be named so). */
        CHECK(streq(t->view.ancestors[0].exe, "py thon3.11 (deleted)"));
        CHECK(streq(t->view.ancestors[1].comm, "systemd"));
        CHECK(streq(t->view.ancestors[1].argv0, "init"));
        CHECK(streq(t->view.ancestors[1].exe, "systemd"));
        t = proc_task_free(t);

        /* a thread whose name has a newline and ')' */
        CHECK(proc_task_read(root, 100, 101, PROC_READ_TASK | PROC_READ_THREAD, &t) == 0);
        CHECK(streq(t->view.thread, "with\nnewline)"));
        CHECK(t->view.tid == 101 && t->view.n_ancestors == 0 && !t->view.ancestors);
        t = proc_task_free(t);
        CHECK(proc_thread_comm(root, 100, 105, &s) == 0);
        CHECK(streq(s, ""));
        free(s);
        CHECK(proc_task_read(root, 100, 102, PROC_READ_TASK | PROC_READ_THREAD, &t) == -ESRCH);
        CHECK(!t);

        /* without PROC_READ_THREAD the thread is unknown */
        CHECK(proc_task_read(root, 50, 0, PROC_READ_TASK, &t) == 0);
        CHECK(!t->view.thread);
        CHECK(streq(t->view.unit, "session-2.scope"));
        CHECK(t->view.uid == 1000 && t->view.gid == 1000);
        t = proc_task_free(t);

        CHECK(proc_task_read(root, 2, 0, PROC_READ_TASK | PROC_READ_ANCESTORS, &t) == 0);
        CHECK(t->kernel_thread);
        CHECK(!t->view.cmdline && !t->view.names.argv0 && !t->view.names.exe);
        CHECK(!t->view.exe_path);
        CHECK(streq(t->view.names.comm, "kthreadd"));
        CHECK(t->view.n_ancestors == 0);
        CHECK(!t->view.unit);
        t = proc_task_free(t);

        CHECK(proc_task_read(root, 200, 0, PROC_READ_TASK, &t) == 0);
        CHECK(t->zombie && !t->kernel_thread && !t->view.cmdline);
        t = proc_task_free(t);

        CHECK(proc_task_read(root, 300, 0, PROC_READ_TASK, &t) == -ESRCH);
        CHECK(proc_task_read(root, 999, 0, PROC_READ_TASK, &t) == -ESRCH);
        CHECK(proc_task_read(root, 500, 0, PROC_READ_TASK, &t) == -EIO);
        CHECK(!t);

        CHECK(proc_task_read(root, 400, 0, PROC_READ_TASK | PROC_READ_ANCESTORS, &t) == 0);
        CHECK(t->view.n_ancestors == 0); /* parent vanished: tolerated */
        CHECK(!t->view.user && !t->view.group);
        CHECK(t->view.uid == 4242424 && t->view.gid == 4242424);
        CHECK(!t->view.cgroup); /* no "0::" line */
        CHECK(!t->view.names.argv0); /* argv[0] ends in '/' */
        CHECK(streq(t->view.cmdline, "relative/argv0/"));
        t = proc_task_free(t);

        CHECK(proc_task_read(root, 600, 0, PROC_READ_TASK | PROC_READ_ANCESTORS, &t) == 0);
        CHECK(t->view.n_ancestors == 64);
        CHECK(streq(t->view.ancestors[0].comm, "loop-b"));
        CHECK(streq(t->view.ancestors[1].comm, "loop-a"));
        t = proc_task_free(t);

        CHECK(proc_starttime(root, 100, 0, &st) == 0 && st == 123456789012ULL);
        CHECK(proc_starttime(root, 100, 101, &st) == 0 && st == 123456789099ULL);
        CHECK(proc_starttime(root, 100, 103, &st) == -ESRCH);

        CHECK(proc_threads(root, 100, &pids, &n) == 0);
        CHECK(n == 3 && pids[0] == 100 && pids[1] == 101 && pids[2] == 105);
        free(pids);
        CHECK(proc_threads(root, 1, &pids, &n) == -ESRCH);

        CHECK(proc_pids(root, &pids, &n) == 0);
        CHECK(n == 10);
        CHECK(pids[0] == 1 && pids[1] == 2 && pids[2] == 50 && pids[9] == 601);
        free(pids);

        CHECK(proc_tgid(root, 100, &tgid) == 0 && tgid == 100);
        CHECK(proc_tgid(root, 300, &tgid) == -ESRCH);
}

static void test_unit(void)
{
        char *u = NULL;

        CHECK(unit_name_from_cgroup_path("/system.slice/pipewire.service", &u) == 0);
        CHECK(streq(u, "pipewire.service"));
        free(u);
        CHECK(unit_name_from_cgroup_path(
                      "/user.slice/user-1000.slice/user@1000.service/app.slice/app-foo@x.scope", &u) == 0);
        CHECK(streq(u, "app-foo@x.scope"));
        free(u);
        CHECK(unit_name_from_cgroup_path("/user.slice/user-1000.slice/user@1000.service/app.slice", &u) == 0);
        CHECK(streq(u, "user@1000.service"));
        free(u);
        CHECK(unit_name_from_cgroup_path("/system.slice/foo.socket/", &u) == 0);
        CHECK(streq(u, "foo.socket"));
        free(u);
        u = NULL;
        CHECK(unit_name_from_cgroup_path("/", &u) == -ENXIO);
        CHECK(unit_name_from_cgroup_path("/user.slice/.service", &u) == -ENXIO);
        CHECK(unit_name_from_cgroup_path("/a.services", &u) == -ENXIO);
        CHECK(unit_name_from_cgroup_path(NULL, &u) == -ENXIO);
        CHECK(!u);
}

/* lib/unit-name: the unit types with a cgroup, and names from outside. */
static void test_unit_name(void)
{
        char long_name[UNIT_NAME_MAX + 2];

        check(unit_type_from_name("a.service", 9) == UNIT_SERVICE);
        check(unit_type_from_name("a.slice", 7) == UNIT_SLICE);
        check(unit_type_from_name("dev-sda1.swap", 13) == UNIT_SWAP);
        check(unit_type_from_name("a.service/x", 9) == UNIT_SERVICE); /* only N bytes */
        check(unit_type_from_name(".service", 8) == _UNIT_TYPE_INVALID);
        check(unit_type_from_name("a.target", 8) == _UNIT_TYPE_INVALID);
        check(unit_type_from_name("a.timer", 7) == _UNIT_TYPE_INVALID);
        check(unit_type_from_name("a.device", 8) == _UNIT_TYPE_INVALID);
        check(unit_type_from_name("a.services", 10) == _UNIT_TYPE_INVALID);

        check(unit_name_is_valid("pipewire.service"));
        check(unit_name_is_valid("user@1000.service"));
        check(unit_name_is_valid("dbus-:1.2-org.a@0.service"));
        check(unit_name_is_valid("sys-fs-fuse-connections.mount"));
        check(unit_name_is_valid("system-getty\\x2d.slice"));
        check(!unit_name_is_valid(NULL));
        check(!unit_name_is_valid(""));
        check(!unit_name_is_valid("multi-user.target"));
        check(!unit_name_is_valid("a b.service"));
        check(!unit_name_is_valid("../x.service"));
        check(!unit_name_is_valid("a/b.service"));
        check(!unit_name_is_valid("a\nb.service"));
        memset(long_name, 'a', sizeof(long_name));
        strcpy(long_name + UNIT_NAME_MAX - strlen(".scope"), ".scope");
        check(strlen(long_name) == UNIT_NAME_MAX && unit_name_is_valid(long_name));
        memset(long_name, 'a', sizeof(long_name));
        strcpy(long_name + UNIT_NAME_MAX + 1 - strlen(".scope"), ".scope");
        check(!unit_name_is_valid(long_name));
}

/* Wait until CHILD runs the program whose comm is COMM. exec sets the comm
 * a little before the new argv is in place (arg_start is set while the ELF
 * is loaded): until then the cmdline reads empty, so wait for it too. */
static void wait_for_exec(pid_t pid, const char *comm)
{
        for (int i = 0; i < 3000; i++) {
                ProcTask *t = NULL;

                if (proc_task_read("/proc", pid, 0,
                                   PROC_READ_TASK &
                                           ~(PROC_READ_IDS | PROC_READ_CGROUP | PROC_READ_EXE),
                                   &t) == 0) {
                        bool ok = streq(t->view.names.comm, comm) && t->view.cmdline;

                        proc_task_free(t);
                        if (ok)
                                return;
                }
                usleep(10000);
        }
        CHECK(!"child did not exec the expected program");
}

static void *named_thread(void *p)
{
        pid_t *tid = p;

        prctl(PR_SET_NAME, "worker (x) y");
        __atomic_store_n(tid, ln_gettid(), __ATOMIC_SEQ_CST);
        pause();
        return NULL;
}

/* A thread that returns once the pipe at ARG has no writer left. */
static void *wait_for_eof(void *arg)
{
        char c;

        while (read(*(int *)arg, &c, 1) > 0)
                ;
        return NULL;
}

static void test_real(void)
{
        ProcTask *t = NULL;
        char *exe = NULL;
        pthread_t th;
        pid_t tid = 0, child;
        int fds[2];

        /* ourselves, and a named thread */
        CHECK(prctl(PR_SET_NAME, "test proc)(") == 0);
        CHECK(pthread_create(&th, NULL, named_thread, &tid) == 0);
        while (!__atomic_load_n(&tid, __ATOMIC_SEQ_CST))
                usleep(1000);
        CHECK(proc_task_read("/proc", getpid(), tid,
                             PROC_READ_TASK | PROC_READ_THREAD | PROC_READ_ANCESTORS, &t) == 0);
        CHECK(streq(t->view.names.comm, "test proc)("));
        CHECK(streq(t->view.thread, "worker (x) y"));
        CHECK(streq(t->view.names.argv0, "test-proc"));
        CHECK(readlink_malloc("/proc/self/exe", &exe) == 0);
        CHECK(streq(t->view.exe_path, exe));
        free(exe);
        CHECK(t->view.uid == getuid() && t->view.gid == getgid());
        CHECK(t->ppid == getppid());
        CHECK(t->view.n_ancestors >= 1);
        CHECK(t->view.cgroup && t->view.cgroup[0] == '/');
        CHECK(!t->kernel_thread && !t->zombie);
        CHECK(t->n_threads == 2);
        t = proc_task_free(t);
        pthread_cancel(th);
        pthread_join(th, NULL);
        /* pthread_join() returns when the kernel clears the thread's tid, a
         * little before the thread leaves the thread group: wait for that */
        for (int i = 0;; i++) {
                CHECK(proc_task_read("/proc", getpid(), 0, PROC_READ_TASK, &t) == 0);
                if (t->n_threads == 1 || i == 5000)
                        break;
                t = proc_task_free(t);
                usleep(1000);
        }
        CHECK(t->n_threads == 1);
        t = proc_task_free(t);

        /* a child with a hostile comm and an 8 KiB cmdline: sh blocks on read */
        {
                char *big = malloc(8193);
                CHECK(big);
                memset(big, 'z', 8192);
                big[8192] = 0;
                CHECK(pipe2(fds, O_CLOEXEC) == 0);
                child = fork();
                CHECK(child >= 0);
                if (child == 0) {
                        dup2(fds[0], 0);
                        execl("/bin/sh", "/some/dir/my sh", "-c", "read x", "arg0", big, (char *) NULL);
                        _exit(127);
                }
                free(big);
                close(fds[0]);
                wait_for_exec(child, "sh");
                CHECK(proc_task_read("/proc", child, 0, PROC_READ_TASK | PROC_READ_ANCESTORS, &t) == 0);
                CHECK(streq(t->view.names.argv0, "my sh"));
                CHECK(strlen(t->view.cmdline) == strlen("/some/dir/my sh -c read x arg0 ") + 8192);
                CHECK(streq(t->view.ancestors[0].comm, "test proc)("));
                CHECK(t->ppid == getpid());
                t = proc_task_free(t);
                close(fds[1]); /* read returns, sh exits */
                CHECK(waitpid(child, NULL, 0) == child);
                CHECK(proc_task_read("/proc", child, 0, PROC_READ_TASK, &t) == -ESRCH);
        }

        /* a zombie */
        child = fork();
        CHECK(child >= 0);
        if (child == 0)
                _exit(0);
        for (int i = 0; i < 3000; i++) {
                CHECK(proc_task_read("/proc", child, 0, PROC_READ_TASK, &t) == 0);
                if (t->zombie)
                        break;
                t = proc_task_free(t);
                usleep(10000);
        }
        CHECK(t && t->zombie && !t->view.cmdline && !t->view.exe_path);
        t = proc_task_free(t);
        CHECK(waitpid(child, NULL, 0) == child);

        /* a process whose main thread exited while another runs: its
         * leader is Z, the process is alive (not a zombie) */
        CHECK(pipe2(fds, O_CLOEXEC) == 0);
        child = fork();
        CHECK(child >= 0);
        if (child == 0) {
                pthread_t other;

                close(fds[1]);
                if (pthread_create(&other, NULL, wait_for_eof, &fds[0]) != 0)
                        _exit(1);
                pthread_exit(NULL);
        }
        close(fds[0]);
        for (int i = 0; i < 3000; i++) {
                CHECK(proc_task_read("/proc", child, 0, PROC_READ_TASK, &t) == 0);
                if (t->state == 'Z')
                        break;
                t = proc_task_free(t);
                usleep(10000);
        }
        CHECK(t && t->state == 'Z' && t->n_threads > 1 && !t->zombie);
        CHECK(proc_leader_exited("/proc", child));
        CHECK(!proc_leader_exited("/proc", getpid()));
        t = proc_task_free(t);
        close(fds[1]); /* its thread reads EOF and exits: now the process is dead */
        CHECK(waitpid(child, NULL, 0) == child);

        /* kthreadd, when this pid namespace has it */
        {
                char *c = NULL;
                if (proc_thread_comm("/proc", 2, 0, &c) == 0 && streq(c, "kthreadd")) {
                        CHECK(proc_task_read("/proc", 2, 0, PROC_READ_TASK, &t) == 0);
                        CHECK(t->kernel_thread && !t->view.cmdline && !t->view.exe_path);
                        t = proc_task_free(t);
                }
                free(c);
        }
}

/* What the plan leaves out is neither read nor looked up. */
static void test_flags(void)
{
        const unsigned all = PROC_READ_TASK & ~(PROC_READ_IDS | PROC_READ_CGROUP |
                                                PROC_READ_CMDLINE | PROC_READ_EXE);
        ProcTask *t = NULL;

        /* 700 has nothing but stat: the other files are not even opened */
        put_stat("700/stat", 700, "bare", 'S', 1, 0, 99);
        CHECK(proc_task_read(root, 700, 0, PROC_READ_TASK, &t) == -ESRCH);
        CHECK(proc_task_read(root, 700, 0, PROC_READ_TASK & ~(PROC_READ_IDS | PROC_READ_CMDLINE),
                             &t) == -ESRCH);
        CHECK(proc_task_read(root, 700, 0, all, &t) == 0);
        CHECK(streq(t->view.names.comm, "bare") && t->ppid == 1 && t->starttime == 99);
        CHECK(t->view.uid == (uid_t)-1 && t->view.gid == (gid_t)-1);
        CHECK(!t->view.user && !t->view.group && !t->view.cgroup && !t->view.unit);
        CHECK(!t->view.cmdline && !t->view.names.argv0 && !t->view.names.exe && !t->view.exe_path);
        t = proc_task_free(t);

        /* one at a time on a complete task */
        CHECK(proc_task_read(root, 100, 0, PROC_READ_TASK & ~PROC_READ_NAMES, &t) == 0);
        CHECK(t->view.uid == 0 && t->view.gid == 0 && !t->view.user && !t->view.group);
        CHECK(streq(t->view.unit, "foo.service") && streq(t->view.names.exe, "foo bar"));
        t = proc_task_free(t);
        CHECK(proc_task_read(root, 100, 0, PROC_READ_TASK & ~PROC_READ_CGROUP, &t) == 0);
        CHECK(!t->view.cgroup && !t->view.unit && streq(t->view.user, "root"));
        CHECK(streq(t->view.names.argv0, "a-very-long-process-name"));
        t = proc_task_free(t);
        CHECK(proc_task_read(root, 100, 0, PROC_READ_TASK & ~PROC_READ_CMDLINE, &t) == 0);
        CHECK(!t->view.cmdline && !t->view.names.argv0 && streq(t->view.exe_path, "/usr/bin/foo bar"));
        t = proc_task_free(t);
        /* the ancestors keep their names whatever the flags */
        CHECK(proc_task_read(root, 100, 0, PROC_READ_ANCESTORS | all, &t) == 0);
        CHECK(!t->view.names.exe && !t->view.exe_path && !t->view.names.argv0);
        CHECK(t->view.n_ancestors == 2 && streq(t->view.ancestors[0].exe, "py thon3.11 (deleted)"));
        CHECK(streq(t->view.ancestors[0].argv0, "py thon"));
        t = proc_task_free(t);
}

/* Without PROC_READ_STAT: the comm from the comm file, stat never opened. */
static void test_no_stat(void)
{
        const unsigned light =
                PROC_READ_TASK & ~(PROC_READ_STAT | PROC_READ_IDS | PROC_READ_CGROUP);
        ProcTask *t = NULL;
        char *s = NULL;

        /* 710 has no stat at all */
        put_str("710/comm", "x) (y\nz\n");
        put("710/cmdline", "/usr/bin/x y\0-a\0", 15);
        put_link("710/exe", "/usr/bin/x y");
        CHECK(proc_task_read(root, 710, 0, light, &t) == 0);
        CHECK(streq(t->view.names.comm, "x) (y\nz"));
        CHECK(streq(t->view.names.argv0, "x y") && streq(t->view.names.exe, "x y"));
        CHECK(!t->has_stat && t->starttime == 0 && t->ppid == 0 && t->n_threads == 0);
        CHECK(!t->kernel_thread && !t->zombie);
        t = proc_task_free(t);
        CHECK(proc_task_read(root, 710, 0, light | PROC_READ_STAT, &t) == -ESRCH);
        CHECK(proc_task_read(root, 710, 0, light | PROC_READ_ANCESTORS, &t) == -EINVAL);
        CHECK(!t);

        /* a name that ends in a newline keeps it: only the kernel's goes */
        put_str("711/comm", "nl\n\n");
        CHECK(proc_task_read(root, 711, 0, light & ~(PROC_READ_CMDLINE | PROC_READ_EXE),
                             &t) == 0);
        CHECK(streq(t->view.names.comm, "nl\n"));
        t = proc_task_free(t);

        /* the same name from both files of a complete task */
        CHECK(proc_task_read(root, 100, 0, PROC_READ_TASK & ~PROC_READ_STAT, &t) == 0);
        CHECK(streq(t->view.names.comm, "a) b (c") && !t->has_stat);
        CHECK(streq(t->view.names.argv0, "a-very-long-process-name"));
        t = proc_task_free(t);
        CHECK(proc_task_read(root, 100, 0, PROC_READ_TASK, &t) == 0);
        CHECK(streq(t->view.names.comm, "a) b (c") && t->has_stat);
        t = proc_task_free(t);
        CHECK(proc_task_read(root, 999, 0, PROC_READ_TASK & ~PROC_READ_STAT, &t) == -ESRCH);

        /* the numbers of stat, parsed in place: bounds and signs */
        {
                static const char *const bad[] = {
                        "1 (c) S 2147483648 0 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5\n",
                        "1 (c) S +5 0 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5\n",
                        "1 (c) S 5 0 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 4294967296 0 5\n",
                        "1 (c) S 5 0 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 18446744073709551616\n",
                        "1 (c) S 5 0 0 0 -1 0x10 0 0 0 0 0 0 0 0 20 0 1 0 5\n",
                        "1 (c) S 5 0 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0\n",
                        "1 (c) SS 5 0 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5\n",
                };
                const char *good = "1 (c) (d) S 2147483647 0 0 0 -1 18446744073709551615 0 0 0 "
                                   "0 0 0 0 0 20 0 4294967295 0 18446744073709551615 7\n";
                ProcStat st;

                for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                        CHECK(proc_stat_parse(bad[i], strlen(bad[i]), &st) == -EIO);
                CHECK(proc_stat_parse(good, strlen(good), &st) == 0);
                CHECK(streq(st.comm, "c) (d") && st.state == 'S' && st.ppid == INT32_MAX);
                CHECK(st.flags == UINT64_MAX && st.n_threads == UINT32_MAX);
                CHECK(st.starttime == UINT64_MAX);
                proc_stat_done(&st);
        }

        CHECK(proc_comm_parse("abc\n", 4, &s) == 0 && streq(s, "abc"));
        free(s);
        CHECK(proc_comm_parse("abc", 3, &s) == 0 && streq(s, "abc"));
        free(s);
        CHECK(proc_comm_parse("a\n\n", 3, &s) == 0 && streq(s, "a\n"));
        free(s);
        CHECK(proc_comm_parse("\n", 1, &s) == 0 && streq(s, ""));
        free(s);
        CHECK(proc_comm_parse("ab\0cd\n", 6, &s) == 0 && streq(s, "ab"));
        free(s);
        CHECK(proc_comm_parse(NULL, 0, &s) == -EINVAL);
}

/* The comm file of real tasks: a hostile name as prctl() sets it, a thread
 * that renames itself, a process that is gone. */
static void test_no_stat_real(void)
{
        static const char hostile[] = "r) (s\nt\n";
        ProcTask *t = NULL;
        char *s = NULL, *old = NULL;
        pthread_t th;
        pid_t tid = 0, child;
        int fds[2];

        CHECK(pipe2(fds, O_CLOEXEC) == 0);
        child = fork();
        CHECK(child >= 0);
        if (child == 0) {
                if (prctl(PR_SET_NAME, hostile) < 0 || write(fds[1], "x", 1) != 1)
                        _exit(1);
                pause();
                _exit(0);
        }
        {
                char c;
                CHECK(read(fds[0], &c, 1) == 1);
        }
        CHECK(proc_task_read("/proc", child, 0, PROC_READ_TASK & ~PROC_READ_STAT, &t) == 0);
        CHECK(streq(t->view.names.comm, hostile) && !t->has_stat);
        t = proc_task_free(t);
        CHECK(proc_task_read("/proc", child, 0, PROC_READ_TASK, &t) == 0);
        CHECK(streq(t->view.names.comm, hostile) && t->has_stat);
        t = proc_task_free(t);
        CHECK(proc_thread_comm("/proc", child, child, &s) == 0 && streq(s, hostile));
        free(s);
        close(fds[1]);
        close(fds[0]);
        CHECK(kill(child, SIGKILL) == 0);
        CHECK(waitpid(child, NULL, 0) == child);
        CHECK(proc_task_read("/proc", child, 0, PROC_READ_TASK & ~PROC_READ_STAT, &t) == -ESRCH);
        CHECK(proc_thread_comm("/proc", child, child, &s) == -ESRCH);

        /* a thread renamed after it was read */
        CHECK(proc_thread_comm("/proc", getpid(), 0, &old) == 0);
        CHECK(pthread_create(&th, NULL, named_thread, &tid) == 0);
        while (!__atomic_load_n(&tid, __ATOMIC_SEQ_CST))
                usleep(1000);
        CHECK(proc_thread_comm("/proc", getpid(), tid, &s) == 0 && streq(s, "worker (x) y"));
        free(s);
        CHECK(pthread_setname_np(th, "n) (\nm") == 0);
        CHECK(proc_thread_comm("/proc", getpid(), tid, &s) == 0 && streq(s, "n) (\nm"));
        free(s);
        CHECK(proc_thread_comm("/proc", getpid(), 0, &s) == 0 && streq(s, old));
        free(s);
        free(old);
        pthread_cancel(th);
        pthread_join(th, NULL);
}

/* A status with a "Groups:" line of 65536 ids after Uid/Gid (well over the
 * read bound), as for a process with NGROUPS_MAX supplementary groups. */
static void put_huge_status(int pid, unsigned uid, unsigned gid, const char *pad)
{
        size_t size = 1024 + strlen(pad) + 65536 * 8, n = 0;
        char rel[64], *s = malloc(size);

        CHECK(s);
        n += (size_t) snprintf(s + n, size - n, "Name:\thuge\n%sTgid:\t%d\nUid:\t%u\t%u\t%u\t%u\n"
                               "Gid:\t%u\t%u\t%u\t%u\nFDSize:\t64\nGroups:\t", pad, pid,
                               uid, uid, uid, uid, gid, gid, gid, gid);
        for (unsigned g = 0; g < 65536; g++)
                n += (size_t) snprintf(s + n, size - n, "%u ", 1000000 + g);
        n += (size_t) snprintf(s + n, size - n, "\nNgid:\t0\n");
        CHECK(n < size && n > 512 * 1024);
        snprintf(rel, sizeof(rel), "%d/status", pid);
        put(rel, s, n);
        free(s);
}

/* Files longer than the read bounds are cut, not failed on: a 2 MiB cmdline
 * and a 512 KiB status still match, and so do their descendants. */
static void test_huge_fake(void)
{
        size_t n = 2 * 1024 * 1024;
        char *c = malloc(n), *pad = malloc(PROC_STATUS_MAX + 64);
        ProcTask *t = NULL;
        pid_t tgid;

        CHECK(c && pad);
        memcpy(c, "/usr/bin/huge\0", 14);
        memset(c + 14, 'B', n - 14);
        memcpy(c + n - 8, "\0--tail\0", 8);
        put_stat("800/stat", 800, "huge", 'S', 1, 0, 100);
        put_huge_status(800, 4242, 4343, "");
        put("800/cmdline", c, n);
        put_str("800/cgroup", "0::/system.slice/huge.service\n");
        put_link("800/exe", "/usr/bin/huge");
        free(c);

        CHECK(proc_task_read(root, 800, 0, PROC_READ_TASK & ~PROC_READ_NAMES, &t) == 0);
        CHECK(t->view.uid == 4242 && t->view.gid == 4343);
        CHECK(t->cmdline_truncated);
        CHECK(strlen(t->view.cmdline) == PROC_CMDLINE_MAX);
        CHECK(strncmp(t->view.cmdline, "/usr/bin/huge BBBB", 18) == 0);
        CHECK(streq(t->view.names.argv0, "huge"));
        CHECK(streq(t->view.unit, "huge.service"));
        t = proc_task_free(t);
        CHECK(proc_tgid(root, 800, &tgid) == 0 && tgid == 800);

        /* a child of it: the ancestor chain goes through the huge one */
        put_stat("801/stat", 801, "kid", 'S', 800, 0, 101);
        put_status(801, 0, 0);
        put("801/cmdline", "kid\0", 4);
        put_str("801/cgroup", "0::/\n");
        CHECK(proc_task_read(root, 801, 0, (PROC_READ_TASK & ~PROC_READ_NAMES) | PROC_READ_ANCESTORS,
                             &t) == 0);
        CHECK(!t->cmdline_truncated);
        CHECK(t->view.n_ancestors == 2);
        CHECK(streq(t->view.ancestors[0].argv0, "huge") && streq(t->view.ancestors[0].exe, "huge"));
        CHECK(streq(t->view.ancestors[1].comm, "systemd"));
        t = proc_task_free(t);

        /* the bound falls inside the Uid line: a cut number is not taken for
         * the whole one (the line is dropped, so there is no uid at all) */
        memset(pad, 'p', PROC_STATUS_MAX + 64);
        memcpy(pad, "Pad:\t", 5);
        pad[PROC_STATUS_MAX - 30] = '\n';
        pad[PROC_STATUS_MAX - 29] = 0;
        put_stat("802/stat", 802, "cut", 'S', 1, 0, 102);
        put_huge_status(802, 1234567890, 0, pad);
        CHECK(proc_task_read(root, 802, 0, PROC_READ_TASK & ~(PROC_READ_CMDLINE | PROC_READ_CGROUP),
                             &t) == -EIO);
        CHECK(!t);
        free(pad);

        /* a cgroup file that cannot be read leaves the cgroup unknown, and the
         * task still readable */
        put_stat("803/stat", 803, "nocg", 'S', 1, 0, 103);
        put_status(803, 0, 0);
        put("803/cmdline", "nocg\0", 5);
        put_str("803/cgroup/unreadable", "");
        CHECK(proc_task_read(root, 803, 0, PROC_READ_TASK & ~PROC_READ_NAMES, &t) == 0);
        CHECK(!t->view.cgroup && !t->view.unit && streq(t->view.names.argv0, "nocg"));
        t = proc_task_free(t);
}

/* The same on the real kernel: a child with 2 MiB of argv (in 128 KiB
 * arguments: MAX_ARG_STRLEN) and, as root, one with 65536 supplementary
 * groups and an unprivileged uid. Each waits on a pipe. */
static pid_t spawn_huge(int fd, bool groups)
{
        pid_t child = fork();

        CHECK(child >= 0);
        if (child > 0)
                return child;
        dup2(fd, 0);
        if (groups) {
                gid_t *g = malloc(65536 * sizeof(gid_t));

                if (!g)
                        _exit(126);
                for (unsigned i = 0; i < 65536; i++)
                        g[i] = 1000000 + i;
                if (setgroups(65536, g) < 0 || setresgid(65534, 65534, 65534) < 0 ||
                    setresuid(65534, 65534, 65534) < 0)
                        _exit(125);
                execl("/bin/sh", "sh", "-c", "read x", (char *) NULL);
        } else {
                struct rlimit rl = { 64u << 20, 64u << 20 };
                char *argv[24] = { "/some/dir/my sh", "-c", "read x", "arg0" };
                char *big = malloc(128 * 1024);

                if (!big || setrlimit(RLIMIT_STACK, &rl) < 0)
                        _exit(126);
                memset(big, 'z', 128 * 1024 - 1);
                big[128 * 1024 - 1] = 0;
                for (size_t i = 4; i < 20; i++)
                        argv[i] = big;
                execv("/bin/sh", argv);
        }
        _exit(127);
}

static void test_huge_real(void)
{
        ProcTask *t = NULL;
        int fds[2];
        pid_t child;
        char *c = NULL;

        CHECK(pipe2(fds, O_CLOEXEC) == 0);
        child = spawn_huge(fds[0], false);
        wait_for_exec(child, "sh");
        CHECK(proc_task_read("/proc", child, 0, PROC_READ_TASK | PROC_READ_ANCESTORS, &t) == 0);
        CHECK(t->cmdline_truncated && strlen(t->view.cmdline) == PROC_CMDLINE_MAX);
        CHECK(strncmp(t->view.cmdline, "/some/dir/my sh -c read x arg0 zzz", 34) == 0);
        CHECK(streq(t->view.names.argv0, "my sh"));
        CHECK(t->view.n_ancestors >= 1 && t->ppid == getpid());
        t = proc_task_free(t);

        if (geteuid() == 0) {
                child = spawn_huge(fds[0], true);
                wait_for_exec(child, "sh");
                /* it runs sh once the groups and uid are set */
                for (int i = 0; i < 3000; i++) {
                        CHECK(proc_task_read("/proc", child, 0, PROC_READ_TASK, &t) == 0);
                        if (t->view.uid == 65534)
                                break;
                        t = proc_task_free(t);
                        usleep(10000);
                }
                CHECK(t && t->view.uid == 65534 && t->view.gid == 65534);
                t = proc_task_free(t);
                {
                        char path[64];
                        size_t size = 0;

                        snprintf(path, sizeof(path), "/proc/%d/status", (int) child);
                        CHECK(read_full_file(path, 4u << 20, &c, &size) == 0);
                        CHECK(size > 256 * 1024); /* the case this is about */
                        free(c);
                }
        } else
                printf("skipping the 65536-group child: not root\n");
        close(fds[1]); /* read returns, the children exit */
        close(fds[0]);
        while (waitpid(-1, NULL, 0) > 0)
                ;
}

/* pidfd_open_process() and pidfd_process_alive() on a child of ours. */
static void test_pidfd(void)
{
        int fd, pipefd[2], status;
        pid_t child;
        char c;

        CHECK(pipe2(pipefd, O_CLOEXEC) == 0);
        child = fork();
        CHECK(child >= 0);
        if (child == 0) {
                /* wait for the parent's word, then exit */
                _exit(read(pipefd[0], &c, 1) == 1 ? 0 : 1);
        }
        fd = pidfd_open_process(child);
        if (fd == -ENOSYS) {
                printf("skipping pidfd test: no pidfd_open()\n");
                CHECK(write(pipefd[1], "x", 1) == 1);
                CHECK(waitpid(child, &status, 0) == child);
                return;
        }
        CHECK(fd >= 0);
        CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC);
        CHECK(pidfd_process_alive(fd) == 1);
        CHECK(pidfd_process_alive(fd) == 1);

        /* exited but not reaped (a zombie) counts as exited */
        CHECK(write(pipefd[1], "x", 1) == 1);
        for (int i = 0; i < 5000 && pidfd_process_alive(fd) == 1; i++)
                usleep(1000);
        CHECK(pidfd_process_alive(fd) == 0);
        CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
        CHECK(pidfd_process_alive(fd) == 0);
        CHECK(pidfd_open_process(child) == -ESRCH);
        close(fd);
        close(pipefd[0]);
        close(pipefd[1]);

        /* bad arguments */
        CHECK(pidfd_open_process(0) == -EINVAL);
        CHECK(pidfd_process_alive(-1) == -EBADF);
}

/* A stat line like put_stat()'s with THREADS and VSIZE (fields 20, 23). */
static void put_stat_mem(int pid, unsigned threads, unsigned long long vsize)
{
        char rel[64], *s;

        snprintf(rel, sizeof(rel), "%d/stat", pid);
        CHECK(asprintf(&s,
                       "%d (mem) S 1 0 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 %u 0 77 %llu 56 "
                       "18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n",
                       pid, threads, vsize) >= 0);
        put_str(rel, s);
        free(s);
        put_status(pid, 1000, 1000);
}

/* With a bounded reader set, a cmdline is read right away only for
 * PROC_READ_FRESH with one thread and little mapped; any other read goes
 * through the reader: a FIFO for a cmdline that nobody writes to stands for
 * a process keeping its memory busy (the read is cut short, -EAGAIN), and
 * its uid is then held off (-EAGAIN at once) where a read would go through
 * the reader, while a fresh process of the same uid is still read. */
static void test_bounded_routing(void)
{
        const unsigned names = PROC_READ_TASK & ~(PROC_READ_IDS | PROC_READ_CGROUP | PROC_READ_EXE);
        BoundedReader *b = NULL;
        ProcTask *t = NULL;
        char fifo[PATH_MAX];
        int fd;

        put_stat_mem(700, 1, 4u << 20);
        put("700/cmdline", "fresh\0arg\0", 10);
        put_stat_mem(701, 2, 4u << 20);
        put("701/cmdline", "two\0", 4);
        put_stat_mem(702, 1, 1ull << 30);
        put("702/cmdline", "big\0", 4);
        put_stat_mem(703, 3, 1ull << 30);
        snprintf(fifo, sizeof(fifo), "%s/703/cmdline", root);
        CHECK(mkfifo(fifo, 0600) == 0);

        CHECK(bounded_reader_new(PROC_CMDLINE_MAX, 20 * 1000, &b) == 0);
        proc_set_cmdline_reader(b);

        check(proc_task_read(root, 703, 0, names | PROC_READ_FRESH, &t) == -EAGAIN && !t);
        check(bounded_reader_n_timeouts(b) == 1);

        /* Fresh, one thread, 4 MiB mapped: read right away, uid 1000 or not;
         * the stat is read even when asked to leave it out. */
        CHECK(proc_task_read(root, 700, 0, (names & ~PROC_READ_STAT) | PROC_READ_FRESH, &t) == 0);
        check_streq(t->view.cmdline, "fresh arg");
        check(t->has_stat && t->starttime == 77);
        t = proc_task_free(t);
        /* The same process not fresh, two threads, or 1 GiB mapped: through
         * the reader, which holds uid 1000 off now. */
        check(proc_task_read(root, 700, 0, names, &t) == -EAGAIN && !t);
        check(proc_task_read(root, 701, 0, names | PROC_READ_FRESH, &t) == -EAGAIN && !t);
        check(proc_task_read(root, 702, 0, names | PROC_READ_FRESH, &t) == -EAGAIN && !t);
        check(bounded_reader_n_refused(b) == 3);
        /* Without a cmdline, nothing waits. */
        CHECK(proc_task_read(root, 702, 0, names & ~PROC_READ_CMDLINE, &t) == 0);
        t = proc_task_free(t);

        fd = open(fifo, O_WRONLY | O_CLOEXEC); /* lets the worker go */
        CHECK(fd >= 0);
        close(fd);
        proc_set_cmdline_reader(NULL);
        bounded_reader_free(b);

        /* Without a reader (latnicectl), everything is read right away. */
        CHECK(proc_task_read(root, 701, 0, names, &t) == 0);
        check_streq(t->view.cmdline, "two");
        t = proc_task_free(t);
}

/* PID/environ is read as the cmdline is: right away only fresh, with one
 * thread and little mapped; otherwise through the reader, and a read cut
 * short or refused is -EAGAIN, which lib/tamper.c turns into a reason to
 * withhold a boost. */
static void test_bounded_environ(void)
{
        static const char env[] = "A=1\0LD_PRELOAD=x.so\0";
        _cleanup_free_ char *buf = NULL, *reason = NULL;
        BoundedReader *b = NULL;
        char fifo[PATH_MAX];
        bool truncated = true;
        size_t n = 0;
        int fd;

        put_stat_mem(710, 1, 4u << 20);
        put("710/environ", env, sizeof(env) - 1);
        put_stat_mem(711, 3, 1ull << 30);
        put_str("711/status", "Name:\tx\nPid:\t711\nTracerPid:\t0\nUid:\t1001\t0\t0\t0\n");
        snprintf(fifo, sizeof(fifo), "%s/711/environ", root);
        CHECK(mkfifo(fifo, 0600) == 0);

        CHECK(bounded_reader_new(PROC_CMDLINE_MAX, 20 * 1000, &b) == 0);
        proc_set_cmdline_reader(b);

        check(proc_environ_read(root, 711, 1001, true, &buf, &n, &truncated) == -EAGAIN && !buf);
        check(bounded_reader_n_timeouts(b) == 1);
        /* The same uid, held off now: refused through the reader... */
        check(proc_environ_read(root, 711, 1001, false, &buf, &n, &truncated) == -EAGAIN);
        check(proc_tampered(root, 711, 1001, false, &reason) == 1);
        check(reason && strstr(reason, "could not be read in time"));
        /* ... but a fresh small process is read right away. */
        CHECK(proc_environ_read(root, 710, 1001, true, &buf, &n, &truncated) == 0);
        check(n == sizeof(env) - 1 && memcmp(buf, env, n) == 0 && !truncated);
        free(buf);
        buf = NULL;
        check(proc_environ_read(root, 710, 1001, false, &buf, &n, &truncated) == -EAGAIN);

        fd = open(fifo, O_WRONLY | O_CLOEXEC); /* lets the worker go */
        CHECK(fd >= 0);
        close(fd);
        proc_set_cmdline_reader(NULL);
        bounded_reader_free(b);

        /* Without a reader (latnicectl), right away. */
        CHECK(proc_environ_read(root, 710, 1001, false, &buf, &n, &truncated) == 0);
        check(n == sizeof(env) - 1);
}

/* PROC_READ_ENVIRON (the env: key): read only when the plan says so, and
 * then whole entries within the first PROC_CMDLINE_MAX bytes. */
static void test_env_read(void)
{
        static const char head[] = "A=1\0LONG=";
        size_t n = PROC_CMDLINE_MAX + 100, h = sizeof(head) - 1;
        char *e = malloc(n);
        ProcTask *t = NULL;

        CHECK(e);
        memcpy(e, head, h);
        memset(e + h, 'x', n - h - 1);
        e[n - 1] = 0;
        put_stat("820/stat", 820, "envy", 'S', 1, 0, 100);
        put_status(820, 0, 0);
        put("820/environ", e, n);
        free(e);
        put_stat("821/stat", 821, "envy", 'S', 1, 0, 100);
        put_status(821, 0, 0);
        put("821/environ", "A=1\0B=2\0", 8);

        CHECK(proc_task_read(root, 820, 0, PROC_READ_STAT | PROC_READ_IDS, &t) == 0);
        check(!t->view.env && t->view.env_size == 0);
        t = proc_task_free(t);
        /* the entry cut at 64 KiB is left out, a NUL after the rest */
        CHECK(proc_task_read(root, 820, 0, PROC_READ_STAT | PROC_READ_ENVIRON, &t) == 0);
        check(t->view.env && t->view.env_size == 4 && memcmp(t->view.env, "A=1\0", 5) == 0);
        t = proc_task_free(t);
        CHECK(proc_task_read(root, 821, 0, PROC_READ_ENVIRON, &t) == 0);
        check(t->view.env && t->view.env_size == 8 &&
              memcmp(t->view.env, "A=1\0B=2\0", 9) == 0);
        check(!t->view.cmdline && !t->has_stat);
        t = proc_task_free(t);
        CHECK(proc_task_read(root, 822, 0, PROC_READ_ENVIRON, &t) == -ESRCH);
}

/* A fake process whose main thread has exited while THREADS threads count:
 * PID/stat Z, PID/cmdline and PID/environ empty, no PID/exe, PID/cgroup
 * where the leader stayed, and PID/task/PID. Its other threads' directories
 * are made by the caller. */
static void put_leader_exited(int pid, unsigned threads)
{
        char rel[64], *s;

        snprintf(rel, sizeof(rel), "%d/stat", pid);
        CHECK(asprintf(&s,
                       "%d (lx) Z 1 0 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 %u 0 77 4194304 56 "
                       "18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n",
                       pid, threads) >= 0);
        put_str(rel, s);
        snprintf(rel, sizeof(rel), "%d/comm", pid);
        put_str(rel, "lx\n");
        put_status(pid, 1000, 1000);
        snprintf(rel, sizeof(rel), "%d/cmdline", pid);
        put(rel, "", 0);
        snprintf(rel, sizeof(rel), "%d/environ", pid);
        put(rel, "", 0);
        snprintf(rel, sizeof(rel), "%d/cgroup", pid);
        put_str(rel, "0::/old.scope\n");
        snprintf(rel, sizeof(rel), "%d/task/%d/stat", pid, pid);
        put_str(rel, s);
        free(s);
}

/* Thread TID of fake process PID: a directory only (it is gone, or has let
 * go of the memory), and with LIVE its files and exe link. */
static void put_thread(int pid, int tid, bool live, const char *cmdline, size_t cmdline_len,
                       const char *env, size_t env_len)
{
        char rel[96];

        snprintf(rel, sizeof(rel), "%d/task/%d/", pid, tid);
        put_str(strcat(rel, "x"), "");
        if (!live)
                return;
        snprintf(rel, sizeof(rel), "%d/task/%d/cmdline", pid, tid);
        put(rel, cmdline, cmdline_len);
        snprintf(rel, sizeof(rel), "%d/task/%d/environ", pid, tid);
        put(rel, env, env_len);
        snprintf(rel, sizeof(rel), "%d/task/%d/cgroup", pid, tid);
        put_str(rel, "0::/user.slice/app.scope\n");
        snprintf(rel, sizeof(rel), "%d/task/%d/exe", pid, tid);
        put_link(rel, "/usr/bin/thr");
}

/* The threads of fake process PID other than PID in the order the reader
 * lists them (readdir's): up to MAX into TIDS; how many. */
static size_t listed_threads(int pid, int *tids, size_t max)
{
        char path[PATH_MAX];
        struct dirent *de;
        size_t n = 0;
        DIR *d;

        snprintf(path, sizeof(path), "%s/%d/task", root, pid);
        d = opendir(path);
        CHECK(d);
        while (n < max && (de = readdir(d))) {
                int tid = atoi(de->d_name);

                if (tid > 0 && tid != pid)
                        tids[n++] = tid;
        }
        closedir(d);
        return n;
}

/* A main thread that has exited (Z, more than one thread): the process's
 * cmdline, argv0, exe, environ and cgroup are a live thread's, found past
 * threads that went; only the first few are tried; an empty file counts
 * only from a thread that still has the memory (an exe link). */
static void test_leader_exited_fake(void)
{
        const ProcReadPlan plan = PROC_READ_CMDLINE | PROC_READ_EXE | PROC_READ_ENVIRON |
                                  PROC_READ_CGROUP;
        ProcTask *t = NULL;
        int tids[8];

        put_leader_exited(900, 3);
        put_thread(900, 901, false, NULL, 0, NULL, 0);
        put_thread(900, 902, true, "thr\0-x\0", 7, "T=1\0", 4);
        for (int with_stat = 0; with_stat < 2; with_stat++) {
                CHECK(proc_task_read(root, 900, 0, plan | (with_stat ? PROC_READ_STAT : 0),
                                     &t) == 0);
                check_streq(t->view.cmdline, "thr -x");
                check_streq(t->view.names.argv0, "thr");
                check_streq(t->view.exe_path, "/usr/bin/thr");
                check_streq(t->view.names.exe, "thr");
                check(t->view.env && t->view.env_size == 4 && memcmp(t->view.env, "T=1", 4) == 0);
                /* the stat, or the empty cmdline read before it, says
                 * the leader's cgroup file is stale */
                check_streq(t->view.cgroup, "/user.slice/app.scope");
                t = proc_task_free(t);
        }
        /* the cgroup alone, without the stat: nothing says so */
        CHECK(proc_task_read(root, 900, 0, PROC_READ_CGROUP, &t) == 0);
        check_streq(t->view.cgroup, "/old.scope");
        t = proc_task_free(t);
        /* the cgroup as lib/sched-group.c reads it: the leader's stat says */
        {
                _cleanup_free_ char *cg = NULL;

                CHECK(proc_cgroup_read(root, 900, &cg) == 0);
                check_streq(cg, "0::/user.slice/app.scope\n");
        }
        /* the environment too, as lib/tamper.c reads it */
        {
                _cleanup_free_ char *env = NULL;
                size_t n = 0;

                CHECK(proc_environ_read(root, 900, 1000, false, &env, &n, NULL) == 0);
                check(n == 4 && memcmp(env, "T=1", 4) == 0);
        }

        /* dead (Z, one thread): the leader's files are the answer */
        put_leader_exited(910, 1);
        put_thread(910, 911, true, "thr\0", 4, "T=1\0", 4);
        CHECK(proc_task_read(root, 910, 0, plan | PROC_READ_STAT, &t) == 0);
        check(!t->view.cmdline && !t->view.exe_path && t->view.env_size == 0);
        check_streq(t->view.cgroup, "/old.scope");
        t = proc_task_free(t);
        {
                _cleanup_free_ char *cg = NULL;

                CHECK(proc_cgroup_read(root, 910, &cg) == 0);
                check_streq(cg, "0::/old.scope\n");
        }

        /* Only the first PROC_LIVE_TRIES (4) threads listed are tried: a
         * live one listed fifth is not reached, -EAGAIN; fourth, it is. */
        put_leader_exited(920, 7);
        for (int tid = 921; tid <= 926; tid++)
                put_thread(920, tid, false, NULL, 0, NULL, 0);
        CHECK(listed_threads(920, tids, 8) == 6);
        put_thread(920, tids[4], true, "fifth\0", 6, "", 0);
        check(proc_task_read(root, 920, 0, PROC_READ_STAT | PROC_READ_CMDLINE, &t) == -EAGAIN &&
              !t);
        put_thread(920, tids[3], true, "fourth\0", 7, "", 0);
        CHECK(proc_task_read(root, 920, 0, PROC_READ_STAT | PROC_READ_CMDLINE, &t) == 0);
        check_streq(t->view.cmdline, "fourth");
        t = proc_task_free(t);

        /* An empty environ from a thread without the memory (no exe link:
         * exiting) is passed over; from one with it, it is the answer. */
        put_leader_exited(930, 3);
        put_thread(930, 931, false, NULL, 0, NULL, 0);
        put_thread(930, 932, false, NULL, 0, NULL, 0);
        CHECK(listed_threads(930, tids, 8) == 2);
        /* files only from here: the listing's order stays */
        {
                char rel[64];

                snprintf(rel, sizeof(rel), "930/task/%d/environ", tids[0]);
                put(rel, "", 0);
        }
        put_thread(930, tids[1], true, "t\0", 2, "E=2\0", 4);
        CHECK(proc_task_read(root, 930, 0, PROC_READ_STAT | PROC_READ_ENVIRON, &t) == 0);
        check(t->view.env && t->view.env_size == 4 && memcmp(t->view.env, "E=2", 4) == 0);
        t = proc_task_free(t);
        put_thread(930, tids[0], true, "t\0", 2, "", 0);
        CHECK(proc_task_read(root, 930, 0, PROC_READ_STAT | PROC_READ_ENVIRON, &t) == 0);
        check(t->view.env_size == 0);
        t = proc_task_free(t);
}

/* The child of test_leader_exited_real(), exec'd: its main thread starts a
 * thread that waits for EOF on fd 3, and exits. */
static void leader_exits_child(void)
{
        static int fd = 3;
        pthread_t other;

        if (pthread_create(&other, NULL, wait_for_eof, &fd) != 0)
                _exit(1);
        pthread_exit(NULL);
}

/* As root, where cgroup2 is mounted: move the threads of CHILD, whose main
 * thread has exited, to a new cgroup. The leader stays where it was (its
 * PID/cgroup says so); the snapshot's cgroup is the threads'. Returns the
 * cgroup's directory, to be removed once CHILD is reaped (NULL: skipped). */
static char *leader_exited_move(pid_t child)
{
        _cleanup_free_ char *mnt = NULL, *leader = NULL, *dir = NULL;
        char name[64], pid_text[16], path[64];
        ProcTask *t = NULL;
        size_t n;

        if (geteuid() != 0 || cg_find_mount(&mnt) < 0) {
                printf("not root or no cgroup2 mount: the cgroup of a moved process is not checked\n");
                return NULL;
        }
        snprintf(name, sizeof(name), "latnice-test-ident-%d", (int)getpid());
        CHECK(cg_path_join(mnt, name, &dir) == 0);
        if (mkdir(dir, 0755) < 0) {
                printf("cannot create a cgroup under %s: %m\n", mnt);
                return NULL;
        }
        snprintf(pid_text, sizeof(pid_text), "%d", (int)child);
        if (cg_write(dir, "cgroup.procs", pid_text) < 0) {
                printf("cannot move %d to %s: the cgroup of a moved process is not checked\n",
                       (int)child, dir);
                CHECK(rmdir(dir) == 0);
                return NULL;
        }
        snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)child);
        CHECK(read_full_file(path, READ_FULL_FILE_MAX, &leader, NULL) == 0);
        check(!strstr(leader, name)); /* or this tests nothing */
        /* as lib/sched-group.c and lib/group-subtree.c read it */
        {
                _cleanup_free_ char *cg = NULL;

                CHECK(proc_cgroup_read("/proc", child, &cg) == 0);
                check(strstr(cg, name));
        }
        CHECK(proc_task_read("/proc", child, 0, PROC_READ_STAT | PROC_READ_CGROUP, &t) == 0);
        n = t->view.cgroup ? strlen(t->view.cgroup) : 0;
        check(n > strlen(name) && streq(t->view.cgroup + n - strlen(name), name) &&
              t->view.cgroup[n - strlen(name) - 1] == '/');
        t = proc_task_free(t);
        return TAKE_PTR(dir);
}

/* The same on a real process whose main thread exited: proc_task_read(),
 * the tamper check (its LD_LIBRARY_PATH) and the trust model (the exe,
 * its mount namespace) see the process, not the leader's empty files. */
static void test_leader_exited_real(void)
{
        char *const argv[] = { "lt-ident-main", "--leader-exits", "lt-ident-arg", NULL };
        char *const envp[] = { "LT_IDENT=found", "LD_LIBRARY_PATH=/nonexistent-lt-ident", NULL };
        _cleanup_free_ char *self = NULL, *reason = NULL, *self_reason = NULL, *cgroup = NULL;
        BoundedReader *b = NULL;
        ProcTask *t = NULL;
        int fds[2], r, r_self, r_child;
        pid_t child;

        CHECK(readlink_malloc("/proc/self/exe", &self) == 0);
        CHECK(pipe2(fds, O_CLOEXEC) == 0);
        child = fork();
        CHECK(child >= 0);
        if (child == 0) {
                /* fd 3 without O_CLOEXEC (dup2() onto itself keeps it) */
                if (dup2(fds[0], 3) != 3 || fcntl(3, F_SETFD, 0) < 0)
                        _exit(1);
                execve("/proc/self/exe", argv, envp);
                _exit(1);
        }
        close(fds[0]);
        for (int i = 0; i < 3000 && !proc_leader_exited("/proc", child); i++)
                usleep(10000);
        CHECK(proc_leader_exited("/proc", child));

        CHECK(bounded_reader_new(PROC_CMDLINE_MAX, 2000 * 1000, &b) == 0);
        for (int i = 0; i < 3; i++) {
                /* without the stat, with it, and through the bounded reader */
                ProcReadPlan plan = PROC_READ_CMDLINE | PROC_READ_EXE | PROC_READ_ENVIRON |
                                    (i > 0 ? PROC_READ_STAT : 0) | (i > 1 ? PROC_READ_FRESH : 0);

                proc_set_cmdline_reader(i > 1 ? b : NULL);
                check(proc_tampered("/proc", child, UINT32_MAX, false, &reason) == 1 && reason &&
                      strstr(reason, "LD_LIBRARY_PATH"));
                reason = mfree(reason);
                r = proc_task_read("/proc", child, 0, plan, &t);
                check(r == 0);
                if (r < 0)
                        continue;
                check_streq(t->view.cmdline, "lt-ident-main --leader-exits lt-ident-arg");
                check_streq(t->view.names.argv0, "lt-ident-main");
                check_streq(t->view.exe_path, self);
                check(t->view.env && memmem(t->view.env, t->view.env_size, "LT_IDENT=found",
                                            15));
                t = proc_task_free(t);
        }
        proc_set_cmdline_reader(NULL);
        bounded_reader_free(b);

        /* the same verdict on the same file as for this test itself */
        r_self = proc_exe_trusted("/proc", getpid(), &self_reason);
        r_child = proc_exe_trusted("/proc", child, &reason);
        check(r_child == r_self && r_self >= 0);
        check_streq(reason, self_reason);
        check(proc_same_mount_ns("/proc", child) == 1);

        cgroup = leader_exited_move(child);
        close(fds[1]); /* its thread reads EOF and exits */
        CHECK(waitpid(child, NULL, 0) == child);
        if (cgroup)
                CHECK(rmdir(cgroup) == 0);
}

int main(int argc, char **argv)
{
        char cmd[300];

        if (argc == 3 && streq(argv[1], "--leader-exits"))
                leader_exits_child();
        CHECK(mkdtemp(root));
        build_fake_proc();
        test_fake();
        test_flags();
        test_no_stat();
        test_huge_fake();
        test_unit();
        test_unit_name();
        test_real();
        test_no_stat_real();
        test_huge_real();
        test_pidfd();
        test_bounded_routing();
        test_bounded_environ();
        test_env_read();
        test_leader_exited_fake();
        test_leader_exited_real();
        snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", root);
        CHECK(system(cmd) == 0);
        return test_result();
}
