/* The FIFO classes and controls through nvemu_ioctl: construction rules, sizes, privileges, errors. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "../rm/rm_test_util.h"
#include "abi/nv_alloc_fifo.h"
#include "abi/nv_ctrl_fifo.h"
#include "abi/nv_engine.h"
#include "core/emulator.h"
#include "nvemu/nvemu.h"
#include "sim/sim.h"

#define HDEV 0x5c000002u
#define HSUB 0x5c000003u
#define HVAS 0x5c000009u
#define HTSG 0x5c000015u
#define HCTX 0x5c000016u
#define HCH  0x5c00001cu

struct fx {
    struct tenv e;
    uint32_t hc;
};

static int setup(void **state)
{
    struct fx *x = calloc(1, sizeof(*x));
    if (!x || tenv_init(&x->e, false) != 0)
        return -1;
    x->hc = tbase(&x->e, x->e.ctl, HDEV, HSUB);
    NV_VASPACE_ALLOCATION_PARAMETERS vp;
    memset(&vp, 0, sizeof(vp));
    uint32_t h = HVAS;
    if (!x->hc || talloc(&x->e, x->e.ctl, x->hc, HDEV, &h, FERMI_VASPACE_A, &vp) != NV_OK)
        return -1;
    *state = x;
    return 0;
}

static int teardown(void **state)
{
    struct fx *x = *state;
    tenv_fini(&x->e);
    free(x);
    return 0;
}

static NV_STATUS alloc(struct fx *x, uint32_t parent, uint32_t h, uint32_t cls, void *params)
{
    return talloc(&x->e, x->e.ctl, x->hc, parent, &h, cls, params);
}

static NV_STATUS ctrl(struct fx *x, uint32_t obj, uint32_t cmd, void *p, uint32_t size)
{
    return tctrl(&x->e, x->e.ctl, x->hc, obj, cmd, p, size);
}

static void mk_tsg(struct fx *x, uint32_t h, uint32_t engine)
{
    NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS gp = {.engineType = engine};
    assert_int_equal(alloc(x, HDEV, h, KEPLER_CHANNEL_GROUP_A, &gp), NV_OK);
}

static NV_STATUS mk_channel(struct fx *x, uint32_t parent, uint32_t h, uint32_t hctx, uint32_t hvas,
                            NV_CHANNEL_ALLOC_PARAMS *out)
{
    NV_CHANNEL_ALLOC_PARAMS cp;
    memset(&cp, 0, sizeof(cp));
    cp.hContextShare = hctx;
    cp.hVASpace = hvas;
    NV_STATUS st = alloc(x, parent, h, HOPPER_CHANNEL_GPFIFO_A, &cp);
    if (out)
        *out = cp;
    return st;
}

static void tsg_timeslice_set_is_what_get_answers(void **state)
{
    struct fx *x = *state;
    mk_tsg(x, HTSG, NV2080_ENGINE_TYPE_GR0);
    NVA06C_CTRL_TIMESLICE_PARAMS ts = {0};
    assert_int_equal(ctrl(x, HTSG, NVA06C_CTRL_CMD_GET_TIMESLICE, &ts, sizeof(ts)), NV_OK);
    assert_int_equal(ts.timesliceUs, 1024);
    ts.timesliceUs = 2048;
    assert_int_equal(ctrl(x, HTSG, NVA06C_CTRL_CMD_SET_TIMESLICE, &ts, sizeof(ts)), NV_OK);
    ts.timesliceUs = 0;
    assert_int_equal(ctrl(x, HTSG, NVA06C_CTRL_CMD_GET_TIMESLICE, &ts, sizeof(ts)), NV_OK);
    assert_int_equal(ts.timesliceUs, 2048);
    NVA06C_CTRL_GET_INFO_PARAMS gi = {99};
    assert_int_equal(ctrl(x, HTSG, NVA06C_CTRL_CMD_GET_INFO, &gi, sizeof(gi)), NV_OK);
    assert_int_equal(gi.tsgID, 0);

    /* 580: GPFIFO_SCHEDULE takes 3 bytes; the 2-byte (<=570) layout is a size mismatch */
    NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS sp = {1, 0, 0};
    assert_int_equal(ctrl(x, HTSG, NVA06C_CTRL_CMD_GPFIFO_SCHEDULE, &sp, 2), NV_ERR_INVALID_ARGUMENT);
    assert_int_equal(ctrl(x, HTSG, NVA06C_CTRL_CMD_GPFIFO_SCHEDULE, &sp, sizeof(sp)), NV_OK);
    sp.bSkipSubmit = sp.bSkipEnable = 1;
    assert_int_equal(ctrl(x, HTSG, NVA06C_CTRL_CMD_GPFIFO_SCHEDULE, &sp, sizeof(sp)), NV_ERR_INVALID_ARGUMENT);

    /* H200 (conformance tsg.empty.preempt.*): the 1 s cap applies to waiting calls only, and a waited
     * preempt of a group without channels times out; bWait=2 counts as a wait */
    NVA06C_CTRL_PREEMPT_PARAMS pp = {.bWait = 1, .bManualTimeout = 1, .timeoutUs = 1000001};
    assert_int_equal(ctrl(x, HTSG, NVA06C_CTRL_CMD_PREEMPT, &pp, sizeof(pp)), NV_ERR_INVALID_ARGUMENT);
    pp.bWait = 0;
    assert_int_equal(ctrl(x, HTSG, NVA06C_CTRL_CMD_PREEMPT, &pp, sizeof(pp)), NV_OK);
    pp.bWait = 1;
    pp.timeoutUs = 1000000;
    assert_int_equal(ctrl(x, HTSG, NVA06C_CTRL_CMD_PREEMPT, &pp, sizeof(pp)), NV_ERR_TIMEOUT);
    struct sim *sim = nvemu_sim(x->e.emu);
    const uint64_t dflt = nvemu_profile(x->e.emu)->timing.preempt_timeout_ns;
    sim_take_call_charge(sim);
    pp.timeoutUs = 1000;
    assert_int_equal(ctrl(x, HTSG, NVA06C_CTRL_CMD_PREEMPT, &pp, sizeof(pp)), NV_ERR_TIMEOUT);
    assert_int_equal(sim_take_call_charge(sim), 1000000u);
    /* a manual timeout of 0 waits as long as the default (H200: manual1.timeout0 took as long as manual0) */
    pp.timeoutUs = 0;
    assert_int_equal(ctrl(x, HTSG, NVA06C_CTRL_CMD_PREEMPT, &pp, sizeof(pp)), NV_ERR_TIMEOUT);
    assert_int_equal(sim_take_call_charge(sim), dflt);
    pp.bWait = 2;
    pp.bManualTimeout = 0;
    assert_int_equal(ctrl(x, HTSG, NVA06C_CTRL_CMD_PREEMPT, &pp, sizeof(pp)), NV_ERR_TIMEOUT);
    assert_int_equal(sim_take_call_charge(sim), dflt);
    /* with a channel the preempt of an idle group completes at once */
    assert_int_equal(mk_channel(x, HTSG, HCH, 0, 0, NULL), NV_OK);
    assert_int_equal(ctrl(x, HTSG, NVA06C_CTRL_CMD_PREEMPT, &pp, sizeof(pp)), NV_OK);
    /* H200: a TSG needs a valid engine type (per-runlist channel RAM in HW) */
    NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS gnull = {.engineType = NV2080_ENGINE_TYPE_NULL};
    assert_int_equal(alloc(x, HDEV, 0x5c000091u, KEPLER_CHANNEL_GROUP_A, &gnull), NV_ERR_INVALID_ARGUMENT);

    /* NICE-right controls refuse a caller without CAP_SYS_NICE */
    NVA06C_CTRL_INTERLEAVE_LEVEL_PARAMS il = {2};
    assert_int_equal(ctrl(x, HTSG, NVA06C_CTRL_CMD_SET_INTERLEAVE_LEVEL, &il, sizeof(il)),
                     NV_ERR_INSUFFICIENT_PERMISSIONS);
    NV2080_CTRL_FIFO_RUNLIST_SET_SCHED_POLICY_PARAMS pol = {0, 1};
    assert_int_equal(ctrl(x, HSUB, NV2080_CTRL_CMD_FIFO_RUNLIST_SET_SCHED_POLICY, &pol, sizeof(pol)),
                     NV_ERR_INSUFFICIENT_PERMISSIONS);
    /* GET_INTERLEAVE_LEVEL is not exported */
    assert_int_equal(ctrl(x, HTSG, 0xA06C0108u, &il, sizeof(il)), NV_ERR_NOT_SUPPORTED);
    assert_int_equal(alloc(x, HTSG, 0x5c000090u, KERNEL_GRAPHICS_CONTEXT, NULL), NV_ERR_INVALID_CLASS);
}

static void ctxshare_gets_the_top_subcontext_and_mixed_channels_are_refused(void **state)
{
    struct fx *x = *state;
    mk_tsg(x, HTSG, NV2080_ENGINE_TYPE_GR0);
    NV_CTXSHARE_ALLOCATION_PARAMETERS cs = {.hVASpace = HVAS, .flags = 1};
    assert_int_equal(alloc(x, HTSG, HCTX, FERMI_CONTEXT_SHARE_A, &cs), NV_OK);
    assert_int_equal(cs.subctxId, 63); /* async subcontexts from the top, as on the H200 */
    NV_CHANNEL_ALLOC_PARAMS cp, cp2;
    assert_int_equal(mk_channel(x, HTSG, HCH, HCTX, 0, &cp), NV_OK);
    /* mixing channels with and without a context share, or naming a VA space under a TSG */
    assert_int_equal(mk_channel(x, HTSG, HCH + 1, 0, 0, NULL), NV_ERR_INVALID_ARGUMENT);
    assert_int_equal(mk_channel(x, HTSG, HCH + 1, HCTX, HVAS, NULL), NV_ERR_INVALID_ARGUMENT);
    assert_int_equal(mk_channel(x, HTSG, HCH + 8, HCTX, 0, &cp2), NV_OK);
    /* cid is the driver's unique-id counter, not the ChID: the TSG took channel_uid_first, the first
     * channel the next (reference trace lines 125/141: 0x33, 0x34); failed allocations use ids too */
    const struct profile *prof = nvemu_profile(x->e.emu);
    assert_int_equal(cp.cid, prof->channel_uid_first + 1);
    assert_int_equal(cp2.cid, prof->channel_uid_first + 4);
    assert_int_equal(cp.hPhysChannelGroup, 0);

    /* no runlist yet: no engine object, group never scheduled (H200 pop.channel0...unscheduled: 0x40) */
    NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN_PARAMS tok = {0};
    assert_int_equal(ctrl(x, HCH, NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN, &tok, sizeof(tok)),
                     NV_ERR_INVALID_STATE);

    /* engine objects report their engine: compute on GR0, the GR channel's copy object on COPY1 */
    assert_int_equal(alloc(x, HCH, HCH + 1, HOPPER_COMPUTE_A, NULL), NV_OK);
    assert_int_equal(alloc(x, HCH, HCH + 2, HOPPER_DMA_COPY_A, NULL), NV_OK);

    /* as in the libcuda trace: with its engine objects the channel answers the token before any schedule */
    assert_int_equal(ctrl(x, HCH, NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN, &tok, sizeof(tok)), NV_OK);
    const struct profile_engine *gr = profile_engine(prof, NV2080_ENGINE_TYPE_GR0);
    assert_non_null(gr);
    assert_int_equal(tok.workSubmitToken, (gr->runlist_id << 16) | prof->reserved_chids);

    uint32_t handles[2] = {HCH, 0x12345678u}, ids[2] = {0, 0};
    NV0080_CTRL_FIFO_GET_CHANNELLIST_PARAMS cl = {.numChannels = 2, .pChannelHandleList = (uintptr_t)handles,
                                                  .pChannelList = (uintptr_t)ids};
    assert_int_equal(ctrl(x, HDEV, NV0080_CTRL_CMD_FIFO_GET_CHANNELLIST, &cl, sizeof(cl)), NV_OK);
    assert_int_equal(ids[0], tok.workSubmitToken & 0xFFFu);
    assert_int_equal(ids[1], 0xFFFFFFFFu);
    cl.numChannels = 0;
    assert_int_equal(ctrl(x, HDEV, NV0080_CTRL_CMD_FIFO_GET_CHANNELLIST, &cl, sizeof(cl)), NV_ERR_INVALID_ARGUMENT);
    NV906F_CTRL_GET_CLASS_ENGINEID_PARAMS ce = {.hObject = HCH + 1};
    assert_int_equal(ctrl(x, HCH, NV906F_CTRL_GET_CLASS_ENGINEID, &ce, sizeof(ce)), NV_OK);
    assert_int_equal(ce.classID, HOPPER_COMPUTE_A);
    assert_int_equal(ce.engineID, NV2080_ENGINE_TYPE_GR0);
    ce.hObject = HCH + 2;
    assert_int_equal(ctrl(x, HCH, NV906F_CTRL_GET_CLASS_ENGINEID, &ce, sizeof(ce)), NV_OK);
    assert_int_equal(ce.engineID, NV2080_ENGINE_TYPE_COPY(1));

    NV2080_CTRL_GR_SET_CTXSW_PREEMPTION_MODE_PARAMS pm;
    memset(&pm, 0, sizeof(pm));
    pm.flags = NV2080_CTRL_GR_SET_CTXSW_PREEMPTION_MODE_FLAGS_CILP;
    pm.hChannel = HCH;
    pm.cilpPreemptMode = 2;
    assert_int_equal(ctrl(x, HSUB, NV2080_CTRL_CMD_GR_SET_CTXSW_PREEMPTION_MODE, &pm, sizeof(pm)), NV_OK);
    pm.cilpPreemptMode = 3;
    assert_int_equal(ctrl(x, HSUB, NV2080_CTRL_CMD_GR_SET_CTXSW_PREEMPTION_MODE, &pm, sizeof(pm)),
                     NV_ERR_INVALID_ARGUMENT);

    /* freeing the TSG takes its channels with it */
    assert_int_equal(tfree(&x->e, x->e.ctl, x->hc, HTSG), NV_OK);
    assert_int_equal(ctrl(x, HCH, NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN, &tok, sizeof(tok)),
                     NV_ERR_OBJECT_NOT_FOUND);
}

static void channel_under_a_device_gets_an_implicit_group(void **state)
{
    struct fx *x = *state;
    NV_CHANNEL_ALLOC_PARAMS cp;
    /* the implicit TSG gets the channel's engine type as is: NULL is refused on H200 */
    assert_int_equal(mk_channel(x, HDEV, HCH, 0, HVAS, &cp), NV_ERR_INVALID_ARGUMENT);
    memset(&cp, 0, sizeof(cp));
    cp.hVASpace = HVAS;
    cp.engineType = NV2080_ENGINE_TYPE_GR0;
    assert_int_equal(alloc(x, HDEV, HCH, HOPPER_CHANNEL_GPFIFO_A, &cp), NV_OK);
    assert_int_not_equal(cp.hPhysChannelGroup, 0);
    NVA06C_CTRL_GET_INFO_PARAMS gi = {99};
    assert_int_equal(ctrl(x, cp.hPhysChannelGroup, NVA06C_CTRL_CMD_GET_INFO, &gi, sizeof(gi)), NV_OK);
    assert_int_equal(mk_channel(x, HDEV, HCH + 1, HCTX, 0, NULL), NV_ERR_INVALID_ARGUMENT);
    NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS sp = {1, 0, 0};
    assert_int_equal(ctrl(x, HCH, NVA06F_CTRL_CMD_GPFIFO_SCHEDULE, &sp, sizeof(sp)), NV_OK);
    NVA06F_CTRL_STOP_CHANNEL_PARAMS stop = {1};
    assert_int_equal(ctrl(x, HCH, NVA06F_CTRL_CMD_STOP_CHANNEL, &stop, sizeof(stop)), NV_OK);
    /* STOP_CHANNEL keeps the runlist assignment: the H200 still answers the token (token_after_stop) */
    NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN_PARAMS tok = {0};
    assert_int_equal(ctrl(x, HCH, NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN, &tok, sizeof(tok)), NV_OK);
    assert_int_equal(tok.workSubmitToken & 0xFFFu, nvemu_profile(x->e.emu)->reserved_chids);
    /* the RM-allocated TSG goes with its channel */
    assert_int_equal(tfree(&x->e, x->e.ctl, x->hc, HCH), NV_OK);
    assert_int_equal(ctrl(x, cp.hPhysChannelGroup, NVA06C_CTRL_CMD_GET_INFO, &gi, sizeof(gi)),
                     NV_ERR_OBJECT_NOT_FOUND);
}

static void channel_past_128_and_group_on_a_missing_engine_are_refused(void **state)
{
    struct fx *x = *state;
    mk_tsg(x, HTSG, NV2080_ENGINE_TYPE_GR0);
    for (uint32_t i = 0; i < 128; i++)
        assert_int_equal(mk_channel(x, HTSG, 0x1000 + i, 0, 0, NULL), NV_OK);
    assert_int_equal(mk_channel(x, HTSG, 0x2000, 0, 0, NULL), NV_ERR_INSUFFICIENT_RESOURCES);
    /* a TSG on an engine the GPU does not have */
    NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS gp = {.engineType = NV2080_ENGINE_TYPE_GR(3)};
    assert_int_equal(alloc(x, HDEV, 0x3000, KEPLER_CHANNEL_GROUP_A, &gp), NV_ERR_INVALID_ARGUMENT);
}

static void disable_channels_refuses_bad_counts_and_entries_as_the_h200(void **state)
{
    struct fx *x = *state;
    mk_tsg(x, HTSG, NV2080_ENGINE_TYPE_GR0);
    assert_int_equal(mk_channel(x, HTSG, HCH, 0, 0, NULL), NV_OK);
    NV2080_CTRL_FIFO_DISABLE_CHANNELS_PARAMS dp;
    memset(&dp, 0, sizeof(dp));
    dp.bDisable = 1;
    dp.numChannels = 1;
    dp.hClientList[0] = x->hc;
    dp.hChannelList[0] = HCH;
    dp.pRunlistPreemptEvent = 0x1000;
    assert_int_equal(ctrl(x, HSUB, NV2080_CTRL_CMD_FIFO_DISABLE_CHANNELS, &dp, sizeof(dp)),
                     NV_ERR_INSUFFICIENT_PERMISSIONS);
    /* H200 (conformance disable.*): counts 0 and > 64 are INVALID_PARAM_STRUCT, bad entries INVALID_CHANNEL */
    dp.pRunlistPreemptEvent = 0;
    dp.numChannels = 65;
    assert_int_equal(ctrl(x, HSUB, NV2080_CTRL_CMD_FIFO_DISABLE_CHANNELS, &dp, sizeof(dp)),
                     NV_ERR_INVALID_PARAM_STRUCT);
    dp.numChannels = 0;
    assert_int_equal(ctrl(x, HSUB, NV2080_CTRL_CMD_FIFO_DISABLE_CHANNELS, &dp, sizeof(dp)),
                     NV_ERR_INVALID_PARAM_STRUCT);
    dp.numChannels = 1;
    assert_int_equal(ctrl(x, HSUB, NV2080_CTRL_CMD_FIFO_DISABLE_CHANNELS, &dp, sizeof(dp)), NV_OK);
    dp.hChannelList[0] = 0x777;
    assert_int_equal(ctrl(x, HSUB, NV2080_CTRL_CMD_FIFO_DISABLE_CHANNELS, &dp, sizeof(dp)), NV_ERR_INVALID_CHANNEL);
    dp.hChannelList[0] = HCH;
    dp.hClientList[0] = 0x777;
    assert_int_equal(ctrl(x, HSUB, NV2080_CTRL_CMD_FIFO_DISABLE_CHANNELS, &dp, sizeof(dp)), NV_ERR_INVALID_CHANNEL);
    /* a channel-group handle is accepted */
    dp.hClientList[0] = x->hc;
    dp.hChannelList[0] = HTSG;
    assert_int_equal(ctrl(x, HSUB, NV2080_CTRL_CMD_FIFO_DISABLE_CHANNELS, &dp, sizeof(dp)), NV_OK);

    /* the driver does not check that the listed client belongs to the caller's opener */
    nvemu_identity other;
    tenv_identity(&other, 200, 1001, 0);
    int fd2 = nvemu_fdtable_open(x->e.t, "/dev/nvidiactl", &other);
    assert_true(fd2 >= 0);
    uint32_t hc2 = tbase(&x->e, fd2, HDEV, HSUB);
    assert_int_not_equal(hc2, 0);
    dp.bDisable = 0;
    dp.hChannelList[0] = HCH;
    assert_int_equal(tctrl(&x->e, fd2, hc2, HSUB, NV2080_CTRL_CMD_FIFO_DISABLE_CHANNELS, &dp, sizeof(dp)), NV_OK);
}

/* Interleave levels with CAP_SYS_NICE: an invalid level is NOT_SUPPORTED on H200 (GSP RPC failure). */
static void invalid_interleave_level_is_not_supported_with_cap_sys_nice(void **state)
{
    struct fx *x = *state;
    nvemu_identity nice;
    tenv_identity(&nice, 300, 0, 1ull << 23);
    int fd = nvemu_fdtable_open(x->e.t, "/dev/nvidiactl", &nice);
    assert_true(fd >= 0);
    uint32_t hc = tbase(&x->e, fd, HDEV, HSUB);
    assert_int_not_equal(hc, 0);
    uint32_t h = HTSG;
    NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS gp = {.engineType = NV2080_ENGINE_TYPE_GR0};
    assert_int_equal(talloc(&x->e, fd, hc, HDEV, &h, KEPLER_CHANNEL_GROUP_A, &gp), NV_OK);
    NV_CHANNEL_ALLOC_PARAMS cp;
    memset(&cp, 0, sizeof(cp));
    h = HCH;
    assert_int_equal(talloc(&x->e, fd, hc, HTSG, &h, HOPPER_CHANNEL_GPFIFO_A, &cp), NV_OK);
    static const struct {
        uint32_t level;
        NV_STATUS st;
    } rows[] = {{0, NV_OK}, {1, NV_OK}, {2, NV_OK}, {3, NV_ERR_NOT_SUPPORTED}, {0xFFFFFFFFu, NV_ERR_NOT_SUPPORTED}};
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        NVA06C_CTRL_INTERLEAVE_LEVEL_PARAMS il = {rows[i].level};
        assert_int_equal(tctrl(&x->e, fd, hc, HTSG, NVA06C_CTRL_CMD_SET_INTERLEAVE_LEVEL, &il, sizeof(il)), rows[i].st);
        NVA06F_CTRL_INTERLEAVE_LEVEL_PARAMS cl = {rows[i].level};
        assert_int_equal(tctrl(&x->e, fd, hc, HCH, NVA06F_CTRL_CMD_SET_INTERLEAVE_LEVEL, &cl, sizeof(cl)), rows[i].st);
    }
    /* RUNLIST_SET_SCHED_POLICY lock (conformance subdevice.sched_policy.*) */
    NV2080_CTRL_FIFO_RUNLIST_SET_SCHED_POLICY_PARAMS pol = {0, 1};
    assert_int_equal(tctrl(&x->e, fd, hc, HSUB, NV2080_CTRL_CMD_FIFO_RUNLIST_SET_SCHED_POLICY, &pol, sizeof(pol)), NV_OK);
    pol.schedPolicy = 0;
    assert_int_equal(tctrl(&x->e, fd, hc, HSUB, NV2080_CTRL_CMD_FIFO_RUNLIST_SET_SCHED_POLICY, &pol, sizeof(pol)), NV_OK);
    pol.flags = 1;
    assert_int_equal(tctrl(&x->e, fd, hc, HSUB, NV2080_CTRL_CMD_FIFO_RUNLIST_SET_SCHED_POLICY, &pol, sizeof(pol)), NV_OK);
    assert_int_equal(tctrl(&x->e, fd, hc, HSUB, NV2080_CTRL_CMD_FIFO_RUNLIST_SET_SCHED_POLICY, &pol, sizeof(pol)),
                     NV_ERR_INVALID_STATE);
}

static void test_fifo_get_info(void **state)
{
    struct fx *x = *state;
    mk_tsg(x, HTSG, NV2080_ENGINE_TYPE_GR0);
    NV2080_CTRL_FIFO_GET_INFO_PARAMS *p = calloc(1, sizeof(*p));
    assert_non_null(p);
    static const uint32_t idx[] = {0, 1, 2, 3, 5, 6, 7, 8, 9, 10};
    p->fifoInfoTblSize = sizeof(idx) / sizeof(idx[0]);
    for (uint32_t i = 0; i < p->fifoInfoTblSize; i++)
        p->fifoInfoTbl[i].index = idx[i];
    p->engineType = NV2080_ENGINE_TYPE_GR0;
    assert_int_equal(ctrl(x, HSUB, NV2080_CTRL_CMD_FIFO_GET_INFO, p, sizeof(*p)), NV_OK);
    assert_int_equal(p->fifoInfoTbl[1].data, 2048);
    assert_int_equal(p->fifoInfoTbl[2].data, 128);
    assert_int_equal(p->fifoInfoTbl[3].data, 64);
    assert_int_equal(p->fifoInfoTbl[4].data, 1024);
    assert_int_equal(p->fifoInfoTbl[5].data, 1);
    assert_int_equal(p->fifoInfoTbl[6].data, 0); /* H200: no per-runlist channel RAM in use */
    assert_int_equal(p->fifoInfoTbl[8].data, 1);
    p->fifoInfoTbl[0].index = 4;
    assert_int_equal(ctrl(x, HSUB, NV2080_CTRL_CMD_FIFO_GET_INFO, p, sizeof(*p)), NV_ERR_INVALID_REQUEST);
    p->fifoInfoTbl[0].index = 11;
    assert_int_equal(ctrl(x, HSUB, NV2080_CTRL_CMD_FIFO_GET_INFO, p, sizeof(*p)), NV_ERR_INVALID_ARGUMENT);
    p->fifoInfoTblSize = 257;
    assert_int_equal(ctrl(x, HSUB, NV2080_CTRL_CMD_FIFO_GET_INFO, p, sizeof(*p)), NV_ERR_INVALID_PARAM_STRUCT);
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(tsg_timeslice_set_is_what_get_answers, setup, teardown),
        cmocka_unit_test_setup_teardown(ctxshare_gets_the_top_subcontext_and_mixed_channels_are_refused,
            setup, teardown),
        cmocka_unit_test_setup_teardown(channel_under_a_device_gets_an_implicit_group, setup, teardown),
        cmocka_unit_test_setup_teardown(channel_past_128_and_group_on_a_missing_engine_are_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(disable_channels_refuses_bad_counts_and_entries_as_the_h200, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fifo_get_info, setup, teardown),
        cmocka_unit_test_setup_teardown(invalid_interleave_level_is_not_supported_with_cap_sys_nice, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
