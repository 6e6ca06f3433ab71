#include "front/uvm.h"

#include <errno.h>
#include <stddef.h>

#include "abi/nv_status.h"
#include "core/log.h"
#include "front/procmem.h"

struct uvm_row {
    uint32_t cmd;
    const char *name;
    int has_status;            /* 0: no parameters (DEINITIALIZE) */
    uint32_t status_off;
    uint32_t status;
};

static const struct uvm_row uvm_rows[] = {
    {UVM_IOCTL_INITIALIZE, "UVM_INITIALIZE", 1, offsetof(uvm_initialize_params, rmStatus), NV_OK},
    {UVM_IOCTL_DEINITIALIZE, "UVM_DEINITIALIZE", 0, 0, NV_OK},
    {UVM_IOCTL_PAGEABLE_MEM_ACCESS, "UVM_PAGEABLE_MEM_ACCESS", 1,
     offsetof(uvm_pageable_mem_access_params, rmStatus), NV_ERR_NOT_SUPPORTED},
};

int uvm_ioctl(pid_t tid, uint32_t cmd, uint64_t arg)
{
    for (size_t i = 0; i < sizeof(uvm_rows) / sizeof(uvm_rows[0]); i++) {
        const struct uvm_row *r = &uvm_rows[i];
        if (r->cmd != cmd)
            continue;
        if (!r->has_status)
            return 0;
        int rc = procmem_write(tid, arg + r->status_off, &r->status, sizeof(r->status));
        LOG_DEBUG("uvm", "%s -> 0x%x (%d)", r->name, r->status, rc);
        return rc;
    }
    LOG_INFO("uvm", "UVM ioctl 0x%x is not modelled (layout unknown): -EINVAL", cmd);
    return -EINVAL;
}
