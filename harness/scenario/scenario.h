/*
 * A validated scenario (the schema is documented in scenarios/README.md).
 * scenario_load() is strict: every unknown key, wrong type or impossible
 * value is refused with "file:line:column: message", so a scenario that
 * loads can be run without further checks. All times are virtual ns.
 */
#ifndef NVEMU_SCENARIO_H
#define NVEMU_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SC_NAME_MAX 48
#define SC_MAX_TASKS 64
#define SC_MAX_KERNELS 64
#define SC_MAX_STREAMS 8
#define SC_MAX_ARGS 16
#define SC_MAX_FAULTS 32
#define SC_MAX_EXPECT 64

enum sc_class { SC_LC = 0, SC_BE = 1 };
enum sc_clock { SC_CLOCK_VIRTUAL = 0, SC_CLOCK_REALTIME = 1 };
enum sc_arrival { SC_ARRIVAL_PERIODIC, SC_ARRIVAL_POISSON, SC_ARRIVAL_CLOSED, SC_ARRIVAL_TRACE };
enum sc_context { SC_CONTEXT_CUDA = 0, SC_CONTEXT_BARE = 1 };
enum sc_preempt_mode { SC_PREEMPT_PROFILE = -1, SC_PREEMPT_WFI = 0, SC_PREEMPT_CTA = 1, SC_PREEMPT_CILP = 2 };
enum sc_scheduler_kind { SC_SCHED_NONE = 0, SC_SCHED_GPREEMPT = 1, SC_SCHED_PROCESS = 2 };
enum sc_sched_action { SC_SCHED_TIMESLICE = 0, SC_SCHED_PREEMPT = 1, SC_SCHED_DISABLE = 2 };

/* Where a value was written, for messages about it after loading. */
struct sc_pos {
    uint32_t line, column;
};

struct sc_kernel {
    uint64_t duration_ns;   /* whole kernel */
    uint32_t blocks;        /* grid size (thread blocks) */
    uint32_t stream;        /* stream index of the task (one channel each) */
    uint32_t repeat;        /* consecutive launches of this kernel */
    uint32_t shared_kb;     /* footprint: shared memory per block (KiB), what a context save must store */
};

struct sc_task {
    char name[SC_NAME_MAX];
    char comm[16];                  /* process name policies classify by (default: name) */
    enum sc_class cls;
    uint32_t count;                 /* replicas: name#0, name#1, ... */
    enum sc_arrival arrival;
    double rate;                    /* periodic/poisson: requests per second */
    uint64_t think_ns;              /* closed: pause between a completion and the next request */
    uint64_t *trace_ns;             /* trace: arrival offsets, sorted */
    size_t trace_count;
    uint64_t start_ns;              /* first arrival not before this */
    uint64_t preprocess_ns;         /* CPU time between arrival and the first launch */
    struct sc_kernel kernels[SC_MAX_KERNELS];
    uint32_t kernel_count;
    uint32_t streams;               /* channels the task submits on (max stream index + 1) */
    enum sc_context context;
    enum sc_preempt_mode preempt_mode;   /* mode the context sets (cuda default CILP as libcuda; bare: profile) */
    char *process;                  /* external binary instead of a synthetic task, or NULL (a bare name:
                                       looked up in $PATH at run time; run_proc.h) */
    char *process_args[SC_MAX_ARGS];
    int process_nargs;
    struct sc_pos pos;
};

enum sc_fault_kind {
    SC_FAULT_PREEMPT_TIMEOUT,   /* preempts of `task` do not complete: the wait times out */
    SC_FAULT_GPU_LOST,          /* GPU 0 (every task's) falls off the bus at `at`, for good */
    SC_FAULT_BUSY_RETRY,        /* the scheduler's control (PREEMPT or DISABLE_CHANNELS) answers
                                   BUSY_RETRY from `at` for `duration`; the scheduler retries */
    SC_FAULT_CLIENT_KILL,       /* `task`'s replica `replica` is killed (fd closed) at `at` */
};

struct sc_fault {
    enum sc_fault_kind kind;
    uint64_t at_ns;
    uint64_t duration_ns;
    char task[SC_NAME_MAX];
    uint32_t replica;
    struct sc_pos pos;
};

enum sc_expect_kind {
    SC_EXPECT_LATENCY,        /* a task's request latency statistic within bounds */
    SC_EXPECT_THROUGHPUT,     /* a task's completed requests/s within bounds */
    SC_EXPECT_PREEMPTIONS,    /* preemptions on an engine within [min, max] */
    SC_EXPECT_SWITCHES,       /* context switches on an engine within [min, max] */
    SC_EXPECT_PREEMPT_TIMEOUTS, /* waiting PREEMPTs that timed out on an engine within [min, max] */
    SC_EXPECT_NO_STARVATION,  /* every replica completes requests, no gap over max_gap */
    SC_EXPECT_DECISION,       /* hook decision records matching hook/field/result within [min, max] */
    SC_EXPECT_LOST,           /* requests neither completed nor reported failed: at most max */
    SC_EXPECT_FAULTS,         /* requests reported failed (fault seen) within [min, max] */
    SC_EXPECT_TRACE_DIGEST,   /* the event trace digest equals a value */
    SC_EXPECT_BUSY_RETRIES,   /* scheduler controls answered BUSY_RETRY (and retried) within [min, max] */
};

enum sc_stat { SC_STAT_P50, SC_STAT_P99, SC_STAT_MAX, SC_STAT_MEAN };

struct sc_expect {
    enum sc_expect_kind kind;
    char task[SC_NAME_MAX];
    char engine[16];
    enum sc_stat stat;
    /* absolute bounds (ns for latency, req/s for throughput, counts otherwise); has_* says which apply */
    bool has_min, has_max;
    double min, max;
    /* bounds relative to the same task run alone (scenario `baseline`); has_* says which apply */
    bool has_ratio_min, has_ratio_max;
    double ratio_min, ratio_max;
    char hook[24], field[24], result[16];
    char digest[40];
    struct sc_pos pos;
};

struct sc_timing_override {
    bool set;
    uint64_t value_ns;
};

/* Index into sc_gpu.timing[]; names match the YAML keys under gpu.timing. */
enum sc_timing_field {
    SC_T_CTXSW, SC_T_RUNLIST_UPDATE, SC_T_WFI_OVERHEAD, SC_T_CTA_OVERHEAD, SC_T_CILP_SAVE,
    SC_T_PREEMPT_TIMEOUT, SC_T_COUNT
};

struct sc_gpu {
    char profile[256];                  /* built-in name or path (default "h200") */
    uint64_t timeslice_us;              /* default timeslice override, 0 = profile's */
    enum sc_preempt_mode preempt_mode;
    struct sc_timing_override timing[SC_T_COUNT];
    bool inject_latency;                /* add measured control-path latencies */
};

struct sc_policy {
    char plugin[256];                   /* "" = native scheduling */
    char *args[SC_MAX_ARGS];            /* "key=value" */
    int nargs;
};

struct sc_scheduler {
    enum sc_scheduler_kind kind;
    enum sc_sched_action action;        /* what it does when an LC request arrives */
    bool set_timeslices;                /* action timeslice, or lc_/be_timeslice given */
    uint64_t lc_timeslice_us, be_timeslice_us;
    char *binary;                       /* SC_SCHED_PROCESS */
    char *args[SC_MAX_ARGS];
    int nargs;
};

struct scenario {
    char *path;
    char name[SC_NAME_MAX];
    char *description;
    struct sc_gpu gpu;
    enum sc_clock clock;
    uint64_t seed;
    uint64_t duration_ns;
    uint64_t warmup_ns;                 /* requests arriving before this are not measured */
    bool baseline;                      /* run each task alone too (needed by ratio bounds) */
    struct sc_policy policy;
    struct sc_scheduler scheduler;
    struct sc_task tasks[SC_MAX_TASKS];
    uint32_t task_count;
    struct sc_fault faults[SC_MAX_FAULTS];
    uint32_t fault_count;
    struct sc_expect expects[SC_MAX_EXPECT];
    uint32_t expect_count;
};

/*
 * Loads and validates a scenario file. Returns NULL with
 * "file:line:column: message" in err. Relative trace files and policy paths
 * are resolved against the scenario's directory.
 */
struct scenario *scenario_load(const char *path, char *err, size_t errlen);

/* scenario_load with keys[i] (dotted paths, yoverride.h) set to values[i] before validation. */
struct scenario *scenario_load_overridden(const char *path, const char *const *keys, const char *const *values,
                                          size_t n, char *err, size_t errlen);

/* Same from memory (`name` appears in messages and resolves relative paths against ".") */
struct scenario *scenario_load_string(const char *name, const char *text, char *err, size_t errlen);

/* Frees a loaded scenario and everything it owns; NULL is a no-op. */
void scenario_free(struct scenario *s);

/* Index of the task called `name`, or -1. */
int scenario_find_task(const struct scenario *s, const char *name);

/* A short human label for an expectation ("lc p99 <= 1.3x alone"), written into buf. */
void scenario_expect_label(const struct scenario *s, const struct sc_expect *e, char *buf, size_t len);

/* "LC"/"BE", "periodic"/..., for reports. */
const char *sc_class_name(enum sc_class c);
const char *sc_arrival_name(enum sc_arrival a);
const char *sc_stat_name(enum sc_stat st);
/* gpu.timing keys, indexed by enum sc_timing_field and NULL-terminated (a check_keys list). */
extern const char *const sc_timing_names[SC_T_COUNT + 1];

/* Formats ns as "1.234 ms" / "56.7 us" / "2.000 s" into buf. */
const char *sc_fmt_ns(double ns, char *buf, size_t len);

#endif
