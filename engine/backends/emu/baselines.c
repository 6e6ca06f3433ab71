/* Runs of one task alone (the reduced scenario of plan.h's sc_task_alone): the cache of their results (runner.h). */
#include "baselines.h"

#include <stdlib.h>
#include <string.h>

#define BASELINE_CACHE_MAX 4096

/* Everything a run of one task alone depends on (zeroed first, pointers and source positions cleared). */
struct baseline_key {
    uint64_t seed, duration_ns, warmup_ns;
    enum sc_clock clock;
    struct sc_gpu gpu;
    struct sc_task task;
};

struct baseline_entry {
    uint64_t hash;
    struct baseline_key key;
    uint64_t *trace_ns;                 /* the task's arrival offsets (trace arrivals) */
    struct sc_task_result result;       /* result.lat_ns owned here */
};

struct sc_baseline_cache {
    struct baseline_entry *e;
    size_t n, cap;
};

struct sc_baseline_cache *sc_baseline_cache_create(void)
{
    return calloc(1, sizeof(struct sc_baseline_cache));
}

void sc_baseline_cache_free(struct sc_baseline_cache *c)
{
    for (size_t i = 0; c && i < c->n; i++) {
        free(c->e[i].trace_ns);
        free(c->e[i].result.lat_ns);
    }
    if (c)
        free(c->e);
    free(c);
}

size_t sc_baseline_cache_size(const struct sc_baseline_cache *c)
{
    return c ? c->n : 0;
}

static uint64_t fnv_bytes(uint64_t h, const void *p, size_t n)
{
    for (const unsigned char *b = p; n--; b++)
        h = (h ^ *b) * 0x100000001b3ull;
    return h;
}

/* false: not a run that can be kept (an external process or wall-clock time is not reproducible). */
static bool baseline_key(const struct scenario *b, uint64_t seed, struct baseline_key *k, uint64_t *hash)
{
    const struct sc_task *t = &b->tasks[0];
    if (t->process || b->clock != SC_CLOCK_VIRTUAL)
        return false;
    memset(k, 0, sizeof(*k));
    k->seed = seed;
    k->duration_ns = b->duration_ns;
    k->warmup_ns = b->warmup_ns;
    k->clock = b->clock;
    memcpy(&k->gpu, &b->gpu, sizeof(k->gpu));
    memset(&k->gpu.pos, 0, sizeof(k->gpu.pos));
    memcpy(&k->task, t, sizeof(k->task));
    k->task.trace_ns = NULL;
    memset(&k->task.pos, 0, sizeof(k->task.pos));
    uint64_t h = fnv_bytes(0xcbf29ce484222325ull, k, sizeof(*k));
    *hash = fnv_bytes(h, t->trace_ns, t->trace_count * sizeof(uint64_t));
    return true;
}

const struct sc_task_result *sc_baseline_find(const struct sc_baseline_cache *c, const struct scenario *b,
                                              uint64_t seed)
{
    struct baseline_key k;
    uint64_t h;
    if (!c || !baseline_key(b, seed, &k, &h))
        return NULL;
    for (size_t i = 0; i < c->n; i++) {
        const struct baseline_entry *e = &c->e[i];
        if (e->hash == h && memcmp(&e->key, &k, sizeof(k)) == 0 &&
            (!k.task.trace_count ||
             memcmp(e->trace_ns, b->tasks[0].trace_ns, k.task.trace_count * sizeof(uint64_t)) == 0))
            return &e->result;
    }
    return NULL;
}

void sc_baseline_keep(struct sc_baseline_cache *c, const struct scenario *b, uint64_t seed,
                      const struct sc_task_result *r)
{
    struct baseline_key k;
    uint64_t h;
    if (!c || c->n >= BASELINE_CACHE_MAX || !baseline_key(b, seed, &k, &h))
        return;
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 16;
        struct baseline_entry *ne = realloc(c->e, cap * sizeof(*ne));
        if (!ne)
            return;
        c->e = ne;
        c->cap = cap;
    }
    struct baseline_entry *e = &c->e[c->n];
    memset(e, 0, sizeof(*e));
    e->hash = h;
    e->key = k;
    e->result = *r;
    e->result.lat_ns = r->completed ? malloc(r->completed * sizeof(uint64_t)) : NULL;
    e->trace_ns = k.task.trace_count ? malloc(k.task.trace_count * sizeof(uint64_t)) : NULL;
    if ((r->completed && !e->result.lat_ns) || (k.task.trace_count && !e->trace_ns)) {
        free(e->result.lat_ns);
        free(e->trace_ns);
        return;
    }
    if (r->completed)
        memcpy(e->result.lat_ns, r->lat_ns, r->completed * sizeof(uint64_t));
    if (k.task.trace_count)
        memcpy(e->trace_ns, b->tasks[0].trace_ns, k.task.trace_count * sizeof(uint64_t));
    c->n++;
}

