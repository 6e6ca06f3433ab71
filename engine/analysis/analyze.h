/*
 * The emulator's event trace -> the run record (results.h). The runner adds
 * SIM_REC_MARK records for the harness's own facts (request arrival /
 * completion / failure, which TSG serves which task replica, kills), so the
 * trace alone is enough to rebuild every number in every report. The
 * analyzer is a trace subscriber: it sees each record once, in order. The
 * trace digest is the sim's own (sim_trace_digest: FNV-1a 64 over every
 * record), taken by the runner when the run ends.
 */
#ifndef NVEMU_SCENARIO_ANALYZE_H
#define NVEMU_SCENARIO_ANALYZE_H

#include "fifo/fifo_rec.h"
#include "profile/profile.h"
#include "results.h"
#include "sim/sim.h"

struct sc_analyzer;

/* An analyzer filling *out (zeroed here) for a run of s with `seed`. `p` names engines; it must outlive the analyzer. */
struct sc_analyzer *sc_analyzer_create(const struct scenario *s, uint64_t seed, const struct profile *p,
                                       struct sc_results *out);
/* The sim_trace_fn to subscribe with (ctx = the analyzer). */
void sc_analyzer_record(void *ctx, const struct sim_rec *r);
/* Closes open intervals at end_ns and computes per-task statistics. Frees the analyzer. */
void sc_analyzer_finish(struct sc_analyzer *a, uint64_t end_ns);

#endif
