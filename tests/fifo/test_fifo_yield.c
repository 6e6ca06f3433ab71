/*
 * Unit tests of the pick after a yield (fifo.h, timing.yield_skips_late_work): a TSG that runs out of work gives
 * the engine to the next runnable TSG in runlist order, or, with the flag, to the next one that was already
 * runnable when the yielding TSG began its last kernel, if it ran at least timing.yield_skip_min_run. The flagged
 * test fails on the model that always took the next runnable TSG; the short-run test on the model that skipped after
 * every yield; the last-kernel test on the model that counted from the yielding TSG's switch-in.
 */
#include "fifo_test_util.h"

/*
 * Runlist A, B, C with 1024 us slices. B (500 us) and C (400 us, in one kernel or two of 200) are queued at 0: B
 * runs 25-525 and runs out of work, C runs 550-950. B gets 200 us more at 530, during C's load; A gets 200 us at 600,
 * after C began to run (and before it began its second kernel, at 750). When C runs out of work at 950, done[3] is
 * B's completion and done[4] A's.
 */
static void yield_after_late_work(bool skip_late, uint64_t min_run_ns, bool c_two_kernels, uint64_t done[5])
{
    struct tenv e;
    test_profile(&e.p);
    e.p.timing.yield_skips_late_work = skip_late;
    e.p.timing.yield_skip_min_run_ns = min_run_ns;
    tenv_init_profile(&e, 1, NULL);
    struct fifo_channel *a, *b, *c;
    mk_tsg(&e, 1, &a);
    mk_tsg(&e, 1, &b);
    mk_tsg(&e, 1, &c);
    run_kernel(b, 500 * US, 1, done);
    if (c_two_kernels) {
        run_kernel(c, 200 * US, 2, done);
        run_kernel(c, 200 * US, 2, done);
    } else {
        run_kernel(c, 400 * US, 2, done);
    }
    sim_run_until(e.s, 530 * US);
    run_kernel(b, 200 * US, 3, done);
    sim_run_until(e.s, 600 * US);
    run_kernel(a, 200 * US, 4, done);
    sim_run_until(e.s, 10 * MS);
    tenv_fini(&e);
    assert_int_equal(done[1], 525 * US);
    assert_int_equal(done[2], 950 * US);
}

/* By default the engine goes to the next runnable TSG after the one that ran out of work: A, then B. */
static void test_yield_goes_to_next_runnable_group(void **state)
{
    (void)state;
    uint64_t done[5] = {0};
    yield_after_late_work(false, 0, false, done);
    assert_int_equal(done[4], 1175 * US);
    assert_int_equal(done[3], 1400 * US);
}

/* With yield_skips_late_work, A's work came after C began its one kernel and waits: B, known then, goes first. */
static void test_yield_skips_work_that_came_after_the_switch_in(void **state)
{
    (void)state;
    uint64_t done[5] = {0};
    yield_after_late_work(true, 0, false, done);
    assert_int_equal(done[3], 1175 * US);
    assert_int_equal(done[4], 1400 * US);
}

/* C ran 400 us, at least yield_skip_min_run (300 us): A's late work still waits for B. */
static void test_yield_after_the_minimum_run_skips_late_work(void **state)
{
    (void)state;
    uint64_t done[5] = {0};
    yield_after_late_work(true, 300 * US, false, done);
    assert_int_equal(done[3], 1175 * US);
    assert_int_equal(done[4], 1400 * US);
}

/* C ran 400 us, less than yield_skip_min_run (500 us): the engine goes on in runlist order, A's late work first. */
static void test_yield_within_the_minimum_run_goes_to_next_runnable_group(void **state)
{
    (void)state;
    uint64_t done[5] = {0};
    yield_after_late_work(true, 500 * US, false, done);
    assert_int_equal(done[4], 1175 * US);
    assert_int_equal(done[3], 1400 * US);
}

/* C began its last kernel at 750, after A's work came: A was known, and comes first in runlist order after C. */
static void test_yield_goes_to_work_that_came_before_the_last_kernel(void **state)
{
    (void)state;
    uint64_t done[5] = {0};
    yield_after_late_work(true, 0, true, done);
    assert_int_equal(done[4], 1175 * US);
    assert_int_equal(done[3], 1400 * US);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_yield_goes_to_next_runnable_group),
        cmocka_unit_test(test_yield_skips_work_that_came_after_the_switch_in),
        cmocka_unit_test(test_yield_after_the_minimum_run_skips_late_work),
        cmocka_unit_test(test_yield_within_the_minimum_run_goes_to_next_runnable_group),
        cmocka_unit_test(test_yield_goes_to_work_that_came_before_the_last_kernel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
