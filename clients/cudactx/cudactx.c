/* CUDA-shaped context builder (see cudactx.h for the sequence and its source). */
#include "cudactx.h"

#include <stdio.h>
#include <string.h>

#include "abi/nv_abi_desc.h"
#include "abi/nv_alloc.h"
#include "abi/nv_alloc_fifo.h"
#include "abi/nv_classes.h"
#include "abi/nv_ctrl_fifo.h"
#include "abi/nv_engine.h"

/* libcuda's first child handle of its client; the subdevice lands on 0x5c000003 as in the trace. */
#define CUDACTX_FIRST_HANDLE 0x5c000002u
#define COPY_ENGINES_SKIPPED 2u   /* COPY0/COPY1 pair with GR; libcuda used COPY2.. on the H200 */

void cudactx_options_init(struct cudactx_options *o)
{
    *o = (struct cudactx_options){
        .device_instance = 0,
        .compute_channels = 8,
        .copy_groups = 3,
        .copy_channels = 4,
        .timeslice_us = 2048,
        .preempt_mode = 2,
        .schedule = true,
    };
}

/* Records the first failure and passes the status through. */
static NV_STATUS check(NV_STATUS st, const char *step, char *err, size_t errlen)
{
    if (st != NV_OK && err && errlen && !err[0])
        snprintf(err, errlen, "%s: status 0x%08x", step, st);
    return st;
}

static NV_STATUS alloc_next(struct cudactx *c, NvHandle parent, NvHandle *out, uint32_t hclass, void *params,
                            uint32_t size)
{
    NvHandle h = c->next_handle++;
    NV_STATUS st = nvrm_alloc(c->rm, c->hClient, parent, &h, hclass, params, size);
    if (st == NV_OK)
        *out = h;
    return st;
}

static bool is_copy_engine(uint32_t e)
{
    return (e >= NV2080_ENGINE_TYPE_COPY0 && e <= NV2080_ENGINE_TYPE_COPY9) || (e >= 0x34u && e <= 0x3Du);
}

/* Copy engines for the copy channel groups: the GPU's copy engines after COPY0/COPY1. */
static uint32_t pick_copy_engines(struct cudactx *c, uint32_t want, uint32_t *out)
{
    uint32_t engines[96], n = 0, got = 0, seen = 0;
    if (nvrm_get_engines(c->rm, c->hClient, c->hSubdevice, engines, 96, &n) != NV_OK) {
        for (uint32_t i = 0; i < want; i++)
            out[i] = NV2080_ENGINE_TYPE_COPY(COPY_ENGINES_SKIPPED + i);
        return want;
    }
    for (uint32_t i = 0; i < n && got < want; i++) {
        if (!is_copy_engine(engines[i]))
            continue;
        if (seen++ >= COPY_ENGINES_SKIPPED)
            out[got++] = engines[i];
    }
    return got;
}

/* One channel of group g: channel, FIFO_GET_CHANNELLIST, engine objects with GET_CLASS_ENGINEID, token. */
static NV_STATUS add_channel(struct cudactx *c, struct cudactx_group *g, NvHandle ctxshare, bool compute,
                             char *err, size_t errlen)
{
    NV_CHANNEL_ALLOC_PARAMS cp;
    memset(&cp, 0, sizeof cp);
    cp.hObjectError = c->hErrorNotifier;
    cp.gpFifoEntries = 0x400;
    cp.hContextShare = ctxshare;
    cp.engineType = g->engine_type;
    NvHandle ch;
    NV_STATUS st = check(alloc_next(c, g->hTsg, &ch, c->channel_class, &cp, sizeof cp), "channel alloc", err, errlen);
    if (st != NV_OK)
        return st;
    g->hChannels[g->nchannels++] = ch;

    uint32_t handle = ch, chid = 0;
    NV0080_CTRL_FIFO_GET_CHANNELLIST_PARAMS cl = {
        .numChannels = 1, .pChannelHandleList = (uint64_t)(uintptr_t)&handle, .pChannelList = (uint64_t)(uintptr_t)&chid};
    st = check(nvrm_control(c->rm, c->hClient, c->hDevice, NV0080_CTRL_CMD_FIFO_GET_CHANNELLIST, &cl, sizeof cl),
               "FIFO_GET_CHANNELLIST", err, errlen);
    if (st != NV_OK)
        return st;

    const uint32_t objs[2] = {c->compute_class, c->copy_class};
    for (int i = compute ? 0 : 1; i < 2; i++) {
        NvHandle obj;
        st = check(alloc_next(c, ch, &obj, objs[i], NULL, 0), i == 0 ? "compute object alloc" : "copy object alloc",
                   err, errlen);
        if (st != NV_OK)
            return st;
        NV906F_CTRL_GET_CLASS_ENGINEID_PARAMS ce = {.hObject = obj};
        st = check(nvrm_control(c->rm, c->hClient, ch, NV906F_CTRL_GET_CLASS_ENGINEID, &ce, sizeof ce),
                   "GET_CLASS_ENGINEID", err, errlen);
        if (st != NV_OK)
            return st;
    }
    return check(nvrm_channel_get_work_submit_token(c->rm, c->hClient, ch, &g->tokens[g->nchannels - 1]),
                 "GET_WORK_SUBMIT_TOKEN", err, errlen);
}

static NV_STATUS add_group(struct cudactx *c, struct cudactx_group *g, uint32_t engine, NvHandle vas,
                           uint32_t nchannels, bool compute, bool schedule, char *err, size_t errlen)
{
    memset(g, 0, sizeof *g);
    g->engine_type = engine;
    NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS tp = {.hVASpace = vas, .engineType = engine};
    NV_STATUS st = check(alloc_next(c, c->hDevice, &g->hTsg, KEPLER_CHANNEL_GROUP_A, &tp, sizeof tp),
                         "channel group alloc", err, errlen);
    if (st != NV_OK)
        return st;
    NvHandle ctxshare = 0;
    if (compute) {
        NV_CTXSHARE_ALLOCATION_PARAMETERS sp = {.hVASpace = c->hVASpace,
                                                .flags = NV_CTXSHARE_ALLOCATION_FLAGS_SUBCONTEXT_ASYNC};
        st = check(alloc_next(c, g->hTsg, &c->hCtxShare, FERMI_CONTEXT_SHARE_A, &sp, sizeof sp),
                   "context share alloc", err, errlen);
        if (st != NV_OK)
            return st;
        ctxshare = c->hCtxShare;
    }
    for (uint32_t i = 0; i < nchannels; i++) {
        if ((st = add_channel(c, g, ctxshare, compute, err, errlen)) != NV_OK)
            return st;
    }
    st = check(nvrm_tsg_get_info(c->rm, c->hClient, g->hTsg, &g->tsg_id), "GET_INFO", err, errlen);
    if (st == NV_OK && schedule)
        st = check(nvrm_tsg_schedule(c->rm, c->hClient, g->hTsg, true), "GPFIFO_SCHEDULE", err, errlen);
    return st;
}

static NV_STATUS build(struct cudactx *c, const struct cudactx_options *o, char *err, size_t errlen)
{
    NV_STATUS st;
    if (nvrm_open_gpu(c->rm, o->device_instance) != 0)
        return check(NV_ERR_OPERATING_SYSTEM, "open /dev/nvidiaN + REGISTER_FD", err, errlen);
    if ((st = check(nvrm_alloc_client(c->rm, &c->hClient), "client alloc", err, errlen)) != NV_OK)
        return st;

    NV0080_ALLOC_PARAMETERS dp = {.deviceId = o->device_instance, .hClientShare = c->hClient, .vaMode = 2};
    if ((st = check(alloc_next(c, c->hClient, &c->hDevice, NV01_DEVICE_0, &dp, sizeof dp), "device alloc", err,
                    errlen)) != NV_OK)
        return st;
    NV2080_ALLOC_PARAMETERS sdp = {.subDeviceId = 0};
    if ((st = check(alloc_next(c, c->hDevice, &c->hSubdevice, NV20_SUBDEVICE_0, &sdp, sizeof sdp),
                    "subdevice alloc", err, errlen)) != NV_OK)
        return st;

    uint32_t classes[256], n = 0;
    if ((st = check(nvrm_get_classlist(c->rm, c->hClient, c->hDevice, classes, 256, &n), "GET_CLASSLIST_V2", err,
                    errlen)) != NV_OK)
        return st;
    /* the newest class of each kind the GPU lists, as libcuda picks */
    c->channel_class = nv_class_newest(NV_CK_CHANNEL, classes, n);
    c->compute_class = nv_class_newest(NV_CK_COMPUTE, classes, n);
    c->copy_class = nv_class_newest(NV_CK_COPY, classes, n);
    if (!c->channel_class || !c->compute_class || !c->copy_class)
        return check(NV_ERR_INVALID_CLASS, "no channel/compute/copy class in the GPU's class list", err, errlen);

    /*
     * libcuda's VA space is UVM-managed (flags 0x48: externally owned + page
     * faulting). Without UVM an externally owned VA space makes GPFIFO_SCHEDULE
     * fail with NV_ERR_INVALID_STATE on the real driver (docs/driver-sources.md §E), so an
     * RM-managed one with default size is asked for.
     */
    NV_VASPACE_ALLOCATION_PARAMETERS vp = {0};
    if ((st = check(alloc_next(c, c->hDevice, &c->hVASpace, FERMI_VASPACE_A, &vp, sizeof vp), "VA space alloc", err,
                    errlen)) != NV_OK)
        return st;
    /* libcuda's channel error notifier: one 4 KiB page of system memory (trace line 136) */
    NV_MEMORY_ALLOCATION_PARAMS mp = {.owner = c->hDevice, .type = 0x0d, .flags = 0xc001, .attr = 0x2a800000,
                                      .attr2 = 9, .format = 6, .size = 0x1000, .alignment = 0x1000};
    if ((st = check(alloc_next(c, c->hDevice, &c->hErrorNotifier, NV01_MEMORY_SYSTEM, &mp, sizeof mp),
                    "error notifier alloc", err, errlen)) != NV_OK)
        return st;

    uint32_t nch = o->compute_channels < CUDACTX_MAX_CHANNELS ? o->compute_channels : CUDACTX_MAX_CHANNELS;
    if ((st = add_group(c, &c->compute, NV2080_ENGINE_TYPE_GR0, 0, nch, true, o->schedule, err, errlen)) != NV_OK)
        return st;

    uint32_t engines[CUDACTX_MAX_COPY_GROUPS];
    uint32_t want = o->copy_groups < CUDACTX_MAX_COPY_GROUPS ? o->copy_groups : CUDACTX_MAX_COPY_GROUPS;
    uint32_t ncopy = pick_copy_engines(c, want, engines);
    uint32_t cch = o->copy_channels < CUDACTX_MAX_CHANNELS ? o->copy_channels : CUDACTX_MAX_CHANNELS;
    for (uint32_t i = 0; i < ncopy; i++) {
        if ((st = add_group(c, &c->copy[i], engines[i], c->hVASpace, cch, false, o->schedule, err, errlen)) != NV_OK)
            return st;
        c->ncopy++;
    }

    c->preempt_mode_status = NV_OK;
    if (o->preempt_mode != CUDACTX_PREEMPT_MODE_NONE) {
        /* libcuda names the channel group in hChannel (trace line 457) */
        NV2080_CTRL_GR_SET_CTXSW_PREEMPTION_MODE_PARAMS pm = {
            .flags = NV2080_CTRL_GR_SET_CTXSW_PREEMPTION_MODE_FLAGS_CILP,
            .hChannel = c->compute.hTsg,
            .cilpPreemptMode = o->preempt_mode,
        };
        c->preempt_mode_status = nvrm_control(c->rm, c->hClient, c->hSubdevice,
                                              NV2080_CTRL_CMD_GR_SET_CTXSW_PREEMPTION_MODE, &pm, sizeof pm);
    }
    if (o->timeslice_us)
        st = check(nvrm_tsg_set_timeslice(c->rm, c->hClient, c->compute.hTsg, o->timeslice_us), "SET_TIMESLICE", err,
                   errlen);
    return st;
}

NV_STATUS cudactx_create(nvrm *rm, const struct cudactx_options *opt, struct cudactx *c, char *err, size_t errlen)
{
    struct cudactx_options defaults;
    if (!opt) {
        cudactx_options_init(&defaults);
        opt = &defaults;
    }
    if (err && errlen)
        err[0] = '\0';
    memset(c, 0, sizeof *c);
    c->rm = rm;
    c->next_handle = CUDACTX_FIRST_HANDLE;
    NV_STATUS st = build(c, opt, err, errlen);
    if (st != NV_OK) {
        cudactx_destroy(c);
        memset(c, 0, sizeof *c);
    }
    return st;
}

void cudactx_destroy(struct cudactx *c)
{
    if (c->rm && c->hClient)
        nvrm_free(c->rm, c->hClient, c->hClient, c->hClient);
    c->hClient = 0;
}
