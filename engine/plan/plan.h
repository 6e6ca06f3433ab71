/*
 * The backend-neutral plan of one scenario run, computed once and executed by
 * every backend (the emulator's model, real processes on a GPU): when each
 * task instance's requests arrive. Instances are numbered as sc_instance_id
 * does. An open-loop instance (periodic, Poisson, trace) has its arrival
 * times here; a closed loop's next request arrives `think` after the
 * previous one completed, which only the backend running it can know.
 *
 * Poisson gaps are drawn from the sim's generator seeded with the run's seed
 * (sim_rng), one draw when an instance's first arrival is placed and one each
 * time one of its arrivals happens, in the order the arrivals happen (ties in
 * the order they were placed): the draws a discrete-event run of the
 * scenario makes, so a plan is the same numbers whichever backend runs it.
 */
#ifndef NVEMU_SCENARIO_PLAN_H
#define NVEMU_SCENARIO_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gp_decide.h"
#include "scenario.h"

struct sc_plan_inst {
    uint32_t task, replica;
    bool open_loop;              /* false: a closed loop (no times here) */
    uint64_t *arrive_ns;         /* open loop: arrival times, ns from the start, ascending */
    size_t count;
};

struct sc_plan {
    const struct scenario *sc;
    uint64_t seed;
    uint32_t ninst;
    struct sc_plan_inst *inst;
};

struct sc_plan_opts {
    /* per instance, or NULL: true = it takes no arrivals (an external process, a context refused at start) */
    const bool *idle;
    /* client_kill faults end their instance's arrivals at the fault's time (a backend that injects them) */
    bool faults;
};

/* Fills *p (zeroed first). 0, or -1 when out of memory (*p then holds nothing to free). */
int sc_plan_build(struct sc_plan *p, const struct scenario *sc, uint64_t seed, const struct sc_plan_opts *o);

/* Frees the arrival arrays and zeroes *p; a zeroed plan is a no-op. */
void sc_plan_free(struct sc_plan *p);

/*
 * A copy of s with task t alone, as a baseline runs it: native scheduling (no
 * policy, no scheduler), no faults, no expectations, same GPU, seed and
 * duration. Caller frees it; NULL when out of memory.
 */
struct scenario *sc_task_alone(const struct scenario *s, uint32_t t);

/* The scenario's scheduler action as the method of its decisions (timeslice: no run-time action). */
enum gp_method sc_plan_sched_method(const struct scenario *sc);

#endif
