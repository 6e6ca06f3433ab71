/*
 * Parameter layouts of the /dev/nvidia-uvm requests that the open driver's
 * uvm_ioctl() routes (open-gpu-kernel-modules 580.x,
 * kernel-open/nvidia-uvm/uvm.c; structs from kernel-open/nvidia-uvm/uvm_ioctl.h
 * and uvm_linux_ioctl.h, UVM_MAX_GPUS and the mapping attributes from
 * uvm_types.h; docs/driver-sources.md section M). x86-64 LP64. The sizes of
 * every request the recorded programs make are confirmed by their parameter
 * blocks in fixtures/hw/{h200,h100}-580.159.04 (pin/pout of the UVM lines).
 *
 * Request numbers are plain integers (UVM_IOCTL_BASE(i) is i on Linux), not
 * _IOC words: the size of a request's block comes from its layout here, never
 * from the number. Layouts shared by several requests get one struct.
 */
#ifndef NVEMU_ABI_NV_UVM_H
#define NVEMU_ABI_NV_UVM_H

#include <stddef.h>
#include <stdint.h>

#include "abi/nv_abi_assert.h"

#define UVM_IOCTL_INITIALIZE                     0x30000001u
#define UVM_IOCTL_DEINITIALIZE                   0x30000002u
#define UVM_IOCTL_CREATE_RANGE_GROUP             23u
#define UVM_IOCTL_DESTROY_RANGE_GROUP            24u
#define UVM_IOCTL_REGISTER_GPU_VASPACE           25u
#define UVM_IOCTL_UNREGISTER_GPU_VASPACE         26u
#define UVM_IOCTL_REGISTER_CHANNEL               27u
#define UVM_IOCTL_UNREGISTER_CHANNEL             28u
#define UVM_IOCTL_ENABLE_PEER_ACCESS             29u
#define UVM_IOCTL_DISABLE_PEER_ACCESS            30u
#define UVM_IOCTL_SET_RANGE_GROUP                31u
#define UVM_IOCTL_MAP_EXTERNAL_ALLOCATION        33u
#define UVM_IOCTL_FREE                           34u
#define UVM_IOCTL_REGISTER_GPU                   37u
#define UVM_IOCTL_UNREGISTER_GPU                 38u
#define UVM_IOCTL_PAGEABLE_MEM_ACCESS            39u
#define UVM_IOCTL_PREVENT_MIGRATION_RANGE_GROUPS 40u
#define UVM_IOCTL_ALLOW_MIGRATION_RANGE_GROUPS   41u
#define UVM_IOCTL_SET_PREFERRED_LOCATION         42u
#define UVM_IOCTL_UNSET_PREFERRED_LOCATION       43u
#define UVM_IOCTL_ENABLE_READ_DUPLICATION        44u
#define UVM_IOCTL_DISABLE_READ_DUPLICATION       45u
#define UVM_IOCTL_SET_ACCESSED_BY                46u
#define UVM_IOCTL_UNSET_ACCESSED_BY              47u
#define UVM_IOCTL_MIGRATE                        51u
#define UVM_IOCTL_MIGRATE_RANGE_GROUP            53u
#define UVM_IOCTL_ENABLE_SYSTEM_WIDE_ATOMICS     54u
#define UVM_IOCTL_DISABLE_SYSTEM_WIDE_ATOMICS    55u
#define UVM_IOCTL_TOOLS_READ_PROCESS_MEMORY      62u
#define UVM_IOCTL_TOOLS_WRITE_PROCESS_MEMORY     63u
#define UVM_IOCTL_MAP_DYNAMIC_PARALLELISM_REGION 65u
#define UVM_IOCTL_UNMAP_EXTERNAL                 66u
#define UVM_IOCTL_TOOLS_FLUSH_EVENTS             67u
#define UVM_IOCTL_ALLOC_SEMAPHORE_POOL           68u
#define UVM_IOCTL_CLEAN_UP_ZOMBIE_RESOURCES      69u
#define UVM_IOCTL_PAGEABLE_MEM_ACCESS_ON_GPU     70u
#define UVM_IOCTL_POPULATE_PAGEABLE              71u
#define UVM_IOCTL_VALIDATE_VA_RANGE              72u
#define UVM_IOCTL_CREATE_EXTERNAL_RANGE          73u
#define UVM_IOCTL_MAP_EXTERNAL_SPARSE            74u
#define UVM_IOCTL_MM_INITIALIZE                  75u
#define UVM_IOCTL_ALLOC_DEVICE_P2P               78u
#define UVM_IOCTL_CLEAR_ALL_ACCESS_COUNTERS      79u

/* NV_MAX_DEVICES (32) x UVM_PARENT_ID_MAX_SUB_PROCESSORS (8): the per-GPU attribute arrays. */
#define UVM_ABI_MAX_GPUS 256u

/* A UVM parameter block: its size and where the driver stores rmStatus. */
#define UVM_ABI_CHECK(type, size, status_off) \
    NV_ASSERT_SIZE(type, size);               \
    NV_ASSERT_OFF(type, rmStatus, status_off)

/* NvProcessorUuid: 16 bytes, byte-aligned. */
typedef struct uvm_uuid {
    uint8_t bytes[16];
} uvm_uuid;
NV_ASSERT_LAYOUT(uvm_uuid, 16, 1);

/* UvmGpuMappingAttributes: uuid then five NvU32 enums. */
typedef struct uvm_gpu_mapping_attributes {
    uvm_uuid gpuUuid;
    uint32_t mappingType, cachingType, formatType, elementBits, compressionType;
} uvm_gpu_mapping_attributes;
NV_ASSERT_SIZE(uvm_gpu_mapping_attributes, 36);

/* UVM_INITIALIZE. */
typedef struct uvm_initialize_params {
    uint64_t flags;
    uint32_t rmStatus;
} uvm_initialize_params;
UVM_ABI_CHECK(uvm_initialize_params, 16, 8);

/* UVM_PAGEABLE_MEM_ACCESS: NvBool then the status at the next 4-byte boundary. */
typedef struct uvm_pageable_mem_access_params {
    uint8_t pageableMemAccess;
    uint8_t pad[3];
    uint32_t rmStatus;
} uvm_pageable_mem_access_params;
UVM_ABI_CHECK(uvm_pageable_mem_access_params, 8, 4);

/* TOOLS_FLUSH_EVENTS, CLEAN_UP_ZOMBIE_RESOURCES, CLEAR_ALL_ACCESS_COUNTERS. */
typedef struct uvm_status_params {
    uint32_t rmStatus;
} uvm_status_params;
UVM_ABI_CHECK(uvm_status_params, 4, 0);

/* MM_INITIALIZE (uvmFd). */
typedef struct uvm_s32_params {
    int32_t value;
    uint32_t rmStatus;
} uvm_s32_params;
UVM_ABI_CHECK(uvm_s32_params, 8, 4);

/* CREATE_RANGE_GROUP, DESTROY_RANGE_GROUP (rangeGroupId). */
typedef struct uvm_u64_params {
    uint64_t value;
    uint32_t rmStatus;
} uvm_u64_params;
UVM_ABI_CHECK(uvm_u64_params, 16, 8);

/* FREE, UNSET_PREFERRED_LOCATION, ENABLE/DISABLE_READ_DUPLICATION, VALIDATE_VA_RANGE, CREATE_EXTERNAL_RANGE. */
typedef struct uvm_range_params {
    uint64_t base, length;
    uint32_t rmStatus;
} uvm_range_params;
UVM_ABI_CHECK(uvm_range_params, 24, 16);

/* SET_RANGE_GROUP: rangeGroupId, requestedBase, length. */
typedef struct uvm_set_range_group_params {
    uint64_t rangeGroupId, base, length;
    uint32_t rmStatus;
} uvm_set_range_group_params;
UVM_ABI_CHECK(uvm_set_range_group_params, 32, 24);

/* SET/UNSET_ACCESSED_BY, MAP_DYNAMIC_PARALLELISM_REGION, UNMAP_EXTERNAL, MAP_EXTERNAL_SPARSE. */
typedef struct uvm_range_gpu_params {
    uint64_t base, length;
    uvm_uuid gpu;
    uint32_t rmStatus;
} uvm_range_gpu_params;
UVM_ABI_CHECK(uvm_range_gpu_params, 40, 32);

/* SET_PREFERRED_LOCATION: range, preferredLocation, preferredCpuNumaNode. */
typedef struct uvm_set_preferred_location_params {
    uint64_t base, length;
    uvm_uuid location;
    int32_t cpuNumaNode;
    uint32_t rmStatus;
} uvm_set_preferred_location_params;
UVM_ABI_CHECK(uvm_set_preferred_location_params, 40, 36);

/* UNREGISTER_GPU, UNREGISTER_GPU_VASPACE, ENABLE/DISABLE_SYSTEM_WIDE_ATOMICS. */
typedef struct uvm_gpu_params {
    uvm_uuid gpu;
    uint32_t rmStatus;
} uvm_gpu_params;
UVM_ABI_CHECK(uvm_gpu_params, 20, 16);

/* ENABLE/DISABLE_PEER_ACCESS. */
typedef struct uvm_gpu_pair_params {
    uvm_uuid gpuA, gpuB;
    uint32_t rmStatus;
} uvm_gpu_pair_params;
UVM_ABI_CHECK(uvm_gpu_pair_params, 36, 32);

/* PAGEABLE_MEM_ACCESS_ON_GPU. */
typedef struct uvm_pageable_mem_access_on_gpu_params {
    uvm_uuid gpu;
    uint8_t pageableMemAccess;
    uint32_t rmStatus;
} uvm_pageable_mem_access_on_gpu_params;
UVM_ABI_CHECK(uvm_pageable_mem_access_on_gpu_params, 24, 20);

/* REGISTER_GPU: uuid, numaEnabled (NvBool), numaNodeId, rmCtrlFd, hClient, hSmcPartRef. */
typedef struct uvm_register_gpu_params {
    uvm_uuid gpu;
    uint8_t numaEnabled;
    int32_t numaNodeId, rmCtrlFd;
    uint32_t hClient, hSmcPartRef;
    uint32_t rmStatus;
} uvm_register_gpu_params;
UVM_ABI_CHECK(uvm_register_gpu_params, 40, 36);

/* REGISTER_GPU_VASPACE: uuid, rmCtrlFd, hClient, hVaSpace. */
typedef struct uvm_register_gpu_vaspace_params {
    uvm_uuid gpu;
    int32_t rmCtrlFd;
    uint32_t hClient, hVaSpace;
    uint32_t rmStatus;
} uvm_register_gpu_vaspace_params;
UVM_ABI_CHECK(uvm_register_gpu_vaspace_params, 32, 28);

/* REGISTER_CHANNEL: uuid, rmCtrlFd, hClient, hChannel, then base/length at the next 8-byte boundary. */
typedef struct uvm_register_channel_params {
    uvm_uuid gpu;
    int32_t rmCtrlFd;
    uint32_t hClient, hChannel;
    uint64_t base, length;
    uint32_t rmStatus;
} uvm_register_channel_params;
UVM_ABI_CHECK(uvm_register_channel_params, 56, 48);
NV_ASSERT_OFF(uvm_register_channel_params, base, 32);

/* UNREGISTER_CHANNEL: uuid, hClient, hChannel. */
typedef struct uvm_unregister_channel_params {
    uvm_uuid gpu;
    uint32_t hClient, hChannel;
    uint32_t rmStatus;
} uvm_unregister_channel_params;
UVM_ABI_CHECK(uvm_unregister_channel_params, 28, 24);

/* PREVENT/ALLOW_MIGRATION_RANGE_GROUPS: 32 ids, count. */
typedef struct uvm_range_groups_params {
    uint64_t rangeGroupIds[32];
    uint64_t numGroupIds;
    uint32_t rmStatus;
} uvm_range_groups_params;
UVM_ABI_CHECK(uvm_range_groups_params, 272, 264);

/* MIGRATE. */
typedef struct uvm_migrate_params {
    uint64_t base, length;
    uvm_uuid destination;
    uint32_t flags;
    uint64_t semaphoreAddress;
    uint32_t semaphorePayload;
    int32_t cpuNumaNode;
    uint64_t userSpaceStart, userSpaceLength;
    uint32_t rmStatus;
} uvm_migrate_params;
UVM_ABI_CHECK(uvm_migrate_params, 80, 72);
NV_ASSERT_OFF(uvm_migrate_params, semaphoreAddress, 40);

/* MIGRATE_RANGE_GROUP. */
typedef struct uvm_migrate_range_group_params {
    uint64_t rangeGroupId;
    uvm_uuid destination;
    uint32_t rmStatus;
} uvm_migrate_range_group_params;
UVM_ABI_CHECK(uvm_migrate_range_group_params, 32, 24);

/* TOOLS_READ/WRITE_PROCESS_MEMORY: buffer, size, targetVa, bytes done. */
typedef struct uvm_tools_process_memory_params {
    uint64_t buffer, size, targetVa, bytes;
    uint32_t rmStatus;
} uvm_tools_process_memory_params;
UVM_ABI_CHECK(uvm_tools_process_memory_params, 40, 32);

/* MAP_EXTERNAL_ALLOCATION. */
typedef struct uvm_map_external_allocation_params {
    uint64_t base, length, offset;
    uvm_gpu_mapping_attributes perGpu[UVM_ABI_MAX_GPUS];
    uint64_t gpuAttributesCount;
    int32_t rmCtrlFd;
    uint32_t hClient, hMemory;
    uint32_t rmStatus;
} uvm_map_external_allocation_params;
UVM_ABI_CHECK(uvm_map_external_allocation_params, 9264, 9260);
NV_ASSERT_OFF(uvm_map_external_allocation_params, gpuAttributesCount, 9240);

/* ALLOC_SEMAPHORE_POOL. */
typedef struct uvm_alloc_semaphore_pool_params {
    uint64_t base, length;
    uvm_gpu_mapping_attributes perGpu[UVM_ABI_MAX_GPUS];
    uint64_t gpuAttributesCount;
    uint32_t rmStatus;
} uvm_alloc_semaphore_pool_params;
UVM_ABI_CHECK(uvm_alloc_semaphore_pool_params, 9248, 9240);

/* POPULATE_PAGEABLE: range, flags. */
typedef struct uvm_populate_pageable_params {
    uint64_t base, length;
    uint32_t flags;
    uint32_t rmStatus;
} uvm_populate_pageable_params;
UVM_ABI_CHECK(uvm_populate_pageable_params, 24, 20);

/* ALLOC_DEVICE_P2P: base, length, offset, uuid, rmCtrlFd, hClient, hMemory. */
typedef struct uvm_alloc_device_p2p_params {
    uint64_t base, length, offset;
    uvm_uuid gpu;
    int32_t rmCtrlFd;
    uint32_t hClient, hMemory;
    uint32_t rmStatus;
} uvm_alloc_device_p2p_params;
UVM_ABI_CHECK(uvm_alloc_device_p2p_params, 56, 52);

#endif
