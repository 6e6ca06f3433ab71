/*
 * libnvrm and the CUDA-shaped context over the in-process transport: every
 * wrapper against the emulator, the object tree libcuda builds, GPreempt's
 * query in compat mode and on a stock (non-compat) emulator.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "abi/nv_alloc.h"
#include "abi/nv_classes.h"
#include "cudactx.h"
#include "nvrm_inproc.h"

struct fx {
    nvemu *emu;
    nvemu_fdtable *table;
    struct nvrm_inproc ip;
    nvrm *rm;
};

/* This thread's identity under another process name (the fd table reports the calling thread's tid). */
static nvemu_identity ident(const char *comm)
{
    nvemu_identity who;
    nvemu_identity_self(&who);
    snprintf(who.comm, sizeof who.comm, "%s", comm);
    return who;
}

static int setup_mode(void **state, bool compat)
{
    struct fx *f = calloc(1, sizeof *f);
    nvemu_config cfg;
    nvemu_config_init(&cfg);
    cfg.gpreempt_compat = compat;
    char err[256];
    f->emu = nvemu_create(&cfg, err, sizeof err);
    if (!f->emu) {
        fprintf(stderr, "nvemu_create: %s\n", err);
        free(f);
        return -1;
    }
    f->table = nvemu_fdtable_create(f->emu, false);
    nvemu_identity who = ident("lc_app");
    nvrm_inproc_init(&f->ip, f->table, &who);
    if (nvrm_open(&f->rm, &f->ip.tp) != 0)
        return -1;
    *state = f;
    return 0;
}

/*
 * The same libnvrm and context builder against each driver release: the 550 driver refuses 580's 3-byte
 * GPFIFO_SCHEDULE, and libnvrm re-issues it in 550's layout (docs/driver-versions.md).
 */
static void cudactx_builds_and_schedules_on_every_release(void **state)
{
    (void)state;
    const char *drivers[] = {"550", "575", "580"};
    for (size_t i = 0; i < 3; i++) {
        nvemu_config cfg;
        nvemu_config_init(&cfg);
        cfg.driver = drivers[i];
        char err[256] = "";
        struct fx f = {0};
        f.emu = nvemu_create(&cfg, err, sizeof err);
        assert_non_null(f.emu);
        f.table = nvemu_fdtable_create(f.emu, false);
        nvemu_identity who = ident("lc_app");
        nvrm_inproc_init(&f.ip, f.table, &who);
        assert_int_equal(nvrm_open(&f.rm, &f.ip.tp), 0);
        struct cudactx c;
        if (cudactx_create(f.rm, NULL, &c, err, sizeof err) != NV_OK)
            fail_msg("driver %s: cudactx_create: %s", drivers[i], err);
        assert_int_equal(nvrm_tsg_schedule(f.rm, c.hClient, c.compute.hTsg, false), NV_OK);
        assert_int_equal(nvrm_tsg_schedule(f.rm, c.hClient, c.compute.hTsg, true), NV_OK);
        nvrm_close(f.rm);
        nvemu_fdtable_destroy(f.table);
        nvemu_destroy(f.emu);
    }
}

static int setup(void **state) { return setup_mode(state, true); }
static int setup_stock(void **state) { return setup_mode(state, false); }

static int teardown(void **state)
{
    struct fx *f = *state;
    nvrm_close(f->rm);
    nvemu_fdtable_destroy(f->table);
    nvemu_destroy(f->emu);
    free(f);
    return 0;
}

static void generic_calls_allocate_clients_and_refuse_duplicate_handles(void **state)
{
    struct fx *f = *state;
    NvHandle client = 0;
    assert_int_equal(nvrm_alloc_client(f->rm, &client), NV_OK);
    assert_int_not_equal(client, 0);
    NvHandle client2 = 0xc1d0abcd;
    assert_int_equal(nvrm_alloc_client(f->rm, &client2), NV_OK);
    assert_int_equal(client2, 0xc1d0abcd);
    NvHandle dup = 0xc1d0abcd;
    assert_int_equal(nvrm_alloc_client(f->rm, &dup), NV_ERR_INSERT_DUPLICATE_NAME);

    assert_int_equal(nvrm_open_gpu(f->rm, 0), 0);
    NV0080_ALLOC_PARAMETERS dp = {.deviceId = 0};
    NvHandle dev = 0x5c000002;
    assert_int_equal(nvrm_alloc(f->rm, client, client, &dev, NV01_DEVICE_0, &dp, sizeof dp), NV_OK);
    assert_int_equal(dev, 0x5c000002);
    NvHandle sub = 0;
    NV2080_ALLOC_PARAMETERS sp = {0};
    assert_int_equal(nvrm_alloc(f->rm, client, dev, &sub, NV20_SUBDEVICE_0, &sp, sizeof sp), NV_OK);
    assert_int_not_equal(sub, 0);

    uint32_t classes[256], n = 0;
    assert_int_equal(nvrm_get_classlist(f->rm, client, dev, classes, 256, &n), NV_OK);
    assert_true(n > 10);

    /* control on an unknown client and an unknown object */
    uint64_t ts;
    assert_int_equal(nvrm_tsg_get_timeslice(f->rm, 0x1234, 0x5678, &ts), NV_ERR_INVALID_CLIENT);
    assert_int_equal(nvrm_tsg_get_timeslice(f->rm, client, 0x5678, &ts), NV_ERR_OBJECT_NOT_FOUND);

    assert_int_equal(nvrm_free(f->rm, client, client, dev), NV_OK);
    assert_int_equal(nvrm_free(f->rm, client, client, client), NV_OK);
    assert_int_equal(nvrm_free(f->rm, client2, client2, client2), NV_OK);
    assert_int_equal(nvrm_free(f->rm, client2, client2, client2), NV_ERR_INVALID_OBJECT_HANDLE);
}

static void cudactx_builds_the_drivers_object_tree_and_classes(void **state)
{
    struct fx *f = *state;
    struct cudactx c;
    char err[256];
    NV_STATUS st = cudactx_create(f->rm, NULL, &c, err, sizeof err);
    if (st != NV_OK)
        fail_msg("cudactx_create: %s", err);
    assert_int_equal(c.hDevice, 0x5c000002);
    assert_int_equal(c.hSubdevice, 0x5c000003);
    assert_int_equal(c.channel_class, HOPPER_CHANNEL_GPFIFO_A);
    assert_int_equal(c.compute_class, HOPPER_COMPUTE_A);
    assert_int_equal(c.copy_class, HOPPER_DMA_COPY_A);
    assert_int_equal(c.compute.nchannels, 8);
    assert_int_equal(c.compute.engine_type, 1);
    assert_int_equal(c.ncopy, 3);
    for (uint32_t i = 0; i < c.ncopy; i++) {
        assert_int_equal(c.copy[i].nchannels, 4);
        assert_int_equal(c.copy[i].engine_type, 0x0b + i);
    }
    /* tokens: runlistId << 16 | chid, distinct per channel of the group */
    for (uint32_t i = 1; i < 8; i++) {
        assert_int_equal(c.compute.tokens[i] >> 16, c.compute.tokens[0] >> 16);
        assert_int_not_equal(c.compute.tokens[i], c.compute.tokens[0]);
    }
    uint64_t ts = 0;
    assert_int_equal(nvrm_tsg_get_timeslice(f->rm, c.hClient, c.compute.hTsg, &ts), NV_OK);
    assert_int_equal(ts, 2048);
    assert_int_equal(nvrm_tsg_get_timeslice(f->rm, c.hClient, c.copy[0].hTsg, &ts), NV_OK);
    assert_int_equal(ts, 1024);
    cudactx_destroy(&c);
    nvemu_stats s;
    nvemu_get_stats(f->emu, &s);
    assert_int_equal(s.channel_groups, 0);
}

static void scheduling_controls_set_what_they_get(void **state)
{
    struct fx *f = *state;
    struct cudactx c;
    char err[256];
    struct cudactx_options o;
    cudactx_options_init(&o);
    o.copy_groups = 0;
    assert_int_equal(cudactx_create(f->rm, &o, &c, err, sizeof err), NV_OK);
    NvHandle cl = c.hClient, tsg = c.compute.hTsg;
    assert_int_equal(nvrm_tsg_set_timeslice(f->rm, cl, tsg, 1000000), NV_OK);
    uint64_t ts;
    assert_int_equal(nvrm_tsg_get_timeslice(f->rm, cl, tsg, &ts), NV_OK);
    assert_int_equal(ts, 1000000);
    assert_int_equal(nvrm_tsg_set_interleave(f->rm, cl, tsg, 2), NV_OK);
    /* the driver refuses level 3 (its status depends on the GSP path: not asserted here) */
    assert_int_not_equal(nvrm_tsg_set_interleave(f->rm, cl, tsg, 3), NV_OK);
    assert_int_equal(nvrm_tsg_preempt(f->rm, cl, tsg, false, 0), NV_OK);
    assert_int_equal(nvrm_tsg_preempt(f->rm, cl, tsg, true, 0), NV_OK);
    assert_int_equal(nvrm_tsg_preempt(f->rm, cl, tsg, true, 100000), NV_OK);
    assert_int_equal(nvrm_tsg_schedule(f->rm, cl, tsg, false), NV_OK);
    assert_int_equal(nvrm_tsg_schedule(f->rm, cl, tsg, true), NV_OK);
    uint32_t id = 99;
    assert_int_equal(nvrm_tsg_get_info(f->rm, cl, tsg, &id), NV_OK);
    assert_int_equal(id, c.compute.tsg_id);
    assert_int_equal(nvrm_channel_restart_runlist(f->rm, cl, c.compute.hChannels[1], true, true), NV_OK);
    NvHandle clients[8];
    for (int i = 0; i < 8; i++)
        clients[i] = cl;
    assert_int_equal(nvrm_disable_channels(f->rm, cl, c.hSubdevice, true, false, 8, clients, c.compute.hChannels),
                     NV_OK);
    assert_int_equal(nvrm_disable_channels(f->rm, cl, c.hSubdevice, false, false, 8, clients, c.compute.hChannels),
                     NV_OK);
    assert_int_equal(nvrm_disable_channels(f->rm, cl, c.hSubdevice, true, false, 65, clients, c.compute.hChannels),
                     NV_ERR_INVALID_ARGUMENT);
    assert_int_equal(nvrm_set_sched_policy(f->rm, cl, c.hSubdevice, 1, false), NV_OK);
    assert_int_equal(nvrm_set_sched_policy(f->rm, cl, c.hSubdevice, 0, true), NV_OK);
    cudactx_destroy(&c);
}

/* GPreempt's query finds the 8-channel group by the creating thread's id. */
static void query_finds_the_group_by_its_creating_thread(void **state)
{
    struct fx *f = *state;
    struct cudactx c;
    char err[256];
    assert_int_equal(cudactx_create(f->rm, NULL, &c, err, sizeof err), NV_OK);
    struct nvrm_group g;
    assert_int_equal(nvrm_query_group(f->rm, f->ip.who.tid, &g), NV_OK);
    assert_int_equal(g.hClient, c.hClient);
    assert_int_equal(g.hTsg, c.compute.hTsg);
    assert_int_equal(g.num_channels, 8);
    for (uint32_t i = 0; i < 8; i++) {
        assert_int_equal(g.hChannels[i], c.compute.hChannels[i]);
        assert_int_equal(g.hClients[i], c.hClient);
    }
    assert_int_equal(nvrm_query_group(f->rm, f->ip.who.tid + 1, &g), NV_ERR_OBJECT_NOT_FOUND);
    cudactx_destroy(&c);
}

/* Synthetic tasks on one thread: each transport's identity tid is the creator the query matches. */
static void query_matches_each_transports_identity_tid(void **state)
{
    struct fx *f = *state;
    struct nvrm_inproc ipa, ipb;
    nvemu_identity a = {.pid = 900, .tid = 901, .uid = 1000, .comm = "task_a"};
    nvemu_identity b = {.pid = 900, .tid = 902, .uid = 1000, .comm = "task_b"};
    nvrm_inproc_init(&ipa, f->table, &a);
    nvrm_inproc_init(&ipb, f->table, &b);
    nvrm *ra, *rb;
    assert_int_equal(nvrm_open(&ra, &ipa.tp), 0);
    assert_int_equal(nvrm_open(&rb, &ipb.tp), 0);
    struct cudactx ca, cb;
    char err[256];
    assert_int_equal(cudactx_create(ra, NULL, &ca, err, sizeof err), NV_OK);
    assert_int_equal(cudactx_create(rb, NULL, &cb, err, sizeof err), NV_OK);
    struct nvrm_group g;
    assert_int_equal(nvrm_query_group(f->rm, 902, &g), NV_OK);
    assert_int_equal(g.hClient, cb.hClient);
    assert_int_equal(g.hTsg, cb.compute.hTsg);
    assert_int_equal(nvrm_query_group(f->rm, 901, &g), NV_OK);
    assert_int_equal(g.hClient, ca.hClient);
    cudactx_destroy(&ca);
    cudactx_destroy(&cb);
    nvrm_close(ra);
    nvrm_close(rb);
}

static void query_on_a_stock_context_finds_no_group(void **state)
{
    struct fx *f = *state;
    struct cudactx c;
    char err[256];
    assert_int_equal(cudactx_create(f->rm, NULL, &c, err, sizeof err), NV_OK);
    struct nvrm_group g;
    assert_int_equal(nvrm_query_group(f->rm, f->ip.who.tid, &g), NV_ERR_OBJECT_NOT_FOUND);
    cudactx_destroy(&c);
}

/* The bare channel group nvemu-gpreempt falls back to: no channels, not scheduled, still timesliced and preemptible. */
static void bare_group_is_timesliced_and_preemptible_without_channels(void **state)
{
    struct fx *f = *state;
    struct cudactx_options o;
    cudactx_options_init(&o);
    o.compute_channels = 0;
    o.copy_groups = 0;
    o.schedule = false;
    o.preempt_mode = CUDACTX_PREEMPT_MODE_NONE;
    struct cudactx c;
    char err[256];
    assert_int_equal(cudactx_create(f->rm, &o, &c, err, sizeof err), NV_OK);
    assert_int_equal(c.compute.nchannels, 0);
    assert_int_equal(c.ncopy, 0);
    uint64_t ts;
    assert_int_equal(nvrm_tsg_get_timeslice(f->rm, c.hClient, c.compute.hTsg, &ts), NV_OK);
    assert_int_equal(ts, 2048);
    assert_int_equal(nvrm_tsg_preempt(f->rm, c.hClient, c.compute.hTsg, false, 0), NV_OK);
    /* as on the H200: a waiting preempt of a group without channels never sees completion */
    assert_int_equal(nvrm_tsg_preempt(f->rm, c.hClient, c.compute.hTsg, true, 1000), NV_ERR_TIMEOUT);
    cudactx_destroy(&c);
}

/* A failed build frees what it allocated and says which step failed. */
static void failed_build_frees_its_objects_and_names_the_step(void **state)
{
    struct fx *f = *state;
    struct cudactx c;
    char err[256];
    struct cudactx_options o;
    cudactx_options_init(&o);
    o.device_instance = 7; /* the h200 profile has one GPU */
    assert_int_not_equal(cudactx_create(f->rm, &o, &c, err, sizeof err), NV_OK);
    assert_non_null(strstr(err, "open /dev/nvidiaN"));
    assert_int_equal(c.hClient, 0);
    nvemu_stats s;
    nvemu_get_stats(f->emu, &s);
    assert_int_equal(s.clients, 0);
}

/* Closing the connection frees its clients, as the driver does on fd close. */
static void test_close_frees_clients(void **state)
{
    struct fx *f = *state;
    struct cudactx c;
    char err[256];
    assert_int_equal(cudactx_create(f->rm, NULL, &c, err, sizeof err), NV_OK);
    nvemu_stats s;
    nvemu_get_stats(f->emu, &s);
    assert_int_equal(s.channel_groups, 4);
    nvrm_close(f->rm);
    f->rm = NULL;
    nvemu_get_stats(f->emu, &s);
    assert_int_equal(s.channel_groups, 0);
    assert_int_equal(s.clients, 0);
    assert_int_equal(nvrm_open(&f->rm, &f->ip.tp), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(generic_calls_allocate_clients_and_refuse_duplicate_handles, setup, teardown),
        cmocka_unit_test(cudactx_builds_and_schedules_on_every_release),
        cmocka_unit_test_setup_teardown(cudactx_builds_the_drivers_object_tree_and_classes, setup, teardown),
        cmocka_unit_test_setup_teardown(scheduling_controls_set_what_they_get, setup, teardown),
        cmocka_unit_test_setup_teardown(query_finds_the_group_by_its_creating_thread, setup, teardown),
        cmocka_unit_test_setup_teardown(query_matches_each_transports_identity_tid, setup, teardown),
        cmocka_unit_test_setup_teardown(query_on_a_stock_context_finds_no_group, setup_stock, teardown),
        cmocka_unit_test_setup_teardown(bare_group_is_timesliced_and_preemptible_without_channels, setup, teardown),
        cmocka_unit_test_setup_teardown(failed_build_frees_its_objects_and_names_the_step, setup, teardown),
        cmocka_unit_test_setup_teardown(test_close_frees_clients, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
