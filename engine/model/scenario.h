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

#include "base/args.h"

#define SC_NAME_MAX 48
#define SC_MAX_TASKS 64
/* A request's kernels: a profiled PyTorch training step launches ~300 (trace_import.h); 40 bytes each. */
#define SC_MAX_KERNELS 512
#define SC_MAX_STREAMS 8
#define SC_MAX_ARGS 16
#define SC_MAX_FAULTS 32
#define SC_MAX_EXPECT 64

/*
 * Each enum and its YAML names come from one list: X(ENUMERATOR, "name"). The
 * loader reads the names, the reports print them; nothing repeats them.
 */
#define SC_ENUM_ID(id, name) id,
#define SC_ENUM_NAME(id, name) name,
#define SC_CLASS_LIST(X) X(SC_LC, "LC") X(SC_BE, "BE")
#define SC_CLOCK_LIST(X) X(SC_CLOCK_VIRTUAL, "virtual") X(SC_CLOCK_REALTIME, "realtime")
#define SC_ARRIVAL_LIST(X) \
    X(SC_ARRIVAL_PERIODIC, "periodic") X(SC_ARRIVAL_POISSON, "poisson") X(SC_ARRIVAL_CLOSED, "closed") \
    X(SC_ARRIVAL_TRACE, "trace")
#define SC_CONTEXT_LIST(X) X(SC_CONTEXT_CUDA, "cuda") X(SC_CONTEXT_BARE, "bare")
#define SC_SCHED_KIND_LIST(X) X(SC_SCHED_NONE, "none") X(SC_SCHED_GPREEMPT, "gpreempt") X(SC_SCHED_PROCESS, "process")
#define SC_SCHED_ACTION_LIST(X) X(SC_SCHED_TIMESLICE, "timeslice") X(SC_SCHED_PREEMPT, "preempt") X(SC_SCHED_DISABLE, "disable")

enum sc_class { SC_CLASS_LIST(SC_ENUM_ID) };
enum sc_clock { SC_CLOCK_LIST(SC_ENUM_ID) };
enum sc_arrival { SC_ARRIVAL_LIST(SC_ENUM_ID) };
enum sc_context { SC_CONTEXT_LIST(SC_ENUM_ID) };
/* Values are the profile's default_compute_preempt_mode (profile_preempt_mode_names); -1 keeps the profile's. */
enum sc_preempt_mode { SC_PREEMPT_PROFILE = -1, SC_PREEMPT_WFI = 0, SC_PREEMPT_CTA = 1, SC_PREEMPT_CILP = 2 };
enum sc_scheduler_kind { SC_SCHED_KIND_LIST(SC_ENUM_ID) };
enum sc_sched_action { SC_SCHED_ACTION_LIST(SC_ENUM_ID) };

/* The YAML names of each enum, indexed by value and NULL-terminated. */
extern const char *const sc_class_names[], *const sc_clock_names[], *const sc_arrival_names[],
    *const sc_context_names[], *const sc_sched_kind_names[], *const sc_sched_action_names[],
    *const sc_fault_kind_names[], *const sc_stat_names[];

/* Bounds a scenario must stay within, so that `check` refuses what `run` could not finish. */
/* What a run keeps grows with its requests (each one's latency, and again for its run alone), not with its
 * kernels: a run is refused when the requests its rates give would need more than this much memory
 * (NVEMU_MAX_RUN_MEMORY=SIZE, e.g. 16G, raises or lowers it; its wall time is --timeout's business). */
#define SC_MAX_RUN_MEMORY (2ull << 30)
#define SC_BYTES_PER_REQUEST 16u
#define SC_TRACE_FILE_MAX (16u << 20)  /* bytes of an arrival trace file */
#define SC_TRACE_MAX_ARRIVALS 1000000u /* arrivals in one trace file */

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
    uint32_t threads;       /* threads per block; 0: the default shape (1024 threads, one block per SM) */
    uint32_t regs;          /* registers per thread; 0: the GPU profile's default kernel's */
    uint32_t blocks_per_sm; /* resident blocks per SM; 0: what threads, regs and shared_kb allow */
    uint64_t launch_gap_ns; /* CPU time before each of its launches, counted from the previous launch (the
                               first kernel's from the end of preprocess): a launch-bound program's pace */
};

/*
 * A function of the task's process that probes may watch (a policy's uprobes): LIB:FUNC called at `when`
 * with up to six arguments, each a number or a variable of the task's real objects (${pid}, ${hClient},
 * ${hTSG}, ${tsg_id}, ${context}); engine/model/scenario_calls.c.
 */
#define SC_MAX_CALLS 8
#define SC_CALL_WHEN_LIST(X) \
    X(SC_CALL_BEFORE_CONTEXT, "before_context") X(SC_CALL_AFTER_CONTEXT, "after_context") \
    X(SC_CALL_REQUEST, "request") X(SC_CALL_EXIT, "exit")
enum sc_call_when { SC_CALL_WHEN_LIST(SC_ENUM_ID) };

struct sc_call {
    char lib[64], func[64];
    enum sc_call_when when;
    char args[6][24];
    uint32_t nargs;
};

struct sc_task {
    char name[SC_NAME_MAX];
    char comm[16];                  /* process name policies classify by (default: name) */
    enum sc_class cls;
    uint32_t count;                 /* replicas: name#0, name#1, ... */
    uint32_t gpu;                   /* the GPU its contexts are created on (/dev/nvidiaN of the profile) */
    enum sc_arrival arrival;
    double rate;                    /* periodic/poisson: requests per second */
    uint64_t think_ns;              /* closed: pause between a completion and the next request */
    uint64_t *trace_ns;             /* trace: arrival offsets, sorted */
    size_t trace_count;
    uint64_t start_ns;              /* first arrival not before this */
    uint64_t preprocess_ns;         /* CPU time between arrival and the first launch */
    double cpu_spread;              /* 0, or each request's preprocess and launch gaps times a factor drawn
                                       from a log-normal of median 1 and this log-space standard deviation:
                                       a process's CPU time varies from request to request */
    struct sc_kernel kernels[SC_MAX_KERNELS];
    uint32_t kernel_count;
    uint32_t streams;               /* channels the task submits on (max stream index + 1) */
    enum sc_context context;
    enum sc_preempt_mode preempt_mode;   /* mode the context sets (cuda default CILP as libcuda; bare: profile) */
    char *process;                  /* external binary instead of a synthetic task, or NULL (a bare name:
                                       looked up in $PATH at run time; run_proc.h) */
    char *process_args[SC_MAX_ARGS];
    int process_nargs;
    struct sc_call calls[SC_MAX_CALLS];  /* user functions the process calls (task.calls) */
    uint32_t call_count;
    struct sc_pos pos;
};

/*
 * preempt_timeout: preempts of `task` do not complete: the wait times out.
 * gpu_lost: GPU 0 (every task's) falls off the bus at `at`, for good.
 * busy_retry: the scheduler's control (PREEMPT or DISABLE_CHANNELS) answers BUSY_RETRY from `at` for
 *   `duration`; the scheduler retries.
 * client_kill: `task`'s replica `replica` is killed (fd closed) at `at`.
 */
#define SC_FAULT_KIND_LIST(X) \
    X(SC_FAULT_PREEMPT_TIMEOUT, "preempt_timeout") X(SC_FAULT_GPU_LOST, "gpu_lost") \
    X(SC_FAULT_BUSY_RETRY, "busy_retry") X(SC_FAULT_CLIENT_KILL, "client_kill")
enum sc_fault_kind { SC_FAULT_KIND_LIST(SC_ENUM_ID) };

struct sc_fault {
    enum sc_fault_kind kind;
    uint64_t at_ns;
    uint64_t duration_ns;
    char task[SC_NAME_MAX];
    uint32_t replica;
    struct sc_pos pos;
};

/*
 * latency: a task's request latency statistic within bounds. throughput: a task's completed requests/s
 * within bounds. preemptions / switches / preempt_timeouts: preemptions, context switches or waiting
 * PREEMPTs that timed out on an engine within [min, max]. no_starvation: every replica completes
 * requests, no gap over max_gap. decision: hook decision records matching hook/field/result within
 * [min, max]. lost: requests neither completed nor reported failed: at most max. faults: requests
 * reported failed (fault seen) within [min, max]. trace_digest: the event trace digest equals a value.
 * busy_retries: scheduler controls answered BUSY_RETRY (and retried) within [min, max].
 */
/* Their names, schemas, evaluators and labels: one row each in expect.c. */
enum sc_expect_kind {
    SC_EXPECT_LATENCY, SC_EXPECT_THROUGHPUT, SC_EXPECT_PREEMPTIONS, SC_EXPECT_SWITCHES, SC_EXPECT_PREEMPT_TIMEOUTS,
    SC_EXPECT_NO_STARVATION, SC_EXPECT_DECISION, SC_EXPECT_LOST, SC_EXPECT_FAULTS, SC_EXPECT_TRACE_DIGEST,
    SC_EXPECT_BUSY_RETRIES, SC_EXPECT_KIND_COUNT
};

#define SC_STAT_LIST(X) X(SC_STAT_P50, "p50") X(SC_STAT_P99, "p99") X(SC_STAT_MAX, "max") X(SC_STAT_MEAN, "mean")
enum sc_stat { SC_STAT_LIST(SC_ENUM_ID) };

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
    uint32_t seeds;                 /* latency/throughput: judged on the mean over this many seeds (0, 1: one run) */
    struct sc_pos pos;
};

struct sc_timing_override {
    bool set;
    uint64_t value_ns;
};

/* Index into sc_gpu.timing[]; names are the YAML keys under gpu.timing and the profile's timing keys. */
#define SC_TIMING_LIST(X) \
    X(SC_T_CTXSW, "ctxsw") X(SC_T_RUNLIST_UPDATE, "runlist_update") X(SC_T_WFI_OVERHEAD, "wfi_overhead") \
    X(SC_T_CTA_OVERHEAD, "cta_overhead") X(SC_T_CILP_SAVE, "cilp_save") X(SC_T_PREEMPT_TIMEOUT, "preempt_timeout") \
    X(SC_T_IDLE_SAVE, "idle_save") X(SC_T_WAKE_AFTER, "wake_after") X(SC_T_WAKE_PER_MS, "wake_per_ms") \
    X(SC_T_WAKE_MAX, "wake_max") X(SC_T_HOST_JITTER, "host_jitter")
enum sc_timing_field { SC_TIMING_LIST(SC_ENUM_ID) SC_T_COUNT };

struct sc_gpu {
    char profile[256];                  /* built-in name or path (default "h200") */
    uint64_t timeslice_us;              /* default timeslice override, 0 = profile's */
    enum sc_preempt_mode preempt_mode;
    struct sc_timing_override timing[SC_T_COUNT];
    bool inject_latency;                /* add measured control-path latencies */
    struct sc_pos pos;                  /* of gpu.profile (or the gpu section) */
};

struct sc_policy {
    char plugin[256];                   /* "" = native scheduling */
    /* parsed against the policy kind's argument table (hooks.h: struct policy_loader): policy.args for a
       plugin; policy.rodata, .maps, .attach, .driver_abi for a BPF object; or --policy-arg words */
    struct arg_list args;
    struct sc_pos pos;                  /* of policy.plugin */
};

struct sc_scheduler {
    enum sc_scheduler_kind kind;
    enum sc_sched_action action;        /* what it does when an LC request arrives */
    bool set_timeslices;                /* action timeslice, or lc_/be_timeslice given */
    uint64_t lc_timeslice_us, be_timeslice_us;
    char *binary;                       /* SC_SCHED_PROCESS */
    char *args[SC_MAX_ARGS];
    int nargs;
    struct sc_pos pos;                  /* of scheduler.binary */
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

/* scenario_load_set with "keys[i]=values[i]" (dotted paths, ytree_set_path in emu/yaml/ytree.h). */
struct scenario *scenario_load_overridden(const char *path, const char *const *keys, const char *const *values,
                                          size_t n, char *err, size_t errlen);

/* Same from memory (`name` appears in messages and resolves relative paths against ".") */
struct scenario *scenario_load_string(const char *name, const char *text, char *err, size_t errlen);

/*
 * scenario_load with overrides: each of set[0..nset) is "dotted.path=value" applied to the document
 * before it is validated (ytree_set_path in emu/yaml/ytree.h: "tasks.be.count=4",
 * "policy.args.be_us=200", "gpu.timeslice=2ms"), so an override gets the same checks as the file's
 * value. text may be NULL (read path; "-" is standard input) or `len` bytes already in memory.
 */
struct scenario *scenario_load_set(const char *path, const char *text, size_t len, const char *const *set,
                                   int nset, char *err, size_t errlen);

/*
 * Replaces the scenario's policy by path (a plugin .so or a struct_ops
 * .bpf.o, used as given) with `--policy-arg` words, parsed against the kind
 * of the file path finds (hooks_find_policy). 0, or -1 with a reason naming
 * the bad argument.
 */
int scenario_set_policy(struct scenario *s, const char *path, const char *const *args, int nargs, char *err,
                        size_t errlen);

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
/* gpu.timing keys, indexed by enum sc_timing_field and NULL-terminated. */
extern const char *const sc_timing_names[SC_T_COUNT + 1];

/*
 * The scenario's gpu overrides as profile overrides ("fifo.default_timeslice=2048us", ...; see
 * profile_load_set): at most SC_GPU_MAX_SET strings of SC_GPU_SET_LEN bytes written into set; returns
 * how many.
 */
#define SC_GPU_MAX_SET (2 + SC_T_COUNT)
#define SC_GPU_SET_LEN 96
int sc_gpu_profile_set(const struct sc_gpu *g, char set[][SC_GPU_SET_LEN]);

/* Formats ns as "1.234 ms" / "56.7 us" / "2.000 s" into buf. */
const char *sc_fmt_ns(double ns, char *buf, size_t len);

#endif
