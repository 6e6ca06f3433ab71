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
#include "fifo/fifo_rec.h"
#include "hooks/hooks.h"
#include "base/paths.h"
#include "hw_cuda.h"
#include "hw_region.h"
#include "analyze.h"
#include "plan.h"
#include "profile/profile.h"
#include "sim/sim.h"

/* Wall-clock limits: context creation + JIT, and how long after the end a task may take to stop. */
#define READY_TIMEOUT_NS 90000000000ull
#define STOP_TIMEOUT_NS 30000000000ull
/* Tasks start together this long after the last one is ready. */
#define START_DELAY_NS 200000000ull
/* A slot holds every stream of a task; a task with more kernels than a slot holds is refused (collect_shapes). */
_Static_assert(HW_MAX_KERNELS <= SC_MAX_KERNELS && HW_MAX_STREAMS == SC_MAX_STREAMS,
               "a slot holds every stream of a task");
_Static_assert(HW_MAX_SHAPES == SC_HW_MAX_SHAPES, "results.json reports every kernel shape the GPU ran");

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
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

/* The variant's FMA chains for a kernel's `regs:` (40 chains take 46 registers on sm_90: registers = chains + 6). */
static uint32_t shape_chains(const struct sc_kernel *kd)
{
    return !kd->regs ? HW_WORK_CHAINS : kd->regs > 6 ? kd->regs - 6 : 1;
}

/* The calib shape a kernel runs as: 0 for the default work kernel, else the index of its own shape. */
static uint32_t shape_of(const struct calib *c, const struct sc_kernel *kd)
{
    if (!kd->threads && !kd->regs && !kd->blocks_per_sm)
        return 0;
    uint32_t threads = kd->threads ? kd->threads : HW_WORK_THREADS, chains = shape_chains(kd);
    for (uint32_t i = 1; i < c->nshapes; i++) {
        const struct shape *sh = &c->shapes[i];
        if (sh->threads == threads && sh->chains == chains && sh->smem == kd->shared_kb * 1024u &&
            sh->bps_want == kd->blocks_per_sm)
            return i;
    }
    return UINT32_MAX;
}

/* Adds every kernel shape of the scenario to c (before calibration); -1 when there are too many. */
static int collect_shapes(struct calib *c, const struct scenario *s, char *err, size_t errlen)
{
    c->nshapes = 1;
    for (uint32_t t = 0; t < s->task_count; t++) {
        if (s->tasks[t].kernel_count > HW_MAX_KERNELS) {
            snprintf(err, errlen, "task '%s' has %u kernels per request; the hardware backend runs at most %d",
                     s->tasks[t].name, s->tasks[t].kernel_count, HW_MAX_KERNELS);
            return -1;
        }
        /* its task processes wait out the written gaps; a drawn CPU time per request is the model's */
        if (s->tasks[t].cpu_spread > 0) {
            snprintf(err, errlen, "task '%s' has request.cpu_spread; the hardware backend draws no CPU time",
                     s->tasks[t].name);
            return -1;
        }
    }
    for (uint32_t t = 0; t < s->task_count; t++)
        for (uint32_t k = 0; k < s->tasks[t].kernel_count; k++) {
            const struct sc_kernel *kd = &s->tasks[t].kernels[k];
            if (shape_of(c, kd) != UINT32_MAX)
                continue;
            if (c->nshapes == HW_MAX_SHAPES) {
                snprintf(err, errlen, "more than %d kernel shapes in one scenario", HW_MAX_SHAPES - 1);
                return -1;
            }
            c->shapes[c->nshapes++] = (struct shape){
                .threads = kd->threads ? kd->threads : HW_WORK_THREADS,
                .chains = shape_chains(kd),
                .smem = kd->shared_kb * 1024u, .bps_want = kd->blocks_per_sm};
        }
    return 0;
}

/* A shaped kernel's waves are of its own resident blocks, its rounds of its own calibrated cost. */
static uint32_t task_launches(const struct sc_task *t, const struct calib *c, struct klaunch *k)
{
    for (uint32_t i = 0; i < t->kernel_count; i++) {
        const struct sc_kernel *kd = &t->kernels[i];
        uint32_t sh = shape_of(c, kd);
        uint32_t per_wave = sh ? c->sm_count * c->shapes[sh].bps : c->sm_count;
        uint32_t waves = (kd->blocks + per_wave - 1) / per_wave;
        double iters = round((double)kd->duration_ns / waves / (sh ? c->shapes[sh].ns_per_iter : c->ns_per_iter));
        uint32_t smem = kd->shared_kb * 1024u;
        k[i] = (struct klaunch){.blocks = kd->blocks, .iters = iters < 1 ? 1 : (uint32_t)iters,
                                .smem = sh ? c->shapes[sh].launch_smem : smem > c->pad_bytes ? smem : c->pad_bytes,
                                .stream = kd->stream, .repeat = kd->repeat, .shape = sh,
                                .threads = sh ? c->shapes[sh].threads : HW_WORK_THREADS, .gap_ns = kd->launch_gap_ns};
    }
    return t->kernel_count;
}


/* The helper that runs task processes and the calibration (hw_region.h), beside this executable. */
static int helper_path(char *out, size_t len, char *err, size_t errlen)
{
    int w = snprintf(out, len, "%s/nvemu-hw-task", nvemu_exe_dir());
    if (w < 0 || (size_t)w >= len || access(out, X_OK) != 0) {
        snprintf(err, errlen, "the hardware backend's helper %s is missing (install nvemu-hw-task beside nvemu)",
                 w > 0 && (size_t)w < len ? out : "nvemu-hw-task");
        return -1;
    }
    return 0;
}

/* Shared memory of `size` bytes the helper maps through the inherited fd; MAP_FAILED with a reason. */
static void *shared_map(size_t size, int *fd, char *err, size_t errlen)
{
    *fd = memfd_create("nvemu-hw", 0);
    if (*fd < 0 || ftruncate(*fd, (off_t)size) != 0) {
        snprintf(err, errlen, "cannot make %zu bytes of memory for the task processes: %s", size, strerror(errno));
        if (*fd >= 0)
            close(*fd);
        *fd = -1;
        return MAP_FAILED;
    }
    void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
    if (m == MAP_FAILED) {
        snprintf(err, errlen, "cannot map %zu bytes for the task processes: %s", size, strerror(errno));
        close(*fd);
        *fd = -1;
    }
    return m;
}

/* Forks and execs the helper: `nvemu-hw-task JOB FD [SLOT]`. The child's pid, or -1 with a reason. */
static pid_t helper_spawn(const char *helper, const char *job, int fd, long slot, char *err, size_t errlen)
{
    char fds[16], slots[16];
    snprintf(fds, sizeof fds, "%d", fd);
    snprintf(slots, sizeof slots, "%ld", slot);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        prctl(PR_SET_TIMERSLACK, 1UL);
        execl(helper, "nvemu-hw-task", job, fds, slot >= 0 ? slots : NULL, (char *)NULL);
        _exit(127);
    }
    if (pid < 0)
        snprintf(err, errlen, "fork: %s", strerror(errno));
    return pid;
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
        if (!h || hooks_load_policy(h, path, &sc->policy.args, err, errlen)) {
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
        sl->sched_method = sc_plan_sched_method(sc);
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
                                 size_t *size_out, int *fd, char *err, size_t errlen)
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
    struct region *R = shared_map(size, fd, err, errlen);
    if (R == MAP_FAILED) {
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
        const struct sc_task *t = &sc->tasks[sl->task];
        snprintf(sl->comm, sizeof sl->comm, "%s", t->comm);
        sl->streams = t->streams;
        sl->nk = task_launches(t, cal, sl->k);
        sl->start_ns = t->start_ns;
        sl->preprocess_ns = t->preprocess_ns;
        sl->think_ns = t->think_ns;
        sl->duration_ns = sc->duration_ns;
        sl->closed = t->arrival == SC_ARRIVAL_CLOSED;
    }
    free(offs);
    *size_out = size;
    return R;
}

/* The task processes, one after the other, each ready before the next starts (contexts in instance order). */
static int tasks_start(const struct scenario *sc, struct region *R, int fd, pid_t *pids, uint64_t w0, char *err,
                       size_t errlen)
{
    char helper[1024];
    if (helper_path(helper, sizeof helper, err, errlen))
        return -1;
    for (uint32_t k = 0; k < R->nslots; k++) {
        struct slot *sl = &R->slots[k];
        const struct sc_task *t = &sc->tasks[sl->task];
        pid_t pid = helper_spawn(helper, "run", fd, (long)k, err, errlen);
        if (pid < 0)
            return -1;
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
    int lc = 0;
    for (uint32_t k = 0; k < R->nslots; k++)
        lc += R->slots[k].lc;
    atomic_store(&R->lc_running, lc);
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
    int fd = -1;
    uint32_t ninst = sc_instance_count(sc);
    pid_t *pids = calloc(ninst ? ninst : 1, sizeof(*pids));
    if (!sim || !an || !pids || sc_plan_build(&plan, sc, seed, &po)) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    sim_trace_subscribe(sim, sc_analyzer_record, an);
    R = region_map(sc, &plan, cal, &size, &fd, err, errlen);
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
    int trc = tasks_start(sc, R, fd, pids, w0, err, errlen);
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
    if (fd >= 0)
        close(fd);
    sc_plan_free(&plan);
    free(pids);
    if (sim)
        sim_destroy(sim);
    if (rc && !out->error[0])
        snprintf(out->error, sizeof(out->error), "%s", err);
    return rc;
}

/* The helper calibrates the work kernel and the scenario's kernel shapes (collected here: it reads no scenario). */
static int run_calibration(const struct scenario *s, struct calib *cal, char *err, size_t errlen)
{
    char helper[1024];
    int fd;
    if (helper_path(helper, sizeof helper, err, errlen))
        return -1;
    struct calib *shared = shared_map(sizeof(*shared), &fd, err, errlen);
    if (shared == MAP_FAILED)
        return -1;
    if (collect_shapes(shared, s, err, errlen)) {
        munmap(shared, sizeof(*shared));
        close(fd);
        return -1;
    }
    pid_t pid = helper_spawn(helper, "calibrate", fd, -1, err, errlen);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || !shared->ok) {
        char why[256];
        snprintf(why, sizeof why, "%s", pid < 0 ? err : shared->err[0] ? shared->err
                 : WIFEXITED(status) && WEXITSTATUS(status) == 127 ? "the helper could not be started"
                 : "the calibration process died");
        snprintf(err, errlen, "GPU calibration failed: %s", why);
        munmap(shared, sizeof(*shared));
        close(fd);
        return -1;
    }
    *cal = *shared;
    munmap(shared, sizeof(*shared));
    close(fd);
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
    if (!p || run_calibration(s, &cal, err, errlen)) {
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
    h->threads_per_block = cal.threads_per_block;
    h->blocks_per_sm = cal.blocks_per_sm;
    h->occupancy_pad_kb = cal.pad_bytes / 1024;
    h->ns_per_iter = cal.ns_per_iter;
    h->launch_fixed_ns = cal.fixed_ns;
    for (uint32_t i = 1; i < cal.nshapes && h->shape_count < SC_HW_MAX_SHAPES; i++) {
        const struct shape *sh = &cal.shapes[i];
        h->shapes[h->shape_count++] = (struct sc_hw_shape){
            .threads = sh->threads, .regs = sh->regs, .shared_kb = sh->smem / 1024,
            .launch_shared_kb = sh->launch_smem / 1024, .blocks_per_sm = sh->bps, .ns_per_iter = sh->ns_per_iter};
        if (o->progress)
            fprintf(o->progress, "%s: kernel shape %u threads, %u registers/thread, %u KiB shared (%u launched): %u "
                    "blocks per SM, %.1f ns per round\n", s->name, sh->threads, sh->regs, sh->smem / 1024,
                    sh->launch_smem / 1024, sh->bps, sh->ns_per_iter);
    }
    if (p->sm_count != cal.sm_count)
        note(out, "the GPU has %u SMs, profile '%s' %u: waves differ from the model's", cal.sm_count,
             s->gpu.profile, p->sm_count);
    profile_free(p);
    sc_results_evaluate(out);
    sc_results_warn(out);
    return rc;
}
