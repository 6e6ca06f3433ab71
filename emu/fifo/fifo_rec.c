/* The trace's record kinds, their names, and hook decisions as records (fifo_rec.h). */
#include "fifo/fifo_rec.h"

#include <string.h>

#include "hooks/hooks.h"

static const char *const names[SIM_REC_KIND_COUNT] = {
    [SIM_REC_SUBMIT] = "submit",
    [SIM_REC_KERNEL_START] = "kernel_start",
    [SIM_REC_KERNEL_DONE] = "kernel_done",
    [SIM_REC_SWITCH] = "switch",
    [SIM_REC_START] = "start",
    [SIM_REC_TIMESLICE_EXPIRE] = "timeslice_expire",
    [SIM_REC_PREEMPT_REQ] = "preempt_req",
    [SIM_REC_PREEMPT_DONE] = "preempt_done",
    [SIM_REC_PREEMPT_TIMEOUT] = "preempt_timeout",
    [SIM_REC_IDLE] = "idle",
    [SIM_REC_DISABLE] = "disable",
    [SIM_REC_ENABLE] = "enable",
    [SIM_REC_SCHEDULE] = "schedule",
    [SIM_REC_RUNLIST_UPDATE] = "runlist_update",
    [SIM_REC_TSG_CREATE] = "tsg_create",
    [SIM_REC_TSG_DESTROY] = "tsg_destroy",
    [SIM_REC_CHANNEL_CREATE] = "channel_create",
    [SIM_REC_CHANNEL_DESTROY] = "channel_destroy",
    [SIM_REC_TIMESLICE_SET] = "timeslice_set",
    [SIM_REC_INTERLEAVE_SET] = "interleave_set",
    [SIM_REC_HOOK] = "hook",
    [SIM_REC_MARK] = "mark",
    [SIM_REC_GPU_LOST] = "gpu_lost",
};

void fifo_rec_register(struct sim *s)
{
    for (uint16_t k = 0; k < SIM_REC_KIND_COUNT; k++)
        sim_kind_register(s, k, names[k]);
}

static uint64_t hook_now(void *ctx) { return sim_now(ctx); }

static void hook_trace(void *ctx, const char *hook, const struct hook_task *t, const char *field, uint64_t value,
                       const char *result, const char *reason)
{
    bool whole_runlist = t && strcmp(hook, "runlist_update") == 0;
    struct sim_rec r = {
        .kind = SIM_REC_HOOK,
        .gpu = (uint16_t)(t ? t->gpu : 0),
        .engine = t && !whole_runlist ? t->engine_type : SIM_NONE,
        .runlist = t ? t->runlist_id : SIM_NONE,
        .tsg = t && !whole_runlist ? (uint32_t)t->tsg_id : SIM_NONE,
        .chid = SIM_NONE,
        .a = value,
        .name = hook,
        .field = field,
        .result = result,
        .reason = reason,
    };
    sim_trace(ctx, &r);
}

void fifo_hooks_env_init(struct hooks_env *env, const struct profile *p, struct sim *s)
{
    memset(env, 0, sizeof(*env));
    env->profile = p;
    env->now = hook_now;
    env->trace = hook_trace;
    env->ctx = s;
}
