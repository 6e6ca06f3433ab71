/* Private layout of struct sim, shared by sim.c (events) and sim_trace.c (trace). */
#ifndef NVEMU_SIM_INTERNAL_H
#define NVEMU_SIM_INTERNAL_H

#include "sim/sim.h"

struct sim_ev {
    uint64_t t;
    uint64_t seq;
    sim_event_fn fn;
    void *arg;
    uint64_t data;
    uint32_t gen;          /* bumped on free so stale ids cannot cancel a reused slot */
    int32_t heap_pos;      /* -1 when not queued */
    uint32_t next_free;
};

struct sim_sub {
    sim_trace_fn fn;
    void *ctx;
    int id;
};

struct sim {
    uint64_t now;
    nvemu_clock clock;
    uint64_t wall_base;
    uint64_t next_seq;
    uint64_t fired;
    bool running, in_event;
    uint64_t call_charge;
    struct sim_rng rng;
    const char *kind_names[SIM_REC_KINDS_MAX]; /* registered by the records' producers */

    struct sim_ev *pool;
    uint32_t pool_cap;
    uint32_t free_head;
    uint32_t *heap;
    uint32_t heap_len;

    /* trace */
    FILE *csv;
    bool keep;
    uint64_t rec_seq;
    struct sim_rec *recs;
    size_t rec_len, rec_cap;
    uint64_t digest;
    struct sim_sub *subs;
    int sub_len, sub_cap, sub_next_id;
    char **intern;         /* open-addressing table of owned strings */
    size_t intern_cap, intern_len;
};

void sim_trace_free(struct sim *s);

#endif
