/* Clients, handles, allocation rules, generic control checks, openers and frees. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "conf.h"

static const char *auto_ok(uint32_t h)
{
    return (h & 0xFFF00000u) == 0xC1D00000u ? "auto-ok" : "auto-BAD";
}

/* Allocates a root client with the given request; prints handle form and class readback. */
static void client_case(struct conf *c, const char *name, int nvos21, uint32_t hRoot, uint32_t hNew, uint32_t hClass,
                        uint32_t *param)
{
    int err, ret;
    uint32_t got, cls, status;
    if (nvos21) {
        nvos21_t a = {hRoot, 0, hNew, hClass, (uint64_t)(uintptr_t)param, 0, 0xEEEEEEEEu};
        ret = raw_ioctl(c->ctl, RAW_REQ(ESC_RM_ALLOC, sizeof a), &a, &err);
        got = a.hObjectNew, cls = a.hClass, status = a.status;
    } else {
        nvos64_t a;
        memset(&a, 0, sizeof a);
        a.hRoot = hRoot, a.hObjectNew = hNew, a.hClass = hClass, a.pAllocParms = (uint64_t)(uintptr_t)param;
        a.status = 0xEEEEEEEEu;
        ret = raw_ioctl(c->ctl, RAW_REQ(ESC_RM_ALLOC, sizeof a), &a, &err);
        got = a.hObjectNew, cls = a.hClass, status = a.status;
    }
    struct rm_result r = {ret, err, status};
    char form[32];
    if (got != 0 && (got == hRoot || got == hNew))
        snprintf(form, sizeof form, "0x%08x", got);
    else if ((got & 0xFFF00000u) == 0xC1D00000u)
        snprintf(form, sizeof form, "%s", auto_ok(got));
    else
        snprintf(form, sizeof form, "0x%08x", got);
    if (param)
        emit_rm(name, r, "hNew=%s class=0x%x param=%s", form, cls,
                *param == got ? "=hNew" : ((*param & 0xFFF00000u) == 0xC1D00000u ? "auto" : "other"));
    else
        emit_rm(name, r, "hNew=%s class=0x%x", form, cls);
    note("%s raw hNew=0x%08x", name, got);
    if (ret == 0 && status == 0 && got != c->client)
        rm_free(c->ctl, got, got);
}

void cases_clients(struct conf *c)
{
    uint32_t p;
    client_case(c, "client.auto", 0, 0, 0, CL_ROOT_CLIENT, NULL);
    client_case(c, "client.auto.nvos21", 1, 0, 0, CL_ROOT_CLIENT, NULL);
    client_case(c, "client.class_0x0", 0, 0, 0, CL_ROOT, NULL);
    client_case(c, "client.class_0x1", 0, 0, 0, CL_ROOT_NON_PRIV, NULL);
    p = 0;
    client_case(c, "client.auto.param_out", 0, 0, 0, CL_ROOT_CLIENT, &p);
    client_case(c, "client.chosen_in_hroot", 0, 0x4e56c001u, 0, CL_ROOT_CLIENT, NULL);
    client_case(c, "client.chosen_in_hnew", 0, 0, 0x4e56c002u, CL_ROOT_CLIENT, NULL);
    p = 0x4e56c003u;
    client_case(c, "client.chosen_in_param", 0, 0, 0, CL_ROOT_CLIENT, &p);
    /* Chosen handles inside the ranges RM hands out itself: user auto clients, internal clients, child handles. */
    client_case(c, "client.chosen_in_auto_range", 0, 0xc1dffff0u, 0, CL_ROOT_CLIENT, NULL);
    client_case(c, "client.chosen_in_internal_range", 0, 0xc1e0fff0u, 0, CL_ROOT_CLIENT, NULL);
    client_case(c, "client.chosen_in_generated_range", 0, 0xcaf0fff0u, 0, CL_ROOT_CLIENT, NULL);
    client_case(c, "client.chosen_vgpu_range", 0, 0xe0000010u, 0, CL_ROOT_CLIENT, NULL);

    /* Two auto clients in a row get consecutive indices (nobody else allocates meanwhile). */
    uint32_t a = rm_client(c->ctl), b = rm_client(c->ctl);
    emit_raw("client.auto.sequential", 0, 0, "delta=%d", (int)(b - a));
    rm_free(c->ctl, a, a);
    rm_free(c->ctl, b, b);

    /* A chosen handle stays taken while its client lives. */
    uint32_t h = 0x4e56c010u;
    struct rm_result r = rm_alloc(c->ctl, h, 0, &h, CL_ROOT_CLIENT, NULL);
    emit_rm("client.chosen.first", r, "hNew=0x%08x", h);
    uint32_t h2 = 0x4e56c010u;
    r = rm_alloc(c->ctl, h2, 0, &h2, CL_ROOT_CLIENT, NULL);
    emit_rm("client.chosen.duplicate", r, NULL);
    h2 = c->client;
    r = rm_alloc(c->ctl, h2, 0, &h2, CL_ROOT_CLIENT, NULL);
    emit_rm("client.chosen.equals_auto_in_use", r, NULL);
    r = rm_free(c->ctl, h, h);
    emit_rm("client.chosen.free", r, NULL);
}

/* Allocates the fixture's device and subdevice (the base for everything after). */
static void tree_cases(struct conf *c)
{
    uint8_t dev[56];
    memset(dev, 0, sizeof dev);
    uint32_t h = 0x5c000002u;
    struct rm_result r = rm_alloc(c->ctl, c->client, c->client, &h, CL_DEVICE, NULL);
    emit_rm("alloc.device.null_params", r, NULL);
    uint32_t id = 32;
    memcpy(dev, &id, 4);
    r = rm_alloc(c->ctl, c->client, c->client, &h, CL_DEVICE, dev);
    emit_rm("alloc.device.deviceid_32", r, NULL);
    id = 1;
    memcpy(dev, &id, 4);
    r = rm_alloc(c->ctl, c->client, c->client, &h, CL_DEVICE, dev);
    emit_rm("alloc.device.deviceid_1", r, NULL);

    r = alloc_fixture(c, "device", 0, 0, NULL, NULL, 0);
    emit_rm("alloc.device.libcuda_params", r, NULL);
    r = alloc_fixture(c, "subdevice", 0, 0, NULL, NULL, 0);
    emit_rm("alloc.subdevice.libcuda_params", r, NULL);
    c->dev = 0x5c000002u;
    c->subdev = 0x5c000003u;
    c->have_tree = 1;

    h = H_SCRATCH;
    r = alloc_fixture(c, "device", H_SCRATCH, 0, NULL, NULL, 0);
    emit_rm("alloc.device.second_same_instance", r, NULL);
    if (r.ret == 0 && r.status == 0)
        rm_free(c->ctl, c->client, H_SCRATCH);
    h = H_SCRATCH;
    r = rm_alloc(c->ctl, c->client, c->dev, &h, CL_SUBDEVICE, NULL);
    emit_rm("alloc.subdevice.second_null_params", r, NULL);
    if (r.ret == 0 && r.status == 0)
        rm_free(c->ctl, c->client, H_SCRATCH);
    id = 1;
    h = H_SCRATCH;
    r = rm_alloc(c->ctl, c->client, c->dev, &h, CL_SUBDEVICE, &id);
    emit_rm("alloc.subdevice.id1", r, NULL);
    if (r.ret == 0 && r.status == 0)
        rm_free(c->ctl, c->client, H_SCRATCH);
}

struct alloc_row {
    const char *name;
    uint32_t parent; /* 1 = client, 2 = device, 3 = subdevice, 4 = absent handle, other = literal */
    uint32_t hclass;
    int params;      /* 0 NULL, 1 valid TSG params, 2 bad pointer, 3 zero buffer */
    uint32_t handle; /* 0 = H_SCRATCH */
};

static uint32_t resolve_parent(const struct conf *c, uint32_t p)
{
    switch (p) {
    case 1: return c->client;
    case 2: return c->dev;
    case 3: return c->subdev;
    case 4: return H_ABSENT;
    default: return p;
    }
}

void cases_alloc(struct conf *c)
{
    tree_cases(c);
    static const struct alloc_row rows[] = {
        {"alloc.unknown_class.0xdead", 2, 0xdead, 0, 0},
        {"alloc.unknown_class.volta_compute_0xc3c0", 2, 0xc3c0, 0, 0},
        {"alloc.unknown_class.kernel_graphics_context_0x90", 2, 0x90, 0, 0},
        {"alloc.unknown_class.blackwell_channel_b_0xca6f", 2, 0xca6f, 0, 0},
        {"alloc.unknown_class.blackwell_compute_b_0xcec0", 2, 0xcec0, 0, 0},
        {"alloc.tsg.null_params", 2, CL_TSG, 0, 0},
        {"alloc.tsg.bad_params_ptr", 2, CL_TSG, 2, 0},
        {"alloc.tsg.under_client", 1, CL_TSG, 1, 0},
        {"alloc.tsg.under_subdevice", 3, CL_TSG, 1, 0},
        {"alloc.tsg.parent_not_found", 4, CL_TSG, 1, 0},
        {"alloc.tsg.handle_equals_client", 2, CL_TSG, 1, 1},
        {"alloc.tsg.handle_in_generated_range", 2, CL_TSG, 1, 0xcaf00010u},
        {"alloc.tsg.handle_duplicate_of_subdevice", 2, CL_TSG, 1, 0x5c000003u},
        {"alloc.tsg.handle_in_client_range", 2, CL_TSG, 1, 0xc1d0fff0u},
        {"alloc.tsg.handle_all_ones", 2, CL_TSG, 1, 0xffffffffu},
        {"alloc.vaspace.null_params", 2, CL_VASPACE, 0, 0},
        {"alloc.vaspace.under_client", 1, CL_VASPACE, 3, 0},
        {"alloc.ctxshare.under_device", 2, CL_CTXSHARE, 3, 0},
        {"alloc.ctxshare.null_params_under_device", 2, CL_CTXSHARE, 0, 0},
        {"alloc.channel.under_client", 1, CL_CHANNEL_HOPPER, 0, 0},
        {"alloc.channel.null_params_under_device", 2, CL_CHANNEL_HOPPER, 0, 0},
        {"alloc.subdevice.under_client", 1, CL_SUBDEVICE, 0, 0},
        {"alloc.device.under_device", 2, CL_DEVICE, 3, 0},
        {"alloc.compute.under_device", 2, CL_COMPUTE_HOPPER, 0, 0},
        {"alloc.usermode.under_device", 2, CL_USERMODE_HOPPER, 0, 0},
    };
    static uint8_t zero[512];
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        tsg_alloc_t tp = {0, 0, 0, 1, 0, {0}};
        void *params = rows[i].params == 1 ? (void *)&tp : rows[i].params == 2 ? (void *)0x1000 :
                       rows[i].params == 3 ? (void *)zero : NULL;
        uint32_t h = rows[i].handle == 0 ? H_SCRATCH : rows[i].handle == 1 ? c->client : rows[i].handle;
        struct rm_result r = rm_alloc(c->ctl, c->client, resolve_parent(c, rows[i].parent), &h, rows[i].hclass, params);
        emit_rm(rows[i].name, r, NULL);
        if (r.ret == 0 && r.status == 0)
            rm_free(c->ctl, c->client, h);
    }

    /* Generated handles: hObjectNew = 0 asks RM for one (0xCAF00000 upwards, per client). */
    uint32_t cl = rm_client(c->ctl);
    uint8_t devp[56];
    memset(devp, 0, sizeof devp);
    uint32_t h1 = 0, h2 = 0, h3 = 0;
    struct rm_result r = rm_alloc(c->ctl, cl, cl, &h1, CL_DEVICE, devp);
    emit_rm("handle.generated.first", r, "hNew=0x%08x", h1);
    r = rm_alloc(c->ctl, cl, h1, &h2, CL_SUBDEVICE, NULL);
    emit_rm("handle.generated.second", r, "hNew=0x%08x", h2);
    tsg_alloc_t tp = {0, 0, 0, 1, 0, {0}};
    r = rm_alloc(c->ctl, cl, h1, &h3, CL_TSG, &tp);
    emit_rm("handle.generated.third", r, "hNew=0x%08x", h3);
    rm_free(c->ctl, cl, h3);
    uint32_t h4 = 0;
    r = rm_alloc(c->ctl, cl, h1, &h4, CL_TSG, &tp);
    emit_rm("handle.generated.after_free", r, "hNew=0x%08x", h4);
    rm_free(c->ctl, cl, cl);

    /* The alloc paramsSize field is ignored: the class decides how much is copied. */
    uint8_t buf[48];
    memset(buf, 0, sizeof buf);
    nvos64_t a;
    memset(&a, 0, sizeof a);
    a.hRoot = c->client, a.hObjectParent = c->dev, a.hObjectNew = H_SCRATCH, a.hClass = CL_TSG;
    a.pAllocParms = (uint64_t)(uintptr_t)&tp, a.paramsSize = 7, a.status = 0xEEEEEEEEu;
    int err, ret = raw_ioctl(c->ctl, RAW_REQ(ESC_RM_ALLOC, sizeof a), &a, &err);
    r.ret = ret, r.err = err, r.status = a.status;
    emit_rm("alloc.tsg.params_size_7_ignored", r, NULL);
    rm_free(c->ctl, c->client, H_SCRATCH);
    a.paramsSize = 0x7fffffff, a.status = 0xEEEEEEEEu;
    ret = raw_ioctl(c->ctl, RAW_REQ(ESC_RM_ALLOC, sizeof a), &a, &err);
    r.ret = ret, r.err = err, r.status = a.status;
    emit_rm("alloc.tsg.params_size_huge_ignored", r, NULL);
    rm_free(c->ctl, c->client, H_SCRATCH);
    a.paramsSize = 0, a.pRightsRequested = 0x1000, a.status = 0xEEEEEEEEu;
    ret = raw_ioctl(c->ctl, RAW_REQ(ESC_RM_ALLOC, sizeof a), &a, &err);
    r.ret = ret, r.err = err, r.status = a.status;
    emit_rm("alloc.tsg.rights_ptr_bad", r, NULL);
    rm_free(c->ctl, c->client, H_SCRATCH);
    nvos21_t a21 = {c->client, c->dev, H_SCRATCH, CL_TSG, (uint64_t)(uintptr_t)&tp, 0, 0xEEEEEEEEu};
    ret = raw_ioctl(c->ctl, RAW_REQ(ESC_RM_ALLOC, sizeof a21), &a21, &err);
    r.ret = ret, r.err = err, r.status = a21.status;
    emit_rm("alloc.tsg.nvos21", r, NULL);
    rm_free(c->ctl, c->client, H_SCRATCH);
    uint32_t hbad = H_SCRATCH;
    r = rm_alloc(c->ctl, 0x4e56dead, c->dev, &hbad, CL_TSG, &tp);
    emit_rm("alloc.unknown_client", r, NULL);

    /* Engine types a channel group accepts (GR0 only among GR engines without MIG). */
    static const struct {
        const char *name;
        uint32_t engine;
    } eng[] = {
        {"alloc.tsg.engine_null_0", 0},   {"alloc.tsg.engine_gr0_1", 1},    {"alloc.tsg.engine_gr1_2", 2},
        {"alloc.tsg.engine_copy0_9", 9},  {"alloc.tsg.engine_copy2_0xb", 0xb}, {"alloc.tsg.engine_0x54", 0x54},
        {"alloc.tsg.engine_0xffff", 0xffff},
    };
    for (size_t i = 0; i < sizeof eng / sizeof eng[0]; i++) {
        tsg_alloc_t e = {0, 0, 0, eng[i].engine, 0, {0}};
        uint32_t he = H_SCRATCH;
        r = rm_alloc(c->ctl, c->client, c->dev, &he, CL_TSG, &e);
        emit_rm(eng[i].name, r, NULL);
        if (r.ret == 0 && r.status == 0)
            rm_free(c->ctl, c->client, he);
    }
}

/* Generic control checks, run against the populated channel group when it exists. */
void cases_controls(struct conf *c)
{
    uint32_t tsg = c->have_pop ? H_TSG_P : H_TSG_E;
    uint64_t ts = 0;
    uint32_t u32 = 0;
    struct rm_result r;
    static const struct {
        const char *name;
        int obj; /* 0 client, 1 device, 2 subdevice, 3 tsg, 4 channel, 5 absent, 6 absent client */
        uint32_t cmd;
        int params; /* 0 NULL, 1 &ts, 2 bad ptr 0x1000, 3 kernel-half ptr, 4 &u32, 5 big (zeroed) */
        uint32_t size;
        uint32_t flags;
    } rows[] = {
        {"ctrl.null_params_size8", 3, CA06C_GET_TIMESLICE, 0, 8, 0},
        {"ctrl.params_size0_nonnull", 3, CA06C_GET_TIMESLICE, 1, 0, 0},
        {"ctrl.size_mismatch_4", 3, CA06C_GET_TIMESLICE, 1, 4, 0},
        {"ctrl.size_mismatch_16", 3, CA06C_GET_TIMESLICE, 1, 16, 0},
        {"ctrl.bad_params_ptr", 3, CA06C_GET_TIMESLICE, 2, 8, 0},
        {"ctrl.kernel_params_ptr", 3, CA06C_GET_TIMESLICE, 3, 8, 0},
        {"ctrl.unknown_cmd_on_tsg", 3, 0xa06c01ff, 0, 0, 0},
        {"ctrl.unknown_cmd_on_tsg_with_params", 3, 0xa06c01ff, 1, 8, 0},
        {"ctrl.unknown_class_cmd", 3, 0x12340101, 0, 0, 0},
        {"ctrl.cmd_zero", 3, 0, 0, 0, 0},
        {"ctrl.cmd_category_index_zero", 3, 0xa06c0000, 0, 0, 0},
        {"ctrl.internal_set_timeslice", 3, CA06C_INTERNAL_SET_TIMESLICE, 1, 8, 0},
        {"ctrl.get_interleave_not_exported", 3, CA06C_GET_INTERLEAVE, 4, 4, 0},
        {"ctrl.tsg_cmd_on_subdevice", 2, CA06C_GET_TIMESLICE, 1, 8, 0},
        {"ctrl.tsg_cmd_on_channel", 4, CA06C_GET_TIMESLICE, 1, 8, 0},
        {"ctrl.tsg_cmd_on_device", 1, CA06C_GET_TIMESLICE, 1, 8, 0},
        {"ctrl.tsg_cmd_on_client", 0, CA06C_GET_TIMESLICE, 1, 8, 0},
        {"ctrl.channel_cmd_on_tsg", 3, CC36F_GET_WORK_SUBMIT_TOKEN, 4, 4, 0},
        {"ctrl.subdevice_cmd_on_tsg_size0", 3, C2080_GPU_GET_NAME_STRING, 0, 0, 0},
        {"ctrl.subdevice_cmd_on_tsg", 3, C2080_GPU_GET_NAME_STRING, 5, 132, 0},
        {"ctrl.subdevice_cmd_on_subdevice", 2, C2080_GPU_GET_NAME_STRING, 5, 132, 0},
        {"ctrl.device_cmd_on_client", 0, C0080_GET_NUM_SUBDEVICES, 4, 4, 0},
        {"ctrl.device_cmd_on_device", 1, C0080_GET_NUM_SUBDEVICES, 4, 4, 0},
        {"ctrl.client_cmd_on_device_size0", 1, C0000_GET_ATTACHED_IDS, 0, 0, 0},
        {"ctrl.client_cmd_on_device", 1, C0000_GET_ATTACHED_IDS, 5, 128, 0},
        {"ctrl.unknown_object", 5, CA06C_GET_TIMESLICE, 1, 8, 0},
        {"ctrl.unknown_client", 6, CA06C_GET_TIMESLICE, 1, 8, 0},
        {"ctrl.unknown_client_bad_size", 6, CA06C_GET_TIMESLICE, 1, 4, 0},
        {"ctrl.flags_irql_raised", 3, CA06C_GET_TIMESLICE, 1, 8, 1},
        {"ctrl.flags_lock_bypass", 3, CA06C_GET_TIMESLICE, 1, 8, 2},
        {"ctrl.size_over_1mib", 3, 0xa06c01ff, 1, (1u << 20) + 8, 0},
    };
    uint32_t objs[7] = {c->client, c->dev, c->subdev, tsg, c->have_pop ? H_CH_P0 : H_ABSENT, H_ABSENT, 0x4e56dead};
    static uint8_t big[256];
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ts = 0xabababab;
        u32 = 0xabababab;
        memset(big, 0, sizeof big);
        void *p = rows[i].params == 1 ? (void *)&ts : rows[i].params == 2 ? (void *)0x1000 :
                  rows[i].params == 3 ? (void *)0xffff880000000000ull : rows[i].params == 4 ? (void *)&u32 :
                  rows[i].params == 5 ? (void *)big : NULL;
        nvos54_t q;
        memset(&q, 0, sizeof q);
        q.hClient = rows[i].obj == 6 ? objs[6] : c->client;
        q.hObject = objs[rows[i].obj];
        q.cmd = rows[i].cmd;
        q.flags = rows[i].flags;
        q.params = (uint64_t)(uintptr_t)p;
        q.paramsSize = rows[i].size;
        q.status = 0xEEEEEEEEu;
        int err, ret = raw_ioctl(c->ctl, RAW_REQ(ESC_RM_CONTROL, sizeof q), &q, &err);
        r.ret = ret, r.err = err, r.status = q.status;
        emit_rm(rows[i].name, r, "params_written=%s",
                rows[i].params == 1 ? (ts != 0xabababab ? "yes" : "no") :
                rows[i].params == 4 ? (u32 != 0xabababab ? "yes" : "no") : "-");
    }
    /* A control through the XFER escape behaves like the direct one. */
    nvos54_t q;
    memset(&q, 0, sizeof q);
    q.hClient = c->client, q.hObject = tsg, q.cmd = CA06C_GET_TIMESLICE;
    q.params = (uint64_t)(uintptr_t)&ts, q.paramsSize = 8, q.status = 0xEEEEEEEEu;
    nv_xfer_t x = {ESC_RM_CONTROL, sizeof q, (uint64_t)(uintptr_t)&q};
    int err, ret = raw_ioctl(c->ctl, RAW_REQ(ESC_IOCTL_XFER, sizeof x), &x, &err);
    r.ret = ret, r.err = err, r.status = q.status;
    emit_rm("ctrl.via_xfer.get_timeslice", r, "timesliceUs=%llu", (unsigned long long)ts);
    /* Client controls. */
    uint32_t ids[32];
    memset(ids, 0xab, sizeof ids);
    r = rm_control(c->ctl, c->client, c->client, C0000_GET_ATTACHED_IDS, ids, sizeof ids);
    int n = 0;
    while (n < 32 && ids[n] != 0xFFFFFFFFu)
        n++;
    emit_rm("ctrl.client.get_attached_ids", r, "count=%d", n);
    gpu_id_info_v2_t gi;
    memset(&gi, 0, sizeof gi);
    gi.gpuId = c->gpu_id;
    r = rm_control(c->ctl, c->client, c->client, C0000_GET_ID_INFO_V2, &gi, sizeof gi);
    emit_rm("ctrl.client.get_id_info_v2", r, "deviceInstance=%u subDeviceInstance=%u", gi.deviceInstance,
            gi.subDeviceInstance);
    gi.gpuId = 0x12345;
    r = rm_control(c->ctl, c->client, c->client, C0000_GET_ID_INFO_V2, &gi, sizeof gi);
    emit_rm("ctrl.client.get_id_info_v2.unknown_gpu", r, NULL);
}

/*
 * DISABLE_CHANNELS names channels by (client, channel) pairs: does the driver let one opener
 * disable a channel of a client that belongs to another opener? (GPreempt's cross-process use.)
 */
static void foreign_channel_cases(struct conf *c, int ctl2, uint32_t client2)
{
    struct conf o = *c;
    o.ctl = ctl2;
    o.client = client2;
    static const char *tree[] = {"device", "subdevice", "vaspace_plain", "userd", "notifier0"};
    struct rm_result r = {0, 0, 0};
    for (size_t i = 0; i < sizeof tree / sizeof tree[0] && r.status == 0; i++)
        r = alloc_fixture(&o, tree[i], 0, 0, NULL, NULL, 0);
    tsg_alloc_t tp = {0, 0, 0, 1, 0, {0}};
    uint32_t h = H_TSG_E;
    if (r.status == 0)
        r = rm_alloc(ctl2, client2, 0x5c000002u, &h, CL_TSG, &tp);
    ctxshare_alloc_t cp = {0x5c00000au, 1, 0};
    h = H_CTX_P;
    if (r.status == 0)
        r = rm_alloc(ctl2, client2, H_TSG_E, &h, CL_CTXSHARE, &cp);
    uint32_t from[1] = {0x5c000016u}, to[1] = {H_CTX_P};
    if (r.status == 0)
        r = alloc_fixture(&o, "channel0", H_CH_P0, H_TSG_E, from, to, 1);
    uint8_t s[3] = {1, 0, 0};
    if (r.status == 0)
        r = rm_control(ctl2, client2, H_TSG_E, CA06C_GPFIFO_SCHEDULE, s, 3);
    emit_rm("opener2.build_channel", r, NULL);
    static disable_channels_t p;
    memset(&p, 0, sizeof p);
    p.bDisable = 1, p.numChannels = 1, p.hClientList[0] = client2, p.hChannelList[0] = H_CH_P0;
    r = rm_control(c->ctl, c->client, c->subdev, C2080_FIFO_DISABLE_CHANNELS, &p, sizeof p);
    emit_rm("opener1.disable_channels_of_opener2", r, NULL);
    p.bDisable = 0;
    r = rm_control(c->ctl, c->client, c->subdev, C2080_FIFO_DISABLE_CHANNELS, &p, sizeof p);
    emit_rm("opener1.enable_channels_of_opener2", r, NULL);
    p.bDisable = 0;
    r = rm_control(ctl2, client2, 0x5c000003u, C2080_FIFO_DISABLE_CHANNELS, &p, sizeof p);
    emit_rm("opener2.enable_own_channels", r, NULL);
    p.hClientList[0] = c->client, p.hChannelList[0] = H_CH_P0;
    p.bDisable = 1;
    r = rm_control(ctl2, client2, 0x5c000003u, C2080_FIFO_DISABLE_CHANNELS, &p, sizeof p);
    emit_rm("opener2.disable_channels_of_opener1", r, NULL);
    p.bDisable = 0;
    rm_control(c->ctl, c->client, c->subdev, C2080_FIFO_DISABLE_CHANNELS, &p, sizeof p);
    preempt_params_t pp = {1, 0, {0, 0}, 0};
    r = rm_control(c->ctl, client2, H_TSG_E, CA06C_PREEMPT, &pp, sizeof pp);
    emit_rm("opener1.preempt_group_of_opener2", r, NULL);
    r = rm_free(ctl2, client2, 0x5c000002u);
    emit_rm("opener2.free_device", r, NULL);
}

/* A second opener of /dev/nvidiactl must not reach the first opener's client. */
void cases_openers(struct conf *c)
{
    int ctl2 = open("/dev/nvidiactl", O_RDWR | O_CLOEXEC);
    uint32_t tsg = c->have_pop ? H_TSG_P : H_TSG_E;
    uint64_t ts = 0;
    struct rm_result r = rm_control(ctl2, c->client, tsg, CA06C_GET_TIMESLICE, &ts, 8);
    emit_rm("opener2.control_foreign_client", r, NULL);
    uint32_t ids[32];
    r = rm_control(ctl2, c->client, c->client, C0000_GET_ATTACHED_IDS, ids, sizeof ids);
    emit_rm("opener2.client_cmd_foreign_client", r, NULL);
    tsg_alloc_t tp = {0, 0, 0, 1, 0, {0}};
    uint32_t h = H_SCRATCH;
    r = rm_alloc(ctl2, c->client, c->dev, &h, CL_TSG, &tp);
    emit_rm("opener2.alloc_in_foreign_client", r, NULL);
    if (r.ret == 0 && r.status == 0)
        rm_free(c->ctl, c->client, H_SCRATCH);
    r = rm_free(ctl2, c->client, tsg);
    emit_rm("opener2.free_foreign_object", r, NULL);
    r = rm_control(c->ctl, c->client, tsg, CA06C_GET_TIMESLICE, &ts, 8);
    emit_rm("opener2.object_still_there", r, NULL);
    r = rm_free(ctl2, c->client, c->client);
    emit_rm("opener2.free_foreign_client", r, NULL);
    uint32_t own = rm_client(ctl2);
    emit_raw("opener2.own_client", own ? 0 : -1, 0, "hNew=%s", own ? auto_ok(own) : "none");
    r = rm_control(c->ctl, own, own, C0000_GET_ATTACHED_IDS, ids, sizeof ids);
    emit_rm("opener1.control_opener2_client", r, NULL);

    foreign_channel_cases(c, ctl2, own);

    /* A device node registered to the control fd. RM escapes stay control-node only. */
    int d = open("/dev/nvidia0", O_RDWR | O_CLOEXEC);
    int fd = c->ctl, err;
    raw_ioctl(d, RAW_REQ(ESC_REGISTER_FD, 4), &fd, &err);
    r = rm_control(d, c->client, tsg, CA06C_GET_TIMESLICE, &ts, 8);
    emit_rm("opener.registered_dev0.control", r, NULL);
    close(d);

    /* Closing an opener frees its clients: the handle becomes free for a chosen-handle client. */
    uint32_t ch = 0x4e56c020u;
    r = rm_alloc(ctl2, ch, 0, &ch, CL_ROOT_CLIENT, NULL);
    emit_rm("opener2.chosen_client", r, NULL);
    close(ctl2);
    uint32_t again = 0x4e56c020u;
    r = rm_alloc(c->ctl, again, 0, &again, CL_ROOT_CLIENT, NULL);
    emit_rm("close.frees_clients.handle_reusable", r, NULL);
    rm_free(c->ctl, again, again);
}

/* Frees: twice, unknown objects, parent before child, dependants, whole client, use after free. */
void cases_frees(struct conf *c)
{
    uint64_t ts;
    uint32_t tok;
    struct rm_result r;
    r = rm_free(c->ctl, c->client, H_ABSENT);
    emit_rm("free.unknown_object", r, NULL);
    r = rm_free(c->ctl, 0x4e56dead, 0x4e56dead);
    emit_rm("free.unknown_client", r, NULL);
    r = rm_free(c->ctl, 0x4e56dead, H_ABSENT);
    emit_rm("free.object_in_unknown_client", r, NULL);
    if (c->have_pop && c->nchan == 8) {
        uint32_t last = H_CH_P0 + 7;
        r = rm_free(c->ctl, c->client, last);
        emit_rm("free.channel", r, NULL);
        r = rm_free(c->ctl, c->client, last);
        emit_rm("free.channel.twice", r, NULL);
        r = rm_control(c->ctl, c->client, last, CC36F_GET_WORK_SUBMIT_TOKEN, &tok, 4);
        emit_rm("uaf.channel.token", r, NULL);
        /* Channels depend on their context share, which depends on the VA space. */
        r = rm_free(c->ctl, c->client, 0x5c00000au);
        emit_rm("free.vaspace_with_dependants", r, NULL);
        r = rm_control(c->ctl, c->client, H_CH_P0, CC36F_GET_WORK_SUBMIT_TOKEN, &tok, 4);
        emit_rm("uaf.dependant.channel", r, NULL);
        r = rm_control(c->ctl, c->client, H_CTX_P, 0x906701ffu, NULL, 0);
        emit_rm("uaf.dependant.ctxshare_unknown_cmd", r, NULL);
        r = rm_control(c->ctl, c->client, H_TSG_P, CA06C_GET_TIMESLICE, &ts, 8);
        emit_rm("uaf.dependant.tsg_survives", r, NULL);
        r = rm_free(c->ctl, c->client, 0x5c00000au);
        emit_rm("free.vaspace.twice", r, NULL);
    }
    r = rm_free(c->ctl, c->client, c->dev);
    emit_rm("free.device_before_children", r, NULL);
    uint8_t name[132];
    memset(name, 0, sizeof name);
    r = rm_control(c->ctl, c->client, c->subdev, C2080_GPU_GET_NAME_STRING, name, sizeof name);
    emit_rm("uaf.subdevice", r, NULL);
    r = rm_control(c->ctl, c->client, H_TSG_E, CA06C_GET_TIMESLICE, &ts, 8);
    emit_rm("uaf.tsg", r, NULL);
    tsg_alloc_t tp = {0, 0, 0, 1, 0, {0}};
    uint32_t h = H_SCRATCH;
    r = rm_alloc(c->ctl, c->client, c->dev, &h, CL_TSG, &tp);
    emit_rm("uaf.alloc_under_freed_device", r, NULL);
    r = rm_free(c->ctl, c->client, c->client);
    emit_rm("free.client", r, NULL);
    uint32_t ids[32];
    r = rm_control(c->ctl, c->client, c->client, C0000_GET_ATTACHED_IDS, ids, sizeof ids);
    emit_rm("uaf.client.control", r, NULL);
    h = H_SCRATCH;
    uint8_t devp[56];
    memset(devp, 0, sizeof devp);
    r = rm_alloc(c->ctl, c->client, c->client, &h, CL_DEVICE, devp);
    emit_rm("uaf.client.alloc", r, NULL);
    r = rm_free(c->ctl, c->client, c->client);
    emit_rm("free.client.twice", r, NULL);
}
