/*
 * FIFO and scheduling controls (docs/driver-sources.md §E, F): NVA06C on channel
 * groups, NVA06F/NVC36F/NV906F on channels, NV2080 FIFO and GR preemption on
 * subdevices, NV0080 FIFO_GET_CHANNELLIST on devices. Handlers validate and
 * call emu/fifo; semantics live there.
 */
#include <stdlib.h>
#include <string.h>

#include "abi/nv_ctrl_fifo.h"
#include "abi/nv_engine.h"
#include "base/log.h"
#include "fifo/fifo.h"
#include "rm/gpu.h"
#include "rm/opener.h"
#include "rm/rm.h"

#define COMP "rm.fifo"
#define NP RM_PRIV_USER
#define NICE RM_PRIV_NICE
#define INTERNAL RM_PRIV_INTERNAL
#define LAT(x) .latency = RM_LAT_##x

static struct fifo_tsg *tsg_of(struct rm_call *c) { return rm_object_priv(c->obj); }
static struct fifo_channel *chan_of(struct rm_call *c) { return rm_object_priv(c->obj); }

/* ---- NVA06C: channel group ---- */

RM_CTRL_HANDLER(tsg_schedule, NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS)
{
    return fifo_tsg_schedule(tsg_of(c), p->bEnable, p->bSkipSubmit, p->bSkipEnable);
}

RM_CTRL_HANDLER(tsg_bind, NVA06F_CTRL_BIND_PARAMS)
{
    return fifo_tsg_bind(tsg_of(c), p->engineType);
}

RM_CTRL_HANDLER(tsg_set_timeslice, NVA06C_CTRL_TIMESLICE_PARAMS)
{
    return fifo_tsg_set_timeslice(tsg_of(c), p->timesliceUs);
}

RM_CTRL_HANDLER(tsg_get_timeslice, NVA06C_CTRL_TIMESLICE_PARAMS)
{
    p->timesliceUs = fifo_tsg_get_timeslice(tsg_of(c));
    return NV_OK;
}

RM_CTRL_HANDLER(tsg_preempt, NVA06C_CTRL_PREEMPT_PARAMS)
{
    /* H200: the 1 s cap is checked only for a waiting call (wait0.manual1.timeout1000001 -> NV_OK) */
    if (p->bWait && p->bManualTimeout && p->timeoutUs > NVA06C_CTRL_CMD_PREEMPT_MAX_MANUAL_TIMEOUT_US)
        return NV_ERR_INVALID_ARGUMENT;
    /* a manual timeout of 0 is the default timeout on the H200 (empty group: manual1.timeout0 waits as long as
     * manual0, 4.0 s); fifo takes 0 as the profile default */
    uint64_t timeout_ns = p->bManualTimeout ? (uint64_t)p->timeoutUs * 1000u : 0u;
    return fifo_tsg_preempt(tsg_of(c), p->bWait, timeout_ns);
}

RM_CTRL_HANDLER(tsg_get_info, NVA06C_CTRL_GET_INFO_PARAMS)
{
    p->tsgID = fifo_tsg_hw_id(tsg_of(c));
    return NV_OK;
}

/*
 * Kernel RM forwards the level to GSP and reports a failed RPC as
 * NV_ERR_NOT_SUPPORTED, so an invalid level reads NOT_SUPPORTED on H200
 * (tsg/channel.pop.set_interleave.3), not the model's INVALID_ARGUMENT.
 */
static NV_STATUS set_interleave(struct fifo_tsg *t, uint32_t level)
{
    return fifo_tsg_set_interleave(t, level) == NV_OK ? NV_OK : NV_ERR_NOT_SUPPORTED;
}

RM_CTRL_HANDLER(tsg_set_interleave, NVA06C_CTRL_INTERLEAVE_LEVEL_PARAMS)
{
    return set_interleave(tsg_of(c), p->tsgInterleaveLevel);
}

RM_CTRL_HANDLER(tsg_vidmem_promote, NVA06C_CTRL_PROGRAM_VIDMEM_PROMOTE_PARAMS)
{
    LOG_INFO(COMP, "NVA06C PROGRAM_VIDMEM_PROMOTE is deprecated and not modelled");
    return NV_ERR_NOT_SUPPORTED;
}

RM_CTRL_HANDLER(tsg_make_realtime, NVA06C_CTRL_MAKE_REALTIME_PARAMS)
{
    return fifo_tsg_make_realtime(tsg_of(c), p->bRealtime);
}

/* ---- channel ---- */

/* The engine an engine object of a channel runs on, as the H200 trace answers GET_CLASS_ENGINEID. */
static uint32_t object_engine(struct rm_call *c, struct fifo_channel *ch, uint32_t hclass)
{
    const struct fifo_tsg *t = fifo_channel_tsg(ch);
    struct fifo_tsg_info ti;
    fifo_tsg_get_info(t, &ti);
    if ((hclass & 0xFFu) != 0xB5u || NV2080_ENGINE_TYPE_IS_COPY(ti.engine_type))
        return ti.engine_type;
    /* a copy object in a GR channel runs on the last copy engine sharing the GR runlist (COPY1 on H200) */
    const struct profile *p = c->gpu->profile;
    uint32_t best = ti.engine_type;
    for (uint32_t i = 0; i < p->engine_count; i++)
        if (p->engines[i].runlist_id == ti.runlist_id && NV2080_ENGINE_TYPE_IS_COPY(p->engines[i].engine_type))
            best = p->engines[i].engine_type;
    return best;
}

RM_CTRL_HANDLER(chan_get_class_engineid, NV906F_CTRL_GET_CLASS_ENGINEID_PARAMS)
{
    struct rm_object *o = rm_client_find(c->client, p->hObject);
    if (!o || rm_object_parent(o) != c->obj || rm_object_family(o) != RM_FAM_ENGINE_OBJ)
        return NV_ERR_INVALID_OBJECT_HANDLE;
    p->classID = rm_object_class(o);
    p->classEngineID = p->classID;
    p->engineID = object_engine(c, chan_of(c), p->classID);
    return NV_OK;
}

RM_CTRL_HANDLER(chan_schedule, NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS)
{
    return fifo_channel_schedule(chan_of(c), p->bEnable, p->bSkipSubmit, p->bSkipEnable);
}

RM_CTRL_HANDLER(chan_bind, NVA06F_CTRL_BIND_PARAMS)
{
    return fifo_channel_bind(chan_of(c), p->engineType);
}

RM_CTRL_HANDLER(chan_set_error_notifier, NVA06F_CTRL_SET_ERROR_NOTIFIER_PARAMS)
{
    LOG_INFO(COMP, "SET_ERROR_NOTIFIER on channel 0x%08x (each in TSG: %u): notifiers are not modelled",
             rm_object_handle(c->obj), p->bNotifyEachChannelInTSG);
    return NV_OK;
}

RM_CTRL_HANDLER(chan_set_interleave, NVA06F_CTRL_INTERLEAVE_LEVEL_PARAMS)
{
    return set_interleave(fifo_channel_tsg(chan_of(c)), p->channelInterleaveLevel);
}

RM_CTRL_HANDLER(chan_restart_runlist, NVA06F_CTRL_RESTART_RUNLIST_PARAMS)
{
    return fifo_channel_restart_runlist(chan_of(c), p->bForceRestart, p->bBypassWait);
}

RM_CTRL_HANDLER(chan_stop, NVA06F_CTRL_STOP_CHANNEL_PARAMS)
{
    return fifo_channel_stop(chan_of(c), p->bImmediate);
}

RM_CTRL_HANDLER(chan_get_context_id, NVA06F_CTRL_GET_CONTEXT_ID_PARAMS)
{
    /* the hardware context of a channel is its ChID in this model */
    p->contextId = fifo_channel_chid(chan_of(c));
    return NV_OK;
}

RM_CTRL_HANDLER(chan_work_submit_token, NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN_PARAMS)
{
    return fifo_channel_work_submit_token(chan_of(c), &p->workSubmitToken);
}

RM_CTRL_HANDLER(chan_token_notif_index, NVC36F_CTRL_GPFIFO_SET_WORK_SUBMIT_TOKEN_NOTIF_INDEX_PARAMS)
{
    /* slot 0 is the RC notification; the notifier's size is not modelled, so any other slot is accepted */
    return p->index == 0 ? NV_ERR_INVALID_ARGUMENT : NV_OK;
}

/* ---- NV2080: subdevice ---- */

/*
 * An entry of DISABLE_CHANNELS as the H200 resolves it: any client of the
 * emulator (the driver does not check that hClientList belongs to the
 * caller's opener), a channel or a channel group (a group stands for all its
 * channels, an assumption: the H200 accepts a group handle); anything else,
 * an unknown client included -> NV_ERR_INVALID_CHANNEL.
 */
static struct rm_object *disable_target(struct rm_call *c, uint32_t hclient, uint32_t hchannel)
{
    struct rm_client *cl = rm_client_by_handle(c->rs, hclient);
    struct rm_object *o = cl ? rm_client_find(cl, hchannel) : NULL;
    if (!o || rm_object_gpu(o) != c->gpu || !(rm_object_family(o) & (RM_FAM_CHANNEL | RM_FAM_TSG)))
        return NULL;
    return o;
}

struct disable_args {
    const NV2080_CTRL_FIFO_DISABLE_CHANNELS_PARAMS *p;
};

static bool disable_child(struct rm_object *child, void *arg)
{
    const NV2080_CTRL_FIFO_DISABLE_CHANNELS_PARAMS *p = ((struct disable_args *)arg)->p;
    if (rm_object_family(child) == RM_FAM_CHANNEL)
        fifo_channel_disable(rm_object_priv(child), p->bDisable, p->bOnlyDisableScheduling, p->bRewindGpPut);
    return true;
}

RM_CTRL_HANDLER(disable_channels, NV2080_CTRL_FIFO_DISABLE_CHANNELS_PARAMS)
{
    if (p->pRunlistPreemptEvent)
        return NV_ERR_INSUFFICIENT_PERMISSIONS;
    if (p->numChannels == 0 || p->numChannels > NV2080_CTRL_FIFO_DISABLE_CHANNELS_MAX_ENTRIES)
        return NV_ERR_INVALID_PARAM_STRUCT;
    /* resolve every entry first: a bad entry changes nothing */
    for (uint32_t i = 0; i < p->numChannels; i++)
        if (!disable_target(c, p->hClientList[i], p->hChannelList[i]))
            return NV_ERR_INVALID_CHANNEL;
    struct disable_args da = {p};
    for (uint32_t i = 0; i < p->numChannels; i++) {
        struct rm_object *o = disable_target(c, p->hClientList[i], p->hChannelList[i]);
        if (rm_object_family(o) == RM_FAM_TSG)
            rm_object_for_each_child(o, disable_child, &da);
        else
            disable_child(o, &da);
    }
    return NV_OK;
}

RM_CTRL_HANDLER(set_sched_policy, NV2080_CTRL_FIFO_RUNLIST_SET_SCHED_POLICY_PARAMS)
{
    return fifo_set_sched_policy(gpu_fifo(c->gpu), p->schedPolicy,
                                 (p->flags & NV2080_CTRL_FIFO_RUNLIST_SCHED_POLICY_FLAGS_RESTORE) != 0, c->client);
}

typedef NV_STATUS (*fifo_info_fn)(struct rm_call *c, uint32_t engine, uint32_t *out);

static NV_STATUS info_from_profile(struct rm_call *c, uint32_t index, uint32_t *out)
{
    const struct profile_info_table *tb = profile_info_table(c->gpu->profile, NV2080_CTRL_CMD_FIFO_GET_INFO);
    for (uint32_t i = 0; tb && i < tb->count; i++) {
        if (tb->entries[i].index == index) {
            *out = tb->entries[i].value;
            return NV_OK;
        }
    }
    /* no recorded answer: instance memory and lower subcontexts are not modelled */
    LOG_INFO(COMP, "FIFO_GET_INFO index %u has no profile value; answering 0", index);
    *out = 0;
    return NV_OK;
}

static NV_STATUS info_instance_total(struct rm_call *c, uint32_t e, uint32_t *out)
{
    (void)e;
    return info_from_profile(c, NV2080_CTRL_FIFO_INFO_INDEX_INSTANCE_TOTAL, out);
}
static NV_STATUS info_max_groups(struct rm_call *c, uint32_t e, uint32_t *out)
{
    (void)e;
    *out = c->gpu->profile->max_channel_groups;
    return NV_OK;
}
static NV_STATUS info_max_per_group(struct rm_call *c, uint32_t e, uint32_t *out)
{
    (void)e;
    *out = c->gpu->profile->max_channels_per_group;
    return NV_OK;
}
static NV_STATUS info_max_subctx(struct rm_call *c, uint32_t e, uint32_t *out)
{
    (void)e;
    *out = c->gpu->profile->max_subcontexts;
    return NV_OK;
}
static NV_STATUS info_bar1_userd(struct rm_call *c, uint32_t e, uint32_t *out)
{
    (void)c;
    (void)e;
    (void)out;
    return NV_ERR_INVALID_REQUEST; /* vGPU host only */
}
static NV_STATUS info_default_timeslice(struct rm_call *c, uint32_t e, uint32_t *out)
{
    (void)e;
    *out = (uint32_t)c->gpu->profile->default_timeslice_us;
    return NV_OK;
}
static NV_STATUS info_groups_in_use(struct rm_call *c, uint32_t e, uint32_t *out)
{
    (void)e;
    *out = fifo_tsg_count(gpu_fifo(c->gpu));
    return NV_OK;
}
static NV_STATUS info_per_runlist_chram(struct rm_call *c, uint32_t e, uint32_t *out)
{
    (void)e;
    *out = c->gpu->profile->per_runlist_chram;
    return NV_OK;
}
static NV_STATUS info_max_groups_engine(struct rm_call *c, uint32_t e, uint32_t *out)
{
    if (!profile_engine(c->gpu->profile, e))
        return NV_ERR_INVALID_ARGUMENT;
    *out = c->gpu->profile->max_channel_groups;
    return NV_OK;
}
static NV_STATUS info_groups_in_use_engine(struct rm_call *c, uint32_t e, uint32_t *out)
{
    if (!profile_engine(c->gpu->profile, e))
        return NV_ERR_INVALID_ARGUMENT;
    *out = fifo_tsg_count_engine(gpu_fifo(c->gpu), e);
    return NV_OK;
}
static NV_STATUS info_max_lower_subctx(struct rm_call *c, uint32_t e, uint32_t *out)
{
    (void)e;
    return info_from_profile(c, NV2080_CTRL_FIFO_INFO_INDEX_MAX_LOWER_SUBCONTEXT, out);
}

static const fifo_info_fn fifo_info_rows[] = {
    [NV2080_CTRL_FIFO_INFO_INDEX_INSTANCE_TOTAL] = info_instance_total,
    [NV2080_CTRL_FIFO_INFO_INDEX_MAX_CHANNEL_GROUPS] = info_max_groups,
    [NV2080_CTRL_FIFO_INFO_INDEX_MAX_CHANNELS_PER_GROUP] = info_max_per_group,
    [NV2080_CTRL_FIFO_INFO_INDEX_MAX_SUBCONTEXT_PER_GROUP] = info_max_subctx,
    [NV2080_CTRL_FIFO_INFO_INDEX_BAR1_USERD_START_OFFSET] = info_bar1_userd,
    [NV2080_CTRL_FIFO_INFO_INDEX_DEFAULT_CHANNEL_TIMESLICE] = info_default_timeslice,
    [NV2080_CTRL_FIFO_INFO_INDEX_CHANNEL_GROUPS_IN_USE] = info_groups_in_use,
    [NV2080_CTRL_FIFO_INFO_INDEX_IS_PER_RUNLIST_CHANNEL_RAM_SUPPORTED] = info_per_runlist_chram,
    [NV2080_CTRL_FIFO_INFO_INDEX_MAX_CHANNEL_GROUPS_PER_ENGINE] = info_max_groups_engine,
    [NV2080_CTRL_FIFO_INFO_INDEX_CHANNEL_GROUPS_IN_USE_PER_ENGINE] = info_groups_in_use_engine,
    [NV2080_CTRL_FIFO_INFO_INDEX_MAX_LOWER_SUBCONTEXT] = info_max_lower_subctx,
};

RM_CTRL_HANDLER(fifo_get_info, NV2080_CTRL_FIFO_GET_INFO_PARAMS)
{
    if (p->fifoInfoTblSize > NV2080_CTRL_FIFO_GET_INFO_MAX_ENTRIES)
        return NV_ERR_INVALID_PARAM_STRUCT;
    for (uint32_t i = 0; i < p->fifoInfoTblSize; i++) {
        uint32_t idx = p->fifoInfoTbl[i].index;
        if (idx >= sizeof(fifo_info_rows) / sizeof(fifo_info_rows[0]))
            return NV_ERR_INVALID_ARGUMENT;
        NV_STATUS st = fifo_info_rows[idx](c, p->engineType, &p->fifoInfoTbl[i].data);
        if (st != NV_OK)
            return st;
    }
    return NV_OK;
}

static bool set_mode_child(struct rm_object *child, void *arg)
{
    if (rm_object_family(child) == RM_FAM_CHANNEL)
        fifo_channel_set_preempt_mode(rm_object_priv(child), *(uint32_t *)arg);
    return true;
}

static NV_STATUS apply_preemption_mode(struct rm_call *c, struct rm_object *o, uint32_t flags, uint32_t gfxp,
                                       uint32_t cilp)
{
    (void)c;
    /* graphics preemption is not modelled; its value is still validated */
    if ((flags & NV2080_CTRL_GR_SET_CTXSW_PREEMPTION_MODE_FLAGS_GFXP) && gfxp > 2)
        return NV_ERR_INVALID_ARGUMENT;
    if (!(flags & NV2080_CTRL_GR_SET_CTXSW_PREEMPTION_MODE_FLAGS_CILP))
        return NV_OK;
    if (cilp > FIFO_PREEMPT_CILP)
        return NV_ERR_INVALID_ARGUMENT;
    /* a TSG handle applies the mode to every channel of the group */
    if (rm_object_family(o) == RM_FAM_TSG) {
        rm_object_for_each_child(o, set_mode_child, &cilp);
        return NV_OK;
    }
    if (rm_object_family(o) != RM_FAM_CHANNEL)
        return NV_ERR_INVALID_CHANNEL;
    return fifo_channel_set_preempt_mode(rm_object_priv(o), cilp);
}

RM_CTRL_HANDLER(gr_set_preemption_mode, NV2080_CTRL_GR_SET_CTXSW_PREEMPTION_MODE_PARAMS)
{
    struct rm_object *o = rm_client_find(c->client, p->hChannel);
    if (!o || rm_object_gpu(o) != c->gpu)
        return NV_ERR_INVALID_OBJECT_HANDLE;
    return apply_preemption_mode(c, o, p->flags, p->gfxpPreemptMode, p->cilpPreemptMode);
}

RM_CTRL_HANDLER(gr_preemption_bind, NV2080_CTRL_GR_CTXSW_PREEMPTION_BIND_PARAMS)
{
    struct rm_object *o;
    NV_STATUS st = rm_find_object(c->rs, c->op, p->hClient, p->hChannel, &o);
    if (st != NV_OK)
        return st;
    if (rm_object_gpu(o) != c->gpu)
        return NV_ERR_INVALID_OBJECT_HANDLE;
    return apply_preemption_mode(c, o, p->flags, p->gfxpPreemptMode, p->cilpPreemptMode);
}

/* ---- NV0080: device ---- */

RM_CTRL_HANDLER(get_channellist, NV0080_CTRL_FIFO_GET_CHANNELLIST_PARAMS)
{
    if (p->numChannels == 0 || (uint64_t)p->numChannels * 4u > RMAPI_PARAM_COPY_MAX_PARAMS_SIZE)
        return NV_ERR_INVALID_ARGUMENT;
    uint32_t *buf = malloc((size_t)p->numChannels * 4u);
    if (!buf)
        return NV_ERR_NO_MEMORY;
    NV_STATUS st = NV_OK;
    if (c->acc->read(c->acc->ctx, p->pChannelHandleList, buf, (size_t)p->numChannels * 4u) != 0) {
        st = NV_ERR_INVALID_ARGUMENT;
        goto out;
    }
    for (uint32_t i = 0; i < p->numChannels; i++) {
        struct rm_object *o = rm_client_find(c->client, buf[i]);
        bool ok = o && rm_object_family(o) == RM_FAM_CHANNEL && rm_object_gpu(o) == c->gpu;
        buf[i] = ok ? fifo_channel_chid(rm_object_priv(o)) : 0xFFFFFFFFu;
    }
    if (c->acc->write(c->acc->ctx, p->pChannelList, buf, (size_t)p->numChannels * 4u) != 0)
        st = NV_ERR_INVALID_ARGUMENT;
out:
    free(buf);
    return st;
}

/* The token carries the channel's ChID, which the driver allocates for the whole GPU. */
static const struct rm_ctrl_volatile work_submit_token_volatile[] = {
    {.off = 0, .len = 4, .relative = true, .why = "work submit token: the ChID, counted over every process's channels"},
    {.why = NULL},
};


const struct rm_ctrl_row rm_ctrl_rows_fifo[] = {
    RM_CTRL(NVA06C_CTRL_CMD_GPFIFO_SCHEDULE, NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS, RM_FAM_TSG, NP, tsg_schedule,
            LAT(CONTROL)),
    RM_CTRL(NVA06C_CTRL_CMD_BIND, NVA06F_CTRL_BIND_PARAMS, RM_FAM_TSG, NP, tsg_bind, LAT(CONTROL)),
    RM_CTRL(NVA06C_CTRL_CMD_SET_TIMESLICE, NVA06C_CTRL_TIMESLICE_PARAMS, RM_FAM_TSG, NP, tsg_set_timeslice,
            LAT(SET_TIMESLICE)),
    RM_CTRL(NVA06C_CTRL_CMD_GET_TIMESLICE, NVA06C_CTRL_TIMESLICE_PARAMS, RM_FAM_TSG, NP, tsg_get_timeslice,
            LAT(GET_TIMESLICE)),
    RM_CTRL(NVA06C_CTRL_CMD_PREEMPT, NVA06C_CTRL_PREEMPT_PARAMS, RM_FAM_TSG, NP, tsg_preempt, LAT(PREEMPT)),
    RM_CTRL(NVA06C_CTRL_CMD_GET_INFO, NVA06C_CTRL_GET_INFO_PARAMS, RM_FAM_TSG, NP, tsg_get_info, LAT(CONTROL)),
    RM_CTRL(NVA06C_CTRL_CMD_SET_INTERLEAVE_LEVEL, NVA06C_CTRL_INTERLEAVE_LEVEL_PARAMS, RM_FAM_TSG, NICE,
            tsg_set_interleave, LAT(CONTROL)),
    RM_CTRL(NVA06C_CTRL_CMD_PROGRAM_VIDMEM_PROMOTE, NVA06C_CTRL_PROGRAM_VIDMEM_PROMOTE_PARAMS, RM_FAM_TSG, NP,
            tsg_vidmem_promote),
    RM_CTRL(NVA06C_CTRL_CMD_MAKE_REALTIME, NVA06C_CTRL_MAKE_REALTIME_PARAMS, RM_FAM_TSG, NICE, tsg_make_realtime,
            LAT(CONTROL)),
    RM_CTRL(NVA06C_CTRL_CMD_INTERNAL_GPFIFO_SCHEDULE, NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS, RM_FAM_TSG, INTERNAL,
            tsg_schedule, LAT(CONTROL)),
    RM_CTRL(NVA06C_CTRL_CMD_INTERNAL_SET_TIMESLICE, NVA06C_CTRL_TIMESLICE_PARAMS, RM_FAM_TSG, INTERNAL,
            tsg_set_timeslice, LAT(SET_TIMESLICE)),

    RM_CTRL(NV906F_CTRL_GET_CLASS_ENGINEID, NV906F_CTRL_GET_CLASS_ENGINEID_PARAMS, RM_FAM_CHANNEL, NP,
            chan_get_class_engineid, LAT(CONTROL)),
    RM_CTRL(NVA06F_CTRL_CMD_GPFIFO_SCHEDULE, NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS, RM_FAM_CHANNEL, NP, chan_schedule,
            LAT(CONTROL)),
    RM_CTRL(NVA06F_CTRL_CMD_BIND, NVA06F_CTRL_BIND_PARAMS, RM_FAM_CHANNEL, NP, chan_bind, LAT(CONTROL)),
    RM_CTRL(NVA06F_CTRL_CMD_SET_ERROR_NOTIFIER, NVA06F_CTRL_SET_ERROR_NOTIFIER_PARAMS, RM_FAM_CHANNEL, NP,
            chan_set_error_notifier),
    RM_CTRL(NVA06F_CTRL_CMD_SET_INTERLEAVE_LEVEL, NVA06F_CTRL_INTERLEAVE_LEVEL_PARAMS, RM_FAM_CHANNEL, NICE,
            chan_set_interleave, LAT(CONTROL)),
    RM_CTRL(NVA06F_CTRL_CMD_RESTART_RUNLIST, NVA06F_CTRL_RESTART_RUNLIST_PARAMS, RM_FAM_CHANNEL, NICE,
            chan_restart_runlist, LAT(CONTROL)),
    RM_CTRL(NVA06F_CTRL_CMD_STOP_CHANNEL, NVA06F_CTRL_STOP_CHANNEL_PARAMS, RM_FAM_CHANNEL, NP, chan_stop, LAT(CONTROL)),
    RM_CTRL(NVA06F_CTRL_CMD_GET_CONTEXT_ID, NVA06F_CTRL_GET_CONTEXT_ID_PARAMS, RM_FAM_CHANNEL, NP,
            chan_get_context_id),
    RM_CTRL(NVA06F_CTRL_CMD_INTERNAL_STOP_CHANNEL, NVA06F_CTRL_STOP_CHANNEL_PARAMS, RM_FAM_CHANNEL, INTERNAL,
            chan_stop, LAT(CONTROL)),
    RM_CTRL(NVA06F_CTRL_CMD_INTERNAL_GPFIFO_SCHEDULE, NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS, RM_FAM_CHANNEL, INTERNAL,
            chan_schedule, LAT(CONTROL)),
    RM_CTRL(NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN, NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN_PARAMS,
            RM_FAM_CHANNEL, NP, chan_work_submit_token, .volatile_out = work_submit_token_volatile, LAT(CONTROL)),
    RM_CTRL(NVC36F_CTRL_CMD_GPFIFO_SET_WORK_SUBMIT_TOKEN_NOTIF_INDEX,
            NVC36F_CTRL_GPFIFO_SET_WORK_SUBMIT_TOKEN_NOTIF_INDEX_PARAMS, RM_FAM_CHANNEL, NP, chan_token_notif_index),

    RM_CTRL(NV2080_CTRL_CMD_FIFO_GET_INFO, NV2080_CTRL_FIFO_GET_INFO_PARAMS, RM_FAM_SUBDEVICE, NP, fifo_get_info,
            LAT(CONTROL)),
    RM_CTRL(NV2080_CTRL_CMD_FIFO_DISABLE_CHANNELS, NV2080_CTRL_FIFO_DISABLE_CHANNELS_PARAMS, RM_FAM_SUBDEVICE, NP,
            disable_channels, LAT(CONTROL)),
    RM_CTRL(NV2080_CTRL_CMD_FIFO_RUNLIST_SET_SCHED_POLICY, NV2080_CTRL_FIFO_RUNLIST_SET_SCHED_POLICY_PARAMS,
            RM_FAM_SUBDEVICE, NICE, set_sched_policy, LAT(CONTROL)),
    RM_CTRL(NV2080_CTRL_CMD_GR_SET_CTXSW_PREEMPTION_MODE, NV2080_CTRL_GR_SET_CTXSW_PREEMPTION_MODE_PARAMS,
            RM_FAM_SUBDEVICE, NP, gr_set_preemption_mode, LAT(CONTROL)),
    RM_CTRL(NV2080_CTRL_CMD_GR_CTXSW_PREEMPTION_BIND, NV2080_CTRL_GR_CTXSW_PREEMPTION_BIND_PARAMS, RM_FAM_SUBDEVICE,
            NP, gr_preemption_bind, LAT(CONTROL)),

    RM_CTRL(NV0080_CTRL_CMD_FIFO_GET_CHANNELLIST, NV0080_CTRL_FIFO_GET_CHANNELLIST_PARAMS, RM_FAM_DEVICE, NP,
            get_channellist),
    {.name = NULL},
};
