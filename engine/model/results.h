/*
 * The run record of one scenario run, whichever backend ran it (backend.h):
 * what every report, sweep and compare read. The emulator's is computed only
 * from its event trace by the analyzer (analyze.h), which the hardware
 * backend feeds its request marks too; this header names no record of the
 * model, so a reader of results needs neither the sim nor a profile.
 */
#ifndef NVEMU_SCENARIO_RESULTS_H
#define NVEMU_SCENARIO_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gp_decide.h"
#include "scenario.h"
#include "nvemu/scenario_task.h"

/* results.json's schema_version: raised when a key changes meaning or goes away (new keys keep it). */
#define SC_RESULTS_SCHEMA_VERSION 1

#define SC_MAX_WARNINGS 8

/* The runner's own MARK records (the request marks are the task protocol's: nvemu/scenario_task.h). */
#define SC_MARK_KILLED "inst_killed"
#define SC_MARK_REJECTED "inst_rejected" /* its context was refused (admission BUSY_RETRY) */
#define SC_MARK_GPU_LOST "gpu_lost"   /* a = GPU index: it fell off the bus (fault) */
#define SC_MARK_BUSY_RETRY "sched_busy_retry" /* a = instance, b = control cmd the scheduler must retry */

/* One replica of a task. */
struct sc_inst {
    uint32_t task, replica;
    uint64_t arrivals, completed, failed, open;   /* measured (arrival after warmup) */
    uint64_t total_arrivals, total_done, total_failed, total_open;
    uint64_t last_done_ns, max_gap_ns;
    bool killed;
    uint64_t killed_ns;
    bool rejected;
    uint32_t gr_tsg;                              /* SIM_NONE until known */
};

struct sc_task_result {
    uint64_t arrivals, completed, failed, open, lost;
    double p50_ns, p99_ns, max_ns, mean_ns;
    double throughput;                            /* completed requests per second after warmup */
    uint64_t *lat_ns;                             /* sorted latencies (count = completed) */
    /* the same task run alone (when the scenario has `baseline: true`) */
    bool has_alone;
    double alone_p50_ns, alone_p99_ns, alone_max_ns, alone_mean_ns, alone_throughput;
    uint64_t *alone_lat_ns;
    uint64_t alone_completed;
};

struct sc_engine_result {
    uint32_t gpu, engine_type;
    char name[16];
    uint64_t busy_ns, switch_ns, switches, preemptions, kernels, timeslice_expiries, preempt_timeouts;
};

/* A piece of the timeline: an engine running a TSG's kernel, or switching. */
struct sc_segment {
    uint64_t t0, t1;
    uint16_t engine_idx;
    uint8_t is_switch;
    uint32_t tsg;
};

/* Engines a run record holds (as many as a GPU profile can name: analyze.c asserts it). */
#define SC_MAX_ENGINES 64

/* A point on the timeline: a preemption request/completion or a timeout. */
enum sc_point_kind { SC_POINT_PREEMPT_REQ, SC_POINT_PREEMPT_DONE, SC_POINT_PREEMPT_TIMEOUT };
struct sc_point {
    uint64_t t;
    uint16_t engine_idx;
    uint16_t kind;        /* enum sc_point_kind */
    uint32_t tsg;
    uint64_t a, b;
};

/* An LC request's arrival (for the timeline). */
struct sc_lc_arrival {
    uint64_t t;
    uint32_t inst;
};

/* Hook decisions counted per (hook, field, result, task); task -1: a whole runlist or a group of no task. */
struct sc_decision {
    char hook[24], field[24], result[16];   /* copies: the sim's interned strings die with it */
    int32_t task;
    uint64_t count;
};

/* One hook decision on the timeline: decision = index into decisions; inst = instance or -1. */
struct sc_hook_event {
    uint64_t t, value;
    uint32_t decision;
    int32_t inst;
    uint32_t gpu, tsg, runlist;
    const char *reason;                   /* whole (a policy's printk line included); owned by the results' texts */
};

/* A request's life on the timeline: arrival (t0) to its end (t1). */
enum sc_req_end { SC_REQ_DONE, SC_REQ_FAILED, SC_REQ_OPEN };
struct sc_request {
    uint64_t t0, t1;
    uint32_t inst;
    uint32_t num;
    uint8_t end;                          /* enum sc_req_end */
};

/* A fault the run saw: what (an SC_MARK_* name), inst (or -1), value: GPU (gpu_lost), control (busy_retry). */
struct sc_fault_event {
    uint64_t t, value;
    const char *what;                     /* one of the SC_MARK_* string constants */
    int32_t inst;
};

/* A line a policy printed (bpf_printk, trace_note with field "printk"): its time, instance (or -1), text. */
struct sc_log_line {
    uint64_t t;
    int32_t inst;
    const char *text;                    /* whole, in sc_results.texts */
};

/* Lines kept of a policy's printk output (the rest are counted: log_dropped). */
#define SC_MAX_LOG_LINES 2000u

/* Timeline arrays stop growing here (the counts and statistics do not). */
#define SC_MAX_TIMELINE_EVENTS 200000u

struct sc_expect_outcome {
    bool pass;
    char actual[96];
    char label[160];
};

/* A run on a real GPU (`nvemu scenario run --hw`, engine/backends/hw): what ran it and how work was sized. */
#define SC_HW_MAX_NOTES 16
/* A kernel shape of a --hw run other than the default work kernel, as the GPU ran it. */
#define SC_HW_MAX_SHAPES 8
struct sc_hw_shape {
    uint32_t threads, regs, shared_kb;   /* threads per block, registers per thread (compiled), shared memory asked */
    uint32_t launch_shared_kb;           /* dynamic shared memory launched with (padded to hold blocks_per_sm) */
    uint32_t blocks_per_sm;              /* resident blocks per SM the occupancy API gives for it */
    double ns_per_iter;                  /* one round of work, a full wave of the shape */
};

struct sc_hw_info {
    bool used;                           /* false: the emulator ran the scenario */
    char gpu[96], driver[48];            /* device name, kernel module version */
    int cuda_driver_version, cc_major, cc_minor;
    uint32_t sm_count, smem_per_sm_kb, regs_per_thread, threads_per_block, blocks_per_sm;
    uint32_t occupancy_pad_kb;           /* shared memory added so that one block fills an SM (0: none needed) */
    double ns_per_iter;                  /* calibrated cost of one round of the work loop, one block per SM */
    double launch_fixed_ns;              /* fixed cost of a launch + completion seen from the host */
    uint32_t shape_count;                /* kernel shapes beyond the default work kernel */
    struct sc_hw_shape shapes[SC_HW_MAX_SHAPES];
    uint32_t note_count;                 /* scenario decisions that could not be applied on the hardware, why */
    char notes[SC_HW_MAX_NOTES][200];
};

struct sc_results {
    const struct scenario *sc;
    struct sc_hw_info hw;
    uint64_t seed;
    uint64_t virtual_ns, wall_ns;
    uint64_t events;
    uint64_t digest;                     /* sim_trace_digest() at the end of the run */
    bool gpu_lost;                       /* a gpu_lost fault happened, at gpu_lost_ns */
    uint64_t gpu_lost_ns;
    uint64_t busy_retries;               /* scheduler controls answered BUSY_RETRY (each retried) */
    /* the user-space scheduler's calls decided (gp_decide.h), one per BE instance a decision names, by kind:
     * what the plan's decisions asked of the backend, whether or not the backend could apply them */
    uint64_t sched_decided[GP_DECISION_COUNT];
    uint32_t inst_count;
    struct sc_inst *inst;
    struct sc_task_result tasks[SC_MAX_TASKS];
    uint32_t engine_count;
    struct sc_engine_result engines[SC_MAX_ENGINES];
    size_t seg_count, seg_cap;
    struct sc_segment *segs;
    size_t point_count, point_cap;
    struct sc_point *points;
    size_t arrival_count, arrival_cap;
    struct sc_lc_arrival *arrivals;         /* LC tasks only */
    size_t decision_count, decision_cap;
    struct sc_decision *decisions;
    size_t hook_count, hook_cap;
    struct sc_hook_event *hooks;            /* in time order, at most SC_MAX_TIMELINE_EVENTS */
    size_t request_count, request_cap;
    struct sc_request *requests;            /* in order of their end, at most SC_MAX_TIMELINE_EVENTS */
    size_t fault_count, fault_cap;
    struct sc_fault_event *faults;          /* in time order, at most SC_MAX_TIMELINE_EVENTS */
    struct sc_expect_outcome outcomes[SC_MAX_EXPECT];
    uint32_t passed, failed;
    char error[1024];                    /* a run-level failure (policy refused, policy fault, ...) or "" */
    bool stopped;                        /* the run's process died or hung mid-run: error says why, virtual_ns
                                            when (the last policy callback entered), no events kept */
    uint32_t warning_count;              /* warnings about the run's outcome (sc_results_warn) */
    char warnings[SC_MAX_WARNINGS][200];
    char *policy_maps;                   /* final contents of a BPF policy's maps (JSON object) or NULL */
    size_t text_count, text_cap;
    char **texts;                        /* the hook events' reasons, each distinct one stored once */
    size_t log_count, log_cap;
    struct sc_log_line *logs;            /* the policy's printk lines, in time order, at most SC_MAX_LOG_LINES */
    uint64_t log_dropped;                /* printk lines beyond SC_MAX_LOG_LINES */
};

/* A BE task completing less than this fraction of its requests/s alone is starving (livelock). */
#define SC_BE_COLLAPSE_FRACTION 0.02

/* Instances are numbered task by task, replica by replica (the runner uses the same numbering). */
uint32_t sc_instance_count(const struct scenario *s);
uint32_t sc_instance_id(const struct scenario *s, uint32_t task, uint32_t replica);

/* Copies a baseline run's statistics of task `task` into out->tasks[task].alone_*. */
void sc_results_set_alone(struct sc_results *out, uint32_t task, const struct sc_results *alone);

/* Evaluates the scenario's expectations into out->outcomes/passed/failed. */
void sc_results_evaluate(struct sc_results *out);

/*
 * Adds warnings about the outcome that no expectation has to ask for: a BE
 * task whose throughput collapsed below SC_BE_COLLAPSE_FRACTION of its run
 * alone (needs baseline). Each is also logged.
 */
void sc_results_warn(struct sc_results *out);

/* Frees the result arrays and zeroes r (the struct itself is the caller's); NULL is a no-op. */
void sc_results_free(struct sc_results *r);

/* Percentile (0..100) of sorted values, nearest-rank; 0 when n == 0. */
double sc_percentile(const uint64_t *sorted, size_t n, double pct);

#endif
