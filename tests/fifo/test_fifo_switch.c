/*
 * Unit tests of what a slice expiry costs a group resumed from a CILP save (fifo.h): its SMs' state is still being
 * restored until timing.restore_busy after its load began, and a CILP save of it before then waits for the rest.
 * Two groups of one long one-wave kernel each, CILP, 50 us slices (the test profile: 25 us load, 30 us save):
 * A loads at 0 and is saved at 50-80, B loads at 80 and is saved at 130-160, A (saved mid-kernel) loads again at
 * 160 and its slice expires at 210. The first case fails on the model whose save cost the same after any load, the
 * third on one that waited for the restore also after a slice that ended during the load.
 */
#include "fifo_test_util.h"

#define SLICE_US 50u

/* When A's second save completes, with restore_busy `busy` ns and slices of `slice_us`. */
static uint64_t second_save_of_a_with(uint64_t busy, uint32_t slice_us)
{
    struct tenv e;
    test_profile(&e.p);
    e.p.timing.restore_busy_ns = busy;
    tenv_init_profile(&e, 1, NULL);
    struct fifo_channel *a, *b;
    struct fifo_tsg *ta = mk_cilp_tsg(&e, slice_us, &a), *tb = mk_cilp_tsg(&e, slice_us, &b);
    submit(a, TEST_SM, 10 * MS);
    submit(b, TEST_SM, 10 * MS);
    sim_run_until(e.s, 1 * MS);
    uint32_t ida = fifo_tsg_hw_id(ta);
    /* the first save of each group follows a fresh load: nothing to wait for */
    const struct sim_rec *first = find_rec(e.s, SIM_REC_PREEMPT_DONE, ida, 0);
    const struct sim_rec *of_b = find_rec(e.s, SIM_REC_PREEMPT_DONE, fifo_tsg_hw_id(tb), 0);
    const struct sim_rec *second = find_rec(e.s, SIM_REC_PREEMPT_DONE, ida, 1);
    assert_non_null(first);
    assert_non_null(of_b);
    assert_non_null(second);
    /* a slice no longer than the load runs to its first expiry after the load */
    uint64_t s = slice_us * US, load_or_slice = s > TEST_CTXSW ? s : (TEST_CTXSW / s + 1) * s;
    assert_int_equal(first->t, load_or_slice + TEST_CILP);
    assert_int_equal(of_b->t, 2 * (load_or_slice + TEST_CILP));
    uint64_t t = second->t;
    tenv_fini(&e);
    return t;
}

static uint64_t second_save_of_a(uint64_t busy)
{
    return second_save_of_a_with(busy, SLICE_US);
}

/* A loads at 160 us and is still restoring until 260 us: its save at the 210 us expiry ends 50 us later. */
static void cilp_save_soon_after_a_cilp_resume_waits_for_the_restore(void **state)
{
    (void)state;
    uint64_t resumed = 2 * (SLICE_US * US + TEST_CILP);
    assert_int_equal(second_save_of_a(100 * US), resumed + SLICE_US * US + TEST_CILP + 50 * US);
}

/* A restore that ends within the slice (160 + 40 us, before the expiry at 210) costs the save nothing. */
static void restore_ended_before_the_expiry_costs_nothing(void **state)
{
    (void)state;
    uint64_t resumed = 2 * (SLICE_US * US + TEST_CILP);
    assert_int_equal(second_save_of_a(40 * US), resumed + SLICE_US * US + TEST_CILP);
    assert_int_equal(second_save_of_a(0), resumed + SLICE_US * US + TEST_CILP);
}

/*
 * 10 us slices end during the 25 us load: each group runs to the expiry after it (30 us) and its save ends 30 us
 * later. A, back at 120 us, is saved at 150 without waiting for the restore that restore_busy runs to 220.
 */
static void slice_shorter_than_the_load_does_not_wait(void **state)
{
    (void)state;
    assert_int_equal(second_save_of_a_with(100 * US, 10), 3 * (30 * US + TEST_CILP));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cilp_save_soon_after_a_cilp_resume_waits_for_the_restore),
        cmocka_unit_test(restore_ended_before_the_expiry_costs_nothing),
        cmocka_unit_test(slice_shorter_than_the_load_does_not_wait),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
