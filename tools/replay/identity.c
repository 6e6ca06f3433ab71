/* The controls whose answers are per board (identity.h), one row each. */
#include "identity.h"

#include <stddef.h>
#include <string.h>

#include "abi/nv_ctrl_discovery.h"
#include "abi/nv_ctrl_monitoring.h"

static const struct {
    uint32_t cmd;
    const char *what;
} rows[] = {
    {NV2080_CTRL_CMD_GPU_GET_GID_INFO, "GPU UUID"},
    {NV2080_CTRL_CMD_GPU_GET_OEM_BOARD_INFO, "board serial and part number"},
    {NV2080_CTRL_CMD_GPU_GET_FERMI_GPC_INFO, "floorsweeping: GPC mask"},
    {NV2080_CTRL_CMD_GPU_GET_FERMI_TPC_INFO, "floorsweeping: TPC mask"},
    {NV2080_CTRL_CMD_GPU_GET_FERMI_ZCULL_INFO, "floorsweeping: ZCULL mask"},
    {NV2080_CTRL_CMD_GR_GET_TPC_MASK, "floorsweeping: TPC mask"},
    /* each SM's GPC, TPC and SM numbers: which TPCs a board lost to floorsweeping shifts them (the held-out
     * board of programs3-heldout, whose TPC masks differ from h200-2b42's, numbers one SM's TPC 5 where it is 6) */
    {NV2080_CTRL_CMD_GR_GET_GLOBAL_SM_ORDER, "floorsweeping: SM order"},
    {NV2080_CTRL_CMD_GRMGR_GET_GR_FS_INFO, "floorsweeping: GR partition masks"},
    {NV2080_CTRL_CMD_FB_GET_FS_INFO, "floorsweeping: FBP and LTC masks"},
    {NV2080_CTRL_CMD_ECC_GET_CLIENT_EXPOSED_COUNTERS, "ECC counters"},
    {NV2080_CTRL_CMD_ECC_GET_VOLATILE_COUNTS, "ECC counters"},
    {NV2080_CTRL_CMD_ECC_GET_SRAM_UNIQUE_UNCORR_COUNTS, "ECC counters"},
    {NV2080_CTRL_CMD_ECC_GET_REPAIR_STATUS, "ECC row-remap history"},
    {NV2080_CTRL_CMD_BUS_GET_PCI_INFO, "PCI location"},
    {NV0000_CTRL_CMD_GPU_GET_PCI_INFO, "PCI location"},
    /* GUIDs and rack/slot/node indices; the two recorded H200 boards differ in moduleId (the GPU within its node). */
    {NV2080_CTRL_CMD_NVLINK_GET_PLATFORM_INFO, "platform location (module id)"},
};

const char *replay_board_identity(uint32_t cmd)
{
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (rows[i].cmd == cmd)
            return rows[i].what;
    return NULL;
}

/*
 * GPU_GET_INFO_V2 indices whose values differ between boards of one kind (unpublished indices 0x23 and 0x24:
 * each recorded board answered its own, h100.yaml and h200-2b42.yaml mark them per board).
 */
static const uint32_t per_board_gpu_info[] = {0x23, 0x24};

bool replay_board_info_index(uint32_t cmd, uint32_t index)
{
    for (size_t i = 0; cmd == NV2080_CTRL_CMD_GPU_GET_INFO_V2 && i < sizeof per_board_gpu_info / sizeof *per_board_gpu_info;
         i++)
        if (per_board_gpu_info[i] == index)
            return true;
    return false;
}

/*
 * NVLINK_GET_NVLINK_STATUS: a link's lane reversal and its local SID are the board's wiring (the two GPUs of the
 * two-H200 machine differ there on every link and nowhere else but their PCI slot: programs2 trace-nccl-p1 lines
 * 184 and 186). Differences only there, and in the link power states (volatile), are board identity.
 */
#define LINK_LANE_REVERSAL 14u
#define LINK_LOCAL_SID 72u
static const char *nvlink_wiring(const uint8_t *got, const uint8_t *want, uint32_t len)
{
    bool any = false;
    for (uint32_t i = NVLINK_STATUS_LINKS_OFF; i < len; i++) {
        if (got[i] == want[i])
            continue;
        uint32_t r = (i - NVLINK_STATUS_LINKS_OFF) % NVLINK_LINK_STATUS_SIZE;
        bool wiring = r == LINK_LANE_REVERSAL || (r >= LINK_LOCAL_SID && r < LINK_LOCAL_SID + 8);
        if (!wiring && !(r >= NVLINK_LINK_STATUS_STATE_OFF && r < NVLINK_LINK_STATUS_STATE_OFF + 6))
            return NULL;
        any |= wiring;
    }
    return any && !memcmp(got, want, NVLINK_STATUS_LINKS_OFF < len ? NVLINK_STATUS_LINKS_OFF : len)
               ? "NVLink wiring: lane reversal and link SIDs"
               : NULL;
}

/*
 * GET_GPU_FABRIC_PROBE_INFO: the cluster UUID, fabric partition id and clique id are what the machine's fabric
 * assigned (programs2's two H200s answered partition 4, programs4-nccl's 6, both probes COMPLETE with the same
 * caps); differences only there are board identity.
 */
static const char *fabric_partition(const uint8_t *got, const uint8_t *want, uint32_t len)
{
    static const struct {
        size_t off, len;
    } assigned[] = {
        {offsetof(nv2080_fabric_probe_info_params, clusterUuid), 16},
        {offsetof(nv2080_fabric_probe_info_params, fabricPartitionId), 2},
        {offsetof(nv2080_fabric_probe_info_params, fabricCliqueId), 4},
    };
    bool any = false;
    for (uint32_t i = 0; i < len; i++) {
        if (got[i] == want[i])
            continue;
        bool ok = false;
        for (size_t k = 0; k < sizeof assigned / sizeof *assigned; k++)
            ok |= i >= assigned[k].off && i < assigned[k].off + assigned[k].len;
        if (!ok)
            return NULL;
        any = true;
    }
    return any ? "fabric partition: cluster UUID, partition and clique ids" : NULL;
}

const char *replay_board_identity_entries(uint32_t cmd, const uint8_t *got, const uint8_t *want, uint32_t len)
{
    if (cmd == NV2080_CTRL_CMD_NVLINK_GET_NVLINK_STATUS)
        return nvlink_wiring(got, want, len);
    if (cmd == NV2080_CTRL_CMD_GET_GPU_FABRIC_PROBE_INFO)
        return len == sizeof(nv2080_fabric_probe_info_params) ? fabric_partition(got, want, len) : NULL;
    if (cmd != NV2080_CTRL_CMD_GPU_GET_INFO_V2 || len < offsetof(NV2080_CTRL_GPU_GET_INFO_V2_PARAMS, gpuInfoList))
        return NULL;
    const size_t first = offsetof(NV2080_CTRL_GPU_GET_INFO_V2_PARAMS, gpuInfoList);
    if (memcmp(got, want, first))
        return NULL;
    bool any = false;
    for (size_t off = first; off + sizeof(nv_ctrl_info_pair) <= len; off += sizeof(nv_ctrl_info_pair)) {
        if (!memcmp(got + off, want + off, sizeof(nv_ctrl_info_pair)))
            continue;
        nv_ctrl_info_pair g, w;
        memcpy(&g, got + off, sizeof g);
        memcpy(&w, want + off, sizeof w);
        if (g.index != w.index || !replay_board_info_index(cmd, w.index))
            return NULL;
        any = true;
    }
    return any ? "per-board GPU_GET_INFO_V2 entries" : NULL;
}
