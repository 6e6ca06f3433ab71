/*
 * The descriptor tables of nv_abi_desc.h. Sizes come from sizeof/offsetof of
 * the asserted structs, never typed twice; older releases' sizes from the
 * asserted structs of nv_layouts_pre580.h.
 */
#include "abi/nv_abi_desc.h"

#include <stdlib.h>
#include <string.h>

#include "abi/nv_alloc.h"
#include "abi/nv_alloc_fifo.h"
#include "abi/nv_classes.h"
#include "abi/nv_ctrl_core.h"
#include "abi/nv_ctrl_discovery.h"
#include "abi/nv_ctrl_fifo.h"
#include "abi/nv_ctrl_monitoring.h"
#include "abi/nv_escape.h"
#include "abi/nv_layouts_pre580.h"
#include "abi/nv_uvm.h"

/* ---------------- releases ---------------- */

/*
 * 550.120: GPreempt's target; 575.57.08: gpu_ext's patched driver, whose nv_gpu_sched_ops is generation K4 at
 * its current head (gpu_ext-kernel-modules 849ea75d/6a5b3bb5: the four-member ops with on_timeslice_control,
 * docs/driver-versions.md); 580.159.04: the recorded boards.
 */
static const struct nv_release_info releases[NV_REL_COUNT] = {
    [NV_REL_550] = {NV_REL_550, 550, "550.120", NULL},
    [NV_REL_575] = {NV_REL_575, 575, "575.57.08", "K4"},
    [NV_REL_580] = {NV_REL_580, 580, "580.159.04", NULL},
};

const struct nv_release_info *nv_release_info(enum nv_release rel)
{
    return &releases[rel < NV_REL_COUNT ? rel : NV_REL_BASE];
}

bool nv_release_parse(const char *version, enum nv_release *rel)
{
    if (!version)
        return false;
    char *end;
    unsigned long major = strtoul(version, &end, 10);
    if (end == version || (*end && *end != '.'))
        return false;
    for (int i = 0; i < NV_REL_COUNT; i++)
        if (releases[i].major == major) {
            *rel = (enum nv_release)i;
            return true;
        }
    return false;
}

/* ---------------- classes ---------------- */

#define CLS(sym, kind_, arch_, size_) {(sym), #sym, (kind_), (arch_), (size_), true}
#define IFACE(sym, kind_, arch_) {(sym), #sym, (kind_), (arch_), 0, false}

const struct nv_class_desc nv_class_descs[] = {
    CLS(NV01_ROOT, NV_CK_ROOT, NV_ARCH_NONE, NV0000_ALLOC_COPY_SIZE),
    CLS(NV01_ROOT_NON_PRIV, NV_CK_ROOT, NV_ARCH_NONE, NV0000_ALLOC_COPY_SIZE),
    CLS(NV01_ROOT_CLIENT, NV_CK_ROOT, NV_ARCH_NONE, NV0000_ALLOC_COPY_SIZE),

    CLS(NV01_EVENT, NV_CK_EVENT, NV_ARCH_NONE, sizeof(NV0005_ALLOC_PARAMETERS)),
    CLS(NV01_EVENT_OS_EVENT, NV_CK_EVENT, NV_ARCH_NONE, sizeof(NV0005_ALLOC_PARAMETERS)),
    CLS(NV01_EVENT_KERNEL_CALLBACK, NV_CK_EVENT, NV_ARCH_NONE, sizeof(NV0005_ALLOC_PARAMETERS)),
    CLS(NV01_EVENT_KERNEL_CALLBACK_EX, NV_CK_EVENT, NV_ARCH_NONE, sizeof(NV0005_ALLOC_PARAMETERS)),

    CLS(NV01_MEMORY_SYSTEM, NV_CK_MEMORY, NV_ARCH_NONE, sizeof(NV_MEMORY_ALLOCATION_PARAMS)),
    CLS(NV01_MEMORY_LOCAL_USER, NV_CK_MEMORY, NV_ARCH_NONE, sizeof(NV_MEMORY_ALLOCATION_PARAMS)),
    CLS(NV01_MEMORY_VIRTUAL, NV_CK_MEMORY, NV_ARCH_NONE, sizeof(NV_MEMORY_VIRTUAL_ALLOCATION_PARAMS)),
    CLS(NV50_MEMORY_VIRTUAL, NV_CK_MEMORY, NV_ARCH_NONE, sizeof(NV_MEMORY_ALLOCATION_PARAMS)),
    CLS(NV_MEMORY_FABRIC, NV_CK_MEMORY, NV_ARCH_NONE, sizeof(NV00F8_ALLOCATION_PARAMETERS)),
    /* created by NV_ESC_RM_ALLOC_MEMORY (NVOS02), which carries no params struct */
    CLS(NV01_MEMORY_SYSTEM_OS_DESCRIPTOR, NV_CK_MEMORY, NV_ARCH_NONE, 0),

    CLS(NV01_DEVICE_0, NV_CK_DEVICE, NV_ARCH_NONE, sizeof(NV0080_ALLOC_PARAMETERS)),
    CLS(NV20_SUBDEVICE_0, NV_CK_SUBDEVICE, NV_ARCH_NONE, sizeof(NV2080_ALLOC_PARAMETERS)),
    CLS(FERMI_VASPACE_A, NV_CK_VASPACE, NV_ARCH_FERMI, sizeof(NV_VASPACE_ALLOCATION_PARAMETERS)),
    CLS(KEPLER_CHANNEL_GROUP_A, NV_CK_TSG, NV_ARCH_KEPLER, sizeof(NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS)),
    CLS(FERMI_CONTEXT_SHARE_A, NV_CK_CTXSHARE, NV_ARCH_FERMI, sizeof(NV_CTXSHARE_ALLOCATION_PARAMETERS)),

    CLS(BLACKWELL_CHANNEL_GPFIFO_B, NV_CK_CHANNEL, NV_ARCH_BLACKWELL, sizeof(NV_CHANNEL_ALLOC_PARAMS)),
    CLS(BLACKWELL_CHANNEL_GPFIFO_A, NV_CK_CHANNEL, NV_ARCH_BLACKWELL, sizeof(NV_CHANNEL_ALLOC_PARAMS)),
    CLS(HOPPER_CHANNEL_GPFIFO_A, NV_CK_CHANNEL, NV_ARCH_HOPPER, sizeof(NV_CHANNEL_ALLOC_PARAMS)),
    CLS(AMPERE_CHANNEL_GPFIFO_A, NV_CK_CHANNEL, NV_ARCH_AMPERE, sizeof(NV_CHANNEL_ALLOC_PARAMS)),
    CLS(TURING_CHANNEL_GPFIFO_A, NV_CK_CHANNEL, NV_ARCH_TURING, sizeof(NV_CHANNEL_ALLOC_PARAMS)),
    CLS(VOLTA_CHANNEL_GPFIFO_A, NV_CK_CHANNEL, NV_ARCH_VOLTA, sizeof(NV_CHANNEL_ALLOC_PARAMS)),
    IFACE(KEPLER_CHANNEL_GPFIFO_A, NV_CK_CHANNEL, NV_ARCH_KEPLER),
    IFACE(GF100_CHANNEL_GPFIFO, NV_CK_CHANNEL, NV_ARCH_FERMI),

    CLS(BLACKWELL_COMPUTE_B, NV_CK_COMPUTE, NV_ARCH_BLACKWELL, sizeof(NV_GR_ALLOCATION_PARAMETERS)),
    CLS(BLACKWELL_COMPUTE_A, NV_CK_COMPUTE, NV_ARCH_BLACKWELL, sizeof(NV_GR_ALLOCATION_PARAMETERS)),
    CLS(HOPPER_COMPUTE_A, NV_CK_COMPUTE, NV_ARCH_HOPPER, sizeof(NV_GR_ALLOCATION_PARAMETERS)),
    CLS(ADA_COMPUTE_A, NV_CK_COMPUTE, NV_ARCH_ADA, sizeof(NV_GR_ALLOCATION_PARAMETERS)),
    CLS(AMPERE_COMPUTE_B, NV_CK_COMPUTE, NV_ARCH_AMPERE, sizeof(NV_GR_ALLOCATION_PARAMETERS)),
    CLS(AMPERE_COMPUTE_A, NV_CK_COMPUTE, NV_ARCH_AMPERE, sizeof(NV_GR_ALLOCATION_PARAMETERS)),
    CLS(TURING_COMPUTE_A, NV_CK_COMPUTE, NV_ARCH_TURING, sizeof(NV_GR_ALLOCATION_PARAMETERS)),
    CLS(VOLTA_COMPUTE_A, NV_CK_COMPUTE, NV_ARCH_VOLTA, sizeof(NV_GR_ALLOCATION_PARAMETERS)),

    CLS(BLACKWELL_DMA_COPY_B, NV_CK_COPY, NV_ARCH_BLACKWELL, sizeof(NVB0B5_ALLOCATION_PARAMETERS)),
    CLS(BLACKWELL_DMA_COPY_A, NV_CK_COPY, NV_ARCH_BLACKWELL, sizeof(NVB0B5_ALLOCATION_PARAMETERS)),
    CLS(HOPPER_DMA_COPY_A, NV_CK_COPY, NV_ARCH_HOPPER, sizeof(NVB0B5_ALLOCATION_PARAMETERS)),
    CLS(AMPERE_DMA_COPY_B, NV_CK_COPY, NV_ARCH_AMPERE, sizeof(NVB0B5_ALLOCATION_PARAMETERS)),
    CLS(AMPERE_DMA_COPY_A, NV_CK_COPY, NV_ARCH_AMPERE, sizeof(NVB0B5_ALLOCATION_PARAMETERS)),
    CLS(TURING_DMA_COPY_A, NV_CK_COPY, NV_ARCH_TURING, sizeof(NVB0B5_ALLOCATION_PARAMETERS)),
    CLS(VOLTA_DMA_COPY_A, NV_CK_COPY, NV_ARCH_VOLTA, sizeof(NVB0B5_ALLOCATION_PARAMETERS)),

    CLS(BLACKWELL_USERMODE_A, NV_CK_USERMODE, NV_ARCH_BLACKWELL, sizeof(NV_HOPPER_USERMODE_A_PARAMS)),
    CLS(HOPPER_USERMODE_A, NV_CK_USERMODE, NV_ARCH_HOPPER, sizeof(NV_HOPPER_USERMODE_A_PARAMS)),
    CLS(AMPERE_USERMODE_A, NV_CK_USERMODE, NV_ARCH_AMPERE, 0),
    CLS(TURING_USERMODE_A, NV_CK_USERMODE, NV_ARCH_TURING, 0),
    CLS(VOLTA_USERMODE_A, NV_CK_USERMODE, NV_ARCH_VOLTA, 0),

    CLS(AMPERE_SMC_CONFIG_SESSION, NV_CK_MONITOR, NV_ARCH_AMPERE, 0),
    CLS(AMPERE_SMC_MONITOR_SESSION, NV_CK_MONITOR, NV_ARCH_AMPERE, 0),
    CLS(GF100_SUBDEVICE_INFOROM, NV_CK_MONITOR, NV_ARCH_FERMI, 0),
    CLS(NV20_SUBDEVICE_DIAG, NV_CK_MONITOR, NV_ARCH_NONE, 0),
    CLS(GF100_PROFILER, NV_CK_MONITOR, NV_ARCH_FERMI, 0),

    CLS(KERNEL_GRAPHICS_CONTEXT, NV_CK_OTHER, NV_ARCH_NONE, 0),
    CLS(NV2081_BINAPI, NV_CK_OTHER, NV_ARCH_NONE, 0),
    CLS(GF100_SUBDEVICE_MASTER, NV_CK_OTHER, NV_ARCH_FERMI, 0),
    CLS(RM_USER_SHARED_DATA, NV_CK_OTHER, NV_ARCH_NONE, sizeof(NV00DE_ALLOC_PARAMETERS)),
    CLS(NV50_P2P, NV_CK_OTHER, NV_ARCH_NONE, sizeof(NV503B_ALLOC_PARAMETERS)),
    CLS(NV50_THIRD_PARTY_P2P, NV_CK_OTHER, NV_ARCH_NONE, sizeof(NV503C_ALLOC_PARAMETERS)),
    CLS(GT200_DEBUGGER, NV_CK_OTHER, NV_ARCH_NONE, sizeof(NV83DE_ALLOC_PARAMETERS)),
    CLS(NV_CONFIDENTIAL_COMPUTE, NV_CK_OTHER, NV_ARCH_HOPPER, sizeof(NV_CONFIDENTIAL_COMPUTE_ALLOC_PARAMS)),
    CLS(NV04_DISPLAY_COMMON, NV_CK_OTHER, NV_ARCH_NONE, 0),
    {.name = NULL},
};

const struct nv_class_desc *nv_class_desc(uint32_t id)
{
    for (const struct nv_class_desc *d = nv_class_descs; d->name; d++)
        if (d->id == id)
            return d;
    return NULL;
}

bool nv_class_is(uint32_t id, enum nv_class_kind kind)
{
    const struct nv_class_desc *d = nv_class_desc(id);
    return d && d->kind == kind;
}

uint32_t nv_class_newest(enum nv_class_kind kind, const uint32_t *have, size_t n)
{
    for (const struct nv_class_desc *d = nv_class_descs; d->name; d++) {
        if (d->kind != kind || !d->allocatable)
            continue;
        for (size_t i = 0; i < n; i++)
            if (have[i] == d->id)
                return d->id;
    }
    return 0;
}

/* ---------------- escapes ---------------- */

#define PTR(type, field, len_, len_at_, what_) \
    {offsetof(type, field), (len_), (uint16_t)(len_at_), false, (what_)}
#define OUTPTR(type, field, what_) {offsetof(type, field), NV_PTR_LEN_NONE, 0, true, (what_)}
#define ESC(sym, type, status_field, nodes_, ...)                                                         \
    {(sym), #sym, #type, sizeof(type), offsetof(type, status_field), NV_ESC_NO_FD, (nodes_), {__VA_ARGS__}}
#define ESC_FD(sym, type, status_field, fd_field, nodes_, ...)                                            \
    {(sym), #sym, #type, sizeof(type), offsetof(type, status_field), offsetof(type, fd_field), (nodes_),  \
     {__VA_ARGS__}}
#define ESC_NOSTATUS(sym, type, nodes_, ...) \
    {(sym), #sym, #type, sizeof(type), NV_ESC_NO_STATUS, NV_ESC_NO_FD, (nodes_), {__VA_ARGS__}}

const struct nv_escape_desc nv_escape_descs[] = {
    /* OS layer (nv-ioctl.h, nv-ioctl-numbers.h) */
    {NV_ESC_CARD_INFO, "NV_ESC_CARD_INFO", "nv_ioctl_card_info_t[]", 0, NV_ESC_NO_STATUS, NV_ESC_NO_FD,
     NV_NODE_CTL, {{0}}},
    ESC_NOSTATUS(NV_ESC_REGISTER_FD, nv_ioctl_register_fd_t, NV_NODE_ANY),
    ESC_FD(NV_ESC_ALLOC_OS_EVENT, nv_ioctl_alloc_os_event_t, Status, fd, NV_NODE_ANY),
    ESC_FD(NV_ESC_FREE_OS_EVENT, nv_ioctl_free_os_event_t, Status, fd, NV_NODE_ANY),
    ESC(NV_ESC_STATUS_CODE, nv_ioctl_status_code_t, status, NV_NODE_CTL),
    ESC_NOSTATUS(NV_ESC_CHECK_VERSION_STR, nv_ioctl_rm_api_version_t, NV_NODE_CTL),
    ESC_NOSTATUS(NV_ESC_IOCTL_XFER_CMD, nv_ioctl_xfer_t, NV_NODE_ANY,
                 PTR(nv_ioctl_xfer_t, ptr, NV_PTR_LEN_ESCAPE, offsetof(nv_ioctl_xfer_t, cmd), "nv_ioctl_xfer_t.ptr: the inner escape's block in the calling process")),
    {NV_ESC_ATTACH_GPUS_TO_FD, "NV_ESC_ATTACH_GPUS_TO_FD", "NvU32[]", 0, NV_ESC_NO_STATUS, NV_ESC_NO_FD,
     NV_NODE_CTL, {{0}}},
    /* the driver takes any block of at least nv_ioctl_query_device_intr_t */
    {NV_ESC_QUERY_DEVICE_INTR, "NV_ESC_QUERY_DEVICE_INTR", "nv_ioctl_query_device_intr_t", 0,
     offsetof(nv_ioctl_query_device_intr_t, status), NV_ESC_NO_FD, NV_NODE_DEV, {{0}}},
    ESC_NOSTATUS(NV_ESC_SYS_PARAMS, nv_ioctl_sys_params_t, NV_NODE_CTL),
    ESC(NV_ESC_NUMA_INFO, nv_ioctl_numa_info_t, status, NV_NODE_DEV),
    ESC(NV_ESC_SET_NUMA_STATUS, nv_ioctl_set_numa_status_t, status, NV_NODE_DEV),
    ESC(NV_ESC_EXPORT_TO_DMABUF_FD, nv_ioctl_export_to_dma_buf_fd_t, status, NV_NODE_DEV),
    ESC_NOSTATUS(NV_ESC_WAIT_OPEN_COMPLETE, nv_ioctl_wait_open_complete_t, NV_NODE_ANY),

    /* RM (nv_escape.h, nvos.h, nv-unix-nvos-params-wrappers.h) */
    ESC_FD(NV_ESC_RM_ALLOC_MEMORY, nv_ioctl_nvos02_parameters_with_fd, params.status, fd, NV_NODE_DEV),
    ESC(NV_ESC_RM_ALLOC_OBJECT, NVOS05_PARAMETERS, status, NV_NODE_CTL),
    ESC(NV_ESC_RM_FREE, NVOS00_PARAMETERS, status, NV_NODE_CTL),
    ESC(NV_ESC_RM_CONTROL, NVOS54_PARAMETERS, status, NV_NODE_CTL,
        PTR(NVOS54_PARAMETERS, params, NV_PTR_LEN_FIELD, offsetof(NVOS54_PARAMETERS, paramsSize), "NVOS54.params: control params in the calling process")),
    ESC(NV_ESC_RM_ALLOC, NVOS21_PARAMETERS, status, NV_NODE_ANY,
        PTR(NVOS21_PARAMETERS, pAllocParms, NV_PTR_LEN_CLASS, offsetof(NVOS21_PARAMETERS, hClass),
            "NVOS21.pAllocParms: allocation params in the calling process")),
    ESC(NV_ESC_RM_ALLOC, NVOS64_PARAMETERS, status, NV_NODE_ANY,
        PTR(NVOS64_PARAMETERS, pAllocParms, NV_PTR_LEN_CLASS, offsetof(NVOS64_PARAMETERS, hClass),
            "NVOS64.pAllocParms: allocation params in the calling process"),
        PTR(NVOS64_PARAMETERS, pRightsRequested, NV_PTR_LEN_FIXED, sizeof(uint32_t), "NVOS64.pRightsRequested: access rights in the calling process")),
    ESC(NV_ESC_RM_DUP_OBJECT, NVOS55_PARAMETERS, status, NV_NODE_CTL),
    ESC(NV_ESC_RM_SHARE, NVOS57_PARAMETERS, status, NV_NODE_CTL),
    ESC(NV_ESC_RM_I2C_ACCESS, NVOS_I2C_ACCESS_PARAMS, status, NV_NODE_DEV,
        PTR(NVOS_I2C_ACCESS_PARAMS, paramStructPtr, NV_PTR_LEN_FIELD, offsetof(NVOS_I2C_ACCESS_PARAMS, paramSize),
            "NVOS_I2C_ACCESS_PARAMS.paramStructPtr: the I2C request in the calling process")),
    ESC(NV_ESC_RM_IDLE_CHANNELS, NVOS30_PARAMETERS, status, NV_NODE_CTL),
    ESC(NV_ESC_RM_VID_HEAP_CONTROL, NVOS32_PARAMETERS, hdr.status, NV_NODE_CTL),
    ESC(NV_ESC_RM_ACCESS_REGISTRY, NVOS38_PARAMETERS, status, NV_NODE_CTL,
        PTR(NVOS38_PARAMETERS, pDevNode, NV_PTR_LEN_FIELD, offsetof(NVOS38_PARAMETERS, DevNodeLength), "NVOS38.pDevNode: in the calling process"),
        PTR(NVOS38_PARAMETERS, pParmStr, NV_PTR_LEN_FIELD, offsetof(NVOS38_PARAMETERS, ParmStrLength), "NVOS38.pParmStr: the key in the calling process"),
        PTR(NVOS38_PARAMETERS, pBinaryData, NV_PTR_LEN_FIELD, offsetof(NVOS38_PARAMETERS, BinaryDataLength),
            "NVOS38.pBinaryData: in the calling process")),
    ESC_FD(NV_ESC_RM_MAP_MEMORY, nv_ioctl_nvos33_parameters_with_fd, params.status, fd, NV_NODE_CTL,
           OUTPTR(nv_ioctl_nvos33_parameters_with_fd, params.pLinearAddress, "NVOS33.pLinearAddress: mapping address chosen by the driver")),
    ESC(NV_ESC_RM_UNMAP_MEMORY, NVOS34_PARAMETERS, status, NV_NODE_CTL),
    ESC(NV_ESC_RM_GET_EVENT_DATA, NVOS41_PARAMETERS, status, NV_NODE_ANY,
        PTR(NVOS41_PARAMETERS, pEvent, NV_PTR_LEN_FIXED, sizeof(NvUnixEvent), "NVOS41.pEvent: the event record in the calling process")),
    ESC(NV_ESC_RM_ALLOC_CONTEXT_DMA2, NVOS39_PARAMETERS, status, NV_NODE_CTL),
    ESC(NV_ESC_RM_MAP_MEMORY_DMA, NVOS46_PARAMETERS, status, NV_NODE_CTL),
    ESC(NV_ESC_RM_UNMAP_MEMORY_DMA, NVOS47_PARAMETERS, status, NV_NODE_CTL),
    ESC(NV_ESC_RM_BIND_CONTEXT_DMA, NVOS49_PARAMETERS, status, NV_NODE_CTL),
    ESC(NV_ESC_RM_UPDATE_DEVICE_MAPPING_INFO, NVOS56_PARAMETERS, status, NV_NODE_CTL,
        OUTPTR(NVOS56_PARAMETERS, pOldCpuAddress, "NVOS56.pOldCpuAddress: mapping address of the calling process"),
        OUTPTR(NVOS56_PARAMETERS, pNewCpuAddress, "NVOS56.pNewCpuAddress: mapping address of the calling process")),
    {NV_ESC_RM_LOCKLESS_DIAGNOSTIC, "NV_ESC_RM_LOCKLESS_DIAGNOSTIC", "NV_LOCKLESS_DIAGNOSTIC_PARAMS", 0,
     NV_ESC_NO_STATUS, NV_ESC_NO_FD, NV_NODE_CTL, {{0}}},
    /* GPreempt's patched driver: an NVOS54 block whose params hold the creator's thread id */
    ESC(NV_ESC_RM_QUERY_GROUP, NVOS54_PARAMETERS, status, NV_NODE_ANY,
        PTR(NVOS54_PARAMETERS, params, NV_PTR_LEN_FIELD, offsetof(NVOS54_PARAMETERS, paramsSize), "NVOS54.params: query params in the calling process")),
    {.name = NULL},
};

const struct nv_escape_desc *nv_escape_desc(uint32_t nr, uint32_t size)
{
    for (const struct nv_escape_desc *d = nv_escape_descs; d->name; d++)
        if (d->nr == nr && (d->size == 0 || d->size == size))
            return d;
    return NULL;
}

/* ---------------- /dev/nvidia-uvm requests ---------------- */

#define UVM(sym, type) {UVM_IOCTL_##sym, #sym, sizeof(type), offsetof(type, rmStatus)}

const struct nv_uvm_desc nv_uvm_descs[] = {
    UVM(MM_INITIALIZE, uvm_s32_params),
    UVM(INITIALIZE, uvm_initialize_params),
    UVM(PAGEABLE_MEM_ACCESS, uvm_pageable_mem_access_params),
    UVM(REGISTER_GPU, uvm_register_gpu_params),
    UVM(CREATE_RANGE_GROUP, uvm_u64_params),
    UVM(REGISTER_GPU_VASPACE, uvm_register_gpu_vaspace_params),
    UVM(DESTROY_RANGE_GROUP, uvm_u64_params),
    UVM(SET_RANGE_GROUP, uvm_set_range_group_params),
    UVM(CREATE_EXTERNAL_RANGE, uvm_range_params),
    UVM(MAP_EXTERNAL_ALLOCATION, uvm_map_external_allocation_params),
    UVM(FREE, uvm_range_params),
    UVM(SET_PREFERRED_LOCATION, uvm_set_preferred_location_params),
    UVM(UNSET_PREFERRED_LOCATION, uvm_range_params),
    UVM(UNSET_ACCESSED_BY, uvm_range_gpu_params),
    UVM(REGISTER_CHANNEL, uvm_register_channel_params),
    UVM(DISABLE_READ_DUPLICATION, uvm_range_params),
    UVM(MIGRATE, uvm_migrate_params),
    UVM(MAP_DYNAMIC_PARALLELISM_REGION, uvm_range_gpu_params),
    UVM(UNMAP_EXTERNAL, uvm_range_gpu_params),
    UVM(ALLOC_SEMAPHORE_POOL, uvm_alloc_semaphore_pool_params),
    UVM(VALIDATE_VA_RANGE, uvm_range_params),
    UVM(PAGEABLE_MEM_ACCESS_ON_GPU, uvm_pageable_mem_access_on_gpu_params),
    UVM(UNREGISTER_GPU, uvm_gpu_params),
    UVM(ENABLE_PEER_ACCESS, uvm_gpu_pair_params),
    UVM(DISABLE_PEER_ACCESS, uvm_gpu_pair_params),
    UVM(MAP_EXTERNAL_SPARSE, uvm_range_gpu_params),
    UVM(PREVENT_MIGRATION_RANGE_GROUPS, uvm_range_groups_params),
    UVM(ALLOW_MIGRATION_RANGE_GROUPS, uvm_range_groups_params),
    UVM(SET_ACCESSED_BY, uvm_range_gpu_params),
    UVM(UNREGISTER_GPU_VASPACE, uvm_gpu_params),
    UVM(UNREGISTER_CHANNEL, uvm_unregister_channel_params),
    UVM(ENABLE_READ_DUPLICATION, uvm_range_params),
    UVM(ENABLE_SYSTEM_WIDE_ATOMICS, uvm_gpu_params),
    UVM(DISABLE_SYSTEM_WIDE_ATOMICS, uvm_gpu_params),
    UVM(TOOLS_READ_PROCESS_MEMORY, uvm_tools_process_memory_params),
    UVM(TOOLS_WRITE_PROCESS_MEMORY, uvm_tools_process_memory_params),
    UVM(MIGRATE_RANGE_GROUP, uvm_migrate_range_group_params),
    UVM(TOOLS_FLUSH_EVENTS, uvm_status_params),
    UVM(CLEAN_UP_ZOMBIE_RESOURCES, uvm_status_params),
    UVM(POPULATE_PAGEABLE, uvm_populate_pageable_params),
    UVM(ALLOC_DEVICE_P2P, uvm_alloc_device_p2p_params),
    UVM(CLEAR_ALL_ACCESS_COUNTERS, uvm_status_params),
    {UVM_IOCTL_DEINITIALIZE, "DEINITIALIZE", 0, 0},
    {.name = NULL},
};

const struct nv_uvm_desc *nv_uvm_desc(uint32_t cmd)
{
    for (const struct nv_uvm_desc *d = nv_uvm_descs; d->name; d++)
        if (d->cmd == cmd)
            return d;
    return NULL;
}

/* ---------------- controls ---------------- */

#define EMB(cmd_, type, ptr_field, count_field, elem_, what_, read_) \
    {(cmd_), offsetof(type, ptr_field), offsetof(type, count_field), (elem_), (what_), (read_)}

const struct nv_ctrl_embedded nv_ctrl_embedded_ptrs[] = {
    EMB(NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION, NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_PARAMS,
        pDriverVersionBuffer, sizeOfStrings, 1, "SYSTEM_GET_BUILD_VERSION.pDriverVersionBuffer[sizeOfStrings]", false),
    EMB(NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION, NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_PARAMS, pVersionBuffer,
        sizeOfStrings, 1, "SYSTEM_GET_BUILD_VERSION.pVersionBuffer[sizeOfStrings]", false),
    EMB(NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION, NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_PARAMS, pTitleBuffer,
        sizeOfStrings, 1, "SYSTEM_GET_BUILD_VERSION.pTitleBuffer[sizeOfStrings]", false),
    EMB(NV0080_CTRL_CMD_GPU_GET_CLASSLIST, NV0080_CTRL_GPU_GET_CLASSLIST_PARAMS, classList, numClasses,
        sizeof(uint32_t), "GPU_GET_CLASSLIST.classList[numClasses]", false),
    EMB(NV0080_CTRL_CMD_FIFO_GET_CHANNELLIST, NV0080_CTRL_FIFO_GET_CHANNELLIST_PARAMS, pChannelHandleList,
        numChannels, sizeof(uint32_t), "FIFO_GET_CHANNELLIST.pChannelHandleList[numChannels]", true),
    EMB(NV0080_CTRL_CMD_FIFO_GET_CHANNELLIST, NV0080_CTRL_FIFO_GET_CHANNELLIST_PARAMS, pChannelList, numChannels,
        sizeof(uint32_t), "FIFO_GET_CHANNELLIST.pChannelList[numChannels]", false),
    EMB(NV2080_CTRL_CMD_GR_GET_INFO, NV2080_CTRL_GR_GET_INFO_PARAMS, grInfoList, grInfoListSize,
        sizeof(nv_ctrl_info_pair), "GR_GET_INFO.grInfoList[grInfoListSize]", true),
    EMB(NV2080_CTRL_CMD_BUS_GET_INFO, NV2080_CTRL_BUS_GET_INFO_PARAMS, busInfoList, busInfoListSize,
        sizeof(nv_ctrl_info_pair), "BUS_GET_INFO.busInfoList[busInfoListSize]", true),
    EMB(NV2080_CTRL_CMD_BIOS_GET_INFO, NV2080_CTRL_BIOS_GET_INFO_PARAMS, biosInfoList, biosInfoListSize,
        sizeof(nv_ctrl_info_pair), "BIOS_GET_INFO.biosInfoList[biosInfoListSize]", true),
    EMB(NV0041_CTRL_CMD_GET_SURFACE_INFO, NV0041_CTRL_GET_SURFACE_INFO_PARAMS, surfaceInfoList, surfaceInfoListSize,
        sizeof(NV0041_CTRL_SURFACE_INFO), "GET_SURFACE_INFO.surfaceInfoList[surfaceInfoListSize]", true),
    {.what = NULL},
};

uint32_t nv_ctrl_embedded(uint32_t cmd, const struct nv_ctrl_embedded **first)
{
    uint32_t n = 0;
    *first = NULL;
    for (const struct nv_ctrl_embedded *e = nv_ctrl_embedded_ptrs; e->what; e++)
        if (e->cmd == cmd) {
            if (!n)
                *first = e;
            n++;
        }
    return n;
}

/* ---------------- per-release deltas ---------------- */

#define R550 (1u << NV_REL_550)
#define R575 (1u << NV_REL_575)
/* An older layout that is the base's prefix (fields appended later). */
#define SHORTER(kind_, id_, rels, older_size, what_) \
    {(kind_), (id_), (rels), (older_size), (older_size), 0, 0, false, false, (what_)}

const struct nv_release_delta nv_release_deltas[] = {
    {NV_DELTA_ESCAPE, NV_ESC_RM_MAP_MEMORY_DMA, R550 | R575, sizeof(NVOS46_PARAMETERS_R575),
     offsetof(NVOS46_PARAMETERS_R575, flags) + sizeof(uint32_t), sizeof(NVOS46_PARAMETERS) - sizeof(NVOS46_PARAMETERS_R575),
     offsetof(NVOS46_PARAMETERS_R575, status), false, false,
     "NVOS46_PARAMETERS without flags2/kindOverride (nvos.h): 56 bytes, status at 48"},
    {NV_DELTA_ESCAPE, NV_ESC_EXPORT_TO_DMABUF_FD, R550, sizeof(nv_ioctl_export_to_dma_buf_fd_t_R550),
     offsetof(nv_ioctl_export_to_dma_buf_fd_t_R550, status), 0, offsetof(nv_ioctl_export_to_dma_buf_fd_t_R550, status),
     false, false, "nv_ioctl_export_to_dma_buf_fd_t without mappingType (nv-ioctl.h): status at 2592"},
    {NV_DELTA_ESCAPE, NV_ESC_RM_QUERY_GROUP, R550, sizeof(NVOS54_PARAMETERS), sizeof(NVOS54_PARAMETERS), 0,
     offsetof(NVOS54_PARAMETERS, status), false, true,
     "NV_ESC_RM_QUERY_GROUP: added by GPreempt's patch to 550.120 (answered with --gpreempt-compat)"},
    SHORTER(NV_DELTA_CLASS, FERMI_VASPACE_A, R550 | R575, sizeof(NV_VASPACE_ALLOCATION_PARAMETERS_R575),
            "NV_VASPACE_ALLOCATION_PARAMETERS without pasid (nvos.h): 48 bytes"),
#define CHANNEL_R550(sym) \
    SHORTER(NV_DELTA_CLASS, sym, R550, NV_CHANNEL_ALLOC_PARAMS_R550_SIZE, \
            #sym ": NV_CHANNEL_ALLOC_PARAMS without tpcConfigID (alloc/alloc_channel.h): 360 bytes")
    CHANNEL_R550(VOLTA_CHANNEL_GPFIFO_A),
    CHANNEL_R550(TURING_CHANNEL_GPFIFO_A),
    CHANNEL_R550(AMPERE_CHANNEL_GPFIFO_A),
    CHANNEL_R550(HOPPER_CHANNEL_GPFIFO_A),
    CHANNEL_R550(BLACKWELL_CHANNEL_GPFIFO_A),
    CHANNEL_R550(BLACKWELL_CHANNEL_GPFIFO_B),
    SHORTER(NV_DELTA_CONTROL, NVA06C_CTRL_CMD_GPFIFO_SCHEDULE, R550, sizeof(NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS_R550),
            "NVA06C_CTRL_CMD_GPFIFO_SCHEDULE without bSkipEnable (ctrl/ctrla06c.h): 2 bytes"),
    SHORTER(NV_DELTA_CONTROL, NVA06C_CTRL_CMD_INTERNAL_GPFIFO_SCHEDULE, R550,
            sizeof(NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS_R550),
            "NVA06C_CTRL_CMD_INTERNAL_GPFIFO_SCHEDULE without bSkipEnable: 2 bytes"),
    SHORTER(NV_DELTA_CONTROL, NVA06F_CTRL_CMD_GPFIFO_SCHEDULE, R550, sizeof(NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS_R550),
            "NVA06F_CTRL_CMD_GPFIFO_SCHEDULE without bSkipEnable (ctrl/ctrla06f/ctrla06fgpfifo.h): 2 bytes"),
    SHORTER(NV_DELTA_CONTROL, NVA06F_CTRL_CMD_INTERNAL_GPFIFO_SCHEDULE, R550,
            sizeof(NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS_R550),
            "NVA06F_CTRL_CMD_INTERNAL_GPFIFO_SCHEDULE without bSkipEnable: 2 bytes"),
    {NV_DELTA_CONTROL, NV2080_CTRL_CMD_GR_CTXSW_PREEMPTION_BIND, R550,
     NV2080_CTRL_GR_CTXSW_PREEMPTION_BIND_PARAMS_R550_SIZE, NV2080_CTRL_GR_CTXSW_PREEMPTION_BIND_PARAMS_R550_OFF_gfxpPreemptMode,
     sizeof(NV2080_CTRL_GR_CTXSW_PREEMPTION_BIND_PARAMS) - NV2080_CTRL_GR_CTXSW_PREEMPTION_BIND_PARAMS_R550_SIZE, 0,
     false, false, "NV2080_CTRL_GR_CTXSW_PREEMPTION_BIND with 8 buffer pointers, not 9 (ctrl/ctrl2080/ctrl2080gr.h): "
                   "104 bytes, gfxpPreemptMode at 80"},
    SHORTER(NV_DELTA_CONTROL, NV0000_CTRL_CMD_GPU_GET_PROBED_IDS, R550 | R575,
            NV0000_CTRL_GPU_GET_PROBED_IDS_PARAMS_R575_SIZE,
            "NV0000_CTRL_CMD_GPU_GET_PROBED_IDS without gpuFlags (ctrl/ctrl0000/ctrl0000gpu.h): 256 bytes"),
    SHORTER(NV_DELTA_CONTROL, NV0080_CTRL_CMD_GPU_GET_CLASSLIST_V2, R550,
            NV0080_CTRL_GPU_GET_CLASSLIST_V2_PARAMS_R550_SIZE,
            "NV0080_CTRL_CMD_GPU_GET_CLASSLIST_V2 with 174 classes (ctrl/ctrl0080/ctrl0080gpu.h): 700 bytes"),
    SHORTER(NV_DELTA_CONTROL, NV0080_CTRL_CMD_GPU_GET_CLASSLIST_V2, R575,
            NV0080_CTRL_GPU_GET_CLASSLIST_V2_PARAMS_R575_SIZE,
            "NV0080_CTRL_CMD_GPU_GET_CLASSLIST_V2 with 100 classes (ctrl/ctrl0080/ctrl0080gpu.h): 404 bytes"),
    SHORTER(NV_DELTA_CONTROL, NV2080_CTRL_CMD_GPU_GET_INFO_V2, R550, NV2080_CTRL_GPU_GET_INFO_V2_PARAMS_R550_SIZE,
            "NV2080_CTRL_CMD_GPU_GET_INFO_V2 with 65 entries (ctrl/ctrl2080/ctrl2080gpu.h): 524 bytes"),
    SHORTER(NV_DELTA_CONTROL, NV2080_CTRL_CMD_GPU_GET_INFO_V2, R575, NV2080_CTRL_GPU_GET_INFO_V2_PARAMS_R575_SIZE,
            "NV2080_CTRL_CMD_GPU_GET_INFO_V2 with 66 entries (ctrl/ctrl2080/ctrl2080gpu.h): 532 bytes"),
    SHORTER(NV_DELTA_CONTROL, NV2080_CTRL_CMD_GPU_GET_ENGINES_V2, R550,
            NV2080_CTRL_GPU_GET_ENGINES_V2_PARAMS_R550_SIZE,
            "NV2080_CTRL_CMD_GPU_GET_ENGINES_V2 with 64 engines (ctrl/ctrl2080/ctrl2080gpu.h): 260 bytes"),
    SHORTER(NV_DELTA_CONTROL, NV2080_CTRL_CMD_FB_GET_INFO_V2, R550, NV2080_CTRL_FB_GET_INFO_V2_PARAMS_R550_SIZE,
            "NV2080_CTRL_CMD_FB_GET_INFO_V2 with 55 entries (ctrl/ctrl2080/ctrl2080fb.h): 444 bytes"),
    SHORTER(NV_DELTA_CONTROL, NV2080_CTRL_CMD_FB_GET_INFO_V2, R575, NV2080_CTRL_FB_GET_INFO_V2_PARAMS_R575_SIZE,
            "NV2080_CTRL_CMD_FB_GET_INFO_V2 with 57 entries (ctrl/ctrl2080/ctrl2080fb.h): 460 bytes"),
    {NV_DELTA_CONTROL, NVA06F_CTRL_CMD_GET_CONTEXT_ID, R550, 0, 0, 0, 0, true, false,
     "NVA06F_CTRL_CMD_GET_CONTEXT_ID: not in 550 (ctrl/ctrla06f/ctrla06fgpfifo.h of 575 adds it)"},
    {.what = NULL},
};

static const struct nv_release_delta *delta_of(enum nv_release rel, int kind, uint32_t id)
{
    if (rel >= NV_REL_COUNT)
        return NULL;
    for (const struct nv_release_delta *d = nv_release_deltas; d->what; d++)
        if ((d->releases & (1u << rel)) && !d->patch_only && (int)d->kind == kind && d->id == id)
            return d;
    return NULL;
}

uint32_t nv_escape_size(enum nv_release rel, uint32_t nr, uint32_t base_size)
{
    const struct nv_release_delta *d = delta_of(rel, NV_DELTA_ESCAPE, nr);
    return d && base_size ? d->size : base_size;
}

uint32_t nv_escape_status_at(enum nv_release rel, uint32_t nr, uint32_t base_status_at)
{
    const struct nv_release_delta *d = delta_of(rel, NV_DELTA_ESCAPE, nr);
    return d ? d->status_at : base_status_at;
}

static struct nv_layout_map layout_of(const struct nv_release_delta *d, uint32_t base_size)
{
    struct nv_layout_map m = {base_size, base_size, 0, false};
    if (!d)
        return m;
    if (d->absent)
        return (struct nv_layout_map){0, 0, 0, true};
    m.size = d->size;
    m.gap_at = d->gap_at;
    m.gap = base_size > d->size ? base_size - d->size : 0;
    return m;
}

struct nv_layout_map nv_ctrl_layout(enum nv_release rel, uint32_t cmd, uint32_t base_size)
{
    return layout_of(delta_of(rel, NV_DELTA_CONTROL, cmd), base_size);
}

struct nv_layout_map nv_class_layout(enum nv_release rel, uint32_t id, uint32_t base_size)
{
    return layout_of(delta_of(rel, NV_DELTA_CLASS, id), base_size);
}

uint32_t nv_class_params_size(enum nv_release rel, uint32_t id)
{
    const struct nv_class_desc *c = nv_class_desc(id);
    return c ? nv_class_layout(rel, id, c->params_size).size : 0;
}

void nv_layout_to_base(const struct nv_layout_map *m, const void *in, void *out, uint32_t base_size)
{
    memset(out, 0, base_size);
    uint32_t head = m->gap_at < m->size ? m->gap_at : m->size;
    memcpy(out, in, head);
    if (m->size > head && head + m->gap + (m->size - head) <= base_size)
        memcpy((unsigned char *)out + head + m->gap, (const unsigned char *)in + head, m->size - head);
}

void nv_layout_from_base(const struct nv_layout_map *m, const void *base, void *out)
{
    uint32_t head = m->gap_at < m->size ? m->gap_at : m->size;
    memcpy(out, base, head);
    if (m->size > head)
        memcpy((unsigned char *)out + head, (const unsigned char *)base + head + m->gap, m->size - head);
}
