/*
 * In-process memory accessors (base/access.h): the emulator's own process is
 * the caller, so an address is a pointer of this process.
 */
#include "base/access.h"

#include <errno.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/*
 * process_vm_readv/writev on our own pid checks every address in the kernel,
 * so a bad pointer gives EFAULT instead of a crash. A partial transfer (range
 * crossing into an unmapped page) is reported as -EFAULT too.
 */
int nvemu_inproc_read(uint64_t addr, void *dst, size_t len)
{
    if (len == 0)
        return 0;
    struct iovec local = {dst, len};
    struct iovec remote = {(void *)(uintptr_t)addr, len};
    ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
    return n == (ssize_t)len ? 0 : -EFAULT;
}

int nvemu_inproc_write(uint64_t addr, const void *src, size_t len)
{
    if (len == 0)
        return 0;
    struct iovec local = {(void *)src, len};
    struct iovec remote = {(void *)(uintptr_t)addr, len};
    ssize_t n = process_vm_writev(getpid(), &local, 1, &remote, 1, 0);
    return n == (ssize_t)len ? 0 : -EFAULT;
}

static int safe_read(void *ctx, uint64_t addr, void *dst, size_t len)
{
    (void)ctx;
    return nvemu_inproc_read(addr, dst, len);
}

static int safe_write(void *ctx, uint64_t addr, const void *src, size_t len)
{
    (void)ctx;
    return nvemu_inproc_write(addr, src, len);
}

static int trusted_read(void *ctx, uint64_t addr, void *dst, size_t len)
{
    (void)ctx;
    if (len == 0)
        return 0;
    if (addr == 0)
        return -EFAULT;
    memcpy(dst, (const void *)(uintptr_t)addr, len);
    return 0;
}

static int trusted_write(void *ctx, uint64_t addr, const void *src, size_t len)
{
    (void)ctx;
    if (len == 0)
        return 0;
    if (addr == 0)
        return -EFAULT;
    memcpy((void *)(uintptr_t)addr, src, len);
    return 0;
}

const nvemu_access nvemu_access_inproc = {.read = safe_read, .write = safe_write};
const nvemu_access nvemu_access_inproc_trusted = {.read = trusted_read, .write = trusted_write};
