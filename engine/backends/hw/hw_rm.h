/*
 * libcuda's RM objects in this process, found the way a tool on a stock
 * driver finds them: this executable exports `ioctl`, so the ioctl calls of
 * the dlopen'ed libcuda come here first (and go on to the kernel through
 * syscall(2) unchanged). While capture is on, every successful
 * NV_ESC_RM_ALLOC of a compute channel group (KEPLER_CHANNEL_GROUP_A,
 * engineType GR0) is remembered with its fd and client, and the
 * channels allocated under it; controls then go through the same fd and
 * client (the driver accepts a group's controls only from its opener).
 * Capture also observes libcuda's own SET_TIMESLICE on that group, and can
 * rewrite the compute preemption mode libcuda asks for
 * (NV2080_CTRL_CMD_GR_SET_CTXSW_PREEMPTION_MODE) before the driver sees it.
 */
#ifndef NVEMU_HW_RM_H
#define NVEMU_HW_RM_H

#include <stdbool.h>
#include <stdint.h>

#define HW_RM_MAX_CHANNELS 64

struct hw_group {
    int fd;
    uint32_t hclient, hsubdevice, htsg;
    uint32_t channels[HW_RM_MAX_CHANNELS];
    uint32_t nchannels;
    bool libcuda_timeslice_seen;      /* libcuda's own SET_TIMESLICE on the group went by */
    uint64_t libcuda_timeslice_us;
    uint32_t preempt_mode_rewrites;   /* SET_CTXSW_PREEMPTION_MODE calls rewritten */
};

/* Starts capturing. preempt_mode >= 0 replaces libcuda's compute preemption mode (0 WFI, 1 CTA, 2 CILP). */
void hw_rm_capture(int preempt_mode);

/* The compute channel group seen last (true), or false when none was allocated yet. */
bool hw_rm_group(struct hw_group *out);

/* RM control on hobject through the group's fd and client: the RM status, or 0xffffffff when the ioctl failed. */
uint32_t hw_rm_control(const struct hw_group *g, uint32_t hobject, uint32_t cmd, void *params, uint32_t size);

#endif
