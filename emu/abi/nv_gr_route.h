/*
 * NV2080_CTRL_GR_ROUTE_INFO (ctrl2080gr.h, 580.x x86-64): the GR engine
 * routing block embedded in the NV2080 GR controls (GR_GET_INFO,
 * GR_SET_CTXSW_PREEMPTION_MODE, GR_CTXSW_PREEMPTION_BIND, ...). One
 * definition for every header that embeds it (docs/driver-sources.md §E: flags u32 @0,
 * route u64 @8; 16 bytes, align 8).
 */
#ifndef NVEMU_ABI_NV_GR_ROUTE_H
#define NVEMU_ABI_NV_GR_ROUTE_H

#include <stddef.h>
#include <stdint.h>

#include "abi/nv_abi_assert.h"

typedef struct NV2080_CTRL_GR_ROUTE_INFO {
    uint32_t flags;
    uint32_t pad;
    uint64_t route __attribute__((aligned(8)));
} NV2080_CTRL_GR_ROUTE_INFO;
NV_ASSERT_LAYOUT(NV2080_CTRL_GR_ROUTE_INFO, 16, 8);
NV_ASSERT_OFF(NV2080_CTRL_GR_ROUTE_INFO, flags, 0);
NV_ASSERT_OFF(NV2080_CTRL_GR_ROUTE_INFO, route, 8);

#endif
