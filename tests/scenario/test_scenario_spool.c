/*
 * The trace a run keeps for its supervisor (spool.h): what a process wrote
 * before it was killed is readable, records past the region's size are
 * counted as dropped, and the kept trace gives the numbers the run itself
 * computed.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "results.h"
#include "runner.h"
#include "scenario.h"
#include "spool.h"

static struct sim_rec rec(uint64_t i)
{
    return (struct sim_rec){.seq = i, .t = i * 1000, .kind = 1, .engine = SIM_NONE, .a = i,
                            .name = i % 2 ? "odd" : NULL, .reason = "why"};
}

static void spool_keeps_what_a_killed_process_wrote(void **state)
{
    (void)state;
    struct sc_spool *sp = sc_spool_create(1 << 20);
    assert_non_null(sp);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        for (uint64_t i = 0; i < 100; i++) {
            struct sim_rec r = rec(i);
            sc_spool_record(sp, &r);
        }
        kill(getpid(), SIGKILL);
        _exit(0);
    }
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(sc_spool_count(sp), 100);
    assert_int_equal(sc_spool_dropped(sp), 0);
    sc_spool_free(sp);
}

static void spool_counts_records_past_its_size_as_dropped(void **state)
{
    (void)state;
    struct sc_spool *sp = sc_spool_create(1024);
    assert_non_null(sp);
    for (uint64_t i = 0; i < 100; i++) {
        struct sim_rec r = rec(i);
        sc_spool_record(sp, &r);
    }
    size_t kept = sc_spool_count(sp);
    assert_true(kept > 0 && kept < 100);
    assert_int_equal(kept + sc_spool_dropped(sp), 100);
    sc_spool_free(sp);
}

static const char scenario_text[] =
    "name: unit\n"
    "duration: 30ms\n"
    "tasks:\n"
    "  - {name: lc, class: LC, arrival: {type: periodic, rate: 200}, request: {kernels: [{duration: 100us}]}}\n"
    "  - {name: be, class: BE, arrival: {type: closed}, request: {kernels: [{duration: 2ms}]}}\n";

static void spool_trace_gives_the_runs_own_numbers(void **state)
{
    (void)state;
    char err[512] = "";
    struct scenario *sc = scenario_load_string("unit.yaml", scenario_text, err, sizeof(err));
    assert_non_null(sc);
    struct sc_spool *sp = sc_spool_create(64 << 20);
    assert_non_null(sp);
    struct sc_run_opts o = {.trace_spool = sp};
    struct sc_results run, kept;
    assert_int_equal(sc_run(sc, &o, &run, err, sizeof(err)), 0);
    assert_int_equal(sc_spool_dropped(sp), 0);
    assert_int_equal(sc_spool_count(sp), run.events);
    assert_int_equal(sc_spool_results(sp, sc, run.seed, run.virtual_ns, &kept, err, sizeof(err)), 0);
    assert_int_equal(kept.events, run.events);
    assert_int_equal(kept.virtual_ns, run.virtual_ns);
    assert_int_equal(kept.hook_count, run.hook_count);
    for (uint32_t t = 0; t < sc->task_count; t++) {
        assert_true(run.tasks[t].completed > 0);
        assert_int_equal(kept.tasks[t].arrivals, run.tasks[t].arrivals);
        assert_int_equal(kept.tasks[t].completed, run.tasks[t].completed);
        assert_memory_equal(kept.tasks[t].lat_ns, run.tasks[t].lat_ns, run.tasks[t].completed * sizeof(uint64_t));
    }
    sc_results_free(&kept);
    sc_results_free(&run);
    sc_spool_free(sp);
    scenario_free(sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spool_keeps_what_a_killed_process_wrote),
        cmocka_unit_test(spool_counts_records_past_its_size_as_dropped),
        cmocka_unit_test(spool_trace_gives_the_runs_own_numbers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
