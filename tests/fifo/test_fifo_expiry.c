/*
 * Unit tests of the pick at a slice expiry (fifo.h, timing.expiry_skips_late_work): the next runnable TSG in runlist
 * order, or, with the flag, while the expiring TSG runs its last queued kernel, the next one that was already
 * runnable when that kernel began or resumed. The flagged skip test fails on the model that always took the next
 * runnable TSG at an expiry; the early-work test on one that skipped whatever came after the switch-in.
 *
 * Runlist A, B, C, CILP, 1000 us slices (the test profile: 25 us load, 30 us save). B and C have work at 0: B loads
 * at 0 and is saved at 1000-1030, C loads at 1030-1055 and runs a 500 us kernel, then its last queued one (10 ms)
 * from 1555; its slice expires at 2030. A gets one 100 us kernel at `a_at`.
 */
#include "fifo_test_util.h"

#define SLICE_US 1000u

/* When A's kernel completes, submitted at `a_at`, with or without the flag. */
static uint64_t a_done_with(bool skip_late, uint64_t a_at)
{
    struct tenv e;
    test_profile(&e.p);
    e.p.timing.expiry_skips_late_work = skip_late;
    tenv_init_profile(&e, 1, NULL);
    struct fifo_channel *ch[3];
    for (int i = 0; i < 3; i++)
        mk_cilp_tsg(&e, SLICE_US, &ch[i]);
    uint64_t done[2] = {0}; /* [0]: B's and C's kernels, [1]: A's */
    run_kernel(ch[1], 10 * MS, 0, done);
    run_kernel(ch[2], 500 * US, 0, done);
    run_kernel(ch[2], 10 * MS, 0, done);
    sim_run_until(e.s, a_at);
    run_kernel(ch[0], 100 * US, 1, done);
    sim_run_until(e.s, 20 * MS);
    tenv_fini(&e);
    return done[1];
}

/* By default A, next after C, takes the engine at C's expiry: saved 2030-2060, A loads to 2085 and runs 100 us. */
static void expiry_goes_to_next_runnable_group(void **state)
{
    (void)state;
    assert_int_equal(a_done_with(false, 1600 * US), 2185 * US);
}

/*
 * With expiry_skips_late_work, A came at 1600, after C's last kernel began (1555): B, runnable since its save,
 * goes first (2060-3060), then C (3060-4090, runnable since 2060, before B resumed at 2085), then A: 4145-4245.
 */
static void expiry_in_the_last_kernel_skips_work_that_came_after_it_began(void **state)
{
    (void)state;
    assert_int_equal(a_done_with(true, 1600 * US), 4245 * US);
}

/* A came at 1500, while C still ran its first kernel: it was known when the last one began and goes next. */
static void expiry_in_the_last_kernel_keeps_work_that_came_before_it_began(void **state)
{
    (void)state;
    assert_int_equal(a_done_with(true, 1500 * US), 2185 * US);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(expiry_goes_to_next_runnable_group),
        cmocka_unit_test(expiry_in_the_last_kernel_skips_work_that_came_after_it_began),
        cmocka_unit_test(expiry_in_the_last_kernel_keeps_work_that_came_before_it_began),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
