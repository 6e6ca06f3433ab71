/*
 * `nvemu scenario run --hw`: the scenario's tasks as real processes on a real
 * NVIDIA GPU (Volta and later, device 0), with the emulator's semantics so
 * that the two runs compare (`nvemu scenario compare`):
 * - arrivals: the plan's (plan.h), as the emulator runs them for the same
 *   seed; closed loops start the next request `think` after the previous
 *   completes;
 * - a request: CPU `preprocess` (spinning), then every kernel launched on its
 *   stream, done when the last kernel of every stream completed; latency is
 *   arrival to that completion (requests of one replica run one at a time);
 * - a kernel of B blocks of duration d runs ceil(B / SMs) waves of d / waves:
 *   each block does a fixed amount of arithmetic calibrated on the GPU at the
 *   start (a preempted block resumes with the work it had left), one block
 *   per SM (1024 threads with 40+ live registers; shared memory padding if
 *   the GPU would fit more), with `shared_kb` of shared memory per block;
 * - policies: the plugin's task_init/timeslice_set decisions (and a
 *   scheduler's timeslice action) are computed here and applied by each task
 *   process on its own compute channel group after libcuda's SET_TIMESLICE,
 *   through libcuda's fd and client (hw_rm.h); a task's preempt_mode replaces
 *   libcuda's CILP request. What cannot be applied is listed in
 *   results->hw.notes.
 * Results are built by the same analyzer as the emulator's (request marks fed
 * in time order), marked hw with the GPU, driver and calibration.
 */
#ifndef NVEMU_HW_RUN_H
#define NVEMU_HW_RUN_H

#include <stddef.h>

#include "results.h"
#include "run_opts.h"
#include "scenario.h"

/* Same contract as sc_run (runner.h). */
int sc_run_hw(const struct scenario *s, const struct sc_run_opts *o, struct sc_results *out, char *err,
              size_t errlen);

#endif
