/*
 * The kinds of the event trace's records, the FIFO model's and those traced
 * through it (hook decisions, workload and harness marks, a GPU lost), and the
 * hook framework's environment that writes its decisions as such records. The
 * values are part of the trace digest: never renumber, only append (below
 * SIM_REC_KINDS_MAX). Their names are registered with a sim by
 * fifo_rec_register (fifo_create does, and so does the emulator when it
 * creates its sim).
 */
#ifndef NVEMU_FIFO_REC_H
#define NVEMU_FIFO_REC_H

#include "sim/sim.h"

enum sim_rec_kind {
    SIM_REC_SUBMIT = 0,        /* kernel queued on a channel: a = kernel id, b = total ns */
    SIM_REC_KERNEL_START,      /* a = kernel id, b = remaining ns */
    SIM_REC_KERNEL_DONE,       /* a = kernel id, b = submit-to-done ns */
    SIM_REC_SWITCH,            /* context switch starts: tsg = incoming, a = outgoing tsg (or ~0), b = cost ns */
    SIM_REC_START,             /* TSG runs on the engine: a = effective timeslice ns */
    SIM_REC_TIMESLICE_EXPIRE,  /* slice ended with another group runnable (a preemption follows): a = 1,
                                  b = timeslice ns; a lone group's slice renews without a record */
    SIM_REC_PREEMPT_REQ,       /* a = cause (enum fifo_preempt_cause), b = mode (0 WFI, 1 CTA, 2 CILP) */
    SIM_REC_PREEMPT_DONE,      /* a = cause, b = request-to-done ns */
    SIM_REC_PREEMPT_TIMEOUT,   /* a waiting PREEMPT gave up: a = timeout ns */
    SIM_REC_IDLE,              /* engine has nothing runnable */
    SIM_REC_DISABLE,           /* channel (chid) or TSG (chid = ~0) disabled: a = 1 only-scheduling */
    SIM_REC_ENABLE,
    SIM_REC_SCHEDULE,          /* GPFIFO_SCHEDULE: a = enable */
    SIM_REC_RUNLIST_UPDATE,    /* a = entries, b = policy */
    SIM_REC_TSG_CREATE,        /* a = timeslice us, b = interleave */
    SIM_REC_TSG_DESTROY,
    SIM_REC_CHANNEL_CREATE,
    SIM_REC_CHANNEL_DESTROY,
    SIM_REC_TIMESLICE_SET,     /* a = requested us, b = effective ns */
    SIM_REC_INTERLEAVE_SET,    /* a = level */
    SIM_REC_HOOK,              /* name = hook, field, result, reason; a = value */
    SIM_REC_MARK,              /* free-form marker from a workload/harness: name, a, b */
    SIM_REC_GPU_LOST,          /* the GPU fell off the bus: a = kernels failed (each also a kernel_done "gpu_lost") */
    SIM_REC_KIND_COUNT
};

_Static_assert(SIM_REC_KIND_COUNT <= SIM_REC_KINDS_MAX, "record kinds fit the sim's table");

/* Why a TSG was preempted: the `a` of PREEMPT_REQ and PREEMPT_DONE records (part of the digest, never renumber). */
enum fifo_preempt_cause {
    FIFO_CAUSE_TIMESLICE = 0, FIFO_CAUSE_PREEMPT = 1, FIFO_CAUSE_DISABLE = 2, FIFO_CAUSE_RESTART = 3,
    FIFO_CAUSE_STOP = 4, FIFO_CAUSE_RUNLIST = 5, FIFO_CAUSE_DESTROY = 6,
};

/* Registers every kind's name ("submit", "kernel_start", ...) with s. */
void fifo_rec_register(struct sim *s);

struct hooks_env;
struct profile;
/* Fills *env so the hook framework's decision records go into the sim trace as HOOK records (gpu from each task). */
void fifo_hooks_env_init(struct hooks_env *env, const struct profile *p, struct sim *s);

#endif
