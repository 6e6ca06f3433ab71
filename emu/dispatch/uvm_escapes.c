/*
 * The /dev/nvidia-uvm requests, one row per request the driver's uvm_ioctl()
 * routes (open-gpu-kernel-modules 580.x, kernel-open/nvidia-uvm/uvm.c;
 * layouts in abi/nv_uvm.h). The dispatcher stores each handler's status in
 * the block's rmStatus and the syscall returns 0, as the driver's
 * UVM_ROUTE_CMD does; a number the driver does not route fails with -EINVAL.
 *
 * What is modelled: the per-file state (initialized, range-group ids), the
 * GPU registration outputs, and the VA-space registration that makes an
 * externally owned RM VA space usable for context shares. The other requests
 * the recorded programs make (fixtures/hw/{h200,h100}-580.159.04, every one NV_OK there,
 * their blocks unchanged but for rmStatus) manage memory the emulator does not
 * have: they answer NV_OK. The rest answer NV_ERR_NOT_SUPPORTED with a log line.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "abi/nv_uvm.h"
#include "base/log.h"
#include "dispatch/dispatch_internal.h"
#include "rm/rm.h"

ESC_HANDLER(uvm_initialize, uvm_initialize_params)
{
    x->op->uvm_initialized = true;
    x->st = NV_OK;
    return 0;
}

/* UVM_DEINITIALIZE takes no block: the driver returns 0 before anything else. */
ESC_HANDLER(uvm_deinitialize, void)
{
    return 0;
}

/* No HMM or ATS on the modelled hosts: the H200 and H100 recordings answer pageableMemAccess 0. */
ESC_HANDLER(uvm_pageable_mem_access, uvm_pageable_mem_access_params)
{
    p->pageableMemAccess = 0;
    x->st = NV_OK;
    return 0;
}

/* No coherent CPU-GPU link on the modelled boards: numaEnabled 0, numaNodeId -1 (as recorded). */
ESC_HANDLER(uvm_register_gpu, uvm_register_gpu_params)
{
    p->numaEnabled = 0;
    p->numaNodeId = -1;
    rm_nvlink_uvm_register_gpu(x->d->env.rs, x->op, p->gpu.bytes);
    x->st = NV_OK;
    return 0;
}

/* Range-group ids count from 1 per UVM file (its VA space), as the recordings show. */
ESC_HANDLER(uvm_create_range_group, uvm_u64_params)
{
    p->value = ++x->op->uvm_range_groups;
    x->st = NV_OK;
    return 0;
}

/* hClient is looked up through the RM file rmCtrlFd names in the caller's fd table, never machine-wide. */
ESC_HANDLER(uvm_register_gpu_vaspace, uvm_register_gpu_vaspace_params)
{
    nvemu_opener *ctl = x->acc->resolve_fd ? x->acc->resolve_fd(x->acc->ctx, p->rmCtrlFd) : NULL;
    x->st = rm_vaspace_uvm_register(x->d->env.rs, ctl, x->op, p->hClient, p->hVaSpace);
    return 0;
}

/* Memory management the emulator has no memory for; the recorded programs get NV_OK and an unchanged block. */
ESC_HANDLER(uvm_accepted, void)
{
    x->st = NV_OK;
    return 0;
}

/* One row per request: name from the symbol, size from sizeof its params type, rmStatus from its offset. */
#define UVM_ROW(sym, type, fn_, ...) \
    ESC_ROW(UVM_IOCTL_##sym, type, ESC_UVM, fn_, .status_offset = offsetof(type, rmStatus), __VA_ARGS__)
#define UVM_ACCEPTED(sym, type) \
    ESC_ROW_BYTES(UVM_IOCTL_##sym, sizeof(type), ESC_UVM, uvm_accepted, .status_offset = offsetof(type, rmStatus))
#define UVM_UNSUPPORTED(sym, type) ESC_ROW_UNSUPPORTED(UVM_IOCTL_##sym, type, rmStatus, ESC_UVM)

const struct esc_row esc_rows_uvm[] = {
    UVM_ROW(INITIALIZE, uvm_initialize_params, uvm_initialize, .pre_init = true),
    ESC_ROW_BYTES(UVM_IOCTL_DEINITIALIZE, 0, ESC_UVM, uvm_deinitialize, .pre_init = true),
    ESC_ROW_BYTES(UVM_IOCTL_MM_INITIALIZE, sizeof(uvm_s32_params), ESC_UVM, uvm_accepted,
                  .status_offset = offsetof(uvm_s32_params, rmStatus), .pre_init = true),
    UVM_ROW(PAGEABLE_MEM_ACCESS, uvm_pageable_mem_access_params, uvm_pageable_mem_access),
    UVM_ROW(REGISTER_GPU, uvm_register_gpu_params, uvm_register_gpu),
    UVM_ROW(CREATE_RANGE_GROUP, uvm_u64_params, uvm_create_range_group),
    UVM_ROW(REGISTER_GPU_VASPACE, uvm_register_gpu_vaspace_params, uvm_register_gpu_vaspace),
    UVM_ACCEPTED(DESTROY_RANGE_GROUP, uvm_u64_params),
    UVM_ACCEPTED(SET_RANGE_GROUP, uvm_set_range_group_params),
    UVM_ACCEPTED(CREATE_EXTERNAL_RANGE, uvm_range_params),
    UVM_ACCEPTED(MAP_EXTERNAL_ALLOCATION, uvm_map_external_allocation_params),
    UVM_ACCEPTED(FREE, uvm_range_params),
    UVM_ACCEPTED(SET_PREFERRED_LOCATION, uvm_set_preferred_location_params),
    UVM_ACCEPTED(UNSET_PREFERRED_LOCATION, uvm_range_params),
    UVM_ACCEPTED(UNSET_ACCESSED_BY, uvm_range_gpu_params),
    UVM_ACCEPTED(REGISTER_CHANNEL, uvm_register_channel_params),
    UVM_ACCEPTED(DISABLE_READ_DUPLICATION, uvm_range_params),
    UVM_ACCEPTED(MIGRATE, uvm_migrate_params),
    UVM_ACCEPTED(MAP_DYNAMIC_PARALLELISM_REGION, uvm_range_gpu_params),
    UVM_ACCEPTED(UNMAP_EXTERNAL, uvm_range_gpu_params),
    UVM_ACCEPTED(ALLOC_SEMAPHORE_POOL, uvm_alloc_semaphore_pool_params),
    UVM_ACCEPTED(VALIDATE_VA_RANGE, uvm_range_params),
    UVM_UNSUPPORTED(PAGEABLE_MEM_ACCESS_ON_GPU, uvm_pageable_mem_access_on_gpu_params),
    UVM_UNSUPPORTED(UNREGISTER_GPU, uvm_gpu_params),
    UVM_UNSUPPORTED(ENABLE_PEER_ACCESS, uvm_gpu_pair_params),
    UVM_UNSUPPORTED(DISABLE_PEER_ACCESS, uvm_gpu_pair_params),
    UVM_UNSUPPORTED(MAP_EXTERNAL_SPARSE, uvm_range_gpu_params),
    UVM_UNSUPPORTED(PREVENT_MIGRATION_RANGE_GROUPS, uvm_range_groups_params),
    UVM_UNSUPPORTED(ALLOW_MIGRATION_RANGE_GROUPS, uvm_range_groups_params),
    UVM_UNSUPPORTED(SET_ACCESSED_BY, uvm_range_gpu_params),
    UVM_UNSUPPORTED(UNREGISTER_GPU_VASPACE, uvm_gpu_params),
    UVM_UNSUPPORTED(UNREGISTER_CHANNEL, uvm_unregister_channel_params),
    UVM_UNSUPPORTED(ENABLE_READ_DUPLICATION, uvm_range_params),
    UVM_UNSUPPORTED(ENABLE_SYSTEM_WIDE_ATOMICS, uvm_gpu_params),
    UVM_UNSUPPORTED(DISABLE_SYSTEM_WIDE_ATOMICS, uvm_gpu_params),
    UVM_UNSUPPORTED(TOOLS_READ_PROCESS_MEMORY, uvm_tools_process_memory_params),
    UVM_UNSUPPORTED(TOOLS_WRITE_PROCESS_MEMORY, uvm_tools_process_memory_params),
    UVM_UNSUPPORTED(MIGRATE_RANGE_GROUP, uvm_migrate_range_group_params),
    UVM_UNSUPPORTED(TOOLS_FLUSH_EVENTS, uvm_status_params),
    UVM_UNSUPPORTED(CLEAN_UP_ZOMBIE_RESOURCES, uvm_status_params),
    UVM_UNSUPPORTED(POPULATE_PAGEABLE, uvm_populate_pageable_params),
    UVM_UNSUPPORTED(ALLOC_DEVICE_P2P, uvm_alloc_device_p2p_params),
    UVM_UNSUPPORTED(CLEAR_ALL_ACCESS_COUNTERS, uvm_status_params),
    {.name = NULL},
};

const struct esc_row *dispatch_uvm_row(uint32_t cmd)
{
    for (const struct esc_row *r = esc_rows_uvm; r->name; r++)
        if (r->nr == cmd)
            return r;
    return NULL;
}

/*
 * The driver's UVM_ROUTE_CMD: every routed request but DEINITIALIZE stores its status in rmStatus and the
 * syscall returns 0; on a file not yet initialized only the NO_INIT_CHECK requests run, the others answer
 * NV_ERR_ILLEGAL_ACTION.
 */
int dispatch_uvm(struct esc_ctx *x)
{
    const struct esc_row *r = dispatch_uvm_row(x->nr);
    if (!r) {
        LOG_INFO("uvm", "UVM request 0x%x is not one the driver routes: -EINVAL", x->nr);
        return -EINVAL;
    }
    if (x->size != r->size) {
        LOG_WARN("uvm", "%s with a %u-byte block (its layout has %u): -EINVAL", r->name, x->size, r->size);
        return -EINVAL;
    }
    if (!r->size)
        return r->fn(x, x->arg);
    int rc = 0;
    if (!r->pre_init && !x->op->uvm_initialized) {
        LOG_INFO("uvm", "%s before UVM_INITIALIZE: NV_ERR_ILLEGAL_ACTION", r->name);
        x->st = NV_ERR_ILLEGAL_ACTION;
    } else if (!r->fn) {
        LOG_INFO("uvm", "%s is not modelled: NV_ERR_NOT_SUPPORTED", r->name);
        x->st = NV_ERR_NOT_SUPPORTED;
    } else {
        rc = r->fn(x, x->arg);
    }
    memcpy((unsigned char *)x->arg + r->status_offset, &x->st, sizeof(x->st));
    LOG_DEBUG("uvm", "%s -> 0x%x", r->name, x->st);
    return rc;
}
