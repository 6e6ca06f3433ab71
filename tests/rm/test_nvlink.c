/*
 * NVLINK_GET_NVLINK_CAPS and SYSTEM_GET_P2P_CAPS_V2 (emu/rm/ctrl_nvlink.c): the two-H200 profile h200-x2 answers
 * each GPU's links from its `nvlink:` section and P2P over NVLink between its GPUs (ids 0x6, 0x7), with peer ids
 * once one UVM VA space registered both GPUs; a profile without NVLink answers the caps with zeros.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>

#include "abi/nv_alloc.h"
#include "abi/nv_classes.h"
#include "abi/nv_ctrl_monitoring.h"
#include "abi/nv_uvm.h"
#include "rm_test_util.h"

#define INVALID_PEER 0xFFFFFFFFu

/* byte offsets of SYSTEM_GET_P2P_CAPS_V2 (ctrl0000system.h, 580.x) */
#define V2_COUNT 128
#define V2_CAPS 132
#define V2_READ_CES 136
#define V2_WRITE_CES 140
#define V2_STATUS 144
#define V2_PEER_IDS 156
#define V2_EGM_PEER_IDS 4252

static const uint8_t uuid0[16] = {0x2b, 0xbf, 0x7a, 0xb8, 0x11, 0x4a, 0x9d, 0x2e,
                                  0x98, 0xfc, 0xb7, 0xca, 0x73, 0x86, 0x53, 0x0f};
static const uint8_t uuid1[16] = {0x58, 0x0e, 0x5c, 0xcc, 0x60, 0x15, 0xa2, 0xff,
                                  0x11, 0x35, 0x23, 0xc6, 0x85, 0xf3, 0xb0, 0x7d};

static uint32_t up(struct tenv *e, const char *profile)
{
    nvemu_config cfg;
    nvemu_config_init(&cfg);
    cfg.profile = profile;
    assert_int_equal(tenv_init_with(e, &cfg), 0);
    uint32_t hc = 0;
    assert_int_equal(talloc(e, e->ctl, 0, 0, &hc, NV01_ROOT_CLIENT, NULL), NV_OK);
    return hc;
}

static uint32_t u32_at(const uint8_t *b, size_t off)
{
    uint32_t v;
    memcpy(&v, b + off, sizeof v);
    return v;
}

static uint64_t u64_at(const uint8_t *b, size_t off)
{
    uint64_t v;
    memcpy(&v, b + off, sizeof v);
    return v;
}

static NV_STATUS p2p_caps(struct tenv *e, uint32_t hc, uint8_t *b, uint32_t a, uint32_t bid, uint32_t count)
{
    memset(b, 0xAB, NV0000_CTRL_CMD_SYSTEM_GET_P2P_CAPS_V2_PARAMS_SIZE);
    memcpy(b, &a, 4);
    memcpy(b + 4, &bid, 4);
    memcpy(b + V2_COUNT, &count, 4);
    return tctrl(e, e->ctl, hc, hc, NV0000_CTRL_CMD_SYSTEM_GET_P2P_CAPS_V2, b,
                 NV0000_CTRL_CMD_SYSTEM_GET_P2P_CAPS_V2_PARAMS_SIZE);
}

static void uvm_register(struct tenv *e, int uvm, const uint8_t *uuid)
{
    uvm_register_gpu_params rp = {.rmCtrlFd = -1, .rmStatus = 0xFFFFFFFFu};
    memcpy(rp.gpu.bytes, uuid, 16);
    assert_int_equal(nvemu_fdtable_ioctl(e->t, uvm, UVM_IOCTL_REGISTER_GPU, &rp), 0);
    assert_int_equal(rp.rmStatus, NV_OK);
}

/* Both GPUs: caps table 0x13df, NVLink 4.0, 18 links in the old and the new mask fields. */
static void nvlink_caps_answer_the_profiles_links_on_each_gpu(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t hc = up(&e, "h200-x2");
    for (uint32_t dev = 0; dev < 2; dev++) {
        uint8_t b[NV2080_CTRL_CMD_NVLINK_GET_NVLINK_CAPS_PARAMS_SIZE];
        memset(b, 0xAB, sizeof b);
        assert_int_equal(tctrl(&e, e.ctl, hc, tsubdevice(&e, hc, dev), NV2080_CTRL_CMD_NVLINK_GET_NVLINK_CAPS, b,
                               sizeof b),
                         NV_OK);
        assert_int_equal(u32_at(b, 0), 0x13df);
        assert_int_equal(u32_at(b, 4), 0x07070707);
        assert_int_equal(u32_at(b, 8), 0x3ffff);
        assert_int_equal(u32_at(b, 12), 0x3ffff);
        assert_int_equal(u32_at(b, 16), 1);
        assert_int_equal(u32_at(b, 20), 0);
        assert_int_equal(u64_at(b, 24), 0x3ffff);
        assert_int_equal(u32_at(b, 32), 1);
        assert_int_equal(u64_at(b, 40), 0x3ffff);
    }
    tenv_fini(&e);
}

/* The one-H200 board (no `nvlink:`) answers NV_OK and zeros, as the one-GPU JAX recording shows. */
static void nvlink_caps_are_zero_on_a_gpu_without_nvlink(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t hc = up(&e, "h200-2b42");
    uint8_t b[NV2080_CTRL_CMD_NVLINK_GET_NVLINK_CAPS_PARAMS_SIZE], zero[sizeof b] = {0};
    memset(b, 0xAB, sizeof b);
    assert_int_equal(
        tctrl(&e, e.ctl, hc, tsubdevice(&e, hc, 0), NV2080_CTRL_CMD_NVLINK_GET_NVLINK_CAPS, b, sizeof b), NV_OK);
    assert_memory_equal(b, zero, sizeof b);
    tenv_fini(&e);
}

/* Caps, CEs and statuses of the pair; its peer ids are INVALID_PEER until one VA space registers both GPUs. */
static void p2p_caps_v2_peer_ids_appear_once_uvm_registers_both_gpus(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t hc = up(&e, "h200-x2");
    static uint8_t b[NV0000_CTRL_CMD_SYSTEM_GET_P2P_CAPS_V2_PARAMS_SIZE];
    assert_int_equal(p2p_caps(&e, hc, b, 0x6, 0x7, 2), NV_OK);
    assert_int_equal(u32_at(b, V2_CAPS), 0x1b);
    assert_int_equal(u32_at(b, V2_READ_CES), 0x10);
    assert_int_equal(u32_at(b, V2_WRITE_CES), 0x10);
    static const uint8_t status[9] = {0, 0, 0, 0, 5, 5, 5, 5, 5};
    assert_memory_equal(b + V2_STATUS, status, sizeof status);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(u32_at(b, V2_PEER_IDS + 4 * i), INVALID_PEER);
        assert_int_equal(u32_at(b, V2_EGM_PEER_IDS + 4 * i), INVALID_PEER);
    }
    assert_int_equal(u32_at(b, V2_PEER_IDS + 16), 0xABABABABu);

    int uvm = nvemu_fdtable_open(e.t, "/dev/nvidia-uvm", &e.who);
    uvm_initialize_params init = {.rmStatus = 0xFFFFFFFFu};
    assert_int_equal(nvemu_fdtable_ioctl(e.t, uvm, UVM_IOCTL_INITIALIZE, &init), 0);
    uvm_register(&e, uvm, uuid0);
    assert_int_equal(p2p_caps(&e, hc, b, 0x6, 0x7, 2), NV_OK);
    assert_int_equal(u32_at(b, V2_PEER_IDS + 4), INVALID_PEER);
    uvm_register(&e, uvm, uuid1);
    assert_int_equal(p2p_caps(&e, hc, b, 0x7, 0x6, 2), NV_OK);
    assert_int_equal(u32_at(b, V2_PEER_IDS), INVALID_PEER);
    assert_int_equal(u32_at(b, V2_PEER_IDS + 4), 0);
    assert_int_equal(u32_at(b, V2_PEER_IDS + 8), 0);
    assert_int_equal(u32_at(b, V2_PEER_IDS + 12), INVALID_PEER);
    tenv_fini(&e);
}

/* Two equal ids are one GPU (loopback): one peer-id entry written, loopback not supported over these links. */
static void p2p_caps_v2_two_equal_ids_ask_about_one_gpu(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t hc = up(&e, "h200-x2");
    static uint8_t b[NV0000_CTRL_CMD_SYSTEM_GET_P2P_CAPS_V2_PARAMS_SIZE];
    assert_int_equal(p2p_caps(&e, hc, b, 0x7, 0x7, 2), NV_OK);
    assert_int_equal(u32_at(b, V2_CAPS), 0x1b);
    assert_int_equal(b[V2_STATUS + 5], 5);
    assert_int_equal(u32_at(b, V2_PEER_IDS), INVALID_PEER);
    assert_int_equal(u32_at(b, V2_PEER_IDS + 4), 0xABABABABu);
    tenv_fini(&e);
}

/* gpuCount 0 or above 32, or an id no GPU has: NV_ERR_INVALID_ARGUMENT. */
static void p2p_caps_v2_refuses_bad_count_and_unknown_id(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t hc = up(&e, "h200-x2");
    static uint8_t b[NV0000_CTRL_CMD_SYSTEM_GET_P2P_CAPS_V2_PARAMS_SIZE];
    assert_int_equal(p2p_caps(&e, hc, b, 0x6, 0x7, 0), NV_ERR_INVALID_ARGUMENT);
    assert_int_equal(p2p_caps(&e, hc, b, 0x6, 0x7, 33), NV_ERR_INVALID_ARGUMENT);
    assert_int_equal(p2p_caps(&e, hc, b, 0x6, 0x99, 2), NV_ERR_INVALID_ARGUMENT);
    tenv_fini(&e);
}

/* No recording says what a GPU without NVLink answers: the unmodelled status, not an invented answer. */
static void p2p_caps_v2_without_nvlink_is_not_modelled(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t hc = up(&e, "h200-2b42");
    static uint8_t b[NV0000_CTRL_CMD_SYSTEM_GET_P2P_CAPS_V2_PARAMS_SIZE];
    assert_int_equal(p2p_caps(&e, hc, b, 0x6, 0x6, 1), NV_ERR_NOT_SUPPORTED);
    tenv_fini(&e);
}

/* SYSTEM_GET_P2P_CAPS_MATRIX params: counts, the two id groups, then five 8 x 8 matrices of u32. */
#define M_CAPS 72u
#define M_A2B_READ (M_CAPS + 256u)
#define M_B2A_READ (M_CAPS + 3u * 256u)
#define M_AT(m, a, b) ((m) + (a) * 32u + (b) * 4u)

static NV_STATUS matrix(struct tenv *e, uint32_t hc, uint8_t *b, uint32_t na, const uint32_t *a, uint32_t nb,
                        const uint32_t *ids_b)
{
    memset(b, 0, NV0000_CTRL_CMD_SYSTEM_GET_P2P_CAPS_MATRIX_PARAMS_SIZE);
    memcpy(b, &na, 4);
    memcpy(b + 4, &nb, 4);
    memcpy(b + 8, a, na * 4);
    if (nb)
        memcpy(b + 40, ids_b, nb * 4);
    return tctrl(e, e->ctl, hc, hc, NV0000_CTRL_CMD_SYSTEM_GET_P2P_CAPS_MATRIX, b,
                 NV0000_CTRL_CMD_SYSTEM_GET_P2P_CAPS_MATRIX_PARAMS_SIZE);
}

/*
 * Both GPUs against themselves (group B empty): every pair has the NVLink caps and A-to-B CEs; B-to-A CEs are
 * answered off the diagonal only (a GPU against itself needs no second query), mirrored.
 */
static void p2p_caps_matrix_answers_every_pair_both_directions(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t hc = up(&e, "h200-x2");
    static uint8_t b[NV0000_CTRL_CMD_SYSTEM_GET_P2P_CAPS_MATRIX_PARAMS_SIZE];
    const uint32_t ids[] = {0x6, 0x7};
    assert_int_equal(matrix(&e, hc, b, 2, ids, 0, NULL), NV_OK);
    for (uint32_t i = 0; i < 2; i++)
        for (uint32_t j = 0; j < 2; j++) {
            assert_int_equal(u32_at(b, M_AT(M_CAPS, i, j)), 0x1b);
            assert_int_equal(u32_at(b, M_AT(M_A2B_READ, i, j)), 0x10);
            assert_int_equal(u32_at(b, M_AT(M_B2A_READ, i, j)), i == j ? 0 : 0x10);
        }
    assert_int_equal(u32_at(b, M_AT(M_CAPS, 2, 2)), 0);
    const uint32_t one[] = {0x7}, other[] = {0x6};
    assert_int_equal(matrix(&e, hc, b, 1, one, 1, other), NV_OK);
    assert_int_equal(u32_at(b, M_AT(M_B2A_READ, 0, 0)), 0x10);
    const uint32_t bad[] = {0x99}, nine[9] = {0x6, 0x7};
    assert_int_equal(matrix(&e, hc, b, 0, ids, 0, NULL), NV_ERR_INVALID_ARGUMENT);
    assert_int_equal(matrix(&e, hc, b, 9, nine, 0, NULL), NV_ERR_INVALID_ARGUMENT);
    assert_int_equal(matrix(&e, hc, b, 1, bad, 0, NULL), NV_ERR_INVALID_ARGUMENT);
    assert_int_equal(matrix(&e, hc, b, 1, ids, 1, bad), NV_ERR_INVALID_ARGUMENT);
    tenv_fini(&e);
}

/* One GPU without NVLink against itself has no P2P caps (the one-H200 machine's answer). */
static void p2p_caps_matrix_of_one_gpu_without_nvlink_is_empty(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t hc = up(&e, "h200-2b42");
    static uint8_t b[NV0000_CTRL_CMD_SYSTEM_GET_P2P_CAPS_MATRIX_PARAMS_SIZE];
    const uint32_t ids[] = {0x6};
    assert_int_equal(matrix(&e, hc, b, 1, ids, 0, NULL), NV_OK);
    assert_int_equal(u32_at(b, M_AT(M_CAPS, 0, 0)), 0);
    assert_int_equal(u32_at(b, M_AT(M_A2B_READ, 0, 0)), 0);
    tenv_fini(&e);
}

/*
 * NVLINK_GET_NVLINK_STATUS: every link present names the asked GPU's own PCI slot as its local end (GPU 1: slot 7)
 * and the request flags come back as sent; the remote end and the link fields are the recording's.
 */
static void nvlink_status_names_each_gpu_as_the_local_end(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t hc = up(&e, "h200-x2");
    static uint8_t b[NV2080_CTRL_CMD_NVLINK_GET_NVLINK_STATUS_PARAMS_SIZE];
    const uint32_t local_device = 152 + 10, remote_type = 96 + 24;
    for (uint32_t dev = 0; dev < 2; dev++) {
        uint32_t hsub = tsubdevice(&e, hc, dev);
        memset(b, 0, sizeof b);
        b[24] = 1; /* bSublinkStateInst */
        assert_int_equal(tctrl(&e, e.ctl, hc, hsub, NV2080_CTRL_CMD_NVLINK_GET_NVLINK_STATUS, b, sizeof b), NV_OK);
        assert_int_equal(u32_at(b, 0), 0x3ffff);
        assert_int_equal(b[24], 1);
        for (uint32_t k = 0; k < 18; k++) {
            const uint32_t link = NVLINK_STATUS_LINKS_OFF + k * NVLINK_LINK_STATUS_SIZE;
            assert_int_equal(b[link + local_device], 6 + dev);
            assert_int_equal(u64_at(b, link + remote_type), 3);
        }
        assert_int_equal(u32_at(b, NVLINK_STATUS_LINKS_OFF + 18 * NVLINK_LINK_STATUS_SIZE), 0);
    }
    tenv_fini(&e);
}

/* A board without NVLink answers no links. */
static void nvlink_status_is_empty_without_nvlink(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t hc = up(&e, "h200-2b42");
    static uint8_t b[NV2080_CTRL_CMD_NVLINK_GET_NVLINK_STATUS_PARAMS_SIZE];
    memset(b, 0, sizeof b);
    uint32_t hsub = tsubdevice(&e, hc, 0);
    assert_int_equal(tctrl(&e, e.ctl, hc, hsub, NV2080_CTRL_CMD_NVLINK_GET_NVLINK_STATUS, b, sizeof b), NV_OK);
    for (size_t i = 0; i < sizeof b; i++)
        assert_int_equal(b[i], 0);
    tenv_fini(&e);
}

/*
 * NV50_P2P (p2p_api.c, 580.x) between the two GPUs of h200-x2, under the client: NV_OK with no BAR1 P2P DMA
 * window (NV_U64_MAX, 0), freed like any object; once a subdevice it names is freed, it is invalidated (still
 * freed by handle) and a new one naming that subdevice is refused.
 */
static void nv50_p2p_between_two_nvlink_gpus_is_allocated_and_freed(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t hc = up(&e, "h200-x2");
    uint32_t s0 = tsubdevice(&e, hc, 0), s1 = tsubdevice(&e, hc, 1);
    NV503B_ALLOC_PARAMETERS p = {.hSubDevice = s0, .hPeerSubDevice = s1};
    uint32_t h = 0x5c000279;
    assert_int_equal(talloc(&e, e.ctl, hc, hc, &h, NV50_P2P, &p), NV_OK);
    assert_true(p.l2pBar1P2PDmaInfo.dma_address == UINT64_MAX && p.p2lBar1P2PDmaInfo.dma_address == UINT64_MAX);
    assert_true(p.l2pBar1P2PDmaInfo.dma_size == 0 && p.p2lBar1P2PDmaInfo.dma_size == 0);
    assert_int_equal(tfree(&e, e.ctl, hc, h), NV_OK);
    assert_int_equal(talloc(&e, e.ctl, hc, hc, &h, NV50_P2P, &p), NV_OK);
    assert_int_equal(tfree(&e, e.ctl, hc, s1), NV_OK);
    assert_int_equal(tfree(&e, e.ctl, hc, h), NV_OK);
    uint32_t h2 = 0x5c00027a;
    assert_int_equal(talloc(&e, e.ctl, hc, hc, &h2, NV50_P2P, &p), NV_ERR_INVALID_ARGUMENT);
    tenv_fini(&e);
}

/* A handle that is not one of the client's subdevices (a device, nothing), or a peer id mask of two ids. */
static void nv50_p2p_naming_no_subdevice_or_two_peer_ids_is_invalid_argument(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t hc = up(&e, "h200-x2");
    uint32_t s0 = tsubdevice(&e, hc, 0), s1 = tsubdevice(&e, hc, 1);
    uint32_t h = 0x5c000001;
    NV503B_ALLOC_PARAMETERS p = {.hSubDevice = s0, .hPeerSubDevice = 0x101};
    assert_int_equal(talloc(&e, e.ctl, hc, hc, &h, NV50_P2P, &p), NV_ERR_INVALID_ARGUMENT);
    p.hPeerSubDevice = 0x5c00dead;
    assert_int_equal(talloc(&e, e.ctl, hc, hc, &h, NV50_P2P, &p), NV_ERR_INVALID_ARGUMENT);
    p = (NV503B_ALLOC_PARAMETERS){.hSubDevice = s0, .hPeerSubDevice = s1, .subDevicePeerIdMask = 0x3};
    assert_int_equal(talloc(&e, e.ctl, hc, hc, &h, NV50_P2P, &p), NV_ERR_INVALID_ARGUMENT);
    p = (NV503B_ALLOC_PARAMETERS){.hSubDevice = s0, .hPeerSubDevice = s0, .subDevicePeerIdMask = 0x1,
                                  .peerSubDevicePeerIdMask = 0x2};
    assert_int_equal(talloc(&e, e.ctl, hc, hc, &h, NV50_P2P, &p), NV_ERR_INVALID_ARGUMENT);
    tenv_fini(&e);
}

/* One H200 without NVLink: its P2P caps name no connection, so a loopback mapping is NOT_SUPPORTED. */
static void nv50_p2p_without_a_p2p_connection_is_not_supported(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t hc = up(&e, "h200-2b42");
    uint32_t s0 = tsubdevice(&e, hc, 0), h = 0x5c000001;
    NV503B_ALLOC_PARAMETERS p = {.hSubDevice = s0, .hPeerSubDevice = s0};
    assert_int_equal(talloc(&e, e.ctl, hc, hc, &h, NV50_P2P, &p), NV_ERR_NOT_SUPPORTED);
    tenv_fini(&e);
}

/*
 * BUS_GET_PCIE_SUPPORTED_GPU_ATOMICS: atomics to system memory answer the profile's table, atomics to a peer
 * GPU (capType P2P, dbdf 00:07.0) NOT_SUPPORTED, as both two-H200 machines answered.
 */
static void pcie_atomics_to_a_peer_gpu_are_not_supported(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t hc = up(&e, "h200-x2");
    uint32_t s0 = tsubdevice(&e, hc, 0);
    nv2080_pcie_supported_gpu_atomics_params p = {0};
    assert_int_equal(tctrl(&e, e.ctl, hc, s0, NV2080_CTRL_CMD_BUS_GET_PCIE_SUPPORTED_GPU_ATOMICS, &p, sizeof p),
                     NV_OK);
    p = (nv2080_pcie_supported_gpu_atomics_params){.capType = NV2080_CTRL_CMD_BUS_PCIE_ATOMICS_CAPTYPE_P2P,
                                                   .dbdf = 0x38};
    assert_int_equal(tctrl(&e, e.ctl, hc, s0, NV2080_CTRL_CMD_BUS_GET_PCIE_SUPPORTED_GPU_ATOMICS, &p, sizeof p),
                     NV_ERR_NOT_SUPPORTED);
    tenv_fini(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nvlink_caps_answer_the_profiles_links_on_each_gpu),
        cmocka_unit_test(nvlink_caps_are_zero_on_a_gpu_without_nvlink),
        cmocka_unit_test(p2p_caps_v2_peer_ids_appear_once_uvm_registers_both_gpus),
        cmocka_unit_test(p2p_caps_v2_two_equal_ids_ask_about_one_gpu),
        cmocka_unit_test(p2p_caps_v2_refuses_bad_count_and_unknown_id),
        cmocka_unit_test(p2p_caps_v2_without_nvlink_is_not_modelled),
        cmocka_unit_test(p2p_caps_matrix_answers_every_pair_both_directions),
        cmocka_unit_test(p2p_caps_matrix_of_one_gpu_without_nvlink_is_empty),
        cmocka_unit_test(nvlink_status_names_each_gpu_as_the_local_end),
        cmocka_unit_test(nvlink_status_is_empty_without_nvlink),
        cmocka_unit_test(nv50_p2p_between_two_nvlink_gpus_is_allocated_and_freed),
        cmocka_unit_test(nv50_p2p_naming_no_subdevice_or_two_peer_ids_is_invalid_argument),
        cmocka_unit_test(nv50_p2p_without_a_p2p_connection_is_not_supported),
        cmocka_unit_test(pcie_atomics_to_a_peer_gpu_are_not_supported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
