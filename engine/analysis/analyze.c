/*
 * Trace -> results. One pass over the records as the sim appends them; no
 * state of the model is read, so the numbers are exactly what the trace
 * says (and what a later replay of the CSV would say).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

_Static_assert(SC_MAX_ENGINES >= PROFILE_MAX_ENGINES, "a run record holds every engine a profile names");

struct u64vec {
    uint64_t *v;
    size_t n, cap;
};

struct engine_state {
    bool running;
    uint64_t since;
    uint32_t tsg;
};

/* A channel group and the instance it serves. */
struct tsg_owner {
    uint32_t gpu, tsg;
    int32_t inst;
};

/* A hook record whose channel group has no instance yet (a context's groups are made before its mark). */
struct pending_hook {
    char hook[24], field[24], result[16];
    uint32_t gpu, tsg;
    size_t event;               /* index into out->hooks, or SIZE_MAX when the timeline was full */
};

struct sc_analyzer {
    const struct scenario *sc;
    const struct profile *prof;
    struct sc_results *out;
    struct engine_state eng[PROFILE_MAX_ENGINES];
    struct u64vec *arrival;     /* per instance: arrival time of request i */
    struct u64vec lat[SC_MAX_TASKS];
    /*
     * The runner opens one context at a time and then marks which instance it was (SC_MARK_TSG or
     * SC_MARK_REJECTED): every group created, and every hook decision about a group, since the
     * previous such mark belongs to that instance.
     */
    struct tsg_owner *owners;
    size_t owner_count, owner_cap;
    struct pending_hook *pending;
    size_t pending_count, pending_cap;
    /* texts[] index + 1 of a recent text by hash of its pointer: the sim interns, so equal texts are one pointer */
    struct {
        const char *sim;
        size_t index;
    } text_cache[256];
};

static int vec_push(struct u64vec *v, uint64_t x)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 64;
        uint64_t *nv = realloc(v->v, cap * sizeof(*nv));
        if (!nv)
            return -1;
        v->v = nv;
        v->cap = cap;
    }
    v->v[v->n++] = x;
    return 0;
}

static void *grow(void *p, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return p;
    size_t ncap = *cap ? *cap * 2 : 256;
    void *np = realloc(p, ncap * elem);
    if (np)
        *cap = ncap;
    return np;
}

uint32_t sc_instance_count(const struct scenario *s)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->task_count; i++)
        n += s->tasks[i].count;
    return n;
}

uint32_t sc_instance_id(const struct scenario *s, uint32_t task, uint32_t replica)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < task; i++)
        n += s->tasks[i].count;
    return n + replica;
}

struct sc_analyzer *sc_analyzer_create(const struct scenario *s, uint64_t seed, const struct profile *p,
                                       struct sc_results *out)
{
    memset(out, 0, sizeof(*out));
    out->sc = s;
    out->seed = seed;
    out->inst_count = sc_instance_count(s);
    struct sc_analyzer *a = calloc(1, sizeof(*a));
    out->inst = calloc(out->inst_count, sizeof(*out->inst));
    if (!a || !out->inst || !(a->arrival = calloc(out->inst_count, sizeof(*a->arrival)))) {
        free(a ? a->arrival : NULL);
        free(a);
        free(out->inst);
        out->inst = NULL;
        return NULL;
    }
    a->sc = s;
    a->prof = p;
    a->out = out;
    for (uint32_t t = 0, k = 0; t < s->task_count; t++)
        for (uint32_t r = 0; r < s->tasks[t].count; r++, k++) {
            out->inst[k].task = t;
            out->inst[k].replica = r;
            out->inst[k].gr_tsg = SIM_NONE;
            out->inst[k].last_done_ns = s->warmup_ns > s->tasks[t].start_ns ? s->warmup_ns : s->tasks[t].start_ns;
        }
    return a;
}

static int engine_index(struct sc_analyzer *a, uint32_t gpu, uint32_t engine)
{
    struct sc_results *o = a->out;
    for (uint32_t i = 0; i < o->engine_count; i++)
        if (o->engines[i].gpu == gpu && o->engines[i].engine_type == engine)
            return (int)i;
    if (o->engine_count == SC_MAX_ENGINES)
        return -1;
    struct sc_engine_result *e = &o->engines[o->engine_count];
    e->gpu = gpu;
    e->engine_type = engine;
    const struct profile_engine *pe = a->prof ? profile_engine(a->prof, engine) : NULL;
    char name[16];
    if (pe)
        snprintf(name, sizeof(name), "%s", pe->name);
    else
        snprintf(name, sizeof(name), "ENG%u", engine);
    /* on a profile of several GPUs each has a GR0: the name says whose ("GPU1.COPY2" fits) */
    char full[48];
    if (a->prof && a->prof->gpu_count > 1)
        snprintf(full, sizeof(full), "GPU%u.%s", gpu, name);
    else
        snprintf(full, sizeof(full), "%s", name);
    snprintf(e->name, sizeof(e->name), "%.15s", full);
    return (int)o->engine_count++;
}

static void add_segment(struct sc_analyzer *a, int ei, uint64_t t0, uint64_t t1, uint32_t tsg, bool sw)
{
    struct sc_results *o = a->out;
    if (t1 <= t0)
        return;
    if (o->seg_count) {
        struct sc_segment *last = &o->segs[o->seg_count - 1];
        if (!sw && !last->is_switch && last->engine_idx == ei && last->tsg == tsg && last->t1 == t0) {
            last->t1 = t1;
            return;
        }
    }
    struct sc_segment *ns = grow(o->segs, &o->seg_cap, o->seg_count, sizeof(*ns));
    if (!ns)
        return;
    o->segs = ns;
    o->segs[o->seg_count++] = (struct sc_segment){t0, t1, (uint16_t)ei, sw, tsg};
}

static void close_run(struct sc_analyzer *a, int ei, uint64_t t)
{
    struct engine_state *st = &a->eng[ei];
    if (!st->running)
        return;
    a->out->engines[ei].busy_ns += t - st->since;
    add_segment(a, ei, st->since, t, st->tsg, false);
    st->running = false;
}

static void add_point(struct sc_analyzer *a, int ei, enum sc_point_kind kind, const struct sim_rec *r)
{
    struct sc_results *o = a->out;
    struct sc_point *np = grow(o->points, &o->point_cap, o->point_count, sizeof(*np));
    if (!np)
        return;
    o->points = np;
    o->points[o->point_count++] = (struct sc_point){r->t, (uint16_t)ei, (uint16_t)kind, r->tsg, r->a, r->b};
}

static int32_t owner_of(const struct sc_analyzer *a, uint32_t gpu, uint32_t tsg)
{
    for (size_t i = a->owner_count; i-- > 0;)
        if (a->owners[i].gpu == gpu && a->owners[i].tsg == tsg)
            return a->owners[i].inst;
    return -1;
}

/* inst -1: the group is known (created) but not yet claimed by an instance. */
static void set_owner(struct sc_analyzer *a, uint32_t gpu, uint32_t tsg, int32_t inst)
{
    for (size_t i = a->owner_count; i-- > 0;)
        if (a->owners[i].gpu == gpu && a->owners[i].tsg == tsg) {
            a->owners[i].inst = inst;
            return;
        }
    struct tsg_owner *no = grow(a->owners, &a->owner_cap, a->owner_count, sizeof(*no));
    if (!no)
        return;
    a->owners = no;
    a->owners[a->owner_count++] = (struct tsg_owner){gpu, tsg, inst};
}

static void drop_owner(struct sc_analyzer *a, uint32_t gpu, uint32_t tsg)
{
    for (size_t i = 0; i < a->owner_count; i++)
        if (a->owners[i].gpu == gpu && a->owners[i].tsg == tsg) {
            a->owners[i] = a->owners[--a->owner_count];
            return;
        }
}

static void count_decision(struct sc_analyzer *a, const char *hook, const char *field, const char *result,
                           int32_t task, size_t event)
{
    struct sc_results *o = a->out;
    size_t i = 0;
    for (; i < o->decision_count; i++) {
        struct sc_decision *d = &o->decisions[i];
        if (d->task == task && strcmp(d->hook, hook) == 0 && strcmp(d->field, field) == 0 &&
            strcmp(d->result, result) == 0)
            break;
    }
    if (i == o->decision_count) {
        struct sc_decision *nd = grow(o->decisions, &o->decision_cap, o->decision_count, sizeof(*nd));
        if (!nd)
            return;
        o->decisions = nd;
        struct sc_decision *d = &o->decisions[o->decision_count++];
        memset(d, 0, sizeof(*d));
        snprintf(d->hook, sizeof(d->hook), "%s", hook);
        snprintf(d->field, sizeof(d->field), "%s", field);
        snprintf(d->result, sizeof(d->result), "%s", result);
        d->task = task;
    }
    o->decisions[i].count++;
    if (event != SIZE_MAX)
        o->hooks[event].decision = (uint32_t)i;
}

static int32_t inst_task(const struct sc_analyzer *a, int32_t inst)
{
    return inst < 0 ? -1 : (int32_t)a->out->inst[inst].task;
}

/* A copy of the sim's text in the results (whole: a printk line is not cut), "" when out of memory. */
static const char *keep_text(struct sc_analyzer *a, const char *sim_text)
{
    struct sc_results *o = a->out;
    if (!sim_text || !*sim_text)
        return "";
    size_t slot = ((uintptr_t)sim_text >> 4) % (sizeof a->text_cache / sizeof *a->text_cache);
    if (a->text_cache[slot].sim == sim_text)
        return o->texts[a->text_cache[slot].index];
    char **nt = grow(o->texts, &o->text_cap, o->text_count, sizeof(*nt));
    char *copy = nt ? strdup(sim_text) : NULL;
    if (!copy)
        return "";
    o->texts = nt;
    o->texts[o->text_count] = copy;
    a->text_cache[slot].sim = sim_text;
    a->text_cache[slot].index = o->text_count++;
    return copy;
}

/* A policy's printk line for the report's printk section, the text shared with its hook event. */
static void keep_log_line(struct sc_analyzer *a, const struct sim_rec *r, int32_t inst)
{
    struct sc_results *o = a->out;
    if (o->log_count >= SC_MAX_LOG_LINES) {
        o->log_dropped++;
        return;
    }
    struct sc_log_line *nl = grow(o->logs, &o->log_cap, o->log_count, sizeof(*nl));
    if (!nl) {
        o->log_dropped++;
        return;
    }
    o->logs = nl;
    struct sc_log_line *l = &o->logs[o->log_count++];
    l->t = r->t;
    l->inst = inst;
    l->text = keep_text(a, r->reason);
}

static void on_hook(struct sc_analyzer *a, const struct sim_rec *r)
{
    struct sc_results *o = a->out;
    size_t event = SIZE_MAX;
    int32_t inst = r->tsg == SIM_NONE ? -1 : owner_of(a, r->gpu, r->tsg);
    if (o->hook_count < SC_MAX_TIMELINE_EVENTS) {
        struct sc_hook_event *nh = grow(o->hooks, &o->hook_cap, o->hook_count, sizeof(*nh));
        if (nh) {
            o->hooks = nh;
            event = o->hook_count++;
            struct sc_hook_event *h = &o->hooks[event];
            *h = (struct sc_hook_event){.t = r->t, .value = r->a, .inst = inst, .gpu = r->gpu, .tsg = r->tsg,
                                        .runlist = r->runlist, .reason = keep_text(a, r->reason)};
        }
    }
    const char *hook = r->name ? r->name : "", *field = r->field ? r->field : "", *result = r->result ? r->result : "";
    if (!strcmp(field, "printk"))
        keep_log_line(a, r, inst);
    if (r->tsg == SIM_NONE || inst >= 0) {
        count_decision(a, hook, field, result, inst_task(a, inst), event);
        return;
    }
    struct pending_hook *np = grow(a->pending, &a->pending_cap, a->pending_count, sizeof(*np));
    if (!np) {
        count_decision(a, hook, field, result, -1, event);
        return;
    }
    a->pending = np;
    struct pending_hook *ph = &a->pending[a->pending_count++];
    snprintf(ph->hook, sizeof(ph->hook), "%s", hook);
    snprintf(ph->field, sizeof(ph->field), "%s", field);
    snprintf(ph->result, sizeof(ph->result), "%s", result);
    ph->gpu = r->gpu;
    ph->tsg = r->tsg;
    ph->event = event;
}

/* Instance inst (-1: none) claims the groups made and the decisions taken since the previous claim. */
static void claim(struct sc_analyzer *a, int32_t inst)
{
    for (size_t i = 0; i < a->owner_count; i++)
        if (a->owners[i].inst < 0)
            a->owners[i].inst = inst;
    for (size_t i = 0; i < a->pending_count; i++) {
        struct pending_hook *ph = &a->pending[i];
        if (ph->event != SIZE_MAX)
            a->out->hooks[ph->event].inst = inst;
        count_decision(a, ph->hook, ph->field, ph->result, inst_task(a, inst), ph->event);
    }
    a->pending_count = 0;
}

static void add_request(struct sc_analyzer *a, uint32_t inst, uint64_t num, uint64_t t0, uint64_t t1,
                        enum sc_req_end end)
{
    struct sc_results *o = a->out;
    if (o->request_count >= SC_MAX_TIMELINE_EVENTS)
        return;
    struct sc_request *nr = grow(o->requests, &o->request_cap, o->request_count, sizeof(*nr));
    if (!nr)
        return;
    o->requests = nr;
    o->requests[o->request_count++] = (struct sc_request){t0, t1, inst, (uint32_t)num, (uint8_t)end};
}

static void add_fault(struct sc_analyzer *a, const struct sim_rec *r, const char *what, int32_t inst, uint64_t value)
{
    struct sc_results *o = a->out;
    if (o->fault_count >= SC_MAX_TIMELINE_EVENTS)
        return;
    struct sc_fault_event *nf = grow(o->faults, &o->fault_cap, o->fault_count, sizeof(*nf));
    if (!nf)
        return;
    o->faults = nf;
    o->faults[o->fault_count++] = (struct sc_fault_event){r->t, value, what, inst};
}

static void on_mark(struct sc_analyzer *a, const struct sim_rec *r)
{
    struct sc_results *o = a->out;
    if (!r->name || r->a >= o->inst_count)
        return;
    struct sc_inst *in = &o->inst[r->a];
    struct u64vec *arr = &a->arrival[r->a];
    uint64_t warm = a->sc->warmup_ns;
    bool known = r->b < arr->n;
    bool measured = known && arr->v[r->b] >= warm;
    if (strcmp(r->name, SC_MARK_ARRIVE) == 0) {
        vec_push(arr, r->t);
        if (a->sc->tasks[in->task].cls == SC_LC) {
            struct sc_lc_arrival *na = grow(o->arrivals, &o->arrival_cap, o->arrival_count, sizeof(*na));
            if (na) {
                o->arrivals = na;
                o->arrivals[o->arrival_count++] = (struct sc_lc_arrival){r->t, (uint32_t)r->a};
            }
        }
        in->total_arrivals++;
        if (r->t >= warm)
            in->arrivals++;
    } else if (strcmp(r->name, SC_MARK_DONE) == 0 && known) {
        in->total_done++;
        add_request(a, (uint32_t)r->a, r->b, arr->v[r->b], r->t, SC_REQ_DONE);
        if (!measured)
            return;
        in->completed++;
        vec_push(&a->lat[in->task], r->t - arr->v[r->b]);
        if (r->t > in->last_done_ns && r->t - in->last_done_ns > in->max_gap_ns)
            in->max_gap_ns = r->t - in->last_done_ns;
        if (r->t > in->last_done_ns)
            in->last_done_ns = r->t;
    } else if (strcmp(r->name, SC_MARK_FAIL) == 0 && known) {
        add_request(a, (uint32_t)r->a, r->b, arr->v[r->b], r->t, SC_REQ_FAILED);
        in->total_failed++;
        in->failed += measured;
    } else if (strcmp(r->name, SC_MARK_OPEN) == 0 && known) {
        add_request(a, (uint32_t)r->a, r->b, arr->v[r->b], r->t, SC_REQ_OPEN);
        in->total_open++;
        in->open += measured;
    } else if (strcmp(r->name, SC_MARK_TSG) == 0) {
        in->gr_tsg = (uint32_t)r->b;
        claim(a, (int32_t)r->a);
    } else if (strcmp(r->name, SC_MARK_REJECTED) == 0) {
        in->rejected = true;
        claim(a, (int32_t)r->a);
        add_fault(a, r, SC_MARK_REJECTED, (int32_t)r->a, 0);
    } else if (strcmp(r->name, SC_MARK_KILLED) == 0) {
        in->killed = true;
        in->killed_ns = r->t;
        add_fault(a, r, SC_MARK_KILLED, (int32_t)r->a, 0);
    }
}

void sc_analyzer_record(void *ctx, const struct sim_rec *r)
{
    struct sc_analyzer *a = ctx;
    struct sc_results *o = a->out;
    o->events++;
    if (r->kind == SIM_REC_MARK) {
        /* Run-wide fault marks carry no instance. */
        if (r->name && strcmp(r->name, SC_MARK_GPU_LOST) == 0) {
            if (!o->gpu_lost)
                o->gpu_lost_ns = r->t;
            o->gpu_lost = true;
            add_fault(a, r, SC_MARK_GPU_LOST, -1, r->a);
            return;
        }
        if (r->name && strcmp(r->name, SC_MARK_BUSY_RETRY) == 0) {
            o->busy_retries++;
            add_fault(a, r, SC_MARK_BUSY_RETRY, r->a < o->inst_count ? (int32_t)r->a : -1, r->b);
            return;
        }
        on_mark(a, r);
        return;
    }
    if (r->kind == SIM_REC_HOOK) {
        on_hook(a, r);
        return;
    }
    if (r->kind == SIM_REC_TSG_CREATE) {
        set_owner(a, r->gpu, r->tsg, -1);
        return;
    }
    if (r->kind == SIM_REC_TSG_DESTROY) {
        drop_owner(a, r->gpu, r->tsg);
        return;
    }
    if (r->engine == SIM_NONE)
        return;
    int ei = engine_index(a, r->gpu, r->engine);
    if (ei < 0)
        return;
    struct sc_engine_result *e = &o->engines[ei];
    struct engine_state *st = &a->eng[ei];
    switch ((enum sim_rec_kind)r->kind) {
    case SIM_REC_KERNEL_START:
        close_run(a, ei, r->t);
        st->running = true;
        st->since = r->t;
        st->tsg = r->tsg;
        break;
    case SIM_REC_KERNEL_DONE:
        close_run(a, ei, r->t);
        e->kernels++;
        break;
    case SIM_REC_SWITCH:
        close_run(a, ei, r->t);
        /* Resuming the group the engine last ran costs nothing and is not a switch. */
        if (r->a == r->tsg)
            break;
        e->switches++;
        e->switch_ns += r->b;
        add_segment(a, ei, r->t, r->t + r->b, r->tsg, true);
        break;
    case SIM_REC_IDLE:
        close_run(a, ei, r->t);
        break;
    case SIM_REC_PREEMPT_DONE:
        close_run(a, ei, r->t);
        e->preemptions++;
        add_point(a, ei, SC_POINT_PREEMPT_DONE, r);
        break;
    case SIM_REC_PREEMPT_REQ:
        add_point(a, ei, SC_POINT_PREEMPT_REQ, r);
        break;
    case SIM_REC_PREEMPT_TIMEOUT:
        e->preempt_timeouts++;
        add_point(a, ei, SC_POINT_PREEMPT_TIMEOUT, r);
        break;
    case SIM_REC_TIMESLICE_EXPIRE:
        e->timeslice_expiries++;
        break;
    default:
        break;
    }
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

double sc_percentile(const uint64_t *sorted, size_t n, double pct)
{
    if (!n)
        return 0;
    double rank = pct / 100.0 * (double)n;
    size_t idx = rank <= 1 ? 0 : (size_t)(rank + 0.999999999) - 1;
    if (idx >= n)
        idx = n - 1;
    return (double)sorted[idx];
}

void sc_analyzer_finish(struct sc_analyzer *a, uint64_t end_ns)
{
    struct sc_results *o = a->out;
    const struct scenario *s = a->sc;
    o->virtual_ns = end_ns;
    claim(a, -1);
    for (uint32_t i = 0; i < o->engine_count; i++)
        close_run(a, (int)i, end_ns);
    double window_s = (double)(end_ns > s->warmup_ns ? end_ns - s->warmup_ns : 1) / 1e9;
    for (uint32_t k = 0; k < o->inst_count; k++) {
        struct sc_inst *in = &o->inst[k];
        struct sc_task_result *tr = &o->tasks[in->task];
        uint64_t stop = in->killed ? in->killed_ns : end_ns;
        if (stop > in->last_done_ns && stop - in->last_done_ns > in->max_gap_ns)
            in->max_gap_ns = stop - in->last_done_ns;
        tr->arrivals += in->arrivals;
        tr->completed += in->completed;
        tr->failed += in->failed;
        tr->open += in->open;
        uint64_t accounted = in->total_done + in->total_failed + in->total_open;
        if (in->total_arrivals > accounted)
            tr->lost += in->total_arrivals - accounted;
        free(a->arrival[k].v);
    }
    for (uint32_t t = 0; t < s->task_count; t++) {
        struct sc_task_result *tr = &o->tasks[t];
        struct u64vec *v = &a->lat[t];
        if (v->n)
            qsort(v->v, v->n, sizeof(uint64_t), cmp_u64);
        tr->lat_ns = v->v;
        tr->p50_ns = sc_percentile(v->v, v->n, 50);
        tr->p99_ns = sc_percentile(v->v, v->n, 99);
        tr->max_ns = v->n ? (double)v->v[v->n - 1] : 0;
        double sum = 0;
        for (size_t i = 0; i < v->n; i++)
            sum += (double)v->v[i];
        tr->mean_ns = v->n ? sum / (double)v->n : 0;
        tr->throughput = (double)tr->completed / window_s;
    }
    free(a->arrival);
    free(a->owners);
    free(a->pending);
    free(a);
}

void sc_results_set_alone(struct sc_results *out, uint32_t task, const struct sc_results *alone)
{
    struct sc_task_result *dst = &out->tasks[task];
    const struct sc_task_result *src = &alone->tasks[0];
    dst->has_alone = true;
    dst->alone_p50_ns = src->p50_ns;
    dst->alone_p99_ns = src->p99_ns;
    dst->alone_max_ns = src->max_ns;
    dst->alone_mean_ns = src->mean_ns;
    dst->alone_throughput = src->throughput;
    free(dst->alone_lat_ns);
    dst->alone_lat_ns = NULL;
    dst->alone_completed = 0;
    if (src->completed && (dst->alone_lat_ns = malloc(src->completed * sizeof(uint64_t)))) {
        memcpy(dst->alone_lat_ns, src->lat_ns, src->completed * sizeof(uint64_t));
        dst->alone_completed = src->completed;
    }
}

void sc_results_free(struct sc_results *r)
{
    if (!r)
        return;
    for (uint32_t t = 0; t < SC_MAX_TASKS; t++) {
        free(r->tasks[t].lat_ns);
        free(r->tasks[t].alone_lat_ns);
    }
    free(r->inst);
    free(r->segs);
    free(r->points);
    free(r->arrivals);
    free(r->decisions);
    free(r->hooks);
    free(r->requests);
    free(r->faults);
    free(r->policy_maps);
    for (size_t i = 0; i < r->text_count; i++)
        free(r->texts[i]);
    free(r->texts);
    free(r->logs);
    memset(r, 0, sizeof(*r));
}
