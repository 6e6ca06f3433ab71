/*
 * GPU_GET_PIDS and GPU_GET_PID_INFO (emu/rm/ctrl_pids.c): the processes whose clients hold an object of a class
 * on the GPU, and each process's video memory by how it is shared, as the 580 driver counts them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>

#include "abi/nv_ctrl_monitoring.h"
#include "rm_fifo_util.h"

#define HDEV 0x5C000002u
#define HSUB 0x5C000003u
#define HVA 0x5C000009u
#define MIB (1024u * 1024u)

static NV_STATUS get_pids(struct tenv *e, uint32_t hc, uint32_t id_type, uint32_t id,
                          NV2080_CTRL_GPU_GET_PIDS_PARAMS *p)
{
    memset(p, 0, sizeof *p);
    p->idType = id_type;
    p->id = id;
    return tctrl(e, e->ctl, hc, HSUB, NV2080_CTRL_CMD_GPU_GET_PIDS, p, sizeof *p);
}

/* A second process (pid, same user) with /dev/nvidiactl, client, device and subdevice; its client handle. */
static uint32_t other_process(struct tenv *e, int32_t pid, int *fd)
{
    nvemu_identity who;
    tenv_identity(&who, pid, 1000, 0);
    *fd = nvemu_fdtable_open(e->t, "/dev/nvidiactl", &who);
    assert_true(*fd >= 0);
    uint32_t hc = tbase(e, *fd, HDEV, HSUB);
    assert_int_not_equal(hc, 0);
    return hc;
}

/*
 * Asked for a compute class, only the process with a compute object under a channel of the GPU is listed; asked
 * for the subdevice class, every process with the GPU's subdevice, in client order; no MPS or vGPU here.
 */
static void get_pids_lists_the_processes_holding_the_class_on_the_gpu(void **state)
{
    (void)state;
    struct tenv e;
    assert_int_equal(tenv_init(&e, false), 0);
    uint32_t hc = tbase_va(&e, e.ctl, HDEV, HSUB, HVA);
    assert_int_not_equal(hc, 0);
    int fd2;
    other_process(&e, 200, &fd2);
    NV2080_CTRL_GPU_GET_PIDS_PARAMS p;
    assert_int_equal(get_pids(&e, hc, NV2080_CTRL_GPU_GET_PIDS_ID_TYPE_CLASS, HOPPER_COMPUTE_A, &p), NV_OK);
    assert_int_equal(p.pidTblCount, 0);

    struct tgroup g = {0};
    assert_int_equal(tgroup_build(&e, e.ctl, hc, HDEV, HVA, 0x100, 2, &g), NV_OK);
    assert_int_equal(get_pids(&e, hc, NV2080_CTRL_GPU_GET_PIDS_ID_TYPE_CLASS, HOPPER_COMPUTE_A, &p), NV_OK);
    assert_int_equal(p.pidTblCount, 1);
    assert_int_equal(p.pidTbl[0], 100);
    assert_int_equal(get_pids(&e, hc, NV2080_CTRL_GPU_GET_PIDS_ID_TYPE_CLASS, HOPPER_DMA_COPY_A, &p), NV_OK);
    assert_int_equal(p.pidTblCount, 0);

    assert_int_equal(get_pids(&e, hc, NV2080_CTRL_GPU_GET_PIDS_ID_TYPE_CLASS, NV20_SUBDEVICE_0, &p), NV_OK);
    assert_int_equal(p.pidTblCount, 2);
    assert_int_equal(p.pidTbl[0], 100);
    assert_int_equal(p.pidTbl[1], 200);

    assert_int_equal(get_pids(&e, hc, NV2080_CTRL_GPU_GET_PIDS_ID_TYPE_CLASS, MPS_COMPUTE, &p), NV_OK);
    assert_int_equal(p.pidTblCount, 0);
    assert_int_equal(get_pids(&e, hc, NV2080_CTRL_GPU_GET_PIDS_ID_TYPE_VGPU_GUEST, 0, &p), NV_OK);
    assert_int_equal(p.pidTblCount, 0);
    assert_int_equal(get_pids(&e, hc, 2, HOPPER_COMPUTE_A, &p), NV_ERR_INVALID_ARGUMENT);

    /* the channels gone, the process no longer counts */
    assert_int_equal(tfree(&e, e.ctl, hc, g.htsg), NV_OK);
    assert_int_equal(get_pids(&e, hc, NV2080_CTRL_GPU_GET_PIDS_ID_TYPE_CLASS, HOPPER_COMPUTE_A, &p), NV_OK);
    assert_int_equal(p.pidTblCount, 0);
    tenv_fini(&e);
}

static uint32_t vidmem(struct tenv *e, int fd, uint32_t hc, uint32_t h, uint32_t hclass, uint64_t size)
{
    NV_MEMORY_ALLOCATION_PARAMS mp;
    memset(&mp, 0, sizeof mp);
    mp.size = size;
    assert_int_equal(talloc(e, fd, hc, HDEV, &h, hclass, &mp), NV_OK);
    return h;
}

static NV2080_CTRL_GPU_GET_PID_INFO_PARAMS pid_info;

/* Asks for the n entries given, with pidInfoListCount `count`. */
static NV_STATUS ask(struct tenv *e, uint32_t hc, const uint32_t *pids, const uint32_t *index, uint32_t n,
                     uint32_t count)
{
    memset(&pid_info, 0, sizeof pid_info);
    pid_info.pidInfoListCount = count;
    for (uint32_t i = 0; i < n; i++) {
        pid_info.pidInfoList[i].pid = pids[i];
        pid_info.pidInfoList[i].index = index[i];
    }
    return tctrl(e, e->ctl, hc, HSUB, NV2080_CTRL_CMD_GPU_GET_PID_INFO, &pid_info, sizeof pid_info);
}

/*
 * Video memory a process allocated alone is private; memory another client duplicated is "shared, owned" for
 * the allocating client and "shared, duplicated" for the duplicate's; system memory is not counted.
 */
static void get_pid_info_counts_video_memory_by_sharing(void **state)
{
    (void)state;
    struct tenv e;
    assert_int_equal(tenv_init(&e, false), 0);
    uint32_t hc = tbase(&e, e.ctl, HDEV, HSUB);
    assert_int_not_equal(hc, 0);
    uint32_t shared = vidmem(&e, e.ctl, hc, 0x5C000100u, NV01_MEMORY_LOCAL_USER, 4 * MIB);
    vidmem(&e, e.ctl, hc, 0x5C000101u, NV01_MEMORY_LOCAL_USER, 2 * MIB);
    vidmem(&e, e.ctl, hc, 0x5C000102u, NV01_MEMORY_SYSTEM, 8 * MIB);
    /* a second client of the same process duplicates the 4 MiB */
    uint32_t hc2 = 0;
    assert_int_equal(talloc(&e, e.ctl, 0, 0, &hc2, NV01_ROOT_CLIENT, NULL), NV_OK);
    NV0080_ALLOC_PARAMETERS dp;
    memset(&dp, 0, sizeof dp);
    uint32_t hdev2 = HDEV;
    assert_int_equal(talloc(&e, e.ctl, hc2, hc2, &hdev2, NV01_DEVICE_0, &dp), NV_OK);
    NVOS55_PARAMETERS dup = {.hClient = hc2, .hParent = HDEV, .hObject = 0x5C000200u, .hClientSrc = hc,
                             .hObjectSrc = shared};
    assert_int_equal(tio(&e, e.ctl, NV_ESC_RM_DUP_OBJECT, &dup, sizeof dup), 0);
    assert_int_equal(dup.status, NV_OK);
    /* another process's memory is its own */
    int fd2;
    uint32_t hc3 = other_process(&e, 200, &fd2);
    vidmem(&e, fd2, hc3, 0x5C000100u, NV01_MEMORY_LOCAL_USER, 6 * MIB);

    const uint32_t pids[] = {100, 200, 999, 0, 100};
    const uint32_t index[] = {0, 0, 0, 0, 1};
    assert_int_equal(ask(&e, hc, pids, index, 5, 5), NV_OK);
    const NV2080_CTRL_GPU_PID_INFO *r = pid_info.pidInfoList;
    assert_int_equal(r[0].result, NV_OK);
    assert_int_equal(r[0].vidMemUsage.memPrivate, 2 * MIB);
    assert_int_equal(r[0].vidMemUsage.memSharedOwned, 4 * MIB);
    assert_int_equal(r[0].vidMemUsage.memSharedDuped, 4 * MIB);
    assert_int_equal(r[0].vidMemUsage.protectedMemPrivate, 0);
    assert_int_equal(r[0].computeInstanceId, NV2080_CTRL_GPU_PID_INFO_PARTITIONID_INVALID);
    assert_int_equal(r[0].gpuInstanceId, NV2080_CTRL_GPU_PID_INFO_PARTITIONID_INVALID);
    assert_int_equal(r[1].vidMemUsage.memPrivate, 6 * MIB);
    assert_int_equal(r[1].vidMemUsage.memSharedOwned, 0);
    /* a pid with no client: answered, nothing counted */
    assert_int_equal(r[2].result, NV_OK);
    assert_int_equal(r[2].vidMemUsage.memPrivate, 0);
    assert_int_equal(r[3].result, NV_ERR_INVALID_ARGUMENT);
    assert_int_equal(r[4].result, NV_ERR_INVALID_ARGUMENT);
    assert_int_equal(r[4].computeInstanceId, NV2080_CTRL_GPU_PID_INFO_PARTITIONID_INVALID);

    /* the duplicate freed, the memory is private again */
    assert_int_equal(tfree(&e, e.ctl, hc2, 0x5C000200u), NV_OK);
    assert_int_equal(ask(&e, hc, pids, index, 1, 1), NV_OK);
    assert_int_equal(pid_info.pidInfoList[0].vidMemUsage.memPrivate, 6 * MIB);
    assert_int_equal(pid_info.pidInfoList[0].vidMemUsage.memSharedOwned, 0);
    tenv_fini(&e);
}

/* A list of no entries, or of more than 200, is refused whole. */
static void get_pid_info_refuses_an_empty_or_oversized_list(void **state)
{
    (void)state;
    struct tenv e;
    assert_int_equal(tenv_init(&e, false), 0);
    uint32_t hc = tbase(&e, e.ctl, HDEV, HSUB);
    assert_int_not_equal(hc, 0);
    const uint32_t pids[] = {100}, index[] = {0};
    assert_int_equal(ask(&e, hc, pids, index, 1, 0), NV_ERR_INVALID_ARGUMENT);
    assert_int_equal(ask(&e, hc, pids, index, 1, NV2080_CTRL_GPU_GET_PID_INFO_MAX_COUNT + 1), NV_ERR_INVALID_ARGUMENT);
    tenv_fini(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(get_pids_lists_the_processes_holding_the_class_on_the_gpu),
        cmocka_unit_test(get_pid_info_counts_video_memory_by_sharing),
        cmocka_unit_test(get_pid_info_refuses_an_empty_or_oversized_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
