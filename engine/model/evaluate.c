/* Expectations against results (each kind's checker is its row in expect.c) and the outcome's warnings. */
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "expect.h"
#include "results.h"

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
        sc_expect_evaluate(r, e, o);
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
