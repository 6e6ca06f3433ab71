/* The GPUs of a resource server (gpu.h): the table the emulator built, looked up by index or gpu id. */
#include "rm/gpu.h"

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
