/*
 * "CUDA-shaped context": builds, with plain RM calls (libnvrm), the object
 * tree libcuda 580 builds for a primary context on one GPU, in the order of
 * fixtures/replay/h200-580.159.04-libcuda-context.log:
 *
 *   client (RM-chosen handle) -> device 0x5c000002 -> subdevice 0x5c000003
 *   (GPreempt hard-codes this subdevice handle), VA space (RM-managed: there
 *   is no UVM here), error notifier;
 *   compute channel group (engineType GR0, hVASpace 0) with an async context
 *   share and 8 channels, each with a compute and a copy object
 *   (FIFO_GET_CHANNELLIST, GET_CLASS_ENGINEID x2, GET_WORK_SUBMIT_TOKEN),
 *   then GPFIFO_SCHEDULE enable; copy channel groups (COPY2..COPY4 on the
 *   H200) with 4 channels each, GPFIFO_SCHEDULE enable; finally
 *   GR_SET_CTXSW_PREEMPTION_MODE (CILP) on the compute channel group and
 *   SET_TIMESLICE 2048 us on it — the call that overrides a policy's
 *   task_init timeslice.
 *
 * Classes are chosen from the GPU's own class list (NV0080 GET_CLASSLIST_V2:
 * the newest channel/compute/copy class it exposes), engines from
 * GPU_GET_ENGINES_V2, so the same code runs on the emulator's profile and on
 * the real GPU. Channels get no GPFIFO/USERD backing memory (nothing is ever
 * pushed through them); the emulator models work through its own escapes.
 *
 * The trace's README says SET_TIMESLICE comes before GPFIFO_SCHEDULE; the
 * trace itself (lines 239 and 458) has SCHEDULE first — the trace is followed.
 */
#ifndef NVEMU_CUDACTX_H
#define NVEMU_CUDACTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvrm.h"

#define CUDACTX_MAX_CHANNELS 8u
#define CUDACTX_MAX_COPY_GROUPS 3u
#define CUDACTX_PREEMPT_MODE_NONE UINT32_MAX

struct cudactx_options {
    uint32_t device_instance;     /* /dev/nvidiaN and NV0080 deviceId */
    uint32_t compute_channels;    /* 8 (GPreempt's query requires exactly 8) */
    uint32_t copy_groups;         /* 0..3 */
    uint32_t copy_channels;       /* 4 */
    uint64_t timeslice_us;        /* libcuda's SET_TIMESLICE after creation: 2048; 0 = not issued */
    uint32_t preempt_mode;        /* compute preemption mode libcuda sets: 2 CILP; CUDACTX_PREEMPT_MODE_NONE = not set */
    bool schedule;                /* GPFIFO_SCHEDULE enable each channel group (libcuda does) */
};

/* libcuda's values: 8 compute channels, 3 copy groups of 4, CILP, SET_TIMESLICE 2048, schedule. */
void cudactx_options_init(struct cudactx_options *o);

struct cudactx_group {
    NvHandle hTsg;
    uint32_t engine_type;
    uint32_t tsg_id;              /* NVA06C GET_INFO */
    uint32_t nchannels;
    NvHandle hChannels[CUDACTX_MAX_CHANNELS];
    uint32_t tokens[CUDACTX_MAX_CHANNELS];   /* work-submit tokens */
};

struct cudactx {
    nvrm *rm;
    NvHandle hClient, hDevice, hSubdevice, hVASpace, hErrorNotifier, hCtxShare;
    uint32_t channel_class, compute_class, copy_class;
    struct cudactx_group compute;
    uint32_t ncopy;
    struct cudactx_group copy[CUDACTX_MAX_COPY_GROUPS];
    NV_STATUS preempt_mode_status;  /* GR_SET_CTXSW_PREEMPTION_MODE result (not fatal) */
    NvHandle next_handle;
};

/*
 * Builds the tree on rm's GPU opt->device_instance (opt NULL = defaults).
 * Returns NV_OK, or the status of the first call that failed with
 * "step: STATUS" in err; on failure the client is freed and *c zeroed.
 */
NV_STATUS cudactx_create(nvrm *rm, const struct cudactx_options *opt, struct cudactx *c, char *err, size_t errlen);

/* Frees the client (and with it every object of the context). */
void cudactx_destroy(struct cudactx *c);

#endif
