/*
 * NV00F8 (NV_MEMORY_FABRIC) controls that attach video memory to a fabric object and detach it again
 * (emu/rm/class_fabric.c). Names, values and layouts: open-gpu-kernel-modules 580.x,
 * src/common/sdk/nvidia/inc/ctrl/ctrl00f8.h; sizes are the paramsSize the 580.159.04 driver accepted in
 * fixtures/hw/h200-580.159.04/programs5-x2/trace-pool-share-p1 (2064, 528).
 */
#ifndef NVEMU_ABI_NV_CTRL_FABRIC_H
#define NVEMU_ABI_NV_CTRL_FABRIC_H

#include <stdint.h>

#include "abi/nv_abi_assert.h"
#include "abi/nv_alloc.h"

#define NV00F8_CTRL_CMD_GET_INFO              0x00f80101u
#define NV00F8_CTRL_CMD_ATTACH_MEM            0x00f80103u
#define NV00F8_CTRL_CMD_DETACH_MEM            0x00f80104u
#define NV00F8_CTRL_CMD_GET_NUM_ATTACHED_MEM  0x00f80105u

#define NV00F8_MAX_ATTACHABLE_MEM_INFOS 64u
#define NV00F8_MAX_DETACHABLE_OFFSETS   64u

/* GET_INFO: the object's size, page size and allocation flags, as allocated. */
typedef struct NV00F8_CTRL_GET_INFO_PARAMS {
    NvU64A size;
    NvU64A pageSize;
    uint32_t allocFlags;
} NV00F8_CTRL_GET_INFO_PARAMS;
NV_ASSERT_LAYOUT(NV00F8_CTRL_GET_INFO_PARAMS, 24, 8);
NV_ASSERT_OFF(NV00F8_CTRL_GET_INFO_PARAMS, allocFlags, 16);

/* One piece of video memory to map: mapLength bytes of hMemory from mapOffset, at `offset` into the object. */
typedef struct NV00F8_CTRL_ATTACH_MEM_INFO {
    NvHandle hMemory;
    NvU64A offset;
    NvU64A mapOffset;
    NvU64A mapLength;
} NV00F8_CTRL_ATTACH_MEM_INFO;
NV_ASSERT_LAYOUT(NV00F8_CTRL_ATTACH_MEM_INFO, 32, 8);
NV_ASSERT_OFF(NV00F8_CTRL_ATTACH_MEM_INFO, offset, 8);
NV_ASSERT_OFF(NV00F8_CTRL_ATTACH_MEM_INFO, mapLength, 24);

/* ATTACH_MEM: numAttached (out) counts the infos attached, also when one fails. */
typedef struct NV00F8_CTRL_ATTACH_MEM_PARAMS {
    NV00F8_CTRL_ATTACH_MEM_INFO memInfos[NV00F8_MAX_ATTACHABLE_MEM_INFOS];
    uint16_t numMemInfos;
    uint32_t flags;                 /* must be 0 */
    uint16_t numAttached;
} NV00F8_CTRL_ATTACH_MEM_PARAMS;
NV_ASSERT_LAYOUT(NV00F8_CTRL_ATTACH_MEM_PARAMS, 2064, 8);
NV_ASSERT_OFF(NV00F8_CTRL_ATTACH_MEM_PARAMS, numMemInfos, 2048);
NV_ASSERT_OFF(NV00F8_CTRL_ATTACH_MEM_PARAMS, flags, 2052);
NV_ASSERT_OFF(NV00F8_CTRL_ATTACH_MEM_PARAMS, numAttached, 2056);

/* DETACH_MEM: the offsets ATTACH_MEM attached at; numDetached (out) as numAttached. */
typedef struct NV00F8_CTRL_DETACH_MEM_PARAMS {
    NvU64A offsets[NV00F8_MAX_DETACHABLE_OFFSETS];
    uint16_t numOffsets;
    uint32_t flags;                 /* must be 0 */
    uint16_t numDetached;
} NV00F8_CTRL_DETACH_MEM_PARAMS;
NV_ASSERT_LAYOUT(NV00F8_CTRL_DETACH_MEM_PARAMS, 528, 8);
NV_ASSERT_OFF(NV00F8_CTRL_DETACH_MEM_PARAMS, numOffsets, 512);
NV_ASSERT_OFF(NV00F8_CTRL_DETACH_MEM_PARAMS, flags, 516);
NV_ASSERT_OFF(NV00F8_CTRL_DETACH_MEM_PARAMS, numDetached, 520);

/* GET_NUM_ATTACHED_MEM: how many attachments start in [offsetStart, offsetEnd]. */
typedef struct NV00F8_CTRL_GET_NUM_ATTACHED_MEM_PARAMS {
    NvU64A offsetStart;
    NvU64A offsetEnd;
    uint16_t numMemInfos;
} NV00F8_CTRL_GET_NUM_ATTACHED_MEM_PARAMS;
NV_ASSERT_LAYOUT(NV00F8_CTRL_GET_NUM_ATTACHED_MEM_PARAMS, 24, 8);
NV_ASSERT_OFF(NV00F8_CTRL_GET_NUM_ATTACHED_MEM_PARAMS, numMemInfos, 16);

#endif
