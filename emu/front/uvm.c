#include "front/uvm.h"

#include <errno.h>
#include <stddef.h>

#include "abi/nv_status.h"
#include "base/log.h"
#include "front/procmem.h"

#define ROW(nr, type, st) {UVM_IOCTL_##nr, "UVM_" #nr, sizeof(type), offsetof(type, rmStatus), st}
#define UNSUPPORTED(nr, type) ROW(nr, type, NV_ERR_NOT_SUPPORTED)

static const struct uvm_layout uvm_rows[] = {
    ROW(INITIALIZE, uvm_initialize_params, NV_OK),
    {UVM_IOCTL_DEINITIALIZE, "UVM_DEINITIALIZE", 0, 0, NV_OK},
    UNSUPPORTED(MM_INITIALIZE, uvm_s32_params),
    UNSUPPORTED(PAGEABLE_MEM_ACCESS, uvm_pageable_mem_access_params),
    UNSUPPORTED(PAGEABLE_MEM_ACCESS_ON_GPU, uvm_pageable_mem_access_on_gpu_params),
    UNSUPPORTED(REGISTER_GPU, uvm_register_gpu_params),
    UNSUPPORTED(UNREGISTER_GPU, uvm_gpu_params),
    UNSUPPORTED(CREATE_RANGE_GROUP, uvm_u64_params),
    UNSUPPORTED(DESTROY_RANGE_GROUP, uvm_u64_params),
    UNSUPPORTED(ENABLE_PEER_ACCESS, uvm_gpu_pair_params),
    UNSUPPORTED(DISABLE_PEER_ACCESS, uvm_gpu_pair_params),
    UNSUPPORTED(SET_RANGE_GROUP, uvm_set_range_group_params),
    UNSUPPORTED(CREATE_EXTERNAL_RANGE, uvm_range_params),
    UNSUPPORTED(MAP_EXTERNAL_ALLOCATION, uvm_map_external_allocation_params),
    UNSUPPORTED(MAP_EXTERNAL_SPARSE, uvm_range_gpu_params),
    UNSUPPORTED(FREE, uvm_range_params),
    UNSUPPORTED(PREVENT_MIGRATION_RANGE_GROUPS, uvm_range_groups_params),
    UNSUPPORTED(ALLOW_MIGRATION_RANGE_GROUPS, uvm_range_groups_params),
    UNSUPPORTED(SET_PREFERRED_LOCATION, uvm_set_preferred_location_params),
    UNSUPPORTED(UNSET_PREFERRED_LOCATION, uvm_range_params),
    UNSUPPORTED(SET_ACCESSED_BY, uvm_range_gpu_params),
    UNSUPPORTED(UNSET_ACCESSED_BY, uvm_range_gpu_params),
    UNSUPPORTED(REGISTER_GPU_VASPACE, uvm_register_gpu_vaspace_params),
    UNSUPPORTED(UNREGISTER_GPU_VASPACE, uvm_gpu_params),
    UNSUPPORTED(REGISTER_CHANNEL, uvm_register_channel_params),
    UNSUPPORTED(UNREGISTER_CHANNEL, uvm_unregister_channel_params),
    UNSUPPORTED(ENABLE_READ_DUPLICATION, uvm_range_params),
    UNSUPPORTED(DISABLE_READ_DUPLICATION, uvm_range_params),
    UNSUPPORTED(MIGRATE, uvm_migrate_params),
    UNSUPPORTED(ENABLE_SYSTEM_WIDE_ATOMICS, uvm_gpu_params),
    UNSUPPORTED(DISABLE_SYSTEM_WIDE_ATOMICS, uvm_gpu_params),
    UNSUPPORTED(TOOLS_READ_PROCESS_MEMORY, uvm_tools_process_memory_params),
    UNSUPPORTED(TOOLS_WRITE_PROCESS_MEMORY, uvm_tools_process_memory_params),
    UNSUPPORTED(MAP_DYNAMIC_PARALLELISM_REGION, uvm_range_gpu_params),
    UNSUPPORTED(UNMAP_EXTERNAL, uvm_range_gpu_params),
    UNSUPPORTED(MIGRATE_RANGE_GROUP, uvm_migrate_range_group_params),
    UNSUPPORTED(TOOLS_FLUSH_EVENTS, uvm_status_params),
    UNSUPPORTED(ALLOC_SEMAPHORE_POOL, uvm_alloc_semaphore_pool_params),
    UNSUPPORTED(CLEAN_UP_ZOMBIE_RESOURCES, uvm_status_params),
    UNSUPPORTED(POPULATE_PAGEABLE, uvm_populate_pageable_params),
    UNSUPPORTED(VALIDATE_VA_RANGE, uvm_range_params),
    UNSUPPORTED(ALLOC_DEVICE_P2P, uvm_alloc_device_p2p_params),
    UNSUPPORTED(CLEAR_ALL_ACCESS_COUNTERS, uvm_status_params),
};

const struct uvm_layout *uvm_layout_find(uint32_t cmd)
{
    for (size_t i = 0; i < sizeof(uvm_rows) / sizeof(uvm_rows[0]); i++)
        if (uvm_rows[i].cmd == cmd)
            return &uvm_rows[i];
    return NULL;
}

int uvm_ioctl(pid_t tid, uint32_t cmd, uint64_t arg)
{
    const struct uvm_layout *r = uvm_layout_find(cmd);
    if (!r) {
        LOG_INFO("uvm", "UVM ioctl 0x%x is not modelled (layout unknown): -EINVAL", cmd);
        return -EINVAL;
    }
    if (r->params_size == 0)
        return 0;
    int rc = procmem_write(tid, arg + r->status_off, &r->status, sizeof(r->status));
    LOG_DEBUG("uvm", "%s -> 0x%x (%d)", r->name, r->status, rc);
    return rc;
}
