/* Helpers shared by the tests/rm programs: an emulator plus an in-process fd table. */
#ifndef NVEMU_TESTS_RM_UTIL_H
#define NVEMU_TESTS_RM_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "abi/nv_alloc.h"
#include "abi/nv_classes.h"
#include "abi/nv_escape.h"
#include "front/inproc.h"
#include "core/emulator.h"
#include "nvemu/nvemu.h"

struct tenv {
    nvemu *emu;
    nvemu_fdtable *t;
    nvemu_identity who;
    int ctl;
};

static inline void tenv_identity(nvemu_identity *who, int32_t pid, uint32_t uid, uint64_t caps)
{
    memset(who, 0, sizeof(*who));
    who->pid = pid;
    who->tid = pid;
    who->uid = uid;
    who->caps = caps;
    strcpy(who->comm, "rmtest");
}

/* An emulator made from cfg, its fd table and one open nvidiactl as pid 100, uid 1000: 0, or -1 when it fails. */
static inline int tenv_init_with(struct tenv *e, const nvemu_config *cfg)
{
    char err[256];
    e->emu = nvemu_create(cfg, err, sizeof(err));
    if (!e->emu)
        return -1;
    e->t = nvemu_fdtable_create(e->emu, false);
    tenv_identity(&e->who, 100, 1000, 0);
    e->ctl = nvemu_fdtable_open(e->t, "/dev/nvidiactl", &e->who);
    return e->ctl >= 0 ? 0 : -1;
}

static inline int tenv_init(struct tenv *e, bool gpreempt_compat)
{
    nvemu_config cfg;
    nvemu_config_init(&cfg);
    cfg.gpreempt_compat = gpreempt_compat;
    return tenv_init_with(e, &cfg);
}

static inline void tenv_fini(struct tenv *e)
{
    nvemu_fdtable_destroy(e->t);
    nvemu_destroy(e->emu);
}

/* ioctl returning 0 or -errno. */
static inline int tio(struct tenv *e, int fd, uint32_t nr, void *arg, uint32_t size)
{
    return nvemu_fdtable_ioctl(e->t, fd, NV_IOCTL_REQUEST(nr, size), arg) == 0 ? 0 : -errno;
}

static inline NV_STATUS talloc(struct tenv *e, int fd, uint32_t hroot, uint32_t hparent, uint32_t *hnew,
                               uint32_t hclass, void *params)
{
    NVOS64_PARAMETERS p;
    memset(&p, 0, sizeof(p));
    p.hRoot = hroot;
    p.hObjectParent = hparent;
    p.hObjectNew = hnew ? *hnew : 0;
    p.hClass = hclass;
    p.pAllocParms = (uint64_t)(uintptr_t)params;
    if (tio(e, fd, NV_ESC_RM_ALLOC, &p, sizeof(p)) != 0)
        return 0xDEADu;
    if (hnew && p.status == NV_OK)
        *hnew = p.hObjectNew;
    return p.status;
}

static inline NV_STATUS tctrl(struct tenv *e, int fd, uint32_t hclient, uint32_t hobject, uint32_t cmd,
                              void *params, uint32_t size)
{
    NVOS54_PARAMETERS p;
    memset(&p, 0, sizeof(p));
    p.hClient = hclient;
    p.hObject = hobject;
    p.cmd = cmd;
    p.params = (uint64_t)(uintptr_t)params;
    p.paramsSize = size;
    if (tio(e, fd, NV_ESC_RM_CONTROL, &p, sizeof(p)) != 0)
        return 0xDEADu;
    return p.status;
}

static inline NV_STATUS tfree(struct tenv *e, int fd, uint32_t hroot, uint32_t hobject)
{
    NVOS00_PARAMETERS p = {hroot, hroot, hobject, 0};
    if (tio(e, fd, NV_ESC_RM_FREE, &p, sizeof(p)) != 0)
        return 0xDEADu;
    return p.status;
}

/* Opens /dev/nvidia0 as the process behind fd (the driver wants it open before a device alloc). */
static inline int topen_gpu(struct tenv *e, int fd)
{
    nvemu_opener *op = nvemu_fdtable_opener(e->t, fd);
    return op ? nvemu_fdtable_open(e->t, "/dev/nvidia0", nvemu_opener_identity(op)) : -1;
}

/* /dev/nvidia0 opened by fd's process, client + device 0 + subdevice; returns the client handle. */
static inline uint32_t tbase(struct tenv *e, int fd, uint32_t hdev, uint32_t hsub)
{
    if (topen_gpu(e, fd) < 0)
        return 0;
    uint32_t hc = 0;
    if (talloc(e, fd, 0, 0, &hc, NV01_ROOT_CLIENT, NULL) != NV_OK)
        return 0;
    NV0080_ALLOC_PARAMETERS dp;
    memset(&dp, 0, sizeof(dp));
    if (talloc(e, fd, hc, hc, &hdev, NV01_DEVICE_0, &dp) != NV_OK)
        return 0;
    NV2080_ALLOC_PARAMETERS sp = {0};
    if (talloc(e, fd, hc, hdev, &hsub, NV20_SUBDEVICE_0, &sp) != NV_OK)
        return 0;
    return hc;
}

/* The subdevice of GPU dev under client hc on e's nvidiactl (device handle 0x100 + dev, subdevice 0x200 + dev). */
static inline uint32_t tsubdevice(struct tenv *e, uint32_t hc, uint32_t dev)
{
    assert_true(nvemu_fdtable_open(e->t, dev ? "/dev/nvidia1" : "/dev/nvidia0", &e->who) >= 0);
    NV0080_ALLOC_PARAMETERS dp;
    memset(&dp, 0, sizeof dp);
    dp.deviceId = dev;
    uint32_t hdev = 0x100 + dev, hsub = 0x200 + dev;
    assert_int_equal(talloc(e, e->ctl, hc, hc, &hdev, NV01_DEVICE_0, &dp), NV_OK);
    NV2080_ALLOC_PARAMETERS sp = {0};
    assert_int_equal(talloc(e, e->ctl, hc, hdev, &hsub, NV20_SUBDEVICE_0, &sp), NV_OK);
    return hsub;
}

#endif
