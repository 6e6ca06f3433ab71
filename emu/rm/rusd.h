/*
 * The RM user-shared-data page of one GPU (class RM_USER_SHARED_DATA, 0x00DE), backed by the emulator's state
 * and virtual clock instead of GSP's sensor polling: graphics utilisation is the growth of the FIFO model's
 * GR busy time over the period since the page was last refreshed; clocks, power and temperatures follow that
 * utilisation between the profile's idle and busy readings (`sensors:`); every timestamp is virtual time.
 * Same scenario, same reads -> same page, byte for byte. The page is refreshed when it is read: a client sees
 * data as of its read, with the period since the previous read as the sampling period.
 */
#ifndef NVEMU_RM_RUSD_H
#define NVEMU_RM_RUSD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gpu;

/* Per-GPU sampler state (part of struct gpu; zeroed at gpu_init). */
struct rusd_state {
    uint64_t poll_mask;                /* union of the NV00DE_RUSD_POLL_* bits clients asked for */
    bool sampled;
    uint64_t last_ns, last_busy_ns;    /* virtual time and GR busy time at the last refresh */
    uint64_t period_ns;                /* length of the last sampling period */
    uint32_t util_pct;
    int64_t gpu_temp_mc, mem_temp_mc;  /* milli-degrees C */
    int64_t avg_power_mw;
};

/* A client asked for these NV00DE_RUSD_POLL_* bits to be kept refreshed (alloc params or REQUEST_DATA_POLL). */
void rusd_request(struct gpu *g, uint64_t mask);

/*
 * Refreshes g's page at the current virtual time and writes it, laid out as the release of g's profile,
 * into buf (at most len bytes, the rest of a larger buf untouched). Returns the page's size (0: the release's
 * page is not modelled, nothing written). Sections nobody asked to poll, and every section on a profile
 * without `sensors:`, carry timestamp 0: "not available", as on a board that does not report them.
 */
size_t rusd_page(struct gpu *g, void *buf, size_t len);

#endif
