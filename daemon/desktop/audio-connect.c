/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Connecting to a user's PipeWire socket safely (see audio-connect.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon/desktop/audio-connect.h"
#include "lib/macro.h"

int audio_connect_user(int root_fd, uid_t uid, const char *name, const char **ret_why)
{
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        _cleanup_close_ int dir = -EBADF, fd = -EBADF;
        struct ucred cred = {};
        socklen_t len = sizeof(cred);
        char dname[3 * sizeof(uid_t) + 1];
        struct stat st;

        *ret_why = NULL;
        snprintf(dname, sizeof(dname), "%u", (unsigned)uid);
        dir = openat(root_fd, dname, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
        if (dir < 0)
                return errno == ELOOP || errno == ENOTDIR ? (*ret_why = "not a directory", -EPERM)
                                                          : -errno;
        if (fstat(dir, &st) < 0)
                return -errno;
        if (st.st_uid != uid)
                return *ret_why = "the directory is not the user's", -EPERM;
        if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return -errno;
        if (!S_ISSOCK(st.st_mode))
                return *ret_why = "not a socket", -EPERM;
        if (st.st_uid != uid)
                return *ret_why = "the socket is not the user's", -EPERM;
        if ((size_t)snprintf(sa.sun_path, sizeof(sa.sun_path), "/proc/self/fd/%d/%s", dir, name) >=
            sizeof(sa.sun_path))
                return -ENAMETOOLONG;
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return -errno;
        if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
                return errno == EINPROGRESS ? -EAGAIN : -errno;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
                return -errno;
        if (cred.uid != uid)
                return *ret_why = "the process listening on it is not the user's", -EPERM;
        return TAKE_FD(fd);
}
