/*
 * Runs of one scenario over a set of seeds, and A/B verdicts that know the seeds' noise.
 *
 * A seed set is a directory holding one run directory per seed, seed-N/results.json (what
 * `nvemu scenario run FILE --seeds K --out DIR` writes), plus seeds.json, its summary. Per metric (the rows
 * `scenario compare` has: each task's latency p50/p99/max, vs alone, requests/s; each engine's switches and
 * preemptions) it gives the mean, the standard deviation, min and max over the seeds.
 *
 * Two seed sets A and B are compared metric by metric with the ratio of the means B/A and a confidence
 * interval of that ratio from a percentile bootstrap (each side resampled with replacement, a fixed PRNG
 * seed: the same inputs give the same interval). The verdict states a change only when the interval
 * excludes 1 and reaches beyond SEEDS_NOISE of it: "better" or "worse" for a metric with a direction
 * (latency lower is better, throughput higher), "higher" or "lower" for counts, else "no detectable change". A metric is past the tolerance
 * only when the whole interval lies outside [1 - tolerance, 1 + tolerance].
 */
#ifndef NVEMU_SCENARIO_SEEDS_H
#define NVEMU_SCENARIO_SEEDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "compare.h"
#include "results.h"
#include "scenario.h"

/* Resamples of the bootstrap; the PRNG seed is fixed, so a verdict is reproducible. */
#define SEEDS_BOOTSTRAP 4000
/* A change whose whole interval lies within 1% of 1 is noise for a scheduling metric (criterion's
 * noise threshold): "no detectable change". */
#define SEEDS_NOISE 0.01

struct seed_metric {
    char metric[CMP_NAME_MAX];   /* "lc.p99_us" */
    const char *what;            /* "p99_us" (static) */
    bool headline;
    double *v;                   /* one value per run that has the metric */
    size_t n;
    double mean, sd, min, max;
};

struct seed_set {
    char scenario[96];
    size_t runs;
    struct seed_metric *m;
    size_t count;
};

/* True when dir is a seed set: it holds seed-N/results.json (N digits) and no results.json of its own. */
bool seeds_is_set(const char *dir);

/*
 * Reads every seed-N/results.json of dir (in N order) into a set with each metric's statistics.
 * 0, or -1 with a one-line reason in err (not a seed set, an unreadable run, runs of different
 * scenarios). Free with seeds_free.
 */
int seeds_load(const char *dir, struct seed_set *out, char *err, size_t errlen);

void seeds_free(struct seed_set *s);

/* seeds.json: the scenario, the number of runs and, per metric, n, mean, sd, min, max. 0 or -1 (err). */
int seeds_write_summary(const struct seed_set *s, const char *path, char *err, size_t errlen);

/* The set's table: metric, mean, sd, min, max. */
void seeds_print(const struct seed_set *s, FILE *out);

struct seed_cmp_row {
    const struct seed_metric *a, *b;
    double ratio, lo, hi;        /* B/A of the means and its interval; NAN where A's mean is 0 */
    const char *verdict;         /* "better", "worse", "higher", "lower", "no detectable change" */
    bool headline, within;       /* within: the interval overlaps [1 - tol, 1 + tol] */
};

struct seed_cmp {
    struct seed_cmp_row *rows;
    size_t count, checked, passed;
    double confidence;
};

/*
 * Compares the metrics both sets have at `confidence` (e.g. 0.95). headline_only judges only the headline
 * rows. 0, or -1 with a reason in err (no shared metric, a side with fewer than 2 runs).
 */
int seeds_compare(const struct seed_set *a, const struct seed_set *b, double tolerance, double confidence,
                  bool headline_only, struct seed_cmp *out, char *err, size_t errlen);

/* The table (metric, A mean ± sd, B mean ± sd, B/A, interval, verdict) and a summary line. */
void seeds_compare_print(const struct seed_cmp *c, const struct seed_set *a, const struct seed_set *b,
                         double tolerance, bool headline_only, FILE *out);

void seeds_compare_free(struct seed_cmp *c);

/* What a scenario's expectations over seeds (`seeds: N` on latency/throughput) found. */
struct seeds_verdict {
    uint32_t count, failed;
    struct sc_expect_outcome outcomes[SC_MAX_EXPECT];   /* labels end in "over N seeds" */
    uint32_t lines[SC_MAX_EXPECT];                      /* where each expectation is written */
};

/* The largest `seeds: N` among s's expectations (0 when none is over seeds). */
uint32_t seeds_needed(const struct scenario *s);

/* Removes s's expectations over seeds (a single run of a seed set judges only the others). */
void seeds_strip_expectations(struct scenario *s);

/*
 * Judges each expectation of s over N seeds on the runs seed-BASE .. seed-(BASE+N-1) of the seed set in dir:
 * the stat's mean over those runs (and, for a *_vs_alone bound, the mean of their runs alone), with the
 * bounds and messages of a single run's expectation. 0, or -1 with a reason in err (a run missing or not
 * results.json of s).
 */
int seeds_expect(const struct scenario *s, const char *dir, uint64_t base, struct seeds_verdict *v, char *err,
                 size_t errlen);

/* The interval of mean(b)/mean(a) (percentile bootstrap, fixed PRNG seed) at confidence; NAN when undefined. */
void seeds_ratio_interval(const double *a, size_t na, const double *b, size_t nb, double confidence, double *lo,
                          double *hi);

#endif
