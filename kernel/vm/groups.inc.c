/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * daemon-groups: the group settings of rules (CPUIdle=, CPUWeight=,
 * CPULatencyNice= in a [Rule]) on cgroup2 with the cpu controller, which the
 * development hosts do not have (their cpu controller is bound to a v1
 * hierarchy, and their kernel has no cpu.latency.nice). Included by
 * latnice-vm-test.c, which has the helpers; everything is read back from the
 * cgroup files, never from latniced.
 *
 * Two matched processes, each in a scope of its own under one slice:
 *   build.scope  [Rule] CPUIdle = yes     cpu.idle 0 -> 1
 *   bg.scope     [Rule] CPUWeight = 20    cpu.weight 100 -> 20
 * then: the last matched process of build.scope exits -> cpu.idle 0 again;
 * a foreign write to bg.scope's cpu.weight is left alone on exit; a third
 * scope whose matched process shares it with an unmatched one is changed,
 * and latnicectl explain names that other member. cpu.latency.nice:
 *   lat.scope    [Rule] CPULatencyNice = 7, CPUWeight = 50: 0 -> 7, back
 *                to 0 when its matched process exits
 *   fgn.scope    the same rule; a foreign write (-2) is kept on exit
 *   bst.scope    [Rule] CPULatencyNice = -5 (a latency-sensitive booster)
 *                and a build (CPUIdle = yes) in one scope: -5, not idle;
 *                back to 0 on latniced's exit
 * and after a kill -9 of latniced, the next one gives lat.scope its 0 back.
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
                                            GRP_DIR "/shell.scope", GRP_DIR "/lat.scope",
                                            GRP_DIR "/fgn.scope", GRP_DIR "/bst.scope" };
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
                   "[Rule shared]\nMatch = name:ln-vm-make\nCPUWeight = 30\n\n"
                   "[Rule latency]\nMatch = name:ln-vm-lat\nCPULatencyNice = 7\nCPUWeight = 50\n\n"
                   "[Rule audio]\nMatch = name:ln-vm-audio\nCPULatencyNice = -5\n");
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

/* cpu.latency.nice of the scopes, as the rules ask: lat.scope and
 * fgn.scope 7 (with lat.scope's weight 50), bst.scope the booster's -5 and
 * not idle, although a build in it asks for that. */
static int groups_check_latency(void)
{
        long long v = -1;

        CHECK(wait_scope_file("lat.scope", "cpu.latency.nice", 7, &v),
              "lat.scope cpu.latency.nice %lld, not 7", v);
        CHECK(wait_scope_file("lat.scope", "cpu.weight", 50, &v),
              "lat.scope cpu.weight %lld, not 50 (the rule's other group setting)", v);
        CHECK(wait_scope_file("fgn.scope", "cpu.latency.nice", 7, &v),
              "fgn.scope cpu.latency.nice %lld, not 7", v);
        CHECK(wait_scope_file("bst.scope", "cpu.latency.nice", -5, &v),
              "bst.scope cpu.latency.nice %lld, not the booster's -5", v);
        sleep_ms(300);
        CHECK(read_ll(GRP_DIR "/bst.scope/cpu.idle", &v) == 0 && v == 0,
              "bst.scope cpu.idle %lld: a scope with a latency-sensitive booster was made idle "
              "for a build in it", v);
        note("cpu.latency.nice: lat.scope 7 (cpu.weight 50), fgn.scope 7, bst.scope -5 and "
             "not idle with a build in it");
        return 0;
}

/* After latniced's exit: SCOPE's FILE reads WANT. */
static bool groups_after_exit(const char *scope, const char *file, long long want)
{
        char path[256];
        long long v = -1;

        snprintf(path, sizeof(path), "%s/%s/%s", GRP_DIR, scope, file);
        if (read_ll(path, &v) == 0 && v == want)
                return true;
        note("after latniced exited %s has %s %lld, not %lld", scope, file, v, want);
        return false;
}

static void groups_stop(pid_t daemon, int sig)
{
        int status;

        if (daemon <= 0)
                return;
        kill(daemon, sig);
        for (int i = 0; i < 100 && waitpid(daemon, &status, WNOHANG) == 0; i++)
                sleep_ms(50);
        kill_wait(daemon);
}

/* latniced killed with SIGKILL while lat.scope has cpu.latency.nice 7: the
 * next latniced, with the same state file and no rule for it any more,
 * gives the 0 back at start-up. */
static int groups_crash_latency(const char *const dargv[])
{
        pid_t lat, daemon;
        long long v = -1;
        bool ok;

        lat = spawn_in_scope("lat.scope", "ln-vm-lat");
        daemon = spawn(dargv, GRP_LOG);
        CHECK(lat > 0 && daemon > 0, "fork: %m");
        ok = wait_scope_file("lat.scope", "cpu.latency.nice", 7, &v);
        groups_stop(daemon, SIGKILL);
        if (!ok) {
                kill_wait(lat);
                print_file(GRP_LOG);
                CHECK(false, "crash: lat.scope cpu.latency.nice %lld, not 7", v);
        }
        unlink(GRP_POLICY "/50-groups.policy");
        daemon = spawn(dargv, GRP_LOG);
        ok = daemon > 0 && wait_scope_file("lat.scope", "cpu.latency.nice", 0, &v);
        groups_stop(daemon, SIGTERM);
        kill_wait(lat);
        if (!ok)
                print_file(GRP_LOG);
        CHECK(ok, "crash: after a kill -9 and a restart without the rule lat.scope has "
                  "cpu.latency.nice %lld, not its original 0", v);
        note("crash: kill -9 with lat.scope at cpu.latency.nice 7, restart without the rule: "
             "0 back at start-up");
        return 0;
}

static int test_daemon_groups(void)
{
        const char *const dargv[] = { LATNICED, "--foreground", "--policy-dir", GRP_POLICY,
                                      "--state-file", "/run/latnice/groups.state", "--bus",
                                      "none", "--log-level", "debug", NULL };
        pid_t build = -1, bg = -1, make = -1, shell = -1, daemon = -1;
        pid_t lat = -1, fgn = -1, audio = -1, bbuild = -1;
        long long v = -1;
        int ret = 1;

        if (groups_prepare() != 0)
                return 1;
        build = spawn_in_scope("build.scope", "ln-vm-build");
        bg = spawn_in_scope("bg.scope", "ln-vm-bg");
        shell = spawn_in_scope("shell.scope", "ln-vm-shell");
        make = spawn_in_scope("shell.scope", "ln-vm-make");
        lat = spawn_in_scope("lat.scope", "ln-vm-lat");
        fgn = spawn_in_scope("fgn.scope", "ln-vm-lat");
        audio = spawn_in_scope("bst.scope", "ln-vm-audio");
        bbuild = spawn_in_scope("bst.scope", "ln-vm-build");
        unlink(GRP_LOG);
        daemon = spawn(dargv, GRP_LOG);
        if (build < 0 || bg < 0 || shell < 0 || make < 0 || lat < 0 || fgn < 0 || audio < 0 ||
            bbuild < 0 || daemon < 0) {
                note("fork: %m");
                goto out;
        }
        if (groups_check_applied(build, bg, make, shell) != 0 || groups_check_latency() != 0)
                goto out;

        /* The last matched process of build.scope leaves: the group is given back. */
        kill_wait(build);
        build = -1;
        if (!wait_scope_file("build.scope", "cpu.idle", 0, &v)) {
                note("build.scope cpu.idle %lld after its matched process exited, not 0", v);
                goto out;
        }
        note("build.scope cpu.idle is 0 again after its matched process exited");
        kill_wait(lat);
        lat = -1;
        if (!wait_scope_file("lat.scope", "cpu.latency.nice", 0, &v) ||
            !wait_scope_file("lat.scope", "cpu.weight", 100, &v)) {
                note("lat.scope not given back after its matched process exited: %lld", v);
                goto out;
        }
        note("lat.scope is back at cpu.latency.nice 0, cpu.weight 100 after its matched "
             "process exited");

        /* Someone else sets bg.scope's weight and fgn.scope's latency nice:
         * theirs from then on. */
        if (write_str(GRP_DIR "/bg.scope/cpu.weight", "50") < 0 ||
            write_str(GRP_DIR "/fgn.scope/cpu.latency.nice", "-2") < 0) {
                note("foreign write: %m");
                goto out;
        }
        sleep_ms(300);
        ret = 0;
out:
        groups_stop(daemon, SIGTERM);
        /* On exit: shell.scope back to 100, bst.scope to latency nice 0;
         * bg.scope keeps the foreign 50, fgn.scope the foreign -2. */
        if (ret == 0 &&
            !(groups_after_exit("shell.scope", "cpu.weight", 100) &&
              groups_after_exit("bg.scope", "cpu.weight", 50) &&
              groups_after_exit("bst.scope", "cpu.latency.nice", 0) &&
              groups_after_exit("fgn.scope", "cpu.latency.nice", -2)))
                ret = 1;
        if (ret == 0)
                note("on exit shell.scope is back at cpu.weight 100 and bst.scope at "
                     "cpu.latency.nice 0; bg.scope keeps the foreign cpu.weight 50, fgn.scope "
                     "the foreign cpu.latency.nice -2");
        if (ret)
                print_file(GRP_LOG);
        kill_wait(build);
        kill_wait(bg);
        kill_wait(make);
        kill_wait(shell);
        kill_wait(lat);
        kill_wait(fgn);
        kill_wait(audio);
        kill_wait(bbuild);
        if (ret == 0)
                ret = groups_crash_latency(dargv);
        return ret;
}
