/* The GPUs of a resource server (gpu.h): the table the emulator built, looked up by index or gpu id. */
#include "rm/gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fifo/fifo.h"
#include "profile/profile.h"
#include "rm/rm_internal.h"

int gpu_init(struct gpu *g, const struct profile *p, uint32_t index, struct sim *s, struct hooks *h,
             bool inject_latency, char *err, size_t errlen)
{
    memset(g, 0, sizeof(*g));
    g->index = index;
    g->profile = p;
    g->pci_bus = p->pci_gpus_by_slot ? p->pci_bus : p->pci_bus + index;
    g->pci_slot = p->pci_gpus_by_slot ? p->pci_slot + index : p->pci_slot;
    g->uuid = index && index <= p->extra_uuid_count ? p->extra_uuids[index - 1] : p->uuid;
    const struct profile_gpu_bars *bars =
        index && index <= p->next_gpu_bars_count ? &p->next_gpu_bars[index - 1] : NULL;
    g->bar0_address = bars ? bars->bar0_address : p->bar0_address;
    g->fb_address = bars ? bars->fb_address : p->fb_address;
    g->bar2_address = bars ? bars->bar2_address : p->bar2_address;
    g->gpu_id = ((p->pci_domain & 0xFFFFu) << 16) | ((g->pci_bus & 0xFFu) << 8) | (g->pci_slot & 0xFFu);
    g->fifo = fifo_create(p, index, s, h);
    if (!g->fifo) {
        snprintf(err, errlen, "cannot create the FIFO model");
        return -1;
    }
    fifo_set_inject_latency(g->fifo, inject_latency);
    g->class_map = calloc(0x10000 / 64, sizeof(uint64_t));
    if (!g->class_map) {
        snprintf(err, errlen, "out of memory");
        gpu_fini(g);
        return -1;
    }
    for (uint32_t k = 0; k < p->class_count; k++)
        if (p->classes[k] < 0x10000)
            g->class_map[p->classes[k] / 64] |= 1ull << (p->classes[k] % 64);
    return 0;
}

void gpu_fini(struct gpu *g)
{
    fifo_destroy(g->fifo);
    free(g->class_map);
    g->fifo = NULL;
    g->class_map = NULL;
}

bool gpu_has_class(const struct gpu *g, uint32_t hclass)
{
    if (hclass >= 0x10000)
        return profile_has_class(g->profile, hclass);
    return (g->class_map[hclass / 64] >> (hclass % 64)) & 1;
}

struct fifo *gpu_fifo(struct gpu *g) { return g->fifo; }
uint32_t gpu_index(const struct gpu *g) { return g->index; }
bool gpu_is_lost(const struct gpu *g) { return g->lost; }

bool gpu_mark_lost(struct gpu *g)
{
    if (g->lost)
        return false;
    g->lost = true;
    fifo_gpu_lost(g->fifo);
    return true;
}

uint32_t rm_gpu_count(const struct rm_server *rs) { return rs->env.gpu_count; }

struct gpu *rm_gpu(struct rm_server *rs, uint32_t index)
{
    return index < rs->env.gpu_count ? &rs->env.gpus[index] : NULL;
}

struct gpu *rm_gpu_by_id(struct rm_server *rs, uint32_t gpu_id)
{
    for (uint32_t i = 0; i < rs->env.gpu_count; i++)
        if (rs->env.gpus[i].gpu_id == gpu_id)
            return &rs->env.gpus[i];
    return NULL;
}

void rm_charge_latency(struct gpu *g, enum rm_latency lat)
{
    const struct profile_timing *t = &g->profile->timing;
    uint64_t ns = 0;
    switch (lat) {
    case RM_LAT_NONE: return;
    case RM_LAT_CONTROL: ns = t->lat_control_ns; break;
    case RM_LAT_SET_TIMESLICE: ns = t->lat_set_timeslice_ns; break;
    case RM_LAT_GET_TIMESLICE: ns = t->lat_get_timeslice_ns; break;
    case RM_LAT_PREEMPT: ns = t->lat_preempt_ns; break;
    case RM_LAT_TSG_ALLOC: ns = t->lat_tsg_alloc_ns; break;
    case RM_LAT_CHANNEL_ALLOC: ns = t->lat_channel_alloc_ns; break;
    }
    fifo_charge_latency(g->fifo, ns);
}
