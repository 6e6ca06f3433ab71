/* The controls whose answers are per board (identity.h), one row each. */
#include "identity.h"

#include <stddef.h>

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
    {NV2080_CTRL_CMD_GRMGR_GET_GR_FS_INFO, "floorsweeping: GR partition masks"},
    {NV2080_CTRL_CMD_FB_GET_FS_INFO, "floorsweeping: FBP and LTC masks"},
    {NV2080_CTRL_CMD_ECC_GET_CLIENT_EXPOSED_COUNTERS, "ECC counters"},
    {NV2080_CTRL_CMD_ECC_GET_VOLATILE_COUNTS, "ECC counters"},
    {NV2080_CTRL_CMD_ECC_GET_SRAM_UNIQUE_UNCORR_COUNTS, "ECC counters"},
    {NV2080_CTRL_CMD_ECC_GET_REPAIR_STATUS, "ECC row-remap history"},
    {NV2080_CTRL_CMD_BUS_GET_PCI_INFO, "PCI location"},
    {NV0000_CTRL_CMD_GPU_GET_PCI_INFO, "PCI location"},
};

const char *replay_board_identity(uint32_t cmd)
{
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (rows[i].cmd == cmd)
            return rows[i].what;
    return NULL;
}
