/*
 * /dev/nvidia-uvm through the dispatcher: layouts and statuses of every routed request, the per-file state
 * (initialization, range-group ids), the registration outputs, and the VA-space registration that an externally
 * owned RM VA space needs before a context share.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "abi/nv_uvm.h"
#include "rm_fifo_util.h"

#define HDEV 0x5C000002u
#define HSUB 0x5C000003u
#define HVA 0x5C000009u

static int setup(void **state)
{
    static struct tenv e;
    if (tenv_init(&e, false) != 0)
        return -1;
    *state = &e;
    return 0;
}

static int teardown(void **state)
{
    tenv_fini(*state);
    return 0;
}

/* A UVM request as a program issues it: the plain number, the block's address. 0 or -errno. */
static int uio(struct tenv *e, int fd, uint32_t cmd, void *params)
{
    return nvemu_fdtable_ioctl(e->t, fd, cmd, params) == 0 ? 0 : -errno;
}

static int uvm_open_initialized(struct tenv *e)
{
    int fd = nvemu_fdtable_open(e->t, "/dev/nvidia-uvm", &e->who);
    uvm_initialize_params init = {.rmStatus = 0xFFFFFFFFu};
    if (fd < 0 || uio(e, fd, UVM_IOCTL_INITIALIZE, &init) != 0 || init.rmStatus != NV_OK)
        return -1;
    return fd;
}

/*
 * Sizes and rmStatus offsets worked out by hand from the driver's uvm_ioctl.h (independent of abi/nv_uvm.h), the
 * status each answers with, and the output bytes it may change besides rmStatus.
 */
static const struct {
    uint32_t cmd, size, status_off, status;
    uint32_t out_off, out_len;
} uvm_expect[] = {
    {0x17, 16, 8, 0, 0, 8},     /* CREATE_RANGE_GROUP: rangeGroupId */
    {0x18, 16, 8, 0, 0, 0},     /* DESTROY_RANGE_GROUP */
    {0x1b, 56, 48, 0, 0, 0},    /* REGISTER_CHANNEL */
    {0x1c, 28, 24, 0x56, 0, 0}, /* UNREGISTER_CHANNEL */
    {0x21, 9264, 9260, 0, 0, 0}, /* MAP_EXTERNAL_ALLOCATION */
    {0x22, 24, 16, 0, 0, 0},    /* FREE */
    {0x25, 40, 36, 0, 16, 8},   /* REGISTER_GPU: numaEnabled, numaNodeId */
    {0x27, 8, 4, 0, 0, 1},      /* PAGEABLE_MEM_ACCESS: pageableMemAccess */
    {0x2a, 40, 36, 0, 0, 0},    /* SET_PREFERRED_LOCATION */
    {0x2e, 40, 32, 0x56, 0, 0}, /* SET_ACCESSED_BY */
    {0x33, 80, 72, 0, 0, 0},    /* MIGRATE */
    {0x41, 40, 32, 0, 0, 0},    /* MAP_DYNAMIC_PARALLELISM_REGION */
    {0x44, 9248, 9240, 0, 0, 0}, /* ALLOC_SEMAPHORE_POOL */
    {0x45, 4, 0, 0x56, 0, 0},   /* CLEAN_UP_ZOMBIE_RESOURCES */
    {0x46, 24, 20, 0x56, 0, 0}, /* PAGEABLE_MEM_ACCESS_ON_GPU */
    {0x48, 24, 16, 0, 0, 0},    /* VALIDATE_VA_RANGE */
    {0x49, 24, 16, 0, 0, 0},    /* CREATE_EXTERNAL_RANGE */
    {0x4b, 8, 4, 0, 0, 0},      /* MM_INITIALIZE */
    {0x4e, 56, 52, 0x56, 0, 0}, /* ALLOC_DEVICE_P2P */
};

static void uvm_rows_match_driver_layouts(void **state)
{
    struct tenv *e = *state;
    int fd = uvm_open_initialized(e);
    assert_true(fd >= 0);
    static uint8_t buf[9264 + 64];
    for (size_t i = 0; i < sizeof(uvm_expect) / sizeof(uvm_expect[0]); i++) {
        memset(buf, 0xEE, sizeof(buf));
        assert_int_equal(uio(e, fd, uvm_expect[i].cmd, buf), 0);
        uint32_t st;
        memcpy(&st, buf + uvm_expect[i].status_off, sizeof(st));
        if (st != uvm_expect[i].status)
            fail_msg("request 0x%x: status 0x%x, want 0x%x", uvm_expect[i].cmd, st, uvm_expect[i].status);
        for (size_t b = 0; b < sizeof(buf); b++) {
            bool status = b >= uvm_expect[i].status_off && b < uvm_expect[i].status_off + 4;
            bool out = b >= uvm_expect[i].out_off && b < uvm_expect[i].out_off + uvm_expect[i].out_len;
            if (!status && !out && buf[b] != 0xEE)
                fail_msg("request 0x%x changed byte %zu", uvm_expect[i].cmd, b);
        }
    }
    /* Numbers the 580 driver does not route (RESERVE_VA 1, MEM_MAP 35), tools numbers left out, an _IOC word. */
    const uint32_t unknown[] = {1, 35, 64, 77, 0x30000003u, 0xC0104627u};
    for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
        memset(buf, 0xEE, sizeof(buf));
        assert_int_equal(uio(e, fd, unknown[i], buf), -EINVAL);
        for (size_t b = 0; b < 64; b++)
            assert_int_equal(buf[b], 0xEE);
    }
    assert_int_equal(nvemu_fdtable_close(e->t, fd), 0);
}

/* The driver's init check: before UVM_INITIALIZE only INITIALIZE and MM_INITIALIZE run. */
static void uvm_requests_wait_for_initialize(void **state)
{
    struct tenv *e = *state;
    int fd = nvemu_fdtable_open(e->t, "/dev/nvidia-uvm", &e->who);
    assert_true(fd >= 0);
    uvm_pageable_mem_access_params pm = {.pageableMemAccess = 1, .rmStatus = 0xFFFFFFFFu};
    assert_int_equal(uio(e, fd, UVM_IOCTL_PAGEABLE_MEM_ACCESS, &pm), 0);
    assert_int_equal(pm.rmStatus, NV_ERR_ILLEGAL_ACTION);
    assert_int_equal(pm.pageableMemAccess, 1);
    uvm_s32_params mm = {.value = 3, .rmStatus = 0xFFFFFFFFu};
    assert_int_equal(uio(e, fd, UVM_IOCTL_MM_INITIALIZE, &mm), 0);
    assert_int_equal(mm.rmStatus, NV_OK);
    assert_int_equal(uio(e, fd, UVM_IOCTL_INITIALIZE, (void *)(uintptr_t)8), -EFAULT);
    uvm_initialize_params init = {.rmStatus = 0xFFFFFFFFu};
    assert_int_equal(uio(e, fd, UVM_IOCTL_INITIALIZE, &init), 0);
    assert_int_equal(init.rmStatus, NV_OK);
    /* no HMM on the modelled hosts: the recordings answer 0 */
    assert_int_equal(uio(e, fd, UVM_IOCTL_PAGEABLE_MEM_ACCESS, &pm), 0);
    assert_int_equal(pm.rmStatus, NV_OK);
    assert_int_equal(pm.pageableMemAccess, 0);
    assert_int_equal(uio(e, fd, UVM_IOCTL_DEINITIALIZE, NULL), 0);
    assert_int_equal(nvemu_fdtable_close(e->t, fd), 0);
}

static void uvm_range_group_ids_are_per_file(void **state)
{
    struct tenv *e = *state;
    int a = uvm_open_initialized(e), b = uvm_open_initialized(e);
    assert_true(a >= 0 && b >= 0);
    uvm_u64_params rg = {.rmStatus = 0xFFFFFFFFu};
    for (uint64_t want = 1; want <= 3; want++) {
        assert_int_equal(uio(e, a, UVM_IOCTL_CREATE_RANGE_GROUP, &rg), 0);
        assert_int_equal(rg.rmStatus, NV_OK);
        assert_int_equal(rg.value, want);
    }
    /* range-group ids are per UVM file */
    assert_int_equal(uio(e, b, UVM_IOCTL_CREATE_RANGE_GROUP, &rg), 0);
    assert_int_equal(rg.value, 1);
    uvm_register_gpu_params rp = {.numaEnabled = 1, .numaNodeId = 0, .rmCtrlFd = -1, .rmStatus = 0xFFFFFFFFu};
    assert_int_equal(uio(e, a, UVM_IOCTL_REGISTER_GPU, &rp), 0);
    assert_int_equal(rp.rmStatus, NV_OK);
    assert_int_equal(rp.numaEnabled, 0);
    assert_int_equal(rp.numaNodeId, -1);
    assert_int_equal(nvemu_fdtable_close(e->t, a), 0);
    assert_int_equal(nvemu_fdtable_close(e->t, b), 0);
}

/*
 * Recorded on the H200 (fixtures/hw/h200-580.159.04/conformance-root.txt, libcuda.alloc.ctxshare): a context share
 * on an externally owned VA space (libcuda's flags 0x48) is NV_ERR_INVALID_STATE until UVM_REGISTER_GPU_VASPACE
 * names that VA space; libcuda registers it before its first context share.
 */
static void ctxshare_waits_for_uvm_vaspace_registration(void **state)
{
    struct tenv *e = *state;
    uint32_t hc = tbase_va(e, e->ctl, HDEV, HSUB, HVA);
    assert_int_not_equal(hc, 0);
    const uint32_t hext = 0x5C000010u, htsg = 0x5C000011u, hctx = 0x5C000012u;
    NV_VASPACE_ALLOCATION_PARAMETERS va = {.flags = 0x48};
    uint32_t h = hext;
    assert_int_equal(talloc(e, e->ctl, hc, HDEV, &h, FERMI_VASPACE_A, &va), NV_OK);
    NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS gp = {.engineType = NV2080_ENGINE_TYPE_GR0};
    h = htsg;
    assert_int_equal(talloc(e, e->ctl, hc, HDEV, &h, KEPLER_CHANNEL_GROUP_A, &gp), NV_OK);
    NV_CTXSHARE_ALLOCATION_PARAMETERS cp = {.hVASpace = hext, .flags = 1};
    h = hctx;
    assert_int_equal(talloc(e, e->ctl, hc, htsg, &h, FERMI_CONTEXT_SHARE_A, &cp), NV_ERR_INVALID_STATE);
    /* an RM-owned VA space needs no registration */
    cp.hVASpace = HVA;
    h = hctx;
    assert_int_equal(talloc(e, e->ctl, hc, htsg, &h, FERMI_CONTEXT_SHARE_A, &cp), NV_OK);
    assert_int_equal(tfree(e, e->ctl, hc, hctx), NV_OK);

    int uvm = uvm_open_initialized(e);
    assert_true(uvm >= 0);
    uvm_register_gpu_vaspace_params rp = {.rmCtrlFd = e->ctl, .hClient = hc, .hVaSpace = HVA,
                                          .rmStatus = 0xFFFFFFFFu};
    /* only an externally owned VA space is UVM's to register */
    assert_int_equal(uio(e, uvm, UVM_IOCTL_REGISTER_GPU_VASPACE, &rp), 0);
    assert_int_equal(rp.rmStatus, NV_ERR_INVALID_ARGUMENT);
    rp.hVaSpace = htsg;
    assert_int_equal(uio(e, uvm, UVM_IOCTL_REGISTER_GPU_VASPACE, &rp), 0);
    assert_int_equal(rp.rmStatus, NV_ERR_OBJECT_NOT_FOUND);
    rp.hVaSpace = hext;
    rp.hClient = hc + 1;
    assert_int_equal(uio(e, uvm, UVM_IOCTL_REGISTER_GPU_VASPACE, &rp), 0);
    assert_int_equal(rp.rmStatus, NV_ERR_INVALID_CLIENT);
    rp.hClient = hc;
    assert_int_equal(uio(e, uvm, UVM_IOCTL_REGISTER_GPU_VASPACE, &rp), 0);
    assert_int_equal(rp.rmStatus, NV_OK);
    cp.hVASpace = hext;
    h = hctx;
    assert_int_equal(talloc(e, e->ctl, hc, htsg, &h, FERMI_CONTEXT_SHARE_A, &cp), NV_OK);
    assert_int_equal(nvemu_fdtable_close(e->t, uvm), 0);
}

/*
 * hClient is found through the RM file rmCtrlFd names, never machine-wide: another RM file's client is
 * NV_ERR_INVALID_CLIENT even when it exists (another user's UVM file registered root's VA space before);
 * without an RM file (rmCtrlFd -1) only a client of the calling process is found.
 */
static void uvm_vaspace_registration_finds_only_the_named_rm_files_client(void **state)
{
    struct tenv *e = *state;
    uint32_t hc = tbase_va(e, e->ctl, HDEV, HSUB, HVA);
    assert_int_not_equal(hc, 0);
    const uint32_t hext = 0x5C000010u;
    NV_VASPACE_ALLOCATION_PARAMETERS va = {.flags = 0x48};
    uint32_t h = hext;
    assert_int_equal(talloc(e, e->ctl, hc, HDEV, &h, FERMI_VASPACE_A, &va), NV_OK);
    int other_ctl = nvemu_fdtable_open(e->t, "/dev/nvidiactl", &e->who);
    assert_true(other_ctl >= 0);
    nvemu_identity stranger = e->who;
    stranger.pid += 1000;
    stranger.uid = 65534;
    int their_uvm = nvemu_fdtable_open(e->t, "/dev/nvidia-uvm", &stranger);
    uvm_initialize_params init = {.rmStatus = 0xFFFFFFFFu};
    assert_true(their_uvm >= 0);
    assert_int_equal(uio(e, their_uvm, UVM_IOCTL_INITIALIZE, &init), 0);
    uvm_register_gpu_vaspace_params rp = {.rmCtrlFd = other_ctl, .hClient = hc, .hVaSpace = hext,
                                          .rmStatus = 0xFFFFFFFFu};
    assert_int_equal(uio(e, their_uvm, UVM_IOCTL_REGISTER_GPU_VASPACE, &rp), 0);
    assert_int_equal(rp.rmStatus, NV_ERR_INVALID_CLIENT);
    rp.rmCtrlFd = -1;
    assert_int_equal(uio(e, their_uvm, UVM_IOCTL_REGISTER_GPU_VASPACE, &rp), 0);
    assert_int_equal(rp.rmStatus, NV_ERR_INVALID_CLIENT);
    /* still unregistered: a context share on it is refused */
    NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS gp = {.engineType = NV2080_ENGINE_TYPE_GR0};
    const uint32_t htsg = 0x5C000011u, hctx = 0x5C000012u;
    h = htsg;
    assert_int_equal(talloc(e, e->ctl, hc, HDEV, &h, KEPLER_CHANNEL_GROUP_A, &gp), NV_OK);
    NV_CTXSHARE_ALLOCATION_PARAMETERS cp = {.hVASpace = hext, .flags = 1};
    h = hctx;
    assert_int_equal(talloc(e, e->ctl, hc, htsg, &h, FERMI_CONTEXT_SHARE_A, &cp), NV_ERR_INVALID_STATE);
    /* the creating process reaches its client without naming its RM file */
    int uvm = uvm_open_initialized(e);
    assert_true(uvm >= 0);
    rp.rmStatus = 0xFFFFFFFFu;
    assert_int_equal(uio(e, uvm, UVM_IOCTL_REGISTER_GPU_VASPACE, &rp), 0);
    assert_int_equal(rp.rmStatus, NV_OK);
    assert_int_equal(nvemu_fdtable_close(e->t, uvm), 0);
    assert_int_equal(nvemu_fdtable_close(e->t, their_uvm), 0);
    assert_int_equal(nvemu_fdtable_close(e->t, other_ctl), 0);
}

/* An RM escape on the UVM node and a UVM number on an RM node are both -EINVAL; every call is counted. */
static void uvm_and_rm_numbers_stay_apart(void **state)
{
    struct tenv *e = *state;
    int uvm = uvm_open_initialized(e);
    assert_true(uvm >= 0);
    nvemu_stats before, after;
    nvemu_get_stats(e->emu, &before);
    NVOS00_PARAMETERS fp = {0};
    assert_int_equal(tio(e, uvm, NV_ESC_RM_FREE, &fp, sizeof(fp)), -EINVAL);
    uvm_u64_params rg = {.rmStatus = 0xFFFFFFFFu};
    assert_int_equal(uio(e, e->ctl, UVM_IOCTL_CREATE_RANGE_GROUP, &rg), -EINVAL);
    assert_int_equal(rg.rmStatus, 0xFFFFFFFFu);
    nvemu_get_stats(e->emu, &after);
    assert_int_equal(after.ioctls - before.ioctls, 2);
    assert_int_equal(nvemu_fdtable_close(e->t, uvm), 0);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
int main(void)
{
    const struct CMUnitTest tests[] = {
        T(uvm_rows_match_driver_layouts), T(uvm_requests_wait_for_initialize), T(uvm_range_group_ids_are_per_file),
        T(ctxshare_waits_for_uvm_vaspace_registration),
        T(uvm_vaspace_registration_finds_only_the_named_rm_files_client),
        T(uvm_and_rm_numbers_stay_apart),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
