/*
 * Policy plugin API (versioned). A policy is a shared object exporting one
 * data symbol:
 *
 *     const struct policy_ops nvemu_policy = { NVEMU_POLICY_API_VERSION, sizeof(struct policy_ops), ... };
 *
 * The host (emu/hooks) checks api_version before it reads anything else,
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
 *   setter not allowed here -> REJECT_ACTION
 *   invalid value           -> REJECT_RANGE (timeslice 0 or below the profile
 *                              minimum; interleave > 2; a runlist order that is
 *                              not a permutation of the native one)
 * Every decision and its result is written to the event trace.
 */
#ifndef NVEMU_POLICY_API_H
#define NVEMU_POLICY_API_H

#include <stddef.h>
#include <stdint.h>

#include "hooks/hooks.h"

#define NVEMU_POLICY_API_VERSION 1u
#define NVEMU_POLICY_SYMBOL "nvemu_policy"

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

/* Log levels accepted by policy_host.log (same numbers as emu/core/log.h). */
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
     * Setters return an enum policy_result: the recording result (APPLY,
     * NOOP_REPEAT, NOOP_CONFLICT, REJECT_ACTION) or REJECT_RANGE when the
     * value can already be seen to be invalid (it is still recorded, so a
     * later different value conflicts).
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
};

/* Oldest struct policy_ops layout the host accepts: everything up to on_task_destroy. */
#define POLICY_OPS_MIN_SIZE (offsetof(struct policy_ops, on_task_destroy) + sizeof(void (*)(void)))

#endif
