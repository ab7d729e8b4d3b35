/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The fake kernel of tests/unit/fake-kernel.h. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/ioprio.h"
#include "lib/macro.h"
#include "lib/sched.h"
#include "lib/settings.h"
#include "tests/unit/fake-kernel.h"
#include "tests/unit/test-util.h"

#define FAKE_TASKS_MAX 256
#define FAKE_PIDFDS_MAX 64
#define FAKE_PID_FIRST 1000
#define FAKE_PF_KTHREAD 0x00200000u
#define FAKE_ATTR_SIZE SCHED_ATTR_SIZE_VER1 /* uclamp, no latency nice */

typedef struct FakePidfd {
        int fd;                 /* -1: free */
        pid_t pid;
        uint64_t starttime;
} FakePidfd;

static struct {
        char root[256];
        uint64_t base_slice_ns;
        FakeTask tasks[FAKE_TASKS_MAX];
        bool used[FAKE_TASKS_MAX];
        FakePidfd pidfds[FAKE_PIDFDS_MAX];
        pid_t next_pid;
        uint64_t next_starttime, next_cookie;
        fake_hook_t hook;
        void *userdata;
        unsigned calls[_FAKE_OP_MAX];
} fk;

FakeTask *fake_task(pid_t tid)
{
        for (size_t i = 0; i < FAKE_TASKS_MAX; i++)
                if (fk.used[i] && fk.tasks[i].tid == tid)
                        return &fk.tasks[i];
        return NULL;
}

size_t fake_threads(pid_t pid, pid_t *ret, size_t max)
{
        size_t n = 0;

        for (size_t i = 0; i < FAKE_TASKS_MAX; i++)
                if (fk.used[i] && fk.tasks[i].pid == pid) {
                        if (n < max)
                                ret[n] = fk.tasks[i].tid;
                        n++;
                }
        return n;
}

/* ---- the proc tree ---- */

static void put_file(const char *dir, const char *name, const char *data, size_t n)
{
        char path[PATH_MAX];
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        f = fopen(path, "we");
        CHECK(f);
        CHECK(fwrite(data, 1, n, f) == n);
        CHECK(fclose(f) == 0);
}

static void put_text(const char *dir, const char *name, const char *text)
{
        put_file(dir, name, text, strlen(text));
}

static void put_stat(const char *dir, const FakeTask *t, pid_t id, size_t n_threads)
{
        char buf[512];

        snprintf(buf, sizeof(buf),
                 "%d (%s) S %d 0 0 0 0 %u 0 0 0 0 0 0 0 0 20 0 %zu 0 %llu %llu 0\n", (int)id,
                 t->comm, (int)t->ppid, t->kthread ? FAKE_PF_KTHREAD : 0u, n_threads,
                 (unsigned long long)t->starttime, t->kthread ? 0ULL : 1048576ULL);
        put_text(dir, "stat", buf);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        return remove(path);
}

static void rm_tree(const char *path)
{
        struct stat st;

        if (lstat(path, &st) == 0)
                CHECK(nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS) == 0);
}

/* Write the files of process PID as they are now (or remove them). */
static void proc_sync(pid_t pid)
{
        char dir[PATH_MAX], sub[PATH_MAX + 64], buf[512];
        pid_t tids[FAKE_TASKS_MAX];
        const FakeTask *l = fake_task(pid);
        size_t n;

        snprintf(dir, sizeof(dir), "%s/%d", fk.root, (int)pid);
        rm_tree(dir);
        if (!l || l->pid != pid)
                return;
        n = fake_threads(pid, tids, ELEMENTSOF(tids));
        CHECK(mkdir(dir, 0755) == 0);
        put_stat(dir, l, pid, n);
        snprintf(buf, sizeof(buf), "%s\n", l->comm);
        put_text(dir, "comm", buf);
        snprintf(buf, sizeof(buf),
                 "Name:\t%s\nTgid:\t%d\nPid:\t%d\nPPid:\t%d\nUid:\t%u\t%u\t%u\t%u\n"
                 "Gid:\t%u\t%u\t%u\t%u\n",
                 l->comm, (int)pid, (int)pid, (int)l->ppid, l->uid, l->uid, l->uid, l->uid,
                 l->gid, l->gid, l->gid, l->gid);
        put_text(dir, "status", buf);
        put_file(dir, "cmdline", l->comm, l->kthread ? 0 : strlen(l->comm) + 1);
        put_text(dir, "cgroup", "0::/system.slice/fake.service\n");
        snprintf(sub, sizeof(sub), "%s/task", dir);
        CHECK(mkdir(sub, 0755) == 0);
        for (size_t i = 0; i < n; i++) {
                const FakeTask *t = fake_task(tids[i]);

                snprintf(sub, sizeof(sub), "%s/task/%d", dir, (int)tids[i]);
                CHECK(mkdir(sub, 0755) == 0);
                put_stat(sub, t, t->tid, n);
                snprintf(buf, sizeof(buf), "%s\n", t->comm);
                put_text(sub, "comm", buf);
        }
}

/* ---- tasks ---- */

void fake_kernel_init(uint64_t base_slice_ns)
{
        fake_kernel_done();
        fk.base_slice_ns = base_slice_ns ?: sched_base_slice();
        fk.next_pid = FAKE_PID_FIRST;
        fk.next_starttime = 100;
        fk.next_cookie = 1;
        for (size_t i = 0; i < FAKE_PIDFDS_MAX; i++)
                fk.pidfds[i].fd = -1;
        snprintf(fk.root, sizeof(fk.root), "%s/latnice-fake-XXXXXX", getenv("TMPDIR") ?: "/tmp");
        CHECK(mkdtemp(fk.root));
}

void fake_kernel_done(void)
{
        if (fk.root[0])
                rm_tree(fk.root);
        for (size_t i = 0; i < FAKE_PIDFDS_MAX; i++)
                if (fk.pidfds[i].fd >= 0)
                        close(fk.pidfds[i].fd);
        memset(&fk, 0, sizeof(fk));
}

const char *fake_proc_root(void)
{
        return fk.root;
}

static FakeTask *task_add(pid_t tid, pid_t pid)
{
        for (size_t i = 0; i < FAKE_TASKS_MAX; i++)
                if (!fk.used[i]) {
                        CHECK(!fake_task(tid));
                        fk.used[i] = true;
                        fk.tasks[i] = (FakeTask){ .tid = tid, .pid = pid };
                        return &fk.tasks[i];
                }
        CHECK(!"too many fake tasks");
        return NULL;
}

static pid_t next_free_pid(void)
{
        while (fake_task(fk.next_pid))
                fk.next_pid++;
        return fk.next_pid++;
}

pid_t fake_process_new(pid_t pid, const char *comm, pid_t ppid, unsigned n_threads)
{
        FakeTask *l;

        CHECK(n_threads >= 1);
        if (pid <= 0)
                pid = next_free_pid();
        l = task_add(pid, pid);
        l->ppid = ppid;
        l->starttime = fk.next_starttime++;
        snprintf(l->comm, sizeof(l->comm), "%s", comm);
        l->policy = SCHED_OTHER;
        l->slice_ns = fk.base_slice_ns;
        l->util_max = 1024;
        l->timer_slack_ns = FAKE_TIMER_SLACK_DEFAULT;
        l->rttime = (struct rlimit){ RLIM_INFINITY, RLIM_INFINITY };
        for (int cpu = 0; cpu < FAKE_CPUS; cpu++) {
                CPU_SET(cpu, &l->affinity);
                CPU_SET(cpu, &l->cpuset);
        }
        proc_sync(pid);
        for (unsigned i = 1; i < n_threads; i++)
                (void)fake_thread_new(pid);
        return pid;
}

pid_t fake_kthread_new(pid_t pid, const char *comm)
{
        pid = fake_process_new(pid, comm, 0, 1);
        fake_task(pid)->kthread = true;
        proc_sync(pid);
        return pid;
}

/* What a clone of C starts with (sched_fork()). */
static void forked(const FakeTask *c, FakeTask *t)
{
        t->ppid = c->ppid;
        t->uid = c->uid;
        t->gid = c->gid;
        t->kthread = c->kthread;
        memcpy(t->comm, c->comm, sizeof(t->comm));
        t->policy = c->policy;
        t->nice = c->nice;
        t->rt_priority = c->rt_priority;
        t->slice_ns = c->slice_ns;
        t->util_min = c->util_min;
        t->util_max = c->util_max;
        t->timer_slack_ns = c->timer_slack_ns;
        t->ioprio = c->ioprio;
        t->cookie = c->cookie;
        t->affinity = c->affinity;
        t->cpuset = c->cpuset;
        t->rttime = fake_task(c->pid)->rttime; /* a new process: its creator's limits */
        if (c->reset_on_fork) {
                if (!sched_policy_is_fair(t->policy)) {
                        t->policy = SCHED_OTHER;
                        t->rt_priority = 0;
                        t->nice = 0;
                } else if (t->nice < 0)
                        t->nice = 0;
                t->slice_ns = fk.base_slice_ns;
                t->util_min = 0;
                t->util_max = 1024;
        }
}

pid_t fake_thread_new(pid_t creator)
{
        const FakeTask *c = fake_task(creator);
        FakeTask *t;
        pid_t tid;

        CHECK(c);
        tid = next_free_pid();
        c = fake_task(creator);
        t = task_add(tid, c->pid);
        forked(c, t);
        t->starttime = fk.next_starttime++;
        proc_sync(t->pid);
        return tid;
}

void fake_thread_exit(pid_t tid)
{
        FakeTask *t = fake_task(tid);
        pid_t pid;

        if (!t)
                return;
        pid = t->pid;
        fk.used[t - fk.tasks] = false;
        proc_sync(pid);
}

void fake_process_exit(pid_t pid)
{
        pid_t tids[FAKE_TASKS_MAX];
        size_t n = fake_threads(pid, tids, ELEMENTSOF(tids));

        for (size_t i = 0; i < n; i++)
                fk.used[fake_task(tids[i]) - fk.tasks] = false;
        proc_sync(pid);
}

void fake_process_setuid(pid_t pid, uint32_t uid)
{
        pid_t tids[FAKE_TASKS_MAX];
        size_t n = fake_threads(pid, tids, ELEMENTSOF(tids));

        for (size_t i = 0; i < n; i++)
                fake_task(tids[i])->uid = uid;
        proc_sync(pid);
}

void fake_process_exec(pid_t pid, const char *comm)
{
        pid_t tids[FAKE_TASKS_MAX];
        size_t n = fake_threads(pid, tids, ELEMENTSOF(tids));
        FakeTask *l = fake_task(pid);

        CHECK(l && l->pid == pid);
        for (size_t i = 0; i < n; i++)
                if (tids[i] != pid)
                        fk.used[fake_task(tids[i]) - fk.tasks] = false;
        snprintf(l->comm, sizeof(l->comm), "%s", comm);
        proc_sync(pid);
}

void fake_pid_reuse(pid_t pid, const char *comm)
{
        fake_process_exit(pid);
        (void)fake_process_new(pid, comm, 1, 1);
}

void fake_hook_set(fake_hook_t hook, void *userdata)
{
        fk.hook = hook;
        fk.userdata = userdata;
}

unsigned fake_calls(FakeOp op)
{
        return fk.calls[op];
}

static int done(FakeOp op, pid_t tid, int r)
{
        fk.calls[op]++;
        if (fk.hook)
                fk.hook(op, tid, r, fk.userdata);
        return r;
}

/* ---- the seam ---- */

static FakeTask *living(pid_t tid)
{
        return tid > 0 ? fake_task(tid) : NULL;
}

static int fake_sched_getattr(pid_t tid, struct ln_sched_attr *a, unsigned size)
{
        const FakeTask *t = living(tid);

        if (size < SCHED_ATTR_SIZE_VER0 || size > sizeof(*a))
                return done(FAKE_GETATTR, tid, -EINVAL);
        memset(a, 0, sizeof(*a));
        if (!t)
                return done(FAKE_GETATTR, tid, -ESRCH);
        a->size = MIN(size, (unsigned)FAKE_ATTR_SIZE);
        a->sched_policy = (uint32_t)t->policy;
        a->sched_flags = t->reset_on_fork ? LN_SCHED_FLAG_RESET_ON_FORK : 0;
        a->sched_nice = t->nice;
        a->sched_priority = t->rt_priority;
        a->sched_runtime = sched_policy_is_fair(t->policy) ? t->slice_ns : 0;
        a->sched_util_min = t->util_min;
        a->sched_util_max = t->util_max;
        return done(FAKE_GETATTR, tid, 0);
}

static int setattr_check(const FakeTask *t, const struct ln_sched_attr *a)
{
        const uint64_t known = LN_SCHED_FLAG_RESET_ON_FORK | LN_SCHED_FLAG_KEEP_ALL |
                               LN_SCHED_FLAG_UTIL_CLAMP_MIN | LN_SCHED_FLAG_UTIL_CLAMP_MAX;
        bool keep_policy = a->sched_flags & LN_SCHED_FLAG_KEEP_POLICY;
        int policy = keep_policy ? t->policy : (int)a->sched_policy;

        if (a->size > FAKE_ATTR_SIZE)
                return -E2BIG;
        if (a->sched_flags & ~known)
                return -EINVAL;
        if (!(a->sched_flags & LN_SCHED_FLAG_KEEP_PARAMS)) {
                bool rt = policy == SCHED_FIFO || policy == SCHED_RR;

                if (!rt && !sched_policy_is_fair(policy))
                        return -EINVAL;
                if (rt != (a->sched_priority != 0) || a->sched_priority > 99)
                        return -EINVAL;
                if (!rt && (a->sched_nice < -20 || a->sched_nice > 19))
                        return -EINVAL;
        }
        if (((a->sched_flags & LN_SCHED_FLAG_UTIL_CLAMP_MIN) && a->sched_util_min > 1024) ||
            ((a->sched_flags & LN_SCHED_FLAG_UTIL_CLAMP_MAX) && a->sched_util_max > 1024))
                return -EINVAL;
        return 0;
}

static int fake_sched_setattr(pid_t tid, struct ln_sched_attr *a)
{
        FakeTask *t = living(tid);
        int r;

        if (!t)
                return done(FAKE_SETATTR, tid, -ESRCH);
        r = setattr_check(t, a);
        if (r < 0)
                return done(FAKE_SETATTR, tid, r);
        if (!(a->sched_flags & LN_SCHED_FLAG_KEEP_POLICY)) {
                t->policy = (int)a->sched_policy;
                t->reset_on_fork = a->sched_flags & LN_SCHED_FLAG_RESET_ON_FORK;
                /* A real-time task has no timer slack; back in the fair
                 * class it gets its default (6.7 on). */
                if (!sched_policy_is_fair(t->policy))
                        t->timer_slack_ns = 0;
                else if (t->timer_slack_ns == 0)
                        t->timer_slack_ns = FAKE_TIMER_SLACK_DEFAULT;
        }
        if (!(a->sched_flags & LN_SCHED_FLAG_KEEP_PARAMS)) {
                t->rt_priority = a->sched_priority;
                /* SCHED_IDLE keeps its nice (6.18). */
                if (sched_policy_is_fair(t->policy) && t->policy != SCHED_IDLE)
                        t->nice = a->sched_nice;
                if (sched_policy_is_fair(t->policy))
                        t->slice_ns = a->sched_runtime ?: fk.base_slice_ns;
        }
        if (a->sched_flags & LN_SCHED_FLAG_UTIL_CLAMP_MIN)
                t->util_min = a->sched_util_min;
        if (a->sched_flags & LN_SCHED_FLAG_UTIL_CLAMP_MAX)
                t->util_max = a->sched_util_max;
        return done(FAKE_SETATTR, tid, 0);
}

static int fake_set_nice(pid_t tid, int nice)
{
        FakeTask *t = living(tid);

        if (!t)
                return done(FAKE_SET_NICE, tid, -ESRCH);
        t->nice = CLAMP(nice, -20, 19);
        return done(FAKE_SET_NICE, tid, 0);
}

static int fake_ioprio_get(pid_t tid, int *ret)
{
        const FakeTask *t = living(tid);

        if (!t)
                return done(FAKE_IOPRIO_GET, tid, -ESRCH);
        *ret = t->ioprio;
        return done(FAKE_IOPRIO_GET, tid, 0);
}

static int fake_ioprio_set(pid_t tid, int ioprio)
{
        FakeTask *t = living(tid);

        if (!t)
                return done(FAKE_IOPRIO_SET, tid, -ESRCH);
        if (ioprio < 0 || LN_IOPRIO_CLASS(ioprio) > LN_IOPRIO_CLASS_IDLE ||
            (ioprio >> LN_IOPRIO_CLASS_SHIFT) > LN_IOPRIO_CLASS_IDLE)
                return done(FAKE_IOPRIO_SET, tid, -EINVAL);
        t->ioprio = ioprio;
        return done(FAKE_IOPRIO_SET, tid, 0);
}

static int fake_slack_read(pid_t tid, int64_t *ret)
{
        const FakeTask *t = living(tid);

        if (!t)
                return done(FAKE_SLACK_READ, tid, -ESRCH);
        *ret = t->timer_slack_ns;
        return done(FAKE_SLACK_READ, tid, 0);
}

static int fake_slack_write(pid_t tid, int64_t ns)
{
        FakeTask *t = living(tid);

        if (!t)
                return done(FAKE_SLACK_WRITE, tid, -ESRCH);
        /* 0: the task's default slack; a real-time task keeps none. */
        t->timer_slack_ns = !sched_policy_is_fair(t->policy) ? 0 : ns ?: FAKE_TIMER_SLACK_DEFAULT;
        return done(FAKE_SLACK_WRITE, tid, 0);
}

static int fake_oom_read(pid_t tid, int64_t *ret)
{
        const FakeTask *t = living(tid);

        if (!t)
                return done(FAKE_OOM_READ, tid, -ESRCH);
        *ret = fake_task(t->pid)->oom_score_adj;
        return done(FAKE_OOM_READ, tid, 0);
}

static int fake_oom_write(pid_t tid, int64_t value)
{
        FakeTask *t = living(tid);

        if (!t)
                return done(FAKE_OOM_WRITE, tid, -ESRCH);
        if (value < OOM_SCORE_ADJ_MIN || value > OOM_SCORE_ADJ_MAX)
                return done(FAKE_OOM_WRITE, tid, -EINVAL);
        fake_task(t->pid)->oom_score_adj = value;
        return done(FAKE_OOM_WRITE, tid, 0);
}

/* prlimit() of the process PID (a thread's tid works too, as in the
 * kernel); only RLIMIT_RTTIME is modelled. A soft limit above the hard
 * one is EINVAL; anything else is allowed (root). */
static int fake_prlimit(pid_t pid, int resource, const struct rlimit *new_limit,
                        struct rlimit *old_limit)
{
        FakeTask *t = living(pid);

        if (!t)
                return done(FAKE_PRLIMIT, pid, -ESRCH);
        if (resource != RLIMIT_RTTIME)
                return done(FAKE_PRLIMIT, pid, -EINVAL);
        t = fake_task(t->pid);
        if (new_limit && new_limit->rlim_cur > new_limit->rlim_max)
                return done(FAKE_PRLIMIT, pid, -EINVAL);
        if (old_limit)
                *old_limit = t->rttime;
        if (new_limit)
                t->rttime = *new_limit;
        return done(FAKE_PRLIMIT, pid, 0);
}

static int fake_core_get(pid_t tid, uint64_t *ret)
{
        const FakeTask *t = living(tid);

        if (!t)
                return done(FAKE_CORE_GET, tid, -ESRCH);
        *ret = t->cookie;
        return done(FAKE_CORE_GET, tid, 0);
}

static int fake_core_create(pid_t tid)
{
        FakeTask *t = living(tid);

        if (!t)
                return done(FAKE_CORE_CREATE, tid, -ESRCH);
        t->cookie = fk.next_cookie++;
        return done(FAKE_CORE_CREATE, tid, 0);
}

static int fake_core_share(pid_t from, pid_t tid)
{
        const FakeTask *f = living(from);
        FakeTask *t = living(tid);

        if (!f || !t)
                return done(FAKE_CORE_SHARE, tid, -ESRCH);
        t->cookie = f->cookie;
        return done(FAKE_CORE_SHARE, tid, 0);
}

static int fake_core_clear(pid_t tid)
{
        FakeTask *t = living(tid);

        if (!t)
                return done(FAKE_CORE_CLEAR, tid, -ESRCH);
        t->cookie = 0;
        return done(FAKE_CORE_CLEAR, tid, 0);
}

/* A pidfd is a real descriptor (so that close() works), standing for the
 * process PID had when it was opened. */
static int fake_pidfd_open(pid_t pid)
{
        const FakeTask *t = living(pid);
        int fd;

        if (pid <= 0)
                return done(FAKE_PIDFD_OPEN, pid, -EINVAL);
        if (!t)
                return done(FAKE_PIDFD_OPEN, pid, -ESRCH);
        if (t->pid != pid)
                return done(FAKE_PIDFD_OPEN, pid, -EINVAL); /* a thread, not a leader */
        fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        CHECK(fd >= 0);
        for (size_t i = 0; i < FAKE_PIDFDS_MAX; i++)
                if (fk.pidfds[i].fd == fd)
                        fk.pidfds[i].fd = -1; /* closed by the caller and reused */
        for (size_t i = 0; i < FAKE_PIDFDS_MAX; i++)
                if (fk.pidfds[i].fd < 0) {
                        fk.pidfds[i] = (FakePidfd){ fd, pid, t->starttime };
                        return done(FAKE_PIDFD_OPEN, pid, fd);
                }
        CHECK(!"too many fake pidfds");
        return -EMFILE;
}

static int fake_pidfd_alive(int fd)
{
        for (size_t i = 0; i < FAKE_PIDFDS_MAX; i++)
                if (fd >= 0 && fk.pidfds[i].fd == fd) {
                        const FakeTask *t = living(fk.pidfds[i].pid);
                        bool alive = t && t->starttime == fk.pidfds[i].starttime;

                        return done(FAKE_PIDFD_ALIVE, fk.pidfds[i].pid, alive);
                }
        return done(FAKE_PIDFD_ALIVE, 0, -EBADF);
}

/* The /proc files of one number the model has. */
static int fake_proc_number_read(const char *proc_root, pid_t tid, const char *name, int64_t *ret)
{
        if (streq(name, "timerslack_ns"))
                return fake_slack_read(tid, ret);
        if (streq(name, "oom_score_adj"))
                return fake_oom_read(tid, ret);
        return -ENOENT;
}

static int fake_proc_number_write(const char *proc_root, pid_t tid, const char *name,
                                  int64_t value)
{
        if (streq(name, "timerslack_ns"))
                return fake_slack_write(tid, value);
        if (streq(name, "oom_score_adj"))
                return fake_oom_write(tid, value);
        return -ENOENT;
}

/* As the kernel: the CPUs asked for within the cpuset; asking for none of
 * them is EINVAL. */
static int fake_affinity_get(pid_t tid, cpu_set_t *ret)
{
        const FakeTask *t = living(tid);

        if (!t)
                return done(FAKE_AFFINITY_GET, tid, -ESRCH);
        CPU_AND(ret, &t->affinity, &t->cpuset);
        return done(FAKE_AFFINITY_GET, tid, 0);
}

static int fake_affinity_set(pid_t tid, const cpu_set_t *cpus)
{
        FakeTask *t = living(tid);
        cpu_set_t both;

        if (!t)
                return done(FAKE_AFFINITY_SET, tid, -ESRCH);
        CPU_AND(&both, cpus, &t->cpuset);
        if (CPU_COUNT(&both) == 0)
                return done(FAKE_AFFINITY_SET, tid, -EINVAL);
        t->affinity = *cpus;
        return done(FAKE_AFFINITY_SET, tid, 0);
}

/* The model is never switched out around a read. */
static long fake_self_switches(void)
{
        return 0;
}

const KernelOps fake_kernel_ops = {
        .sched_getattr = fake_sched_getattr,
        .sched_setattr = fake_sched_setattr,
        .set_nice = fake_set_nice,
        .ioprio_get = fake_ioprio_get,
        .ioprio_set = fake_ioprio_set,
        .proc_number_read = fake_proc_number_read,
        .proc_number_write = fake_proc_number_write,
        .core_sched_get = fake_core_get,
        .core_sched_create = fake_core_create,
        .core_sched_share = fake_core_share,
        .core_sched_clear = fake_core_clear,
        .affinity_get = fake_affinity_get,
        .affinity_set = fake_affinity_set,
        .pidfd_open = fake_pidfd_open,
        .pidfd_alive = fake_pidfd_alive,
        .prlimit = fake_prlimit,
        .self_switches = fake_self_switches,
};
