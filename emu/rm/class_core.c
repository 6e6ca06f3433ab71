/*
 * Class rows of the core (everything except the FIFO classes of
 * class_fifo.c): root, device, subdevice, VA space, memory, usermode, events,
 * engine objects under channels, and the classes libcuda allocates that the
 * emulator accepts without behaviour (modelled = false: the object exists so
 * handles, parents and frees behave; its params are returned unchanged).
 */
#include <stdlib.h>

#include "abi/nv_alloc.h"
#include "abi/nv_classes.h"
#include "abi/nv_ctrl_discovery.h"
#include "base/log.h"
#include "fifo/fifo.h"
#include "rm/rm_internal.h"
#include "rm/rusd.h"

/*
 * The driver scans the calling process's file table for an open /dev/nvidia<g>
 * (nv_is_gpu_accessible), so fds inherited over fork() count. The emulator
 * cannot see inheritance: an open node of the same process or of another
 * process of the same user stands for it.
 */
static bool process_has_gpu_open(struct rm_server *rs, const nvemu_opener *caller, const struct gpu *g)
{
    for (const nvemu_opener *op = rs->openers; op; op = op->next)
        if (op->node == NVEMU_NODE_GPU && op->minor == g->index && !op->closed &&
            (op->who.pid == caller->who.pid || op->who.uid == caller->who.uid))
            return true;
    return false;
}

/*
 * NV01_DEVICE_0: the device factory's own checks, before "optional" applies.
 * As recorded on the H200 (fixtures/hw conformance): NULL params or deviceId
 * >= 32 -> INVALID_ARGUMENT; a deviceId without a GPU -> INVALID_CLASS; a
 * process with no /dev/nvidiaN of that GPU open -> INSUFFICIENT_PERMISSIONS.
 */
static NV_STATUS device_construct(struct rm_call *c, struct rm_object *obj, void *params)
{
    if (!params)
        return NV_ERR_INVALID_ARGUMENT;
    const NV0080_ALLOC_PARAMETERS *p = params;
    if (p->deviceId >= NV0080_MAX_DEVICES)
        return NV_ERR_INVALID_ARGUMENT;
    struct gpu *g = rm_gpu(c->rs, p->deviceId);
    if (!g)
        return NV_ERR_INVALID_CLASS;
    if (gpu_is_lost(g)) {
        LOG_INFO("fault", "NV01_DEVICE_0 on GPU %u: GPU lost, NV_ERR_GPU_IS_LOST", g->index);
        return NV_ERR_GPU_IS_LOST;
    }
    if (c->op && !process_has_gpu_open(c->rs, c->op, g))
        return NV_ERR_INSUFFICIENT_PERMISSIONS;
    rm_object_set_gpu(obj, g);
    return NV_OK;
}

/*
 * Subdevices are per subDeviceId (NULL params = 0): a second one with the same
 * id under a device -> INSUFFICIENT_RESOURCES (recorded); ids up to
 * NV2080_MAX_SUBDEVICES are accepted (the H200 accepted id 1).
 */
#define NV2080_MAX_SUBDEVICES 8u
static NV_STATUS subdevice_construct(struct rm_call *c, struct rm_object *obj, void *params)
{
    (void)c;
    const NV2080_ALLOC_PARAMETERS *p = params;
    uint32_t id = p ? p->subDeviceId : 0;
    if (id >= NV2080_MAX_SUBDEVICES)
        return NV_ERR_INVALID_ARGUMENT;
    for (struct rm_object *sib = obj->parent->first_child; sib; sib = sib->next_sibling)
        if (sib != obj && sib->family == RM_FAM_SUBDEVICE && !sib->lost && sib->attr == id)
            return NV_ERR_INSUFFICIENT_RESOURCES;
    obj->attr = id;
    return NV_OK;
}

/* CPU mappings of system memory: default caching, sysmem mapping kind (as recorded). */
static NV_STATUS sysmem_construct(struct rm_call *c, struct rm_object *obj, void *params)
{
    (void)c;
    (void)params;
    obj->map_flags = NVOS33_FLAGS_CACHING_TYPE_DEFAULT | NVOS33_FLAGS_MAPPING_SYSMEM;
    return NV_OK;
}

/* The user-shared-data page is system memory; the alloc may already ask for data to be polled. */
static NV_STATUS rusd_construct(struct rm_call *c, struct rm_object *obj, void *params)
{
    const NV00DE_ALLOC_PARAMETERS *p = params;
    if (p && p->polledDataMask && c->gpu)
        rusd_request(c->gpu, p->polledDataMask);
    return sysmem_construct(c, obj, params);
}

/* System memory allocated from NV_MEMORY_ALLOCATION_PARAMS: its descriptor is kept (GET_SURFACE_INFO). */
static NV_STATUS sysmem_alloc_construct(struct rm_call *c, struct rm_object *obj, void *params)
{
    sysmem_construct(c, obj, params);
    return rm_memory_track(obj, params, NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE_SYSMEM);
}

/* CPU mappings of video memory go through BAR1, write-combined; its descriptor is kept (GET_SURFACE_INFO). */
static NV_STATUS vidmem_construct(struct rm_call *c, struct rm_object *obj, void *params)
{
    (void)c;
    obj->map_flags = NVOS33_FLAGS_CACHING_TYPE_WRITECOMBINED | NVOS33_FLAGS_MAPPING_BAR;
    return rm_memory_track(obj, params, NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE_VIDMEM);
}

/* Usermode region: the BAR1 variant (bBar1Mapping) maps uncached, the BAR0 one with default caching. */
static NV_STATUS usermode_construct(struct rm_call *c, struct rm_object *obj, void *params)
{
    (void)c;
    const NV_HOPPER_USERMODE_A_PARAMS *p = params;
    obj->map_flags = (p && p->bBar1Mapping) ? NVOS33_FLAGS_CACHING_TYPE_UNCACHED | NVOS33_FLAGS_MAPPING_BAR
                                            : NVOS33_FLAGS_CACHING_TYPE_DEFAULT;
    return NV_OK;
}

bool rm_usermode_bar1(const struct rm_object *o)
{
    return o->family == RM_FAM_USERMODE && (o->map_flags & NVOS33_FLAGS_MAPPING_MASK) == NVOS33_FLAGS_MAPPING_BAR;
}

/* An engine object gives its channel the group's runlist (work-submit tokens need one). */
static NV_STATUS engine_object_construct(struct rm_call *c, struct rm_object *obj, void *params)
{
    (void)c;
    (void)params;
    struct fifo_channel *ch = rm_object_priv(obj->parent);
    if (ch)
        fifo_channel_engine_object(ch);
    return NV_OK;
}

/*
 * eventInit (src/nvidia/src/kernel/rmapi/event.c, 580.x): the notifier named
 * by (hParentClient, hSrcResource) must exist and be able to notify; an event
 * cannot (NV_ERR_INVALID_OBJECT), so events do not nest through their notifier.
 */
static NV_STATUS event_construct(struct rm_call *c, struct rm_object *obj, void *params)
{
    const NV0005_ALLOC_PARAMETERS *p = params;
    struct rm_client *ncl = p->hParentClient ? rm_client_lookup(c->rs, p->hParentClient) : obj->client;
    if (!ncl)
        return NV_ERR_INVALID_CLIENT;
    struct rm_object *src = rm_client_find(ncl, p->hSrcResource);
    if (!src || src->family == RM_FAM_EVENT || src == obj) {
        LOG_DEBUG("rm", "event 0x%08x: notifier 0x%08x of client 0x%08x is not a notifier", obj->handle,
                  p->hSrcResource, ncl->handle);
        return NV_ERR_INVALID_OBJECT;
    }
    return NV_OK;
}

/* ---- FERMI_VASPACE_A ---- */

/* An externally owned VA space gets its page directory from UVM (UVM_REGISTER_GPU_VASPACE). */
struct vaspace_rm {
    bool external;
    bool uvm_registered;
};

static NV_STATUS vaspace_construct(struct rm_call *c, struct rm_object *obj, void *params)
{
    (void)c;
    const NV_VASPACE_ALLOCATION_PARAMETERS *p = params;
    struct vaspace_rm *v = calloc(1, sizeof(*v));
    if (!v)
        return NV_ERR_NO_MEMORY;
    v->external = (p->flags & NV_VASPACE_ALLOCATION_FLAGS_IS_EXTERNALLY_OWNED) != 0;
    rm_object_set_priv(obj, v);
    return NV_OK;
}

static void vaspace_destruct(struct rm_call *c, struct rm_object *obj)
{
    (void)c;
    free(rm_object_priv(obj));
    rm_object_set_priv(obj, NULL);
}

bool rm_vaspace_usable(const struct rm_object *vas)
{
    const struct vaspace_rm *v = rm_object_priv(vas);
    return !v || !v->external || v->uvm_registered;
}

/* Whether the caller reaches client cl: through its RM file ctl, else as the process that created it. */
static bool uvm_reaches(const struct rm_client *cl, nvemu_opener *ctl, const nvemu_opener *uvm)
{
    if (ctl && ctl->node == NVEMU_NODE_CTL)
        return cl->owner == ctl || (cl->owner && cl->owner->ctl == ctl);
    return cl->creator_pid == uvm->who.pid;
}

NV_STATUS rm_vaspace_uvm_register(struct rm_server *rs, nvemu_opener *ctl, const nvemu_opener *uvm,
                                  uint32_t hclient, uint32_t hvaspace)
{
    struct rm_client *cl = rm_client_by_handle(rs, hclient);
    if (!cl || !uvm_reaches(cl, ctl, uvm)) {
        LOG_INFO("rm", "UVM VA-space registration: no client 0x%x %s", hclient,
                 ctl && ctl->node == NVEMU_NODE_CTL ? "on the RM file rmCtrlFd names" : "of the calling process");
        return NV_ERR_INVALID_CLIENT;
    }
    struct rm_object *o = rm_client_find(cl, hvaspace);
    if (!o || rm_object_family(o) != RM_FAM_VASPACE) {
        LOG_INFO("rm", "UVM VA-space registration: 0x%x is not a VA space of client 0x%x", hvaspace, hclient);
        return NV_ERR_OBJECT_NOT_FOUND;
    }
    struct vaspace_rm *v = rm_object_priv(o);
    if (!v || !v->external) {
        LOG_INFO("rm", "UVM VA-space registration: VA space 0x%x is not externally owned", hvaspace);
        return NV_ERR_INVALID_ARGUMENT;
    }
    v->uvm_registered = true;
    return NV_OK;
}

#define P RM_FREE_PRIO_DEFAULT
/* Row families: the columns they share, the symbol (and for USERMODE the params type) per row. */
#define ROOT_ROW(sym)                                                                                        \
    {.hclass = (sym), .name = #sym, .param_size = NV0000_ALLOC_COPY_SIZE, .params = RM_PARAMS_OPTIONAL,     \
     .family = RM_FAM_CLIENT, .single_instance = true, .modelled = true, .free_priority = P}
#define EVENT_ROW(sym)                                                                                       \
    {.hclass = (sym), .name = #sym, .param_size = sizeof(NV0005_ALLOC_PARAMETERS), .params = RM_PARAMS_REQUIRED, \
     .parents = RM_FAM_ANY, .family = RM_FAM_EVENT, .any_node = true, .free_priority = P,                      \
     .construct = event_construct}
#define COMPUTE_ROW(sym)                                                                                     \
    {.hclass = (sym), .name = #sym, .param_size = sizeof(NV_GR_ALLOCATION_PARAMETERS),                        \
     .params = RM_PARAMS_OPTIONAL, .parents = RM_FAM_CHANNEL, .family = RM_FAM_ENGINE_OBJ, .gpu_class = true,  \
     .free_priority = P, .construct = engine_object_construct}
#define COPY_ROW(sym)                                                                                        \
    {.hclass = (sym), .name = #sym, .param_size = sizeof(NVB0B5_ALLOCATION_PARAMETERS),                       \
     .params = RM_PARAMS_OPTIONAL, .parents = RM_FAM_CHANNEL, .family = RM_FAM_ENGINE_OBJ, .gpu_class = true,  \
     .free_priority = P, .construct = engine_object_construct}
/* A GPU class accepted without behaviour and without parameters, under `parent`. */
#define ACCEPTED_ROW(sym, parent)                                                                            \
    {.hclass = (sym), .name = #sym, .params = RM_PARAMS_NONE, .parents = parent, .family = RM_FAM_OTHER,       \
     .gpu_class = true, .free_priority = P}
#define USERMODE_ROW(sym, ...)                                                                               \
    {.hclass = (sym), .name = #sym, .parents = RM_FAM_SUBDEVICE, .family = RM_FAM_USERMODE, .gpu_class = true, \
     .free_priority = P, .construct = usermode_construct, __VA_ARGS__}

/*
 * Columns (struct rm_class_row): params, parents, family, single_instance, gpu_class, any_node,
 * internal_only, modelled, free_priority, construct, destruct; those left out are false / NULL.
 * VOLTA_COMPUTE_A: the 580 open driver has no RS_ENTRY for it (NV_ERR_INVALID_CLASS); the proprietary
 * module, which serves Volta with the same RM, has (profile build.kernel_module: proprietary).
 */
const struct rm_class_row rm_class_rows_core[] = {
    ROOT_ROW(NV01_ROOT),
    ROOT_ROW(NV01_ROOT_NON_PRIV),
    ROOT_ROW(NV01_ROOT_CLIENT),
    RM_CLASS(NV01_DEVICE_0, NV0080_ALLOC_PARAMETERS, .params = RM_PARAMS_OPTIONAL, .parents = RM_FAM_CLIENT,
     .family = RM_FAM_DEVICE, .modelled = true, .free_priority = P, .construct = device_construct),
    RM_CLASS(NV20_SUBDEVICE_0, NV2080_ALLOC_PARAMETERS, .params = RM_PARAMS_OPTIONAL, .parents = RM_FAM_DEVICE,
     .family = RM_FAM_SUBDEVICE, .modelled = true, .free_priority = P, .construct = subdevice_construct),
    RM_CLASS(FERMI_VASPACE_A, NV_VASPACE_ALLOCATION_PARAMETERS, .params = RM_PARAMS_REQUIRED,
     .parents = RM_FAM_DEVICE | RM_FAM_SUBDEVICE, .family = RM_FAM_VASPACE, .modelled = true, .free_priority = P,
     .construct = vaspace_construct, .destruct = vaspace_destruct),
    RM_CLASS_NO_PARAMS(KERNEL_GRAPHICS_CONTEXT, .parents = RM_FAM_TSG | RM_FAM_CHANNEL, .family = RM_FAM_OTHER,
     .internal_only = true, .modelled = true, .free_priority = P),

    /* memory: handles and what GET_SURFACE_INFO reports, no backing store */
    RM_CLASS(NV01_MEMORY_SYSTEM, NV_MEMORY_ALLOCATION_PARAMS, .params = RM_PARAMS_REQUIRED, .parents = RM_FAM_DEVICE,
     .family = RM_FAM_MEMORY, .free_priority = P, .construct = sysmem_alloc_construct, .destruct = rm_memory_untrack),
    RM_CLASS(NV01_MEMORY_LOCAL_USER, NV_MEMORY_ALLOCATION_PARAMS, .params = RM_PARAMS_REQUIRED,
     .parents = RM_FAM_DEVICE | RM_FAM_SUBDEVICE, .family = RM_FAM_MEMORY, .free_priority = P,
     .construct = vidmem_construct, .destruct = rm_memory_untrack),
    RM_CLASS(NV01_MEMORY_VIRTUAL, NV_MEMORY_VIRTUAL_ALLOCATION_PARAMS, .params = RM_PARAMS_REQUIRED,
     .parents = RM_FAM_DEVICE, .family = RM_FAM_MEMORY, .free_priority = P),
    RM_CLASS(NV50_MEMORY_VIRTUAL, NV_MEMORY_ALLOCATION_PARAMS, .params = RM_PARAMS_REQUIRED, .parents = RM_FAM_DEVICE,
     .family = RM_FAM_MEMORY, .free_priority = P),
    /* created by NV_ESC_RM_ALLOC_MEMORY (NVOS02), which carries no param struct */
    RM_CLASS_NO_PARAMS(NV01_MEMORY_SYSTEM_OS_DESCRIPTOR, .parents = RM_FAM_DEVICE | RM_FAM_SUBDEVICE,
     .family = RM_FAM_MEMORY, .free_priority = P, .construct = sysmem_construct),

    USERMODE_ROW(VOLTA_USERMODE_A, .params = RM_PARAMS_NONE),
    USERMODE_ROW(TURING_USERMODE_A, .params = RM_PARAMS_NONE),
    USERMODE_ROW(AMPERE_USERMODE_A, .params = RM_PARAMS_NONE),
    USERMODE_ROW(HOPPER_USERMODE_A, .param_size = sizeof(NV_HOPPER_USERMODE_A_PARAMS),
                 .params = RM_PARAMS_OPTIONAL),
    USERMODE_ROW(BLACKWELL_USERMODE_A, .param_size = sizeof(NV_HOPPER_USERMODE_A_PARAMS),
                 .params = RM_PARAMS_OPTIONAL),

    EVENT_ROW(NV01_EVENT),
    EVENT_ROW(NV01_EVENT_OS_EVENT),
    EVENT_ROW(NV01_EVENT_KERNEL_CALLBACK),
    EVENT_ROW(NV01_EVENT_KERNEL_CALLBACK_EX),

    {.hclass = VOLTA_COMPUTE_A, .name = "VOLTA_COMPUTE_A", .param_size = sizeof(NV_GR_ALLOCATION_PARAMETERS),
     .params = RM_PARAMS_OPTIONAL, .parents = RM_FAM_CHANNEL, .family = RM_FAM_ENGINE_OBJ, .gpu_class = true,
     .proprietary_only = true, .free_priority = P, .construct = engine_object_construct},
    COMPUTE_ROW(TURING_COMPUTE_A),
    COMPUTE_ROW(AMPERE_COMPUTE_A),
    COMPUTE_ROW(AMPERE_COMPUTE_B),
    COMPUTE_ROW(ADA_COMPUTE_A),
    COMPUTE_ROW(HOPPER_COMPUTE_A),
    COMPUTE_ROW(BLACKWELL_COMPUTE_A),
    COMPUTE_ROW(BLACKWELL_COMPUTE_B),

    COPY_ROW(VOLTA_DMA_COPY_A),
    COPY_ROW(TURING_DMA_COPY_A),
    COPY_ROW(AMPERE_DMA_COPY_A),
    COPY_ROW(AMPERE_DMA_COPY_B),
    COPY_ROW(HOPPER_DMA_COPY_A),
    COPY_ROW(BLACKWELL_DMA_COPY_A),
    COPY_ROW(BLACKWELL_DMA_COPY_B),

    /* accepted without behaviour (libcuda allocates them during context creation) */
    RM_CLASS_NO_PARAMS(NV2081_BINAPI, .parents = RM_FAM_SUBDEVICE, .family = RM_FAM_OTHER, .free_priority = P),
    RM_CLASS_NO_PARAMS(GF100_SUBDEVICE_MASTER, .parents = RM_FAM_SUBDEVICE, .family = RM_FAM_OTHER,
     .free_priority = P),
    RM_CLASS(RM_USER_SHARED_DATA, NV00DE_ALLOC_PARAMETERS, .params = RM_PARAMS_OPTIONAL, .parents = RM_FAM_SUBDEVICE,
     .family = RM_FAM_OTHER, .free_priority = P, .construct = rusd_construct),
    RM_CLASS(NV50_P2P, NV503B_ALLOC_PARAMETERS, .params = RM_PARAMS_REQUIRED, .parents = RM_FAM_CLIENT,
     .family = RM_FAM_OTHER, .modelled = true, .free_priority = P, .construct = rm_p2p_construct),
    RM_CLASS(NV50_THIRD_PARTY_P2P, NV503C_ALLOC_PARAMETERS, .params = RM_PARAMS_OPTIONAL, .parents = RM_FAM_SUBDEVICE,
     .family = RM_FAM_OTHER, .free_priority = P),
    RM_CLASS(GT200_DEBUGGER, NV83DE_ALLOC_PARAMETERS, .params = RM_PARAMS_REQUIRED, .parents = RM_FAM_DEVICE,
     .family = RM_FAM_OTHER, .free_priority = P),
    RM_CLASS(NV_CONFIDENTIAL_COMPUTE, NV_CONFIDENTIAL_COMPUTE_ALLOC_PARAMS, .params = RM_PARAMS_OPTIONAL,
     .parents = RM_FAM_CLIENT, .family = RM_FAM_OTHER, .free_priority = P),

    /* monitoring and diagnostics (NVML, nvidia-smi, profilers): objects whose controls answer from the
     * profile's recorded data; no parameters. NV04_DISPLAY_COMMON is in no compute profile's class list,
     * so it answers NV_ERR_NOT_SUPPORTED as the driver does on a GPU without display. */
    ACCEPTED_ROW(AMPERE_SMC_CONFIG_SESSION, RM_FAM_CLIENT),
    ACCEPTED_ROW(AMPERE_SMC_MONITOR_SESSION, RM_FAM_CLIENT),
    ACCEPTED_ROW(GF100_SUBDEVICE_INFOROM, RM_FAM_SUBDEVICE),
    ACCEPTED_ROW(NV20_SUBDEVICE_DIAG, RM_FAM_SUBDEVICE),
    ACCEPTED_ROW(GF100_PROFILER, RM_FAM_SUBDEVICE),
    ACCEPTED_ROW(NV04_DISPLAY_COMMON, RM_FAM_DEVICE),
    {.name = NULL},
};
