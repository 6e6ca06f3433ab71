#include "front/fdmap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/log.h"
#include "front/ident.h"
#include "front/server.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

/* The thread group of thread tid (from /proc), or -1 when it is gone. */
static pid_t fdmap_tgid(pid_t tid)
{
    nvemu_identity id;
    pid_t tgid = -1;
    if (ident_read(tid, &id, &tgid) != 0)
        return -1;
    return tgid;
}

static bool is_our_file(const struct front *f, int fd)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return false;
    if (f->fs_dev_valid && S_ISREG(st.st_mode) && st.st_dev == f->fs_dev)
        return true;
    return f->cuse_major != 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == f->cuse_major;
}

nvemu_opener *fdmap_resolve(struct front *f, pid_t tid, uid_t uid, int fd, int *hold)
{
    *hold = -1;
    if (fd < 0)
        return NULL;
    pid_t tgid = fdmap_tgid(tid);
    if (tgid < 0)
        return NULL;
    int pidfd = (int)syscall(SYS_pidfd_open, tgid, 0);
    if (pidfd < 0) {
        LOG_WARN("front", "pidfd_open(%d): %s", (int)tgid, strerror(errno));
        return NULL;
    }
    int mine = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
    int saved = errno;
    close(pidfd);
    if (mine < 0) {
        if (saved != EBADF)
            LOG_WARN("front", "pidfd_getfd(%d, fd %d): %s", (int)tgid, fd, strerror(saved));
        return NULL;
    }
    nvemu_opener *op = NULL;
    uint64_t who = is_our_file(f, mine) ? fdprobe_ask(&f->probe, mine, uid) : 0;
    if (who != 0) {
        op = ((struct front_file *)(uintptr_t)who)->op;
        *hold = mine;
    } else {
        close(mine);
    }
    return op;
}
