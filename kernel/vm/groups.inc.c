/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * daemon-groups: the group settings of rules (CPUIdle=, CPUWeight= in a
 * [Rule]) on cgroup2 with the cpu controller, which the development hosts
 * do not have (their cpu controller is bound to a v1 hierarchy). Included by
 * latnice-vm-test.c, which has the helpers; everything is read back from the
 * cgroup files, never from latniced.
 *
 * Two matched processes, each in a scope of its own under one slice:
 *   build.scope  [Rule] CPUIdle = yes     cpu.idle 0 -> 1
 *   bg.scope     [Rule] CPUWeight = 20    cpu.weight 100 -> 20
 * then: the last matched process of build.scope exits -> cpu.idle 0 again;
 * a foreign write to bg.scope's cpu.weight is left alone on exit; a third
 * scope whose matched process shares it with an unmatched one is changed,
 * and latnicectl explain names that other member.
 */

#define GRP_DIR CGROUP2 "/ln-groups"
#define GRP_POLICY "/tmp/ln-groups-policy"
#define GRP_LOG "/tmp/latniced-groups.log"

/* Fork a target named NAME (a symlink to the target binary, so comm is NAME
 * while argv[0] keeps it a target) inside the cgroup SCOPE: the child moves
 * itself there before it execs, as systemd does. */
static pid_t spawn_in_scope(const char *scope, const char *name)
{
        char link[64], procs[256];
        pid_t pid;

        snprintf(link, sizeof(link), "/tmp/%s", name);
        if (symlink(TARGET, link) < 0 && errno != EEXIST)
                return -1;
        snprintf(procs, sizeof(procs), "%s/%s/cgroup.procs", GRP_DIR, scope);
        pid = fork();
        if (pid == 0) {
                char *const argv[] = { (char *) "ln-vm-target", NULL };

                if (write_str(procs, "0") < 0)
                        _exit(126);
                execv(link, argv);
                _exit(127);
        }
        return pid;
}

/* Wait until FILE in SCOPE reads WANT; RET gets the last value read. */
static bool wait_scope_file(const char *scope, const char *file, long long want, long long *ret)
{
        char path[256];

        snprintf(path, sizeof(path), "%s/%s/%s", GRP_DIR, scope, file);
        for (int i = 0; i < 200; i++) {
                if (read_ll(path, ret) == 0 && *ret == want)
                        return true;
                sleep_ms(50);
        }
        return false;
}

/* The cpu controller back in cgroup2. cgroup-v1 took it into a v1
 * hierarchy and unmounted that while its child group was still being
 * released: the kernel then keeps the hierarchy, and the controller, until it
 * is mounted and unmounted once more without children. */
static int groups_cpu_controller(void)
{
        const char *mnt = "/tmp/cgv1-groups";
        int r = enable_cpu_controller();

        if (r != -ENOENT)
                return r;
        if (mkdir(mnt, 0755) < 0 && errno != EEXIST)
                return -errno;
        if (mount("cgroup", mnt, "cgroup", 0, "cpu") == 0) {
                note("the cpu controller was still in a v1 hierarchy: mounted and unmounted it");
                if (umount(mnt) < 0)
                        return -errno;
        }
        return enable_cpu_controller();
}

static int groups_prepare(void)
{
        static const char *const dirs[] = { GRP_DIR, GRP_DIR "/build.scope", GRP_DIR "/bg.scope",
                                            GRP_DIR "/shell.scope" };
        FILE *f;
        int r;

        r = groups_cpu_controller();
        CHECK(r == 0, "enable +cpu in %s/cgroup.subtree_control: %s", CGROUP2, strerror(-r));
        for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
                if (mkdir(dirs[i], 0755) < 0 && errno != EEXIST)
                        CHECK(false, "mkdir %s: %m", dirs[i]);
                if (i == 0) {
                        r = write_str(GRP_DIR "/cgroup.subtree_control", "+cpu");
                        CHECK(r == 0, "+cpu in %s: %s", GRP_DIR, strerror(-r));
                }
        }
        if (mkdir(GRP_POLICY, 0755) < 0 && errno != EEXIST)
                CHECK(false, "mkdir: %m");
        f = fopen(GRP_POLICY "/50-groups.policy", "we");
        CHECK(f, "policy file: %m");
        fprintf(f, "[Rule build]\nMatch = name:ln-vm-build\nCPUIdle = yes\n\n"
                   "[Rule background]\nMatch = name:ln-vm-bg\nCPUWeight = 20\n\n"
                   "[Rule shared]\nMatch = name:ln-vm-make\nCPUWeight = 30\n");
        fclose(f);
        return 0;
}

/* latnicectl explain PID must name OTHER as another member of the group. */
static int groups_explain_names(pid_t pid, pid_t other)
{
        char pidbuf[16], want[32], *s = NULL;
        const char *const argv[] = { LATNICECTL, "explain", pidbuf, "--policy-dir", GRP_POLICY,
                                     NULL };
        const char *out = "/tmp/latnicectl-explain-groups.txt";
        int status;
        bool ok;
        pid_t p;

        snprintf(pidbuf, sizeof(pidbuf), "%d", (int) pid);
        snprintf(want, sizeof(want), " %d (", (int) other);
        unlink(out);
        p = spawn(argv, out);
        CHECK(p > 0 && waitpid(p, &status, 0) == p, "latnicectl explain: %m");
        ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 && read_file(out, &s) == 0 &&
             strstr(s, "also holds") && strstr(s, want);
        if (!ok)
                print_file(out);
        free(s);
        CHECK(ok, "latnicectl explain %d does not name pid %d as another member", (int) pid,
              (int) other);
        note("latnicectl explain %d names pid %d as another member of its group", (int) pid,
             (int) other);
        return 0;
}

static int groups_check_applied(pid_t build, pid_t bg, pid_t make, pid_t shell)
{
        long long v = -1;

        CHECK(wait_scope_file("build.scope", "cpu.idle", 1, &v), "build.scope cpu.idle %lld, not 1",
              v);
        CHECK(wait_scope_file("bg.scope", "cpu.weight", 20, &v), "bg.scope cpu.weight %lld, not 20",
              v);
        CHECK(wait_scope_file("shell.scope", "cpu.weight", 30, &v),
              "shell.scope cpu.weight %lld, not 30", v);
        note("cpu.idle of build.scope (pid %d) is 1, cpu.weight of bg.scope (pid %d) 20, "
             "of shell.scope (pid %d, with pid %d) 30", (int) build, (int) bg, (int) make,
             (int) shell);
        return groups_explain_names(make, shell);
}

static int test_daemon_groups(void)
{
        const char *const dargv[] = { LATNICED, "--foreground", "--policy-dir", GRP_POLICY,
                                      "--state-file", "/tmp/latniced-groups.state", "--bus",
                                      "none", "--log-level", "debug", NULL };
        pid_t build = -1, bg = -1, make = -1, shell = -1, daemon = -1;
        long long v = -1;
        int ret = 1;

        if (groups_prepare() != 0)
                return 1;
        build = spawn_in_scope("build.scope", "ln-vm-build");
        bg = spawn_in_scope("bg.scope", "ln-vm-bg");
        shell = spawn_in_scope("shell.scope", "ln-vm-shell");
        make = spawn_in_scope("shell.scope", "ln-vm-make");
        unlink(GRP_LOG);
        daemon = spawn(dargv, GRP_LOG);
        if (build < 0 || bg < 0 || shell < 0 || make < 0 || daemon < 0) {
                note("fork: %m");
                goto out;
        }
        if (groups_check_applied(build, bg, make, shell) != 0)
                goto out;

        /* The last matched process of build.scope leaves: the group is given back. */
        kill_wait(build);
        build = -1;
        if (!wait_scope_file("build.scope", "cpu.idle", 0, &v)) {
                note("build.scope cpu.idle %lld after its matched process exited, not 0", v);
                goto out;
        }
        note("build.scope cpu.idle is 0 again after its matched process exited");

        /* Someone else sets bg.scope's weight: theirs from then on. */
        if (write_str(GRP_DIR "/bg.scope/cpu.weight", "50") < 0) {
                note("write bg.scope cpu.weight: %m");
                goto out;
        }
        sleep_ms(300);
        ret = 0;
out:
        if (daemon > 0) {
                int status;

                kill(daemon, SIGTERM);
                for (int i = 0; i < 100 && waitpid(daemon, &status, WNOHANG) == 0; i++)
                        sleep_ms(50);
                kill_wait(daemon);
        }
        if (ret == 0) {
                /* On exit: shell.scope back to 100; bg.scope keeps the foreign 50. */
                if (read_ll(GRP_DIR "/shell.scope/cpu.weight", &v) < 0 || v != 100) {
                        note("after latniced exited shell.scope has cpu.weight %lld, not 100", v);
                        ret = 1;
                } else if (read_ll(GRP_DIR "/bg.scope/cpu.weight", &v) < 0 || v != 50) {
                        note("after latniced exited bg.scope has cpu.weight %lld, not the "
                             "foreign 50", v);
                        ret = 1;
                } else {
                        note("on exit shell.scope is back at cpu.weight 100, bg.scope keeps the "
                             "foreign 50");
                }
        }
        if (ret)
                print_file(GRP_LOG);
        kill_wait(build);
        kill_wait(bg);
        kill_wait(make);
        kill_wait(shell);
        return ret;
}
