/*
 * Scenario validation: each bad input must be refused with the exact
 * file:line:column and a message naming the problem; a good file loads with
 * the values it says.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "profile/profile.h"
#include "scenario.h"
#include <sys/stat.h>
#include <unistd.h>

#define HEAD "name: t\nduration: 1s\n"
#define TASK_ITEM "  - name: lc\n    class: LC\n    arrival: {type: periodic, rate: 100}\n" \
                  "    request: {kernels: [{duration: 1ms}]}\n"
#define TASK "tasks:\n" TASK_ITEM

struct bad_case {
    const char *text;
    const char *where;     /* "t.yaml:L:C:" */
    const char *message;   /* substring */
};

static const struct bad_case bad_cases[] = {
    {HEAD TASK "colour: red\n", "t.yaml:8:1:", "unknown key 'colour'"},
    {HEAD "tasks:\n  - name: lc\n    class: LC\n    arrival: {type: periodic, rate: 0}\n"
          "    request: {kernels: [{duration: 1ms}]}\n",
     "t.yaml:6:37:", "rate must be greater than 0"},
    {HEAD "tasks:\n  - name: lc\n    class: LC\n    arrival: {type: periodic, rate: 10}\n"
          "    request: {kernels: [{duration: -5us}]}\n",
     "t.yaml:7:36:", "must not be negative"},
    {HEAD "tasks:\n  - name: lc\n    class: LC\n    arrival: {type: periodic, rate: 10}\n"
          "    request: {kernels: [{duration: 5}]}\n",
     "t.yaml:7:36:", "needs a unit"},
    {HEAD "tasks:\n  - name: lc\n    class: XX\n    arrival: {type: periodic, rate: 10}\n"
          "    request: {kernels: [{duration: 5us}]}\n",
     "t.yaml:5:12:", "task.class must be one of LC|BE"},
    {HEAD "tasks:\n  - name: lc\n    class: LC\n    count: many\n    arrival: {type: periodic, rate: 10}\n"
          "    request: {kernels: [{duration: 5us}]}\n",
     "t.yaml:6:12:", "whole number"},
    {HEAD "tasks: {}\n", "t.yaml:3:8:", "tasks must be a sequence"},
    {"name: t\nduration: -1s\n" TASK, "t.yaml:2:11:", "must not be negative"},
    {"name: t\n" TASK, "t.yaml:1:1:", "needs 'duration'"},
    {HEAD TASK "expect:\n  - latency: {task: nobody, max: 1ms}\n", "t.yaml:9:5:", "unknown task 'nobody'"},
    {HEAD TASK "expect:\n  - latency: {task: lc, max_vs_alone: 1.3}\n", "t.yaml:9:5:", "needs 'baseline: true'"},
    {HEAD TASK "expect:\n  - latency: {task: lc, stat: p42, max: 1ms}\n", "t.yaml:9:31:", "stat must be one of"},
    {HEAD TASK "expect:\n  - latency: {task: lc, min: 2ms, max: 1ms}\n", "t.yaml:9:14:", "min is greater than max"},
    {HEAD TASK "expect:\n  - speed: {task: lc}\n", "t.yaml:9:5:", "expectation must be one of"},
    {HEAD TASK "faults:\n  - {type: client_kill, at: 500ms, task: lc, replica: 3}\n", "t.yaml:9:5:",
     "missing replica"},
    {HEAD TASK "faults:\n  - {type: gpu_lost, at: 2s}\n", "t.yaml:9:5:", "not before the end"},
    {HEAD TASK "faults:\n  - {type: busy_retry, at: 1ms}\n", "t.yaml:9:5:", "needs 'duration'"},
    {HEAD TASK "faults:\n  - {type: busy_retry, at: 1ms, duration: 1ms}\n", "t.yaml:9:5:",
     "busy_retry fault needs 'scheduler: {kind: gpreempt, action: preempt|disable}'"},
    {HEAD TASK "scheduler: {kind: gpreempt, action: timeslice}\nfaults:\n  - {type: busy_retry, at: 1ms, duration: 1ms}\n",
     "t.yaml:10:5:", "busy_retry fault needs"},
    {HEAD TASK "expect:\n  - busy_retries: {}\n", "t.yaml:9:19:", "give min and/or max"},
    {HEAD TASK TASK_ITEM, "t.yaml:8:5:", "task name 'lc' is used twice"},
    {HEAD TASK "seed: 1\nseed: 2\n", "t.yaml:9:1:", "duplicate key 'seed'"},
    {HEAD TASK "warmup: 2s\n", "t.yaml:8:9:", "warmup must be shorter than duration"},
    {HEAD TASK "policy: {plugin: gpreempt, args: [lc]}\n", "t.yaml:8:34:", "policy.args must be a mapping"},
    {HEAD TASK "gpu: {timing: {ctxsw: 0}}\n", "t.yaml:8:23:", "gpu.timing.ctxsw must be greater than 0"},
    {HEAD TASK "gpu: {timing: {warp: 1us}}\n", "t.yaml:8:16:", "unknown key 'warp' in gpu.timing"},
    {HEAD "tasks:\n  - name: lc\n    class: LC\n    arrival: {type: closed, rate: 10}\n"
          "    request: {kernels: [{duration: 5us}]}\n",
     "t.yaml:6:35:", "'rate' is only for periodic and poisson"},
    {HEAD "tasks:\n  - name: lc\n    class: LC\n    arrival: {type: periodic, rate: 10}\n"
          "    request: {kernels: []}\n",
     "t.yaml:7:24:", "request.kernels must list at least 1 item"},
    {HEAD "tasks:\n  - name: lc\n    class: LC\n    arrival: {type: periodic, rate: 10}\n"
          "    request: {kernels: [{duration: 5us, stream: 9}]}\n",
     "t.yaml:7:49:", "kernel.stream must be between 0 and 7"},
    {HEAD "tasks:\n  - name: lc\n    class: LC\n    arrival: {type: periodic, rate: 10}\n"
          "    request: {kernels: [{duration: 5us, shared_kb: 228}]}\n",
     "t.yaml:7:52:", "kernel.shared_kb must be between 0 and 227"},
    {HEAD TASK "expect:\n  - trace_digest: abc\n", "t.yaml:9:19:", "fnv1a64:"},
    {HEAD TASK "clock: wallclock\n", "t.yaml:8:8:", "clock must be one of virtual|realtime"},
    {HEAD TASK "a: &x 1\nb: *x\n", "t.yaml:8:4:", "anchors (&x) are not allowed"},
    /* Tags, aliases and a second document are refused where they are written (they were accepted once). */
    {HEAD TASK "b: *x\n", "t.yaml:8:4:", "aliases are not allowed"},
    {HEAD TASK "seed: !!int 3\n", "t.yaml:8:7:", "tags (tag:yaml.org,2002:int) are not allowed"},
    {HEAD TASK "---\nname: other\n", "t.yaml:8:1:", "one YAML document"},
    /* A task name the 15-byte process name would cut is refused unless comm says what to match. */
    {HEAD "tasks:\n  - name: inference-server-lc\n    class: LC\n    arrival: {type: periodic, rate: 10}\n"
          "    request: {kernels: [{duration: 5us}]}\n",
     "t.yaml:4:11:", "longer than the 15-byte process name"},
    /* A run that would never finish (or fill memory) is refused by check already. */
    {"name: t\nduration: 1000s\ntasks:\n  - name: lc\n    class: LC\n    arrival: {type: periodic, rate: 1e7}\n"
     "    request: {kernels: [{duration: 1us}]}\n",
     "t.yaml:2:11:", "the run would keep about 1e+10 requests"},
    {"name: t\nduration: 1000s\ntasks:\n  - name: be\n    class: BE\n    count: 256\n"
     "    arrival: {type: closed}\n    request: {kernels: [{duration: 1us, repeat: 100}]}\n",
     "t.yaml:2:11:", "requests (rates x duration x count)"},
    /* One duration grammar: exact decimals, sub-ns precision refused. */
    {HEAD "tasks:\n  - name: lc\n    class: LC\n    arrival: {type: periodic, rate: 10}\n"
          "    request: {kernels: [{duration: 1.0001us}]}\n",
     "t.yaml:7:36:", "is finer than 1 ns"},
    {HEAD "tasks: [\n", "t.yaml:4:1:", ""},
};

static void bad_documents_are_refused_at_their_position(void **state)
{
    (void)state;
    int failures = 0;
    for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
        char err[512] = "";
        struct scenario *s = scenario_load_string("t.yaml", bad_cases[i].text, err, sizeof(err));
        if (s || strncmp(err, bad_cases[i].where, strlen(bad_cases[i].where)) != 0 ||
            !strstr(err, bad_cases[i].message)) {
            print_error("case %zu: expected '%s ... %s', got '%s' (%s)\n", i, bad_cases[i].where,
                        bad_cases[i].message, err, s ? "loaded" : "refused");
            scenario_free(s);
            failures++;
        }
    }
    assert_int_equal(failures, 0);
}

static const char good[] =
    "name: good\n"
    "description: all features\n"
    "gpu: {profile: h200, timeslice: 2048us, preempt_mode: cta, timing: {ctxsw: 30us}}\n"
    "seed: 42\n"
    "duration: 2.5s\n"
    "warmup: 100ms\n"
    "baseline: true\n"
    "policy: {plugin: lc_be_timeslice, args: {lc: lc, be: 'be*', hold: 0}}\n"
    "scheduler: {kind: gpreempt, action: preempt, be_timeslice: 2us}\n"
    "tasks:\n"
    "  - name: lc\n"
    "    class: LC\n"
    "    arrival: {type: poisson, rate: 250.5}\n"
    "    request:\n"
    "      preprocess: 200us\n"
    "      kernels:\n"
    "        - {duration: 1.5ms, blocks: 264, repeat: 3}\n"
    "        - {duration: 100us, stream: 2}\n"
    "  - name: be\n"
    "    class: BE\n"
    "    count: 4\n"
    "    arrival: {type: closed, think: 0}\n"
    "    request: {kernels: [{duration: 10ms, blocks: 1024}]}\n"
    "faults:\n"
    "  - {type: client_kill, at: 1s, task: be, replica: 3}\n"
    "expect:\n"
    "  - latency: {task: lc, stat: p99, max: 5ms, max_vs_alone: 1.3}\n"
    "  - throughput: {task: be, min_vs_alone: 0.5}\n"
    "  - preemptions: {min: 1}\n"
    "  - no_starvation: true\n"
    "  - decision: {hook: timeslice_set, result: apply}\n"
    "  - lost: {max: 0}\n";

static void good_document_loads_every_field(void **state)
{
    (void)state;
    char err[512] = "";
    struct scenario *s = scenario_load_string("good.yaml", good, err, sizeof(err));
    if (!s)
        print_error("%s\n", err);
    assert_non_null(s);
    assert_string_equal(s->name, "good");
    assert_int_equal(s->seed, 42);
    assert_int_equal(s->duration_ns, 2500000000ull);
    assert_int_equal(s->warmup_ns, 100000000ull);
    assert_int_equal(s->gpu.timeslice_us, 2048);
    assert_int_equal(s->gpu.preempt_mode, SC_PREEMPT_CTA);
    assert_true(s->gpu.timing[SC_T_CTXSW].set);
    assert_int_equal(s->gpu.timing[SC_T_CTXSW].value_ns, 30000);
    assert_string_equal(s->policy.plugin, "lc_be_timeslice");
    assert_int_equal(s->policy.args.n, 3);
    assert_string_equal(s->policy.args.v[1].name, "be");
    assert_string_equal(s->policy.args.v[1].value, "be*");
    assert_int_equal(s->scheduler.kind, SC_SCHED_GPREEMPT);
    assert_int_equal(s->scheduler.action, SC_SCHED_PREEMPT);
    assert_int_equal(s->scheduler.lc_timeslice_us, 1000000);
    assert_int_equal(s->scheduler.be_timeslice_us, 2);
    assert_int_equal(s->task_count, 2);
    assert_int_equal(s->tasks[0].arrival, SC_ARRIVAL_POISSON);
    assert_true(s->tasks[0].rate > 250.4 && s->tasks[0].rate < 250.6);
    assert_int_equal(s->tasks[0].preprocess_ns, 200000);
    assert_int_equal(s->tasks[0].kernel_count, 2);
    assert_int_equal(s->tasks[0].kernels[0].duration_ns, 1500000);
    assert_int_equal(s->tasks[0].kernels[0].repeat, 3);
    assert_int_equal(s->tasks[0].streams, 3);
    assert_string_equal(s->tasks[1].comm, "be");
    assert_int_equal(s->tasks[1].count, 4);
    assert_int_equal(s->tasks[1].arrival, SC_ARRIVAL_CLOSED);
    assert_int_equal(s->fault_count, 1);
    assert_int_equal(s->faults[0].replica, 3);
    assert_int_equal(s->expect_count, 6);
    assert_true(s->expects[0].has_max && s->expects[0].has_ratio_max);
    assert_int_equal((uint64_t)s->expects[0].max, 5000000);
    assert_true(s->expects[1].has_ratio_min && !s->expects[1].has_min);
    assert_string_equal(s->expects[2].engine, "GR0");
    assert_string_equal(s->expects[4].result, "apply");
    assert_int_equal(s->expects[4].min, 1);
    char label[160];
    scenario_expect_label(s, &s->expects[0], label, sizeof(label));
    assert_string_equal(label, "lc latency p99 <= 5.000 ms and <= 1.3x alone");
    scenario_free(s);
}

static void missing_file_is_refused_naming_it(void **state)
{
    (void)state;
    char err[256];
    assert_null(scenario_load("/nonexistent/x.yaml", err, sizeof(err)));
    assert_non_null(strstr(err, "/nonexistent/x.yaml"));
}

/* gpu overrides reach the profile loader as overrides of its own keys, checked like the file's values. */
static void gpu_overrides_reach_the_profile_as_its_keys(void **state)
{
    (void)state;
    char err[512] = "";
    struct scenario *s = scenario_load_string("g.yaml",
        HEAD TASK "gpu: {timeslice: 4096us, preempt_mode: cta, timing: {ctxsw: 100us, cilp_save: 1.5us}}\n",
        err, sizeof(err));
    if (!s)
        print_error("%s\n", err);
    assert_non_null(s);
    char set[SC_GPU_MAX_SET][SC_GPU_SET_LEN];
    const char *ptr[SC_GPU_MAX_SET];
    int n = sc_gpu_profile_set(&s->gpu, set);
    assert_int_equal(n, 4);
    for (int i = 0; i < n; i++)
        ptr[i] = set[i];
    struct profile *p = profile_load_set(s->gpu.profile, ptr, n, err, sizeof(err));
    if (!p)
        print_error("%s\n", err);
    assert_non_null(p);
    struct profile *base = profile_load("h200", err, sizeof(err));
    assert_non_null(base);
    assert_int_equal(p->default_timeslice_us, 4096);
    assert_int_equal(p->default_compute_preempt_mode, 1);
    assert_int_equal(p->timing.ctxsw_ns, 100000);
    assert_int_equal(p->timing.cilp_save_ns, 1500);
    assert_int_equal(p->timing.wfi_overhead_ns, base->timing.wfi_overhead_ns);
    assert_int_equal(p->engine_count, base->engine_count);
    assert_string_equal(p->name, base->name);
    profile_free(base);
    profile_free(p);
    scenario_free(s);

    /* Nothing to override: no strings; an unknown profile is named in the message. */
    s = scenario_load_string("g.yaml", HEAD TASK "gpu: {profile: nosuch}\n", err, sizeof(err));
    assert_non_null(s);
    assert_int_equal(sc_gpu_profile_set(&s->gpu, set), 0);
    assert_null(profile_load_set(s->gpu.profile, NULL, 0, err, sizeof(err)));
    assert_non_null(strstr(err, "nosuch"));
    scenario_free(s);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Trace arrivals: offsets with units, comments and blank lines; out-of-order lines refused where they are. */
static void trace_arrivals_take_units_and_refuse_disorder(void **state)
{
    (void)state;
    char dir[] = "/tmp/nvemu-sc-trace-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char arrivals[256], yaml[256], err[512];
    snprintf(arrivals, sizeof(arrivals), "%s/arrivals.txt", dir);
    snprintf(yaml, sizeof(yaml), "%s/t.yaml", dir);
    write_file(arrivals, "# recorded arrivals\n0\n1.5ms\n\n2ms  # burst\n2ms\n10ms\n");
    write_file(yaml, HEAD "tasks:\n  - name: lc\n    class: LC\n    arrival: {type: trace, file: arrivals.txt}\n"
                     "    request: {kernels: [{duration: 1ms}]}\n");
    struct scenario *s = scenario_load(yaml, err, sizeof(err));
    if (!s)
        print_error("%s\n", err);
    assert_non_null(s);
    assert_int_equal(s->tasks[0].arrival, SC_ARRIVAL_TRACE);
    assert_int_equal(s->tasks[0].trace_count, 5);
    assert_int_equal(s->tasks[0].trace_ns[1], 1500000);
    assert_int_equal(s->tasks[0].trace_ns[4], 10000000);
    scenario_free(s);

    write_file(arrivals, "1ms\n3ms\n2ms\n");
    assert_null(scenario_load(yaml, err, sizeof(err)));
    char want[300];
    snprintf(want, sizeof(want), "%s:3:1: arrivals must be in time order", arrivals);
    assert_string_equal(err, want);

    write_file(arrivals, "1ms\nsoon\n");
    assert_null(scenario_load(yaml, err, sizeof(err)));
    snprintf(want, sizeof(want), "%s:2:1: arrival 'soon' is not a duration", arrivals);
    assert_non_null(strstr(err, want));

    unlink(arrivals);
    assert_null(scenario_load(yaml, err, sizeof(err)));
    assert_non_null(strstr(err, "t.yaml:6:34: cannot open arrival trace"));
    unlink(yaml);
    rmdir(dir);
}

/* Text of n copies of `unit` between head and tail. */
static char *repeat(const char *head, const char *unit, size_t n, const char *tail)
{
    size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail);
    char *t = malloc(hl + ul * n + tl + 1);
    assert_non_null(t);
    memcpy(t, head, hl);
    for (size_t i = 0; i < n; i++)
        memcpy(t + hl + i * ul, unit, ul);
    memcpy(t + hl + ul * n, tail, tl + 1);
    return t;
}

static void expect_refused(const char *text, const char *want)
{
    char err[512] = "";
    struct scenario *s = scenario_load_string("h.yaml", text, err, sizeof(err));
    if (s || !strstr(err, want))
        print_error("expected '%s', got '%s'\n", want, err);
    assert_null(s);
    assert_non_null(strstr(err, want));
}

/*
 * Hostile documents: 50,000 levels of flow or block nesting (once a stack
 * overflow, and quadratic in libyaml's scanner), a mapping of 100,000 keys
 * (200,000 once took 91 s of duplicate checks) are refused at the first level or key past
 * the limit, with its position.
 */
static void hostile_documents_are_refused_at_the_first_level(void **state)
{
    (void)state;
    char *t = repeat("name: [", "[", 50000, "");
    expect_refused(t, "h.yaml:1:38: nested deeper than 32 levels");
    free(t);
    t = repeat("name: ", "{a: ", 50000, "");
    expect_refused(t, "nested deeper than 32 levels");
    free(t);
    size_t n = 50000;
    char *block = malloc(n * (n < 100 ? n : 100) + 64);
    assert_non_null(block);
    size_t off = 0;
    for (size_t i = 0; i < 100; i++) {
        memset(block + off, ' ', i);
        off += i;
        off += (size_t)sprintf(block + off, "k:\n");
    }
    block[off] = 0;
    expect_refused(block, "nested deeper than 32 levels");
    free(block);
    char *keys = malloc(100000 * 16 + 1);
    assert_non_null(keys);
    off = 0;
    for (int i = 0; i < 100000; i++)
        off += (size_t)sprintf(keys + off, "k%d: 1\n", i);
    expect_refused(keys, "h.yaml:1025:1: more than 1024 keys in one mapping");
    free(keys);
}

/* What FILE may be: a directory, a FIFO and an oversized file are refused without reading them. */
static void directory_fifo_and_oversized_files_are_refused_unread(void **state)
{
    (void)state;
    char dir[] = "/tmp/nvemu-sc-kinds-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[300], err[512];
    assert_null(scenario_load(dir, err, sizeof(err)));
    assert_non_null(strstr(err, "is a directory"));
    snprintf(path, sizeof(path), "%s/fifo.yaml", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_null(scenario_load(path, err, sizeof(err)));
    assert_non_null(strstr(err, "is a FIFO"));
    unlink(path);
    /* 106 MB, sparse: refused from its size, not read */
    snprintf(path, sizeof(path), "%s/big.yaml", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(ftruncate(fileno(f), 106 << 20), 0);
    fclose(f);
    assert_null(scenario_load(path, err, sizeof(err)));
    assert_non_null(strstr(err, "big.yaml:1:1: 111149056 bytes; a data file may hold at most 1048576"));
    unlink(path);
    rmdir(dir);
}

/* An arrival trace that is a device or a FIFO is refused (/dev/zero once looped forever). */
static void device_or_fifo_arrival_trace_is_refused(void **state)
{
    (void)state;
    char err[512];
    assert_null(scenario_load_string("z.yaml",
                                     HEAD "tasks:\n  - name: lc\n    class: LC\n    arrival: {type: trace, file: "
                                          "/dev/zero}\n    request: {kernels: [{duration: 1ms}]}\n",
                                     err, sizeof(err)));
    assert_non_null(strstr(err, "z.yaml:6:34: cannot open arrival trace /dev/zero: is not a regular file"));
}

/* Overrides reach the tree before validation and are checked like the file's values. */
static void overrides_are_checked_like_the_files_values(void **state)
{
    (void)state;
    char err[512];
    const char *text = HEAD "tasks:\n" TASK_ITEM "  - name: be\n    class: BE\n    arrival: {type: closed}\n"
                            "    request: {kernels: [{duration: 1ms}]}\n"
                            "policy: {plugin: lc_be_timeslice, args: {lc: lc}}\n";
    const char *set[] = {"tasks.be.count=4", "policy.args.be_us=200", "tasks.0.arrival.rate=50", "duration=2s"};
    struct scenario *s = scenario_load_set("o.yaml", text, strlen(text), set, 4, err, sizeof(err));
    if (!s)
        print_error("%s\n", err);
    assert_non_null(s);
    assert_int_equal(s->tasks[1].count, 4);
    assert_int_equal(s->policy.args.n, 2);
    assert_string_equal(s->policy.args.v[1].name, "be_us");
    assert_string_equal(s->policy.args.v[1].value, "200");
    assert_true(s->tasks[0].rate == 50);
    assert_int_equal(s->duration_ns, 2000000000ull);
    scenario_free(s);
    const char *bad[] = {"tasks.be.count=0"};
    assert_null(scenario_load_set("o.yaml", text, strlen(text), bad, 1, err, sizeof(err)));
    assert_non_null(strstr(err, "o.yaml:8:5: task.count must be between 1 and 256, not 0 (value set by an override)"));
    const char *missing[] = {"tasks.nobody.count=2"};
    assert_null(scenario_load_set("o.yaml", text, strlen(text), missing, 1, err, sizeof(err)));
    assert_non_null(strstr(err, "no 'nobody'"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_documents_are_refused_at_their_position),
        cmocka_unit_test(good_document_loads_every_field),
        cmocka_unit_test(missing_file_is_refused_naming_it),
        cmocka_unit_test(gpu_overrides_reach_the_profile_as_its_keys),
        cmocka_unit_test(trace_arrivals_take_units_and_refuse_disorder),
        cmocka_unit_test(hostile_documents_are_refused_at_the_first_level),
        cmocka_unit_test(directory_fifo_and_oversized_files_are_refused_unread),
        cmocka_unit_test(device_or_fifo_arrival_trace_is_refused),
        cmocka_unit_test(overrides_are_checked_like_the_files_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
