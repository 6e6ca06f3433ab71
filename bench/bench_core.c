/*
 * Core benchmark rows: control dispatch rate, channel-group
 * alloc+free rate, memory per channel group.
 */
#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include "abi/nv_alloc.h"
#include "abi/nv_alloc_fifo.h"
#include "abi/nv_classes.h"
#include "abi/nv_ctrl_fifo.h"
#include "abi/nv_engine.h"
#include "abi/nv_escape.h"
#include "bench.h"
#include "front/inproc.h"

#define GROUP_CHANNELS 8u

/* TSG (GR0) + subcontext + 8 channels with handles from base; NV_OK or the failing status. */
static uint32_t alloc_group(struct bench_env *b, uint32_t base)
{
    NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS gp;
    memset(&gp, 0, sizeof(gp));
    gp.engineType = NV2080_ENGINE_TYPE_GR0;
    uint32_t st = bench_alloc(b, b->hdevice, base, KEPLER_CHANNEL_GROUP_A, &gp);
    if (st)
        return st;
    NV_CTXSHARE_ALLOCATION_PARAMETERS cp;
    memset(&cp, 0, sizeof(cp));
    cp.hVASpace = b->hvaspace;
    cp.flags = 1;
    if ((st = bench_alloc(b, base, base + 1, FERMI_CONTEXT_SHARE_A, &cp)))
        return st;
    static NV_CHANNEL_ALLOC_PARAMS chp;
    for (uint32_t i = 0; i < GROUP_CHANNELS; i++) {
        memset(&chp, 0, sizeof(chp));
        chp.hContextShare = base + 1;
        chp.engineType = NV2080_ENGINE_TYPE_GR0;
        chp.gpFifoEntries = 1024;
        if ((st = bench_alloc(b, base, base + 2 + i, b->channel_class, &chp)))
            return st;
    }
    return 0;
}

static int get_timeslice_rate(const struct bench_ctx *ctx, struct bench_result *out, bool safe)
{
    struct bench_env b;
    if (bench_env_init(&b, ctx))
        return -1;
    if (safe)
        b.acc = &nvemu_access_inproc;
    int rc = -1;
    if (alloc_group(&b, 0x1000) == 0) {
        NVA06C_CTRL_TIMESLICE_PARAMS ts = {0};
        NVOS54_PARAMETERS p = {b.hclient, 0x1000, NVA06C_CTRL_CMD_GET_TIMESLICE, 0, (uint64_t)(uintptr_t)&ts,
                               sizeof(ts), 0};
        uint64_t calls = 0;
        double t0 = bench_now(), t1;
        do {
            for (int i = 0; i < 4096; i++)
                nvemu_ioctl(b.emu, b.ctl, NV_ESC_RM_CONTROL, sizeof(p), &p, b.acc);
            calls += 4096;
            t1 = bench_now();
        } while (t1 - t0 < ctx->seconds);
        if (p.status == 0 && ts.timesliceUs != 0) {
            out->value = (double)calls / (t1 - t0);
            rc = 0;
        }
        snprintf(out->note, sizeof(out->note), "nvemu_ioctl(NVA06C GET_TIMESLICE), %s accessor, one thread",
                 safe ? "safe process_vm" : "memcpy");
    }
    bench_env_fini(&b);
    return rc;
}

static int get_timeslice_memcpy(const struct bench_ctx *ctx, struct bench_result *out)
{
    return get_timeslice_rate(ctx, out, false);
}

static int get_timeslice_safe(const struct bench_ctx *ctx, struct bench_result *out)
{
    return get_timeslice_rate(ctx, out, true);
}

static int group_alloc_free_rate(const struct bench_ctx *ctx, struct bench_result *out)
{
    struct bench_env b;
    if (bench_env_init(&b, ctx))
        return -1;
    uint64_t n = 0;
    int rc = 0;
    double t0 = bench_now(), t1;
    do {
        for (int i = 0; i < 256 && rc == 0; i++) {
            if (alloc_group(&b, 0x1000) != 0 || bench_free(&b, 0x1000) != 0)
                rc = -1;
            n++;
        }
        t1 = bench_now();
    } while (rc == 0 && t1 - t0 < ctx->seconds);
    out->value = (double)n / (t1 - t0);
    snprintf(out->note, sizeof(out->note), "TSG + subcontext + %u channels allocated, then the TSG freed",
             GROUP_CHANNELS);
    bench_env_fini(&b);
    return rc;
}

static int group_bytes(const struct bench_ctx *ctx, struct bench_result *out)
{
    struct bench_env b;
    if (bench_env_init(&b, ctx))
        return -1;
    enum { GROUPS = 256 };
    struct mallinfo2 m0 = mallinfo2();
    int rc = 0;
    for (uint32_t i = 0; i < GROUPS && rc == 0; i++)
        if (alloc_group(&b, 0x10000 + i * 0x10) != 0)
            rc = -1;
    struct mallinfo2 m1 = mallinfo2();
    out->value = (double)(m1.uordblks - m0.uordblks) / GROUPS;
    snprintf(out->note, sizeof(out->note), "heap bytes (mallinfo2) per TSG + subcontext + %u channels, %d groups",
             GROUP_CHANNELS, GROUPS);
    bench_env_fini(&b);
    return rc;
}

const struct bench_row bench_rows_core[] = {
    {"core.get_timeslice_rate", "calls/s", 5e6, true, get_timeslice_memcpy},
    {"core.get_timeslice_rate_safe", "calls/s", 0, true, get_timeslice_safe},
    {"core.tsg8_alloc_free_rate", "groups/s", 2e5, true, group_alloc_free_rate},
    {"core.tsg8_bytes", "bytes", 0, false, group_bytes},
    {NULL, NULL, 0, false, NULL},
};
