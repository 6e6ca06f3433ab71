/*
 * Property tests over seeded random workloads (white box: they read the
 * engine state after every event): the engine is never idle while a group is
 * runnable (also while groups are destroyed and recreated mid-run), equal
 * timeslices give equal shares within one timeslice, and no group starves
 * under the default policy.
 */
#include "fifo_test_util.h"

#include "fifo/fifo_internal.h"

#define NTSG_MAX 8
#define SEEDS 12

struct work {
    struct tenv *e;
    struct fifo_channel *c[NTSG_MAX];
    uint32_t n;
    uint64_t max_kernel_ns;
    bool closed_loop;
};

static struct fifo_kernel rand_kernel(struct work *w)
{
    struct sim *s = w->e->s;
    uint32_t waves = 1 + (uint32_t)(sim_rand_u64(s) % 4);
    uint64_t wave_ns = 1 + sim_rand_u64(s) % (w->max_kernel_ns / waves);
    return (struct fifo_kernel){.blocks = waves * TEST_SM, .block_ns = wave_ns};
}

static void on_done(void *ctx, uint64_t id, uint64_t tag, uint64_t submit_t, uint64_t done_t)
{
    (void)id;
    (void)submit_t;
    (void)done_t;
    struct work *w = ctx;
    if (!w->closed_loop)
        return;
    struct fifo_kernel k = rand_kernel(w);
    k.tag = tag;
    fifo_submit(w->c[tag], &k, on_done, w, NULL);
}

static void arrival(struct sim *s, void *arg, uint64_t i)
{
    struct work *w = arg;
    struct fifo_kernel k = rand_kernel(w);
    k.tag = i;
    fifo_submit(w->c[i], &k, on_done, w, NULL);
    sim_at(s, sim_now(s) + sim_rand_exp(s, (double)w->max_kernel_ns * w->n), arrival, w, i);
}

static void random_preempt(struct sim *s, void *arg, uint64_t data)
{
    (void)data;
    struct work *w = arg;
    fifo_tsg_preempt(fifo_channel_tsg(w->c[sim_rand_u64(s) % w->n]), false, 0);
    sim_at(s, sim_now(s) + sim_rand_exp(s, 5.0 * MS), random_preempt, w, 0);
}

static void setup(struct work *w, struct tenv *e, uint64_t seed, bool equal_ts, bool closed_loop)
{
    tenv_init(e, seed, NULL);
    memset(w, 0, sizeof(*w));
    w->e = e;
    w->n = 2 + (uint32_t)(sim_rand_u64(e->s) % (NTSG_MAX - 1));
    w->max_kernel_ns = 200 * US + sim_rand_u64(e->s) % (2 * MS);
    w->closed_loop = closed_loop;
    for (uint32_t i = 0; i < w->n; i++) {
        struct fifo_tsg *t = mk_tsg(e, 1, &w->c[i]);
        if (!equal_ts)
            fifo_tsg_set_timeslice(t, 1 + sim_rand_u64(e->s) % 5000);
        /* equal shares need equal drains: CILP saves take a fixed time, WFI/CTA drains vary per kernel */
        fifo_channel_set_preempt_mode(w->c[i], equal_ts ? FIFO_PREEMPT_CILP : (uint32_t)(sim_rand_u64(e->s) % 3));
        if (closed_loop) {
            struct fifo_kernel k = rand_kernel(w);
            k.tag = i;
            fifo_submit(w->c[i], &k, on_done, w, NULL);
        } else {
            sim_at(e->s, sim_rand_u64(e->s) % (5 * MS), arrival, w, i);
        }
    }
}

/* Destroys a random group (mid-kernel, mid-switch or mid-preemption) and puts a fresh one in its place. */
static void churn(struct sim *s, void *arg, uint64_t data)
{
    (void)data;
    struct work *w = arg;
    uint32_t i = (uint32_t)(sim_rand_u64(s) % w->n);
    fifo_tsg_destroy(fifo_channel_tsg(w->c[i]));
    mk_tsg(w->e, 1, &w->c[i]);
    fifo_channel_set_preempt_mode(w->c[i], (uint32_t)(sim_rand_u64(s) % 3));
    struct fifo_kernel k = rand_kernel(w);
    k.tag = i;
    fifo_submit(w->c[i], &k, on_done, w, NULL);
    sim_at(s, sim_now(s) + sim_rand_exp(s, 7.0 * MS), churn, w, 0);
}

/* Recounts runnable TSGs of a runlist and checks the engine is busy whenever one is runnable. */
static void check_engine(struct fifo_runlist *rl, struct fifo_tsg *const *all, uint32_t n)
{
    uint32_t runnable = 0;
    for (uint32_t i = 0; i < n; i++)
        runnable += all[i]->rl == rl && all[i]->runnable;
    assert_int_equal(runnable, rl->runnable);
    if (runnable)
        assert_int_not_equal(rl->state, ENG_IDLE);
}

static void gpu_is_never_idle_while_a_group_is_runnable(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= SEEDS; seed++) {
        struct tenv e;
        struct work w;
        setup(&w, &e, seed, false, seed % 2);
        sim_at(e.s, 2 * MS, random_preempt, &w, 0);
        sim_at(e.s, 4 * MS, churn, &w, 0);
        struct fifo_tsg *all[NTSG_MAX];
        uint64_t steps = 0;
        while (sim_now(e.s) < 300 * MS && sim_step(e.s)) {
            for (uint32_t i = 0; i < w.n; i++)
                all[i] = fifo_channel_tsg(w.c[i]);
            check_engine(&e.f->rls[0], all, w.n);
            steps++;
        }
        assert_true(steps > 100);
        assert_true(count_rec(e.s, SIM_REC_TSG_DESTROY, SIM_NONE) > 10);
        tenv_fini(&e);
    }
}

struct shares {
    uint64_t start[NTSG_MAX];
    uint64_t service[NTSG_MAX];
    bool running[NTSG_MAX];
};

static void share_rec(void *ctx, const struct sim_rec *r)
{
    struct shares *sh = ctx;
    if (r->tsg >= NTSG_MAX)
        return;
    if (r->kind == SIM_REC_START) {
        sh->start[r->tsg] = r->t;
        sh->running[r->tsg] = true;
    } else if (r->kind == SIM_REC_PREEMPT_DONE && sh->running[r->tsg]) {
        sh->service[r->tsg] += r->t - sh->start[r->tsg];
        sh->running[r->tsg] = false;
    }
}

static void equal_groups_get_equal_shares_for_every_seed(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= SEEDS; seed++) {
        struct tenv e;
        struct work w;
        struct shares sh = {0};
        setup(&w, &e, seed, true, true);
        sim_trace_subscribe(e.s, share_rec, &sh);
        const uint64_t end = 500 * MS;
        sim_run_until(e.s, end);
        uint64_t lo = UINT64_MAX, hi = 0, total = 0;
        for (uint32_t i = 0; i < w.n; i++) {
            uint64_t sv = sh.service[i] + (sh.running[i] ? end - sh.start[i] : 0);
            lo = sv < lo ? sv : lo;
            hi = sv > hi ? sv : hi;
            total += sv;
        }
        /* turns are equal (timeslice + CILP save), so shares differ by at most one turn */
        uint64_t bound = 1024 * US + TEST_CILP;
        assert_true(hi - lo <= bound);
        assert_true(total > end / 2);
        tenv_fini(&e);
    }
}

static void no_group_starves_for_any_seed(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= SEEDS; seed++) {
        struct tenv e;
        struct work w;
        setup(&w, &e, 100 + seed, false, seed % 2);
        sim_at(e.s, 3 * MS, random_preempt, &w, 0);
        struct fifo_tsg *all[NTSG_MAX];
        uint64_t since[NTSG_MAX] = {0};
        bool waiting[NTSG_MAX] = {false};
        uint64_t max_wait = 0;
        for (uint32_t i = 0; i < w.n; i++)
            all[i] = fifo_channel_tsg(w.c[i]);
        /* every other group gets at most one turn (timeslice + drain + switches) before a waiter */
        uint64_t bound = w.n * (5000 * US + w.max_kernel_ns + TEST_CILP + 2 * TEST_CTXSW);
        while (sim_now(e.s) < 400 * MS && sim_step(e.s)) {
            uint64_t now = sim_now(e.s);
            for (uint32_t i = 0; i < w.n; i++) {
                struct fifo_tsg *t = all[i];
                bool waits = t->runnable && t->rl->cur != t;
                if (!waits) {
                    waiting[i] = false;
                    continue;
                }
                if (!waiting[i]) {
                    waiting[i] = true;
                    since[i] = now;
                }
                uint64_t wt = now - since[i];
                max_wait = wt > max_wait ? wt : max_wait;
                assert_true(wt <= bound);
            }
        }
        for (uint32_t i = 0; i < w.n; i++)
            assert_true(count_rec(e.s, SIM_REC_START, fifo_tsg_hw_id(all[i])) > 0);
        assert_true(max_wait > 0);
        tenv_fini(&e);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gpu_is_never_idle_while_a_group_is_runnable),
        cmocka_unit_test(equal_groups_get_equal_shares_for_every_seed),
        cmocka_unit_test(no_group_starves_for_any_seed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
