/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit test for daemon/watch/events.c: message parsing with crafted (also hostile)
 * buffers, and, as root, the live proc connector. */
#include <assert.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>

#include "daemon/watch/events.h"
#include "lib/macro.h"
#include "test-util.h"

typedef struct Msg {
        struct cn_msg cn;
        struct proc_event ev;
} __attribute__((packed)) Msg;

static size_t make(Msg *m, unsigned what, size_t data_len)
{
        memset(m, 0, sizeof(*m));
        m->cn.id.idx = CN_IDX_PROC;
        m->cn.id.val = CN_VAL_PROC;
        m->cn.len = (uint16_t)(offsetof(struct proc_event, event_data) + data_len);
        m->ev.what = what;
        m->ev.timestamp_ns = 1234;
        return sizeof(struct cn_msg) + m->cn.len;
}

static void test_parse(void)
{
        Msg m;
        ProcEvent e;
        size_t n;

        /* fork of a process */
        n = make(&m, PROC_EVENT_FORK, sizeof(m.ev.event_data.fork));
        m.ev.event_data.fork.parent_pid = 10;
        m.ev.event_data.fork.parent_tgid = 10;
        m.ev.event_data.fork.child_pid = 11;
        m.ev.event_data.fork.child_tgid = 11;
        assert(proc_event_parse(&m, n, &e) == 1);
        assert(e.type == PROC_EV_FORK && e.pid == 11 && e.tid == 11);
        assert(e.parent_pid == 10 && e.parent_tid == 10 && e.timestamp_ns == 1234);
        assert(!proc_event_is_thread_fork(&e));

        /* clone of a thread: tid != tgid; the kernel names the parent of the
         * process as parent */
        m.ev.event_data.fork.parent_pid = 1;
        m.ev.event_data.fork.parent_tgid = 1;
        m.ev.event_data.fork.child_pid = 13;
        m.ev.event_data.fork.child_tgid = 10;
        assert(proc_event_parse(&m, n, &e) == 1);
        assert(e.pid == 10 && e.tid == 13 && e.parent_tid == 1);
        assert(proc_event_is_thread_fork(&e));

        /* truncated: cn.len says less than the fork payload */
        m.cn.len -= 1;
        memset(&e, 0x5a, sizeof(e));
        assert(proc_event_parse(&m, n, &e) == -EBADMSG);
        assert(e.pid == 0x5a5a5a5a); /* untouched */

        /* cn.len claims more than the buffer holds */
        n = make(&m, PROC_EVENT_EXEC, sizeof(m.ev.event_data.exec));
        assert(proc_event_parse(&m, n - 1, &e) == -EBADMSG);
        assert(proc_event_parse(&m, 3, &e) == -EBADMSG);
        assert(proc_event_parse(NULL, 0, &e) == -EBADMSG);

        m.ev.event_data.exec.process_pid = 21;
        m.ev.event_data.exec.process_tgid = 20;
        assert(proc_event_parse(&m, n, &e) == 1);
        assert(e.type == PROC_EV_EXEC && e.pid == 20 && e.tid == 21);

        /* negative or zero pids are rejected */
        m.ev.event_data.exec.process_tgid = -1;
        assert(proc_event_parse(&m, n, &e) == -EBADMSG);
        m.ev.event_data.exec.process_tgid = 0;
        assert(proc_event_parse(&m, n, &e) == -EBADMSG);

        /* comm: the name itself is not needed, only the ids */
        n = make(&m, PROC_EVENT_COMM, offsetof(struct comm_proc_event, comm));
        m.ev.event_data.comm.process_pid = 31;
        m.ev.event_data.comm.process_tgid = 30;
        assert(proc_event_parse(&m, n, &e) == 1);
        assert(e.type == PROC_EV_COMM && e.pid == 30 && e.tid == 31);

        /* uid / gid */
        n = make(&m, PROC_EVENT_UID, sizeof(m.ev.event_data.id));
        m.ev.event_data.id.process_pid = 41;
        m.ev.event_data.id.process_tgid = 41;
        m.ev.event_data.id.r.ruid = 1000;
        assert(proc_event_parse(&m, n, &e) == 1);
        assert(e.type == PROC_EV_UID && e.id == 1000);
        n = make(&m, PROC_EVENT_GID, sizeof(m.ev.event_data.id));
        m.ev.event_data.id.process_pid = 41;
        m.ev.event_data.id.process_tgid = 41;
        assert(proc_event_parse(&m, n, &e) == 1);
        assert(e.type == PROC_EV_GID);

        /* exit: old kernels send a shorter struct (no parent fields) */
        n = make(&m, PROC_EVENT_EXIT, 16);
        m.ev.event_data.exit.process_pid = 51;
        m.ev.event_data.exit.process_tgid = 50;
        assert(proc_event_parse(&m, n, &e) == 1);
        assert(e.type == PROC_EV_EXIT && e.pid == 50 && e.tid == 51);
        n = make(&m, PROC_EVENT_EXIT, 4);
        assert(proc_event_parse(&m, n, &e) == -EBADMSG);

        /* uninteresting but valid */
        n = make(&m, PROC_EVENT_NONE, sizeof(m.ev.event_data.ack));
        assert(proc_event_parse(&m, n, &e) == 0);
        n = make(&m, PROC_EVENT_SID, sizeof(m.ev.event_data.sid));
        assert(proc_event_parse(&m, n, &e) == 0);
        n = make(&m, 0x1000, 8);
        assert(proc_event_parse(&m, n, &e) == 0);

        /* another connector index */
        n = make(&m, PROC_EVENT_EXEC, sizeof(m.ev.event_data.exec));
        m.cn.id.idx = CN_IDX_PROC + 1;
        assert(proc_event_parse(&m, n, &e) == 0);

        /* header shorter than the event header */
        n = make(&m, PROC_EVENT_EXEC, 0);
        m.cn.len = 4;
        assert(proc_event_parse(&m, sizeof(struct cn_msg) + 4, &e) == -EBADMSG);

        assert(streq(proc_event_type_to_string(PROC_EV_LOST), "lost"));
        assert(proc_event_type_to_string(_PROC_EV_MAX) == NULL);
}

/* ---- live connector (root) ----------------------------------------- */

/* ---- proc_events_dispatch(): the walk of a received datagram ---------- */

typedef struct Collected {
        ProcEvent ev[8];
        unsigned n;
} Collected;

static int collect(const ProcEvent *e, void *userdata)
{
        Collected *c = userdata;

        assert(c->n < ELEMENTSOF(c->ev));
        c->ev[c->n++] = *e;
        return c->n == 1 ? -EIO : 0; /* a failing handler does not stop the walk */
}

/* Append a netlink message of TYPE carrying PAYLOAD to BUF at *OFF (aligned). */
static void put_nlmsg(uint8_t *buf, size_t *off, uint16_t type, const void *payload, size_t n)
{
        struct nlmsghdr h = {
                .nlmsg_len = (uint32_t)NLMSG_LENGTH(n),
                .nlmsg_type = type,
        };

        memcpy(buf + *off, &h, sizeof(h));
        memcpy(buf + *off + NLMSG_HDRLEN, payload, n);
        *off += NLMSG_SPACE(n);
}

static void test_dispatch(void)
{
        _Alignas(struct nlmsghdr) uint8_t buf[1024];
        Collected c = {};
        size_t off = 0, n;
        Msg m;

        memset(buf, 0, sizeof(buf));
        /* exec of 20, a NOOP, an error, a truncated fork, exit of 21/22 */
        n = make(&m, PROC_EVENT_EXEC, sizeof(m.ev.event_data.exec));
        m.ev.event_data.exec.process_pid = 20;
        m.ev.event_data.exec.process_tgid = 20;
        put_nlmsg(buf, &off, NLMSG_DONE, &m, n);
        put_nlmsg(buf, &off, NLMSG_NOOP, &m, n);
        put_nlmsg(buf, &off, NLMSG_ERROR, &m, n);
        n = make(&m, PROC_EVENT_FORK, sizeof(m.ev.event_data.fork));
        put_nlmsg(buf, &off, NLMSG_DONE, &m, n - 4);
        n = make(&m, PROC_EVENT_EXIT, sizeof(m.ev.event_data.exit));
        m.ev.event_data.exit.process_pid = 22;
        m.ev.event_data.exit.process_tgid = 21;
        put_nlmsg(buf, &off, NLMSG_DONE, &m, n);

        assert(proc_events_dispatch(buf, off, collect, &c) == 2);
        assert(c.n == 2);
        assert(c.ev[0].type == PROC_EV_EXEC && c.ev[0].pid == 20 && c.ev[0].tid == 20);
        assert(c.ev[1].type == PROC_EV_EXIT && c.ev[1].pid == 21 && c.ev[1].tid == 22);

        /* a datagram cut inside its last message: the messages before it only */
        c.n = 0;
        assert(proc_events_dispatch(buf, off - 1, collect, &c) == 1);
        assert(c.n == 1 && c.ev[0].type == PROC_EV_EXEC);

        /* a header that claims more than was received ends the walk */
        c.n = 0;
        ((struct nlmsghdr *)buf)->nlmsg_len = (uint32_t)off + 4;
        assert(proc_events_dispatch(buf, off, collect, &c) == 0 && c.n == 0);

        c.n = 0;
        assert(proc_events_dispatch(buf, 0, collect, &c) == 0 && c.n == 0);
        assert(proc_events_dispatch(buf + 1, off - 1, collect, &c) == -EINVAL);
        assert(proc_events_dispatch(NULL, 0, collect, &c) == -EINVAL);
        assert(proc_events_dispatch(buf, off, NULL, NULL) == -EINVAL);
        assert(c.n == 0);
}

typedef struct Seen {
        pid_t child, thread;
        bool fork, exec, exit, thread_fork, comm;
        unsigned lost;
} Seen;

static int on_event(const ProcEvent *e, void *userdata)
{
        Seen *s = userdata;

        switch (e->type) {
        case PROC_EV_FORK:
                if (e->pid == s->child && e->tid == s->child)
                        s->fork = true;
                if (e->pid == s->child && proc_event_is_thread_fork(e)) {
                        s->thread_fork = true;
                        s->thread = e->tid;
                }
                break;
        case PROC_EV_EXEC:
                if (e->pid == s->child)
                        s->exec = true;
                break;
        case PROC_EV_COMM:
                if (e->pid == s->child && s->thread && e->tid == s->thread)
                        s->comm = true;
                break;
        case PROC_EV_EXIT:
                if (e->pid == s->child && e->tid == s->child)
                        s->exit = true;
                break;
        case PROC_EV_LOST:
                s->lost++;
                break;
        default:
                break;
        }
        return test_result();
}

static void *thread_main(void *arg)
{
        prctl(PR_SET_NAME, "renamed-thread");
        return NULL;
}

/* Does the kernel filter proc connector events per socket (Linux 6.6+)?
 * Says which kernel it is in *RELEASE (uname's). */
static bool kernel_filters_events(const char **release)
{
        static struct utsname u;
        unsigned major = 0, minor = 0;

        assert(uname(&u) == 0 && sscanf(u.release, "%u.%u", &major, &minor) == 2);
        *release = u.release;
        return major > 6 || (major == 6 && minor >= 6);
}

static uint64_t now_ms(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void run_until(sd_event *ev, Seen *s, bool (*done)(const Seen *))
{
        uint64_t end = now_ms() + 5000;

        while (!done(s) && now_ms() < end)
                assert(sd_event_run(ev, 100 * 1000) >= 0);
}

static bool got_thread(const Seen *s)
{
        return s->fork && s->thread_fork && s->comm;
}

/* The exec comes before the exit, or, when both arrive in one batch, is
 * not handed on (proc_events_n_exec_skipped()). */
static bool got_exit(const Seen *s)
{
        return s->exit;
}

static bool got_lost(const Seen *s)
{
        return s->lost > 0;
}

static void test_live(void)
{
        _cleanup_(proc_events_freep) ProcEvents *p = NULL;
        sd_event *ev = NULL;
        Seen s = {};
        int pipefd[2], status, r;
        char c;

        assert(sd_event_new(&ev) >= 0);
        r = proc_events_new(ev, 0, on_event, &s, &p);
        if (r == -EPERM || r == -EACCES || r == -EPROTONOSUPPORT) {
                printf("skipping live test: %s\n", strerror(-r));
                sd_event_unref(ev);
                return;
        }
        assert(r == 0);
        assert(proc_events_rcvbuf(p) >= PROC_EVENTS_DEFAULT_RCVBUF);

        /* Child: start a thread that renames itself, wait for a byte, exec. */
        assert(pipe2(pipefd, O_CLOEXEC) == 0);
        s.child = fork();
        assert(s.child >= 0);
        if (s.child == 0) {
                pthread_t t;
                if (pthread_create(&t, NULL, thread_main, NULL) != 0)
                        _exit(1);
                pthread_join(t, NULL);
                if (read(pipefd[0], &c, 1) != 1)
                        _exit(1);
                execl("/bin/true", "true", (char *)NULL);
                _exit(127);
        }
        run_until(ev, &s, got_thread);
        assert(got_thread(&s));

        assert(write(pipefd[1], "x", 1) == 1);
        run_until(ev, &s, got_exit);
        assert(got_exit(&s));
        assert(s.exec || proc_events_n_exec_skipped(p) > 0);
        assert(waitpid(s.child, &status, 0) == s.child);
        assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        close(pipefd[0]);
        close(pipefd[1]);
        assert(proc_events_n_received(p) > 0);
        assert(proc_events_n_lost(p) == 0);
        p = proc_events_free(p);

        /* Overflow a tiny receive buffer while not reading: ENOBUFS must be
         * reported as a lost event. */
        memset(&s, 0, sizeof(s));
        assert(proc_events_new(ev, 1, on_event, &s, &p) == 0);
        for (int i = 0; i < 300; i++) {
                pid_t pid = fork();
                assert(pid >= 0);
                if (pid == 0)
                        _exit(0);
                assert(waitpid(pid, NULL, 0) == pid);
        }
        /* Nothing was read: events wait in the queue (a rescan waits for it). */
        assert(!proc_events_drained(p));
        run_until(ev, &s, got_lost);
        assert(s.lost > 0);
        assert(proc_events_n_lost(p) == s.lost);
        p = proc_events_free(p);

        sd_event_unref(ev);
}

typedef struct SeenRename {
        pid_t child;
        unsigned comm, exit;
} SeenRename;

static int on_rename_event(const ProcEvent *e, void *userdata)
{
        SeenRename *s = userdata;

        if (e->pid != s->child)
                return 0;
        if (e->type == PROC_EV_COMM)
                s->comm++;
        if (e->type == PROC_EV_EXIT && e->tid == s->child)
                s->exit++;
        return test_result();
}

static bool rename_seen_exit(const SeenRename *s)
{
        return s->exit > 0;
}

/* A child renames itself three times and exits; returns the comm events
 * seen for it. */
static unsigned count_renames(sd_event *ev, SeenRename *s)
{
        uint64_t end = now_ms() + 5000;

        s->comm = s->exit = 0;
        s->child = fork();
        assert(s->child >= 0);
        if (s->child == 0) {
                prctl(PR_SET_NAME, "lt-filter-1");
                prctl(PR_SET_NAME, "lt-filter-2");
                prctl(PR_SET_NAME, "lt-filter-3");
                _exit(0);
        }
        assert(waitpid(s->child, NULL, 0) == s->child);
        while (!rename_seen_exit(s) && now_ms() < end)
                assert(sd_event_run(ev, 100 * 1000) >= 0);
        assert(s->exit == 1); /* the exit event comes after the renames */
        return s->comm;
}

/* Linux 6.6 filters per socket: without comm events asked for, none come. */
static void test_live_filter(void)
{
        _cleanup_(proc_events_freep) ProcEvents *p = NULL;
        sd_event *ev = NULL;
        SeenRename s = {};
        const char *release;

        assert(sd_event_new(&ev) >= 0);
        assert(proc_events_new(ev, 0, on_rename_event, &s, &p) == 0);
        check(count_renames(ev, &s) == 3);

        assert(proc_events_want_comm(p, false) == 0);
        if (kernel_filters_events(&release))
                check(count_renames(ev, &s) == 0);
        else
                printf("kernel %s has no event filter: not checked\n", release);

        assert(proc_events_want_comm(p, true) == 0);
        check(count_renames(ev, &s) == 3);

        p = proc_events_free(p);
        sd_event_unref(ev);
}

typedef struct SeenForks {
        pid_t child;
        pid_t kids[100];
        unsigned seq, n_forks, n_execs, n_gone, n_exits, n_dup, n_misordered;
        unsigned exec_seq[100], exit_seq[100], fork_seq[100];
        bool child_exited;
} SeenForks;

static int on_fork_event(const ProcEvent *e, void *userdata)
{
        SeenForks *s = userdata;
        unsigned i;

        s->seq++;
        if (e->type == PROC_EV_FORK && e->parent_pid == s->child && e->tid == e->pid) {
                for (i = 0; i < s->n_forks; i++)
                        if (s->kids[i] == e->pid)
                                s->n_dup++;
                if (s->n_forks < ELEMENTSOF(s->kids)) {
                        s->fork_seq[s->n_forks] = s->seq;
                        s->kids[s->n_forks++] = e->pid;
                }
                return 0;
        }
        if (e->type == PROC_EV_EXIT && e->pid == s->child && e->tid == e->pid)
                s->child_exited = true;
        if (e->type != PROC_EV_EXEC && e->type != PROC_EV_EXIT)
                return 0;
        /* An exec or exit handed on before the kid's fork is not found here:
         * the counts fall short. */
        for (i = 0; i < s->n_forks; i++)
                if (s->kids[i] == e->pid && e->tid == e->pid)
                        break;
        if (i == s->n_forks)
                return 0;
        if (e->type == PROC_EV_EXEC && e->gone) {
                /* Its exit comes later in this batch: no place in the order. */
                s->n_gone++;
                return 0;
        }
        if (e->type == PROC_EV_EXEC) {
                s->n_dup += s->exec_seq[i] != 0;
                s->exec_seq[i] = s->seq;
                s->n_execs++;
        } else {
                s->n_dup += s->exit_seq[i] != 0;
                s->exit_seq[i] = s->seq;
                s->n_exits++;
                /* An exec not handed on (its exit came in the same batch) has no place. */
                if (s->fork_seq[i] >= s->exit_seq[i] ||
                    (s->exec_seq[i] != 0 && !(s->fork_seq[i] < s->exec_seq[i] &&
                                              s->exec_seq[i] < s->exit_seq[i])))
                        s->n_misordered++;
        }
        return 0;
}

/* Fork a child that starts N processes one after the other, each running
 * /bin/true (EXEC) or exiting at once, PACE_US apart, and exits. */
static pid_t fork_starter(int n, bool exec, unsigned pace_us)
{
        pid_t child = fork();

        assert(child >= 0);
        if (child > 0)
                return child;
        for (int i = 0; i < n; i++) {
                pid_t k = fork();
                if (k < 0)
                        _exit(1);
                if (k == 0) {
                        if (exec)
                                execl("/bin/true", "true", (char *)NULL);
                        _exit(exec ? 127 : 0);
                }
                if (waitpid(k, NULL, 0) != k)
                        _exit(1);
                if (pace_us > 0)
                        usleep(pace_us);
        }
        _exit(0);
}

/* Run EV until the exit of S's child was handed on, 10 s at most. */
static void run_until_child_exit(sd_event *ev, const SeenForks *s)
{
        uint64_t end = now_ms() + 10000;

        while (!s->child_exited && now_ms() < end)
                assert(sd_event_run(ev, 100 * 1000) >= 0);
}

/* Fork and exit events come on a socket of their own (Linux 6.6+) and are
 * merged with exec events in the kernel's order. A child starts 100
 * processes that exec /bin/true one after the other, all before the test
 * reads an event: each one's fork and exit are handed on exactly once and
 * in that order, and its exec once, marked gone when its exit came in the
 * same batch: all but a few, at batch ends, are. */
static void test_live_deferred(void)
{
        _cleanup_(proc_events_freep) ProcEvents *p = NULL;
        sd_event *ev = NULL;
        SeenForks s = {};
        const char *release;
        bool filters = kernel_filters_events(&release);

        assert(sd_event_new(&ev) >= 0);
        assert(proc_events_new(ev, 0, on_fork_event, &s, &p) == 0);

        s.child = fork_starter(100, true, 0);
        assert(waitpid(s.child, NULL, 0) == s.child);
        run_until_child_exit(ev, &s);

        check(s.child_exited);
        check(s.n_forks == 100);
        check(s.n_execs < 50);
        check(s.n_execs + s.n_gone == 100);
        check(proc_events_n_exec_skipped(p) >= s.n_gone);
        check(s.n_exits == 100);
        check(s.n_dup == 0);
        check(s.n_misordered == 0);
        if (filters)
                check(proc_events_split(p));
        else
                printf("kernel %s has no event filter: one socket\n", release);

        p = proc_events_free(p);
        sd_event_unref(ev);
}

/* The same with processes that stay (exec sleep) while the events are read,
 * and are killed only once all their execs were seen: every fork, exec and
 * exit is handed on once, in that order (fork and exit from one socket,
 * exec from the other). */
static void test_live_merge_order(void)
{
        _cleanup_(proc_events_freep) ProcEvents *p = NULL;
        sd_event *ev = NULL;
        SeenForks s = {};
        int go[2];
        uint64_t end;
        char c;

        assert(sd_event_new(&ev) >= 0);
        assert(proc_events_new(ev, 0, on_fork_event, &s, &p) == 0);
        assert(pipe2(go, O_CLOEXEC) == 0);

        s.child = fork();
        assert(s.child >= 0);
        if (s.child == 0) {
                pid_t kids[100];

                for (int i = 0; i < 100; i++) {
                        kids[i] = fork();
                        if (kids[i] < 0)
                                _exit(1);
                        if (kids[i] == 0) {
                                execl("/bin/sleep", "sleep", "1000", (char *)NULL);
                                _exit(127);
                        }
                }
                (void)read(go[0], &c, 1);
                for (int i = 0; i < 100; i++)
                        (void)kill(kids[i], SIGKILL);
                for (int i = 0; i < 100; i++)
                        (void)waitpid(kids[i], NULL, 0);
                _exit(0);
        }
        end = now_ms() + 20000;
        while (s.n_execs < 100 && now_ms() < end)
                assert(sd_event_run(ev, 100 * 1000) >= 0);
        check(s.n_execs == 100);
        assert(write(go[1], "x", 1) == 1);
        assert(waitpid(s.child, NULL, 0) == s.child);
        end = now_ms() + 20000;
        while (!s.child_exited && now_ms() < end)
                assert(sd_event_run(ev, 100 * 1000) >= 0);

        check(s.child_exited);
        check(s.n_forks == 100);
        check(s.n_execs == 100);
        check(s.n_exits == 100);
        check(s.n_dup == 0);
        check(s.n_misordered == 0);

        close(go[0]);
        close(go[1]);
        p = proc_events_free(p);
        sd_event_unref(ev);
}

/* Forks and exits alone (no exec, no rename) do not wake latniced by the
 * event: the child forks 50 kids 5 ms apart, each exits at once. Every
 * fork and exit is handed on once and in order, within the watch's rest
 * (about a second), and the fork and exit socket woke the loop by itself
 * about once a second (once per 20 ms before: 12 or more times). Wake-ups
 * that found a full batch rest briefly: other processes' forks (tests run
 * side by side) may cause some, and they are not counted. */
static void test_live_deferred_rest(void)
{
        _cleanup_(proc_events_freep) ProcEvents *p = NULL;
        sd_event *ev = NULL;
        SeenForks s = {};
        const char *release;
        uint64_t w0, b0, t0, quiet, secs;

        if (!kernel_filters_events(&release)) {
                printf("kernel %s has no event filter: one socket, no rest\n", release);
                return;
        }
        assert(sd_event_new(&ev) >= 0);
        assert(proc_events_new(ev, 0, on_fork_event, &s, &p) == 0);
        w0 = proc_events_n_deferred_wakeups(p);
        b0 = proc_events_n_deferred_busy(p);
        t0 = now_ms();

        s.child = fork_starter(50, false, 5000);
        run_until_child_exit(ev, &s);
        assert(waitpid(s.child, NULL, 0) == s.child);

        check(s.child_exited);
        check(s.n_forks == 50);
        check(s.n_execs == 0);
        check(s.n_exits == 50);
        check(s.n_dup == 0);
        check(s.n_misordered == 0);
        check(proc_events_split(p));
        secs = (now_ms() - t0) / 1000;
        quiet = proc_events_n_deferred_wakeups(p) - w0 - (proc_events_n_deferred_busy(p) - b0);
        check(quiet <= 2 + secs);
        printf("deferred wake-ups for 50 forks and exits in %" PRIu64 " s: %" PRIu64
               " (%" PRIu64 " with a full batch)\n",
               secs, proc_events_n_deferred_wakeups(p) - w0, proc_events_n_deferred_busy(p) - b0);

        p = proc_events_free(p);
        sd_event_unref(ev);
}

typedef struct SeenStorm {
        pid_t child;
        unsigned comm;
        bool exited, matter;
        uint64_t max_wait_ns; /* from an event's timestamp to its handling */
} SeenStorm;

static int on_storm_event(const ProcEvent *e, void *userdata)
{
        SeenStorm *s = userdata;
        struct timespec ts;
        uint64_t now;

        if (e->pid != s->child)
                return 0;
        if (e->type == PROC_EV_EXIT && e->tid == s->child)
                s->exited = true;
        if (e->type != PROC_EV_COMM)
                return 0;
        s->comm++;
        assert(clock_gettime(CLOCK_MONOTONIC, &ts) == 0);
        now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
        if (now > e->timestamp_ns && now - e->timestamp_ns > s->max_wait_ns)
                s->max_wait_ns = now - e->timestamp_ns;
        return s->matter;
}

/* A child renames itself N times, PACE_US apart, and exits: run EV until
 * its exit was handed on (20 s at most). Returns the loop's wake-ups. */
static unsigned rename_storm(sd_event *ev, SeenStorm *s, unsigned n, unsigned pace_us)
{
        uint64_t end = now_ms() + 20000;
        unsigned wakeups = 0;
        int r;

        s->comm = 0;
        s->exited = false;
        s->max_wait_ns = 0;
        s->child = fork();
        assert(s->child >= 0);
        if (s->child == 0) {
                char name[16];

                for (unsigned i = 0; i < n; i++) {
                        snprintf(name, sizeof(name), "lt-storm-%u", i);
                        prctl(PR_SET_NAME, name);
                        usleep(pace_us);
                }
                _exit(0);
        }
        while (!s->exited && now_ms() < end) {
                r = sd_event_run(ev, 100 * 1000);
                assert(r >= 0);
                wakeups += r > 0;
        }
        assert(waitpid(s->child, NULL, 0) == s->child);
        return wakeups;
}

/* A storm of events that lead to nothing (the handler returns 0) is read
 * in batches: after a few wake-ups in one interval the watch rests and the
 * sockets are read every few milliseconds instead. Every event is still
 * handed on. Events that matter (the handler returns 1) keep it prompt. */
static void test_live_quiet_rest(void)
{
        _cleanup_(proc_events_freep) ProcEvents *p = NULL;
        sd_event *ev = NULL;
        SeenStorm s = {};
        uint64_t storms;
        unsigned w;

        assert(sd_event_new(&ev) >= 0);
        assert(proc_events_new(ev, 0, on_storm_event, &s, &p) == 0);

        w = rename_storm(ev, &s, 2000, 50);
        storms = proc_events_n_quiet_storms(p);
        check(s.exited);
        check(s.comm == 2000);
        check(storms > 0);
        printf("2000 renames that lead to nothing: %u wake-ups, %" PRIu64 " quiet storm(s), %" PRIu64
               " polls, longest wait %" PRIu64 " us\n",
               w, storms, proc_events_n_quiet_polls(p), s.max_wait_ns / 1000);

        s.matter = true;
        w = rename_storm(ev, &s, 2000, 50);
        check(s.exited);
        check(s.comm == 2000);
        check(proc_events_n_quiet_storms(p) == storms);
        printf("2000 renames that matter: %u wake-ups, longest wait %" PRIu64 " us\n", w,
               s.max_wait_ns / 1000);

        p = proc_events_free(p);
        sd_event_unref(ev);
}

int main(void)
{
        test_parse();
        test_dispatch();
        if (geteuid() == 0) {
                test_live();
                test_live_filter();
                test_live_deferred();
                test_live_merge_order();
                test_live_deferred_rest();
                test_live_quiet_rest();
        } else
                printf("skipping live test: not root\n");
        return test_result();
}
