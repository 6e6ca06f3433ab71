/*
 * Discovery controls through the real ioctl path (in-process fd table):
 * answers come from the profile, embedded pointers follow the driver's rules.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "abi/nv_classes.h"

#include "abi/nv_ctrl_discovery.h"
#include "abi/nv_alloc.h"
#include "abi/nv_escape.h"
#include "abi/nv_status.h"
#include "front/inproc.h"
#include "nvemu/nvemu.h"
#include "profile/profile.h"

#define REQ(nr, size) (0xC0000000u | ((uint32_t)(size) << 16) | 0x4600u | (nr))
#define H_DEVICE 0x5c000002u
#define H_SUBDEV 0x5c000003u

struct fx {
    nvemu *emu;
    nvemu_fdtable *t;
    int ctl;
    uint32_t client;
    struct profile *prof;
};

static NV_STATUS alloc(struct fx *f, uint32_t parent, uint32_t h, uint32_t hclass, void *params)
{
    NVOS64_PARAMETERS a = {.hRoot = f->client, .hObjectParent = parent, .hObjectNew = h, .hClass = hclass,
                           .pAllocParms = (uintptr_t)params};
    assert_int_equal(nvemu_fdtable_ioctl(f->t, f->ctl, REQ(0x2B, sizeof a), &a), 0);
    if (!f->client)
        f->client = a.hObjectNew;
    return a.status;
}

static NV_STATUS ctrl(struct fx *f, uint32_t h, uint32_t cmd, void *params, uint32_t size)
{
    NVOS54_PARAMETERS c = {.hClient = f->client, .hObject = h, .cmd = cmd, .params = (uintptr_t)params,
                           .paramsSize = size};
    assert_int_equal(nvemu_fdtable_ioctl(f->t, f->ctl, REQ(0x2A, sizeof c), &c), 0);
    return c.status;
}

static int setup_profile(void **state, const char *name)
{
    struct fx *f = calloc(1, sizeof *f);
    nvemu_config cfg;
    nvemu_config_init(&cfg);
    cfg.profile = name;
    char err[256];
    f->emu = nvemu_create(&cfg, err, sizeof err);
    assert_non_null(f->emu);
    f->prof = profile_load(name, err, sizeof err);
    assert_non_null(f->prof);
    f->t = nvemu_fdtable_create(f->emu, false);
    nvemu_identity who;
    nvemu_identity_self(&who);
    f->ctl = nvemu_fdtable_open(f->t, "/dev/nvidiactl", &who);
    assert_true(f->ctl >= 0);
    /* The driver lets a process allocate a device only while it has the GPU's node open. */
    assert_true(nvemu_fdtable_open(f->t, "/dev/nvidia0", &who) >= 0);
    uint32_t h = 0;
    assert_int_equal(alloc(f, 0, 0, 0x41, &h), NV_OK);
    NV0080_ALLOC_PARAMETERS dp = {0};
    assert_int_equal(alloc(f, f->client, H_DEVICE, 0x80, &dp), NV_OK);
    uint32_t sp = 0;
    assert_int_equal(alloc(f, H_DEVICE, H_SUBDEV, NV20_SUBDEVICE_0, &sp), NV_OK);
    *state = f;
    return 0;
}

static int setup_h200(void **state)
{
    return setup_profile(state, "h200");
}

static int setup_a100(void **state)
{
    return setup_profile(state, "a100");
}

static int teardown(void **state)
{
    struct fx *f = *state;
    nvemu_fdtable_destroy(f->t);
    nvemu_destroy(f->emu);
    profile_free(f->prof);
    free(f);
    return 0;
}

static void classlist_v2_answers_the_profiles_classes(void **state)
{
    struct fx *f = *state;
    NV0080_CTRL_GPU_GET_CLASSLIST_V2_PARAMS p;
    memset(&p, 0xAB, sizeof p);
    assert_int_equal(ctrl(f, H_DEVICE, NV0080_CTRL_CMD_GPU_GET_CLASSLIST_V2, &p, sizeof p), NV_OK);
    assert_int_equal(p.numClasses, f->prof->class_count);
    assert_memory_equal(p.classList, f->prof->classes, f->prof->class_count * 4);
    assert_int_equal(p.classList[f->prof->class_count], 0);
    /* wrong paramsSize is the generic 580 check */
    assert_int_equal(ctrl(f, H_DEVICE, NV0080_CTRL_CMD_GPU_GET_CLASSLIST_V2, &p, sizeof p - 4),
                     NV_ERR_INVALID_ARGUMENT);
}

static void classlist_counts_on_a_null_list_and_fills_a_given_one(void **state)
{
    struct fx *f = *state;
    NV0080_CTRL_GPU_GET_CLASSLIST_PARAMS p = {0};
    /* NULL list: count query */
    assert_int_equal(ctrl(f, H_DEVICE, NV0080_CTRL_CMD_GPU_GET_CLASSLIST, &p, sizeof p), NV_OK);
    assert_int_equal(p.numClasses, f->prof->class_count);
    uint32_t *list = calloc(p.numClasses + 1, 4);
    p.classList = (uintptr_t)list;
    p.numClasses += 1;
    assert_int_equal(ctrl(f, H_DEVICE, NV0080_CTRL_CMD_GPU_GET_CLASSLIST, &p, sizeof p), NV_OK);
    assert_int_equal(p.numClasses, f->prof->class_count);
    assert_memory_equal(list, f->prof->classes, f->prof->class_count * 4);
    /* count 0 with a list, or a count whose byte size passes 1 MiB: INVALID_ARGUMENT */
    p.numClasses = 0;
    assert_int_equal(ctrl(f, H_DEVICE, NV0080_CTRL_CMD_GPU_GET_CLASSLIST, &p, sizeof p), NV_ERR_INVALID_ARGUMENT);
    p.numClasses = 0x40000001u;
    assert_int_equal(ctrl(f, H_DEVICE, NV0080_CTRL_CMD_GPU_GET_CLASSLIST, &p, sizeof p), NV_ERR_INVALID_ARGUMENT);
    /* too small for the list */
    p.numClasses = 2;
    assert_int_equal(ctrl(f, H_DEVICE, NV0080_CTRL_CMD_GPU_GET_CLASSLIST, &p, sizeof p),
                     NV_ERR_INVALID_PARAM_STRUCT);
    /* unwritable pointer */
    p.numClasses = f->prof->class_count;
    p.classList = 0x10;
    assert_int_equal(ctrl(f, H_DEVICE, NV0080_CTRL_CMD_GPU_GET_CLASSLIST, &p, sizeof p), NV_ERR_INVALID_ADDRESS);
    free(list);
}

static void gr_info_answers_sm_version_and_subcontexts_and_refuses_bad_lists(void **state)
{
    struct fx *f = *state;
    nv_ctrl_info_pair list[3] = {{0x0C, 0xDEAD}, {0x2C, 0xDEAD}, {0x01, 0xDEAD}};
    NV2080_CTRL_GR_GET_INFO_PARAMS p = {.grInfoListSize = 3, .grInfoList = (uintptr_t)list};
    assert_int_equal(ctrl(f, H_SUBDEV, NV2080_CTRL_CMD_GR_GET_INFO, &p, sizeof p), NV_OK);
    uint32_t sm_version = 0, subctx = 0;
    for (uint32_t i = 0; i < f->prof->gr_info_count; i++) {
        if (f->prof->gr_info[i].index == 0x0C)
            sm_version = f->prof->gr_info[i].value;
        if (f->prof->gr_info[i].index == 0x2C)
            subctx = f->prof->gr_info[i].value;
    }
    assert_int_equal(list[0].data, sm_version);
    assert_int_equal(list[1].data, subctx);
    assert_int_equal(list[2].data, 0);
    p.grInfoListSize = 0;
    assert_int_equal(ctrl(f, H_SUBDEV, NV2080_CTRL_CMD_GR_GET_INFO, &p, sizeof p), NV_ERR_INVALID_ARGUMENT);
    p.grInfoListSize = 0x20000001u;
    assert_int_equal(ctrl(f, H_SUBDEV, NV2080_CTRL_CMD_GR_GET_INFO, &p, sizeof p), NV_ERR_INVALID_ARGUMENT);
    p.grInfoListSize = 1;
    list[0].index = f->prof->gr_info_max;
    assert_int_equal(ctrl(f, H_SUBDEV, NV2080_CTRL_CMD_GR_GET_INFO, &p, sizeof p), NV_ERR_INVALID_ARGUMENT);
    p.grInfoList = 0x10;
    assert_int_equal(ctrl(f, H_SUBDEV, NV2080_CTRL_CMD_GR_GET_INFO, &p, sizeof p), NV_ERR_INVALID_ADDRESS);
    p.grInfoList = 0;
    assert_int_equal(ctrl(f, H_SUBDEV, NV2080_CTRL_CMD_GR_GET_INFO, &p, sizeof p), NV_ERR_INVALID_ARGUMENT);
}

static void gpu_info_v2_answers_the_profiles_values_and_refuses_bad_lists(void **state)
{
    struct fx *f = *state;
    NV2080_CTRL_GPU_GET_INFO_V2_PARAMS p = {.gpuInfoListSize = 1};
    p.gpuInfoList[0].index = f->prof->gpu_info[0].index;
    assert_int_equal(ctrl(f, H_SUBDEV, NV2080_CTRL_CMD_GPU_GET_INFO_V2, &p, sizeof p), NV_OK);
    assert_int_equal(p.gpuInfoList[0].data, f->prof->gpu_info[0].value);
    p.gpuInfoList[0].index = 0x7FFF;
    assert_int_equal(ctrl(f, H_SUBDEV, NV2080_CTRL_CMD_GPU_GET_INFO_V2, &p, sizeof p), NV_ERR_INVALID_ARGUMENT);
    p.gpuInfoListSize = NV2080_CTRL_GPU_INFO_MAX_LIST_SIZE + 1;
    assert_int_equal(ctrl(f, H_SUBDEV, NV2080_CTRL_CMD_GPU_GET_INFO_V2, &p, sizeof p), NV_ERR_INVALID_ARGUMENT);
}

static void test_names_ids_engines(void **state)
{
    struct fx *f = *state;
    NV2080_CTRL_GPU_GET_NAME_STRING_PARAMS n = {0};
    assert_int_equal(ctrl(f, H_SUBDEV, NV2080_CTRL_CMD_GPU_GET_NAME_STRING, &n, sizeof n), NV_OK);
    assert_string_equal((char *)n.gpuNameString.ascii, f->prof->marketing_name);
    n.gpuNameStringFlags = 1;
    assert_int_equal(ctrl(f, H_SUBDEV, NV2080_CTRL_CMD_GPU_GET_NAME_STRING, &n, sizeof n), NV_OK);
    assert_int_equal(n.gpuNameString.unicode[0], (uint16_t)f->prof->marketing_name[0]);
    n.gpuNameStringFlags = 7;
    assert_int_equal(ctrl(f, H_SUBDEV, NV2080_CTRL_CMD_GPU_GET_NAME_STRING, &n, sizeof n), NV_ERR_INVALID_ARGUMENT);

    uint32_t gpu_id = (f->prof->pci_domain & 0xFFFF) << 16 | f->prof->pci_bus << 8 | f->prof->pci_slot;
    /* initialised: valgrind does not see the emulator's process_vm_writev copy-out */
    NV0000_CTRL_GPU_GET_ATTACHED_IDS_PARAMS a = {{0}};
    assert_int_equal(ctrl(f, f->client, NV0000_CTRL_CMD_GPU_GET_ATTACHED_IDS, &a, sizeof a), NV_OK);
    assert_int_equal(a.gpuIds[0], gpu_id);
    assert_int_equal(a.gpuIds[1], NV0000_CTRL_GPU_INVALID_ID);

    NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS id = {.gpuId = gpu_id};
    assert_int_equal(ctrl(f, f->client, NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2, &id, sizeof id), NV_OK);
    assert_int_equal(id.gpuFlags, NV0000_CTRL_GPU_ID_INFO_IN_USE);
    assert_int_equal(id.sliStatus, f->prof->sli_status);
    id.gpuId = 0x1234;
    assert_int_equal(ctrl(f, f->client, NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2, &id, sizeof id), NV_ERR_INVALID_ARGUMENT);

    NV2080_CTRL_GPU_GET_ENGINES_V2_PARAMS e = {0};
    assert_int_equal(ctrl(f, H_SUBDEV, NV2080_CTRL_CMD_GPU_GET_ENGINES_V2, &e, sizeof e), NV_OK);
    assert_int_equal(e.engineCount, f->prof->engine_count);
    for (uint32_t i = 0; i < e.engineCount; i++)
        assert_int_equal(e.engineList[i], f->prof->engines[i].engine_type);
}

static void test_build_version(void **state)
{
    struct fx *f = *state;
    NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_PARAMS p = {0};
    assert_int_equal(ctrl(f, f->client, NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION, &p, sizeof p), NV_OK);
    uint32_t need = p.sizeOfStrings;
    assert_int_equal(need, strlen(f->prof->build_title) + 1);
    char d[128] = "", v[128] = "", t[128] = "";
    p.pDriverVersionBuffer = (uintptr_t)d;
    p.pVersionBuffer = (uintptr_t)v;
    p.pTitleBuffer = (uintptr_t)t;
    p.sizeOfStrings = need - 1;
    assert_int_equal(ctrl(f, f->client, NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION, &p, sizeof p),
                     NV_ERR_INVALID_PARAM_STRUCT);
    p.sizeOfStrings = need;
    assert_int_equal(ctrl(f, f->client, NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION, &p, sizeof p), NV_OK);
    assert_string_equal(d, f->prof->driver_version);
    assert_string_equal(t, f->prof->build_title);
    assert_int_equal(p.officialChangelistNumber, f->prof->official_changelist);
    p.pTitleBuffer = 0x10;
    assert_int_equal(ctrl(f, f->client, NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION, &p, sizeof p), NV_ERR_INVALID_ADDRESS);
}

static void canned_answer_is_chosen_by_its_input_else_not_supported(void **state)
{
    struct fx *f = *state;
    uint8_t p[24] = {0};
    p[16] = 4; /* GPC 4 */
    assert_int_equal(ctrl(f, H_SUBDEV, 0x2080122B, p, sizeof p), NV_OK);
    assert_int_equal(p[20] | p[21] << 8, 0x1DF);   /* recorded, trace line 65 */
    memset(p, 0, sizeof p);
    p[16] = 9; /* no recorded answer */
    assert_int_equal(ctrl(f, H_SUBDEV, 0x2080122B, p, sizeof p), NV_ERR_NOT_SUPPORTED);
}

/* IN_USE is global: a second client without a device sees it while the first holds one. */
static void test_in_use_is_global(void **state)
{
    struct fx *f = *state;
    uint32_t gpu_id = (f->prof->pci_domain & 0xFFFF) << 16 | f->prof->pci_bus << 8 | f->prof->pci_slot;
    uint32_t first = f->client;
    f->client = 0;
    uint32_t h = 0;
    assert_int_equal(alloc(f, 0, 0, 0x41, &h), NV_OK);
    assert_int_not_equal(f->client, first);
    NV0000_CTRL_GPU_GET_ID_INFO_PARAMS id = {.gpuId = gpu_id};
    assert_int_equal(ctrl(f, f->client, NV0000_CTRL_CMD_GPU_GET_ID_INFO, &id, sizeof id), NV_OK);
    assert_int_equal(id.gpuFlags, NV0000_CTRL_GPU_ID_INFO_IN_USE);
    assert_int_equal(id.boardId, gpu_id);
    assert_int_equal(id.numaId, -1);
    /* free the first client's device: nobody uses the GPU any more */
    NVOS00_PARAMETERS fr = {.hRoot = first, .hObjectParent = first, .hObjectOld = H_DEVICE};
    assert_int_equal(nvemu_fdtable_ioctl(f->t, f->ctl, REQ(0x29, sizeof fr), &fr), 0);
    assert_int_equal(fr.status, NV_OK);
    memset(&id, 0, sizeof id);
    id.gpuId = gpu_id;
    assert_int_equal(ctrl(f, f->client, NV0000_CTRL_CMD_GPU_GET_ID_INFO, &id, sizeof id), NV_OK);
    assert_int_equal(id.gpuFlags, 0);
}

/* Another profile, other answers: nothing is hard-coded to the H200. */
static void test_a100_answers(void **state)
{
    struct fx *f = *state;
    NV0080_CTRL_GPU_GET_CLASSLIST_V2_PARAMS p = {0};
    assert_int_equal(ctrl(f, H_DEVICE, NV0080_CTRL_CMD_GPU_GET_CLASSLIST_V2, &p, sizeof p), NV_OK);
    bool ampere = false, hopper = false;
    for (uint32_t i = 0; i < p.numClasses; i++) {
        ampere |= p.classList[i] == AMPERE_COMPUTE_A;
        hopper |= p.classList[i] == HOPPER_COMPUTE_A;
    }
    assert_true(ampere);
    assert_false(hopper);
    NV2080_CTRL_BUS_GET_PCI_INFO_PARAMS pci = {0};
    assert_int_equal(ctrl(f, H_SUBDEV, NV2080_CTRL_CMD_BUS_GET_PCI_INFO, &pci, sizeof pci), NV_OK);
    assert_int_equal(pci.pciDeviceId, 0x20B010DEu);
    /* a100 has no recorded answers: canned controls are unsupported there */
    uint8_t c[24] = {0};
    assert_int_equal(ctrl(f, H_SUBDEV, 0x2080122B, c, sizeof c), NV_ERR_NOT_SUPPORTED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(classlist_v2_answers_the_profiles_classes, setup_h200, teardown),
        cmocka_unit_test_setup_teardown(classlist_counts_on_a_null_list_and_fills_a_given_one, setup_h200, teardown),
        cmocka_unit_test_setup_teardown(gr_info_answers_sm_version_and_subcontexts_and_refuses_bad_lists,
            setup_h200, teardown),
        cmocka_unit_test_setup_teardown(gpu_info_v2_answers_the_profiles_values_and_refuses_bad_lists,
            setup_h200, teardown),
        cmocka_unit_test_setup_teardown(test_names_ids_engines, setup_h200, teardown),
        cmocka_unit_test_setup_teardown(test_build_version, setup_h200, teardown),
        cmocka_unit_test_setup_teardown(canned_answer_is_chosen_by_its_input_else_not_supported, setup_h200, teardown),
        cmocka_unit_test_setup_teardown(test_in_use_is_global, setup_h200, teardown),
        cmocka_unit_test_setup_teardown(test_a100_answers, setup_a100, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
