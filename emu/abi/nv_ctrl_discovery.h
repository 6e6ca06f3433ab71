/*
 * Parameter structs of the discovery controls CUDA issues before scheduling
 * (own definitions). Layouts of docs/driver-sources.md §E ("Discovery
 * controls", 580.142, x86-64) are asserted field by field. The few marked
 * "layout from the recording" are not in docs/driver-sources.md: their field
 * positions are what the H200 trace shows (inputs echoed, outputs at the
 * asserted offsets, total size = the recorded paramsSize).
 */
#ifndef NVEMU_ABI_NV_CTRL_DISCOVERY_H
#define NVEMU_ABI_NV_CTRL_DISCOVERY_H

#include <stddef.h>
#include <stdint.h>

#include "abi/nv_abi_assert.h"
#include "abi/nv_gr_route.h"


/* ---- command ids ---- */
#define NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION        0x00000101u
#define NV0000_CTRL_CMD_GPU_GET_ATTACHED_IDS            0x00000201u
#define NV0000_CTRL_CMD_GPU_GET_ID_INFO                 0x00000202u
#define NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2              0x00000205u
#define NV0000_CTRL_CMD_GPU_GET_PROBED_IDS              0x00000214u
#define NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE      0x00000D01u
#define NV0000_CTRL_CMD_CLIENT_SET_INHERITED_SHARE_POLICY 0x00000D04u
#define NV0080_CTRL_CMD_GPU_GET_CLASSLIST               0x00800201u
#define NV0080_CTRL_CMD_GPU_GET_NUM_SUBDEVICES          0x00800280u
#define NV0080_CTRL_CMD_GPU_GET_CLASSLIST_V2            0x00800292u
#define NV2080_CTRL_CMD_GPU_GET_INFO_V2                 0x20800102u
#define NV2080_CTRL_CMD_GPU_GET_NAME_STRING             0x20800110u
#define NV2080_CTRL_CMD_GPU_GET_SHORT_NAME_STRING       0x20800111u
#define NV2080_CTRL_CMD_GPU_GET_GID_INFO                0x2080014Au
#define NV2080_CTRL_CMD_GPU_GET_ENGINES_V2              0x20800170u
#define NV2080_CTRL_CMD_GR_GET_INFO                     0x20801201u
#define NV2080_CTRL_CMD_GR_GET_CTX_BUFFER_SIZE          0x20801218u
#define NV2080_CTRL_CMD_FB_GET_INFO_V2                  0x20801303u
#define NV2080_CTRL_CMD_MC_GET_ARCH_INFO                0x20801701u
#define NV2080_CTRL_CMD_BUS_GET_PCI_INFO                0x20801801u
#define NV2080_CTRL_CMD_BUS_GET_INFO_V2                 0x20801823u

/* NV0000_CTRL_GPU_INVALID_ID: fills unused slots of id lists. */
#define NV0000_CTRL_GPU_INVALID_ID                      0xFFFFFFFFu
#define NV0000_CTRL_GPU_MAX_ATTACHED_GPUS               32u
#define NV0000_CTRL_GPU_ID_INFO_IN_USE                  0x1u
#define NV0080_CTRL_GPU_CLASSLIST_MAX_SIZE              200u   /* 580.x (docs/driver-sources.md §K) */
#define NV2080_CTRL_GPU_INFO_MAX_LIST_SIZE              70u    /* 0x46 in 580.x (docs/driver-sources.md §K) */
#define NV2080_GPU_MAX_NAME_STRING_LENGTH               64u
#define NV2080_CTRL_GPU_GET_NAME_STRING_FLAGS_TYPE_ASCII   0u
#define NV2080_CTRL_GPU_GET_NAME_STRING_FLAGS_TYPE_UNICODE 1u
#define NV2080_GPU_MAX_ENGINES_LIST_SIZE                84u
#define NV2080_GPU_MAX_GID_LENGTH                       256u
#define NV2080_GPU_CMD_GPU_GET_GID_FLAGS_FORMAT_MASK    0x3u
#define NV2080_GPU_CMD_GPU_GET_GID_FLAGS_FORMAT_ASCII   0x0u
#define NV2080_GPU_CMD_GPU_GET_GID_FLAGS_FORMAT_BINARY  0x2u
#define NV2080_CTRL_FB_INFO_MAX_LIST_SIZE               128u
#define NV2080_CTRL_BUS_INFO_MAX_LIST_SIZE              52u
/* Largest embedded list the driver copies (RMAPI_PARAM_COPY_MAX_PARAMS_SIZE). */
#define NV_RMAPI_PARAM_COPY_MAX_PARAMS_SIZE             (1u << 20)

/* CLIENT_GET_ADDR_SPACE_TYPE answers, as the H200 recording shows them per class. */
#define NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE_INVALID 0u
#define NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE_SYSMEM  1u
#define NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE_VIDMEM  2u
#define NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE_REGMEM  3u

/* One {index, data} pair of the *_GET_INFO(_V2) lists. */
typedef struct nv_ctrl_info_pair {
    uint32_t index;
    uint32_t data;
} nv_ctrl_info_pair;
NV_ASSERT_SIZE(nv_ctrl_info_pair, 8);

/* ---- NV0000 (client) ---- */

typedef struct NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_PARAMS {
    uint32_t sizeOfStrings;
    uint32_t pad0;
    uint64_t pDriverVersionBuffer;
    uint64_t pVersionBuffer;
    uint64_t pTitleBuffer;
    uint32_t changelistNumber;
    uint32_t officialChangelistNumber;
} NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_PARAMS;
NV_ASSERT_SIZE(NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_PARAMS, 40);
NV_ASSERT_OFF(NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_PARAMS, sizeOfStrings, 0);
NV_ASSERT_OFF(NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_PARAMS, pDriverVersionBuffer, 8);
NV_ASSERT_OFF(NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_PARAMS, pVersionBuffer, 16);
NV_ASSERT_OFF(NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_PARAMS, pTitleBuffer, 24);
NV_ASSERT_OFF(NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_PARAMS, changelistNumber, 32);
NV_ASSERT_OFF(NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_PARAMS, officialChangelistNumber, 36);

typedef struct NV0000_CTRL_GPU_GET_ATTACHED_IDS_PARAMS {
    uint32_t gpuIds[NV0000_CTRL_GPU_MAX_ATTACHED_GPUS];
} NV0000_CTRL_GPU_GET_ATTACHED_IDS_PARAMS;
NV_ASSERT_SIZE(NV0000_CTRL_GPU_GET_ATTACHED_IDS_PARAMS, 128);

typedef struct NV0000_CTRL_GPU_GET_ID_INFO_PARAMS {
    uint32_t gpuId;
    uint32_t gpuFlags;
    uint32_t deviceInstance;
    uint32_t subDeviceInstance;
    uint64_t szName;             /* unused by RM */
    uint32_t sliStatus;
    uint32_t boardId;
    uint32_t gpuInstance;
    int32_t numaId;
} NV0000_CTRL_GPU_GET_ID_INFO_PARAMS;
NV_ASSERT_SIZE(NV0000_CTRL_GPU_GET_ID_INFO_PARAMS, 40);
NV_ASSERT_OFF(NV0000_CTRL_GPU_GET_ID_INFO_PARAMS, gpuId, 0);
NV_ASSERT_OFF(NV0000_CTRL_GPU_GET_ID_INFO_PARAMS, gpuFlags, 4);
NV_ASSERT_OFF(NV0000_CTRL_GPU_GET_ID_INFO_PARAMS, deviceInstance, 8);
NV_ASSERT_OFF(NV0000_CTRL_GPU_GET_ID_INFO_PARAMS, subDeviceInstance, 12);
NV_ASSERT_OFF(NV0000_CTRL_GPU_GET_ID_INFO_PARAMS, szName, 16);
NV_ASSERT_OFF(NV0000_CTRL_GPU_GET_ID_INFO_PARAMS, sliStatus, 24);
NV_ASSERT_OFF(NV0000_CTRL_GPU_GET_ID_INFO_PARAMS, boardId, 28);
NV_ASSERT_OFF(NV0000_CTRL_GPU_GET_ID_INFO_PARAMS, gpuInstance, 32);
NV_ASSERT_OFF(NV0000_CTRL_GPU_GET_ID_INFO_PARAMS, numaId, 36);

typedef struct NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS {
    uint32_t gpuId;
    uint32_t gpuFlags;
    uint32_t deviceInstance;
    uint32_t subDeviceInstance;
    uint32_t sliStatus;
    uint32_t boardId;
    uint32_t gpuInstance;
    int32_t numaId;
} NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS;
NV_ASSERT_SIZE(NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS, 32);
NV_ASSERT_OFF(NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS, gpuId, 0);
NV_ASSERT_OFF(NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS, gpuFlags, 4);
NV_ASSERT_OFF(NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS, deviceInstance, 8);
NV_ASSERT_OFF(NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS, subDeviceInstance, 12);
NV_ASSERT_OFF(NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS, sliStatus, 16);
NV_ASSERT_OFF(NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS, boardId, 20);
NV_ASSERT_OFF(NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS, gpuInstance, 24);
NV_ASSERT_OFF(NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS, numaId, 28);

typedef struct NV0000_CTRL_GPU_GET_PROBED_IDS_PARAMS {
    uint32_t gpuIds[NV0000_CTRL_GPU_MAX_ATTACHED_GPUS];
    uint32_t excludedGpuIds[NV0000_CTRL_GPU_MAX_ATTACHED_GPUS];
    uint32_t gpuFlags[NV0000_CTRL_GPU_MAX_ATTACHED_GPUS];   /* from 580.65.06 */
} NV0000_CTRL_GPU_GET_PROBED_IDS_PARAMS;
NV_ASSERT_SIZE(NV0000_CTRL_GPU_GET_PROBED_IDS_PARAMS, 384);
NV_ASSERT_OFF(NV0000_CTRL_GPU_GET_PROBED_IDS_PARAMS, excludedGpuIds, 128);
NV_ASSERT_OFF(NV0000_CTRL_GPU_GET_PROBED_IDS_PARAMS, gpuFlags, 256);

/* Layout from the recording: hObject in, mapFlags in, addrSpaceType out. */
typedef struct NV0000_CTRL_CLIENT_GET_ADDR_SPACE_TYPE_PARAMS {
    uint32_t hObject;
    uint32_t mapFlags;
    uint32_t addrSpaceType;
} NV0000_CTRL_CLIENT_GET_ADDR_SPACE_TYPE_PARAMS;
NV_ASSERT_SIZE(NV0000_CTRL_CLIENT_GET_ADDR_SPACE_TYPE_PARAMS, 12);
NV_ASSERT_OFF(NV0000_CTRL_CLIENT_GET_ADDR_SPACE_TYPE_PARAMS, mapFlags, 4);
NV_ASSERT_OFF(NV0000_CTRL_CLIENT_GET_ADDR_SPACE_TYPE_PARAMS, addrSpaceType, 8);

/* RS_SHARE_POLICY (docs/driver-sources.md §C, NVOS57) is the whole parameter block. */
typedef struct NV0000_CTRL_CLIENT_SET_INHERITED_SHARE_POLICY_PARAMS {
    uint32_t target;
    uint32_t accessMask;
    uint16_t type;
    uint8_t action;
    uint8_t pad0;
} NV0000_CTRL_CLIENT_SET_INHERITED_SHARE_POLICY_PARAMS;
NV_ASSERT_SIZE(NV0000_CTRL_CLIENT_SET_INHERITED_SHARE_POLICY_PARAMS, 12);
NV_ASSERT_OFF(NV0000_CTRL_CLIENT_SET_INHERITED_SHARE_POLICY_PARAMS, accessMask, 4);
NV_ASSERT_OFF(NV0000_CTRL_CLIENT_SET_INHERITED_SHARE_POLICY_PARAMS, type, 8);
NV_ASSERT_OFF(NV0000_CTRL_CLIENT_SET_INHERITED_SHARE_POLICY_PARAMS, action, 10);

/* ---- NV0080 (device) ---- */

typedef struct NV0080_CTRL_GPU_GET_CLASSLIST_PARAMS {
    uint32_t numClasses;
    uint32_t pad0;
    uint64_t classList;          /* user pointer to u32[numClasses], or NULL to ask for the count */
} NV0080_CTRL_GPU_GET_CLASSLIST_PARAMS;
NV_ASSERT_SIZE(NV0080_CTRL_GPU_GET_CLASSLIST_PARAMS, 16);
NV_ASSERT_OFF(NV0080_CTRL_GPU_GET_CLASSLIST_PARAMS, classList, 8);

typedef struct NV0080_CTRL_GPU_GET_CLASSLIST_V2_PARAMS {
    uint32_t numClasses;
    uint32_t classList[NV0080_CTRL_GPU_CLASSLIST_MAX_SIZE];
} NV0080_CTRL_GPU_GET_CLASSLIST_V2_PARAMS;
NV_ASSERT_SIZE(NV0080_CTRL_GPU_GET_CLASSLIST_V2_PARAMS, 804);
NV_ASSERT_OFF(NV0080_CTRL_GPU_GET_CLASSLIST_V2_PARAMS, classList, 4);

typedef struct NV0080_CTRL_GPU_GET_NUM_SUBDEVICES_PARAMS {
    uint32_t numSubDevices;
} NV0080_CTRL_GPU_GET_NUM_SUBDEVICES_PARAMS;
NV_ASSERT_SIZE(NV0080_CTRL_GPU_GET_NUM_SUBDEVICES_PARAMS, 4);

/* ---- NV2080 (subdevice) ---- */

typedef struct NV2080_CTRL_GPU_GET_INFO_V2_PARAMS {
    uint32_t gpuInfoListSize;
    nv_ctrl_info_pair gpuInfoList[NV2080_CTRL_GPU_INFO_MAX_LIST_SIZE];
} NV2080_CTRL_GPU_GET_INFO_V2_PARAMS;
NV_ASSERT_SIZE(NV2080_CTRL_GPU_GET_INFO_V2_PARAMS, 564);
NV_ASSERT_OFF(NV2080_CTRL_GPU_GET_INFO_V2_PARAMS, gpuInfoList, 4);

typedef struct NV2080_CTRL_GPU_GET_NAME_STRING_PARAMS {
    uint32_t gpuNameStringFlags;
    union {
        uint8_t ascii[NV2080_GPU_MAX_NAME_STRING_LENGTH];
        uint16_t unicode[NV2080_GPU_MAX_NAME_STRING_LENGTH];
    } gpuNameString;
} NV2080_CTRL_GPU_GET_NAME_STRING_PARAMS;
NV_ASSERT_SIZE(NV2080_CTRL_GPU_GET_NAME_STRING_PARAMS, 132);
NV_ASSERT_OFF(NV2080_CTRL_GPU_GET_NAME_STRING_PARAMS, gpuNameString, 4);

/* Layout from the recording: the short name string only. */
typedef struct NV2080_CTRL_GPU_GET_SHORT_NAME_STRING_PARAMS {
    uint8_t gpuShortNameString[NV2080_GPU_MAX_NAME_STRING_LENGTH];
} NV2080_CTRL_GPU_GET_SHORT_NAME_STRING_PARAMS;
NV_ASSERT_SIZE(NV2080_CTRL_GPU_GET_SHORT_NAME_STRING_PARAMS, 64);

/* Layout from the recording: index in, flags in (format), length out, data out. */
typedef struct NV2080_CTRL_GPU_GET_GID_INFO_PARAMS {
    uint32_t index;
    uint32_t flags;
    uint32_t length;
    uint8_t data[NV2080_GPU_MAX_GID_LENGTH];
} NV2080_CTRL_GPU_GET_GID_INFO_PARAMS;
NV_ASSERT_SIZE(NV2080_CTRL_GPU_GET_GID_INFO_PARAMS, 268);
NV_ASSERT_OFF(NV2080_CTRL_GPU_GET_GID_INFO_PARAMS, length, 8);
NV_ASSERT_OFF(NV2080_CTRL_GPU_GET_GID_INFO_PARAMS, data, 12);

/* Layout from the recording: engine count, then NV2080_ENGINE_TYPE_* values. */
typedef struct NV2080_CTRL_GPU_GET_ENGINES_V2_PARAMS {
    uint32_t engineCount;
    uint32_t engineList[NV2080_GPU_MAX_ENGINES_LIST_SIZE];
} NV2080_CTRL_GPU_GET_ENGINES_V2_PARAMS;
NV_ASSERT_SIZE(NV2080_CTRL_GPU_GET_ENGINES_V2_PARAMS, 340);
NV_ASSERT_OFF(NV2080_CTRL_GPU_GET_ENGINES_V2_PARAMS, engineList, 4);

typedef struct NV2080_CTRL_GR_GET_INFO_PARAMS {
    uint32_t grInfoListSize;
    uint32_t pad0;
    uint64_t grInfoList;         /* user pointer to nv_ctrl_info_pair[grInfoListSize] */
    NV2080_CTRL_GR_ROUTE_INFO grRouteInfo;
} NV2080_CTRL_GR_GET_INFO_PARAMS;
NV_ASSERT_SIZE(NV2080_CTRL_GR_GET_INFO_PARAMS, 32);
NV_ASSERT_OFF(NV2080_CTRL_GR_GET_INFO_PARAMS, grInfoList, 8);
NV_ASSERT_OFF(NV2080_CTRL_GR_GET_INFO_PARAMS, grRouteInfo, 16);

/* Layout from the recording: channel handle in, context buffer size out. */
typedef struct NV2080_CTRL_GR_GET_CTX_BUFFER_SIZE_PARAMS {
    uint32_t hChannel;
    uint32_t pad0;
    uint64_t totalBufferSize;
} NV2080_CTRL_GR_GET_CTX_BUFFER_SIZE_PARAMS;
NV_ASSERT_SIZE(NV2080_CTRL_GR_GET_CTX_BUFFER_SIZE_PARAMS, 16);
NV_ASSERT_OFF(NV2080_CTRL_GR_GET_CTX_BUFFER_SIZE_PARAMS, totalBufferSize, 8);

/* Same shape as GPU_GET_INFO_V2 (sizes from the recording: 1028 and 420 bytes). */
typedef struct NV2080_CTRL_FB_GET_INFO_V2_PARAMS {
    uint32_t fbInfoListSize;
    nv_ctrl_info_pair fbInfoList[NV2080_CTRL_FB_INFO_MAX_LIST_SIZE];
} NV2080_CTRL_FB_GET_INFO_V2_PARAMS;
NV_ASSERT_SIZE(NV2080_CTRL_FB_GET_INFO_V2_PARAMS, 1028);

typedef struct NV2080_CTRL_BUS_GET_INFO_V2_PARAMS {
    uint32_t busInfoListSize;
    nv_ctrl_info_pair busInfoList[NV2080_CTRL_BUS_INFO_MAX_LIST_SIZE];
} NV2080_CTRL_BUS_GET_INFO_V2_PARAMS;
NV_ASSERT_SIZE(NV2080_CTRL_BUS_GET_INFO_V2_PARAMS, 420);

/* Layout from the recording. */
typedef struct NV2080_CTRL_MC_GET_ARCH_INFO_PARAMS {
    uint32_t architecture;
    uint32_t implementation;
    uint32_t revision;
    uint32_t subRevision;
} NV2080_CTRL_MC_GET_ARCH_INFO_PARAMS;
NV_ASSERT_SIZE(NV2080_CTRL_MC_GET_ARCH_INFO_PARAMS, 16);

/* Layout from the recording: device<<16|vendor, subsystem, revision, device id. */
typedef struct NV2080_CTRL_BUS_GET_PCI_INFO_PARAMS {
    uint32_t pciDeviceId;
    uint32_t pciSubSystemId;
    uint32_t pciRevisionId;
    uint32_t pciExtDeviceId;
} NV2080_CTRL_BUS_GET_PCI_INFO_PARAMS;
NV_ASSERT_SIZE(NV2080_CTRL_BUS_GET_PCI_INFO_PARAMS, 16);

#endif
