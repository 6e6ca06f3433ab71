/*
 * A scenario's gpu overrides (timeslice, preemption mode, timing) applied to
 * a profile: the runner writes the base profile's YAML with those values
 * replaced to a private file and hands its path to nvemu_create, so the
 * emulator loads it through the normal, validated profile loader.
 */
#ifndef NVEMU_SCENARIO_GPU_OVERLAY_H
#define NVEMU_SCENARIO_GPU_OVERLAY_H

#include <stdbool.h>
#include <stddef.h>

#include "scenario.h"

/* True when the scenario overrides anything of its profile. */
bool gpu_overlay_needed(const struct sc_gpu *g);

/*
 * Writes the overridden profile into dir (a fresh file from mkstemp) and
 * puts its path in path_out. Returns 0, or -1 with a reason in err (unknown
 * profile, a key the profile lacks, I/O).
 */
int gpu_overlay_write(const struct sc_gpu *g, const char *dir, char *path_out, size_t path_len, char *err,
                      size_t errlen);

#endif
