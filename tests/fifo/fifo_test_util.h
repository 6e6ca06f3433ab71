/* Shared fixtures of the FIFO tests: an H200-like profile built in code, a sim, trace helpers. */
#ifndef NVEMU_FIFO_TEST_UTIL_H
#define NVEMU_FIFO_TEST_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "abi/nv_engine.h"
#include "fifo/fifo.h"
#include "sim/sim.h"

#define US 1000ull
#define MS 1000000ull
#define TEST_SM 100u       /* one wave = 100 blocks */
#define TEST_CTXSW (25 * US)
#define TEST_CILP (30 * US)
#define TEST_RESERVED_CHIDS 10u
#define TEST_UID_FIRST 0x33u

static inline void test_profile(struct profile *p)
{
    memset(p, 0, sizeof(*p));
    strcpy(p->name, "test");
    p->engine_count = 2;
    p->engines[0] = (struct profile_engine){NV2080_ENGINE_TYPE_GR0, 0, "GR0"};
    p->engines[1] = (struct profile_engine){NV2080_ENGINE_TYPE_COPY(2), 1, "COPY2"};
    p->sm_count = TEST_SM;
    p->default_timeslice_us = 1024;
    p->min_timeslice_us = 0;
    p->timeslice_scale_max = 15;
    p->max_channel_groups = 2048;
    p->max_channels_per_group = 128;
    p->max_subcontexts = 64;
    /* H200 as recorded: one ChID/TSG-id space, 10 ChIDs held by RM/UVM, the reference trace's cid start */
    p->per_runlist_chram = false;
    p->per_runlist_chram_hw = true;
    p->reserved_chids = TEST_RESERVED_CHIDS;
    p->channel_uid_first = TEST_UID_FIRST;
    p->default_compute_preempt_mode = 0;
    p->timing.ctxsw_ns = TEST_CTXSW;
    p->timing.runlist_update_ns = 0;
    p->timing.wfi_overhead_ns = 0;
    p->timing.cta_overhead_ns = 0;
    p->timing.cilp_save_ns = TEST_CILP;
    p->timing.preempt_timeout_ns = 1000 * MS;
}

struct tenv {
    struct profile p;
    struct sim *s;
    struct fifo *f;
};

/* A sim + fifo over e->p as already filled in (tenv_init fills it with test_profile). */
static inline void tenv_init_profile(struct tenv *e, uint64_t seed, const char *trace_path)
{
    struct sim_config sc = {.seed = seed, .clock = NVEMU_CLOCK_VIRTUAL, .trace_path = trace_path, .keep_trace = true};
    e->s = sim_create(&sc);
    assert_non_null(e->s);
    e->f = fifo_create(&e->p, 0, e->s, NULL);
    assert_non_null(e->f);
}

static inline void tenv_init(struct tenv *e, uint64_t seed, const char *trace_path)
{
    test_profile(&e->p);
    tenv_init_profile(e, seed, trace_path);
}

static inline void tenv_fini(struct tenv *e)
{
    fifo_destroy(e->f);
    sim_destroy(e->s);
}

/* A scheduled GR TSG with n channels. */
static inline struct fifo_tsg *mk_tsg(struct tenv *e, uint32_t nch, struct fifo_channel **chans)
{
    struct fifo_tsg *t;
    assert_int_equal(fifo_tsg_create(e->f, NV2080_ENGINE_TYPE_GR0, NULL, &t), NV_OK);
    for (uint32_t i = 0; i < nch; i++)
        assert_int_equal(fifo_channel_create(t, 0x1000 + i, false, &chans[i]), NV_OK);
    assert_int_equal(fifo_tsg_schedule(t, true, false, false), NV_OK);
    return t;
}

/* A scheduled GR TSG of one CILP channel (*ch) with a timeslice of slice_us. */
static inline struct fifo_tsg *mk_cilp_tsg(struct tenv *e, uint64_t slice_us, struct fifo_channel **ch)
{
    struct fifo_tsg *t = mk_tsg(e, 1, ch);
    assert_int_equal(fifo_channel_set_preempt_mode(*ch, FIFO_PREEMPT_CILP), NV_OK);
    assert_int_equal(fifo_tsg_set_timeslice(t, slice_us), NV_OK);
    return t;
}

/* fifo_done_fn that keeps each kernel's completion time in ((uint64_t *)ctx)[tag]. */
static inline void done_by_tag(void *ctx, uint64_t kernel_id, uint64_t tag, uint64_t submit_t, uint64_t done_t)
{
    (void)kernel_id;
    (void)submit_t;
    ((uint64_t *)ctx)[tag] = done_t;
}

/* Queues a one-wave kernel of ns on c; its completion time lands in done[tag]. */
static inline void run_kernel(struct fifo_channel *c, uint64_t ns, uint64_t tag, uint64_t *done)
{
    struct fifo_kernel k = {.blocks = TEST_SM, .block_ns = ns, .tag = tag};
    assert_int_equal(fifo_submit(c, &k, done_by_tag, done, NULL), NV_OK);
}

static inline uint64_t submit(struct fifo_channel *c, uint32_t blocks, uint64_t block_ns)
{
    struct fifo_kernel k = {.blocks = blocks, .block_ns = block_ns};
    uint64_t id = 0;
    assert_int_equal(fifo_submit(c, &k, NULL, NULL, &id), NV_OK);
    return id;
}

/* i-th record of a kind (0-based) for a TSG (SIM_NONE = any), or NULL. */
static inline const struct sim_rec *find_rec(struct sim *s, enum sim_rec_kind kind, uint32_t tsg, unsigned nth)
{
    for (size_t i = 0; i < sim_trace_count(s); i++) {
        const struct sim_rec *r = sim_trace_get(s, i);
        if (r->kind == kind && (tsg == SIM_NONE || r->tsg == tsg) && nth-- == 0)
            return r;
    }
    return NULL;
}

static inline unsigned count_rec(struct sim *s, enum sim_rec_kind kind, uint32_t tsg)
{
    unsigned n = 0;
    for (size_t i = 0; i < sim_trace_count(s); i++) {
        const struct sim_rec *r = sim_trace_get(s, i);
        n += r->kind == kind && (tsg == SIM_NONE || r->tsg == tsg);
    }
    return n;
}

#endif
