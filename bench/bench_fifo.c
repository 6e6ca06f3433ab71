/*
 * FIFO model benchmarks (issue 4): scheduling events per second, a 60 s
 * LC/BE run in wall time, and the per-event cost with 2048 channel groups of
 * 8 channels against 64 groups (no super-linear slowdown).
 */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "abi/nv_engine.h"
#include "fifo/fifo.h"
#include "profile/profile.h"
#include "sim/sim.h"

#define US 1000ull
#define MS 1000000ull

struct model {
    struct profile *p;
    struct sim *s;
    struct fifo *f;
    uint64_t records;
};

static void count_rec(void *ctx, const struct sim_rec *r)
{
    (void)r;
    ((struct model *)ctx)->records++;
}

static int model_init(struct model *m, const char *profile, uint64_t seed)
{
    char err[256];
    memset(m, 0, sizeof(*m));
    m->p = profile_load(profile, err, sizeof(err));
    if (!m->p) {
        fprintf(stderr, "bench_fifo: %s\n", err);
        return -1;
    }
    struct sim_config sc = {.seed = seed, .clock = NVEMU_CLOCK_VIRTUAL};
    m->s = sim_create(&sc);
    m->f = m->s ? fifo_create(m->p, 0, m->s, NULL) : NULL;
    if (!m->f)
        return -1;
    /* a consumer on the trace, as the scenario harness has */
    sim_trace_subscribe(m->s, count_rec, m);
    return 0;
}

static void model_fini(struct model *m)
{
    fifo_destroy(m->f);
    sim_destroy(m->s);
    profile_free(m->p);
}

static struct fifo_tsg *group(struct model *m, uint32_t nch, struct fifo_channel **chans, uint32_t mode)
{
    struct fifo_tsg *t;
    if (fifo_tsg_create(m->f, NV2080_ENGINE_TYPE_GR0, NULL, &t) != NV_OK)
        return NULL;
    for (uint32_t i = 0; i < nch; i++) {
        if (fifo_channel_create(t, i + 1, false, &chans[i]) != NV_OK)
            return NULL;
        fifo_channel_set_preempt_mode(chans[i], mode);
    }
    fifo_tsg_schedule(t, true, false, false);
    return t;
}

/* Closed loop: every completion submits the next kernel on the same channel. */
struct loop {
    struct model *m;
    struct fifo_channel *c;
    uint64_t kernel_ns;
    uint32_t blocks;
};

static void loop_done(void *ctx, uint64_t id, uint64_t tag, uint64_t submit_t, uint64_t done_t)
{
    (void)id;
    (void)tag;
    (void)submit_t;
    (void)done_t;
    struct loop *l = ctx;
    struct fifo_kernel k = {.blocks = l->blocks, .total_ns = l->kernel_ns};
    fifo_submit(l->c, &k, loop_done, l, NULL);
}

static void loop_start(struct loop *l)
{
    loop_done(l, 0, 0, 0, 0);
}

/* Runs virtual time in steps until the wall budget is spent; returns events fired per wall second. */
static double events_per_s(struct model *m, double budget, uint64_t step_ns, uint64_t *virt)
{
    double t0 = bench_now(), t1;
    uint64_t e0 = sim_fired(m->s);
    do {
        sim_run_until(m->s, sim_now(m->s) + step_ns);
        t1 = bench_now();
    } while (t1 - t0 < budget);
    *virt = sim_now(m->s);
    return (double)(sim_fired(m->s) - e0) / (t1 - t0);
}

static int run_events(const struct bench_ctx *ctx, struct bench_result *out)
{
    struct model m;
    if (model_init(&m, ctx->profile, 1) != 0)
        return -1;
    struct loop loops[8];
    struct fifo_channel *c;
    for (int i = 0; i < 8; i++) {
        struct fifo_tsg *t = group(&m, 1, &c, 2);
        if (!t)
            return -1;
        fifo_tsg_set_timeslice(t, 100);
        loops[i] = (struct loop){&m, c, 30 * US + (uint64_t)i * 7 * US, 264};
        loop_start(&loops[i]);
    }
    uint64_t virt;
    out->value = events_per_s(&m, ctx->seconds, 10 * MS, &virt);
    snprintf(out->note, sizeof(out->note), "8 closed-loop groups, 100 us slices, CILP; %.2f s virtual, %lu trace records",
             (double)virt / 1e9, (unsigned long)m.records);
    model_fini(&m);
    return 0;
}

/* LC task: a periodic request of 3 kernels; the next kernel is submitted when the previous one completes. */
struct lc {
    struct model *m;
    struct fifo_channel *c;
    uint64_t period, requests;
    uint32_t left;
};

static void lc_done(void *ctx, uint64_t id, uint64_t tag, uint64_t submit_t, uint64_t done_t)
{
    (void)id;
    (void)tag;
    (void)submit_t;
    (void)done_t;
    struct lc *l = ctx;
    if (l->left == 0)
        return;
    l->left--;
    struct fifo_kernel k = {.blocks = 132, .total_ns = 400 * US};
    fifo_submit(l->c, &k, lc_done, l, NULL);
}

static void lc_arrival(struct sim *s, void *arg, uint64_t data)
{
    (void)data;
    struct lc *l = arg;
    l->requests++;
    l->left = 3;
    lc_done(l, 0, 0, 0, 0);
    sim_at(s, sim_now(s) + l->period, lc_arrival, l, 0);
}

static int run_lc_be(const struct bench_ctx *ctx, struct bench_result *out)
{
    struct model m;
    if (model_init(&m, ctx->profile, 7) != 0)
        return -1;
    struct lc lcs[2];
    struct loop bes[4];
    struct fifo_channel *c;
    for (int i = 0; i < 2; i++) {
        if (!group(&m, 1, &c, 0))
            return -1;
        lcs[i] = (struct lc){&m, c, 10 * MS, 0, 0};
        sim_at(m.s, (uint64_t)i * 3 * MS, lc_arrival, &lcs[i], 0);
    }
    for (int i = 0; i < 4; i++) {
        if (!group(&m, 1, &c, 0))
            return -1;
        bes[i] = (struct loop){&m, c, 5 * MS, 132 * 8};
        loop_start(&bes[i]);
    }
    double t0 = bench_now();
    sim_run_until(m.s, 60000 * MS);
    out->value = bench_now() - t0;
    snprintf(out->note, sizeof(out->note), "60 s virtual, 2 LC (100 req/s) + 4 BE groups: %lu events, %lu records, %lu LC requests",
             (unsigned long)sim_fired(m.s), (unsigned long)m.records,
             (unsigned long)(lcs[0].requests + lcs[1].requests));
    model_fini(&m);
    return 0;
}

/* Per-event cost (ns) with `groups` groups of 8 channels, all busy. */
static int cost_per_event(const char *profile, uint32_t groups, double budget, double *ns, double *setup_s)
{
    struct model m;
    if (model_init(&m, profile, 3) != 0)
        return -1;
    static struct loop loops[2048];
    struct fifo_channel *c[8];
    double t0 = bench_now();
    for (uint32_t i = 0; i < groups; i++) {
        if (!group(&m, 8, c, 2))
            return -1;
        loops[i] = (struct loop){&m, c[i % 8], 200 * US, 132};
        loop_start(&loops[i]);
    }
    *setup_s = bench_now() - t0;
    sim_run_until(m.s, 1 * MS);
    uint64_t virt;
    *ns = 1e9 / events_per_s(&m, budget, 5 * MS, &virt);
    model_fini(&m);
    return 0;
}

static int run_scaling(const struct bench_ctx *ctx, struct bench_result *out)
{
    double small, large, s_setup, l_setup;
    if (cost_per_event(ctx->profile, 64, ctx->seconds / 2, &small, &s_setup) != 0 ||
        cost_per_event(ctx->profile, 2048, ctx->seconds / 2, &large, &l_setup) != 0)
        return -1;
    out->value = large / small;
    snprintf(out->note, sizeof(out->note),
             "ns/event: 2048x8 groups %.0f vs 64x8 %.0f; setup 2048x8 %.3f s (64x8 %.4f s)", large, small, l_setup,
             s_setup);
    return 0;
}

const struct bench_row bench_rows_fifo[] = {
    {"fifo.sched_events", "events/s", 1e6, true, run_events},
    {"fifo.lc_be_60s", "s wall", 0.6, false, run_lc_be},
    {"fifo.scale_2048x8", "cost ratio", 2.0, false, run_scaling},
    {NULL, NULL, 0, false, NULL},
};
