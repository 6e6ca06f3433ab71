/*
 * One fixed ioctl sequence (RM alloc/control/free, UVM initialize/register,
 * the context share that waits for the UVM VA-space registration, numbers a
 * node does not route), printed one answer per line. Built twice from this
 * file: parity_raw talks to the nodes with open(2)/ioctl(2) as a foreign
 * binary would (the FUSE daemon under `nvemu run`, or the preload library);
 * parity_inproc (PARITY_INPROC) goes through the in-process fd table. The
 * front-end parity test (parity.sh) requires the same lines from all three.
 * Only values that do not depend on the transport are printed (no fd numbers,
 * no addresses). Layouts are written here from the driver's headers
 * (nvos.h, alloc_channel.h, uvm_ioctl.h), independent of emu/abi.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "rmraw.h"

#ifdef PARITY_INPROC
#include "front/inproc.h"

static nvemu_fdtable *table;
static nvemu_identity self;

static int dev_open(const char *path)
{
    return nvemu_fdtable_open(table, path, &self);
}

static int dev_ioctl(int fd, unsigned long request, void *arg)
{
    return nvemu_fdtable_ioctl(table, fd, request, arg);
}
#else
static int dev_open(const char *path)
{
    return open(path, O_RDWR | O_CLOEXEC);
}

static int dev_ioctl(int fd, unsigned long request, void *arg)
{
    return ioctl(fd, request, arg);
}
#endif

/* FERMI_VASPACE_A's NV_VASPACE_ALLOCATION_PARAMETERS; FERMI_CONTEXT_SHARE_A's NV_CTXSHARE_ALLOCATION_PARAMETERS. */
struct vaspace_alloc {
    uint32_t index, flags;
    uint64_t vaSize, vaStartInternal, vaLimitInternal;
    uint32_t bigPageSize, pad;
    uint64_t vaBase;
    uint32_t pasid, pad2;
};
_Static_assert(sizeof(struct vaspace_alloc) == 56, "vaspace alloc");
struct ctxshare_alloc {
    uint32_t hVASpace, flags, subctxId;
};

/* UVM blocks: UVM_INITIALIZE, PAGEABLE_MEM_ACCESS, REGISTER_GPU, CREATE_RANGE_GROUP, REGISTER_GPU_VASPACE. */
struct uvm_initialize { uint64_t flags; uint32_t rmStatus, pad; };
struct uvm_pageable { uint8_t access, pad[3]; uint32_t rmStatus; };
struct uvm_register_gpu { uint8_t uuid[16]; uint8_t numaEnabled, pad[3]; int32_t numaNodeId, rmCtrlFd;
                          uint32_t hClient, hSmcPartRef, rmStatus; };
struct uvm_range_group { uint64_t id; uint32_t rmStatus, pad; };
struct uvm_register_vaspace { uint8_t uuid[16]; int32_t rmCtrlFd; uint32_t hClient, hVaSpace, rmStatus; };
_Static_assert(sizeof(struct uvm_initialize) == 16 && sizeof(struct uvm_pageable) == 8, "uvm");
_Static_assert(sizeof(struct uvm_register_gpu) == 40 && sizeof(struct uvm_range_group) == 16, "uvm");
_Static_assert(sizeof(struct uvm_register_vaspace) == 32, "uvm");

#define UVM_INITIALIZE 0x30000001u
#define UVM_DEINITIALIZE 0x30000002u
#define UVM_RESERVE_VA 1u /* not routed by the driver */
#define UVM_CREATE_RANGE_GROUP 23u
#define UVM_REGISTER_GPU_VASPACE 25u
#define UVM_REGISTER_GPU 37u
#define UVM_PAGEABLE_MEM_ACCESS 39u

#define CLASS_VASPACE 0x90F1u
#define CLASS_CTXSHARE 0x9067u
#define H_CLIENT 0x5C5C0001u
#define H_DEVICE 0x5C5C0002u
#define H_SUBDEV 0x5C5C0003u
#define H_VAS 0x5C5C0004u
#define H_TSG 0x5C5C0005u
#define H_CTX 0x5C5C0006u

/* The syscall's result: "0" or "-ERRNO". */
static const char *result(int rc)
{
    static char buf[16];
    snprintf(buf, sizeof buf, "%d", rc == 0 ? 0 : -errno);
    return buf;
}

static uint32_t alloc(int fd, uint32_t root, uint32_t parent, uint32_t h, uint32_t cls, void *p, uint32_t n)
{
    raw_nvos21 a = {root, parent, h, cls, (uint64_t)(uintptr_t)p, n, 0xFFFFFFFFu};
    int rc = dev_ioctl(fd, RAW_REQ(RAW_ESC_RM_ALLOC, sizeof(a)), &a);
    printf("alloc class 0x%04x as 0x%08x: rc %s status 0x%x handle 0x%08x\n", cls, h ? h : root, result(rc), a.status,
           a.hObjectNew);
    return a.status;
}

static void control(int fd, uint32_t obj, uint32_t cmd, void *p, uint32_t n)
{
    raw_nvos54 c = {H_CLIENT, obj, cmd, 0, (uint64_t)(uintptr_t)p, n, 0xFFFFFFFFu};
    int rc = dev_ioctl(fd, RAW_REQ(RAW_ESC_RM_CONTROL, sizeof(c)), &c);
    printf("control 0x%08x: rc %s status 0x%x\n", cmd, result(rc), c.status);
}

static void uvm(int fd, const char *name, uint32_t cmd, void *block)
{
    int rc = dev_ioctl(fd, cmd, block);
    printf("uvm %s: rc %s", name, result(rc));
}

int main(void)
{
#ifdef PARITY_INPROC
    nvemu_config cfg;
    nvemu_config_init(&cfg);
    char err[256];
    nvemu *emu = nvemu_create(&cfg, err, sizeof err);
    if (!emu || !(table = nvemu_fdtable_create(emu, false))) {
        fprintf(stderr, "parity_inproc: %s\n", emu ? "out of memory" : err);
        return 1;
    }
    nvemu_identity_self(&self);
#endif
    setvbuf(stdout, NULL, _IOLBF, 0);
    int ctl = dev_open("/dev/nvidiactl"), gpu = dev_open("/dev/nvidia0"), uvmfd = dev_open("/dev/nvidia-uvm");
    if (ctl < 0 || gpu < 0 || uvmfd < 0) {
        fprintf(stderr, "parity: cannot open the nodes: %s\n", strerror(errno));
        return 1;
    }

    uint32_t root_param = 0;
    alloc(ctl, H_CLIENT, 0, 0, RAW_CLASS_CLIENT, &root_param, 4);
    raw_nv0080_alloc dev;
    memset(&dev, 0, sizeof dev);
    alloc(ctl, H_CLIENT, H_CLIENT, H_DEVICE, RAW_CLASS_DEVICE, &dev, sizeof dev);
    uint32_t sub = 0;
    alloc(ctl, H_CLIENT, H_DEVICE, H_SUBDEV, RAW_CLASS_SUBDEVICE, &sub, 4);
    struct vaspace_alloc va = {.flags = 0x48};  /* libcuda's: externally owned (UVM) + page faulting */
    alloc(ctl, H_CLIENT, H_DEVICE, H_VAS, CLASS_VASPACE, &va, sizeof va);
    raw_tsg_alloc tsg;
    memset(&tsg, 0, sizeof tsg);
    tsg.engineType = RAW_ENGINE_GR0;
    tsg.hVASpace = H_VAS;
    alloc(ctl, H_CLIENT, H_DEVICE, H_TSG, RAW_CLASS_TSG, &tsg, sizeof tsg);
    uint64_t ts = 0;
    control(ctl, H_TSG, RAW_CTRL_GET_TIMESLICE, &ts, sizeof ts);
    printf("timeslice %llu us\n", (unsigned long long)ts);
    struct ctxshare_alloc cs = {.hVASpace = H_VAS, .flags = 1};
    alloc(ctl, H_CLIENT, H_TSG, H_CTX, CLASS_CTXSHARE, &cs, sizeof cs);

    struct uvm_pageable pm = {.access = 1, .rmStatus = 0xFFFFFFFFu};
    uvm(uvmfd, "PAGEABLE_MEM_ACCESS before INITIALIZE", UVM_PAGEABLE_MEM_ACCESS, &pm);
    printf(" status 0x%x\n", pm.rmStatus);
    struct uvm_initialize init = {.rmStatus = 0xFFFFFFFFu};
    uvm(uvmfd, "INITIALIZE", UVM_INITIALIZE, &init);
    printf(" status 0x%x\n", init.rmStatus);
    pm.rmStatus = 0xFFFFFFFFu;
    uvm(uvmfd, "PAGEABLE_MEM_ACCESS", UVM_PAGEABLE_MEM_ACCESS, &pm);
    printf(" status 0x%x access %u\n", pm.rmStatus, pm.access);
    struct uvm_register_gpu rg = {.numaEnabled = 1, .rmCtrlFd = ctl, .hClient = H_CLIENT, .rmStatus = 0xFFFFFFFFu};
    uvm(uvmfd, "REGISTER_GPU", UVM_REGISTER_GPU, &rg);
    printf(" status 0x%x numaEnabled %u numaNodeId %d\n", rg.rmStatus, rg.numaEnabled, rg.numaNodeId);
    for (int i = 0; i < 2; i++) {
        struct uvm_range_group g = {.rmStatus = 0xFFFFFFFFu};
        uvm(uvmfd, "CREATE_RANGE_GROUP", UVM_CREATE_RANGE_GROUP, &g);
        printf(" status 0x%x id %llu\n", g.rmStatus, (unsigned long long)g.id);
    }
    struct uvm_register_vaspace rv = {.rmCtrlFd = ctl, .hClient = H_CLIENT, .hVaSpace = H_VAS,
                                      .rmStatus = 0xFFFFFFFFu};
    uvm(uvmfd, "REGISTER_GPU_VASPACE", UVM_REGISTER_GPU_VASPACE, &rv);
    printf(" status 0x%x\n", rv.rmStatus);
    cs.subctxId = 0;
    alloc(ctl, H_CLIENT, H_TSG, H_CTX, CLASS_CTXSHARE, &cs, sizeof cs);
    printf("subcontext %u\n", cs.subctxId);
    uint8_t junk[64];
    memset(junk, 0xEE, sizeof junk);
    uvm(uvmfd, "RESERVE_VA (not routed)", UVM_RESERVE_VA, junk);
    printf(" byte0 0x%02x\n", junk[0]);
    raw_nvos00 fr = {H_CLIENT, H_CLIENT, H_CLIENT, 0xFFFFFFFFu};
    printf("RM_FREE on nvidia-uvm: rc %s\n", result(dev_ioctl(uvmfd, RAW_REQ(RAW_ESC_RM_FREE, sizeof fr), &fr)));
    uvm(uvmfd, "DEINITIALIZE", UVM_DEINITIALIZE, NULL);
    printf("\n");
    fr.status = 0xFFFFFFFFu;
    int rc = dev_ioctl(ctl, RAW_REQ(RAW_ESC_RM_FREE, sizeof fr), &fr);
    printf("free client: rc %s status 0x%x\n", result(rc), fr.status);
    control(ctl, H_TSG, RAW_CTRL_GET_TIMESLICE, &ts, sizeof ts);
#ifdef PARITY_INPROC
    nvemu_fdtable_destroy(table);
    nvemu_destroy(emu);
#else
    close(uvmfd);
    close(gpu);
    close(ctl);
#endif
    return 0;
}
