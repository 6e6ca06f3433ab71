/*
 * What one run of a scenario is asked for, whichever backend runs it (backend.h): the seed, where progress and
 * the raw trace go, the runs alone to reuse, and what a supervisor watches. A backend ignores what it cannot
 * use (the hardware backend keeps no runs alone and runs no policy under a watch).
 */
#ifndef NVEMU_SCENARIO_RUN_OPTS_H
#define NVEMU_SCENARIO_RUN_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct sc_baseline_cache;
struct hooks_watch;
struct sc_spool;

struct sc_run_opts {
    uint64_t seed;              /* used instead of the scenario's seed when has_seed */
    bool has_seed;
    FILE *progress;             /* progress lines for long realtime runs, or NULL */
    const char *trace_csv;      /* also write the raw event trace (CSV) here, or NULL */
    struct sc_baseline_cache *baselines; /* reuse runs alone from here and add new ones (runner.h), or NULL */
    struct hooks_watch *policy_watch;    /* where policy code runs, for a supervisor (nvemu_config), or NULL */
    struct sc_spool *trace_spool;        /* also append the run's trace here (spool.h), for a supervisor, or NULL */
};

#endif
