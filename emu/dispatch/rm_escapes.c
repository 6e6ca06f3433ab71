/*
 * RM escapes (0x27..0x5F): RmIoctl's size and node rules (docs/driver-sources.md §A, B),
 * then the resource server. Once size and node are right the syscall returns
 * 0 and the NV_STATUS goes into the struct's status field.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "abi/nv_classes.h"
#include "base/log.h"
#include "dispatch/dispatch_internal.h"
#include "rm/rm_server.h"

static struct rm_call call_of(struct esc_ctx *x)
{
    struct rm_call c = {.rs = x->d->env.rs, .op = x->op, .acc = x->acc, .tid = x->tid};
    return c;
}

static bool is_event_class(uint32_t hclass)
{
    return hclass == NV01_EVENT || hclass == NV01_EVENT_OS_EVENT || hclass == NV01_EVENT_KERNEL_CALLBACK ||
           hclass == NV01_EVENT_KERNEL_CALLBACK_EX;
}

/* NV_ESC_RM_ALLOC: NVOS21 (32 bytes) or NVOS64 (48), told apart by size only. */
ESC_HANDLER(esc_alloc, void)
{
    if (x->size != sizeof(NVOS21_PARAMETERS) && x->size != sizeof(NVOS64_PARAMETERS))
        return -EINVAL;
    NVOS21_PARAMETERS *a = p; /* common prefix of NVOS21 and NVOS64 */
    if (x->op->node != NVEMU_NODE_CTL && !is_event_class(a->hClass))
        return -EINVAL;
    NV_STATUS *status = x->size == sizeof(NVOS21_PARAMETERS) ? &a->status
                                                             : &((NVOS64_PARAMETERS *)p)->status;
    struct rm_call c = call_of(x);
    struct rm_alloc_req req = {a->hRoot, a->hObjectParent, a->hObjectNew, a->hClass, a->pAllocParms, false};
    NV_STATUS st = NV_OK;
    if (x->size == sizeof(NVOS64_PARAMETERS)) {
        NVOS64_PARAMETERS *p64 = p;
        uint32_t rights;
        if (p64->pRightsRequested && x->acc->read(x->acc->ctx, p64->pRightsRequested, &rights, sizeof(rights)))
            st = NV_ERR_INVALID_ADDRESS;
    }
    if (st == NV_OK)
        st = rm_alloc(&c, &req);
    a->hClass = req.hclass;
    if (st == NV_OK)
        a->hObjectNew = req.hnew;
    *status = x->st = st;
    return 0;
}

ESC_HANDLER(esc_alloc_object, NVOS05_PARAMETERS)
{
    struct rm_call c = call_of(x);
    struct rm_alloc_req req = {p->hRoot, p->hObjectParent, p->hObjectNew, p->hClass, 0, false};
    NV_STATUS st = rm_alloc(&c, &req);
    p->hClass = req.hclass;
    if (st == NV_OK)
        p->hObjectNew = req.hnew;
    p->status = x->st = st;
    return 0;
}

ESC_HANDLER(esc_free, NVOS00_PARAMETERS)
{
    struct rm_call c = call_of(x);
    NV_STATUS st = rm_free(&c, p->hRoot, p->hObjectOld);
    if (st == NV_OK && p->hObjectOld == p->hRoot)
        rm_os_event_drop_client(x->d->env.rs, p->hRoot); /* RmIoctl frees them with the client */
    p->status = x->st = st;
    return 0;
}

ESC_HANDLER(esc_control, NVOS54_PARAMETERS)
{
    struct rm_call c = call_of(x);
    p->status = x->st = rm_control(&c, p, x->d->env.gpreempt_compat);
    return 0;
}

ESC_HANDLER(esc_dup, NVOS55_PARAMETERS)
{
    struct rm_call c = call_of(x);
    p->status = x->st = rm_dup(&c, p);
    return 0;
}

/*
 * NV_ESC_RM_ALLOC_MEMORY (NVOS02 on /dev/nvidiaN, libcuda: OS-descriptor
 * memory). Accepted without behaviour: the object is created so later frees
 * and maps find it; no memory is pinned; the struct is returned unchanged.
 */
ESC_HANDLER(esc_alloc_memory, nv_ioctl_nvos02_parameters_with_fd)
{
    NVOS02_PARAMETERS *a = &p->params;
    const struct rm_class_row *row = rm_class_lookup(a->hClass);
    NV_STATUS st;
    if (!row || row->family != RM_FAM_MEMORY) {
        st = NV_ERR_INVALID_CLASS;
    } else {
        struct rm_call c = call_of(x);
        struct rm_alloc_req req = {a->hRoot, a->hObjectParent, a->hObjectNew, a->hClass, 0, true};
        st = rm_alloc(&c, &req);
        if (st == NV_OK)
            a->hObjectNew = req.hnew;
    }
    a->status = x->st = st;
    return 0;
}

/* MAP/UNMAP/UPDATE_MAPPING: the device (or client/subdevice) and the memory must exist. */
static NV_STATUS check_mapping(struct esc_ctx *x, uint32_t hclient, uint32_t hdevice, uint32_t hmemory,
                               struct rm_object **mem)
{
    struct rm_call c = call_of(x);
    NV_STATUS st = rm_object_for_call(&c, hclient, hdevice, RM_FAM_CLIENT | RM_FAM_DEVICE | RM_FAM_SUBDEVICE,
                                      "mapping call", NULL);
    return st != NV_OK ? st : rm_object_for_call(&c, hclient, hmemory, RM_FAM_ANY, "mapping call", mem);
}

/* A CPU mapping address for MAP_MEMORY: deterministic, page aligned, never dereferenced. */
#define MAP_BASE 0x7E0000000000ull
#define MAP_ALIGN 0x200000ull

ESC_HANDLER(esc_map_memory, nv_ioctl_nvos33_parameters_with_fd)
{
    NVOS33_PARAMETERS *a = &p->params;
    struct rm_object *mem = NULL;
    NV_STATUS st = check_mapping(x, a->hClient, a->hDevice, a->hMemory, &mem);
    if (st == NV_OK) {
        /* the driver reports the caching and mapping kind it used */
        uint32_t map_flags = rm_object_map_flags(mem);
        if (map_flags)
            a->flags = (a->flags & ~NVOS33_FLAGS_CACHING_TYPE_MASK) | map_flags;
        uint64_t span = (a->length + MAP_ALIGN - 1) & ~(MAP_ALIGN - 1);
        a->pLinearAddress = MAP_BASE + x->d->map_cursor + (a->offset & (MAP_ALIGN - 1));
        x->d->map_cursor += span ? span : MAP_ALIGN;
    }
    a->status = x->st = st;
    return 0;
}

ESC_HANDLER(esc_unmap_memory, NVOS34_PARAMETERS)
{
    p->status = x->st = check_mapping(x, p->hClient, p->hDevice, p->hMemory, NULL);
    return 0;
}

ESC_HANDLER(esc_update_mapping, NVOS56_PARAMETERS)
{
    p->status = x->st = check_mapping(x, p->hClient, p->hDevice, p->hMemory, NULL);
    return 0;
}

/* No event is ever queued for an fd: get_os_event_data answers an empty queue with NV_ERR_OPERATING_SYSTEM. */
ESC_HANDLER(esc_get_event_data, NVOS41_PARAMETERS)
{
    p->MoreEvents = 0;
    p->status = x->st = NV_ERR_OPERATING_SYSTEM;
    return 0;
}

/*
 * RM_SHARE: the object must exist in a client the caller may use; the share policy is accepted but not
 * enforced (DUP_OBJECT does not consult policies), so the answer is the lookup's status.
 */
ESC_HANDLER(esc_share, NVOS57_PARAMETERS)
{
    struct rm_call c = call_of(x);
    p->status = x->st = rm_object_for_call(&c, p->hClient, p->hObject, RM_FAM_ANY, "mapping call", NULL);
    return 0;
}

/* LOCKLESS_DIAGNOSTIC returns its own failure (CAP_SYS_ADMIN only; not modelled for admins either). */
ESC_HANDLER(esc_lockless_diag, void)
{
    LOG_INFO("dispatch", "LOCKLESS_DIAGNOSTIC is not modelled");
    x->st = (rm_caller_caps(x->acc, x->op) & NVEMU_CAP_SYS_ADMIN) ? NV_ERR_NOT_SUPPORTED : NV_ERR_INSUFFICIENT_PERMISSIONS;
    return -EINVAL;
}

/*
 * NV_ESC_RM_ALLOC's node rule depends on the class and its size is one of two, so esc_alloc checks both.
 * Unmodelled escapes answer NV_ERR_NOT_SUPPORTED in their status field.
 */
const struct esc_row esc_rows_rm[] = {
    ESC_ROW(NV_ESC_RM_ALLOC_MEMORY, nv_ioctl_nvos02_parameters_with_fd, ESC_DEV, esc_alloc_memory),
    ESC_ROW(NV_ESC_RM_ALLOC_OBJECT, NVOS05_PARAMETERS, ESC_CTL, esc_alloc_object),
    ESC_ROW(NV_ESC_RM_FREE, NVOS00_PARAMETERS, ESC_CTL, esc_free),
    ESC_ROW(NV_ESC_RM_CONTROL, NVOS54_PARAMETERS, ESC_CTL, esc_control),
    ESC_ROW_BYTES(NV_ESC_RM_ALLOC, 0, ESC_ANY, esc_alloc),
    ESC_ROW(NV_ESC_RM_DUP_OBJECT, NVOS55_PARAMETERS, ESC_CTL, esc_dup),
    ESC_ROW(NV_ESC_RM_SHARE, NVOS57_PARAMETERS, ESC_CTL, esc_share),
    ESC_ROW_UNSUPPORTED(NV_ESC_RM_I2C_ACCESS, NVOS_I2C_ACCESS_PARAMS, status, ESC_DEV),
    ESC_ROW_UNSUPPORTED(NV_ESC_RM_IDLE_CHANNELS, NVOS30_PARAMETERS, status, ESC_CTL),
    ESC_ROW_UNSUPPORTED(NV_ESC_RM_VID_HEAP_CONTROL, NVOS32_PARAMETERS, hdr.status, ESC_CTL),
    ESC_ROW_UNSUPPORTED(NV_ESC_RM_ACCESS_REGISTRY, NVOS38_PARAMETERS, status, ESC_CTL),
    ESC_ROW(NV_ESC_RM_MAP_MEMORY, nv_ioctl_nvos33_parameters_with_fd, ESC_CTL, esc_map_memory),
    ESC_ROW(NV_ESC_RM_UNMAP_MEMORY, NVOS34_PARAMETERS, ESC_CTL, esc_unmap_memory),
    ESC_ROW(NV_ESC_RM_GET_EVENT_DATA, NVOS41_PARAMETERS, ESC_ANY, esc_get_event_data),
    ESC_ROW_UNSUPPORTED(NV_ESC_RM_ALLOC_CONTEXT_DMA2, NVOS39_PARAMETERS, status, ESC_CTL),
    ESC_ROW_UNSUPPORTED(NV_ESC_RM_MAP_MEMORY_DMA, NVOS46_PARAMETERS, status, ESC_CTL),
    ESC_ROW_UNSUPPORTED(NV_ESC_RM_UNMAP_MEMORY_DMA, NVOS47_PARAMETERS, status, ESC_CTL),
    ESC_ROW_UNSUPPORTED(NV_ESC_RM_BIND_CONTEXT_DMA, NVOS49_PARAMETERS, status, ESC_CTL),
    ESC_ROW(NV_ESC_RM_UPDATE_DEVICE_MAPPING_INFO, NVOS56_PARAMETERS, ESC_CTL, esc_update_mapping),
    ESC_ROW_BYTES(NV_ESC_RM_LOCKLESS_DIAGNOSTIC, 0, ESC_CTL, esc_lockless_diag),
    /* GPreempt's patched driver only; the stock driver answers -EINVAL */
    ESC_ROW(NV_ESC_RM_QUERY_GROUP, NVOS54_PARAMETERS, ESC_ANY, esc_query_group, .gpreempt_only = true),
    {.name = NULL},
};
