/* `nvemu bench [--json] [--quick] [--check] [--filter SUBSTR]`: runs the aggregated bench rows. */
#include "bench.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "abi/nv_alloc.h"
#include "abi/nv_classes.h"
#include "abi/nv_escape.h"
#include "core/emulator.h"
#include "core/log.h"
#include "front/inproc.h"
#include "profile/profile.h"
#include "bench_tables.h"

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

static void usage(FILE *f)
{
    fprintf(f, "usage: nvemu bench [--json] [--quick] [--check] [--filter SUBSTR] [--profile NAME|FILE]\n"
               "  --json    machine-readable output\n"
               "  --profile the GPU profile the benchmarks' emulators use (default h200)\n"
               "  --quick   shorter runs (smoke test)\n"
               "  --check   exit 1 when a row misses its target (a row that cannot run always exits 1)\n");
}

int nvemu_cmd_bench(int argc, char **argv)
{
    bool json = false, check = false;
    const char *filter = NULL;
    struct bench_ctx ctx = {.seconds = 1.0, .profile = "h200"};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = true;
        else if (strcmp(argv[i], "--quick") == 0)
            ctx.seconds = 0.1;
        else if (strcmp(argv[i], "--check") == 0)
            check = true;
        else if (strcmp(argv[i], "--filter") == 0 && i + 1 < argc)
            filter = argv[++i];
        else if (strcmp(argv[i], "--profile") == 0 && i + 1 < argc)
            ctx.profile = argv[++i];
        else if (strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }
    bool all_ok = true, first = true, any_error = false;
    if (json)
        printf("{\"rows\":[");
    else
        printf("%-32s %16s %-10s %14s %8s  %s\n", "row", "value", "unit", "target", "ratio", "note");
    for (const struct bench_row *const *t = bench_tables; *t; t++)
        for (const struct bench_row *r = *t; r->name; r++) {
            if (filter && !strstr(r->name, filter))
                continue;
            struct bench_result res = {0};
            int rc = r->run(&ctx, &res);
            double ratio = 0;
            bool ok = rc == 0;
            if (ok && r->target > 0) {
                ratio = r->higher_is_better ? res.value / r->target : r->target / (res.value > 0 ? res.value : 1e-300);
                ok = ratio >= 1.0;
            }
            all_ok = all_ok && ok;
            any_error = any_error || rc != 0;
            if (json) {
                printf("%s{\"name\":\"%s\",\"value\":%.6g,\"unit\":\"%s\",\"target\":%.6g,"
                       "\"higher_is_better\":%s,\"ratio\":%.4g,\"pass\":%s,\"error\":%s,\"note\":\"%s\"}",
                       first ? "" : ",", r->name, res.value, r->unit, r->target,
                       r->higher_is_better ? "true" : "false", ratio, ok ? "true" : "false",
                       rc ? "true" : "false", res.note);
            } else if (rc) {
                printf("%-32s %16s %-10s %14.6g %8s  %s\n", r->name, "ERROR", r->unit, r->target, "-", res.note);
            } else {
                printf("%-32s %16.6g %-10s %14.6g %8.3g  %s%s\n", r->name, res.value, r->unit, r->target, ratio,
                       r->target > 0 && !ok ? "MISSED " : "", res.note);
            }
            first = false;
        }
    if (json)
        printf("],\"pass\":%s}\n", all_ok ? "true" : "false");
    /* A row that could not run is a failure; a missed target fails only with --check. */
    return any_error || (check && !all_ok) ? 1 : 0;
}
