/* Builds libcuda's compute channel group (TSG + subcontext + N channels with compute objects). */
#ifndef NVEMU_TESTS_RM_FIFO_UTIL_H
#define NVEMU_TESTS_RM_FIFO_UTIL_H

#include "abi/nv_alloc_fifo.h"
#include "abi/nv_engine.h"
#include "rm_test_util.h"

struct tgroup {
    uint32_t htsg, hctx;
    uint32_t hch[8];
};

/* tbase plus an RM-managed VA space hva under hdev. Returns the client handle, or 0 on any failure. */
static inline uint32_t tbase_va(struct tenv *e, int fd, uint32_t hdev, uint32_t hsub, uint32_t hva)
{
    uint32_t hc = tbase(e, fd, hdev, hsub);
    NV_VASPACE_ALLOCATION_PARAMETERS va;
    memset(&va, 0, sizeof(va));
    if (!hc || talloc(e, fd, hc, hdev, &hva, FERMI_VASPACE_A, &va) != NV_OK)
        return 0;
    return hc;
}

/* Handles from `base`; hva: a VA space of the client. Returns NV_OK or the first failing status. */
static inline NV_STATUS tgroup_build(struct tenv *e, int fd, uint32_t hc, uint32_t hdev, uint32_t hva, uint32_t base,
                                     uint32_t nch, struct tgroup *g)
{
    NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS gp;
    memset(&gp, 0, sizeof(gp));
    gp.engineType = NV2080_ENGINE_TYPE_GR0;
    g->htsg = base;
    NV_STATUS st = talloc(e, fd, hc, hdev, &g->htsg, KEPLER_CHANNEL_GROUP_A, &gp);
    if (st != NV_OK)
        return st;
    NV_CTXSHARE_ALLOCATION_PARAMETERS cp;
    memset(&cp, 0, sizeof(cp));
    cp.hVASpace = hva;
    cp.flags = 1;
    g->hctx = base + 1;
    if ((st = talloc(e, fd, hc, g->htsg, &g->hctx, FERMI_CONTEXT_SHARE_A, &cp)) != NV_OK)
        return st;
    for (uint32_t i = 0; i < nch; i++) {
        NV_CHANNEL_ALLOC_PARAMS chp;
        memset(&chp, 0, sizeof(chp));
        chp.hContextShare = g->hctx;
        chp.engineType = NV2080_ENGINE_TYPE_GR0;
        chp.gpFifoEntries = 1024;
        g->hch[i] = base + 2 + 2 * i;
        if ((st = talloc(e, fd, hc, g->htsg, &g->hch[i], HOPPER_CHANNEL_GPFIFO_A, &chp)) != NV_OK)
            return st;
        NV_GR_ALLOCATION_PARAMETERS grp = {0};
        uint32_t hobj = base + 3 + 2 * i;
        if ((st = talloc(e, fd, hc, g->hch[i], &hobj, HOPPER_COMPUTE_A, &grp)) != NV_OK)
            return st;
    }
    return NV_OK;
}

#endif
