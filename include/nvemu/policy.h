/*
 * nvemu policy plugin ABI (installed as <nvemu/policy.h>; versioned). Everything a plugin
 * needs is here: build it with `pkg-config --cflags nvemu` or CMake's find_package(nvemu)
 * (target nvemu::policy) and link nothing from nvemu.
 *
 * A policy is a shared object exporting one data symbol:
 *
 *     const struct policy_ops nvemu_policy = { NVEMU_POLICY_API_VERSION, sizeof(struct policy_ops), ... };
 *
 * The host checks api_version before it reads anything else,
 * treats callbacks beyond `size` as absent (so callbacks appended in a later
 * minor revision stay optional, like gpu_ext's on_timeslice_control), and
 * hands the plugin a struct policy_host of setter functions: a plugin needs no
 * symbol from the executable. Decisions are made only through the setters,
 * during the callback that received the struct policy_ctx; the host validates
 * them after the callback returns (gpu_ext's transition-validator semantics):
 *   no setter call          -> native value kept (NOOP_DEFAULT)
 *   first call              -> recorded, committed if valid (APPLY)
 *   same value again        -> NOOP_REPEAT (still applied once)
 *   a different value       -> NOOP_CONFLICT, field poisoned, native value kept
 *                              (sticky: the first value again is NOOP_CONFLICT too)
 *   setter not allowed here -> REJECT_ACTION
 *   invalid value           -> REJECT_RANGE after the callback (timeslice 0 or
 *                              below the profile minimum; interleave > 2;
 *                              override outside 1..1,000,000 us, which the
 *                              setter also answers at once; a runlist order
 *                              that is not a permutation of the native one)
 * Every decision and its result is written to the event trace.
 */
#ifndef NVEMU_POLICY_H
#define NVEMU_POLICY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Engine types a hook_task can carry (hook_task.engine_type): the driver's
 * NV2080_ENGINE_TYPE_* numbers (open-gpu-kernel-modules 580.x,
 * src/common/sdk/nvidia/inc/class/cl2080_notification.h).
 */
#define NVEMU_ENGINE_GR0     0x00000001u /* graphics/compute GR0..GR7 = 1..8 */
#define NVEMU_ENGINE_GR(i)   (0x00000001u + (i))
#define NVEMU_ENGINE_GR7     0x00000008u
#define NVEMU_ENGINE_COPY0   0x00000009u /* copy engines COPY0..COPY9 = 0x09..0x12 */
#define NVEMU_ENGINE_COPY(i) (0x00000009u + (i))
#define NVEMU_ENGINE_COPY9   0x00000012u
#define NVEMU_ENGINE_NVDEC0  0x00000013u
#define NVEMU_ENGINE_NVENC0  0x0000001Bu
#define NVEMU_ENGINE_SW      0x00000022u

/* Interleave levels (hook_task.interleave, policy_host.set_interleave): NVA06C_CTRL_INTERLEAVE_LEVEL_*
 * (src/common/sdk/nvidia/inc/ctrl/ctrla06c.h). */
#define NVEMU_INTERLEAVE_LOW    0u
#define NVEMU_INTERLEAVE_MEDIUM 1u
#define NVEMU_INTERLEAVE_HIGH   2u

/* Read-only snapshot of a channel group handed to policies. */
struct hook_task {
    uint32_t gpu;                 /* GPU index */
    uint64_t tsg_id;              /* hardware TSG id (grpID) */
    uint32_t runlist_id;
    uint32_t engine_type;         /* NVEMU_ENGINE_* */
    uint32_t hclient, htsg;       /* RM handles */
    int32_t pid, tid;             /* creator */
    uint32_t uid;
    char comm[16];                /* creator's process name */
    uint64_t timeslice_us;        /* current (or default, at task_init) */
    uint32_t interleave;          /* NVEMU_INTERLEAVE_* */
    uint32_t channel_count;
    uint32_t gid;                 /* creator's effective gid (appended: plugins built before it never read it) */
};

/* Where a work_submit hook fired: the emulator sees every submission; the real driver only token requests. */
enum hook_submit_kind { HOOK_SUBMIT_TOKEN_REQUEST = 0, HOOK_SUBMIT_WORK = 1 };

#define NVEMU_POLICY_API_VERSION 1u
#define NVEMU_POLICY_SYMBOL "nvemu_policy"
/*
 * Optional: the argument keys the plugin's init accepts, exported under this name as one space-separated
 * string (const char nvemu_policy_arg_keys[] = "lc be lc_us";). `nvemu scenario check` reads it from the
 * file, without running the plugin, to refuse a key the plugin would refuse.
 */
#define NVEMU_POLICY_ARG_KEYS_SYMBOL "nvemu_policy_arg_keys"

/* Setter results; values match gpu_ext's validator enum. */
enum policy_result {
    POLICY_APPLY = 0,
    POLICY_NOOP_DEFAULT = 1,
    POLICY_NOOP_REPEAT = 2,
    POLICY_NOOP_STALE = 3,
    POLICY_NOOP_CONFLICT = 4,
    POLICY_REJECT_ACTION = 5,
    POLICY_REJECT_RANGE = 6,
    POLICY_REJECT_IDENTITY = 7,
};

/* Log levels accepted by policy_host.log (the emulator's own log levels). */
enum policy_log_level { POLICY_LOG_ERROR = 0, POLICY_LOG_WARN = 1, POLICY_LOG_INFO = 2, POLICY_LOG_DEBUG = 3 };

/* One callback invocation's decision record; valid only while that callback runs. */
struct policy_ctx;

/* What the host offers a plugin. Valid from init until fini. */
struct policy_host {
    uint32_t api_version;          /* NVEMU_POLICY_API_VERSION of the host */
    uint32_t size;                 /* sizeof(struct policy_host) of the host */
    uint64_t min_timeslice_us;     /* profile minimum: a smaller timeslice is rejected */
    uint64_t default_timeslice_us; /* profile default */
    /*
     * Setters return an enum policy_result, the driver's recording result:
     * APPLY, NOOP_REPEAT, NOOP_CONFLICT (sticky: the first value repeated
     * after a conflict is still a conflict) or REJECT_ACTION. Ranges are
     * checked after the callback (set_interleave(3) answers APPLY and ends
     * REJECT_RANGE), except replace_timeslice outside 1..1,000,000 us, which
     * answers REJECT_RANGE at once and is still recorded (a later different
     * value conflicts).
     */
    int (*set_timeslice)(struct policy_ctx *c, uint64_t us);         /* on_task_init, on_work_submit */
    int (*set_interleave)(struct policy_ctx *c, uint32_t level);     /* on_task_init, on_work_submit */
    int (*reject_bind)(struct policy_ctx *c);                        /* on_bind */
    int (*replace_timeslice)(struct policy_ctx *c, uint64_t us);     /* on_timeslice_set */
    int (*reorder_runlist)(struct policy_ctx *c, const uint64_t *entries, uint32_t n); /* on_runlist_update */
    /* Current virtual time of the emulator, ns (the only clock a policy may read: determinism). */
    uint64_t (*now_ns)(const struct policy_host *host);
    /* One log line through the emulator's log module. */
    void (*log)(const struct policy_host *host, int level, const char *msg);
    void *host_ctx;                /* the host's; a plugin never touches it */
    /* Appended after host_ctx (a plugin checks size before using them): */
    uint64_t seed;                 /* the run's seed, for a policy's own PRNG (determinism) */
    /* One informational record in the event trace (field e.g. "printk", result "log"). */
    void (*trace_note)(const struct policy_host *host, const char *hook, const struct hook_task *t,
                       const char *field, const char *text);
    /*
     * The policy cannot go on (a BPF program faulted): the host writes the
     * reason to the log and the trace, stops calling the policy (native
     * behaviour from now on) and reports the run as failed.
     */
    void (*fail)(const struct policy_host *host, const char *hook, const struct hook_task *t, const char *reason);
    /*
     * Preempts channel group htsg of client hclient and waits for it (at most
     * 100 ms), at kernel privilege: any process's group, as gpu_ext's sleepable
     * kfunc bpf_nv_gpu_preempt_tsg does. hook and t name the calling context
     * for the trace. Returns 0, -EINVAL for a zero handle, -EIO when the
     * handles name no channel group or the preempt failed (the trace says why).
     */
    int (*preempt_tsg)(const struct policy_host *host, const char *hook, const struct hook_task *t,
                       uint32_t hclient, uint32_t htsg);
    /* The driver release the emulator answers as (550, 575, 580; 0: not known). */
    uint32_t driver_major;
};

/* What a plugin exports under NVEMU_POLICY_SYMBOL. Any callback may be NULL. */
struct policy_ops {
    uint32_t api_version;          /* must equal the host's NVEMU_POLICY_API_VERSION */
    uint32_t size;                 /* sizeof(struct policy_ops) the plugin was built with */
    const char *name;
    /*
     * Parses "key=value" args and allocates the plugin's state into *state.
     * Returns 0, or non-zero with a one-line reason in err (the load is refused).
     */
    int (*init)(void **state, const struct policy_host *host, const char *const *args, int nargs,
                char *err, size_t errlen);
    void (*fini)(void *state);
    void (*on_task_init)(void *state, const struct hook_task *t, struct policy_ctx *c);
    void (*on_bind)(void *state, const struct hook_task *t, struct policy_ctx *c);
    void (*on_work_submit)(void *state, const struct hook_task *t, uint32_t chid, enum hook_submit_kind kind,
                           struct policy_ctx *c);
    void (*on_timeslice_set)(void *state, const struct hook_task *t, uint64_t requested_us, struct policy_ctx *c);
    void (*on_runlist_update)(void *state, uint32_t gpu, uint32_t runlist_id, const uint64_t *entries, uint32_t n,
                              struct policy_ctx *c);
    void (*on_task_destroy)(void *state, const struct hook_task *t);
    /* Appended (optional): the policy's state as one JSON object, malloc'd, for results.json. */
    char *(*report_json)(void *state);
};

/* Oldest struct policy_ops layout the host accepts: everything up to on_task_destroy. */
#define POLICY_OPS_MIN_SIZE (offsetof(struct policy_ops, on_task_destroy) + sizeof(void (*)(void)))

#ifdef __cplusplus
}
#endif

#endif
