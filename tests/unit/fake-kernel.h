/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fake kernel: an in-memory model of tasks and their scheduling attributes
 * behind the seam of lib/kernel-ops.h (fake_kernel_ops), with the /proc
 * files the applier reads written to a tree of its own (fake_proc_root()).
 * It needs no privilege, and a test can script it: a hook runs after every
 * call through the seam and may change a task between a read and a write,
 * make a thread, or give a pid to a new process (fake_pid_reuse()).
 *
 * The model follows the kernel as lib/thread-settings.c describes it
 * (checked on 6.18): sched_setattr() without KEEP_POLICY sets the policy
 * and SCHED_FLAG_RESET_ON_FORK, without KEEP_PARAMS the nice (not of
 * SCHED_IDLE) and the slice (sched_runtime 0: the default); a policy that
 * keeps an RT task with priority 0 is EINVAL; a clone gets its creator's
 * attributes, reset as SCHED_FLAG_RESET_ON_FORK says (kernel/sched/core.c
 * sched_fork()). No latency nice (a 64-byte attr is E2BIG), uclamp works.
 * Anything is allowed (no capabilities are modelled). One fake per test
 * program: the seam's functions have no context.
 */
#pragma once

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "lib/kernel-ops.h"

#define FAKE_TIMER_SLACK_DEFAULT 50000

typedef struct FakeTask {
        pid_t tid, pid, ppid;   /* pid: its process (thread group leader) */
        uint64_t starttime;
        char comm[16];
        bool kthread;
        uint32_t uid, gid;
        int policy, nice;
        uint32_t rt_priority;
        uint64_t slice_ns;      /* the effective slice: the base slice unless custom */
        bool reset_on_fork;
        uint32_t util_min, util_max;
        uint64_t timer_slack_ns;
        int ioprio;
        uint64_t cookie;
        int oom_score_adj;      /* the process's: kept on the leader */
        struct rlimit rttime;   /* the process's RLIMIT_RTTIME: kept on the leader
                                 * (RLIM_INFINITY both, as the kernel starts it) */
        cpu_set_t affinity;     /* what it asked for (sched_setaffinity) */
        cpu_set_t cpuset;       /* the CPUs its cpuset allows: FAKE_CPUS unless a test says */
} FakeTask;

/* The model's CPUs: 0..FAKE_CPUS-1, all online. */
#define FAKE_CPUS 4

typedef enum FakeOp {
        FAKE_GETATTR,
        FAKE_SETATTR,
        FAKE_SET_NICE,
        FAKE_IOPRIO_GET,
        FAKE_IOPRIO_SET,
        FAKE_SLACK_READ,
        FAKE_SLACK_WRITE,
        FAKE_OOM_READ,
        FAKE_OOM_WRITE,
        FAKE_CORE_GET,
        FAKE_CORE_CREATE,
        FAKE_CORE_SHARE,
        FAKE_CORE_CLEAR,
        FAKE_AFFINITY_GET,
        FAKE_AFFINITY_SET,
        FAKE_PIDFD_OPEN,
        FAKE_PIDFD_ALIVE,
        FAKE_PRLIMIT,
        _FAKE_OP_MAX,
} FakeOp;

/* Runs after each call through the seam: OP on TID (pidfd calls: the
 * process), R what it returned. */
typedef void (*fake_hook_t)(FakeOp op, pid_t tid, int r, void *userdata);

extern const KernelOps fake_kernel_ops;

/* Start with no tasks and an empty proc tree; BASE_SLICE_NS is every fair
 * task's default slice (0: sched_base_slice(), what the readers compare
 * with). fake_kernel_done() removes the tree and every task. */
void fake_kernel_init(uint64_t base_slice_ns);
void fake_kernel_done(void);
const char *fake_proc_root(void);

/* A new process named COMM with N_THREADS threads (>= 1), child of PPID,
 * uid and gid 0, SCHED_OTHER nice 0, the default slice and slack; PID 0:
 * the next free number. Returns its pid. */
pid_t fake_process_new(pid_t pid, const char *comm, pid_t ppid, unsigned n_threads);
/* A kernel thread (PF_KTHREAD, no command line) at PID. */
pid_t fake_kthread_new(pid_t pid, const char *comm);
/* Thread CREATOR makes a new thread in its process; returns its tid. */
pid_t fake_thread_new(pid_t creator);
/* The process of PID (or the thread TID alone) exits and is reaped. */
void fake_process_exit(pid_t pid);
void fake_thread_exit(pid_t tid);
/* Every thread of process PID gets uid UID (setuid(2) in glibc sets all). */
void fake_process_setuid(pid_t pid, uint32_t uid);
/* Process PID execs a program named COMM: its other threads are gone, its
 * pid, start time, scheduling attributes (a real-time policy too) and
 * limits stay (execve(2)). */
void fake_process_exec(pid_t pid, const char *comm);
/* Process PID exits and a new process named COMM gets its number (a new
 * start time, attributes as fake_process_new() gives). */
void fake_pid_reuse(pid_t pid, const char *comm);

/* The living task TID, or NULL. A test changes it as "someone else". */
FakeTask *fake_task(pid_t tid);
/* Threads of process PID, in order of creation; the count. */
size_t fake_threads(pid_t pid, pid_t *ret, size_t max);

/* Call HOOK after every call through the seam (NULL: none). */
void fake_hook_set(fake_hook_t hook, void *userdata);
/* How many calls of OP so far. */
unsigned fake_calls(FakeOp op);
