/*
 * Control commands of the monitoring and profiling paths (NVML, nvidia-smi, CUPTI, PyTorch start-up) that
 * emu/rm/ctrl_monitoring.c answers from the GPU profile's recorded data, and their parameter sizes (CMD_PARAMS_SIZE).
 * Names and values: open-gpu-kernel-modules 580.x, src/common/sdk/nvidia/inc/ctrl/ (the file is named per
 * group below). Commands the published headers do not define are named *_UNPUBLISHED_<low 16 bits>; their
 * sizes are the paramsSize the 580.159.04 driver accepted in the fixtures/hw/ recordings (the driver
 * rejects any other size with NV_ERR_INVALID_ARGUMENT, so the recorded size is the registered one).
 */
#ifndef NVEMU_ABI_NV_CTRL_MONITORING_H
#define NVEMU_ABI_NV_CTRL_MONITORING_H

#include <stdint.h>

#include "abi/nv_abi_assert.h"
#include "abi/nv_escape.h"

/* ctrl0000/ctrl0000gpu.h */
#define NV0000_CTRL_CMD_GPU_DETACH_IDS                               0x00000216u
#define NV0000_CTRL_CMD_GPU_DETACH_IDS_PARAMS_SIZE                   128u
#define NV0000_CTRL_CMD_GPU_GET_PCI_INFO                             0x0000021Bu
#define NV0000_CTRL_CMD_GPU_GET_PCI_INFO_PARAMS_SIZE                 12u
#define NV0000_CTRL_CMD_GPU_QUERY_DRAIN_STATE                        0x00000279u
#define NV0000_CTRL_CMD_GPU_QUERY_DRAIN_STATE_PARAMS_SIZE            12u
#define NV0000_CTRL_CMD_GPU_ASYNC_ATTACH_ID                          0x00000289u
#define NV0000_CTRL_CMD_GPU_ASYNC_ATTACH_ID_PARAMS_SIZE              4u
/* ctrl0000/ctrl0000gpuacct.h */
#define NV0000_CTRL_CMD_GPUACCT_GET_ACCOUNTING_STATE                 0x00000B02u
#define NV0000_CTRL_CMD_GPUACCT_GET_ACCOUNTING_STATE_PARAMS_SIZE     12u
/* ctrl0080/ctrl0080gpu.h */
#define NV0080_CTRL_CMD_GPU_QUERY_SW_STATE_PERSISTENCE               0x00800288u
#define NV0080_CTRL_CMD_GPU_QUERY_SW_STATE_PERSISTENCE_PARAMS_SIZE   4u
/* ctrl00de.h */
#define NV00DE_CTRL_CMD_REQUEST_DATA_POLL                            0x00DE0001u
/* ctrl00de.h: the mask of data to keep refreshed in the shared page (cl00de.h NV00DE_RUSD_POLL_*). */
typedef struct NV00DE_CTRL_REQUEST_DATA_POLL_PARAMS {
    NvU64A polledDataMask;
} NV00DE_CTRL_REQUEST_DATA_POLL_PARAMS;
NV_ASSERT_LAYOUT(NV00DE_CTRL_REQUEST_DATA_POLL_PARAMS, 8, 8);
/* ctrl2080/ctrl2080gpu.h */
#define NV2080_CTRL_CMD_GPU_QUERY_INFOROM_ECC_SUPPORT                0x20800157u
#define NV2080_CTRL_CMD_GPU_QUERY_INFOROM_ECC_SUPPORT_PARAMS_SIZE    0u
#define NV2080_CTRL_CMD_GPU_QUERY_ECC_CONFIGURATION                  0x20800133u
#define NV2080_CTRL_CMD_GPU_QUERY_ECC_CONFIGURATION_PARAMS_SIZE      8u
#define NV2080_CTRL_CMD_GPU_GET_OEM_BOARD_INFO                       0x2080013Fu
#define NV2080_CTRL_CMD_GPU_GET_OEM_BOARD_INFO_PARAMS_SIZE           136u
#define NV2080_CTRL_CMD_GPU_GET_INFOROM_OBJECT_VERSION               0x2080014Bu
#define NV2080_CTRL_CMD_GPU_GET_INFOROM_OBJECT_VERSION_PARAMS_SIZE   5u
#define NV2080_CTRL_CMD_GPU_GET_INFOROM_IMAGE_VERSION                0x20800156u
#define NV2080_CTRL_CMD_GPU_GET_INFOROM_IMAGE_VERSION_PARAMS_SIZE    16u
/*
 * Per-board answers (ctrl2080gpu.h, ctrl2080gr.h, ctrl2080fb.h, ctrl2080ecc.h, ctrl2080bus.h, ctrl0000gpu.h): two
 * boards of one kind differ here (UUID, board serial, floorsweeping, ECC history, PCI location).
 */
#define NV2080_CTRL_CMD_GPU_GET_FERMI_GPC_INFO                       0x20800137u
#define NV2080_CTRL_CMD_GPU_GET_FERMI_TPC_INFO                       0x20800138u
#define NV2080_CTRL_CMD_GPU_GET_FERMI_ZCULL_INFO                     0x20800139u
#define NV2080_CTRL_CMD_GR_GET_TPC_MASK                              0x2080122Bu
#define NV2080_CTRL_CMD_FB_GET_FS_INFO                               0x20801346u
#define NV2080_CTRL_CMD_ECC_GET_CLIENT_EXPOSED_COUNTERS              0x20803400u
#define NV2080_CTRL_CMD_ECC_GET_VOLATILE_COUNTS                      0x20803401u
#define NV2080_CTRL_CMD_ECC_GET_SRAM_UNIQUE_UNCORR_COUNTS            0x20803402u
/* (not in the published headers) */
#define NV2080_CTRL_CMD_UNPUBLISHED_016D                             0x2080016Du
#define NV2080_CTRL_CMD_UNPUBLISHED_016D_PARAMS_SIZE                 12u
#define NV2080_CTRL_CMD_UNPUBLISHED_017B                             0x2080017Bu
#define NV2080_CTRL_CMD_UNPUBLISHED_017B_PARAMS_SIZE                 12u
/* ctrl2080/ctrl2080gpu.h */
#define NV2080_CTRL_CMD_GPU_GET_PIDS                                 0x2080018Du
#define NV2080_CTRL_CMD_GPU_GET_PIDS_PARAMS_SIZE                     3812u
#define NV2080_CTRL_GPU_GET_PIDS_MAX_COUNT                           950u
#define NV2080_CTRL_GPU_GET_PIDS_ID_TYPE_CLASS                       0u
#define NV2080_CTRL_GPU_GET_PIDS_ID_TYPE_VGPU_GUEST                  1u
typedef struct NV2080_CTRL_GPU_GET_PIDS_PARAMS {
    uint32_t idType;
    uint32_t id;
    uint32_t pidTblCount;
    uint32_t pidTbl[NV2080_CTRL_GPU_GET_PIDS_MAX_COUNT];
} NV2080_CTRL_GPU_GET_PIDS_PARAMS;
NV_ASSERT_LAYOUT(NV2080_CTRL_GPU_GET_PIDS_PARAMS, NV2080_CTRL_CMD_GPU_GET_PIDS_PARAMS_SIZE, 4);
NV_ASSERT_OFF(NV2080_CTRL_GPU_GET_PIDS_PARAMS, pidTblCount, 8);
NV_ASSERT_OFF(NV2080_CTRL_GPU_GET_PIDS_PARAMS, pidTbl, 12);
#define NV2080_CTRL_CMD_GPU_GET_PID_INFO                             0x2080018Eu
#define NV2080_CTRL_CMD_GPU_GET_PID_INFO_PARAMS_SIZE                 14408u
#define NV2080_CTRL_GPU_GET_PID_INFO_MAX_COUNT                       200u
#define NV2080_CTRL_GPU_PID_INFO_INDEX_VIDEO_MEMORY_USAGE            0u
#define NV2080_CTRL_GPU_PID_INFO_PARTITIONID_INVALID                 0xFFFFFFFFu  /* no MIG instance */
typedef struct NV2080_CTRL_GPU_PID_INFO_VIDEO_MEMORY_USAGE_DATA {
    NvU64A memPrivate;
    NvU64A memSharedOwned;
    NvU64A memSharedDuped;
    NvU64A protectedMemPrivate;
    NvU64A protectedMemSharedOwned;
    NvU64A protectedMemSharedDuped;
} NV2080_CTRL_GPU_PID_INFO_VIDEO_MEMORY_USAGE_DATA;
typedef struct NV2080_CTRL_GPU_PID_INFO {
    uint32_t pid;
    uint32_t index;
    uint32_t result;
    NV2080_CTRL_GPU_PID_INFO_VIDEO_MEMORY_USAGE_DATA vidMemUsage;  /* the union's one member */
    uint32_t computeInstanceId;                                    /* smcSubscription */
    uint32_t gpuInstanceId;
} NV2080_CTRL_GPU_PID_INFO;
NV_ASSERT_LAYOUT(NV2080_CTRL_GPU_PID_INFO, 72, 8);
NV_ASSERT_OFF(NV2080_CTRL_GPU_PID_INFO, vidMemUsage, 16);
NV_ASSERT_OFF(NV2080_CTRL_GPU_PID_INFO, computeInstanceId, 64);
typedef struct NV2080_CTRL_GPU_GET_PID_INFO_PARAMS {
    uint32_t pidInfoListCount;
    NV2080_CTRL_GPU_PID_INFO pidInfoList[NV2080_CTRL_GPU_GET_PID_INFO_MAX_COUNT];
} NV2080_CTRL_GPU_GET_PID_INFO_PARAMS;
NV_ASSERT_LAYOUT(NV2080_CTRL_GPU_GET_PID_INFO_PARAMS, NV2080_CTRL_CMD_GPU_GET_PID_INFO_PARAMS_SIZE, 8);
NV_ASSERT_OFF(NV2080_CTRL_GPU_GET_PID_INFO_PARAMS, pidInfoList, 8);
#define NV2080_CTRL_CMD_GPU_GET_CHIP_DETAILS                         0x208001A4u
#define NV2080_CTRL_CMD_GPU_GET_CHIP_DETAILS_PARAMS_SIZE             16u
#define NV2080_CTRL_CMD_GPU_GET_RECOVERY_ACTION                      0x208001B2u
#define NV2080_CTRL_CMD_GPU_GET_RECOVERY_ACTION_PARAMS_SIZE          4u
/* ctrl2080/ctrl2080tmr.h */
#define NV2080_CTRL_CMD_TIMER_GET_GPU_CPU_TIME_CORRELATION_INFO      0x20800406u
#define NV2080_CTRL_CMD_TIMER_GET_GPU_CPU_TIME_CORRELATION_INFO_PARAMS_SIZE 264u
/* ctrl2080/ctrl2080bios.h */
#define NV2080_CTRL_CMD_BIOS_GET_INFO                                0x20800802u
#define NV2080_CTRL_CMD_BIOS_GET_INFO_V2                             0x20800810u
#define NV2080_CTRL_BIOS_INFO_MAX_SIZE                               15u
#define NV2080_CTRL_BIOS_INFO_INDEX_REVISION                         0u
#define NV2080_CTRL_BIOS_INFO_INDEX_OEM_REVISION                     1u
/* The legacy form of BIOS_GET_INFO_V2: the {index, data} list lies behind a pointer (the driver converts it to V2). */
typedef struct NV2080_CTRL_BIOS_GET_INFO_PARAMS {
    uint32_t biosInfoListSize;
    NvP64 biosInfoList;
} NV2080_CTRL_BIOS_GET_INFO_PARAMS;
NV_ASSERT_LAYOUT(NV2080_CTRL_BIOS_GET_INFO_PARAMS, 16, 8);
NV_ASSERT_OFF(NV2080_CTRL_BIOS_GET_INFO_PARAMS, biosInfoList, 8);
/* ctrl2080/ctrl2080rc.h */
#define NV2080_CTRL_CMD_RC_GET_WATCHDOG_INFO                         0x20802209u
#define NV2080_CTRL_RC_GET_WATCHDOG_INFO_FLAGS_DISABLED              0x1u
#define NV2080_CTRL_RC_GET_WATCHDOG_INFO_FLAGS_RUNNING               0x2u
#define NV2080_CTRL_RC_GET_WATCHDOG_INFO_FLAGS_INITIALIZED           0x4u
typedef struct NV2080_CTRL_RC_GET_WATCHDOG_INFO_PARAMS {
    uint32_t watchdogStatusFlags;
} NV2080_CTRL_RC_GET_WATCHDOG_INFO_PARAMS;
NV_ASSERT_LAYOUT(NV2080_CTRL_RC_GET_WATCHDOG_INFO_PARAMS, 4, 4);
/* ctrl2080/ctrl2080bus.h */
#define NV2080_CTRL_CMD_BUS_GET_INFO                                 0x20801802u
/* The legacy form of BUS_GET_INFO_V2: the {index, data} list lies behind a pointer. */
typedef struct NV2080_CTRL_BUS_GET_INFO_PARAMS {
    uint32_t busInfoListSize;
    NvP64 busInfoList;
} NV2080_CTRL_BUS_GET_INFO_PARAMS;
NV_ASSERT_LAYOUT(NV2080_CTRL_BUS_GET_INFO_PARAMS, 16, 8);
NV_ASSERT_OFF(NV2080_CTRL_BUS_GET_INFO_PARAMS, busInfoList, 8);
#define NV2080_CTRL_CMD_BUS_GET_PEX_COUNTERS                         0x20801813u
#define NV2080_CTRL_CMD_BUS_GET_PEX_COUNTERS_PARAMS_SIZE             76u
#define NV2080_CTRL_CMD_BUS_GET_PEX_UTIL_COUNTERS                    0x20801819u
#define NV2080_CTRL_CMD_BUS_GET_PEX_UTIL_COUNTERS_PARAMS_SIZE        32u
#define NV2080_CTRL_CMD_BUS_GET_PCIE_REQ_ATOMICS_CAPS                0x20801829u
#define NV2080_CTRL_CMD_BUS_GET_PCIE_REQ_ATOMICS_CAPS_PARAMS_SIZE    12u
#define NV2080_CTRL_CMD_BUS_GET_PCIE_CPL_ATOMICS_CAPS                0x20801830u
#define NV2080_CTRL_CMD_BUS_GET_PCIE_CPL_ATOMICS_CAPS_PARAMS_SIZE    4u
/* ctrl2080/ctrl2080perf.h */
#define NV2080_CTRL_CMD_PERF_GET_GPUMON_PERFMON_UTIL_SAMPLES_V2      0x20802096u
#define NV2080_CTRL_CMD_PERF_GET_GPUMON_PERFMON_UTIL_SAMPLES_V2_PARAMS_SIZE 55888u
/* ctrl2080/ctrl2080nvlink.h */
#define NV2080_CTRL_CMD_NVLINK_GET_NVLINK_CAPS                       0x20803001u
#define NV2080_CTRL_CMD_NVLINK_GET_NVLINK_CAPS_PARAMS_SIZE           48u
#define NV2080_CTRL_CMD_NVLINK_GET_PLATFORM_INFO                     0x20803083u
#define NV2080_CTRL_CMD_NVLINK_GET_PLATFORM_INFO_PARAMS_SIZE         39u
/* ctrl2080/ctrl2080ecc.h */
#define NV2080_CTRL_CMD_ECC_GET_REPAIR_STATUS                        0x20803404u
#define NV2080_CTRL_CMD_ECC_GET_REPAIR_STATUS_PARAMS_SIZE            2u
/*
 * Per-board answers (ctrl2080gpu.h, ctrl2080gr.h, ctrl2080fb.h, ctrl2080ecc.h, ctrl2080bus.h, ctrl0000gpu.h): two
 * boards of one kind differ here (UUID, board serial, floorsweeping, ECC history, PCI location).
 */
#define NV2080_CTRL_CMD_GPU_GET_FERMI_GPC_INFO                       0x20800137u
#define NV2080_CTRL_CMD_GPU_GET_FERMI_TPC_INFO                       0x20800138u
#define NV2080_CTRL_CMD_GPU_GET_FERMI_ZCULL_INFO                     0x20800139u
#define NV2080_CTRL_CMD_GR_GET_TPC_MASK                              0x2080122Bu
#define NV2080_CTRL_CMD_FB_GET_FS_INFO                               0x20801346u
#define NV2080_CTRL_CMD_ECC_GET_CLIENT_EXPOSED_COUNTERS              0x20803400u
#define NV2080_CTRL_CMD_ECC_GET_VOLATILE_COUNTS                      0x20803401u
#define NV2080_CTRL_CMD_ECC_GET_SRAM_UNIQUE_UNCORR_COUNTS            0x20803402u
/* (not in the published headers) */
#define NV2080_CTRL_CMD_UNPUBLISHED_3406                             0x20803406u
#define NV2080_CTRL_CMD_UNPUBLISHED_3406_PARAMS_SIZE                 1u
#define NV2080_CTRL_CMD_UNPUBLISHED_852A                             0x2080852Au
#define NV2080_CTRL_CMD_UNPUBLISHED_852A_PARAMS_SIZE                 1784u
#define NV2080_CTRL_CMD_UNPUBLISHED_852B                             0x2080852Bu
#define NV2080_CTRL_CMD_UNPUBLISHED_852B_PARAMS_SIZE                 2836u
#define NV2080_CTRL_CMD_UNPUBLISHED_852E                             0x2080852Eu
#define NV2080_CTRL_CMD_UNPUBLISHED_852E_PARAMS_SIZE                 528u
#define NV2080_CTRL_CMD_UNPUBLISHED_8536                             0x20808536u
#define NV2080_CTRL_CMD_UNPUBLISHED_8536_PARAMS_SIZE                 1812u
#define NV2080_CTRL_CMD_UNPUBLISHED_853A                             0x2080853Au
#define NV2080_CTRL_CMD_UNPUBLISHED_853A_PARAMS_SIZE                 1456u
#define NV2080_CTRL_CMD_UNPUBLISHED_8542                             0x20808542u
#define NV2080_CTRL_CMD_UNPUBLISHED_8542_PARAMS_SIZE                 504u
#define NV2080_CTRL_CMD_UNPUBLISHED_8546                             0x20808546u
#define NV2080_CTRL_CMD_UNPUBLISHED_8546_PARAMS_SIZE                 24u
#define NV2080_CTRL_CMD_UNPUBLISHED_9001                             0x20809001u
#define NV2080_CTRL_CMD_UNPUBLISHED_9001_PARAMS_SIZE                 8u
#define NV2080_CTRL_CMD_UNPUBLISHED_9004                             0x20809004u
#define NV2080_CTRL_CMD_UNPUBLISHED_9004_PARAMS_SIZE                 1544u
#define NV2080_CTRL_CMD_UNPUBLISHED_9009                             0x20809009u
#define NV2080_CTRL_CMD_UNPUBLISHED_9009_PARAMS_SIZE                 8u
#define NV2080_CTRL_CMD_UNPUBLISHED_9019                             0x20809019u
#define NV2080_CTRL_CMD_UNPUBLISHED_9019_PARAMS_SIZE                 10800u
#define NV2080_CTRL_CMD_UNPUBLISHED_9064                             0x20809064u
#define NV2080_CTRL_CMD_UNPUBLISHED_9064_PARAMS_SIZE                 520u
/*
 * 0x20809040, category 0x90 (NV2080_CTRL_CLK_LEGACY_NON_PRIVILEGED, ctrl2080base.h), index 0x40: in no header
 * of the open driver 550.x, 575.57.08 or 580.x (ctrl2080clk.h there defines no command). The layout as
 * observed: `nvidia-smi -q -d PERFORMANCE,CLOCK` on an H200 (580.159.04,
 * fixtures/hw/h200-580.159.04/programs3-heldout/trace-smi-q-perf-clock.log.gz lines 83 and 85) sent a block of
 * 4,808 bytes holding 3 in its first word and zeros after it, twice; the driver answered NV_OK both times and
 * left every byte as sent.
 */
#define NV2080_CTRL_CMD_UNPUBLISHED_9040                             0x20809040u
#define NV2080_CTRL_CMD_UNPUBLISHED_9040_PARAMS_SIZE                 4808u
#define NV2080_CTRL_UNPUBLISHED_9040_REQUEST_OBSERVED                3u
typedef struct NV2080_CTRL_UNPUBLISHED_9040_PARAMS {
    uint32_t request;
    uint8_t rest[NV2080_CTRL_CMD_UNPUBLISHED_9040_PARAMS_SIZE - 4];
} NV2080_CTRL_UNPUBLISHED_9040_PARAMS;
NV_ASSERT_LAYOUT(NV2080_CTRL_UNPUBLISHED_9040_PARAMS, NV2080_CTRL_CMD_UNPUBLISHED_9040_PARAMS_SIZE, 4);
NV_ASSERT_OFF(NV2080_CTRL_UNPUBLISHED_9040_PARAMS, rest, 4);
#define NV2080_CTRL_CMD_UNPUBLISHED_A026                             0x2080A026u
#define NV2080_CTRL_CMD_UNPUBLISHED_A026_PARAMS_SIZE                 532u
/*
 * The layout of A026 as observed, not published: every call in fixtures/hw (H200 and H100, 580.159.04; libcuda
 * at context creation) sent 0x400 in `request`, a count of 2 and the clock domains 0x1 and 0x10 (the
 * NV2080_CTRL_CLK_DOMAIN_* bits of GPCCLK and MCLK), and the driver answered NV_OK writing the bytes named
 * *_out: the two frequencies in kHz (H200: 1,980,000 and 3,200,000; H100: 1,980,000 and 2,619,000, the boards'
 * maximum graphics and memory clocks) and three words that never varied. Every other byte was left as sent.
 */
#define NV2080_CTRL_UNPUBLISHED_A026_MAX_CLKS                        32u
typedef struct NV2080_CTRL_UNPUBLISHED_A026_CLK {
    uint32_t domain;
    uint32_t rsvd0;
    uint32_t freqKHz_out;
    uint32_t rsvd1;
} NV2080_CTRL_UNPUBLISHED_A026_CLK;
typedef struct NV2080_CTRL_UNPUBLISHED_A026_PARAMS {
    uint32_t request;
    uint8_t word4_out;
    uint8_t rsvd[3];
    uint32_t word8_out;
    uint32_t word12_out;
    uint32_t numClks;
    NV2080_CTRL_UNPUBLISHED_A026_CLK clks[NV2080_CTRL_UNPUBLISHED_A026_MAX_CLKS];
} NV2080_CTRL_UNPUBLISHED_A026_PARAMS;
NV_ASSERT_LAYOUT(NV2080_CTRL_UNPUBLISHED_A026_PARAMS, NV2080_CTRL_CMD_UNPUBLISHED_A026_PARAMS_SIZE, 4);
NV_ASSERT_OFF(NV2080_CTRL_UNPUBLISHED_A026_PARAMS, numClks, 16);
NV_ASSERT_OFF(NV2080_CTRL_UNPUBLISHED_A026_PARAMS, clks, 20);
NV_ASSERT_OFF(NV2080_CTRL_UNPUBLISHED_A026_PARAMS, clks[0].freqKHz_out, 28);
#define NV2080_CTRL_CMD_UNPUBLISHED_A060                             0x2080A060u
#define NV2080_CTRL_CMD_UNPUBLISHED_A060_PARAMS_SIZE                 28u
#define NV2080_CTRL_CMD_UNPUBLISHED_A06E                             0x2080A06Eu
#define NV2080_CTRL_CMD_UNPUBLISHED_A06E_PARAMS_SIZE                 1u
#define NV2080_CTRL_CMD_UNPUBLISHED_A06F                             0x2080A06Fu
#define NV2080_CTRL_CMD_UNPUBLISHED_A06F_PARAMS_SIZE                 4u
#define NV2080_CTRL_CMD_UNPUBLISHED_A080                             0x2080A080u
#define NV2080_CTRL_CMD_UNPUBLISHED_A080_PARAMS_SIZE                 52u
#define NV2080_CTRL_CMD_UNPUBLISHED_A084                             0x2080A084u
#define NV2080_CTRL_CMD_UNPUBLISHED_A084_PARAMS_SIZE                 4u
#define NV2080_CTRL_CMD_UNPUBLISHED_A0A4                             0x2080A0A4u
#define NV2080_CTRL_CMD_UNPUBLISHED_A0A4_PARAMS_SIZE                 67396u
#define NV2080_CTRL_CMD_UNPUBLISHED_A0A6                             0x2080A0A6u
#define NV2080_CTRL_CMD_UNPUBLISHED_A0A6_PARAMS_SIZE                 34720u
#define NV2080_CTRL_CMD_UNPUBLISHED_A0A7                             0x2080A0A7u
#define NV2080_CTRL_CMD_UNPUBLISHED_A0A7_PARAMS_SIZE                 14988u
#define NV2080_CTRL_CMD_UNPUBLISHED_A0A8                             0x2080A0A8u
#define NV2080_CTRL_CMD_UNPUBLISHED_A0A8_PARAMS_SIZE                 19724u
#define NV2080_CTRL_CMD_UNPUBLISHED_A612                             0x2080A612u
#define NV2080_CTRL_CMD_UNPUBLISHED_A612_PARAMS_SIZE                 11680u
#define NV2080_CTRL_CMD_UNPUBLISHED_A618                             0x2080A618u
#define NV2080_CTRL_CMD_UNPUBLISHED_A618_PARAMS_SIZE                 8620u
#define NV2080_CTRL_CMD_UNPUBLISHED_A61D                             0x2080A61Du
#define NV2080_CTRL_CMD_UNPUBLISHED_A61D_PARAMS_SIZE                 12u
#define NV2081_CTRL_CMD_UNPUBLISHED_0110                             0x20810110u
#define NV2081_CTRL_CMD_UNPUBLISHED_0110_PARAMS_SIZE                 1u
#define NV2081_CTRL_CMD_UNPUBLISHED_0111                             0x20810111u
#define NV2081_CTRL_CMD_UNPUBLISHED_0111_PARAMS_SIZE                 4u
/* ctrl208f/ctrl208fgpu.h */
#define NV208F_CTRL_CMD_GPU_VERIFY_INFOROM                           0x208F1105u
#define NV208F_CTRL_CMD_GPU_VERIFY_INFOROM_PARAMS_SIZE               8u
/* ctrl90e7/ctrl90e7bbx.h */
#define NV90E7_CTRL_CMD_BBX_GET_LAST_FLUSH_TIME                      0x90E70113u
#define NV90E7_CTRL_CMD_BBX_GET_LAST_FLUSH_TIME_PARAMS_SIZE          16u

/* Controls of libcuda's start-up answered from the profile's recorded data (ctrl_discovery.c, ctrl_core.c) */
/* ctrl0000/ctrl0000system.h */
#define NV0000_CTRL_CMD_SYSTEM_GET_P2P_CAPS_V2                       0x0000012Bu
#define NV0000_CTRL_CMD_SYSTEM_GET_P2P_CAPS_V2_PARAMS_SIZE           8348u
#define NV0000_CTRL_CMD_SYSTEM_GET_P2P_CAPS_MATRIX                   0x0000013Au
#define NV0000_CTRL_CMD_SYSTEM_GET_P2P_CAPS_MATRIX_PARAMS_SIZE       1352u
#define NV0000_CTRL_CMD_SYSTEM_GET_FEATURES                          0x000001F0u
#define NV0000_CTRL_CMD_SYSTEM_GET_FEATURES_PARAMS_SIZE              4u
#define NV0000_CTRL_CMD_GPU_ATTACH_IDS                               0x00000215u
#define NV0000_CTRL_CMD_GPU_ATTACH_IDS_PARAMS_SIZE                   132u
#define NV0000_CTRL_CMD_GPU_GET_MEMOP_ENABLE                         0x0000027Bu
#define NV0000_CTRL_CMD_GPU_GET_MEMOP_ENABLE_PARAMS_SIZE             4u
#define NV0000_CTRL_CMD_GPU_GET_ACTIVE_DEVICE_IDS                    0x00000288u
#define NV0000_CTRL_CMD_GPU_GET_ACTIVE_DEVICE_IDS_PARAMS_SIZE        3076u
#define NV0000_CTRL_CMD_SYNC_GPU_BOOST_GROUP_INFO                    0x00000A04u
#define NV0000_CTRL_CMD_SYNC_GPU_BOOST_GROUP_INFO_PARAMS_SIZE        2244u
#define NV0080_CTRL_CMD_GPU_GET_VIRTUALIZATION_MODE                  0x00800289u
#define NV0080_CTRL_CMD_GPU_GET_VIRTUALIZATION_MODE_PARAMS_SIZE      8u
#define NV0080_CTRL_CMD_FB_GET_CAPS_V2                               0x00801307u
#define NV0080_CTRL_CMD_FB_GET_CAPS_V2_PARAMS_SIZE                   3u
#define NV0080_CTRL_CMD_HOST_GET_CAPS_V2                             0x00801402u
#define NV0080_CTRL_CMD_HOST_GET_CAPS_V2_PARAMS_SIZE                 3u
#define NV0080_CTRL_CMD_PERF_CUDA_LIMIT_SET_CONTROL                  0x00801909u
#define NV0080_CTRL_CMD_PERF_CUDA_LIMIT_SET_CONTROL_PARAMS_SIZE      1u
#define NV2080_CTRL_CMD_GPU_GET_SIMULATION_INFO                      0x20800119u
#define NV2080_CTRL_CMD_GPU_GET_SIMULATION_INFO_PARAMS_SIZE          4u
#define NV2080_CTRL_CMD_GPU_QUERY_ECC_STATUS                         0x2080012Fu
#define NV2080_CTRL_CMD_GPU_QUERY_ECC_STATUS_PARAMS_SIZE             1464u
#define NV2080_CTRL_CMD_GPU_QUERY_COMPUTE_MODE_RULES                 0x20800131u
#define NV2080_CTRL_CMD_GPU_QUERY_COMPUTE_MODE_RULES_PARAMS_SIZE     4u
#define NV2080_CTRL_CMD_GPU_GET_COMPUTE_POLICY_CONFIG                0x20800195u
#define NV2080_CTRL_CMD_GPU_GET_COMPUTE_POLICY_CONFIG_PARAMS_SIZE    260u
#define NV2080_CTRL_CMD_GET_GPU_FABRIC_PROBE_INFO                    0x208001A3u
#define NV2080_CTRL_CMD_GET_GPU_FABRIC_PROBE_INFO_PARAMS_SIZE        56u
/*
 * Its layout (ctrl2080gpu.h, NV2080_CTRL_CMD_GET_GPU_FABRIC_PROBE_INFO_PARAMS): what the fabric manager told the
 * GPU. The cluster UUID, partition id and clique id are assigned by the machine's fabric, not by the GPU model.
 */
typedef struct {
    uint8_t state;                  /* NV2080_CTRL_GPU_FABRIC_PROBE_STATE_*: 3 COMPLETE */
    uint32_t status;
    uint8_t clusterUuid[16];
    uint16_t fabricPartitionId;
    uint64_t fabricCaps;
    uint32_t fabricCliqueId;
    uint32_t fabricHealthMask;
    uint8_t fabricHealthSummary;
} nv2080_fabric_probe_info_params;
NV_ASSERT_LAYOUT(nv2080_fabric_probe_info_params, NV2080_CTRL_CMD_GET_GPU_FABRIC_PROBE_INFO_PARAMS_SIZE, 8);
NV_ASSERT_OFF(nv2080_fabric_probe_info_params, status, 4);
NV_ASSERT_OFF(nv2080_fabric_probe_info_params, clusterUuid, 8);
NV_ASSERT_OFF(nv2080_fabric_probe_info_params, fabricPartitionId, 24);
NV_ASSERT_OFF(nv2080_fabric_probe_info_params, fabricCaps, 32);
NV_ASSERT_OFF(nv2080_fabric_probe_info_params, fabricCliqueId, 40);
NV_ASSERT_OFF(nv2080_fabric_probe_info_params, fabricHealthMask, 44);
NV_ASSERT_OFF(nv2080_fabric_probe_info_params, fabricHealthSummary, 48);
#define NV2080_CTRL_CMD_GR_GET_GLOBAL_SM_ORDER                       0x2080121Bu
#define NV2080_CTRL_CMD_GR_GET_GLOBAL_SM_ORDER_PARAMS_SIZE           9240u
#define NV2080_CTRL_CMD_GR_GET_CAPS_V2                               0x20801227u
#define NV2080_CTRL_CMD_GR_GET_CAPS_V2_PARAMS_SIZE                   48u
#define NV2080_CTRL_CMD_GR_GET_GPC_MASK                              0x2080122Au
#define NV2080_CTRL_CMD_GR_GET_GPC_MASK_PARAMS_SIZE                  24u
#define NV2080_CTRL_CMD_GR_GET_TPC_MASK                              0x2080122Bu
#define NV2080_CTRL_CMD_GR_GET_TPC_MASK_PARAMS_SIZE                  24u
#define NV2080_CTRL_CMD_GR_GET_SM_ISSUE_RATE_MODIFIER                0x20801230u
#define NV2080_CTRL_CMD_GR_GET_SM_ISSUE_RATE_MODIFIER_PARAMS_SIZE    32u
#define NV2080_CTRL_CMD_BUS_GET_PCI_BAR_INFO                         0x20801803u
#define NV2080_CTRL_CMD_BUS_GET_PCI_BAR_INFO_PARAMS_SIZE             200u
#define NV2080_CTRL_CMD_BUS_GET_PCIE_SUPPORTED_GPU_ATOMICS           0x2080182Au
#define NV2080_CTRL_CMD_BUS_GET_PCIE_SUPPORTED_GPU_ATOMICS_PARAMS_SIZE 112u
/* ctrl2080bus.h: capType and dbdf are inputs (dbdf names the peer of CAPTYPE_P2P), then 13 {bSupported, attributes}. */
typedef struct {
    uint32_t capType;               /* NV2080_CTRL_CMD_BUS_PCIE_ATOMICS_CAPTYPE_*: SYSMEM 0, GPU 1, P2P 2 */
    uint32_t dbdf;                  /* domain 31:16, bus 15:8, device 7:3, function 2:0 */
    struct {
        uint8_t bSupported;
        uint32_t attributes;
    } atomicOp[13];
} nv2080_pcie_supported_gpu_atomics_params;
NV_ASSERT_LAYOUT(nv2080_pcie_supported_gpu_atomics_params,
                 NV2080_CTRL_CMD_BUS_GET_PCIE_SUPPORTED_GPU_ATOMICS_PARAMS_SIZE, 4);
NV_ASSERT_OFF(nv2080_pcie_supported_gpu_atomics_params, atomicOp, 8);
#define NV2080_CTRL_CMD_BUS_PCIE_ATOMICS_CAPTYPE_P2P                 2u
#define NV2080_CTRL_CMD_BUS_GET_C2C_INFO                             0x2080182Bu
#define NV2080_CTRL_CMD_BUS_GET_C2C_INFO_PARAMS_SIZE                 28u
#define NV2080_CTRL_CMD_PERF_BOOST                                   0x2080200Au
#define NV2080_CTRL_CMD_PERF_BOOST_PARAMS_SIZE                       8u
#define NV2080_CTRL_CMD_CE_GET_ALL_CAPS                              0x20802A0Au
#define NV2080_CTRL_CMD_CE_GET_ALL_CAPS_PARAMS_SIZE                  136u
#define NV2080_CTRL_CMD_NVLINK_GET_NVLINK_STATUS                     0x20803002u
#define NV2080_CTRL_CMD_NVLINK_GET_NVLINK_STATUS_PARAMS_SIZE         13344u
/* its linkInfo[] (NV2080_CTRL_NVLINK_MAX_ARR_SIZE entries of NV2080_CTRL_NVLINK_LINK_STATUS_INFO, ctrl2080nvlink.h) */
#define NVLINK_MAX_LINKS                                             64u
#define NVLINK_STATUS_LINKS_OFF                                      32u
#define NVLINK_LINK_STATUS_SIZE                                      208u
#define NVLINK_LINK_STATUS_STATE_OFF                                 8u   /* linkState, then rx/tx sublink status */
#define NV2080_CTRL_CMD_GSP_GET_FEATURES                             0x20803601u
#define NV2080_CTRL_CMD_GSP_GET_FEATURES_PARAMS_SIZE                 72u
#define NV2080_CTRL_CMD_GRMGR_GET_GR_FS_INFO                         0x20803801u
#define NV2080_CTRL_CMD_GRMGR_GET_GR_FS_INFO_PARAMS_SIZE             1928u
#define NV2080_CTRL_CMD_UNPUBLISHED_8159                             0x20808159u
#define NV2080_CTRL_CMD_UNPUBLISHED_8159_PARAMS_SIZE                 332u
#define NV2080_CTRL_CMD_UNPUBLISHED_8162                             0x20808162u
#define NV2080_CTRL_CMD_UNPUBLISHED_8162_PARAMS_SIZE                 1u
#define NV2080_CTRL_CMD_UNPUBLISHED_9038                             0x20809038u
#define NV2080_CTRL_CMD_UNPUBLISHED_9038_PARAMS_SIZE                 4u

#endif
