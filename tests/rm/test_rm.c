/*
 * Resource-server and dispatch rules (docs/driver-sources.md §A, B, C, D, E, H), each
 * through the real entry point (in-process fd table -> nvemu_ioctl).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <pthread.h>
#include <stdlib.h>
#include <cmocka.h>

#include "core/emulator.h"
#include "rm/rm_internal.h"
#include "rm_test_util.h"

#define HDEV 0x5C000002u
#define HSUB 0x5C000003u

static int setup(void **state)
{
    struct tenv *e = calloc(1, sizeof(*e));
    if (!e || tenv_init(e, false) != 0)
        return -1;
    *state = e;
    return 0;
}

static int teardown(void **state)
{
    struct tenv *e = *state;
    tenv_fini(e);
    free(e);
    return 0;
}

/* ---- decoding, sizes, nodes ---- */

static void decode_ignores_magic_and_direction(void **state)
{
    struct tenv *e = *state;
    NVOS64_PARAMETERS p;
    memset(&p, 0, sizeof(p));
    /* type 'X' and no direction bits: only nr and size count */
    unsigned long req = (48ul << 16) | ('X' << 8) | NV_ESC_RM_ALLOC;
    assert_int_equal(nvemu_fdtable_ioctl(e->t, e->ctl, req, &p), 0);
    assert_int_equal(p.status, NV_OK);
    assert_int_equal(p.hObjectNew, 0xC1D00000u);
}

static void wrong_sizes_and_nodes_are_einval(void **state)
{
    struct tenv *e = *state;
    unsigned char buf[64] = {0};
    assert_int_equal(tio(e, e->ctl, NV_ESC_RM_ALLOC, buf, 40), -EINVAL);
    assert_int_equal(tio(e, e->ctl, NV_ESC_RM_CONTROL, buf, 28), -EINVAL);
    assert_int_equal(tio(e, e->ctl, NV_ESC_RM_FREE, buf, 20), -EINVAL);
    assert_int_equal(tio(e, e->ctl, 0x5B, buf, 16), -EINVAL);            /* unknown escape */
    assert_int_equal(tio(e, e->ctl, NV_ESC_RM_CONFIG_GET, buf, 16), -EINVAL);
    assert_int_equal(tio(e, e->ctl, NV_ESC_RM_QUERY_GROUP, buf, 32), -EINVAL); /* stock driver */
    int dev = nvemu_fdtable_open(e->t, "/dev/nvidia0", &e->who);
    assert_true(dev >= 0);
    NVOS54_PARAMETERS c;
    memset(&c, 0, sizeof(c));
    assert_int_equal(tio(e, dev, NV_ESC_RM_CONTROL, &c, sizeof(c)), -EINVAL); /* ctl only */
    assert_int_equal(tio(e, dev, NVEMU_ESC_PRIVATE_FIRST, buf, 40), -EINVAL);
    nv_ioctl_numa_info_t numa;
    assert_int_equal(tio(e, e->ctl, NV_ESC_NUMA_INFO, &numa, sizeof(numa)), -EINVAL); /* dev only */
    /* a root alloc on /dev/nvidia0 is refused, an event alloc is not refused by the node rule */
    NVOS64_PARAMETERS a;
    memset(&a, 0, sizeof(a));
    assert_int_equal(tio(e, dev, NV_ESC_RM_ALLOC, &a, sizeof(a)), -EINVAL);
    a.hClass = NV01_EVENT_OS_EVENT;
    assert_int_equal(tio(e, dev, NV_ESC_RM_ALLOC, &a, sizeof(a)), 0);
    assert_int_equal(a.status, NV_ERR_INVALID_ARGUMENT); /* required params missing */
    assert_int_equal(nvemu_fdtable_close(e->t, dev), 0);
    assert_int_equal(nvemu_fdtable_ioctl(e->t, dev, NV_IOCTL_REQUEST(NV_ESC_RM_FREE, 16), buf), -1);
    assert_int_equal(errno, EBADF);
}

static void bad_pointers_fault(void **state)
{
    struct tenv *e = *state;
    assert_int_equal(nvemu_fdtable_ioctl(e->t, e->ctl, NV_IOCTL_REQUEST(NV_ESC_RM_ALLOC, 48), (void *)16), -1);
    assert_int_equal(errno, EFAULT);
    uint32_t hc = tbase(e, e->ctl, HDEV, HSUB);
    assert_int_not_equal(hc, 0);
    /* control params at a bad address: status, not a crash */
    assert_int_equal(tctrl(e, e->ctl, hc, HSUB, 0x20800110u, (void *)16, 132), NV_ERR_INVALID_ADDRESS);
    /* alloc params at a bad address */
    uint32_t h = 0x1234;
    assert_int_equal(talloc(e, e->ctl, hc, HDEV, &h, FERMI_VASPACE_A, (void *)24), NV_ERR_INVALID_ADDRESS);
}

/* ---- clients and handles ---- */

static void root_client_alloc_rewrites_class_and_handle(void **state)
{
    struct tenv *e = *state;
    NVOS21_PARAMETERS p;
    memset(&p, 0, sizeof(p));
    p.hClass = NV01_ROOT;
    NV0000_ALLOC_PARAMETERS ap;
    memset(&ap, 0x5A, sizeof(ap));
    p.pAllocParms = (uint64_t)(uintptr_t)&ap;
    assert_int_equal(tio(e, e->ctl, NV_ESC_RM_ALLOC, &p, sizeof(p)), 0);
    assert_int_equal(p.status, NV_OK);
    assert_int_equal(p.hClass, NV01_ROOT_CLIENT);          /* rewritten in the caller's struct */
    assert_int_equal(p.hObjectNew, 0xC1D00000u);
    assert_int_equal(ap.hClient, 0xC1D00000u);             /* first 4 bytes of the params */
    assert_int_equal(ap.processID, 0x5A5A5A5Au);           /* and nothing more */
    uint32_t h = 0;
    assert_int_equal(talloc(e, e->ctl, 0, 0, &h, NV01_ROOT_NON_PRIV, NULL), NV_OK);
    assert_int_equal(h, 0xC1D00001u);
    h = 0;
    assert_int_equal(talloc(e, e->ctl, 0xABCD0001u, 0, &h, NV01_ROOT_CLIENT, NULL), NV_OK);
    assert_int_equal(h, 0xABCD0001u);                      /* chosen handles are kept */
    assert_int_equal(talloc(e, e->ctl, 0xABCD0001u, 0, &h, NV01_ROOT_CLIENT, NULL), NV_ERR_INSERT_DUPLICATE_NAME);
    /* the auto counter skips a handle taken by choice */
    h = 0;
    assert_int_equal(talloc(e, e->ctl, 0xC1D00002u, 0, &h, NV01_ROOT_CLIENT, NULL), NV_OK);
    h = 0;
    assert_int_equal(talloc(e, e->ctl, 0, 0, &h, NV01_ROOT_CLIENT, NULL), NV_OK);
    assert_int_equal(h, 0xC1D00003u);
}

static void child_alloc_gets_the_drivers_generated_handle(void **state)
{
    struct tenv *e = *state;
    uint32_t hc = tbase(e, e->ctl, HDEV, HSUB);
    assert_int_not_equal(hc, 0);
    NV_VASPACE_ALLOCATION_PARAMETERS va;
    memset(&va, 0, sizeof(va));
    uint32_t h = 0;
    assert_int_equal(talloc(e, e->ctl, hc, HDEV, &h, FERMI_VASPACE_A, &va), NV_OK);
    assert_int_equal(h, 0xCAF00000u);
    h = 0;
    assert_int_equal(talloc(e, e->ctl, hc, HDEV, &h, FERMI_VASPACE_A, &va), NV_OK);
    assert_int_equal(h, 0xCAF00001u);
    /* as recorded on the H200: the client's handle is refused as a parent error, the generated range is free */
    h = hc;
    assert_int_equal(talloc(e, e->ctl, hc, HDEV, &h, FERMI_VASPACE_A, &va), NV_ERR_INVALID_OBJECT_PARENT);
    h = 0xCAF00010u;
    assert_int_equal(talloc(e, e->ctl, hc, HDEV, &h, FERMI_VASPACE_A, &va), NV_OK);
    h = HSUB;
    assert_int_equal(talloc(e, e->ctl, hc, HDEV, &h, FERMI_VASPACE_A, &va), NV_ERR_INSERT_DUPLICATE_NAME);
}

static void bad_parent_or_class_alloc_is_refused_with_the_drivers_status(void **state)
{
    struct tenv *e = *state;
    uint32_t hc = tbase(e, e->ctl, HDEV, HSUB);
    assert_int_not_equal(hc, 0);
    uint32_t h = 0x100;
    NV_VASPACE_ALLOCATION_PARAMETERS va;
    memset(&va, 0, sizeof(va));
    assert_int_equal(talloc(e, e->ctl, hc, 0x777, &h, FERMI_VASPACE_A, &va), NV_ERR_OBJECT_NOT_FOUND);
    assert_int_equal(talloc(e, e->ctl, hc, hc, &h, FERMI_VASPACE_A, &va), NV_ERR_INVALID_OBJECT_PARENT);
    assert_int_equal(talloc(e, e->ctl, hc, HDEV, &h, 0x1234, &va), NV_ERR_INVALID_CLASS);
    assert_int_equal(talloc(e, e->ctl, hc, HDEV, &h, VOLTA_COMPUTE_A, NULL), NV_ERR_INVALID_CLASS);
    assert_int_equal(talloc(e, e->ctl, hc, HDEV, &h, KERNEL_GRAPHICS_CONTEXT, NULL), NV_ERR_INVALID_CLASS);
    assert_int_equal(talloc(e, e->ctl, hc, HDEV, &h, FERMI_VASPACE_A, NULL), NV_ERR_INVALID_ARGUMENT);
    uint32_t hs2 = 0x200;
    NV2080_ALLOC_PARAMETERS sp = {0};
    assert_int_equal(talloc(e, e->ctl, hc, HDEV, &hs2, NV20_SUBDEVICE_0, &sp), NV_ERR_INSUFFICIENT_RESOURCES);
    assert_int_equal(talloc(e, e->ctl, hc, HDEV, &hs2, NV20_SUBDEVICE_0, NULL), NV_ERR_INSUFFICIENT_RESOURCES);
    sp.subDeviceId = 1;
    assert_int_equal(talloc(e, e->ctl, hc, HDEV, &hs2, NV20_SUBDEVICE_0, &sp), NV_OK);
    sp.subDeviceId = 8;
    hs2 = 0x201;
    assert_int_equal(talloc(e, e->ctl, hc, HDEV, &hs2, NV20_SUBDEVICE_0, &sp), NV_ERR_INVALID_ARGUMENT);
    assert_int_equal(talloc(e, e->ctl, 0x4444, HDEV, &h, FERMI_VASPACE_A, &va), NV_ERR_INVALID_OBJECT_HANDLE);
    /* usermode of a class this GPU lacks: not in the profile's class list */
    assert_int_equal(talloc(e, e->ctl, hc, HSUB, &h, BLACKWELL_USERMODE_A, NULL), NV_ERR_NOT_SUPPORTED);
    assert_int_equal(talloc(e, e->ctl, hc, HSUB, &h, HOPPER_USERMODE_A, NULL), NV_OK);
}

static void device_alloc_needs_an_open_device_node(void **state)
{
    struct tenv *e = *state;
    uint32_t hc = 0;
    assert_int_equal(talloc(e, e->ctl, 0, 0, &hc, NV01_ROOT_CLIENT, NULL), NV_OK);
    uint32_t h = 0x10;
    NV0080_ALLOC_PARAMETERS dp;
    memset(&dp, 0, sizeof(dp));
    /* the process has no /dev/nvidia0 open yet (recorded: INSUFFICIENT_PERMISSIONS) */
    assert_int_equal(talloc(e, e->ctl, hc, hc, &h, NV01_DEVICE_0, &dp), NV_ERR_INSUFFICIENT_PERMISSIONS);
    nvemu_identity other;
    tenv_identity(&other, 999, 2000, 0);
    int foreign = nvemu_fdtable_open(e->t, "/dev/nvidia0", &other);
    assert_int_equal(talloc(e, e->ctl, hc, hc, &h, NV01_DEVICE_0, &dp), NV_ERR_INSUFFICIENT_PERMISSIONS);
    int gpu = topen_gpu(e, e->ctl);
    assert_true(foreign >= 0 && gpu >= 0);
    assert_int_equal(talloc(e, e->ctl, hc, hc, &h, NV01_DEVICE_0, NULL), NV_ERR_INVALID_ARGUMENT);
    dp.deviceId = 32;
    assert_int_equal(talloc(e, e->ctl, hc, hc, &h, NV01_DEVICE_0, &dp), NV_ERR_INVALID_ARGUMENT);
    dp.deviceId = nvemu_gpu_count(e->emu);
    assert_int_equal(talloc(e, e->ctl, hc, hc, &h, NV01_DEVICE_0, &dp), NV_ERR_INVALID_CLASS);
    dp.deviceId = 0;
    assert_int_equal(talloc(e, e->ctl, hc, 0, &h, NV01_DEVICE_0, &dp), NV_OK); /* parent 0 = the client */
    uint32_t h2 = 0x12;
    assert_int_equal(talloc(e, e->ctl, hc, 0, &h2, NV01_DEVICE_0, &dp), NV_OK); /* same instance again */
    assert_int_equal(nvemu_fdtable_close(e->t, gpu), 0);
    uint32_t h3 = 0x13;
    assert_int_equal(talloc(e, e->ctl, hc, 0, &h3, NV01_DEVICE_0, &dp), NV_ERR_INSUFFICIENT_PERMISSIONS);
    /* a forked child inherits its parent's fds: a node open by the same user stands for that */
    nvemu_identity sibling;
    tenv_identity(&sibling, 1001, e->who.uid, 0);
    assert_true(nvemu_fdtable_open(e->t, "/dev/nvidia0", &sibling) >= 0);
    assert_int_equal(talloc(e, e->ctl, hc, 0, &h3, NV01_DEVICE_0, &dp), NV_OK);
}

/* ---- free ---- */

static void free_of_an_unknown_object_is_ok_and_of_an_unknown_client_is_refused(void **state)
{
    struct tenv *e = *state;
    uint32_t hc = tbase(e, e->ctl, HDEV, HSUB);
    assert_int_not_equal(hc, 0);
    nvemu_stats s0, s1;
    nvemu_get_stats(e->emu, &s0);
    assert_int_equal(s0.clients, 1);
    assert_int_equal(s0.objects, 3);
    assert_int_equal(tfree(e, e->ctl, hc, 0x999), NV_OK);                 /* unknown object */
    assert_int_equal(tfree(e, e->ctl, 0x999, 0x999), NV_ERR_INVALID_OBJECT_HANDLE);
    assert_int_equal(tfree(e, e->ctl, hc, HDEV), NV_OK);                  /* frees the subdevice too */
    nvemu_get_stats(e->emu, &s1);
    assert_int_equal(s1.objects, 1);
    unsigned char name[132] = {0};
    assert_int_equal(tctrl(e, e->ctl, hc, HSUB, 0x20800110u, name, sizeof(name)), NV_ERR_OBJECT_NOT_FOUND);
    assert_int_equal(tfree(e, e->ctl, hc, hc), NV_OK);                    /* whole client */
    nvemu_get_stats(e->emu, &s1);
    assert_int_equal(s1.clients, 0);
    assert_int_equal(s1.objects, 0);
    assert_int_equal(tfree(e, e->ctl, hc, hc), NV_ERR_INVALID_OBJECT_HANDLE);
}

static void dependants_are_freed_first(void **state)
{
    struct tenv *e = *state;
    uint32_t hc = tbase(e, e->ctl, HDEV, HSUB);
    NV_MEMORY_ALLOCATION_PARAMS mp;
    memset(&mp, 0, sizeof(mp));
    uint32_t m1 = 0x300, m2 = 0x301;
    assert_int_equal(talloc(e, e->ctl, hc, HDEV, &m1, NV01_MEMORY_SYSTEM, &mp), NV_OK);
    assert_int_equal(talloc(e, e->ctl, hc, HDEV, &m2, NV01_MEMORY_SYSTEM, &mp), NV_OK);
    nvemu_opener *op = nvemu_fdtable_opener(e->t, e->ctl);
    struct rm_object *o1, *o2, *dev;
    assert_int_equal(rm_find_object(nvemu_rm(e->emu), op, hc, m1, &o1), NV_OK);
    assert_int_equal(rm_find_object(nvemu_rm(e->emu), op, hc, m2, &o2), NV_OK);
    assert_int_equal(rm_find_object(nvemu_rm(e->emu), op, hc, HDEV, &dev), NV_OK);
    assert_int_equal(rm_add_dependant(o1, o2), NV_OK);
    assert_int_equal(rm_add_dependant(o1, dev), NV_ERR_INVALID_ARGUMENT); /* an ancestor cannot depend */
    assert_int_equal(rm_add_dependant(o1, o1), NV_ERR_INVALID_ARGUMENT);
    nvemu_stats s0, s1;
    nvemu_get_stats(e->emu, &s0);
    assert_int_equal(tfree(e, e->ctl, hc, m1), NV_OK);
    /* the dependant outside the freed subtree is invalidated: handle kept, every use RESOURCE_LOST */
    assert_int_equal(rm_find_object(nvemu_rm(e->emu), op, hc, m2, &o2), NV_ERR_RESOURCE_LOST);
    nv_ioctl_nvos33_parameters_with_fd m;
    memset(&m, 0, sizeof(m));
    m.params.hClient = hc;
    m.params.hDevice = HDEV;
    m.params.hMemory = m2;
    assert_int_equal(tio(e, e->ctl, NV_ESC_RM_MAP_MEMORY, &m, sizeof(m)), 0);
    assert_int_equal(m.params.status, NV_ERR_RESOURCE_LOST);
    uint32_t again = m2;
    assert_int_equal(talloc(e, e->ctl, hc, HDEV, &again, NV01_MEMORY_SYSTEM, &mp), NV_ERR_INSERT_DUPLICATE_NAME);
    nvemu_get_stats(e->emu, &s1);
    assert_int_equal(s0.objects - s1.objects, 1);
    assert_int_equal(tfree(e, e->ctl, hc, m2), NV_OK);
    assert_int_equal(rm_find_object(nvemu_rm(e->emu), op, hc, m2, &o2), NV_ERR_OBJECT_NOT_FOUND);
    assert_int_equal(rm_find_object(nvemu_rm(e->emu), op, hc, HSUB, &o2), NV_OK);
}

/* ---- ownership ---- */

static void another_fds_client_is_invalid_client(void **state)
{
    struct tenv *e = *state;
    uint32_t hc = tbase(e, e->ctl, HDEV, HSUB);
    nvemu_identity same;
    tenv_identity(&same, 100, 1000, 0);
    int other = nvemu_fdtable_open(e->t, "/dev/nvidiactl", &same);
    assert_true(other >= 0);
    unsigned char name[132] = {0};
    assert_int_equal(tctrl(e, other, hc, HSUB, 0x20800110u, name, sizeof(name)), NV_ERR_INVALID_CLIENT);
    uint32_t h = 0x500;
    NV_VASPACE_ALLOCATION_PARAMETERS va;
    memset(&va, 0, sizeof(va));
    assert_int_equal(talloc(e, other, hc, HDEV, &h, FERMI_VASPACE_A, &va), NV_ERR_INVALID_CLIENT);
    assert_int_equal(tfree(e, other, hc, HSUB), NV_ERR_INVALID_CLIENT);
    assert_int_equal(tctrl(e, e->ctl, 0x7777, 0x7777, 0x20800110u, name, sizeof(name)), NV_ERR_INVALID_CLIENT);
    /* closing the creating opener frees its clients */
    nvemu_stats s;
    assert_int_equal(nvemu_fdtable_close(e->t, e->ctl), 0);
    nvemu_get_stats(e->emu, &s);
    assert_int_equal(s.clients, 0);
    assert_int_equal(s.objects, 0);
    e->ctl = other;
}

static void register_fd_refuses_non_ctl_self_and_short_calls(void **state)
{
    struct tenv *e = *state;
    uint32_t hc = tbase(e, e->ctl, HDEV, HSUB);
    int dev = nvemu_fdtable_open(e->t, "/dev/nvidia0", &e->who);
    int dev2 = nvemu_fdtable_open(e->t, "/dev/nvidia0", &e->who);
    int ctl2 = nvemu_fdtable_open(e->t, "/dev/nvidiactl", &e->who);
    nv_ioctl_register_fd_t r = {dev2};
    assert_int_equal(tio(e, dev, NV_ESC_REGISTER_FD, &r, sizeof(r)), -EINVAL); /* not a ctl fd */
    r.ctl_fd = 999;
    assert_int_equal(tio(e, dev, NV_ESC_REGISTER_FD, &r, sizeof(r)), -EINVAL);
    r.ctl_fd = ctl2;
    assert_int_equal(tio(e, ctl2, NV_ESC_REGISTER_FD, &r, sizeof(r)), -EINVAL); /* self */
    r.ctl_fd = e->ctl;
    assert_int_equal(tio(e, dev, NV_ESC_REGISTER_FD, &r, 8), -EINVAL);          /* size */
    assert_int_equal(tio(e, dev, NV_ESC_REGISTER_FD, &r, sizeof(r)), 0);
    assert_int_equal(tio(e, dev, NV_ESC_REGISTER_FD, &r, sizeof(r)), -EINVAL);   /* already linked */
    r.ctl_fd = ctl2;
    assert_int_equal(tio(e, ctl2, NV_ESC_REGISTER_FD, &r, sizeof(r)), -EINVAL);
    assert_int_equal(tio(e, e->ctl, NV_ESC_REGISTER_FD, &r, sizeof(r)), 0);      /* ctl fds may link too */
    r.ctl_fd = e->ctl;
    assert_int_equal(tio(e, dev2, NV_ESC_REGISTER_FD, &r, sizeof(r)), -EINVAL);  /* target itself linked */
    /* the registered device fd acts with the control fd's identity: event alloc on nvidia0 */
    NV0005_ALLOC_PARAMETERS ev;
    memset(&ev, 0, sizeof(ev));
    ev.hParentClient = hc;
    ev.hSrcResource = HSUB;
    ev.hClass = NV01_EVENT_OS_EVENT;
    uint32_t he = 0x600;
    assert_int_equal(talloc(e, dev, hc, HSUB, &he, NV01_EVENT_OS_EVENT, &ev), NV_OK);
    /* an unregistered device fd is another owner */
    he = 0x601;
    assert_int_equal(talloc(e, dev2, hc, HSUB, &he, NV01_EVENT_OS_EVENT, &ev), NV_ERR_INVALID_CLIENT);
    /* a fd holding GPU references cannot be registered */
    int ctl3 = nvemu_fdtable_open(e->t, "/dev/nvidiactl", &e->who);
    int ctl4 = nvemu_fdtable_open(e->t, "/dev/nvidiactl", &e->who);
    uint32_t ids[1] = {0};
    assert_int_equal(tio(e, ctl3, NV_ESC_ATTACH_GPUS_TO_FD, ids, sizeof(ids)), 0);
    r.ctl_fd = ctl4;
    assert_int_equal(tio(e, ctl3, NV_ESC_REGISTER_FD, &r, sizeof(r)), -EINVAL);
}

static void close_ctl_keeps_clients_while_registered(void **state)
{
    struct tenv *e = *state;
    uint32_t hc = tbase(e, e->ctl, HDEV, HSUB);
    assert_int_not_equal(hc, 0);
    int dev = nvemu_fdtable_open(e->t, "/dev/nvidia0", &e->who);
    nv_ioctl_register_fd_t r = {e->ctl};
    assert_int_equal(tio(e, dev, NV_ESC_REGISTER_FD, &r, sizeof(r)), 0);
    nvemu_stats s;
    assert_int_equal(nvemu_fdtable_close(e->t, e->ctl), 0);
    nvemu_get_stats(e->emu, &s);
    assert_int_equal(s.clients, 1);
    assert_int_equal(s.openers, 3); /* the closed nvidiactl stays behind its registered fd (+ tbase's nvidia0) */
    assert_int_equal(nvemu_fdtable_close(e->t, dev), 0);
    nvemu_get_stats(e->emu, &s);
    assert_int_equal(s.clients, 0);
    assert_int_equal(s.openers, 1);
    e->ctl = nvemu_fdtable_open(e->t, "/dev/nvidiactl", &e->who);
}

/* ---- controls ---- */

static void control_generic_checks(void **state)
{
    struct tenv *e = *state;
    uint32_t hc = tbase(e, e->ctl, HDEV, HSUB);
    unsigned char buf[2048];
    memset(buf, 0, sizeof(buf));
    assert_int_equal(tctrl(e, e->ctl, hc, HSUB, 0x20800000u, NULL, 0), NV_OK);      /* NULL command */
    assert_int_equal(tctrl(e, e->ctl, hc, HSUB, 0x2080FF77u, buf, 4), NV_ERR_NOT_SUPPORTED);
    assert_int_equal(tctrl(e, e->ctl, hc, HSUB, 0x20800110u, buf, 131), NV_ERR_INVALID_ARGUMENT);
    assert_int_equal(tctrl(e, e->ctl, hc, HSUB, 0x20800110u, NULL, 132), NV_ERR_INVALID_ARGUMENT);
    assert_int_equal(tctrl(e, e->ctl, hc, HSUB, 0x20800110u, buf, 0), NV_ERR_INVALID_ARGUMENT);
    assert_int_equal(tctrl(e, e->ctl, hc, HSUB, 0x2080FF77u, buf, (1u << 20) + 1), NV_ERR_INVALID_ARGUMENT);
    assert_int_equal(tctrl(e, e->ctl, hc, 0x4242, 0x20800110u, buf, 132), NV_ERR_OBJECT_NOT_FOUND);
    /* a subdevice command on the device object is not exported there */
    assert_int_equal(tctrl(e, e->ctl, hc, HDEV, 0x20800110u, buf, 132), NV_ERR_NOT_SUPPORTED);
    NVOS54_PARAMETERS p;
    memset(&p, 0, sizeof(p));
    p.hClient = hc;
    p.hObject = HSUB;
    p.cmd = 0x20800110u;
    p.params = (uint64_t)(uintptr_t)buf;
    p.paramsSize = 132;
    p.flags = NVOS54_FLAGS_LOCK_BYPASS;
    assert_int_equal(tio(e, e->ctl, NV_ESC_RM_CONTROL, &p, sizeof(p)), 0);
    assert_int_equal(p.status, NV_ERR_INVALID_ARGUMENT);
}

static void control_copy_out_only_on_ok(void **state)
{
    struct tenv *e = *state;
    uint32_t hc = tbase(e, e->ctl, HDEV, HSUB);
    uint32_t hp = 0x700;
    NV503C_ALLOC_PARAMETERS pp = {0};
    assert_int_equal(talloc(e, e->ctl, hc, HSUB, &hp, NV50_THIRD_PARTY_P2P, &pp), NV_OK);
    uint32_t reg[4] = {0x4242, 0, 0xAAAAAAAAu, 0xAAAAAAAAu};
    assert_int_equal(tctrl(e, e->ctl, hc, hp, 0x503C0102u, reg, sizeof(reg)), NV_ERR_OBJECT_NOT_FOUND);
    assert_int_equal(reg[2], 0xAAAAAAAAu);
    NV_VASPACE_ALLOCATION_PARAMETERS va;
    memset(&va, 0, sizeof(va));
    uint32_t hva = 0x701;
    assert_int_equal(talloc(e, e->ctl, hc, HDEV, &hva, FERMI_VASPACE_A, &va), NV_OK);
    reg[0] = hva;
    assert_int_equal(tctrl(e, e->ctl, hc, hp, 0x503C0102u, reg, sizeof(reg)), NV_OK);
    assert_int_equal(reg[2], 0xFE00u);
    assert_int_equal(reg[3], 0);
    /* the same command on an object of another class is not exported */
    assert_int_equal(tctrl(e, e->ctl, hc, hva, 0x503C0102u, reg, sizeof(reg)), NV_ERR_NOT_SUPPORTED);
}

/* REGISTER_VA_SPACE answers 0xFE00 every time: a second object, and a second VA space on one object, as recorded. */
static void third_party_p2p_every_registration_answers_the_first_token(void **state)
{
    struct tenv *e = *state;
    uint32_t hc = tbase(e, e->ctl, HDEV, HSUB);
    NV_VASPACE_ALLOCATION_PARAMETERS va;
    memset(&va, 0, sizeof(va));
    uint32_t hva[2] = {0x711, 0x712};
    for (int i = 0; i < 2; i++)
        assert_int_equal(talloc(e, e->ctl, hc, HDEV, &hva[i], FERMI_VASPACE_A, &va), NV_OK);
    for (uint32_t obj = 0x720; obj < 0x722; obj++) {
        uint32_t hp = obj;
        NV503C_ALLOC_PARAMETERS pp = {0};
        assert_int_equal(talloc(e, e->ctl, hc, HSUB, &hp, NV50_THIRD_PARTY_P2P, &pp), NV_OK);
        for (int i = 0; i < 2; i++) {
            uint32_t reg[4] = {hva[i], 0, 0xAAAAAAAAu, 0xAAAAAAAAu};
            assert_int_equal(tctrl(e, e->ctl, hc, hp, 0x503C0102u, reg, sizeof(reg)), NV_OK);
            assert_int_equal(reg[2], 0xFE00u);
        }
    }
}

/* ---- OS escapes ---- */

static void card_info_answers_the_profiles_pci_ids(void **state)
{
    struct tenv *e = *state;
    static nv_ioctl_card_info_t ci[32];
    memset(ci, 0xEE, sizeof(ci));
    assert_int_equal(tio(e, e->ctl, NV_ESC_CARD_INFO, ci, sizeof(ci)), 0);
    const struct profile *p = nvemu_profile(e->emu);
    assert_int_equal(ci[0].valid, 1);
    assert_int_equal(ci[0].pci_info.vendor_id, p->pci_vendor_id);
    assert_int_equal(ci[0].pci_info.device_id, p->pci_device_id);
    assert_int_equal(ci[0].gpu_id, ((p->pci_domain & 0xFFFF) << 16) | (p->pci_bus << 8) | p->pci_slot);
    assert_int_equal(ci[0].fb_size, p->fb_size);
    assert_int_equal(ci[1].valid, 0);
    assert_int_equal(tio(e, e->ctl, NV_ESC_CARD_INFO, ci, 71), -EINVAL);
    int dev = nvemu_fdtable_open(e->t, "/dev/nvidia0", &e->who);
    assert_int_equal(tio(e, dev, NV_ESC_CARD_INFO, ci, sizeof(ci)), -EINVAL);
}

static void version_check_accepts_the_release_and_refuses_another_copying_it_back(void **state)
{
    struct tenv *e = *state;
    const char *ver = nvemu_profile(e->emu)->driver_version;
    nv_ioctl_rm_api_version_t v;
    memset(&v, 0, sizeof(v));
    strcpy(v.versionString, ver);
    assert_int_equal(tio(e, e->ctl, NV_ESC_CHECK_VERSION_STR, &v, sizeof(v)), 0);
    assert_int_equal(v.reply, 1);
    memset(&v, 0, sizeof(v));
    strcpy(v.versionString, "1.2.3");
    assert_int_equal(tio(e, e->ctl, NV_ESC_CHECK_VERSION_STR, &v, sizeof(v)), -EINVAL);
    assert_string_equal(v.versionString, ver); /* copied back although the call failed */
    memset(&v, 0, sizeof(v));
    v.cmd = NV_RM_API_VERSION_CMD_RELAXED;
    const char *dot = strchr(ver, '.');
    memcpy(v.versionString, ver, (size_t)(dot - ver) + 1);
    strcat(v.versionString, "999");
    assert_int_equal(tio(e, e->ctl, NV_ESC_CHECK_VERSION_STR, &v, sizeof(v)), 0);
    memset(&v, 0, sizeof(v));
    v.cmd = NV_RM_API_VERSION_CMD_QUERY;
    assert_int_equal(tio(e, e->ctl, NV_ESC_CHECK_VERSION_STR, &v, sizeof(v)), 0);
    assert_string_equal(v.versionString, ver);
    assert_int_equal(tio(e, e->ctl, NV_ESC_CHECK_VERSION_STR, &v, 64), -EINVAL);
}

static void sys_params_and_numa_info_answer_as_the_driver_does(void **state)
{
    struct tenv *e = *state;
    nv_ioctl_sys_params_t sp = {0x40000000};
    assert_int_equal(tio(e, e->ctl, NV_ESC_SYS_PARAMS, &sp, sizeof(sp)), 0);
    assert_int_equal(tio(e, e->ctl, NV_ESC_SYS_PARAMS, &sp, sizeof(sp)), 0);
    sp.memblock_size = 0x8000000;
    assert_int_equal(tio(e, e->ctl, NV_ESC_SYS_PARAMS, &sp, sizeof(sp)), -EBUSY);
    int dev = nvemu_fdtable_open(e->t, "/dev/nvidia0", &e->who);
    nv_ioctl_numa_info_t n;
    memset(&n, 0x77, sizeof(n));
    assert_int_equal(tio(e, dev, NV_ESC_NUMA_INFO, &n, sizeof(n)), 0);
    assert_int_equal(n.nid, -1);
    assert_int_equal(n.status, 0);
    assert_int_equal(n.memblock_size, 0x40000000u);
    assert_int_equal(n.offline_addresses.numEntries, 0);
    nv_ioctl_wait_open_complete_t w = {7, 7};
    assert_int_equal(tio(e, dev, NV_ESC_WAIT_OPEN_COMPLETE, &w, sizeof(w)), 0);
    assert_int_equal(w.rc, 0);
    assert_int_equal(w.adapterStatus, 0);
    assert_int_equal(tio(e, e->ctl, NV_ESC_WAIT_OPEN_COMPLETE, &w, 4), -EINVAL);
    nv_ioctl_status_code_t sc = {0xFFFF, 0xFF, 0xFF, 0};
    assert_int_equal(tio(e, e->ctl, NV_ESC_STATUS_CODE, &sc, sizeof(sc)), -EINVAL);
}

static void os_events_are_bounded_and_attach_to_their_fd(void **state)
{
    struct tenv *e = *state;
    nv_ioctl_alloc_os_event_t ev = {0xC1D00000u, 0x5C000003u, 15, 0xFF};
    assert_int_equal(tio(e, e->ctl, NV_ESC_ALLOC_OS_EVENT, &ev, sizeof(ev)), 0);
    assert_int_equal(ev.Status, NV_OK);
    assert_int_equal(tio(e, e->ctl, NV_ESC_ALLOC_OS_EVENT, &ev, sizeof(ev)), 0);
    assert_int_equal(ev.Status, NV_ERR_INSUFFICIENT_RESOURCES);
    /* the pair is unique machine-wide and can be freed from another fd */
    int dev = nvemu_fdtable_open(e->t, "/dev/nvidia0", &e->who);
    assert_int_equal(tio(e, dev, NV_ESC_ALLOC_OS_EVENT, &ev, sizeof(ev)), 0);
    assert_int_equal(ev.Status, NV_ERR_INSUFFICIENT_RESOURCES);
    assert_int_equal(tio(e, dev, NV_ESC_FREE_OS_EVENT, &ev, sizeof(ev)), 0);
    assert_int_equal(ev.Status, NV_OK);
    assert_int_equal(tio(e, e->ctl, NV_ESC_FREE_OS_EVENT, &ev, sizeof(ev)), 0);
    assert_int_equal(ev.Status, NV_ERR_INVALID_EVENT);
    assert_int_equal(tio(e, e->ctl, NV_ESC_FREE_OS_EVENT, &ev, 12), -EINVAL);
    uint32_t ids[2] = {0x12345678u, 0};
    assert_int_equal(tio(e, e->ctl, NV_ESC_ATTACH_GPUS_TO_FD, ids, 6), -EINVAL);
    assert_int_equal(tio(e, e->ctl, NV_ESC_ATTACH_GPUS_TO_FD, ids, sizeof(ids)), -EINVAL);
    ids[0] = nvemu_gpu(e->emu, 0)->gpu_id;
    assert_int_equal(tio(e, e->ctl, NV_ESC_ATTACH_GPUS_TO_FD, ids, sizeof(ids)), 0);
    assert_int_equal(tio(e, e->ctl, NV_ESC_ATTACH_GPUS_TO_FD, ids, sizeof(ids)), -EINVAL); /* once per fd */
}

static void xfer_runs_the_inner_call_and_refuses_a_short_one(void **state)
{
    struct tenv *e = *state;
    uint32_t hc = tbase(e, e->ctl, HDEV, HSUB);
    assert_int_not_equal(hc, 0);
    NVOS00_PARAMETERS f = {hc, hc, 0x999, 0xFFFF};
    nv_ioctl_xfer_t x = {NV_ESC_RM_FREE, sizeof(f), (uint64_t)(uintptr_t)&f};
    assert_int_equal(tio(e, e->ctl, NV_ESC_IOCTL_XFER_CMD, &x, sizeof(x)), 0);
    assert_int_equal(f.status, NV_OK);
    assert_int_equal(tio(e, e->ctl, NV_ESC_IOCTL_XFER_CMD, &x, 24), -EINVAL);
    x.size = 16385;
    assert_int_equal(tio(e, e->ctl, NV_ESC_IOCTL_XFER_CMD, &x, sizeof(x)), -EINVAL);
    x.size = sizeof(f);
    x.ptr = 8;
    assert_int_equal(tio(e, e->ctl, NV_ESC_IOCTL_XFER_CMD, &x, sizeof(x)), -EFAULT);
    nv_ioctl_xfer_t inner = {NV_ESC_RM_FREE, 16, 0};
    x.cmd = NV_ESC_IOCTL_XFER_CMD;
    x.size = sizeof(inner);
    x.ptr = (uint64_t)(uintptr_t)&inner;
    assert_int_equal(tio(e, e->ctl, NV_ESC_IOCTL_XFER_CMD, &x, sizeof(x)), -EINVAL);
    /* inner size error: copied back, -EINVAL */
    f.status = 0x1234;
    x.cmd = NV_ESC_RM_FREE;
    x.size = 12;
    x.ptr = (uint64_t)(uintptr_t)&f;
    assert_int_equal(tio(e, e->ctl, NV_ESC_IOCTL_XFER_CMD, &x, sizeof(x)), -EINVAL);
}

static void rm_share_answers_the_drivers_status_for_missing_and_existing_objects(void **state)
{
    struct tenv *e = *state;
    uint32_t hc = tbase(e, e->ctl, HDEV, HSUB);
    NVOS57_PARAMETERS sh;
    memset(&sh, 0, sizeof(sh));
    assert_int_equal(tio(e, e->ctl, NV_ESC_RM_SHARE, &sh, sizeof(sh)), 0);
    assert_int_not_equal(sh.status, NV_OK); /* no such client */
    sh.hClient = hc;
    sh.hObject = 0x5c0dead;
    assert_int_equal(tio(e, e->ctl, NV_ESC_RM_SHARE, &sh, sizeof(sh)), 0);
    assert_int_equal(sh.status, NV_ERR_OBJECT_NOT_FOUND);
    sh.hObject = HDEV; /* an existing object: the policy is accepted (as the H200 did in peer_ipc's parent) */
    assert_int_equal(tio(e, e->ctl, NV_ESC_RM_SHARE, &sh, sizeof(sh)), 0);
    assert_int_equal(sh.status, NV_OK);
    NVOS32_PARAMETERS vh;
    memset(&vh, 0, sizeof(vh));
    assert_int_equal(tio(e, e->ctl, NV_ESC_RM_VID_HEAP_CONTROL, &vh, sizeof(vh)), 0);
    assert_int_equal(vh.hdr.status, NV_ERR_NOT_SUPPORTED);
    unsigned char junk[64] = {0};
    assert_int_equal(tio(e, e->ctl, NV_ESC_RM_LOCKLESS_DIAGNOSTIC, junk, 16), -EINVAL);
    NVOS41_PARAMETERS gev = {0, 1, 0};
    assert_int_equal(tio(e, e->ctl, NV_ESC_RM_GET_EVENT_DATA, &gev, sizeof(gev)), 0);
    assert_int_equal(gev.status, NV_ERR_OPERATING_SYSTEM); /* empty queue */
    assert_int_equal(gev.MoreEvents, 0);
    /* MAP_MEMORY of an existing memory object: NV_OK and a CPU address */
    NV_MEMORY_ALLOCATION_PARAMS mp;
    memset(&mp, 0, sizeof(mp));
    uint32_t hm = 0x800;
    assert_int_equal(talloc(e, e->ctl, hc, HDEV, &hm, NV01_MEMORY_SYSTEM, &mp), NV_OK);
    nv_ioctl_nvos33_parameters_with_fd m;
    memset(&m, 0, sizeof(m));
    m.params.hClient = hc;
    m.params.hDevice = HSUB;
    m.params.hMemory = hm;
    m.params.length = 4096;
    m.params.flags = 0x000C0000u;
    m.fd = -1;
    assert_int_equal(tio(e, e->ctl, NV_ESC_RM_MAP_MEMORY, &m, sizeof(m)), 0);
    assert_int_equal(m.params.status, NV_OK);
    assert_true(m.params.pLinearAddress != 0);
    assert_int_equal(m.params.flags, 0x030C8000u); /* caching and mapping kind as the H200 reports them */
    m.params.hMemory = 0x801;
    assert_int_equal(tio(e, e->ctl, NV_ESC_RM_MAP_MEMORY, &m, sizeof(m)), 0);
    assert_int_equal(m.params.status, NV_ERR_OBJECT_NOT_FOUND);
    /* ALLOC_MEMORY on the device node creates the object */
    int dev = nvemu_fdtable_open(e->t, "/dev/nvidia0", &e->who);
    nv_ioctl_register_fd_t r = {e->ctl};
    assert_int_equal(tio(e, dev, NV_ESC_REGISTER_FD, &r, sizeof(r)), 0);
    nv_ioctl_nvos02_parameters_with_fd am;
    memset(&am, 0, sizeof(am));
    am.params.hRoot = hc;
    am.params.hObjectParent = HDEV;
    am.params.hObjectNew = 0x802;
    am.params.hClass = NV01_MEMORY_SYSTEM_OS_DESCRIPTOR;
    am.fd = -1;
    assert_int_equal(tio(e, e->ctl, NV_ESC_RM_ALLOC_MEMORY, &am, sizeof(am)), -EINVAL); /* dev only */
    assert_int_equal(tio(e, dev, NV_ESC_RM_ALLOC_MEMORY, &am, sizeof(am)), 0);
    assert_int_equal(am.params.status, NV_OK);
    assert_int_equal(tfree(e, e->ctl, hc, 0x802), NV_OK);
}

static void dup_object_copies_a_handle_into_another_client(void **state)
{
    struct tenv *e = *state;
    uint32_t hc = tbase(e, e->ctl, HDEV, HSUB);
    NV_MEMORY_ALLOCATION_PARAMS mp;
    memset(&mp, 0, sizeof(mp));
    uint32_t hm = 0x900;
    assert_int_equal(talloc(e, e->ctl, hc, HDEV, &hm, NV01_MEMORY_SYSTEM, &mp), NV_OK);
    NVOS55_PARAMETERS d = {hc, HDEV, 0x901, hc, hm, 0, 0xFFFF};
    assert_int_equal(tio(e, e->ctl, NV_ESC_RM_DUP_OBJECT, &d, sizeof(d)), 0);
    assert_int_equal(d.status, NV_OK);
    assert_int_equal(d.hObject, 0x901);
    d.hObject = 0x902;
    d.hObjectSrc = 0x4444;
    assert_int_equal(tio(e, e->ctl, NV_ESC_RM_DUP_OBJECT, &d, sizeof(d)), 0);
    assert_int_equal(d.status, NV_ERR_OBJECT_NOT_FOUND);
    nvemu_stats s0, s1;
    nvemu_get_stats(e->emu, &s0);
    assert_int_equal(tfree(e, e->ctl, hc, hm), NV_OK); /* the duplicate depends on it: invalidated */
    nvemu_get_stats(e->emu, &s1);
    assert_int_equal(s0.objects - s1.objects, 1);
    d.hObject = 0x903;
    d.hObjectSrc = 0x901;
    assert_int_equal(tio(e, e->ctl, NV_ESC_RM_DUP_OBJECT, &d, sizeof(d)), 0);
    assert_int_equal(d.status, NV_ERR_RESOURCE_LOST);
    assert_int_equal(tfree(e, e->ctl, hc, 0x901), NV_OK);
    nvemu_get_stats(e->emu, &s1);
    assert_int_equal(s0.objects - s1.objects, 2);
}

static void two_emulators_are_independent(void **state)
{
    struct tenv *e = *state;
    struct tenv e2;
    assert_int_equal(tenv_init(&e2, false), 0);
    uint32_t h1 = 0, h2 = 0;
    assert_int_equal(talloc(e, e->ctl, 0, 0, &h1, NV01_ROOT_CLIENT, NULL), NV_OK);
    assert_int_equal(talloc(&e2, e2.ctl, 0, 0, &h2, NV01_ROOT_CLIENT, NULL), NV_OK);
    assert_int_equal(h1, 0xC1D00000u);
    assert_int_equal(h2, 0xC1D00000u);
    nvemu_stats s;
    nvemu_get_stats(e2.emu, &s);
    assert_int_equal(s.clients, 1);
    tenv_fini(&e2);
}

static void status_json_counts_clients_and_objects(void **state)
{
    struct tenv *e = *state;
    uint32_t hc = tbase(e, e->ctl, HDEV, HSUB);
    assert_int_not_equal(hc, 0);
    assert_int_equal(tfree(e, e->ctl, 0x999, 0x999), NV_ERR_INVALID_OBJECT_HANDLE);
    char buf[4096];
    size_t n = nvemu_status_json(e->emu, buf, sizeof(buf));
    assert_true(n > 0 && n < sizeof(buf));
    assert_non_null(strstr(buf, "\"clients\":1"));
    assert_non_null(strstr(buf, "\"0x2080\":1"));
    assert_non_null(strstr(buf, "\"NV_ERR_INVALID_OBJECT_HANDLE\":1"));
    assert_int_equal(nvemu_status_json(e->emu, NULL, 0), n);
}

struct worker {
    struct tenv *e;
    int fd;
    int failures;
};

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    uint32_t hc = tbase(w->e, w->fd, HDEV, HSUB);
    if (!hc)
        w->failures++;
    NV_MEMORY_ALLOCATION_PARAMS mp;
    memset(&mp, 0, sizeof(mp));
    for (uint32_t i = 0; i < 500; i++) {
        uint32_t h = 0x1000 + i;
        if (talloc(w->e, w->fd, hc, HDEV, &h, NV01_MEMORY_SYSTEM, &mp) != NV_OK)
            w->failures++;
        if (i % 2 && tfree(w->e, w->fd, hc, h) != NV_OK)
            w->failures++;
    }
    return NULL;
}

/* One coarse lock: concurrent callers on separate fds see consistent state. */
static void concurrent_callers_see_consistent_state(void **state)
{
    struct tenv *e = *state;
    enum { N = 4 };
    pthread_t th[N];
    struct worker w[N];
    for (int i = 0; i < N; i++) {
        w[i] = (struct worker){e, nvemu_fdtable_open(e->t, "/dev/nvidiactl", &e->who), 0};
        assert_int_equal(pthread_create(&th[i], NULL, worker_main, &w[i]), 0);
    }
    for (int i = 0; i < N; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(w[i].failures, 0);
    }
    nvemu_stats s;
    nvemu_get_stats(e->emu, &s);
    assert_int_equal(s.clients, N);
    assert_int_equal(s.objects, N * (3 + 250));
    for (int i = 0; i < N; i++)
        assert_int_equal(nvemu_fdtable_close(e->t, w[i].fd), 0);
    nvemu_get_stats(e->emu, &s);
    assert_int_equal(s.objects, 0);
}

static void rm_counts_device_objects_per_gpu(void **state)
{
    struct tenv *e = *state;
    struct gpu *g = nvemu_gpu(e->emu, 0);
    assert_int_equal(rm_gpu_device_count(nvemu_rm(e->emu), g), 0);
    uint32_t hc = tbase(e, e->ctl, HDEV, HSUB);
    assert_int_equal(rm_gpu_device_count(nvemu_rm(e->emu), g), 1);
    nvemu_identity other;
    tenv_identity(&other, 555, 555, 0);
    int fd = nvemu_fdtable_open(e->t, "/dev/nvidiactl", &other);
    assert_int_not_equal(tbase(e, fd, HDEV, HSUB), 0);
    assert_int_equal(rm_gpu_device_count(nvemu_rm(e->emu), g), 2);
    assert_int_equal(nvemu_fdtable_close(e->t, fd), 0);
    assert_int_equal(rm_gpu_device_count(nvemu_rm(e->emu), g), 1);
    NV_HOPPER_USERMODE_A_PARAMS up = {1, 0};
    uint32_t hu1 = 0x51, hu2 = 0x52;
    assert_int_equal(talloc(e, e->ctl, hc, HSUB, &hu1, HOPPER_USERMODE_A, &up), NV_OK);
    assert_int_equal(talloc(e, e->ctl, hc, HSUB, &hu2, HOPPER_USERMODE_A, NULL), NV_OK);
    nvemu_opener *op = nvemu_fdtable_opener(e->t, e->ctl);
    struct rm_object *o1, *o2;
    assert_int_equal(rm_find_object(nvemu_rm(e->emu), op, hc, hu1, &o1), NV_OK);
    assert_int_equal(rm_find_object(nvemu_rm(e->emu), op, hc, hu2, &o2), NV_OK);
    assert_true(rm_usermode_bar1(o1));
    assert_false(rm_usermode_bar1(o2));
    /* outside a free pass rm_free_later frees at once */
    struct rm_call c = {.rs = nvemu_rm(e->emu), .op = op, .acc = &nvemu_access_inproc};
    rm_free_later(&c, o1);
    assert_int_equal(rm_find_object(nvemu_rm(e->emu), op, hc, hu1, &o1), NV_ERR_OBJECT_NOT_FOUND);
    assert_int_equal(tfree(e, e->ctl, hc, HDEV), NV_OK);
    assert_int_equal(rm_gpu_device_count(nvemu_rm(e->emu), g), 0);
}

/* Every escape number at every struct size on every node: a defined errno or 0, never a crash. */
static void escape_sweep(void **state)
{
    struct tenv *e = *state;
    assert_int_not_equal(tbase(e, e->ctl, HDEV, HSUB), 0);
    int fds[3] = {e->ctl, nvemu_fdtable_open(e->t, "/dev/nvidia0", &e->who),
                  nvemu_fdtable_open(e->t, "/dev/nvidia-uvm", &e->who)};
    static const uint32_t sizes[] = {0, 4, 8, 12, 16, 20, 24, 28, 32, 40, 48, 56, 64, 72, 184, 560, 2304, 2608};
    static unsigned char buf[4096];
    for (int f = 0; f < 3; f++)
        for (uint32_t nr = 0; nr < NVEMU_ESC_PRIVATE_FIRST; nr++)
            for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
                for (int fill = 0; fill < 2; fill++) {
                    memset(buf, fill ? 0xFF : 0, sizeof(buf));
                    int rc = tio(e, fds[f], nr, buf, sizes[k]);
                    assert_true(rc == 0 || rc == -EINVAL || rc == -EFAULT || rc == -EBUSY || rc == -EACCES);
                }
    nvemu_stats s;
    nvemu_get_stats(e->emu, &s);
    assert_true(s.ioctls > 3 * 240 * 18 * 2);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
int main(void)
{
    const struct CMUnitTest tests[] = {
        T(decode_ignores_magic_and_direction), T(wrong_sizes_and_nodes_are_einval), T(bad_pointers_fault),
        T(root_client_alloc_rewrites_class_and_handle),
        T(child_alloc_gets_the_drivers_generated_handle),
        T(bad_parent_or_class_alloc_is_refused_with_the_drivers_status),
        T(device_alloc_needs_an_open_device_node),
        T(free_of_an_unknown_object_is_ok_and_of_an_unknown_client_is_refused),
        T(dependants_are_freed_first),
        T(another_fds_client_is_invalid_client),
        T(register_fd_refuses_non_ctl_self_and_short_calls),
        T(close_ctl_keeps_clients_while_registered), T(control_generic_checks), T(control_copy_out_only_on_ok),
        T(third_party_p2p_every_registration_answers_the_first_token),
        T(card_info_answers_the_profiles_pci_ids),
        T(version_check_accepts_the_release_and_refuses_another_copying_it_back),
        T(sys_params_and_numa_info_answer_as_the_driver_does),
        T(os_events_are_bounded_and_attach_to_their_fd),
        T(xfer_runs_the_inner_call_and_refuses_a_short_one),
        T(rm_share_answers_the_drivers_status_for_missing_and_existing_objects),
        T(dup_object_copies_a_handle_into_another_client),
        T(two_emulators_are_independent),
        T(status_json_counts_clients_and_objects),
        T(concurrent_callers_see_consistent_state), T(rm_counts_device_objects_per_gpu), T(escape_sweep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
