/* libcuda's real object tree, channel groups and the scheduling controls. */
#include <stdio.h>
#include <string.h>

#include "conf.h"

static uint64_t get_ts(struct conf *c, uint32_t tsg, struct rm_result *r)
{
    uint64_t ts = 0;
    *r = rm_control(c->ctl, c->client, tsg, CA06C_GET_TIMESLICE, &ts, 8);
    return ts;
}

/* Prints the token's runlist id (a chip property) exactly; the ChID varies with other users. */
static void token_case(struct conf *c, const char *name, uint32_t ch, uint32_t *chid_base)
{
    uint32_t tok = 0;
    struct rm_result r = rm_control(c->ctl, c->client, ch, CC36F_GET_WORK_SUBMIT_TOKEN, &tok, 4);
    if (r.ret == 0 && r.status == 0) {
        if (*chid_base == 0xFFFFFFFFu)
            *chid_base = tok & 0xFFFu;
        emit_rm(name, r, "runlist=%u chid=base%+d", (tok >> 16) & 0x7Fu, (int)(tok & 0xFFFu) - (int)*chid_base);
        note("%s raw token=0x%08x", name, tok);
    } else {
        emit_rm(name, r, NULL);
    }
}

/* libcuda's own objects, with its exact parameters, on its externally owned (UVM) VA space. */
void cases_libcuda(struct conf *c)
{
    static const char *objs[] = {"usermode", "vaspace_ext", "vaspace_plain", "tsg_gr", "ctxshare", "userd",
                                 "notifier0", "channel0", "compute0"};
    struct rm_result r;
    char name[64];
    for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) {
        r = alloc_fixture(c, objs[i], 0, 0, NULL, NULL, 0);
        snprintf(name, sizeof name, "libcuda.alloc.%s", objs[i]);
        emit_rm(name, r, NULL);
    }
    uint64_t ts = get_ts(c, 0x5c000015u, &r);
    emit_rm("libcuda.tsg.get_timeslice_default", r, "timesliceUs=%llu", (unsigned long long)ts);
    uint32_t base = 0xFFFFFFFFu;
    token_case(c, "libcuda.channel0.work_submit_token_unscheduled", 0x5c00001cu, &base);
    uint8_t sched[3] = {1, 0, 0};
    r = rm_control(c->ctl, c->client, 0x5c000015u, CA06C_GPFIFO_SCHEDULE, sched, 3);
    emit_rm("libcuda.tsg.schedule_without_uvm", r, NULL);
    base = 0xFFFFFFFFu;
    token_case(c, "libcuda.channel0.work_submit_token", 0x5c00001cu, &base);
    ts = 2048;
    r = rm_control(c->ctl, c->client, 0x5c000015u, CA06C_SET_TIMESLICE, &ts, 8);
    emit_rm("libcuda.tsg.set_timeslice_2048", r, NULL);
    ts = get_ts(c, 0x5c000015u, &r);
    emit_rm("libcuda.tsg.get_timeslice_after", r, "timesliceUs=%llu", (unsigned long long)ts);
    r = rm_free(c->ctl, c->client, 0x5c000015u);
    emit_rm("libcuda.free.tsg_with_channel", r, NULL);
    r = rm_control(c->ctl, c->client, 0x5c00001cu, CC36F_GET_WORK_SUBMIT_TOKEN, &ts, 4);
    emit_rm("libcuda.uaf.channel_after_tsg_free", r, NULL);
    r = rm_control(c->ctl, c->client, 0x5c00001du, 0xcbc001ffu, NULL, 0);
    emit_rm("libcuda.uaf.compute_after_tsg_free", r, NULL);
    r = rm_free(c->ctl, c->client, 0x5c000009u);
    emit_rm("libcuda.free.vaspace_ext", r, NULL);
}

static void fifo_info_cases(struct conf *c)
{
    /* Indices whose values are chip properties are printed; usage counts vary and are only noted. */
    static const struct {
        uint32_t index;
        const char *name;
        int varies;
    } idx[] = {
        {0, "instance_total", 0}, {1, "max_channel_groups", 0}, {2, "max_channels_per_group", 0},
        {3, "max_subcontext_per_group", 0}, {4, "bar1_userd_start_offset", 0}, {5, "default_channel_timeslice", 0},
        {6, "channel_groups_in_use", 1}, {7, "is_per_runlist_channel_ram_supported", 0},
        {8, "max_channel_groups_per_engine", 0}, {9, "channel_groups_in_use_per_engine", 1},
        {10, "max_lower_subcontext", 0}, {11, "index_11", 0}, {0xff, "index_0xff", 0},
    };
    static fifo_get_info_t p;
    char name[96];
    for (size_t i = 0; i < sizeof idx / sizeof idx[0]; i++) {
        memset(&p, 0, sizeof p);
        p.fifoInfoTblSize = 1;
        p.fifoInfoTbl[0].index = idx[i].index;
        p.engineType = 1;
        struct rm_result r = rm_control(c->ctl, c->client, c->subdev, C2080_FIFO_GET_INFO, &p, sizeof p);
        snprintf(name, sizeof name, "fifo.get_info.%s", idx[i].name);
        if (idx[i].varies && r.status == 0) {
            emit_rm(name, r, "data=varies");
            note("%s raw data=%u", name, p.fifoInfoTbl[0].data);
        } else {
            emit_rm(name, r, "data=%u", p.fifoInfoTbl[0].data);
        }
    }
    memset(&p, 0, sizeof p);
    p.fifoInfoTblSize = 0;
    struct rm_result r = rm_control(c->ctl, c->client, c->subdev, C2080_FIFO_GET_INFO, &p, sizeof p);
    emit_rm("fifo.get_info.table_size_0", r, NULL);
    p.fifoInfoTblSize = 257;
    r = rm_control(c->ctl, c->client, c->subdev, C2080_FIFO_GET_INFO, &p, sizeof p);
    emit_rm("fifo.get_info.table_size_257", r, NULL);
    memset(&p, 0, sizeof p);
    p.fifoInfoTblSize = 3;
    p.fifoInfoTbl[0].index = 5, p.fifoInfoTbl[1].index = 11, p.fifoInfoTbl[2].index = 2;
    r = rm_control(c->ctl, c->client, c->subdev, C2080_FIFO_GET_INFO, &p, sizeof p);
    emit_rm("fifo.get_info.unknown_in_middle", r, "data0=%u data2=%u", p.fifoInfoTbl[0].data, p.fifoInfoTbl[2].data);
    r = rm_control(c->ctl, c->client, c->subdev, C2080_FIFO_GET_INFO, &p, sizeof p - 4);
    emit_rm("fifo.get_info.size_2052", r, NULL);
    r = rm_control(c->ctl, c->client, H_TSG_E, C2080_FIFO_GET_INFO, &p, sizeof p);
    emit_rm("fifo.get_info.on_tsg", r, NULL);
}

/* Every SET_TIMESLICE edge, each followed by GET_TIMESLICE. */
static void timeslice_cases(struct conf *c, const char *group, uint32_t tsg)
{
    static const uint64_t vals[] = {0, 1, 2, 100, 127, 128, 129, 1000, 1023, 1024, 2048, 1000000, 4294967295ull,
                                    4294967296ull, 1ull << 62, ~0ull};
    char name[96];
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        uint64_t v = vals[i];
        struct rm_result r = rm_control(c->ctl, c->client, tsg, CA06C_SET_TIMESLICE, &v, 8);
        struct rm_result g;
        uint64_t got = get_ts(c, tsg, &g);
        snprintf(name, sizeof name, "tsg.%s.set_timeslice.%llu", group, (unsigned long long)vals[i]);
        emit_rm(name, r, "get_status=0x%08x get=%llu", g.status, (unsigned long long)got);
    }
    uint64_t v = 1024;
    rm_control(c->ctl, c->client, tsg, CA06C_SET_TIMESLICE, &v, 8);
}

static void interleave_cases(struct conf *c, const char *group, uint32_t tsg, uint32_t ch)
{
    static const uint32_t vals[] = {0, 1, 2, 3, 0xffffffffu};
    char name[96];
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        uint32_t v = vals[i];
        struct rm_result r = rm_control(c->ctl, c->client, tsg, CA06C_SET_INTERLEAVE, &v, 4);
        snprintf(name, sizeof name, "tsg.%s.set_interleave.%u", group, vals[i]);
        emit_rm(name, r, NULL);
        if (ch) {
            v = vals[i];
            r = rm_control(c->ctl, c->client, ch, CA06F_SET_INTERLEAVE, &v, 4);
            snprintf(name, sizeof name, "channel.%s.set_interleave.%u", group, vals[i]);
            emit_rm(name, r, NULL);
        }
    }
    uint32_t v = 1;
    rm_control(c->ctl, c->client, tsg, CA06C_SET_INTERLEAVE, &v, 4);
    if (ch) {
        struct rm_result r = rm_control(c->ctl, c->client, ch, CA06F_GET_INTERLEAVE, &v, 4);
        emit_rm("channel.get_interleave_not_exported", r, NULL);
    }
}

static void preempt_cases(struct conf *c, const char *group, uint32_t tsg)
{
    static const struct {
        uint8_t wait, manual;
        uint32_t timeout;
    } rows[] = {
        {0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {1, 1, 1}, {1, 1, 1000}, {1, 1, 1000000}, {1, 1, 1000001},
        {1, 1, 0xffffffffu}, {0, 1, 1000001}, {0, 0, 5000},
    };
    char name[96];
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        preempt_params_t p = {rows[i].wait, rows[i].manual, {0, 0}, rows[i].timeout};
        double t0 = now_us();
        struct rm_result r = rm_control(c->ctl, c->client, tsg, CA06C_PREEMPT, &p, sizeof p);
        double us = now_us() - t0;
        snprintf(name, sizeof name, "tsg.%s.preempt.wait%u.manual%u.timeout%u", group, rows[i].wait, rows[i].manual,
                 rows[i].timeout);
        emit_rm(name, r, NULL);
        note("%s took_us=%.0f", name, us);
    }
    preempt_params_t p = {2, 0, {0, 0}, 0};
    struct rm_result r = rm_control(c->ctl, c->client, tsg, CA06C_PREEMPT, &p, sizeof p);
    snprintf(name, sizeof name, "tsg.%s.preempt.wait_value_2", group);
    emit_rm(name, r, NULL);
    r = rm_control(c->ctl, c->client, tsg, CA06C_PREEMPT, &p, 4);
    snprintf(name, sizeof name, "tsg.%s.preempt.size4", group);
    emit_rm(name, r, NULL);
}

static void schedule_cases(struct conf *c, const char *group, uint32_t tsg)
{
    static const struct {
        const char *what;
        uint8_t b[3];
        uint32_t size;
    } rows[] = {
        {"enable", {1, 0, 0}, 3}, {"enable_again", {1, 0, 0}, 3}, {"disable", {0, 0, 0}, 3},
        {"disable_again", {0, 0, 0}, 3}, {"enable_skip_submit", {1, 1, 0}, 3}, {"enable_skip_enable", {1, 0, 1}, 3},
        {"enable_skip_both", {1, 1, 1}, 3}, {"size2_pre575", {1, 0, 0}, 2}, {"enable_final", {1, 0, 0}, 3},
    };
    char name[96];
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        uint8_t b[3];
        memcpy(b, rows[i].b, 3);
        struct rm_result r = rm_control(c->ctl, c->client, tsg, CA06C_GPFIFO_SCHEDULE, b, rows[i].size);
        snprintf(name, sizeof name, "tsg.%s.schedule.%s", group, rows[i].what);
        emit_rm(name, r, NULL);
    }
}

/* The populated group: 8 channels with libcuda's parameters, on the plain VA space. */
static void build_populated(struct conf *c)
{
    tsg_alloc_t tp = {0, 0, 0, 1, 0, {0}};
    uint32_t h = H_TSG_P;
    struct rm_result r = rm_alloc(c->ctl, c->client, c->dev, &h, CL_TSG, &tp);
    emit_rm("pop.alloc.tsg", r, NULL);
    ctxshare_alloc_t cp = {0x5c00000au, 1, 0};
    h = H_CTX_P;
    r = rm_alloc(c->ctl, c->client, H_TSG_P, &h, CL_CTXSHARE, &cp);
    emit_rm("pop.alloc.ctxshare_async", r, "subctxId=%u", cp.subctxId);
    char name[64];
    for (int i = 0; i < 8; i++) {
        char nn[32], cn[32];
        snprintf(nn, sizeof nn, "notifier%d", i);
        snprintf(cn, sizeof cn, "channel%d", i);
        if (i > 0) {
            r = alloc_fixture(c, nn, 0, 0, NULL, NULL, 0);
            snprintf(name, sizeof name, "pop.alloc.%s", nn);
            emit_rm(name, r, NULL);
        }
        uint32_t from[1] = {0x5c000016u}, to[1] = {H_CTX_P};
        r = alloc_fixture(c, cn, H_CH_P0 + (uint32_t)i, H_TSG_P, from, to, 1);
        snprintf(name, sizeof name, "pop.alloc.%s", cn);
        emit_rm(name, r, NULL);
        if (r.ret == 0 && r.status == 0)
            c->nchan++;
    }
    c->have_pop = c->nchan > 0;
    /* Mixing: a channel without a context share in a group whose channels use one. */
    static uint8_t chp[CHANNEL_PARAMS_SIZE];
    const struct fixture_obj *o = fixture_find(&c->fix, "channel0");
    if (o) {
        uint32_t from[2] = {c->fix.client, 0x5c000016u}, to[2] = {c->client, 0};
        fixture_params(o, chp, sizeof chp, from, to, 2);
        h = H_SCRATCH;
        r = rm_alloc(c->ctl, c->client, H_TSG_P, &h, CL_CHANNEL_HOPPER, chp);
        emit_rm("pop.alloc.channel_mixed_no_ctxshare", r, NULL);
        if (r.ret == 0 && r.status == 0)
            rm_free(c->ctl, c->client, h);
        /* What a channel needs: libcuda's params without USERD memory, without an error notifier. */
        static const struct {
            const char *name;
            uint32_t off;
        } strip[] = {{"pop.alloc.channel_without_userd_memory", CHANNEL_OFF_HUSERD0},
                     {"pop.alloc.channel_without_error_notifier", CHANNEL_OFF_HOBJECTERROR}};
        for (size_t k = 0; k < sizeof strip / sizeof strip[0]; k++) {
            uint32_t fr[2] = {c->fix.client, 0x5c000016u}, tt[2] = {c->client, H_CTX_P};
            fixture_params(o, chp, sizeof chp, fr, tt, 2);
            memset(chp + strip[k].off, 0, 4);
            if (strip[k].off == CHANNEL_OFF_HUSERD0)
                memset(chp + CHANNEL_OFF_USERDOFFSET0, 0, 8);
            h = H_SCRATCH;
            r = rm_alloc(c->ctl, c->client, H_TSG_P, &h, CL_CHANNEL_HOPPER, chp);
            emit_rm(strip[k].name, r, NULL);
            if (r.ret == 0 && r.status == 0)
                rm_free(c->ctl, c->client, h);
        }
        uint32_t from2[2] = {c->fix.client, 0x5c000016u}, to2[2] = {c->client, H_CTX_P};
        fixture_params(o, chp, sizeof chp, from2, to2, 2);
        uint32_t va = 0x5c00000au;
        memcpy(chp + CHANNEL_OFF_HVASPACE, &va, 4);
        h = H_SCRATCH;
        r = rm_alloc(c->ctl, c->client, H_TSG_P, &h, CL_CHANNEL_HOPPER, chp);
        emit_rm("pop.alloc.channel_ctxshare_and_vaspace", r, NULL);
        if (r.ret == 0 && r.status == 0)
            rm_free(c->ctl, c->client, h);
    }
}

static void disable_case(struct conf *c, const char *name, uint8_t dis, uint32_t n, int first, uint32_t client_h,
                         uint8_t only_sched, uint8_t rewind, uint64_t event, uint32_t size)
{
    static disable_channels_t p;
    memset(&p, 0, sizeof p);
    p.bDisable = dis;
    p.numChannels = n;
    p.bOnlyDisableScheduling = only_sched;
    p.bRewindGpPut = rewind;
    p.pRunlistPreemptEvent = event;
    for (uint32_t i = 0; i < 64; i++) {
        p.hClientList[i] = client_h;
        p.hChannelList[i] = first < 0 ? H_ABSENT : H_CH_P0 + (uint32_t)first + (i % 8);
    }
    struct rm_result r = rm_control(c->ctl, c->client, c->subdev, C2080_FIFO_DISABLE_CHANNELS, &p, size);
    emit_rm(name, r, NULL);
}

static void disable_cases(struct conf *c)
{
    uint32_t me = c->client, other = rm_client(c->ctl);
    const uint32_t S = sizeof(disable_channels_t);
    disable_case(c, "disable.num0", 1, 0, 0, me, 0, 0, 0, S);
    disable_case(c, "disable.one", 1, 1, 0, me, 0, 0, 0, S);
    disable_case(c, "enable.one", 0, 1, 0, me, 0, 0, 0, S);
    disable_case(c, "disable.all8", 1, 8, 0, me, 0, 0, 0, S);
    disable_case(c, "disable.all8_again", 1, 8, 0, me, 0, 0, 0, S);
    disable_case(c, "enable.all8", 0, 8, 0, me, 0, 0, 0, S);
    disable_case(c, "disable.num64_repeats", 1, 64, 0, me, 0, 0, 0, S);
    disable_case(c, "enable.num64_repeats", 0, 64, 0, me, 0, 0, 0, S);
    disable_case(c, "disable.num65", 1, 65, 0, me, 0, 0, 0, S);
    disable_case(c, "disable.unknown_channel", 1, 1, -1, me, 0, 0, 0, S);
    disable_case(c, "disable.other_client_same_opener", 1, 1, 0, other, 0, 0, 0, S);
    disable_case(c, "disable.unknown_client", 1, 1, 0, 0x4e56dead, 0, 0, 0, S);
    disable_case(c, "disable.only_scheduling", 1, 1, 0, me, 1, 0, 0, S);
    disable_case(c, "enable.only_scheduling", 0, 1, 0, me, 1, 0, 0, S);
    disable_case(c, "disable.rewind_gpput", 1, 1, 0, me, 0, 1, 0, S);
    disable_case(c, "enable.after_rewind", 0, 1, 0, me, 0, 0, 0, S);
    disable_case(c, "disable.preempt_event_ptr", 1, 1, 0, me, 0, 0, 0x1000, S);
    disable_case(c, "disable.size535", 1, 1, 0, me, 0, 0, 0, S - 1);
    rm_free(c->ctl, other, other);
    /* The channel group handle in place of a channel. */
    static disable_channels_t p;
    memset(&p, 0, sizeof p);
    p.bDisable = 1, p.numChannels = 1, p.hClientList[0] = me, p.hChannelList[0] = H_TSG_P;
    struct rm_result r = rm_control(c->ctl, c->client, c->subdev, C2080_FIFO_DISABLE_CHANNELS, &p, sizeof p);
    emit_rm("disable.tsg_handle_as_channel", r, NULL);
}

static void channel_cases(struct conf *c)
{
    uint32_t base = 0xFFFFFFFFu;
    char name[64];
    for (int i = 0; i < c->nchan; i++) {
        snprintf(name, sizeof name, "pop.channel%d.work_submit_token", i);
        token_case(c, name, H_CH_P0 + (uint32_t)i, &base);
    }
    uint8_t s[3] = {1, 0, 0};
    struct rm_result r = rm_control(c->ctl, c->client, H_CH_P0, CA06F_GPFIFO_SCHEDULE, s, 3);
    emit_rm("pop.channel0.schedule", r, NULL);
    /* FIFO_GET_CHANNELLIST: handles in, ChIDs out (0xFFFFFFFF for handles that are not our channels). */
    uint32_t hl[3] = {H_CH_P0, H_ABSENT, H_TSG_P}, cl[3] = {0, 0, 0};
    struct {
        uint32_t numChannels, pad;
        uint64_t pChannelHandleList, pChannelList;
    } gl = {3, 0, (uint64_t)(uintptr_t)hl, (uint64_t)(uintptr_t)cl};
    r = rm_control(c->ctl, c->client, c->dev, C0080_FIFO_GET_CHANNELLIST, &gl, sizeof gl);
    emit_rm("device.get_channellist", r, "absent=0x%x tsg=0x%x", cl[1], cl[2]);
    gl.numChannels = 0;
    r = rm_control(c->ctl, c->client, c->dev, C0080_FIFO_GET_CHANNELLIST, &gl, sizeof gl);
    emit_rm("device.get_channellist.num0", r, NULL);
    gl.numChannels = 1;
    gl.pChannelList = 0x1000;
    r = rm_control(c->ctl, c->client, c->dev, C0080_FIFO_GET_CHANNELLIST, &gl, sizeof gl);
    emit_rm("device.get_channellist.bad_list_ptr", r, NULL);

    static const struct {
        const char *what;
        uint8_t force, bypass;
    } rr[] = {{"restart_runlist.0_0", 0, 0}, {"restart_runlist.1_0", 1, 0}, {"restart_runlist.0_1", 0, 1},
              {"restart_runlist.1_1", 1, 1}};
    for (size_t i = 0; i < sizeof rr / sizeof rr[0]; i++) {
        uint8_t b[2] = {rr[i].force, rr[i].bypass};
        r = rm_control(c->ctl, c->client, H_CH_P0 + 1, CA06F_RESTART_RUNLIST, b, 2);
        snprintf(name, sizeof name, "pop.channel1.%s", rr[i].what);
        emit_rm(name, r, NULL);
    }
    uint8_t rt = 1;
    r = rm_control(c->ctl, c->client, H_TSG_P, CA06C_MAKE_REALTIME, &rt, 1);
    emit_rm("tsg.pop.make_realtime.1", r, NULL);
    rt = 0;
    r = rm_control(c->ctl, c->client, H_TSG_P, CA06C_MAKE_REALTIME, &rt, 1);
    emit_rm("tsg.pop.make_realtime.0", r, NULL);
    uint32_t tsgid = 0;
    r = rm_control(c->ctl, c->client, H_TSG_P, CA06C_GET_INFO, &tsgid, 4);
    uint32_t tsgid_e = 0;
    struct rm_result re = rm_control(c->ctl, c->client, H_TSG_E, CA06C_GET_INFO, &tsgid_e, 4);
    emit_rm("tsg.get_info", r, "empty_status=0x%08x ids_differ=%s", re.status, tsgid != tsgid_e ? "yes" : "no");
    note("tsg.get_info raw pop=%u empty=%u", tsgid, tsgid_e);
}

static void sched_policy_cases(struct conf *c)
{
    static const struct {
        const char *what;
        uint32_t flags, policy;
    } rows[] = {{"set_interleaved", 0, 1}, {"set_interleaved_again", 0, 1}, {"set_default_while_locked", 0, 0},
                {"restore", 1, 0}, {"set_invalid_3", 0, 3}, {"restore_again", 1, 0}};
    char name[96];
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        sched_policy_t p = {rows[i].flags, rows[i].policy};
        struct rm_result r = rm_control(c->ctl, c->client, c->subdev, C2080_FIFO_SET_SCHED_POLICY, &p, sizeof p);
        snprintf(name, sizeof name, "subdevice.sched_policy.%s", rows[i].what);
        emit_rm(name, r, NULL);
    }
}

void cases_fifo(struct conf *c)
{
    tsg_alloc_t tp = {0, 0, 0, 1, 0, {0}};
    uint32_t h = H_TSG_E;
    struct rm_result r = rm_alloc(c->ctl, c->client, c->dev, &h, CL_TSG, &tp);
    emit_rm("empty.alloc.tsg", r, NULL);
    fifo_info_cases(c);
    uint64_t ts = get_ts(c, H_TSG_E, &r);
    emit_rm("tsg.empty.get_timeslice_default", r, "timesliceUs=%llu", (unsigned long long)ts);
    schedule_cases(c, "empty", H_TSG_E);
    preempt_cases(c, "empty", H_TSG_E);
    timeslice_cases(c, "empty", H_TSG_E);
    interleave_cases(c, "empty", H_TSG_E, 0);

    build_populated(c);
    if (!c->have_pop)
        return;
    token_case(c, "pop.channel0.work_submit_token_unscheduled", H_CH_P0, &(uint32_t){0xFFFFFFFFu});
    schedule_cases(c, "pop", H_TSG_P);
    channel_cases(c);
    preempt_cases(c, "pop", H_TSG_P);
    timeslice_cases(c, "pop", H_TSG_P);
    interleave_cases(c, "pop", H_TSG_P, H_CH_P0);
    disable_cases(c);
    sched_policy_cases(c);
    uint8_t imm = 0;
    r = rm_control(c->ctl, c->client, H_CH_P0 + 6, CA06F_STOP_CHANNEL, &imm, 1);
    emit_rm("pop.channel6.stop_channel.0", r, NULL);
    imm = 1;
    r = rm_control(c->ctl, c->client, H_CH_P0 + 5, CA06F_STOP_CHANNEL, &imm, 1);
    emit_rm("pop.channel5.stop_channel.1", r, NULL);
    uint32_t tok;
    r = rm_control(c->ctl, c->client, H_CH_P0 + 6, CC36F_GET_WORK_SUBMIT_TOKEN, &tok, 4);
    emit_rm("pop.channel6.token_after_stop", r, NULL);
}
