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
#include "base/log.h"
#include "profile/profile.h"
#include "rm/rm.h"
#include "rm/rusd.h"

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
 * module) a non-zero mask is NV_ERR_NOT_SUPPORTED. The page is the emulator's (rm/rusd.h).
 */
RM_CTRL_HANDLER(rusd_request_poll, NV00DE_CTRL_REQUEST_DATA_POLL_PARAMS)
{
    if (rm_object_class(c->obj) != RM_USER_SHARED_DATA)
        return NV_ERR_NOT_SUPPORTED;
    if (p->polledDataMask && rm_call_profile(c)->kernel_module != PROFILE_MODULE_OPEN)
        return NV_ERR_NOT_SUPPORTED;
    if (c->gpu)
        rusd_request(c->gpu, p->polledDataMask);
    return NV_OK;
}

/*
 * RC watchdog state. The open module runs RM on GSP, where the kernel-side watchdog channel is set up but kept
 * off: the H200 answered INITIALIZED | DISABLED (fixtures/hw/h200-580.159.04/programs2/trace-cupy.log.gz
 * line 114). What the proprietary module answers on a board without GSP is not recorded: not modelled there.
 */
RM_CTRL_HANDLER(rc_watchdog_info, NV2080_CTRL_RC_GET_WATCHDOG_INFO_PARAMS)
{
    if (rm_call_profile(c)->kernel_module != PROFILE_MODULE_OPEN) {
        LOG_WARN("rm", "RC_GET_WATCHDOG_INFO: the watchdog state of the proprietary module is not modelled");
        return NV_ERR_NOT_SUPPORTED;
    }
    p->watchdogStatusFlags = NV2080_CTRL_RC_GET_WATCHDOG_INFO_FLAGS_INITIALIZED |
                             NV2080_CTRL_RC_GET_WATCHDOG_INFO_FLAGS_DISABLED;
    return NV_OK;
}

/* The profile's recorded A026 answer (any input): the words and clock entries the driver writes. */
static const NV2080_CTRL_UNPUBLISHED_A026_PARAMS *a026_recorded(const struct profile *pr)
{
    for (uint32_t i = 0; pr && i < pr->canned_count; i++)
        if (pr->canned[i].cmd == NV2080_CTRL_CMD_UNPUBLISHED_A026 && pr->canned[i].status == NV_OK &&
            pr->canned[i].size == sizeof(NV2080_CTRL_UNPUBLISHED_A026_PARAMS))
            return (const NV2080_CTRL_UNPUBLISHED_A026_PARAMS *)(const void *)pr->canned[i].out;
    return NULL;
}

/*
 * Unpublished PERF control 0x2080A026 (layout as observed: emu/abi/nv_ctrl_monitoring.h). The driver writes
 * only the answer words and each requested domain's frequency, leaving the rest of the caller's block as sent
 * (libcuda sends it uninitialised), so a byte-for-byte recorded answer fits no other call: each field is
 * answered from the profile's recording instead. A domain the recording does not answer, or a count above
 * the 32 entries the block holds, is not modelled (the driver's answer is unknown): NV_ERR_NOT_SUPPORTED.
 */
RM_CTRL_HANDLER(perf_a026, NV2080_CTRL_UNPUBLISHED_A026_PARAMS)
{
    const struct profile *pr = rm_call_profile(c);
    const NV2080_CTRL_UNPUBLISHED_A026_PARAMS *rec = a026_recorded(pr);
    if (!rec || p->numClks > NV2080_CTRL_UNPUBLISHED_A026_MAX_CLKS ||
        rec->numClks > NV2080_CTRL_UNPUBLISHED_A026_MAX_CLKS) {
        LOG_WARN("rm", "control 0x%08x: profile %s has no recorded answer for %u clock domains",
                 NV2080_CTRL_CMD_UNPUBLISHED_A026, pr ? pr->name : "?", p->numClks);
        return NV_ERR_NOT_SUPPORTED;
    }
    uint32_t freq[NV2080_CTRL_UNPUBLISHED_A026_MAX_CLKS];
    for (uint32_t i = 0; i < p->numClks; i++) {
        uint32_t k = 0;
        while (k < rec->numClks && rec->clks[k].domain != p->clks[i].domain)
            k++;
        if (k == rec->numClks) {
            LOG_WARN("rm", "control 0x%08x: profile %s has no recorded frequency of clock domain 0x%x",
                     NV2080_CTRL_CMD_UNPUBLISHED_A026, pr->name, p->clks[i].domain);
            return NV_ERR_NOT_SUPPORTED;
        }
        freq[i] = rec->clks[k].freqKHz_out;
    }
    p->word4_out = rec->word4_out;
    p->word8_out = rec->word8_out;
    p->word12_out = rec->word12_out;
    for (uint32_t i = 0; i < p->numClks; i++)
        p->clks[i].freqKHz_out = freq[i];
    return NV_OK;
}

/*
 * Unpublished CLK control 0x20809040 (layout as observed: emu/abi/nv_ctrl_monitoring.h). For the one request
 * recorded (3, from `nvidia-smi -q -d PERFORMANCE,CLOCK`) the driver answered NV_OK and wrote nothing, so the
 * answer needs no board data. Another request's answer is unknown: NV_ERR_NOT_SUPPORTED with a log line.
 */
RM_CTRL_HANDLER(clk_9040, NV2080_CTRL_UNPUBLISHED_9040_PARAMS)
{
    (void)c;
    if (p->request != NV2080_CTRL_UNPUBLISHED_9040_REQUEST_OBSERVED) {
        LOG_WARN("rm", "control 0x%08x: request %u is not modelled (only %u was recorded)",
                 NV2080_CTRL_CMD_UNPUBLISHED_9040, p->request, NV2080_CTRL_UNPUBLISHED_9040_REQUEST_OBSERVED);
        return NV_ERR_NOT_SUPPORTED;
    }
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

/*
 * Values of the moment in two unpublished controls `nvidia-smi -q` reads, at the offsets where two H200
 * boards (fixtures/hw/h200-580.159.04/programs and programs2, trace-smi-q.log.gz lines 135 and 173) differed
 * while every other byte matched: 852B's thermal channel readings (signed 24.8 fixed-point degrees C: the GPU
 * temperature and T.Limit headroom `nvidia-smi -q` printed in the same run) and A0A8's current clock (kHz) and
 * voltage (uV) fields (the idle Graphics/SM clock printed, 345 vs 375 MHz). A0A8 holds two blocks of the same
 * per-domain records 1232 bytes apart (the voltage at 3000 and 4232): the second block's current clocks of the
 * domains whose first-block clocks vary are as volatile (a third board, programs3-heldout
 * trace-smi-q-perf-clock, differed at 3776; the memory clock domain, fixed, stays compared).
 */
static const struct rm_ctrl_volatile thermal_readings_volatile[] = {
    {.off = 16, .len = 4, .why = "thermal channel reading"},  {.off = 24, .len = 4, .why = "thermal channel reading"},
    {.off = 72, .len = 4, .why = "thermal channel reading"},  {.off = 272, .len = 4, .why = "thermal channel reading"},
    {.off = 280, .len = 4, .why = "thermal channel reading"}, {.off = 324, .len = 4, .why = "thermal channel reading"},
    {.off = 440, .len = 4, .why = "thermal channel reading"}, {.off = 484, .len = 4, .why = "thermal channel reading"},
    {.off = 600, .len = 4, .why = "thermal channel reading"}, {.off = 644, .len = 4, .why = "thermal channel reading"},
    {.why = NULL},
};
static const struct rm_ctrl_volatile current_clocks_volatile[] = {
    {.off = 2512, .len = 4, .why = "current clock"}, {.off = 2544, .len = 4, .why = "current clock"},
    {.off = 2608, .len = 4, .why = "current clock"}, {.off = 2640, .len = 4, .why = "current clock"},
    {.off = 3000, .len = 4, .why = "current voltage"}, {.off = 3744, .len = 4, .why = "current clock"},
    {.off = 3776, .len = 4, .why = "current clock"},   {.off = 3840, .len = 4, .why = "current clock"},
    {.off = 3872, .len = 4, .why = "current clock"},   {.off = 4232, .len = 4, .why = "current voltage"},
    {.why = NULL},
};

const struct rm_ctrl_row rm_ctrl_rows_monitoring[] = {
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_GPU_QUERY_INFOROM_ECC_SUPPORT, RM_FAM_SUBDEVICE, inforom_ecc_support),
    RM_CTRL_RECORDED(NV0000_CTRL_CMD_GPU_DETACH_IDS, RM_FAM_CLIENT, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV0000_CTRL_CMD_GPU_GET_PCI_INFO, RM_FAM_CLIENT, rm_ctrl_canned),
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
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_GPU_GET_CHIP_DETAILS, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_GPU_GET_RECOVERY_ACTION, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_TIMER_GET_GPU_CPU_TIME_CORRELATION_INFO, RM_FAM_SUBDEVICE, rm_ctrl_canned,
                     .volatile_out = time_correlation_volatile),
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
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_852B, RM_FAM_SUBDEVICE, rm_ctrl_canned,
                     .volatile_out = thermal_readings_volatile),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_852E, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_8536, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_853A, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_8542, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_8546, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_9001, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_9004, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_9009, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_9019, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL(NV2080_CTRL_CMD_UNPUBLISHED_9040, NV2080_CTRL_UNPUBLISHED_9040_PARAMS, RM_FAM_SUBDEVICE, RM_PRIV_USER,
            clk_9040),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_9064, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL(NV2080_CTRL_CMD_UNPUBLISHED_A026, NV2080_CTRL_UNPUBLISHED_A026_PARAMS, RM_FAM_SUBDEVICE, RM_PRIV_USER,
            perf_a026, .flags = RM_CTRL_CANNED),
    RM_CTRL(NV2080_CTRL_CMD_RC_GET_WATCHDOG_INFO, NV2080_CTRL_RC_GET_WATCHDOG_INFO_PARAMS, RM_FAM_SUBDEVICE,
            RM_PRIV_USER, rc_watchdog_info),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_A060, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_A06E, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_A06F, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_A080, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_A084, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_A0A4, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_A0A6, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_A0A7, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_A0A8, RM_FAM_SUBDEVICE, rm_ctrl_canned,
                     .volatile_out = current_clocks_volatile),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_A612, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_A618, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2080_CTRL_CMD_UNPUBLISHED_A61D, RM_FAM_SUBDEVICE, rm_ctrl_canned),
    RM_CTRL_RECORDED(NV2081_CTRL_CMD_UNPUBLISHED_0110, RM_FAM_OTHER, rm_ctrl_canned_on_class),
    RM_CTRL_RECORDED(NV2081_CTRL_CMD_UNPUBLISHED_0111, RM_FAM_OTHER, rm_ctrl_canned_on_class),
    RM_CTRL_RECORDED(NV208F_CTRL_CMD_GPU_VERIFY_INFOROM, RM_FAM_OTHER, rm_ctrl_canned_on_class),
    RM_CTRL_RECORDED(NV90E7_CTRL_CMD_BBX_GET_LAST_FLUSH_TIME, RM_FAM_OTHER, rm_ctrl_canned_on_class),
    {.name = NULL},
};
