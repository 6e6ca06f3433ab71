/*
 * The event trace of a run, kept where its supervisor can read it after the
 * run's process died (a policy that crashed it): a shared memory region the
 * process maps before it forks the run. The run appends every record of its
 * trace (sc_spool_record, a sim trace subscriber); a record counts only once
 * it is whole, so a crash at any instruction leaves every earlier record
 * readable and the one it was writing ignored. The supervisor then rebuilds
 * the run record from what was kept (sc_spool_results).
 */
#ifndef NVEMU_SCENARIO_SPOOL_H
#define NVEMU_SCENARIO_SPOOL_H

#include <stddef.h>

#include "results.h"
#include "sim/sim.h"

struct sc_spool;

/* A region of up to cap bytes shared with children forked after this (pages are used as records arrive); NULL when
 * it cannot be mapped. */
struct sc_spool *sc_spool_create(size_t cap);
void sc_spool_free(struct sc_spool *sp);

/* The sim_trace_fn that appends r (ctx = the spool); once the region is full later records are counted as dropped. */
void sc_spool_record(void *ctx, const struct sim_rec *r);

/* Whole records kept so far, and records that did not fit. */
size_t sc_spool_count(const struct sc_spool *sp);
uint64_t sc_spool_dropped(const struct sc_spool *sp);

/*
 * The run record of scenario s (seed) from the kept records, as the run would have analyzed them, its intervals
 * closed at the later of the last record's time and stopped_ns. 0, or -1 with a message in err (no profile).
 * *out is filled either way; sc_results_free releases it.
 */
int sc_spool_results(const struct sc_spool *sp, const struct scenario *s, uint64_t seed, uint64_t stopped_ns,
                     struct sc_results *out, char *err, size_t errlen);

#endif
