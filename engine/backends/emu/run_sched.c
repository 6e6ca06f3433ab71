#include "run_sched.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "abi/nv_ctrl_fifo.h"
#include "base/log.h"
#include "plan.h"
#include "results.h"
#include "run_ctx.h"
#include "fifo/fifo_rec.h"
#include "sim/sim.h"

void run_sched_init(struct run_sched *s, const struct scenario *sc, nvemu *emu, uint32_t n)
{
    memset(s, 0, sizeof(*s));
    s->sc = sc;
    s->emu = emu;
    s->sim = nvemu_sim(emu);
    s->m = calloc(n ? n : 1, sizeof(*s->m));
    s->n = s->m ? n : 0;
    gp_decider_init(&s->decider, sc_plan_sched_method(sc));
}

void run_sched_fini(struct run_sched *s)
{
    if (s->pump_event)
        sim_cancel(s->sim, s->pump_event);
    free(s->ops);
    free(s->m);
    memset(s, 0, sizeof(*s));
}

static bool active(const struct run_sched *s)
{
    return s->sc->scheduler.kind == SC_SCHED_GPREEMPT;
}

int run_sched_add(struct run_sched *s, uint32_t id, const struct sc_task *t, struct run_ctx *ctx, char *err,
                  size_t errlen)
{
    if (id >= s->n) {
        snprintf(err, errlen, "scheduler: out of memory");
        return -1;
    }
    s->m[id].task = t;
    s->m[id].ctx = ctx;
    return 0;
}

int run_sched_preempt_timeout(struct run_sched *s, uint32_t id, uint64_t timeout_ns, char *err, size_t errlen)
{
    if (!active(s) || s->sc->scheduler.action != SC_SCHED_PREEMPT) {
        snprintf(err, errlen, "a preempt_timeout fault needs 'scheduler: {kind: gpreempt, action: preempt}' "
                 "(only the scheduler's waiting PREEMPT can time out)");
        return -1;
    }
    if (id >= s->n || timeout_ns < 1000) {
        snprintf(err, errlen, "preempt_timeout: timeout must be at least 1 us");
        return -1;
    }
    s->m[id].preempt_timeout_ns = timeout_ns;
    return 0;
}

/*
 * Brackets one control call: what it charged (injected latency, a waiting
 * PREEMPT) is how long the scheduler's thread is blocked in it.
 */
static void call_begin(struct run_sched *s)
{
    sim_take_call_charge(s->sim);
}

static void call_end(struct run_sched *s)
{
    uint64_t charge = sim_take_call_charge(s->sim);
    uint64_t now = sim_now(s->sim);
    s->busy_until = (s->busy_until > now ? s->busy_until : now) + charge;
    s->busy_ns += charge;
    s->calls++;
}

int run_sched_start(struct run_sched *s, char *err, size_t errlen)
{
    const struct sc_scheduler *cfg = &s->sc->scheduler;
    if (!active(s) || !cfg->set_timeslices)
        return 0;
    for (uint32_t i = 0; i < s->n; i++) {
        struct run_ctx *c = s->m[i].ctx;
        if (!c)
            continue;
        uint64_t us = s->m[i].task->cls == SC_LC ? cfg->lc_timeslice_us : cfg->be_timeslice_us;
        call_begin(s);
        NV_STATUS st = nvrm_tsg_set_timeslice(c->rm, c->hClient, c->hTsg, us);
        call_end(s);
        if (st != NV_OK) {
            snprintf(err, errlen, "scheduler: SET_TIMESLICE %llu us on %s#%u failed: %s", (unsigned long long)us,
                     s->m[i].task->name, i, nv_status_name(st));
            return -1;
        }
    }
    return 0;
}

/*
 * How long the scheduler backs off before it retries a control answered
 * NV_ERR_BUSY_RETRY (RM's "try again"). An assumption: RM names no delay.
 */
#define BUSY_RETRY_BACKOFF_NS 100000ull

static NV_STATUS preempt_one(struct run_sched *s, uint32_t i)
{
    struct run_ctx *c = s->m[i].ctx;
    uint64_t tmo = s->m[i].preempt_timeout_ns;
    call_begin(s);
    NV_STATUS st = nvrm_tsg_preempt(c->rm, c->hClient, c->hTsg, tmo != 0, (uint32_t)(tmo / 1000));
    call_end(s);
    if (st != NV_OK && st != NV_ERR_BUSY_RETRY)
        LOG_INFO("scenario", "scheduler: PREEMPT of %s: %s", s->m[i].task->name, nv_status_name(st));
    return st;
}

static NV_STATUS disable_one(struct run_sched *s, uint32_t i, bool disable)
{
    struct run_ctx *c = s->m[i].ctx;
    NvHandle clients[SC_MAX_STREAMS];
    for (uint32_t k = 0; k < c->nchannels; k++)
        clients[k] = c->hClient;
    call_begin(s);
    NV_STATUS st = nvrm_disable_channels(c->rm, c->hClient, c->hSubdevice, disable, false, c->nchannels, clients,
                                         c->hChannels);
    call_end(s);
    if (st != NV_OK && st != NV_ERR_BUSY_RETRY)
        LOG_INFO("scenario", "scheduler: DISABLE_CHANNELS(%d) of %s: %s", disable, s->m[i].task->name,
                 nv_status_name(st));
    return st;
}

static NV_STATUS issue(struct run_sched *s, const struct run_sched_op *op)
{
    /* The process may have died since the decision: nothing left to call on. */
    if (!s->m[op->member].ctx)
        return NV_OK;
    if (op->kind == RUN_SCHED_OP_PREEMPT)
        return preempt_one(s, op->member);
    return disable_one(s, op->member, op->kind == RUN_SCHED_OP_DISABLE);
}

uint32_t run_sched_control_cmd(const struct run_sched *s)
{
    return s->sc->scheduler.action == SC_SCHED_DISABLE ? NV2080_CTRL_CMD_FIFO_DISABLE_CHANNELS
                                                       : NVA06C_CTRL_CMD_PREEMPT;
}

static void mark_retry(struct run_sched *s, uint32_t member)
{
    struct sim_rec r = {.kind = SIM_REC_MARK, .engine = SIM_NONE, .runlist = SIM_NONE, .tsg = SIM_NONE,
                        .chid = SIM_NONE, .a = member, .b = run_sched_control_cmd(s), .name = SC_MARK_BUSY_RETRY};
    sim_trace(s->sim, &r);
}

static void pump_fn(struct sim *sim, void *arg, uint64_t data);

/* Issues queued calls while the scheduler is free; once a call keeps it busy, resumes when it returns. */
static void pump(struct run_sched *s)
{
    while (s->op_len) {
        if (sim_now(s->sim) < s->busy_until) {
            if (!s->pump_event)
                s->pump_event = sim_at(s->sim, s->busy_until, pump_fn, s, 0);
            return;
        }
        struct run_sched_op op = s->ops[s->op_head];
        if (issue(s, &op) == NV_ERR_BUSY_RETRY) {
            /* The same call again after a back-off; what was decided after it stays behind it. */
            mark_retry(s, op.member);
            s->busy_until += BUSY_RETRY_BACKOFF_NS;
            continue;
        }
        s->op_head = (s->op_head + 1) % s->op_cap;
        s->op_len--;
    }
}

static void pump_fn(struct sim *sim, void *arg, uint64_t data)
{
    (void)sim;
    (void)data;
    struct run_sched *s = arg;
    s->pump_event = 0;
    pump(s);
}

static void enqueue(struct run_sched *s, enum run_sched_op_kind kind, uint32_t member)
{
    if (s->op_len == s->op_cap) {
        uint32_t cap = s->op_cap ? s->op_cap * 2 : 16;
        struct run_sched_op *ops = malloc(cap * sizeof(*ops));
        if (!ops) {
            LOG_ERROR("scenario", "scheduler: out of memory; call on %s dropped", s->m[member].task->name);
            return;
        }
        for (uint32_t i = 0; i < s->op_len; i++)
            ops[i] = s->ops[(s->op_head + i) % s->op_cap];
        free(s->ops);
        s->ops = ops;
        s->op_cap = cap;
        s->op_head = 0;
    }
    s->ops[(s->op_head + s->op_len) % s->op_cap] = (struct run_sched_op){kind, member};
    s->op_len++;
}

/* One call per live BE instance, in instance order, then issue what the scheduler is free to. */
static void act(struct run_sched *s, enum gp_decision d)
{
    static const int op[GP_DECISION_COUNT] = {[GP_DECIDE_NOTHING] = -1, [GP_DECIDE_PREEMPT_BE] = RUN_SCHED_OP_PREEMPT,
                                              [GP_DECIDE_DISABLE_BE] = RUN_SCHED_OP_DISABLE,
                                              [GP_DECIDE_ENABLE_BE] = RUN_SCHED_OP_ENABLE};
    if (op[d] < 0)
        return;
    for (uint32_t i = 0; i < s->n; i++)
        if (s->m[i].ctx && s->m[i].task->cls == SC_BE) {
            enqueue(s, (enum run_sched_op_kind)op[d], i);
            s->be_calls[d]++;
        }
    pump(s);
}

void run_sched_lc_submitted(struct run_sched *s, uint32_t id)
{
    if (!active(s) || id >= s->n || s->m[id].lc_busy)
        return;
    s->m[id].lc_busy = true;
    act(s, gp_decide_lc_begin(&s->decider));
}

void run_sched_lc_done(struct run_sched *s, uint32_t id)
{
    if (!active(s) || id >= s->n || !s->m[id].lc_busy)
        return;
    s->m[id].lc_busy = false;
    act(s, gp_decide_lc_end(&s->decider));
}

void run_sched_forget(struct run_sched *s, uint32_t id)
{
    if (id >= s->n)
        return;
    run_sched_lc_done(s, id);
    s->m[id].ctx = NULL;
}
