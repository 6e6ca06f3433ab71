/*
 * Allocation parameter structs (pAllocParms) of the non-FIFO classes, driver
 * 580.x x86-64. Own definitions from docs/driver-sources.md §D; the FIFO
 * classes' structs (TSG, context share, channel) are in abi/nv_alloc_fifo.h.
 * Layouts not in docs/driver-sources.md (marked so) are from the
 * class headers and only decide how many bytes are copied.
 */
#ifndef NVEMU_ABI_NV_ALLOC_H
#define NVEMU_ABI_NV_ALLOC_H

#include <stddef.h>
#include <stdint.h>

#include "abi/nv_escape.h"

/* Root classes: the declared struct is 120 bytes, but RM copies only hClient (4 bytes). */
typedef struct NV0000_ALLOC_PARAMETERS {
    NvHandle hClient;
    uint32_t processID;
    char processName[100];
    NvP64 pOsPidInfo;
} NV0000_ALLOC_PARAMETERS;
NV_ASSERT_LAYOUT(NV0000_ALLOC_PARAMETERS, 120, 8);
NV_ASSERT_OFF(NV0000_ALLOC_PARAMETERS, hClient, 0);
NV_ASSERT_OFF(NV0000_ALLOC_PARAMETERS, processID, 4);
NV_ASSERT_OFF(NV0000_ALLOC_PARAMETERS, processName, 8);
NV_ASSERT_OFF(NV0000_ALLOC_PARAMETERS, pOsPidInfo, 112);
#define NV0000_ALLOC_COPY_SIZE 4u

#define NV0080_MAX_DEVICES 32u
typedef struct NV0080_ALLOC_PARAMETERS {
    uint32_t deviceId;
    NvHandle hClientShare;
    NvHandle hTargetClient;
    NvHandle hTargetDevice;
    uint32_t flags;
    NvU64A vaSpaceSize;
    NvU64A vaStartInternal;
    NvU64A vaLimitInternal;
    uint32_t vaMode;
} NV0080_ALLOC_PARAMETERS;
NV_ASSERT_LAYOUT(NV0080_ALLOC_PARAMETERS, 56, 8);
NV_ASSERT_OFF(NV0080_ALLOC_PARAMETERS, deviceId, 0);
NV_ASSERT_OFF(NV0080_ALLOC_PARAMETERS, hClientShare, 4);
NV_ASSERT_OFF(NV0080_ALLOC_PARAMETERS, hTargetClient, 8);
NV_ASSERT_OFF(NV0080_ALLOC_PARAMETERS, hTargetDevice, 12);
NV_ASSERT_OFF(NV0080_ALLOC_PARAMETERS, flags, 16);
NV_ASSERT_OFF(NV0080_ALLOC_PARAMETERS, vaSpaceSize, 24);
NV_ASSERT_OFF(NV0080_ALLOC_PARAMETERS, vaStartInternal, 32);
NV_ASSERT_OFF(NV0080_ALLOC_PARAMETERS, vaLimitInternal, 40);
NV_ASSERT_OFF(NV0080_ALLOC_PARAMETERS, vaMode, 48);

typedef struct NV2080_ALLOC_PARAMETERS {
    uint32_t subDeviceId;
} NV2080_ALLOC_PARAMETERS;
NV_ASSERT_LAYOUT(NV2080_ALLOC_PARAMETERS, 4, 4);
NV_ASSERT_OFF(NV2080_ALLOC_PARAMETERS, subDeviceId, 0);

typedef struct NV_VASPACE_ALLOCATION_PARAMETERS {
    uint32_t index;
    uint32_t flags;
    NvU64A vaSize;
    NvU64A vaStartInternal;
    NvU64A vaLimitInternal;
    uint32_t bigPageSize;
    NvU64A vaBase;
    uint32_t pasid;
} NV_VASPACE_ALLOCATION_PARAMETERS;
NV_ASSERT_LAYOUT(NV_VASPACE_ALLOCATION_PARAMETERS, 56, 8);
NV_ASSERT_OFF(NV_VASPACE_ALLOCATION_PARAMETERS, index, 0);
NV_ASSERT_OFF(NV_VASPACE_ALLOCATION_PARAMETERS, flags, 4);
NV_ASSERT_OFF(NV_VASPACE_ALLOCATION_PARAMETERS, vaSize, 8);
NV_ASSERT_OFF(NV_VASPACE_ALLOCATION_PARAMETERS, vaStartInternal, 16);
NV_ASSERT_OFF(NV_VASPACE_ALLOCATION_PARAMETERS, vaLimitInternal, 24);
NV_ASSERT_OFF(NV_VASPACE_ALLOCATION_PARAMETERS, bigPageSize, 32);
NV_ASSERT_OFF(NV_VASPACE_ALLOCATION_PARAMETERS, vaBase, 40);
NV_ASSERT_OFF(NV_VASPACE_ALLOCATION_PARAMETERS, pasid, 48);
/* NV_VASPACE_ALLOCATION_FLAGS_IS_EXTERNALLY_OWNED (nvos.h): UVM owns the page tables, from UVM_REGISTER_GPU_VASPACE. */
#define NV_VASPACE_ALLOCATION_FLAGS_IS_EXTERNALLY_OWNED 0x8u

typedef struct NV_MEMORY_DESC_PARAMS {
    NvU64A base;
    NvU64A size;
    uint32_t addressSpace;
    uint32_t cacheAttrib;
} NV_MEMORY_DESC_PARAMS;
NV_ASSERT_LAYOUT(NV_MEMORY_DESC_PARAMS, 24, 8);
NV_ASSERT_OFF(NV_MEMORY_DESC_PARAMS, base, 0);
NV_ASSERT_OFF(NV_MEMORY_DESC_PARAMS, size, 8);
NV_ASSERT_OFF(NV_MEMORY_DESC_PARAMS, addressSpace, 16);
NV_ASSERT_OFF(NV_MEMORY_DESC_PARAMS, cacheAttrib, 20);

typedef struct NV_MEMORY_ALLOCATION_PARAMS {
    uint32_t owner;
    uint32_t type;
    uint32_t flags;
    uint32_t width;
    uint32_t height;
    int32_t pitch;
    uint32_t attr;
    uint32_t attr2;
    uint32_t format;
    uint32_t comprCovg;
    uint32_t zcullCovg;
    NvU64A rangeLo;
    NvU64A rangeHi;
    NvU64A size;
    NvU64A alignment;
    NvU64A offset;
    NvU64A limit;
    NvP64 address;
    uint32_t ctagOffset;
    NvHandle hVASpace;
    uint32_t internalflags;
    uint32_t tag;
    int32_t numaNode;
} NV_MEMORY_ALLOCATION_PARAMS;
NV_ASSERT_LAYOUT(NV_MEMORY_ALLOCATION_PARAMS, 128, 8);
NV_ASSERT_OFF(NV_MEMORY_ALLOCATION_PARAMS, owner, 0);
NV_ASSERT_OFF(NV_MEMORY_ALLOCATION_PARAMS, type, 4);
NV_ASSERT_OFF(NV_MEMORY_ALLOCATION_PARAMS, flags, 8);
NV_ASSERT_OFF(NV_MEMORY_ALLOCATION_PARAMS, width, 12);
NV_ASSERT_OFF(NV_MEMORY_ALLOCATION_PARAMS, height, 16);
NV_ASSERT_OFF(NV_MEMORY_ALLOCATION_PARAMS, pitch, 20);
NV_ASSERT_OFF(NV_MEMORY_ALLOCATION_PARAMS, attr, 24);
NV_ASSERT_OFF(NV_MEMORY_ALLOCATION_PARAMS, attr2, 28);
NV_ASSERT_OFF(NV_MEMORY_ALLOCATION_PARAMS, format, 32);
NV_ASSERT_OFF(NV_MEMORY_ALLOCATION_PARAMS, comprCovg, 36);
NV_ASSERT_OFF(NV_MEMORY_ALLOCATION_PARAMS, zcullCovg, 40);
NV_ASSERT_OFF(NV_MEMORY_ALLOCATION_PARAMS, rangeLo, 48);
NV_ASSERT_OFF(NV_MEMORY_ALLOCATION_PARAMS, rangeHi, 56);
NV_ASSERT_OFF(NV_MEMORY_ALLOCATION_PARAMS, size, 64);
NV_ASSERT_OFF(NV_MEMORY_ALLOCATION_PARAMS, alignment, 72);
NV_ASSERT_OFF(NV_MEMORY_ALLOCATION_PARAMS, offset, 80);
NV_ASSERT_OFF(NV_MEMORY_ALLOCATION_PARAMS, limit, 88);
NV_ASSERT_OFF(NV_MEMORY_ALLOCATION_PARAMS, address, 96);
NV_ASSERT_OFF(NV_MEMORY_ALLOCATION_PARAMS, ctagOffset, 104);
NV_ASSERT_OFF(NV_MEMORY_ALLOCATION_PARAMS, hVASpace, 108);
NV_ASSERT_OFF(NV_MEMORY_ALLOCATION_PARAMS, internalflags, 112);
NV_ASSERT_OFF(NV_MEMORY_ALLOCATION_PARAMS, tag, 116);
NV_ASSERT_OFF(NV_MEMORY_ALLOCATION_PARAMS, numaNode, 120);

/*
 * Fields of NV_MEMORY_ALLOCATION_PARAMS.attr (NVOS32_ATTR_*, src/common/sdk/nvidia/inc/nvos.h, 580.x) that
 * NV0041 GET_SURFACE_INFO reports: ZCULL 11:10, COMPR 13:12, FORMAT 17:16, PAGE_SIZE 24:23, COHERENCY 31:29.
 * The _REQUIRED values are the driver's DRF_DEF(OS32, _ATTR, _X, _REQUIRED) bit tests.
 */
#define NVOS32_ATTR_ZCULL_REQUIRED_BIT (1u << 10)
#define NVOS32_ATTR_COMPR_REQUIRED_BIT (1u << 12)
#define NVOS32_ATTR_COMPR_FIELD        (3u << 12)
#define NVOS32_ATTR_ZCULL_FIELD        (3u << 10)
#define NVOS32_ATTR_FORMAT_FIELD       (3u << 16)
#define NVOS32_ATTR_PAGE_SIZE_FIELD    (3u << 23)
#define NVOS32_ATTR_COHERENCY_FIELD    (7u << 29)

typedef struct NV_MEMORY_VIRTUAL_ALLOCATION_PARAMS {
    NvU64A offset;
    NvU64A limit;
    NvHandle hVASpace;
} NV_MEMORY_VIRTUAL_ALLOCATION_PARAMS;
NV_ASSERT_LAYOUT(NV_MEMORY_VIRTUAL_ALLOCATION_PARAMS, 24, 8);
NV_ASSERT_OFF(NV_MEMORY_VIRTUAL_ALLOCATION_PARAMS, offset, 0);
NV_ASSERT_OFF(NV_MEMORY_VIRTUAL_ALLOCATION_PARAMS, limit, 8);
NV_ASSERT_OFF(NV_MEMORY_VIRTUAL_ALLOCATION_PARAMS, hVASpace, 16);

typedef struct NV_HOPPER_USERMODE_A_PARAMS {
    uint8_t bBar1Mapping;
    uint8_t bPriv;
} NV_HOPPER_USERMODE_A_PARAMS;
NV_ASSERT_LAYOUT(NV_HOPPER_USERMODE_A_PARAMS, 2, 1);
NV_ASSERT_OFF(NV_HOPPER_USERMODE_A_PARAMS, bBar1Mapping, 0);
NV_ASSERT_OFF(NV_HOPPER_USERMODE_A_PARAMS, bPriv, 1);

typedef struct NV0005_ALLOC_PARAMETERS {
    NvHandle hParentClient;
    NvHandle hSrcResource;
    uint32_t hClass;
    uint32_t notifyIndex;
    NvP64 data;
} NV0005_ALLOC_PARAMETERS;
NV_ASSERT_LAYOUT(NV0005_ALLOC_PARAMETERS, 24, 8);
NV_ASSERT_OFF(NV0005_ALLOC_PARAMETERS, hParentClient, 0);
NV_ASSERT_OFF(NV0005_ALLOC_PARAMETERS, hSrcResource, 4);
NV_ASSERT_OFF(NV0005_ALLOC_PARAMETERS, hClass, 8);
NV_ASSERT_OFF(NV0005_ALLOC_PARAMETERS, notifyIndex, 12);
NV_ASSERT_OFF(NV0005_ALLOC_PARAMETERS, data, 16);

/* Compute engine objects (*_COMPUTE_*). */
typedef struct NV_GR_ALLOCATION_PARAMETERS {
    uint32_t version;
    uint32_t flags;
    uint32_t size;
    uint32_t caps;
} NV_GR_ALLOCATION_PARAMETERS;
NV_ASSERT_LAYOUT(NV_GR_ALLOCATION_PARAMETERS, 16, 4);
NV_ASSERT_OFF(NV_GR_ALLOCATION_PARAMETERS, version, 0);
NV_ASSERT_OFF(NV_GR_ALLOCATION_PARAMETERS, flags, 4);
NV_ASSERT_OFF(NV_GR_ALLOCATION_PARAMETERS, size, 8);
NV_ASSERT_OFF(NV_GR_ALLOCATION_PARAMETERS, caps, 12);

/* Copy engine objects (*_DMA_COPY_*): not in docs/driver-sources.md. */
typedef struct NVB0B5_ALLOCATION_PARAMETERS {
    uint32_t version;
    uint32_t engineType;
} NVB0B5_ALLOCATION_PARAMETERS;
NV_ASSERT_LAYOUT(NVB0B5_ALLOCATION_PARAMETERS, 8, 4);

/*
 * NV50_P2P (class/cl503b.h, 580.x): a P2P mapping between two subdevices of one client, the client its parent.
 * A peer id mask of 0 lets RM choose; the two BAR1 P2P DMA infos are outputs (NV_U64_MAX / 0 unless privileged
 * BAR1 P2P).
 */
typedef struct NV503B_BAR1_P2P_DMA_INFO {
    uint64_t dma_address;
    uint64_t dma_size;
} NV503B_BAR1_P2P_DMA_INFO;
NV_ASSERT_LAYOUT(NV503B_BAR1_P2P_DMA_INFO, 16, 8);
typedef struct NV503B_ALLOC_PARAMETERS {
    NvHandle hSubDevice;
    NvHandle hPeerSubDevice;
    uint32_t subDevicePeerIdMask;
    uint32_t peerSubDevicePeerIdMask;
    uint64_t mailboxBar1Addr;
    uint32_t mailboxTotalSize;
    uint32_t flags;                 /* NV503B_FLAGS_P2P_TYPE (bit 0): GPA 0, SPA 1 */
    uint32_t subDeviceEgmPeerIdMask;
    uint32_t peerSubDeviceEgmPeerIdMask;
    NV503B_BAR1_P2P_DMA_INFO l2pBar1P2PDmaInfo;
    NV503B_BAR1_P2P_DMA_INFO p2lBar1P2PDmaInfo;
} NV503B_ALLOC_PARAMETERS;
NV_ASSERT_LAYOUT(NV503B_ALLOC_PARAMETERS, 72, 8);
NV_ASSERT_OFF(NV503B_ALLOC_PARAMETERS, hPeerSubDevice, 4);
NV_ASSERT_OFF(NV503B_ALLOC_PARAMETERS, peerSubDevicePeerIdMask, 12);
NV_ASSERT_OFF(NV503B_ALLOC_PARAMETERS, mailboxBar1Addr, 16);
NV_ASSERT_OFF(NV503B_ALLOC_PARAMETERS, flags, 28);
NV_ASSERT_OFF(NV503B_ALLOC_PARAMETERS, peerSubDeviceEgmPeerIdMask, 36);
NV_ASSERT_OFF(NV503B_ALLOC_PARAMETERS, l2pBar1P2PDmaInfo, 40);
NV_ASSERT_OFF(NV503B_ALLOC_PARAMETERS, p2lBar1P2PDmaInfo, 56);
#define NV503B_FLAGS_P2P_TYPE_SPA 0x1u

/* Classes accepted without behaviour; not in docs/driver-sources.md. */
typedef struct NV503C_ALLOC_PARAMETERS { uint32_t flags; } NV503C_ALLOC_PARAMETERS;
NV_ASSERT_LAYOUT(NV503C_ALLOC_PARAMETERS, 4, 4);
typedef struct NV83DE_ALLOC_PARAMETERS {
    NvHandle hDebuggerClient_Obsolete;
    NvHandle hAppClient;
    NvHandle hClass3dObject;
} NV83DE_ALLOC_PARAMETERS;
NV_ASSERT_LAYOUT(NV83DE_ALLOC_PARAMETERS, 12, 4);
typedef struct NV_CONFIDENTIAL_COMPUTE_ALLOC_PARAMS { NvHandle hClient; } NV_CONFIDENTIAL_COMPUTE_ALLOC_PARAMS;
NV_ASSERT_LAYOUT(NV_CONFIDENTIAL_COMPUTE_ALLOC_PARAMS, 4, 4);
typedef struct NV00DE_ALLOC_PARAMETERS { NvU64A polledDataMask; } NV00DE_ALLOC_PARAMETERS;
NV_ASSERT_LAYOUT(NV00DE_ALLOC_PARAMETERS, 8, 8);

/*
 * NV_MEMORY_FABRIC (class/cl00f8.h, 580.x): a range of the GPU's fabric linear address space (FLA), a
 * subdevice its parent. Flexible objects start empty and get video memory attached by ATTACH_MEM; sticky ones
 * (flags 0) map map.hVidMem at construction. ALLOC64 passes paramsSize 0: the driver takes the size from its
 * class table.
 */
typedef struct NV00F8_ALLOCATION_PARAMETERS {
    NvU64A alignment;
    NvU64A allocSize;
    NvU64A pageSize;                /* NV_MEMORY_FABRIC_PAGE_SIZE_*: 2 MiB, 512 MiB or 256 GiB */
    uint32_t allocFlags;            /* NV00F8_ALLOC_FLAGS_* */
    struct {
        NvU64A offset;
        NvHandle hVidMem;
        uint32_t flags;
    } map;
} NV00F8_ALLOCATION_PARAMETERS;
NV_ASSERT_LAYOUT(NV00F8_ALLOCATION_PARAMETERS, 48, 8);
NV_ASSERT_OFF(NV00F8_ALLOCATION_PARAMETERS, pageSize, 16);
NV_ASSERT_OFF(NV00F8_ALLOCATION_PARAMETERS, allocFlags, 24);
NV_ASSERT_OFF(NV00F8_ALLOCATION_PARAMETERS, map.offset, 32);
NV_ASSERT_OFF(NV00F8_ALLOCATION_PARAMETERS, map.hVidMem, 40);
NV_ASSERT_OFF(NV00F8_ALLOCATION_PARAMETERS, map.flags, 44);
#define NV_MEMORY_FABRIC_PAGE_SIZE_2M               0x200000ull
#define NV_MEMORY_FABRIC_PAGE_SIZE_512M             0x20000000ull
#define NV_MEMORY_FABRIC_PAGE_SIZE_256G             0x4000000000ull
#define NV00F8_ALLOC_FLAGS_FLEXIBLE_FLA             0x01u
#define NV00F8_ALLOC_FLAGS_FORCE_NONCONTIGUOUS      0x02u
#define NV00F8_ALLOC_FLAGS_FORCE_CONTIGUOUS         0x04u
#define NV00F8_ALLOC_FLAGS_READ_ONLY                0x08u
#define NV00F8_ALLOC_FLAGS_FORCE_UC_LOOPBACK        0x10u

#endif
