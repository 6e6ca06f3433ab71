/*
 * Unit tests of the kernel boundary's cost in the FIFO model (fifo.h): a kernel submitted while another kernel of
 * its group is queued or running hides part of timing.kernel_gap behind it, less per wave after its first; a kernel
 * that starts its group's work from idle, or follows only another group's work, pays the whole gap, unless
 * timing.wait_hides_gap and it waited for the engine. The back-to-back and two-wave cases fail on the model that
 * charged kernel_gap to every kernel.
 */
#include "fifo_test_util.h"

#define GAP (6 * US)
#define OVERLAP 4300ull
#define OVERLAP_WAVE 620ull

static void gap_profile(struct profile *p, bool overlap)
{
    test_profile(p);
    p->timing.kernel_gap_ns = GAP;
    p->timing.kernel_gap_overlap_ns = overlap ? OVERLAP : 0;
    p->timing.overlap_wave_ns = overlap ? OVERLAP_WAVE : 0;
}

static void put(struct fifo_channel *c, uint32_t waves, uint64_t tag, uint64_t *done)
{
    struct fifo_kernel k = {.blocks = waves * TEST_SM, .block_ns = 100 * US, .tag = tag};
    assert_int_equal(fifo_submit(c, &k, done_by_tag, done, NULL), NV_OK);
}

/* Three kernels of `waves` waves queued at once on one group: their completion times. */
static void back_to_back(bool overlap, uint32_t waves, uint64_t done[3])
{
    struct tenv e;
    gap_profile(&e.p, overlap);
    tenv_init_profile(&e, 1, NULL);
    struct fifo_channel *c;
    mk_tsg(&e, 1, &c);
    for (uint64_t i = 0; i < 3; i++)
        put(c, waves, i, done);
    sim_run_until(e.s, 100 * MS);
    tenv_fini(&e);
}

static void queued_one_wave_kernels_hide_part_of_the_gap(void **state)
{
    (void)state;
    uint64_t done[3] = {0};
    back_to_back(true, 1, done);
    /* the first starts the group's work from idle: the whole gap */
    assert_int_equal(done[0], TEST_CTXSW + 100 * US + GAP);
    assert_int_equal(done[1], done[0] + 100 * US + GAP - OVERLAP);
    assert_int_equal(done[2], done[1] + 100 * US + GAP - OVERLAP);
}

static void queued_kernels_hide_less_per_wave(void **state)
{
    (void)state;
    uint64_t done[3] = {0};
    back_to_back(true, 2, done);
    assert_int_equal(done[0], TEST_CTXSW + 200 * US + GAP);
    assert_int_equal(done[1], done[0] + 200 * US + GAP - (OVERLAP - OVERLAP_WAVE));
    /* 4.3 us less 7 x 0.62: nothing left to hide by the eighth wave */
    back_to_back(true, 8, done);
    assert_int_equal(done[1], done[0] + 800 * US + GAP);
    assert_int_equal(done[2], done[1] + 800 * US + GAP);
}

static void profile_without_overlap_charges_every_kernel_the_gap(void **state)
{
    (void)state;
    uint64_t done[3] = {0};
    back_to_back(false, 1, done);
    assert_int_equal(done[1], done[0] + 100 * US + GAP);
    assert_int_equal(done[2], done[1] + 100 * US + GAP);
}

/*
 * A's kernel runs dry before A's next one is submitted, and B's first kernel is queued while A's runs: both
 * start their group's work from idle and complete when they would without the overlap.
 */
static void idle_start(bool overlap, bool wait_hides, uint64_t done[3])
{
    struct tenv e;
    gap_profile(&e.p, overlap);
    e.p.timing.wait_hides_gap = wait_hides;
    tenv_init_profile(&e, 1, NULL);
    struct fifo_channel *a, *b;
    mk_tsg(&e, 1, &a);
    mk_tsg(&e, 1, &b);
    put(a, 1, 0, done);
    sim_run_until(e.s, 1 * MS);
    put(a, 1, 1, done);
    sim_run_until(e.s, 1 * MS + 50 * US);
    put(b, 1, 2, done);
    sim_run_until(e.s, 100 * MS);
    tenv_fini(&e);
}

static void kernel_after_idle_or_another_groups_work_pays_the_whole_gap(void **state)
{
    (void)state;
    uint64_t with[3] = {0}, without[3] = {0};
    idle_start(true, false, with);
    idle_start(false, false, without);
    for (int i = 0; i < 3; i++)
        assert_int_equal(with[i], without[i]);
    assert_true(with[2] > with[1]);
}

/*
 * With timing.wait_hides_gap, A's first kernel (queued through A's 25 us load) and B's (queued while A's second
 * runs) hide the overlap as a kernel queued behind another does; A's second, started at once on its loaded group,
 * pays the whole gap.
 */
static void kernel_that_waited_for_the_engine_hides_part_of_the_gap(void **state)
{
    (void)state;
    uint64_t hides[3] = {0}, pays[3] = {0};
    idle_start(true, true, hides);
    idle_start(true, false, pays);
    assert_int_equal(hides[0], pays[0] - OVERLAP);
    assert_int_equal(hides[1], pays[1]);
    assert_int_equal(hides[2], pays[2] - OVERLAP);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(queued_one_wave_kernels_hide_part_of_the_gap),
        cmocka_unit_test(queued_kernels_hide_less_per_wave),
        cmocka_unit_test(profile_without_overlap_charges_every_kernel_the_gap),
        cmocka_unit_test(kernel_after_idle_or_another_groups_work_pays_the_whole_gap),
        cmocka_unit_test(kernel_that_waited_for_the_engine_hides_part_of_the_gap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
