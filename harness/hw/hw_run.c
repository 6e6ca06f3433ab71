#include "hw_run.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "abi/nv_ctrl_fifo.h"
#include "abi/nv_engine.h"
#include "base/log.h"
#include "fifo/fifo.h"
#include "hooks/hooks.h"
#include "hw_cuda.h"
#include "hw_rm.h"
#include "analyze.h"
#include "plan.h"
#include "run_sched.h"
#include "profile/profile.h"
#include "sim/sim.h"

/* Wall-clock limits: context creation + JIT, and how long after the end a task may take to stop. */
#define READY_TIMEOUT_NS 90000000000ull
#define STOP_TIMEOUT_NS 30000000000ull
/* Tasks start together this long after the last one is ready. */
#define START_DELAY_NS 200000000ull
/* Calibration: rounds of the work loop of the short and the long run, runs of each (the fastest counts). */
#define CAL_N1 1000u
#define CAL_N2 31000u
#define CAL_RUNS 5

struct calib {
    int ok;
    char err[256];
    char gpu[96];
    int driver_version, cc_major, cc_minor;
    uint32_t sm_count, smem_per_sm, smem_optin, regs, blocks_per_sm, pad_bytes;
    double ns_per_iter, fixed_ns;
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
    uint64_t t0;                  /* CLOCK_MONOTONIC ns of time 0 */
    struct calib calib;
    uint32_t nslots;
    struct slot slots[];
};

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * A late wake-up would count as GPU latency: a VM's timer wake-ups are late by
 * up to a few hundred us (the first H200 recordings' LC-alone p99 was 3x its
 * p50), so sleep to 1 ms before and spin the rest.
 */
#define SPIN_NS 1000000ull

static void sleep_until(uint64_t t)
{
    uint64_t now = mono_ns();
    if (t > now + SPIN_NS + 20000) {
        uint64_t w = t - SPIN_NS;
        struct timespec ts = {.tv_sec = (time_t)(w / 1000000000ull), .tv_nsec = (long)(w % 1000000000ull)};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
            ;
    }
    while (mono_ns() < t)
        ;
}

/* ---- the task process ---- */

struct dev {
    struct hw_cuda cu;
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction fn;
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

static CUresult launch(struct dev *d, CUstream st, uint32_t blocks, uint32_t iters, uint32_t smem)
{
    void *args[] = {&d->out, &iters, &smem};
    return d->cu.cuLaunchKernel(d->fn, blocks, 1, 1, HW_WORK_THREADS, 1, 1, smem, st, args, NULL);
}

/* Host time of one launch + completion. */
static int timed(struct dev *d, CUstream st, uint32_t blocks, uint32_t iters, uint32_t smem, double *ns, char *err,
                 size_t errlen)
{
    uint64_t t0 = mono_ns();
    CU_TRY(d, launch(d, st, blocks, iters, smem), "cuLaunchKernel", err, errlen);
    CU_TRY(d, d->cu.cuStreamSynchronize(st), "cuStreamSynchronize", err, errlen);
    *ns = (double)(mono_ns() - t0);
    return 0;
}

static int calibrate(struct calib *c, char *err, size_t errlen)
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
    return 0;
}

struct klaunch {
    uint32_t blocks, iters, smem, stream, repeat;
};

static uint32_t task_launches(const struct sc_task *t, const struct calib *c, struct klaunch *k)
{
    for (uint32_t i = 0; i < t->kernel_count; i++) {
        const struct sc_kernel *kd = &t->kernels[i];
        uint32_t waves = (kd->blocks + c->sm_count - 1) / c->sm_count;
        double iters = round((double)kd->duration_ns / waves / c->ns_per_iter);
        uint32_t smem = kd->shared_kb * 1024u;
        k[i] = (struct klaunch){.blocks = kd->blocks, .iters = iters < 1 ? 1 : (uint32_t)iters,
                                .smem = smem > c->pad_bytes ? smem : c->pad_bytes, .stream = kd->stream,
                                .repeat = kd->repeat};
    }
    return t->kernel_count;
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
    while (mono_ns() < a->end) {
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

static int task_run(struct region *R, struct slot *sl, const struct sc_task *t, uint64_t duration, char *err,
                    size_t errlen)
{
    const struct calib *c = &R->calib;
    struct klaunch k[SC_MAX_KERNELS];
    uint32_t nk = task_launches(t, c, k);
    uint32_t max_smem = 0;
    for (uint32_t i = 0; i < nk; i++)
        max_smem = k[i].smem > max_smem ? k[i].smem : max_smem;
    hw_rm_capture(sl->preempt_mode);
    struct dev d;
    memset(&d, 0, sizeof(d));
    if (dev_open(&d, max_smem, err, errlen))
        return -1;
    CUstream st[SC_MAX_STREAMS];
    for (uint32_t i = 0; i < t->streams; i++)
        CU_TRY(&d, d.cu.cuStreamCreate(&st[i], HW_CU_STREAM_NON_BLOCKING), "cuStreamCreate", err, errlen);
    apply_policy(sl);
    for (uint32_t i = 0; i < t->streams; i++)
        CU_TRY(&d, launch(&d, st[i], 1, 1, max_smem), "warm-up launch", err, errlen);
    for (uint32_t i = 0; i < t->streams; i++)
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
    bool closed = t->arrival == SC_ARRIVAL_CLOSED;
    uint64_t next = t0 + t->start_ns, ai = 0;
    sleep_until(t0);
    for (;;) {
        uint64_t arrival = closed ? next : ai < sl->narr ? t0 + arr[ai++] : UINT64_MAX;
        if (arrival >= end || sl->nrec == sl->cap)
            break;
        sleep_until(arrival);
        uint64_t start = mono_ns();
        while (mono_ns() < start + t->preprocess_ns)
            ;
        for (uint32_t i = 0; i < nk; i++)
            for (uint32_t r = 0; r < k[i].repeat; r++)
                CU_TRY(&d, launch(&d, st[k[i].stream], k[i].blocks, k[i].iters, k[i].smem), "cuLaunchKernel", err,
                       errlen);
        if (sl->lc) {
            atomic_fetch_add(&R->lc_busy, 1);
            atomic_fetch_add(&R->lc_requests, 1);
        }
        CUresult bad = HW_CUDA_SUCCESS;
        uint64_t done;
        while (!streams_idle(&d, st, t->streams, &bad) && (done = mono_ns()) < end)
            ;
        done = mono_ns();
        if (sl->lc)
            atomic_fetch_sub(&R->lc_busy, 1);
        if (bad != HW_CUDA_SUCCESS) {
            snprintf(err, errlen, "a kernel failed: %s", hw_cuda_strerror(&d.cu, bad));
            return -1;
        }
        rec[sl->nrec++] = (struct rec){arrival - t0, done < end ? done - t0 : UINT64_MAX};
        if (done >= end)
            break;
        next = done + t->think_ns;
    }
    /* arrivals the end cut off while the replica was busy were in flight too */
    while (!closed && ai < sl->narr && t0 + arr[ai] < end && sl->nrec < sl->cap)
        rec[sl->nrec++] = (struct rec){arr[ai++], UINT64_MAX};
    /* stay until the end: a context torn down early would disturb the others' measurements */
    sleep_until(end);
    if (agent_on)
        pthread_join(agent, NULL);
    return 0;
}

/* ---- the parent ---- */

static void note(struct sc_results *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct sc_results *out, const char *fmt, ...)
{
    if (out->hw.note_count >= SC_HW_MAX_NOTES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->hw.notes[out->hw.note_count++], sizeof(out->hw.notes[0]), fmt, ap);
    va_end(ap);
}

/* ---- one phase (a baseline or the run itself) ---- */

struct event {
    uint64_t t;
    uint32_t inst, num;
    int kind;                     /* 0 arrive, 1 done, 2 open at the end */
};

static int event_cmp(const void *a, const void *b)
{
    const struct event *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind - y->kind;
    if (x->inst != y->inst)
        return x->inst < y->inst ? -1 : 1;
    return x->num < y->num ? -1 : x->num > y->num;
}

static void mark(struct sim *s, const char *name, uint64_t a, uint64_t b)
{
    struct sim_rec r = {.kind = SIM_REC_MARK, .engine = SIM_NONE, .runlist = SIM_NONE, .tsg = SIM_NONE,
                        .chid = SIM_NONE, .a = a, .b = b, .name = name};
    sim_trace(s, &r);
}

/* Policy and scheduler decisions for every instance, as the emulator's hooks would take them. */
static int decide(const struct scenario *sc, const struct profile *p, struct sim *sim, struct region *R,
                  struct hooks_watch *watch, struct sc_results *out, char *err, size_t errlen)
{
    struct hooks *h = NULL;
    if (sc->policy.plugin[0]) {
        char path[512];
        if (hooks_find_policy(sc->policy.plugin, path, sizeof(path), err, errlen))
            return -1;
        struct hooks_env env;
        fifo_hooks_env_init(&env, p, sim);
        env.watch = watch;
        h = hooks_create(&env);
        if (!h || hooks_load_policy(h, path, (const char *const *)sc->policy.args, sc->policy.nargs, err, errlen)) {
            hooks_destroy(h);
            return -1;
        }
    }
    for (uint32_t k = 0; k < R->nslots; k++) {
        struct slot *sl = &R->slots[k];
        const struct sc_task *t = &sc->tasks[sl->task];
        uint64_t ts = sc->gpu.timeslice_us ? sc->gpu.timeslice_us : p->default_timeslice_us;
        uint32_t il = 1;
        /* libcuda sets 2048 us on its compute group right after creating it */
        const uint64_t libcuda_ts = 2048;
        if (h) {
            struct hook_task ht = {.gpu = 0, .tsg_id = k, .engine_type = NV2080_ENGINE_TYPE_GR0, .pid = (int32_t)k,
                                   .tid = (int32_t)k, .timeslice_us = ts, .interleave = il, .channel_count = 8};
            snprintf(ht.comm, sizeof(ht.comm), "%s", t->comm);
            hooks_task_init(h, &ht, &ts, &il);
            ht.timeslice_us = ts;
            ht.interleave = il;
            uint64_t v = libcuda_ts;
            hooks_timeslice_set(h, &ht, &v);
            ts = v;
        } else {
            ts = libcuda_ts;
        }
        if (sc->scheduler.kind == SC_SCHED_GPREEMPT && sc->scheduler.set_timeslices)
            ts = t->cls == SC_LC ? sc->scheduler.lc_timeslice_us : sc->scheduler.be_timeslice_us;
        if (sc->gpu.timeslice_us && !h && sc->scheduler.kind == SC_SCHED_NONE)
            ts = sc->gpu.timeslice_us;
        sl->want_ts = ts != libcuda_ts;
        sl->ts_us = ts;
        sl->want_il = il != 1;
        sl->il = il;
        enum sc_preempt_mode pm = t->preempt_mode;
        if (pm == SC_PREEMPT_PROFILE)
            pm = sc->gpu.preempt_mode;
        sl->preempt_mode = pm == SC_PREEMPT_PROFILE || pm == SC_PREEMPT_CILP ? -1 : (int)pm;
        sl->lc = t->cls == SC_LC;
        sl->sched_action = sc->scheduler.kind == SC_SCHED_GPREEMPT && t->cls == SC_BE &&
                                   sc->scheduler.action != SC_SCHED_TIMESLICE
                               ? (int)sc->scheduler.action
                               : -1;
        sl->sched_method = run_sched_method(sc);
    }
    if (hooks_acts_on_work_submit(h))
        note(out, "policy %s acts at every kernel launch (on_work_submit, or a cuLaunchKernel uprobe calling "
                  "bpf_nv_gpu_preempt_tsg): not run (the hardware backend applies task_init and SET_TIMESLICE "
                  "decisions only)", hooks_policy_name(h));
    hooks_destroy(h);
    if (sc->fault_count)
        note(out, "%u fault(s): not injected on hardware", sc->fault_count);
    if (sc->gpu.inject_latency)
        note(out, "gpu.inject_latency: ignored (the hardware has its own latencies)");
    for (int f = 0; f < SC_T_COUNT; f++)
        if (sc->gpu.timing[f].set) {
            note(out, "gpu.timing overrides: ignored (they describe the model, not the hardware)");
            break;
        }
    return 0;
}

/*
 * The region the task processes share: header, slots, then each instance's arrivals (the plan's) and room
 * for its records. MAP_FAILED with a reason in err.
 */
static struct region *region_map(const struct scenario *sc, const struct sc_plan *plan, const struct calib *cal,
                                 size_t *size_out, char *err, size_t errlen)
{
    uint32_t ninst = plan->ninst;
    size_t size = sizeof(struct region) + ninst * sizeof(struct slot);
    uint64_t *offs = calloc(3 * (size_t)ninst + 1, sizeof(*offs));
    if (!offs) {
        snprintf(err, errlen, "out of memory");
        return MAP_FAILED;
    }
    for (uint32_t k = 0; k < ninst; k++) {
        const struct sc_task *t = &sc->tasks[plan->inst[k].task];
        uint64_t cap = plan->inst[k].count + 16;
        if (t->arrival == SC_ARRIVAL_CLOSED)
            cap = sc->duration_ns / (t->think_ns + t->preprocess_ns + 2000) + 16;
        size = (size + 63) & ~(size_t)63;
        offs[3 * k] = size;
        size += plan->inst[k].count * sizeof(uint64_t);
        size = (size + 63) & ~(size_t)63;
        offs[3 * k + 1] = size;
        offs[3 * k + 2] = cap;
        size += cap * sizeof(struct rec);
    }
    struct region *R = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (R == MAP_FAILED) {
        snprintf(err, errlen, "cannot map %zu bytes for the task processes: %s", size, strerror(errno));
        free(offs);
        return MAP_FAILED;
    }
    R->calib = *cal;
    R->nslots = ninst;
    for (uint32_t k = 0; k < ninst; k++) {
        struct slot *sl = &R->slots[k];
        sl->task = plan->inst[k].task;
        sl->replica = plan->inst[k].replica;
        sl->arr_off = offs[3 * k];
        sl->narr = plan->inst[k].count;
        if (sl->narr)
            memcpy((char *)R + sl->arr_off, plan->inst[k].arrive_ns, sl->narr * sizeof(uint64_t));
        sl->rec_off = offs[3 * k + 1];
        sl->cap = offs[3 * k + 2];
    }
    free(offs);
    *size_out = size;
    return R;
}

/* The task processes, one after the other, each ready before the next starts (contexts in instance order). */
static int tasks_start(const struct scenario *sc, struct region *R, pid_t *pids, uint64_t w0, char *err,
                       size_t errlen)
{
    for (uint32_t k = 0; k < R->nslots; k++) {
        struct slot *sl = &R->slots[k];
        const struct sc_task *t = &sc->tasks[sl->task];
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            prctl(PR_SET_NAME, t->comm);
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            prctl(PR_SET_TIMERSLACK, 1UL);
            char e[256] = "";
            int r = task_run(R, sl, t, sc->duration_ns, e, sizeof(e));
            if (r) {
                snprintf(sl->err, sizeof(sl->err), "%s", e);
                atomic_store(&sl->state, -1);
            } else {
                atomic_store(&sl->state, 2);
            }
            _exit(r ? 1 : 0);
        }
        if (pid < 0) {
            snprintf(err, errlen, "fork: %s", strerror(errno));
            return -1;
        }
        pids[k] = pid;
        while (atomic_load(&sl->state) == 0 && mono_ns() - w0 < READY_TIMEOUT_NS)
            usleep(1000);
        if (atomic_load(&sl->state) != 1) {
            snprintf(err, errlen, "task '%s' replica %u did not start on the GPU: %s", t->name, sl->replica,
                     sl->err[0] ? sl->err : "timed out");
            return -1;
        }
    }
    return 0;
}

/* Starts the clock of every task process together and waits for all of them to finish the run. */
static int tasks_wait(const struct scenario *sc, struct region *R, pid_t *pids, char *err, size_t errlen)
{
    R->t0 = mono_ns() + START_DELAY_NS;
    atomic_store(&R->go, 1);
    uint64_t deadline = R->t0 + sc->duration_ns + STOP_TIMEOUT_NS;
    uint32_t left = R->nslots;
    while (left && mono_ns() < deadline) {
        left = 0;
        for (uint32_t k = 0; k < R->nslots; k++) {
            int status;
            if (pids[k] > 0 && waitpid(pids[k], &status, WNOHANG) == pids[k])
                pids[k] = -pids[k];
            left += pids[k] > 0;
        }
        if (left)
            usleep(2000);
    }
    for (uint32_t k = 0; k < R->nslots; k++) {
        struct slot *sl = &R->slots[k];
        if (atomic_load(&sl->state) != 2) {
            snprintf(err, errlen, "task '%s' replica %u failed on the GPU: %s", sc->tasks[sl->task].name,
                     sl->replica, sl->err[0] ? sl->err : left ? "did not stop" : "died");
            return -1;
        }
    }
    return 0;
}

/* The task processes' request records as marks in time order, through the emulator's analyzer (subscribed to sim). */
static int feed_marks(const struct scenario *sc, const struct region *R, struct sim *sim, char *err, size_t errlen)
{
    size_t nev = 0;
    for (uint32_t k = 0; k < R->nslots; k++)
        nev += 2 * R->slots[k].nrec;
    struct event *ev = malloc((nev ? nev : 1) * sizeof(*ev));
    if (!ev) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    nev = 0;
    for (uint32_t k = 0; k < R->nslots; k++) {
        const struct slot *sl = &R->slots[k];
        const struct rec *rec = (const struct rec *)((const char *)R + sl->rec_off);
        for (uint64_t i = 0; i < sl->nrec; i++) {
            ev[nev++] = (struct event){rec[i].arrive, k, (uint32_t)i, 0};
            ev[nev++] = rec[i].done == UINT64_MAX ? (struct event){sc->duration_ns, k, (uint32_t)i, 2}
                                                  : (struct event){rec[i].done, k, (uint32_t)i, 1};
        }
    }
    qsort(ev, nev, sizeof(*ev), event_cmp);
    static const char *const names[] = {SC_MARK_ARRIVE, SC_MARK_DONE, SC_MARK_OPEN};
    for (uint32_t k = 0; k < R->nslots; k++)
        mark(sim, SC_MARK_TSG, k, k);
    for (size_t i = 0; i < nev; i++) {
        sim_run_until(sim, ev[i].t);
        mark(sim, names[ev[i].kind], ev[i].inst, ev[i].num);
    }
    free(ev);
    sim_run_until(sim, sc->duration_ns);
    return 0;
}

/* What the run decided and counted per replica into out (scheduler decisions) and what it could not apply (notes). */
static void report_applied(const struct scenario *sc, const struct region *R, struct sc_results *out)
{
    for (uint32_t k = 0; k < R->nslots; k++)
        for (int d = 0; d < GP_DECISION_COUNT; d++)
            out->sched_decided[d] += d == GP_DECIDE_NOTHING ? 0 : R->slots[k].decided[d];
    for (uint32_t k = 0; k < R->nslots; k++) {
        const struct slot *sl = &R->slots[k];
        const char *name = sc->tasks[sl->task].name;
        if (sl->sched_action >= 0 && (!sl->group_found || (sl->sched_action == SC_SCHED_DISABLE && !sl->nchannels)))
            note(out, "%s#%u: scheduler action %s not applied: libcuda's compute channel group was not seen",
                 name, sl->replica, sc_sched_action_names[sl->sched_action]);
        else if (sl->sched_action >= 0)
            LOG_INFO("hw", "%s#%u: scheduler %s: %llu calls from an agent thread in the task (a stock driver "
                     "takes a group's controls from its opener only), %llu failed (last 0x%x)", name,
                     sl->replica, sc_sched_action_names[sl->sched_action], (unsigned long long)sl->sched_calls,
                     (unsigned long long)sl->sched_failed, sl->sched_last_bad);
        if (sl->sched_failed)
            note(out, "%s#%u: %llu of %llu scheduler calls failed (last 0x%x)", name, sl->replica,
                 (unsigned long long)sl->sched_failed, (unsigned long long)sl->sched_calls, sl->sched_last_bad);
        if (!sl->group_found && (sl->want_ts || sl->want_il)) {
            note(out, "%s#%u: libcuda's compute channel group was not seen: timeslice/interleave not applied",
                 name, sl->replica);
            continue;
        }
        if (sl->want_ts && sl->ts_status)
            note(out, "%s#%u: SET_TIMESLICE %llu us answered 0x%x", name, sl->replica,
                 (unsigned long long)sl->ts_us, sl->ts_status);
        if (sl->want_il && sl->il_status)
            note(out, "%s#%u: SET_INTERLEAVE_LEVEL %u answered 0x%x (needs CAP_SYS_NICE)", name, sl->replica,
                 sl->il, sl->il_status);
        if (sl->preempt_mode >= 0 && !sl->pm_rewrites)
            note(out, "%s#%u: libcuda set no compute preemption mode to replace: preempt_mode not applied", name,
                 sl->replica);
        LOG_INFO("hw", "%s#%u: group %s, libcuda timeslice %llu us, %u channels, timeslice %llu us (0x%x), "
                 "interleave %u (0x%x), preemption mode rewrites %u", name, sl->replica,
                 sl->group_found ? "found" : "not found", (unsigned long long)sl->libcuda_ts_us, sl->nchannels,
                 (unsigned long long)sl->ts_us, sl->ts_status, sl->il, sl->il_status, sl->pm_rewrites);
    }
}

static int phase(const struct scenario *sc, uint64_t seed, const struct calib *cal, const struct profile *p,
                 bool main_run, const struct sc_run_opts *o, struct sc_results *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    out->sc = sc;
    out->seed = seed;
    struct sim_config scfg = {.seed = seed, .clock = NVEMU_CLOCK_VIRTUAL, .trace_path = main_run ? o->trace_csv : NULL};
    struct sim *sim = sim_create(&scfg);
    if (sim)
        fifo_rec_register(sim); /* its request marks are records of the trace's kinds, named in trace.csv */
    struct sc_analyzer *an = sim ? sc_analyzer_create(sc, seed, p, out) : NULL;
    /* the plan's arrivals; faults are not injected on hardware, so none ends an instance's */
    struct sc_plan plan;
    memset(&plan, 0, sizeof(plan));
    struct sc_plan_opts po = {.idle = NULL, .faults = false};
    int rc = -1;
    struct region *R = MAP_FAILED;
    size_t size = 0;
    uint32_t ninst = sc_instance_count(sc);
    pid_t *pids = calloc(ninst ? ninst : 1, sizeof(*pids));
    if (!sim || !an || !pids || sc_plan_build(&plan, sc, seed, &po)) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    sim_trace_subscribe(sim, sc_analyzer_record, an);
    R = region_map(sc, &plan, cal, &size, err, errlen);
    if (R == MAP_FAILED)
        goto done;
    if (main_run && decide(sc, p, sim, R, o->policy_watch, out, err, errlen))
        goto done;
    if (!main_run)
        for (uint32_t k = 0; k < ninst; k++) {
            R->slots[k].preempt_mode = -1;
            R->slots[k].sched_action = -1;
        }
    uint64_t w0 = mono_ns();
    int trc = tasks_start(sc, R, pids, w0, err, errlen);
    if (trc == 0)
        trc = tasks_wait(sc, R, pids, err, errlen);
    out->wall_ns = mono_ns() - w0;
    if (trc || feed_marks(sc, R, sim, err, errlen))
        goto done;
    if (main_run)
        report_applied(sc, R, out);
    rc = 0;
done:
    for (uint32_t k = 0; pids && R != MAP_FAILED && k < ninst; k++) {
        if (pids[k] > 0) {
            kill(pids[k], SIGKILL);
            waitpid(pids[k], NULL, 0);
        }
    }
    if (an) {
        out->digest = sim ? sim_trace_digest(sim) : 0;
        sc_analyzer_finish(an, sc->duration_ns);
    }
    if (R != MAP_FAILED)
        munmap(R, size);
    sc_plan_free(&plan);
    free(pids);
    if (sim)
        sim_destroy(sim);
    if (rc && !out->error[0])
        snprintf(out->error, sizeof(out->error), "%s", err);
    return rc;
}

static int run_calibration(struct calib *cal, char *err, size_t errlen)
{
    struct calib *shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) {
        snprintf(err, errlen, "mmap: %s", strerror(errno));
        return -1;
    }
    memset(shared, 0, sizeof(*shared));
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        char e[256] = "";
        shared->ok = calibrate(shared, e, sizeof(e)) == 0;
        snprintf(shared->err, sizeof(shared->err), "%s", e);
        _exit(0);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || !shared->ok) {
        snprintf(err, errlen, "GPU calibration failed: %s", pid < 0 ? strerror(errno)
                 : shared->err[0] ? shared->err : "the calibration process died");
        munmap(shared, sizeof(*shared));
        return -1;
    }
    *cal = *shared;
    munmap(shared, sizeof(*shared));
    return 0;
}

static void read_driver_version(char *buf, size_t len)
{
    snprintf(buf, len, "unknown");
    FILE *f = fopen("/sys/module/nvidia/version", "r");
    if (!f)
        return;
    if (fgets(buf, (int)len, f))
        buf[strcspn(buf, "\n")] = '\0';
    fclose(f);
}

int sc_run_hw(const struct scenario *s, const struct sc_run_opts *o, struct sc_results *out, char *err,
              size_t errlen)
{
    memset(out, 0, sizeof(*out));
    out->sc = s;
    uint64_t seed = o->has_seed ? o->seed : s->seed;
    for (uint32_t t = 0; t < s->task_count; t++) {
        if (s->tasks[t].process) {
            snprintf(err, errlen, "task '%s' is an external process: the hardware backend runs synthetic tasks only",
                     s->tasks[t].name);
            snprintf(out->error, sizeof(out->error), "%s", err);
            return -1;
        }
    }
    struct profile *p = profile_load(s->gpu.profile, err, errlen);
    struct calib cal;
    memset(&cal, 0, sizeof(cal));
    if (!p || run_calibration(&cal, err, errlen)) {
        snprintf(out->error, sizeof(out->error), "%s", err);
        out->hw.used = true;
        profile_free(p);
        sc_results_evaluate(out);
        return -1;
    }
    if (o->progress)
        fprintf(o->progress, "%s: %s, %u SMs, %u registers/thread, %.1f ns per round of work\n", s->name, cal.gpu,
                cal.sm_count, cal.regs, cal.ns_per_iter);
    struct sc_task_result alone[SC_MAX_TASKS];
    bool have_alone[SC_MAX_TASKS] = {false};
    int rc = 0;
    for (uint32_t t = 0; s->baseline && t < s->task_count && rc == 0; t++) {
        struct scenario *b = sc_task_alone(s, t);
        if (!b) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
            break;
        }
        struct sc_results br;
        rc = phase(b, seed, &cal, p, false, o, &br, err, errlen);
        if (rc == 0) {
            alone[t] = br.tasks[0];
            br.tasks[0].lat_ns = NULL;
            have_alone[t] = true;
        } else {
            char why[256];
            snprintf(why, sizeof(why), "baseline run of task '%s' alone: %s", s->tasks[t].name, err);
            snprintf(err, errlen, "%s", why);
        }
        sc_results_free(&br);
        free(b);
    }
    if (rc == 0) {
        rc = phase(s, seed, &cal, p, true, o, out, err, errlen);
    } else {
        memset(out, 0, sizeof(*out));
        out->sc = s;
        snprintf(out->error, sizeof(out->error), "%s", err);
    }
    for (uint32_t t = 0; t < s->task_count; t++) {
        if (!have_alone[t])
            continue;
        struct sc_results tmp = {0};
        tmp.tasks[0] = alone[t];
        sc_results_set_alone(out, t, &tmp);
        free(alone[t].lat_ns);
    }
    struct sc_hw_info *h = &out->hw;
    h->used = true;
    snprintf(h->gpu, sizeof(h->gpu), "%s", cal.gpu);
    read_driver_version(h->driver, sizeof(h->driver));
    h->cuda_driver_version = cal.driver_version;
    h->cc_major = cal.cc_major;
    h->cc_minor = cal.cc_minor;
    h->sm_count = cal.sm_count;
    h->smem_per_sm_kb = cal.smem_per_sm / 1024;
    h->regs_per_thread = cal.regs;
    h->threads_per_block = HW_WORK_THREADS;
    h->blocks_per_sm = cal.blocks_per_sm;
    h->occupancy_pad_kb = cal.pad_bytes / 1024;
    h->ns_per_iter = cal.ns_per_iter;
    h->launch_fixed_ns = cal.fixed_ns;
    if (p->sm_count != cal.sm_count)
        note(out, "the GPU has %u SMs, profile '%s' %u: waves differ from the model's", cal.sm_count,
             s->gpu.profile, p->sm_count);
    profile_free(p);
    sc_results_evaluate(out);
    sc_results_warn(out);
    return rc;
}
