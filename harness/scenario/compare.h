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
    char metric[CMP_NAME_MAX];   /* "lc.p99_vs_alone", "GR0.switches" */
    double a, b, ratio;          /* ratio = b / a; INFINITY when a == 0 != b */
    bool headline;               /* LC p50/p99 vs alone or BE throughput: the validation metrics */
    bool within;
};

struct cmp_result {
    struct cmp_row *rows;
    size_t count;
    size_t checked, passed;      /* rows judged (all, or the headline ones) and those within tolerance */
    char name_a[96], name_b[96]; /* scenario and backend of each side */
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

#endif
