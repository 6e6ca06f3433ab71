/*
 * nvemu-hwmeasure: syscall latency of the scheduling controls on the real driver (p50/p90/p99 over
 * N calls), on an empty channel group and on a scheduled group of 8 channels built with libcuda's
 * parameters. Usage: nvemu-hwmeasure FIXTURE [N]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void report(const char *what, double *v, int n, uint32_t status_or)
{
    qsort(v, (size_t)n, sizeof v[0], cmp_double);
    printf("%-44s n=%d status_or=0x%08x p50_us=%.1f p90_us=%.1f p99_us=%.1f max_us=%.1f\n", what, n, status_or,
           v[n / 2], v[n * 9 / 10], v[n * 99 / 100], v[n - 1]);
    fflush(stdout);
}

/* Times N identical controls. */
static void series(struct conf *c, const char *what, uint32_t obj, uint32_t cmd, const void *params, uint32_t size,
                   int n)
{
    double *v = calloc((size_t)n, sizeof *v);
    uint8_t buf[1024];
    uint32_t st = 0;
    for (int i = 0; i < n; i++) {
        memcpy(buf, params, size);
        double t0 = now_us();
        struct rm_result r = rm_control(c->ctl, c->client, obj, cmd, size ? buf : NULL, size);
        v[i] = now_us() - t0;
        st |= r.ret ? 0xFFFFFFFFu : r.status;
    }
    report(what, v, n, st);
    free(v);
}

static void alloc_series(struct conf *c, int n)
{
    double *va = calloc((size_t)n, sizeof *va), *vf = calloc((size_t)n, sizeof *vf);
    uint32_t st = 0;
    tsg_alloc_t tp = {0, 0, 0, 1, 0, {0}};
    for (int i = 0; i < n; i++) {
        uint32_t h = H_SCRATCH;
        double t0 = now_us();
        struct rm_result r = rm_alloc(c->ctl, c->client, c->dev, &h, CL_TSG, &tp);
        va[i] = now_us() - t0;
        st |= r.status;
        t0 = now_us();
        rm_free(c->ctl, c->client, H_SCRATCH);
        vf[i] = now_us() - t0;
    }
    report("alloc KEPLER_CHANNEL_GROUP_A (GR0)", va, n, st);
    report("free KEPLER_CHANNEL_GROUP_A (empty)", vf, n, 0);
    free(va);
    free(vf);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FIXTURE [N]\n", argv[0]);
        return 2;
    }
    int n = argc > 2 ? atoi(argv[2]) : 200;
    static struct conf c;
    if (fixture_load(&c.fix, argv[1]) != 0 || n < 10)
        return 2;
    c.ctl = open("/dev/nvidiactl", O_RDWR | O_CLOEXEC);
    c.dev0 = open("/dev/nvidia0", O_RDWR | O_CLOEXEC); /* as libcuda: a device node is open before the device alloc */
    c.client = rm_client(c.ctl);
    if (!c.client)
        return 1;
    c.dev = 0x5c000002u, c.subdev = 0x5c000003u;
    static const char *tree[] = {"device", "subdevice", "vaspace_plain", "userd"};
    for (size_t i = 0; i < sizeof tree / sizeof tree[0]; i++) {
        struct rm_result r = alloc_fixture(&c, tree[i], 0, 0, NULL, NULL, 0);
        if (r.ret != 0 || r.status != 0) {
            fprintf(stderr, "measure: cannot allocate %s: ret %d status 0x%x\n", tree[i], r.ret, r.status);
            return 1;
        }
    }
    tsg_alloc_t tp = {0, 0, 0, 1, 0, {0}};
    uint32_t h = H_TSG_E;
    rm_alloc(c.ctl, c.client, c.dev, &h, CL_TSG, &tp);
    h = H_TSG_P;
    rm_alloc(c.ctl, c.client, c.dev, &h, CL_TSG, &tp);
    ctxshare_alloc_t cp = {0x5c00000au, 1, 0};
    h = H_CTX_P;
    rm_alloc(c.ctl, c.client, H_TSG_P, &h, CL_CTXSHARE, &cp);
    double t_ch = 0;
    for (int i = 0; i < 8; i++) {
        char nn[32], cn[32];
        snprintf(nn, sizeof nn, "notifier%d", i);
        snprintf(cn, sizeof cn, "channel%d", i);
        alloc_fixture(&c, nn, 0, 0, NULL, NULL, 0);
        uint32_t from[1] = {0x5c000016u}, to[1] = {H_CTX_P};
        double t0 = now_us();
        struct rm_result r = alloc_fixture(&c, cn, H_CH_P0 + (uint32_t)i, H_TSG_P, from, to, 1);
        t_ch += now_us() - t0;
        if (r.status != 0) {
            fprintf(stderr, "measure: channel %d: status 0x%x\n", i, r.status);
            return 1;
        }
    }
    printf("%-44s n=8 mean_us=%.1f\n", "alloc HOPPER_CHANNEL_GPFIFO_A in group", t_ch / 8);
    uint8_t en[3] = {1, 0, 0}, dis[3] = {0, 0, 0};
    rm_control(c.ctl, c.client, H_TSG_P, CA06C_GPFIFO_SCHEDULE, en, 3);

    uint64_t ts = 0, ts1 = 1, ts1024 = 1024;
    preempt_params_t w0 = {0, 0, {0, 0}, 0}, w1 = {1, 0, {0, 0}, 0}, m1 = {1, 1, {0, 0}, 1000};
    uint32_t lvl = 2;
    series(&c, "GET_TIMESLICE empty", H_TSG_E, CA06C_GET_TIMESLICE, &ts, 8, n);
    series(&c, "GET_TIMESLICE populated", H_TSG_P, CA06C_GET_TIMESLICE, &ts, 8, n);
    series(&c, "SET_TIMESLICE 1024 empty", H_TSG_E, CA06C_SET_TIMESLICE, &ts1024, 8, n);
    series(&c, "SET_TIMESLICE 1024 populated+scheduled", H_TSG_P, CA06C_SET_TIMESLICE, &ts1024, 8, n);
    series(&c, "SET_TIMESLICE 1 populated+scheduled", H_TSG_P, CA06C_SET_TIMESLICE, &ts1, 8, n);
    series(&c, "SET_TIMESLICE 1024 (back) populated", H_TSG_P, CA06C_SET_TIMESLICE, &ts1024, 8, 10);
    series(&c, "PREEMPT wait=0 empty", H_TSG_E, CA06C_PREEMPT, &w0, 8, n);
    series(&c, "PREEMPT wait=0 populated+scheduled", H_TSG_P, CA06C_PREEMPT, &w0, 8, n);
    series(&c, "PREEMPT wait=1 populated+scheduled", H_TSG_P, CA06C_PREEMPT, &w1, 8, n);
    series(&c, "PREEMPT wait=1 manual 1000us populated", H_TSG_P, CA06C_PREEMPT, &m1, 8, n);
    series(&c, "SET_INTERLEAVE_LEVEL 2 populated", H_TSG_P, CA06C_SET_INTERLEAVE, &lvl, 4, n);
    series(&c, "GPFIFO_SCHEDULE disable populated", H_TSG_P, CA06C_GPFIFO_SCHEDULE, dis, 3, 1);
    series(&c, "GPFIFO_SCHEDULE enable populated", H_TSG_P, CA06C_GPFIFO_SCHEDULE, en, 3, 1);
    static disable_channels_t dc;
    memset(&dc, 0, sizeof dc);
    dc.numChannels = 8;
    for (int i = 0; i < 8; i++)
        dc.hClientList[i] = c.client, dc.hChannelList[i] = H_CH_P0 + (uint32_t)i;
    double *vd = calloc((size_t)n, sizeof *vd), *ve = calloc((size_t)n, sizeof *ve);
    uint32_t sd = 0, se = 0;
    for (int i = 0; i < n; i++) {
        dc.bDisable = 1;
        double t0 = now_us();
        sd |= rm_control(c.ctl, c.client, c.subdev, C2080_FIFO_DISABLE_CHANNELS, &dc, sizeof dc).status;
        vd[i] = now_us() - t0;
        dc.bDisable = 0;
        t0 = now_us();
        se |= rm_control(c.ctl, c.client, c.subdev, C2080_FIFO_DISABLE_CHANNELS, &dc, sizeof dc).status;
        ve[i] = now_us() - t0;
    }
    report("DISABLE_CHANNELS 8 (disable)", vd, n, sd);
    report("DISABLE_CHANNELS 8 (enable)", ve, n, se);
    free(vd);
    free(ve);
    series(&c, "NV0000 GET_ATTACHED_IDS", c.client, C0000_GET_ATTACHED_IDS, (uint32_t[32]){0}, 128, n);
    alloc_series(&c, n / 4 > 10 ? n / 4 : 10);
    /* Waiting for an empty group's preemption times out (NV_ERR_TIMEOUT) after a long wait: few calls. */
    series(&c, "PREEMPT wait=1 empty (times out)", H_TSG_E, CA06C_PREEMPT, &w1, 8, 3);
    rm_free(c.ctl, c.client, c.client);
    return 0;
}
