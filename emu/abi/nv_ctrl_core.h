/*
 * Controls on the core's own classes that the libcuda trace issues (emu/rm/ctrl_core.c) and the
 * parameterless NV2080 controls of the discovery path. Names and values: open-gpu-kernel-modules 580.x,
 * src/common/sdk/nvidia/inc/ctrl/ (file per group below). Commands the published headers do not define
 * are named *_UNPUBLISHED_<low 16 bits>, as in nv_ctrl_monitoring.h; the sizes of the parameter blocks
 * the emulator does not decode are the paramsSize the 580.159.04 driver accepted in the fixtures/hw/
 * recordings.
 */
#ifndef NVEMU_ABI_NV_CTRL_CORE_H
#define NVEMU_ABI_NV_CTRL_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "abi/nv_abi_assert.h"

/* ctrl/ctrlcb33.h (NV_CONFIDENTIAL_COMPUTE) */
#define NV_CONF_COMPUTE_CTRL_CMD_SYSTEM_GET_CAPABILITIES                         0xCB330101u
#define NV_CONF_COMPUTE_CTRL_CMD_SYSTEM_GET_CAPABILITIES_PARAMS_SIZE             6u

/* ctrl/ctrl90e6.h (GF100_SUBDEVICE_MASTER) */
#define NV90E6_CTRL_CMD_MASTER_GET_VIRTUAL_FUNCTION_ERROR_CONT_INTR_MASK         0x90E60102u
#define NV90E6_CTRL_CMD_MASTER_GET_VIRTUAL_FUNCTION_ERROR_CONT_INTR_MASK_PARAMS_SIZE 8u

/* ctrl/ctrl2081.h (NV2081_BINAPI): not in the published header */
#define NV2081_CTRL_CMD_UNPUBLISHED_0108                                         0x20810108u
#define NV2081_CTRL_CMD_UNPUBLISHED_0108_PARAMS_SIZE                             992u

/* ctrl/ctrl2080/: parameterless, not in the published headers; the recording answered NV_OK */
#define NV2080_CTRL_CMD_UNPUBLISHED_0145                                         0x20800145u
#define NV2080_CTRL_CMD_UNPUBLISHED_220C                                         0x2080220Cu
#define NV2080_CTRL_CMD_UNPUBLISHED_2210                                         0x20802210u

/*
 * ctrl/ctrl0041.h (the memory classes' interface, NV01_MEMORY_*): GET_SURFACE_INFO answers a caller's list of
 * {index, data} entries (NVXXXX_CTRL_XXX_INFO) behind the surfaceInfoList pointer. PHYS_SIZE is in units of
 * PHYS_SIZE_SCALE_FACTOR bytes; ADDR_SPACE_TYPE answers NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE_*.
 */
#define NV0041_CTRL_CMD_GET_SURFACE_INFO                                         0x00410110u
#define NV0041_CTRL_SURFACE_INFO_INDEX_ATTRS                                     1u
#define NV0041_CTRL_SURFACE_INFO_INDEX_PHYS_SIZE_LO                              2u
#define NV0041_CTRL_SURFACE_INFO_INDEX_PHYS_SIZE_HI                              3u
#define NV0041_CTRL_SURFACE_INFO_INDEX_COMPR_COVERAGE                            5u
#define NV0041_CTRL_SURFACE_INFO_INDEX_PHYS_SIZE                                 7u
#define NV0041_CTRL_SURFACE_INFO_INDEX_PHYS_ATTR                                 8u
#define NV0041_CTRL_SURFACE_INFO_INDEX_ADDR_SPACE_TYPE                           9u
#define NV0041_CTRL_SURFACE_INFO_PHYS_SIZE_SCALE_FACTOR                          0x1000u
#define NV0041_CTRL_SURFACE_INFO_ATTRS_COMPR                                     0x2u
#define NV0041_CTRL_SURFACE_INFO_ATTRS_ZCULL                                     0x4u

typedef struct NV0041_CTRL_SURFACE_INFO {
    uint32_t index;
    uint32_t data;              /* out */
} NV0041_CTRL_SURFACE_INFO;
NV_ASSERT_LAYOUT(NV0041_CTRL_SURFACE_INFO, 8, 4);
NV_ASSERT_OFF(NV0041_CTRL_SURFACE_INFO, data, 4);

typedef struct NV0041_CTRL_GET_SURFACE_INFO_PARAMS {
    uint32_t surfaceInfoListSize;
    uint32_t pad;
    uint64_t surfaceInfoList;   /* user pointer to NV0041_CTRL_SURFACE_INFO[surfaceInfoListSize] */
} NV0041_CTRL_GET_SURFACE_INFO_PARAMS;
NV_ASSERT_LAYOUT(NV0041_CTRL_GET_SURFACE_INFO_PARAMS, 16, 8);
NV_ASSERT_OFF(NV0041_CTRL_GET_SURFACE_INFO_PARAMS, surfaceInfoList, 8);

/* ctrl/ctrl503c.h (NV50_THIRD_PARTY_P2P) */
#define NV503C_CTRL_CMD_REGISTER_VA_SPACE                                        0x503C0102u
#define NV503C_CTRL_CMD_REGISTER_VIDMEM                                          0x503C0104u
#define NV503C_CTRL_CMD_UNREGISTER_VIDMEM                                        0x503C0105u

typedef struct NV503C_CTRL_REGISTER_VA_SPACE_PARAMS {
    uint32_t hVASpace;
    uint32_t pad;
    uint64_t vaSpaceToken;      /* out */
} NV503C_CTRL_REGISTER_VA_SPACE_PARAMS;
NV_ASSERT_LAYOUT(NV503C_CTRL_REGISTER_VA_SPACE_PARAMS, 16, 8);
NV_ASSERT_OFF(NV503C_CTRL_REGISTER_VA_SPACE_PARAMS, vaSpaceToken, 8);

typedef struct NV503C_CTRL_REGISTER_VIDMEM_PARAMS {
    uint32_t hMemory;
    uint32_t pad;
    uint64_t offset;
    uint64_t size;
    uint64_t address;           /* out */
} NV503C_CTRL_REGISTER_VIDMEM_PARAMS;
NV_ASSERT_LAYOUT(NV503C_CTRL_REGISTER_VIDMEM_PARAMS, 32, 8);

typedef struct NV503C_CTRL_UNREGISTER_VIDMEM_PARAMS {
    uint32_t hMemory;
} NV503C_CTRL_UNREGISTER_VIDMEM_PARAMS;
NV_ASSERT_LAYOUT(NV503C_CTRL_UNREGISTER_VIDMEM_PARAMS, 4, 4);

/* ctrl/ctrl83de/ctrl83dedebug.h (GT200_DEBUGGER) */
#define NV83DE_CTRL_CMD_DEBUG_SET_EXCEPTION_MASK                                 0x83DE0309u

typedef struct NV83DE_CTRL_DEBUG_SET_EXCEPTION_MASK_PARAMS {
    uint32_t exceptionMask;
} NV83DE_CTRL_DEBUG_SET_EXCEPTION_MASK_PARAMS;
NV_ASSERT_LAYOUT(NV83DE_CTRL_DEBUG_SET_EXCEPTION_MASK_PARAMS, 4, 4);

#endif
