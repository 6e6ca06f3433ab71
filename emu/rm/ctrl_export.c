/*
 * NV0000 OS_UNIX export and import of RM objects through a file descriptor of /dev/nvidiactl: one client
 * exports objects into an nvidiactl file, the file travels to another process (SCM_RIGHTS, fork), and that
 * process's client imports them, getting its own handles to the same objects. NCCL shares its buffers
 * between ranks this way (cuMemExportToShareableHandle with POSIX fds), and so do CUDA's shareable memory
 * pools. Semantics and the order of checks: open-gpu-kernel-modules 580.x,
 * src/nvidia/arch/nvalloc/unix/src/os.c (cliresCtrlCmdOsUnix*_IMPL, _initializeExportObjectFd) and
 * rmobjexportimport.c (RmExportObject, RmImportObject); docs/replay-two-gpu.md.
 *
 * The file's export state (the driver's nv_file_private_t handles, maxHandles, deviceInstance,
 * gpuInstanceId, metadata) lives on the opener. The driver dups each exported object into an RM-internal
 * client, so the object outlives its exporter's handle; here an export entry names the original object by
 * (client, handle) and an import dups that object: once the exporter has freed it, an import answers
 * NV_ERR_INVALID_ARGUMENT, as for an export handle the driver does not know (a documented deviation).
 */
#include <stdlib.h>
#include <string.h>

#include "abi/nv_alloc.h"
#include "abi/nv_classes.h"
#include "abi/nv_ctrl_unix.h"
#include "base/log.h"
#include "rm/gpu.h"
#include "rm/opener.h"
#include "rm/rm_internal.h"

/* No MIG partition: the driver's NV_U32_MAX. */
#define EXPORT_NO_GPU_INSTANCE 0xFFFFFFFFu

struct rm_export_ref {
    uint32_t hclient, hobject;   /* the exported object's original; hclient 0: an empty slot */
};

struct rm_export_fd {
    uint32_t max;
    uint32_t device_instance;    /* NV0080_MAX_DEVICES when set up without a device */
    uint32_t gpu_instance_id;
    uint8_t metadata[NV0000_OS_UNIX_EXPORT_OBJECT_FD_BUFFER_SIZE];
    struct rm_export_ref refs[];
};

/* nv_get_file_private(fd, NV_TRUE): the caller's fd must be an nvidiactl file, else NULL. */
static nvemu_opener *export_file(struct rm_call *c, int32_t fd)
{
    nvemu_opener *f = c->acc && c->acc->resolve_fd ? c->acc->resolve_fd(c->acc->ctx, fd) : NULL;
    if (!f || f->node != NVEMU_NODE_CTL) {
        LOG_DEBUG("rm", "OS_UNIX export/import: fd %d is not an nvidiactl file of the caller", fd);
        return NULL;
    }
    return f;
}

/* The device instance an object belongs to (its NV01_DEVICE_0 ancestor's deviceId), else NV0080_MAX_DEVICES. */
static uint32_t device_instance(struct rm_object *o)
{
    for (; o; o = rm_object_parent(o))
        if (rm_object_family(o) == RM_FAM_DEVICE && rm_object_gpu(o))
            return rm_object_gpu(o)->index;
    return NV0080_MAX_DEVICES;
}

/* _initializeExportObjectFd: a file is set up once; hDevice (optional) fixes its device instance. */
static NV_STATUS export_setup(struct rm_call *c, nvemu_opener *f, uint32_t hdevice, uint16_t max,
                              const uint8_t *metadata)
{
    if (f->exported)
        return NV_ERR_STATE_IN_USE;
    uint32_t inst = NV0080_MAX_DEVICES;
    if (hdevice != 0) {
        struct rm_object *dev = rm_client_find(c->client, hdevice);
        if (!dev)
            return NV_ERR_OBJECT_NOT_FOUND;
        if (rm_object_family(dev) != RM_FAM_DEVICE)
            return NV_ERR_INVALID_PARAMETER;
        inst = device_instance(dev);
    }
    struct rm_export_fd *e = calloc(1, sizeof(*e) + (size_t)max * sizeof(e->refs[0]));
    if (!e)
        return NV_ERR_NO_MEMORY;
    e->max = max;
    e->device_instance = inst;
    e->gpu_instance_id = EXPORT_NO_GPU_INSTANCE;
    if (metadata)
        memcpy(e->metadata, metadata, sizeof(e->metadata));
    f->exported = e;
    return NV_OK;
}

static void export_teardown(nvemu_opener *f)
{
    free(f->exported);
    f->exported = NULL;
}

/* RmExportObject: the caller's object, named for a later import; its device instance for the file check. */
static NV_STATUS export_object(struct rm_call *c, uint32_t hobject, struct rm_export_ref *ref, uint32_t *inst)
{
    struct rm_object *o = hobject == rm_client_handle(c->client) ? NULL : rm_client_find(c->client, hobject);
    if (!o)
        return NV_ERR_OBJECT_NOT_FOUND;
    *inst = device_instance(o);
    ref->hclient = rm_client_handle(c->client);
    ref->hobject = hobject;
    return NV_OK;
}

/* The object an export entry names, or NULL once it is gone (then the driver's unknown-handle answer). */
static struct rm_object *export_source(struct rm_call *c, const struct rm_export_ref *ref)
{
    struct rm_client *cl = rm_client_by_handle(c->rs, ref->hclient);
    struct rm_object *o = cl ? rm_client_find(cl, ref->hobject) : NULL;
    if (!o)
        LOG_INFO("rm", "OS_UNIX import: object 0x%08x of client 0x%08x was freed by its exporter (the driver keeps "
                       "exported objects alive; not modelled)", ref->hobject, ref->hclient);
    return o;
}

/* RmImportObject's object type: the import's address space (GET_ADDR_SPACE_TYPE of the exported object). */
static NV_STATUS import_type(struct rm_object *o, uint8_t *type)
{
    switch (rm_object_class(o)) {
    case NV01_MEMORY_LOCAL_USER:
        *type = NV0000_CTRL_CMD_OS_UNIX_IMPORT_OBJECT_TYPE_VIDMEM;
        return NV_OK;
    case NV01_MEMORY_SYSTEM:
        *type = NV0000_CTRL_CMD_OS_UNIX_IMPORT_OBJECT_TYPE_SYSMEM;
        return NV_OK;
    case NV_MEMORY_FABRIC:
        *type = NV0000_CTRL_CMD_OS_UNIX_IMPORT_OBJECT_TYPE_FABRIC;
        return NV_OK;
    default:
        return NV_ERR_INVALID_ARGUMENT;
    }
}

/* RmImportObject: a duplicate of the exported object in the caller's client under hparent. */
static NV_STATUS import_object(struct rm_call *c, const struct rm_export_ref *ref, uint32_t hparent,
                               uint32_t *hobject, uint8_t *type)
{
    struct rm_object *so = ref->hclient ? export_source(c, ref) : NULL;
    if (!so)
        return NV_ERR_INVALID_ARGUMENT;
    NV_STATUS st;
    if (type && (st = import_type(so, type)) != NV_OK)
        return st;
    return rm_dup_into(c, c->client, hparent, hobject, so);
}

RM_CTRL_HANDLER(ctrl_export_object_to_fd, NV0000_CTRL_OS_UNIX_EXPORT_OBJECT_TO_FD_PARAMS)
{
    if (p->flags & NV0000_CTRL_OS_UNIX_EXPORT_OBJECT_TO_FD_FLAGS_EMPTY_FD)
        return NV_ERR_INVALID_PARAMETER;
    if (p->object.type != NV0000_CTRL_OS_UNIX_EXPORT_OBJECT_TYPE_RM || p->fd == -1)
        return NV_ERR_INVALID_PARAMETER;
    struct rm_export_ref ref;
    uint32_t inst;
    NV_STATUS st = export_object(c, p->object.hObject, &ref, &inst);
    if (st != NV_OK)
        return st;
    nvemu_opener *f = export_file(c, p->fd);
    if (!f)
        return NV_ERR_INVALID_PARAMETER;
    if ((st = export_setup(c, f, p->object.hDevice, 1, NULL)) != NV_OK)
        return st;
    f->exported->refs[0] = ref;
    return NV_OK;
}

RM_CTRL_HANDLER(ctrl_import_object_from_fd, NV0000_CTRL_OS_UNIX_IMPORT_OBJECT_FROM_FD_PARAMS)
{
    if (p->object.type != NV0000_CTRL_OS_UNIX_EXPORT_OBJECT_TYPE_RM || p->fd == -1)
        return NV_ERR_INVALID_PARAMETER;
    nvemu_opener *f = export_file(c, p->fd);
    if (!f || !f->exported || f->exported->max < 1 || !f->exported->refs[0].hclient)
        return NV_ERR_INVALID_PARAMETER;
    return import_object(c, &f->exported->refs[0], p->object.hParent, &p->object.hObject, NULL);
}

RM_CTRL_HANDLER(ctrl_get_export_object_info, NV0000_CTRL_OS_UNIX_GET_EXPORT_OBJECT_INFO_PARAMS)
{
    if (p->fd < 0)
        return NV_ERR_INVALID_PARAMETER;
    nvemu_opener *f = export_file(c, p->fd);
    if (!f || !f->exported)
        return NV_ERR_INVALID_PARAMETER;
    p->maxObjects = (uint16_t)f->exported->max;
    p->deviceInstance = f->exported->device_instance;
    p->gpuInstanceId = f->exported->gpu_instance_id;
    memcpy(p->metadata, f->exported->metadata, sizeof(p->metadata));
    return NV_OK;
}

/* Deprecated by the driver in favour of EXPORT_OBJECTS_TO_FD, still served. */
RM_CTRL_HANDLER(ctrl_create_export_object_fd, NV0000_CTRL_OS_UNIX_CREATE_EXPORT_OBJECT_FD_PARAMS)
{
    if (p->maxObjects == 0)
        return NV_ERR_INVALID_PARAMETER;
    nvemu_opener *f = export_file(c, p->fd);
    if (!f)
        return NV_ERR_INVALID_PARAMETER;
    return export_setup(c, f, p->hDevice, p->maxObjects, p->metadata);
}

RM_CTRL_HANDLER(ctrl_export_objects_to_fd, NV0000_CTRL_OS_UNIX_EXPORT_OBJECTS_TO_FD_PARAMS)
{
    nvemu_opener *f = export_file(c, p->fd);
    if (!f)
        return NV_ERR_INVALID_PARAMETER;
    bool set_up_here = false;
    NV_STATUS st;
    if (!f->exported) {
        if (p->maxObjects == 0)
            return NV_ERR_INVALID_PARAMETER;
        if ((st = export_setup(c, f, p->hDevice, p->maxObjects, p->metadata)) != NV_OK)
            return st;
        set_up_here = true;
    }
    struct rm_export_fd *e = f->exported;
    struct rm_export_ref refs[NV0000_CTRL_OS_UNIX_EXPORT_OBJECTS_TO_FD_MAX_OBJECTS];
    if (p->numObjects > NV0000_CTRL_OS_UNIX_EXPORT_OBJECTS_TO_FD_MAX_OBJECTS) {
        st = NV_ERR_INVALID_PARAMETER;
    } else if ((uint32_t)p->numObjects + p->index > e->max) {
        st = NV_ERR_OUT_OF_RANGE;
    } else {
        st = NV_OK;
        memset(refs, 0, sizeof(refs[0]) * p->numObjects);
        for (uint32_t i = 0; i < p->numObjects && st == NV_OK; i++) {
            uint32_t inst;
            if (p->objects[i] == 0)
                continue;
            if ((st = export_object(c, p->objects[i], &refs[i], &inst)) == NV_OK && inst != e->device_instance)
                st = NV_ERR_INVALID_PARAMETER;
        }
    }
    if (st != NV_OK) {
        if (set_up_here)
            export_teardown(f);
        return st;
    }
    memcpy(&e->refs[p->index], refs, sizeof(refs[0]) * p->numObjects);
    return NV_OK;
}

RM_CTRL_HANDLER(ctrl_import_objects_from_fd, NV0000_CTRL_OS_UNIX_IMPORT_OBJECTS_FROM_FD_PARAMS)
{
    nvemu_opener *f = export_file(c, p->fd);
    if (!f || !f->exported || p->numObjects > NV0000_CTRL_OS_UNIX_IMPORT_OBJECTS_TO_FD_MAX_OBJECTS)
        return NV_ERR_INVALID_PARAMETER;
    if ((uint32_t)p->numObjects + p->index > f->exported->max)
        return NV_ERR_OUT_OF_RANGE;
    NV_STATUS st = NV_OK;
    uint32_t i;
    for (i = 0; i < p->numObjects; i++) {
        const struct rm_export_ref *ref = &f->exported->refs[p->index + i];
        if (!ref->hclient) {
            p->objectTypes[i] = NV0000_CTRL_CMD_OS_UNIX_IMPORT_OBJECT_TYPE_NONE;
            continue;
        }
        if ((st = import_object(c, ref, p->hParent, &p->objects[i], &p->objectTypes[i])) != NV_OK)
            break;
    }
    /* as the driver: what this call imported before the failure is freed again */
    while (st != NV_OK && i > 0) {
        struct rm_object *o = p->objects[--i] ? rm_client_find(c->client, p->objects[i]) : NULL;
        if (o && f->exported->refs[p->index + i].hclient)
            rm_object_free_tree(c, o);
    }
    return st;
}

#define NP RM_PRIV_USER
#define CLI RM_FAM_CLIENT

/* Every row is NON_PRIVILEGED on the client (g_client_resource_nvoc.c's export table, 580.x). */
const struct rm_ctrl_row rm_ctrl_rows_export[] = {
    RM_CTRL(NV0000_CTRL_CMD_OS_UNIX_EXPORT_OBJECT_TO_FD, NV0000_CTRL_OS_UNIX_EXPORT_OBJECT_TO_FD_PARAMS, CLI, NP,
            ctrl_export_object_to_fd),
    RM_CTRL(NV0000_CTRL_CMD_OS_UNIX_IMPORT_OBJECT_FROM_FD, NV0000_CTRL_OS_UNIX_IMPORT_OBJECT_FROM_FD_PARAMS, CLI, NP,
            ctrl_import_object_from_fd),
    RM_CTRL(NV0000_CTRL_CMD_OS_UNIX_GET_EXPORT_OBJECT_INFO, NV0000_CTRL_OS_UNIX_GET_EXPORT_OBJECT_INFO_PARAMS, CLI,
            NP, ctrl_get_export_object_info),
    RM_CTRL(NV0000_CTRL_CMD_OS_UNIX_CREATE_EXPORT_OBJECT_FD, NV0000_CTRL_OS_UNIX_CREATE_EXPORT_OBJECT_FD_PARAMS, CLI,
            NP, ctrl_create_export_object_fd),
    RM_CTRL(NV0000_CTRL_CMD_OS_UNIX_EXPORT_OBJECTS_TO_FD, NV0000_CTRL_OS_UNIX_EXPORT_OBJECTS_TO_FD_PARAMS, CLI, NP,
            ctrl_export_objects_to_fd),
    RM_CTRL(NV0000_CTRL_CMD_OS_UNIX_IMPORT_OBJECTS_FROM_FD, NV0000_CTRL_OS_UNIX_IMPORT_OBJECTS_FROM_FD_PARAMS, CLI,
            NP, ctrl_import_objects_from_fd),
    {.name = NULL},
};
