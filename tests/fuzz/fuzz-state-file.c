/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target: the state file (daemon/state/state-file.h), state_file_open() on a
 * file that holds the input's bytes, as a restarted latniced opens what the
 * previous one left in /run/latnice (possibly cut short or damaged).
 *
 * Oracle: opening succeeds whatever the bytes (a bad header or bad records
 * are set aside, never fatal; a version 2 file is converted); the records
 * it hands back have distinct slots and are what the file then counts as
 * used; the file works (a record can be written, a cgroup record too); and
 * the file as latniced leaves it opens again without a problem as version
 * 3 (nothing converted), with the same records, one generation on.
 *
 * Seeds: files of latniced killed with records in them, damaged (torn,
 * corrupt, truncated), of version 2 (written by the version 2 code) and of
 * version 3 (with an entry and a record of a newer latniced).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/state/state-file.h"
#include "lib/macro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[] = "/tmp/latnice-fuzz-state-XXXXXX";
static char path[sizeof(dir) + 16], aside[sizeof(dir) + 32], tmp[sizeof(dir) + 32];

static void cleanup(void)
{
        (void)unlink(path);
        (void)unlink(aside);
        (void)unlink(tmp);
        (void)rmdir(dir);
}

static bool setup(void)
{
        if (path[0])
                return true;
        if (!mkdtemp(dir))
                return false;
        snprintf(path, sizeof(path), "%s/tasks.state", dir);
        snprintf(aside, sizeof(aside), "%s.corrupt", path);
        snprintf(tmp, sizeof(tmp), "%s.new", path);
        atexit(cleanup);
        return true;
}

static bool write_input(const uint8_t *data, size_t size)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        size_t done = 0;

        if (fd < 0)
                return false;
        while (done < size) {
                ssize_t n = write(fd, data + done, size - done);

                if (n <= 0) {
                        close(fd);
                        return false;
                }
                done += (size_t)n;
        }
        close(fd);
        return true;
}

/* The records of L have distinct slots, as many as F counts used. */
static void check_records(const StateFile *f, const StateFileLoad *l)
{
        for (size_t i = 0; i < l->n_records; i++)
                for (size_t j = i + 1; j < l->n_records; j++)
                        if (l->records[i].slot == l->records[j].slot)
                                abort();
        if (state_file_n_used(f) != l->n_records)
                abort();
}

/* Write a task record and a cgroup record into F, and free them again. */
static void use(StateFile *f)
{
        StateRecord r = { .pid = 1, .tid = 1, .starttime = 1 };
        StateCgroupRecord cg = { .owner = STATE_CGROUP_GROUPS, .kind = 1,
                                 .path = (char *)"/sys/fs/cgroup/x", .ino = 1 };
        uint32_t slot, cg_slot = 0;
        int rr;

        rr = state_file_alloc(f, &slot);
        if (rr == -ENOMEM || rr == -ENOSPC)
                return;
        if (rr < 0)
                abort();
        r.slot = slot;
        state_file_put(f, &r);
        state_file_release(f, slot);
        strcpy(cg.orig, "1024");
        strcpy(cg.written, "3");
        rr = state_file_cgroup_put(f, &cg_slot, &cg);
        if (rr == -ENOMEM || rr == -ENOSPC)
                return;
        if (rr < 0)
                abort();
        state_file_cgroup_release(f, &cg_slot);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        StateFileLoad l = {}, again = {};
        StateFile *f = NULL;
        size_t n_records, n_cg;
        uint64_t generation;
        int r;

        if (size > 1024 * 1024 || !setup())
                return 0;
        (void)unlink(aside);
        if (!write_input(data, size))
                return 0;

        r = state_file_open(path, &f, &l);
        if (r == -ENOMEM)
                return 0;
        if (r < 0)
                abort();
        check_records(f, &l);
        if (l.problem && !l.set_aside)
                abort(); /* what was wrong went aside, to be looked at */
        n_records = l.n_records;
        n_cg = state_file_cgroup_n_used(f);
        generation = l.generation;
        use(f);
        state_file_load_done(&l);
        state_file_free(f);

        r = state_file_open(path, &f, &again);
        if (r == -ENOMEM)
                return 0;
        if (r < 0 || again.problem || again.n_corrupt != 0 || again.n_records != n_records ||
            state_file_cgroup_n_used(f) != n_cg || again.generation != generation + 1 ||
            again.converted_from != 0)
                abort();
        check_records(f, &again);
        state_file_load_done(&again);
        state_file_free(f);
        return 0;
}
