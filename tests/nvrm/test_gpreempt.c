/*
 * The GPreempt-style scheduler core in-process: finds an LC and a BE
 * CUDA-shaped context (built by two threads) with the query escape, sets
 * GPreempt's timeslices, preempts / disables the BE group on an LC arrival
 * and re-enables it afterwards; every control is reported as an action.
 */
#include <pthread.h>
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
#include "gpreempt.h"
#include "nvrm_inproc.h"
#include "fifo/fifo_rec.h"
#include "sim/sim.h"

struct app {
    nvemu_fdtable *table;
    const char *comm;
    struct nvrm_inproc ip;
    nvrm *rm;
    struct cudactx ctx;
    NV_STATUS st;
};

static void *build(void *arg)
{
    struct app *a = arg;
    nvemu_identity who;
    nvemu_identity_self(&who);
    snprintf(who.comm, sizeof who.comm, "%s", a->comm);
    nvrm_inproc_init(&a->ip, a->table, &who);
    if (nvrm_open(&a->rm, &a->ip.tp) != 0) {
        a->st = NV_ERR_OPERATING_SYSTEM;
        return NULL;
    }
    struct cudactx_options o;
    cudactx_options_init(&o);
    o.copy_groups = 0;
    char err[256];
    a->st = cudactx_create(a->rm, &o, &a->ctx, err, sizeof err);
    return NULL;
}

struct log {
    char what[16][64];
    NV_STATUS st[64];
    int n;
};

static void on_action(void *ctx, const struct gp_action *a)
{
    struct log *l = ctx;
    if (l->n < 64) {
        snprintf(l->what[l->n % 16], sizeof l->what[0], "%s", a->what);
        l->st[l->n] = a->status;
        l->n++;
    }
}

struct fx {
    nvemu *emu;
    nvemu_fdtable *table;
    struct app lc, be;
    int disables, enables;
};

static void on_trace(void *ctx, const struct sim_rec *r)
{
    struct fx *f = ctx;
    f->disables += r->kind == SIM_REC_DISABLE;
    f->enables += r->kind == SIM_REC_ENABLE;
}

static int setup(void **state)
{
    struct fx *f = calloc(1, sizeof *f);
    nvemu_config cfg;
    nvemu_config_init(&cfg);
    cfg.gpreempt_compat = true;
    f->emu = nvemu_create(&cfg, NULL, 0);
    if (!f->emu)
        return -1;
    sim_trace_subscribe(nvemu_sim(f->emu), on_trace, f);
    f->table = nvemu_fdtable_create(f->emu, false);
    f->lc = (struct app){.table = f->table, .comm = "vgg_rt"};
    f->be = (struct app){.table = f->table, .comm = "resnet_be"};
    pthread_t a, b;
    pthread_create(&a, NULL, build, &f->lc);
    pthread_join(a, NULL);
    pthread_create(&b, NULL, build, &f->be);
    pthread_join(b, NULL);
    if (f->lc.st != NV_OK || f->be.st != NV_OK)
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fx *f = *state;
    cudactx_destroy(&f->lc.ctx);
    cudactx_destroy(&f->be.ctx);
    nvrm_close(f->lc.rm);
    nvrm_close(f->be.rm);
    nvemu_fdtable_destroy(f->table);
    nvemu_destroy(f->emu);
    free(f);
    return 0;
}

/* A scheduler with the default configuration but `method`, logging its actions into l. */
static void sched_start(struct gp_sched *s, enum gp_method method, struct log *l)
{
    struct gp_config cfg;
    gp_config_init(&cfg);
    cfg.method = method;
    cfg.on_action = on_action;
    cfg.ctx = l;
    gp_init(s, &cfg);
}

static void test_query_priorities_preempt(void **state)
{
    struct fx *f = *state;
    struct log l = {0};
    struct gp_sched s;
    sched_start(&s, GP_METHOD_PREEMPT, &l);
    struct gp_task *lt, *bt;
    assert_int_equal(gp_add_task_query(&s, f->lc.rm, "lc", GP_LC, f->lc.ip.who.tid, 0, &lt), NV_OK);
    assert_int_equal(gp_add_task_query(&s, f->lc.rm, "be", GP_BE, f->be.ip.who.tid, 0, &bt), NV_OK);
    assert_int_equal(lt->hTsg, f->lc.ctx.compute.hTsg);
    assert_int_equal(bt->hTsg, f->be.ctx.compute.hTsg);
    assert_int_equal(bt->hClient, f->be.ctx.hClient);
    assert_int_equal(bt->nchannels, 8);
    assert_int_equal(bt->hSubdevice, 0x5c000003);

    assert_int_equal(gp_set_priorities(&s), NV_OK);
    uint64_t us;
    assert_int_equal(gp_get_timeslice(&s, lt, &us), NV_OK);
    assert_int_equal(us, 1000000);
    assert_int_equal(gp_get_timeslice(&s, bt, &us), NV_OK);
    assert_int_equal(us, 1);

    int before = l.n;
    assert_int_equal(gp_lc_arrival(&s), NV_OK);
    assert_int_equal(l.n, before + 1);
    assert_string_equal(l.what[before % 16], "preempt");
    assert_int_equal(gp_lc_departure(&s), NV_OK);
    assert_int_equal(l.n, before + 1);
}

static void disable_method_disables_every_be_channel_once_per_lc_arrival(void **state)
{
    struct fx *f = *state;
    struct log l = {0};
    struct gp_sched s;
    sched_start(&s, GP_METHOD_DISABLE, &l);
    struct gp_task *bt;
    assert_int_equal(gp_add_task(&s, f->be.rm, "be", GP_BE, f->be.ctx.hClient, f->be.ctx.compute.hTsg,
                                 f->be.ctx.hSubdevice, 8, f->be.ctx.compute.hChannels, &bt),
                     NV_OK);
    assert_int_equal(gp_lc_arrival(&s), NV_OK);
    assert_true(bt->disabled);
    assert_int_equal(f->disables, 8);
    /* a second arrival while disabled issues nothing */
    assert_int_equal(gp_lc_arrival(&s), NV_OK);
    assert_int_equal(l.n, 1);
    assert_int_equal(gp_lc_departure(&s), NV_OK);
    assert_false(bt->disabled);
    assert_int_equal(f->enables, 8);
    assert_string_equal(l.what[1], "enable");
}

static void bad_tasks_and_stale_handles_are_refused_and_reported(void **state)
{
    struct fx *f = *state;
    struct log l = {0};
    struct gp_sched s;
    sched_start(&s, GP_METHOD_PREEMPT, &l);
    NvHandle many[65] = {0};
    assert_int_equal(gp_add_task(&s, f->be.rm, "x", GP_BE, 1, 2, 3, 65, many, NULL), NV_ERR_INVALID_ARGUMENT);
    assert_int_equal(gp_add_task_query(&s, f->lc.rm, "nobody", GP_BE, 1, 0, NULL), NV_ERR_OBJECT_NOT_FOUND);
    assert_int_equal(l.n, 1);
    assert_int_equal(l.st[0], NV_ERR_OBJECT_NOT_FOUND);
    /* a stale handle: the failure is reported, not hidden */
    struct gp_task *t;
    assert_int_equal(gp_add_task(&s, f->be.rm, "stale", GP_BE, f->be.ctx.hClient, 0x5cdead00, 0, 0, NULL, &t), NV_OK);
    assert_int_equal(gp_set_priorities(&s), NV_ERR_OBJECT_NOT_FOUND);
    assert_int_equal(l.st[1], NV_ERR_OBJECT_NOT_FOUND);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_query_priorities_preempt, setup, teardown),
        cmocka_unit_test_setup_teardown(disable_method_disables_every_be_channel_once_per_lc_arrival, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_tasks_and_stale_handles_are_refused_and_reported, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
