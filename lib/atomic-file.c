/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/atomic-file.h"
#include "lib/macro.h"

int atomic_file_check_target(const char *path, const char **ret_what)
{
        struct stat st;

        if (lstat(path, &st) < 0)
                return errno == ENOENT ? 0 : -errno;
        if (S_ISREG(st.st_mode))
                return 0;
        *ret_what = S_ISLNK(st.st_mode)    ? "a symbolic link"
                    : S_ISDIR(st.st_mode)  ? "a directory"
                    : S_ISFIFO(st.st_mode) ? "a FIFO"
                    : S_ISCHR(st.st_mode)  ? "a character device"
                    : S_ISBLK(st.st_mode)  ? "a block device"
                    : S_ISSOCK(st.st_mode) ? "a socket"
                                           : "not a regular file";
        return -EEXIST;
}

/* Everything written to F is on disk, with MODE. */
static int finish(FILE *f, mode_t mode)
{
        if (fflush(f) != 0)
                return -errno;
        if (ferror(f))
                return -EIO;
        if (fchmod(fileno(f), mode) < 0)
                return -errno;
        if (fsync(fileno(f)) < 0)
                return -errno;
        return 0;
}

int atomic_file_write(const char *path, const char *tag, mode_t mode, atomic_file_fill_t fill,
                      void *userdata, const char **ret_what)
{
        _cleanup_free_ char *copy = strdup(path), *tmp = NULL;
        _cleanup_fclose_ FILE *f = NULL;
        int fd, r;

        if (!copy)
                return -ENOMEM;
        if (asprintf(&tmp, "%s/.#latnice-%s-XXXXXX", dirname(copy), tag) < 0) {
                tmp = NULL;
                return -ENOMEM;
        }
        fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0)
                return -errno;
        f = fdopen(fd, "w");
        if (!f) {
                r = -errno;
                safe_close(fd);
                goto fail;
        }
        r = fill(f, userdata);
        if (r < 0)
                goto fail;
        r = finish(f, mode);
        if (r < 0)
                goto fail;
        r = atomic_file_check_target(path, ret_what);
        if (r < 0)
                goto fail;
        if (rename(tmp, path) < 0) {
                r = -errno;
                goto fail;
        }
        return 0;

fail:
        (void) unlink(tmp);
        return r;
}
