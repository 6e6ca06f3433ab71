/*
 * Core rules that need the FIFO classes' rows: free order of
 * channel groups, privilege rights, GPreempt-compat query and relaxed
 * ownership, engine-object parents.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>

#include "abi/nv_ctrl_fifo.h"
#include "core/emulator.h"
#include "rm/rm.h"
#include "rm_fifo_util.h"

#define HDEV 0x5C000002u
#define HSUB 0x5C000003u
#define HVA 0x5C000009u

struct fenv {
    struct tenv e;
    uint32_t hc;
};

static int setup_mode(void **state, bool compat)
{
    struct fenv *f = calloc(1, sizeof(*f));
    if (!f || tenv_init(&f->e, compat) != 0)
        return -1;
    f->hc = tbase_va(&f->e, f->e.ctl, HDEV, HSUB, HVA);
    if (!f->hc)
        return -1;
    *state = f;
    return 0;
}

static int setup(void **state) { return setup_mode(state, false); }
static int setup_compat(void **state) { return setup_mode(state, true); }

static int teardown(void **state)
{
    struct fenv *f = *state;
    tenv_fini(&f->e);
    free(f);
    return 0;
}

static void group_lifecycle_and_free_order(void **state)
{
    struct fenv *f = *state;
    nvemu_stats s0, s1;
    nvemu_get_stats(f->e.emu, &s0);
    struct tgroup g = {0};
    assert_int_equal(tgroup_build(&f->e, f->e.ctl, f->hc, HDEV, HVA, 0x100, 8, &g), NV_OK);
    nvemu_get_stats(f->e.emu, &s1);
    assert_int_equal(s1.channel_groups, 1);
    /* TSG + KERNEL_GRAPHICS_CONTEXT + subcontext + 8 x (channel + compute) */
    assert_int_equal(s1.objects - s0.objects, 19);
    NVA06C_CTRL_TIMESLICE_PARAMS ts = {0};
    assert_int_equal(tctrl(&f->e, f->e.ctl, f->hc, g.htsg, NVA06C_CTRL_CMD_GET_TIMESLICE, &ts, sizeof(ts)), NV_OK);
    assert_int_equal(ts.timesliceUs, nvemu_profile(f->e.emu)->default_timeslice_us);
    /* freeing the VA space frees the subcontext's dependants (channels) and the TSG depending on it */
    assert_int_equal(tfree(&f->e, f->e.ctl, f->hc, g.htsg), NV_OK);
    nvemu_get_stats(f->e.emu, &s1);
    assert_int_equal(s1.channel_groups, 0);
    assert_int_equal(s1.objects, s0.objects);
    assert_int_equal(tctrl(&f->e, f->e.ctl, f->hc, g.htsg, NVA06C_CTRL_CMD_GET_TIMESLICE, &ts, sizeof(ts)),
                     NV_ERR_OBJECT_NOT_FOUND);
}

/* Recorded on the H200: freeing the VA space leaves the subcontext and its channels "lost", the TSG alive. */
static void vaspace_free_invalidates_dependants(void **state)
{
    struct fenv *f = *state;
    struct tgroup g = {0};
    assert_int_equal(tgroup_build(&f->e, f->e.ctl, f->hc, HDEV, HVA, 0x100, 8, &g), NV_OK);
    assert_int_equal(tfree(&f->e, f->e.ctl, f->hc, HVA), NV_OK);
    uint32_t tok = 0;
    assert_int_equal(tctrl(&f->e, f->e.ctl, f->hc, g.hch[0], 0xC36F0108u, &tok, sizeof(tok)), NV_ERR_RESOURCE_LOST);
    assert_int_equal(tctrl(&f->e, f->e.ctl, f->hc, g.hctx, 0x906701FFu, NULL, 0), NV_ERR_RESOURCE_LOST);
    NVA06C_CTRL_TIMESLICE_PARAMS ts = {0};
    assert_int_equal(tctrl(&f->e, f->e.ctl, f->hc, g.htsg, NVA06C_CTRL_CMD_GET_TIMESLICE, &ts, sizeof(ts)), NV_OK);
    assert_int_equal(tfree(&f->e, f->e.ctl, f->hc, HVA), NV_OK);
    assert_int_equal(tfree(&f->e, f->e.ctl, f->hc, g.htsg), NV_OK);
    nvemu_stats s;
    nvemu_get_stats(f->e.emu, &s);
    assert_int_equal(s.channel_groups, 0);
    assert_int_equal(s.objects, 3);
}

static void free_client_with_groups(void **state)
{
    struct fenv *f = *state;
    struct tgroup g = {0};
    assert_int_equal(tgroup_build(&f->e, f->e.ctl, f->hc, HDEV, HVA, 0x100, 8, &g), NV_OK);
    assert_int_equal(tgroup_build(&f->e, f->e.ctl, f->hc, HDEV, HVA, 0x200, 4, &g), NV_OK);
    assert_int_equal(tfree(&f->e, f->e.ctl, f->hc, HDEV), NV_OK);
    nvemu_stats s;
    nvemu_get_stats(f->e.emu, &s);
    assert_int_equal(s.channel_groups, 0);
    assert_int_equal(s.objects, 1);
    assert_int_equal(tgroup_build(&f->e, f->e.ctl, f->hc, HDEV, HVA, 0x100, 8, &g), NV_ERR_OBJECT_NOT_FOUND);
}

static void engine_objects_need_a_channel_parent_and_the_gpus_class(void **state)
{
    struct fenv *f = *state;
    struct tgroup g = {0};
    assert_int_equal(tgroup_build(&f->e, f->e.ctl, f->hc, HDEV, HVA, 0x100, 1, &g), NV_OK);
    uint32_t h = 0x900;
    NV_GR_ALLOCATION_PARAMETERS grp = {0};
    assert_int_equal(talloc(&f->e, f->e.ctl, f->hc, g.htsg, &h, HOPPER_COMPUTE_A, &grp), NV_ERR_INVALID_OBJECT_PARENT);
    assert_int_equal(talloc(&f->e, f->e.ctl, f->hc, g.hch[0], &h, VOLTA_COMPUTE_A, &grp), NV_ERR_INVALID_CLASS);
    assert_int_equal(talloc(&f->e, f->e.ctl, f->hc, g.hch[0], &h, HOPPER_DMA_COPY_A, NULL), NV_OK);
    h = 0x901;
    assert_int_equal(talloc(&f->e, f->e.ctl, f->hc, g.hch[0], &h, KERNEL_GRAPHICS_CONTEXT, NULL),
                     NV_ERR_INVALID_CLASS);
}

static void interleave_level_needs_cap_sys_nice(void **state)
{
    struct fenv *f = *state;
    struct tgroup g = {0};
    assert_int_equal(tgroup_build(&f->e, f->e.ctl, f->hc, HDEV, HVA, 0x100, 1, &g), NV_OK);
    NVA06C_CTRL_INTERLEAVE_LEVEL_PARAMS il = {2};
    assert_int_equal(tctrl(&f->e, f->e.ctl, f->hc, g.htsg, NVA06C_CTRL_CMD_SET_INTERLEAVE_LEVEL, &il, sizeof(il)),
                     NV_ERR_INSUFFICIENT_PERMISSIONS);
    for (int k = 0; k < 2; k++) {
        nvemu_identity who;
        tenv_identity(&who, 200 + k, 1000, k ? NVEMU_CAP_SYS_ADMIN : NVEMU_CAP_SYS_NICE);
        int fd = nvemu_fdtable_open(f->e.t, "/dev/nvidiactl", &who);
        uint32_t hc = tbase(&f->e, fd, HDEV, HSUB);
        NV_VASPACE_ALLOCATION_PARAMETERS va;
        memset(&va, 0, sizeof(va));
        uint32_t hva = HVA;
        assert_int_equal(talloc(&f->e, fd, hc, HDEV, &hva, FERMI_VASPACE_A, &va), NV_OK);
        assert_int_equal(tgroup_build(&f->e, fd, hc, HDEV, HVA, 0x100, 1, &g), NV_OK);
        assert_int_equal(tctrl(&f->e, fd, hc, g.htsg, NVA06C_CTRL_CMD_SET_INTERLEAVE_LEVEL, &il, sizeof(il)), NV_OK);
    }
}

/* The right is decided per call (the H200 re-checks capable() at control time). */
/* nvemu_access.current_caps for tests: the capabilities the caller holds right now. */
static uint64_t caps_now(void *ctx)
{
    return *(const uint64_t *)ctx;
}

static void privilege_is_judged_per_call_not_at_open(void **state)
{
    struct fenv *f = *state;
    struct tgroup g = {0};
    assert_int_equal(tgroup_build(&f->e, f->e.ctl, f->hc, HDEV, HVA, 0x100, 1, &g), NV_OK);
    nvemu_opener *op = nvemu_fdtable_opener(f->e.t, f->e.ctl);
    /* The front-end reports the caller's capabilities at call time (they may have been dropped since open). */
    uint64_t now_caps = NVEMU_CAP_SYS_NICE;
    nvemu_access acc = nvemu_access_inproc;
    acc.current_caps = caps_now;
    acc.ctx = &now_caps;
    NVA06C_CTRL_INTERLEAVE_LEVEL_PARAMS il = {2};
    NVOS54_PARAMETERS p = {f->hc, g.htsg, NVA06C_CTRL_CMD_SET_INTERLEAVE_LEVEL, 0, (uint64_t)(uintptr_t)&il,
                           sizeof(il), 0};
    assert_int_equal(nvemu_ioctl(f->e.emu, op, NV_ESC_RM_CONTROL, sizeof(p), &p, &acc), 0);
    assert_int_equal(p.status, NV_OK);
    p.status = 0xFFFF;
    now_caps = 0;
    assert_int_equal(nvemu_ioctl(f->e.emu, op, NV_ESC_RM_CONTROL, sizeof(p), &p, &acc), 0);
    assert_int_equal(p.status, NV_ERR_INSUFFICIENT_PERMISSIONS);
    /* privilege before the value: an invalid level without the right is a permission error */
    il.tsgInterleaveLevel = 7;
    assert_int_equal(nvemu_ioctl(f->e.emu, op, NV_ESC_RM_CONTROL, sizeof(p), &p, &acc), 0);
    assert_int_equal(p.status, NV_ERR_INSUFFICIENT_PERMISSIONS);
}

static void close_frees_groups(void **state)
{
    struct fenv *f = *state;
    struct tgroup g = {0};
    assert_int_equal(tgroup_build(&f->e, f->e.ctl, f->hc, HDEV, HVA, 0x100, 8, &g), NV_OK);
    assert_int_equal(nvemu_fdtable_close(f->e.t, f->e.ctl), 0);
    nvemu_stats s;
    nvemu_get_stats(f->e.emu, &s);
    assert_int_equal(s.channel_groups, 0);
    assert_int_equal(s.clients, 0);
    f->e.ctl = nvemu_fdtable_open(f->e.t, "/dev/nvidiactl", &f->e.who);
}

struct disable_params {
    uint8_t bDisable;
    uint32_t numChannels;
    uint8_t bOnly, bRewind;
    uint64_t pEvent;
    uint32_t hClientList[64];
    uint32_t hChannelList[64];
};

static void gpreempt_query_group(void **state)
{
    struct fenv *f = *state;
    struct tgroup g7 = {0}, g8 = {0};
    assert_int_equal(tgroup_build(&f->e, f->e.ctl, f->hc, HDEV, HVA, 0x100, 7, &g7), NV_OK);
    assert_int_equal(tgroup_build(&f->e, f->e.ctl, f->hc, HDEV, HVA, 0x200, 8, &g8), NV_OK);
    NVOS54_PARAMETERS q;
    memset(&q, 0, sizeof(q));
    q.hClient = (uint32_t)syscall(SYS_gettid);
    static struct disable_params d;
    memset(&d, 0, sizeof(d));
    q.params = (uint64_t)(uintptr_t)&d;
    /* any opener may ask, and the syscall succeeds (the patch's fall-through is fixed) */
    nvemu_identity other;
    tenv_identity(&other, 300, 2000, 0);
    int fd = nvemu_fdtable_open(f->e.t, "/dev/nvidiactl", &other);
    assert_int_equal(tio(&f->e, fd, NV_ESC_RM_QUERY_GROUP, &q, sizeof(q)), 0);
    assert_int_equal(q.status, NV_OK);
    assert_int_equal(q.hClient, f->hc);
    assert_int_equal(q.hObject, g8.htsg);
    assert_int_equal(d.numChannels, 8);
    for (int i = 0; i < 8; i++) {
        assert_int_equal(d.hClientList[i], f->hc);
        assert_int_equal(d.hChannelList[i], g8.hch[i]);
    }
    memset(&q, 0, sizeof(q));
    q.hClient = 1;
    assert_int_equal(tio(&f->e, fd, NV_ESC_RM_QUERY_GROUP, &q, sizeof(q)), 0);
    assert_int_equal(q.status, NV_ERR_OBJECT_NOT_FOUND);
    assert_int_equal(tio(&f->e, fd, NV_ESC_RM_QUERY_GROUP, &q, 16), -EINVAL);
}

/* A synthetic tid given per call (one thread playing several tasks) is the TSG creator the query matches. */
static void gpreempt_query_synthetic_tid(void **state)
{
    struct fenv *f = *state;
    /* build the group with every call issued "as" tid 4242 */
    NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS gp;
    memset(&gp, 0, sizeof(gp));
    gp.engineType = NV2080_ENGINE_TYPE_GR0;
    NVOS64_PARAMETERS a;
    memset(&a, 0, sizeof(a));
    a.hRoot = f->hc;
    a.hObjectParent = HDEV;
    a.hObjectNew = 0x300;
    a.hClass = KEPLER_CHANNEL_GROUP_A;
    a.pAllocParms = (uint64_t)(uintptr_t)&gp;
    unsigned long req = NV_IOCTL_REQUEST(NV_ESC_RM_ALLOC, sizeof(a));
    assert_int_equal(nvemu_fdtable_ioctl_as(f->e.t, f->e.ctl, 4242, req, &a), 0);
    assert_int_equal(a.status, NV_OK);
    for (uint32_t i = 0; i < 8; i++) {
        NV_CHANNEL_ALLOC_PARAMS chp;
        memset(&chp, 0, sizeof(chp));
        chp.engineType = NV2080_ENGINE_TYPE_GR0;
        assert_int_equal(talloc(&f->e, f->e.ctl, f->hc, 0x300, &(uint32_t){0x310 + i}, AMPERE_CHANNEL_GPFIFO_A, &chp),
                         NV_OK);
    }
    NVOS54_PARAMETERS q;
    memset(&q, 0, sizeof(q));
    q.hClient = 4242;
    assert_int_equal(tio(&f->e, f->e.ctl, NV_ESC_RM_QUERY_GROUP, &q, sizeof(q)), 0);
    assert_int_equal(q.status, NV_OK);
    assert_int_equal(q.hObject, 0x300);
}

static void gpreempt_relaxed_ownership(void **state)
{
    struct fenv *f = *state;
    struct tgroup g = {0};
    assert_int_equal(tgroup_build(&f->e, f->e.ctl, f->hc, HDEV, HVA, 0x100, 1, &g), NV_OK);
    NVA06C_CTRL_TIMESLICE_PARAMS ts = {0};
    nvemu_identity same_uid, stranger;
    tenv_identity(&same_uid, 301, 1000, 0);
    tenv_identity(&stranger, 302, 2000, 0);
    int a = nvemu_fdtable_open(f->e.t, "/dev/nvidiactl", &same_uid);
    int b = nvemu_fdtable_open(f->e.t, "/dev/nvidiactl", &stranger);
    assert_int_equal(tctrl(&f->e, a, f->hc, g.htsg, NVA06C_CTRL_CMD_GET_TIMESLICE, &ts, sizeof(ts)), NV_OK);
    assert_int_equal(tctrl(&f->e, b, f->hc, g.htsg, NVA06C_CTRL_CMD_GET_TIMESLICE, &ts, sizeof(ts)),
                     NV_ERR_INVALID_CLIENT);
    /* allocations stay strict */
    uint32_t h = 0x990;
    NV_VASPACE_ALLOCATION_PARAMETERS va;
    memset(&va, 0, sizeof(va));
    assert_int_equal(talloc(&f->e, a, f->hc, HDEV, &h, FERMI_VASPACE_A, &va), NV_ERR_INVALID_CLIENT);
}

static void another_fds_group_is_refused_without_gpreempt_compat(void **state)
{
    struct fenv *f = *state;
    struct tgroup g = {0};
    assert_int_equal(tgroup_build(&f->e, f->e.ctl, f->hc, HDEV, HVA, 0x100, 1, &g), NV_OK);
    NVA06C_CTRL_TIMESLICE_PARAMS ts = {0};
    nvemu_identity same_uid;
    tenv_identity(&same_uid, 100, 1000, 0);
    int a = nvemu_fdtable_open(f->e.t, "/dev/nvidiactl", &same_uid);
    assert_int_equal(tctrl(&f->e, a, f->hc, g.htsg, NVA06C_CTRL_CMD_GET_TIMESLICE, &ts, sizeof(ts)),
                     NV_ERR_INVALID_CLIENT);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
#define TC(fn) cmocka_unit_test_setup_teardown(fn, setup_compat, teardown)
int main(void)
{
    const struct CMUnitTest tests[] = {
        T(group_lifecycle_and_free_order),
        T(vaspace_free_invalidates_dependants),
        T(free_client_with_groups),
        T(engine_objects_need_a_channel_parent_and_the_gpus_class),
        T(interleave_level_needs_cap_sys_nice),
        T(privilege_is_judged_per_call_not_at_open),
        T(close_frees_groups),
        TC(gpreempt_query_group),
        TC(gpreempt_query_synthetic_tid),
        TC(gpreempt_relaxed_ownership),
        T(another_fds_group_is_refused_without_gpreempt_compat),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
