/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit test for daemon/desktop/focus-pid.c: the process a focus call names,
 * read while held by a pidfd, on the fake kernel (tests/unit/fake-kernel.h),
 * whose hook gives the pid to another process between the pidfd's opening
 * and the reads of /proc. */
#include <stdlib.h>
#include <string.h>

#include "daemon/desktop/focus-pid.h"
#include "fake-kernel.h"
#include "test-util.h"

static pid_t reuse_pid;

/* Right after the pidfd of REUSE_PID is opened, the process exits and
 * another takes its number: the reads that follow see the new one. */
static void reuse_after_open(FakeOp op, pid_t tid, int r, void *userdata)
{
        if (op == FAKE_PIDFD_OPEN && tid == reuse_pid && r >= 0) {
                reuse_pid = 0;
                fake_pid_reuse(tid, "lnfocus-other");
        }
}

static int read_pid(pid_t pid, ProcTask **ret, char **ret_error)
{
        return focus_pid_read(fake_proc_root(), &fake_kernel_ops, true, pid, ret, ret_error);
}

static void test_read(void)
{
        ProcTask *p = NULL;
        char *why = NULL;
        pid_t pid;

        pid = fake_process_new(0, "lnfocus-app", 1, 2);
        check(read_pid(pid, &p, &why) == 0);
        check(p && p->view.pid == pid && p->starttime == fake_task(pid)->starttime);
        check(p && p->view.cgroup && strcmp(p->view.cgroup, "/system.slice/fake.service") == 0);
        check(!why);
        check(fake_calls(FAKE_PIDFD_OPEN) == 1 && fake_calls(FAKE_PIDFD_ALIVE) == 1);
        proc_task_free(p);
}

static void test_gone(void)
{
        ProcTask *p = NULL;
        char *why = NULL;
        pid_t k;

        check(read_pid(4242, &p, &why) == -ESRCH && !p);
        check_streq(why, "No process 4242");
        free(why);
        why = NULL;
        k = fake_kthread_new(0, "kworker/0:1");
        check(read_pid(k, &p, &why) == -ESRCH && !p);
        check(why && strncmp(why, "No process ", 11) == 0 && atoi(why + 11) == k);
        free(why);
}

static void test_reuse(void)
{
        ProcTask *p = NULL;
        char *why = NULL;
        pid_t pid;

        pid = fake_process_new(0, "lnfocus-named", 1, 1);
        reuse_pid = pid;
        fake_hook_set(reuse_after_open, NULL);
        /* the reads find the other process; the pidfd says the named one exited */
        check(read_pid(pid, &p, &why) == -ESRCH && !p);
        fake_hook_set(NULL, NULL);
        check(reuse_pid == 0);
        check(fake_task(pid) && strcmp(fake_task(pid)->comm, "lnfocus-other") == 0);
        free(why);
        why = NULL;
        /* asked again, the pid names the other process, held from the start */
        check(read_pid(pid, &p, &why) == 0);
        check(p && p->starttime == fake_task(pid)->starttime);
        proc_task_free(p);
}

int main(void)
{
        fake_kernel_init(0);
        test_read();
        test_gone();
        test_reuse();
        fake_kernel_done();
        return test_result();
}
