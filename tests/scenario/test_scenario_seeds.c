/* The ratio interval behind seed-set verdicts (engine/compare/seeds.h). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "seeds.h"

static const double noisy[] = {5344, 4900, 5800, 5100, 5600, 4950, 5400, 5250};

/* Two identical samples: the interval holds 1. */
static void test_same_samples_interval_holds_one(void **state)
{
    (void)state;
    double lo, hi;
    seeds_ratio_interval(noisy, 8, noisy, 8, 0.95, &lo, &hi);
    assert_true(lo < 1.0 && hi > 1.0);
    assert_true(lo > 0.9 && hi < 1.1);
}

/* B twice A: the interval is about 2 and excludes 1. */
static void doubled_sample_gives_an_interval_near_two(void **state)
{
    (void)state;
    double twice[8], lo, hi;
    for (int i = 0; i < 8; i++)
        twice[i] = 2 * noisy[i];
    seeds_ratio_interval(noisy, 8, twice, 8, 0.95, &lo, &hi);
    assert_true(lo > 1.7 && lo < 2.0);
    assert_true(hi > 2.0 && hi < 2.3);
}

/* The bootstrap's PRNG seed is fixed: the same inputs give the same interval. */
static void same_inputs_give_the_same_interval(void **state)
{
    (void)state;
    double lo1, hi1, lo2, hi2;
    seeds_ratio_interval(noisy, 8, noisy + 1, 7, 0.95, &lo1, &hi1);
    seeds_ratio_interval(noisy, 8, noisy + 1, 7, 0.95, &lo2, &hi2);
    assert_true(lo1 == lo2 && hi1 == hi2);
}

/* A higher confidence widens the interval. */
static void higher_confidence_gives_a_wider_interval(void **state)
{
    (void)state;
    double lo90, hi90, lo99, hi99;
    seeds_ratio_interval(noisy, 8, noisy + 1, 7, 0.90, &lo90, &hi90);
    seeds_ratio_interval(noisy, 8, noisy + 1, 7, 0.99, &lo99, &hi99);
    assert_true(lo99 <= lo90 && hi99 >= hi90 && hi99 - lo99 > hi90 - lo90);
}

/* No samples: no interval (NAN), not a verdict. */
static void empty_sample_gives_no_interval(void **state)
{
    (void)state;
    double lo, hi;
    seeds_ratio_interval(noisy, 0, noisy, 8, 0.95, &lo, &hi);
    assert_true(isnan(lo) && isnan(hi));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_samples_interval_holds_one),
        cmocka_unit_test(doubled_sample_gives_an_interval_near_two),
        cmocka_unit_test(same_inputs_give_the_same_interval),
        cmocka_unit_test(higher_confidence_gives_a_wider_interval),
        cmocka_unit_test(empty_sample_gives_no_interval),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
