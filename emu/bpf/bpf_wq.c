/* bpf_wq on virtual time (bpf_wq.h). */
#include "bpf/bpf_wq.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/bpf_map.h"

static uint64_t err(int e)
{
    return (uint64_t)(int64_t)e;
}

/* The item a struct bpf_wq was initialised as: its first 8 bytes hold index + 1. */
static struct bpf_wq_item *item_of(struct bpf_wqs *w, uint64_t wq)
{
    uint64_t idx;
    memcpy(&idx, (const void *)(uintptr_t)wq, sizeof idx);
    if (idx == 0 || idx > w->n || w->items[idx - 1].wq != (uintptr_t)wq)
        return NULL;
    return &w->items[idx - 1];
}

/* True when map is one the calling program refers to. */
static bool prog_has_map(const struct bpf_prog *prog, uint64_t map)
{
    for (uint32_t i = 0; i < prog->n_maps; i++)
        if ((uintptr_t)prog->maps[i] == map)
            return true;
    return false;
}

uint64_t bpf_wqs_init(struct bpf_wqs *w, const uint64_t args[5], const struct bpf_vm_call *call)
{
    uintptr_t base;
    uint32_t size;
    if (args[2] || !prog_has_map(call->prog, args[1]) ||
        !bpf_map_value_containing((struct bpf_map *)(uintptr_t)args[1], (uintptr_t)args[0], &base, &size))
        return err(-EINVAL);
    if (item_of(w, args[0]))
        return err(-EBUSY);
    if (w->n == w->cap) {
        uint32_t cap = w->cap ? w->cap * 2 : 8;
        struct bpf_wq_item *ni = realloc(w->items, cap * sizeof *ni);
        if (!ni)
            return err(-ENOMEM);
        w->items = ni;
        w->cap = cap;
    }
    w->items[w->n] = (struct bpf_wq_item){.wq = (uintptr_t)args[0], .map = (struct bpf_map *)(uintptr_t)args[1]};
    uint64_t idx = ++w->n;
    memcpy((void *)(uintptr_t)args[0], &idx, sizeof idx);
    return 0;
}

uint64_t bpf_wqs_set_callback(struct bpf_wqs *w, const uint64_t args[5], const struct bpf_vm_call *call)
{
    struct bpf_wq_item *it = item_of(w, args[0]);
    if (!it || args[2] || args[1] >= call->prog->n)
        return err(-EINVAL);
    it->prog = call->prog;
    it->callback = (uint32_t)args[1];
    it->has_callback = true;
    return 0;
}

uint64_t bpf_wqs_start(struct bpf_wqs *w, const uint64_t args[5])
{
    struct bpf_wq_item *it = item_of(w, args[0]);
    if (!it || args[1])
        return err(-EINVAL);
    /* work already queued stays queued once, as schedule_work */
    if (it->has_callback && !it->pending) {
        it->pending = true;
        w->started++;
    }
    return 0;
}

/* The key of the element whose value starts at base, into key; false when no element has it. */
static bool key_of(struct bpf_map *map, uintptr_t base, uint8_t *key)
{
    int rc = bpf_map_get_next_key(map, NULL, key);
    while (rc == 0) {
        if ((uintptr_t)bpf_map_lookup(map, key) == base)
            return true;
        rc = bpf_map_get_next_key(map, key, key);
    }
    return false;
}

bool bpf_wqs_next(struct bpf_wqs *w, struct bpf_wq_item *item, uint8_t *key, uint32_t key_cap, void **value,
                  uint32_t *value_size)
{
    for (uint32_t i = 0; i < w->n; i++) {
        struct bpf_wq_item *it = &w->items[i];
        if (!it->pending)
            continue;
        it->pending = false;
        uintptr_t base;
        uint32_t size;
        if (bpf_map_definition(it->map)->key_size > key_cap ||
            !bpf_map_value_containing(it->map, it->wq, &base, &size) || !key_of(it->map, base, key)) {
            w->cancelled++;
            continue;
        }
        *item = *it;
        *value = (void *)base;
        *value_size = size;
        w->ran++;
        return true;
    }
    return false;
}

void bpf_wqs_free(struct bpf_wqs *w)
{
    free(w->items);
    memset(w, 0, sizeof *w);
}
