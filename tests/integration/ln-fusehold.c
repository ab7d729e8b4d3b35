/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ln-fusehold: a FUSE filesystem that lies and holds, for the trust
 * integration test (not installed; root, speaks the kernel's FUSE protocol
 * on /dev/fuse itself, no libfuse). It mounts at MOUNTPOINT (allow_other, as
 * a user's mount with user_allow_other would be) one directory holding one
 * file, "lt-fuse-exe", whose contents are FILE's (a real program, so it runs) and
 * which it says root owns (mode 0755, and so the directory): what a user's
 * FUSE server may claim. Every request from the process whose pid is in
 * HOLD_FILE (read again for each request; the test writes latniced's pid
 * there) is held, never answered, until ln-fusehold exits: a server that
 * wants to stall whoever looks.
 *
 *   ln-fusehold MOUNTPOINT FILE HOLD_FILE
 *
 * Prints "ready" once mounted, and "held OPCODE" for each request held. On
 * SIGTERM or SIGINT it unmounts (held requests then fail) and exits 0. Exit
 * status 1 on failure, 2 on usage errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define ROOT_INO 1
#define EXE_INO 2
#define BUF_SIZE (FUSE_MIN_READ_BUFFER + 128 * 1024)

static volatile sig_atomic_t stop;
static int file_fd;
static off_t file_size;
static const char *hold_file;

static void on_signal(int sig)
{
        (void) sig;
        stop = 1;
}

static void reply(int fd, uint64_t unique, int error, const void *data, size_t len)
{
        struct fuse_out_header h = { .len = (uint32_t) (sizeof(h) + (error ? 0 : len)),
                                     .error = error, .unique = unique };
        struct iovec iov[2] = { { &h, sizeof(h) }, { (void *) data, error ? 0 : len } };

        (void) writev(fd, iov, 2);
}

static void fill_attr(struct fuse_attr *a, uint64_t ino)
{
        memset(a, 0, sizeof(*a));
        a->ino = ino;
        a->mode = ino == ROOT_INO ? S_IFDIR | 0755 : S_IFREG | 0755;
        a->nlink = ino == ROOT_INO ? 2 : 1;
        a->size = ino == ROOT_INO ? 0 : (uint64_t) file_size;
        a->blocks = (a->size + 511) / 512;
        a->blksize = 4096;
        a->uid = 0; /* the lie */
        a->gid = 0;
}

static pid_t held_pid(void)
{
        FILE *f = fopen(hold_file, "re");
        int pid = 0;

        if (!f)
                return 0;
        if (fscanf(f, "%d", &pid) != 1)
                pid = 0;
        fclose(f);
        return (pid_t) pid;
}

static void serve(int fd, const struct fuse_in_header *in, const char *arg)
{
        switch (in->opcode) {
        case FUSE_INIT: {
                struct fuse_init_out o = { .major = FUSE_KERNEL_VERSION, .minor = 31,
                                           .max_readahead = 128 * 1024, .max_write = 4096,
                                           .max_background = 4, .congestion_threshold = 3,
                                           .time_gran = 1 };
                reply(fd, in->unique, 0, &o, sizeof(o));
                return;
        }
        case FUSE_LOOKUP: {
                struct fuse_entry_out o = { .nodeid = EXE_INO, .generation = 1 };

                if (in->nodeid != ROOT_INO || strcmp(arg, "lt-fuse-exe") != 0) {
                        reply(fd, in->unique, -ENOENT, NULL, 0);
                        return;
                }
                fill_attr(&o.attr, EXE_INO); /* timeouts 0: asked again each time */
                reply(fd, in->unique, 0, &o, sizeof(o));
                return;
        }
        case FUSE_GETATTR: {
                struct fuse_attr_out o = {};

                fill_attr(&o.attr, in->nodeid);
                reply(fd, in->unique, 0, &o, sizeof(o));
                return;
        }
        case FUSE_OPEN: {
                struct fuse_open_out o = { .fh = 1 };

                reply(fd, in->unique, 0, &o, sizeof(o));
                return;
        }
        case FUSE_READ: {
                const struct fuse_read_in *r = (const void *) arg;
                static char data[128 * 1024];
                size_t want = r->size < sizeof(data) ? r->size : sizeof(data);
                ssize_t n = pread(file_fd, data, want, (off_t) r->offset);

                if (n < 0)
                        reply(fd, in->unique, -EIO, NULL, 0);
                else
                        reply(fd, in->unique, 0, data, (size_t) n);
                return;
        }
        case FUSE_STATFS: {
                struct fuse_statfs_out o = { .st = { .bsize = 4096, .namelen = 255,
                                                     .frsize = 4096 } };
                reply(fd, in->unique, 0, &o, sizeof(o));
                return;
        }
        case FUSE_RELEASE:
        case FUSE_FLUSH:
        case FUSE_RELEASEDIR:
                reply(fd, in->unique, 0, NULL, 0);
                return;
        case FUSE_FORGET:
        case FUSE_BATCH_FORGET:
        case FUSE_INTERRUPT:
                return; /* no reply */
        default:
                reply(fd, in->unique, -ENOSYS, NULL, 0);
                return;
        }
}

int main(int argc, char *argv[])
{
        static char buf[BUF_SIZE];
        struct sigaction sa = { .sa_handler = on_signal };
        char opts[128];
        struct stat st;
        int fd;

        if (argc != 4) {
                fprintf(stderr, "usage: ln-fusehold MOUNTPOINT FILE HOLD_FILE\n");
                return 2;
        }
        hold_file = argv[3];
        file_fd = open(argv[2], O_RDONLY | O_CLOEXEC);
        if (file_fd < 0 || fstat(file_fd, &st) < 0)
                return 1;
        file_size = st.st_size;
        fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
        if (fd < 0) {
                perror("ln-fusehold: /dev/fuse");
                return 1;
        }
        snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other", fd);
        if (mount("ln-fusehold", argv[1], "fuse.ln-fusehold", MS_NOSUID | MS_NODEV, opts) < 0) {
                perror("ln-fusehold: mount");
                return 1;
        }
        sigaction(SIGTERM, &sa, NULL); /* no SA_RESTART: read() returns EINTR */
        sigaction(SIGINT, &sa, NULL);
        printf("ready\n");
        fflush(stdout);

        while (!stop) {
                const struct fuse_in_header *in = (const void *) buf;
                ssize_t n = read(fd, buf, sizeof(buf));

                if (n < 0) {
                        if (errno == EINTR || errno == ENOENT) /* ENOENT: interrupted request */
                                continue;
                        break;
                }
                if ((size_t) n < sizeof(*in))
                        continue;
                if (in->pid != 0 && (pid_t) in->pid == held_pid()) {
                        printf("held %u\n", in->opcode);
                        fflush(stdout);
                        continue;
                }
                serve(fd, in, buf + sizeof(*in));
        }
        umount2(argv[1], MNT_DETACH);
        return 0;
}
