/* The trace's record kinds and their names (fifo_rec.h). */
#include "fifo/fifo_rec.h"

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
