/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit test of how the group table combines the requests on one group
 * (daemon/groups/groups.c with group-asks.h), on the real kernel: root's
 * processes in a cgroup of the test's own in the v1 cpu hierarchy ask for
 * CPUWeight= and CPUIdle= (group_table_request()), become latency-sensitive
 * (group_table_protect()) or stop asking (group_table_release()), in random
 * orders. After each step the group's cpu.idle and cpu.shares, read from
 * the files, are what a walk over the live requests written here gives:
 * what counts is every request, or only the boosters' (a weight above the
 * default) while a protector or booster is there; idle if any of those asks
 * for CPUIdle=yes, else not if any asks no; the lowest CPUWeight= asked; a
 * field nobody asks for is the group's original; the last one leaving gives
 * the group back. Needs root and a v1 cpu hierarchy with cpu.idle (skipped
 * otherwise).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/groups/groups.h"
#include "lib/macro.h"
#include "lib/proc.h"
#include "lib/sched-group.h"
#include "lib/settings.h"
#include "cgroup-member.h"
#include "test-util.h"

#define N_PROCS 6

typedef enum Role {
        ROLE_NONE,      /* not a requester */
        ROLE_ASKS,      /* a request that is no boost */
        ROLE_BOOSTER,   /* a request for a boost of the group (a weight above 100) */
        ROLE_PROTECTOR, /* latency-sensitive, asks nothing itself */
} Role;

typedef struct Proc {
        pid_t pid;
        uint64_t starttime;
        Role role;
        bool has_weight, has_idle, idle;
        uint32_t weight;
} Proc;

static char dir[256];

static long long read_knob(const char *name)
{
        char path[300];
        long long v = -1;
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        f = fopen(path, "re");
        CHECK(f);
        if (fscanf(f, "%lld", &v) != 1)
                v = -1;
        fclose(f);
        return v;
}

/* The walk: what the live requests give together (ORIG: shares 1024, not
 * idle). */
static void reference(const Proc *p, bool *ret_idle, uint32_t *ret_weight)
{
        bool guarded = false, has_idle = false, idle = false;
        uint32_t weight = 100;
        bool has_weight = false;

        for (size_t i = 0; i < N_PROCS; i++)
                guarded = guarded || p[i].role == ROLE_BOOSTER || p[i].role == ROLE_PROTECTOR;
        for (size_t i = 0; i < N_PROCS; i++) {
                if (p[i].role != (guarded ? ROLE_BOOSTER : ROLE_ASKS))
                        continue;
                if (p[i].has_idle) {
                        idle = has_idle ? idle || p[i].idle : p[i].idle;
                        has_idle = true;
                }
                if (p[i].has_weight) {
                        weight = has_weight ? MIN(weight, p[i].weight) : p[i].weight;
                        has_weight = true;
                }
        }
        *ret_idle = idle;
        *ret_weight = weight;
}

/* The group's files hold what the walk gives; STEP names the failure. */
static bool agrees(const Proc *p, const char *step, unsigned n)
{
        long long idle = read_knob("cpu.idle"), shares = read_knob("cpu.shares");
        uint32_t weight;
        bool want_idle;

        reference(p, &want_idle, &weight);
        if (idle == want_idle &&
            (want_idle || shares == (long long)sched_group_weight_to_shares(weight)))
                return true;
        test_fail("step %u (%s): cpu.idle %lld cpu.shares %lld; want idle %d, weight %u "
                  "(shares %llu)", n, step, idle, shares, want_idle, weight,
                  (unsigned long long)sched_group_weight_to_shares(weight));
        return false;
}

static void ask(GroupTable *t, Proc *q, Role role)
{
        static const uint32_t low[] = { 10, 50, 50, 80, 100 }, high[] = { 200, 300, 300 };
        char a[64];
        Settings s = {};

        q->role = role;
        q->has_weight = q->has_idle = false;
        if (role == ROLE_PROTECTOR) {
                check(group_table_protect(t, q->pid, q->starttime) >= 0);
                return;
        }
        if (role == ROLE_BOOSTER) {
                q->has_weight = true;
                q->weight = high[rand() % ELEMENTSOF(high)];
        } else {
                /* At least one field; never a weight above the default. */
                q->has_idle = rand() % 2;
                q->idle = rand() % 2;
                q->has_weight = !q->has_idle || rand() % 2;
                q->weight = low[rand() % ELEMENTSOF(low)];
        }
        if (q->has_weight) {
                snprintf(a, sizeof(a), "CPUWeight=%u", q->weight);
                CHECK(settings_parse_assignment(&s, a, NULL) >= 0);
        }
        if (q->has_idle)
                CHECK(settings_parse_assignment(&s, q->idle ? "CPUIdle=yes" : "CPUIdle=no",
                                                NULL) >= 0);
        check(group_table_request(t, q->pid, q->starttime, &s) >= 0);
}

static void leave(GroupTable *t, Proc *q)
{
        group_table_release(t, q->pid);
        q->role = ROLE_NONE;
}

int main(void)
{
        SchedGroupRoots roots = {};
        Proc p[N_PROCS] = {};
        GroupTable *t = NULL;
        unsigned bad = 0, step = 0;

        if (geteuid() != 0 || sched_group_roots_find(&roots) < 0 || !roots.cpu_v1) {
                fprintf(stderr, "needs root and a v1 cpu hierarchy: skipped\n");
                return 77;
        }
        snprintf(dir, sizeof(dir), "%s/latnice-test-combine-%d", roots.cpu_v1, (int)getpid());
        CHECK(mkdir(dir, 0755) == 0);
        if (read_knob("cpu.idle") != 0) {
                fprintf(stderr, "no cpu.idle in the v1 cpu hierarchy: skipped\n");
                (void)rmdir(dir);
                return 77;
        }
        for (size_t i = 0; i < N_PROCS; i++) {
                p[i].pid = cgroup_member_start(dir, false);
                CHECK(proc_starttime("/proc", p[i].pid, 0, &p[i].starttime) == 0);
        }
        CHECK(group_table_new("/proc", false, NULL, &t) == 0);

        /* Requesters come, change what they ask and go, at random; then
         * all go, the last one giving the group back. */
        for (unsigned seed = 1; seed <= 4 && bad < 5; seed++) {
                srand(seed);
                for (unsigned i = 0; i < 300 && bad < 5; i++, step++) {
                        Proc *q = &p[rand() % N_PROCS];
                        int what = rand() % 8;

                        if (q->role != ROLE_NONE && what < 3)
                                leave(t, q);
                        else
                                ask(t, q, what == 3 ? ROLE_PROTECTOR
                                                    : what == 4 ? ROLE_BOOSTER : ROLE_ASKS);
                        bad += !agrees(p, "random", step);
                }
                for (size_t i = 0; i < N_PROCS; i++)
                        if (p[i].role != ROLE_NONE) {
                                leave(t, &p[i]);
                                bad += !agrees(p, "all leave", step++);
                        }
                check(read_knob("cpu.idle") == 0 && read_knob("cpu.shares") == 1024);
                check(group_table_size(t) == 0);
        }

        group_table_free(t);
        for (size_t i = 0; i < N_PROCS; i++) {
                kill(p[i].pid, SIGKILL);
                (void)waitpid(p[i].pid, NULL, 0);
        }
        (void)rmdir(dir);
        sched_group_roots_done(&roots);
        return test_result();
}
