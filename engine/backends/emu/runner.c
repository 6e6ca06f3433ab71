/*
 * Drives one scenario through an in-process emulator in virtual time.
 *
 * Each task replica ("instance") is one simulated process: its own fd table
 * identity (pid, comm), its own libnvrm connection and CUDA-shaped context.
 * A request is handled the way a DISB/GPreempt client does: one at a time
 * per instance (later arrivals queue), CPU preprocessing, then every kernel
 * launched on its stream's channel; the request is done when its last kernel
 * completes. The host's own latencies come from the profile's timing: kernels
 * reach the channel launch_us after the launch, the process sees a
 * completion completion_us after it (so a replica's next request leaves its
 * channel group without work for a moment, as on the hardware). Arrivals, preprocessing and faults are sim events; kernels go
 * through nvemu_kernel_submit with a completion callback (core/engine.h).
 * Everything a report needs is a trace record: the analyzer subscribes
 * before the first context is created.
 */
#include "runner.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/emulator.h"
#include "base/log.h"
#include "core/engine.h"
#include "fifo/fifo_rec.h"
#include "front/inproc.h"
#include "hooks/hooks.h"
#include "profile/profile.h"
#include "analyze.h"
#include "baselines.h"
#include "plan.h"
#include "run_ctx.h"
#include "run_proc.h"
#include "run_sched.h"
#include "scenario_calls.h"
#include "sim/sim.h"
#include "spool.h"

struct run;

struct inst {
    struct run *R;
    uint32_t id, task, replica;
    const struct sc_task *t;
    struct run_ctx ctx;
    bool has_ctx;
    bool dead;
    bool external;             /* a process of its own (run_proc.h) reports its requests itself */
    uint64_t *queue;           /* arrival times of queued requests (ring) */
    uint32_t *queue_num;
    uint32_t qhead, qlen, qcap;
    uint32_t next_num;         /* number of the next arrival */
    bool busy;
    uint32_t cur_num;
    uint32_t kernels_left;
    uint32_t next_kernel, next_repeat; /* the request's next launch */
    uint32_t submitted;        /* launches of the request so far */
    bool gap_waited;           /* the next launch's launch_gap has passed */
    double cpu_factor;         /* the request's CPU time over the task's written one (request.cpu_spread) */
    uint64_t cpu_rng;          /* its draws: a stream of the instance's own, so arrivals, the host's jitter and
                                  the other instances draw the same numbers with or without it */
    const struct sc_plan_inst *plan; /* its open-loop arrivals */
    size_t plan_next;          /* index of the next one to place */
    sim_event_id pending_arrival, pending_submit, pending_done;
};

struct run {
    const struct scenario *sc;
    nvemu *emu;
    struct sim *sim;
    nvemu_fdtable *fdt;
    struct inst *inst;
    uint32_t ninst;
    struct run_sched sched;
    struct sc_plan plan;
    uint64_t end_ns;
    uint64_t launch_ns, completion_ns;   /* host latencies (profile timing) */
    uint64_t jitter_ns;                  /* logistic scale of the completion's spread */
    uint64_t jitter_rng;                 /* its own stream, so arrivals draw the same numbers with or without it */
    bool gpu_lost;             /* gpu_lost fault fired: every request from then on fails */
    char err[1024];
};

static void mark(struct run *R, const char *name, uint64_t a, uint64_t b)
{
    struct sim_rec r = {.kind = SIM_REC_MARK, .engine = SIM_NONE, .runlist = SIM_NONE, .tsg = SIM_NONE,
                        .chid = SIM_NONE, .a = a, .b = b, .name = name};
    sim_trace(R->sim, &r);
}

/* ---- arrivals ---- */

static void arrival_fn(struct sim *s, void *arg, uint64_t data);
static void start_next(struct inst *in);

static void schedule_arrival(struct inst *in, uint64_t at)
{
    if (in->dead || in->external || at >= in->R->end_ns)
        return;
    in->pending_arrival = sim_at(in->R->sim, at, arrival_fn, in, 0);
}

/*
 * Open-loop arrivals come from the plan (plan.h), placed one at a time as the previous one happens, so the
 * sim orders them among the model's events as it always did.
 */
static void schedule_next_open_loop(struct inst *in)
{
    if (in->plan->open_loop && in->plan_next < in->plan->count)
        schedule_arrival(in, in->plan->arrive_ns[in->plan_next++]);
}

static int queue_push(struct inst *in, uint64_t at, uint32_t num)
{
    if (in->qlen == in->qcap) {
        uint32_t cap = in->qcap ? in->qcap * 2 : 16;
        uint64_t *q = malloc(cap * sizeof(*q));
        uint32_t *qn = malloc(cap * sizeof(*qn));
        if (!q || !qn) {
            free(q);
            free(qn);
            return -1;
        }
        for (uint32_t i = 0; i < in->qlen; i++) {
            q[i] = in->queue[(in->qhead + i) % in->qcap];
            qn[i] = in->queue_num[(in->qhead + i) % in->qcap];
        }
        free(in->queue);
        free(in->queue_num);
        in->queue = q;
        in->queue_num = qn;
        in->qcap = cap;
        in->qhead = 0;
    }
    uint32_t slot = (in->qhead + in->qlen) % in->qcap;
    in->queue[slot] = at;
    in->queue_num[slot] = num;
    in->qlen++;
    return 0;
}

/*
 * The task's own calls of user functions (task.calls) at `when`, where a policy's uprobes see them. locked:
 * called from a sim event, which reaches the emulator as the runner's other events do (fifo_submit), without
 * taking its lock again; else the lock is taken here.
 */
static void user_calls(struct inst *in, enum sc_call_when when, bool locked)
{
    const struct sc_task *t = in->t;
    struct hooks *h = nvemu_hooks(in->R->emu);
    if (!t->call_count || !hooks_wants(h, HOOK_EVENT_USER_CALL))
        return;
    int32_t pid = (int32_t)(1000 + in->id);
    struct hook_task who = {.pid = pid, .tid = pid, .uid = 1000, .gid = 1000, .hclient = in->ctx.hClient,
                            .htsg = in->ctx.hTsg, .tsg_id = in->ctx.tsg_id};
    snprintf(who.comm, sizeof who.comm, "%s", t->comm);
    /* ${context}: a CUcontext stands for a pointer of the process, one per process */
    struct sc_call_vars v = {.pid = (uint64_t)pid, .hclient = in->ctx.hClient, .htsg = in->ctx.hTsg,
                             .tsg_id = in->ctx.tsg_id,
                             .context = in->has_ctx ? 0x7f1c00000000ull | (uint64_t)in->id << 16 : 0};
    pthread_mutex_t *lock = nvemu_lock_of(in->R->emu);
    for (uint32_t i = 0; i < t->call_count; i++) {
        if (t->calls[i].when != when)
            continue;
        uint64_t regs[6];
        sc_call_regs(&t->calls[i], &v, regs);
        if (!locked)
            pthread_mutex_lock(lock);
        hooks_user_call(h, t->calls[i].lib, t->calls[i].func, regs, 0, &who);
        if (!locked)
            pthread_mutex_unlock(lock);
    }
}

/*
 * cudaDeviceSynchronize around the wait for a request's kernels: entered once they are submitted, returning
 * cudaSuccess when the process sees the last one complete (a sim event, as user_calls with locked).
 */
static void device_sync(struct inst *in, bool ret)
{
    struct hooks *h = nvemu_hooks(in->R->emu);
    if (!hooks_wants(h, HOOK_EVENT_USER_CALL))
        return;
    int32_t pid = (int32_t)(1000 + in->id);
    struct hook_task who = {.pid = pid, .tid = pid, .uid = 1000, .gid = 1000, .hclient = in->ctx.hClient,
                            .htsg = in->ctx.hTsg, .tsg_id = in->ctx.tsg_id};
    snprintf(who.comm, sizeof who.comm, "%s", in->t->comm);
    static const uint64_t no_args[6];
    hooks_user_call_half(h, "libcudart.so", "cudaDeviceSynchronize", no_args, 0, &who, ret);
}

static void arrival_fn(struct sim *s, void *arg, uint64_t data)
{
    (void)data;
    struct inst *in = arg;
    in->pending_arrival = 0;
    if (in->dead)
        return;
    uint64_t now = sim_now(s);
    uint32_t num = in->next_num++;
    mark(in->R, SC_MARK_ARRIVE, in->id, num);
    user_calls(in, SC_CALL_REQUEST, true);
    if (in->R->gpu_lost) {
        /* The client's first launch fails at once; a closed loop gives up, an open one keeps getting requests. */
        mark(in->R, SC_MARK_FAIL, in->id, num);
        schedule_next_open_loop(in);
        return;
    }
    if (queue_push(in, now, num) != 0) {
        mark(in->R, SC_MARK_FAIL, in->id, num);
        return;
    }
    schedule_next_open_loop(in);
    if (!in->busy)
        start_next(in);
}

/* ---- requests ---- */

/* The process sees its request's last kernel complete. */
static void request_done_fn(struct sim *s, void *arg, uint64_t data)
{
    (void)data;
    struct inst *in = arg;
    struct run *R = in->R;
    uint64_t done_t = sim_now(s);
    in->pending_done = 0;
    if (in->dead || !in->busy)
        return;
    mark(R, SC_MARK_DONE, in->id, in->cur_num);
    device_sync(in, true);
    in->busy = false;
    if (in->t->cls == SC_LC)
        run_sched_lc_done(&R->sched, in->id);
    if (in->t->arrival == SC_ARRIVAL_CLOSED)
        schedule_arrival(in, done_t + in->t->think_ns);
    start_next(in);
}

/*
 * How long the process takes to see its request's last kernel complete: completion_ns, spread by a logistic
 * of scale jitter_ns (the host's wake-up; emu/profiles/h200.yaml cites the recording), never below zero.
 */
static uint64_t completion_delay(struct run *R)
{
    if (!R->jitter_ns)
        return R->completion_ns;
    double u = ((double)(sim_splitmix64(&R->jitter_rng) >> 11) + 0.5) * 0x1.0p-53;
    double d = (double)R->completion_ns + (double)R->jitter_ns * log(u / (1.0 - u));
    return d > 0 ? (uint64_t)d : 0;
}

/* A CPU time of the task's, as the current request spends it. */
static uint64_t cpu_time(const struct inst *in, uint64_t ns)
{
    return in->t->cpu_spread > 0 ? (uint64_t)llround((double)ns * in->cpu_factor) : ns;
}

/* exp(sigma * z), z standard normal (Box-Muller from two uniforms in (0, 1)): median 1, log-space sd sigma. */
static double draw_cpu_factor(struct inst *in)
{
    double u1 = ((double)(sim_splitmix64(&in->cpu_rng) >> 11) + 0.5) * 0x1.0p-53;
    double u2 = ((double)(sim_splitmix64(&in->cpu_rng) >> 11) + 0.5) * 0x1.0p-53;
    double z = sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
    return exp(in->t->cpu_spread * z);
}

static void kernel_done(void *ctx, uint64_t kernel_id, uint64_t tag, uint64_t submit_t, uint64_t done_t)
{
    (void)kernel_id;
    (void)submit_t;
    struct inst *in = ctx;
    if (in->dead || !in->busy || tag != in->cur_num || in->kernels_left == 0)
        return;
    if (--in->kernels_left)
        return;
    struct run *R = in->R;
    uint64_t host = completion_delay(R);
    if (host == 0 || in->R->gpu_lost) {
        request_done_fn(R->sim, in, 0);
        return;
    }
    in->pending_done = sim_at(R->sim, done_t + host, request_done_fn, in, 0);
}

/*
 * Launches the request's kernels from where the last call stopped: back to back until one has a launch_gap
 * still to pass (the CPU time a launch-bound program spends between launches), which brings this back then.
 * Kernels already on the GPU run meanwhile; the request's kernel count is fixed at its first launch.
 */
static void submit_fn(struct sim *s, void *arg, uint64_t data)
{
    (void)data;
    struct inst *in = arg;
    struct run *R = in->R;
    in->pending_submit = 0;
    if (in->dead)
        return;
    const struct sc_task *t = in->t;
    uint32_t expected = 0;
    for (uint32_t k = 0; k < t->kernel_count; k++)
        expected += t->kernels[k].repeat;
    if (in->next_kernel == 0 && in->next_repeat == 0 && !in->gap_waited)
        in->kernels_left = expected;
    uint32_t before = in->submitted;
    bool failed = false;
    while (in->next_kernel < t->kernel_count && !failed) {
        const struct sc_kernel *kd = &t->kernels[in->next_kernel];
        if (kd->launch_gap_ns && !in->gap_waited) {
            in->gap_waited = true;
            in->pending_submit = sim_at(s, sim_now(s) + cpu_time(in, kd->launch_gap_ns), submit_fn, in, 0);
            /* the scheduler hears of an LC request at its first launch */
            if (before == 0 && in->submitted > 0 && t->cls == SC_LC)
                run_sched_lc_submitted(&R->sched, in->id);
            return;
        }
        in->gap_waited = false;
        struct nvemu_kernel fk = {.blocks = kd->blocks, .total_ns = kd->duration_ns, .tag = in->cur_num,
                                  .shared_kb = kd->shared_kb, .threads = kd->threads, .regs = kd->regs,
                                  .blocks_per_sm = kd->blocks_per_sm};
        uint64_t id;
        failed = nvemu_kernel_submit(in->ctx.channels[kd->stream], &fk, kernel_done, in, &id) != NV_OK;
        in->submitted += !failed;
        if (++in->next_repeat == kd->repeat) {
            in->next_repeat = 0;
            in->next_kernel++;
        }
    }
    if (failed) {
        in->kernels_left -= expected - in->submitted;
        LOG_WARN("scenario", "%s#%u: kernel submission failed; request %u reported failed", t->name, in->replica,
                 in->cur_num);
    }
    if (before == 0 && t->cls == SC_LC)
        run_sched_lc_submitted(&R->sched, in->id);
    if (failed && in->kernels_left == 0) {
        if (t->cls == SC_LC)
            run_sched_lc_done(&R->sched, in->id);
        mark(R, SC_MARK_FAIL, in->id, in->cur_num);
        in->busy = false;
        start_next(in);
        return;
    }
    device_sync(in, false);
}

static void start_next(struct inst *in)
{
    if (in->busy || in->dead || in->qlen == 0)
        return;
    in->cur_num = in->queue_num[in->qhead];
    in->qhead = (in->qhead + 1) % in->qcap;
    in->qlen--;
    in->busy = true;
    in->next_kernel = in->next_repeat = in->submitted = 0;
    in->gap_waited = false;
    if (in->t->cpu_spread > 0)
        in->cpu_factor = draw_cpu_factor(in);
    struct sim *s = in->R->sim;
    in->pending_submit = sim_at(s, sim_now(s) + cpu_time(in, in->t->preprocess_ns) + in->R->launch_ns, submit_fn,
                                in, 0);
}

/* ---- faults ---- */

/* Ends an instance: its outstanding requests are reported failed, its process's fds closed. */
static void kill_instance(struct inst *in)
{
    struct run *R = in->R;
    if (in->dead)
        return;
    in->dead = true;
    mark(R, SC_MARK_KILLED, in->id, 0);
    if (in->busy)
        mark(R, SC_MARK_FAIL, in->id, in->cur_num);
    for (uint32_t i = 0; i < in->qlen; i++)
        mark(R, SC_MARK_FAIL, in->id, in->queue_num[(in->qhead + i) % in->qcap]);
    in->busy = false;
    in->qlen = 0;
    if (in->pending_arrival)
        sim_cancel(R->sim, in->pending_arrival);
    if (in->pending_submit)
        sim_cancel(R->sim, in->pending_submit);
    if (in->pending_done)
        sim_cancel(R->sim, in->pending_done);
    run_sched_forget(&R->sched, in->id);
    if (in->has_ctx) {
        run_ctx_kill(&in->ctx);
        in->has_ctx = false;
    }
}

/* Reports the instance's request in progress and its queued ones failed; the instance lives on. */
static void fail_outstanding(struct inst *in)
{
    struct run *R = in->R;
    if (in->busy) {
        mark(R, SC_MARK_FAIL, in->id, in->cur_num);
        if (in->t->cls == SC_LC)
            run_sched_lc_done(&R->sched, in->id);
    }
    for (uint32_t i = 0; i < in->qlen; i++)
        mark(R, SC_MARK_FAIL, in->id, in->queue_num[(in->qhead + i) % in->qcap]);
    in->busy = false;
    in->qlen = 0;
    if (in->pending_submit)
        sim_cancel(R->sim, in->pending_submit);
    in->pending_submit = 0;
    if (in->pending_done)
        sim_cancel(R->sim, in->pending_done);
    in->pending_done = 0;
}

/*
 * GPU 0 falls off the bus. Every task runs on it: what they have in flight
 * is reported failed first (so completions the model may still deliver are
 * ignored), then the emulator is told (RM answers NV_ERR_GPU_IS_LOST / -EINVAL
 * from then on, the FIFO stops running work).
 */
static void gpu_lost_fn(struct sim *s, void *arg, uint64_t data)
{
    (void)s;
    struct run *R = arg;
    R->gpu_lost = true;
    mark(R, SC_MARK_GPU_LOST, data, 0);
    for (uint32_t k = 0; k < R->ninst; k++)
        if (!R->inst[k].dead && !R->inst[k].external)
            fail_outstanding(&R->inst[k]);
    nvemu_fault_gpu_lost(R->emu, (uint32_t)data);
}

/* A BUSY_RETRY storm on the scheduler's control starts (data = 1) or ends (0). */
static void busy_retry_fn(struct sim *s, void *arg, uint64_t data)
{
    (void)s;
    struct run *R = arg;
    nvemu_fault_busy_retry(R->emu, run_sched_control_cmd(&R->sched), data ? UINT32_MAX : 0);
}

static void client_kill_fn(struct sim *s, void *arg, uint64_t data)
{
    (void)s;
    struct run *R = arg;
    kill_instance(&R->inst[data]);
}

static int arm_faults(struct run *R)
{
    const struct scenario *sc = R->sc;
    for (uint32_t i = 0; i < sc->fault_count; i++) {
        const struct sc_fault *f = &sc->faults[i];
        int t = f->task[0] ? scenario_find_task(sc, f->task) : -1;
        switch (f->kind) {
        case SC_FAULT_CLIENT_KILL:
            sim_at(R->sim, f->at_ns, client_kill_fn, R, sc_instance_id(sc, (uint32_t)t, f->replica));
            break;
        case SC_FAULT_PREEMPT_TIMEOUT:
            if (run_sched_preempt_timeout(&R->sched, sc_instance_id(sc, (uint32_t)t, f->replica),
                                          f->duration_ns ? f->duration_ns : 100000, R->err, sizeof(R->err)))
                return -1;
            break;
        case SC_FAULT_GPU_LOST:
            sim_at(R->sim, f->at_ns, gpu_lost_fn, R, 0);
            break;
        case SC_FAULT_BUSY_RETRY:
            sim_at(R->sim, f->at_ns, busy_retry_fn, R, 1);
            if (f->at_ns + f->duration_ns < R->end_ns)
                sim_at(R->sim, f->at_ns + f->duration_ns, busy_retry_fn, R, 0);
            break;
        }
    }
    return 0;
}

/* ---- setup ---- */

static uint64_t wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The plan of the instances that take arrivals (not an external process, not refused), then their first. */
static int first_arrivals(struct run *R, uint64_t seed)
{
    bool *idle = calloc(R->ninst ? R->ninst : 1, sizeof(*idle));
    if (!idle) {
        snprintf(R->err, sizeof(R->err), "out of memory");
        return -1;
    }
    for (uint32_t k = 0; k < R->ninst; k++)
        idle[k] = R->inst[k].dead || R->inst[k].external;
    struct sc_plan_opts po = {.idle = idle, .faults = true};
    int rc = sc_plan_build(&R->plan, R->sc, seed, &po);
    free(idle);
    if (rc) {
        snprintf(R->err, sizeof(R->err), "out of memory");
        return -1;
    }
    for (uint32_t k = 0; k < R->ninst; k++) {
        struct inst *in = &R->inst[k];
        in->plan = &R->plan.inst[k];
        if (in->t->arrival == SC_ARRIVAL_CLOSED)
            schedule_arrival(in, in->t->start_ns);
        else
            schedule_next_open_loop(in);
    }
    return 0;
}

static void advance(struct run *R, const struct sc_run_opts *o)
{
    const struct scenario *sc = R->sc;
    uint64_t t0 = wall_ns(), last_print = t0;
    if (sc->clock == SC_CLOCK_REALTIME) {
        while (sim_now(R->sim) < R->end_ns) {
            usleep(1000);
            sim_sync_realtime(R->sim);
            uint64_t w = wall_ns();
            if (o->progress && w - last_print >= 1000000000ull) {
                last_print = w;
                fprintf(o->progress, "\r%s: %.1f / %.1f s (realtime)", sc->name, (double)sim_now(R->sim) / 1e9,
                        (double)R->end_ns / 1e9);
                fflush(o->progress);
            }
        }
        sim_run_until(R->sim, R->end_ns);
        if (o->progress && last_print != t0)
            fputc('\n', o->progress);
        return;
    }
    /*
     * Virtual time in hundredths, so a long run can say how far it got: virtual time, events per wall
     * second and an estimate of the wall time left, at most twice a second, after the first second.
     */
    bool printed = false;
    uint64_t ev0 = sim_fired(R->sim);
    for (int step = 1; step <= 100; step++) {
        sim_run_until(R->sim, R->end_ns / 100 * (uint64_t)step + (step == 100 ? R->end_ns % 100 : 0));
        uint64_t w = wall_ns();
        if (o->progress && w - t0 >= 1000000000ull && w - last_print >= 500000000ull && step < 100) {
            last_print = w;
            printed = true;
            double secs = (double)(w - t0) / 1e9;
            fprintf(o->progress, "\r%s: %.2f / %.2f s virtual  %.2f M events/s  ETA %.0f s   ", sc->name,
                    (double)sim_now(R->sim) / 1e9, (double)R->end_ns / 1e9,
                    (double)(sim_fired(R->sim) - ev0) / secs / 1e6, secs * (100 - step) / step);
            fflush(o->progress);
        }
    }
    if (printed)
        fputc('\n', o->progress);
}

/* The end of the run: what the synthetic tasks still have queued or running is reported in flight. */
static void mark_in_flight(void *arg)
{
    struct run *R = arg;
    for (uint32_t k = 0; k < R->ninst; k++) {
        struct inst *in = &R->inst[k];
        if (in->dead || in->external)
            continue;
        if (in->busy)
            mark(R, SC_MARK_OPEN, k, in->cur_num);
        for (uint32_t i = 0; i < in->qlen; i++)
            mark(R, SC_MARK_OPEN, k, in->queue_num[(in->qhead + i) % in->qcap]);
    }
}

/*
 * The seed of a replica's CPU draws: from the task's name, not its place, so that its run alone (a reduced
 * copy) and every scenario it is in give the same replica the same requests' CPU times.
 */
static uint64_t cpu_stream(uint64_t seed, const char *name, uint32_t replica)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *p = name; *p; p++)
        h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
    uint64_t st = seed ^ 0xbb67ae8584caa73bull ^ h ^ ((uint64_t)replica << 48);
    return sim_splitmix64(&st);
}

/* One run of scenario sc (a baseline run passes a reduced copy). */
static int run_once(const struct scenario *sc, uint64_t seed, const struct sc_run_opts *o, bool outer,
                    struct sc_results *out, char *err, size_t errlen)
{
    struct run R = {.sc = sc, .end_ns = sc->duration_ns};
    memset(out, 0, sizeof(*out));
    out->sc = sc;
    out->seed = seed;
    char policy_path[512] = "";
    char gpu_set[SC_GPU_MAX_SET][SC_GPU_SET_LEN];
    const char *gpu_set_ptr[SC_GPU_MAX_SET];
    nvemu_config cfg;
    nvemu_config_init(&cfg);
    cfg.profile = sc->gpu.profile;
    cfg.seed = seed;
    cfg.clock = sc->clock == SC_CLOCK_REALTIME ? NVEMU_CLOCK_REALTIME : NVEMU_CLOCK_VIRTUAL;
    cfg.inject_latency = sc->gpu.inject_latency;
    cfg.trace_path = outer ? o->trace_csv : NULL;
    cfg.policy_watch = o->policy_watch;
    cfg.profile_nset = sc_gpu_profile_set(&sc->gpu, gpu_set);
    for (int i = 0; i < cfg.profile_nset; i++)
        gpu_set_ptr[i] = gpu_set[i];
    cfg.profile_set = gpu_set_ptr;
    int rc = -1;
    if (sc->policy.plugin[0]) {
        if (hooks_find_policy(sc->policy.plugin, policy_path, sizeof(policy_path), R.err, sizeof(R.err)))
            goto done;
        cfg.policy_path = policy_path;
        cfg.policy_arglist = &sc->policy.args;
    }
    if (run_proc_check(sc, R.err, sizeof(R.err)))
        goto done;
    R.emu = nvemu_create(&cfg, R.err, sizeof(R.err));
    if (!R.emu)
        goto done;
    R.sim = nvemu_sim(R.emu);
    R.launch_ns = nvemu_profile(R.emu)->timing.launch_ns;
    R.completion_ns = nvemu_profile(R.emu)->timing.completion_ns;
    R.jitter_ns = nvemu_profile(R.emu)->timing.host_jitter_ns;
    R.jitter_rng = seed ^ 0x6a09e667f3bcc909ull;
    struct sc_analyzer *an = sc_analyzer_create(sc, seed, nvemu_profile(R.emu), out);
    if (!an) {
        snprintf(R.err, sizeof(R.err), "out of memory");
        nvemu_destroy(R.emu);
        goto done;
    }
    int sub = sim_trace_subscribe(R.sim, sc_analyzer_record, an);
    int spool_sub = outer && o->trace_spool ? sim_trace_subscribe(R.sim, sc_spool_record, o->trace_spool) : 0;
    uint64_t w0 = wall_ns();
    struct run_proc *procs = NULL;
    R.fdt = nvemu_fdtable_create(R.emu, true);
    R.ninst = sc_instance_count(sc);
    R.inst = calloc(R.ninst, sizeof(*R.inst));
    if (!R.fdt || !R.inst) {
        snprintf(R.err, sizeof(R.err), "out of memory");
        goto finish;
    }
    run_sched_init(&R.sched, sc, R.emu, R.ninst);
    for (uint32_t t = 0, k = 0; t < sc->task_count; t++) {
        for (uint32_t r = 0; r < sc->tasks[t].count; r++, k++) {
            struct inst *in = &R.inst[k];
            in->R = &R;
            in->id = k;
            in->task = t;
            in->replica = r;
            in->t = &sc->tasks[t];
            in->cpu_rng = cpu_stream(seed, in->t->name, r);
            if (in->t->process) {
                in->external = true;
                continue;
            }
            user_calls(in, SC_CALL_BEFORE_CONTEXT, false);
            int crc = run_ctx_open(&in->ctx, R.emu, R.fdt, in->t, k, R.err, sizeof(R.err));
            if (crc == 1) {
                /* Admission said BUSY_RETRY: the process gives up, as a CUDA program would fail cuInit. */
                LOG_INFO("scenario", "%s", R.err);
                R.err[0] = '\0';
                mark(&R, SC_MARK_REJECTED, k, 0);
                in->dead = true;
                continue;
            }
            if (crc)
                goto finish;
            in->has_ctx = true;
            user_calls(in, SC_CALL_AFTER_CONTEXT, false);
            mark(&R, SC_MARK_TSG, k, in->ctx.tsg_id);
            if (run_sched_add(&R.sched, k, in->t, &in->ctx, R.err, sizeof(R.err)))
                goto finish;
        }
    }
    if (run_sched_start(&R.sched, R.err, sizeof(R.err)) || arm_faults(&R) || first_arrivals(&R, seed))
        goto finish;
    if (run_proc_needed(sc)) {
        if (run_proc_start(&procs, sc, R.emu, R.fdt, R.end_ns, R.err, sizeof(R.err)) ||
            run_proc_run(procs, mark_in_flight, &R, R.err, sizeof(R.err)))
            goto finish;
    } else {
        advance(&R, o);
        mark_in_flight(&R);
    }
    rc = 0;
finish:
    run_proc_stop(procs);
    out->wall_ns = wall_ns() - w0;
    sim_trace_unsubscribe(R.sim, sub);
    if (spool_sub)
        sim_trace_unsubscribe(R.sim, spool_sub);
    out->digest = sim_trace_digest(R.sim);
    sc_analyzer_finish(an, rc == 0 ? R.end_ns : sim_now(R.sim));
    for (uint32_t k = 0; R.inst && k < R.ninst; k++) {
        if (R.inst[k].has_ctx) {
            user_calls(&R.inst[k], SC_CALL_EXIT, false);
            run_ctx_close(&R.inst[k].ctx);
        }
        free(R.inst[k].queue);
        free(R.inst[k].queue_num);
    }
    memcpy(out->sched_decided, R.sched.be_calls, sizeof(out->sched_decided));
    run_sched_fini(&R.sched);
    sc_plan_free(&R.plan);
    free(R.inst);
    if (R.fdt)
        nvemu_fdtable_destroy(R.fdt);
    /* a policy that faulted fails the run; the reports are still written */
    const char *perr = hooks_policy_error(nvemu_hooks(R.emu));
    if (perr && rc == 0) {
        snprintf(R.err, sizeof(R.err), "policy failed: %s", perr);
        rc = -1;
    }
    if (outer)
        out->policy_maps = hooks_policy_report(nvemu_hooks(R.emu));
    nvemu_destroy(R.emu);
done:
    if (rc) {
        snprintf(err, errlen, "%s", R.err[0] ? R.err : "the run failed");
        snprintf(out->error, sizeof(out->error), "%s", err);
    }
    return rc;
}

int sc_run(const struct scenario *s, const struct sc_run_opts *o, struct sc_results *out, char *err, size_t errlen)
{
    uint64_t seed = o->has_seed ? o->seed : s->seed;
    /*
     * Baselines first: each task alone (all its replicas, native scheduling,
     * no scheduler, no faults, same GPU, seed and duration).
     */
    struct sc_task_result alone[SC_MAX_TASKS];
    bool have_alone[SC_MAX_TASKS] = {false};
    uint64_t *alone_lat[SC_MAX_TASKS] = {NULL};
    for (uint32_t t = 0; s->baseline && t < s->task_count; t++) {
        struct scenario *b = sc_task_alone(s, t);
        if (!b) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        const struct sc_task_result *kept = sc_baseline_find(o->baselines, b, seed);
        uint64_t *lat = kept && kept->completed ? malloc(kept->completed * sizeof(uint64_t)) : NULL;
        if (kept && (lat || !kept->completed)) {
            if (lat)
                memcpy(lat, kept->lat_ns, kept->completed * sizeof(uint64_t));
            alone[t] = *kept;
            alone_lat[t] = lat;
            have_alone[t] = true;
            free(b);
            continue;
        }
        struct sc_results br;
        int rc = run_once(b, seed, o, false, &br, err, errlen);
        if (rc == 0) {
            sc_baseline_keep(o->baselines, b, seed, &br.tasks[0]);
            alone[t] = br.tasks[0];
            alone_lat[t] = br.tasks[0].lat_ns;
            br.tasks[0].lat_ns = NULL;
            have_alone[t] = true;
        }
        sc_results_free(&br);
        free(b);
        if (rc) {
            char why[256];
            snprintf(why, sizeof(why), "baseline run of task '%s' alone: %s", s->tasks[t].name, err);
            snprintf(err, errlen, "%s", why);
            for (uint32_t i = 0; i < t; i++)
                free(alone_lat[i]);
            memset(out, 0, sizeof(*out));
            out->sc = s;
            snprintf(out->error, sizeof(out->error), "%s", why);
            return -1;
        }
    }
    int rc = run_once(s, seed, o, true, out, err, errlen);
    for (uint32_t t = 0; t < s->task_count; t++) {
        if (!have_alone[t])
            continue;
        struct sc_results tmp = {0};
        tmp.tasks[0] = alone[t];
        tmp.tasks[0].lat_ns = alone_lat[t];
        sc_results_set_alone(out, t, &tmp);
        free(alone_lat[t]);
    }
    sc_results_evaluate(out);
    if (rc == 0) /* a run that never started has no outcome to warn about */
        sc_results_warn(out);
    return rc;
}
