/*
 * Run-time companions of the ABI headers' _Static_asserts: sizes and offsets
 * from the open driver (docs/driver-sources.md) checked again with offsetof/sizeof, plus the request
 * word encoding user space builds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "abi/nv_alloc.h"
#include "abi/nv_classes.h"
#include "abi/nv_engine.h"
#include "abi/nv_escape.h"

#define OFF(t, f, v) assert_int_equal(offsetof(t, f), v)
#define SZ(t, v) assert_int_equal(sizeof(t), v)

static void os_structs(void **state)
{
    (void)state;
    SZ(nv_ioctl_xfer_t, 16); OFF(nv_ioctl_xfer_t, ptr, 8);
    SZ(nv_ioctl_card_info_t, 72); OFF(nv_ioctl_card_info_t, pci_info, 4); OFF(nv_ioctl_card_info_t, gpu_id, 16);
    OFF(nv_ioctl_card_info_t, reg_address, 24); OFF(nv_ioctl_card_info_t, fb_size, 48);
    OFF(nv_ioctl_card_info_t, minor_number, 56); OFF(nv_ioctl_card_info_t, dev_name, 60);
    SZ(nv_pci_info_t, 12); OFF(nv_pci_info_t, vendor_id, 8); OFF(nv_pci_info_t, device_id, 10);
    SZ(nv_ioctl_alloc_os_event_t, 16); OFF(nv_ioctl_alloc_os_event_t, Status, 12);
    SZ(nv_ioctl_status_code_t, 12); OFF(nv_ioctl_status_code_t, slot, 5); OFF(nv_ioctl_status_code_t, status, 8);
    SZ(nv_ioctl_rm_api_version_t, 72); OFF(nv_ioctl_rm_api_version_t, versionString, 8);
    SZ(nv_ioctl_sys_params_t, 8);
    SZ(nv_ioctl_register_fd_t, 4);
    SZ(nv_ioctl_numa_info_t, 560); OFF(nv_ioctl_numa_info_t, use_auto_online, 32);
    OFF(nv_ioctl_numa_info_t, offline_addresses, 40); SZ(nv_offline_addresses_t, 520);
    OFF(nv_offline_addresses_t, numEntries, 512);
    SZ(nv_ioctl_wait_open_complete_t, 8);
}

static void rm_structs(void **state)
{
    (void)state;
    SZ(NVOS00_PARAMETERS, 16); OFF(NVOS00_PARAMETERS, hObjectOld, 8); OFF(NVOS00_PARAMETERS, status, 12);
    SZ(NVOS02_PARAMETERS, 48); OFF(NVOS02_PARAMETERS, pMemory, 24); OFF(NVOS02_PARAMETERS, limit, 32);
    OFF(NVOS02_PARAMETERS, status, 40);
    SZ(nv_ioctl_nvos02_parameters_with_fd, 56); OFF(nv_ioctl_nvos02_parameters_with_fd, fd, 48);
    SZ(NVOS05_PARAMETERS, 20); OFF(NVOS05_PARAMETERS, status, 16);
    SZ(NVOS21_PARAMETERS, 32); OFF(NVOS21_PARAMETERS, pAllocParms, 16); OFF(NVOS21_PARAMETERS, paramsSize, 24);
    OFF(NVOS21_PARAMETERS, status, 28);
    SZ(NVOS64_PARAMETERS, 48); OFF(NVOS64_PARAMETERS, pRightsRequested, 24); OFF(NVOS64_PARAMETERS, paramsSize, 32);
    OFF(NVOS64_PARAMETERS, flags, 36); OFF(NVOS64_PARAMETERS, status, 40);
    SZ(NVOS54_PARAMETERS, 32); OFF(NVOS54_PARAMETERS, cmd, 8); OFF(NVOS54_PARAMETERS, params, 16);
    OFF(NVOS54_PARAMETERS, paramsSize, 24); OFF(NVOS54_PARAMETERS, status, 28);
    SZ(NVOS55_PARAMETERS, 28); OFF(NVOS55_PARAMETERS, hObjectSrc, 16); OFF(NVOS55_PARAMETERS, status, 24);
    SZ(NVOS57_PARAMETERS, 24); OFF(NVOS57_PARAMETERS, sharePolicy, 8); OFF(NVOS57_PARAMETERS, status, 20);
    SZ(RS_SHARE_POLICY, 12); OFF(RS_SHARE_POLICY, action, 10);
    SZ(NVOS33_PARAMETERS, 48); OFF(NVOS33_PARAMETERS, offset, 16); OFF(NVOS33_PARAMETERS, pLinearAddress, 32);
    OFF(NVOS33_PARAMETERS, flags, 44);
    SZ(nv_ioctl_nvos33_parameters_with_fd, 56);
    SZ(NVOS34_PARAMETERS, 32); OFF(NVOS34_PARAMETERS, status, 24);
    SZ(NVOS41_PARAMETERS, 16); OFF(NVOS41_PARAMETERS, MoreEvents, 8);
    SZ(NVOS30_PARAMETERS, 56); OFF(NVOS30_PARAMETERS, phChannels, 32); OFF(NVOS30_PARAMETERS, status, 48);
    SZ(NVOS46_PARAMETERS, 64); OFF(NVOS46_PARAMETERS, dmaOffset, 48); OFF(NVOS46_PARAMETERS, status, 56);
    SZ(NVOS47_PARAMETERS, 48); OFF(NVOS47_PARAMETERS, dmaOffset, 24); OFF(NVOS47_PARAMETERS, status, 40);
    SZ(NVOS56_PARAMETERS, 40); OFF(NVOS56_PARAMETERS, pNewCpuAddress, 24); OFF(NVOS56_PARAMETERS, status, 32);
    SZ(NVOS32_PARAMETERS, 184);
}

static void alloc_structs(void **state)
{
    (void)state;
    SZ(NV0000_ALLOC_PARAMETERS, 120); OFF(NV0000_ALLOC_PARAMETERS, pOsPidInfo, 112);
    SZ(NV0080_ALLOC_PARAMETERS, 56); OFF(NV0080_ALLOC_PARAMETERS, vaSpaceSize, 24);
    OFF(NV0080_ALLOC_PARAMETERS, vaMode, 48);
    SZ(NV2080_ALLOC_PARAMETERS, 4);
    SZ(NV_VASPACE_ALLOCATION_PARAMETERS, 56); OFF(NV_VASPACE_ALLOCATION_PARAMETERS, bigPageSize, 32);
    OFF(NV_VASPACE_ALLOCATION_PARAMETERS, pasid, 48);
    SZ(NV_MEMORY_ALLOCATION_PARAMS, 128); OFF(NV_MEMORY_ALLOCATION_PARAMS, rangeLo, 48);
    OFF(NV_MEMORY_ALLOCATION_PARAMS, address, 96); OFF(NV_MEMORY_ALLOCATION_PARAMS, numaNode, 120);
    SZ(NV_MEMORY_VIRTUAL_ALLOCATION_PARAMS, 24); OFF(NV_MEMORY_VIRTUAL_ALLOCATION_PARAMS, hVASpace, 16);
    SZ(NV_HOPPER_USERMODE_A_PARAMS, 2);
    SZ(NV0005_ALLOC_PARAMETERS, 24); OFF(NV0005_ALLOC_PARAMETERS, data, 16);
    SZ(NV_GR_ALLOCATION_PARAMETERS, 16); OFF(NV_GR_ALLOCATION_PARAMETERS, caps, 12);
    SZ(NV_MEMORY_DESC_PARAMS, 24);
}

static void request_words(void **state)
{
    (void)state;
    assert_int_equal(NV_IOCTL_REQUEST(NV_ESC_RM_ALLOC, 48), 0xC030462Bu);
    assert_int_equal(NV_IOCTL_REQUEST(NV_ESC_RM_ALLOC, 32), 0xC020462Bu);
    assert_int_equal(NV_IOCTL_REQUEST(NV_ESC_RM_CONTROL, sizeof(NVOS54_PARAMETERS)), 0xC020462Au);
    assert_int_equal(NV_IOCTL_REQUEST(NV_ESC_RM_FREE, sizeof(NVOS00_PARAMETERS)), 0xC0104629u);
    assert_int_equal(NV_IOCTL_REQUEST(NV_ESC_RM_MAP_MEMORY, 56), 0xC038464Eu);
    assert_int_equal(NV_IOCTL_REQUEST(NV_ESC_CARD_INFO, 32 * 72), 0xC90046C8u);
    assert_int_equal(NV_IOCTL_REQUEST(NV_ESC_NUMA_INFO, sizeof(nv_ioctl_numa_info_t)), 0xC23046D7u);
    assert_int_equal(NV_IOCTL_REQUEST(NV_ESC_RM_QUERY_GROUP, 32), 0xC0204660u);
    assert_int_equal(NV_IOCTL_NR(0xC0204660u), 0x60);
    assert_int_equal(NV_IOCTL_SIZE(0xC23046D7u), 560);
    assert_int_equal(NV2080_ENGINE_TYPE_COPY(2), 0x0B);
    assert_int_equal(NV2080_ENGINE_TYPE_NVDEC7, 0x1A);
    assert_int_equal(NV_CTRL_CMD_CLASS(0xA06C0103u), KEPLER_CHANNEL_GROUP_A);
}

static void status_names(void **state)
{
    (void)state;
    assert_string_equal(nv_status_name(NV_ERR_INVALID_CLIENT), "NV_ERR_INVALID_CLIENT");
    assert_string_equal(nv_status_name(NV_OK), "NV_OK");
    assert_string_equal(nv_status_name(0x1234u), "NV_STATUS_0x00001234");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(os_structs), cmocka_unit_test(rm_structs), cmocka_unit_test(alloc_structs),
        cmocka_unit_test(request_words), cmocka_unit_test(status_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
