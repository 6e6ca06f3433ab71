/* Expectations against results: one checker per expectation kind. */
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "results.h"

static bool in_bounds(const struct sc_expect *e, double v)
{
    return (!e->has_min || v >= e->min) && (!e->has_max || v <= e->max);
}

static double stat_of(const struct sc_task_result *t, enum sc_stat st, bool alone)
{
    const double cur[] = {t->p50_ns, t->p99_ns, t->max_ns, t->mean_ns};
    const double ref[] = {t->alone_p50_ns, t->alone_p99_ns, t->alone_max_ns, t->alone_mean_ns};
    return alone ? ref[st] : cur[st];
}

/* Latency/throughput: absolute bounds and bounds relative to the task's run alone. */
static void check_task_metric(struct sc_results *r, const struct sc_expect *e, struct sc_expect_outcome *o)
{
    const struct sc_task_result *t = &r->tasks[scenario_find_task(r->sc, e->task)];
    bool lat = e->kind == SC_EXPECT_LATENCY;
    double v = lat ? stat_of(t, e->stat, false) : t->throughput;
    double ref = lat ? stat_of(t, e->stat, true) : t->alone_throughput;
    char a[32];
    if (lat && t->completed == 0) {
        o->pass = false;
        snprintf(o->actual, sizeof(o->actual), "no completed requests");
        return;
    }
    if (lat)
        sc_fmt_ns(v, a, sizeof(a));
    else
        snprintf(a, sizeof(a), "%.1f req/s", v);
    o->pass = in_bounds(e, v);
    if (!(e->has_ratio_min || e->has_ratio_max)) {
        snprintf(o->actual, sizeof(o->actual), "%s", a);
        return;
    }
    if (!t->has_alone || ref <= 0) {
        o->pass = false;
        snprintf(o->actual, sizeof(o->actual), "%s, no baseline value", a);
        return;
    }
    double ratio = v / ref;
    o->pass = o->pass && (!e->has_ratio_min || ratio >= e->ratio_min) && (!e->has_ratio_max || ratio <= e->ratio_max);
    snprintf(o->actual, sizeof(o->actual), "%s = %.2fx alone", a, ratio);
}

static const struct sc_engine_result *find_engine(const struct sc_results *r, const char *name)
{
    for (uint32_t i = 0; i < r->engine_count; i++)
        if (strcmp(r->engines[i].name, name) == 0)
            return &r->engines[i];
    return NULL;
}

static void check_engine_count(struct sc_results *r, const struct sc_expect *e, struct sc_expect_outcome *o)
{
    const struct sc_engine_result *eng = find_engine(r, e->engine);
    uint64_t v = 0;
    if (eng)
        v = e->kind == SC_EXPECT_PREEMPTIONS ? eng->preemptions
            : e->kind == SC_EXPECT_SWITCHES  ? eng->switches
                                             : eng->preempt_timeouts;
    o->pass = in_bounds(e, (double)v);
    snprintf(o->actual, sizeof(o->actual), "%llu%s", (unsigned long long)v, eng ? "" : " (engine never used)");
}

static void check_starvation(struct sc_results *r, const struct sc_expect *e, struct sc_expect_outcome *o)
{
    o->pass = true;
    uint64_t worst = 0;
    const char *worst_task = "";
    uint32_t worst_rep = 0;
    for (uint32_t k = 0; k < r->inst_count; k++) {
        const struct sc_inst *in = &r->inst[k];
        const char *name = r->sc->tasks[in->task].name;
        if (e->task[0] && strcmp(e->task, name) != 0)
            continue;
        if (in->rejected)
            continue;
        if (in->completed == 0 && !in->killed) {
            o->pass = false;
            snprintf(o->actual, sizeof(o->actual), "%s#%u completed nothing", name, in->replica);
            return;
        }
        if (in->max_gap_ns >= worst) {
            worst = in->max_gap_ns;
            worst_task = name;
            worst_rep = in->replica;
        }
    }
    char g[32];
    snprintf(o->actual, sizeof(o->actual), "longest gap %s (%s#%u)", sc_fmt_ns((double)worst, g, sizeof(g)),
             worst_task, worst_rep);
    if (e->has_max && (double)worst > e->max)
        o->pass = false;
}

static void check_decision(struct sc_results *r, const struct sc_expect *e, struct sc_expect_outcome *o)
{
    uint64_t n = 0;
    for (size_t i = 0; i < r->decision_count; i++) {
        const struct sc_decision *d = &r->decisions[i];
        if (strcmp(d->hook, e->hook) != 0)
            continue;
        if (e->field[0] && strcmp(d->field, e->field) != 0)
            continue;
        if (e->result[0] && strcmp(d->result, e->result) != 0)
            continue;
        n += d->count;
    }
    o->pass = in_bounds(e, (double)n);
    snprintf(o->actual, sizeof(o->actual), "%llu", (unsigned long long)n);
}

static void check_requests(struct sc_results *r, const struct sc_expect *e, struct sc_expect_outcome *o)
{
    uint64_t n = 0;
    for (uint32_t t = 0; t < r->sc->task_count; t++)
        n += e->kind == SC_EXPECT_LOST ? r->tasks[t].lost : r->tasks[t].failed;
    o->pass = in_bounds(e, (double)n);
    snprintf(o->actual, sizeof(o->actual), "%llu", (unsigned long long)n);
}

static void check_digest(struct sc_results *r, const struct sc_expect *e, struct sc_expect_outcome *o)
{
    snprintf(o->actual, sizeof(o->actual), "fnv1a64:%016llx", (unsigned long long)r->digest);
    o->pass = strcmp(o->actual, e->digest) == 0;
}

void sc_results_evaluate(struct sc_results *r)
{
    r->passed = r->failed = 0;
    for (uint32_t i = 0; i < r->sc->expect_count; i++) {
        const struct sc_expect *e = &r->sc->expects[i];
        struct sc_expect_outcome *o = &r->outcomes[i];
        memset(o, 0, sizeof(*o));
        scenario_expect_label(r->sc, e, o->label, sizeof(o->label));
        if (r->error[0]) {
            snprintf(o->actual, sizeof(o->actual), "not evaluated: the run failed");
            r->failed++;
            continue;
        }
        switch (e->kind) {
        case SC_EXPECT_LATENCY:
        case SC_EXPECT_THROUGHPUT:
            check_task_metric(r, e, o);
            break;
        case SC_EXPECT_PREEMPTIONS:
        case SC_EXPECT_SWITCHES:
        case SC_EXPECT_PREEMPT_TIMEOUTS:
            check_engine_count(r, e, o);
            break;
        case SC_EXPECT_NO_STARVATION:
            check_starvation(r, e, o);
            break;
        case SC_EXPECT_DECISION:
            check_decision(r, e, o);
            break;
        case SC_EXPECT_LOST:
        case SC_EXPECT_FAULTS:
            check_requests(r, e, o);
            break;
        case SC_EXPECT_TRACE_DIGEST:
            check_digest(r, e, o);
            break;
        case SC_EXPECT_BUSY_RETRIES:
            o->pass = in_bounds(e, (double)r->busy_retries);
            snprintf(o->actual, sizeof(o->actual), "%llu", (unsigned long long)r->busy_retries);
            break;
        }
        if (o->pass)
            r->passed++;
        else
            r->failed++;
    }
}

void sc_results_warn(struct sc_results *out)
{
    const struct scenario *s = out->sc;
    for (uint32_t t = 0; s && t < s->task_count && out->warning_count < SC_MAX_WARNINGS; t++) {
        const struct sc_task_result *tr = &out->tasks[t];
        if (s->tasks[t].cls != SC_BE || !tr->has_alone || tr->alone_throughput <= 0 ||
            tr->throughput >= SC_BE_COLLAPSE_FRACTION * tr->alone_throughput)
            continue;
        char *w = out->warnings[out->warning_count++];
        snprintf(w, sizeof(out->warnings[0]), "BE task '%.48s' completes %.2f req/s, %.1f%% of its %.2f req/s "
                 "alone: it starves (below %.0f%%; a livelock between BE groups with very short timeslices?)",
                 s->tasks[t].name, tr->throughput, 100.0 * tr->throughput / tr->alone_throughput,
                 tr->alone_throughput, 100.0 * SC_BE_COLLAPSE_FRACTION);
        LOG_WARN("scenario", "%s: %s", s->name, w);
    }
}
