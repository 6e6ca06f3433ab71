/* Discovery controls of libnvrm: what the GPU offers (classes, engines). */
#include <string.h>

#include "abi/nv_ctrl_discovery.h"
#include "nvrm.h"

/* Copies the first `count` entries of a fixed-size answer list (capacity cap) into the caller's max. */
static void copy_list(uint32_t *dst, uint32_t max, uint32_t *n, const uint32_t *src, uint32_t count, uint32_t cap)
{
    if (count > cap)
        count = cap;
    *n = count < max ? count : max;
    memcpy(dst, src, *n * sizeof *dst);
}

NV_STATUS nvrm_get_classlist(nvrm *rm, NvHandle hClient, NvHandle hDevice, uint32_t *classes, uint32_t max,
                             uint32_t *n)
{
    NV0080_CTRL_GPU_GET_CLASSLIST_V2_PARAMS p;
    memset(&p, 0, sizeof p);
    NV_STATUS st = nvrm_control(rm, hClient, hDevice, NV0080_CTRL_CMD_GPU_GET_CLASSLIST_V2, &p, sizeof p);
    if (st != NV_OK)
        return st;
    copy_list(classes, max, n, p.classList, p.numClasses, NV0080_CTRL_GPU_CLASSLIST_MAX_SIZE);
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
    copy_list(engines, max, n, p.engineList, p.engineCount, NV2080_GPU_MAX_ENGINES_LIST_SIZE);
    return NV_OK;
}
