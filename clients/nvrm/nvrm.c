/* libnvrm: RM escapes and scheduling controls over a transport (see nvrm.h). */
#include "nvrm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "abi/nv_abi_desc.h"
#include "abi/nv_classes.h"
#include "abi/nv_ctrl_fifo.h"

#define NVRM_MAX_GPUS 32u

struct nvrm {
    const struct nvrm_transport *tp;
    int ctl_fd;
    int gpu_fd[NVRM_MAX_GPUS];     /* -1: not opened */
    int last_errno;
    int release;                   /* enum nv_release of the driver, -1 until a control needed it */
};

/* ---- the OS transport ---- */

static int os_open(void *ctx, const char *path)
{
    (void)ctx;
    return open(path, O_RDWR | O_CLOEXEC);
}

static int os_ioctl(void *ctx, int fd, unsigned long request, void *arg)
{
    (void)ctx;
    int rc;
    do {
        rc = ioctl(fd, request, arg);
    } while (rc < 0 && (errno == EINTR || errno == EAGAIN));
    return rc < 0 ? -1 : 0;
}

static int os_close(void *ctx, int fd)
{
    (void)ctx;
    return close(fd);
}

const struct nvrm_transport nvrm_transport_os = {os_open, os_ioctl, os_close, NULL};

static int os_dir_open(void *ctx, const char *path)
{
    const struct nvrm_os_dir *d = ctx;
    const char *base = strrchr(path, '/');
    char full[sizeof d->dir + 32];
    snprintf(full, sizeof full, "%s/%s", d->dir, base ? base + 1 : path);
    return open(full, O_RDWR | O_CLOEXEC);
}

int nvrm_transport_os_dir(struct nvrm_os_dir *d, const char *dir)
{
    if (!dir || !*dir)
        dir = "/dev";
    if (strlen(dir) >= sizeof d->dir) {
        errno = ENAMETOOLONG;
        return -1;
    }
    snprintf(d->dir, sizeof d->dir, "%s", dir);
    d->tp = (struct nvrm_transport){os_dir_open, os_ioctl, os_close, d};
    return 0;
}

/* ---- connection ---- */

int nvrm_open(nvrm **out, const struct nvrm_transport *tp)
{
    *out = NULL;
    nvrm *rm = calloc(1, sizeof *rm);
    if (!rm) {
        errno = ENOMEM;
        return -1;
    }
    rm->tp = tp ? tp : &nvrm_transport_os;
    rm->release = -1;
    for (unsigned i = 0; i < NVRM_MAX_GPUS; i++)
        rm->gpu_fd[i] = -1;
    rm->ctl_fd = rm->tp->open(rm->tp->ctx, "/dev/nvidiactl");
    if (rm->ctl_fd < 0) {
        int e = errno;
        free(rm);
        errno = e;
        return -1;
    }
    *out = rm;
    return 0;
}

void nvrm_close(nvrm *rm)
{
    if (!rm)
        return;
    for (unsigned i = 0; i < NVRM_MAX_GPUS; i++) {
        if (rm->gpu_fd[i] >= 0)
            rm->tp->close(rm->tp->ctx, rm->gpu_fd[i]);
    }
    rm->tp->close(rm->tp->ctx, rm->ctl_fd);
    free(rm);
}

int nvrm_ctl_fd(const nvrm *rm)
{
    return rm->ctl_fd;
}

/* One ioctl; returns the transport's result and remembers errno on failure. */
static int do_ioctl(nvrm *rm, int fd, uint32_t nr, uint32_t size, void *arg)
{
    int rc = rm->tp->ioctl(rm->tp->ctx, fd, NV_IOCTL_REQUEST(nr, size), arg);
    if (rc != 0)
        rm->last_errno = errno ? errno : EIO;
    return rc;
}

int nvrm_open_gpu(nvrm *rm, uint32_t minor)
{
    if (minor >= NVRM_MAX_GPUS) {
        errno = ENXIO;
        return -1;
    }
    if (rm->gpu_fd[minor] >= 0)
        return 0;
    char path[32];
    snprintf(path, sizeof path, "/dev/nvidia%u", minor);
    int fd = rm->tp->open(rm->tp->ctx, path);
    if (fd < 0) {
        rm->last_errno = errno;
        return -1;
    }
    nv_ioctl_register_fd_t reg = {.ctl_fd = rm->ctl_fd};
    if (do_ioctl(rm, fd, NV_ESC_REGISTER_FD, sizeof reg, &reg) != 0) {
        int e = rm->last_errno;
        rm->tp->close(rm->tp->ctx, fd);
        errno = e;
        return -1;
    }
    rm->gpu_fd[minor] = fd;
    return 0;
}

/* ---- generic RM calls ---- */

NV_STATUS nvrm_alloc(nvrm *rm, NvHandle hClient, NvHandle hParent, NvHandle *hObject, uint32_t hClass,
                     void *params, uint32_t params_size)
{
    NVOS64_PARAMETERS p = {
        .hRoot = hClient,
        .hObjectParent = hParent,
        .hObjectNew = *hObject,
        .hClass = hClass,
        .pAllocParms = (uint64_t)(uintptr_t)params,
        .paramsSize = params_size,
    };
    if (do_ioctl(rm, rm->ctl_fd, NV_ESC_RM_ALLOC, sizeof p, &p) != 0)
        return NV_ERR_OPERATING_SYSTEM;
    if (p.status == NV_OK)
        *hObject = p.hObjectNew;
    return p.status;
}

NV_STATUS nvrm_alloc_client(nvrm *rm, NvHandle *hClient)
{
    NvHandle h = *hClient;
    NV_STATUS st = nvrm_alloc(rm, h, h, &h, NV01_ROOT_CLIENT, NULL, 0);
    if (st == NV_OK)
        *hClient = h;
    return st;
}

NV_STATUS nvrm_free(nvrm *rm, NvHandle hClient, NvHandle hParent, NvHandle hObject)
{
    NVOS00_PARAMETERS p = {.hRoot = hClient, .hObjectParent = hParent, .hObjectOld = hObject};
    if (do_ioctl(rm, rm->ctl_fd, NV_ESC_RM_FREE, sizeof p, &p) != 0)
        return NV_ERR_OPERATING_SYSTEM;
    return p.status;
}

static NV_STATUS control_once(nvrm *rm, NvHandle hClient, NvHandle hObject, uint32_t cmd, void *params,
                              uint32_t size)
{
    NVOS54_PARAMETERS p = {
        .hClient = hClient,
        .hObject = hObject,
        .cmd = cmd,
        .params = (uint64_t)(uintptr_t)params,
        .paramsSize = size,
    };
    if (do_ioctl(rm, rm->ctl_fd, NV_ESC_RM_CONTROL, sizeof p, &p) != 0)
        return NV_ERR_OPERATING_SYSTEM;
    return p.status;
}

/* The driver's release, asked once (CHECK_VERSION_STR's query); the base release when it does not say. */
static enum nv_release driver_release(nvrm *rm)
{
    if (rm->release < 0) {
        nv_ioctl_rm_api_version_t v = {.cmd = NV_RM_API_VERSION_CMD_QUERY};
        int saved = rm->last_errno;
        do_ioctl(rm, rm->ctl_fd, NV_ESC_CHECK_VERSION_STR, sizeof v, &v); /* the answer is in v either way */
        rm->last_errno = saved;
        v.versionString[sizeof v.versionString - 1] = '\0';
        enum nv_release rel;
        rm->release = nv_release_parse(v.versionString, &rel) ? (int)rel : NV_REL_BASE;
    }
    return (enum nv_release)rm->release;
}

/*
 * Callers pass the base release's params. A control whose layout differs in an older release is refused
 * there for its size: then the driver's release is asked once and the call re-issued in that release's
 * layout, the answer mapped back, so the same code runs against 550, 575 and 580.
 */
NV_STATUS nvrm_control(nvrm *rm, NvHandle hClient, NvHandle hObject, uint32_t cmd, void *params, uint32_t size)
{
    NV_STATUS st = control_once(rm, hClient, hObject, cmd, params, size);
    if (st != NV_ERR_INVALID_ARGUMENT || !params || rm->release == NV_REL_BASE)
        return st;
    bool differs = false;
    for (int r = 0; r < NV_REL_COUNT; r++)
        differs |= nv_ctrl_layout((enum nv_release)r, cmd, size).size != size;
    if (!differs)
        return st;
    struct nv_layout_map m = nv_ctrl_layout(driver_release(rm), cmd, size);
    if (m.absent || m.size == size || m.size > size)
        return st;
    unsigned char *older = malloc(m.size);
    if (!older)
        return NV_ERR_NO_MEMORY;
    nv_layout_from_base(&m, params, older);
    st = control_once(rm, hClient, hObject, cmd, older, m.size);
    nv_layout_to_base(&m, older, params, size);
    free(older);
    return st;
}

/* ---- typed controls ---- */

NV_STATUS nvrm_tsg_set_timeslice(nvrm *rm, NvHandle hClient, NvHandle hTsg, uint64_t us)
{
    NVA06C_CTRL_TIMESLICE_PARAMS p = {.timesliceUs = us};
    return nvrm_control(rm, hClient, hTsg, NVA06C_CTRL_CMD_SET_TIMESLICE, &p, sizeof p);
}

NV_STATUS nvrm_tsg_get_timeslice(nvrm *rm, NvHandle hClient, NvHandle hTsg, uint64_t *us)
{
    NVA06C_CTRL_TIMESLICE_PARAMS p = {0};
    NV_STATUS st = nvrm_control(rm, hClient, hTsg, NVA06C_CTRL_CMD_GET_TIMESLICE, &p, sizeof p);
    if (st == NV_OK)
        *us = p.timesliceUs;
    return st;
}

NV_STATUS nvrm_tsg_set_interleave(nvrm *rm, NvHandle hClient, NvHandle hTsg, uint32_t level)
{
    NVA06C_CTRL_INTERLEAVE_LEVEL_PARAMS p = {.tsgInterleaveLevel = level};
    return nvrm_control(rm, hClient, hTsg, NVA06C_CTRL_CMD_SET_INTERLEAVE_LEVEL, &p, sizeof p);
}

NV_STATUS nvrm_tsg_preempt(nvrm *rm, NvHandle hClient, NvHandle hTsg, bool wait, uint32_t timeout_us)
{
    NVA06C_CTRL_PREEMPT_PARAMS p = {.bWait = wait, .bManualTimeout = timeout_us > 0, .timeoutUs = timeout_us};
    return nvrm_control(rm, hClient, hTsg, NVA06C_CTRL_CMD_PREEMPT, &p, sizeof p);
}

NV_STATUS nvrm_tsg_schedule(nvrm *rm, NvHandle hClient, NvHandle hTsg, bool enable)
{
    NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS p = {.bEnable = enable};
    return nvrm_control(rm, hClient, hTsg, NVA06C_CTRL_CMD_GPFIFO_SCHEDULE, &p, sizeof p);
}

NV_STATUS nvrm_tsg_get_info(nvrm *rm, NvHandle hClient, NvHandle hTsg, uint32_t *tsg_id)
{
    NVA06C_CTRL_GET_INFO_PARAMS p = {0};
    NV_STATUS st = nvrm_control(rm, hClient, hTsg, NVA06C_CTRL_CMD_GET_INFO, &p, sizeof p);
    if (st == NV_OK)
        *tsg_id = p.tsgID;
    return st;
}

NV_STATUS nvrm_channel_get_work_submit_token(nvrm *rm, NvHandle hClient, NvHandle hChannel, uint32_t *token)
{
    NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN_PARAMS p = {0};
    NV_STATUS st = nvrm_control(rm, hClient, hChannel, NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN, &p, sizeof p);
    if (st == NV_OK)
        *token = p.workSubmitToken;
    return st;
}

NV_STATUS nvrm_channel_restart_runlist(nvrm *rm, NvHandle hClient, NvHandle hChannel, bool force, bool bypass_wait)
{
    NVA06F_CTRL_RESTART_RUNLIST_PARAMS p = {.bForceRestart = force, .bBypassWait = bypass_wait};
    return nvrm_control(rm, hClient, hChannel, NVA06F_CTRL_CMD_RESTART_RUNLIST, &p, sizeof p);
}

NV_STATUS nvrm_disable_channels(nvrm *rm, NvHandle hClient, NvHandle hSubdevice, bool disable, bool only_sched,
                                uint32_t n, const NvHandle *hClients, const NvHandle *hChannels)
{
    if (n > NV2080_CTRL_FIFO_DISABLE_CHANNELS_MAX_ENTRIES)
        return NV_ERR_INVALID_ARGUMENT;
    NV2080_CTRL_FIFO_DISABLE_CHANNELS_PARAMS p;
    memset(&p, 0, sizeof p);
    p.bDisable = disable;
    p.bOnlyDisableScheduling = only_sched;
    p.numChannels = n;
    for (uint32_t i = 0; i < n; i++) {
        p.hClientList[i] = hClients[i];
        p.hChannelList[i] = hChannels[i];
    }
    return nvrm_control(rm, hClient, hSubdevice, NV2080_CTRL_CMD_FIFO_DISABLE_CHANNELS, &p, sizeof p);
}

NV_STATUS nvrm_set_sched_policy(nvrm *rm, NvHandle hClient, NvHandle hSubdevice, uint32_t policy, bool restore)
{
    NV2080_CTRL_FIFO_RUNLIST_SET_SCHED_POLICY_PARAMS p = {
        .flags = restore ? NV2080_CTRL_FIFO_RUNLIST_SCHED_POLICY_FLAGS_RESTORE : 0u,
        .schedPolicy = policy,
    };
    return nvrm_control(rm, hClient, hSubdevice, NV2080_CTRL_CMD_FIFO_RUNLIST_SET_SCHED_POLICY, &p, sizeof p);
}

NV_STATUS nvrm_query_group(nvrm *rm, int32_t tid, struct nvrm_group *out)
{
    NV2080_CTRL_FIFO_DISABLE_CHANNELS_PARAMS ch;
    memset(&ch, 0, sizeof ch);
    memset(out, 0, sizeof *out);
    NVOS54_PARAMETERS p = {
        .hClient = (NvHandle)tid,
        .params = (uint64_t)(uintptr_t)&ch,
        .paramsSize = sizeof ch,
    };
    int rc = do_ioctl(rm, rm->ctl_fd, NV_ESC_RM_QUERY_GROUP, sizeof p, &p);
    /* The patched driver reports EINVAL after answering; anything else is a real failure. */
    if (rc != 0 && rm->last_errno != EINVAL)
        return NV_ERR_OPERATING_SYSTEM;
    if (p.hObject == 0)
        return rc == 0 && p.status != NV_OK ? p.status : NV_ERR_OBJECT_NOT_FOUND;
    out->hClient = p.hClient;
    out->hTsg = p.hObject;
    out->num_channels = ch.numChannels <= NVRM_DISABLE_CHANNELS_MAX ? ch.numChannels : NVRM_DISABLE_CHANNELS_MAX;
    for (uint32_t i = 0; i < out->num_channels; i++) {
        out->hClients[i] = ch.hClientList[i];
        out->hChannels[i] = ch.hChannelList[i];
    }
    return NV_OK;
}
