/*
 * NV0000 GPU_ATTACH_IDS, GPU_ASYNC_ATTACH_ID and GPU_QUERY_DRAIN_STATE (emu/rm/ctrl_gpu_ids.c) on the two-GPU
 * profile h200-x2 (gpu ids 0x6 and 0x7): each GPU's id is accepted and comes back as given, an id no GPU has
 * gets the driver's status.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>

#include "abi/nv_ctrl_discovery.h"
#include "abi/nv_ctrl_monitoring.h"
#include "rm_test_util.h"

static uint32_t up(struct tenv *e)
{
    nvemu_config cfg;
    nvemu_config_init(&cfg);
    cfg.profile = "h200-x2";
    assert_int_equal(tenv_init_with(e, &cfg), 0);
    uint32_t hc = 0;
    assert_int_equal(talloc(e, e->ctl, 0, 0, &hc, NV01_ROOT_CLIENT, NULL), NV_OK);
    return hc;
}

/* The second GPU's id is its own answer (a canned answer would be GPU 0's, 0x6). */
static void attach_ids_accept_each_gpu_and_refuse_unknown_id(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t hc = up(&e);
    uint32_t ids[33];
    memset(ids, 0xFF, sizeof ids);
    ids[0] = 0x7;
    ids[32] = 0;
    assert_int_equal(tctrl(&e, e.ctl, hc, hc, NV0000_CTRL_CMD_GPU_ATTACH_IDS, ids, sizeof ids), NV_OK);
    assert_int_equal(ids[0], 0x7);
    assert_int_equal(ids[1], NV0000_CTRL_GPU_INVALID_ID);
    ids[1] = 0x6;
    assert_int_equal(tctrl(&e, e.ctl, hc, hc, NV0000_CTRL_CMD_GPU_ATTACH_IDS, ids, sizeof ids), NV_OK);
    ids[1] = 0x99;
    assert_int_equal(tctrl(&e, e.ctl, hc, hc, NV0000_CTRL_CMD_GPU_ATTACH_IDS, ids, sizeof ids),
                     NV_ERR_INVALID_ARGUMENT);
    ids[0] = 0xFFFF; /* every probed GPU */
    assert_int_equal(tctrl(&e, e.ctl, hc, hc, NV0000_CTRL_CMD_GPU_ATTACH_IDS, ids, sizeof ids), NV_OK);
    tenv_fini(&e);
}

static void async_attach_id_accepts_each_gpu_and_refuses_unknown_id(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t hc = up(&e);
    uint32_t id = 0x7;
    assert_int_equal(tctrl(&e, e.ctl, hc, hc, NV0000_CTRL_CMD_GPU_ASYNC_ATTACH_ID, &id, sizeof id), NV_OK);
    assert_int_equal(id, 0x7);
    id = 0x99;
    assert_int_equal(tctrl(&e, e.ctl, hc, hc, NV0000_CTRL_CMD_GPU_ASYNC_ATTACH_ID, &id, sizeof id),
                     NV_ERR_INVALID_ARGUMENT);
    tenv_fini(&e);
}

/* No GPU drains: state and flags 0 for each GPU; an unknown id is OBJECT_NOT_FOUND (gpumgrQueryGpuDrainState). */
static void drain_state_is_disabled_per_gpu_and_unknown_id_not_found(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t hc = up(&e);
    uint32_t p[3] = {0x7, 0xAA, 0xBB};
    assert_int_equal(tctrl(&e, e.ctl, hc, hc, NV0000_CTRL_CMD_GPU_QUERY_DRAIN_STATE, p, sizeof p), NV_OK);
    assert_int_equal(p[0], 0x7);
    assert_int_equal(p[1], 0);
    assert_int_equal(p[2], 0);
    p[0] = 0x99;
    assert_int_equal(tctrl(&e, e.ctl, hc, hc, NV0000_CTRL_CMD_GPU_QUERY_DRAIN_STATE, p, sizeof p),
                     NV_ERR_OBJECT_NOT_FOUND);
    tenv_fini(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(attach_ids_accept_each_gpu_and_refuse_unknown_id),
        cmocka_unit_test(async_attach_id_accepts_each_gpu_and_refuses_unknown_id),
        cmocka_unit_test(drain_state_is_disabled_per_gpu_and_unknown_id_not_found),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
