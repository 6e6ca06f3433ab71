#include "run_sched.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/emulator.h"
#include "core/log.h"
#include "run_ctx.h"
#include "sim/sim.h"

void run_sched_init(struct run_sched *s, const struct scenario *sc, nvemu *emu, uint32_t n)
{
    memset(s, 0, sizeof(*s));
    s->sc = sc;
    s->emu = emu;
    s->m = calloc(n ? n : 1, sizeof(*s->m));
    s->n = s->m ? n : 0;
}

void run_sched_fini(struct run_sched *s)
{
    free(s->m);
    s->m = NULL;
    s->n = 0;
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

/* Control calls may charge virtual time (injected latency, a waiting PREEMPT); the scheduler does not block. */
static void drop_charge(struct run_sched *s)
{
    sim_take_call_charge(nvemu_sim(s->emu));
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
        NV_STATUS st = nvrm_tsg_set_timeslice(c->rm, c->hClient, c->hTsg, us);
        drop_charge(s);
        if (st != NV_OK) {
            snprintf(err, errlen, "scheduler: SET_TIMESLICE %llu us on %s#%u failed: %s", (unsigned long long)us,
                     s->m[i].task->name, i, nv_status_name(st));
            return -1;
        }
    }
    return 0;
}

static void preempt_be(struct run_sched *s)
{
    for (uint32_t i = 0; i < s->n; i++) {
        struct run_ctx *c = s->m[i].ctx;
        if (!c || s->m[i].task->cls != SC_BE)
            continue;
        uint64_t tmo = s->m[i].preempt_timeout_ns;
        NV_STATUS st = nvrm_tsg_preempt(c->rm, c->hClient, c->hTsg, tmo != 0, (uint32_t)(tmo / 1000));
        drop_charge(s);
        if (st != NV_OK)
            LOG_INFO("scenario", "scheduler: PREEMPT of %s: %s", s->m[i].task->name, nv_status_name(st));
    }
}

static void disable_be(struct run_sched *s, bool disable)
{
    for (uint32_t i = 0; i < s->n; i++) {
        struct run_ctx *c = s->m[i].ctx;
        if (!c || s->m[i].task->cls != SC_BE)
            continue;
        NvHandle clients[SC_MAX_STREAMS];
        for (uint32_t k = 0; k < c->nchannels; k++)
            clients[k] = c->hClient;
        NV_STATUS st = nvrm_disable_channels(c->rm, c->hClient, c->hSubdevice, disable, false, c->nchannels,
                                             clients, c->hChannels);
        drop_charge(s);
        if (st != NV_OK) {
            LOG_INFO("scenario", "scheduler: DISABLE_CHANNELS(%d) of %s: %s", disable, s->m[i].task->name,
                     nv_status_name(st));
        }
    }
    s->be_disabled = disable;
}

void run_sched_lc_submitted(struct run_sched *s, uint32_t id)
{
    if (!active(s) || id >= s->n || s->m[id].lc_busy)
        return;
    s->m[id].lc_busy = true;
    s->lc_inflight++;
    if (s->sc->scheduler.action == SC_SCHED_PREEMPT)
        preempt_be(s);
    else if (s->sc->scheduler.action == SC_SCHED_DISABLE && !s->be_disabled)
        disable_be(s, true);
}

void run_sched_lc_done(struct run_sched *s, uint32_t id)
{
    if (!active(s) || id >= s->n || !s->m[id].lc_busy)
        return;
    s->m[id].lc_busy = false;
    if (--s->lc_inflight == 0 && s->be_disabled)
        disable_be(s, false);
}

void run_sched_forget(struct run_sched *s, uint32_t id)
{
    if (id >= s->n)
        return;
    run_sched_lc_done(s, id);
    s->m[id].ctx = NULL;
}
