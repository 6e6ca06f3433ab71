/*
 * The emulator-private workload escapes 0xF0-0xFF on /dev/nvidiactl (the real
 * driver answers -1/EINVAL there): numbers (_IOC_NR) and parameter structs.
 * Each struct's size is checked exactly (mismatch -> -EINVAL). status fields
 * carry NV_STATUS values; the syscall returns 0 whenever the struct was
 * understood. Semantics: emu/fifo/workload.h.
 */
#ifndef NVEMU_ABI_NV_WORKLOAD_H
#define NVEMU_ABI_NV_WORKLOAD_H

#include <stdint.h>

#include "abi/nv_escape.h"

#define NVEMU_ESC_WL_REGISTER    0xF0  /* struct nvemu_wl_register */
#define NVEMU_ESC_WL_UNREGISTER  0xF1  /* struct nvemu_wl_status */
#define NVEMU_ESC_WL_SUBMIT      0xF2  /* struct nvemu_wl_submit */
#define NVEMU_ESC_WL_WAIT        0xF3  /* struct nvemu_wl_wait */
#define NVEMU_ESC_WL_SLEEP       0xF4  /* struct nvemu_wl_sleep */
#define NVEMU_ESC_WL_NOW         0xF5  /* struct nvemu_wl_now */
#define NVEMU_ESC_WL_MARK        0xF6  /* struct nvemu_wl_mark */
#define NVEMU_ESC_WL_FIRST       0xF0
#define NVEMU_ESC_WL_LAST        0xFF

struct nvemu_wl_register {     /* in: name; out: participant id (per emulator, from 1) */
    char name[32];
    uint32_t participant;
    uint32_t status;
};
NV_ASSERT_LAYOUT(struct nvemu_wl_register, 40, 4);

struct nvemu_wl_status {
    uint32_t status;
};
NV_ASSERT_LAYOUT(struct nvemu_wl_status, 4, 4);

struct nvemu_wl_submit {       /* in: channel + kernel; out: kernel id */
    uint32_t hClient;
    uint32_t hChannel;
    uint32_t blocks;
    uint32_t status;
    uint64_t block_ns;
    uint64_t total_ns;
    uint64_t tag;
    uint64_t kernel_id;
};
NV_ASSERT_LAYOUT(struct nvemu_wl_submit, 48, 8);
NV_ASSERT_OFF(struct nvemu_wl_submit, block_ns, 16);
NV_ASSERT_OFF(struct nvemu_wl_submit, kernel_id, 40);

/*
 * Waits until kernel `kernel_id` completed (0 = any kernel this participant
 * submitted that was not waited for yet) or virtual time reaches deadline_ns
 * (0 = none). Out: the kernel that completed, its tag and done time; status
 * NV_ERR_TIMEOUT on deadline, NV_ERR_INVALID_ARGUMENT for an unknown id,
 * NV_ERR_GPU_IS_LOST (kernel, tag, done time filled) when the kernel failed
 * because its GPU was lost.
 */
struct nvemu_wl_wait {
    uint64_t kernel_id;
    uint64_t deadline_ns;
    uint64_t tag;
    uint64_t done_ns;
    uint32_t status;
    uint32_t pad;
};
NV_ASSERT_LAYOUT(struct nvemu_wl_wait, 40, 8);

struct nvemu_wl_sleep {        /* sleep until virtual time until_ns (not ahead: until the caller's turn) */
    uint64_t until_ns;
    uint32_t status;
    uint32_t pad;
};
NV_ASSERT_LAYOUT(struct nvemu_wl_sleep, 16, 8);

struct nvemu_wl_now {
    uint64_t now_ns;
};
NV_ASSERT_LAYOUT(struct nvemu_wl_now, 8, 8);

struct nvemu_wl_mark {         /* appends a SIM_REC_MARK record */
    char name[32];
    uint64_t a, b;
};
NV_ASSERT_LAYOUT(struct nvemu_wl_mark, 48, 8);

#endif
