/*
 * The daemon's nvemu_access: the caller's memory is reached with
 * process_vm_readv/writev on the calling thread, fd numbers of the caller's
 * fd table are mapped to our openers (see fdmap.c), and the caller's
 * capabilities are read from /proc/TID/status when a check asks for them.
 */
#ifndef NVEMU_FRONT_PROCMEM_H
#define NVEMU_FRONT_PROCMEM_H

#include <stdint.h>
#include <sys/types.h>

#include "nvemu/nvemu.h"

struct front;

struct procmem_ctx {
    struct front *f;
    pid_t tid;                   /* calling thread */
    int pre_fd;                  /* fd resolved before the core lock was taken (-1: none) */
    nvemu_opener *pre_op;        /* valid while pre_hold is open */
    int pre_hold;                /* the daemon's reference to pre_fd's file (-1: none) */
};

/* Fills *acc so that the core reads/writes thread c->tid's memory. c must outlive the call. */
void procmem_access(struct procmem_ctx *c, nvemu_access *acc);

/* Reads/writes len bytes at addr of thread tid: 0, or -EFAULT when any byte is unreachable. */
int procmem_read(pid_t tid, uint64_t addr, void *dst, size_t len);
int procmem_write(pid_t tid, uint64_t addr, const void *src, size_t len);

#endif
