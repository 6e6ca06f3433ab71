#include "plan.h"

#include <stdlib.h>
#include <string.h>

#include "results.h"
#include "sim/sim.h"

/* An arrival placed and not yet happened: ordered by time, then by when it was placed. */
struct pending {
    uint64_t t, seq;
    bool on;
};

struct gen {
    const struct scenario *sc;
    struct sc_plan *p;
    struct sim_rng rng;
    struct pending *next;
    uint64_t *stop_ns;           /* arrivals at or after this do not happen (client_kill) */
    uint64_t *periodic;          /* periodic: index of the last arrival placed */
    size_t *cap;
    uint64_t seq;
};

static void place(struct gen *g, uint32_t k, uint64_t at)
{
    if (at >= g->sc->duration_ns || at >= g->stop_ns[k])
        return;
    g->next[k] = (struct pending){at, g->seq++, true};
}

static uint64_t periodic_at(const struct sc_task *t, uint32_t replica, uint64_t i)
{
    /* Replicas are spread evenly over the period so they do not arrive in lockstep. */
    double period = 1e9 / t->rate;
    double offset = period * (double)replica / (double)t->count;
    return t->start_ns + (uint64_t)(offset + period * (double)i);
}

static int happen(struct gen *g, uint32_t k)
{
    struct sc_plan_inst *pi = &g->p->inst[k];
    const struct sc_task *t = &g->sc->tasks[pi->task];
    uint64_t now = g->next[k].t;
    g->next[k].on = false;
    if (pi->count == g->cap[k]) {
        size_t cap = g->cap[k] ? g->cap[k] * 2 : 64;
        uint64_t *a = realloc(pi->arrive_ns, cap * sizeof(*a));
        if (!a)
            return -1;
        pi->arrive_ns = a;
        g->cap[k] = cap;
    }
    pi->arrive_ns[pi->count++] = now;
    switch (t->arrival) {
    case SC_ARRIVAL_PERIODIC:
        place(g, k, periodic_at(t, pi->replica, ++g->periodic[k]));
        break;
    case SC_ARRIVAL_POISSON:
        place(g, k, now + sim_rng_exp(&g->rng, 1e9 / t->rate));
        break;
    case SC_ARRIVAL_TRACE:
        if (pi->count < t->trace_count)
            place(g, k, t->start_ns + t->trace_ns[pi->count]);
        break;
    case SC_ARRIVAL_CLOSED:
        break;
    }
    return 0;
}

static void kills(struct gen *g)
{
    const struct scenario *sc = g->sc;
    for (uint32_t i = 0; i < sc->fault_count; i++) {
        const struct sc_fault *f = &sc->faults[i];
        int t = f->task[0] ? scenario_find_task(sc, f->task) : -1;
        if (f->kind != SC_FAULT_CLIENT_KILL || t < 0)
            continue;
        uint32_t k = sc_instance_id(sc, (uint32_t)t, f->replica);
        if (k < g->p->ninst && f->at_ns < g->stop_ns[k])
            g->stop_ns[k] = f->at_ns;
    }
}

int sc_plan_build(struct sc_plan *p, const struct scenario *sc, uint64_t seed, const struct sc_plan_opts *o)
{
    memset(p, 0, sizeof(*p));
    p->sc = sc;
    p->seed = seed;
    p->ninst = sc_instance_count(sc);
    struct gen g = {.sc = sc, .p = p};
    sim_rng_seed(&g.rng, seed);
    size_t n = p->ninst ? p->ninst : 1;
    p->inst = calloc(n, sizeof(*p->inst));
    g.next = calloc(n, sizeof(*g.next));
    g.stop_ns = malloc(n * sizeof(*g.stop_ns));
    g.periodic = calloc(n, sizeof(*g.periodic));
    g.cap = calloc(n, sizeof(*g.cap));
    int rc = -1;
    if (!p->inst || !g.next || !g.stop_ns || !g.periodic || !g.cap)
        goto out;
    for (uint32_t t = 0, k = 0; t < sc->task_count; t++)
        for (uint32_t r = 0; r < sc->tasks[t].count; r++, k++) {
            p->inst[k] = (struct sc_plan_inst){.task = t, .replica = r,
                                               .open_loop = sc->tasks[t].arrival != SC_ARRIVAL_CLOSED};
            g.stop_ns[k] = UINT64_MAX;
        }
    if (o && o->faults)
        kills(&g);
    for (uint32_t k = 0; k < p->ninst; k++) {
        const struct sc_task *t = &sc->tasks[p->inst[k].task];
        uint64_t at = t->start_ns;
        switch (t->arrival) {
        case SC_ARRIVAL_PERIODIC:
            at = periodic_at(t, p->inst[k].replica, 0);
            break;
        case SC_ARRIVAL_POISSON:
            /* drawn for an idle instance too: a run places every instance's first arrival */
            at += sim_rng_exp(&g.rng, 1e9 / t->rate);
            break;
        case SC_ARRIVAL_TRACE:
            at += t->trace_ns[0];
            break;
        case SC_ARRIVAL_CLOSED:
            continue;
        }
        if (!(o && o->idle && o->idle[k]))
            place(&g, k, at);
    }
    for (;;) {
        uint32_t best = UINT32_MAX;
        for (uint32_t k = 0; k < p->ninst; k++)
            if (g.next[k].on && (best == UINT32_MAX || g.next[k].t < g.next[best].t ||
                                 (g.next[k].t == g.next[best].t && g.next[k].seq < g.next[best].seq)))
                best = k;
        if (best == UINT32_MAX)
            break;
        if (happen(&g, best))
            goto out;
    }
    rc = 0;
out:
    free(g.next);
    free(g.stop_ns);
    free(g.periodic);
    free(g.cap);
    if (rc)
        sc_plan_free(p);
    return rc;
}

void sc_plan_free(struct sc_plan *p)
{
    for (uint32_t k = 0; p->inst && k < p->ninst; k++)
        free(p->inst[k].arrive_ns);
    free(p->inst);
    memset(p, 0, sizeof(*p));
}
