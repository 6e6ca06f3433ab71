/* Helpers the bench rows share: a clock and an emulator with the base RM objects (bench.h). */
#include "bench.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "abi/nv_alloc.h"
#include "abi/nv_classes.h"
#include "abi/nv_escape.h"
#include "core/emulator.h"
#include "base/log.h"
#include "front/inproc.h"
#include "profile/profile.h"

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

uint32_t bench_alloc(struct bench_env *b, uint32_t hparent, uint32_t hnew, uint32_t hclass, void *params)
{
    NVOS64_PARAMETERS p;
    memset(&p, 0, sizeof(p));
    p.hRoot = b->hclient;
    p.hObjectParent = hparent;
    p.hObjectNew = hnew;
    p.hClass = hclass;
    p.pAllocParms = (uint64_t)(uintptr_t)params;
    if (nvemu_ioctl(b->emu, b->ctl, NV_ESC_RM_ALLOC, sizeof(p), &p, b->acc) != 0)
        return 0xDEADu;
    if (hclass == NV01_ROOT_CLIENT && p.status == NV_OK)
        b->hclient = p.hObjectNew;
    return p.status;
}

uint32_t bench_free(struct bench_env *b, uint32_t hobject)
{
    NVOS00_PARAMETERS p = {b->hclient, b->hclient, hobject, 0};
    if (nvemu_ioctl(b->emu, b->ctl, NV_ESC_RM_FREE, sizeof(p), &p, b->acc) != 0)
        return 0xDEADu;
    return p.status;
}

/* Channel classes, newest first: a row uses the newest one its GPU exposes. */
static const uint32_t channel_classes[] = {
    BLACKWELL_CHANNEL_GPFIFO_B, BLACKWELL_CHANNEL_GPFIFO_A, HOPPER_CHANNEL_GPFIFO_A,
    AMPERE_CHANNEL_GPFIFO_A, TURING_CHANNEL_GPFIFO_A, VOLTA_CHANNEL_GPFIFO_A,
};

int bench_env_init(struct bench_env *b, const struct bench_ctx *ctx)
{
    memset(b, 0, sizeof(*b));
    nvemu_config cfg;
    nvemu_config_init(&cfg);
    cfg.profile = ctx->profile;
    char err[256];
    b->emu = nvemu_create(&cfg, err, sizeof(err));
    if (!b->emu) {
        LOG_ERROR("bench", "%s", err);
        return -1;
    }
    nvemu_identity who;
    nvemu_identity_self(&who);
    b->ctl = nvemu_open(b->emu, NVEMU_NODE_CTL, 0, &who, NULL);
    /* a device may only be allocated by a process that has its /dev/nvidiaN open */
    b->gpu0 = nvemu_open(b->emu, NVEMU_NODE_GPU, 0, &who, NULL);
    b->acc = &nvemu_access_inproc_trusted;
    for (size_t i = 0; i < sizeof(channel_classes) / sizeof(channel_classes[0]) && !b->channel_class; i++)
        if (profile_has_class(nvemu_profile(b->emu), channel_classes[i]))
            b->channel_class = channel_classes[i];
    b->hdevice = 0x5C000002u;
    b->hsubdevice = 0x5C000003u;
    b->hvaspace = 0x5C000009u;
    NV0080_ALLOC_PARAMETERS dp;
    memset(&dp, 0, sizeof(dp));
    NV2080_ALLOC_PARAMETERS sp = {0};
    NV_VASPACE_ALLOCATION_PARAMETERS vp;
    memset(&vp, 0, sizeof(vp));
    if (!b->ctl || !b->gpu0 || bench_alloc(b, 0, 0, NV01_ROOT_CLIENT, NULL) != NV_OK ||
        bench_alloc(b, b->hclient, b->hdevice, NV01_DEVICE_0, &dp) != NV_OK ||
        bench_alloc(b, b->hdevice, b->hsubdevice, NV20_SUBDEVICE_0, &sp) != NV_OK ||
        bench_alloc(b, b->hdevice, b->hvaspace, FERMI_VASPACE_A, &vp) != NV_OK) {
        LOG_ERROR("bench", "cannot build the base objects");
        bench_env_fini(b);
        return -1;
    }
    return 0;
}

void bench_env_fini(struct bench_env *b)
{
    if (b->ctl)
        nvemu_release(b->emu, b->ctl);
    if (b->gpu0)
        nvemu_release(b->emu, b->gpu0);
    nvemu_destroy(b->emu);
    memset(b, 0, sizeof(*b));
}
