/* The differences only the processes' interleaving explains (order.h). */
#include "order.h"

#include <stddef.h>
#include <string.h>

#include "abi/nv_ctrl_monitoring.h"

bool replay_order_applies(uint32_t nprocs, bool timed)
{
    return nprocs > 1 && !timed;
}

/*
 * The driver gives each channel ++currentChannelUniqueId (kernel_channel.c, 580.x) and the emulator one id per
 * channel group besides (emu/rm/class_fifo.c). The counter only grows, so between a process's first channel and
 * a later one it took at least its own ids, and at most every id the others took as well.
 */
bool replay_order_channel_id(uint32_t rec_delta, uint32_t own_ids, uint32_t others_ids)
{
    return others_ids > 0 && rec_delta >= own_ids && rec_delta - own_ids <= others_ids;
}

bool replay_order_pid_info(const uint8_t *got, const uint8_t *want, uint32_t len, bool (*other_pid)(void *, uint32_t),
                           void *ctx)
{
    const size_t first = offsetof(NV2080_CTRL_GPU_GET_PID_INFO_PARAMS, pidInfoList);
    const size_t mem = offsetof(NV2080_CTRL_GPU_PID_INFO, vidMemUsage);
    const size_t mem_end = mem + sizeof(NV2080_CTRL_GPU_PID_INFO_VIDEO_MEMORY_USAGE_DATA);
    if (len < first || memcmp(got, want, first))
        return false;
    bool any = false;
    for (size_t off = first; off < len; off += sizeof(NV2080_CTRL_GPU_PID_INFO)) {
        size_t n = len - off < sizeof(NV2080_CTRL_GPU_PID_INFO) ? len - off : sizeof(NV2080_CTRL_GPU_PID_INFO);
        if (!memcmp(got + off, want + off, n))
            continue;
        NV2080_CTRL_GPU_PID_INFO w;
        if (n < sizeof w)
            return false;
        memcpy(&w, want + off, sizeof w);
        if (memcmp(got + off, want + off, mem) || memcmp(got + off + mem_end, want + off + mem_end, sizeof w - mem_end) ||
            w.index != NV2080_CTRL_GPU_PID_INFO_INDEX_VIDEO_MEMORY_USAGE || !other_pid(ctx, w.pid))
            return false;
        any = true;
    }
    return any;
}
