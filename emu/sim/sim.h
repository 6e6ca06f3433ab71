/*
 * Deterministic discrete-event core (emu/sim): virtual time in ns, one event
 * queue, one seeded random generator and the event trace. One sim per
 * emulator (all GPUs share it, records carry the GPU index).
 *
 * Determinism: events fire in (time, sequence number) order, where the
 * sequence number is the order in which sim_at() was called. The random
 * generator is splitmix64-seeded xoshiro256**; nothing here reads wall time
 * in the virtual clock. Same inputs + seed => same trace bytes.
 *
 * The event trace is the single source for every report: the FIFO model, the
 * hook framework and the scenario harness append records; consumers either
 * subscribe (called synchronously on each append) or iterate the in-memory
 * copy. Strings in records are interned (valid for the sim's lifetime).
 *
 * Not thread-safe: the owner (the emulator) serialises access with its lock.
 */
#ifndef NVEMU_SIM_H
#define NVEMU_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "nvemu/nvemu.h"

struct sim;

struct sim_config {
    uint64_t seed;
    nvemu_clock clock;          /* REALTIME: sim_sync_realtime() moves virtual time with CLOCK_MONOTONIC */
    const char *trace_path;     /* CSV output; NULL = none */
    bool keep_trace;            /* keep every record in memory for sim_trace_get() */
};

/* Returns NULL (and logs why) when the trace file cannot be opened. */
struct sim *sim_create(const struct sim_config *cfg);
/* Flushes and closes the trace file; pending events are dropped without firing. */
void sim_destroy(struct sim *s);

/* ---- time and events ---- */

/* Current virtual time in ns (starts at 0). */
uint64_t sim_now(const struct sim *s);
nvemu_clock sim_clock(const struct sim *s);

typedef void (*sim_event_fn)(struct sim *s, void *arg, uint64_t data);

/* Handle of a scheduled event; 0 is never a valid handle. */
typedef uint64_t sim_event_id;

/*
 * Schedules fn(s, arg, data) at virtual time `at` (clamped to now when in the
 * past). Events at the same time fire in scheduling order. O(log n), no
 * per-event allocation once the pool has grown.
 */
sim_event_id sim_at(struct sim *s, uint64_t at, sim_event_fn fn, void *arg, uint64_t data);
/* Cancels a pending event; returns false when it already fired or was cancelled. O(1). */
bool sim_cancel(struct sim *s, sim_event_id id);
/* Time of the next pending event; false when the queue is empty. */
bool sim_next_time(struct sim *s, uint64_t *t);
/* Fires the next event (advancing time to it); false when the queue is empty. */
bool sim_step(struct sim *s);
/*
 * Fires every event with time <= t, then sets now = max(now, t).
 * Returns the number of events fired. Re-entrant calls are refused (0, logged).
 */
uint64_t sim_run_until(struct sim *s, uint64_t t);
/* Number of pending events and of events fired so far. */
size_t sim_pending(const struct sim *s);
uint64_t sim_fired(const struct sim *s);
/* True while an event callback runs. */
bool sim_in_event(const struct sim *s);

/* REALTIME clock: fires every event due by the wall clock and moves now to it. No-op in VIRTUAL. */
void sim_sync_realtime(struct sim *s);
/* CLOCK_MONOTONIC ns of virtual time t (REALTIME only; for timed waits). */
uint64_t sim_wall_of(const struct sim *s, uint64_t t);

/*
 * Call latency: a control that takes virtual time (injected control-path
 * latency, PREEMPT with bWait) charges it here instead of advancing the clock
 * inside an ioctl. Whoever issued the call takes the charge afterwards and
 * delays its own continuation by it (the workload layer does this for
 * blocking participants; in-process callers read it after nvemu_ioctl).
 */
void sim_charge_call(struct sim *s, uint64_t ns);
/* Returns the accumulated charge (pending until taken) and resets it to 0. */
uint64_t sim_take_call_charge(struct sim *s);

/* ---- random ---- */

/*
 * The sim's generator (xoshiro256**, seeded through splitmix64) as a value of its own, so that a
 * caller can draw the sim's numbers for a seed without a sim: a scenario's plan draws its arrivals
 * from one seeded like the run's sim, and a backend without the model draws the same numbers.
 */
struct sim_rng {
    uint64_t s[4];
};
void sim_rng_seed(struct sim_rng *r, uint64_t seed);
uint64_t sim_rng_u64(struct sim_rng *r);
/* Exponentially distributed with the given mean: sim_rand_exp's formula on r. */
uint64_t sim_rng_exp(struct sim_rng *r, double mean);

uint64_t sim_rand_u64(struct sim *s);
/* Uniform in [0, 1). */
double sim_rand_unit(struct sim *s);
/* Exponentially distributed with the given mean (Poisson arrivals). */
uint64_t sim_rand_exp(struct sim *s, double mean);
/* The next number of the splitmix64 stream *state (which it advances): a stream of its own for a caller that
 * must not move the sim's generator. */
uint64_t sim_splitmix64(uint64_t *state);

/* ---- event trace ---- */

/*
 * A record's kind is its producer's: the FIFO model's kinds, the hook decisions and the workload/harness
 * marks are emu/fifo/fifo_rec.h's. The sim knows them as numbers below SIM_REC_KINDS_MAX; a producer
 * registers each kind's name (the CSV's kind column) with the sim it traces into.
 */
#define SIM_REC_KINDS_MAX 64u

/* Names kind for this sim (name must outlive it: a string constant). 0, or -1 when kind is out of range or
 * already has another name. Registering the same name again is fine. */
int sim_kind_register(struct sim *s, uint16_t kind, const char *name);
/* The kind's registered name, "unknown" for a kind no producer registered. */
const char *sim_kind_name(const struct sim *s, uint16_t kind);

#define SIM_NONE 0xFFFFFFFFu   /* engine/runlist/tsg/chid not applicable */

struct sim_rec {
    uint64_t seq;               /* 0, 1, 2, ... per sim */
    uint64_t t;                 /* virtual ns */
    uint16_t kind;              /* a kind its producer registered (sim_kind_register) */
    uint16_t gpu;
    uint32_t engine;            /* NV2080_ENGINE_TYPE_* or SIM_NONE */
    uint32_t runlist;
    uint32_t tsg;               /* hardware TSG id */
    uint32_t chid;
    uint64_t a, b;
    const char *name;           /* interned or NULL */
    const char *field;
    const char *result;
    const char *reason;
};

/* Returns a copy of str owned by the sim (same pointer for equal strings); NULL stays NULL. */
const char *sim_intern(struct sim *s, const char *str);

/* Appends a record: fills seq and t, interns strings, writes CSV, calls subscribers. */
void sim_trace(struct sim *s, const struct sim_rec *r);

typedef void (*sim_trace_fn)(void *ctx, const struct sim_rec *r);
/* Subscribers are called in subscription order on every record. Returns an id for unsubscribe. */
int sim_trace_subscribe(struct sim *s, sim_trace_fn fn, void *ctx);
void sim_trace_unsubscribe(struct sim *s, int id);

/* In-memory records (only when keep_trace): count and i-th record (NULL when out of range). */
size_t sim_trace_count(const struct sim *s);
const struct sim_rec *sim_trace_get(const struct sim *s, size_t i);

/* CSV header line and one record of s as a CSV line (kind by its registered name, no newline); returns
 * snprintf-style length. */
const char *sim_trace_csv_header(void);
int sim_trace_format(const struct sim *s, const struct sim_rec *r, char *buf, size_t len);
/*
 * Trace digest: FNV-1a-style 64-bit hash folded over every record so far, one
 * 64-bit word per numeric field (t, kind, gpu, engine, runlist, tsg, chid, a,
 * b) and the bytes of each string (NUL-terminated, "" for NULL). Independent
 * of keep_trace and of the CSV file; equal traces give equal digests.
 */
uint64_t sim_trace_digest(const struct sim *s);
/* Flushes the CSV file. */
void sim_trace_flush(struct sim *s);

#endif
