/*
 * What one user's load costs everyone else: closing an fd that owns many
 * clients (the core lock is held throughout), and a client alloc+free of
 * another process while one fd holds many OS events.
 */
#include <stdio.h>
#include <string.h>

#include "abi/nv_classes.h"
#include "abi/nv_escape.h"
#include "bench.h"
#include "front/inproc.h"

#define MANY_CLIENTS 100000u
#define MANY_EVENTS 200000u
#define EVENTS_PER_FD 10000u

static uint32_t new_client(struct bench_env *b, nvemu_opener *op)
{
    NVOS21_PARAMETERS p;
    memset(&p, 0, sizeof(p));
    p.hClass = NV01_ROOT_CLIENT;
    if (nvemu_ioctl(b->emu, op, NV_ESC_RM_ALLOC, sizeof(p), &p, b->acc) != 0 || p.status != 0)
        return 0;
    return p.hObjectNew;
}

static int close_many_clients(const struct bench_ctx *ctx, struct bench_result *out)
{
    struct bench_env b;
    if (bench_env_init(&b, ctx))
        return -1;
    nvemu_identity who;
    nvemu_identity_self(&who);
    nvemu_opener *op = nvemu_open(b.emu, NVEMU_NODE_CTL, 0, &who, NULL);
    int rc = op ? 0 : -1;
    for (uint32_t i = 0; i < MANY_CLIENTS && rc == 0; i++)
        if (!new_client(&b, op))
            rc = -1;
    double t0 = bench_now();
    nvemu_release(b.emu, op);
    out->value = bench_now() - t0;
    snprintf(out->note, sizeof(out->note), "close of one nvidiactl fd owning %u clients (core lock held)",
             MANY_CLIENTS);
    bench_env_fini(&b);
    return rc;
}

/* Mean seconds of one client alloc+free on b's own fd. */
static double client_alloc_free(struct bench_env *b, double seconds)
{
    uint64_t n = 0;
    double t0 = bench_now(), t1;
    do {
        for (int i = 0; i < 256; i++) {
            uint32_t h = new_client(b, b->ctl);
            NVOS00_PARAMETERS f = {h, h, h, 0};
            nvemu_ioctl(b->emu, b->ctl, NV_ESC_RM_FREE, sizeof(f), &f, b->acc);
            n++;
        }
        t1 = bench_now();
    } while (t1 - t0 < seconds);
    return (t1 - t0) / (double)n;
}

static int alloc_free_with_events(const struct bench_ctx *ctx, struct bench_result *out)
{
    struct bench_env b;
    if (bench_env_init(&b, ctx))
        return -1;
    double quiet = client_alloc_free(&b, ctx->seconds / 2);
    nvemu_identity who;
    nvemu_identity_self(&who);
    who.pid += 1; /* another process */
    enum { FDS = MANY_EVENTS / EVENTS_PER_FD };
    nvemu_opener *ops[FDS];
    int rc = 0;
    for (uint32_t f = 0; f < FDS; f++) {
        ops[f] = nvemu_open(b.emu, NVEMU_NODE_CTL, 0, &who, NULL);
        for (uint32_t i = 0; ops[f] && i < EVENTS_PER_FD && rc == 0; i++) {
            nv_ioctl_alloc_os_event_t e = {0x0BAD0000u + i, 0, f * EVENTS_PER_FD + i, 0}; /* not our client handles */
            if (nvemu_ioctl(b.emu, ops[f], NV_ESC_ALLOC_OS_EVENT, sizeof(e), &e, b.acc) != 0 || e.Status != 0)
                rc = -1;
        }
        if (!ops[f])
            rc = -1;
    }
    double loaded = client_alloc_free(&b, ctx->seconds / 2);
    out->value = loaded / quiet;
    snprintf(out->note, sizeof(out->note), "client alloc+free %.2f us with %u OS events of another process held, "
             "%.2f us without", loaded * 1e6, MANY_EVENTS, quiet * 1e6);
    for (uint32_t f = 0; f < FDS; f++)
        nvemu_release(b.emu, ops[f]);
    bench_env_fini(&b);
    return rc;
}

const struct bench_row bench_rows_isolation[] = {
    {"isolation.close_100k_clients", "s", 0.5, false, close_many_clients},
    {"isolation.alloc_free_200k_events", "ratio", 2.0, false, alloc_free_with_events},
    {NULL, NULL, 0, false, NULL},
};
