/*
 * The memory the hardware backend's parent (hw_run.c, inside nvemu) shares
 * with its task processes and its calibration process: each of those is
 * nvemu-hw-task (hw_task_main.c), a helper executable the parent execs with
 * the region's memfd. The helper holds what must not be in every nvemu
 * command: libcuda, loaded at run time, and the `ioctl` interposer that
 * finds libcuda's channel group (hw_rm.h).
 */
#ifndef NVEMU_HW_REGION_H
#define NVEMU_HW_REGION_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "gp_decide.h"

#define HW_MAX_KERNELS 64   /* a task's kernels (SC_MAX_KERNELS) */
#define HW_MAX_STREAMS 8    /* a task's streams (SC_MAX_STREAMS) */

/*
 * One kernel of a task request as launched: blocks, rounds of the work loop, shared memory, stream, count, the
 * calib shape it runs as (0: the default work kernel) and that shape's threads per block.
 */
struct klaunch {
    uint32_t blocks, iters, smem, stream, repeat, shape, threads;
    uint64_t gap_ns;   /* CPU time before each launch, from the previous launch call (scenario launch_gap) */
};

/*
 * A kernel shape other than the default work kernel (scenario `threads:`, `regs:`, `blocks_per_sm:`). nvemu fills
 * in what the scenario asks before the calibration; the helper measures what the GPU gives.
 */
#define HW_MAX_SHAPES 8
struct shape {
    uint32_t threads, chains, smem, bps_want;  /* asked: threads, FMA chains (regs), dynamic shared memory bytes */
    uint32_t regs, bps, launch_smem;         /* got: registers, resident blocks per SM, dynamic smem with padding */
    double ns_per_iter;                      /* one round of work, a full wave of this shape */
};

struct calib {
    int ok;
    char err[256];
    char gpu[96];
    int driver_version, cc_major, cc_minor;
    uint32_t sm_count, smem_per_sm, smem_optin, regs, blocks_per_sm, pad_bytes;
    uint32_t threads_per_block;   /* of the work kernel (HW_WORK_THREADS) */
    double ns_per_iter, fixed_ns;
    uint32_t nshapes;             /* shape 0 is the default work kernel (the fields above) */
    struct shape shapes[HW_MAX_SHAPES];
};

struct rec {
    uint64_t arrive, done;        /* ns after the common start; done UINT64_MAX: in flight at the end */
};

/* One task replica's corner of the shared region. */
struct slot {
    _Atomic int state;            /* 0 starting, 1 ready, 2 finished, -1 failed (err says why) */
    char err[256];
    uint32_t task, replica;
    uint64_t arr_off, narr;       /* open-loop arrivals (ns after start) at arr_off */
    uint64_t rec_off, cap, nrec;
    /* what the policy asked for and what the driver answered */
    bool want_ts, want_il;
    uint64_t ts_us;
    uint32_t il;
    int preempt_mode;             /* -1: libcuda's own */
    bool group_found, libcuda_ts_seen;
    uint64_t libcuda_ts_us;
    uint32_t ts_status, il_status, pm_rewrites, nchannels;
    /* the task, as the helper runs it (it reads no scenario): its launches, sized by the calibration */
    char comm[16];
    uint32_t streams, nk;
    struct klaunch k[HW_MAX_KERNELS];
    uint64_t start_ns, preprocess_ns, think_ns, duration_ns;
    bool closed;                  /* a closed loop: the next request `think` after the previous completes */
    /* the scheduler: an LC replica announces its requests; a BE replica's agent acts on its own group */
    bool lc;
    int sched_action;             /* -1 none, SC_SCHED_PREEMPT or SC_SCHED_DISABLE (BE replicas) */
    enum gp_method sched_method;  /* the same as the decisions' method */
    uint64_t decided[GP_DECISION_COUNT]; /* the agent's decisions for this replica, applied or not */
    uint64_t sched_calls, sched_failed;
    uint32_t sched_last_bad;
};

struct region {
    _Atomic int go;
    _Atomic uint64_t lc_requests;  /* LC requests whose kernels are queued, ever */
    _Atomic int lc_busy;           /* LC requests queued and not done */
    _Atomic int lc_running;        /* LC replicas still in their request loop (the scheduler threads wait) */
    uint64_t t0;                  /* CLOCK_MONOTONIC ns of time 0 */
    struct calib calib;
    uint32_t nslots;
    struct slot slots[];
};

static inline uint64_t hw_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * The helper's jobs. Calibrates the work kernel on GPU 0 into *c, then each of c's shapes 1..nshapes-1 (as
 * nvemu asked them): its registers, the blocks per SM the occupancy API gives (shared memory padded down to
 * bps_want when it asks for fewer), and its cost over a full wave. 0, or -1 with a reason.
 */
int hw_calibrate(struct calib *c, char *err, size_t errlen);
/*
 * Runs slot sl's task replica: context, streams and policy decisions applied, ready (state 1), then once R->go
 * its requests from R->t0 to R->t0 + duration, each recorded; the scheduler's thread in a BE replica. 0, or -1
 * with a reason.
 */
int hw_task_run(struct region *R, struct slot *sl, char *err, size_t errlen);

#endif
