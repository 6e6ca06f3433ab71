/* A workload engine's view of the core (engine.h): channels by handle, kernels with a completion callback, task
 * threads gone. */
#include "core/engine.h"

#include "core/emulator.h"
#include "fifo/fifo.h"
#include "fifo/workload.h"
#include "rm/rm.h"
#include "rm/rm_server.h"

_Static_assert(sizeof(nvemu_kernel_done_fn) == sizeof(fifo_done_fn), "the same callback");

nvemu_channel *nvemu_channel_find(nvemu *emu, nvemu_opener *op, uint32_t hClient, uint32_t hChannel)
{
    struct rm_object *obj = NULL;
    pthread_mutex_t *lock = nvemu_lock_of(emu);
    pthread_mutex_lock(lock);
    NV_STATUS st = op ? rm_find_object(nvemu_rm(emu), op, hClient, hChannel, &obj) : NV_ERR_INVALID_CLIENT;
    struct fifo_channel *c = st == NV_OK ? rm_object_channel(obj) : NULL;
    pthread_mutex_unlock(lock);
    return (nvemu_channel *)c;
}

NV_STATUS nvemu_kernel_submit(nvemu_channel *c, const struct nvemu_kernel *k, nvemu_kernel_done_fn done, void *ctx,
                              uint64_t *kernel_id)
{
    struct fifo_kernel fk = {.blocks = k->blocks, .total_ns = k->total_ns, .tag = k->tag, .shared_kb = k->shared_kb,
                             .threads = k->threads, .regs = k->regs, .blocks_per_sm = k->blocks_per_sm};
    return fifo_submit((struct fifo_channel *)c, &fk, done, ctx, kernel_id);
}

void nvemu_forget_thread(nvemu *emu, int32_t tid)
{
    workload_forget_tid(nvemu_workload(emu), tid);
}
