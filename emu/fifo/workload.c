/*
 * Blocking workload form (participants, kernels, waits) with baton passing in
 * virtual time; see workload.h for the rules. All state is guarded by the
 * emulator lock, which waits release through pthread_cond_wait.
 */
#include "fifo/fifo_rec.h"
#include "fifo/workload.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"

#define COMP "workload"
/* REALTIME waits re-check at least this often (other threads may have submitted work). */
#define RT_TICK_NS 1000000ull

struct wl_done {
    uint64_t id, tag, done_t;
    NV_STATUS status;            /* NV_ERR_GPU_IS_LOST: the kernel failed when its GPU was lost */
};

struct wl_part {
    struct workload *wl;
    uint32_t id;
    int32_t tid;
    const nvemu_opener *op;      /* the opener it registered through (released -> forgotten) */
    char name[32];
    pthread_cond_t cv;
    bool waiting;
    bool woken;                  /* holds the baton after a wait */
    /* the current wait */
    uint64_t want;               /* kernel id, 0 = any */
    uint64_t deadline;           /* 0 = none */
    bool sleeping;               /* SLEEP: only the deadline ends it */
    bool yielding;               /* SLEEP to the present: satisfied at once, returns on its turn */
    bool stalled;                /* nothing can ever satisfy it */
    sim_event_id timer;
    bool timer_fired;
    /* kernels submitted and not yet consumed by a wait */
    uint64_t *outstanding;
    uint32_t n_out, cap_out;
    struct wl_done *done;
    uint32_t n_done, cap_done;
    struct wl_part *next;
};

struct workload {
    struct sim *s;
    struct wl_part *parts;       /* sorted by id */
    uint32_t next_id;
    struct fifo **fifos;         /* by GPU index (kernel id >> 48), learnt at submit, to tell failures */
    uint32_t n_fifos;
};

struct workload *workload_create(struct sim *s)
{
    struct workload *wl = calloc(1, sizeof(*wl));
    if (wl) {
        wl->s = s;
        wl->next_id = 1;
    }
    return wl;
}

static void part_free(struct wl_part *p)
{
    if (p->timer)
        sim_cancel(p->wl->s, p->timer);
    pthread_cond_destroy(&p->cv);
    free(p->outstanding);
    free(p->done);
    free(p);
}

void workload_destroy(struct workload *wl)
{
    if (!wl)
        return;
    while (wl->parts) {
        struct wl_part *n = wl->parts->next;
        part_free(wl->parts);
        wl->parts = n;
    }
    free(wl->fifos);
    free(wl);
}

static struct wl_part *part_by_tid(struct workload *wl, int32_t tid)
{
    for (struct wl_part *p = wl->parts; p; p = p->next)
        if (p->tid == tid)
            return p;
    return NULL;
}

static struct wl_part *part_by_id(struct workload *wl, uint32_t id)
{
    for (struct wl_part *p = wl->parts; p; p = p->next)
        if (p->id == id)
            return p;
    return NULL;
}

static bool find_done(const struct wl_part *p, uint32_t *idx)
{
    for (uint32_t i = 0; i < p->n_done; i++) {
        if (p->want == 0 || p->done[i].id == p->want) {
            *idx = i;
            return true;
        }
    }
    return false;
}

static bool satisfied(const struct wl_part *p)
{
    uint32_t i;
    if (p->stalled || p->timer_fired || p->yielding)
        return true;
    if (p->deadline && sim_now(p->wl->s) >= p->deadline)
        return true;
    return !p->sleeping && find_done(p, &i);
}

static bool any_running(const struct workload *wl)
{
    for (const struct wl_part *p = wl->parts; p; p = p->next)
        if (!p->waiting || p->woken)
            return true;
    return false;
}

/*
 * Hands the baton to the lowest-id satisfied waiter once no participant
 * runs; fires sim events in order until one is satisfied.
 */
static void pass_baton(struct workload *wl)
{
    if (sim_clock(wl->s) == NVEMU_CLOCK_REALTIME || sim_in_event(wl->s))
        return;
    while (wl->parts && !any_running(wl)) {
        for (struct wl_part *p = wl->parts; p; p = p->next) {
            if (p->waiting && satisfied(p)) {
                p->woken = true;
                pthread_cond_signal(&p->cv);
                return;
            }
        }
        if (!sim_step(wl->s)) {
            LOG_WARN(COMP, "every participant waits and no event is pending: waking them as stalled");
            for (struct wl_part *p = wl->parts; p; p = p->next)
                p->stalled = true;
        }
    }
}

static void on_timer(struct sim *s, void *arg, uint64_t data)
{
    (void)s;
    struct wl_part *p = part_by_id(arg, (uint32_t)data);
    if (p) {
        p->timer = 0;
        p->timer_fired = true;
    }
}

/* The participant that submitted kernel `id` (its outstanding list holds it), or NULL. */
static struct wl_part *part_by_kernel(struct workload *wl, uint64_t id)
{
    for (struct wl_part *p = wl->parts; p; p = p->next)
        for (uint32_t i = 0; i < p->n_out; i++)
            if (p->outstanding[i] == id)
                return p;
    return NULL;
}

static void on_kernel_done(void *ctx, uint64_t kernel_id, uint64_t tag, uint64_t submit_t, uint64_t done_t)
{
    (void)submit_t;
    struct workload *wl = ctx;
    struct wl_part *p = part_by_kernel(wl, kernel_id);
    if (!p)
        return;
    uint64_t gpu = kernel_id >> 48;
    bool lost = gpu < wl->n_fifos && wl->fifos[gpu] && fifo_is_lost(wl->fifos[gpu]);
    if (p->n_done == p->cap_done) {
        uint32_t ncap = p->cap_done ? p->cap_done * 2 : 8;
        struct wl_done *nd = realloc(p->done, ncap * sizeof(*nd));
        if (!nd) {
            LOG_ERROR(COMP, "out of memory recording a completion of participant %u", p->id);
            return;
        }
        p->done = nd;
        p->cap_done = ncap;
    }
    p->done[p->n_done++] = (struct wl_done){kernel_id, tag, done_t, lost ? NV_ERR_GPU_IS_LOST : NV_OK};
}

bool workload_cancelled(const nvemu_access *acc)
{
    return acc && acc->cancelled && acc->cancelled(acc->ctx);
}

void workload_wake(struct workload *wl, int32_t tid)
{
    struct wl_part *p = part_by_tid(wl, tid);
    if (p && p->waiting)
        pthread_cond_broadcast(&p->cv);
}

/* Blocks the calling participant until its wait is satisfied or its call is cancelled; returns with the lock held. */
static void block(struct wl_part *p, pthread_mutex_t *lock, const nvemu_access *acc)
{
    struct workload *wl = p->wl;
    struct sim *s = wl->s;
    p->timer_fired = false;
    p->stalled = false;
    if (p->deadline && p->deadline > sim_now(s))
        p->timer = sim_at(s, p->deadline, on_timer, wl, p->id);
    p->waiting = true;
    p->woken = false;
    if (sim_clock(s) == NVEMU_CLOCK_REALTIME) {
        for (;;) {
            sim_sync_realtime(s);
            if (satisfied(p) || workload_cancelled(acc))
                break;
            uint64_t next = sim_now(s) + RT_TICK_NS, t;
            if (sim_next_time(s, &t) && t < next)
                next = t;
            uint64_t wall = sim_wall_of(s, next);
            struct timespec ts = {(time_t)(wall / 1000000000ull), (long)(wall % 1000000000ull)};
            pthread_cond_timedwait(&p->cv, lock, &ts);
        }
    } else {
        pass_baton(wl);
        while (!p->woken && !workload_cancelled(acc))
            pthread_cond_wait(&p->cv, lock);
    }
    p->waiting = false;
    p->woken = false;
    if (p->timer) {
        sim_cancel(s, p->timer);
        p->timer = 0;
    }
}

NV_STATUS workload_register(struct workload *wl, const nvemu_opener *op, int32_t tid, const char name[32],
                            uint32_t *id)
{
    struct wl_part *p = part_by_tid(wl, tid);
    if (!p) {
        p = calloc(1, sizeof(*p));
        if (!p)
            return NV_ERR_NO_MEMORY;
        p->wl = wl;
        p->id = wl->next_id++;
        p->tid = tid;
        pthread_cond_init(&p->cv, NULL);
        struct wl_part **pp = &wl->parts;
        while (*pp)
            pp = &(*pp)->next;
        *pp = p;
    }
    p->op = op;
    memcpy(p->name, name, sizeof(p->name));
    p->name[sizeof(p->name) - 1] = 0;
    *id = p->id;
    struct sim_rec r = {.kind = SIM_REC_MARK, .engine = SIM_NONE, .runlist = SIM_NONE, .tsg = SIM_NONE,
                        .chid = SIM_NONE, .a = p->id, .name = "participant", .field = p->name};
    sim_trace(wl->s, &r);
    return NV_OK;
}

static void unregister(struct workload *wl, struct wl_part *p)
{
    struct wl_part **pp = &wl->parts;
    while (*pp != p)
        pp = &(*pp)->next;
    *pp = p->next;
    part_free(p);
    pass_baton(wl);
}

void workload_forget_tid(struct workload *wl, int32_t tid)
{
    struct wl_part *p = part_by_tid(wl, tid);
    if (p && !p->waiting)
        unregister(wl, p);
}

void workload_forget_opener(struct workload *wl, const nvemu_opener *op)
{
    struct wl_part *p = wl->parts;
    while (p) {
        struct wl_part *next = p->next;
        if (p->op == op && !p->waiting)
            unregister(wl, p);
        p = next;
    }
}

/*
 * The longest stretch of virtual time one call may ask for. The clock is
 * shared: a kernel or sleep of ~2^64 ns would end every participant's run
 * (and wrap the arithmetic after it), so such requests are refused.
 */
#define WL_MAX_SPAN_NS (3600ull * 1000000000ull)

/* Upper bound of a kernel's virtual duration (waves <= blocks), saturated. */
static uint64_t kernel_span(const struct fifo_kernel *k)
{
    if (!k->block_ns)
        return k->total_ns;
    uint64_t blocks = k->blocks ? k->blocks : 1;
    return k->block_ns > UINT64_MAX / blocks ? UINT64_MAX : k->block_ns * blocks;
}

NV_STATUS workload_check_kernel(const struct fifo_kernel *k)
{
    if (kernel_span(k) <= WL_MAX_SPAN_NS)
        return NV_OK;
    LOG_INFO(COMP, "WL_SUBMIT: kernel of up to %llu ns refused (limit %llu ns of virtual time per call)",
             (unsigned long long)kernel_span(k), (unsigned long long)WL_MAX_SPAN_NS);
    return NV_ERR_INVALID_ARGUMENT;
}

NV_STATUS workload_unregister(struct workload *wl, int32_t tid)
{
    struct wl_part *p = part_by_tid(wl, tid);
    if (!p)
        return NV_ERR_INVALID_STATE;
    unregister(wl, p);
    return NV_OK;
}

NV_STATUS workload_submit(struct workload *wl, int32_t tid, struct fifo_channel *c, const struct fifo_kernel *k,
                          uint64_t *kernel_id)
{
    struct wl_part *p = part_by_tid(wl, tid);
    if (p && p->n_out == p->cap_out) {
        uint32_t ncap = p->cap_out ? p->cap_out * 2 : 8;
        uint64_t *no = realloc(p->outstanding, ncap * sizeof(*no));
        if (!no)
            return NV_ERR_NO_MEMORY;
        p->outstanding = no;
        p->cap_out = ncap;
    }
    struct fifo *f = fifo_tsg_fifo(fifo_channel_tsg(c));
    uint32_t gpu = fifo_gpu_index(f);
    if (gpu >= wl->n_fifos) {
        struct fifo **nf = realloc(wl->fifos, (gpu + 1) * sizeof(*nf));
        if (!nf)
            return NV_ERR_NO_MEMORY;
        for (uint32_t i = wl->n_fifos; i <= gpu; i++)
            nf[i] = NULL;
        wl->fifos = nf;
        wl->n_fifos = gpu + 1;
    }
    wl->fifos[gpu] = f;
    NV_STATUS st = fifo_submit(c, k, p ? on_kernel_done : NULL, wl, kernel_id);
    if (st != NV_OK)
        return st;
    if (p)
        p->outstanding[p->n_out++] = *kernel_id;
    return NV_OK;
}

static void forget_outstanding(struct wl_part *p, uint64_t id)
{
    for (uint32_t i = 0; i < p->n_out; i++) {
        if (p->outstanding[i] == id) {
            p->outstanding[i] = p->outstanding[--p->n_out];
            return;
        }
    }
}

NV_STATUS workload_wait(struct workload *wl, int32_t tid, uint64_t kernel_id, uint64_t deadline_ns,
                        struct workload_done *out, pthread_mutex_t *lock, const nvemu_access *acc)
{
    struct wl_part *p = part_by_tid(wl, tid);
    if (!p)
        return NV_ERR_INVALID_STATE;
    bool known = kernel_id == 0 ? p->n_out > 0 : false;
    for (uint32_t i = 0; i < p->n_out && !known; i++)
        known = p->outstanding[i] == kernel_id;
    if (!known)
        return NV_ERR_INVALID_ARGUMENT;
    p->want = kernel_id;
    p->deadline = deadline_ns;
    p->sleeping = false;
    block(p, lock, acc);
    uint32_t i;
    if (!find_done(p, &i))
        return p->stalled ? NV_ERR_INVALID_STATE : NV_ERR_TIMEOUT;
    out->kernel_id = p->done[i].id;
    out->tag = p->done[i].tag;
    out->done_ns = p->done[i].done_t;
    NV_STATUS st = p->done[i].status;
    p->done[i] = p->done[--p->n_done];
    forget_outstanding(p, out->kernel_id);
    return st;
}

/*
 * A sleep to the present (or past) still blocks: it gives the baton up and
 * returns on the caller's turn. A participant's first call after it
 * registered is otherwise made while others run (the runner, a process still
 * starting), and what it traces would land in wall-clock order.
 */
static void sleep_until(struct wl_part *p, uint64_t until, pthread_mutex_t *lock, const nvemu_access *acc)
{
    p->want = 0;
    p->sleeping = true;
    p->yielding = until <= sim_now(p->wl->s);
    p->deadline = p->yielding ? 0 : until;
    block(p, lock, acc);
    p->yielding = false;
}

void workload_after_ioctl(struct workload *wl, int32_t tid, pthread_mutex_t *emu_lock, const nvemu_access *acc)
{
    /* only a participant's charge is taken here; an in-process caller takes its own */
    struct wl_part *p = part_by_tid(wl, tid);
    if (!p)
        return;
    uint64_t charge = sim_take_call_charge(wl->s);
    if (charge)
        sleep_until(p, sim_now(wl->s) + charge, emu_lock, acc);
}

NV_STATUS workload_sleep(struct workload *wl, int32_t tid, uint64_t until_ns, pthread_mutex_t *lock,
                         const nvemu_access *acc)
{
    struct wl_part *p = part_by_tid(wl, tid);
    if (!p)
        return NV_ERR_INVALID_STATE;
    if (until_ns > sim_now(wl->s) && until_ns - sim_now(wl->s) > WL_MAX_SPAN_NS) {
        LOG_INFO(COMP, "WL_SLEEP until %llu ns refused: more than %llu ns ahead", (unsigned long long)until_ns,
                 (unsigned long long)WL_MAX_SPAN_NS);
        return NV_ERR_INVALID_ARGUMENT;
    }
    sleep_until(p, until_ns, lock, acc);
    return NV_OK;
}
