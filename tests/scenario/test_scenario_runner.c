/*
 * The runner end to end (sc_run on scenarios given as text), checked on the
 * raw event trace it writes (CSV: seq,t,kind,gpu,engine,runlist,tsg,chid,a,b,...):
 *  - the in-process scheduler waits out the virtual time its control calls
 *    cost: with injected latencies, its DISABLE_CHANNELS on the second BE
 *    group comes one control latency (the profile's) after the first;
 *  - a busy_retry storm: the scheduler's PREEMPTs answer BUSY_RETRY only
 *    inside the storm, are retried every 100 us, no preemption goes out
 *    meanwhile and LC requests wait for BE's (unexpired) timeslice;
 *  - gpu_lost: what is in flight and every later arrival is reported
 *    failed at once, nothing completes afterwards, nothing is lost;
 *  - runs alone kept across scenarios that differ only in the policy's
 *    arguments are reused, and give the numbers a fresh run alone gives;
 *  - every hook decision names the task whose channel group it concerns
 *    (results and trace.json), and trace.json holds each request's span
 *    with named arguments;
 *  - a kernel's launch_gap holds its launch back that long after the one
 *    before (a launch-bound request lasts its gaps), and costs nothing
 *    while the kernels launched before still occupy the GPU;
 *  - cpu_spread draws each request's CPU time around the written one (same
 *    median, wider p99), from the seed, without moving arrivals.
 */
#include <math.h>
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

#include "core/emulator.h"
#include "fifo/fifo.h"
#include "nvemu/nvemu.h"
#include "profile/profile.h"
#include "report.h"
#include "results.h"
#include "runner.h"
#include "scenario.h"

struct rec {
    uint64_t t;
    char kind[24];
    uint32_t tsg;
    uint64_t a, b;
    char name[32];
};

struct trace {
    struct rec *r;
    size_t n;
};

static uint32_t parse_id(const char *s)
{
    return s[0] == '-' || s[0] == '\0' ? 0xFFFFFFFFu : (uint32_t)strtoul(s, NULL, 0);
}

/* Reads the CSV the runner wrote (header line skipped when present). */
static void load_trace(const char *path, struct trace *tr)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t cap = 0;
    char line[512];
    memset(tr, 0, sizeof(*tr));
    while (fgets(line, sizeof(line), f)) {
        char *fld[14] = {0};
        int nf = 0;
        for (char *p = line, *tok; nf < 14 && (tok = strsep(&p, ",\n")) != NULL;)
            fld[nf++] = tok;
        if (nf < 10 || fld[0][0] < '0' || fld[0][0] > '9')
            continue;
        if (tr->n == cap) {
            cap = cap ? cap * 2 : 1024;
            tr->r = realloc(tr->r, cap * sizeof(*tr->r));
            assert_non_null(tr->r);
        }
        struct rec *r = &tr->r[tr->n++];
        memset(r, 0, sizeof(*r));
        r->t = strtoull(fld[1], NULL, 10);
        snprintf(r->kind, sizeof(r->kind), "%s", fld[2]);
        r->tsg = parse_id(fld[6]);
        r->a = strtoull(fld[8], NULL, 10);
        r->b = strtoull(fld[9], NULL, 10);
        if (nf > 10)
            snprintf(r->name, sizeof(r->name), "%s", fld[10]);
    }
    fclose(f);
}

/* Runs `text` with the raw trace written to a temporary file; returns sc_run's result. */
static int run_text(const char *text, struct sc_results *res, struct trace *tr, struct scenario **scp)
{
    char err[512] = "";
    struct scenario *sc = scenario_load_string("unit.yaml", text, err, sizeof(err));
    if (!sc)
        print_error("%s\n", err);
    assert_non_null(sc);
    char csv[] = "/tmp/nvemu-sc-runner-XXXXXX";
    int fd = mkstemp(csv);
    assert_true(fd >= 0);
    close(fd);
    struct sc_run_opts o = {.trace_csv = csv};
    int rc = sc_run(sc, &o, res, err, sizeof(err));
    if (rc)
        print_message("sc_run: %s\n", err);
    load_trace(csv, tr);
    unlink(csv);
    *scp = sc;
    return rc;
}

/* The profile's latency of a plain control (what DISABLE_CHANNELS is charged with). */
static uint64_t profile_control_latency(void)
{
    nvemu_config cfg;
    nvemu_config_init(&cfg);
    char err[256];
    nvemu *emu = nvemu_create(&cfg, err, sizeof(err));
    assert_non_null(emu);
    uint64_t ns = nvemu_profile(emu)->timing.lat_control_ns;
    nvemu_destroy(emu);
    return ns;
}

static const char sched_latency_text[] =
    "name: sched-latency\n"
    "duration: 30ms\n"
    "gpu: {inject_latency: true}\n"
    "scheduler: {kind: gpreempt, action: disable}\n"
    "tasks:\n"
    "  - {name: lc, class: LC, arrival: {type: periodic, rate: 100, start: 5ms},\n"
    "     request: {kernels: [{duration: 100us}]}}\n"
    "  - {name: be, class: BE, count: 3, arrival: {type: closed}, request: {kernels: [{duration: 1ms}]}}\n";

static void test_scheduler_waits_out_call_cost(void **state)
{
    (void)state;
    uint64_t lat = profile_control_latency();
    assert_true(lat > 0);
    struct sc_results res;
    struct trace tr;
    struct scenario *sc;
    assert_int_equal(run_text(sched_latency_text, &res, &tr, &sc), 0);
    /* The first burst of DISABLE records (one per BE channel), grouped by channel group in order. */
    uint32_t tsg[3];
    uint64_t at[3];
    int groups = 0;
    for (size_t i = 0; i < tr.n && groups < 3; i++) {
        if (strcmp(tr.r[i].kind, "disable") != 0)
            continue;
        if (groups && tr.r[i].tsg == tsg[groups - 1])
            continue;
        tsg[groups] = tr.r[i].tsg;
        at[groups] = tr.r[i].t;
        groups++;
    }
    assert_int_equal(groups, 3);
    assert_true(at[0] >= 5000000);
    /* One control at a time: each BE group's call is issued when the previous one returned. */
    assert_int_equal(at[1] - at[0], lat);
    assert_int_equal(at[2] - at[1], lat);
    assert_int_not_equal(tsg[0], tsg[1]);
    assert_int_not_equal(tsg[1], tsg[2]);
    free(tr.r);
    sc_results_free(&res);
    scenario_free(sc);
}

static bool is_mark(const struct rec *r, const char *name)
{
    return strcmp(r->kind, "mark") == 0 && strcmp(r->name, name) == 0;
}

/* Arrival time of request (inst, num), or UINT64_MAX. */
static uint64_t arrival_of(const struct trace *tr, uint64_t inst, uint64_t num)
{
    for (size_t i = 0; i < tr->n; i++)
        if (is_mark(&tr->r[i], SC_MARK_ARRIVE) && tr->r[i].a == inst && tr->r[i].b == num)
            return tr->r[i].t;
    return UINT64_MAX;
}

/* Mean latency of instance inst's requests that arrived in [t0, t1) and completed. */
static double mean_latency(const struct trace *tr, uint64_t inst, uint64_t t0, uint64_t t1, unsigned *n)
{
    double sum = 0;
    *n = 0;
    for (size_t i = 0; i < tr->n; i++) {
        if (!is_mark(&tr->r[i], SC_MARK_DONE) || tr->r[i].a != inst)
            continue;
        uint64_t at = arrival_of(tr, inst, tr->r[i].b);
        if (at >= t0 && at < t1) {
            sum += (double)(tr->r[i].t - at);
            (*n)++;
        }
    }
    return *n ? sum / *n : 0;
}

static const char storm_text[] =
    "name: storm\n"
    "duration: 300ms\n"
    "scheduler: {kind: gpreempt, action: preempt, be_timeslice: 20ms}\n"
    "tasks:\n"
    "  - {name: lc, class: LC, arrival: {type: periodic, rate: 200},\n"
    "     request: {kernels: [{duration: 100us, repeat: 4}]}}\n"
    "  - {name: be, class: BE, arrival: {type: closed}, request: {kernels: [{duration: 1ms, repeat: 200}]}}\n"
    "faults:\n"
    "  - {type: busy_retry, at: 100ms, duration: 50ms}\n";

static void test_busy_retry_storm_retries_every_100us_and_delays_lc(void **state)
{
    (void)state;
    const uint64_t t0 = 100000000, t1 = 150000000, backoff = 100000;
    struct sc_results res;
    struct trace tr;
    struct scenario *sc;
    assert_int_equal(run_text(storm_text, &res, &tr, &sc), 0);
    uint64_t retries = 0, last = 0, control_preempts_in = 0, control_preempts_out = 0;
    for (size_t i = 0; i < tr.n; i++) {
        const struct rec *r = &tr.r[i];
        if (is_mark(r, SC_MARK_BUSY_RETRY)) {
            assert_true(r->t >= t0 && r->t <= t1 + backoff);
            if (retries)
                assert_true(r->t - last >= backoff);
            last = r->t;
            retries++;
        } else if (strcmp(r->kind, "preempt_req") == 0 && r->a == FIFO_CAUSE_PREEMPT) {
            if (r->t > t0 && r->t < t1)
                control_preempts_in++;
            else
                control_preempts_out++;
        }
    }
    /* One call in retry at a time, every 100 us for the whole storm. */
    assert_in_range(retries, (t1 - t0) / backoff - 2, (t1 - t0) / backoff + 1);
    assert_int_equal(res.busy_retries, retries);
    assert_int_equal(control_preempts_in, 0);
    assert_true(control_preempts_out > 10);
    /*
     * LC requests arriving during the storm wait for BE's timeslice instead of a preemption.
     * The H200 model lets a runnable group take the engine at once from a lone group whose
     * slice has run out (fixtures/hw/h200-580.159.04 lc-be.txt), so BE gets a 20 ms slice that
     * has not run out (be_timeslice) and a 200 ms request (never idle during the storm): LC
     * then gets the engine only when that slice ends. LC goes idle between its requests, so
     * BE starts a fresh 20 ms slice after each one: at most one LC request per slice while
     * they arrive every 5 ms. A storm request therefore waits on average at least half a
     * slice (10 ms) more than before, where the PREEMPT gave LC the engine after one CILP
     * save + switch (~0.6 ms latency in all).
     */
    unsigned n_in, n_before;
    double in = mean_latency(&tr, 0, t0, t1 - 5000000, &n_in);
    double before = mean_latency(&tr, 0, 0, t0, &n_before);
    print_message("lc mean latency: %.0f ns before the storm (%u), %.0f ns in it (%u)\n", before, n_before, in, n_in);
    assert_true(n_in >= 5 && n_before >= 10);
    assert_true(in > before + 10000000.0);
    free(tr.r);
    sc_results_free(&res);
    scenario_free(sc);
}

static const char lost_text[] =
    "name: lost\n"
    "duration: 100ms\n"
    "tasks:\n"
    "  - {name: lc, class: LC, arrival: {type: periodic, rate: 200},\n"
    "     request: {preprocess: 200us, kernels: [{duration: 100us, repeat: 4}]}}\n"
    "  - {name: be, class: BE, count: 2, arrival: {type: closed}, request: {kernels: [{duration: 1ms, repeat: 5}]}}\n"
    "faults:\n"
    "  - {type: gpu_lost, at: 50ms}\n";

static void test_gpu_lost_ends_every_request_exactly_once(void **state)
{
    (void)state;
    const uint64_t at = 50000000;
    struct sc_results res;
    struct trace tr;
    struct scenario *sc;
    assert_int_equal(run_text(lost_text, &res, &tr, &sc), 0);
    size_t lost_marks = 0, arrivals = 0, fails_after = 0;
    for (size_t i = 0; i < tr.n; i++) {
        const struct rec *r = &tr.r[i];
        if (is_mark(r, SC_MARK_GPU_LOST)) {
            assert_int_equal(r->t, at);
            lost_marks++;
        }
        if (is_mark(r, SC_MARK_DONE))
            assert_true(r->t < at);
        if (!is_mark(r, SC_MARK_ARRIVE))
            continue;
        /* Every request ends exactly once: done, failed or in flight at the end. */
        arrivals++;
        size_t ends = 0;
        for (size_t j = i + 1; j < tr.n; j++) {
            const struct rec *e = &tr.r[j];
            if (e->a != r->a || e->b != r->b)
                continue;
            if (is_mark(e, SC_MARK_FAIL)) {
                ends++;
                /* In flight at the loss: failed at the loss; later: failed when it arrives. */
                assert_int_equal(e->t, r->t >= at ? r->t : at);
                fails_after += r->t >= at;
            } else if (is_mark(e, SC_MARK_DONE) || is_mark(e, SC_MARK_OPEN)) {
                ends++;
            }
        }
        assert_int_equal(ends, 1);
    }
    assert_int_equal(lost_marks, 1);
    /* lc arrives every 5 ms: 10 arrivals from 50 ms on fail when they come. */
    assert_int_equal(fails_after, 10);
    assert_true(arrivals > 20);
    assert_true(res.gpu_lost);
    assert_int_equal(res.gpu_lost_ns, at);
    assert_int_equal(res.tasks[0].lost + res.tasks[1].lost, 0);
    /* be's closed loops give up: each had one request in flight. */
    assert_int_equal(res.tasks[1].failed, 2);
    free(tr.r);
    sc_results_free(&res);
    scenario_free(sc);
}

static const char decisions_text[] =
    "name: decisions\n"
    "duration: 30ms\n"
    "policy: {plugin: gpreempt, args: {lc: lc, be: be}}\n"
    "tasks:\n"
    "  - {name: lc, class: LC, arrival: {type: periodic, rate: 200}, request: {kernels: [{duration: 100us}]}}\n"
    "  - {name: be, class: BE, count: 2, arrival: {type: closed}, request: {kernels: [{duration: 1ms}]}}\n";


static void test_decisions_name_their_task(void **state)
{
    (void)state;
    struct sc_results res;
    struct trace tr;
    struct scenario *sc;
    assert_int_equal(run_text(decisions_text, &res, &tr, &sc), 0);
    /* gpreempt sets LC's groups to 1,000,000 us and BE's to 1 us at task_init: one apply per compute group */
    uint64_t applied[2] = {0, 0};
    for (size_t i = 0; i < res.decision_count; i++) {
        const struct sc_decision *d = &res.decisions[i];
        if (strcmp(d->hook, "task_init") == 0) {
            assert_true(d->task == 0 || d->task == 1);
            if (strcmp(d->field, "timeslice") == 0 && strcmp(d->result, "apply") == 0)
                applied[d->task] += d->count;
        }
    }
    assert_int_equal(applied[0], 1);
    assert_int_equal(applied[1], 2);
    size_t seen = 0;
    for (size_t i = 0; i < res.hook_count; i++) {
        const struct sc_hook_event *h = &res.hooks[i];
        const struct sc_decision *d = &res.decisions[h->decision];
        if (strcmp(d->hook, "task_init") != 0 || strcmp(d->field, "timeslice") != 0 || strcmp(d->result, "apply"))
            continue;
        assert_true(h->inst >= 0 && (uint32_t)h->inst < res.inst_count);
        assert_int_equal(res.inst[h->inst].task, (uint32_t)d->task);
        assert_int_equal(h->value, d->task == 0 ? 1000000 : 1);
        seen++;
    }
    assert_int_equal(seen, 3);
    assert_true(res.request_count >= 6); /* lc: one every 5 ms */

    char dir[] = "/tmp/nvemu-sc-decisions-XXXXXX", path[256], err[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/trace.json", dir);
    assert_int_equal(report_chrome(&res, path, err, sizeof(err)), 0);
    char *text = slurp(path);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    size_t spans = 0, decisions = 0;
    const cJSON *ev;
    cJSON_ArrayForEach(ev, cJSON_GetObjectItem(root, "traceEvents"))
    {
        const char *ph = cJSON_GetObjectItem(ev, "ph")->valuestring;
        const cJSON *args = cJSON_GetObjectItem(ev, "args");
        const cJSON *cat = cJSON_GetObjectItem(ev, "cat");
        if (!cat)
            continue;
        if (strcmp(cat->valuestring, "request") == 0 && strcmp(ph, "b") == 0) {
            assert_true(cJSON_IsString(cJSON_GetObjectItem(args, "task")));
            assert_true(cJSON_IsNumber(cJSON_GetObjectItem(args, "latency_us")));
            spans++;
        }
        if (strcmp(cat->valuestring, "decision") == 0) {
            const cJSON *task = cJSON_GetObjectItem(args, "task"), *hook = cJSON_GetObjectItem(args, "hook");
            assert_non_null(hook);
            assert_non_null(cJSON_GetObjectItem(args, "decision"));
            assert_non_null(cJSON_GetObjectItem(args, "value"));
            if (strcmp(hook->valuestring, "task_init") == 0)
                assert_true(cJSON_IsString(task));
            decisions++;
        }
    }
    assert_int_equal(spans, res.request_count);
    assert_int_equal(decisions, res.hook_count);
    cJSON_Delete(root);
    free(text);
    unlink(path);
    rmdir(dir);
    free(tr.r);
    sc_results_free(&res);
    scenario_free(sc);
}

static const char kept_text[] =
    "name: kept\n"
    "duration: 40ms\n"
    "baseline: true\n"
    "policy: {plugin: gpreempt, args: {lc: lc, be: be, be_us: %s}}\n"
    "tasks:\n"
    "  - {name: lc, class: LC, arrival: {type: poisson, rate: 300}, request: {kernels: [{duration: 200us}]}}\n"
    "  - {name: be, class: BE, arrival: {type: closed}, request: {kernels: [{duration: 1ms}]}}\n";

static void run_kept(const char *be_us, struct sc_baseline_cache *cache, struct sc_results *res)
{
    char text[1024], err[512] = "";
    snprintf(text, sizeof(text), kept_text, be_us);
    struct scenario *sc = scenario_load_string("kept.yaml", text, err, sizeof(err));
    if (!sc)
        print_error("%s\n", err);
    assert_non_null(sc);
    struct sc_run_opts o = {.baselines = cache};
    assert_int_equal(sc_run(sc, &o, res, err, sizeof(err)), 0);
    res->sc = NULL;
    scenario_free(sc);
}

static void test_runs_alone_are_kept(void **state)
{
    (void)state;
    struct sc_baseline_cache *cache = sc_baseline_cache_create();
    assert_non_null(cache);
    struct sc_results first, kept, fresh;
    run_kept("1", cache, &first);
    assert_int_equal(sc_baseline_cache_size(cache), 2);
    run_kept("500", cache, &kept);
    /* the policy's arguments do not change a task's run alone: nothing new to keep */
    assert_int_equal(sc_baseline_cache_size(cache), 2);
    run_kept("500", NULL, &fresh);
    for (uint32_t t = 0; t < 2; t++) {
        const struct sc_task_result *a = &kept.tasks[t], *b = &fresh.tasks[t];
        assert_true(a->has_alone && b->has_alone);
        assert_true(b->alone_completed > 0);
        assert_int_equal(a->alone_completed, b->alone_completed);
        assert_memory_equal(a->alone_lat_ns, b->alone_lat_ns, b->alone_completed * sizeof(uint64_t));
        assert_true(a->alone_p99_ns == b->alone_p99_ns && a->alone_throughput == b->alone_throughput);
        assert_true(a->p99_ns == b->p99_ns);
    }
    assert_int_equal(kept.digest, fresh.digest);
    sc_results_free(&first);
    sc_results_free(&kept);
    sc_results_free(&fresh);
    sc_baseline_cache_free(cache);
}

/* An LC task alone, one 80 us kernel 200 times a second: the completion's spread (%s), the arrivals (%s). */
static const char jitter_text[] =
    "name: host-jitter\n"
    "duration: 1s\n"
    "gpu: {timing: {host_jitter: %s}}\n"
    "tasks:\n"
    "  - {name: lc, class: LC, arrival: {type: %s, rate: 200}, request: {kernels: [{duration: 80us}]}}\n";

static void jitter_run(const char *arrival, const char *spread, struct sc_results *res, struct trace *tr)
{
    char text[sizeof(jitter_text) + 32];
    snprintf(text, sizeof(text), jitter_text, spread, arrival);
    struct scenario *sc;
    assert_int_equal(run_text(text, res, tr, &sc), 0);
    scenario_free(sc);
}

static void jitter_free(struct sc_results *a, struct sc_results *b, struct trace *ta, struct trace *tb)
{
    sc_results_free(a);
    sc_results_free(b);
    free(ta->r);
    free(tb->r);
}

/* The arrival times of a trace, in order; returns how many. */
static size_t arrivals(const struct trace *tr, uint64_t *t, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < tr->n && n < max; i++)
        if (is_mark(&tr->r[i], SC_MARK_ARRIVE))
            t[n++] = tr->r[i].t;
    return n;
}

/* A run with --seed reports that seed, not the file's (results.json, report.html). */
static void test_seed_option_is_the_seed_reported(void **state)
{
    (void)state;
    char err[512] = "";
    char text[sizeof(jitter_text) + 32];
    snprintf(text, sizeof(text), jitter_text, "0us", "poisson");
    struct scenario *sc = scenario_load_string("unit.yaml", text, err, sizeof(err));
    assert_non_null(sc);
    struct sc_run_opts o = {.seed = 7, .has_seed = true};
    struct sc_results res;
    assert_int_equal(sc_run(sc, &o, &res, err, sizeof(err)), 0);
    assert_int_equal(res.seed, 7);
    sc_results_free(&res);
    scenario_free(sc);
}

/*
 * The host's completion spread (profile timing host_jitter) widens a request's latency around the same
 * median, and draws from its own stream: Poisson arrivals are the same with or without it.
 */
static void test_host_jitter_spreads_latency_not_arrivals(void **state)
{
    (void)state;
    static uint64_t ta[512], tb[512];
    struct sc_results flat, spread;
    struct trace tf, ts;
    jitter_run("periodic", "0us", &flat, &tf);
    jitter_run("periodic", "2500ns", &spread, &ts);
    const struct sc_task_result *a = &flat.tasks[0], *b = &spread.tasks[0];
    assert_true(a->completed > 150 && a->completed == b->completed);
    assert_true(a->p99_ns == a->p50_ns);
    /* a logistic of scale 2.5 us: p99 about 11.5 us above the median, which moves by less than 1 us */
    assert_true(b->p99_ns - b->p50_ns > 8000 && b->p99_ns - b->p50_ns < 16000);
    assert_true(fabs(b->p50_ns - a->p50_ns) < 1000);
    jitter_free(&flat, &spread, &tf, &ts);
    jitter_run("poisson", "0us", &flat, &tf);
    jitter_run("poisson", "2500ns", &spread, &ts);
    size_t na = arrivals(&tf, ta, 512), nb = arrivals(&ts, tb, 512);
    assert_true(na > 150);
    assert_int_equal(na, nb);
    assert_memory_equal(ta, tb, na * sizeof(*ta));
    jitter_free(&flat, &spread, &tf, &ts);
}

/* An LC task alone, ten kernels of %s a request, each launched %s after the one before. */
static const char gap_text[] =
    "name: launch-gaps\n"
    "duration: 300ms\n"
    "tasks:\n"
    "  - {name: lc, class: LC, arrival: {type: periodic, rate: 100},\n"
    "     request: {kernels: [{duration: %s, repeat: 10, launch_gap: %s}]}}\n";

static double gap_p50(const char *duration, const char *gap)
{
    char text[sizeof(gap_text) + 64];
    snprintf(text, sizeof(text), gap_text, duration, gap);
    struct sc_results res;
    struct trace tr;
    struct scenario *sc;
    assert_int_equal(run_text(text, &res, &tr, &sc), 0);
    assert_true(res.tasks[0].completed >= 25);
    double p50 = res.tasks[0].p50_ns;
    sc_results_free(&res);
    free(tr.r);
    scenario_free(sc);
    return p50;
}

static void test_launch_gaps_pace_a_launch_bound_request(void **state)
{
    (void)state;
    /* 10 us kernels 100 us apart: the request lasts its ten gaps (the first after preprocess: 1000 us), not its
       kernels (~180 us back to back, with the profile's per-kernel overheads) */
    double back_to_back = gap_p50("10us", "0us"), paced = gap_p50("10us", "100us");
    print_message("10 us kernels: back to back p50 %.1f us, 100 us apart %.1f us\n", back_to_back / 1e3, paced / 1e3);
    assert_true(paced > 1000e3 && paced < 1100e3);
    assert_true(paced - back_to_back > 750e3);
}

static void test_launch_gaps_under_queued_kernels_cost_nothing(void **state)
{
    (void)state;
    /* 200 us kernels launched 50 us apart: each launch after the first finds the GPU still busy with the ones
       before, so only the first gap (after preprocess) shows */
    double back_to_back = gap_p50("200us", "0us"), paced = gap_p50("200us", "50us");
    print_message("200 us kernels: back to back p50 %.1f us, 50 us apart %.1f us\n", back_to_back / 1e3,
                  paced / 1e3);
    assert_true(back_to_back > 2000e3);
    assert_true(fabs(paced - back_to_back - 50e3) < 5e3);
}

/*
 * An LC task alone (%s arrivals, 100/s, seed %s): a launch-bound request of 500 us preprocess and ten 10 us
 * kernels 100 us apart, its CPU time spread by cpu_spread %s (no host jitter: the spread is all there is).
 */
static const char spread_text[] =
    "name: cpu-spread\n"
    "duration: 2s\n"
    "seed: %s\n"
    "gpu: {timing: {host_jitter: 0us}}\n"
    "tasks:\n"
    "  - {name: lc, class: LC, arrival: {type: %s, rate: 100},\n"
    "     request: {preprocess: 500us, kernels: [{duration: 10us, repeat: 10, launch_gap: 100us}],\n"
    "               cpu_spread: %s}}\n";

static void spread_run(const char *arrival, const char *seed, const char *spread, struct sc_results *res,
                       struct trace *tr)
{
    char text[sizeof(spread_text) + 64];
    snprintf(text, sizeof(text), spread_text, seed, arrival, spread);
    struct scenario *sc;
    assert_int_equal(run_text(text, res, tr, &sc), 0);
    scenario_free(sc);
}

/*
 * cpu_spread draws each request's CPU factor from a log-normal of median 1: the median latency stays, the p99
 * moves up about exp(2.33 sigma) on a request that is all CPU; without it every request takes the same time.
 */
static void test_cpu_spread_widens_latency_around_the_same_median(void **state)
{
    (void)state;
    struct sc_results flat, spread;
    struct trace tf, ts;
    spread_run("periodic", "1", "0", &flat, &tf);
    spread_run("periodic", "1", "0.2", &spread, &ts);
    const struct sc_task_result *a = &flat.tasks[0], *b = &spread.tasks[0];
    print_message("cpu_spread 0: p50 %.1f p99 %.1f us; 0.2: p50 %.1f p99 %.1f us\n", a->p50_ns / 1e3,
                  a->p99_ns / 1e3, b->p50_ns / 1e3, b->p99_ns / 1e3);
    assert_true(a->completed > 150 && a->completed == b->completed);
    assert_true(a->p99_ns == a->p50_ns);
    assert_true(fabs(b->p50_ns / a->p50_ns - 1) < 0.05);
    /* about 1.5 ms of CPU: exp(2.33 * 0.2) = 1.59 at the p99 */
    assert_true(b->p99_ns / b->p50_ns > 1.35 && b->p99_ns / b->p50_ns < 1.8);
    jitter_free(&flat, &spread, &tf, &ts);
}

/*
 * The draws are the seed's: the same seed gives the same trace, another seed (periodic arrivals, no other
 * draw) other latencies; Poisson arrivals are the same with or without the spread.
 */
static void test_cpu_spread_is_the_seeds_and_leaves_arrivals(void **state)
{
    (void)state;
    static uint64_t ta[512], tb[512];
    struct sc_results one, again, other, flat;
    struct trace t1, t2, t3, t4;
    spread_run("periodic", "1", "0.2", &one, &t1);
    spread_run("periodic", "1", "0.2", &again, &t2);
    spread_run("periodic", "2", "0.2", &other, &t3);
    assert_int_equal(one.digest, again.digest);
    assert_int_equal(one.tasks[0].completed, again.tasks[0].completed);
    assert_memory_equal(one.tasks[0].lat_ns, again.tasks[0].lat_ns, one.tasks[0].completed * sizeof(uint64_t));
    assert_true(one.digest != other.digest);
    assert_true(one.tasks[0].p99_ns != other.tasks[0].p99_ns);
    jitter_free(&one, &again, &t1, &t2);
    sc_results_free(&other);
    free(t3.r);
    spread_run("poisson", "1", "0.2", &one, &t1);
    spread_run("poisson", "1", "0", &flat, &t4);
    size_t na = arrivals(&t1, ta, 512), nb = arrivals(&t4, tb, 512);
    assert_true(na > 150);
    assert_int_equal(na, nb);
    assert_memory_equal(ta, tb, na * sizeof(*ta));
    assert_true(one.tasks[0].p99_ns != flat.tasks[0].p99_ns);
    jitter_free(&one, &flat, &t1, &t4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_launch_gaps_pace_a_launch_bound_request),
        cmocka_unit_test(test_launch_gaps_under_queued_kernels_cost_nothing),
        cmocka_unit_test(test_cpu_spread_widens_latency_around_the_same_median),
        cmocka_unit_test(test_cpu_spread_is_the_seeds_and_leaves_arrivals),
        cmocka_unit_test(test_scheduler_waits_out_call_cost),
        cmocka_unit_test(test_busy_retry_storm_retries_every_100us_and_delays_lc),
        cmocka_unit_test(test_gpu_lost_ends_every_request_exactly_once),
        cmocka_unit_test(test_decisions_name_their_task),
        cmocka_unit_test(test_runs_alone_are_kept),
        cmocka_unit_test(test_host_jitter_spreads_latency_not_arrivals),
        cmocka_unit_test(test_seed_option_is_the_seed_reported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
