/*
 * What a workload engine running inside the emulator's process needs of the
 * core, and nothing of rm's object tree or the FIFO model's internals: the
 * channel a client of one of its fds allocated, kernels submitted on it with a
 * completion callback, the virtual clock they complete in, the profile the
 * emulator answers from, its lock, and the forgetting of a task thread that is
 * gone. The scenario engine (engine/) reaches the emulator core through this
 * header and the trace's record kinds (fifo/fifo_rec.h) only; the one part that
 * composes an emulator instance (the emulator backend's runner) also includes
 * emulator.h, which includes this header.
 */
#ifndef NVEMU_CORE_ENGINE_H
#define NVEMU_CORE_ENGINE_H

#include <pthread.h>
#include <stdint.h>

#include "abi/nv_status.h"
#include "nvemu/nvemu.h"

struct profile;
struct sim;

/* The GPU profile the emulator answers from, valid until nvemu_destroy. */
const struct profile *nvemu_profile(const nvemu *emu);
/* The virtual clock and event queue every part of the emulator shares (sim/sim.h), valid until nvemu_destroy. */
struct sim *nvemu_sim(nvemu *emu);
/* The coarse emulator lock (emulator.h's header comment): held in sim events, taken by nvemu_ioctl. */
pthread_mutex_t *nvemu_lock_of(nvemu *emu);
/* Task thread tid went away: no workload participant now, so virtual time stops waiting for it. Lock held. */
void nvemu_forget_thread(nvemu *emu, int32_t tid);

/* An RM channel's channel in the FIFO model (opaque). */
typedef struct nvemu_channel nvemu_channel;

struct nvemu_kernel {
    uint32_t blocks;              /* 0 is taken as 1 */
    uint64_t total_ns;            /* its duration on an otherwise idle engine */
    uint64_t tag;                 /* the caller's cookie, handed back on completion */
    uint32_t shared_kb;           /* shared memory per block (KiB): what a CILP save of it must store */
    uint32_t threads, regs;       /* per block (0: the default shape, one block per SM), per thread (0: kernel_regs) */
    uint32_t blocks_per_sm;       /* resident blocks per SM asked for; 0: what the shape allows */
};

/* Called in virtual time (done_t) when a kernel completes. */
typedef void (*nvemu_kernel_done_fn)(void *ctx, uint64_t kernel_id, uint64_t tag, uint64_t submit_t, uint64_t done_t);

/*
 * The channel hChannel of client hClient, allocated through opener op (the open file the client's RM calls
 * went through: nvemu_fdtable_opener for an in-process fd); NULL when there is none. Takes the emulator's
 * lock.
 */
nvemu_channel *nvemu_channel_find(nvemu *emu, nvemu_opener *op, uint32_t hClient, uint32_t hChannel);

/*
 * Queues a kernel on c (the driver's work submission: hooks, SUBMIT record); done(ctx, ...) when it
 * completes. Kernel ids are unique per emulator. NV_OK, or NV_ERR_NO_MEMORY. Called from the emulator's
 * own events (sim callbacks), where its lock is held.
 */
NV_STATUS nvemu_kernel_submit(nvemu_channel *c, const struct nvemu_kernel *k, nvemu_kernel_done_fn done, void *ctx,
                              uint64_t *kernel_id);

#endif
