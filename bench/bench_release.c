/*
 * What a close costs while others hold much: an fd that owns one client is opened, given its client and
 * closed, with and without another process's fd owning 100 k clients. A close visits only the clients its
 * own fd owns, so the ratio stays near 1 (a walk of the whole client table made it grow with everyone's).
 */
#include <stdio.h>
#include <string.h>

#include "abi/nv_classes.h"
#include "abi/nv_escape.h"
#include "bench.h"
#include "front/inproc.h"

#define OTHERS_CLIENTS 100000u

static int new_client(struct bench_env *b, nvemu_opener *op)
{
    NVOS21_PARAMETERS p;
    memset(&p, 0, sizeof(p));
    p.hClass = NV01_ROOT_CLIENT;
    return nvemu_ioctl(b->emu, op, NV_ESC_RM_ALLOC, sizeof(p), &p, b->acc) == 0 && p.status == 0 ? 0 : -1;
}

/* Mean seconds of one open + client + close of this process's /dev/nvidiactl. */
static double open_client_close(struct bench_env *b, double seconds, int *rc)
{
    nvemu_identity who;
    nvemu_identity_self(&who);
    uint64_t n = 0;
    double t0 = bench_now(), t1;
    do {
        for (int i = 0; i < 64; i++, n++) {
            nvemu_opener *op = nvemu_open(b->emu, NVEMU_NODE_CTL, 0, &who, NULL);
            if (!op || new_client(b, op)) {
                *rc = -1;
                if (op)
                    nvemu_release(b->emu, op);
                return 1;
            }
            nvemu_release(b->emu, op);
        }
        t1 = bench_now();
    } while (t1 - t0 < seconds);
    return (t1 - t0) / (double)n;
}

static int close_among_many(const struct bench_ctx *ctx, struct bench_result *out)
{
    struct bench_env b;
    if (bench_env_init(&b, ctx))
        return -1;
    int rc = 0;
    double quiet = open_client_close(&b, ctx->seconds / 2, &rc);
    nvemu_identity who;
    nvemu_identity_self(&who);
    who.pid += 1; /* another process */
    nvemu_opener *other = nvemu_open(b.emu, NVEMU_NODE_CTL, 0, &who, NULL);
    for (uint32_t i = 0; other && i < OTHERS_CLIENTS && rc == 0; i++)
        rc = new_client(&b, other);
    double loaded = other ? open_client_close(&b, ctx->seconds / 2, &rc) : 0;
    out->value = loaded / quiet;
    snprintf(out->note, sizeof(out->note), "open+client+close %.2f us with %u clients of another process held, "
             "%.2f us without", loaded * 1e6, OTHERS_CLIENTS, quiet * 1e6);
    if (other)
        nvemu_release(b.emu, other);
    bench_env_fini(&b);
    return other ? rc : -1;
}

const struct bench_row bench_rows_release[] = {
    {"release.close_among_100k_clients", "ratio", 2.0, false, close_among_many},
    {NULL, NULL, 0, false, NULL},
};
