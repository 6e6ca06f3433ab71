/*
 * GPreempt-style user-space scheduler (library core). Mirrors what
 * thustorage/GPreempt does with plain RM controls: find each task's channel
 * group (the query escape with the creating thread's id, on the patched
 * driver or nvemu in GPreempt-compat mode — or handles the caller already
 * has), give LC groups a long timeslice and BE groups a tiny one
 * (GPreempt: priority 0 = 1,000,000 us, priority 1 = 1 us), and when an LC
 * request arrives kick the BE groups off the GPU: NVA06C PREEMPT with
 * bWait=0 (GPreempt's NvRmPreempt) or NV2080 FIFO_DISABLE_CHANNELS on their
 * channels (NvRmDisableCh), re-enabled when the LC request is done.
 *
 * Every control is reported through gp_config.on_action with its status and
 * measured wall time, so the scenario runner (in-process, libnvrm's inproc
 * transport) and the standalone nvemu-gpreempt (real driver or daemon) print
 * or record the same thing. Only libnvrm underneath: no emulator dependency.
 */
#ifndef NVEMU_GPREEMPT_H
#define NVEMU_GPREEMPT_H

#include <stdbool.h>
#include <stdint.h>

#include "gp_decide.h"
#include "nvrm.h"

#define GP_MAX_TASKS 64u
#define GP_SUBDEVICE_HANDLE 0x5c000003u   /* GPreempt's hard-coded NV_HSUBDEVICE (libcuda's subdevice) */

enum gp_class { GP_LC = 0, GP_BE = 1 };                 /* GPreempt priority 0 / 1 */

struct gp_task {
    char name[32];
    enum gp_class cls;
    nvrm *rm;                     /* connection its controls use (the creator's, on a stock driver) */
    NvHandle hClient, hTsg, hSubdevice;
    uint32_t nchannels;
    NvHandle hClients[NVRM_DISABLE_CHANNELS_MAX];
    NvHandle hChannels[NVRM_DISABLE_CHANNELS_MAX];
    bool disabled;                /* its channels are disabled by us */
};

/* One control the scheduler issued. */
struct gp_action {
    const char *what;             /* "query" "set_timeslice" "get_timeslice" "preempt" "disable" "enable" */
    const struct gp_task *task;   /* NULL for a failed query */
    uint64_t value;               /* timeslice us; bWait for preempt; channel count for disable/enable; tid for query */
    NV_STATUS status;
    uint64_t wall_ns;             /* CLOCK_MONOTONIC around the call */
};

struct gp_config {
    uint64_t lc_us, be_us;        /* 1000000 and 1 (GPreempt's set_priority) */
    enum gp_method method;        /* GP_METHOD_PREEMPT */
    bool wait;                    /* PREEMPT bWait (GPreempt: 0) */
    uint32_t timeout_us;          /* PREEMPT manual timeout; 0 = driver default */
    void (*on_action)(void *ctx, const struct gp_action *a);
    void *ctx;
};

struct gp_sched {
    struct gp_config cfg;
    struct gp_decider decider;
    bool lc_busy;                 /* the LC stream gp_lc_arrival/gp_lc_departure report has work queued */
    struct gp_task tasks[GP_MAX_TASKS];
    uint32_t ntasks;
};

/* GPreempt's values: LC 1,000,000 us, BE 1 us, PREEMPT with bWait=0, no callback. */
void gp_config_init(struct gp_config *c);
void gp_init(struct gp_sched *s, const struct gp_config *cfg);

/*
 * Adds a task whose channel group the caller knows. n <= 64 channels (used by
 * DISABLE_CHANNELS), all owned by hClient. Returns NV_OK, or
 * NV_ERR_INSUFFICIENT_RESOURCES when GP_MAX_TASKS are registered /
 * NV_ERR_INVALID_ARGUMENT for n > 64.
 */
NV_STATUS gp_add_task(struct gp_sched *s, nvrm *rm, const char *name, enum gp_class cls, NvHandle hClient,
                      NvHandle hTsg, NvHandle hSubdevice, uint32_t n, const NvHandle *hChannels,
                      struct gp_task **out);

/*
 * Adds the task whose 8-channel channel group thread `tid` created, found with
 * the query escape through rm (reported as a "query" action). hSubdevice 0 =
 * GP_SUBDEVICE_HANDLE. NV_ERR_OBJECT_NOT_FOUND when the driver has no such
 * group or does not know the escape.
 */
NV_STATUS gp_add_task_query(struct gp_sched *s, nvrm *rm, const char *name, enum gp_class cls, int32_t tid,
                            NvHandle hSubdevice, struct gp_task **out);

/* SET_TIMESLICE lc_us / be_us on every task (all are attempted); the first failure or NV_OK. */
NV_STATUS gp_set_priorities(struct gp_sched *s);

/*
 * An LC request arrives: what gp_decide_lc_begin decides (preempt every BE task, or disable them unless
 * they are). A second arrival before the departure is the same LC stream still busy: preempt decides
 * again, disable has nothing to do. First failure or NV_OK.
 */
NV_STATUS gp_lc_arrival(struct gp_sched *s);

/* The LC request is done: re-enable the BE channels this scheduler disabled (gp_decide_lc_end). First
 * failure or NV_OK. */
NV_STATUS gp_lc_departure(struct gp_sched *s);

/* One PREEMPT of one task with an explicit bWait (the demo's measurement loop). */
NV_STATUS gp_preempt(struct gp_sched *s, struct gp_task *t, bool wait);
/* DISABLE_CHANNELS on (disable) or off (!disable) for every channel of t. */
NV_STATUS gp_disable(struct gp_sched *s, struct gp_task *t, bool disable);
/* GET_TIMESLICE of t, reported as an action. */
NV_STATUS gp_get_timeslice(struct gp_sched *s, struct gp_task *t, uint64_t *us);

#endif
