/* Discrete-event core: event pool + binary heap, RNG, realtime sync. Trace lives in sim_trace.c. */
#include "sim/sim_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"

#define COMP "sim"

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t sim_splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

struct sim *sim_create(const struct sim_config *cfg)
{
    struct sim *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->clock = cfg->clock;
    s->keep = cfg->keep_trace;
    sim_rng_seed(&s->rng, cfg->seed);
    s->digest = 0xcbf29ce484222325ull;
    s->wall_base = mono_ns();
    if (cfg->trace_path) {
        s->csv = fopen(cfg->trace_path, "w");
        if (!s->csv) {
            LOG_ERROR(COMP, "cannot open trace file %s", cfg->trace_path);
            free(s);
            return NULL;
        }
        fprintf(s->csv, "%s\n", sim_trace_csv_header());
    }
    return s;
}

void sim_destroy(struct sim *s)
{
    if (!s)
        return;
    if (s->csv)
        fclose(s->csv);
    sim_trace_free(s);
    free(s->pool);
    free(s->heap);
    free(s);
}

uint64_t sim_now(const struct sim *s) { return s->now; }
nvemu_clock sim_clock(const struct sim *s) { return s->clock; }
size_t sim_pending(const struct sim *s) { return s->heap_len; }
uint64_t sim_fired(const struct sim *s) { return s->fired; }
bool sim_in_event(const struct sim *s) { return s->in_event; }

static bool ev_less(const struct sim *s, uint32_t a, uint32_t b)
{
    const struct sim_ev *x = &s->pool[a], *y = &s->pool[b];
    return x->t < y->t || (x->t == y->t && x->seq < y->seq);
}

static void heap_set(struct sim *s, uint32_t pos, uint32_t idx)
{
    s->heap[pos] = idx;
    s->pool[idx].heap_pos = pos;
}

static void sift_up(struct sim *s, uint32_t pos)
{
    uint32_t idx = s->heap[pos];
    while (pos > 0) {
        uint32_t parent = (pos - 1) / 2;
        if (!ev_less(s, idx, s->heap[parent]))
            break;
        heap_set(s, pos, s->heap[parent]);
        pos = parent;
    }
    heap_set(s, pos, idx);
}

static void sift_down(struct sim *s, uint32_t pos)
{
    uint32_t idx = s->heap[pos];
    for (;;) {
        uint32_t l = 2 * pos + 1, best = pos;
        uint32_t best_idx = idx;
        if (l < s->heap_len && ev_less(s, s->heap[l], best_idx)) {
            best = l;
            best_idx = s->heap[l];
        }
        if (l + 1 < s->heap_len && ev_less(s, s->heap[l + 1], best_idx)) {
            best = l + 1;
            best_idx = s->heap[l + 1];
        }
        if (best == pos)
            break;
        heap_set(s, pos, best_idx);
        pos = best;
    }
    heap_set(s, pos, idx);
}

static void heap_remove(struct sim *s, uint32_t pos)
{
    s->heap_len--;
    if (pos == s->heap_len)
        return;
    heap_set(s, pos, s->heap[s->heap_len]);
    if (pos > 0 && ev_less(s, s->heap[pos], s->heap[(pos - 1) / 2]))
        sift_up(s, pos);
    else
        sift_down(s, pos);
}

static bool pool_grow(struct sim *s)
{
    uint32_t ncap = s->pool_cap ? s->pool_cap * 2 : 256;
    struct sim_ev *np = realloc(s->pool, ncap * sizeof(*np));
    if (!np)
        return false;
    s->pool = np;
    uint32_t *nh = realloc(s->heap, ncap * sizeof(*nh));
    if (!nh)
        return false;
    s->heap = nh;
    for (uint32_t i = s->pool_cap; i < ncap; i++) {
        np[i].gen = 1;
        np[i].heap_pos = -1;
        np[i].next_free = i + 1 < ncap ? i + 1 : UINT32_MAX;
    }
    s->free_head = s->pool_cap;
    s->pool_cap = ncap;
    return true;
}

sim_event_id sim_at(struct sim *s, uint64_t at, sim_event_fn fn, void *arg, uint64_t data)
{
    if (s->free_head == UINT32_MAX || s->pool_cap == 0) {
        if (!pool_grow(s)) {
            LOG_ERROR(COMP, "out of memory scheduling an event");
            return 0;
        }
    }
    uint32_t idx = s->free_head;
    struct sim_ev *e = &s->pool[idx];
    s->free_head = e->next_free;
    e->t = at < s->now ? s->now : at;
    e->seq = s->next_seq++;
    e->fn = fn;
    e->arg = arg;
    e->data = data;
    uint32_t pos = s->heap_len++;
    heap_set(s, pos, idx);
    sift_up(s, pos);
    return ((uint64_t)e->gen << 32) | (uint64_t)(idx + 1);
}

static void pool_free(struct sim *s, uint32_t idx)
{
    struct sim_ev *e = &s->pool[idx];
    e->gen++;
    if (e->gen == 0)
        e->gen = 1;
    e->heap_pos = -1;
    e->next_free = s->free_head;
    s->free_head = idx;
}

bool sim_cancel(struct sim *s, sim_event_id id)
{
    uint32_t idx = (uint32_t)(id & 0xFFFFFFFFu);
    if (idx == 0 || idx > s->pool_cap)
        return false;
    idx--;
    struct sim_ev *e = &s->pool[idx];
    if (e->gen != (uint32_t)(id >> 32) || e->heap_pos < 0)
        return false;
    heap_remove(s, (uint32_t)e->heap_pos);
    pool_free(s, idx);
    return true;
}

bool sim_next_time(struct sim *s, uint64_t *t)
{
    if (s->heap_len == 0)
        return false;
    *t = s->pool[s->heap[0]].t;
    return true;
}

static void fire_top(struct sim *s)
{
    uint32_t idx = s->heap[0];
    struct sim_ev e = s->pool[idx];
    heap_remove(s, 0);
    pool_free(s, idx);
    if (e.t > s->now)
        s->now = e.t;
    s->fired++;
    bool outer = s->in_event;
    s->in_event = true;
    e.fn(s, e.arg, e.data);
    s->in_event = outer;
}

bool sim_step(struct sim *s)
{
    if (s->heap_len == 0)
        return false;
    fire_top(s);
    return true;
}

uint64_t sim_run_until(struct sim *s, uint64_t t)
{
    if (s->running) {
        LOG_ERROR(COMP, "sim_run_until called re-entrantly; ignored");
        return 0;
    }
    s->running = true;
    uint64_t n = 0;
    while (s->heap_len && s->pool[s->heap[0]].t <= t) {
        fire_top(s);
        n++;
    }
    if (t > s->now)
        s->now = t;
    s->running = false;
    return n;
}

void sim_sync_realtime(struct sim *s)
{
    if (s->clock != NVEMU_CLOCK_REALTIME || s->running)
        return;
    sim_run_until(s, mono_ns() - s->wall_base);
}

uint64_t sim_wall_of(const struct sim *s, uint64_t t) { return s->wall_base + t; }

void sim_charge_call(struct sim *s, uint64_t ns) { s->call_charge += ns; }

uint64_t sim_take_call_charge(struct sim *s)
{
    uint64_t c = s->call_charge;
    s->call_charge = 0;
    return c;
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void sim_rng_seed(struct sim_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = sim_splitmix64(&seed);
}

uint64_t sim_rng_u64(struct sim_rng *g)
{
    uint64_t *r = g->s;
    uint64_t result = rotl(r[1] * 5, 7) * 9;
    uint64_t t = r[1] << 17;
    r[2] ^= r[0];
    r[3] ^= r[1];
    r[1] ^= r[2];
    r[0] ^= r[3];
    r[2] ^= t;
    r[3] = rotl(r[3], 45);
    return result;
}

uint64_t sim_rng_exp(struct sim_rng *r, double mean)
{
    double u = (double)(sim_rng_u64(r) >> 11) * 0x1.0p-53;
    return (uint64_t)(-log(1.0 - u) * mean);
}

uint64_t sim_rand_u64(struct sim *s) { return sim_rng_u64(&s->rng); }

double sim_rand_unit(struct sim *s) { return (double)(sim_rand_u64(s) >> 11) * 0x1.0p-53; }

uint64_t sim_rand_exp(struct sim *s, double mean) { return sim_rng_exp(&s->rng, mean); }
