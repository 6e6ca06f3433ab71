/*
 * The scenario's user-space scheduler (GPreempt-style), run in-process with
 * the handles of each task's channel group (GPreempt's "handles it is
 * given" mode), through plain libnvrm RM calls on the task's own connection:
 *   start:            SET_TIMESLICE LC / BE (action timeslice, or when the
 *                     scenario gives lc_timeslice/be_timeslice)
 *   LC kernels queued: action preempt -> PREEMPT every BE group (bWait=0, or
 *                     bWait=1 with a manual timeout for a preempt_timeout fault);
 *                     action disable -> DISABLE_CHANNELS on every BE channel
 *   last LC done:     action disable -> re-enable the BE channels
 * With kind none every call is a no-op. The decisions are gp_decide.h's, the
 * tool's and the hardware backend's: this file only issues them.
 *
 * The scheduler is one thread issuing one control at a time: a call that
 * costs virtual time (an injected control latency, a waiting PREEMPT)
 * keeps it busy that long, so the calls it decided on afterwards are issued
 * in order once it is free again (sim events), never at the same instant.
 */
#ifndef NVEMU_SCENARIO_RUN_SCHED_H
#define NVEMU_SCENARIO_RUN_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "gp_decide.h"
#include "nvemu/nvemu.h"
#include "scenario.h"
#include "sim/sim.h"

struct run_ctx;

struct run_sched_member {
    const struct sc_task *task;
    struct run_ctx *ctx;           /* NULL once the process is gone */
    uint64_t preempt_timeout_ns;   /* 0: bWait=0 */
    bool lc_busy;                  /* an LC request of this instance has kernels queued */
};

enum run_sched_op_kind { RUN_SCHED_OP_PREEMPT, RUN_SCHED_OP_DISABLE, RUN_SCHED_OP_ENABLE };

struct run_sched_op {
    enum run_sched_op_kind kind;
    uint32_t member;
};

struct run_sched {
    const struct scenario *sc;
    nvemu *emu;
    struct sim *sim;
    struct run_sched_member *m;
    uint32_t n;
    struct gp_decider decider;     /* what to do on each LC event (gp_decide.h); its calls may still be queued */
    uint64_t busy_until;           /* virtual time the call in progress returns */
    struct run_sched_op *ops;      /* decided, not yet issued (ring) */
    uint32_t op_head, op_len, op_cap;
    sim_event_id pump_event;       /* sim event issuing the queue once free, 0 = none */
    uint64_t calls, busy_ns;       /* controls issued, virtual time spent in them */
    uint64_t be_calls[GP_DECISION_COUNT]; /* calls decided, one per BE instance a decision names, by kind */
};

/*
 * Every call's effect is in the event trace (PREEMPT, DISABLE, TIMESLICE_SET records); failures are logged.
 * fini cancels a pending issue event (the emulator must still exist).
 */
void run_sched_init(struct run_sched *s, const struct scenario *sc, nvemu *emu, uint32_t n);
void run_sched_fini(struct run_sched *s);

/* Registers instance `id` with its context. 0, or -1 with a reason. */
int run_sched_add(struct run_sched *s, uint32_t id, const struct sc_task *t, struct run_ctx *ctx, char *err,
                  size_t errlen);
/* Preempts of instance `id` wait with this manual timeout (a preempt_timeout fault). */
int run_sched_preempt_timeout(struct run_sched *s, uint32_t id, uint64_t timeout_ns, char *err, size_t errlen);
/*
 * Applies the start-up decisions (timeslices) before the first arrival is simulated; their summed cost
 * keeps the scheduler busy from time 0. 0, or -1 with a reason.
 */
int run_sched_start(struct run_sched *s, char *err, size_t errlen);

/* An LC request of instance `id` queued its kernels / completed. */
void run_sched_lc_submitted(struct run_sched *s, uint32_t id);
void run_sched_lc_done(struct run_sched *s, uint32_t id);
/*
 * The control the scheduler issues during the run (PREEMPT for action
 * preempt, DISABLE_CHANNELS for disable): what a busy_retry fault answers
 * BUSY_RETRY for. A call answered BUSY_RETRY is marked (SC_MARK_BUSY_RETRY)
 * and issued again after a 100 us back-off, ahead of later decisions.
 */
uint32_t run_sched_control_cmd(const struct run_sched *s);

/* Instance `id`'s process is gone. */
void run_sched_forget(struct run_sched *s, uint32_t id);

#endif
