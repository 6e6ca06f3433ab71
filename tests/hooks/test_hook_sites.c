/*
 * Hook call sites inside the emulator: a recording policy attached to a live
 * emulator sees task_init on channel-group allocation, bind on GPFIFO_SCHEDULE,
 * work_submit on GET_WORK_SUBMIT_TOKEN (TOKEN_REQUEST) and on a kernel
 * submission (WORK), timeslice_set on SET_TIMESLICE, runlist_update when the
 * runlist is rebuilt and task_destroy on free — with the snapshot fields the
 * driver would give (grpID, engine, runlist, creator name, defaults).
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
#include "abi/nv_workload.h"
#include "hooks/hooks.h"
#include "hooks/policy_api.h"
#include "nvrm_inproc.h"
#include "sim/sim.h"

struct seen {
    int task_init, bind, token, work, tsset, runlist, destroy;
    struct hook_task init_task;
    uint64_t tsset_requested;
    uint32_t runlist_entries;
};

static struct seen seen;
static const struct policy_host *host;

static int r_init(void **state, const struct policy_host *h, const char *const *a, int n, char *e, size_t el)
{
    (void)a; (void)n; (void)e; (void)el;
    host = h;
    *state = &seen;
    return 0;
}
static void r_task_init(void *st, const struct hook_task *t, struct policy_ctx *c)
{
    (void)st; (void)c;
    if (seen.task_init++ == 0)
        seen.init_task = *t;
}
static void r_bind(void *st, const struct hook_task *t, struct policy_ctx *c) { (void)st; (void)t; (void)c; seen.bind++; }
static void r_submit(void *st, const struct hook_task *t, uint32_t chid, enum hook_submit_kind k, struct policy_ctx *c)
{
    (void)st; (void)t; (void)chid; (void)c;
    if (k == HOOK_SUBMIT_TOKEN_REQUEST)
        seen.token++;
    else
        seen.work++;
}
static void r_tsset(void *st, const struct hook_task *t, uint64_t req, struct policy_ctx *c)
{
    (void)st; (void)t; (void)c;
    seen.tsset++;
    seen.tsset_requested = req;
}
static void r_runlist(void *st, uint32_t gpu, uint32_t rl, const uint64_t *e, uint32_t n, struct policy_ctx *c)
{
    (void)st; (void)gpu; (void)rl; (void)e; (void)c;
    seen.runlist++;
    seen.runlist_entries = n;
}
static void r_destroy(void *st, const struct hook_task *t) { (void)st; (void)t; seen.destroy++; }

static const struct policy_ops recorder = {
    .api_version = NVEMU_POLICY_API_VERSION, .size = sizeof(struct policy_ops), .name = "recorder",
    .init = r_init, .on_task_init = r_task_init, .on_bind = r_bind, .on_work_submit = r_submit,
    .on_timeslice_set = r_tsset, .on_runlist_update = r_runlist, .on_task_destroy = r_destroy,
};

static void test_every_call_site_fires(void **state)
{
    (void)state;
    memset(&seen, 0, sizeof seen);
    nvemu_config cfg;
    nvemu_config_init(&cfg);
    char err[256];
    nvemu *emu = nvemu_create(&cfg, err, sizeof err);
    assert_non_null(emu);
    assert_int_equal(hooks_attach_ops(nvemu_hooks(emu), &recorder, NULL, 0, err, sizeof err), 0);
    nvemu_fdtable *table = nvemu_fdtable_create(emu, false);
    nvemu_identity who;
    nvemu_identity_self(&who);
    snprintf(who.comm, sizeof who.comm, "infer_server");
    struct nvrm_inproc ip;
    nvrm_inproc_init(&ip, table, &who);
    nvrm *rm;
    assert_int_equal(nvrm_open(&rm, &ip.tp), 0);

    struct cudactx_options o;
    cudactx_options_init(&o);
    o.copy_groups = 1;
    struct cudactx c;
    assert_int_equal(cudactx_create(rm, &o, &c, err, sizeof err), NV_OK);

    /* task_init: one per channel group, with the defaults and the creator */
    assert_int_equal(seen.task_init, 2);
    assert_int_equal(seen.init_task.engine_type, 1);
    assert_int_equal(seen.init_task.timeslice_us, 1024);
    assert_int_equal(seen.init_task.interleave, 1);
    assert_int_equal(seen.init_task.tsg_id, c.compute.tsg_id);
    assert_int_equal(seen.init_task.htsg, c.compute.hTsg);
    assert_int_equal(seen.init_task.hclient, c.hClient);
    assert_string_equal(seen.init_task.comm, "infer_server");
    /* bind: GPFIFO_SCHEDULE of both groups */
    assert_int_equal(seen.bind, 2);
    /* work_submit: a token request per channel (8 + 4) */
    assert_int_equal(seen.token, 12);
    assert_int_equal(seen.work, 0);
    /* timeslice_set: libcuda's SET_TIMESLICE 2048 */
    assert_int_equal(seen.tsset, 1);
    assert_int_equal(seen.tsset_requested, 2048);
    /* runlist_update: the rebuilds the schedules queued run once virtual time moves on */
    struct sim *sim = nvemu_sim(emu);
    sim_run_until(sim, sim_now(sim) + 10000000);
    assert_true(seen.runlist >= 2);
    assert_int_equal(seen.runlist_entries, 1);

    /* a kernel submission through the workload escape: kind WORK */
    struct nvemu_wl_submit sub = {.hClient = c.hClient, .hChannel = c.compute.hChannels[0], .blocks = 1,
                                  .total_ns = 1000};
    assert_int_equal(nvemu_fdtable_ioctl(table, nvrm_ctl_fd(rm), NV_IOCTL_REQUEST(NVEMU_ESC_WL_SUBMIT, sizeof sub), &sub),
                     0);
    assert_int_equal(sub.status, NV_OK);
    assert_int_equal(seen.work, 1);

    cudactx_destroy(&c);
    assert_int_equal(seen.destroy, 2);
    nvrm_close(rm);
    nvemu_fdtable_destroy(table);
    nvemu_destroy(emu);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_call_site_fires),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
