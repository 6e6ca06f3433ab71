/*
 * The layouts of releases before the base (580) that differ from it, one
 * struct per layout and release, asserted like the base structs. Each was read
 * from the open driver's headers of that release (tags 550.120 and 575.57.08 of
 * open-gpu-kernel-modules; the file named above each struct) and is checked
 * against them by tools/abi-parity (docs/driver-versions.md). Own definitions.
 *
 * Where a later release appended fields, the older struct is the base struct's
 * prefix: handlers keep working on the base type with the tail zeroed.
 * Naming (tools/abi-parity reads it): TYPE_R575 holds for 550 and 575, TYPE_R550
 * for 550 only; TYPE_R550_SIZE and TYPE_R550_OFF_field state a size or offset
 * where the struct itself is not spelled out.
 */
#ifndef NVEMU_ABI_NV_LAYOUTS_PRE580_H
#define NVEMU_ABI_NV_LAYOUTS_PRE580_H

#include "abi/nv_escape.h"

/* nvos.h (550.120, 575.57.08): NVOS46 before flags2 and kindOverride came between flags and dmaOffset. */
typedef struct NVOS46_PARAMETERS_R575 {
    NvHandle hClient;
    NvHandle hDevice;
    NvHandle hDma;
    NvHandle hMemory;
    NvU64A offset;
    NvU64A length;
    uint32_t flags;
    NvU64A dmaOffset;
    NV_STATUS status;
} NVOS46_PARAMETERS_R575;
NV_ASSERT_LAYOUT(NVOS46_PARAMETERS_R575, 56, 8);
NV_ASSERT_OFF(NVOS46_PARAMETERS_R575, flags, 32);
NV_ASSERT_OFF(NVOS46_PARAMETERS_R575, dmaOffset, 40);
NV_ASSERT_OFF(NVOS46_PARAMETERS_R575, status, 48);

/* nvos.h (550.120, 575.57.08): NV_VASPACE_ALLOCATION_PARAMETERS before pasid (580). */
typedef struct NV_VASPACE_ALLOCATION_PARAMETERS_R575 {
    uint32_t index;
    uint32_t flags;
    NvU64A vaSize;
    NvU64A vaStartInternal;
    NvU64A vaLimitInternal;
    uint32_t bigPageSize;
    NvU64A vaBase;
} NV_VASPACE_ALLOCATION_PARAMETERS_R575;
NV_ASSERT_LAYOUT(NV_VASPACE_ALLOCATION_PARAMETERS_R575, 48, 8);
NV_ASSERT_OFF(NV_VASPACE_ALLOCATION_PARAMETERS_R575, vaBase, 40);

/*
 * class/cl0000.h (550.120): NV0000_ALLOC_PARAMETERS before pOsPidInfo (575). RM reads only hClient of it
 * (NV0000_ALLOC_COPY_SIZE), so no release delta follows from it.
 */
typedef struct NV0000_ALLOC_PARAMETERS_R550 {
    NvHandle hClient;
    uint32_t processID;
    char processName[100];
} NV0000_ALLOC_PARAMETERS_R550;
NV_ASSERT_LAYOUT(NV0000_ALLOC_PARAMETERS_R550, 108, 4);
NV_ASSERT_OFF(NV0000_ALLOC_PARAMETERS_R550, processName, 8);

/* alloc/alloc_channel.h (550.120): NV_CHANNEL_ALLOC_PARAMS before tpcConfigID (575); 8 bytes shorter. */
#define NV_CHANNEL_ALLOC_PARAMS_R550_SIZE 360u

/* ctrl/ctrla06f/ctrla06fgpfifo.h (550.120): GPFIFO_SCHEDULE before bSkipEnable (575). */
typedef struct NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS_R550 {
    uint8_t bEnable;
    uint8_t bSkipSubmit;
} NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS_R550;
NV_ASSERT_LAYOUT(NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS_R550, 2, 1);

/*
 * ctrl/ctrl2080/ctrl2080gr.h (550.120): CTXSW_PREEMPTION_BIND with 8 buffer pointers (575 added
 * BUFFERS_SETUP, making 9), so every field after vMemPtrs sits 8 bytes earlier.
 */
#define NV2080_CTRL_GR_CTXSW_PREEMPTION_BIND_PARAMS_R550_SIZE 104u
#define NV2080_CTRL_GR_CTXSW_PREEMPTION_BIND_PARAMS_R550_OFF_gfxpPreemptMode 80u
#define NV2080_CTRL_GR_CTXSW_PREEMPTION_BIND_PARAMS_R550_OFF_cilpPreemptMode 84u

/* nv-ioctl.h (550.120): export_to_dma_buf_fd before mappingType (575) and bAllowMmap (580). */
typedef struct nv_ioctl_export_to_dma_buf_fd_t_R550 {
    uint64_t opaque[324];
    NV_STATUS status;
    uint32_t pad;
} nv_ioctl_export_to_dma_buf_fd_t_R550;
NV_ASSERT_LAYOUT(nv_ioctl_export_to_dma_buf_fd_t_R550, 2600, 8);
NV_ASSERT_OFF(nv_ioctl_export_to_dma_buf_fd_t_R550, status, 2592);

/*
 * Discovery controls whose list arrays were shorter (the arrays end the struct, so the older block is the
 * base's prefix): ctrl/ctrl0000/ctrl0000gpu.h NV0000_CTRL_GPU_MAX_PROBED_GPUS arrays before gpuFlags (580);
 * ctrl/ctrl0080/ctrl0080gpu.h NV0080_CTRL_GPU_CLASSLIST_MAX_SIZE 174 (550), 100 (575), 200 (580);
 * ctrl/ctrl2080/ctrl2080gpu.h NV2080_CTRL_GPU_INFO_MAX_LIST_SIZE 0x41 (550), 0x42 (575), 0x46 (580) and
 * NV2080_GPU_MAX_ENGINES_LIST_SIZE 0x40 (550), 0x54; ctrl/ctrl2080/ctrl2080fb.h NV2080_CTRL_FB_INFO_MAX_LIST_SIZE
 * 0x37 (550), 0x39 (575), 0x80 (580).
 */
#define NV0000_CTRL_GPU_GET_PROBED_IDS_PARAMS_R575_SIZE 256u
#define NV0080_CTRL_GPU_GET_CLASSLIST_V2_PARAMS_R575_SIZE 404u
#define NV0080_CTRL_GPU_GET_CLASSLIST_V2_PARAMS_R550_SIZE 700u
#define NV2080_CTRL_GPU_GET_INFO_V2_PARAMS_R575_SIZE 532u
#define NV2080_CTRL_GPU_GET_INFO_V2_PARAMS_R550_SIZE 524u
#define NV2080_CTRL_GPU_GET_ENGINES_V2_PARAMS_R550_SIZE 260u
#define NV2080_CTRL_FB_GET_INFO_V2_PARAMS_R575_SIZE 460u
#define NV2080_CTRL_FB_GET_INFO_V2_PARAMS_R550_SIZE 444u

#endif
