/*
 * In-process front-end: safe and trusted accessors, and the in-process fd
 * table (see inproc.h).
 */
#include "front/inproc.h"


#include <errno.h>
#include <linux/capability.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/log.h"

/* ---- identity ---- */

static int32_t self_tid(void)
{
    static _Thread_local int32_t tid;
    if (tid == 0)
        tid = (int32_t)syscall(SYS_gettid);
    return tid;
}

void nvemu_identity_self(nvemu_identity *who)
{
    memset(who, 0, sizeof(*who));
    who->pid = (int32_t)getpid();
    who->tid = self_tid();
    who->uid = (uint32_t)geteuid();
    who->gid = (uint32_t)getegid();
    struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof(data));
    if (syscall(SYS_capget, &hdr, data) == 0)
        who->caps = (uint64_t)data[0].effective | ((uint64_t)data[1].effective << 32);
    char comm[17] = {0};
    if (prctl(PR_GET_NAME, comm, 0, 0, 0) == 0)
        memcpy(who->comm, comm, sizeof(who->comm) - 1);
}

/* ---- fd table ---- */

#define FDTABLE_FIRST 3
#define FDTABLE_SIZE 4096

/*
 * Like the kernel's file references: close() removes the fd at once; the
 * opener is released when the last ioctl still running on it returns. So a
 * close never waits for another thread's ioctl (which may be blocked in
 * virtual time waiting for that very thread).
 */
struct fd_file {
    nvemu_opener *op;
    uint32_t inflight;
    bool closed;
};

struct nvemu_fdtable {
    nvemu *emu;
    pthread_mutex_t lock;       /* protects fds[] and the fd_file counters; never held across nvemu_* calls */
    nvemu_access acc;
    bool (*owns)(void *ctx, uint64_t addr, size_t len);   /* nvemu_fdtable_limit */
    void *owns_ctx;
    struct fd_file *fds[FDTABLE_SIZE];
};

/* The accessors of a limited table (ctx: the table). */
static int limited_read(void *ctx, uint64_t addr, void *dst, size_t len)
{
    const struct nvemu_fdtable *t = ctx;
    if (len && !t->owns(t->owns_ctx, addr, len))
        return -EFAULT;
    return nvemu_inproc_read(addr, dst, len);
}

static int limited_write(void *ctx, uint64_t addr, const void *src, size_t len)
{
    const struct nvemu_fdtable *t = ctx;
    if (len && !t->owns(t->owns_ctx, addr, len))
        return -EFAULT;
    return nvemu_inproc_write(addr, src, len);
}

void nvemu_fdtable_limit(nvemu_fdtable *t, bool (*owns)(void *ctx, uint64_t addr, size_t len), void *ctx)
{
    t->owns = owns;
    t->owns_ctx = ctx;
    t->acc.read = limited_read;
    t->acc.write = limited_write;
}

static nvemu_opener *table_resolve(void *ctx, int fd)
{
    nvemu_fdtable *t = ctx;
    if (fd < 0 || fd >= FDTABLE_SIZE)
        return NULL;
    pthread_mutex_lock(&t->lock);
    nvemu_opener *op = t->fds[fd] ? t->fds[fd]->op : NULL;
    pthread_mutex_unlock(&t->lock);
    return op;
}

nvemu_fdtable *nvemu_fdtable_create(nvemu *emu, bool trusted)
{
    nvemu_fdtable *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    t->emu = emu;
    pthread_mutex_init(&t->lock, NULL);
    t->acc = trusted ? nvemu_access_inproc_trusted : nvemu_access_inproc;
    t->acc.resolve_fd = table_resolve;
    t->acc.ctx = t;
    return t;
}

void nvemu_fdtable_destroy(nvemu_fdtable *t)
{
    if (!t)
        return;
    for (int fd = 0; fd < FDTABLE_SIZE; fd++)
        if (t->fds[fd]) {
            nvemu_release(t->emu, t->fds[fd]->op);
            free(t->fds[fd]);
        }
    pthread_mutex_destroy(&t->lock);
    free(t);
}

/* Parses a node path; -ENOENT when it is not one of the driver's nodes. */
static int parse_path(const char *path, nvemu_node *node, uint32_t *minor)
{
    *minor = 0;
    if (!path)
        return -ENOENT;
    if (strcmp(path, "/dev/nvidiactl") == 0) {
        *node = NVEMU_NODE_CTL;
        return 0;
    }
    if (strcmp(path, "/dev/nvidia-uvm") == 0) {
        *node = NVEMU_NODE_UVM;
        return 0;
    }
    const char *p = "/dev/nvidia";
    size_t n = strlen(p);
    if (strncmp(path, p, n) != 0 || path[n] < '0' || path[n] > '9')
        return -ENOENT;
    char *end;
    unsigned long m = strtoul(path + n, &end, 10);
    if (*end != '\0' || m > 254)
        return -ENOENT;
    *node = NVEMU_NODE_GPU;
    *minor = (uint32_t)m;
    return 0;
}

static int open_slot(nvemu_fdtable *t, int want, const char *path, const nvemu_identity *who)
{
    nvemu_node node;
    uint32_t minor;
    int rc = parse_path(path, &node, &minor);
    if (rc < 0) {
        errno = -rc;
        return -1;
    }
    nvemu_identity self;
    if (!who) {
        nvemu_identity_self(&self);
        who = &self;
    }
    struct fd_file *f = calloc(1, sizeof(*f));
    int err = 0;
    nvemu_opener *op = f ? nvemu_open(t->emu, node, minor, who, &err) : NULL;
    if (!op) {
        free(f);
        errno = err < 0 ? -err : ENOMEM;
        return -1;
    }
    f->op = op;
    pthread_mutex_lock(&t->lock);
    int fd = -1;
    if (want >= 0) {
        if (want < FDTABLE_SIZE && !t->fds[want])
            fd = want;
        else
            err = want >= FDTABLE_SIZE ? EBADF : EBUSY;
    } else {
        for (int i = FDTABLE_FIRST; i < FDTABLE_SIZE && fd < 0; i++)
            if (!t->fds[i])
                fd = i;
        if (fd < 0)
            err = EMFILE;
    }
    if (fd >= 0)
        t->fds[fd] = f;
    pthread_mutex_unlock(&t->lock);
    if (fd < 0) {
        nvemu_release(t->emu, op);
        free(f);
        errno = err;
    }
    return fd;
}

int nvemu_fdtable_open(nvemu_fdtable *t, const char *path, const nvemu_identity *who)
{
    return open_slot(t, -1, path, who);
}

int nvemu_fdtable_open_at(nvemu_fdtable *t, int fd, const char *path, const nvemu_identity *who)
{
    if (fd < 0) {
        errno = EBADF;
        return -1;
    }
    return open_slot(t, fd, path, who);
}

/* fd's file with t->lock taken, or NULL with errno EBADF and the lock not held. */
static struct fd_file *file_locked(nvemu_fdtable *t, int fd)
{
    pthread_mutex_lock(&t->lock);
    struct fd_file *f = (fd >= 0 && fd < FDTABLE_SIZE) ? t->fds[fd] : NULL;
    if (!f) {
        pthread_mutex_unlock(&t->lock);
        errno = EBADF;
    }
    return f;
}

int nvemu_fdtable_ioctl(nvemu_fdtable *t, int fd, unsigned long request, void *arg)
{
    return nvemu_fdtable_ioctl_as(t, fd, 0, request, arg);
}

int nvemu_fdtable_ioctl_as(nvemu_fdtable *t, int fd, int32_t tid, unsigned long request, void *arg)
{
    struct fd_file *f = file_locked(t, fd);
    if (!f)
        return -1;
    f->inflight++;
    pthread_mutex_unlock(&t->lock);

    nvemu_access acc = t->acc;
    acc.tid = tid ? tid : self_tid();
    int rc = nvemu_ioctl_request(t->emu, f->op, request, (uint64_t)(uintptr_t)arg, &acc);

    pthread_mutex_lock(&t->lock);
    bool last = --f->inflight == 0 && f->closed;
    pthread_mutex_unlock(&t->lock);
    if (last) {
        nvemu_release(t->emu, f->op);
        free(f);
    }
    if (rc < 0) {
        errno = -rc;
        return -1;
    }
    return 0;
}

int nvemu_fdtable_close(nvemu_fdtable *t, int fd)
{
    struct fd_file *f = file_locked(t, fd);
    if (!f)
        return -1;
    t->fds[fd] = NULL;
    f->closed = true;
    bool now = f->inflight == 0;
    pthread_mutex_unlock(&t->lock);
    if (now) {
        nvemu_release(t->emu, f->op);
        free(f);
    }
    return 0;
}

int nvemu_fdtable_move(nvemu_fdtable *from, int fd, nvemu_fdtable *to, int to_fd)
{
    if (from->emu != to->emu || to_fd >= FDTABLE_SIZE) {
        errno = EINVAL;
        return -1;
    }
    struct fd_file *f = file_locked(from, fd);
    if (!f)
        return -1;
    if (f->inflight) {
        pthread_mutex_unlock(&from->lock);
        errno = EBUSY;
        return -1;
    }
    from->fds[fd] = NULL;
    pthread_mutex_unlock(&from->lock);
    pthread_mutex_lock(&to->lock);
    int nfd = to_fd;
    for (int i = FDTABLE_FIRST; nfd < 0 && i < FDTABLE_SIZE; i++)
        if (!to->fds[i])
            nfd = i;
    /* the receiver's number was free again, so whatever it held before was closed */
    struct fd_file *old = nfd >= 0 ? to->fds[nfd] : NULL;
    bool old_now = old && old->inflight == 0;
    if (old)
        old->closed = true;
    if (nfd >= 0)
        to->fds[nfd] = f;
    pthread_mutex_unlock(&to->lock);
    if (old_now) {
        nvemu_release(to->emu, old->op);
        free(old);
    }
    if (nfd < 0) {
        nvemu_release(from->emu, f->op);
        free(f);
        errno = EMFILE;
    }
    return nfd;
}

nvemu_opener *nvemu_fdtable_opener(nvemu_fdtable *t, int fd)
{
    return table_resolve(t, fd);
}

