/*
 * The task processes' and the calibration's side of the hardware backend,
 * compiled into the nvemu-hw-task helper only (hw_region.h): libcuda, the
 * work kernel, a replica's request loop, and the scheduler's thread inside a
 * BE replica.
 */
#include "hw_region.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "abi/nv_ctrl_fifo.h"
#include "hw_cuda.h"
#include "hw_rm.h"

/* How long past the end a scheduler thread waits for LC replicas still in their loop. */
#define HW_AGENT_GRACE_NS 5000000000ull

/* Calibration: rounds of the work loop of the short and the long run, runs of each (the fastest counts). */
#define CAL_N1 1000u
#define CAL_N2 31000u
#define CAL_RUNS 5

/*
 * A late wake-up would count as GPU latency: a VM's timer wake-ups are late by
 * up to a few hundred us (the first H200 recordings' LC-alone p99 was 3x its
 * p50), so sleep to 1 ms before and spin the rest.
 */
#define SPIN_NS 1000000ull

static void sleep_until(uint64_t t)
{
    uint64_t now = hw_mono_ns();
    if (t > now + SPIN_NS + 20000) {
        uint64_t w = t - SPIN_NS;
        struct timespec ts = {.tv_sec = (time_t)(w / 1000000000ull), .tv_nsec = (long)(w % 1000000000ull)};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
            ;
    }
    while (hw_mono_ns() < t)
        ;
}


struct dev {
    struct hw_cuda cu;
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction fn;
    CUfunction sfn[HW_MAX_SHAPES];           /* per calib shape (index 0 unused: fn) */
    CUdeviceptr out;
};

#define CU_TRY(d, call, what, err, errlen)                                                                 \
    do {                                                                                                 \
        CUresult r_ = (call);                                                                            \
        if (r_ != HW_CUDA_SUCCESS) {                                                                     \
            snprintf(err, errlen, "%s: %s", what, hw_cuda_strerror(&(d)->cu, r_));                       \
            return -1;                                                                                   \
        }                                                                                                \
    } while (0)

static int dev_open(struct dev *d, uint32_t max_smem, char *err, size_t errlen)
{
    if (hw_cuda_load(&d->cu, err, errlen))
        return -1;
    CU_TRY(d, d->cu.cuInit(0), "cuInit", err, errlen);
    CU_TRY(d, d->cu.cuDeviceGet(&d->dev, 0), "cuDeviceGet", err, errlen);
    CU_TRY(d, d->cu.cuDevicePrimaryCtxSetFlags(d->dev, HW_CU_CTX_SCHED_SPIN), "cuDevicePrimaryCtxSetFlags", err,
           errlen);
    CU_TRY(d, d->cu.cuDevicePrimaryCtxRetain(&d->ctx, d->dev), "cuDevicePrimaryCtxRetain", err, errlen);
    CU_TRY(d, d->cu.cuCtxSetCurrent(d->ctx), "cuCtxSetCurrent", err, errlen);
    CU_TRY(d, d->cu.cuModuleLoadData(&d->mod, hw_work_ptx), "cuModuleLoadData (JIT of the work kernel)", err,
           errlen);
    CU_TRY(d, d->cu.cuModuleGetFunction(&d->fn, d->mod, HW_WORK_KERNEL), "cuModuleGetFunction", err, errlen);
    if (max_smem > 48u * 1024u)
        CU_TRY(d, d->cu.cuFuncSetAttribute(d->fn, HW_CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)max_smem),
               "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", err, errlen);
    CU_TRY(d, d->cu.cuMemAlloc(&d->out, (size_t)HW_WORK_OUT_BLOCKS * HW_WORK_THREADS * sizeof(float)), "cuMemAlloc",
           err, errlen);
    return 0;
}

static CUresult launch_shape(struct dev *d, CUfunction fn, uint32_t threads, CUstream st, uint32_t blocks,
                             uint32_t iters, uint32_t smem)
{
    void *args[] = {&d->out, &iters, &smem};
    return d->cu.cuLaunchKernel(fn, blocks, 1, 1, threads, 1, 1, smem, st, args, NULL);
}

static CUresult launch(struct dev *d, CUstream st, uint32_t blocks, uint32_t iters, uint32_t smem)
{
    return launch_shape(d, d->fn, HW_WORK_THREADS, st, blocks, iters, smem);
}

/* Loads shape i's variant of the work kernel (its chain count) and lets it take its most dynamic memory. */
static int shape_load(struct dev *d, const struct shape *sh, uint32_t i, char *err, size_t errlen)
{
    static char ptx[64 * 1024];
    if (hw_work_ptx_chains(ptx, sizeof(ptx), sh->chains) < 0) {
        snprintf(err, errlen, "no work kernel variant with %u FMA chains", sh->chains);
        return -1;
    }
    CUmodule m;
    CU_TRY(d, d->cu.cuModuleLoadData(&m, ptx), "cuModuleLoadData (JIT of a work kernel variant)", err, errlen);
    CU_TRY(d, d->cu.cuModuleGetFunction(&d->sfn[i], m, HW_WORK_KERNEL), "cuModuleGetFunction", err, errlen);
    uint32_t most = sh->launch_smem > sh->smem ? sh->launch_smem : sh->smem;
    if (most > 48u * 1024u)
        CU_TRY(d, d->cu.cuFuncSetAttribute(d->sfn[i], HW_CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)most),
               "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", err, errlen);
    return 0;
}

/*
 * Shape i on this GPU: its registers, the resident blocks per SM the occupancy API gives (shared memory
 * padded until no more than blocks_per_sm fit when the scenario asks for fewer), and the cost of one
 * round of work over a full wave.
 */
static int shape_calibrate(struct dev *d, struct calib *c, uint32_t i, CUstream st, char *err, size_t errlen)
{
    struct shape *sh = &c->shapes[i];
    /* loaded with the whole opt-in allowance: any padding found below can then be launched */
    sh->launch_smem = c->smem_optin;
    if (shape_load(d, sh, i, err, errlen))
        return -1;
    int v;
    CU_TRY(d, d->cu.cuFuncGetAttribute(&v, HW_CU_FUNC_ATTRIBUTE_NUM_REGS, d->sfn[i]), "cuFuncGetAttribute", err,
           errlen);
    sh->regs = (uint32_t)v;
    sh->launch_smem = sh->smem;
    CU_TRY(d, d->cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(&v, d->sfn[i], (int)sh->threads, sh->smem),
           "cuOccupancyMaxActiveBlocksPerMultiprocessor", err, errlen);
    if (v < 1) {
        snprintf(err, errlen, "a block of %u threads, %u registers/thread, %u KiB of shared memory does not fit an SM",
                 sh->threads, sh->regs, sh->smem / 1024);
        return -1;
    }
    if (sh->bps_want && (uint32_t)v < sh->bps_want) {
        snprintf(err, errlen, "blocks_per_sm %u: only %d blocks of %u threads, %u registers/thread, %u KiB fit an SM",
                 sh->bps_want, v, sh->threads, sh->regs, sh->smem / 1024);
        return -1;
    }
    if (sh->bps_want && (uint32_t)v > sh->bps_want) {
        /* start where bps_want + 1 blocks' shared memory no longer fits, then grow by 1 KiB until the API agrees */
        uint32_t pad = c->smem_per_sm / (sh->bps_want + 1);
        sh->launch_smem = pad > sh->smem ? pad : sh->smem;
        for (;;) {
            CU_TRY(d, d->cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(&v, d->sfn[i], (int)sh->threads,
                                                                        sh->launch_smem),
                   "cuOccupancyMaxActiveBlocksPerMultiprocessor", err, errlen);
            if ((uint32_t)v <= sh->bps_want || sh->launch_smem + 1024 > c->smem_optin)
                break;
            sh->launch_smem += 1024;
        }
        if ((uint32_t)v != sh->bps_want) {
            snprintf(err, errlen, "cannot hold occupancy at %u blocks per SM (%d fit)", sh->bps_want, v);
            return -1;
        }
    }
    sh->bps = (uint32_t)v;
    double t, best1 = INFINITY, best2 = INFINITY;
    uint32_t blocks = c->sm_count * sh->bps;
    CU_TRY(d, launch_shape(d, d->sfn[i], sh->threads, st, blocks, CAL_N1, sh->launch_smem), "cuLaunchKernel", err,
           errlen);
    CU_TRY(d, d->cu.cuStreamSynchronize(st), "cuStreamSynchronize", err, errlen);
    for (int r = 0; r < CAL_RUNS; r++) {
        uint64_t t0 = hw_mono_ns();
        CU_TRY(d, launch_shape(d, d->sfn[i], sh->threads, st, blocks, CAL_N1, sh->launch_smem), "cuLaunchKernel",
               err, errlen);
        CU_TRY(d, d->cu.cuStreamSynchronize(st), "cuStreamSynchronize", err, errlen);
        t = (double)(hw_mono_ns() - t0);
        best1 = t < best1 ? t : best1;
        t0 = hw_mono_ns();
        CU_TRY(d, launch_shape(d, d->sfn[i], sh->threads, st, blocks, CAL_N2, sh->launch_smem), "cuLaunchKernel",
               err, errlen);
        CU_TRY(d, d->cu.cuStreamSynchronize(st), "cuStreamSynchronize", err, errlen);
        t = (double)(hw_mono_ns() - t0);
        best2 = t < best2 ? t : best2;
    }
    sh->ns_per_iter = (best2 - best1) / (double)(CAL_N2 - CAL_N1);
    if (!(sh->ns_per_iter > 0)) {
        snprintf(err, errlen, "calibration of a %u-thread shape failed", sh->threads);
        return -1;
    }
    return 0;
}

/* Host time of one launch + completion. */
static int timed(struct dev *d, CUstream st, uint32_t blocks, uint32_t iters, uint32_t smem, double *ns, char *err,
                 size_t errlen)
{
    uint64_t t0 = hw_mono_ns();
    CU_TRY(d, launch(d, st, blocks, iters, smem), "cuLaunchKernel", err, errlen);
    CU_TRY(d, d->cu.cuStreamSynchronize(st), "cuStreamSynchronize", err, errlen);
    *ns = (double)(hw_mono_ns() - t0);
    return 0;
}

int hw_calibrate(struct calib *c, char *err, size_t errlen)
{
    struct dev d;
    memset(&d, 0, sizeof(d));
    if (dev_open(&d, 0, err, errlen))
        return -1;
    int v;
    CU_TRY(&d, d.cu.cuDriverGetVersion(&c->driver_version), "cuDriverGetVersion", err, errlen);
    CU_TRY(&d, d.cu.cuDeviceGetName(c->gpu, sizeof(c->gpu), d.dev), "cuDeviceGetName", err, errlen);
    CU_TRY(&d, d.cu.cuDeviceGetAttribute(&c->cc_major, HW_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d.dev),
           "cuDeviceGetAttribute", err, errlen);
    CU_TRY(&d, d.cu.cuDeviceGetAttribute(&c->cc_minor, HW_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d.dev),
           "cuDeviceGetAttribute", err, errlen);
    CU_TRY(&d, d.cu.cuDeviceGetAttribute(&v, HW_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d.dev),
           "cuDeviceGetAttribute", err, errlen);
    c->sm_count = (uint32_t)v;
    CU_TRY(&d, d.cu.cuDeviceGetAttribute(&v, HW_CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, d.dev),
           "cuDeviceGetAttribute", err, errlen);
    c->smem_per_sm = (uint32_t)v;
    CU_TRY(&d, d.cu.cuDeviceGetAttribute(&v, HW_CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, d.dev),
           "cuDeviceGetAttribute", err, errlen);
    c->smem_optin = (uint32_t)v;
    CU_TRY(&d, d.cu.cuFuncGetAttribute(&v, HW_CU_FUNC_ATTRIBUTE_NUM_REGS, d.fn), "cuFuncGetAttribute", err, errlen);
    c->regs = (uint32_t)v;
    CU_TRY(&d, d.cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(&v, d.fn, HW_WORK_THREADS, 0),
           "cuOccupancyMaxActiveBlocksPerMultiprocessor", err, errlen);
    c->blocks_per_sm = (uint32_t)v;
    c->threads_per_block = HW_WORK_THREADS;
    /* More than one block would fit: pad with shared memory so that a second one cannot. */
    c->pad_bytes = v > 1 ? c->smem_per_sm / 2 + 1024 : 0;
    if (c->pad_bytes > c->smem_optin) {
        snprintf(err, errlen, "cannot hold occupancy at one block per SM (%d fit, shared memory %u/SM)", v,
                 c->smem_per_sm);
        return -1;
    }
    CUstream st;
    CU_TRY(&d, d.cu.cuStreamCreate(&st, HW_CU_STREAM_NON_BLOCKING), "cuStreamCreate", err, errlen);
    double t, best1 = INFINITY, best2 = INFINITY;
    if (c->pad_bytes > 48u * 1024u)
        CU_TRY(&d, d.cu.cuFuncSetAttribute(d.fn, HW_CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                           (int)c->pad_bytes), "cuFuncSetAttribute", err, errlen);
    if (timed(&d, st, c->sm_count, CAL_N1, c->pad_bytes, &t, err, errlen))
        return -1;
    for (int i = 0; i < CAL_RUNS; i++) {
        if (timed(&d, st, c->sm_count, CAL_N1, c->pad_bytes, &t, err, errlen))
            return -1;
        best1 = t < best1 ? t : best1;
        if (timed(&d, st, c->sm_count, CAL_N2, c->pad_bytes, &t, err, errlen))
            return -1;
        best2 = t < best2 ? t : best2;
    }
    c->ns_per_iter = (best2 - best1) / (double)(CAL_N2 - CAL_N1);
    c->fixed_ns = best1 - c->ns_per_iter * CAL_N1;
    if (!(c->ns_per_iter > 0)) {
        snprintf(err, errlen, "calibration failed: %u rounds took %.0f ns, %u took %.0f ns", CAL_N1, best1, CAL_N2,
                 best2);
        return -1;
    }
    if (c->nshapes > HW_MAX_SHAPES) {
        snprintf(err, errlen, "%u kernel shapes asked, at most %d", c->nshapes, HW_MAX_SHAPES);
        return -1;
    }
    for (uint32_t i = 1; i < c->nshapes; i++)
        if (shape_calibrate(&d, c, i, st, err, errlen))
            return -1;
    return 0;
}

/* Applies the policy's decisions to libcuda's compute group of this process. */
static void apply_policy(struct slot *sl)
{
    struct hw_group g;
    if (!hw_rm_group(&g))
        return;
    sl->group_found = true;
    sl->libcuda_ts_seen = g.libcuda_timeslice_seen;
    sl->libcuda_ts_us = g.libcuda_timeslice_us;
    sl->pm_rewrites = g.preempt_mode_rewrites;
    sl->nchannels = g.nchannels;
    if (sl->want_ts) {
        NVA06C_CTRL_TIMESLICE_PARAMS p = {.timesliceUs = sl->ts_us};
        sl->ts_status = hw_rm_control(&g, g.htsg, NVA06C_CTRL_CMD_SET_TIMESLICE, &p, sizeof(p));
    }
    if (sl->want_il) {
        NVA06C_CTRL_INTERLEAVE_LEVEL_PARAMS p = {.tsgInterleaveLevel = sl->il};
        sl->il_status = hw_rm_control(&g, g.htsg, NVA06C_CTRL_CMD_SET_INTERLEAVE_LEVEL, &p, sizeof(p));
    }
}

/*
 * GPreempt's scheduler on a stock driver: a group's controls are accepted from its opener only, so
 * the scheduler's calls come from a thread inside each BE process, on that process's own fd and
 * client, when the LC processes announce a request (the region's counters). What to call is
 * gp_decide.h's decision, as in the emulator: PREEMPT (bWait=0) for each LC request queued, or
 * DISABLE_CHANNELS while any LC request is in flight and enable after. Without the group (a driver
 * that showed none) the decisions are still taken and counted, and nothing is called.
 */
struct agent {
    struct region *R;
    struct slot *sl;
    struct hw_group g;
    bool found;
    uint64_t end;
};

static void agent_call(struct agent *a, uint32_t st)
{
    a->sl->sched_calls++;
    if (st) {
        a->sl->sched_failed++;
        a->sl->sched_last_bad = st;
    }
}

static void agent_disable(struct agent *a, bool disable)
{
    NV2080_CTRL_FIFO_DISABLE_CHANNELS_PARAMS p = {.bDisable = disable, .numChannels = a->g.nchannels};
    for (uint32_t i = 0; i < a->g.nchannels && i < NV2080_CTRL_FIFO_DISABLE_CHANNELS_MAX_ENTRIES; i++) {
        p.hClientList[i] = a->g.hclient;
        p.hChannelList[i] = a->g.channels[i];
    }
    agent_call(a, hw_rm_control(&a->g, a->g.hsubdevice, NV2080_CTRL_CMD_FIFO_DISABLE_CHANNELS, &p, sizeof(p)));
}

static void agent_act(struct agent *a, enum gp_decision d)
{
    a->sl->decided[d]++;
    if (!a->found)
        return;
    if (d == GP_DECIDE_PREEMPT_BE) {
        NVA06C_CTRL_PREEMPT_PARAMS p = {.bWait = 0};
        agent_call(a, hw_rm_control(&a->g, a->g.htsg, NVA06C_CTRL_CMD_PREEMPT, &p, sizeof(p)));
    } else if (d == GP_DECIDE_DISABLE_BE || d == GP_DECIDE_ENABLE_BE) {
        agent_disable(a, d == GP_DECIDE_DISABLE_BE);
    }
}

static void *agent_main(void *arg)
{
    struct agent *a = arg;
    struct gp_decider dec;
    gp_decider_init(&dec, a->sl->sched_method);
    /* from 0, not from what the counter says when this thread gets going: a request queued before is one too */
    uint64_t seen = 0;
    bool lc_on = false;
    /*
     * Until the end, and past it while an LC replica is still in its loop (a request that arrived before the
     * end is queued late on a loaded machine): each request it queued is an event, as in the emulator.
     */
    for (bool last = false;;) {
        if (dec.method == GP_METHOD_PREEMPT) {
            /* every LC request is an event of its own, however many queued since the last look */
            for (uint64_t now = atomic_load(&a->R->lc_requests); seen != now; seen++) {
                agent_act(a, gp_decide_lc_begin(&dec));
                agent_act(a, gp_decide_lc_end(&dec));
            }
        } else {
            bool busy = atomic_load(&a->R->lc_busy) > 0;
            if (busy != lc_on) {
                agent_act(a, busy ? gp_decide_lc_begin(&dec) : gp_decide_lc_end(&dec));
                lc_on = busy;
            }
        }
        if (last)
            break;
        uint64_t now = hw_mono_ns();
        last = now >= a->end && (atomic_load(&a->R->lc_running) == 0 || now >= a->end + HW_AGENT_GRACE_NS);
        sched_yield();
    }
    /* the run is over: the channels go back on (not a decision: the emulator's run just ends) */
    if (dec.be_disabled && a->found)
        agent_disable(a, false);
    return NULL;
}

static bool streams_idle(struct dev *d, CUstream *st, uint32_t n, CUresult *bad)
{
    for (uint32_t i = 0; i < n; i++) {
        CUresult r = d->cu.cuStreamQuery(st[i]);
        if (r == HW_CUDA_ERROR_NOT_READY)
            return false;
        if (r != HW_CUDA_SUCCESS)
            *bad = r;
    }
    return true;
}

int hw_task_run(struct region *R, struct slot *sl, char *err, size_t errlen)
{
    const struct calib *c = &R->calib;
    const struct klaunch *k = sl->k;
    uint32_t nk = sl->nk;
    uint64_t duration = sl->duration_ns;
    uint32_t max_smem = 0;
    /* of the default work kernel's launches: each shape's variant gets its own allowance (shape_load) */
    for (uint32_t i = 0; i < nk; i++)
        max_smem = k[i].shape == 0 && k[i].smem > max_smem ? k[i].smem : max_smem;
    hw_rm_capture(sl->preempt_mode);
    struct dev d;
    memset(&d, 0, sizeof(d));
    if (dev_open(&d, max_smem, err, errlen))
        return -1;
    for (uint32_t i = 0; i < nk; i++) {
        if (k[i].shape >= c->nshapes || k[i].shape >= HW_MAX_SHAPES) {
            snprintf(err, errlen, "kernel %u runs as shape %u, the calibration has %u", i, k[i].shape, c->nshapes);
            return -1;
        }
        if (k[i].shape && !d.sfn[k[i].shape] && shape_load(&d, &c->shapes[k[i].shape], k[i].shape, err, errlen))
            return -1;
    }
    CUstream st[HW_MAX_STREAMS];
    for (uint32_t i = 0; i < sl->streams; i++)
        CU_TRY(&d, d.cu.cuStreamCreate(&st[i], HW_CU_STREAM_NON_BLOCKING), "cuStreamCreate", err, errlen);
    apply_policy(sl);
    for (uint32_t i = 0; i < sl->streams; i++)
        CU_TRY(&d, launch(&d, st[i], 1, 1, max_smem), "warm-up launch", err, errlen);
    for (uint32_t i = 0; i < sl->streams; i++)
        CU_TRY(&d, d.cu.cuStreamSynchronize(st[i]), "warm-up", err, errlen);
    atomic_store(&sl->state, 1);
    while (!atomic_load(&R->go))
        usleep(1000);
    const uint64_t t0 = R->t0, end = t0 + duration;
    struct agent ag = {.R = R, .sl = sl, .end = end};
    pthread_t agent;
    ag.found = sl->sched_action >= 0 && hw_rm_group(&ag.g);
    bool agent_on = sl->sched_action >= 0 && pthread_create(&agent, NULL, agent_main, &ag) == 0;
    const uint64_t *arr = (const uint64_t *)((const char *)R + sl->arr_off);
    struct rec *rec = (struct rec *)((char *)R + sl->rec_off);
    bool closed = sl->closed;
    uint64_t next = t0 + sl->start_ns, ai = 0;
    sleep_until(t0);
    for (;;) {
        uint64_t arrival = closed ? next : ai < sl->narr ? t0 + arr[ai++] : UINT64_MAX;
        if (arrival >= end || sl->nrec == sl->cap)
            break;
        sleep_until(arrival);
        uint64_t start = hw_mono_ns();
        uint64_t last = start + sl->preprocess_ns;
        while (hw_mono_ns() < last)
            ;
        for (uint32_t i = 0; i < nk; i++)
            for (uint32_t r = 0; r < k[i].repeat; r++) {
                uint64_t now;
                while ((now = hw_mono_ns()) < last + k[i].gap_ns)
                    ;
                last = now;
                CU_TRY(&d, launch_shape(&d, k[i].shape ? d.sfn[k[i].shape] : d.fn, k[i].threads, st[k[i].stream],
                                        k[i].blocks, k[i].iters, k[i].smem), "cuLaunchKernel", err, errlen);
            }
        if (sl->lc) {
            atomic_fetch_add(&R->lc_busy, 1);
            atomic_fetch_add(&R->lc_requests, 1);
        }
        CUresult bad = HW_CUDA_SUCCESS;
        uint64_t done;
        while (!streams_idle(&d, st, sl->streams, &bad) && (done = hw_mono_ns()) < end)
            ;
        done = hw_mono_ns();
        if (sl->lc)
            atomic_fetch_sub(&R->lc_busy, 1);
        if (bad != HW_CUDA_SUCCESS) {
            snprintf(err, errlen, "a kernel failed: %s", hw_cuda_strerror(&d.cu, bad));
            return -1;
        }
        rec[sl->nrec++] = (struct rec){arrival - t0, done < end ? done - t0 : UINT64_MAX};
        if (done >= end)
            break;
        next = done + sl->think_ns;
    }
    if (sl->lc)
        atomic_fetch_sub(&R->lc_running, 1);
    /* arrivals the end cut off while the replica was busy were in flight too */
    while (!closed && ai < sl->narr && t0 + arr[ai] < end && sl->nrec < sl->cap)
        rec[sl->nrec++] = (struct rec){arr[ai++], UINT64_MAX};
    /* stay until the end: a context torn down early would disturb the others' measurements */
    sleep_until(end);
    if (agent_on)
        pthread_join(agent, NULL);
    return 0;
}

