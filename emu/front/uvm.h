/*
 * /dev/nvidia-uvm as far as the emulator models it: open works,
 * UVM_INITIALIZE answers NV_OK, UVM_DEINITIALIZE returns 0, every other UVM
 * ioctl the driver routes answers NV_ERR_NOT_SUPPORTED in its rmStatus.
 *
 * UVM request numbers are plain integers, not _IOC words (UVM_INITIALIZE is
 * 0x30000001: _IOC_DIR 0, so restricted FUSE copies nothing in or out). The
 * only way to answer is to write rmStatus into the caller's memory at arg;
 * that needs the struct layout (uvm_abi.h), which the number alone does not
 * give. A number missing from the table therefore fails the syscall with
 * -EINVAL, as the driver does for numbers it does not route, and is logged.
 */
#ifndef NVEMU_FRONT_UVM_H
#define NVEMU_FRONT_UVM_H

#include <stdint.h>
#include <sys/types.h>

#include "front/uvm_abi.h"

/* One UVM request the emulator answers. params_size 0: the request takes no parameters. */
struct uvm_layout {
    uint32_t cmd;
    const char *name;
    uint32_t params_size;
    uint32_t status_off;
    uint32_t status;           /* NV_STATUS written at status_off */
};

/* The table row for cmd, or NULL when the layout of cmd is not known. */
const struct uvm_layout *uvm_layout_find(uint32_t cmd);

/* Answers UVM request cmd of thread tid whose parameters are at arg. Returns 0 or -errno. */
int uvm_ioctl(pid_t tid, uint32_t cmd, uint64_t arg);

#endif
