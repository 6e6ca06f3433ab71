/*
 * The runner's side of the cache of runs alone (runner.h: sc_baseline_cache): a run of task 0 of the
 * reduced scenario b (sc_task_alone) with seed is looked up before it runs and kept after.
 */
#ifndef NVEMU_SCENARIO_BASELINES_H
#define NVEMU_SCENARIO_BASELINES_H

#include "runner.h"

/* The kept result of that run, or NULL (also for a run that cannot be kept: an external process, wall time). */
const struct sc_task_result *sc_baseline_find(const struct sc_baseline_cache *c, const struct scenario *b,
                                              uint64_t seed);
/* Keeps r (copied) when c has room and the run can be kept; c NULL is a no-op. */
void sc_baseline_keep(struct sc_baseline_cache *c, const struct scenario *b, uint64_t seed,
                      const struct sc_task_result *r);

#endif
