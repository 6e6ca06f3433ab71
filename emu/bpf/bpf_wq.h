/*
 * bpf_wq: work a program defers to process context (bpf_wq_init, bpf_wq_set_callback_impl, bpf_wq_start
 * as kfuncs). A `struct bpf_wq` (16 opaque bytes) lives in a map value; starting it queues its callback,
 * which runs sleepable once the program that started it has returned (the kernel's worker runs it
 * soon after; virtual time does not move while policy code runs, so it runs at the same virtual time)
 * with (map, key, value) of the element that holds it. An element deleted meanwhile cancels its work.
 */
#ifndef NVEMU_BPF_WQ_H
#define NVEMU_BPF_WQ_H

#include <stdbool.h>
#include <stdint.h>

#include "bpf/bpf_vm.h"

struct bpf_map;

struct bpf_wq_item {
    uintptr_t wq;                      /* address of the struct bpf_wq in its map value */
    struct bpf_map *map;
    const struct bpf_prog *prog;       /* the program whose subprogram is the callback */
    uint32_t callback;                 /* its first instruction */
    bool has_callback, pending;
};

struct bpf_wqs {
    struct bpf_wq_item *items;
    uint32_t n, cap;
    uint64_t started, ran, cancelled;
};

/* The kfuncs; each returns the kernel's value (0, -EINVAL, -EBUSY, -ENOMEM). */
uint64_t bpf_wqs_init(struct bpf_wqs *w, const uint64_t args[5], const struct bpf_vm_call *call);
uint64_t bpf_wqs_set_callback(struct bpf_wqs *w, const uint64_t args[5], const struct bpf_vm_call *call);
uint64_t bpf_wqs_start(struct bpf_wqs *w, const uint64_t args[5]);

/*
 * Takes the next queued work: its item (copied) and the key and value of the element holding it, the
 * key in key (key_cap bytes). False when nothing is queued. Work whose element is gone is dropped
 * (counted as cancelled).
 */
bool bpf_wqs_next(struct bpf_wqs *w, struct bpf_wq_item *item, uint8_t *key, uint32_t key_cap, void **value,
                  uint32_t *value_size);

void bpf_wqs_free(struct bpf_wqs *w);

#endif
