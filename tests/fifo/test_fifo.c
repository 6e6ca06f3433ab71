/* Unit tests of the FIFO model: ids, timeslices, runlists, rotation, preemption modes, disable, waits, determinism. */
#include "fifo_test_util.h"

#include <stdio.h>
#include <unistd.h>

static void effective_timeslice_rounds_to_the_profiles_granularity(void **state)
{
    (void)state;
    struct profile p;
    test_profile(&p);
    assert_int_equal(fifo_effective_timeslice_ns(&p, 1024), 1024 * US);
    assert_int_equal(fifo_effective_timeslice_ns(&p, 2048), 2048 * US);
    assert_int_equal(fifo_effective_timeslice_ns(&p, 1000), 1000 * US);
    assert_int_equal(fifo_effective_timeslice_ns(&p, 1001), 1000 * US);
    assert_int_equal(fifo_effective_timeslice_ns(&p, 5000), 4992 * US);
    assert_int_equal(fifo_effective_timeslice_ns(&p, 1), 1 * US);
    assert_int_equal(fifo_effective_timeslice_ns(&p, 0), 0);
    p.min_timeslice_us = 10;
    assert_int_equal(fifo_effective_timeslice_ns(&p, 1), 10 * US);
    p.timeslice_scale_max = 3;
    assert_int_equal(fifo_effective_timeslice_ns(&p, 1000000), 255 * 8 * US);
}

static void tsg_ids_are_shared_by_runlists_and_reused_and_a_missing_engine_is_refused(void **state)
{
    (void)state;
    struct tenv e;
    tenv_init(&e, 1, NULL);
    struct fifo_tsg *t[3], *cp, *again;
    for (int i = 0; i < 3; i++) {
        assert_int_equal(fifo_tsg_create(e.f, NV2080_ENGINE_TYPE_GR0, NULL, &t[i]), NV_OK);
        assert_int_equal(fifo_tsg_hw_id(t[i]), (uint32_t)i);
    }
    /* H200: one TSG-id space for every runlist (channel RAM not per runlist) */
    assert_int_equal(fifo_tsg_create(e.f, NV2080_ENGINE_TYPE_COPY(2), NULL, &cp), NV_OK);
    assert_int_equal(fifo_tsg_hw_id(cp), 3);
    fifo_tsg_destroy(t[1]);
    assert_int_equal(fifo_tsg_create(e.f, NV2080_ENGINE_TYPE_GR0, NULL, &again), NV_OK);
    assert_int_equal(fifo_tsg_hw_id(again), 1);
    struct fifo_tsg *bad;
    assert_int_equal(fifo_tsg_create(e.f, NV2080_ENGINE_TYPE_NVDEC0, NULL, &bad), NV_ERR_INVALID_ARGUMENT);
    assert_int_equal(fifo_tsg_count(e.f), 4);
    assert_int_equal(fifo_tsg_count_engine(e.f, NV2080_ENGINE_TYPE_GR0), 3);

    struct fifo_channel *c, *first = NULL;
    for (int i = 0; i < 128; i++) {
        assert_int_equal(fifo_channel_create(t[0], (uint32_t)i, false, &c), NV_OK);
        if (!first)
            first = c;
    }
    assert_int_equal(fifo_channel_create(t[0], 999, false, &c), NV_ERR_INSUFFICIENT_RESOURCES);
    assert_int_equal(fifo_tsg_channel_count(t[0]), 128);
    /* ChIDs below reserved_chids belong to RM/UVM: the first user channel gets 10, as on the H200 */
    assert_int_equal(fifo_channel_chid(first), TEST_RESERVED_CHIDS);
    assert_int_equal(fifo_channel_chid(c), TEST_RESERVED_CHIDS + 127);

    /* the copy runlist's channel continues the GPU-wide ChID space */
    struct fifo_channel *cc;
    uint32_t token;
    assert_int_equal(fifo_channel_create(cp, 7, false, &cc), NV_OK);
    assert_int_equal(fifo_channel_chid(cc), TEST_RESERVED_CHIDS + 128);
    /* no runlist before the group is scheduled (H200: 0x40), then runlistId << 16 | chid */
    assert_int_equal(fifo_channel_work_submit_token(cc, &token), NV_ERR_INVALID_STATE);
    assert_int_equal(fifo_tsg_schedule(cp, true, false, false), NV_OK);
    assert_int_equal(fifo_channel_work_submit_token(cc, &token), NV_OK);
    assert_int_equal(token, (1u << 16) | fifo_channel_chid(cc));
    /* STOP_CHANNEL takes it off the runlist but the H200 still answers the token */
    assert_int_equal(fifo_channel_stop(cc, true), NV_OK);
    token = 0;
    assert_int_equal(fifo_channel_work_submit_token(cc, &token), NV_OK);
    assert_int_equal(token, (1u << 16) | fifo_channel_chid(cc));
    /* a channel added to a group that has its runlist gets it too; an engine object gives one as well */
    struct fifo_channel *late, *obj;
    assert_int_equal(fifo_channel_create(cp, 8, false, &late), NV_OK);
    assert_int_equal(fifo_channel_work_submit_token(late, &token), NV_OK);
    assert_int_equal(fifo_channel_create(t[2], 9, false, &obj), NV_OK);
    assert_int_equal(fifo_channel_work_submit_token(obj, &token), NV_ERR_INVALID_STATE);
    fifo_channel_engine_object(obj);
    assert_int_equal(fifo_channel_work_submit_token(obj, &token), NV_OK);
    assert_int_equal(token, fifo_channel_chid(obj));
    tenv_fini(&e);
}

static void per_runlist_chram_gives_each_runlist_its_own_id_spaces(void **state)
{
    (void)state;
    struct tenv e;
    test_profile(&e.p);
    e.p.per_runlist_chram = true;
    tenv_init_profile(&e, 1, NULL);
    struct fifo_tsg *gr, *cp;
    struct fifo_channel *a, *b;
    assert_int_equal(fifo_tsg_create(e.f, NV2080_ENGINE_TYPE_GR0, NULL, &gr), NV_OK);
    assert_int_equal(fifo_tsg_create(e.f, NV2080_ENGINE_TYPE_COPY(2), NULL, &cp), NV_OK);
    /* separate TSG-id and ChID spaces per runlist, each with the reserved ChIDs */
    assert_int_equal(fifo_tsg_hw_id(cp), 0);
    assert_int_equal(fifo_channel_create(gr, 1, false, &a), NV_OK);
    assert_int_equal(fifo_channel_create(cp, 2, false, &b), NV_OK);
    assert_int_equal(fifo_channel_chid(a), TEST_RESERVED_CHIDS);
    assert_int_equal(fifo_channel_chid(b), TEST_RESERVED_CHIDS);
    tenv_fini(&e);
}

static void test_timeslice_get_set(void **state)
{
    (void)state;
    struct tenv e;
    tenv_init(&e, 1, NULL);
    struct fifo_channel *c;
    struct fifo_tsg *t = mk_tsg(&e, 1, &c);
    struct fifo_tsg_info ti;
    assert_int_equal(fifo_tsg_get_timeslice(t), 1024);
    assert_int_equal(fifo_tsg_set_timeslice(t, 5000), NV_OK);
    assert_int_equal(fifo_tsg_get_timeslice(t), 5000);
    fifo_tsg_get_info(t, &ti);
    assert_int_equal(ti.timeslice_ns, 4992 * US);
    assert_int_equal(ti.interleave, FIFO_INTERLEAVE_MEDIUM);
    assert_int_equal(fifo_tsg_set_interleave(t, 3), NV_ERR_INVALID_ARGUMENT);
    assert_int_equal(fifo_tsg_schedule(t, true, true, true), NV_ERR_INVALID_ARGUMENT);
    tenv_fini(&e);
}

static struct fifo_tsg *mk_level(struct tenv *e, uint32_t level)
{
    struct fifo_channel *c;
    struct fifo_tsg *t = mk_tsg(e, 1, &c);
    assert_int_equal(fifo_tsg_set_interleave(t, level), NV_OK);
    return t;
}

static void expect_runlist(struct tenv *e, const uint32_t *want, uint32_t n)
{
    uint32_t got[64];
    sim_run_until(e->s, sim_now(e->s));
    assert_int_equal(fifo_runlist_get(e->f, 0, got, 64), n);
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(got[i], want[i]);
}

static void runlist_repeats_groups_by_interleave_level(void **state)
{
    (void)state;
    struct tenv e;
    tenv_init(&e, 1, NULL);
    struct fifo_tsg *a = mk_level(&e, FIFO_INTERLEAVE_LOW);
    mk_level(&e, FIFO_INTERLEAVE_MEDIUM);
    mk_level(&e, FIFO_INTERLEAVE_HIGH);
    static const uint32_t def3[] = {0, 1, 2};
    expect_runlist(&e, def3, 3);
    assert_int_equal(fifo_set_sched_policy(e.f, FIFO_POLICY_CHANNEL_INTERLEAVED, false, &e), NV_OK);
    /* L=1, M=1: LOW once, MEDIUM L=1 time, HIGH (M+1)*L = 2 times */
    static const uint32_t il3[] = {2, 1, 0, 2};
    expect_runlist(&e, il3, 4);
    mk_level(&e, FIFO_INTERLEAVE_LOW);
    /* L=2, M=1: MEDIUM 2 times, HIGH (1+1)*2 = 4 times */
    static const uint32_t il4[] = {2, 1, 0, 3, 2, 1, 2, 2};
    expect_runlist(&e, il4, 8);
    /* realtime goes first with the highest repetition count */
    assert_int_equal(fifo_tsg_make_realtime(a, true), NV_OK);
    static const uint32_t rt[] = {0, 2, 1, 3, 0, 2};
    expect_runlist(&e, rt, 6);
    assert_int_equal(fifo_set_sched_policy(e.f, 0, true, &e), NV_OK);
    static const uint32_t def4[] = {0, 1, 2, 3};
    expect_runlist(&e, def4, 4);
    tenv_fini(&e);
}

static void runlist_without_low_groups_repeats_high_per_medium(void **state)
{
    (void)state;
    struct tenv e;
    tenv_init(&e, 1, NULL);
    mk_level(&e, FIFO_INTERLEAVE_MEDIUM);
    mk_level(&e, FIFO_INTERLEAVE_MEDIUM);
    mk_level(&e, FIFO_INTERLEAVE_HIGH);
    assert_int_equal(fifo_set_sched_policy(e.f, FIFO_POLICY_CHANNEL_INTERLEAVED, false, &e), NV_OK);
    /* L=0, M=2: HIGH M=2 times, MEDIUM once */
    static const uint32_t want[] = {2, 0, 1, 2};
    expect_runlist(&e, want, 4);
    tenv_fini(&e);
}

static void sched_policy_change_is_refused_while_another_holds_the_lock(void **state)
{
    (void)state;
    struct tenv e;
    tenv_init(&e, 1, NULL);
    int a, b;
    assert_int_equal(fifo_set_sched_policy(e.f, 1, false, &a), NV_OK);
    assert_int_equal(fifo_set_sched_policy(e.f, 0, false, &b), NV_ERR_INVALID_STATE);
    assert_int_equal(fifo_set_sched_policy(e.f, 1, false, &b), NV_OK);
    assert_int_equal(fifo_set_sched_policy(e.f, 1, true, &a), NV_OK);
    assert_int_equal(fifo_sched_policy(e.f), 1);
    assert_int_equal(fifo_set_sched_policy(e.f, 7, false, &b), NV_ERR_INVALID_ARGUMENT);
    fifo_sched_policy_owner_gone(e.f, &b);
    assert_int_equal(fifo_sched_policy(e.f), 0);
    assert_int_equal(fifo_set_sched_policy(e.f, 0, false, &a), NV_OK);
    /* H200: the sole holder may switch the policy; a restore from a non-holder is refused */
    assert_int_equal(fifo_set_sched_policy(e.f, 1, false, &a), NV_OK);
    assert_int_equal(fifo_sched_policy(e.f), 1);
    assert_int_equal(fifo_set_sched_policy(e.f, 0, true, &b), NV_ERR_INVALID_STATE);
    assert_int_equal(fifo_set_sched_policy(e.f, 0, true, &a), NV_OK);
    assert_int_equal(fifo_set_sched_policy(e.f, 0, true, &a), NV_ERR_INVALID_STATE);
    assert_int_equal(fifo_sched_policy(e.f), 0);
    tenv_fini(&e);
}

static void groups_rotate_round_robin_one_timeslice_each(void **state)
{
    (void)state;
    struct tenv e;
    tenv_init(&e, 1, NULL);
    struct fifo_channel *c[3];
    for (int i = 0; i < 3; i++) {
        mk_tsg(&e, 1, &c[i]);
        assert_int_equal(fifo_channel_set_preempt_mode(c[i], FIFO_PREEMPT_CILP), NV_OK);
        submit(c[i], TEST_SM, 100 * MS);
    }
    sim_run_until(e.s, 20 * MS);
    /* round robin: 0,1,2,0,1,2,... each running one timeslice before expiry; the load counts against it */
    for (unsigned i = 0; i < 12; i++) {
        const struct sim_rec *st = find_rec(e.s, SIM_REC_START, SIM_NONE, i);
        const struct sim_rec *ex = find_rec(e.s, SIM_REC_TIMESLICE_EXPIRE, SIM_NONE, i);
        assert_non_null(st);
        assert_non_null(ex);
        assert_int_equal(st->tsg, i % 3);
        assert_int_equal(ex->tsg, i % 3);
        assert_int_equal(ex->t - st->t, 1024 * US - TEST_CTXSW);
    }
    /* the first start follows one switch; later ones a CILP save plus a switch */
    assert_int_equal(find_rec(e.s, SIM_REC_START, SIM_NONE, 0)->t, TEST_CTXSW);
    assert_int_equal(find_rec(e.s, SIM_REC_START, SIM_NONE, 1)->t, 1024 * US + TEST_CILP + TEST_CTXSW);
    tenv_fini(&e);
}

/* A 10-wave kernel (1 ms per wave) preempted 2.5 ms after it started. */
static void preempt_mode_case(uint32_t mode, uint64_t want_done_rel, uint64_t want_kernel_done_rel)
{
    struct tenv e;
    tenv_init(&e, 1, NULL);
    struct fifo_channel *c;
    struct fifo_tsg *t = mk_tsg(&e, 1, &c);
    assert_int_equal(fifo_channel_set_preempt_mode(c, mode), NV_OK);
    submit(c, 10 * TEST_SM, 1 * MS);
    sim_run_until(e.s, 0);
    const uint64_t k0 = TEST_CTXSW;
    sim_run_until(e.s, k0 + 2500 * US);
    assert_int_equal(fifo_tsg_preempt(t, false, 0), NV_OK);
    assert_int_equal(sim_take_call_charge(e.s), 0);
    sim_run_until(e.s, 100 * MS);
    const struct sim_rec *req = find_rec(e.s, SIM_REC_PREEMPT_REQ, 0, 0);
    const struct sim_rec *done = find_rec(e.s, SIM_REC_PREEMPT_DONE, 0, 0);
    const struct sim_rec *kd = find_rec(e.s, SIM_REC_KERNEL_DONE, 0, 0);
    assert_non_null(req);
    assert_non_null(done);
    assert_non_null(kd);
    assert_int_equal(req->b, mode);
    assert_int_equal(req->t, k0 + 2500 * US);
    assert_int_equal(done->t - k0, want_done_rel);
    assert_int_equal(kd->t - k0, want_kernel_done_rel);
    tenv_fini(&e);
}

static void test_preempt_wfi(void **state)
{
    (void)state;
    preempt_mode_case(FIFO_PREEMPT_WFI, 10 * MS, 10 * MS);
}

static void test_preempt_cta(void **state)
{
    (void)state;
    preempt_mode_case(FIFO_PREEMPT_CTA, 3 * MS, 3 * MS + TEST_CTXSW + 7 * MS);
}

static void test_preempt_cilp(void **state)
{
    (void)state;
    preempt_mode_case(FIFO_PREEMPT_CILP, 2500 * US + TEST_CILP, 2500 * US + TEST_CILP + TEST_CTXSW + 7500 * US);
}

static void test_preempt_wait_timeout(void **state)
{
    (void)state;
    struct tenv e;
    tenv_init(&e, 1, NULL);
    struct fifo_channel *c, *c2;
    struct fifo_tsg *t = mk_tsg(&e, 1, &c);
    struct fifo_tsg *idle = mk_tsg(&e, 1, &c2);
    submit(c, TEST_SM, 10 * MS);
    sim_run_until(e.s, TEST_CTXSW + 1 * MS);
    /* WFI needs 9 ms more: a 1 ms wait gives up with NV_ERR_TIMEOUT after charging the timeout */
    assert_int_equal(fifo_tsg_preempt(t, true, 1 * MS), NV_ERR_TIMEOUT);
    assert_int_equal(sim_take_call_charge(e.s), 1 * MS);
    assert_non_null(find_rec(e.s, SIM_REC_PREEMPT_TIMEOUT, 0, 0));
    /* the preemption still completes; a longer wait returns when it does */
    assert_int_equal(fifo_tsg_preempt(t, true, 20 * MS), NV_OK);
    assert_int_equal(sim_take_call_charge(e.s), 9 * MS);
    assert_int_equal(fifo_tsg_preempt(idle, true, 0), NV_OK);
    assert_int_equal(sim_take_call_charge(e.s), 0);
    /* H200: a waited preempt of a group without channels times out after the whole timeout */
    struct fifo_tsg *empty;
    assert_int_equal(fifo_tsg_create(e.f, NV2080_ENGINE_TYPE_GR0, NULL, &empty), NV_OK);
    assert_int_equal(fifo_tsg_schedule(empty, true, false, false), NV_OK);
    assert_int_equal(fifo_tsg_preempt(empty, false, 0), NV_OK);
    assert_int_equal(fifo_tsg_preempt(empty, true, 3 * MS), NV_ERR_TIMEOUT);
    assert_int_equal(sim_take_call_charge(e.s), 3 * MS);
    assert_int_equal(fifo_tsg_preempt(empty, true, 0), NV_ERR_TIMEOUT);
    assert_int_equal(sim_take_call_charge(e.s), e.p.timing.preempt_timeout_ns);
    sim_run_until(e.s, 20 * MS);
    assert_int_equal(find_rec(e.s, SIM_REC_PREEMPT_DONE, 0, 0)->t, TEST_CTXSW + 10 * MS);
    assert_int_equal(count_rec(e.s, SIM_REC_PREEMPT_REQ, 0), 1);
    tenv_fini(&e);
}

static void disabled_channel_is_preempted_and_resumes_with_its_remaining_work(void **state)
{
    (void)state;
    struct tenv e;
    tenv_init(&e, 1, NULL);
    struct fifo_channel *c;
    mk_tsg(&e, 1, &c);
    assert_int_equal(fifo_channel_set_preempt_mode(c, FIFO_PREEMPT_CILP), NV_OK);
    submit(c, TEST_SM, 1 * MS);
    submit(c, TEST_SM, 1 * MS);
    sim_run_until(e.s, TEST_CTXSW + 500 * US);
    assert_int_equal(fifo_channel_disable(c, true, false, false), NV_OK);
    sim_run_until(e.s, 5 * MS);
    assert_non_null(find_rec(e.s, SIM_REC_PREEMPT_DONE, 0, 0));
    assert_non_null(find_rec(e.s, SIM_REC_IDLE, SIM_NONE, 0));
    assert_int_equal(count_rec(e.s, SIM_REC_KERNEL_DONE, SIM_NONE), 0);
    assert_int_equal(fifo_channel_pending(c), 2);
    assert_int_equal(fifo_channel_disable(c, false, false, false), NV_OK);
    sim_run_until(e.s, 10 * MS);
    /* resumes after a switch with the 0.5 ms it had left, then the second kernel */
    assert_int_equal(find_rec(e.s, SIM_REC_KERNEL_DONE, 0, 0)->t, 5 * MS + TEST_CTXSW + 500 * US);
    assert_int_equal(find_rec(e.s, SIM_REC_KERNEL_DONE, 0, 1)->t, 5 * MS + TEST_CTXSW + 1500 * US);
    tenv_fini(&e);
}

static void disable_only_scheduling_lets_the_running_kernel_finish(void **state)
{
    (void)state;
    struct tenv e;
    tenv_init(&e, 1, NULL);
    struct fifo_channel *c;
    mk_tsg(&e, 1, &c);
    submit(c, TEST_SM, 1 * MS);
    submit(c, TEST_SM, 1 * MS);
    sim_run_until(e.s, TEST_CTXSW + 500 * US);
    assert_int_equal(fifo_channel_disable(c, true, true, false), NV_OK);
    sim_run_until(e.s, 5 * MS);
    /* the running kernel is not kicked off, the next one does not start */
    assert_int_equal(count_rec(e.s, SIM_REC_PREEMPT_REQ, SIM_NONE), 0);
    assert_int_equal(count_rec(e.s, SIM_REC_KERNEL_DONE, 0), 1);
    assert_int_equal(find_rec(e.s, SIM_REC_KERNEL_DONE, 0, 0)->t, TEST_CTXSW + 1 * MS);
    assert_int_equal(count_rec(e.s, SIM_REC_KERNEL_START, 0), 1);
    /* rewind drops the queued kernel */
    assert_int_equal(fifo_channel_disable(c, true, true, true), NV_OK);
    assert_int_equal(fifo_channel_pending(c), 0);
    tenv_fini(&e);
}

static void test_schedule_disable_preempts(void **state)
{
    (void)state;
    struct tenv e;
    tenv_init(&e, 1, NULL);
    struct fifo_channel *c;
    struct fifo_tsg *t = mk_tsg(&e, 1, &c);
    assert_int_equal(fifo_channel_set_preempt_mode(c, FIFO_PREEMPT_CILP), NV_OK);
    submit(c, TEST_SM, 10 * MS);
    sim_run_until(e.s, 1 * MS);
    assert_int_equal(fifo_tsg_schedule(t, false, false, false), NV_OK);
    sim_run_until(e.s, 20 * MS);
    assert_int_equal(find_rec(e.s, SIM_REC_PREEMPT_DONE, 0, 0)->t, 1 * MS + TEST_CILP);
    assert_int_equal(count_rec(e.s, SIM_REC_KERNEL_DONE, 0), 0);
    uint32_t ids[4];
    assert_int_equal(fifo_runlist_get(e.f, 0, ids, 4), 0);
    assert_int_equal(fifo_tsg_schedule(t, true, false, false), NV_OK);
    sim_run_until(e.s, 40 * MS);
    assert_int_equal(count_rec(e.s, SIM_REC_KERNEL_DONE, 0), 1);
    tenv_fini(&e);
}

/* ---- determinism ---- */

struct rnd {
    struct tenv *e;
    struct fifo_channel *c[6];
};

static void rnd_done(void *ctx, uint64_t id, uint64_t tag, uint64_t submit_t, uint64_t done_t)
{
    (void)id;
    (void)submit_t;
    (void)done_t;
    struct rnd *r = ctx;
    struct sim *s = r->e->s;
    struct fifo_kernel k = {.blocks = 1 + (uint32_t)(sim_rand_u64(s) % 400), .block_ns = 1 + sim_rand_u64(s) % (300 * US)};
    fifo_submit(r->c[tag], &k, rnd_done, r, NULL);
}

static void rnd_preempt(struct sim *s, void *arg, uint64_t data)
{
    struct rnd *r = arg;
    fifo_tsg_preempt(fifo_channel_tsg(r->c[data]), false, 0);
    sim_at(s, sim_now(s) + sim_rand_exp(s, 3.0 * MS), rnd_preempt, r, sim_rand_u64(s) % 6);
}

static uint64_t run_random(uint64_t seed, const char *path)
{
    struct tenv e;
    tenv_init(&e, seed, path);
    struct rnd r = {.e = &e};
    for (uint64_t i = 0; i < 6; i++) {
        struct fifo_tsg *t = mk_tsg(&e, 1, &r.c[i]);
        fifo_tsg_set_timeslice(t, 1 + sim_rand_u64(e.s) % 3000);
        fifo_channel_set_preempt_mode(r.c[i], (uint32_t)(sim_rand_u64(e.s) % 3));
        struct fifo_kernel k = {.blocks = 50, .block_ns = 100 * US, .tag = i};
        fifo_submit(r.c[i], &k, rnd_done, &r, NULL);
    }
    sim_at(e.s, 1 * MS, rnd_preempt, &r, 0);
    sim_run_until(e.s, 200 * MS);
    uint64_t d = sim_trace_digest(e.s);
    tenv_fini(&e);
    return d;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static void same_seed_gives_byte_identical_traces(void **state)
{
    (void)state;
    char a[64], b[64];
    snprintf(a, sizeof(a), "/tmp/nvemu-fifo-det-a-%d.csv", (int)getpid());
    snprintf(b, sizeof(b), "/tmp/nvemu-fifo-det-b-%d.csv", (int)getpid());
    uint64_t d1 = run_random(42, a), d2 = run_random(42, b), d3 = run_random(43, NULL);
    assert_int_equal(d1, d2);
    assert_int_not_equal(d1, d3);
    size_t la, lb;
    char *ba = slurp(a, &la), *bb = slurp(b, &lb);
    assert_true(la > 10000);
    assert_int_equal(la, lb);
    assert_memory_equal(ba, bb, la);
    free(ba);
    free(bb);
    unlink(a);
    unlink(b);
}

struct lost_seen {
    struct fifo *f;
    unsigned calls, lost_inside, refused;
    uint64_t done_t;
    struct fifo_channel *c;
};

static void lost_done(void *ctx, uint64_t kernel_id, uint64_t tag, uint64_t submit_t, uint64_t done_t)
{
    (void)kernel_id;
    (void)tag;
    (void)submit_t;
    struct lost_seen *ls = ctx;
    ls->calls++;
    ls->lost_inside += fifo_is_lost(ls->f);
    ls->done_t = done_t;
    /* a callback that submits more work is refused */
    struct fifo_kernel k = {.blocks = 1, .total_ns = MS};
    ls->refused += fifo_submit(ls->c, &k, NULL, NULL, NULL) == NV_ERR_GPU_IS_LOST;
}

static void gpu_loss_fails_every_running_and_queued_kernel_once(void **state)
{
    (void)state;
    struct tenv e;
    tenv_init(&e, 1, NULL);
    struct fifo_channel *a[2], *b;
    mk_tsg(&e, 2, a);
    mk_tsg(&e, 1, &b);
    struct lost_seen ls = {.f = e.f, .c = b};
    struct fifo_kernel k = {.blocks = TEST_SM, .block_ns = 10 * MS};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(fifo_submit(a[i], &k, lost_done, &ls, NULL), NV_OK);
        assert_int_equal(fifo_submit(b, &k, lost_done, &ls, NULL), NV_OK);
    }
    sim_run_until(e.s, 3 * MS);
    assert_false(fifo_is_lost(e.f));
    fifo_gpu_lost(e.f);
    /* every running and queued kernel fails now, each callback sees the loss */
    assert_int_equal(ls.calls, 4);
    assert_int_equal(ls.lost_inside, 4);
    assert_int_equal(ls.refused, 4);
    assert_int_equal(ls.done_t, 3 * MS);
    assert_int_equal(fifo_channel_pending(a[0]) + fifo_channel_pending(a[1]) + fifo_channel_pending(b), 0);
    const struct sim_rec *r = find_rec(e.s, SIM_REC_GPU_LOST, SIM_NONE, 0);
    assert_non_null(r);
    assert_int_equal(r->a, 4);
    unsigned failed = 0;
    for (size_t i = 0; i < sim_trace_count(e.s); i++) {
        const struct sim_rec *x = sim_trace_get(e.s, i);
        failed += x->kind == SIM_REC_KERNEL_DONE && x->result && strcmp(x->result, "gpu_lost") == 0;
    }
    assert_int_equal(failed, 4);
    /* nothing runs afterwards, even when the state changes; a second loss changes nothing */
    unsigned starts = count_rec(e.s, SIM_REC_KERNEL_START, SIM_NONE);
    unsigned switches = count_rec(e.s, SIM_REC_SWITCH, SIM_NONE);
    assert_int_equal(starts, 1);
    assert_int_equal(fifo_submit(b, &k, NULL, NULL, NULL), NV_ERR_GPU_IS_LOST);
    assert_int_equal(fifo_tsg_schedule(fifo_channel_tsg(b), false, false, false), NV_OK);
    assert_int_equal(fifo_tsg_schedule(fifo_channel_tsg(b), true, false, false), NV_OK);
    fifo_gpu_lost(e.f);
    sim_run_until(e.s, 100 * MS);
    assert_int_equal(count_rec(e.s, SIM_REC_KERNEL_START, SIM_NONE), starts);
    assert_int_equal(count_rec(e.s, SIM_REC_SWITCH, SIM_NONE), switches);
    assert_int_equal(count_rec(e.s, SIM_REC_GPU_LOST, SIM_NONE), 1);
    /* teardown still works */
    fifo_tsg_destroy(fifo_channel_tsg(b));
    tenv_fini(&e);
}

/*
 * The model with the shipped h200 profile's timing against F's H200 runs (fixtures/hw/h200-580.159.04, one
 * lease): two groups with one 364.6 ms full-GPU spin kernel each (CILP, as libcuda sets it), started together
 * (timeslice-pairs.txt, interleave-pairs.txt); a preemption series, an LC kernel next to a BE kernel and a
 * disabled window (cuda-programs.txt, lc-be.txt, disable-other.txt).
 */
#define HW_KERNEL_NS (364600 * US)

static void hw_profile(struct profile *p)
{
    test_profile(p);
    char err[256];
    struct profile *h = profile_load("h200", err, sizeof(err));
    assert_non_null(h);
    p->sm_count = h->sm_count;
    p->timing = h->timing;
    profile_free(h);
}

static void pair_done(void *ctx, uint64_t kernel_id, uint64_t tag, uint64_t submit_t, uint64_t done_t)
{
    (void)kernel_id;
    (void)submit_t;
    ((uint64_t *)ctx)[tag] = done_t;
}

/* levels: NULL = DEFAULT policy, else CHANNEL_INTERLEAVED with these interleave levels. */
static void pair_run_levels(uint64_t ts0, uint64_t ts1, const uint32_t *levels, uint64_t done[2])
{
    struct tenv e;
    hw_profile(&e.p);
    tenv_init_profile(&e, 1, NULL);
    int owner;
    if (levels)
        assert_int_equal(fifo_set_sched_policy(e.f, FIFO_POLICY_CHANNEL_INTERLEAVED, false, &owner), NV_OK);
    struct fifo_tsg *t[2];
    struct fifo_channel *c[2];
    uint64_t ts[2] = {ts0, ts1};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(fifo_tsg_create(e.f, NV2080_ENGINE_TYPE_GR0, NULL, &t[i]), NV_OK);
        assert_int_equal(fifo_channel_create(t[i], 0x100u + (uint32_t)i, false, &c[i]), NV_OK);
        assert_int_equal(fifo_channel_set_preempt_mode(c[i], FIFO_PREEMPT_CILP), NV_OK);
        assert_int_equal(fifo_tsg_set_timeslice(t[i], ts[i]), NV_OK);
        if (levels)
            assert_int_equal(fifo_tsg_set_interleave(t[i], levels[i]), NV_OK);
        assert_int_equal(fifo_tsg_schedule(t[i], true, false, false), NV_OK);
    }
    for (int i = 0; i < 2; i++) {
        struct fifo_kernel k = {.blocks = e.p.sm_count, .block_ns = HW_KERNEL_NS, .tag = (uint64_t)i};
        assert_int_equal(fifo_submit(c[i], &k, pair_done, done, NULL), NV_OK);
    }
    sim_run_until(e.s, 5000 * MS);
    tenv_fini(&e);
}

static void pair_run(uint64_t ts0, uint64_t ts1, uint64_t done[2]) { pair_run_levels(ts0, ts1, NULL, done); }

static void assert_near_ms(uint64_t got_ns, double want_ms, double tol)
{
    double got = (double)got_ns / 1e6;
    if (got < want_ms * (1 - tol) || got > want_ms * (1 + tol))
        fail_msg("model %.1f ms, hardware %.1f ms (tolerance %.0f%%)", got, want_ms, tol * 100);
}

/* Within [lo, hi] of F's runs, widened by 1%. */
static void assert_in_ms(uint64_t got_ns, double lo_ms, double hi_ms)
{
    double got = (double)got_ns / 1e6;
    if (got < lo_ms * 0.99 || got > hi_ms * 1.01)
        fail_msg("model %.1f ms, hardware %.1f..%.1f ms", got, lo_ms, hi_ms);
}

static void equal_timeslice_pairs_match_the_hardware_durations(void **state)
{
    (void)state;
    uint64_t d[2] = {0, 0};
    /* equal 2048 us slices interleave: 778.2/780.0 ms here and 800-806 ms in interleave-pairs.txt (same slices),
     * i.e. 729 ms of work + ~356 switches of 140-215 us */
    pair_run(2048, 2048, d);
    assert_in_ms(d[0], 778.2, 806.2);
    assert_in_ms(d[1], 778.2, 806.2);
    /* a 1 s slice outlasts the kernel: that group finishes as if alone; 0 and 1 us act as a minimal slice */
    pair_run(1, 1000000, d);
    assert_in_ms(d[0], 729.9, 729.9);
    assert_in_ms(d[1], 365.1, 365.1);
    pair_run(0, 1000000, d);
    assert_in_ms(d[0], 729.7, 729.7);
    assert_in_ms(d[1], 364.9, 364.9);
    /* both 1 s: one after the other */
    pair_run(1000000, 1000000, d);
    assert_in_ms(d[0], 364.6, 364.6);
    assert_in_ms(d[1], 727.7, 727.7);
}

/* interleave-pairs.txt: CHANNEL_INTERLEAVED, levels 1/1, 2/0, 0/2 (libcuda's 2048 us slices): all 800-806 ms -
 * with one HIGH and one LOW group each gets one runlist entry, so no priority effect with two groups. */
static void interleave_level_pairs_match_the_hardware_durations(void **state)
{
    (void)state;
    static const uint32_t lv[3][2] = {{1, 1}, {2, 0}, {0, 2}};
    for (int i = 0; i < 3; i++) {
        uint64_t d[2] = {0, 0};
        pair_run_levels(2048, 2048, lv[i], d);
        assert_in_ms(d[0], 800.2, 806.2);
        assert_in_ms(d[1], 800.2, 806.2);
    }
}

struct preempt_series {
    struct fifo_tsg *t;
    unsigned left;
    uint64_t spacing;
};

static void series_tick(struct sim *s, void *arg, uint64_t data)
{
    struct preempt_series *ps = arg;
    (void)data;
    assert_int_equal(fifo_tsg_preempt(ps->t, false, 0), NV_OK);
    if (--ps->left)
        sim_at(s, sim_now(s) + ps->spacing, series_tick, ps, 0);
}

/* cuda-programs.txt: 90 bWait=0 preemptions during a 364.6 ms kernel -> 386.4 ms. */
static void preempt_series_case(unsigned count, uint64_t spacing, double want_ms)
{
    struct tenv e;
    hw_profile(&e.p);
    tenv_init_profile(&e, 1, NULL);
    struct fifo_channel *c;
    struct fifo_tsg *t = mk_tsg(&e, 1, &c);
    assert_int_equal(fifo_channel_set_preempt_mode(c, FIFO_PREEMPT_CILP), NV_OK);
    uint64_t done[1] = {0};
    struct fifo_kernel k = {.blocks = e.p.sm_count, .block_ns = HW_KERNEL_NS, .tag = 0};
    assert_int_equal(fifo_submit(c, &k, pair_done, done, NULL), NV_OK);
    struct preempt_series ps = {t, count, spacing};
    sim_at(e.s, 1 * MS, series_tick, &ps, 0);
    sim_run_until(e.s, 2000 * MS);
    assert_int_equal(ps.left, 0);
    assert_near_ms(done[0], want_ms, 0.02);
    tenv_fini(&e);
}

static void test_hw_preempt_series(void **state)
{
    (void)state;
    preempt_series_case(90, 4 * MS, 386.4);
}

/*
 * lc-be.txt: a one-wave LC kernel next to a running BE group (2048 us slices) completes ~186 us later than
 * alone (p50 264 vs 78 us over 50 kernels, the LC group staying loaded between them when alone): the BE
 * slice has long run out, so the LC group waits for BE's CILP save and its own load. The LC group runs a
 * first kernel at 0 (loaded once), BE starts at 1 ms, and the measured LC kernel comes at 10.3 ms; alone,
 * that kernel also wakes the engine idle since the first one ended. Returns its latency and, in *idle, how
 * long the engine had idled.
 */
static uint64_t lc_latency(bool with_be, uint64_t *idle)
{
    struct tenv e;
    hw_profile(&e.p);
    tenv_init_profile(&e, 1, NULL);
    struct fifo_channel *be, *lc;
    struct fifo_tsg *tbe = mk_tsg(&e, 1, &be), *tlc = mk_tsg(&e, 1, &lc);
    assert_int_equal(fifo_channel_set_preempt_mode(be, FIFO_PREEMPT_CILP), NV_OK);
    assert_int_equal(fifo_tsg_set_timeslice(tbe, 2048), NV_OK);
    assert_int_equal(fifo_tsg_set_timeslice(tlc, 2048), NV_OK);
    uint64_t done[2] = {0};
    struct fifo_kernel k = {.blocks = e.p.sm_count, .block_ns = 50 * US, .tag = 0};
    assert_int_equal(fifo_submit(lc, &k, pair_done, done, NULL), NV_OK);
    sim_run_until(e.s, 1 * MS);
    if (with_be)
        submit(be, e.p.sm_count, 1500 * MS);
    sim_run_until(e.s, 10300 * US);
    k.tag = 1;
    assert_int_equal(fifo_submit(lc, &k, pair_done, done, NULL), NV_OK);
    sim_run_until(e.s, 20 * MS);
    tenv_fini(&e);
    *idle = 10300 * US - done[0];
    return done[1] - 10300 * US;
}

static void test_hw_lc_next_to_be(void **state)
{
    (void)state;
    uint64_t idle, unused;
    uint64_t alone = lc_latency(false, &idle), shared = lc_latency(true, &unused);
    struct profile p;
    hw_profile(&p);
    uint64_t wake = (idle - p.timing.wake_after_ns) / MS * p.timing.wake_per_ms_ns;
    if (wake > p.timing.wake_max_ns)
        wake = p.timing.wake_max_ns;
    assert_int_equal(shared - alone, p.timing.cilp_save_ns + p.timing.ctxsw_ns - wake);
    double delta_us = (double)(shared - alone) / 1e3;
    if (delta_us < 186 * 0.9 || delta_us > 186 * 1.1)
        fail_msg("LC slowdown next to BE: model %.0f us, hardware 186 us", delta_us);
}

struct disable_window {
    struct fifo_channel **c;
    uint32_t n;
};

static void set_disabled(struct sim *s, void *arg, uint64_t disable)
{
    (void)s;
    struct disable_window *w = arg;
    for (uint32_t i = 0; i < w->n; i++)
        assert_int_equal(fifo_channel_disable(w->c[i], disable != 0, false, false), NV_OK);
}

/* disable-other.txt: another process disables B's 8 channels for 300 ms (the window between the two calls:
 * disable returned after 774 us) -> B's 728.6 ms of work ends at 1029.8 ms; a 0 ms window (813 us) -> 730.0 ms. */
static uint64_t disabled_run(uint64_t window_ns)
{
    struct tenv e;
    hw_profile(&e.p);
    tenv_init_profile(&e, 1, NULL);
    struct fifo_channel *c[8];
    mk_tsg(&e, 8, c);
    assert_int_equal(fifo_channel_set_preempt_mode(c[0], FIFO_PREEMPT_CILP), NV_OK);
    uint64_t done[1] = {0};
    struct fifo_kernel k = {.blocks = e.p.sm_count, .block_ns = 728600 * US, .tag = 0};
    assert_int_equal(fifo_submit(c[0], &k, pair_done, done, NULL), NV_OK);
    struct disable_window w = {c, 8};
    sim_at(e.s, 100 * MS, set_disabled, &w, 1);
    sim_at(e.s, 100 * MS + window_ns, set_disabled, &w, 0);
    sim_run_until(e.s, 3000 * MS);
    tenv_fini(&e);
    return done[0];
}

static void disable_windows_match_the_hardware_durations(void **state)
{
    (void)state;
    assert_near_ms(disabled_run(300774 * US), 1029.8, 0.005);
    assert_near_ms(disabled_run(813 * US), 730.0, 0.005);
}

/*
 * A group that ran out of work stays loaded; the next group's switch first saves it (idle_save), and that
 * save does not count against the new group's slice (emu/profiles/h200.yaml idle_save_us, fifo.h).
 */
static void idle_save_run(uint64_t idle_save, uint64_t done[3])
{
    struct tenv e;
    test_profile(&e.p);
    e.p.timing.idle_save_ns = idle_save;
    tenv_init_profile(&e, 1, NULL);
    struct fifo_channel *a, *b;
    struct fifo_tsg *ta = mk_tsg(&e, 1, &a), *tb = mk_tsg(&e, 1, &b);
    assert_int_equal(fifo_channel_set_preempt_mode(b, FIFO_PREEMPT_CILP), NV_OK);
    assert_int_equal(fifo_tsg_set_timeslice(ta, 1000), NV_OK);
    assert_int_equal(fifo_tsg_set_timeslice(tb, 100), NV_OK);
    /* A runs 50 us and goes idle at ctxsw + 50 us, still loaded */
    struct fifo_kernel k = {.blocks = TEST_SM, .block_ns = 50 * US, .tag = 0};
    assert_int_equal(fifo_submit(a, &k, pair_done, done, NULL), NV_OK);
    sim_run_until(e.s, 1 * MS);
    /* B takes the engine at 1 ms with a long kernel; A gets work again right after */
    k = (struct fifo_kernel){.blocks = TEST_SM, .block_ns = 10 * MS, .tag = 1};
    assert_int_equal(fifo_submit(b, &k, pair_done, done, NULL), NV_OK);
    sim_run_until(e.s, 1 * MS + 1 * US);
    k = (struct fifo_kernel){.blocks = TEST_SM, .block_ns = 50 * US, .tag = 2};
    assert_int_equal(fifo_submit(a, &k, pair_done, done, NULL), NV_OK);
    sim_run_until(e.s, 30 * MS);
    tenv_fini(&e);
}

static void test_idle_save(void **state)
{
    (void)state;
    uint64_t d0[3] = {0}, d1[3] = {0};
    idle_save_run(0, d0);
    idle_save_run(120 * US, d1);
    assert_int_equal(d0[0], TEST_CTXSW + 50 * US);
    assert_int_equal(d1[0], d0[0]);
    /* B's slice (100 us, its load included) starts after A's save; then B's CILP save, A's load, A's kernel */
    assert_int_equal(d0[2], 1 * MS + 100 * US + TEST_CILP + TEST_CTXSW + 50 * US);
    assert_int_equal(d1[2], d0[2] + 120 * US);
    /* A, idle again, is saved once more before B resumes: B ends one idle save later after A's second request */
    assert_int_equal(d1[1] - d1[2], d0[1] - d0[2] + 120 * US);
}

/* An engine idle for longer than wake_after starts its next work wake_per_ms per ms later, at most wake_max. */
static uint64_t wake_run(uint64_t idle_ns)
{
    struct tenv e;
    test_profile(&e.p);
    e.p.timing.wake_after_ns = 4 * MS;
    e.p.timing.wake_per_ms_ns = 2 * US;
    e.p.timing.wake_max_ns = 15 * US;
    tenv_init_profile(&e, 1, NULL);
    struct fifo_channel *c;
    mk_tsg(&e, 1, &c);
    uint64_t done[2] = {0};
    struct fifo_kernel k = {.blocks = TEST_SM, .block_ns = 50 * US, .tag = 0};
    assert_int_equal(fifo_submit(c, &k, pair_done, done, NULL), NV_OK);
    sim_run_until(e.s, 75 * US + idle_ns);
    k.tag = 1;
    assert_int_equal(fifo_submit(c, &k, pair_done, done, NULL), NV_OK);
    sim_run_until(e.s, 200 * MS);
    tenv_fini(&e);
    return done[1] - (75 * US + idle_ns);
}

static void test_wake_after_idle(void **state)
{
    (void)state;
    /* the group stays resident: no switch, only the wake-up */
    assert_int_equal(wake_run(3 * MS), 50 * US);
    assert_int_equal(wake_run(4 * MS), 50 * US);
    assert_int_equal(wake_run(7 * MS), 50 * US + 6 * US);
    assert_int_equal(wake_run(50 * MS), 50 * US + 15 * US);
}

/*
 * A group alone on the engine has its slice renewed at an expiry only while kernels are queued behind the
 * running one (fifo.h; validation x-slice-bekernel5ms and v15 traces): A runs two 5 ms kernels with 1024 us
 * slices from 0; its expiries fall at 1024, 2048, ... us. B's kernel arrives at `at`.
 */
static uint64_t lapse_run(uint64_t at)
{
    struct tenv e;
    test_profile(&e.p);
    tenv_init_profile(&e, 1, NULL);
    struct fifo_channel *a, *b;
    mk_tsg(&e, 1, &a);
    mk_tsg(&e, 1, &b);
    assert_int_equal(fifo_channel_set_preempt_mode(a, FIFO_PREEMPT_CILP), NV_OK);
    uint64_t done[2] = {0};
    struct fifo_kernel k = {.blocks = TEST_SM, .block_ns = 5 * MS, .tag = 0};
    assert_int_equal(fifo_submit(a, &k, NULL, NULL, NULL), NV_OK);
    assert_int_equal(fifo_submit(a, &k, NULL, NULL, NULL), NV_OK);
    sim_run_until(e.s, at);
    k = (struct fifo_kernel){.blocks = TEST_SM, .block_ns = 50 * US, .tag = 1};
    assert_int_equal(fifo_submit(b, &k, pair_done, done, NULL), NV_OK);
    sim_run_until(e.s, 30 * MS);
    tenv_fini(&e);
    return done[1];
}

static void test_slice_lapse(void **state)
{
    (void)state;
    uint64_t after_preempt = TEST_CILP + TEST_CTXSW + 50 * US;
    /* first kernel running, the second queued: every expiry renews, B waits for the next one */
    assert_int_equal(lapse_run(4500 * US), 5120 * US + after_preempt);
    /* the second kernel started at 5025 us, within the slice the 4096 us expiry renewed: B waits for 5120 */
    assert_int_equal(lapse_run(5080 * US), 5120 * US + after_preempt);
    /* the 5120 us expiry found nothing queued: the slice lapsed, B preempts A at once */
    assert_int_equal(lapse_run(5500 * US), 5500 * US + after_preempt);
}

/*
 * The next group is picked when the running group's slice expires (fifo.h; validation v08/v10/v11/v18 and the
 * H100's w08): groups A, C, B in runlist order with 1024 us slices, A running and B waiting; C becomes
 * runnable during A's save at the 1024 us expiry, after B was picked: it waits for B's slice and for A's (A
 * follows B in the runlist), instead of taking the engine right after A's save.
 */
static void test_next_picked_at_expiry(void **state)
{
    (void)state;
    struct tenv e;
    test_profile(&e.p);
    tenv_init_profile(&e, 1, NULL);
    struct fifo_channel *a, *b, *c;
    mk_tsg(&e, 1, &a);
    mk_tsg(&e, 1, &c);
    mk_tsg(&e, 1, &b);
    assert_int_equal(fifo_channel_set_preempt_mode(a, FIFO_PREEMPT_CILP), NV_OK);
    assert_int_equal(fifo_channel_set_preempt_mode(b, FIFO_PREEMPT_CILP), NV_OK);
    uint64_t done[2] = {0};
    struct fifo_kernel k = {.blocks = TEST_SM, .block_ns = 10 * MS, .tag = 0};
    assert_int_equal(fifo_submit(a, &k, NULL, NULL, NULL), NV_OK);
    sim_run_until(e.s, 100 * US);
    assert_int_equal(fifo_submit(b, &k, NULL, NULL, NULL), NV_OK);
    sim_run_until(e.s, 1024 * US + TEST_CILP / 2);
    k = (struct fifo_kernel){.blocks = TEST_SM, .block_ns = 50 * US, .tag = 1};
    assert_int_equal(fifo_submit(c, &k, pair_done, done, NULL), NV_OK);
    sim_run_until(e.s, 30 * MS);
    tenv_fini(&e);
    /* each slice includes its load: B 1054-2078 us, A 2108-3132 us, then A's save, C's load and C's kernel */
    assert_int_equal(done[1], 3 * (1024 * US + TEST_CILP) + TEST_CTXSW + 50 * US);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(effective_timeslice_rounds_to_the_profiles_granularity),
        cmocka_unit_test(tsg_ids_are_shared_by_runlists_and_reused_and_a_missing_engine_is_refused),
        cmocka_unit_test(per_runlist_chram_gives_each_runlist_its_own_id_spaces),
        cmocka_unit_test(test_timeslice_get_set),
        cmocka_unit_test(runlist_repeats_groups_by_interleave_level),
        cmocka_unit_test(runlist_without_low_groups_repeats_high_per_medium),
        cmocka_unit_test(sched_policy_change_is_refused_while_another_holds_the_lock),
        cmocka_unit_test(groups_rotate_round_robin_one_timeslice_each),
        cmocka_unit_test(test_preempt_wfi),
        cmocka_unit_test(test_preempt_cta),
        cmocka_unit_test(test_preempt_cilp),
        cmocka_unit_test(test_preempt_wait_timeout),
        cmocka_unit_test(disabled_channel_is_preempted_and_resumes_with_its_remaining_work),
        cmocka_unit_test(disable_only_scheduling_lets_the_running_kernel_finish),
        cmocka_unit_test(test_schedule_disable_preempts),
        cmocka_unit_test(same_seed_gives_byte_identical_traces),
        cmocka_unit_test(gpu_loss_fails_every_running_and_queued_kernel_once),
        cmocka_unit_test(equal_timeslice_pairs_match_the_hardware_durations),
        cmocka_unit_test(interleave_level_pairs_match_the_hardware_durations),
        cmocka_unit_test(test_hw_preempt_series),
        cmocka_unit_test(test_hw_lc_next_to_be),
        cmocka_unit_test(disable_windows_match_the_hardware_durations),
        cmocka_unit_test(test_idle_save),
        cmocka_unit_test(test_wake_after_idle),
        cmocka_unit_test(test_slice_lapse),
        cmocka_unit_test(test_next_picked_at_expiry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
