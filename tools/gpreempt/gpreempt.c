/* GPreempt-style scheduler core (see gpreempt.h). */
#include "gpreempt.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void report(struct gp_sched *s, const char *what, const struct gp_task *t, uint64_t value, NV_STATUS st,
                   uint64_t t0)
{
    struct gp_action a = {what, t, value, st, now_ns() - t0};
    if (s->cfg.on_action)
        s->cfg.on_action(s->cfg.ctx, &a);
}

static NV_STATUS first_failure(NV_STATUS acc, NV_STATUS st)
{
    return acc != NV_OK ? acc : st;
}

void gp_config_init(struct gp_config *c)
{
    *c = (struct gp_config){.lc_us = 1000000, .be_us = 1, .method = GP_METHOD_PREEMPT, .wait = false};
}

void gp_init(struct gp_sched *s, const struct gp_config *cfg)
{
    memset(s, 0, sizeof *s);
    if (cfg)
        s->cfg = *cfg;
    else
        gp_config_init(&s->cfg);
    gp_decider_init(&s->decider, s->cfg.method);
}

NV_STATUS gp_add_task(struct gp_sched *s, nvrm *rm, const char *name, enum gp_class cls, NvHandle hClient,
                      NvHandle hTsg, NvHandle hSubdevice, uint32_t n, const NvHandle *hChannels,
                      struct gp_task **out)
{
    if (s->ntasks >= GP_MAX_TASKS)
        return NV_ERR_INSUFFICIENT_RESOURCES;
    if (n > NVRM_DISABLE_CHANNELS_MAX)
        return NV_ERR_INVALID_ARGUMENT;
    struct gp_task *t = &s->tasks[s->ntasks++];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name ? name : "task");
    t->cls = cls;
    t->rm = rm;
    t->hClient = hClient;
    t->hTsg = hTsg;
    t->hSubdevice = hSubdevice ? hSubdevice : GP_SUBDEVICE_HANDLE;
    t->nchannels = n;
    for (uint32_t i = 0; i < n; i++) {
        t->hClients[i] = hClient;
        t->hChannels[i] = hChannels[i];
    }
    if (out)
        *out = t;
    return NV_OK;
}

NV_STATUS gp_add_task_query(struct gp_sched *s, nvrm *rm, const char *name, enum gp_class cls, int32_t tid,
                            NvHandle hSubdevice, struct gp_task **out)
{
    struct nvrm_group g;
    uint64_t t0 = now_ns();
    NV_STATUS st = nvrm_query_group(rm, tid, &g);
    if (st != NV_OK) {
        report(s, "query", NULL, (uint64_t)tid, st, t0);
        return st;
    }
    struct gp_task *t = NULL;
    st = gp_add_task(s, rm, name, cls, g.hClient, g.hTsg, hSubdevice, g.num_channels, g.hChannels, &t);
    if (st == NV_OK) {
        for (uint32_t i = 0; i < g.num_channels; i++)
            t->hClients[i] = g.hClients[i];
    }
    report(s, "query", t, (uint64_t)tid, st, t0);
    if (out)
        *out = t;
    return st;
}

NV_STATUS gp_set_priorities(struct gp_sched *s)
{
    NV_STATUS acc = NV_OK;
    for (uint32_t i = 0; i < s->ntasks; i++) {
        struct gp_task *t = &s->tasks[i];
        uint64_t us = t->cls == GP_LC ? s->cfg.lc_us : s->cfg.be_us;
        uint64_t t0 = now_ns();
        NV_STATUS st = nvrm_tsg_set_timeslice(t->rm, t->hClient, t->hTsg, us);
        report(s, "set_timeslice", t, us, st, t0);
        acc = first_failure(acc, st);
    }
    return acc;
}

NV_STATUS gp_get_timeslice(struct gp_sched *s, struct gp_task *t, uint64_t *us)
{
    uint64_t t0 = now_ns(), v = 0;
    NV_STATUS st = nvrm_tsg_get_timeslice(t->rm, t->hClient, t->hTsg, &v);
    report(s, "get_timeslice", t, v, st, t0);
    if (us)
        *us = v;
    return st;
}

NV_STATUS gp_preempt(struct gp_sched *s, struct gp_task *t, bool wait)
{
    uint64_t t0 = now_ns();
    NV_STATUS st = nvrm_tsg_preempt(t->rm, t->hClient, t->hTsg, wait, s->cfg.timeout_us);
    report(s, "preempt", t, wait, st, t0);
    return st;
}

NV_STATUS gp_disable(struct gp_sched *s, struct gp_task *t, bool disable)
{
    uint64_t t0 = now_ns();
    NV_STATUS st = nvrm_disable_channels(t->rm, t->hClient, t->hSubdevice, disable, false, t->nchannels, t->hClients,
                                         t->hChannels);
    report(s, disable ? "disable" : "enable", t, t->nchannels, st, t0);
    if (st == NV_OK)
        t->disabled = disable;
    return st;
}

/* One call per BE task, in registration order. */
static NV_STATUS on_be(struct gp_sched *s, enum gp_decision d)
{
    NV_STATUS acc = NV_OK;
    for (uint32_t i = 0; d != GP_DECIDE_NOTHING && i < s->ntasks; i++) {
        struct gp_task *t = &s->tasks[i];
        if (t->cls != GP_BE)
            continue;
        NV_STATUS st = NV_OK;
        if (d == GP_DECIDE_PREEMPT_BE)
            st = gp_preempt(s, t, s->cfg.wait);
        else if (d == GP_DECIDE_DISABLE_BE && !t->disabled)
            st = gp_disable(s, t, true);
        else if (d == GP_DECIDE_ENABLE_BE && t->disabled)
            st = gp_disable(s, t, false);
        acc = first_failure(acc, st);
    }
    return acc;
}

NV_STATUS gp_lc_arrival(struct gp_sched *s)
{
    /* the stream is one source: busy already, it begins again only where a begin decides anew (preempt) */
    if (s->lc_busy && s->cfg.method != GP_METHOD_PREEMPT)
        return NV_OK;
    if (s->lc_busy)
        gp_decide_lc_end(&s->decider);
    s->lc_busy = true;
    return on_be(s, gp_decide_lc_begin(&s->decider));
}

NV_STATUS gp_lc_departure(struct gp_sched *s)
{
    if (!s->lc_busy)
        return on_be(s, GP_DECIDE_ENABLE_BE);
    s->lc_busy = false;
    return on_be(s, gp_decide_lc_end(&s->decider));
}
