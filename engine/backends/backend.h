/*
 * What a backend that runs a scenario's plan (plan.h) is: a name and a run
 * function with sc_run's contract (runner.h) filling the same run record
 * (results.h), so analysis, reports, sweep and compare read any backend's
 * run alike. The table of them is engine/backends (a row per backend).
 */
#ifndef NVEMU_SCENARIO_BACKEND_H
#define NVEMU_SCENARIO_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

#include "results.h"
#include "run_opts.h"
#include "scenario.h"

struct sc_backend {
    const char *name;            /* "emu", "hw" */
    const char *summary;         /* one line for --help */
    bool parallel;               /* runs of it may share the machine (a sweep runs points side by side) */
    int (*run)(const struct scenario *s, const struct sc_run_opts *o, struct sc_results *out, char *err,
               size_t errlen);
};

#endif
