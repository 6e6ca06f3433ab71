/*
 * The processes using a GPU and their video memory, as `nvidia-smi --query-compute-apps` and NVML read them:
 * NV2080 GPU_GET_PIDS and GPU_GET_PID_INFO. open-gpu-kernel-modules 580.x: subdevice_ctrl_gpu_kernel.c
 * (subdeviceCtrlCmdGpuGetPids_IMPL, subdeviceCtrlCmdGpuGetPidInfo_IMPL) and gpu_rmapi.c
 * (gpuGetProcWithObject_IMPL, gpuFindClientInfoWithPidIterator_IMPL, _gpuCollectMemInfo); layouts in
 * ctrl2080gpu.h (asserted in emu/abi/nv_ctrl_monitoring.h); both exported NON_PRIVILEGED (g_subdevice_nvoc.c).
 *
 * A process is the pid that allocated a client (the client's creator). The driver walks its clients in handle
 * order, skipping kernel-internal ones (here: clients no opener owns). No GPU here is partitioned (MIG) and no
 * pid namespace is modelled, so every pid is answered as is and the instance ids are PARTITIONID_INVALID.
 * Deviation: the UVM driver duplicates the memory a process maps through UVM_MAP_EXTERNAL_ALLOCATION into its
 * own client, which makes that memory "shared, owned" for the driver; the emulator's UVM keeps no such
 * duplicate, so the same memory counts as private here (the total is the same).
 */
#include <stdlib.h>
#include <string.h>

#include "abi/nv_classes.h"
#include "abi/nv_ctrl_monitoring.h"
#include "rm/opener.h"
#include "rm/rm_internal.h"

static int by_handle(const void *a, const void *b)
{
    uint32_t x = (*(struct rm_client *const *)a)->handle, y = (*(struct rm_client *const *)b)->handle;
    return (x > y) - (x < y);
}

/* The clients of user processes, in handle order (*n of them); NULL when there are none or out of memory. */
static struct rm_client **user_clients(struct rm_server *rs, uint32_t *n)
{
    *n = 0;
    struct rm_client **all = rs->count ? malloc(rs->count * sizeof *all) : NULL;
    if (!all)
        return NULL;
    for (nvemu_opener *op = rs->openers; op; op = op->next)
        for (struct rm_client *cl = op->clients; cl && *n < rs->count; cl = cl->owner_next)
            all[(*n)++] = cl;
    qsort(all, *n, sizeof *all, by_handle);
    return all;
}

static struct rm_object *device_of(struct rm_object *o)
{
    while (o && o->family != RM_FAM_DEVICE)
        o = o->parent;
    return o;
}

/* deviceGetByGpu: the client's first device on g. */
static struct rm_object *client_device_on(struct rm_client *cl, const struct gpu *g)
{
    for (struct rm_object *d = cl->root->first_child; d; d = d->next_sibling)
        if (d->family == RM_FAM_DEVICE && !d->lost && d->gpu == g)
            return d;
    return NULL;
}

/*
 * Whether o makes its client's process one of GPU_GET_PIDS' answer for class id: a subdevice (any, once the
 * client has a device on the GPU), an MPS client object, or an object of class id under a channel of the
 * client's device on the GPU (ChannelDescendant: engine objects such as HOPPER_COMPUTE_A).
 */
static bool holds(const struct rm_object *o, uint32_t id, const struct rm_object *dev)
{
    if (o->lost)
        return false;
    if (id == NV20_SUBDEVICE_0)
        return o->family == RM_FAM_SUBDEVICE;
    if (id == MPS_COMPUTE)
        return rm_object_class(o) == MPS_COMPUTE;
    const struct rm_object *src = o->dup_src ? o->dup_src : o;
    return src->hclass == id && src->parent && src->parent->family == RM_FAM_CHANNEL &&
           device_of(src->parent) == dev;
}

static bool pid_listed(const NV2080_CTRL_GPU_GET_PIDS_PARAMS *p, uint32_t pid)
{
    for (uint32_t i = 0; i < p->pidTblCount; i++)
        if (p->pidTbl[i] == pid)
            return true;
    return false;
}

RM_CTRL_HANDLER(gpu_get_pids, NV2080_CTRL_GPU_GET_PIDS_PARAMS)
{
    if (p->idType == NV2080_CTRL_GPU_GET_PIDS_ID_TYPE_VGPU_GUEST) {
        /* the processes of vGPU guests: this host runs none */
        p->pidTblCount = 0;
        return NV_OK;
    }
    if (p->idType != NV2080_CTRL_GPU_GET_PIDS_ID_TYPE_CLASS)
        return NV_ERR_INVALID_ARGUMENT;
    uint32_t n;
    struct rm_client **cls = user_clients(c->rs, &n);
    if (!cls && c->rs->count)
        return NV_ERR_NO_MEMORY;
    p->pidTblCount = 0;
    for (uint32_t i = 0; i < n && p->pidTblCount < NV2080_CTRL_GPU_GET_PIDS_MAX_COUNT; i++) {
        uint32_t pid = (uint32_t)cls[i]->creator_pid;
        struct rm_object *dev = client_device_on(cls[i], c->gpu);
        if (!dev || pid_listed(p, pid))
            continue;
        for (struct rm_object *o = cls[i]->root; (o = rm_object_next_preorder(cls[i]->root, o));)
            if (holds(o, p->id, dev)) {
                p->pidTbl[p->pidTblCount++] = pid;
                break;
            }
    }
    free(cls);
    return NV_OK;
}

/* _gpuCollectMemInfo: o's video memory, by how many objects share it (the driver's memdesc DupCount). */
static void count_memory(const struct rm_object *o, NV2080_CTRL_GPU_PID_INFO_VIDEO_MEMORY_USAGE_DATA *d)
{
    const struct rm_object *src = o->dup_src ? o->dup_src : o;
    uint32_t dups = 1;
    for (uint32_t i = 0; i < src->ndependants; i++)
        dups += src->dependants[i]->dup_src == src && !src->dependants[i]->lost;
    if (dups == 1)
        d->memPrivate += rm_memory_size(src);
    else if (!o->dup_src)
        d->memSharedOwned += rm_memory_size(src);
    else
        d->memSharedDuped += rm_memory_size(src);
}

/* gpuFindClientInfoWithPidIterator: the video memory pid's clients hold under their devices on the GPU. */
static NV_STATUS pid_video_memory(struct rm_call *c, uint32_t pid, NV2080_CTRL_GPU_PID_INFO_VIDEO_MEMORY_USAGE_DATA *d)
{
    if (pid == 0)
        return NV_ERR_INVALID_ARGUMENT;
    uint32_t n;
    struct rm_client **cls = user_clients(c->rs, &n);
    if (!cls && c->rs->count)
        return NV_ERR_NO_MEMORY;
    for (uint32_t i = 0; i < n; i++) {
        struct rm_client *cl = cls[i];
        if ((uint32_t)cl->creator_pid != pid)
            continue;
        for (struct rm_object *dev = cl->root->first_child; dev; dev = dev->next_sibling) {
            if (dev->family != RM_FAM_DEVICE || dev->lost || dev->gpu != c->gpu)
                continue;
            for (struct rm_object *o = cl->root; (o = rm_object_next_preorder(cl->root, o));)
                if (!o->lost && rm_object_class(o) == NV01_MEMORY_LOCAL_USER && device_of(o) &&
                    device_of(o)->handle == dev->handle)
                    count_memory(o, d);
        }
    }
    free(cls);
    return NV_OK;
}

RM_CTRL_HANDLER(gpu_get_pid_info, NV2080_CTRL_GPU_GET_PID_INFO_PARAMS)
{
    if (p->pidInfoListCount == 0 || p->pidInfoListCount > NV2080_CTRL_GPU_GET_PID_INFO_MAX_COUNT)
        return NV_ERR_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < p->pidInfoListCount; i++) {
        NV2080_CTRL_GPU_PID_INFO *e = &p->pidInfoList[i];
        e->computeInstanceId = e->gpuInstanceId = NV2080_CTRL_GPU_PID_INFO_PARTITIONID_INVALID;
        if (e->index != NV2080_CTRL_GPU_PID_INFO_INDEX_VIDEO_MEMORY_USAGE) {
            e->result = NV_ERR_INVALID_ARGUMENT;
            continue;
        }
        memset(&e->vidMemUsage, 0, sizeof e->vidMemUsage);
        e->result = pid_video_memory(c, e->pid, &e->vidMemUsage);
    }
    return NV_OK;
}

const struct rm_ctrl_row rm_ctrl_rows_pids[] = {
    RM_CTRL(NV2080_CTRL_CMD_GPU_GET_PIDS, NV2080_CTRL_GPU_GET_PIDS_PARAMS, RM_FAM_SUBDEVICE, RM_PRIV_USER,
            gpu_get_pids),
    RM_CTRL(NV2080_CTRL_CMD_GPU_GET_PID_INFO, NV2080_CTRL_GPU_GET_PID_INFO_PARAMS, RM_FAM_SUBDEVICE, RM_PRIV_USER,
            gpu_get_pid_info),
    {.name = NULL},
};
