/*
 * Hook framework call sites (emu/hooks). The FIFO model calls these at the
 * places the real driver would (docs/driver-sources.md, "Hook points"). A policy never sees
 * fifo internals: it gets a read-only hook_task snapshot and setter
 * functions (emu/hooks/policy_api.h); the framework validates every
 * decision and records it in the event trace.
 */
#ifndef NVEMU_HOOKS_H
#define NVEMU_HOOKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/args.h"
#include "nvemu/policy.h"
#include "profile/profile.h"

struct hooks;

/* How the framework reaches the rest of the emulator (wired by the emulator at create time). */
struct hooks_env {
    const struct profile *profile;
    /* current virtual time, ns */
    uint64_t (*now)(void *ctx);
    /*
     * Appends one decision record to the event trace:
     * hook ("task_init"), task, field ("timeslice"), value, result ("apply" | "noop" | "reject"),
     * reason (e.g. "below minimum 1 us", "conflict", "no decision").
     */
    void (*trace)(void *ctx, const char *hook, const struct hook_task *t, const char *field,
                  uint64_t value, const char *result, const char *reason);
    void *ctx;
    uint64_t seed;                /* the run's seed, handed to policies (policy_host.seed) */
    /*
     * PREEMPT with bWait=1 and a 100 ms timeout on client hclient's channel
     * group htsg at kernel privilege (policy_host.preempt_tsg). Returns 0, or
     * a negative errno with the driver's status and why in `why`. NULL: no
     * channel groups to preempt (a policy check without an emulated GPU).
     */
    int (*preempt_tsg)(void *ctx, uint32_t hclient, uint32_t htsg, char *why, size_t len);
    void *preempt_ctx;
    struct hooks_watch *watch;     /* every policy callback records its position here (below), or NULL */
};

/*
 * Where policy code is running, for a supervising process that must name the
 * plugin and the hook after the policy crashed or hung (the scenario runner
 * keeps it in memory shared with its parent).
 */
struct hooks_watch {
    char policy[64];      /* the policy inside a callback, "" outside any */
    char hook[32];        /* "on_task_init", "init", ... */
    char task[16];        /* process name of the task the callback is about, "" when none */
    uint64_t calls;       /* callbacks entered so far */
    uint64_t now_ns;      /* virtual time at the last callback's entry (where a crash inside it happened) */
};

/*
 * Limits the wall-clock time of each policy callback (0: no limit, the default). While a callback runs,
 * the thread's deadline (base/deadline.h) is its start plus the limit: a BPF policy faults when it passes
 * it; a callback that returns after it detaches the policy for every caller, with an error in the log and
 * a fault record in the trace, as a policy fault does. A long-lived daemon sets it (nvemu daemon
 * --policy-hook-limit); a scenario run keeps its own watchdog (a child process killed on a hang).
 */
void hooks_set_callback_limit(struct hooks *h, uint64_t limit_ns);

/* Creates the framework with no policy (native behaviour everywhere). */
struct hooks *hooks_create(const struct hooks_env *env);
void hooks_destroy(struct hooks *h);

/*
 * A policy kind, one row of the table hooks_load_policy, hooks_find_policy, hooks_check_plugin, the
 * policy command and the scenario schema walk: adding a kind is a row (policy_loaders.c) plus its code.
 */
struct policy_loader {
    const char *name;   /* the scenario's policy key: "plugin", "bpf" */
    const char *suffix; /* what a bare policy name is tried with in lookup */
    /* true when the file at path is of this kind; NULL: the kind of a file no other row claims */
    bool (*probe)(const char *path);
    /* the arguments the kind takes (base/args.h): `--policy-arg` words and scenario keys parse against it */
    const struct arg_spec *args;
    /* attaches the file at path as h's policy with arguments parsed against args: 0, or -1 with a reason */
    int (*attach)(struct hooks *h, const char *path, const struct arg_list *args, char *err, size_t errlen);
    /* checks the open file without running its code: 0, or -1 with a reason; NULL: checked by a load */
    int (*check)(int fd, const char *path, const struct arg_list *args, char *err, size_t errlen);
};

/* The rows, in lookup order; *count gets their number. */
const struct policy_loader *hooks_policy_loaders(size_t *count);

/* The row whose probe claims the file at path, else the row without a probe. Never NULL. */
const struct policy_loader *hooks_policy_loader_for(const char *path);

/* The row called name, or NULL. */
const struct policy_loader *hooks_policy_loader_named(const char *name);

/*
 * Parses `--policy-arg` words for the policy at path (found by hooks_find_policy) against its kind's table
 * and appends them to out: 0, or -1 with a reason naming the bad argument and what the kind accepts.
 */
int hooks_policy_args_parse(const char *path, const char *const *words, int nwords, struct arg_list *out,
                            char *err, size_t errlen);

/*
 * Where a policy named on a command line or in a scenario is, the same for every
 * command: a path (contains '/', or an existing file) is taken as is; a bare
 * name is a bundled policy, NAME then NAME+each kind's suffix in $NVEMU_POLICY_DIR,
 * then <dir of the nvemu executable>/policies (build tree), then
 * <bindir>/../lib/nvemu/policies (installed tree). Writes the path to out and
 * returns 0, or -1 with a one-line reason in err. The file's kind is
 * hooks_policy_loader_for's answer (from its content, not its name).
 */
int hooks_find_policy(const char *name, char *out, size_t len, char *err, size_t errlen);

/*
 * Checks a plugin (shared object) as hooks_load_policy would load it, from its ELF file only, never
 * running its code (no dlopen, so no constructor runs): a regular ELF shared object for this machine
 * exporting NVEMU_POLICY_SYMBOL as a defined object whose ops table has the host's API version and at
 * least the minimum size; arguments parsed against the plugin row's table (KEY=VALUE), their keys against
 * the plugin's exported list when it has one. What only the plugin's init can judge (its arguments'
 * meaning) is not checked; args may be NULL (none). Returns 0, -1 with a one-line reason in err, or 1
 * when path is an eBPF object: that is checked by loading it (bpf_policy_attach: verifier, then the BPF
 * machine, no native code runs).
 */
int hooks_check_plugin(const char *path, const struct arg_list *args, char *err, size_t errlen);

/* hooks_check_plugin with `--policy-arg` words, parsed first (hooks_policy_args_parse). */
int hooks_check_plugin_words(const char *path, const char *const *words, int nwords, char *err, size_t errlen);

/*
 * Loads a policy (found by hooks_find_policy) with arguments parsed against its kind's table: a
 * plugin (shared object), or a gpu_ext struct_ops BPF object (an ELF for the
 * BPF machine, run by emu/bpf). Returns 0, or -1 with a one-line reason in err
 * (missing file, missing symbol, wrong API version, init refused). At most one
 * policy at a time, like gpu_ext's struct_ops.
 */
int hooks_load_policy(struct hooks *h, const char *path, const struct arg_list *args, char *err, size_t errlen);

/* hooks_load_policy with `--policy-arg` words (nvemu_config.policy_args), parsed first. */
int hooks_load_policy_words(struct hooks *h, const char *path, const char *const *words, int nwords, char *err,
                            size_t errlen);

/* True when a policy is attached. */
bool hooks_active(const struct hooks *h);

struct policy_ops;
/*
 * Attaches a policy given as an ops table already in this process (tests,
 * built-in policies); same checks and errors as hooks_load_policy. The table
 * and its name are copied.
 */
int hooks_attach_ops(struct hooks *h, const struct policy_ops *ops, const char *const *args, int nargs,
                     char *err, size_t errlen);

/*
 * Attaches ops whose state start(&state, host, arg) makes instead of ops->init: a policy runtime below the
 * framework whose arguments are typed (emu/bpf's bpf_policy_attach). Same checks and errors otherwise.
 */
int hooks_attach_started(struct hooks *h, const struct policy_ops *ops,
                         int (*start)(void **state, const struct policy_host *host, const void *arg, char *err,
                                      size_t errlen),
                         const void *arg, char *err, size_t errlen);

/* True when the attached policy acts at work submission (on_work_submit: a plugin's, or a BPF object's launch uprobes). */
bool hooks_acts_on_work_submit(const struct hooks *h);

/* Name of the attached policy, or NULL. */
const char *hooks_policy_name(const struct hooks *h);

/* Why the attached policy failed during the run (policy_host.fail), or NULL while it has not. */
const char *hooks_policy_error(const struct hooks *h);

/* The attached policy's report_json (malloc'd JSON object, caller frees), or NULL when it has none. */
char *hooks_policy_report(const struct hooks *h);

/*
 * task_init: after the defaults are set (id, engine, runlist, default timeslice,
 * MEDIUM interleave) and before they take effect. On return *timeslice_us and
 * *interleave hold the validated decision (unchanged when the policy made none
 * or its decision was rejected).
 */
void hooks_task_init(struct hooks *h, const struct hook_task *t, uint64_t *timeslice_us, uint32_t *interleave);

/* bind/schedule on GPFIFO_SCHEDULE(enable): false = rejected, the caller returns NV_ERR_BUSY_RETRY. */
bool hooks_bind(struct hooks *h, const struct hook_task *t);

/* work_submit: every submission (kind WORK) and every work-submit-token request (kind TOKEN_REQUEST). */
void hooks_work_submit(struct hooks *h, const struct hook_task *t, uint32_t chid, enum hook_submit_kind kind);

/*
 * work_submit where the caller can apply a decision on the live channel group
 * (the seeds' adaptive reclassification). *timeslice_us and *interleave hold
 * the current values in and the validated decision out; either pointer may be
 * NULL (a policy decision on that field is then rejected). Returns true when
 * a value changed and the caller must apply it as SET_TIMESLICE /
 * SET_INTERLEAVE_LEVEL would. hooks_work_submit == this with both NULL.
 */
bool hooks_work_submit_decide(struct hooks *h, const struct hook_task *t, uint32_t chid,
                              enum hook_submit_kind kind, uint64_t *timeslice_us, uint32_t *interleave);

/* timeslice_set on SET_TIMESLICE: the policy may keep or replace *timeslice_us (validated). */
void hooks_timeslice_set(struct hooks *h, const struct hook_task *t, uint64_t *timeslice_us);

/*
 * runlist_update when a runlist is rebuilt: entries[] holds the TSG ids in
 * hardware order (with interleave repetitions). The policy may permute them;
 * a result that adds or drops entries is rejected and the native order kept.
 * Its trace records carry a hook_task with only gpu and runlist_id set.
 */
void hooks_runlist_update(struct hooks *h, uint32_t gpu, uint32_t runlist_id, uint64_t *entries, uint32_t n);

/* task_destroy before the channel group goes away. */
void hooks_task_destroy(struct hooks *h, const struct hook_task *t);

/*
 * Events beside the scheduling hooks, where an attached policy's probes run
 * (a BPF object's kprobes, uprobes and tracepoints; emu/bpf/bpf_attach.h).
 * Each returns at once when the policy has nothing there, so callers may
 * call them on every ioctl; hooks_wants says so beforehand for callers that
 * must prepare arguments.
 */
enum hook_event { HOOK_EVENT_IOCTL, HOOK_EVENT_PROCESS_EXIT, HOOK_EVENT_XID, HOOK_EVENT_USER_CALL };

/* True when the attached policy runs something at event e. */
bool hooks_wants(const struct hooks *h, enum hook_event e);

/* How an event's probes read the calling process's memory: 0, or nonzero when addr..addr+len is not readable. */
typedef int (*hook_read_fn)(void *ctx, uint64_t addr, void *dst, size_t len);

/*
 * nvidia_unlocked_ioctl(file, cmd, arg), the one entry point of every node:
 * entry (ret false) before the dispatch, return (ret true, rc the function's
 * result) after the parameters were copied back. who: the caller's identity
 * (no channel group); read/read_ctx: the caller's memory, where arg points.
 */
void hooks_ioctl(struct hooks *h, bool ret, uint64_t file, uint64_t cmd, uint64_t arg, int64_t rc,
                 const struct hook_task *who, hook_read_fn read, void *read_ctx);

/* The process of who ended (sched:sched_process_exit). */
void hooks_process_exit(struct hooks *h, const struct hook_task *who);

/* The driver reported XID xid on a GPU (nvidia:nvidia_dev_xid); dev: its PCI name. */
void hooks_xid(struct hooks *h, uint32_t xid, const char *dev);

/*
 * A task's process called LIB:FUNC (library file name, function symbol) with
 * args in the x86-64 argument registers and it returned rc: its uprobes,
 * then its uretprobes, run.
 */
void hooks_user_call(struct hooks *h, const char *lib, const char *func, const uint64_t args[6], uint64_t rc,
                     const struct hook_task *who);

/* One half of a call that spans time (a synchronisation): its entry (ret false, rc unused) or its return. */
void hooks_user_call_half(struct hooks *h, const char *lib, const char *func, const uint64_t args[6], uint64_t rc,
                          const struct hook_task *who, bool ret);

#endif
