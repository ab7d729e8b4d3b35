/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit test for daemon/apply/apply.c (and the ancestor cache): apply to every
 * thread, re-apply on change, respect a change made by someone else,
 * restore when the rule goes away, leave kernel threads and RT tasks alone,
 * dry run. Every case runs on the fake kernel (tests/unit/fake-kernel.h) as
 * any user, with the races as scripted cases (the task changes between read
 * and write, a thread appears during an apply, a pid is reused between
 * evaluation and settle); then as root on real child processes (restoring
 * a lower nice needs CAP_SYS_NICE). */
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/watch/ancestors.h"
#include "daemon/apply/apply.h"
#include "daemon/watch/idcache.h"
#include "lib/kernel-ops.h"
#include "lib/macro.h"
#include "lib/time-util.h"
#include "tests/unit/fake-kernel.h"

static const KernelOps *K;      /* the kernel under test: real or fake */
static bool on_fake;            /* K is the fake: kids and checks go to its model */
static const char *proc;        /* its proc root; NULL: /proc */
static pid_t fake_parent;       /* the fake kids' parent, named as this program */

static Policy *load(const char *text)
{
        Policy *p = NULL;
        Diagnostics d = {};

        assert(policy_load_string("test.policy", text, strlen(text), &p, &d) == 0);
        assert(diagnostics_count(&d, DIAG_ERROR) == 0);
        diagnostics_done(&d);
        return p;
}

static void *idle_thread(void *arg)
{
        for (;;)
                pause();
        return NULL;
}

/* A child named NAME with one extra thread; returns its pid once both
 * threads exist. */
static pid_t kid(const char *name)
{
        int fd[2];
        char c;
        pid_t p;

        if (on_fake)
                return fake_process_new(0, name, fake_parent, 2);
        assert(pipe(fd) == 0);
        p = fork();
        assert(p >= 0);
        if (p == 0) {
                pthread_t t;
                /* Goes with the test, also when an assertion aborts it:
                 * else it keeps meson's output pipe open until the timeout. */
                if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
                        _exit(1);
                prctl(PR_SET_NAME, name);
                if (pthread_create(&t, NULL, idle_thread, NULL) != 0)
                        _exit(1);
                if (write(fd[1], "x", 1) != 1)
                        _exit(1);
                for (;;)
                        pause();
        }
        close(fd[1]);
        assert(read(fd[0], &c, 1) == 1);
        close(fd[0]);
        return p;
}

static void kill_kid(pid_t p)
{
        if (on_fake) {
                fake_process_exit(p);
                return;
        }
        kill(p, SIGKILL);
        waitpid(p, NULL, 0);
}

static int nice_of(pid_t tid)
{
        if (on_fake)
                return fake_task(tid)->nice;
        errno = 0;
        int n = getpriority(PRIO_PROCESS, (id_t)tid);
        assert(errno == 0);
        return n;
}

static int policy_of(pid_t tid)
{
        return on_fake ? fake_task(tid)->policy : sched_getscheduler(tid);
}

static int state_of(pid_t tid, SchedState *ret)
{
        return sched_state_read_ops(K, tid, sched_base_slice(), ret);
}

/* Someone else (renice, chrt, the task itself) changes TID. */
static int other_nice(pid_t tid, int nice)
{
        if (on_fake) {
                fake_task(tid)->nice = nice;
                return 0;
        }
        return setpriority(PRIO_PROCESS, (id_t)tid, nice);
}

static int other_fifo(pid_t tid)
{
        struct sched_param sp = { .sched_priority = 1 };

        if (on_fake) {
                fake_task(tid)->policy = SCHED_FIFO;
                fake_task(tid)->rt_priority = 1;
                return 0;
        }
        return sched_setscheduler(tid, SCHED_FIFO, &sp);
}

static size_t threads_of(pid_t pid, pid_t **ret)
{
        size_t n = 0;
        assert(proc_threads(proc, pid, ret, &n) == 0);
        return n;
}

static void init(Applier *a, TaskTable **t, bool dry)
{
        ApplyContext ctx = { .kernel = K, .backend = LATENCY_BACKEND_SLICE, .dry_run = dry,
                             .proc_root = proc };

        assert(task_table_new(t) == 0);
        applier_init(a, *t, &ctx);
}

static void test_apply_change_restore(void)
{
        _cleanup_(task_table_freep) TaskTable *tt = NULL;
        _cleanup_(policy_freep) Policy *p1 = NULL, *p2 = NULL, *p3 = NULL;
        _cleanup_free_ pid_t *tids = NULL;
        Applier a;
        pid_t k = kid("lt-apply-kid");
        size_t n = threads_of(k, &tids);
        Task *t;

        assert(n == 2);
        init(&a, &tt, false);
        p1 = load("[Rule kid]\nMatch = comm:lt-apply-kid\nNice = 4\n");
        p2 = load("[Rule kid]\nMatch = comm:lt-apply-kid\nNice = 6\n");
        p3 = load("[Rule other]\nMatch = comm:nothing-like-it\nNice = 1\n");

        /* no policy: nothing */
        assert(applier_process(&a, k) == 0);
        assert(task_table_size(tt) == 0);

        applier_set_policy(&a, p1);
        assert(applier_process(&a, k) == 0);
        for (size_t i = 0; i < n; i++) {
                assert(nice_of(tids[i]) == 4);
                t = task_table_get(tt, tids[i]);
                assert(t && t->pid == k && streq(t->rule, "kid"));
                assert(t->claim.applied_mask & SETTING_BIT(SETTING_NICE));
                assert(t->claim.orig.nice == 0 && !t->user_owned);
        }
        assert(task_table_has_process(tt, k));
        assert(a.counters.n_applied == 2);

        /* same decision again: nothing to do */
        assert(applier_process(&a, k) == 0);
        assert(a.counters.n_applied == 2);

        /* the rule changes */
        applier_set_policy(&a, p2);
        assert(applier_process(&a, k) == 0);
        assert(nice_of(tids[0]) == 6 && nice_of(tids[1]) == 6);
        assert(task_table_get(tt, tids[0])->claim.orig.nice == 0);

        /* the rule goes away: originals back, entries gone */
        applier_set_policy(&a, p3);
        assert(applier_process(&a, k) == 0);
        assert(nice_of(tids[0]) == 0 && nice_of(tids[1]) == 0);
        assert(task_table_size(tt) == 0);
        assert(a.counters.n_restored == 2);

        kill_kid(k);
        /* gone: fine, and nothing is left behind */
        applier_set_policy(&a, p1);
        assert(applier_process(&a, k) == 0);
        assert(task_table_size(tt) == 0);
}

static void test_manual_change(void)
{
        _cleanup_(task_table_freep) TaskTable *tt = NULL;
        _cleanup_(policy_freep) Policy *p1 = NULL, *p2 = NULL;
        _cleanup_free_ pid_t *tids = NULL;
        Applier a;
        pid_t k = kid("lt-apply-man");

        assert(threads_of(k, &tids) == 2);
        init(&a, &tt, false);
        p1 = load("[Rule m]\nMatch = comm:lt-apply-man\nNice = 4\n");
        p2 = load("[Rule m]\nMatch = comm:lt-apply-man\nNice = 7\n");
        applier_set_policy(&a, p1);
        assert(applier_process(&a, k) == 0);
        assert(nice_of(tids[0]) == 4);

        /* someone renices the main thread */
        assert(other_nice(tids[0], 10) == 0);
        applier_set_policy(&a, p2);
        assert(applier_process(&a, k) == 0);
        assert(nice_of(tids[0]) == 10);                /* theirs now */
        assert(task_table_get(tt, tids[0])->user_owned);
        assert(nice_of(tids[1]) == 7);                 /* the other thread is still ours */
        assert(task_table_n_user_owned(tt) == 1);

        /* restore_all leaves the user-owned one alone */
        assert(applier_restore_all(&a) == 1);
        assert(nice_of(tids[0]) == 10 && nice_of(tids[1]) == 0);
        assert(task_table_size(tt) == 0);

        /* without RespectManualChanges it is taken back */
        a.respect_manual_changes = false;
        assert(applier_process(&a, k) == 0);
        assert(nice_of(tids[0]) == 7);
        assert(other_nice(tids[0], 11) == 0);
        applier_set_policy(&a, p1);
        assert(applier_process(&a, k) == 0);
        assert(nice_of(tids[0]) == 4);
        kill_kid(k);
}

static void test_untouchable(void)
{
        _cleanup_(task_table_freep) TaskTable *tt = NULL;
        _cleanup_(policy_freep) Policy *p = NULL;
        Applier a;
        pid_t k;

        init(&a, &tt, false);
        p = load("[Rule all]\nMatch = comm:*\nNice = 3\n");
        applier_set_policy(&a, p);

        /* kthreadd */
        assert(applier_process(&a, 2) == 0);
        assert(nice_of(2) == 0 && task_table_size(tt) == 0);

        /* an RT task */
        k = kid("lt-apply-rt");
        if (other_fifo(k) == 0) {
                _cleanup_free_ pid_t *tids = NULL;
                threads_of(k, &tids);
                assert(applier_process(&a, k) == 0);
                assert(!task_table_get(tt, k));
                assert(nice_of(k) == 0);
                assert(task_table_get(tt, tids[1])); /* the other thread is still fair */
                assert(nice_of(tids[1]) == 3);
                (void)applier_restore_all(&a);
        } else
                printf("RT part skipped: %m\n");
        kill_kid(k);
}

static void test_dry_run(void)
{
        _cleanup_(task_table_freep) TaskTable *tt = NULL;
        _cleanup_(policy_freep) Policy *p = NULL;
        Applier a;
        pid_t k = kid("lt-apply-dry");

        init(&a, &tt, true);
        p = load("[Rule d]\nMatch = comm:lt-apply-dry\nNice = 5\nPolicy = batch\n");
        applier_set_policy(&a, p);
        assert(applier_process(&a, k) == 0);
        assert(nice_of(k) == 0 && policy_of(k) == SCHED_OTHER);
        assert(task_table_size(tt) == 2);
        assert(task_table_get(tt, k)->claim.applied_mask == 0);
        assert(applier_restore_all(&a) == 0);
        kill_kid(k);
}

static void test_ancestors(void)
{
        _cleanup_(task_table_freep) TaskTable *tt = NULL;
        _cleanup_(policy_freep) Policy *p = NULL;
        _cleanup_(ancestor_cache_freep) AncestorCache *c = NULL;
        const TaskNames *names;
        size_t n;
        char me[16] = {};
        char text[256];
        Applier a;
        pid_t k;

        assert(prctl(PR_GET_NAME, me) == 0);
        assert(ancestor_cache_new(NULL, &c) == 0);
        assert(ancestor_cache_get(c, getpid(), &names, &n) == 0);
        assert(n >= 2); /* us ... init */
        assert(streq(names[0].comm, me));
        assert(ancestor_cache_size(c) == n);
        /* cached: same answer without reading */
        assert(ancestor_cache_get(c, getpid(), &names, &n) == 0 && streq(names[0].comm, me));
        /* our own exit drops us */
        ancestor_cache_exit(c, getpid());
        assert(ancestor_cache_size(c) == n - 1);
        ancestor_cache_flush(c);
        assert(ancestor_cache_size(c) == 0);

        if (on_fake) { /* the kid's parent is fake_parent, named as we are */
                ancestor_cache_free(c);
                assert(ancestor_cache_new(proc, &c) == 0);
        }
        init(&a, &tt, false);
        a.ancestors = c;
        snprintf(text, sizeof(text), "[Rule a]\nMatch = parent:%s && comm:lt-apply-anc\nNice = 2\n",
                 me);
        p = load(text);
        applier_set_policy(&a, p);
        assert(a.read_plan & PROC_READ_ANCESTORS);
        k = kid("lt-apply-anc");
        assert(applier_process(&a, k) == 0);
        assert(nice_of(k) == 2);
        (void)applier_restore_all(&a);
        assert(nice_of(k) == 0);
        kill_kid(k);
}

static void test_task_settings(void)
{
        MatchResult m = {};

        m.settings.mask = SETTING_BIT(SETTING_NICE) | SETTING_BIT(SETTING_CPU_WEIGHT);
        assert(applier_task_settings(&m).mask == 0); /* nothing matched */
        m.n_matched = 1;
        assert(applier_task_settings(&m).mask == SETTING_BIT(SETTING_NICE));
}

/* What the applier reads follows the keys the rules use, not the text of
 * the policy files (comments, patterns and rule names do not count). */
static void test_read_flags(void)
{
        _cleanup_(task_table_freep) TaskTable *tt = NULL;
        Applier a;
        Policy *p;

        init(&a, &tt, false);
        p = load("# user:root group:wheel cgroup:/x unit:y parent:z ancestor:w\n"
                 "[Rule user:x]\nMatch = name:\"user:root\"\nNice = 1\n");
        applier_set_policy(&a, p);
        assert(!a.uses_ids);
        assert(a.read_plan == (PROC_READ_COMM | PROC_READ_CMDLINE | PROC_READ_EXE));
        policy_free(p);

        p = load("[Rule c]\nMatch = comm:x\nNice = 1\n");
        applier_set_policy(&a, p);
        assert(a.read_plan == PROC_READ_COMM);
        policy_free(p);

        p = load("[Rule c]\nMatch = comm:x || !group:adm\nNice = 1\n[Unit x.service]\nCPUWeight = 5\n");
        applier_set_policy(&a, p);
        assert(a.uses_ids);
        assert(a.read_plan ==
               (PROC_READ_COMM | PROC_READ_IDS | PROC_READ_NAMES | PROC_READ_CGROUP));
        policy_free(p);

        p = load("[Rule c]\nMatch = exe:/x && unit:y.service && ancestor:z\nNice = 1\n");
        applier_set_policy(&a, p);
        assert(a.read_plan ==
               (PROC_READ_ANCESTORS | PROC_READ_STAT | PROC_READ_EXE | PROC_READ_CGROUP));
        policy_free(p);

        applier_set_policy(&a, NULL);
        assert(a.read_plan == 0 && !a.uses_ids);
}

/* user:/group: predicates through the id cache: looked up once, then hits
 * (a matched process is read twice, the second time with its start time:
 * apply.c, "Pid reuse"). */
static void test_user_names(void)
{
        _cleanup_(task_table_freep) TaskTable *tt = NULL;
        _cleanup_(policy_freep) Policy *p = NULL;
        _cleanup_(id_cache_freep) IdCache *ids = NULL;
        Applier a;
        pid_t k = kid("lt-apply-usr");
        IdCacheStats st;

        init(&a, &tt, false);
        assert(id_cache_new(NULL, NULL, &ids) == 0);
        a.ids = ids;
        p = load("[Rule u]\nMatch = user:root && group:root && comm:lt-apply-usr\nNice = 2\n");
        applier_set_policy(&a, p);
        assert(a.uses_ids && (a.read_plan & PROC_READ_IDS));
        assert(applier_process(&a, k) == 0);
        assert(nice_of(k) == 2);
        st = id_cache_stats(ids);
        assert(st.n_lookups == 2 && st.n_hits == 2);
        (void)applier_restore_all(&a);
        assert(nice_of(k) == 0);
        assert(applier_process(&a, k) == 0);
        assert(nice_of(k) == 2);
        st = id_cache_stats(ids);
        assert(st.n_lookups == 2 && st.n_hits == 6);
        (void)applier_restore_all(&a);
        kill_kid(k);
}

static uint64_t slack_of(pid_t tid)
{
        char path[64];
        unsigned long long v = 0;
        FILE *f;

        if (on_fake)
                return fake_task(tid)->timer_slack_ns;
        snprintf(path, sizeof(path), "/proc/%d/timerslack_ns", (int)tid);
        f = fopen(path, "re");
        assert(f);
        assert(fscanf(f, "%llu", &v) == 1);
        fclose(f);
        return v;
}

static void set_slack(pid_t tid, uint64_t ns)
{
        char path[64];
        FILE *f;

        if (on_fake) {
                fake_task(tid)->timer_slack_ns = ns;
                return;
        }
        snprintf(path, sizeof(path), "/proc/%d/timerslack_ns", (int)tid);
        f = fopen(path, "we");
        assert(f);
        assert(fprintf(f, "%llu", (unsigned long long)ns) > 0);
        assert(fclose(f) == 0);
}

/* The sched state is read once before and once after applying, the timer
 * slack file only when TimerSlack is involved: what is remembered must
 * still tell latniced's own changes from someone else's. */
static void test_timer_slack(void)
{
        _cleanup_(task_table_freep) TaskTable *tt = NULL;
        _cleanup_(policy_freep) Policy *p1 = NULL, *p2 = NULL, *p3 = NULL, *p4 = NULL;
        _cleanup_free_ pid_t *tids = NULL;
        Applier a;
        pid_t k = kid("lt-apply-slack");
        uint64_t own;
        Task *t;

        assert(threads_of(k, &tids) == 2);
        init(&a, &tt, false);
        p1 = load("[Rule s]\nMatch = comm:lt-apply-slack\nNice = 3\n");
        p2 = load("[Rule s]\nMatch = comm:lt-apply-slack\nNice = 3\nTimerSlack = 7us\n");
        p3 = load("[Rule s]\nMatch = comm:lt-apply-slack\nNice = 5\nTimerSlack = 7us\n");
        p4 = load("[Rule s]\nMatch = comm:lt-apply-slack\nNice = 5\n");

        /* The thread's own slack, set before latniced touches it. */
        set_slack(tids[1], 123456);
        own = slack_of(tids[0]);
        applier_set_policy(&a, p1);
        assert(applier_process(&a, k) == 0);
        assert(nice_of(k) == 3 && slack_of(tids[1]) == 123456);

        /* TimerSlack added to managed threads: their slack then is the original. */
        applier_set_policy(&a, p2);
        assert(applier_process(&a, k) == 0);
        assert(slack_of(tids[0]) == 7000 && slack_of(tids[1]) == 7000);
        t = task_table_get(tt, tids[1]);
        assert(t && t->claim.orig.timer_slack_ns == 123456 &&
               t->claim.expected.timer_slack_ns == 7000);
        assert(t->claim.orig.nice == 0);

        /* Another change: latniced's own slack is not mistaken for someone else's. */
        applier_set_policy(&a, p3);
        assert(applier_process(&a, k) == 0);
        assert(nice_of(tids[0]) == 5 && nice_of(tids[1]) == 5);
        assert(task_table_n_user_owned(tt) == 0);

        /* TimerSlack dropped: the original slack comes back, nice stays. */
        applier_set_policy(&a, p4);
        assert(applier_process(&a, k) == 0);
        assert(slack_of(tids[0]) == own && slack_of(tids[1]) == 123456);
        assert(nice_of(tids[1]) == 5 && task_table_n_user_owned(tt) == 0);

        /* Someone else changes the slack latniced set: the thread is theirs. */
        applier_set_policy(&a, p3);
        assert(applier_process(&a, k) == 0);
        assert(slack_of(tids[1]) == 7000);
        set_slack(tids[1], 99000);
        applier_set_policy(&a, p2);
        assert(applier_process(&a, k) == 0);
        assert(task_table_get(tt, tids[1])->user_owned && nice_of(tids[1]) == 5);
        assert(nice_of(tids[0]) == 3 && !task_table_get(tt, tids[0])->user_owned);

        /* Ownership is per attribute: the slack is theirs, the nice latniced
         * set on that thread is still given back. */
        assert(applier_restore_all(&a) == 2);
        assert(nice_of(tids[0]) == 0 && slack_of(tids[0]) == own);
        assert(slack_of(tids[1]) == 99000 && nice_of(tids[1]) == 0);
        kill_kid(k);
}

/* A child named NAME that makes one more thread (from its main thread,
 * which the thread inherits from) whenever a byte arrives on *RET_CMD, and
 * answers with one on *RET_ACK; returns its pid once it waits. */
static pid_t thread_maker(const char *name, int *ret_cmd, int *ret_ack)
{
        int cmd[2], ack[2];
        char c;
        pid_t p;

        if (on_fake) {
                *ret_cmd = *ret_ack = -EBADF;
                return fake_process_new(0, name, fake_parent, 1);
        }
        assert(pipe(cmd) == 0 && pipe(ack) == 0);
        p = fork();
        assert(p >= 0);
        if (p == 0) {
                close(cmd[1]);
                close(ack[0]);
                prctl(PR_SET_NAME, name);
                if (write(ack[1], "x", 1) != 1)
                        _exit(1);
                while (read(cmd[0], &c, 1) == 1) {
                        pthread_t t;

                        if (pthread_create(&t, NULL, idle_thread, NULL) != 0 ||
                            write(ack[1], "x", 1) != 1)
                                _exit(1);
                }
                _exit(0);
        }
        close(cmd[0]);
        close(ack[1]);
        assert(read(ack[0], &c, 1) == 1);
        *ret_cmd = cmd[1];
        *ret_ack = ack[0];
        return p;
}

/* latniced changes a thread one attribute after another: a thread the
 * leader creates in between inherits some of the new values and keeps the
 * old ones of the rest. That thread is still latniced's to change (it was
 * taken for someone else's once, so PipeWire's data loop, made right after
 * exec, kept its timer slack in one run of bench/sched-effect.sh), and its
 * originals are the leader's. */
/* The main thread of thread_maker() K makes a thread. */
static void make_thread(pid_t k, int cmd, int ack)
{
        char c;

        if (on_fake) {
                (void)fake_thread_new(k);
                return;
        }
        assert(write(cmd, "t", 1) == 1 && read(ack, &c, 1) == 1);
}

static void test_thread_made_mid_apply(void)
{
        _cleanup_(task_table_freep) TaskTable *tt = NULL;
        _cleanup_(policy_freep) Policy *p = NULL;
        _cleanup_free_ pid_t *tids = NULL;
        Applier a;
        int cmd, ack;
        pid_t k = thread_maker("lt-apply-mid", &cmd, &ack);
        uint64_t own = slack_of(k);
        Task *t;

        init(&a, &tt, false);
        p = load("[Rule m]\nMatch = comm:lt-apply-mid\nNice = 3\nTimerSlack = 7us\n");
        applier_set_policy(&a, p);
        assert(applier_process(&a, k) == 0);
        assert(nice_of(k) == 3 && slack_of(k) == 7000);

        /* The leader as between latniced's sched_setattr() and its slack
         * write: the new nice, the old slack. It makes a thread then. */
        set_slack(k, own);
        make_thread(k, cmd, ack);
        set_slack(k, 7000);
        assert(threads_of(k, &tids) == 2);
        assert(nice_of(tids[1]) == 3 && slack_of(tids[1]) == own);

        assert(applier_thread(&a, k, tids[1]) == 0);
        t = task_table_get(tt, tids[1]);
        assert(t && !t->user_owned);
        assert(nice_of(tids[1]) == 3 && slack_of(tids[1]) == 7000);
        assert(t->claim.orig.nice == 0 && t->claim.orig.timer_slack_ns == own);

        /* A thread whose slack is neither latniced's nor the original is
         * someone else's, as before. */
        set_slack(k, 4242);
        make_thread(k, cmd, ack);
        set_slack(k, 7000);
        free(tids);
        tids = NULL;
        assert(threads_of(k, &tids) == 3);
        assert(applier_thread(&a, k, tids[2]) == 0);
        t = task_table_get(tt, tids[2]);
        assert(t && t->user_owned && slack_of(tids[2]) == 4242);

        /* Given back: each thread its originals. */
        assert(applier_restore_all(&a) == 2);
        assert(nice_of(tids[0]) == 0 && slack_of(tids[0]) == own);
        assert(nice_of(tids[1]) == 0 && slack_of(tids[1]) == own);
        close(cmd);
        close(ack);
        kill_kid(k);
}

/* main-thread: a process whose threads all carry its name (Debian 12's
 * PipeWire names its data thread as its main thread). A main-thread:no rule
 * changes the other threads, also one made later, never the main thread; a
 * main-thread:yes rule the main thread only, and a thread made after it
 * inherits the main thread's nice and gets its own back. */
static void test_main_thread(void)
{
        _cleanup_(task_table_freep) TaskTable *tt = NULL;
        _cleanup_(policy_freep) Policy *p = NULL;
        _cleanup_free_ pid_t *tids = NULL, *mtids = NULL;
        Applier a;
        int cmd, ack, mcmd, mack;
        pid_t k = thread_maker("lt-apply-mt", &cmd, &ack);
        pid_t m = thread_maker("lt-apply-mtm", &mcmd, &mack);
        int own = nice_of(k); /* 0, or what the test runs under (nice -n 10) */

        init(&a, &tt, false);
        p = load("[Rule data]\nMatch = comm:lt-apply-mt && main-thread:no\nNice = 4\n"
                 "[Rule main]\nMatch = comm:lt-apply-mtm && main-thread:yes\nNice = 6\n");
        applier_set_policy(&a, p);

        make_thread(k, cmd, ack);
        assert(threads_of(k, &tids) == 2);
        assert(applier_process(&a, k) == 0);
        assert(nice_of(k) == own && nice_of(tids[1]) == 4);
        assert(!task_table_get(tt, k));
        /* one more, made after: its own evaluation */
        make_thread(k, cmd, ack);
        free(tids);
        tids = NULL;
        assert(threads_of(k, &tids) == 3);
        assert(nice_of(tids[2]) == own);
        assert(applier_thread(&a, k, tids[2]) == 0);
        assert(nice_of(k) == own && nice_of(tids[1]) == 4 && nice_of(tids[2]) == 4);

        assert(applier_process(&a, m) == 0);
        assert(nice_of(m) == 6);
        make_thread(m, mcmd, mack);
        assert(threads_of(m, &mtids) == 2);
        assert(nice_of(mtids[1]) == 6); /* inherited from the main thread */
        assert(applier_thread(&a, m, mtids[1]) == 0);
        assert(nice_of(m) == 6 && nice_of(mtids[1]) == own);

        /* given back: every thread its own */
        (void)applier_restore_all(&a);
        for (size_t i = 0; i < 3; i++)
                assert(nice_of(tids[i]) == own);
        assert(nice_of(m) == own && nice_of(mtids[1]) == own);
        close(cmd);
        close(ack);
        close(mcmd);
        close(mack);
        kill_kid(k);
        kill_kid(m);
}

/* A child inherits its parent's attributes as they were at the fork: one
 * forked before latniced changed its parent, or by a parent whose exec
 * latniced never read (gone first), is evaluated at its fork, and so is
 * one whose fork event came within APPLIER_FORK_COPY_NSEC of the change
 * (the fork copied the parent when it began, the event is stamped when it
 * ends); one forked later is not read at all (its nice stays as it is,
 * even where a rule would change it). The kids are not really each
 * other's children:
 * applier_fork() only goes by the pids and the fork's time. */
static void test_fork_catch_up(void)
{
        _cleanup_(task_table_freep) TaskTable *tt = NULL;
        _cleanup_(policy_freep) Policy *p = NULL;
        Applier a;
        pid_t parent = kid("lt-fork-kid"), early = kid("lt-fork-kid"), late = kid("lt-fork-kid");
        pid_t during = kid("lt-fork-kid");
        pid_t orphan = kid("lt-fork-kid"), gone, of_gone = kid("lt-fork-kid");
        uint64_t before;

        init(&a, &tt, false);
        p = load("[Rule kid]\nMatch = comm:lt-fork-kid\nNice = 4\n");
        applier_set_policy(&a, p);

        /* Neither changed nor unread: the child is not read. */
        assert(applier_fork(&a, parent, parent, early, now_nsec(CLOCK_MONOTONIC)) == 0);
        assert(nice_of(early) == 0);

        before = now_nsec(CLOCK_MONOTONIC);
        assert(applier_process(&a, parent) == 0);
        assert(nice_of(parent) == 4);
        assert(applier_fork(&a, parent, parent, early, before) == 0);
        assert(nice_of(early) == 4);
        /* Stamped right after the change: its copy may predate it. */
        assert(applier_fork(&a, parent, parent, during, now_nsec(CLOCK_MONOTONIC)) == 0);
        assert(nice_of(during) == 4);
        assert(applier_fork(&a, parent, parent, late,
                            now_nsec(CLOCK_MONOTONIC) + APPLIER_FORK_COPY_NSEC) == 0);
        assert(nice_of(late) == 0);

        /* An exec handed on as gone, and one whose process was gone when read. */
        applier_exec_gone(&a, 999999);
        /* an exec storm's own gone processes, noted before the fork comes */
        for (pid_t storm = 1000000; storm < 1001000; storm++)
                applier_exec_gone(&a, storm);
        assert(applier_fork(&a, 999999, 999999, orphan, 0) == 0);
        assert(nice_of(orphan) == 4);
        gone = kid("lt-fork-kid");
        kill_kid(gone);
        assert(applier_exec(&a, gone) == 0);
        assert(applier_fork(&a, gone, gone, of_gone, 0) == 0);
        assert(nice_of(of_gone) == 4);

        (void)applier_restore_all(&a);
        kill_kid(parent);
        kill_kid(early);
        kill_kid(late);
        kill_kid(during);
        kill_kid(orphan);
        kill_kid(of_gone);
}

/* Give TID what a task cloned by a boosted thread starts with: the timer
 * slack as latniced left the creator (the kernel's reset-on-fork leaves
 * it), the nice reset to 0. */
static void set_inherited(pid_t tid, uint64_t slack)
{
        assert(other_nice(tid, 0) == 0);
        set_slack(tid, slack);
}

/* A boost never outlives its reason: a child of a boosted process is
 * evaluated at its fork, and what it has of the boost and its own rules do
 * not grant goes back to the parent's originals; so does a grandchild its
 * parent forked before that. The boost carries reset-on-fork, and the
 * parent's exit puts back its original flag. As in test_fork_catch_up(),
 * the kids only play parent and child. */
static void test_fork_inherit(void)
{
        _cleanup_(task_table_freep) TaskTable *tt = NULL;
        _cleanup_(policy_freep) Policy *p = NULL;
        Applier a;
        pid_t parent = kid("lt-inh-parent"), child = kid("lt-inh-child");
        pid_t early = kid("lt-inh-gchild"), late = kid("lt-inh-gchild");
        pid_t own = kid("lt-inh-own");
        uint64_t orig = slack_of(parent), before, taken;
        SchedState st;

        init(&a, &tt, false);
        p = load("[Rule parent]\nMatch = comm:lt-inh-parent\nNice = -3\nTimerSlack = 2us\n"
                 "[Rule own]\nMatch = comm:lt-inh-own\nNice = -2\n");
        applier_set_policy(&a, p);
        assert(applier_process(&a, parent) == 0);
        assert(nice_of(parent) == -3 && slack_of(parent) == 2000);
        assert(state_of(parent, &st) == 0 && (st.flags & LN_SCHED_FLAG_RESET_ON_FORK));

        /* A child no rule matches: everything back, and nothing kept. */
        set_inherited(child, 2000);
        set_inherited(early, 2000);
        set_inherited(late, 2000);
        before = now_nsec(CLOCK_MONOTONIC);
        assert(applier_fork(&a, parent, parent, child, now_nsec(CLOCK_MONOTONIC)) == 0);
        taken = now_nsec(CLOCK_MONOTONIC);
        assert(nice_of(child) == 0 && slack_of(child) == orig);
        assert(!task_table_get(tt, child));

        /* Its child forked before that has the boost too; one forked after
         * has what it got back, and is not read. */
        assert(applier_fork(&a, child, child, early, before) == 0);
        assert(slack_of(early) == orig);
        assert(applier_fork(&a, child, child, late, taken + 1) == 0);
        assert(slack_of(late) == 2000);

        /* A child its own rule matches keeps that, and only that. */
        set_inherited(own, 2000);
        assert(applier_fork(&a, parent, parent, own, now_nsec(CLOCK_MONOTONIC)) == 0);
        assert(nice_of(own) == -2 && slack_of(own) == orig);
        assert(task_table_get(tt, own) && task_table_get(tt, own)->claim.applied_mask ==
                                                  SETTING_BIT(SETTING_NICE));

        /* A child someone else changed since is theirs. */
        set_inherited(late, 77000);
        assert(applier_fork(&a, parent, parent, late, now_nsec(CLOCK_MONOTONIC)) == 0);
        assert(slack_of(late) == 77000);

        (void)applier_restore_all(&a);
        assert(nice_of(parent) == 0 && slack_of(parent) == orig);
        assert(state_of(parent, &st) == 0 && !(st.flags & LN_SCHED_FLAG_RESET_ON_FORK));
        assert(nice_of(own) == 0);
        kill_kid(parent);
        kill_kid(child);
        kill_kid(early);
        kill_kid(late);
        kill_kid(own);
}

/* A thread made by a boosted leader starts as the kernel's reset-on-fork
 * makes it (nice 0 where the leader had -3 from latniced and 2 before): not
 * someone else's change. latniced gives it the process's boost, with the
 * leader's originals, and gives those back. */
static void test_thread_after_reset(void)
{
        _cleanup_(task_table_freep) TaskTable *tt = NULL;
        _cleanup_(policy_freep) Policy *p = NULL;
        _cleanup_free_ pid_t *tids = NULL;
        Applier a;
        int cmd, ack;
        pid_t k = thread_maker("lt-apply-rof", &cmd, &ack);
        Task *t;

        assert(other_nice(k, 2) == 0);
        init(&a, &tt, false);
        p = load("[Rule r]\nMatch = comm:lt-apply-rof\nNice = -3\nSlice = 0.2ms\n");
        applier_set_policy(&a, p);
        assert(applier_process(&a, k) == 0);
        assert(nice_of(k) == -3);

        make_thread(k, cmd, ack);
        assert(threads_of(k, &tids) == 2);
        assert(nice_of(tids[1]) == 0);
        assert(applier_thread(&a, k, tids[1]) == 0);
        t = task_table_get(tt, tids[1]);
        assert(t && !t->user_owned && task_table_n_user_owned(tt) == 0);
        assert(nice_of(tids[1]) == -3 && t->claim.orig.nice == 2);

        assert(applier_restore_all(&a) == 2);
        assert(nice_of(tids[0]) == 2 && nice_of(tids[1]) == 2);
        close(cmd);
        close(ack);
        kill_kid(k);
}

/* ---- Races, scripted on the fake kernel (apply.c, "Races with the task"
 * and "Pid reuse"). ---- */

typedef struct Script {
        FakeOp op;              /* after the first call of OP on TID ... */
        pid_t tid;
        bool fired;
        void (*act)(struct Script *s);  /* ... this happens */
        pid_t made;             /* a thread it made */
} Script;

static void script_hook(FakeOp op, pid_t tid, int r, void *userdata)
{
        Script *s = userdata;

        if (s->fired || op != s->op || tid != s->tid || r < 0)
                return;
        s->fired = true;
        s->act(s);
}

/* Calls through the seam that change a task, so far. */
static unsigned fake_writes(void)
{
        return fake_calls(FAKE_SETATTR) + fake_calls(FAKE_SET_NICE) +
               fake_calls(FAKE_SLACK_WRITE) + fake_calls(FAKE_IOPRIO_SET) +
               fake_calls(FAKE_OOM_WRITE);
}

static void renice_itself(Script *s)
{
        fake_task(s->tid)->nice = 12;
}

/* The main thread renices itself right after latniced read its state: the
 * policy change re-reads it (guard_fair()), writes nothing and leaves the
 * thread to the user, and with it the process (its other thread is then
 * left alone too, as a new thread of a process someone else changed). */
static void test_race_read_write(void)
{
        _cleanup_(task_table_freep) TaskTable *tt = NULL;
        _cleanup_(policy_freep) Policy *p = NULL;
        _cleanup_free_ pid_t *tids = NULL;
        Applier a;
        pid_t k = kid("lt-race-rw");
        Script s = { .op = FAKE_GETATTR, .tid = k, .act = renice_itself };
        unsigned writes;
        Task *t;

        assert(threads_of(k, &tids) == 2);
        init(&a, &tt, false);
        p = load("[Rule rw]\nMatch = comm:lt-race-rw\nPolicy = batch\nNice = 3\n");
        applier_set_policy(&a, p);
        writes = fake_writes();
        fake_hook_set(script_hook, &s);
        assert(applier_process(&a, k) == 0);
        fake_hook_set(NULL, NULL);
        assert(s.fired);
        assert(nice_of(k) == 12 && policy_of(k) == SCHED_OTHER);
        t = task_table_get(tt, k);
        assert(t && t->user_owned);
        assert(nice_of(tids[1]) == 0 && policy_of(tids[1]) == SCHED_OTHER);
        assert(fake_writes() == writes);

        /* Nothing to give back, and the thread keeps its own nice. */
        assert(applier_restore_all(&a) == 0);
        assert(nice_of(k) == 12 && policy_of(k) == SCHED_OTHER);
        kill_kid(k);
}

static void exit_at_once(Script *s)
{
        fake_process_exit(s->tid);
}

/* A parent that forks and exits right after latniced read it, before it is
 * held (its pidfd): nothing is written to it, and the child it had forked,
 * which never got the rule's settings, is read at its fork. */
static void test_race_fork_exit(void)
{
        _cleanup_(task_table_freep) TaskTable *tt = NULL;
        _cleanup_(policy_freep) Policy *p = NULL;
        Applier a;
        pid_t parent = fake_process_new(0, "lt-race-fe", fake_parent, 1);
        pid_t child = fake_process_new(0, "lt-race-fe", parent, 1);
        Script s = { .op = FAKE_PIDFD_OPEN, .tid = parent, .act = exit_at_once };

        init(&a, &tt, false);
        p = load("[Rule fe]\nMatch = comm:lt-race-fe\nNice = 5\n");
        applier_set_policy(&a, p);
        fake_hook_set(script_hook, &s);
        assert(applier_exec(&a, parent) == 0);
        fake_hook_set(NULL, NULL);
        assert(s.fired && !task_table_get(tt, parent));
        assert(applier_fork(&a, parent, parent, child, now_nsec(CLOCK_MONOTONIC)) == 0);
        assert(nice_of(child) == 5);
        (void)applier_restore_all(&a);
        fake_process_exit(child);
}

static void make_a_thread(Script *s)
{
        s->made = fake_thread_new(s->tid);
}

/* The leader makes a thread between latniced's nice and its timer slack
 * write: the thread is not in the list latniced went through, and has the
 * new nice with the old slack. Its own evaluation (its thread event) takes
 * it for inherited, not for someone else's: latniced's, with the leader's
 * originals. */
static void test_race_thread_appears(void)
{
        _cleanup_(task_table_freep) TaskTable *tt = NULL;
        _cleanup_(policy_freep) Policy *p = NULL;
        Applier a;
        pid_t k = fake_process_new(0, "lt-race-thr", fake_parent, 1);
        Script s = { .op = FAKE_SET_NICE, .tid = k, .act = make_a_thread };
        Task *t;

        init(&a, &tt, false);
        p = load("[Rule thr]\nMatch = comm:lt-race-thr\nNice = 3\nTimerSlack = 7us\n");
        applier_set_policy(&a, p);
        fake_hook_set(script_hook, &s);
        assert(applier_process(&a, k) == 0);
        fake_hook_set(NULL, NULL);
        assert(s.made > 0 && !task_table_get(tt, s.made));
        assert(nice_of(k) == 3 && slack_of(k) == 7000);
        assert(nice_of(s.made) == 3 && slack_of(s.made) == FAKE_TIMER_SLACK_DEFAULT);

        assert(applier_thread(&a, k, s.made) == 0);
        t = task_table_get(tt, s.made);
        assert(t && !t->user_owned && task_table_n_user_owned(tt) == 0);
        assert(nice_of(s.made) == 3 && slack_of(s.made) == 7000);
        assert(t->claim.orig.nice == 0 && t->claim.orig.timer_slack_ns == FAKE_TIMER_SLACK_DEFAULT);

        assert(applier_restore_all(&a) == 2);
        assert(nice_of(s.made) == 0 && slack_of(s.made) == FAKE_TIMER_SLACK_DEFAULT);
        kill_kid(k);
}

/* The number goes to a new process of the same name, which sets nice 9. */
static void reuse_pid(Script *s)
{
        fake_pid_reuse(s->tid, "lt-race-pid");
        fake_task(s->tid)->nice = 9;
}

static void reuse_pid_default(Script *s)
{
        fake_pid_reuse(s->tid, "lt-race-pid");
}

/* A pid is reused between the evaluation and the change, or between the
 * change and the settle: what was read of the old process never reaches
 * the new one, and latniced remembers nothing of either. */
static void test_race_pid_reuse(void)
{
        _cleanup_(task_table_freep) TaskTable *tt = NULL;
        _cleanup_(policy_freep) Policy *p = NULL;
        Applier a;
        pid_t k = fake_process_new(0, "lt-race-pid", fake_parent, 1);
        Script s = { .op = FAKE_PIDFD_OPEN, .tid = k, .act = reuse_pid };
        unsigned writes = fake_writes();
        Task *t;

        init(&a, &tt, false);
        p = load("[Rule pid]\nMatch = comm:lt-race-pid\nNice = 4\n");
        applier_set_policy(&a, p);

        /* Gone and reused after the snapshot, before the process is held:
         * its start time differs, nothing is changed. */
        fake_hook_set(script_hook, &s);
        assert(applier_process(&a, k) == 0);
        fake_hook_set(NULL, NULL);
        assert(s.fired);
        assert(nice_of(k) == 9 && task_table_size(tt) == 0);
        assert(fake_writes() == writes);

        /* The new process's own evaluation (its exec event) changes it. */
        assert(applier_process(&a, k) == 0);
        t = task_table_get(tt, k);
        assert(t && nice_of(k) == 4 && t->claim.orig.nice == 9);
        assert(applier_restore_all(&a) == 1 && nice_of(k) == 9);

        /* Reused between the change and the settle: the new task gets back
         * what was read before the change (its own state, as it had it
         * before latniced wrote), no entry is kept, the reuse is counted. */
        fake_pid_reuse(k, "lt-race-pid");
        s = (Script){ .op = FAKE_SET_NICE, .tid = k, .act = reuse_pid_default };
        fake_hook_set(script_hook, &s);
        assert(applier_process(&a, k) == 0);
        fake_hook_set(NULL, NULL);
        assert(s.fired);
        assert(nice_of(k) == 0 && task_table_size(tt) == 0);
        assert(a.counters.n_reused == 1);
        kill_kid(k);
}

/* CoreSched=pod (fake kernel only: the real one here may have no core
 * scheduling): the processes of one pod share a cookie, another pod's get
 * another, a process in no pod gets one of its own. */
static void put_cgroup(pid_t pid, const char *path)
{
        char file[PATH_MAX];
        FILE *f;

        snprintf(file, sizeof(file), "%s/%d/cgroup", proc, (int)pid);
        f = fopen(file, "we");
        assert(f);
        fprintf(f, "0::%s\n", path);
        assert(fclose(f) == 0);
}

static void test_core_sched_pod(void)
{
        _cleanup_(task_table_freep) TaskTable *tt = NULL;
        _cleanup_(policy_freep) Policy *p = NULL;
        static const char *const pod_a = "/kubepods.slice/kubepods-podaaaa_1111.slice/"
                                         "cri-containerd-c1.scope";
        static const char *const pod_a2 = "/kubepods.slice/kubepods-podaaaa_1111.slice/"
                                          "cri-containerd-c2.scope";
        static const char *const pod_b = "/kubepods.slice/kubepods-podbbbb_2222.slice/"
                                         "cri-containerd-c3.scope";
        pid_t a1 = kid("lt-pod-a1"), a2 = kid("lt-pod-a2"), b = kid("lt-pod-b"),
              none = kid("lt-pod-none");
        uint64_t ca1, ca2, cb, cn;
        Applier a;

        put_cgroup(a1, pod_a);
        put_cgroup(a2, pod_a2);
        put_cgroup(b, pod_b);
        init(&a, &tt, false);
        p = load("[Rule pods]\nMatch = comm:lt-pod-*\nCoreSched = pod\n");
        assert(policy_read_plan(p) & PROC_READ_CGROUP);
        applier_set_policy(&a, p);
        assert(applier_process(&a, a1) == 0);
        assert(applier_process(&a, a2) == 0);
        assert(applier_process(&a, b) == 0);
        assert(applier_process(&a, none) == 0);

        ca1 = fake_task(a1)->cookie;
        ca2 = fake_task(a2)->cookie;
        cb = fake_task(b)->cookie;
        cn = fake_task(none)->cookie;
        assert(ca1 != 0 && cb != 0 && cn != 0);
        assert(ca1 == ca2);               /* one pod, two containers: one cookie */
        assert(cb != ca1);                /* another pod */
        assert(cn != ca1 && cn != cb);    /* in no pod: its own */
        /* every thread of a process carries it */
        {
                pid_t tids[4];
                size_t n = fake_threads(a2, tids, 4);

                assert(n == 2 && fake_task(tids[1])->cookie == ca1);
        }
        assert(task_table_get(tt, a2)->settings.core_sched.mode == CORE_SCHED_POD);
        assert(task_table_get(tt, none)->settings.core_sched.mode == CORE_SCHED_PROCESS);

        kill_kid(a1);
        kill_kid(a2);
        kill_kid(b);
        kill_kid(none);
}

/* A thread made after latniced's last look at its process (its fork event
 * not handed on yet: the fork and exit socket rests up to a second) when a
 * reload takes the rule away: the rescan gives it back what it inherited
 * of latniced's change, the cookie included, as it does the threads it
 * knew. It failed while the main thread came first: its restore removed
 * the entry the unseen thread is judged against. */
static void test_thread_unseen_at_reload(void)
{
        _cleanup_(task_table_freep) TaskTable *tt = NULL;
        _cleanup_(policy_freep) Policy *p1 = NULL, *p2 = NULL;
        pid_t k = kid("lt-unseen"), tids[4], late;
        uint64_t cookie;
        Applier a;

        init(&a, &tt, false);
        p1 = load("[Rule r]\nMatch = comm:lt-unseen\nNice = 3\nCoreSched = rule\n");
        applier_set_policy(&a, p1);
        assert(applier_process(&a, k) == 0);
        assert(fake_threads(k, tids, 4) == 2);
        cookie = fake_task(k)->cookie;
        assert(cookie != 0 && fake_task(tids[1])->cookie == cookie);
        assert(nice_of(k) == 3 && nice_of(tids[1]) == 3);

        late = fake_thread_new(tids[1]);
        assert(fake_task(late)->cookie == cookie && nice_of(late) == 3);
        assert(!task_table_get(tt, late));

        p2 = load("[Rule other]\nMatch = comm:lt-nothing-here\nNice = 1\n");
        applier_set_policy(&a, p2);
        assert(applier_rescan(&a) == 0);
        assert(fake_task(k)->cookie == 0 && nice_of(k) == 0);
        assert(fake_task(tids[1])->cookie == 0 && nice_of(tids[1]) == 0);
        assert(fake_task(late)->cookie == 0 && nice_of(late) == 0);
        assert(!task_table_get(tt, k) && !task_table_get(tt, tids[1]) &&
               !task_table_get(tt, late));
        kill_kid(k);
}

/* RLIMIT_RTTIME of process PID. */
static struct rlimit rttime_of(pid_t pid)
{
        struct rlimit l;

        assert(K->prlimit(pid, RLIMIT_RTTIME, NULL, &l) == 0);
        return l;
}

static size_t n_rt(const pid_t *tids, size_t n)
{
        size_t c = 0;

        for (size_t i = 0; i < n; i++)
                c += (policy_of(tids[i]) & ~SCHED_RESET_ON_FORK) == SCHED_RR;
        return c;
}

/* A real-time grant within its bounds (daemon/apply/rt-grants.h): the
 * process gets RLIMIT_RTTIME 200 ms before its threads get SCHED_RR at the
 * cap; past the user's limit a thread's grant is withheld and given when
 * the limit allows; the limit goes back to the original with the last
 * grant, and stays when someone else changed it. */
static void test_rt_grant_bounds(void)
{
        _cleanup_(task_table_freep) TaskTable *tt = NULL;
        _cleanup_(policy_freep) Policy *p1 = NULL, *p2 = NULL, *p3 = NULL, *p4 = NULL;
        _cleanup_free_ pid_t *tids = NULL;
        RtGrants *rt = NULL;
        struct rlimit l, orig;
        Applier a;
        pid_t k = kid("lt-apply-rt");
        size_t n = threads_of(k, &tids);

        assert(n == 2);
        init(&a, &tt, false);
        a.ctx.rt_max_priority = 20;
        assert(rt_grants_new(tt, K, proc, &rt) == 0);
        if (on_fake)
                rt_grants_set_bounds_hard(rt, true); /* the model lets it raise them */
        a.rt = rt;
        orig = rttime_of(k);
        p1 = load("[Rule rt]\nMatch = comm:lt-apply-rt\nPolicy = rr\nRealtimePriority = 50\n"
                  "TimerSlack = 2us\n");
        p2 = load("[Rule other]\nMatch = comm:nothing-like-it\nNice = 1\n");
        p3 = load("[Rule rt]\nMatch = comm:lt-apply-rt\nPolicy = rr\nRealtimePriority = 50\n"
                  "TimerSlack = 2us\nNice = -2\n");
        p4 = load("[Rule rt]\nMatch = comm:lt-apply-rt\nPolicy = batch\nTimerSlack = 2us\n"
                  "Nice = -2\n");

        /* One grant per user: the second thread's is withheld. */
        rt_grants_set_max_per_user(rt, 1);
        applier_set_policy(&a, p1);
        assert(applier_process(&a, k) == 0);
        assert(n_rt(tids, n) == 1);
        l = rttime_of(k);
        assert(l.rlim_cur == RT_GRANT_RTTIME_USEC);
        assert(l.rlim_max == (rt_grants_bounds_hard(rt) ? RT_GRANT_RTTIME_USEC : orig.rlim_max));
        assert(rt_grants_user_count(rt, 0) == 1);
        /* The limit allows it: granted at the next evaluation. */
        rt_grants_set_max_per_user(rt, 25);
        assert(applier_process(&a, k) == 0);
        assert(n_rt(tids, n) == 2);
        assert(rt_grants_user_count(rt, 0) == 2);
        for (size_t i = 0; i < n; i++) {
                SchedState st;

                assert(state_of(tids[i], &st) == 0);
                assert(st.priority == 20 && (st.flags & LN_SCHED_FLAG_RESET_ON_FORK));
        }
        /* A reload that changes Nice= (issue 32 item 4): the nice is written
         * under the grant, which stays; and no timer slack in real time (the
         * kernel's 0) is taken for someone else's change. */
        applier_set_policy(&a, p3);
        assert(applier_process(&a, k) == 0);
        assert(n_rt(tids, n) == 2);
        for (size_t i = 0; i < n; i++) {
                assert(!task_table_get(tt, tids[i])->user_owned);
                assert(nice_of(tids[i]) == -2);
        }
        /* A thread a granted thread makes starts fair, with the kernel's
         * timer slack of its real-time creator (0): what it inherited of
         * latniced's change, not someone else's; the process stays
         * latniced's. (The real kernel's threads here only pause.) */
        if (on_fake) {
                pid_t nt = fake_thread_new(tids[1]);

                assert(fake_task(nt)->policy == SCHED_OTHER && fake_task(nt)->timer_slack_ns == 0);
                assert(applier_thread(&a, k, nt) == 0);
                assert(!task_table_process_user_owned(tt, k));
                assert((policy_of(nt) & ~SCHED_RESET_ON_FORK) == SCHED_RR);
                fake_thread_exit(nt);
                applier_forget(&a, k, nt);
        }
        /* A new cap (a reload of latniced.conf), then a fair policy in the
         * rule: the grant is given back and made anew, or not; latniced's
         * all along, never taken for someone else's real time. */
        a.ctx.rt_max_priority = 10;
        assert(applier_process(&a, k) == 0);
        for (size_t i = 0; i < n; i++) {
                SchedState st;

                assert(state_of(tids[i], &st) == 0);
                assert(st.policy == SCHED_RR && st.priority == 10);
                assert(!task_table_get(tt, tids[i])->user_owned);
        }
        applier_set_policy(&a, p4);
        assert(applier_process(&a, k) == 0);
        for (size_t i = 0; i < n; i++) {
                assert((policy_of(tids[i]) & ~SCHED_RESET_ON_FORK) == SCHED_BATCH);
                assert(!task_table_get(tt, tids[i])->user_owned);
        }
        l = rttime_of(k);
        assert(l.rlim_cur == orig.rlim_cur && l.rlim_max == orig.rlim_max);
        a.ctx.rt_max_priority = 20;
        /* The rule goes: every grant back, and then the limit. */
        applier_set_policy(&a, p3);
        assert(applier_process(&a, k) == 0);
        assert(n_rt(tids, n) == 2);
        applier_set_policy(&a, p2);
        assert(applier_process(&a, k) == 0);
        assert(n_rt(tids, n) == 0);
        l = rttime_of(k);
        assert(l.rlim_cur == orig.rlim_cur && l.rlim_max == orig.rlim_max);
        assert(rt_grants_n_processes(rt) == 0);

        /* Granted again; someone else sets the limit: theirs, kept. */
        applier_set_policy(&a, p1);
        assert(applier_process(&a, k) == 0);
        assert(n_rt(tids, n) == 2);
        l = (struct rlimit){ 100000, rt_grants_bounds_hard(rt) ? 150000 : orig.rlim_max };
        assert(K->prlimit(k, RLIMIT_RTTIME, &l, NULL) == 0);
        assert(applier_restore_all(&a) == 2);
        assert(n_rt(tids, n) == 0);
        l = rttime_of(k);
        assert(l.rlim_cur == 100000 &&
               l.rlim_max == (rt_grants_bounds_hard(rt) ? 150000 : orig.rlim_max));
        assert(rt_grants_n_processes(rt) == 0);
        rt_grants_free(rt);
        kill_kid(k);
}

static void run_cases(void)
{
        test_apply_change_restore();
        test_manual_change();
        test_untouchable();
        test_dry_run();
        test_ancestors();
        test_read_flags();
        test_user_names();
        test_timer_slack();
        test_thread_made_mid_apply();
        test_main_thread();
        test_fork_catch_up();
        test_fork_inherit();
        test_thread_after_reset();
        test_rt_grant_bounds();
}

static void run_fake(void)
{
        char me[16] = {};

        K = &fake_kernel_ops;
        on_fake = true;
        fake_kernel_init(0);
        proc = fake_proc_root();
        assert(prctl(PR_GET_NAME, me) == 0);
        fake_parent = fake_process_new(0, me, 1, 1);
        (void)fake_kthread_new(2, "kthreadd");
        run_cases();
        test_race_read_write();
        test_race_thread_appears();
        test_race_fork_exit();
        test_race_pid_reuse();
        test_core_sched_pod();
        test_thread_unseen_at_reload();
        fake_kernel_done();
        printf("fake kernel: all cases passed\n");
}

int main(void)
{
        test_task_settings();
        run_fake();
        if (geteuid() != 0) {
                printf("real kernel part not run: needs root\n");
                return 0;
        }
        /* The cases expect the kernel's pristine nice 0 in what they start
         * (threads and children inherit the caller's): a suite run under
         * `nice -n 10` would fail them. */
        if (setpriority(PRIO_PROCESS, 0, 0) < 0) {
                perror("setpriority");
                return 1;
        }
        K = &kernel_ops_real;
        on_fake = false;
        proc = NULL;
        run_cases();
        printf("real kernel: all cases passed\n");
        return 0;
}
