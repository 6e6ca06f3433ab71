/*
 * Policies inside the emulator, driven by the CUDA-shaped context over
 * libnvrm's in-process transport:
 * - libcuda's SET_TIMESLICE 2048 after creation defeats a task_init-only
 *   policy (lc_be_timeslice hold=0) and timeslice_set keeps the policy's
 *   value (hold=1);
 * - gpreempt's values reach the channel groups;
 * - admission turns the second LC context's GPFIFO_SCHEDULE into BUSY_RETRY;
 * - a policy that fails to load makes nvemu_create fail with a clear reason.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/emulator.h"
#include "cudactx.h"
#include "nvrm_inproc.h"
#include "fifo/fifo_rec.h"
#include "sim/sim.h"

#define SO(name) NVEMU_POLICY_DIR "/" name ".so"

struct hookrec {
    char hook[24], field[16], result[8], reason[96];
    uint64_t value;
};

struct env {
    nvemu *emu;
    nvemu_fdtable *table;
    struct hookrec rec[512];
    int nrec;
};

static void on_trace(void *ctx, const struct sim_rec *r)
{
    struct env *e = ctx;
    if (r->kind != SIM_REC_HOOK || e->nrec >= 512)
        return;
    struct hookrec *h = &e->rec[e->nrec++];
    snprintf(h->hook, sizeof h->hook, "%s", r->name ? r->name : "");
    snprintf(h->field, sizeof h->field, "%s", r->field ? r->field : "");
    snprintf(h->result, sizeof h->result, "%s", r->result ? r->result : "");
    snprintf(h->reason, sizeof h->reason, "%s", r->reason ? r->reason : "");
    h->value = r->a;
}

static int count(const struct env *e, const char *hook, const char *field, const char *result, uint64_t value)
{
    int n = 0;
    for (int i = 0; i < e->nrec; i++) {
        const struct hookrec *h = &e->rec[i];
        n += strcmp(h->hook, hook) == 0 && strcmp(h->field, field) == 0 && strcmp(h->result, result) == 0 &&
             h->value == value;
    }
    return n;
}

static struct env *start(const char *so, const char *const *args, int nargs)
{
    struct env *e = calloc(1, sizeof *e);
    assert_non_null(e);
    nvemu_config cfg;
    nvemu_config_init(&cfg);
    cfg.policy_path = so;
    cfg.policy_args = args;
    cfg.policy_nargs = nargs;
    char err[512];
    e->emu = nvemu_create(&cfg, err, sizeof err);
    if (!e->emu)
        fail_msg("nvemu_create: %s", err);
    sim_trace_subscribe(nvemu_sim(e->emu), on_trace, e);
    e->table = nvemu_fdtable_create(e->emu, false);
    return e;
}

static void stop(struct env *e)
{
    nvemu_fdtable_destroy(e->table);
    nvemu_destroy(e->emu);
    free(e);
}

/* One "process" named comm with its own connection. */
struct app {
    struct nvrm_inproc ip;
    nvrm *rm;
    struct cudactx ctx;
};

static NV_STATUS app_start(struct env *e, struct app *a, const char *comm, uint64_t libcuda_timeslice)
{
    nvemu_identity who;
    nvemu_identity_self(&who);
    snprintf(who.comm, sizeof who.comm, "%s", comm);
    nvrm_inproc_init(&a->ip, e->table, &who);
    assert_int_equal(nvrm_open(&a->rm, &a->ip.tp), 0);
    struct cudactx_options o;
    cudactx_options_init(&o);
    o.copy_groups = 0;
    o.timeslice_us = libcuda_timeslice;
    char err[256];
    return cudactx_create(a->rm, &o, &a->ctx, err, sizeof err);
}

static void app_stop(struct app *a)
{
    cudactx_destroy(&a->ctx);
    nvrm_close(a->rm);
}

static uint64_t timeslice_of(struct app *a)
{
    uint64_t ts = 0;
    assert_int_equal(nvrm_tsg_get_timeslice(a->rm, a->ctx.hClient, a->ctx.compute.hTsg, &ts), NV_OK);
    return ts;
}

static void test_task_init_only_is_defeated_by_libcuda(void **state)
{
    (void)state;
    const char *args[] = {"lc=lc_app", "hold=0"};
    struct env *e = start(SO("lc_be_timeslice"), args, 2);
    struct app before, after;
    /* without libcuda's SET_TIMESLICE the task_init decision stands */
    assert_int_equal(app_start(e, &before, "lc_app", 0), NV_OK);
    assert_int_equal(timeslice_of(&before), 1000000);
    /* with it, 2048 us wins */
    assert_int_equal(app_start(e, &after, "lc_app", 2048), NV_OK);
    assert_int_equal(timeslice_of(&after), 2048);
    assert_int_equal(count(e, "task_init", "timeslice", "apply", 1000000), 2);
    app_stop(&before);
    app_stop(&after);
    stop(e);
}

static void test_timeslice_set_holds_policy_value(void **state)
{
    (void)state;
    const char *args[] = {"lc=lc_app", "be=be_app"};
    struct env *e = start(SO("lc_be_timeslice"), args, 2);
    struct app lc, be, other;
    assert_int_equal(app_start(e, &lc, "lc_app", 2048), NV_OK);
    assert_int_equal(app_start(e, &be, "be_app", 2048), NV_OK);
    assert_int_equal(app_start(e, &other, "bash", 2048), NV_OK);
    assert_int_equal(timeslice_of(&lc), 1000000);
    assert_int_equal(timeslice_of(&be), 200);
    assert_int_equal(timeslice_of(&other), 2048);
    assert_int_equal(count(e, "timeslice_set", "timeslice", "apply", 1000000), 1);
    assert_int_equal(count(e, "timeslice_set", "timeslice", "apply", 200), 1);
    /* a later SET_TIMESLICE by the application is held too */
    assert_int_equal(nvrm_tsg_set_timeslice(lc.rm, lc.ctx.hClient, lc.ctx.compute.hTsg, 500), NV_OK);
    assert_int_equal(timeslice_of(&lc), 1000000);
    app_stop(&lc);
    app_stop(&be);
    app_stop(&other);
    stop(e);
}

static void gpreempt_plugin_sets_the_emulated_groups_timeslices(void **state)
{
    (void)state;
    const char *args[] = {"lc=rt", "be=be"};
    struct env *e = start(SO("gpreempt"), args, 2);
    struct app rt, be;
    assert_int_equal(app_start(e, &rt, "rt", 2048), NV_OK);
    assert_int_equal(app_start(e, &be, "be", 2048), NV_OK);
    assert_int_equal(timeslice_of(&rt), 1000000);
    assert_int_equal(timeslice_of(&be), 1);
    app_stop(&rt);
    app_stop(&be);
    stop(e);
}

static void admission_plugin_refuses_a_second_lc_context_until_the_first_ends(void **state)
{
    (void)state;
    const char *args[] = {"max_lc=1", "lc=lc*"};
    struct env *e = start(SO("admission"), args, 2);
    struct app a, b, be, b2;
    assert_int_equal(app_start(e, &a, "lc_a", 2048), NV_OK);
    assert_int_equal(app_start(e, &b, "lc_b", 2048), NV_ERR_BUSY_RETRY);
    assert_int_equal(app_start(e, &be, "batch", 2048), NV_OK);
    assert_int_equal(count(e, "bind", "allow", "apply", 0), 1);
    app_stop(&a);
    /* the admitted LC context is gone: the next one is admitted */
    assert_int_equal(app_start(e, &b2, "lc_b", 2048), NV_OK);
    nvrm_close(b.rm);
    app_stop(&be);
    app_stop(&b2);
    stop(e);
}

/* Same calls, same policy => the same event trace, hook decision records included. */
static uint64_t run_digest(void)
{
    const char *args[] = {"lc=lc_app", "be=be_app", "lc_il=2"};
    struct env *e = start(SO("lc_be_timeslice"), args, 3);
    struct app lc, be;
    assert_int_equal(app_start(e, &lc, "lc_app", 2048), NV_OK);
    assert_int_equal(app_start(e, &be, "be_app", 2048), NV_OK);
    app_stop(&lc);
    app_stop(&be);
    assert_true(e->nrec > 0);
    uint64_t d = sim_trace_digest(nvemu_sim(e->emu));
    stop(e);
    return d;
}

static void same_run_gives_the_same_trace_digest(void **state)
{
    (void)state;
    uint64_t a = run_digest(), b = run_digest();
    assert_int_not_equal(a, 0);
    assert_int_equal(a, b);
}

static void test_bad_policy_refused(void **state)
{
    (void)state;
    nvemu_config cfg;
    nvemu_config_init(&cfg);
    const char *args[] = {"bogus=1"};
    cfg.policy_path = SO("lc_be_timeslice");
    cfg.policy_args = args;
    cfg.policy_nargs = 1;
    char err[512] = "";
    assert_null(nvemu_create(&cfg, err, sizeof err));
    assert_non_null(strstr(err, "unknown argument 'bogus'"));
    cfg.policy_path = "/nonexistent.so";
    cfg.policy_nargs = 0;
    assert_null(nvemu_create(&cfg, err, sizeof err));
    assert_non_null(strstr(err, "/nonexistent.so"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_task_init_only_is_defeated_by_libcuda),
        cmocka_unit_test(test_timeslice_set_holds_policy_value),
        cmocka_unit_test(gpreempt_plugin_sets_the_emulated_groups_timeslices),
        cmocka_unit_test(admission_plugin_refuses_a_second_lc_context_until_the_first_ends),
        cmocka_unit_test(same_run_gives_the_same_trace_digest),
        cmocka_unit_test(test_bad_policy_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
