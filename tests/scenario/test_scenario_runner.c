/*
 * The runner end to end (sc_run on scenarios given as text), checked on the
 * raw event trace it writes (CSV: seq,t,kind,gpu,engine,runlist,tsg,chid,a,b,...):
 *  - the in-process scheduler waits out the virtual time its control calls
 *    cost: with injected latencies, its DISABLE_CHANNELS on the second BE
 *    group comes one control latency (the profile's) after the first.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/emulator.h"
#include "nvemu/nvemu.h"
#include "profile/profile.h"
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scheduler_waits_out_call_cost),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
