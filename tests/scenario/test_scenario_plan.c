/*
 * The backend-neutral plan (plan.h): open-loop arrivals per instance, drawn once. What a run of the
 * emulator does with them is held by the trace digests; here, the plan's own promises.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gp_decide.h"
#include "plan.h"
#include "scenario.h"

static const char *const base_yaml =
    "name: plan\nduration: 1s\nseed: 7\n"
    "tasks:\n"
    "  - {name: lc, class: LC, count: 2, arrival: {type: periodic, rate: 10}, request: {kernels: [{duration: 1ms}]}}\n"
    "  - {name: be, class: BE, count: 2, arrival: {type: poisson, rate: 100}, request: {kernels: [{duration: 1ms}]}}\n"
    "  - {name: cl, class: BE, arrival: {type: closed, think: 1ms}, request: {kernels: [{duration: 1ms}]}}\n";

static struct scenario *load(const char *extra)
{
    char text[2048], err[512];
    snprintf(text, sizeof text, "%s%s", base_yaml, extra);
    struct scenario *s = scenario_load_string("plan.yaml", text, err, sizeof err);
    if (!s)
        fail_msg("%s", err);
    return s;
}

static void plan_spreads_periodic_replicas_over_the_period(void **state)
{
    (void)state;
    struct scenario *s = load("");
    struct sc_plan p;
    assert_int_equal(sc_plan_build(&p, s, s->seed, NULL), 0);
    assert_int_equal(p.ninst, 5);
    assert_int_equal(p.inst[0].count, 10);
    assert_int_equal(p.inst[1].count, 10);
    assert_int_equal(p.inst[0].arrive_ns[0], 0);
    assert_int_equal(p.inst[1].arrive_ns[0], 50000000);   /* half of the 100 ms period */
    assert_int_equal(p.inst[0].arrive_ns[9], 900000000);
    assert_false(p.inst[4].open_loop);
    assert_int_equal(p.inst[4].count, 0);
    sc_plan_free(&p);
    scenario_free(s);
}

static void plan_draws_the_same_arrivals_for_the_same_seed_only(void **state)
{
    (void)state;
    struct scenario *s = load("");
    struct sc_plan a, b, c;
    assert_int_equal(sc_plan_build(&a, s, 7, NULL), 0);
    assert_int_equal(sc_plan_build(&b, s, 7, NULL), 0);
    assert_int_equal(sc_plan_build(&c, s, 8, NULL), 0);
    assert_true(a.inst[2].count > 50 && a.inst[2].count < 150);
    assert_int_equal(a.inst[2].count, b.inst[2].count);
    assert_memory_equal(a.inst[2].arrive_ns, b.inst[2].arrive_ns, a.inst[2].count * sizeof(uint64_t));
    assert_true(a.inst[2].count != c.inst[2].count ||
                memcmp(a.inst[2].arrive_ns, c.inst[2].arrive_ns, a.inst[2].count * sizeof(uint64_t)) != 0);
    for (size_t i = 1; i < a.inst[3].count; i++)
        assert_true(a.inst[3].arrive_ns[i] > a.inst[3].arrive_ns[i - 1]);
    sc_plan_free(&a);
    sc_plan_free(&b);
    sc_plan_free(&c);
    scenario_free(s);
}

/* A killed instance's arrivals stop at the kill; the draws it no longer makes move the other instance's. */
static void plan_ends_a_killed_instances_arrivals_at_the_kill(void **state)
{
    (void)state;
    struct scenario *s = load("faults:\n  - {type: client_kill, at: 300ms, task: be, replica: 0}\n");
    struct sc_plan with, without;
    struct sc_plan_opts inject = {.faults = true}, ignore = {.faults = false};
    assert_int_equal(sc_plan_build(&with, s, 7, &inject), 0);
    assert_int_equal(sc_plan_build(&without, s, 7, &ignore), 0);
    assert_true(with.inst[2].count > 0 && with.inst[2].count < without.inst[2].count);
    assert_true(with.inst[2].arrive_ns[with.inst[2].count - 1] < 300000000);
    assert_true(without.inst[2].arrive_ns[without.inst[2].count - 1] >= 300000000);
    /* replica 1 draws from the same generator: its arrivals after the kill differ */
    assert_true(with.inst[3].count != without.inst[3].count ||
                memcmp(with.inst[3].arrive_ns, without.inst[3].arrive_ns,
                       with.inst[3].count * sizeof(uint64_t)) != 0);
    sc_plan_free(&with);
    sc_plan_free(&without);
    scenario_free(s);
}

/* An idle instance (an external process, a refused context) takes no arrivals but still made its first draw. */
static void plan_gives_an_idle_instance_no_arrivals_but_its_first_draw(void **state)
{
    (void)state;
    struct scenario *s = load("");
    bool idle[5] = {false, false, true, false, false};
    struct sc_plan_opts o = {.idle = idle};
    struct sc_plan with, without;
    assert_int_equal(sc_plan_build(&with, s, 7, &o), 0);
    assert_int_equal(sc_plan_build(&without, s, 7, NULL), 0);
    assert_int_equal(with.inst[2].count, 0);
    /* replica 1's first arrival is the second draw either way */
    assert_int_equal(with.inst[3].arrive_ns[0], without.inst[3].arrive_ns[0]);
    sc_plan_free(&with);
    sc_plan_free(&without);
    scenario_free(s);
}

static void decider_preempts_on_every_lc_begin(void **state)
{
    (void)state;
    struct gp_decider d;
    gp_decider_init(&d, GP_METHOD_PREEMPT);
    assert_int_equal(gp_decide_lc_begin(&d), GP_DECIDE_PREEMPT_BE);
    assert_int_equal(gp_decide_lc_begin(&d), GP_DECIDE_PREEMPT_BE);
    assert_int_equal(gp_decide_lc_end(&d), GP_DECIDE_NOTHING);
    assert_int_equal(gp_decide_lc_end(&d), GP_DECIDE_NOTHING);
    assert_int_equal(d.made[GP_DECIDE_PREEMPT_BE], 2);
}

static void decider_disables_on_the_first_lc_and_enables_after_the_last(void **state)
{
    (void)state;
    struct gp_decider d;
    gp_decider_init(&d, GP_METHOD_DISABLE);
    assert_int_equal(gp_decide_lc_begin(&d), GP_DECIDE_DISABLE_BE);
    assert_int_equal(gp_decide_lc_begin(&d), GP_DECIDE_NOTHING);
    assert_int_equal(gp_decide_lc_end(&d), GP_DECIDE_NOTHING);
    assert_int_equal(gp_decide_lc_end(&d), GP_DECIDE_ENABLE_BE);
    gp_decider_init(&d, GP_METHOD_TIMESLICE);
    assert_int_equal(gp_decide_lc_begin(&d), GP_DECIDE_NOTHING);
    assert_int_equal(gp_decide_lc_end(&d), GP_DECIDE_NOTHING);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plan_spreads_periodic_replicas_over_the_period),
        cmocka_unit_test(plan_draws_the_same_arrivals_for_the_same_seed_only),
        cmocka_unit_test(plan_ends_a_killed_instances_arrivals_at_the_kill),
        cmocka_unit_test(plan_gives_an_idle_instance_no_arrivals_but_its_first_draw),
        cmocka_unit_test(decider_preempts_on_every_lc_begin),
        cmocka_unit_test(decider_disables_on_the_first_lc_and_enables_after_the_last),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
