/*
 * External task processes of a scenario (`tasks[].process`). The runner's
 * emulator is served through the daemon's FUSE front-end (front.h
 * front_server_start) on a private mount; each replica is a child process
 * that reaches the nodes there ($NVEMU_MOUNT) and takes part in virtual
 * time through the workload escapes (emu/fifo/workload.h): time advances
 * only while every participant waits.
 *
 * Determinism: the runner registers itself as a participant first, so no
 * time passes while the children start; children are started one after the
 * other, each after the previous one reported ready (registered, context
 * built), so participant ids follow the scenario's instance order; each
 * then waits for its turn (a WL_SLEEP until 0) before its first work. Then the
 * runner sleeps in virtual time until the end of the run and leaves; every
 * child stops at the end itself (the protocol, scenarios/README.md): it
 * frees its context before it unregisters, so the children's teardowns
 * follow one another in participant order.
 */
#ifndef NVEMU_SCENARIO_RUN_PROC_H
#define NVEMU_SCENARIO_RUN_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "front/inproc.h"
#include "nvemu/nvemu.h"
#include "scenario.h"

struct run_proc;

/* True when the scenario has external task processes. */
bool run_proc_needed(const struct scenario *sc);

/*
 * Refuses what the process path cannot combine with (the in-process
 * scheduler, faults, scheduler processes). 0, or -1 with a reason.
 */
int run_proc_check(const struct scenario *sc, char *err, size_t errlen);

/*
 * Serves emu on a fresh mount, registers the runner (through fdt) and starts
 * every process replica in instance order. 0 with *out set, or -1 with a
 * reason (everything started so far is stopped again).
 */
int run_proc_start(struct run_proc **out, const struct scenario *sc, nvemu *emu, nvemu_fdtable *fdt,
                   uint64_t end_ns, char *err, size_t errlen);

/*
 * Lets the run happen: sleeps until end_ns in virtual time (the children and
 * the sim events do the work), calls at_end(ctx) with the emulator lock held
 * while the runner still holds the baton (so what it traces comes before
 * the children's teardown, in the same order every run), leaves, and waits
 * for every child to exit. 0, or -1 with a reason (a child failed or did
 * not stop).
 */
int run_proc_run(struct run_proc *p, void (*at_end)(void *ctx), void *ctx, char *err, size_t errlen);

/* Stops what is left (kills children still running), unmounts, frees p. NULL is fine. */
void run_proc_stop(struct run_proc *p);

#endif
