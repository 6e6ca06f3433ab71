/*
 * `nvemu scenario compare A B`: two runs of a scenario (two results.json, or
 * two --out directories holding one), metric by metric. A metric is compared
 * only when both runs have it (a hardware run has no switch counts, a run
 * without baseline no vs-alone ratios). The ratio is B / A; a metric is
 * within tolerance when |B / A - 1| <= tolerance (two zeros are equal).
 */
#ifndef NVEMU_SCENARIO_COMPARE_H
#define NVEMU_SCENARIO_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define CMP_NAME_MAX 96

struct cmp_row {
    char metric[CMP_NAME_MAX];   /* "lc.p99_vs_alone", "GR0.switches": owner.what */
    char owner[64];              /* the task or engine */
    const char *what;            /* "p99_vs_alone", "switches" (static) */
    double a, b, ratio;          /* ratio = b / a; INFINITY when a == 0 != b */
    bool headline;               /* LC p50/p99 vs alone or BE throughput: the validation metrics */
    bool within;
};

/* What a results.json says of its run; "" where it says nothing (an emulator run has no GPU or driver). */
struct cmp_side {
    char scenario[96], backend[16], profile[64], policy[96], seed[24];
    char gpu[96], driver[32], calibration[256]; /* calibration: its numbers as "key value, ..." */
};

struct cmp_result {
    struct cmp_row *rows;
    size_t count;
    size_t checked, passed;      /* rows judged (all, or the headline ones) and those within tolerance */
    char name_a[96], name_b[96]; /* scenario and backend of each side */
    struct cmp_side side[2];     /* A, B */
};

/*
 * Compares two results.json files or directories holding one. headline_only
 * judges only the headline rows (others are still listed). 0, or -1 with a
 * one-line reason in err (file missing, not results.json, different
 * scenarios' tasks that share no metric). Free with cmp_result_free.
 */
int cmp_files(const char *a, const char *b, double tolerance, bool headline_only, struct cmp_result *out,
              char *err, size_t errlen);

/* Same over two results.json texts (names appear in messages). */
int cmp_texts(const char *text_a, const char *name_a, const char *text_b, const char *name_b, double tolerance,
              bool headline_only, struct cmp_result *out, char *err, size_t errlen);

/* The table (metric, A, B, B/A, within) and a summary line. */
void cmp_print(const struct cmp_result *r, double tolerance, bool headline_only, FILE *out);

/* Releases the rows; NULL is a no-op. */
void cmp_result_free(struct cmp_result *r);

/*
 * compare.html (compare_html.c): one self-contained page in report.html's style with both runs' headers,
 * the table with a B/A bar per row on a log scale around 1 (tolerance band shaded), each task's latencies
 * and throughput as paired bars, and, side by side, the report.html of each input that is a run directory
 * holding one (an iframe, its path relative to the page), else a note saying why there is none. a and b are
 * the inputs as given to cmp_files. 0, or -1 with a one-line reason in err.
 */
int cmp_html(const struct cmp_result *r, const char *a, const char *b, double tolerance, bool headline_only,
             const char *path, char *err, size_t errlen);

/*
 * The path of `to` relative to the directory `from` (both absolute and normalised, as realpath gives them),
 * e.g. "/w/cmp" and "/w/run/report.html" give "../run/report.html". 0, or -1 when out is too small.
 */
int cmp_relpath(const char *from, const char *to, char *out, size_t len);

#endif
