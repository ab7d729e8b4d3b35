/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for lib/tamper.c: the environ and status parsers, and real child
 * processes: one started with LD_PRELOAD, one being traced, one without
 * either.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/tamper.h"
#include "lib/util.h"
#include "tests/unit/test-util.h"

#define ENV(s) s, sizeof(s) - 1

static void test_environ(void)
{
        check(environ_loader_variable(ENV("")) == NULL);
        check(environ_loader_variable(ENV("PATH=/bin\0HOME=/\0")) == NULL);
        check_streq(environ_loader_variable(ENV("PATH=/bin\0LD_PRELOAD=/x.so\0")), "LD_PRELOAD");
        check_streq(environ_loader_variable(ENV("LD_LIBRARY_PATH=/tmp\0")), "LD_LIBRARY_PATH");
        check_streq(environ_loader_variable(ENV("A=1\0LD_AUDIT=/a.so")), "LD_AUDIT"); /* no NUL */
        /* Empty values load nothing; other names are not the loader's. */
        check(environ_loader_variable(ENV("LD_PRELOAD=\0LD_AUDIT=\0")) == NULL);
        check(environ_loader_variable(ENV("XLD_PRELOAD=/x.so\0LD_PRELOADX=1\0LD_PRELOAD")) == NULL);
        check(environ_loader_variable(ENV("MY=LD_PRELOAD=/x.so\0")) == NULL);
}

static void test_status(void)
{
        static const char st[] = "Name:\tx\nPid:\t5\nTracerPid:\t4242\nUid:\t0\t0\t0\t0\n";
        pid_t t = -1;

        check(status_tracer_pid(ENV(st), &t) == 0 && t == 4242);
        check(status_tracer_pid(ENV("Name:\tx\nTracerPid:\t0\n"), &t) == 0 && t == 0);
        check(status_tracer_pid(ENV("Name:\tx\n"), &t) == -ENODATA);
        check(status_tracer_pid(ENV("TracerPid:\tx\n"), &t) == -EIO);
}

static pid_t spawn(char *const envp[], bool traceme)
{
        pid_t pid = fork();

        CHECK(pid >= 0);
        if (pid == 0) {
                char *argv[] = { (char *)"sleep", (char *)"30", NULL };

                if (traceme && ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0)
                        _exit(126);
                execve("/bin/sleep", argv, envp);
                _exit(127);
        }
        return pid;
}

/* PID sleeps (state S in its stat): sleep(1) waits in nanosleep, so its
 * exec is over. The exe link alone is not enough: it shows the new program
 * from begin_new_exec() on, before the new stack and its environment are
 * set up (environ then reads empty). */
static bool asleep(pid_t pid)
{
        char path[64], buf[512], *p;
        FILE *f;
        size_t n;

        snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
        f = fopen(path, "re");
        if (!f)
                return false;
        n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[n] = 0;
        p = strrchr(buf, ')');
        return p && p[1] == ' ' && p[2] == 'S';
}

/* Wait until PID runs sleep (its exec is done, its environment is new). */
static void wait_exec(pid_t pid, bool traced)
{
        int status;

        if (traced) {
                /* A tracee stops at its exec (SIGTRAP): let it go on. */
                CHECK(waitpid(pid, &status, 0) == pid && WIFSTOPPED(status));
                CHECK(ptrace(PTRACE_CONT, pid, NULL, NULL) == 0);
        }
        for (int i = 0; i < 3000; i++) {
                char exe[64], *t = NULL;

                snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)pid);
                if (readlink_malloc(exe, &t) >= 0 && strstr(t, "sleep") && asleep(pid)) {
                        free(t);
                        return;
                }
                free(t);
                usleep(10000);
        }
        test_fail("pid %d never ran sleep", (int)pid);
}

static void check_tampered(pid_t pid, const char *want, const char *what)
{
        _cleanup_free_ char *reason = NULL;
        int r = proc_tampered("/proc", pid, UINT32_MAX, false, &reason);

        if (want ? (r != 1 || !reason || !strstr(reason, want)) : r != 0)
                test_fail("%s: got %d (%s), expected %s", what, r, strna(reason),
                          want ?: "not tampered");
}

static void reap(pid_t pid)
{
        int status;

        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
}

static void test_processes(void)
{
        char *plain[] = { (char *)"PATH=/bin", NULL };
        char *preload[] = { (char *)"PATH=/bin", (char *)"LD_PRELOAD=libm.so.6", NULL };
        char *libpath[] = { (char *)"LD_LIBRARY_PATH=/nonexistent", NULL };
        pid_t pid;

        pid = spawn(plain, false);
        wait_exec(pid, false);
        check_tampered(pid, NULL, "plain");
        reap(pid);
        check(proc_tampered("/proc", pid, UINT32_MAX, false, NULL) == -ESRCH);

        pid = spawn(preload, false);
        wait_exec(pid, false);
        check_tampered(pid, "started with LD_PRELOAD in its environment", "LD_PRELOAD");
        reap(pid);

        pid = spawn(libpath, false);
        wait_exec(pid, false);
        check_tampered(pid, "LD_LIBRARY_PATH", "LD_LIBRARY_PATH");
        reap(pid);

        pid = spawn(plain, true);
        wait_exec(pid, true);
        {
                char want[64];

                snprintf(want, sizeof(want), "it is being traced (by pid %d)", (int)getpid());
                check_tampered(pid, want, "traced");
        }
        reap(pid);
}

int main(void)
{
        test_environ();
        test_status();
        test_processes();
        return test_result();
}
