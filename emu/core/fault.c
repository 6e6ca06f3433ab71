/*
 * Fault injection (emulator.h): a GPU that falls off the bus, and controls
 * that answer NV_ERR_BUSY_RETRY. Both are state of one emulator instance,
 * changed only under its lock, so a scenario that injects them at the same
 * point gets the same answers and the same trace every run.
 */
#include "core/emulator.h"

#include <stdio.h>

#include "core/emulator_internal.h"
#include "base/log.h"
#include "hooks/hooks.h"
#include "rm/gpu.h"
#include "rm/rm_server.h"

void nvemu_fault_gpu_lost(nvemu *emu, uint32_t gpu)
{
    pthread_mutex_lock(&emu->lock);
    struct gpu *g = nvemu_gpu(emu, gpu);
    if (!g) {
        LOG_ERROR("fault", "gpu_lost: no GPU %u (the profile has %u): nothing injected", gpu, emu->gpu_count);
    } else if (gpu_mark_lost(g)) {
        LOG_WARN("fault", "gpu_lost: GPU %u (/dev/nvidia%u) is lost from now on", gpu, gpu);
        /* the driver reports a GPU fallen off the bus as XID 79 */
        char dev[32];
        snprintf(dev, sizeof dev, "%04x:%02x:%02x.%x", emu->profile->pci_domain & 0xFFFFu, g->pci_bus & 0xFFu,
                 g->pci_slot & 0x1Fu, emu->profile->pci_function & 7u);
        hooks_xid(emu->hooks, 79, dev);
    }
    pthread_mutex_unlock(&emu->lock);
}

void nvemu_fault_busy_retry(nvemu *emu, uint32_t cmd, uint32_t count)
{
    pthread_mutex_lock(&emu->lock);
    rm_fault_busy_retry(emu->rm, cmd, count);
    pthread_mutex_unlock(&emu->lock);
}
