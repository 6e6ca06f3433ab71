/*
 * PyTorch profiler trace import: a request's kernels from one profiled step
 * of a small hand-written trace (traces/step.json), and the refusals.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "scenario.h"
#include "trace_import.h"

#define STEP_JSON NVEMU_TRACE_DIR "/step.json"

static struct sc_task *task(void)
{
    struct sc_task *t = calloc(1, sizeof(*t));
    assert_non_null(t);
    return t;
}

static void import_takes_the_first_steps_kernels_in_launch_order_with_shapes_and_gaps(void **state)
{
    (void)state;
    struct sc_task *t = task();
    char err[512] = "";
    assert_int_equal(sc_trace_import(STEP_JSON, "ProfilerStep", t, err, sizeof(err)), 0);
    /* Step #1's three launches; step #2's and "ProfilerStepper" (another name) are not in it. */
    assert_int_equal(t->kernel_count, 3);
    const struct sc_kernel *k = t->kernels;
    assert_int_equal(k[0].duration_ns, 1472);
    assert_int_equal(k[0].blocks, 2);
    assert_int_equal(k[0].threads, 128);
    assert_int_equal(k[0].regs, 32);
    assert_int_equal(k[0].shared_kb, 0);
    assert_int_equal(k[0].stream, 0);
    assert_int_equal(k[1].duration_ns, 12500);
    assert_int_equal(k[1].blocks, 132);
    assert_int_equal(k[1].threads, 256);
    assert_int_equal(k[1].regs, 168);
    assert_int_equal(k[1].shared_kb, 100);
    assert_int_equal(k[1].stream, 0);
    assert_int_equal(k[2].duration_ns, 200000);
    assert_int_equal(k[2].blocks, 64);
    assert_int_equal(k[2].threads, 128);
    assert_int_equal(k[2].shared_kb, 225); /* 229,772 bytes rounded up */
    assert_int_equal(k[2].stream, 1);      /* trace stream 20, the second one used */
    for (int i = 0; i < 3; i++) {
        assert_int_equal(k[i].repeat, 1);
        assert_int_equal(k[i].blocks_per_sm, 0);
    }
    assert_int_equal(t->streams, 2);
    assert_int_equal(t->preprocess_ns, 40000); /* step start 1000 us, first launch 1040 us */
    /* launch calls at 1040, 1100 and 1490 us: the CPU time between them */
    assert_int_equal(k[0].launch_gap_ns, 0);
    assert_int_equal(k[1].launch_gap_ns, 60000);
    assert_int_equal(k[2].launch_gap_ns, 390000);
    free(t);
}

static void test_named_step_is_that_step(void **state)
{
    (void)state;
    struct sc_task *t = task();
    char err[512] = "";
    assert_int_equal(sc_trace_import(STEP_JSON, "ProfilerStep#2", t, err, sizeof(err)), 0);
    assert_int_equal(t->kernel_count, 1);
    assert_int_equal(t->kernels[0].duration_ns, 3000);
    assert_int_equal(t->kernels[0].threads, 32);
    assert_int_equal(t->streams, 1);
    assert_int_equal(t->preprocess_ns, 100000);
    free(t);
}

struct bad {
    const char *text, *iteration, *message;
};

#define STEP "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"S#1\",\"ts\":0,\"dur\":100}"
#define KERNEL(stream, grid, block) \
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"ts\":10,\"dur\":1,\"args\":{\"stream\":" #stream ",\"grid\":" grid \
    ",\"block\":" block "}}"

static const struct bad bads[] = {
    {"{\n  \"traceEvents\": [\n  x]}", "S", "t.json:3:3: not valid JSON"},
    {"{\"events\": []}", "S", "t.json: not a Chrome trace: no 'traceEvents' array"},
    {"{\"traceEvents\": [" STEP "]}", "T", "t.json: no CPU step annotation 'T' or 'T#N'"},
    {"{\"traceEvents\": [" STEP "]}", "S", "t.json: step 'S' launches no kernels"},
    {"{\"traceEvents\": [" STEP "," KERNEL(1, "[0,1,1]", "[32,1,1]") "]}", "S", "has no valid grid/block"},
    {"{\"traceEvents\": [" STEP "," KERNEL(1, "[1,1,1]", "[64,32,1]") "]}", "S", "beyond what a scenario kernel"},
    {"{\"traceEvents\": [" STEP ",{\"cat\":\"kernel\",\"ts\":10,\"dur\":1e12,\"args\":{\"grid\":[1],\"block\":[32]}}]}",
     "S", "longer than a day"},
    {"{\"traceEvents\": [" STEP "," KERNEL(1, "[1,1,1]", "[32,1,1]") "," KERNEL(2, "[1,1,1]", "[32,1,1]") ","
     KERNEL(3, "[1,1,1]", "[32,1,1]") "," KERNEL(4, "[1,1,1]", "[32,1,1]") "," KERNEL(5, "[1,1,1]", "[32,1,1]") ","
     KERNEL(6, "[1,1,1]", "[32,1,1]") "," KERNEL(7, "[1,1,1]", "[32,1,1]") "," KERNEL(8, "[1,1,1]", "[32,1,1]") ","
     KERNEL(9, "[1,1,1]", "[32,1,1]") "]}", "S", "more than 8 streams"},
};

static void test_bad_traces_refused_with_where_and_why(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
        struct sc_task *t = task();
        char err[512] = "";
        assert_int_equal(sc_trace_import_text("t.json", bads[i].text, bads[i].iteration, t, err, sizeof(err)), -1);
        if (!strstr(err, bads[i].message))
            fail_msg("case %zu: '%s' lacks '%s'", i, err, bads[i].message);
        free(t);
    }
}

static void test_step_over_request_limit_refused(void **state)
{
    (void)state;
    size_t cap = 200 + (SC_MAX_KERNELS + 1) * 128;
    char *text = malloc(cap);
    assert_non_null(text);
    size_t n = (size_t)snprintf(text, cap, "{\"traceEvents\": [" STEP);
    for (int i = 0; i <= SC_MAX_KERNELS; i++)
        n += (size_t)snprintf(text + n, cap - n, "," KERNEL(1, "[1,1,1]", "[32,1,1]"));
    snprintf(text + n, cap - n, "]}");
    struct sc_task *t = task();
    char err[512] = "";
    assert_int_equal(sc_trace_import_text("t.json", text, "S", t, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "more than 512 kernels"));
    free(t);
    free(text);
}

static void test_unreadable_files_refused(void **state)
{
    (void)state;
    struct sc_task *t = task();
    char err[512] = "";
    assert_int_equal(sc_trace_import(NVEMU_TRACE_DIR "/none.json", "S", t, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "cannot read trace"));
    assert_int_equal(sc_trace_import(NVEMU_TRACE_DIR, "S", t, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "cannot read trace"));
    free(t);
}

static struct scenario *load(const char *yaml, char *err, size_t errlen)
{
    char path[] = NVEMU_TEST_TMP "/trace_import_test.yaml";
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(yaml, f);
    fclose(f);
    struct scenario *s = scenario_load(path, err, errlen);
    remove(path);
    return s;
}

#define YHEAD "name: t\nduration: 1s\ntasks:\n  - name: lc\n    class: LC\n    arrival: {type: periodic, rate: 10}\n"

static void request_from_trace_loads_the_steps_kernels(void **state)
{
    (void)state;
    char err[512] = "";
    struct scenario *s = load(YHEAD "    request: {from_trace: " STEP_JSON ", iteration: ProfilerStep}\n", err,
                              sizeof(err));
    if (!s)
        fail_msg("%s", err);
    assert_int_equal(s->tasks[0].kernel_count, 3);
    assert_int_equal(s->tasks[0].streams, 2);
    assert_int_equal(s->tasks[0].preprocess_ns, 40000);
    scenario_free(s);
    /* A preprocess written in the scenario wins over the trace's. */
    s = load(YHEAD "    request: {from_trace: " STEP_JSON ", preprocess: 1ms}\n", err, sizeof(err));
    if (!s)
        fail_msg("%s", err);
    assert_int_equal(s->tasks[0].preprocess_ns, 1000000);
    scenario_free(s);
}

static void test_cpu_scale_scales_preprocess_and_launch_gaps_only(void **state)
{
    (void)state;
    char err[512] = "";
    struct scenario *s = load(YHEAD "    request: {from_trace: " STEP_JSON ", cpu_scale: 0.5}\n", err, sizeof(err));
    if (!s)
        fail_msg("%s", err);
    const struct sc_task *t = &s->tasks[0];
    assert_int_equal(t->preprocess_ns, 20000);
    assert_int_equal(t->kernels[0].launch_gap_ns, 0);
    assert_int_equal(t->kernels[1].launch_gap_ns, 30000);
    assert_int_equal(t->kernels[2].launch_gap_ns, 195000);
    assert_int_equal(t->kernels[1].duration_ns, 12500); /* GPU time is the GPU's */
    scenario_free(s);
}

/* cpu_spread is kept as written, on an imported step as on written kernels; the step's times are unchanged. */
static void test_cpu_spread_is_loaded_for_any_request(void **state)
{
    (void)state;
    char err[512] = "";
    struct scenario *s = load(YHEAD "    request: {from_trace: " STEP_JSON ", cpu_spread: 0.25}\n", err, sizeof(err));
    if (!s)
        fail_msg("%s", err);
    assert_true(s->tasks[0].cpu_spread == 0.25);
    assert_int_equal(s->tasks[0].preprocess_ns, 40000);
    assert_int_equal(s->tasks[0].kernels[2].launch_gap_ns, 390000);
    scenario_free(s);
    s = load(YHEAD "    request: {kernels: [{duration: 1ms, launch_gap: 10us}], cpu_spread: 0.1}\n", err, sizeof(err));
    if (!s)
        fail_msg("%s", err);
    assert_true(s->tasks[0].cpu_spread == 0.1);
    scenario_free(s);
}

static void test_cpu_spread_outside_0_to_1_is_refused(void **state)
{
    (void)state;
    static const char *const bad[] = {"-0.1", "1.5", "nan", "wide"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char yaml[512], err[512] = "";
        snprintf(yaml, sizeof(yaml), YHEAD "    request: {kernels: [{duration: 1ms}], cpu_spread: %s}\n", bad[i]);
        assert_null(load(yaml, err, sizeof(err)));
        assert_non_null(strstr(err, "trace_import_test.yaml:7:"));
        assert_non_null(strstr(err, "cpu_spread"));
    }
}

static void request_from_trace_with_other_keys_is_refused(void **state)
{
    (void)state;
    char err[512] = "";
    assert_null(load(YHEAD "    request: {from_trace: " STEP_JSON ", kernels: [{duration: 1ms}]}\n", err,
                     sizeof(err)));
    assert_non_null(strstr(err, ":7:"));
    assert_non_null(strstr(err, "either 'kernels' or 'from_trace'"));
    assert_null(load(YHEAD "    request: {kernels: [{duration: 1ms}], iteration: S}\n", err, sizeof(err)));
    assert_non_null(strstr(err, "'iteration' is only for a request 'from_trace'"));
    assert_null(load(YHEAD "    request: {from_trace: " STEP_JSON ", iteration: Nope}\n", err, sizeof(err)));
    assert_non_null(strstr(err, "trace_import_test.yaml:7:"));
    assert_non_null(strstr(err, "no CPU step annotation 'Nope'"));
    assert_null(load(YHEAD "    request: {preprocess: 1ms}\n", err, sizeof(err)));
    assert_non_null(strstr(err, "needs 'kernels' (or 'from_trace')"));
    assert_null(load(YHEAD "    request: {kernels: [{duration: 1ms}], cpu_scale: 0.5}\n", err, sizeof(err)));
    assert_non_null(strstr(err, "'cpu_scale' is only for a request 'from_trace'"));
    assert_null(load(YHEAD "    request: {from_trace: " STEP_JSON ", cpu_scale: 0}\n", err, sizeof(err)));
    assert_non_null(strstr(err, "cpu_scale must be above 0"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(import_takes_the_first_steps_kernels_in_launch_order_with_shapes_and_gaps),
        cmocka_unit_test(test_named_step_is_that_step),
        cmocka_unit_test(test_bad_traces_refused_with_where_and_why),
        cmocka_unit_test(test_step_over_request_limit_refused),
        cmocka_unit_test(test_unreadable_files_refused),
        cmocka_unit_test(request_from_trace_loads_the_steps_kernels),
        cmocka_unit_test(test_cpu_scale_scales_preprocess_and_launch_gaps_only),
        cmocka_unit_test(test_cpu_spread_is_loaded_for_any_request),
        cmocka_unit_test(test_cpu_spread_outside_0_to_1_is_refused),
        cmocka_unit_test(request_from_trace_with_other_keys_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
