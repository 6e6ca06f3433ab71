/*
 * A task's request from a PyTorch profiler (Chrome trace JSON) step: the
 * kernels whose launch falls in one profiled step, in launch order, each
 * with the CPU time between its launch and the one before.
 */
#ifndef NVEMU_TRACE_IMPORT_H
#define NVEMU_TRACE_IMPORT_H

#include <stddef.h>

#include "scenario.h"

/* The largest trace file read (bytes; a recorded training step with its CPU events is a few MiB). */
#define SC_FROM_TRACE_FILE_MAX (64u << 20)

/*
 * Fills t->kernels, t->kernel_count, t->streams and t->preprocess_ns from the first step of the trace at
 * path whose CPU annotation is named `iteration` or `iteration#N`. A kernel belongs to the step when its
 * launch call (matched by correlation id; the kernel's own start when there is none) lies inside the step.
 * Each kernel keeps its duration, grid (blocks), block (threads), registers per thread, shared memory
 * (static + dynamic, rounded up to KiB) and stream (trace streams numbered in order of first use), in
 * launch order; launch_gap_ns is the time from the previous kernel's launch call to its own (0 for the
 * first). preprocess is the CPU time from the step's start to its first launch. 0, or -1 with "path:line:col:
 * message" (or "path: message") in err for a file that is not a trace, has no such step, or exceeds the
 * schema's bounds (SC_MAX_KERNELS kernels, SC_MAX_STREAMS streams).
 */
int sc_trace_import(const char *path, const char *iteration, struct sc_task *t, char *err, size_t errlen);

/* The same over text already in memory (name: what messages call it). */
int sc_trace_import_text(const char *name, const char *text, const char *iteration, struct sc_task *t, char *err,
                         size_t errlen);

#endif
