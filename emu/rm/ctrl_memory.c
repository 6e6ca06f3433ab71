/*
 * The memory classes' own controls (NV0041, ctrl0041.h) and what a memory object keeps of its allocation for
 * them. From open-gpu-kernel-modules 580.x: src/common/sdk/nvidia/inc/ctrl/ctrl0041.h (indices, the 4 KiB
 * PHYS_SIZE unit, the ATTRS bits), src/nvidia/src/kernel/gpu/mem_mgr/mem_ctrl.c
 * (memCtrlCmdGetSurfaceInfoLvm_IMPL) and src/nvidia/src/kernel/mem_mgr/mem.c (memConstructCommon: hardware
 * resources are kept only when the allocation got some, hwResId != 0).
 *
 * GET_SURFACE_INFO walks the caller's {index, data} list (copied in and out by the driver's embedded param
 * copy, at most 1 MiB) and answers each index from the object's memory descriptor:
 *   PHYS_SIZE_LO/HI   the allocation's size in bytes (low/high 32 bits);
 *   PHYS_SIZE         the size in 4 KiB units (NV_ERR_OUT_OF_RANGE when that does not fit 32 bits);
 *   ADDR_SPACE_TYPE   SYSMEM or VIDMEM, as NV0000 CLIENT_GET_ADDR_SPACE_TYPE answers;
 *   ATTRS             COMPR / ZCULL when the allocation holds compression / zcull resources;
 *   PHYS_ATTR         the page size, CPU coherency and format fields of attr, with hardware resources only;
 *   COMPR_COVERAGE    with compression resources: the coverage in 64 KiB units, else 0.
 * Any other index stops the walk with NV_ERR_INVALID_ARGUMENT (the entries before it are answered). An empty
 * list or a NULL pointer answers NV_OK untouched.
 *
 * As modelled: the size is the one the alloc params answered (NV_MEMORY_ALLOCATION_PARAMS.size after the
 * allocation); an allocation holds hardware resources when its answered attr requires compression or zcull;
 * the compression coverage counts the whole allocation as one contiguous segment (the driver reports the
 * first physically contiguous one). Memory objects not allocated from NV_MEMORY_ALLOCATION_PARAMS (OS
 * descriptors, virtual memory, the user-shared-data page) keep nothing: the control answers NOT_SUPPORTED
 * with a log line. A duplicate (DUP_OBJECT, OS_UNIX import) answers from the object it refers to.
 */
#include <stdlib.h>
#include <string.h>

#include "abi/nv_alloc.h"
#include "abi/nv_ctrl_core.h"
#include "abi/nv_ctrl_discovery.h"
#include "base/log.h"
#include "rm/rm_internal.h"

/* What the driver's memory descriptor and hardware-resource record say of one allocation. */
struct rm_memory {
    uint64_t size;
    uint32_t attr;
    uint32_t addr_space;   /* NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE_* */
    bool hw_resources;
};

#define COMPR_COVERAGE_UNIT 0x10000u
#define PHYS_ATTR_FIELDS (NVOS32_ATTR_PAGE_SIZE_FIELD | NVOS32_ATTR_COHERENCY_FIELD | NVOS32_ATTR_FORMAT_FIELD)

NV_STATUS rm_memory_track(struct rm_object *obj, const void *params, uint32_t addr_space)
{
    const NV_MEMORY_ALLOCATION_PARAMS *p = params;
    struct rm_memory *m = calloc(1, sizeof *m);
    if (!m)
        return NV_ERR_NO_MEMORY;
    m->size = p->size;
    m->attr = p->attr;
    m->addr_space = addr_space;
    m->hw_resources = (p->attr & NVOS32_ATTR_COMPR_FIELD) == NVOS32_ATTR_COMPR_REQUIRED_BIT ||
                      (p->attr & NVOS32_ATTR_ZCULL_FIELD) == NVOS32_ATTR_ZCULL_REQUIRED_BIT;
    rm_object_set_priv(obj, m);
    return NV_OK;
}

void rm_memory_untrack(struct rm_call *c, struct rm_object *obj)
{
    (void)c;
    free(rm_object_priv(obj));
    rm_object_set_priv(obj, NULL);
}

uint32_t rm_memory_attr(const struct rm_object *obj)
{
    const struct rm_memory *m = rm_object_priv(obj);
    return m ? m->attr : 0;
}

uint64_t rm_memory_size(const struct rm_object *obj)
{
    const struct rm_memory *m = rm_object_priv(obj);
    return m ? m->size : 0;
}

/* One index of GET_SURFACE_INFO (mem_ctrl.c's switch). */
static NV_STATUS surface_info(const struct rm_memory *m, uint32_t index, uint32_t *data)
{
    *data = 0;
    switch (index) {
    case NV0041_CTRL_SURFACE_INFO_INDEX_ATTRS:
        if (m->hw_resources && (m->attr & NVOS32_ATTR_COMPR_REQUIRED_BIT))
            *data |= NV0041_CTRL_SURFACE_INFO_ATTRS_COMPR;
        if (m->hw_resources && (m->attr & NVOS32_ATTR_ZCULL_REQUIRED_BIT))
            *data |= NV0041_CTRL_SURFACE_INFO_ATTRS_ZCULL;
        return NV_OK;
    case NV0041_CTRL_SURFACE_INFO_INDEX_COMPR_COVERAGE:
        if (m->hw_resources && (m->attr & NVOS32_ATTR_COMPR_REQUIRED_BIT))
            *data = (uint32_t)(m->size / COMPR_COVERAGE_UNIT);
        return NV_OK;
    case NV0041_CTRL_SURFACE_INFO_INDEX_PHYS_SIZE_LO:
        *data = (uint32_t)m->size;
        return NV_OK;
    case NV0041_CTRL_SURFACE_INFO_INDEX_PHYS_SIZE_HI:
        *data = (uint32_t)(m->size >> 32);
        return NV_OK;
    case NV0041_CTRL_SURFACE_INFO_INDEX_PHYS_SIZE: {
        uint64_t units = m->size / NV0041_CTRL_SURFACE_INFO_PHYS_SIZE_SCALE_FACTOR;
        *data = (uint32_t)units;
        return units == *data ? NV_OK : NV_ERR_OUT_OF_RANGE;
    }
    case NV0041_CTRL_SURFACE_INFO_INDEX_PHYS_ATTR:
        if (m->hw_resources)
            *data = m->attr & PHYS_ATTR_FIELDS;
        return NV_OK;
    case NV0041_CTRL_SURFACE_INFO_INDEX_ADDR_SPACE_TYPE:
        *data = m->addr_space;
        return NV_OK;
    default:
        return NV_ERR_INVALID_ARGUMENT;
    }
}

RM_CTRL_HANDLER(ctrl_get_surface_info, NV0041_CTRL_GET_SURFACE_INFO_PARAMS)
{
    uint32_t n = p->surfaceInfoListSize;
    if (n == 0 || !p->surfaceInfoList)
        return NV_OK;
    if ((uint64_t)n * sizeof(NV0041_CTRL_SURFACE_INFO) > NV_RMAPI_PARAM_COPY_MAX_PARAMS_SIZE)
        return NV_ERR_INVALID_ARGUMENT;
    const struct rm_memory *m = rm_object_priv(c->obj);
    if (!m) {
        LOG_INFO("rm", "GET_SURFACE_INFO on 0x%08x (class 0x%04x): this memory class's descriptor is not modelled",
                 rm_object_handle(c->obj), rm_object_class(c->obj));
        return NV_ERR_NOT_SUPPORTED;
    }
    size_t bytes = (size_t)n * sizeof(NV0041_CTRL_SURFACE_INFO);
    NV0041_CTRL_SURFACE_INFO *list = malloc(bytes);
    if (!list)
        return NV_ERR_NO_MEMORY;
    NV_STATUS st = c->acc->read(c->acc->ctx, p->surfaceInfoList, list, bytes) == 0 ? NV_OK : NV_ERR_INVALID_ADDRESS;
    NV_STATUS walk = NV_OK;
    for (uint32_t i = 0; st == NV_OK && walk == NV_OK && i < n; i++) {
        uint32_t data;
        walk = surface_info(m, list[i].index, &data);
        if (walk == NV_OK)
            list[i].data = data;
    }
    if (st == NV_OK && c->acc->write(c->acc->ctx, p->surfaceInfoList, list, bytes) != 0)
        st = NV_ERR_INVALID_ADDRESS;
    free(list);
    return st != NV_OK ? st : walk;
}

#define NP RM_PRIV_USER
const struct rm_ctrl_row rm_ctrl_rows_memory[] = {
    RM_CTRL(NV0041_CTRL_CMD_GET_SURFACE_INFO, NV0041_CTRL_GET_SURFACE_INFO_PARAMS, RM_FAM_MEMORY, NP,
            ctrl_get_surface_info),
    {.name = NULL},
};
