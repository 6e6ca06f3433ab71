/*
 * The daemon's nvemu_access: a staged view of the calling thread's memory.
 * Nested pointers (NVOS21.pAllocParms, NVOS54.params, XFER, embedded lists)
 * are read with process_vm_readv BEFORE the emulator's lock is taken and
 * written with process_vm_writev AFTER it is released: a read of a page the
 * caller backs with its own FUSE file or userfaultfd may block as long as the
 * caller wants, and must stall nobody but that caller. fd numbers of the
 * caller's fd table are mapped to our openers (see fdmap.c), and the caller's
 * capabilities are read from /proc/TID/status when a check asks for them.
 */
#ifndef NVEMU_FRONT_PROCMEM_H
#define NVEMU_FRONT_PROCMEM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "nvemu/nvemu.h"

struct front;

/* Ranges one call may copy in (XFER -> alloc params -> rights, control -> params -> embedded list). */
#define PROCMEM_STAGED_RANGES 8
/* Writes one call may leave for copy-out. */
#define PROCMEM_STAGED_WRITES 8
/* Bytes one call may copy in and out altogether (the driver's largest params block is 1 MiB). */
#define PROCMEM_STAGED_BYTES (4u << 20)

struct procmem_range {
    uint64_t addr;
    size_t len;
    unsigned char *data;         /* NULL: the range could not be read (answered -EFAULT) */
    bool failed;                 /* a write: its copy-out failed (procmem_flush_writes) */
};

struct procmem_ctx {
    struct front *f;
    pid_t tid;                   /* calling thread */
    uid_t uid;                   /* its opener's uid (limits reads stuck in its memory) */
    int pre_fd;                  /* fd resolved before the core lock was taken (-1: none) */
    nvemu_opener *pre_op;        /* valid while pre_hold is open */
    int pre_hold;                /* the daemon's reference to pre_fd's file (-1: none) */
    const atomic_bool *cancel;   /* set when the caller stopped waiting (NULL: not cancellable) */
    /* staged memory of this call */
    struct procmem_range in[PROCMEM_STAGED_RANGES];
    unsigned n_in;
    struct procmem_range out[PROCMEM_STAGED_WRITES];
    unsigned n_out;
    size_t bytes;
    bool missed;                 /* a read found no staged range: miss_addr/miss_len */
    uint64_t miss_addr;
    size_t miss_len;
};

/* Fills *acc so that the core reads/writes c's staged copy of thread c->tid's memory. c must outlive the call. */
void procmem_access(struct procmem_ctx *c, nvemu_access *acc);

/*
 * Copies [addr, addr+len) of the caller in (no lock may be held), bounded by
 * its uid's share and deadline (callermem.h). A range that cannot be read, or
 * whose copy was refused or given up, is kept as unreadable, so the core's
 * read of it fails with -EFAULT as a direct read would. -E2BIG past the
 * call's byte or range budget; else 0.
 */
int procmem_stage(struct procmem_ctx *c, uint64_t addr, size_t len);
/* Stages the range the last attempt missed (procmem_stage's result). */
int procmem_stage_missed(struct procmem_ctx *c);
/* Forgets the writes of an attempt that the core dropped. */
void procmem_drop_writes(struct procmem_ctx *c);
/* Copies the staged writes out in call order (no lock may be held, bounded like reads): 0, or -EFAULT when any failed (marked failed). */
int procmem_flush_writes(struct procmem_ctx *c);
/* Frees the staged copies. */
void procmem_ctx_fini(struct procmem_ctx *c);

#endif
