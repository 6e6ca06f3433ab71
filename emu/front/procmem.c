#include "front/procmem.h"

#include <errno.h>
#include <sys/uio.h>

#include "front/fdmap.h"
#include "front/ident.h"

/* A vanished caller and a bad address look the same to the core: the copy failed. */
static int vm_errno(ssize_t n, size_t len)
{
    if (n == (ssize_t)len)
        return 0;
    if (n < 0 && errno != EFAULT && errno != ESRCH)
        return -errno;
    return -EFAULT;
}

int procmem_read(pid_t tid, uint64_t addr, void *dst, size_t len)
{
    if (len == 0)
        return 0;
    struct iovec local = {.iov_base = dst, .iov_len = len};
    struct iovec remote = {.iov_base = (void *)(uintptr_t)addr, .iov_len = len};
    return vm_errno(process_vm_readv(tid, &local, 1, &remote, 1, 0), len);
}

int procmem_write(pid_t tid, uint64_t addr, const void *src, size_t len)
{
    if (len == 0)
        return 0;
    struct iovec local = {.iov_base = (void *)src, .iov_len = len};
    struct iovec remote = {.iov_base = (void *)(uintptr_t)addr, .iov_len = len};
    return vm_errno(process_vm_writev(tid, &local, 1, &remote, 1, 0), len);
}

static int acc_read(void *ctx, uint64_t addr, void *dst, size_t len)
{
    const struct procmem_ctx *c = ctx;
    return procmem_read(c->tid, addr, dst, len);
}

static int acc_write(void *ctx, uint64_t addr, const void *src, size_t len)
{
    const struct procmem_ctx *c = ctx;
    return procmem_write(c->tid, addr, src, len);
}

static nvemu_opener *acc_resolve_fd(void *ctx, int fd)
{
    const struct procmem_ctx *c = ctx;
    return c->pre_fd >= 0 && fd == c->pre_fd ? c->pre_op : NULL;
}

/* CapEff of the calling thread now; a thread that vanished has no rights. */
static uint64_t acc_current_caps(void *ctx)
{
    const struct procmem_ctx *c = ctx;
    nvemu_identity id;
    pid_t tgid;
    return ident_read(c->tid, &id, &tgid) == 0 ? id.caps : 0;
}

void procmem_access(struct procmem_ctx *c, nvemu_access *acc)
{
    acc->read = acc_read;
    acc->write = acc_write;
    acc->resolve_fd = acc_resolve_fd;
    acc->current_caps = acc_current_caps;
    acc->ctx = c;
    acc->tid = c->tid;
}
