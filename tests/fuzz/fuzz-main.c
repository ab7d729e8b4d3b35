/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Corpus replay: runs LLVMFuzzerTestOneInput() on every file of the
 * directories (or files) given on the command line, so the fuzz corpus is
 * an ordinary test under any compiler.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/macro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ uint8_t *buf = NULL;
        struct stat st;
        size_t done = 0;

        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0 || fstat(fd, &st) < 0) {
                fprintf(stderr, "fuzz-main: %s: %m\n", path);
                return -1;
        }
        buf = malloc((size_t)st.st_size + 1);
        if (!buf)
                return -1;
        while (done < (size_t)st.st_size) {
                ssize_t n = read(fd, buf + done, (size_t)st.st_size - done);

                if (n <= 0) {
                        fprintf(stderr, "fuzz-main: %s: short read\n", path);
                        return -1;
                }
                done += (size_t)n;
        }
        LLVMFuzzerTestOneInput(buf, done);
        return 0;
}

static int compare(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
        int n = 0, failed = 0;

        for (int i = 1; i < argc; i++) {
                _cleanup_closedir_ DIR *d = opendir(argv[i]);
                struct dirent *de;
                char **names = NULL;
                size_t nn = 0;

                if (!d) {
                        if (run_file(argv[i]) < 0)
                                failed++;
                        n++;
                        continue;
                }
                while ((de = readdir(d))) {
                        char *p;

                        if (de->d_name[0] == '.')
                                continue;
                        if (asprintf(&p, "%s/%s", argv[i], de->d_name) < 0)
                                return 1;
                        names = reallocarray(names, nn + 1, sizeof(char *));
                        if (!names)
                                return 1;
                        names[nn++] = p;
                }
                if (nn > 0)
                        qsort(names, nn, sizeof(char *), compare);
                for (size_t j = 0; j < nn; j++) {
                        if (run_file(names[j]) < 0)
                                failed++;
                        n++;
                        free(names[j]);
                }
                free(names);
        }
        printf("replayed %d inputs, %d unreadable\n", n, failed);
        return n == 0 || failed ? 1 : 0;
}
