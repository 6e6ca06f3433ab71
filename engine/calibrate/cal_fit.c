/*
 * The fit of `nvemu calibrate` (calibrate.h): each step's key searched on the emulator, a candidate profile
 * (`base:` plus the timing keys fitted so far) per model run.
 */
#include "calibrate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile/profile.h"
#include "runner.h"
#include "scenario.h"

/* Candidates of one search round; five rounds, each over the two cells around the best of the one before
 * (the range's 1/486th at the end). */
#define GRID 7
#define ROUNDS 5
/* Later passes over every step, with the others at their values of the pass before (a value fitted early moves the
 * experiments of those after it, and the other way round: the tick moves every switch experiment), search around
 * the value before: an eighth of the range each side, in ROUNDS2 rounds; PASSES in all. Two were enough while one
 * save cost stood for every switch; with the per-save accounting the tick, the save and the idle save trade off
 * against one another in the switch experiments and take four to come back
 * (calibrate.synthetic_per_save_recovers_truth). The tick, in whole ns, still moves by a nanosecond or two in the
 * fourth, so no pass count is "settled" by a resolution test: the count is fixed. */
#define PASS2_WIDTH 8
#define ROUNDS2 4
#define PASSES 4

/* Timing keys in place: the fitted ones and the one being searched. */
struct cand {
    const char *key[40];
    double val[40];
    bool ns[40];
    size_t n;
};

static void cand_set(struct cand *c, const char *key, bool ns, double v)
{
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->key[i], key)) {
            c->val[i] = v;
            return;
        }
    if (c->n < sizeof c->key / sizeof c->key[0]) {
        c->key[c->n] = key, c->ns[c->n] = ns, c->val[c->n] = v;
        c->n++;
    }
}

/* The candidate profile as a file beside the others in tmpdir: `base:` and the keys under timing. */
static int write_cand(const char *base, const struct cand *c, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "cannot write %s", path);
        return -1;
    }
    fprintf(f, "base: %s\ntiming:\n", base);
    for (size_t i = 0; i < c->n; i++)
        fprintf(f, c->ns[i] ? "  %s: %.0fns\n" : "  %s: %.3f\n", c->key[i], c->val[i]);
    if (fclose(f)) {
        snprintf(err, errlen, "cannot write %s", path);
        return -1;
    }
    return 0;
}

/* The statistic of a model run's task, in results.json's units (us, req/s); false when it has none. */
static bool model_stat(const struct sc_task_result *t, enum cal_stat st, double *v)
{
    switch (st) {
    case CAL_P50: *v = t->p50_ns / 1e3; break;
    case CAL_P99: *v = t->p99_ns / 1e3; break;
    case CAL_RPS: *v = t->throughput; break;
    case CAL_ALONE_P50: *v = t->has_alone ? t->alone_p50_ns / 1e3 : 0; break;
    case CAL_ALONE_P99: *v = t->has_alone ? t->alone_p99_ns / 1e3 : 0; break;
    case CAL_ALONE_RPS: *v = t->has_alone ? t->alone_throughput : 0; break;
    case CAL_P50_VS_ALONE: *v = t->has_alone && t->alone_p50_ns > 0 ? t->p50_ns / t->alone_p50_ns : 0; break;
    case CAL_P99_VS_ALONE: *v = t->has_alone && t->alone_p99_ns > 0 ? t->p99_ns / t->alone_p99_ns : 0; break;
    default: return false;
    }
    return *v > 0;
}

/* The seed experiment exp's recordings ran (1 when none says). */
static unsigned long long exp_seed(const struct cal_data *d, const char *exp)
{
    for (size_t i = 0; i < d->n; i++)
        if (!strcmp(d->m[i].exp, exp))
            return d->m[i].seed;
    return 1;
}

/*
 * Runs experiment exp on the emulator with the profile at path and writes the statistics of the metrics mets
 * that name it into vals (0 where the run has none). 0 or -1 with a reason.
 */
static int run_exp(const struct cal_data *d, const char *exp, const char *profile, const struct cal_metric *mets,
                   size_t nm, double *vals, char *err, size_t errlen)
{
    const struct cal_experiment *e = cal_experiment_find(exp);
    if (!e) {
        snprintf(err, errlen, "no embedded experiment %s", exp);
        return -1;
    }
    char set0[4200];
    snprintf(set0, sizeof set0, "gpu.profile=%s", profile);
    const char *set[] = {set0};
    char serr[1024];
    struct scenario *s = scenario_load_set(e->name, e->text, e->len, set, 1, serr, sizeof serr);
    if (!s) {
        snprintf(err, errlen, "%s: %s", exp, serr);
        return -1;
    }
    struct sc_run_opts o = {.seed = exp_seed(d, exp), .has_seed = true};
    struct sc_results res;
    memset(&res, 0, sizeof res);
    int rc = sc_run(s, &o, &res, serr, sizeof serr);
    if (rc) {
        snprintf(err, errlen, "%s on the emulator: %s", exp, serr);
    } else {
        for (size_t i = 0; i < nm; i++) {
            if (strcmp(mets[i].exp, exp))
                continue;
            int t = scenario_find_task(s, mets[i].task);
            vals[i] = 0;
            if (t >= 0)
                model_stat(&res.tasks[t], mets[i].stat, &vals[i]);
        }
    }
    sc_results_free(&res);
    scenario_free(s);
    return rc ? -1 : 0;
}

/* The model's values of every metric in mets (nm of them) with the profile at path. */
static int run_metrics(const struct cal_data *d, const char *profile, const struct cal_metric *mets, size_t nm,
                       double *vals, char *err, size_t errlen)
{
    for (size_t i = 0; i < nm; i++) {
        bool seen = false;
        for (size_t j = 0; j < i; j++)
            seen |= !strcmp(mets[j].exp, mets[i].exp);
        if (!seen && run_exp(d, mets[i].exp, profile, mets, nm, vals, err, errlen))
            return -1;
    }
    return 0;
}

/* Squared log ratios model/measured; a metric the model has no value for costs as a factor of e^2 off. */
static double cost_of(const double *model, const double *meas, size_t nm)
{
    double c = 0;
    for (size_t i = 0; i < nm; i++) {
        double l = model[i] > 0 ? log(model[i] / meas[i]) : 2;
        c += l * l;
    }
    return c;
}

struct search {
    const struct cal_data *d;
    const char *base, *path;
    struct cand *cand;
    const struct cal_step *st;
    struct cal_metric mets[CAL_MAX_METRICS];
    double meas[CAL_MAX_METRICS];
    size_t nm;
    unsigned evals;
    bool tie;                      /* st->tie_key = value x tie_scale + tie_offset */
    double tie_scale, tie_offset;
};

/* The tie of step st over the base profile bp: false when st has none, or keeps a distance the base does not set. */
static bool step_tie(const struct cal_step *st, const struct profile *bp, double *scale, double *offset)
{
    if (!st->tie_key)
        return false;
    *scale = st->tie_scale, *offset = 0;
    if (!st->tie_base_distance)
        return true;
    uint64_t key_ns, tie_ns;
    if (!profile_timing_get(bp, st->key, &key_ns) || !profile_timing_get(bp, st->tie_key, &tie_ns) || !tie_ns)
        return false;
    *scale = 1, *offset = ((double)tie_ns - (double)key_ns) / 1e3;
    return true;
}

static int eval(struct search *q, double v, double *cost, double *model, char *err, size_t errlen)
{
    /* profile times are whole nanoseconds */
    v = q->st->ns ? round(v) : round(v * 1e3) / 1e3;
    cand_set(q->cand, q->st->key, q->st->ns, v);
    if (q->tie)
        cand_set(q->cand, q->st->tie_key, false, v * q->tie_scale + q->tie_offset);
    if (write_cand(q->base, q->cand, q->path, err, errlen) ||
        run_metrics(q->d, q->path, q->mets, q->nm, model, err, errlen))
        return -1;
    q->evals++;
    *cost = cost_of(model, q->meas, q->nm);
    return 0;
}

/*
 * Grid search over [lo, hi] (within the step's range), then again over the two grid cells around the best point,
 * `rounds` times. Among equal costs (a step-shaped response) the middle of the tied points is kept, not the edge
 * of the flat part.
 */
static int search_step(struct search *q, double lo, double hi, int rounds, struct cal_fit_row *row, char *err,
                       size_t errlen)
{
    double best = lo, best_cost = INFINITY;
    for (int r = 0; r < rounds; r++) {
        double xs[GRID], cs[GRID], model[CAL_MAX_METRICS];
        double stepw = (hi - lo) / (GRID - 1);
        for (int i = 0; i < GRID; i++) {
            xs[i] = lo + stepw * i;
            if (eval(q, xs[i], &cs[i], model, err, errlen))
                return -1;
        }
        int bi = 0;
        for (int i = 1; i < GRID; i++)
            if (cs[i] < cs[bi] - 1e-12)
                bi = i;
        int first = bi, last = bi;
        while (last + 1 < GRID && fabs(cs[last + 1] - cs[bi]) <= 1e-12)
            last++;
        double mid = (xs[first] + xs[last]) / 2;
        if (cs[bi] <= best_cost) {
            best_cost = cs[bi];
            best = mid;
        }
        lo = fmax(q->st->lo, best - stepw);
        hi = fmin(q->st->hi, best + stepw);
    }
    double model[CAL_MAX_METRICS];
    best = q->st->ns ? round(best) : round(best * 1e3) / 1e3;
    if (eval(q, best, &row->cost, model, err, errlen))
        return -1;
    row->value = best;
    row->tied = q->tie;
    row->tie_value = best * q->tie_scale + q->tie_offset;
    /* the best at an end of the range says the recordings want a value beyond it */
    double span = q->st->hi - q->st->lo;
    row->at_edge = best <= q->st->lo + span * 1e-3 || best >= q->st->hi - span * 1e-3;
    row->evals = q->evals;
    row->used = (unsigned)q->nm;
    memcpy(row->model, model, sizeof model);
    memcpy(row->meas, q->meas, sizeof q->meas);
    return 0;
}

bool cal_step_named(const struct cal_step *st, const char *only)
{
    const char *key = st->key;
    size_t n = strlen(key);
    for (const char *p = only; p && *p;) {
        size_t l = strcspn(p, ",");
        /* a key matches with or without its unit suffix */
        if ((l == n && !strncmp(p, key, n)) || (n == l + 3 && !strncmp(p, key, l) && !strcmp(key + l, "_us")))
            return true;
        p += l + (p[l] == ',');
    }
    return !only;
}

int cal_fit(const struct cal_data *d, const char *base, const char *only, struct cal_fit *fit, FILE *log, char *err,
            size_t errlen)
{
    memset(fit, 0, sizeof *fit);
    snprintf(fit->base, sizeof fit->base, "%s", base);
    char perr[512];
    struct profile *bp = profile_load(base, perr, sizeof perr);
    if (!bp) {
        snprintf(err, errlen, "base profile: %s", perr);
        return -1;
    }
    char dir[] = "/tmp/nvemu-calibrate-XXXXXX";
    if (!mkdtemp(dir)) {
        snprintf(err, errlen, "cannot create a temporary directory");
        profile_free(bp);
        return -1;
    }
    char path[sizeof dir + 16];
    snprintf(path, sizeof path, "%s/cand.yaml", dir);
    struct cand cand = {.n = 0};
    int rc = 0;
    for (int pass = 0; pass < PASSES && !rc; pass++) {
        size_t k = 0;
        for (const struct cal_step *st = cal_steps; st->key && !rc; st++) {
            if (!cal_step_named(st, only))
                continue;
            struct search q = {.d = d, .base = fit->base, .path = path, .cand = &cand, .st = st};
            q.tie = step_tie(st, bp, &q.tie_scale, &q.tie_offset);
            for (size_t i = 0; i < CAL_MAX_METRICS && st->metrics[i].exp; i++)
                if (cal_measured(d, st->metrics[i].exp, st->metrics[i].task, st->metrics[i].stat, &q.meas[q.nm]))
                    q.mets[q.nm++] = st->metrics[i];
            if (!q.nm) {
                if (log && !pass)
                    fprintf(log, "calibrate: %s not fitted: no recording of %s\n", st->key, st->metrics[0].exp);
                continue;
            }
            struct cal_fit_row *row = &fit->rows[k++];
            double lo = st->lo, hi = st->hi;
            if (pass) {
                double w = (st->hi - st->lo) / PASS2_WIDTH;
                lo = fmax(st->lo, row->value - w);
                hi = fmin(st->hi, row->value + w);
                q.evals = row->evals;
            }
            row->step = st;
            if (search_step(&q, lo, hi, pass ? ROUNDS2 : ROUNDS, row, err, errlen)) {
                rc = -1;
                break;
            }
            fit->nrows = k > fit->nrows ? k : fit->nrows;
            if (log)
                fprintf(log, "calibrate: pass %d: %s = %.4g%s (%u metrics, %u model runs, cost %.4f)%s\n", pass + 1,
                        st->key, row->value, st->ns ? " ns" : "", row->used, row->evals, row->cost,
                        row->at_edge ? ": at the end of its search range" : "");
        }
    }
    unlink(path);
    rmdir(dir);
    profile_free(bp);
    if (!rc && !fit->nrows) {
        snprintf(err, errlen, "no step has recordings to fit (is the directory one `nvemu calibrate --hw` wrote?)");
        rc = -1;
    }
    return rc;
}

int cal_validate(const struct cal_data *d, const char *profile, struct cal_check *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    static const enum cal_stat lc_stats[] = {CAL_P50_VS_ALONE, CAL_P99_VS_ALONE};
    for (const char *const *v = cal_validation; *v; v++) {
        struct cal_metric mets[CAL_MAX_METRICS];
        double meas[CAL_MAX_METRICS], model[CAL_MAX_METRICS];
        size_t nm = 0;
        for (size_t i = 0; i < d->n && nm + 2 <= CAL_MAX_METRICS; i++) {
            const struct cal_measure *m = &d->m[i];
            if (strcmp(m->exp, *v))
                continue;
            /* LC tasks are named lc*, BE tasks be* in every experiment */
            bool lc = !strncmp(m->task, "lc", 2);
            for (int k = 0; k < (lc ? 2 : 1); k++) {
                enum cal_stat st = lc ? lc_stats[k] : CAL_RPS;
                if (m->has[st]) {
                    mets[nm] = (struct cal_metric){*v, m->task, st};
                    meas[nm++] = m->v[st];
                }
            }
        }
        if (!nm)
            continue;
        if (run_metrics(d, profile, mets, nm, model, err, errlen))
            return -1;
        for (size_t i = 0; i < nm && c->n < sizeof c->rows / sizeof c->rows[0]; i++) {
            struct cal_check_row *r = &c->rows[c->n++];
            snprintf(r->exp, sizeof r->exp, "%s", mets[i].exp);
            snprintf(r->task, sizeof r->task, "%s", mets[i].task);
            r->stat = mets[i].stat;
            r->meas = meas[i], r->model = model[i];
            double ratio = meas[i] > 0 ? model[i] / meas[i] : 0;
            c->within10 += fabs(ratio - 1) <= 0.10 + 1e-9;
            c->within25 += fabs(ratio - 1) <= 0.25 + 1e-9;
        }
    }
    return 0;
}
