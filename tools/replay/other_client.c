/* Another program holding a GPU during replay (see other_client.h). */
#include "other_client.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi/nv_alloc.h"
#include "abi/nv_classes.h"
#include "abi/nv_escape.h"
#include "abi/nv_status.h"
#include "core/emulator.h"
#include "front/inproc.h"

/*
 * Linux pids never exceed PID_MAX_LIMIT (4194304), so this identity cannot be
 * the replaying process or any other real one: the emulator sees a separate process.
 */
#define OTHER_PID 4194305

struct replay_other_client {
    nvemu_fdtable *fds;   /* the other process's own fd table */
};

static void say(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void say(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* NV_ESC_RM_ALLOC (NVOS64, as libcuda issues it) on the control fd; the RM status, or
 * NV_ERR_OPERATING_SYSTEM when the ioctl itself failed. */
static NV_STATUS rm_alloc(struct replay_other_client *oc, int ctl, NvHandle hroot, NvHandle hparent, NvHandle *hnew,
                          uint32_t hclass, void *params, uint32_t psize)
{
    NVOS64_PARAMETERS p = {
        .hRoot = hroot,
        .hObjectParent = hparent,
        .hObjectNew = *hnew,
        .hClass = hclass,
        .pAllocParms = (uint64_t)(uintptr_t)params,
        .paramsSize = psize,
    };
    if (nvemu_fdtable_ioctl_as(oc->fds, ctl, OTHER_PID, NV_IOCTL_REQUEST(NV_ESC_RM_ALLOC, sizeof p), &p) != 0)
        return NV_ERR_OPERATING_SYSTEM;
    if (p.status == NV_OK)
        *hnew = p.hObjectNew;
    return p.status;
}

struct replay_other_client *replay_other_client_hold(nvemu *emu, char *err, size_t errlen)
{
    struct replay_other_client *oc = calloc(1, sizeof *oc);
    if (!oc || !(oc->fds = nvemu_fdtable_create(emu, false))) {
        say(err, errlen, "other client: out of memory");
        free(oc);
        return NULL;
    }
    nvemu_identity who;
    nvemu_identity_self(&who);
    who.pid = OTHER_PID;
    who.tid = OTHER_PID;
    snprintf(who.comm, sizeof who.comm, "other-client");

    int ctl = nvemu_fdtable_open(oc->fds, "/dev/nvidiactl", &who);
    /* the client handle is the driver's choice */
    NvHandle hclient = 0;
    NV_STATUS st = ctl < 0 ? NV_ERR_OPERATING_SYSTEM : rm_alloc(oc, ctl, 0, 0, &hclient, NV01_ROOT_CLIENT, NULL, 0);
    if (st != NV_OK) {
        say(err, errlen, "other client: cannot open /dev/nvidiactl or allocate NV01_ROOT_CLIENT (0x%x)", (unsigned)st);
        replay_other_client_release(oc);
        return NULL;
    }
    for (uint32_t gpu = 0; gpu < nvemu_gpu_count(emu); gpu++) {
        char node[32];
        snprintf(node, sizeof node, "/dev/nvidia%u", gpu);
        if (nvemu_fdtable_open(oc->fds, node, &who) < 0) {
            say(err, errlen, "other client: cannot open %s: %s", node, strerror(errno));
            replay_other_client_release(oc);
            return NULL;
        }
        /* the device's handle is chosen the way libcuda chooses its own */
        NvHandle hdevice = 0x5c000001 + gpu;
        NV0080_ALLOC_PARAMETERS dp = {.deviceId = gpu};
        st = rm_alloc(oc, ctl, hclient, hclient, &hdevice, NV01_DEVICE_0, &dp, sizeof dp);
        if (st != NV_OK) {
            say(err, errlen, "other client: NV01_DEVICE_0 alloc on GPU %u failed: %s (0x%x)", gpu,
                nv_status_name(st), (unsigned)st);
            replay_other_client_release(oc);
            return NULL;
        }
    }
    return oc;
}

void replay_other_client_release(struct replay_other_client *oc)
{
    if (!oc)
        return;
    nvemu_fdtable_destroy(oc->fds);
    free(oc);
}
