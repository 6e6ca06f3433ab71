/*
 * /dev/nvidia-uvm as far as the emulator models it: open works,
 * UVM_INITIALIZE answers NV_OK, the other UVM ioctls whose parameter layout
 * we know answer NV_ERR_NOT_SUPPORTED in their rmStatus.
 *
 * UVM request numbers are plain integers, not _IOC words (UVM_INITIALIZE is
 * 0x30000001: _IOC_DIR 0, so restricted FUSE copies nothing in or out). The
 * only way to answer is to write rmStatus into the caller's memory at arg;
 * that needs the struct layout, which the number alone does not give. A
 * number missing from the table therefore fails the syscall with -EINVAL
 * (the status field cannot be located) and is logged.
 */
#ifndef NVEMU_FRONT_UVM_H
#define NVEMU_FRONT_UVM_H

#include <stdint.h>
#include <sys/types.h>

#define UVM_IOCTL_INITIALIZE          0x30000001u
#define UVM_IOCTL_DEINITIALIZE        0x30000002u
#define UVM_IOCTL_PAGEABLE_MEM_ACCESS 39u

/* UVM_INITIALIZE_PARAMS: NvU64 flags @0; NV_STATUS rmStatus @8; size 16. */
typedef struct uvm_initialize_params {
    uint64_t flags;
    uint32_t rmStatus;
} uvm_initialize_params;
_Static_assert(sizeof(uvm_initialize_params) == 16, "UVM_INITIALIZE_PARAMS size");
_Static_assert(__builtin_offsetof(uvm_initialize_params, rmStatus) == 8, "rmStatus offset");

/* UVM_PAGEABLE_MEM_ACCESS_PARAMS: NvBool pageableMemAccess @0; NV_STATUS rmStatus @4; size 8. */
typedef struct uvm_pageable_mem_access_params {
    uint8_t pageableMemAccess;
    uint8_t pad[3];
    uint32_t rmStatus;
} uvm_pageable_mem_access_params;
_Static_assert(sizeof(uvm_pageable_mem_access_params) == 8, "UVM_PAGEABLE_MEM_ACCESS_PARAMS size");
_Static_assert(__builtin_offsetof(uvm_pageable_mem_access_params, rmStatus) == 4, "rmStatus offset");

/* Answers UVM request cmd of thread tid whose parameters are at arg. Returns 0 or -errno. */
int uvm_ioctl(pid_t tid, uint32_t cmd, uint64_t arg);

#endif
