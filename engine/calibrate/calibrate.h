/*
 * `nvemu calibrate`: fits a GPU profile's timing section to microbenchmark scenarios run on a GPU.
 *
 * The experiments are a fixed set of scenarios compiled into the tool (copies of scenarios/validation and
 * scenarios/validation-shapes files, so recordings of the suites serve as calibration input too). Each fitted
 * value is one key of the profile's timing section, found by running the experiments that isolate it on the
 * emulator with candidate values and keeping the one whose metrics come closest to the recorded ones (least
 * squares of the log ratio). Values are fitted one after the other in a fixed order, each with the ones before
 * it already in place, then again each around its value with all the others fitted (coordinate descent, four
 * passes); keys the steps do not name come from the base profile.
 */
#ifndef NVEMU_CALIBRATE_H
#define NVEMU_CALIBRATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* What a metric reads from a task's results: its own run, its run alone, or the ratio of the two. */
enum cal_stat {
    CAL_P50, CAL_P99, CAL_RPS, CAL_ALONE_P50, CAL_ALONE_P99, CAL_ALONE_RPS, CAL_P50_VS_ALONE, CAL_P99_VS_ALONE,
    CAL_STAT_COUNT
};
/* "p50", "alone_p50", "p50_vs_alone", ... (index = enum cal_stat). */
extern const char *const cal_stat_names[CAL_STAT_COUNT];

/* One embedded experiment: a scenario file's name (without .yaml) and its text. */
struct cal_experiment {
    const char *name;
    const char *text;
    size_t len;
};
/* Every embedded experiment, ending with a row of NULL name (generated from the scenario files). */
extern const struct cal_experiment cal_experiments[];
/* The experiment called name, or NULL. */
const struct cal_experiment *cal_experiment_find(const char *name);

#define CAL_MAX_METRICS 6
struct cal_metric {
    const char *exp;     /* experiment name */
    const char *task;    /* task name in it */
    enum cal_stat stat;
};

/* One fitted timing key: where to search it and what shows it. */
struct cal_step {
    const char *key;     /* the profile timing key as written ("cilp_save_us", or "timeslice_tick" in ns) */
    bool ns;             /* the value is written in ns (`KEY: Vns`); else a bare number of microseconds */
    double lo, hi;       /* search range, in the key's unit */
    const char *what;    /* the mechanism, for the report */
    struct cal_metric metrics[CAL_MAX_METRICS];
    /* a key that moves with this one (NULL: none): tie_key = value x tie_scale. wake_max follows wake_per_ms over
     * the experiment's longest idle, which alone cannot tell the two apart */
    const char *tie_key;
    double tie_scale;
    /* instead, tie_key keeps the base profile's distance from this key, and only where the base sets it (not 0):
     * the per-save accounting's re-save, whose experiments no step here runs */
    bool tie_base_distance;
};
/* The fit's steps in the order they run, ending with a row of NULL key. */
extern const struct cal_step cal_steps[];
/* Whether only (a comma-separated list of keys, each with or without "_us"; NULL: every key) names st's key. */
bool cal_step_named(const struct cal_step *st, const char *only);
/* The experiments whose recordings check a fitted profile (validation), NULL-terminated. */
extern const char *const cal_validation[];
/* Every experiment a `--hw` calibration runs (the steps' and the validation's), NULL-terminated. */
extern const char *const cal_hw_experiments[];

/* What the recordings say about one task of one experiment (medians over its repeats). */
struct cal_measure {
    char exp[64], task[32];
    double v[CAL_STAT_COUNT];
    bool has[CAL_STAT_COUNT];
    unsigned repeats;
    unsigned long long seed;        /* the seed the first recording ran (the model runs the same) */
};

/* Where the recordings come from: the GPU, driver, date, and whether a real GPU ran them. */
struct cal_source {
    char gpu[96], uuid[64], driver[48], date[64];   /* of the first env.txt and results.json read */
    unsigned other_boards;          /* env.txt files naming another UUID */
    char dirs[512];                 /* the directories read, ", "-separated */
    bool hardware;                  /* every results.json read says backend hw */
};

struct cal_data {
    struct cal_measure *m;
    size_t n, cap;
    struct cal_source src;
};

/*
 * Reads the recordings of every embedded experiment under dir: DIR/NAME/results.json and DIR/SUB/NAME/results.json
 * (repeats r1, r2, ...), and DIR/env.txt or DIR/SUB/env.txt (nvidia-smi's "name, uuid, driver, ..." line, and a
 * date line) when present. A subdirectory DIR/boardN is another board's recording set, read the same way. Adds to
 * d; a task keeps, per metric, the median over boards of each board's median of its repeats (the mean of the middle
 * two for an even count). Returns the number of results.json files read, or -1 with a reason in err (an unreadable
 * or malformed results.json).
 */
int cal_read_dir(struct cal_data *d, const char *dir, char *err, size_t errlen);

/* The recorded metric, or false when no recording has it. */
bool cal_measured(const struct cal_data *d, const char *exp, const char *task, enum cal_stat st, double *v);

/* Frees d's arrays. */
void cal_data_free(struct cal_data *d);

/* One fitted value and how well it fits. */
struct cal_fit_row {
    const struct cal_step *step;
    double value;                   /* in the key's unit */
    double cost;                    /* sum of squared log ratios model/measured over its metrics */
    unsigned used;                  /* metrics that had recordings */
    unsigned evals;                 /* model runs of candidates */
    bool at_edge;                   /* the best value is an end of the search range */
    bool tied;                      /* the step's tie_key was set with it, to tie_value (in us) */
    double tie_value;
    double model[CAL_MAX_METRICS], meas[CAL_MAX_METRICS];
};

struct cal_fit {
    char base[256];                 /* the base profile (built-in name or absolute path) */
    struct cal_fit_row rows[32];
    size_t nrows;
};

/*
 * Fits every step whose metrics have recordings in d (and whose key is in `only`, a comma-separated list of keys,
 * when only is not NULL), in cal_steps order, on top of base. Progress lines go to log (may be NULL). Returns 0,
 * or -1 with a reason in err (the base does not load, a model run fails, no step has recordings).
 */
int cal_fit(const struct cal_data *d, const char *base, const char *only, struct cal_fit *fit, FILE *log, char *err,
            size_t errlen);

/*
 * Writes the fitted profile: `base:` the fit's base, a name, the fitted keys under `timing:` with a comment each,
 * and one `provenance:` row per fitted key naming its experiment, the GPU, driver and date. Returns 0 or -1 with
 * a reason in err.
 */
int cal_write_profile(const struct cal_fit *fit, const struct cal_data *d, const char *name, const char *path,
                      char *err, size_t errlen);

/* Validation: the fitted profile against recordings it was not fitted to. */
struct cal_check_row {
    char exp[64], task[32];
    enum cal_stat stat;
    double meas, model;
};
struct cal_check {
    struct cal_check_row rows[64];
    size_t n;
    unsigned within10, within25;
};

/*
 * Runs every cal_validation experiment that has recordings in d on the emulator with the profile at `profile`
 * (the seed of its recording) and compares the headline metrics (LC p50 and p99 relative to alone, BE
 * requests/s). Returns 0 (n may be 0: nothing recorded), or -1 with a reason in err.
 */
int cal_validate(const struct cal_data *d, const char *profile, struct cal_check *c, char *err, size_t errlen);

/* The fit and the validation as text (the report `nvemu calibrate` prints and stores). */
void cal_report(FILE *out, const struct cal_fit *fit, const struct cal_data *d, const struct cal_check *c);

#endif
