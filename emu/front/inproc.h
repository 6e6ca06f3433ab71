/*
 * In-process front-end: an "fd table" that behaves like open/ioctl/close on
 * the driver's nodes. Used by unit tests, replay, the scenario runner,
 * benchmarks and libnvrm's in-process transport. The memory accessors it uses
 * are base/access.h's.
 */
#ifndef NVEMU_FRONT_INPROC_H
#define NVEMU_FRONT_INPROC_H

#include <stdbool.h>

#include "base/access.h"
#include "nvemu/nvemu.h"


typedef struct nvemu_fdtable nvemu_fdtable;

/*
 * A table of in-process "file descriptors" over one emulator. fd numbers are
 * small ints (lowest free, starting at 3) private to the table; they are what
 * REGISTER_FD's ctl_fd and the OS-event fd fields refer to. trusted selects the
 * memcpy accessor (fast, crashes on bad pointers) instead of the safe one.
 * Thread-safe. close() behaves like the kernel's: the fd goes away at once and
 * its opener is released when the last ioctl running on it returns.
 */
nvemu_fdtable *nvemu_fdtable_create(nvemu *emu, bool trusted);

/*
 * A safe table (trusted = false) then reads and writes only where owns(ctx,
 * addr, len) says the caller owns the memory; elsewhere -EFAULT. For callers
 * that pass pointers they did not make themselves (replay of a recorded
 * trace): a recorded address must never reach this process's own memory.
 */
void nvemu_fdtable_limit(nvemu_fdtable *t, bool (*owns)(void *ctx, uint64_t addr, size_t len), void *ctx);

/* Closes every fd still open (releasing its opener), then frees the table. Call it before
 * nvemu_destroy of the emulator the table was made for. */
void nvemu_fdtable_destroy(nvemu_fdtable *t);

/*
 * open(2): path is "/dev/nvidiactl", "/dev/nvidiaN" or "/dev/nvidia-uvm".
 * Returns the fd, or -1 with errno ENOENT (other path), ENXIO (no such GPU),
 * EMFILE (table full), ENOMEM.
 */
int nvemu_fdtable_open(nvemu_fdtable *t, const char *path, const nvemu_identity *who);

/* Same, but asks for a specific fd number (replay reuses recorded numbers); -1/EBUSY when taken. */
int nvemu_fdtable_open_at(nvemu_fdtable *t, int fd, const char *path, const nvemu_identity *who);

/*
 * ioctl(2) through nvemu_ioctl_request: the block at arg is copied in (_IOC_SIZE
 * bytes, or a UVM request's parameter block on /dev/nvidia-uvm), handled, and
 * copied back unless the result is -EFAULT.
 * Returns 0, or -1 with errno set (EBADF for an fd not in the table).
 */
int nvemu_fdtable_ioctl(nvemu_fdtable *t, int fd, unsigned long request, void *arg);

/* Same, as thread `tid` of the opener's process (0 = the calling thread): in-process
 * transports that model several tasks on one thread pass each task's tid. */
int nvemu_fdtable_ioctl_as(nvemu_fdtable *t, int fd, int32_t tid, unsigned long request, void *arg);

/* close(2): releases the opener (frees its clients). 0, or -1/EBADF. */
int nvemu_fdtable_close(nvemu_fdtable *t, int fd);

/*
 * Hands fd's open file to another table of the same emulator, as a process passing it over a unix socket
 * (SCM_RIGHTS) and closing its own fd: the file and its opener's state stay. to_fd < 0 takes the
 * receiver's lowest free number; a to_fd still open there is closed first (the receiver had closed it).
 * Returns the receiver's fd, or -1 with errno EBADF (fd not open), EBUSY (an ioctl runs on it), EINVAL
 * (another emulator's table, to_fd out of range), EMFILE (receiver full: the file is then closed).
 */
int nvemu_fdtable_move(nvemu_fdtable *from, int fd, nvemu_fdtable *to, int to_fd);

/* The opener behind an fd of this table, or NULL. */
nvemu_opener *nvemu_fdtable_opener(nvemu_fdtable *t, int fd);

/* The identity of the calling process/thread (pid, tid, euid, effective caps, comm). */
void nvemu_identity_self(nvemu_identity *who);

#endif
