#include "hw_rm.h"

#include <pthread.h>
#include <stdarg.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "abi/nv_alloc_fifo.h"
#include "abi/nv_classes.h"
#include "abi/nv_ctrl_fifo.h"
#include "abi/nv_engine.h"
#include "abi/nv_escape.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool capturing;
static int rewrite_mode = -1;
static bool have_group;
static struct hw_group group;
static uint32_t last_subdevice_client, last_subdevice;

void hw_rm_capture(int preempt_mode)
{
    pthread_mutex_lock(&lock);
    capturing = true;
    rewrite_mode = preempt_mode;
    have_group = false;
    memset(&group, 0, sizeof(group));
    pthread_mutex_unlock(&lock);
}

bool hw_rm_group(struct hw_group *out)
{
    pthread_mutex_lock(&lock);
    bool ok = have_group;
    if (ok)
        *out = group;
    pthread_mutex_unlock(&lock);
    return ok;
}

static long raw_ioctl(int fd, unsigned long request, void *arg)
{
    return syscall(SYS_ioctl, fd, request, arg);
}

uint32_t hw_rm_control(const struct hw_group *g, uint32_t hobject, uint32_t cmd, void *params, uint32_t size)
{
    NVOS54_PARAMETERS p = {.hClient = g->hclient, .hObject = hobject, .cmd = cmd,
                           .params = (NvP64)(uintptr_t)params, .paramsSize = size, .status = 0xffffffffu};
    if (raw_ioctl(g->fd, _IOWR(NV_IOCTL_MAGIC, NV_ESC_RM_CONTROL, NVOS54_PARAMETERS), &p) < 0)
        return 0xffffffffu;
    return p.status;
}

/* Before the call: a preemption mode to rewrite. */
static void before(unsigned long request, void *arg)
{
    if (_IOC_TYPE(request) != NV_IOCTL_MAGIC || _IOC_NR(request) != NV_ESC_RM_CONTROL ||
        _IOC_SIZE(request) != sizeof(NVOS54_PARAMETERS) || rewrite_mode < 0)
        return;
    NVOS54_PARAMETERS *p = arg;
    if (p->cmd != NV2080_CTRL_CMD_GR_SET_CTXSW_PREEMPTION_MODE ||
        p->paramsSize != sizeof(NV2080_CTRL_GR_SET_CTXSW_PREEMPTION_MODE_PARAMS) || !p->params)
        return;
    NV2080_CTRL_GR_SET_CTXSW_PREEMPTION_MODE_PARAMS *pm = (void *)(uintptr_t)p->params;
    if (pm->flags & NV2080_CTRL_GR_SET_CTXSW_PREEMPTION_MODE_FLAGS_CILP) {
        pm->cilpPreemptMode = (uint32_t)rewrite_mode;
        group.preempt_mode_rewrites++;
    }
}

/* After a successful call: objects and libcuda's timeslice. */
static void after(int fd, unsigned long request, void *arg)
{
    if (_IOC_TYPE(request) != NV_IOCTL_MAGIC)
        return;
    if (_IOC_NR(request) == NV_ESC_RM_ALLOC &&
        (_IOC_SIZE(request) == sizeof(NVOS64_PARAMETERS) || _IOC_SIZE(request) == sizeof(NVOS21_PARAMETERS))) {
        /* NVOS21 and NVOS64 share the first four handles and pAllocParms */
        NVOS21_PARAMETERS *a = arg;
        NV_STATUS st = _IOC_SIZE(request) == sizeof(NVOS64_PARAMETERS) ? ((NVOS64_PARAMETERS *)arg)->status
                                                                        : a->status;
        if (st != 0)
            return;
        if (a->hClass == NV20_SUBDEVICE_0) {
            last_subdevice_client = a->hRoot;
            last_subdevice = a->hObjectNew;
        } else if (a->hClass == KEPLER_CHANNEL_GROUP_A && a->pAllocParms) {
            const NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS *cg = (const void *)(uintptr_t)a->pAllocParms;
            if (cg->engineType != NV2080_ENGINE_TYPE_GR0)
                return;
            uint32_t rewrites = group.preempt_mode_rewrites;
            memset(&group, 0, sizeof(group));
            group.preempt_mode_rewrites = rewrites;
            group.fd = fd;
            group.hclient = a->hRoot;
            group.htsg = a->hObjectNew;
            group.hsubdevice = last_subdevice_client == a->hRoot ? last_subdevice : 0;
            have_group = true;
        } else if (have_group && a->hObjectParent == group.htsg && a->hRoot == group.hclient &&
                   group.nchannels < HW_RM_MAX_CHANNELS) {
            /* a channel (or context share) under the compute group; only channels are kept */
            if (a->hClass != FERMI_CONTEXT_SHARE_A)
                group.channels[group.nchannels++] = a->hObjectNew;
        }
        return;
    }
    if (_IOC_NR(request) == NV_ESC_RM_CONTROL && _IOC_SIZE(request) == sizeof(NVOS54_PARAMETERS)) {
        NVOS54_PARAMETERS *p = arg;
        if (p->status == 0 && have_group && p->cmd == NVA06C_CTRL_CMD_SET_TIMESLICE && p->hObject == group.htsg &&
            p->params && p->paramsSize == sizeof(NVA06C_CTRL_TIMESLICE_PARAMS)) {
            group.libcuda_timeslice_seen = true;
            group.libcuda_timeslice_us = ((NVA06C_CTRL_TIMESLICE_PARAMS *)(uintptr_t)p->params)->timesliceUs;
        }
    }
}

/*
 * The interposer: every ioctl of this process (libc's callers and the
 * dlopen'ed libcuda) lands here; nothing is changed unless capture is on.
 */
int ioctl(int fd, unsigned long request, ...)
{
    va_list ap;
    va_start(ap, request);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    bool cap = __atomic_load_n(&capturing, __ATOMIC_ACQUIRE);
    if (cap) {
        pthread_mutex_lock(&lock);
        before(request, arg);
        pthread_mutex_unlock(&lock);
    }
    long r = raw_ioctl(fd, request, arg);
    if (cap && r == 0) {
        pthread_mutex_lock(&lock);
        after(fd, request, arg);
        pthread_mutex_unlock(&lock);
    }
    return r < 0 ? -1 : (int)r;
}
