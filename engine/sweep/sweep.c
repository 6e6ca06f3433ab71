/* The sweep grid: parameters, the point decoding, the table columns, the outcome. */
#include "sweep.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "base/log.h"
#include "base/util.h"
#include "report.h"
#include "runner.h"
#include "scenario.h"
#include "sweep_internal.h"

/* ---- grid ---- */

int sweep_add_param(struct sweep *sw, const char *spec, char *err, size_t errlen)
{
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec || !eq[1]) {
        snprintf(err, errlen, "--set wants PATH=V1,V2,... (e.g. tasks.be.count=1,2,4), not '%s'", spec);
        return -1;
    }
    if (sw->nparams >= SWEEP_MAX_PARAMS) {
        snprintf(err, errlen, "at most %d --set parameters", SWEEP_MAX_PARAMS);
        return -1;
    }
    struct sweep_param *p = &sw->params[sw->nparams];
    p->path = strndup(spec, (size_t)(eq - spec));
    char *list = strdup(eq + 1);
    if (!p->path || !list) {
        free(list);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    sw->nparams++;
    char *save = NULL;
    for (char *v = strtok_r(list, ",", &save); v; v = strtok_r(NULL, ",", &save)) {
        if (p->nvalues >= SWEEP_MAX_VALUES || !(p->values[p->nvalues] = strdup(v))) {
            free(list);
            snprintf(err, errlen, "--set %s: at most %d values", p->path, SWEEP_MAX_VALUES);
            return -1;
        }
        p->nvalues++;
    }
    free(list);
    if (!p->nvalues) {
        snprintf(err, errlen, "--set %s: no value", p->path);
        return -1;
    }
    return 0;
}

int sweep_add_column(struct sweep *sw, const char *fmt, ...)
{
    if (sw->ncolumns >= SWEEP_MAX_COLUMNS)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    int rc = vasprintf(&sw->columns[sw->ncolumns], fmt, ap);
    va_end(ap);
    if (rc < 0)
        return -1;
    sw->ncolumns++;
    return 0;
}

/* sweep_internal.h: the metric columns, in order. */
const char *const sweep_task_metrics[SWEEP_TASK_METRICS] = {"p50_us", "p99_us", "max_us", "mean_us", "rps",
                                                            "completed", "failed", "lost"};
const char *const sweep_alone_metrics[SWEEP_ALONE_METRICS] = {"p99_vs_alone", "rps_vs_alone"};
const char *const sweep_run_metrics[SWEEP_RUN_METRICS] = {"preemptions", "switches", "timeslice_expiries",
                                                          "expect_passed", "expect_failed", "events", "digest"};
#define FIXED_COLUMNS 4 /* point, seed, pass, error (plus one per parameter) */

int sweep_prepare(struct sweep *sw, const char *scenario, uint32_t seeds, char *err, size_t errlen)
{
    /* Every path must exist: tried with each parameter's first value (later values may still be refused). */
    const char *keys[SWEEP_MAX_PARAMS], *vals[SWEEP_MAX_PARAMS];
    for (size_t p = 0; p < sw->nparams; p++) {
        keys[p] = sw->params[p].path;
        vals[p] = sw->params[p].values[0];
    }
    struct scenario *s = scenario_load_overridden(scenario, keys, vals, sw->nparams, err, errlen);
    if (!s)
        return -1;
    scenario_free(s);
    if (!(s = scenario_load(scenario, err, errlen)))
        return -1;
    sw->scenario = strdup(scenario);
    sw->seeds = seeds;
    sw->points = seeds ? seeds : 1;
    for (size_t p = 0; p < sw->nparams; p++)
        sw->points *= sw->params[p].nvalues;
    int rc = sw->scenario ? sweep_add_column(sw, "point") : -1;
    for (size_t p = 0; p < sw->nparams && rc == 0; p++)
        rc = sweep_add_column(sw, "%s", sw->params[p].path);
    if (rc == 0)
        rc = sweep_add_column(sw, "seed") | sweep_add_column(sw, "pass") | sweep_add_column(sw, "error");
    for (uint32_t t = 0; t < s->task_count && rc == 0; t++) {
        for (size_t m = 0; m < SWEEP_TASK_METRICS && rc == 0; m++)
            rc = sweep_add_column(sw, "%s.%s", s->tasks[t].name, sweep_task_metrics[m]);
        for (size_t m = 0; s->baseline && m < SWEEP_ALONE_METRICS && rc == 0; m++)
            rc = sweep_add_column(sw, "%s.%s", s->tasks[t].name, sweep_alone_metrics[m]);
    }
    for (size_t m = 0; m < SWEEP_RUN_METRICS && rc == 0; m++)
        rc = sweep_add_column(sw, "%s", sweep_run_metrics[m]);
    scenario_free(s);
    if (rc == 0)
        sw->rows = calloc(sw->points, sizeof *sw->rows);
    if (rc != 0 || !sw->rows) {
        snprintf(err, errlen, "%s: too many columns for a sweep table (or out of memory)", scenario);
        return -1;
    }
    return 0;
}

/* The point's parameter value indices and seed (0: the scenario's own). */
uint32_t sweep_decode(const struct sweep *sw, size_t point, size_t *vi)
{
    size_t nseeds = sw->seeds ? sw->seeds : 1;
    uint32_t seed = sw->seeds ? (uint32_t)(point % nseeds) + 1 : 0;
    size_t rest = point / nseeds;
    for (size_t p = sw->nparams; p-- > 0;) {
        vi[p] = rest % sw->params[p].nvalues;
        rest /= sw->params[p].nvalues;
    }
    return seed;
}

void sweep_outcome(const struct sweep *sw, size_t *failed, size_t *broken)
{
    int pass = (int)sw->nparams + 2, error = pass + 1;
    *failed = *broken = 0;
    for (size_t i = 0; i < sw->points; i++) {
        if (!sw->rows[i])
            continue;
        if (!sweep_cell_is(sw->rows[i], error, ""))
            (*broken)++;
        else if (sweep_cell_is(sw->rows[i], pass, "false"))
            (*failed)++;
    }
}

void sweep_free(struct sweep *sw)
{
    for (size_t p = 0; p < sw->nparams; p++) {
        free(sw->params[p].path);
        for (size_t v = 0; v < sw->params[p].nvalues; v++)
            free(sw->params[p].values[v]);
    }
    for (size_t c = 0; c < sw->ncolumns; c++)
        free(sw->columns[c]);
    for (size_t i = 0; sw->rows && i < sw->points; i++)
        free(sw->rows[i]);
    free(sw->rows);
    free(sw->scenario);
    memset(sw, 0, sizeof *sw);
}
