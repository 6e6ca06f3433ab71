/*
 * The backends that run a scenario's plan (plan.h): one row each, found by
 * name (`--backend NAME` on scenario run and sweep). Every backend has
 * sc_run's contract (runner.h) and fills the same run record (results.h),
 * so analysis, reports, sweep and compare read any backend's run alike.
 * Adding a backend is one row in backend.c plus its run function.
 */
#ifndef NVEMU_SCENARIO_BACKEND_H
#define NVEMU_SCENARIO_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

#include "results.h"
#include "runner.h"
#include "scenario.h"

struct sc_backend {
    const char *name;            /* "emu", "hw" */
    const char *summary;         /* one line for --help */
    bool parallel;               /* runs of it may share the machine (a sweep runs points side by side) */
    int (*run)(const struct scenario *s, const struct sc_run_opts *o, struct sc_results *out, char *err,
               size_t errlen);
};

/* The backend called name, or NULL. */
const struct sc_backend *sc_backend_find(const char *name);
/* The default backend (the emulator). */
const struct sc_backend *sc_backend_default(void);
/* Names of every backend, '|'-separated ("emu|hw"), into buf (truncated to len). */
void sc_backend_names(char *buf, size_t len);

#endif
