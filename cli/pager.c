/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <fcntl.h>
#include <langinfo.h>
#include <sys/wait.h>

#include "cli/pager.h"
#include "lib/macro.h"

/* The pager named by the environment, "" for none, NULL for the default. */
static const char *pager_wanted(void)
{
        const char *p = getenv("SYSTEMD_PAGER");

        if (!p)
                p = getenv("PAGER");
        if (p && (streq(p, "") || streq(p, "cat")))
                return "";
        return p;
}

/* No pager could be run: pass the output through, so nothing is lost. */
_noreturn_ static void copy_through(void)
{
        char buf[4096];
        ssize_t n;

        while ((n = read(STDIN_FILENO, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
                for (ssize_t off = 0; n > 0 && off < n;) {
                        ssize_t w = write(STDOUT_FILENO, buf + off, (size_t)(n - off));
                        if (w < 0 && errno != EINTR)
                                _exit(EXIT_FAILURE);
                        off += w > 0 ? w : 0;
                }
        _exit(EXIT_SUCCESS);
}

_noreturn_ static void pager_exec(int input, const char *pager)
{
        const char *less = getenv("SYSTEMD_LESS"), *charset = getenv("SYSTEMD_LESSCHARSET");

        if (dup2(input, STDIN_FILENO) < 0)
                _exit(EXIT_FAILURE);
        /* systemd's defaults: the user's $LESS is overridden, $SYSTEMD_LESS is not */
        if (setenv("LESS", less ? less : "FRSXMK", 1) < 0)
                _exit(EXIT_FAILURE);
        if (charset || streq(nl_langinfo(CODESET), "UTF-8"))
                (void)setenv("LESSCHARSET", charset ? charset : "utf-8", 1);
        if (pager)
                execl("/bin/sh", "sh", "-c", pager, (char *)NULL);
        else {
                execlp("less", "less", (char *)NULL);
                execlp("more", "more", (char *)NULL);
        }
        copy_through();
}

pid_t pager_open(void)
{
        const char *pager = pager_wanted();
        int fds[2];
        pid_t pid;

        if (!isatty(STDOUT_FILENO) || (pager && !*pager))
                return 0;
        if (pipe2(fds, O_CLOEXEC) < 0)
                return -errno;
        fflush(stdout);
        pid = fork();
        if (pid < 0) {
                int r = -errno;
                close(fds[0]);
                close(fds[1]);
                return r;
        }
        if (pid == 0)
                pager_exec(fds[0], pager);
        close(fds[0]);
        if (dup2(fds[1], STDOUT_FILENO) < 0) {
                int r = -errno;
                close(fds[1]); /* the pager gets end of file at once */
                while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                        ;
                return r;
        }
        close(fds[1]);
        return pid;
}

void pager_close(pid_t pid)
{
        if (pid <= 0)
                return;
        /* The pager reads until end of file: every copy of the pipe's write
         * end must be closed before waiting, and stdout is the last one. */
        fflush(stdout);
        fclose(stdout);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
}
