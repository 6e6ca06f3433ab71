/* Seed sets and their A/B verdicts (seeds.h). */
#include "seeds.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/util.h"
#include "sim/sim.h"

/* The bootstrap's PRNG seed: any fixed value; fixed so that a verdict is reproducible. */
#define BOOTSTRAP_SEED 0x5eed5eedull

/* N of "seed-N" (digits only), or -1. */
static long long seed_of(const char *name)
{
    if (strncmp(name, "seed-", 5) || !name[5])
        return -1;
    long long n = 0;
    for (const char *c = name + 5; *c; c++) {
        if (*c < '0' || *c > '9' || n > (1ll << 56))
            return -1;
        n = n * 10 + (*c - '0');
    }
    return n;
}

static bool has_results(const char *dir, const char *sub)
{
    char path[1024];
    struct stat st;
    int w = sub ? snprintf(path, sizeof path, "%s/%s/results.json", dir, sub)
                : snprintf(path, sizeof path, "%s/results.json", dir);
    return w > 0 && (size_t)w < sizeof path && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int cmp_seed(const void *x, const void *y)
{
    long long a = seed_of(*(char *const *)x), b = seed_of(*(char *const *)y);
    return (a > b) - (a < b);
}

/* The seed-N subdirectories of dir holding a results.json, in N order (malloc'd names). */
static char **list_runs(const char *dir, size_t *n)
{
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    char **names = NULL;
    size_t cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (seed_of(e->d_name) < 0 || !has_results(dir, e->d_name))
            continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 16;
            char **nn = realloc(names, cap * sizeof(*nn));
            if (!nn)
                break;
            names = nn;
        }
        if (!(names[*n] = strdup(e->d_name)))
            break;
        (*n)++;
    }
    closedir(d);
    if (*n)
        qsort(names, *n, sizeof(*names), cmp_seed);
    return names;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

bool seeds_is_set(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || has_results(dir, NULL))
        return false;
    size_t n;
    char **names = list_runs(dir, &n);
    free_names(names, n);
    return n > 0;
}

static struct seed_metric *find_metric(struct seed_set *s, const char *metric)
{
    for (size_t i = 0; i < s->count; i++)
        if (!strcmp(s->m[i].metric, metric))
            return &s->m[i];
    return NULL;
}

static int add_value(struct seed_set *s, const struct cmp_row *row, size_t runs)
{
    struct seed_metric *m = find_metric(s, row->metric);
    if (!m) {
        struct seed_metric *nm = realloc(s->m, (s->count + 1) * sizeof(*nm));
        if (!nm)
            return -1;
        s->m = nm;
        m = &s->m[s->count++];
        memset(m, 0, sizeof(*m));
        snprintf(m->metric, sizeof(m->metric), "%s", row->metric);
        m->what = row->what;
        m->headline = row->headline;
        if (!(m->v = calloc(runs, sizeof(double))))
            return -1;
    }
    if (m->n < runs)
        m->v[m->n++] = row->a;
    return 0;
}

static void stats(struct seed_metric *m)
{
    double sum = 0;
    m->min = m->n ? m->v[0] : NAN;
    m->max = m->min;
    for (size_t i = 0; i < m->n; i++) {
        sum += m->v[i];
        m->min = fmin(m->min, m->v[i]);
        m->max = fmax(m->max, m->v[i]);
    }
    m->mean = m->n ? sum / (double)m->n : NAN;
    double ss = 0;
    for (size_t i = 0; i < m->n; i++)
        ss += (m->v[i] - m->mean) * (m->v[i] - m->mean);
    m->sd = m->n > 1 ? sqrt(ss / (double)(m->n - 1)) : 0;
}

int seeds_load(const char *dir, struct seed_set *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    size_t n;
    char **names = list_runs(dir, &n);
    if (!n) {
        snprintf(err, errlen, "%s: no seed-N/results.json (not a seed set: nvemu scenario run FILE --seeds K --out DIR)",
                 dir);
        free_names(names, n);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        struct cmp_result r;
        /* a run compared with itself: its rows are its metrics (row.a) */
        if (cmp_files(path, path, 0, false, &r, err, errlen)) {
            rc = -1;
            break;
        }
        if (i == 0) {
            snprintf(out->scenario, sizeof(out->scenario), "%s", r.side[0].scenario);
        } else if (strcmp(out->scenario, r.side[0].scenario)) {
            snprintf(err, errlen, "%s: a run of '%s' among runs of '%s'", path, r.side[0].scenario, out->scenario);
            rc = -1;
        }
        for (size_t k = 0; k < r.count && !rc; k++)
            if (add_value(out, &r.rows[k], n)) {
                snprintf(err, errlen, "out of memory");
                rc = -1;
            }
        cmp_result_free(&r);
    }
    out->runs = n;
    free_names(names, n);
    if (rc) {
        seeds_free(out);
        return -1;
    }
    for (size_t i = 0; i < out->count; i++)
        stats(&out->m[i]);
    return 0;
}

void seeds_free(struct seed_set *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->count; i++)
        free(s->m[i].v);
    free(s->m);
    s->m = NULL;
    s->count = 0;
}

int seeds_write_summary(const struct seed_set *s, const char *path, char *err, size_t errlen)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "scenario", s->scenario);
    cJSON_AddNumberToObject(root, "runs", (double)s->runs);
    cJSON *ms = cJSON_AddObjectToObject(root, "metrics");
    for (size_t i = 0; i < s->count; i++) {
        const struct seed_metric *m = &s->m[i];
        cJSON *o = cJSON_AddObjectToObject(ms, m->metric);
        cJSON_AddNumberToObject(o, "n", (double)m->n);
        cJSON_AddNumberToObject(o, "mean", m->mean);
        cJSON_AddNumberToObject(o, "sd", m->sd);
        cJSON_AddNumberToObject(o, "min", m->min);
        cJSON_AddNumberToObject(o, "max", m->max);
    }
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    FILE *f = text ? fopen(path, "w") : NULL;
    int rc = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF ? 0 : -1;
    if (f && fclose(f) != 0)
        rc = -1;
    if (rc)
        snprintf(err, errlen, "%s: %s", path, text ? strerror(errno) : "out of memory");
    free(text);
    return rc;
}

void seeds_print(const struct seed_set *s, FILE *out)
{
    fprintf(out, "%zu seeds of %s\n%-32s %14s %12s %14s %14s\n", s->runs, s->scenario, "metric", "mean", "sd", "min",
            "max");
    for (size_t i = 0; i < s->count; i++) {
        const struct seed_metric *m = &s->m[i];
        fprintf(out, "%-32s %14.4g %12.3g %14.4g %14.4g\n", m->metric, m->mean, m->sd, m->min, m->max);
    }
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double resampled_mean(const double *v, size_t n, uint64_t *rng)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[sim_splitmix64(rng) % n];
    return sum / (double)n;
}

void seeds_ratio_interval(const double *a, size_t na, const double *b, size_t nb, double confidence, double *lo,
                          double *hi)
{
    *lo = *hi = NAN;
    if (!na || !nb)
        return;
    double *r = malloc(SEEDS_BOOTSTRAP * sizeof(*r));
    if (!r)
        return;
    uint64_t rng = BOOTSTRAP_SEED;
    size_t k = 0;
    for (int i = 0; i < SEEDS_BOOTSTRAP; i++) {
        double ma = resampled_mean(a, na, &rng), mb = resampled_mean(b, nb, &rng);
        if (ma != 0)
            r[k++] = mb / ma;
        else if (mb == 0)
            r[k++] = 1.0;
    }
    if (k) {
        qsort(r, k, sizeof(*r), cmp_double);
        double tail = (1.0 - confidence) / 2.0;
        size_t il = (size_t)floor(tail * (double)(k - 1)), ih = (size_t)ceil((1.0 - tail) * (double)(k - 1));
        *lo = r[il];
        *hi = r[ih < k ? ih : k - 1];
    }
    free(r);
}

/* +1: higher is better, -1: lower is better, 0: neither (counts). */
static int direction(const char *what)
{
    if (!strcmp(what, "throughput_rps") || !strcmp(what, "throughput_vs_alone"))
        return 1;
    if (!strcmp(what, "switches") || !strcmp(what, "preemptions"))
        return 0;
    return -1;
}

int seeds_compare(const struct seed_set *a, const struct seed_set *b, double tolerance, double confidence,
                  bool headline_only, struct seed_cmp *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    out->confidence = confidence;
    if (a->runs < 2 || b->runs < 2) {
        snprintf(err, errlen, "a seed set needs at least 2 runs to tell noise from a change (A has %zu, B %zu)",
                 a->runs, b->runs);
        return -1;
    }
    if (!(out->rows = calloc(a->count ? a->count : 1, sizeof(*out->rows)))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < a->count; i++) {
        const struct seed_metric *ma = &a->m[i];
        const struct seed_metric *mb = find_metric((struct seed_set *)b, ma->metric);
        if (!mb || ma->n < 2 || mb->n < 2)
            continue;
        struct seed_cmp_row *row = &out->rows[out->count++];
        row->a = ma;
        row->b = mb;
        row->headline = ma->headline;
        row->ratio = ma->mean != 0 ? mb->mean / ma->mean : mb->mean == 0 ? 1.0 : NAN;
        seeds_ratio_interval(ma->v, ma->n, mb->v, mb->n, confidence, &row->lo, &row->hi);
        int dir = direction(ma->what);
        if (isnan(row->lo) || (row->lo <= 1.0 && row->hi >= 1.0) ||
            (row->lo >= 1.0 - SEEDS_NOISE && row->hi <= 1.0 + SEEDS_NOISE))
            row->verdict = "no detectable change";
        else if (dir == 0)
            row->verdict = row->lo > 1.0 ? "higher" : "lower";
        else
            row->verdict = (row->lo > 1.0) == (dir > 0) ? "better" : "worse";
        row->within = isnan(row->lo) || (row->hi >= 1.0 - tolerance - 1e-12 && row->lo <= 1.0 + tolerance + 1e-12);
        if (headline_only && !row->headline)
            continue;
        out->checked++;
        out->passed += row->within;
    }
    if (!out->count) {
        snprintf(err, errlen, "the seed sets share no metric (different scenarios?)");
        seeds_compare_free(out);
        return -1;
    }
    return 0;
}

void seeds_compare_print(const struct seed_cmp *c, const struct seed_set *a, const struct seed_set *b,
                         double tolerance, bool headline_only, FILE *out)
{
    fprintf(out, "A: %s, %zu seeds\nB: %s, %zu seeds\n", a->scenario, a->runs, b->scenario, b->runs);
    fprintf(out, "%-28s %21s %21s %7s %17s  %s\n", "metric", "A mean +- sd", "B mean +- sd", "B/A",
            "interval", "verdict");
    for (size_t i = 0; i < c->count; i++) {
        const struct seed_cmp_row *r = &c->rows[i];
        bool judged = !headline_only || r->headline;
        char ia[32], ib[32], ci[32];
        snprintf(ia, sizeof ia, "%.4g +- %.2g", r->a->mean, r->a->sd);
        snprintf(ib, sizeof ib, "%.4g +- %.2g", r->b->mean, r->b->sd);
        snprintf(ci, sizeof ci, "[%.3f, %.3f]", r->lo, r->hi);
        fprintf(out, "%-28s %21s %21s %7.3f %17s  %s%s%s\n", r->a->metric, ia, ib, r->ratio, ci, r->verdict,
                judged && !r->within ? ", PAST TOLERANCE" : "", r->headline ? " *" : "");
    }
    fprintf(out, "interval: %.0f%% confidence of B/A of the means (bootstrap, %d resamples); %zu of %zu %smetrics "
                 "have an interval that reaches within %.0f%% of 1 (* = headline)\n",
            c->confidence * 100, SEEDS_BOOTSTRAP, c->passed, c->checked, headline_only ? "headline " : "",
            tolerance * 100);
}

void seeds_compare_free(struct seed_cmp *c)
{
    if (!c)
        return;
    free(c->rows);
    c->rows = NULL;
    c->count = 0;
}

uint32_t seeds_needed(const struct scenario *s)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->expect_count; i++)
        if (s->expects[i].seeds > 1 && s->expects[i].seeds > n)
            n = s->expects[i].seeds;
    return n;
}

void seeds_strip_expectations(struct scenario *s)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < s->expect_count; i++)
        if (s->expects[i].seeds <= 1)
            s->expects[k++] = s->expects[i];
    s->expect_count = k;
}

/* A number at o.k1[.k2] of a results.json, or NAN. */
static double json_num(const cJSON *o, const char *k1, const char *k2)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k1);
    if (v && k2)
        v = cJSON_GetObjectItemCaseSensitive(v, k2);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* Adds run `root`'s numbers of task `name` to the sums in t (NAN anywhere: the task is not in the run). */
static int add_task(struct sc_task_result *t, const cJSON *root, const char *name, bool *alone)
{
    const cJSON *it, *task = NULL;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(root, "tasks")) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(it, "name");
        if (cJSON_IsString(n) && !strcmp(n->valuestring, name))
            task = it;
    }
    if (!task)
        return -1;
    double cur[5] = {json_num(task, "latency_us", "p50"), json_num(task, "latency_us", "p99"),
                     json_num(task, "latency_us", "max"), json_num(task, "latency_us", "mean"),
                     json_num(task, "throughput_rps", NULL)};
    double ref[5] = {json_num(task, "alone", "p50_us"), json_num(task, "alone", "p99_us"),
                     json_num(task, "alone", "max_us"), json_num(task, "alone", "mean_us"),
                     json_num(task, "alone", "throughput_rps")};
    for (int i = 0; i < 5; i++)
        if (isnan(cur[i]))
            return -1;
    t->p50_ns += cur[0] * 1e3;
    t->p99_ns += cur[1] * 1e3;
    t->max_ns += cur[2] * 1e3;
    t->mean_ns += cur[3] * 1e3;
    t->throughput += cur[4];
    t->completed += (uint64_t)fmax(0, json_num(task, "completed", NULL));
    for (int i = 0; i < 5; i++)
        *alone = *alone && !isnan(ref[i]);
    if (*alone) {
        t->alone_p50_ns += ref[0] * 1e3;
        t->alone_p99_ns += ref[1] * 1e3;
        t->alone_max_ns += ref[2] * 1e3;
        t->alone_mean_ns += ref[3] * 1e3;
        t->alone_throughput += ref[4];
    }
    return 0;
}

int seeds_expect(const struct scenario *s, const char *dir, uint64_t base, struct seeds_verdict *v, char *err,
                 size_t errlen)
{
    memset(v, 0, sizeof(*v));
    struct scenario *one = malloc(sizeof(*one));
    struct sc_results *r = calloc(1, sizeof(*r));
    int rc = one && r ? 0 : -1;
    if (rc)
        snprintf(err, errlen, "out of memory");
    for (uint32_t i = 0; i < s->expect_count && !rc; i++) {
        const struct sc_expect *e = &s->expects[i];
        if (e->seeds <= 1)
            continue;
        /* the scenario with this one expectation, judged on a result whose numbers are the seeds' means */
        memcpy(one, s, sizeof(*one));
        one->expects[0] = *e;
        one->expect_count = 1;
        memset(r, 0, sizeof(*r));
        r->sc = one;
        int t = scenario_find_task(s, e->task);
        bool alone = true;
        for (uint32_t k = 0; k < e->seeds && !rc && t >= 0; k++) {
            char path[1100];
            snprintf(path, sizeof path, "%s/seed-%llu/results.json", dir, (unsigned long long)(base + k));
            char rerr[256];
            char *text = nvemu_slurp(path, 64u << 20, NULL, rerr, sizeof rerr);
            cJSON *root = text ? cJSON_Parse(text) : NULL;
            free(text);
            if (!root || add_task(&r->tasks[t], root, e->task, &alone)) {
                snprintf(err, errlen, "%s: %s", path, root ? "no numbers of the task (did the run fail?)" : "cannot read it");
                rc = -1;
            }
            cJSON_Delete(root);
        }
        if (rc || t < 0)
            break;
        struct sc_task_result *tr = &r->tasks[t];
        double n = (double)e->seeds;
        tr->p50_ns /= n, tr->p99_ns /= n, tr->max_ns /= n, tr->mean_ns /= n, tr->throughput /= n;
        tr->has_alone = alone;
        tr->alone_p50_ns /= n, tr->alone_p99_ns /= n, tr->alone_max_ns /= n, tr->alone_mean_ns /= n;
        tr->alone_throughput /= n;
        sc_results_evaluate(r);
        struct sc_expect_outcome *o = &v->outcomes[v->count];
        *o = r->outcomes[0];
        size_t l = strlen(o->label);
        snprintf(o->label + l, sizeof(o->label) - l, " over %u seeds", e->seeds);
        l = strlen(o->actual);
        snprintf(o->actual + l, sizeof(o->actual) - l, " (mean)");
        v->lines[v->count++] = e->pos.line;
        v->failed += !o->pass;
    }
    free(one);
    free(r);
    return rc;
}
