/*
 * The scenario runner: one in-process emulator per run (nvemu_create with
 * the scenario's profile, seed, clock and policy), one CUDA-shaped context
 * per task replica created through libnvrm's in-process transport (so hooks
 * and policies see libcuda's real call sequence, SET_TIMESLICE 2048 us
 * included), arrivals and kernels driven through the FIFO model's callback
 * workload API in virtual time. Every fact the reports need goes into the
 * event trace; the results are computed from it by the analyzer.
 */
#ifndef NVEMU_SCENARIO_RUNNER_H
#define NVEMU_SCENARIO_RUNNER_H

#include <stdbool.h>
#include <stdio.h>

#include "results.h"
#include "run_opts.h"
#include "scenario.h"

/*
 * Runs of one task alone kept for reuse: a run alone depends only on the
 * task, the GPU, the clock, the seed, the duration and the warmup, so runs
 * of many scenarios that differ elsewhere (a sweep over policy arguments,
 * another task's rate) share it. Deterministic runs only (virtual clock,
 * synthetic task); bounded in size.
 */
struct sc_baseline_cache;
struct sc_baseline_cache *sc_baseline_cache_create(void);
/* NULL is a no-op. */
void sc_baseline_cache_free(struct sc_baseline_cache *c);
/* How many runs alone it holds. */
size_t sc_baseline_cache_size(const struct sc_baseline_cache *c);

/*
 * Runs the scenario (and, when it asks for `baseline`, each task alone
 * first), then evaluates its expectations. Returns 0 when the run happened
 * (expectations may still have failed: see out->failed), or -1 with a
 * one-line reason in err (and in out->error) when it could not run.
 * out must be released with sc_results_free.
 */
int sc_run(const struct scenario *s, const struct sc_run_opts *o, struct sc_results *out, char *err, size_t errlen);

/*
 * Everything sc_run needs from outside the file, checked without running:
 * the GPU profile loads with the scenario's gpu overrides, the policy plugin
 * is found, loads and accepts its arguments (an emulator is created and
 * destroyed), the scheduler binary and process binaries given as paths are
 * executable files, and the task mix is one this build runs. 0, or -1 with
 * "file:line:column: message" in err.
 */
int sc_check_deps(const struct scenario *s, char *err, size_t errlen);

#endif
