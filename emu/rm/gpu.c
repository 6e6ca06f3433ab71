/* The GPUs of a resource server (gpu.h): the table the emulator built, looked up by index or gpu id. */
#include "rm/gpu.h"

#include "fifo/fifo.h"
#include "profile/profile.h"
#include "rm/rm_internal.h"

bool gpu_has_class(const struct gpu *g, uint32_t hclass)
{
    if (hclass >= 0x10000)
        return profile_has_class(g->profile, hclass);
    return (g->class_map[hclass / 64] >> (hclass % 64)) & 1;
}

struct fifo *gpu_fifo(struct gpu *g) { return g->fifo; }
uint32_t gpu_index(const struct gpu *g) { return g->index; }
bool gpu_is_lost(const struct gpu *g) { return g->lost; }

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
