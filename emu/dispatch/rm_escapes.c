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
static int esc_alloc(struct esc_ctx *x)
{
    if (x->size != sizeof(NVOS21_PARAMETERS) && x->size != sizeof(NVOS64_PARAMETERS))
        return -EINVAL;
    NVOS21_PARAMETERS *p = x->arg; /* common prefix of NVOS21 and NVOS64 */
    if (x->op->node != NVEMU_NODE_CTL && !is_event_class(p->hClass))
        return -EINVAL;
    NV_STATUS *status = x->size == sizeof(NVOS21_PARAMETERS) ? &p->status
                                                             : &((NVOS64_PARAMETERS *)x->arg)->status;
    struct rm_call c = call_of(x);
    struct rm_alloc_req req = {p->hRoot, p->hObjectParent, p->hObjectNew, p->hClass, p->pAllocParms, false};
    NV_STATUS st = NV_OK;
    if (x->size == sizeof(NVOS64_PARAMETERS)) {
        NVOS64_PARAMETERS *p64 = x->arg;
        uint32_t rights;
        if (p64->pRightsRequested && x->acc->read(x->acc->ctx, p64->pRightsRequested, &rights, sizeof(rights)))
            st = NV_ERR_INVALID_ADDRESS;
    }
    if (st == NV_OK)
        st = rm_alloc(&c, &req);
    p->hClass = req.hclass;
    if (st == NV_OK)
        p->hObjectNew = req.hnew;
    *status = x->st = st;
    return 0;
}

static int esc_alloc_object(struct esc_ctx *x)
{
    NVOS05_PARAMETERS *p = x->arg;
    struct rm_call c = call_of(x);
    struct rm_alloc_req req = {p->hRoot, p->hObjectParent, p->hObjectNew, p->hClass, 0, false};
    NV_STATUS st = rm_alloc(&c, &req);
    p->hClass = req.hclass;
    if (st == NV_OK)
        p->hObjectNew = req.hnew;
    p->status = x->st = st;
    return 0;
}

static int esc_free(struct esc_ctx *x)
{
    NVOS00_PARAMETERS *p = x->arg;
    struct rm_call c = call_of(x);
    NV_STATUS st = rm_free(&c, p->hRoot, p->hObjectOld);
    if (st == NV_OK && p->hObjectOld == p->hRoot)
        rm_os_event_drop_client(x->d->env.rs, p->hRoot); /* RmIoctl frees them with the client */
    p->status = x->st = st;
    return 0;
}

static int esc_control(struct esc_ctx *x)
{
    NVOS54_PARAMETERS *p = x->arg;
    struct rm_call c = call_of(x);
    p->status = x->st = rm_control(&c, p, x->d->env.gpreempt_compat);
    return 0;
}

static int esc_dup(struct esc_ctx *x)
{
    NVOS55_PARAMETERS *p = x->arg;
    struct rm_call c = call_of(x);
    p->status = x->st = rm_dup(&c, p);
    return 0;
}

/*
 * NV_ESC_RM_ALLOC_MEMORY (NVOS02 on /dev/nvidiaN, libcuda: OS-descriptor
 * memory). Accepted without behaviour: the object is created so later frees
 * and maps find it; no memory is pinned; the struct is returned unchanged.
 */
static int esc_alloc_memory(struct esc_ctx *x)
{
    nv_ioctl_nvos02_parameters_with_fd *w = x->arg;
    NVOS02_PARAMETERS *p = &w->params;
    const struct rm_class_row *row = rm_class_lookup(p->hClass);
    NV_STATUS st;
    if (!row || row->family != RM_FAM_MEMORY) {
        st = NV_ERR_INVALID_CLASS;
    } else {
        struct rm_call c = call_of(x);
        struct rm_alloc_req req = {p->hRoot, p->hObjectParent, p->hObjectNew, p->hClass, 0, true};
        st = rm_alloc(&c, &req);
        if (st == NV_OK)
            p->hObjectNew = req.hnew;
    }
    p->status = x->st = st;
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

static int esc_map_memory(struct esc_ctx *x)
{
    nv_ioctl_nvos33_parameters_with_fd *w = x->arg;
    NVOS33_PARAMETERS *p = &w->params;
    struct rm_object *mem = NULL;
    NV_STATUS st = check_mapping(x, p->hClient, p->hDevice, p->hMemory, &mem);
    if (st == NV_OK) {
        /* the driver reports the caching and mapping kind it used */
        uint32_t map_flags = rm_object_map_flags(mem);
        if (map_flags)
            p->flags = (p->flags & ~NVOS33_FLAGS_CACHING_TYPE_MASK) | map_flags;
        uint64_t span = (p->length + MAP_ALIGN - 1) & ~(MAP_ALIGN - 1);
        p->pLinearAddress = MAP_BASE + x->d->map_cursor + (p->offset & (MAP_ALIGN - 1));
        x->d->map_cursor += span ? span : MAP_ALIGN;
    }
    p->status = x->st = st;
    return 0;
}

static int esc_unmap_memory(struct esc_ctx *x)
{
    NVOS34_PARAMETERS *p = x->arg;
    p->status = x->st = check_mapping(x, p->hClient, p->hDevice, p->hMemory, NULL);
    return 0;
}

static int esc_update_mapping(struct esc_ctx *x)
{
    NVOS56_PARAMETERS *p = x->arg;
    p->status = x->st = check_mapping(x, p->hClient, p->hDevice, p->hMemory, NULL);
    return 0;
}

/* No event is ever queued for an fd: get_os_event_data answers an empty queue with NV_ERR_OPERATING_SYSTEM. */
static int esc_get_event_data(struct esc_ctx *x)
{
    NVOS41_PARAMETERS *p = x->arg;
    p->MoreEvents = 0;
    p->status = x->st = NV_ERR_OPERATING_SYSTEM;
    return 0;
}

/*
 * RM_SHARE: the object must exist in a client the caller may use; the share policy is accepted but not
 * enforced (DUP_OBJECT does not consult policies), so the answer is the lookup's status.
 */
static int esc_share(struct esc_ctx *x)
{
    NVOS57_PARAMETERS *p = x->arg;
    struct rm_call c = call_of(x);
    p->status = x->st = rm_object_for_call(&c, p->hClient, p->hObject, RM_FAM_ANY, "mapping call", NULL);
    return 0;
}

/* Escapes the emulator does not model: status NV_ERR_NOT_SUPPORTED at the struct's status offset. */
struct unsupported_row {
    uint32_t nr;
    uint32_t status_offset;
};
static const struct unsupported_row unsupported_rows[] = {
    {NV_ESC_RM_I2C_ACCESS, offsetof(NVOS_I2C_ACCESS_PARAMS, status)},
    {NV_ESC_RM_IDLE_CHANNELS, offsetof(NVOS30_PARAMETERS, status)},
    {NV_ESC_RM_VID_HEAP_CONTROL, offsetof(NVOS32_HEADER, status)},
    {NV_ESC_RM_ACCESS_REGISTRY, offsetof(NVOS38_PARAMETERS, status)},
    {NV_ESC_RM_ALLOC_CONTEXT_DMA2, offsetof(NVOS39_PARAMETERS, status)},
    {NV_ESC_RM_MAP_MEMORY_DMA, offsetof(NVOS46_PARAMETERS, status)},
    {NV_ESC_RM_UNMAP_MEMORY_DMA, offsetof(NVOS47_PARAMETERS, status)},
    {NV_ESC_RM_BIND_CONTEXT_DMA, offsetof(NVOS49_PARAMETERS, status)},
};

static int esc_unsupported(struct esc_ctx *x)
{
    for (size_t i = 0; i < sizeof(unsupported_rows) / sizeof(unsupported_rows[0]); i++)
        if (unsupported_rows[i].nr == x->nr) {
            NV_STATUS st = NV_ERR_NOT_SUPPORTED;
            memcpy((unsigned char *)x->arg + unsupported_rows[i].status_offset, &st, sizeof(st));
            x->st = st;
            LOG_INFO("dispatch", "RM escape 0x%02x is not modelled: NV_ERR_NOT_SUPPORTED", x->nr);
            return 0;
        }
    return -EINVAL;
}

/* LOCKLESS_DIAGNOSTIC returns its own failure (CAP_SYS_ADMIN only; not modelled for admins either). */
static int esc_lockless_diag(struct esc_ctx *x)
{
    LOG_INFO("dispatch", "LOCKLESS_DIAGNOSTIC is not modelled");
    x->st = (rm_caller_caps(x->acc, x->op) & NVEMU_CAP_SYS_ADMIN) ? NV_ERR_NOT_SUPPORTED : NV_ERR_INSUFFICIENT_PERMISSIONS;
    return -EINVAL;
}

/* NV_ESC_RM_ALLOC's node rule depends on the class, so it is ESC_ANY here and checked in esc_alloc. */
const struct esc_row esc_rows_rm[] = {
    {NV_ESC_RM_ALLOC_MEMORY, "RM_ALLOC_MEMORY", sizeof(nv_ioctl_nvos02_parameters_with_fd), ESC_DEV,
     esc_alloc_memory},
    {NV_ESC_RM_ALLOC_OBJECT, "RM_ALLOC_OBJECT", sizeof(NVOS05_PARAMETERS), ESC_CTL, esc_alloc_object},
    {NV_ESC_RM_FREE, "RM_FREE", sizeof(NVOS00_PARAMETERS), ESC_CTL, esc_free},
    {NV_ESC_RM_CONTROL, "RM_CONTROL", sizeof(NVOS54_PARAMETERS), ESC_CTL, esc_control},
    {NV_ESC_RM_ALLOC, "RM_ALLOC", 0, ESC_ANY, esc_alloc},
    {NV_ESC_RM_DUP_OBJECT, "RM_DUP_OBJECT", sizeof(NVOS55_PARAMETERS), ESC_CTL, esc_dup},
    {NV_ESC_RM_SHARE, "RM_SHARE", sizeof(NVOS57_PARAMETERS), ESC_CTL, esc_share},
    {NV_ESC_RM_I2C_ACCESS, "RM_I2C_ACCESS", sizeof(NVOS_I2C_ACCESS_PARAMS), ESC_DEV, esc_unsupported},
    {NV_ESC_RM_IDLE_CHANNELS, "RM_IDLE_CHANNELS", sizeof(NVOS30_PARAMETERS), ESC_CTL, esc_unsupported},
    {NV_ESC_RM_VID_HEAP_CONTROL, "RM_VID_HEAP_CONTROL", sizeof(NVOS32_PARAMETERS), ESC_CTL, esc_unsupported},
    {NV_ESC_RM_ACCESS_REGISTRY, "RM_ACCESS_REGISTRY", sizeof(NVOS38_PARAMETERS), ESC_CTL, esc_unsupported},
    {NV_ESC_RM_MAP_MEMORY, "RM_MAP_MEMORY", sizeof(nv_ioctl_nvos33_parameters_with_fd), ESC_CTL, esc_map_memory},
    {NV_ESC_RM_UNMAP_MEMORY, "RM_UNMAP_MEMORY", sizeof(NVOS34_PARAMETERS), ESC_CTL, esc_unmap_memory},
    {NV_ESC_RM_GET_EVENT_DATA, "RM_GET_EVENT_DATA", sizeof(NVOS41_PARAMETERS), ESC_ANY, esc_get_event_data},
    {NV_ESC_RM_ALLOC_CONTEXT_DMA2, "RM_ALLOC_CONTEXT_DMA2", sizeof(NVOS39_PARAMETERS), ESC_CTL, esc_unsupported},
    {NV_ESC_RM_MAP_MEMORY_DMA, "RM_MAP_MEMORY_DMA", sizeof(NVOS46_PARAMETERS), ESC_CTL, esc_unsupported},
    {NV_ESC_RM_UNMAP_MEMORY_DMA, "RM_UNMAP_MEMORY_DMA", sizeof(NVOS47_PARAMETERS), ESC_CTL, esc_unsupported},
    {NV_ESC_RM_BIND_CONTEXT_DMA, "RM_BIND_CONTEXT_DMA", sizeof(NVOS49_PARAMETERS), ESC_CTL, esc_unsupported},
    {NV_ESC_RM_UPDATE_DEVICE_MAPPING_INFO, "RM_UPDATE_DEVICE_MAPPING_INFO", sizeof(NVOS56_PARAMETERS), ESC_CTL,
     esc_update_mapping},
    {NV_ESC_RM_LOCKLESS_DIAGNOSTIC, "RM_LOCKLESS_DIAGNOSTIC", 0, ESC_CTL, esc_lockless_diag},
    {0, NULL, 0, 0, NULL},
};
