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

/* Every GPU is an active device of its own (no MIG): its id, instance ids invalid. */
static void active_device_ids_list_each_gpu(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t hc = up(&e);
    static uint32_t p[NV0000_CTRL_CMD_GPU_GET_ACTIVE_DEVICE_IDS_PARAMS_SIZE / 4];
    memset(p, 0xAB, sizeof p);
    assert_int_equal(tctrl(&e, e.ctl, hc, hc, NV0000_CTRL_CMD_GPU_GET_ACTIVE_DEVICE_IDS, p, sizeof p), NV_OK);
    assert_int_equal(p[0], 2);
    const uint32_t want[] = {0x6, NV0000_CTRL_GPU_INVALID_ID, NV0000_CTRL_GPU_INVALID_ID,
                             0x7, NV0000_CTRL_GPU_INVALID_ID, NV0000_CTRL_GPU_INVALID_ID, 0};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        assert_int_equal(p[1 + i], want[i]);
    tenv_fini(&e);
}

/* BUS_GET_INFO_V2's bus, device and domain numbers are the GPU asked's own PCI location: slot 7 for GPU 1. */
static void bus_info_answers_each_gpus_pci_location(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t hc = up(&e);
    for (uint32_t dev = 0; dev < 2; dev++) {
        uint32_t hsub = tsubdevice(&e, hc, dev);
        NV2080_CTRL_BUS_GET_INFO_V2_PARAMS b;
        memset(&b, 0, sizeof b);
        b.busInfoListSize = 3;
        b.busInfoList[0].index = 0x0F; /* BUS_NUMBER */
        b.busInfoList[1].index = 0x10; /* DEVICE_NUMBER */
        b.busInfoList[2].index = 0x2C; /* DOMAIN_NUMBER */
        assert_int_equal(tctrl(&e, e.ctl, hc, hsub, NV2080_CTRL_CMD_BUS_GET_INFO_V2, &b, sizeof b), NV_OK);
        assert_int_equal(b.busInfoList[0].data, 0);
        assert_int_equal(b.busInfoList[1].data, 6 + dev);
        assert_int_equal(b.busInfoList[2].data, 0);
    }
    tenv_fini(&e);
}

/* CARD_INFO and BUS_GET_PCI_BAR_INFO give GPU 1 the BAR addresses of h200-x2's pci.next_gpus, not GPU 0's. */
static void each_gpu_answers_its_own_bar_addresses(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t hc = up(&e);
    nv_ioctl_card_info_t ci[32];
    memset(ci, 0xA5, sizeof ci);
    assert_int_equal(tio(&e, e.ctl, NV_ESC_CARD_INFO, ci, sizeof ci), 0);
    assert_int_equal(ci[0].reg_address, 0x104002000000ull);
    assert_int_equal(ci[0].fb_address, 0x100000000000ull);
    assert_int_equal(ci[1].reg_address, 0x104003000000ull);
    assert_int_equal(ci[1].fb_address, 0x108000000000ull);
    assert_int_equal(ci[1].reg_size, ci[0].reg_size);
    const uint64_t bar_offset[2][3] = {{0x104002000000ull, 0x100000000000ull, 0x104000000000ull},
                                       {0x104003000000ull, 0x108000000000ull, 0x104004000000ull}};
    for (uint32_t dev = 0; dev < 2; dev++) {
        uint32_t hsub = tsubdevice(&e, hc, dev);
        uint8_t b[NV2080_CTRL_CMD_BUS_GET_PCI_BAR_INFO_PARAMS_SIZE];
        memset(b, 0, sizeof b);
        assert_int_equal(tctrl(&e, e.ctl, hc, hsub, NV2080_CTRL_CMD_BUS_GET_PCI_BAR_INFO, b, sizeof b), NV_OK);
        for (uint32_t i = 0; i < 3; i++) {
            uint64_t off;
            memcpy(&off, b + 8 + 24 * i + 16, sizeof off);
            assert_int_equal(off, bar_offset[dev][i]);
        }
    }
    tenv_fini(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(attach_ids_accept_each_gpu_and_refuse_unknown_id),
        cmocka_unit_test(async_attach_id_accepts_each_gpu_and_refuses_unknown_id),
        cmocka_unit_test(drain_state_is_disabled_per_gpu_and_unknown_id_not_found),
        cmocka_unit_test(active_device_ids_list_each_gpu),
        cmocka_unit_test(bus_info_answers_each_gpus_pci_location),
        cmocka_unit_test(each_gpu_answers_its_own_bar_addresses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
