/*
 * Analyzer and reports over a real FIFO-model trace: a BE channel group runs
 * a long kernel, an LC request arrives and preempts it (CILP), and the
 * numbers every report shows must be the ones the trace implies.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "test_slurp.h"

#include "fifo/fifo.h"
#include "profile/profile.h"
#include "report.h"
#include "analyze.h"
#include "results.h"
#include "scenario.h"
#include "sim/sim.h"

static const char scenario_text[] =
    "name: unit\n"
    "duration: 20ms\n"
    "tasks:\n"
    "  - {name: lc, class: LC, arrival: {type: periodic, rate: 100}, request: {kernels: [{duration: 100us}]}}\n"
    "  - {name: be, class: BE, arrival: {type: closed}, request: {kernels: [{duration: 10ms}]}}\n"
    "expect:\n"
    "  - latency: {task: lc, stat: max, max: 1ms}\n"
    "  - latency: {task: lc, stat: max, max: 100us}\n"
    "  - preemptions: {min: 1}\n"
    "  - lost: {max: 0}\n";

struct world {
    struct scenario *sc;
    struct profile *p;
    struct sim *sim;
    struct fifo *f;
    struct fifo_tsg *lc, *be;
    struct fifo_channel *lc_ch, *be_ch;
    struct sc_results res;
    uint32_t lc_done;
};

static void mark(struct sim *s, const char *name, uint64_t a, uint64_t b)
{
    struct sim_rec r = {.kind = SIM_REC_MARK, .engine = SIM_NONE, .runlist = SIM_NONE, .tsg = SIM_NONE,
                        .chid = SIM_NONE, .a = a, .b = b, .name = name};
    sim_trace(s, &r);
}

static void lc_kernel_done(void *ctx, uint64_t id, uint64_t tag, uint64_t submit_t, uint64_t done_t)
{
    (void)id;
    (void)submit_t;
    (void)done_t;
    struct world *w = ctx;
    w->lc_done++;
    mark(w->sim, SC_MARK_DONE, 0, tag);
}

static void be_kernel_done(void *ctx, uint64_t id, uint64_t tag, uint64_t submit_t, uint64_t done_t)
{
    (void)id;
    (void)submit_t;
    (void)done_t;
    struct world *w = ctx;
    mark(w->sim, SC_MARK_DONE, 1, tag);
}

static void lc_arrival(struct sim *s, void *arg, uint64_t data)
{
    struct world *w = arg;
    mark(s, SC_MARK_ARRIVE, 0, data);
    struct fifo_kernel k = {.blocks = 1, .total_ns = 100000, .tag = data};
    uint64_t id;
    assert_int_equal(fifo_submit(w->lc_ch, &k, lc_kernel_done, w, &id), NV_OK);
}

static void build(struct world *w)
{
    char err[512];
    memset(w, 0, sizeof(*w));
    w->sc = scenario_load_string("unit.yaml", scenario_text, err, sizeof(err));
    if (!w->sc)
        print_error("%s\n", err);
    assert_non_null(w->sc);
    w->p = profile_load("h200", err, sizeof(err));
    assert_non_null(w->p);
    struct sim_config cfg = {.seed = 1, .clock = NVEMU_CLOCK_VIRTUAL};
    w->sim = sim_create(&cfg);
    assert_non_null(w->sim);
    w->f = fifo_create(w->p, 0, w->sim, NULL);
    assert_non_null(w->f);
}

static void run_world(struct world *w)
{
    struct sc_analyzer *an = sc_analyzer_create(w->sc, w->sc->seed, w->p, &w->res);
    assert_non_null(an);
    int sub = sim_trace_subscribe(w->sim, sc_analyzer_record, an);
    struct fifo_creator lc_who = {.pid = 1000, .tid = 1000, .comm = "lc"}, be_who = {.pid = 1001, .tid = 1001,
                                                                                      .comm = "be"};
    assert_int_equal(fifo_tsg_create(w->f, 1, &lc_who, &w->lc), NV_OK);
    assert_int_equal(fifo_tsg_create(w->f, 1, &be_who, &w->be), NV_OK);
    assert_int_equal(fifo_channel_create(w->lc, 0x100, false, &w->lc_ch), NV_OK);
    assert_int_equal(fifo_channel_create(w->be, 0x200, false, &w->be_ch), NV_OK);
    assert_int_equal(fifo_channel_set_preempt_mode(w->be_ch, FIFO_PREEMPT_CILP), NV_OK);
    assert_int_equal(fifo_tsg_schedule(w->lc, true, false, false), NV_OK);
    assert_int_equal(fifo_tsg_schedule(w->be, true, false, false), NV_OK);
    mark(w->sim, SC_MARK_TSG, 0, fifo_tsg_hw_id(w->lc));
    mark(w->sim, SC_MARK_TSG, 1, fifo_tsg_hw_id(w->be));
    /* BE: one 10 ms request from t=0; LC: arrivals at 2 ms and 12 ms. */
    mark(w->sim, SC_MARK_ARRIVE, 1, 0);
    struct fifo_kernel k = {.blocks = 1, .total_ns = 10000000, .tag = 0};
    uint64_t id;
    assert_int_equal(fifo_submit(w->be_ch, &k, be_kernel_done, w, &id), NV_OK);
    sim_at(w->sim, 2000000, lc_arrival, w, 0);
    sim_at(w->sim, 12000000, lc_arrival, w, 1);
    sim_run_until(w->sim, w->sc->duration_ns);
    sim_trace_unsubscribe(w->sim, sub);
    sc_analyzer_finish(an, w->sc->duration_ns);
    w->res.digest = sim_trace_digest(w->sim);
    sc_results_evaluate(&w->res);
}

static void teardown_world(struct world *w)
{
    sc_results_free(&w->res);
    fifo_destroy(w->f);
    sim_destroy(w->sim);
    profile_free(w->p);
    scenario_free(w->sc);
}

static void report_numbers_are_counted_from_the_trace(void **state)
{
    (void)state;
    struct world w;
    build(&w);
    run_world(&w);
    assert_int_equal(w.lc_done, 2);
    const struct sc_task_result *lc = &w.res.tasks[0], *be = &w.res.tasks[1];
    assert_int_equal(lc->arrivals, 2);
    assert_int_equal(lc->completed, 2);
    assert_int_equal(lc->lost, 0);
    assert_int_equal(be->completed, 1);
    assert_int_equal(be->lost, 0);
    /* The BE kernel lost the engine twice, so it ends after 10 ms of its own work plus the LC work. */
    assert_true(be->max_ns > 10200000);
    /* LC waits at most a timeslice (2048 us cap) + a CILP save + two switches; never less than its kernel. */
    assert_true(lc->max_ns >= 100000);
    assert_true(lc->max_ns <= 1100000 + 2 * w.p->timing.ctxsw_ns + w.p->timing.cilp_save_ns);
    assert_true(lc->p50_ns <= lc->max_ns);
    assert_int_equal(w.res.engine_count >= 1, 1);
    const struct sc_engine_result *gr = &w.res.engines[0];
    assert_string_equal(gr->name, "GR0");
    assert_true(gr->preemptions >= 1);
    assert_true(gr->switches >= 3);
    assert_int_equal(gr->kernels, 3);
    /* busy = everything but switches, saves and idle time: strictly less than the run. */
    assert_true(gr->busy_ns > 10000000 && gr->busy_ns < w.sc->duration_ns);
    assert_true(w.res.events > 10);
    /* Expectations: max <= 1 ms holds, max <= 100 us cannot (the kernel alone is 100 us + switch). */
    assert_true(w.res.outcomes[0].pass);
    assert_false(w.res.outcomes[1].pass);
    assert_true(w.res.outcomes[2].pass);
    assert_true(w.res.outcomes[3].pass);
    assert_int_equal(w.res.passed, 3);
    assert_int_equal(w.res.failed, 1);
    /* Same inputs, same trace: a second world gives the same digest, event count and latencies. */
    struct world w2;
    build(&w2);
    run_world(&w2);
    assert_int_equal(w2.res.digest, w.res.digest);
    assert_int_equal(w2.res.events, w.res.events);
    assert_memory_equal(w2.res.tasks[0].lat_ns, w.res.tasks[0].lat_ns, 2 * sizeof(uint64_t));
    teardown_world(&w2);
    teardown_world(&w);
}

/* results.json names the nvemu that wrote it and the version of its layout. */
static void test_results_name_version_and_schema(void **state)
{
    (void)state;
    struct world w;
    build(&w);
    run_world(&w);
    char dir[] = "/tmp/nvemu-scenario-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256], err[256];
    snprintf(path, sizeof(path), "%s/results.json", dir);
    assert_int_equal(report_json(&w.res, path, err, sizeof(err)), 0);
    char *text = slurp(path);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    const cJSON *v = cJSON_GetObjectItem(root, "nvemu_version");
    assert_true(cJSON_IsString(v));
    assert_string_equal(v->valuestring, NVEMU_VERSION);
    const cJSON *sv = cJSON_GetObjectItem(root, "schema_version");
    assert_true(cJSON_IsNumber(sv));
    assert_int_equal((int)sv->valuedouble, SC_RESULTS_SCHEMA_VERSION);
    cJSON_Delete(root);
    free(text);
    unlink(path);
    rmdir(dir);
    teardown_world(&w);
}

static void test_report_files(void **state)
{
    (void)state;
    struct world w;
    build(&w);
    run_world(&w);
    char dir[] = "/tmp/nvemu-scenario-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256], err[256];
    snprintf(path, sizeof(path), "%s/results.json", dir);
    assert_int_equal(report_json(&w.res, path, err, sizeof(err)), 0);
    char *text = slurp(path);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    assert_false(cJSON_IsTrue(cJSON_GetObjectItem(root, "passed")));
    cJSON *tasks = cJSON_GetObjectItem(root, "tasks");
    assert_int_equal(cJSON_GetArraySize(tasks), 2);
    cJSON *lc = cJSON_GetArrayItem(tasks, 0);
    assert_int_equal(cJSON_GetObjectItem(lc, "completed")->valuedouble, 2);
    double p99 = cJSON_GetObjectItem(cJSON_GetObjectItem(lc, "latency_us"), "p99")->valuedouble;
    assert_true(p99 * 1e3 > w.res.tasks[0].p99_ns - 1 && p99 * 1e3 < w.res.tasks[0].p99_ns + 1);
    char digest[40];
    snprintf(digest, sizeof(digest), "fnv1a64:%016llx", (unsigned long long)w.res.digest);
    assert_string_equal(cJSON_GetObjectItem(root, "trace_digest")->valuestring, digest);
    cJSON_Delete(root);
    free(text);
    unlink(path);

    snprintf(path, sizeof(path), "%s/junit.xml", dir);
    assert_int_equal(report_junit(&w.res, path, err, sizeof(err)), 0);
    text = slurp(path);
    assert_non_null(strstr(text, "tests=\"4\" failures=\"1\""));
    assert_non_null(strstr(text, "<failure message=\"expected lc latency max &lt;= 100.0 us"));
    free(text);
    unlink(path);

    snprintf(path, sizeof(path), "%s/trace.json", dir);
    assert_int_equal(report_chrome(&w.res, path, err, sizeof(err)), 0);
    text = slurp(path);
    root = cJSON_Parse(text);
    assert_non_null(root);
    int n = cJSON_GetArraySize(cJSON_GetObjectItem(root, "traceEvents"));
    assert_true(n > 8);
    assert_non_null(strstr(text, "\"name\":\"lc#0\""));
    assert_non_null(strstr(text, "\"name\":\"be#0\""));
    assert_non_null(strstr(text, "preempt request"));
    cJSON_Delete(root);
    free(text);
    unlink(path);

    snprintf(path, sizeof(path), "%s/report.html", dir);
    assert_int_equal(report_html(&w.res, path, err, sizeof(err)), 0);
    text = slurp(path);
    assert_non_null(strstr(text, "<svg id=\"timeline-overview\" class=\"tl\""));
    assert_non_null(strstr(text, "<svg id=\"timeline-zoom\" class=\"tl\""));
    assert_non_null(strstr(text, "id=\"over-time\""));
    assert_non_null(strstr(text, "id=\"cdf-tail\""));
    assert_non_null(strstr(text, "preempt requested"));
    assert_non_null(strstr(text, "<polyline"));
    assert_non_null(strstr(text, "FAIL"));
    free(text);
    unlink(path);
    rmdir(dir);

    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    report_console(&w.res, mem, false);
    fclose(mem);
    assert_non_null(strstr(buf, "✗ lc latency max <= 100.0 us"));
    assert_non_null(strstr(buf, "FAIL 3 of 4 expectations met"));
    free(buf);
    teardown_world(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(report_numbers_are_counted_from_the_trace),
        cmocka_unit_test(test_report_files),
        cmocka_unit_test(test_results_name_version_and_schema),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
