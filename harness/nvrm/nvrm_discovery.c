/* Discovery controls of libnvrm: what the GPU offers (classes, engines). */
#include <string.h>

#include "abi/nv_ctrl_discovery.h"
#include "nvrm.h"

NV_STATUS nvrm_get_classlist(nvrm *rm, NvHandle hClient, NvHandle hDevice, uint32_t *classes, uint32_t max,
                             uint32_t *n)
{
    NV0080_CTRL_GPU_GET_CLASSLIST_V2_PARAMS p;
    memset(&p, 0, sizeof p);
    NV_STATUS st = nvrm_control(rm, hClient, hDevice, NV0080_CTRL_CMD_GPU_GET_CLASSLIST_V2, &p, sizeof p);
    if (st != NV_OK)
        return st;
    uint32_t count = p.numClasses < NV0080_CTRL_GPU_CLASSLIST_MAX_SIZE ? p.numClasses : NV0080_CTRL_GPU_CLASSLIST_MAX_SIZE;
    *n = count < max ? count : max;
    memcpy(classes, p.classList, *n * sizeof *classes);
    return NV_OK;
}

NV_STATUS nvrm_get_engines(nvrm *rm, NvHandle hClient, NvHandle hSubdevice, uint32_t *engines, uint32_t max,
                           uint32_t *n)
{
    NV2080_CTRL_GPU_GET_ENGINES_V2_PARAMS p;
    memset(&p, 0, sizeof p);
    NV_STATUS st = nvrm_control(rm, hClient, hSubdevice, NV2080_CTRL_CMD_GPU_GET_ENGINES_V2, &p, sizeof p);
    if (st != NV_OK)
        return st;
    uint32_t count = p.engineCount < NV2080_GPU_MAX_ENGINES_LIST_SIZE ? p.engineCount : NV2080_GPU_MAX_ENGINES_LIST_SIZE;
    *n = count < max ? count : max;
    memcpy(engines, p.engineList, *n * sizeof *engines);
    return NV_OK;
}
