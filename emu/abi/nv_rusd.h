/*
 * The RM user-shared-data page (class RM_USER_SHARED_DATA, 0x00DE): the sections of NV00DE_SHARED_DATA
 * (class/cl00de.h) that NVML and `nvidia-smi dmon` read, as own structs, and where each lies in the page of
 * a release. Every section opens with lastModifiedTimestamp: 0 (RUSD_TIMESTAMP_INVALID) means the data is
 * not available; a polled section carries the time of its last refresh, in ns. Offsets: the 580.142 and
 * 575.57.08 headers compiled for x86-64 (the releases differ from memEcc on: its ECC block grew in 580);
 * 550.120 lays the page out otherwise (no BAR1/PMA/ERR_CONT/GR sections, other names) and is not modelled.
 */
#ifndef NVEMU_ABI_NV_RUSD_H
#define NVEMU_ABI_NV_RUSD_H

#include <stdint.h>

#include "abi/nv_abi_desc.h"
#include "abi/nv_escape.h"

/* NV00DE_RUSD_POLL_*: what a client asks to be kept refreshed (alloc params or REQUEST_DATA_POLL). */
#define NV00DE_RUSD_POLL_CLOCK   0x1u
#define NV00DE_RUSD_POLL_PERF    0x2u
#define NV00DE_RUSD_POLL_MEMORY  0x4u
#define NV00DE_RUSD_POLL_POWER   0x8u
#define NV00DE_RUSD_POLL_THERMAL 0x10u

/* RUSD_CLK_PUBLIC_DOMAIN_*: graphics, memory, video, SM. */
enum { NV_RUSD_CLK_GRAPHICS, NV_RUSD_CLK_MEMORY, NV_RUSD_CLK_VIDEO, NV_RUSD_CLK_SM, NV_RUSD_CLK_COUNT };
/* RUSD_TEMPERATURE_TYPE_*: GPU, memory, board, power supply, HBM. */
enum { NV_RUSD_TEMP_GPU, NV_RUSD_TEMP_MEMORY, NV_RUSD_TEMP_BOARD, NV_RUSD_TEMP_POWER_SUPPLY, NV_RUSD_TEMP_HBM,
       NV_RUSD_TEMP_COUNT };

typedef struct nv_rusd_clocks {          /* RUSD_CLK_PUBLIC_DOMAIN_INFOS */
    NvU64A lastModifiedTimestamp;
    uint32_t targetClkMHz[NV_RUSD_CLK_COUNT];
} nv_rusd_clocks;
NV_ASSERT_LAYOUT(nv_rusd_clocks, 24, 8);

typedef struct nv_rusd_utilization {     /* RUSD_PERF_DEVICE_UTILIZATION */
    NvU64A lastModifiedTimestamp;
    uint32_t gpuPercentBusy;
    uint32_t memoryPercentBusy;
    struct {
        uint32_t clkPercentBusy;
        uint32_t samplingPeriodUs;
    } engUtil[4];                        /* NVENC, NVDEC, NVJPG, NVOFA */
} nv_rusd_utilization;
NV_ASSERT_LAYOUT(nv_rusd_utilization, 48, 8);

typedef struct nv_rusd_pstate {          /* RUSD_PERF_CURRENT_PSTATE */
    NvU64A lastModifiedTimestamp;
    uint32_t currentPstate;
} nv_rusd_pstate;
NV_ASSERT_LAYOUT(nv_rusd_pstate, 16, 8);

typedef struct nv_rusd_power_limits {    /* RUSD_POWER_LIMITS */
    NvU64A lastModifiedTimestamp;
    uint32_t requestedmW;
    uint32_t enforcedmW;
} nv_rusd_power_limits;
NV_ASSERT_LAYOUT(nv_rusd_power_limits, 16, 8);

typedef struct nv_rusd_temperature {     /* RUSD_TEMPERATURE: NvTemp, signed 24.8 fixed-point degrees C */
    NvU64A lastModifiedTimestamp;
    int32_t temperature;
} nv_rusd_temperature;
NV_ASSERT_LAYOUT(nv_rusd_temperature, 16, 8);

typedef struct nv_rusd_power {           /* RUSD_AVG_POWER_USAGE and RUSD_INST_POWER_USAGE, mW */
    NvU64A lastModifiedTimestamp;
    uint32_t gpu, module, third;         /* third: average memory power / instantaneous CPU power */
} nv_rusd_power;
NV_ASSERT_LAYOUT(nv_rusd_power, 24, 8);

/* Where the sections lie in one release's page (bytes); size 0: the release's page is not modelled. */
struct nv_rusd_layout {
    uint32_t size;
    uint32_t clocks, utilization, pstate, power_limit, temperatures, avg_power, inst_power;
};

static inline struct nv_rusd_layout nv_rusd_layout(enum nv_release rel)
{
    static const struct nv_rusd_layout rows[NV_REL_COUNT] = {
        [NV_REL_575] = {2464, 72, 1976, 2128, 2144, 2160, 2280, 2304},
        [NV_REL_580] = {2600, 72, 1976, 2264, 2280, 2296, 2416, 2440},
    };
    return rel < NV_REL_COUNT ? rows[rel] : (struct nv_rusd_layout){0};
}

#endif
