/*
 * libnvemu-timeslice.so: an LD_PRELOAD interposer around ioctl(2) that gives every compute channel group
 * (KEPLER_CHANNEL_GROUP_A, engineType GR0) a program allocates the timeslice $NVEMU_TSG_TIMESLICE_US, on a
 * stock driver, the way nvemu-hw-task does for its own groups (engine/backends/hw/hw_rm.c):
 * the control goes through the fd and client that allocated the group, because the driver accepts a
 * group's controls only from its opener. It is set right after the group's allocation and again after its
 * first channel (so the runlist holds it once the group can run), and libcuda's own SET_TIMESLICE on such a
 * group is rewritten to the same value before the driver sees it, so libcuda cannot undo it.
 *
 * Used to run unmodified PyTorch processes under LC/BE timeslices (GPreempt's and gpu_ext's policies set
 * them from inside the driver; a stock driver takes them from the group's opener).
 * $NVEMU_TSG_LOG, when set, receives one line per decision ("pid P tsg 0xH at alloc|channel|rewrite us U
 * status 0xS"; appended, one write per line). Without $NVEMU_TSG_TIMESLICE_US nothing is changed.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "abi/nv_alloc_fifo.h"
#include "abi/nv_classes.h"
#include "abi/nv_ctrl_fifo.h"
#include "abi/nv_engine.h"
#include "abi/nv_escape.h"

#define MAX_GROUPS 32

struct group {
    int fd;
    uint32_t hclient, htsg;
    bool channel_seen;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool enabled;
static uint64_t timeslice_us;
static struct group groups[MAX_GROUPS];
static unsigned ngroups;

static void configure(void)
{
    const char *v = getenv("NVEMU_TSG_TIMESLICE_US");
    char *end = NULL;
    unsigned long long us = v && *v ? strtoull(v, &end, 10) : 0;
    enabled = v && *v && end && !*end && us > 0;
    timeslice_us = us;
}

static long raw_ioctl(int fd, unsigned long request, void *arg)
{
    return syscall(SYS_ioctl, fd, request, arg);
}

static void note(const struct group *g, const char *when, uint32_t status)
{
    const char *path = getenv("NVEMU_TSG_LOG");
    if (!path || !*path)
        return;
    char line[160];
    int n = snprintf(line, sizeof(line), "pid %ld tsg 0x%08x at %s us %llu status 0x%x\n", (long)getpid(), g->htsg,
                     when, (unsigned long long)timeslice_us, status);
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    if (n > 0 && write(fd, line, (size_t)n) < 0)
        n = 0;
    close(fd);
}

static void set_timeslice(const struct group *g, const char *when)
{
    NVA06C_CTRL_TIMESLICE_PARAMS tp = {.timesliceUs = timeslice_us};
    NVOS54_PARAMETERS p = {.hClient = g->hclient, .hObject = g->htsg, .cmd = NVA06C_CTRL_CMD_SET_TIMESLICE,
                           .params = (NvP64)(uintptr_t)&tp, .paramsSize = sizeof(tp), .status = 0xffffffffu};
    uint32_t st = raw_ioctl(g->fd, _IOWR(NV_IOCTL_MAGIC, NV_ESC_RM_CONTROL, NVOS54_PARAMETERS), &p) < 0
                      ? 0xffffffffu : p.status;
    note(g, when, st);
}

static struct group *find(uint32_t hclient, uint32_t htsg)
{
    for (unsigned i = 0; i < ngroups; i++)
        if (groups[i].hclient == hclient && groups[i].htsg == htsg)
            return &groups[i];
    return NULL;
}

static bool is_control(unsigned long request)
{
    return _IOC_TYPE(request) == NV_IOCTL_MAGIC && _IOC_NR(request) == NV_ESC_RM_CONTROL &&
           _IOC_SIZE(request) == sizeof(NVOS54_PARAMETERS);
}

/* libcuda's own SET_TIMESLICE on a compute group asks for what this process is told to use. */
static void before(unsigned long request, void *arg)
{
    if (!is_control(request))
        return;
    NVOS54_PARAMETERS *p = arg;
    if (p->cmd != NVA06C_CTRL_CMD_SET_TIMESLICE || p->paramsSize != sizeof(NVA06C_CTRL_TIMESLICE_PARAMS) ||
        !p->params)
        return;
    struct group *g = find(p->hClient, p->hObject);
    if (!g)
        return;
    ((NVA06C_CTRL_TIMESLICE_PARAMS *)(uintptr_t)p->params)->timesliceUs = timeslice_us;
    note(g, "rewrite", 0);
}

static void after(int fd, unsigned long request, void *arg)
{
    if (_IOC_TYPE(request) != NV_IOCTL_MAGIC || _IOC_NR(request) != NV_ESC_RM_ALLOC ||
        (_IOC_SIZE(request) != sizeof(NVOS64_PARAMETERS) && _IOC_SIZE(request) != sizeof(NVOS21_PARAMETERS)))
        return;
    /* NVOS21 and NVOS64 share the first four handles and pAllocParms */
    NVOS21_PARAMETERS *a = arg;
    NV_STATUS st = _IOC_SIZE(request) == sizeof(NVOS64_PARAMETERS) ? ((NVOS64_PARAMETERS *)arg)->status : a->status;
    if (st != 0)
        return;
    if (a->hClass == KEPLER_CHANNEL_GROUP_A && a->pAllocParms) {
        const NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS *cg = (const void *)(uintptr_t)a->pAllocParms;
        if (cg->engineType != NV2080_ENGINE_TYPE_GR0 || ngroups == MAX_GROUPS)
            return;
        groups[ngroups] = (struct group){.fd = fd, .hclient = a->hRoot, .htsg = a->hObjectNew};
        set_timeslice(&groups[ngroups++], "alloc");
        return;
    }
    struct group *g = find(a->hRoot, a->hObjectParent);
    if (g && !g->channel_seen && a->hClass != FERMI_CONTEXT_SHARE_A) {
        g->channel_seen = true;
        set_timeslice(g, "channel");
    }
}

int ioctl(int fd, unsigned long request, ...)
{
    va_list ap;
    va_start(ap, request);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    pthread_once(&once, configure);
    if (!enabled || _IOC_TYPE(request) != NV_IOCTL_MAGIC) {
        long r = raw_ioctl(fd, request, arg);
        return r < 0 ? -1 : (int)r;
    }
    pthread_mutex_lock(&lock);
    before(request, arg);
    pthread_mutex_unlock(&lock);
    long r = raw_ioctl(fd, request, arg);
    if (r == 0) {
        pthread_mutex_lock(&lock);
        after(fd, request, arg);
        pthread_mutex_unlock(&lock);
    }
    return r < 0 ? -1 : (int)r;
}
