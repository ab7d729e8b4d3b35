/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Core scheduling: PR_SCHED_CORE cookies of other tasks, and the probe.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "lib/core-sched.h"
#include "lib/settings.h"
#include "lib/macro.h"
#include "lib/util.h"

/* <linux/prctl.h> of older build hosts lacks them; the values are ABI. */
#ifndef PR_SCHED_CORE
#define PR_SCHED_CORE 62
#endif
#define LN_PR_SCHED_CORE_GET 0
#define LN_PR_SCHED_CORE_CREATE 1
#define LN_PR_SCHED_CORE_SHARE_TO 2
#define LN_PR_SCHED_CORE_SHARE_FROM 3
#define LN_PR_SCHED_CORE_SCOPE_THREAD 0

static const char *const mode_table[_CORE_SCHED_MAX] = {
        [CORE_SCHED_NONE] = "none",
        [CORE_SCHED_PROCESS] = "process",
        [CORE_SCHED_RULE] = "rule",
        [CORE_SCHED_POD] = "pod",
};

uint64_t core_sched_group_of(const char *name)
{
        uint64_t h = UINT64_C(0xcbf29ce484222325);

        for (const char *p = name; *p; p++) {
                h ^= (uint8_t)*p;
                h *= UINT64_C(0x100000001b3);
        }
        return h ?: 1;
}

void core_sched_for_pod(CoreSchedSetting *s, const char *pod)
{
        const char *uid = pod ? strchr(pod, '/') : NULL;
        char buf[128];
        size_t n;

        if (s->mode != CORE_SCHED_POD)
                return;
        /* "QOS/UID/ID": the UID alone names the pod. */
        if (uid) {
                uid++;
                n = strcspn(uid, "/");
                if (n > 0 && n < sizeof(buf)) {
                        memcpy(buf, uid, n);
                        buf[n] = 0;
                        s->group = core_sched_group_of(buf);
                        return;
                }
        }
        s->mode = CORE_SCHED_PROCESS;
        s->group = 0;
}

const char *core_sched_mode_to_string(int mode)
{
        if (mode < 0 || mode >= _CORE_SCHED_MAX)
                return NULL;
        return mode_table[mode];
}

int core_sched_mode_from_string(const char *s)
{
        if (!s)
                return -EINVAL;
        for (int i = 0; i < _CORE_SCHED_MAX; i++)
                if (streq(s, mode_table[i]))
                        return i;
        return -EINVAL;
}

static int core_prctl(unsigned long cmd, pid_t pid, unsigned long uaddr)
{
        if (prctl(PR_SCHED_CORE, cmd, (unsigned long)pid, LN_PR_SCHED_CORE_SCOPE_THREAD, uaddr) < 0)
                return -errno;
        return 0;
}

int core_sched_get(pid_t tid, uint64_t *ret)
{
        /* The kernel writes a u64 and wants it 8-byte aligned. */
        uint64_t id = 0;
        int r;

        if (tid < 0 || !ret)
                return -EINVAL;
        r = core_prctl(LN_PR_SCHED_CORE_GET, tid, (unsigned long)&id);
        if (r < 0)
                return r;
        *ret = id;
        return 0;
}

int core_sched_create(pid_t tid)
{
        if (tid < 0)
                return -EINVAL;
        return core_prctl(LN_PR_SCHED_CORE_CREATE, tid, 0);
}

typedef struct ShareJob {
        pid_t from, to;
        int r;
} ShareJob;

/* Pull FROM's cookie into this (new, cookieless) thread and push it to TO.
 * The thread exits right after, and its reference to the cookie with it. */
static void *share_thread(void *userdata)
{
        ShareJob *j = userdata;

        j->r = core_prctl(LN_PR_SCHED_CORE_SHARE_FROM, j->from, 0);
        if (j->r >= 0)
                j->r = core_prctl(LN_PR_SCHED_CORE_SHARE_TO, j->to, 0);
        return NULL;
}

int core_sched_share(pid_t from, pid_t tid)
{
        ShareJob j = { .from = from, .to = tid };
        pthread_t t;
        int r;

        if (from <= 0 || tid <= 0)
                return -EINVAL;
        r = pthread_create(&t, NULL, share_thread, &j);
        if (r != 0)
                return -r;
        (void)pthread_join(t, NULL);
        return j.r;
}

int core_sched_clear(pid_t tid)
{
        uint64_t self;
        int r;

        if (tid <= 0)
                return -EINVAL;
        r = core_sched_get(0, &self);
        if (r < 0)
                return r;
        if (self != 0)
                return -EBUSY;
        return core_prctl(LN_PR_SCHED_CORE_SHARE_TO, tid, 0);
}

typedef struct ProbeJob {
        int r;
        uint64_t id;
} ProbeJob;

/* A cookie of its own, read back. The thread exits, and the cookie with it. */
static void *probe_thread(void *userdata)
{
        ProbeJob *j = userdata;

        j->r = core_sched_create(0);
        if (j->r >= 0)
                j->r = core_sched_get(0, &j->id);
        return NULL;
}

static const char *smt_control_read(const char *sys_root)
{
        static const char *const known[] = { "on", "off", "forceoff", "notsupported",
                                             "notimplemented" };
        _cleanup_free_ char *path = NULL, *s = NULL;

        if (asprintf(&path, "%s/devices/system/cpu/smt/control", sys_root) < 0)
                return NULL;
        if (read_one_line_file(path, &s) < 0)
                return NULL;
        for (size_t i = 0; i < ELEMENTSOF(known); i++)
                if (streq(s, known[i]))
                        return known[i];
        return "unknown";
}

static int smt_active_read(const char *sys_root)
{
        _cleanup_free_ char *path = NULL, *s = NULL;
        int v;

        if (asprintf(&path, "%s/devices/system/cpu/smt/active", sys_root) < 0)
                return -1;
        if (read_one_line_file(path, &s) < 0 || safe_atoi(s, &v) < 0)
                return -1;
        return v != 0;
}

void core_sched_probe(const char *sys_root, CoreSchedSupport *ret)
{
        CoreSchedSupport s = { .smt_active = -1 };
        ProbeJob j = {};
        pthread_t t;
        int r;

        sys_root = sys_root ?: "/sys";
        s.smt_control = smt_control_read(sys_root);
        s.smt_active = smt_active_read(sys_root);

        r = pthread_create(&t, NULL, probe_thread, &j);
        if (r != 0)
                j.r = -r;
        else
                (void)pthread_join(t, NULL);

        if (j.r == -EINVAL)
                s.status = CORE_SCHED_NO_KERNEL;
        else if (j.r == -ENODEV)
                s.status = CORE_SCHED_NO_SMT;
        else if (j.r < 0) {
                s.status = CORE_SCHED_ERROR;
                s.error = j.r;
        } else if (j.id == 0)
                s.status = CORE_SCHED_NO_IDS;
        else
                s.status = CORE_SCHED_OK;
        *ret = s;
}

const char *core_sched_status_to_string(const CoreSchedSupport *s)
{
        switch (s->status) {
        case CORE_SCHED_OK:
                return "yes";
        case CORE_SCHED_NO_KERNEL:
                return "no: the kernel has no CONFIG_SCHED_CORE";
        case CORE_SCHED_NO_SMT:
                return "no: no SMT sibling online (SMT absent or off)";
        case CORE_SCHED_NO_IDS:
                return "no: cookies read as 0 (RNG not seeded yet)";
        case CORE_SCHED_ERROR:
                return "no: the probe failed";
        default:
                return "no";
        }
}
