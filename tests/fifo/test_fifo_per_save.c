/*
 * Unit tests of the per-save and per-SM switch accounting (fifo.h, timing.cilp_* and lock_*): what a CILP save, a
 * re-save and the restore of a cut group cost, scaled by the SMs the cut kernel held; the bound a short slice puts
 * on that restore; and a slice that expires at a one-wave kernel's boundary taking the boundary. Two CILP groups
 * with 50 us slices; the test profile loads in 25 us and saves in 30. Each case fails on the model that charged
 * every load ctxsw_ns and every CILP save cilp_save_ns.
 */
#include "fifo_test_util.h"

#define SLICE_US 50u

static void per_save_profile(struct tenv *e)
{
    test_profile(&e->p);
    e->p.timing.cilp_save_per_sm_ns = 100;
    e->p.timing.cilp_resave_ns = 20 * US;
    e->p.timing.cilp_restore_ns = 10 * US;
    e->p.timing.cilp_restore_per_sm_ns = 100;
    e->p.timing.wfi_overhead_ns = 5 * US;
    e->p.timing.lock_left_ns = 2 * US;
    e->p.timing.lock_ran_ns = 1 * US;
}

/* Two groups, A then B, each queued `blocks` blocks of `a_ns` then of 10 ms (B: only the 10 ms one). */
static void two_groups(struct tenv *e, uint32_t blocks, uint64_t a_ns, uint32_t *ida, uint32_t *idb)
{
    tenv_init_profile(e, 1, NULL);
    struct fifo_channel *a, *b;
    struct fifo_tsg *ta = mk_cilp_tsg(e, SLICE_US, &a), *tb = mk_cilp_tsg(e, SLICE_US, &b);
    if (a_ns)
        submit(a, blocks, a_ns);
    submit(a, blocks, 10 * MS);
    submit(b, blocks, 10 * MS);
    sim_run_until(e->s, 1 * MS);
    *ida = fifo_tsg_hw_id(ta);
    *idb = fifo_tsg_hw_id(tb);
}

static uint64_t rec_t(struct tenv *e, enum sim_rec_kind kind, uint32_t tsg, unsigned nth)
{
    const struct sim_rec *r = find_rec(e->s, kind, tsg, nth);
    assert_non_null(r);
    return r->t;
}

/* A's first save (at its 50 us expiry) costs 30 us + 0.1 us per SM its kernel held: 100 SMs 40 us, 20 SMs 32. */
static void cilp_save_costs_more_per_sm_the_kernel_held(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t ida, idb;
    per_save_profile(&e);
    two_groups(&e, TEST_SM, 0, &ida, &idb);
    assert_int_equal(rec_t(&e, SIM_REC_PREEMPT_DONE, ida, 0), 90 * US);
    tenv_fini(&e);
    per_save_profile(&e);
    two_groups(&e, 20, 0, &ida, &idb);
    assert_int_equal(rec_t(&e, SIM_REC_PREEMPT_DONE, ida, 0), 82 * US);
    tenv_fini(&e);
}

/*
 * B is saved at 140-180 us; A's load restores its cut kernel in 10 + 0.1 x 100 us (running from 200, not the 205 of
 * a 25 us load) and its save of that same kernel at 230 is the 20 us re-save + 10: done at 260.
 */
static void restore_and_resave_of_a_cut_kernel(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t ida, idb;
    per_save_profile(&e);
    two_groups(&e, TEST_SM, 0, &ida, &idb);
    assert_int_equal(rec_t(&e, SIM_REC_PREEMPT_DONE, idb, 0), 180 * US);
    assert_int_equal(rec_t(&e, SIM_REC_START, ida, 1), 200 * US);
    assert_int_equal(rec_t(&e, SIM_REC_PREEMPT_DONE, ida, 1), 260 * US);
    tenv_fini(&e);
}

/* With 20 SMs held: saves of 32 us, a restore of 12: A saved 50-82, B runs 107-132 and is saved until 164. */
static void restore_scales_with_the_sms_held(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t ida, idb;
    per_save_profile(&e);
    two_groups(&e, 20, 0, &ida, &idb);
    assert_int_equal(rec_t(&e, SIM_REC_START, ida, 1), 176 * US);
    tenv_fini(&e);
}

/* A short slice bounds the restore: 5 us + 0.1 us per us of the 50 us slice = 10 us, under the 20 it would take. */
static void short_slice_bounds_the_restore(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t ida, idb;
    per_save_profile(&e);
    e.p.timing.short_slice_restore_ns = 5 * US;
    e.p.timing.short_slice_restore_per_us_ns = 100;
    two_groups(&e, TEST_SM, 0, &ida, &idb);
    assert_int_equal(rec_t(&e, SIM_REC_START, ida, 1), 190 * US);
    tenv_fini(&e);
}

/*
 * A's first kernel (26 us from 25) has 1 us left at the 50 us expiry, within lock_left: it completes at 51 and the
 * save is a boundary one (5 us), so A's next load is a plain one: B runs 81-106 and is saved until 146, A starts at
 * 171.
 */
static void expiry_just_before_a_kernel_end_takes_the_boundary(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t ida, idb;
    per_save_profile(&e);
    two_groups(&e, TEST_SM, 26 * US, &ida, &idb);
    assert_int_equal(rec_t(&e, SIM_REC_KERNEL_DONE, ida, 0), 51 * US);
    assert_int_equal(rec_t(&e, SIM_REC_PREEMPT_DONE, ida, 0), 56 * US);
    assert_int_equal(rec_t(&e, SIM_REC_START, ida, 1), 171 * US);
    tenv_fini(&e);
}

/*
 * A's second kernel began 0.5 us before the expiry, within lock_ran: it goes back to its queue, a 5 us save; B runs
 * 80-105 and is saved until 145, and A's load is a plain one (not a restore).
 */
static void expiry_just_after_a_kernel_began_takes_the_boundary(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t ida, idb;
    per_save_profile(&e);
    two_groups(&e, TEST_SM, 24500, &ida, &idb);
    assert_int_equal(rec_t(&e, SIM_REC_PREEMPT_DONE, ida, 0), 55 * US);
    assert_int_equal(rec_t(&e, SIM_REC_START, ida, 1), 170 * US);
    tenv_fini(&e);
}

/* A two-wave kernel 1 us from its end is cut like any other: 30 + 10 us from the expiry. */
static void multi_wave_kernel_near_its_end_is_cut(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t ida, idb;
    per_save_profile(&e);
    two_groups(&e, 2 * TEST_SM, 13 * US, &ida, &idb);
    assert_int_equal(rec_t(&e, SIM_REC_PREEMPT_DONE, ida, 0), 90 * US);
    tenv_fini(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cilp_save_costs_more_per_sm_the_kernel_held),
        cmocka_unit_test(restore_and_resave_of_a_cut_kernel),
        cmocka_unit_test(restore_scales_with_the_sms_held),
        cmocka_unit_test(short_slice_bounds_the_restore),
        cmocka_unit_test(expiry_just_before_a_kernel_end_takes_the_boundary),
        cmocka_unit_test(expiry_just_after_a_kernel_began_takes_the_boundary),
        cmocka_unit_test(multi_wave_kernel_near_its_end_is_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
