/*
 * One simulated process of a scenario: an identity (pid, comm) in the
 * runner's in-process fd table, a libnvrm connection over it, and the
 * context a CUDA program would have (clients/cudactx): client, device,
 * subdevice, the compute channel group with its 8 channels (libcuda's
 * SET_TIMESLICE 2048 us and GPFIFO_SCHEDULE included), the copy channel
 * groups. Streams map to the compute group's channels in order.
 */
#ifndef NVEMU_SCENARIO_RUN_CTX_H
#define NVEMU_SCENARIO_RUN_CTX_H

#include <stdbool.h>
#include <stdint.h>

#include "core/engine.h"
#include "front/inproc.h"
#include "nvemu/nvemu.h"
#include "nvrm.h"
#include "scenario.h"

struct cudactx;
struct nvrm_inproc;

struct run_ctx {
    struct nvrm_inproc *ip;          /* libnvrm's in-process transport with this process's identity */
    nvrm *rm;
    struct cudactx *cuda;
    bool has_cuda;
    NvHandle hClient, hSubdevice, hTsg;
    uint32_t nchannels;
    NvHandle hChannels[SC_MAX_STREAMS];
    nvemu_channel *channels[SC_MAX_STREAMS];   /* where its kernels go (core/engine.h) */
    uint32_t tsg_id;                 /* hardware id of the compute channel group */
};

/*
 * Opens the process (pid 1000 + inst, comm = task's comm) and builds its
 * context (CUDA-shaped, or bare: client, device, subdevice, one compute group
 * with one channel per stream and no libcuda controls). 0, 1 when the driver
 * answered BUSY_RETRY (admission refused the channel group), or -1 with a reason.
 */
int run_ctx_open(struct run_ctx *c, nvemu *emu, nvemu_fdtable *fdt, const struct sc_task *t, uint32_t inst,
                 char *err, size_t errlen);

/* The process exits cleanly: frees its client, then closes its fds. */
void run_ctx_close(struct run_ctx *c);

/* The process is killed: only its fds close (the driver frees what it owned). */
void run_ctx_kill(struct run_ctx *c);

#endif
