/*
 * Fault injection (emulator.h): a GPU that falls off the bus, and controls
 * that answer NV_ERR_BUSY_RETRY. Both are state of one emulator instance,
 * changed only under its lock, so a scenario that injects them at the same
 * point gets the same answers and the same trace every run.
 */
#include <stdlib.h>

#include "core/emulator.h"
#include "core/emulator_internal.h"
#include "core/log.h"
#include "fifo/fifo.h"

bool gpu_is_lost(const struct gpu *g)
{
    return g->lost;
}

void nvemu_fault_gpu_lost(nvemu *emu, uint32_t gpu)
{
    pthread_mutex_lock(&emu->lock);
    struct gpu *g = nvemu_gpu(emu, gpu);
    if (!g) {
        LOG_ERROR("fault", "gpu_lost: no GPU %u (the profile has %u): nothing injected", gpu, emu->gpu_count);
    } else if (!g->lost) {
        g->lost = true;
        LOG_WARN("fault", "gpu_lost: GPU %u (/dev/nvidia%u) is lost from now on", gpu, gpu);
        fifo_gpu_lost(g->fifo);
    }
    pthread_mutex_unlock(&emu->lock);
}

static struct busy_fault *busy_entry(nvemu *emu, uint32_t cmd)
{
    for (uint32_t i = 0; i < emu->nbusy; i++)
        if (emu->busy[i].cmd == cmd)
            return &emu->busy[i];
    return NULL;
}

static void busy_remove(nvemu *emu, struct busy_fault *b)
{
    *b = emu->busy[--emu->nbusy];
}

void nvemu_fault_busy_retry(nvemu *emu, uint32_t cmd, uint32_t count)
{
    pthread_mutex_lock(&emu->lock);
    struct busy_fault *b = busy_entry(emu, cmd);
    if (!b && count) {
        if (emu->nbusy == emu->capbusy) {
            uint32_t cap = emu->capbusy ? emu->capbusy * 2 : 8;
            struct busy_fault *v = realloc(emu->busy, cap * sizeof(*v));
            if (!v) {
                LOG_ERROR("fault", "busy_retry 0x%08x x%u: out of memory, nothing injected", cmd, count);
                pthread_mutex_unlock(&emu->lock);
                return;
            }
            emu->busy = v;
            emu->capbusy = cap;
        }
        b = &emu->busy[emu->nbusy++];
        b->cmd = cmd;
    }
    if (b && count)
        b->count = count;
    else if (b)
        busy_remove(emu, b);
    LOG_INFO("fault", "busy_retry: the next %u controls 0x%08x answer NV_ERR_BUSY_RETRY", count, cmd);
    pthread_mutex_unlock(&emu->lock);
}

bool nvemu_fault_take_busy(nvemu *emu, uint32_t cmd)
{
    struct busy_fault *b = emu->nbusy ? busy_entry(emu, cmd) : NULL;
    if (!b)
        return false;
    uint32_t left = --b->count;
    if (left == 0)
        busy_remove(emu, b);
    LOG_INFO("fault", "busy_retry: control 0x%08x answers NV_ERR_BUSY_RETRY (%u more)", cmd, left);
    return true;
}
