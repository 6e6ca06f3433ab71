/*
 * NV0000 controls that take GPU ids and only validate them against the probed GPUs, answering each GPU
 * for itself (on a machine of several GPUs the second one's id comes back, not the first's): GPU_ATTACH_IDS,
 * GPU_ASYNC_ATTACH_ID (attaching is the user library's work; RM checks the ids) and GPU_QUERY_DRAIN_STATE (no
 * GPU is draining here); GPU_GET_ACTIVE_DEVICE_IDS lists every probed GPU, a GPU not in MIG mode one device with
 * instance ids NV0000_CTRL_GPU_INVALID_ID. open-gpu-kernel-modules 580.x, src/nvidia/src/kernel/rmapi/client_resource.c
 * (cliresCtrlCmdGpuAttachIds_IMPL, cliresCtrlCmdGpuAsyncAttachId_IMPL, _cliresValidateGpuIdAgainstProbed,
 * cliresCtrlCmdGpuQueryGpuDrainState_IMPL) and gpu_mgr/gpu_mgr.c (gpumgrQueryGpuDrainState,
 * gpumgrCacheGetActiveDeviceIds). Layouts: ctrl0000gpu.h; the sizes are the ones
 * fixtures/hw/h200-580.159.04/programs2 recorded (132, 4, 12, 3076), where every call echoed its ids with NV_OK
 * (trace-nccl-p0/p1/p2, trace-smi-topo-2gpu).
 */
#include <string.h>

#include "abi/nv_ctrl_discovery.h"
#include "abi/nv_ctrl_monitoring.h"
#include "rm/gpu.h"
#include "rm/rm_internal.h"

/* NV0000_CTRL_GPU_ATTACH_ALL_PROBED_IDS: gpuIds[0] asking for every probed GPU. */
#define ATTACH_ALL_PROBED_IDS 0x0000FFFFu
#define ATTACH_MAX_IDS 32u

typedef struct {
    uint32_t gpuIds[ATTACH_MAX_IDS];
    uint32_t failedId;
} gpu_attach_ids_params;
_Static_assert(sizeof(gpu_attach_ids_params) == NV0000_CTRL_CMD_GPU_ATTACH_IDS_PARAMS_SIZE, "ATTACH_IDS");

typedef struct {
    uint32_t gpuId;
} gpu_async_attach_id_params;
_Static_assert(sizeof(gpu_async_attach_id_params) == NV0000_CTRL_CMD_GPU_ASYNC_ATTACH_ID_PARAMS_SIZE, "ASYNC");

typedef struct {
    uint32_t gpuId;
    uint32_t drainState;   /* NV0000_CTRL_GPU_DRAIN_STATE_DISABLED (0) / _ENABLED (1) */
    uint32_t flags;        /* NV0000_CTRL_GPU_DRAIN_STATE_FLAG_REMOVE_DEVICE (1) */
} gpu_query_drain_state_params;
_Static_assert(sizeof(gpu_query_drain_state_params) == NV0000_CTRL_CMD_GPU_QUERY_DRAIN_STATE_PARAMS_SIZE, "DRAIN");

#define MAX_ACTIVE_DEVICES 256u
typedef struct {
    uint32_t numDevices;
    struct {
        uint32_t gpuId, gpuInstanceId, computeInstanceId;
    } devices[MAX_ACTIVE_DEVICES];
} gpu_active_device_ids_params;
_Static_assert(sizeof(gpu_active_device_ids_params) == NV0000_CTRL_CMD_GPU_GET_ACTIVE_DEVICE_IDS_PARAMS_SIZE,
               "ACTIVE_DEVICE_IDS");

/* _cliresValidateGpuIdAgainstProbed: an id no probed GPU has is NV_ERR_INVALID_ARGUMENT. */
static NV_STATUS probed(struct rm_call *c, uint32_t id)
{
    return rm_gpu_by_id(c->rs, id) ? NV_OK : NV_ERR_INVALID_ARGUMENT;
}

RM_CTRL_HANDLER(ctrl_attach_ids, gpu_attach_ids_params)
{
    if (p->gpuIds[0] == ATTACH_ALL_PROBED_IDS)
        return NV_OK;
    for (uint32_t i = 0; i < ATTACH_MAX_IDS && p->gpuIds[i] != NV0000_CTRL_GPU_INVALID_ID; i++)
        if (probed(c, p->gpuIds[i]) != NV_OK)
            return NV_ERR_INVALID_ARGUMENT;
    return NV_OK;
}

RM_CTRL_HANDLER(ctrl_async_attach_id, gpu_async_attach_id_params)
{
    return probed(c, p->gpuId);
}

/* gpumgrQueryGpuDrainState: an unknown id is NV_ERR_OBJECT_NOT_FOUND (so NVML can tell a GPU that went away). */
RM_CTRL_HANDLER(ctrl_query_drain_state, gpu_query_drain_state_params)
{
    if (probed(c, p->gpuId) != NV_OK)
        return NV_ERR_OBJECT_NOT_FOUND;
    p->drainState = 0;
    p->flags = 0;
    return NV_OK;
}

RM_CTRL_HANDLER(ctrl_active_device_ids, gpu_active_device_ids_params)
{
    memset(p, 0, sizeof *p);
    for (uint32_t i = 0; i < rm_gpu_count(c->rs) && i < MAX_ACTIVE_DEVICES; i++) {
        p->devices[p->numDevices].gpuId = rm_gpu(c->rs, i)->gpu_id;
        p->devices[p->numDevices].gpuInstanceId = NV0000_CTRL_GPU_INVALID_ID;
        p->devices[p->numDevices].computeInstanceId = NV0000_CTRL_GPU_INVALID_ID;
        p->numDevices++;
    }
    return NV_OK;
}

/* NON_PRIVILEGED on the client (g_client_resource_nvoc.c, 580.x). */
const struct rm_ctrl_row rm_ctrl_rows_gpu_ids[] = {
    RM_CTRL(NV0000_CTRL_CMD_GPU_ATTACH_IDS, gpu_attach_ids_params, RM_FAM_CLIENT, RM_PRIV_USER, ctrl_attach_ids),
    RM_CTRL(NV0000_CTRL_CMD_GPU_ASYNC_ATTACH_ID, gpu_async_attach_id_params, RM_FAM_CLIENT, RM_PRIV_USER,
            ctrl_async_attach_id),
    RM_CTRL(NV0000_CTRL_CMD_GPU_QUERY_DRAIN_STATE, gpu_query_drain_state_params, RM_FAM_CLIENT, RM_PRIV_USER,
            ctrl_query_drain_state),
    RM_CTRL(NV0000_CTRL_CMD_GPU_GET_ACTIVE_DEVICE_IDS, gpu_active_device_ids_params, RM_FAM_CLIENT, RM_PRIV_USER,
            ctrl_active_device_ids),
    {.name = NULL},
};
