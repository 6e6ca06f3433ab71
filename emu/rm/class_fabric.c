/*
 * NV_MEMORY_FABRIC (class 0x00f8): a range of a GPU's fabric linear address space (FLA), through which
 * GPUs of an NVLink fabric reach each other's video memory. CUDA's shareable memory pools allocate one on
 * NVLink machines, attach the pool's video memory to it and export it over an nvidiactl fd
 * (ctrl_export.c), so another process imports it. From open-gpu-kernel-modules 580.x:
 * src/nvidia/src/kernel/mem_mgr/mem_fabric.c (memoryfabricConstruct_IMPL, memoryfabricCtrl*_IMPL,
 * _memoryfabricValidatePhysMem), src/nvidia/src/kernel/gpu/mem_mgr/fabric_vaspace.c
 * (_fabricVaspaceValidateMapAttrs), src/nvidia/src/kernel/rmapi/resource_list.h (a subdevice the parent).
 *
 * The constructor's checks, in the driver's order: a GPU without FLA (GPU_GET_INFO_V2 index 0x2d,
 * GPU_FLA_CAPABILITY, 0 or absent in the profile) has no fabric VA space -> NV_ERR_NOT_SUPPORTED; a page size
 * other than 2 MiB / 512 MiB / 256 GiB, or an alignment or size not a multiple of it -> INVALID_ARGUMENT;
 * READ_ONLY (debug driver builds only) -> NOT_SUPPORTED; a flexible object given memory -> NOT_SUPPORTED; a
 * sticky one (flags without FLEXIBLE_FLA) must name video memory of its GPU with 2 MiB pages, mapped whole
 * at construction. Flag bits the driver does not define are ignored by it, as here (with a log line).
 *
 * ATTACH_MEM maps video memory into a flexible object (sticky -> NOT_SUPPORTED) under the fabric VA space's
 * checks: the offsets a multiple of the memory's page size and inside their objects (else INVALID_OFFSET),
 * the length non-zero, a multiple of the page size and fitting both (else INVALID_ARGUMENT); an offset already
 * attached -> the driver's btree answer, INSERT_DUPLICATE_NAME. DETACH_MEM removes attachments by offset
 * (an unknown one -> OBJECT_NOT_FOUND). Both count what they did before a failure. GET_INFO and
 * GET_NUM_ATTACHED_MEM answer from the object's state. An imported or duplicated object shares its
 * source's state. As modelled: the fabric VA space is always initialised on an FLA-capable GPU (the
 * driver's UC-range INVALID_STATE never happens), memory attached stays attached when that memory is freed
 * (the driver drops the mapping with it), and video memory counts as 2 MiB-paged when its attr asks for
 * huge pages (the driver reads the page size its allocation got).
 */
#include <stdlib.h>
#include <string.h>

#include "abi/nv_alloc.h"
#include "abi/nv_classes.h"
#include "abi/nv_ctrl_fabric.h"
#include "base/log.h"
#include "profile/profile.h"
#include "rm/rm_internal.h"

/* GPU_GET_INFO_V2 index of GPU_FLA_CAPABILITY (ctrl2080gpu.h). */
#define GPU_INFO_INDEX_FLA_CAPABILITY 0x2du
#define NVOS32_ATTR_PAGE_SIZE_HUGE (3u << 23)
#define PHYS_PAGE_SIZE_2M 0x200000ull
#define ALLOC_FLAGS_KNOWN 0x1fu

struct fabric_attach {
    uint64_t offset, map_offset, map_length;
    uint32_t hmemory;
};

struct rm_fabric {
    uint64_t size, page_size;
    uint32_t alloc_flags;
    struct fabric_attach *att;
    uint32_t natt, capatt;
};

static bool fla_capable(const struct profile *pr)
{
    for (uint32_t i = 0; i < pr->gpu_info_count; i++)
        if (pr->gpu_info[i].index == GPU_INFO_INDEX_FLA_CAPABILITY)
            return pr->gpu_info[i].value != 0;
    return false;
}

/* _memoryfabricValidatePhysMem: video memory of the fabric object's GPU with 2 MiB pages. */
static NV_STATUS validate_phys(struct rm_call *c, uint32_t hmemory, const struct gpu *g, uint64_t *size)
{
    struct rm_object *m = rm_client_find(c->client, hmemory);
    if (!m)
        return NV_ERR_OBJECT_NOT_FOUND;
    if (rm_object_family(m) != RM_FAM_MEMORY)
        return NV_ERR_INVALID_OBJECT_HANDLE;
    if (rm_object_class(m) != NV01_MEMORY_LOCAL_USER || rm_object_gpu(m) != g) {
        LOG_INFO("rm", "NV_MEMORY_FABRIC: 0x%08x is not video memory of GPU %u", hmemory, g->index);
        return NV_ERR_INVALID_ARGUMENT;
    }
    if ((rm_memory_attr(m) & NVOS32_ATTR_PAGE_SIZE_FIELD) != NVOS32_ATTR_PAGE_SIZE_HUGE) {
        LOG_INFO("rm", "NV_MEMORY_FABRIC: video memory 0x%08x does not have 2 MiB pages", hmemory);
        return NV_ERR_INVALID_ARGUMENT;
    }
    *size = rm_memory_size(m);
    return NV_OK;
}

static struct fabric_attach *find_attach(struct rm_fabric *f, uint64_t offset)
{
    for (uint32_t i = 0; i < f->natt; i++)
        if (f->att[i].offset == offset)
            return &f->att[i];
    return NULL;
}

/* _memoryFabricAttachMem after the flexibility check: fabricvaspaceMapPhysMemdesc's checks, then the btree. */
static NV_STATUS attach(struct rm_call *c, struct rm_fabric *f, const struct gpu *g,
                        const NV00F8_CTRL_ATTACH_MEM_INFO *in)
{
    uint64_t phys_size;
    NV_STATUS st = validate_phys(c, in->hMemory, g, &phys_size);
    if (st != NV_OK)
        return st;
    if (in->offset % PHYS_PAGE_SIZE_2M || in->offset >= f->size || in->mapOffset % PHYS_PAGE_SIZE_2M ||
        in->mapOffset >= phys_size)
        return NV_ERR_INVALID_OFFSET;
    if (in->mapLength == 0 || in->mapLength % PHYS_PAGE_SIZE_2M || in->mapLength > phys_size - in->mapOffset ||
        in->mapLength > f->size - in->offset)
        return NV_ERR_INVALID_ARGUMENT;
    if (find_attach(f, in->offset))
        return NV_ERR_INSERT_DUPLICATE_NAME;
    if (f->natt == f->capatt) {
        uint32_t cap = f->capatt ? 2 * f->capatt : 4;
        struct fabric_attach *a = realloc(f->att, cap * sizeof(*a));
        if (!a)
            return NV_ERR_NO_MEMORY;
        f->att = a;
        f->capatt = cap;
    }
    f->att[f->natt++] = (struct fabric_attach){in->offset, in->mapOffset, in->mapLength, in->hMemory};
    return NV_OK;
}

static NV_STATUS fabric_construct(struct rm_call *c, struct rm_object *obj, void *params)
{
    const NV00F8_ALLOCATION_PARAMETERS *p = params;
    struct gpu *g = c->gpu;
    if (!g || !fla_capable(rm_call_profile(c))) {
        LOG_INFO("rm", "NV_MEMORY_FABRIC: the GPU has no fabric VA space (GPU_FLA_CAPABILITY 0), NOT_SUPPORTED");
        return NV_ERR_NOT_SUPPORTED;
    }
    if (p->pageSize != NV_MEMORY_FABRIC_PAGE_SIZE_2M && p->pageSize != NV_MEMORY_FABRIC_PAGE_SIZE_512M &&
        p->pageSize != NV_MEMORY_FABRIC_PAGE_SIZE_256G)
        return NV_ERR_INVALID_ARGUMENT;
    if (p->alignment % p->pageSize || p->allocSize % p->pageSize)
        return NV_ERR_INVALID_ARGUMENT;
    if (p->allocFlags & ~ALLOC_FLAGS_KNOWN)
        LOG_INFO("rm", "NV_MEMORY_FABRIC: alloc flags 0x%x beyond the driver's, ignored as it does", p->allocFlags);
    if (p->allocFlags & NV00F8_ALLOC_FLAGS_READ_ONLY) {
        LOG_INFO("rm", "NV_MEMORY_FABRIC: READ_ONLY needs a debug driver build, NOT_SUPPORTED");
        return NV_ERR_NOT_SUPPORTED;
    }
    bool flexible = p->allocFlags & NV00F8_ALLOC_FLAGS_FLEXIBLE_FLA;
    if (flexible && p->map.hVidMem != 0)
        return NV_ERR_NOT_SUPPORTED;
    if (p->allocSize == 0) {
        LOG_INFO("rm", "NV_MEMORY_FABRIC: size 0, no fabric VA to allocate");
        return NV_ERR_INVALID_ARGUMENT;
    }
    struct rm_fabric *f = calloc(1, sizeof(*f));
    if (!f)
        return NV_ERR_NO_MEMORY;
    f->size = p->allocSize;
    f->page_size = p->pageSize;
    f->alloc_flags = p->allocFlags;
    rm_object_set_priv(obj, f);
    if (!flexible) {
        NV00F8_CTRL_ATTACH_MEM_INFO whole = {.hMemory = p->map.hVidMem, .offset = 0, .mapOffset = p->map.offset,
                                             .mapLength = p->allocSize};
        return attach(c, f, g, &whole);
    }
    return NV_OK;
}

static void fabric_destruct(struct rm_call *c, struct rm_object *obj)
{
    (void)c;
    struct rm_fabric *f = rm_object_priv(obj);
    if (f)
        free(f->att);
    free(f);
    rm_object_set_priv(obj, NULL);
}

/* The fabric object a control names; other classes do not export the NV00F8 controls. */
static struct rm_fabric *control_fabric(struct rm_call *c)
{
    if (rm_object_class(c->obj) != NV_MEMORY_FABRIC) {
        LOG_INFO("rm", "control 0x%08x on class 0x%04x: only NV_MEMORY_FABRIC exports it", c->cmd,
                 rm_object_class(c->obj));
        return NULL;
    }
    return rm_object_priv(c->obj);
}

RM_CTRL_HANDLER(ctrl_fabric_get_info, NV00F8_CTRL_GET_INFO_PARAMS)
{
    struct rm_fabric *f = control_fabric(c);
    if (!f)
        return NV_ERR_NOT_SUPPORTED;
    p->size = f->size;
    p->pageSize = f->page_size;
    p->allocFlags = f->alloc_flags;
    return NV_OK;
}

RM_CTRL_HANDLER(ctrl_fabric_attach_mem, NV00F8_CTRL_ATTACH_MEM_PARAMS)
{
    struct rm_fabric *f = control_fabric(c);
    if (!f)
        return NV_ERR_NOT_SUPPORTED;
    p->numAttached = 0;
    if (p->flags != 0 || p->numMemInfos == 0 || p->numMemInfos > NV00F8_MAX_ATTACHABLE_MEM_INFOS)
        return NV_ERR_INVALID_ARGUMENT;
    if (!(f->alloc_flags & NV00F8_ALLOC_FLAGS_FLEXIBLE_FLA)) {
        LOG_INFO("rm", "NV00F8 ATTACH_MEM on a sticky fabric object, NOT_SUPPORTED");
        return NV_ERR_NOT_SUPPORTED;
    }
    for (uint16_t i = 0; i < p->numMemInfos; i++) {
        NV_STATUS st = attach(c, f, rm_object_gpu(c->obj), &p->memInfos[i]);
        if (st != NV_OK)
            return st;
        p->numAttached++;
    }
    return NV_OK;
}

RM_CTRL_HANDLER(ctrl_fabric_detach_mem, NV00F8_CTRL_DETACH_MEM_PARAMS)
{
    struct rm_fabric *f = control_fabric(c);
    if (!f)
        return NV_ERR_NOT_SUPPORTED;
    p->numDetached = 0;
    if (p->flags != 0 || p->numOffsets == 0 || p->numOffsets > NV00F8_MAX_DETACHABLE_OFFSETS)
        return NV_ERR_INVALID_ARGUMENT;
    for (uint16_t i = 0; i < p->numOffsets; i++) {
        struct fabric_attach *a = find_attach(f, p->offsets[i]);
        if (!a)
            return NV_ERR_OBJECT_NOT_FOUND;
        *a = f->att[--f->natt];
        p->numDetached++;
    }
    return NV_OK;
}

RM_CTRL_HANDLER(ctrl_fabric_num_attached, NV00F8_CTRL_GET_NUM_ATTACHED_MEM_PARAMS)
{
    struct rm_fabric *f = control_fabric(c);
    if (!f)
        return NV_ERR_NOT_SUPPORTED;
    p->numMemInfos = 0;
    for (uint32_t i = 0; i < f->natt; i++)
        if (f->att[i].offset >= p->offsetStart && f->att[i].offset <= p->offsetEnd)
            p->numMemInfos++;
    return NV_OK;
}

const struct rm_class_row rm_class_rows_fabric[] = {
    RM_CLASS(NV_MEMORY_FABRIC, NV00F8_ALLOCATION_PARAMETERS, .params = RM_PARAMS_REQUIRED,
             .parents = RM_FAM_SUBDEVICE, .family = RM_FAM_OTHER, .modelled = true, .free_priority = RM_FREE_PRIO_DEFAULT,
             .construct = fabric_construct, .destruct = fabric_destruct),
    {.name = NULL},
};

#define NP RM_PRIV_USER
#define OTH RM_FAM_OTHER

/* NON_PRIVILEGED on the fabric object (src/nvidia/generated/g_mem_fabric_nvoc.c, 580.x: flags 0x118, 0x918). */
const struct rm_ctrl_row rm_ctrl_rows_fabric[] = {
    RM_CTRL(NV00F8_CTRL_CMD_GET_INFO, NV00F8_CTRL_GET_INFO_PARAMS, OTH, NP, ctrl_fabric_get_info),
    RM_CTRL(NV00F8_CTRL_CMD_ATTACH_MEM, NV00F8_CTRL_ATTACH_MEM_PARAMS, OTH, NP, ctrl_fabric_attach_mem),
    RM_CTRL(NV00F8_CTRL_CMD_DETACH_MEM, NV00F8_CTRL_DETACH_MEM_PARAMS, OTH, NP, ctrl_fabric_detach_mem),
    RM_CTRL(NV00F8_CTRL_CMD_GET_NUM_ATTACHED_MEM, NV00F8_CTRL_GET_NUM_ATTACHED_MEM_PARAMS, OTH, NP,
            ctrl_fabric_num_attached),
    {.name = NULL},
};
