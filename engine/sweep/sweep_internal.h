/* What the sweep's files share among themselves (sweep.h is the contract to the command). */
#ifndef NVEMU_SCENARIO_SWEEP_INTERNAL_H
#define NVEMU_SCENARIO_SWEEP_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sweep.h"

/* Per-task metrics, in column order (vs-alone ratios only when the scenario has a baseline), then the run's. */
#define SWEEP_TASK_METRICS 8
#define SWEEP_ALONE_METRICS 2
#define SWEEP_RUN_METRICS 7
extern const char *const sweep_task_metrics[SWEEP_TASK_METRICS];
extern const char *const sweep_alone_metrics[SWEEP_ALONE_METRICS];
extern const char *const sweep_run_metrics[SWEEP_RUN_METRICS];

/* Appends a column named by fmt to the table header; 0, or -1 when out of memory. */
int sweep_add_column(struct sweep *sw, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The point's parameter value indices into vi and its seed (0: the scenario's own). */
uint32_t sweep_decode(const struct sweep *sw, size_t point, size_t *vi);

/* dir/name opened for writing, or NULL with a reason in err. */
FILE *sweep_open_out(const char *dir, const char *name, char *err, size_t errlen);

/* True when column col of the CSV row holds exactly text. */
bool sweep_cell_is(const char *row, int col, const char *text);

/* sweep.csv and sweep.json into dir; 0, or -1 with a reason. */
int sweep_write_tables(const struct sweep *sw, const char *dir, char *err, size_t errlen);

/* sweep.html into dir, a panel per plotted metric and parameter; 0, or -1 with a reason. */
int sweep_write_html(const struct sweep *sw, const char *dir, const char *const *plot, size_t nplot, char *err,
                     size_t errlen);

#endif
