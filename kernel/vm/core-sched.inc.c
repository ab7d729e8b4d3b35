/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * core-sched: CoreSched= of latniced on a guest with SMT siblings (qemu
 * -smp 2,sockets=1,cores=1,threads=2, CONFIG_SCHED_CORE), which the
 * development hosts do not have. Included by latnice-vm-test.c, which has the
 * helpers. Every cookie is read here with PR_SCHED_CORE_GET, never taken
 * from latniced.
 *
 *   [Rule cs-proc]  name:ln-cs-proc or ln-cs-foreign   CoreSched = process
 *   [Rule cs-rule]  name:ln-cs-rule                   CoreSched = rule
 *
 * Targets before latniced starts (its first scan) and after (exec events):
 * two of cs-proc get distinct cookies, three of cs-rule one shared cookie,
 * none of them one of the other rule's; a thread and a child created
 * afterwards carry their process's; a process that made a cookie of its
 * own (ln-cs-foreign) keeps it; latniced and the test itself have none.
 * Then cs-rule is removed (reload: its processes lose the cookie, cs-proc's
 * keep theirs), and latniced's exit leaves every process it managed, and
 * their threads, with no cookie; the foreign one still has its own.
 *
 * core-sched-bench: the cost, two CPU hogs on the two siblings of the one
 * core, with no cookies and with a cookie each (functional figures: TCG).
 */
#include <dirent.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/random.h>

#define CS_PR_SCHED_CORE 62
#define CS_GET 0
#define CS_CREATE 1
#define CS_SCOPE_THREAD 0
#define CS_POLICY "/tmp/ln-cs-policy"
#define CS_LOG "/tmp/latniced-cs.log"
#define CS_STATE "/run/latnice/cs.state" /* latniced refuses a state file in /tmp */

static int cs_get(pid_t tid, uint64_t *ret)
{
        uint64_t id = 0;

        if (prctl(CS_PR_SCHED_CORE, CS_GET, (unsigned long) tid, CS_SCOPE_THREAD,
                  (unsigned long) &id) < 0)
                return -errno;
        *ret = id;
        return 0;
}

static int cs_create_self(void)
{
        return prctl(CS_PR_SCHED_CORE, CS_CREATE, 0UL, CS_SCOPE_THREAD, 0UL) < 0 ? -errno : 0;
}

static void *cs_thread_pause(void *unused)
{
        (void) unused;
        for (;;)
                pause();
        return NULL;
}

/*
 * The targets: ln-vm-target exec'd with argv[0] "ln-cs-...". Every one
 * pauses; on SIGUSR1 a ln-cs-proc/-rule creates a thread, on SIGUSR2 a child
 * that execs as ln-cs-kid (which no rule matches) and writes its pid to
 * /tmp/ln-cs-kid.PID. ln-cs-foreign makes a cookie of its own first.
 * Runs before main() (glibc passes argc and argv to constructors).
 */
__attribute__((constructor)) static void cs_target(int argc, char **argv, char **envp)
{
        const char *self;
        sigset_t ss;

        (void) envp;
        if (argc < 1 || !argv[0])
                return;
        self = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
        if (strncmp(self, "ln-cs-", 6) != 0)
                return;
        alarm(300);
        if (strcmp(self, "ln-cs-foreign") == 0 && cs_create_self() < 0)
                _exit(3);
        if (strcmp(self, "ln-cs-kid") == 0 || strcmp(self, "ln-cs-foreign") == 0 ||
            strcmp(self, "ln-cs-hog") == 0)
                for (;;)
                        pause();

        sigemptyset(&ss);
        sigaddset(&ss, SIGUSR1);
        sigaddset(&ss, SIGUSR2);
        sigprocmask(SIG_BLOCK, &ss, NULL);
        for (;;) {
                int sig = sigwaitinfo(&ss, NULL);
                pthread_t t;

                if (sig == SIGUSR1)
                        (void) pthread_create(&t, NULL, cs_thread_pause, NULL);
                else if (sig == SIGUSR2) {
                        char path[64], buf[32];
                        pid_t kid = fork();

                        if (kid == 0) {
                                char *const kargv[] = { "ln-cs-kid", NULL };
                                sigprocmask(SIG_UNBLOCK, &ss, NULL);
                                execv("/usr/bin/ln-vm-target", kargv);
                                _exit(127);
                        }
                        int fd;

                        snprintf(path, sizeof(path), "/tmp/ln-cs-kid.%d", (int) getpid());
                        snprintf(buf, sizeof(buf), "%d\n", (int) kid);
                        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
                        if (fd >= 0) {
                                (void) !write(fd, buf, strlen(buf));
                                close(fd);
                        }
                }
        }
}

static pid_t cs_spawn(const char *name)
{
        pid_t pid = fork();

        if (pid == 0) {
                char *const argv[] = { (char *) name, NULL };
                execv(TARGET, argv);
                _exit(127);
        }
        return pid;
}

/* Wait until PID's cookie is nonzero (WANT_SET) or zero; the last one read in *RET. */
static int cs_wait(pid_t pid, bool want_set, uint64_t *ret)
{
        uint64_t id = 0;
        int r = 0;

        for (int i = 0; i < 300; i++) {
                r = cs_get(pid, &id);
                if (r == 0 && (id != 0) == want_set)
                        break;
                sleep_ms(50);
        }
        *ret = id;
        return r;
}

/* The threads of PID (up to MAX) into TIDS; their number. */
static size_t cs_threads(pid_t pid, pid_t *tids, size_t max)
{
        char path[64];
        struct dirent *de;
        size_t n = 0;
        DIR *d;

        snprintf(path, sizeof(path), "/proc/%d/task", (int) pid);
        d = opendir(path);
        if (!d)
                return 0;
        while ((de = readdir(d)) && n < max)
                if (de->d_name[0] != '.')
                        tids[n++] = (pid_t) atoi(de->d_name);
        closedir(d);
        return n;
}

/* Every thread of PID has cookie WANT; QUIET: say nothing of those that do not. */
static bool cs_threads_have(pid_t pid, uint64_t want, const char *what, bool quiet)
{
        pid_t tids[16];
        size_t n = cs_threads(pid, tids, 16);
        bool ok = n > 0;

        for (size_t i = 0; i < n; i++) {
                uint64_t id = 1;

                if (cs_get(tids[i], &id) < 0 || id != want) {
                        if (!quiet)
                                note("%s %d thread %d: cookie %#" PRIx64 ", expected %#" PRIx64,
                                     what, (int) pid, (int) tids[i], id, want);
                        ok = false;
                }
        }
        return ok;
}

static bool cs_all_threads(pid_t pid, uint64_t want, const char *what)
{
        return cs_threads_have(pid, want, what, false);
}

/* Wait (up to 15 s) until every thread of PID has no cookie; said if not. */
static bool cs_wait_threads_clear(pid_t pid, const char *what)
{
        for (int i = 0; i < 300; i++) {
                if (cs_threads_have(pid, 0, what, true))
                        return true;
                sleep_ms(50);
        }
        return cs_all_threads(pid, 0, what);
}

static int cs_write_policy(bool with_rule)
{
        FILE *f;

        if (mkdir(CS_POLICY, 0755) < 0 && errno != EEXIST)
                return -errno;
        f = fopen(CS_POLICY "/50-cs.policy.tmp", "we");
        if (!f)
                return -errno;
        fprintf(f, "[Rule cs-proc]\nMatch = name:ln-cs-proc || name:ln-cs-foreign\n"
                   "CoreSched = process\n");
        if (with_rule)
                fprintf(f, "\n[Rule cs-rule]\nMatch = name:ln-cs-rule\nCoreSched = rule\n");
        if (fclose(f) != 0)
                return -errno;
        return rename(CS_POLICY "/50-cs.policy.tmp", CS_POLICY "/50-cs.policy") < 0 ? -errno : 0;
}

/* The kernel can do it here, and cookie ids can be read (they are 0 until
 * the RNG is seeded: getrandom() blocks until then). */
static int cs_ready(void)
{
        char *sib = NULL, buf[16];
        uint64_t id = 1;
        int r;

        CHECK(getrandom(buf, sizeof(buf), 0) == (ssize_t) sizeof(buf), "getrandom: %m");
        r = cs_get(0, &id);
        CHECK(r == 0, "PR_SCHED_CORE_GET: %s (EINVAL: no CONFIG_SCHED_CORE, ENODEV: no SMT)",
              strerror(-r));
        CHECK(id == 0, "the test already has a cookie: %#" PRIx64, id);
        if (read_file("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list", &sib) == 0) {
                note("cpu0 SMT siblings: %s", sib);
                free(sib);
        }
        return 0;
}

/* latnicectl kernel --json says core scheduling works. */
static int cs_check_kernel_json(void)
{
        const char *const argv[] = { LATNICECTL, "kernel", "--json", NULL };
        const char *out = "/tmp/latnicectl-kernel-cs.json";
        char *s = NULL;
        int status;
        pid_t pid;
        bool ok;

        unlink(out);
        pid = spawn(argv, out);
        CHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "latnicectl kernel: %m");
        CHECK(read_file(out, &s) == 0, "no output of latnicectl kernel --json");
        /* "core_scheduling": true, in whatever spacing --json uses */
        {
                const char *p = strstr(s, "\"core_scheduling\"");

                ok = false;
                if (p) {
                        p += strlen("\"core_scheduling\"");
                        p += strspn(p, " \t\n");
                        if (*p == ':') {
                                p++;
                                p += strspn(p, " \t\n");
                                ok = strncmp(p, "true", 4) == 0;
                        }
                }
        }
        if (!ok)
                print_file(out);
        free(s);
        CHECK(ok, "latnicectl kernel --json does not say \"core_scheduling\": true");
        return 0;
}

enum { CS_P1, CS_P2, CS_R1, CS_R2, CS_R3, CS_F, CS_N };

/* Threads made now in cs-proc 1 and cs-rule 1, and a child of cs-proc 1
 * (*KID), carry their process's cookie. 0 or -1 (noted). */
static int cs_check_inherit(const pid_t pid[CS_N], const uint64_t id[CS_N], pid_t *kid)
{
        uint64_t v = 0;

        kill(pid[CS_P1], SIGUSR1);
        kill(pid[CS_R1], SIGUSR1);
        kill(pid[CS_P1], SIGUSR2);
        for (int i = 0; i < 100; i++) {
                pid_t t[4];
                char *s = NULL, path[64];

                snprintf(path, sizeof(path), "/tmp/ln-cs-kid.%d", (int) pid[CS_P1]);
                if (*kid <= 0 && read_file(path, &s) == 0) {
                        *kid = (pid_t) atoi(s);
                        free(s);
                }
                if (*kid > 0 && cs_threads(pid[CS_P1], t, 4) == 2 && cs_threads(pid[CS_R1], t, 4) == 2)
                        break;
                sleep_ms(50);
        }
        /* No wait for latniced's look at the new threads: their forks come
         * on the socket that rests up to a second, and the rule removal that
         * follows must take the cookie from them whether they were handed on
         * before it or not. */
        if (*kid <= 0 || !cs_all_threads(pid[CS_P1], id[CS_P1], "ln-cs-proc") ||
            !cs_all_threads(pid[CS_R1], id[CS_R1], "ln-cs-rule") ||
            cs_get(*kid, &v) < 0 || v != id[CS_P1]) {
                note("a new thread or child (%d: %#" PRIx64 ") lacks its process's cookie",
                     (int) *kid, v);
                return -1;
        }
        note("a new thread and a child (%d) carry their process's cookie", (int) *kid);
        return 0;
}

static int test_core_sched(void)
{
        static const char *const names[CS_N] = { "ln-cs-proc", "ln-cs-proc", "ln-cs-rule",
                                                 "ln-cs-rule", "ln-cs-rule", "ln-cs-foreign" };
        const char *const dargv[] = { LATNICED, "--foreground", "--policy-dir", CS_POLICY,
                                      "--bus", "none", "--state-file", CS_STATE,
                                      "--log-level", "debug", NULL };
        pid_t pid[CS_N] = { 0 }, daemon = -1, kid = -1;
        uint64_t id[CS_N] = { 0 }, foreign = 0, v = 0;
        int ret = 1, r;

        if (cs_ready() != 0 || cs_check_kernel_json() != 0 || cs_write_policy(true) < 0)
                return 1;

        /* Before latniced: cs-proc 1, cs-rule 1 and 2, the foreign one. */
        for (int i = 0; i < CS_N; i++)
                if (i == CS_P1 || i == CS_R1 || i == CS_R2 || i == CS_F)
                        pid[i] = cs_spawn(names[i]);
        r = cs_wait(pid[CS_F], true, &foreign);
        if (r < 0 || foreign == 0) {
                note("ln-cs-foreign has no cookie of its own: %s", strerror(-r));
                goto out;
        }
        unlink(CS_LOG);
        unlink(CS_STATE);
        daemon = spawn(dargv, CS_LOG);
        if (daemon < 0)
                goto out;
        sleep_ms(500);
        pid[CS_P2] = cs_spawn(names[CS_P2]);
        pid[CS_R3] = cs_spawn(names[CS_R3]);

        for (int i = 0; i < CS_N; i++) {
                r = cs_wait(pid[i], true, &id[i]);
                if (r < 0 || id[i] == 0) {
                        note("%s %d never got a cookie (%s)", names[i], (int) pid[i],
                             r < 0 ? strerror(-r) : "still 0");
                        goto out;
                }
                note("%s %d: cookie %#" PRIx64, names[i], (int) pid[i], id[i]);
        }
        if (id[CS_P1] == id[CS_P2] || id[CS_R1] != id[CS_R2] || id[CS_R1] != id[CS_R3] ||
            id[CS_R1] == id[CS_P1] || id[CS_R1] == id[CS_P2]) {
                note("process: distinct, rule: one shared, and not the same as process's: no");
                goto out;
        }
        if (id[CS_F] != foreign) {
                note("latniced replaced the cookie ln-cs-foreign made itself");
                goto out;
        }
        if (cs_get(0, &v) < 0 || v != 0 || !cs_all_threads(daemon, 0, "latniced")) {
                note("the test or latniced itself has a cookie");
                goto out;
        }
        note("process: distinct, rule: shared, foreign kept, latniced and the test: none");

        /* A thread and a child created now carry their process's cookie. */
        if (cs_check_inherit(pid, id, &kid) < 0)
                goto out;

        /* cs-rule removed: its processes lose the cookie, every thread of
         * them (cs-rule 1's new one too), cs-proc's keep theirs. */
        if (cs_write_policy(false) < 0 || kill(daemon, SIGHUP) < 0)
                goto out;
        for (int i = CS_R1; i <= CS_R3; i++) {
                r = cs_wait(pid[i], false, &v);
                if (r < 0 || v != 0) {
                        note("after cs-rule went away %d still has cookie %#" PRIx64,
                             (int) pid[i], v);
                        goto out;
                }
                if (!cs_wait_threads_clear(pid[i], names[i])) {
                        note("after cs-rule went away a thread of %d kept the cookie",
                             (int) pid[i]);
                        goto out;
                }
        }
        if (cs_get(pid[CS_P1], &v) < 0 || v != id[CS_P1]) {
                note("the reload changed cs-proc's cookie");
                goto out;
        }
        note("rule removed: its processes have no cookie, the others keep theirs");
        ret = 0;
out:
        if (daemon > 0) {
                int status;

                kill(daemon, SIGTERM);
                for (int i = 0; i < 200 && waitpid(daemon, &status, WNOHANG) == 0; i++)
                        sleep_ms(50);
                kill_wait(daemon);
                /* Its exit leaves no cookie on what it managed, threads included. */
                for (int i = 0; ret == 0 && i < CS_N; i++) {
                        uint64_t want = i == CS_F ? foreign : 0;

                        if (!cs_all_threads(pid[i], want, names[i])) {
                                note("after latniced's exit: a cookie left (or the foreign "
                                     "one gone)");
                                ret = 1;
                        }
                }
                if (ret == 0)
                        note("latniced exited: no cookie left, the foreign one kept");
        }
        if (ret)
                print_file(CS_LOG);
        for (int i = 0; i < CS_N; i++)
                kill_wait(pid[i]);
        kill_wait(kid);
        return ret;
}

/* Iterations of a busy loop in MS milliseconds on the calling task. */
static uint64_t cs_spin(unsigned ms)
{
        uint64_t end = now_ns() + (uint64_t) ms * 1000000, n = 0;

        while (now_ns() < end)
                for (int i = 0; i < 1000; i++)
                        n++;
        return n;
}

/* Two hogs, one on each sibling of the core (CPUs 0 and 1), for MS; each
 * with a cookie of its own when COOKIES. The sum of their iterations. */
static int cs_bench_once(bool cookies, unsigned ms, uint64_t *ret)
{
        int fds[2][2];
        pid_t p[2];
        uint64_t sum = 0;

        for (int i = 0; i < 2; i++) {
                if (pipe2(fds[i], O_CLOEXEC) < 0)
                        return -errno;
                p[i] = fork();
                if (p[i] < 0)
                        return -errno;
                if (p[i] == 0) {
                        uint64_t n;

                        (void) pin_cpu(0, i);
                        if (cookies && cs_create_self() < 0)
                                _exit(1);
                        n = cs_spin(ms);
                        _exit(write(fds[i][1], &n, sizeof(n)) == sizeof(n) ? 0 : 1);
                }
                close(fds[i][1]);
        }
        for (int i = 0; i < 2; i++) {
                uint64_t n = 0;
                int status;

                if (read(fds[i][0], &n, sizeof(n)) != sizeof(n))
                        n = 0;
                close(fds[i][0]);
                waitpid(p[i], &status, 0);
                if (n == 0)
                        return -EIO;
                sum += n;
        }
        *ret = sum;
        return 0;
}

static int test_core_sched_bench(void)
{
        uint64_t none = 0, split = 0;
        int r;

        if (cs_ready() != 0)
                return 1;
        r = cs_bench_once(false, 2000, &none);
        CHECK(r == 0, "hogs without cookies: %s", strerror(-r));
        r = cs_bench_once(true, 2000, &split);
        CHECK(r == 0, "hogs with a cookie each: %s", strerror(-r));
        printf("LATNICE-VM-RESULT core-sched-bench no-cookies=%" PRIu64 " cookie-each=%" PRIu64
               " ratio=%.2f (iterations of two hogs on the 2 SMT siblings in 2 s; TCG: "
               "functional figures only)\n",
               none, split, none ? (double) split / (double) none : 0.0);
        fflush(stdout);
        /* Functional: both made progress. Timing is never asserted. */
        return 0;
}
