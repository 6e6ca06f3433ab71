/*
 * Controls of the monitoring and profiling paths (NVML, nvidia-smi, CUPTI, framework start-up) whose
 * semantics the emulator does not model: each answers, for its input, what the target GPU's profile
 * recorded (rm_ctrl_canned: the profile's `canned:` entries, derived from fixtures/hw recordings by
 * tools/replay/tools/derive_canned.py), and NV_ERR_NOT_SUPPORTED with a log line for an input the
 * profile has no answer for. Privilege: every row was issued by root in the recordings, so whether the
 * driver requires a capability for it is not known; they are exported as non-privileged.
 */
#include "abi/nv_classes.h"
#include "abi/nv_ctrl_monitoring.h"
#include "profile/profile.h"
#include "rm/rm.h"

/*
 * GPU_QUERY_INFOROM_ECC_SUPPORT has no parameters: its status is the answer. Every recorded board
 * (H200, H100: ECC-capable inforom) answered NV_OK.
 */
RM_CTRL_HANDLER(inforom_ecc_support, void)
{
    return NV_OK;
}

/*
 * RM user-shared-data poll (gpushareddataCtrlCmdRequestDataPoll_IMPL, gpu/gpu_user_shared_data.c, 580.142): the
 * mask of data the shared page keeps refreshed. Polling is supported where RM runs on GSP, which the open module
 * always does; elsewhere (_rusdPollingSupported: monolithic RM before GA102, e.g. Volta on the proprietary
 * module) a non-zero mask is NV_ERR_NOT_SUPPORTED. The page itself is not backed by the emulator.
 */
RM_CTRL_HANDLER(rusd_request_poll, NV00DE_CTRL_REQUEST_DATA_POLL_PARAMS)
{
    if (rm_object_class(c->obj) != RM_USER_SHARED_DATA)
        return NV_ERR_NOT_SUPPORTED;
    if (p->polledDataMask && rm_call_profile(c)->kernel_module != PROFILE_MODULE_OPEN)
        return NV_ERR_NOT_SUPPORTED;
    return NV_OK;
}

/* Rows: RM_CTRL_RECORDED, size from the symbol's _PARAMS_SIZE companion (emu/abi/nv_ctrl_monitoring.h). The
 * no-parameter row above is flagged recorded too because its status is recorded data. */

/* NV2080_CTRL_TIMER_GET_GPU_CPU_TIME_CORRELATION_INFO_PARAMS: cpuClkId, sampleCount, then 16 x {gpuTime, cpuTime}. */
static const struct rm_ctrl_volatile time_correlation_volatile[] = {
    {.off = 8, .len = 256, .why = "GPU and CPU timestamps sampled during the call"},
    {.why = NULL},
};
/* NV2080_CTRL_BUS_GET_PEX_UTIL_COUNTERS_PARAMS: pexCounterMask, then the counters. */
static const struct rm_ctrl_volatile pex_util_volatile[] = {
    {.off = 4, .len = 28, .why = "PCIe traffic counters read at the time of the call"},
    {.why = NULL},
};

/*
 * NV2080_CTRL_PERF_GET_GPUMON_PERFMON_UTIL_SAMPLES_V2_PARAMS (ctrl2080perf.h): type, bufSize, count, then the
 * ring's tracker index (@12) and 72 samples of 776 bytes (@16): each a timestamp and the engines' utilisation
 * over the sampling period, values of the moment.
 */
static const struct rm_ctrl_volatile gpumon_util_volatile[] = {
    {.off = 12, .len = NV2080_CTRL_CMD_PERF_GET_GPUMON_PERFMON_UTIL_SAMPLES_V2_PARAMS_SIZE - 12,
     .why = "utilisation sample ring: its tracker index, sample timestamps and utilisation of the moment"},
    {.why = NULL},
};

const struct rm_ctrl_row rm_ctrl_rows_monitoring[] = {
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_GPU_QUERY_INFOROM_ECC_SUPPORT, RM_FAM_SUBDEVICE, inforom_ecc_support),
    RM_CTRL_RECORDED(NV0000_CTRL_CMD_GPU_DETACH_IDS, RM_FAM_CLIENT, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV0000_CTRL_CMD_GPU_GET_PCI_INFO, RM_FAM_CLIENT, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV0000_CTRL_CMD_GPU_QUERY_DRAIN_STATE, RM_FAM_CLIENT, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV0000_CTRL_CMD_GPU_ASYNC_ATTACH_ID, RM_FAM_CLIENT, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV0000_CTRL_CMD_GPUACCT_GET_ACCOUNTING_STATE, RM_FAM_CLIENT, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV0080_CTRL_CMD_GPU_QUERY_SW_STATE_PERSISTENCE, RM_FAM_DEVICE, rm_ctrl_canned),
    RM_CTRL(NV00DE_CTRL_CMD_REQUEST_DATA_POLL, NV00DE_CTRL_REQUEST_DATA_POLL_PARAMS, RM_FAM_OTHER, RM_PRIV_USER,
            rusd_request_poll),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_GPU_QUERY_ECC_CONFIGURATION, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_GPU_GET_OEM_BOARD_INFO, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_GPU_GET_INFOROM_OBJECT_VERSION, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_GPU_GET_INFOROM_IMAGE_VERSION, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_016D, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_017B, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_GPU_GET_PIDS, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_GPU_GET_CHIP_DETAILS, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_GPU_GET_RECOVERY_ACTION, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_TIMER_GET_GPU_CPU_TIME_CORRELATION_INFO, RM_FAM_SUBDEVICE, rm_ctrl_canned,
                     .volatile_out = time_correlation_volatile),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_BIOS_GET_INFO, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_BUS_GET_PEX_COUNTERS, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_BUS_GET_PEX_UTIL_COUNTERS, RM_FAM_SUBDEVICE, rm_ctrl_canned,
                     .volatile_out = pex_util_volatile),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_BUS_GET_PCIE_REQ_ATOMICS_CAPS, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_BUS_GET_PCIE_CPL_ATOMICS_CAPS, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_PERF_GET_GPUMON_PERFMON_UTIL_SAMPLES_V2, RM_FAM_SUBDEVICE, rm_ctrl_canned,
                     .volatile_out = gpumon_util_volatile),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_NVLINK_GET_PLATFORM_INFO, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_ECC_GET_REPAIR_STATUS, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_3406, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_852A, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_852B, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_852E, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_8536, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_853A, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_8542, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_8546, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_9001, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_9004, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_9009, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_9019, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_9064, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_A026, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_A060, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_A06E, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_A06F, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_A080, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_A084, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_A0A4, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_A0A6, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_A0A7, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_A0A8, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_A612, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_A618, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_A61D, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2081_CTRL_CMD_UNPUBLISHED_0110, RM_FAM_OTHER, rm_ctrl_canned_on_class),
    RM_CTRL_RECORDED(NV2081_CTRL_CMD_UNPUBLISHED_0111, RM_FAM_OTHER, rm_ctrl_canned_on_class),
    RM_CTRL_RECORDED(NV208F_CTRL_CMD_GPU_VERIFY_INFOROM, RM_FAM_OTHER, rm_ctrl_canned_on_class),
    RM_CTRL_RECORDED(NV90E7_CTRL_CMD_BBX_GET_LAST_FLUSH_TIME, RM_FAM_OTHER, rm_ctrl_canned_on_class),
    {.name = NULL},
};
