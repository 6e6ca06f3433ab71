/*
 * What `nvemu calibrate` fits and from which experiment (calibrate.h). Each step names one key of the profile's
 * timing section and the recorded metrics that show it; the order puts a value before the ones whose experiments
 * it also moves (the host's per-kernel and per-request costs before anything measured through them).
 */
#include "calibrate.h"

#include <string.h>

const char *const cal_stat_names[CAL_STAT_COUNT] = {
    "p50", "p99", "rps", "alone_p50", "alone_p99", "alone_rps", "p50_vs_alone", "p99_vs_alone",
};

#define M(e, t, s) {e, t, s}
const struct cal_step cal_steps[] = {
    /* BE alone: back-to-back requests of 25 dependent 8-wave kernels; what each kernel costs beyond its waves */
    {.key = "kernel_gap_us", .ns = false, .lo = 0, .hi = 30, .what = "engine time per kernel beyond its blocks (launch processing, drain)",
     .metrics = {M("v01-native-1be-lcS-periodic500", "be", CAL_ALONE_RPS)}},
    /* LC alone: one 80 us kernel every 2 and 5 ms (idles shorter than or just past the wake-up): the host's launch +
     * completion */
    {.key = "launch_us", .ns = false, .lo = 0, .hi = 40, .what = "a launch call to its kernel queued (the host's completion kept from the base)",
     .metrics = {M("v01-native-1be-lcS-periodic500", "lc", CAL_ALONE_P50),
                 M("v14-native-1be-lcS-periodic200-wfi", "lc", CAL_ALONE_P50),
                 M("v15-native-1be-lcS-periodic200-cilp", "lc", CAL_ALONE_P50)}},
    {.key = "host_jitter_us", .ns = false, .lo = 0, .hi = 10, .what = "the spread of the host's completion (logistic scale)",
     .metrics = {M("v01-native-1be-lcS-periodic500", "lc", CAL_ALONE_P99),
                 M("v14-native-1be-lcS-periodic200-wfi", "lc", CAL_ALONE_P99),
                 M("v15-native-1be-lcS-periodic200-cilp", "lc", CAL_ALONE_P99)}},
    /* LC alone at 50/s: the engine idles 20 ms between requests */
    {.key = "wake_per_ms_us", .ns = false, .lo = 0, .hi = 5, .what = "an engine idle beyond wake_after starts later, per ms of idle",
     .metrics = {M("x-slice-bekernel5ms", "lc", CAL_ALONE_P50)}, .tie_key = "wake_max_us", .tie_scale = 16},
    /* two BE groups alternating every 200 us inside 10 ms kernels: each switch saves one mid-kernel */
    {.key = "cilp_save_us", .ns = false, .lo = 40, .hi = 400, .what = "saving a group interrupted mid-kernel (no shared memory)",
     .metrics = {M("x-switch-smem0", "be", CAL_RPS)}, .tie_key = "cilp_resave_us", .tie_base_distance = true},
    {.key = "restore_per_kb_us", .ns = false, .lo = 0, .hi = 2, .what = "a cut group's shared memory back, per KiB, before its slice",
     .metrics = {M("x-switch-smem128", "be", CAL_RPS), M("x-switch-smem200", "be", CAL_RPS)}},
    /* LC next to BE requests of short kernels under native 2048 us slices: the LC group is saved idle */
    {.key = "idle_save_us", .ns = false, .lo = 0, .hi = 300, .what = "saving a group that ran out of work when another takes the engine",
     .metrics = {M("v01-native-1be-lcS-periodic500", "lc", CAL_P50_VS_ALONE),
      M("v01-native-1be-lcS-periodic500", "lc", CAL_P99_VS_ALONE)}},
    /* WFI: BE's 5 ms kernels drain before LC gets the engine */
    {.key = "wfi_overhead_us", .ns = false, .lo = 0, .hi = 300, .what = "the drained context's save after a WFI preemption",
     .metrics = {M("v14-native-1be-lcS-periodic200-wfi", "lc", CAL_P50_VS_ALONE),
      M("v14-native-1be-lcS-periodic200-wfi", "lc", CAL_P99_VS_ALONE)}},
    /* eight D us kernels next to two BE groups fit in two 2048 us slices up to a D the tick decides */
    {.key = "timeslice_tick", .ns = true, .lo = 950, .hi = 1100, .what = "what one microsecond of a runlist timeslice lasts",
     .metrics = {M("m-native-2be-lc8x500-periodic20", "lc", CAL_P50_VS_ALONE),
      M("m-native-2be-lc8x510-periodic20", "lc", CAL_P50_VS_ALONE),
      M("m-native-2be-lc8x520-periodic20", "lc", CAL_P50_VS_ALONE),
      M("m-native-2be-lc8x530-periodic20", "lc", CAL_P50_VS_ALONE)}},
    /* two BE groups of back-to-back one-wave 10 us kernels under 2048 us slices: most of each kernel's cost is what
     * the boundary costs, of which a kernel queued behind another of its group hides part; after the switch costs
     * and the tick, which set the slices' share. The per-wave decrease follows: none hidden from the eighth wave,
     * where the BE alone kernels that kernel_gap_us is fitted on keep all of it */
    {.key = "kernel_gap_overlap_us", .ns = false, .lo = 0, .hi = 12, .what = "the part of kernel_gap_us a kernel queued behind another of its group hides",
     .metrics = {M("k-ts2048-d10-b132-g0", "be", CAL_RPS), M("k-ts2048-d10-b16-g0", "be", CAL_RPS)},
     .tie_key = "overlap_wave_us", .tie_scale = 1.0 / 7},
    /* one-warp and two-warp blocks with 200 KiB: their own threads restore the shared memory; after the tick, which
     * sets how much of each 200 us slice their work gets */
    {.key = "restore_per_thread_kb_us", .ns = false, .lo = 0, .hi = 80, .what = "switch-in restore per KiB per thread beyond the free bytes",
     .metrics = {M("s-ts200-t32-smem200-bps1", "be", CAL_RPS), M("s-ts200-t64-smem200-bps1", "be", CAL_RPS)}},
    {.key = NULL},
};

/* Regimes no step reads: GPreempt's and gpu_ext's timeslices, 3 BE groups with shared memory, CILP next to long
 * BE kernels, Poisson LC arrivals. */
const char *const cal_validation[] = {
    "v07-gpreempt-1be-lcS-periodic1000", "v08-lcbe200-2be-lcM-poisson100", "v10-lcbe200-2be-lcM-periodic100-smem200",
    "v12-lcboost-2be-lcM-poisson200",    "v15-native-1be-lcS-periodic200-cilp", "v17-native-3be-lcM-periodic100-smem100",
    NULL,
};

const char *const cal_hw_experiments[] = {
    "v01-native-1be-lcS-periodic500", "x-slice-bekernel5ms", "x-switch-smem0", "x-switch-smem128", "x-switch-smem200",
    "s-ts200-t32-smem200-bps1", "s-ts200-t64-smem200-bps1", "k-ts2048-d10-b132-g0",
    "k-ts2048-d10-b16-g0", "v14-native-1be-lcS-periodic200-wfi",
    "m-native-2be-lc8x500-periodic20", "m-native-2be-lc8x510-periodic20", "m-native-2be-lc8x520-periodic20",
    "m-native-2be-lc8x530-periodic20",
    "v07-gpreempt-1be-lcS-periodic1000", "v08-lcbe200-2be-lcM-poisson100", "v10-lcbe200-2be-lcM-periodic100-smem200",
    "v12-lcboost-2be-lcM-poisson200",    "v15-native-1be-lcS-periodic200-cilp", "v17-native-3be-lcM-periodic100-smem100",
    NULL,
};

const struct cal_experiment *cal_experiment_find(const char *name)
{
    for (const struct cal_experiment *e = cal_experiments; e->name; e++)
        if (!strcmp(e->name, name))
            return e;
    return NULL;
}
