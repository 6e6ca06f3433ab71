/*
 * OS-layer escapes (NV_IOCTL_BASE 200+): their sizes, nodes and failure rules
 * follow nvidia_ioctl (docs/driver-sources.md §A, B, C). Values come from the profile.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "dispatch/dispatch_internal.h"
#include "profile/profile.h"
#include "rm/gpu.h"
#include "rm/rm_server.h"

ESC_HANDLER(card_info, void)
{
    struct rm_server *rs = x->d->env.rs;
    uint32_t entries = x->size / sizeof(nv_ioctl_card_info_t);
    if (entries < rm_gpu_count(rs))
        return -EINVAL;
    memset(p, 0, x->size);
    const struct profile *prof = x->d->env.profile;
    for (uint32_t i = 0; i < rm_gpu_count(rs); i++) {
        nv_ioctl_card_info_t e;
        memset(&e, 0, sizeof(e));
        struct gpu *g = rm_gpu(rs, i);
        e.valid = 1;
        e.pci_info.domain = prof->pci_domain;
        e.pci_info.bus = (uint8_t)g->pci_bus;
        e.pci_info.slot = (uint8_t)g->pci_slot;
        e.pci_info.function = (uint8_t)prof->pci_function;
        e.pci_info.vendor_id = prof->pci_vendor_id;
        e.pci_info.device_id = prof->pci_device_id;
        e.gpu_id = g->gpu_id;
        e.interrupt_line = prof->interrupt_line;
        e.reg_address = g->bar0_address;
        e.reg_size = prof->bar0_size;
        e.fb_address = g->fb_address;
        e.fb_size = prof->fb_size;
        e.minor_number = g->index;
        memcpy((unsigned char *)p + i * sizeof(e), &e, sizeof(e));
    }
    return 0;
}

/* REGISTER_FD: every failure is the syscall's -EINVAL (docs/driver-sources.md §B). */
ESC_HANDLER(register_fd, nv_ioctl_register_fd_t)
{
    nvemu_opener *op = x->op;
    nvemu_opener *ctl = x->acc->resolve_fd ? x->acc->resolve_fd(x->acc->ctx, p->ctl_fd) : NULL;
    const char *why = NULL;
    if (op->ctl)
        why = "fd already registered";
    else if (!ctl || ctl->node != NVEMU_NODE_CTL)
        why = "ctl_fd is not an nvidiactl fd";
    else if (ctl == op)
        why = "ctl_fd is this fd";
    else if (ctl->ctl)
        why = "ctl_fd is itself registered";
    else if (op->gpus_attached)
        why = "fd already holds GPU references";
    if (why) {
        LOG_DEBUG("dispatch", "REGISTER_FD(%d): %s", p->ctl_fd, why);
        x->st = NV_ERR_INVALID_STATE;
        return -EINVAL;
    }
    op->ctl = ctl;
    ctl->linked++;
    return 0;
}

/* The (hClient, fd) pair is unique machine-wide; an entry belongs to the fd that registered it. */
ESC_HANDLER(alloc_os_event, nv_ioctl_alloc_os_event_t)
{
    if (rm_os_event_find(x->d->env.rs, p->hClient, p->fd) ||
        !rm_os_event_add(x->d->env.rs, x->op, p->hClient, p->hDevice, p->fd)) {
        p->Status = x->st = NV_ERR_INSUFFICIENT_RESOURCES;
        return 0;
    }
    p->Status = NV_OK;
    return 0;
}

/* FREE_OS_EVENT finds the pair from any fd (the stock driver's one list). */
ESC_HANDLER(free_os_event, nv_ioctl_free_os_event_t)
{
    struct os_event *e = rm_os_event_find(x->d->env.rs, p->hClient, p->fd);
    if (!e) {
        p->Status = x->st = NV_ERR_INVALID_EVENT;
        return 0;
    }
    rm_os_event_remove(x->d->env.rs, e);
    p->Status = NV_OK;
    return 0;
}

ESC_HANDLER(status_code, nv_ioctl_status_code_t)
{
    const struct profile *prof = x->d->env.profile;
    for (uint32_t i = 0; i < rm_gpu_count(x->d->env.rs); i++) {
        struct gpu *g = rm_gpu(x->d->env.rs, i);
        if (p->domain == prof->pci_domain && p->bus == (uint8_t)g->pci_bus && p->slot == (uint8_t)g->pci_slot) {
            p->status = NV_OK;
            return 0;
        }
    }
    x->st = NV_ERR_INVALID_ARGUMENT;
    return -EINVAL;
}

/*
 * RmPerformVersionCheck: reply is always RECOGNIZED; QUERY copies the
 * version; RELAXED compares up to and including the first '.'; anything else
 * is a STRICT comparison of the whole string. Mismatch: the driver's version
 * is copied into versionString and the syscall fails (struct still copied back).
 */
ESC_HANDLER(check_version, nv_ioctl_rm_api_version_t)
{
    const char *ver = x->d->env.profile->driver_version;
    p->reply = NV_RM_API_VERSION_REPLY_RECOGNIZED;
    char given[NV_RM_API_VERSION_STRING_LENGTH + 1];
    memcpy(given, p->versionString, NV_RM_API_VERSION_STRING_LENGTH);
    given[NV_RM_API_VERSION_STRING_LENGTH] = '\0';
    bool ok;
    if (p->cmd == NV_RM_API_VERSION_CMD_QUERY) {
        ok = false;
    } else if (p->cmd == NV_RM_API_VERSION_CMD_RELAXED) {
        const char *dot = strchr(ver, '.');
        size_t n = dot ? (size_t)(dot - ver) + 1 : strlen(ver) + 1;
        ok = strncmp(given, ver, n) == 0;
    } else {
        ok = strcmp(given, ver) == 0;
    }
    if (ok)
        return 0;
    memset(p->versionString, 0, sizeof(p->versionString));
    strncpy(p->versionString, ver, sizeof(p->versionString) - 1);
    if (p->cmd == NV_RM_API_VERSION_CMD_QUERY)
        return 0;
    LOG_INFO("dispatch", "CHECK_VERSION_STR: client \"%s\" vs driver \"%s\"", given, ver);
    x->st = NV_ERR_GENERIC;
    return -EINVAL;
}

ESC_HANDLER(attach_gpus, void)
{
    if (x->size == 0 || x->size % sizeof(uint32_t) != 0 || x->op->gpus_attached)
        return -EINVAL;
    uint32_t n = x->size / sizeof(uint32_t);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t id;
        memcpy(&id, (unsigned char *)p + i * sizeof(id), sizeof(id));
        if (id != 0 && !rm_gpu_by_id(x->d->env.rs, id)) {
            x->st = NV_ERR_INVALID_ARGUMENT;
            return -EINVAL;
        }
    }
    x->op->gpus_attached = true;
    return 0;
}

ESC_HANDLER(query_device_intr, void)
{
    if (x->size < sizeof(nv_ioctl_query_device_intr_t))
        return -EINVAL;
    nv_ioctl_query_device_intr_t *q = p;
    q->intrStatus = 0;
    q->status = NV_OK;
    return 0;
}

ESC_HANDLER(sys_params, nv_ioctl_sys_params_t)
{
    if (x->d->memblock_size == 0) {
        x->d->memblock_size = p->memblock_size;
        return 0;
    }
    return p->memblock_size == x->d->memblock_size ? 0 : -EBUSY;
}

/* The emulated GPUs are not NUMA-onlined: nid -1, status DISABLED, the memblock size set by SYS_PARAMS. */
ESC_HANDLER(numa_info, nv_ioctl_numa_info_t)
{
    memset(p, 0, sizeof(*p));
    p->nid = -1;
    p->memblock_size = x->d->memblock_size;
    return 0;
}

ESC_HANDLER(set_numa_status, nv_ioctl_set_numa_status_t)
{
    if (!(rm_caller_caps(x->acc, x->op) & NVEMU_CAP_SYS_ADMIN))
        return -EACCES;
    LOG_INFO("dispatch", "SET_NUMA_STATUS: NUMA onlining is not modelled");
    x->st = NV_ERR_NOT_SUPPORTED;
    return -EINVAL;
}

ESC_HANDLER(wait_open_complete, nv_ioctl_wait_open_complete_t)
{
    p->rc = 0;
    p->adapterStatus = NV_OK;
    return 0;
}

/* CARD_INFO takes an array of entries, ATTACH_GPUS_TO_FD an array of ids, QUERY_DEVICE_INTR at least its struct. */
const struct esc_row esc_rows_os[] = {
    ESC_ROW_BYTES(NV_ESC_CARD_INFO, 0, ESC_CTL, card_info),
    ESC_ROW(NV_ESC_REGISTER_FD, nv_ioctl_register_fd_t, ESC_ANY, register_fd),
    ESC_ROW(NV_ESC_ALLOC_OS_EVENT, nv_ioctl_alloc_os_event_t, ESC_ANY, alloc_os_event),
    ESC_ROW(NV_ESC_FREE_OS_EVENT, nv_ioctl_free_os_event_t, ESC_ANY, free_os_event),
    ESC_ROW(NV_ESC_STATUS_CODE, nv_ioctl_status_code_t, ESC_CTL, status_code),
    ESC_ROW(NV_ESC_CHECK_VERSION_STR, nv_ioctl_rm_api_version_t, ESC_CTL, check_version),
    ESC_ROW_BYTES(NV_ESC_ATTACH_GPUS_TO_FD, 0, ESC_CTL, attach_gpus),
    ESC_ROW_BYTES(NV_ESC_QUERY_DEVICE_INTR, 0, ESC_DEV, query_device_intr),
    ESC_ROW(NV_ESC_SYS_PARAMS, nv_ioctl_sys_params_t, ESC_CTL, sys_params),
    ESC_ROW(NV_ESC_NUMA_INFO, nv_ioctl_numa_info_t, ESC_DEV, numa_info),
    ESC_ROW(NV_ESC_SET_NUMA_STATUS, nv_ioctl_set_numa_status_t, ESC_DEV, set_numa_status),
    /* dma-buf export is not modelled */
    ESC_ROW_UNSUPPORTED(NV_ESC_EXPORT_TO_DMABUF_FD, nv_ioctl_export_to_dma_buf_fd_t, status, ESC_DEV),
    ESC_ROW(NV_ESC_WAIT_OPEN_COMPLETE, nv_ioctl_wait_open_complete_t, ESC_ANY, wait_open_complete),
    {.name = NULL},
};
