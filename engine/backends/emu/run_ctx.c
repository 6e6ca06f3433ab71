#include "run_ctx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "cudactx.h"
#include "nvrm_inproc.h"

int run_ctx_open(struct run_ctx *c, nvemu *emu, nvemu_fdtable *fdt, const struct sc_task *t, uint32_t inst,
                 char *err, size_t errlen)
{
    memset(c, 0, sizeof(*c));
    nvemu_identity who = {.pid = (int32_t)(1000 + inst), .tid = (int32_t)(1000 + inst), .uid = 1000, .gid = 1000,
                          .caps = NVEMU_CAP_SYS_NICE};
    snprintf(who.comm, sizeof(who.comm), "%s", t->comm);
    c->ip = calloc(1, sizeof(*c->ip));
    c->cuda = calloc(1, sizeof(*c->cuda));
    if (!c->ip || !c->cuda) {
        snprintf(err, errlen, "%s#%u: out of memory", t->name, inst);
        run_ctx_close(c);
        return -1;
    }
    nvrm_inproc_init(c->ip, fdt, &who);
    if (nvrm_open(&c->rm, &c->ip->tp) != 0 || nvrm_open_gpu(c->rm, t->gpu) != 0) {
        snprintf(err, errlen, "%s: cannot open the emulated device nodes of GPU %u", t->name, t->gpu);
        run_ctx_close(c);
        return -1;
    }
    struct cudactx_options opt;
    cudactx_options_init(&opt);
    opt.device_instance = t->gpu;
    if (t->context == SC_CONTEXT_BARE) {
        opt.compute_channels = t->streams;
        opt.copy_groups = 0;
        opt.timeslice_us = 0;
    }
    opt.preempt_mode = t->preempt_mode == SC_PREEMPT_PROFILE ? CUDACTX_PREEMPT_MODE_NONE : (uint32_t)t->preempt_mode;
    char why[256] = "";
    NV_STATUS st = cudactx_create(c->rm, &opt, c->cuda, why, sizeof(why));
    if (st != NV_OK) {
        const struct profile *prof = nvemu_profile(emu);
        /* A profile whose compute class the emulated open driver has no entry for cannot run any task. */
        bool no_compute = st == NV_ERR_INVALID_CLASS && strstr(why, "compute object");
        snprintf(err, errlen, "%s replica of pid %d: building its %s context failed: %s (%s)%s%s%s", t->name, who.pid,
                 t->context == SC_CONTEXT_CUDA ? "CUDA-shaped" : "bare", why[0] ? why : "status",
                 nv_status_name(st), no_compute ? ": profile " : "", no_compute ? prof->name : "",
                 no_compute ? ": the open driver 580.x does not serve its compute class; no scenario runs on it" : "");
        run_ctx_close(c);
        return st == NV_ERR_BUSY_RETRY ? 1 : -1;
    }
    c->has_cuda = true;
    c->hClient = c->cuda->hClient;
    c->hSubdevice = c->cuda->hSubdevice;
    c->hTsg = c->cuda->compute.hTsg;
    c->tsg_id = c->cuda->compute.tsg_id;
    c->nchannels = c->cuda->compute.nchannels < SC_MAX_STREAMS ? c->cuda->compute.nchannels : SC_MAX_STREAMS;
    for (uint32_t i = 0; i < c->nchannels; i++) {
        c->hChannels[i] = c->cuda->compute.hChannels[i];
        c->channels[i] = nvemu_channel_find(emu, nvemu_fdtable_opener(fdt, nvrm_ctl_fd(c->rm)), c->hClient,
                                            c->hChannels[i]);
        if (!c->channels[i]) {
            snprintf(err, errlen, "%s: channel 0x%x of the context is not an emulated channel", t->name,
                     c->hChannels[i]);
            run_ctx_close(c);
            return -1;
        }
    }
    if (c->nchannels < t->streams) {
        snprintf(err, errlen, "%s: uses %u streams but its context has %u channels", t->name, t->streams,
                 c->nchannels);
        run_ctx_close(c);
        return -1;
    }
    return 0;
}

void run_ctx_close(struct run_ctx *c)
{
    if (c->has_cuda)
        cudactx_destroy(c->cuda);
    run_ctx_kill(c);
}

void run_ctx_kill(struct run_ctx *c)
{
    if (c->rm)
        nvrm_close(c->rm);
    free(c->cuda);
    free(c->ip);
    memset(c, 0, sizeof(*c));
}
