/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lib/atomic-file: replace a regular file whole, refuse anything else, leave nothing behind. */
#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/atomic-file.h"
#include "lib/util.h"
#include "test-util.h"

static char dir[] = "/tmp/test-atomic-file-XXXXXX";

static int fill_text(FILE *f, void *userdata)
{
        fputs(userdata, f);
        return 0;
}

static int fill_fail(FILE *f, void *userdata)
{
        fputs("half of it", f);
        return -EBADMSG;
}

static char *path_in_dir(const char *name)
{
        char *p;

        CHECK(asprintf(&p, "%s/%s", dir, name) >= 0);
        return p;
}

static char *read_text(const char *path)
{
        char *s = NULL;

        if (read_full_file(path, 1 << 20, &s, NULL) < 0)
                return NULL;
        return s;
}

/* Entries of DIR whose name starts with ".#": leftover temporary files. */
static unsigned leftovers(void)
{
        DIR *d = opendir(dir);
        struct dirent *de;
        unsigned n = 0;

        CHECK(d);
        while ((de = readdir(d)))
                if (strncmp(de->d_name, ".#", 2) == 0)
                        n++;
        closedir(d);
        return n;
}

static void test_write_and_replace(void)
{
        _cleanup_free_ char *p = path_in_dir("a.policy"), *got = NULL, *again = NULL;
        const char *what = NULL;
        struct stat st;

        check(atomic_file_write(p, "test", 0644, fill_text, (void *) "one\n", &what) == 0);
        got = read_text(p);
        check_streq(got, "one\n");
        check(stat(p, &st) == 0 && (st.st_mode & 07777) == 0644);

        check(atomic_file_write(p, "test", 0600, fill_text, (void *) "two\n", &what) == 0);
        again = read_text(p);
        check_streq(again, "two\n");
        check(stat(p, &st) == 0 && (st.st_mode & 07777) == 0600);
        check(what == NULL);
        check(leftovers() == 0);
}

static void test_fill_fails(void)
{
        _cleanup_free_ char *p = path_in_dir("b.policy"), *got = NULL;
        _cleanup_free_ char *fresh = path_in_dir("never");
        const char *what = NULL;

        check(atomic_file_write(p, "test", 0644, fill_text, (void *) "kept\n", &what) == 0);
        check(atomic_file_write(p, "test", 0644, fill_fail, NULL, &what) == -EBADMSG);
        got = read_text(p);
        check_streq(got, "kept\n");
        check(atomic_file_write(fresh, "test", 0644, fill_fail, NULL, &what) == -EBADMSG);
        check(access(fresh, F_OK) < 0 && errno == ENOENT);
        check(leftovers() == 0);
}

static void refused(const char *name, const char *want_what)
{
        _cleanup_free_ char *p = path_in_dir(name);
        const char *what = NULL;
        struct stat before, after;

        CHECK(lstat(p, &before) == 0);
        what = NULL;
        check(atomic_file_check_target(p, &what) == -EEXIST);
        check_streq(what, want_what);
        what = NULL;
        check(atomic_file_write(p, "test", 0644, fill_text, (void *) "x\n", &what) == -EEXIST);
        check_streq(what, want_what);
        CHECK(lstat(p, &after) == 0);
        check(before.st_ino == after.st_ino && before.st_mode == after.st_mode);
        check(leftovers() == 0);
}

static void test_only_regular_files(void)
{
        _cleanup_free_ char *link = path_in_dir("link"), *fifo = path_in_dir("fifo"),
                            *sub = path_in_dir("dir"), *dev = path_in_dir("null"),
                            *target = path_in_dir("target"), *got = NULL;

        CHECK(symlink(target, link) == 0);
        CHECK(mkfifo(fifo, 0600) == 0);
        CHECK(mkdir(sub, 0700) == 0);
        refused("link", "a symbolic link");
        check(access(target, F_OK) < 0); /* the link was not followed either */
        refused("fifo", "a FIFO");
        refused("dir", "a directory");
        if (mknod(dev, S_IFCHR | 0600, makedev(1, 3)) == 0)
                refused("null", "a character device");
        else
                fprintf(stderr, "# no character device test (mknod: %m)\n");
}

int main(void)
{
        _cleanup_free_ char *rm = NULL;

        CHECK(mkdtemp(dir));
        test_write_and_replace();
        test_fill_fails();
        test_only_regular_files();
        CHECK(asprintf(&rm, "rm -rf '%s'", dir) >= 0);
        (void) !system(rm);
        return test_result();
}
