/*
 * Allocation parameters of the FIFO classes (driver 580.x, x86-64): channel
 * group (KEPLER_CHANNEL_GROUP_A), context share (FERMI_CONTEXT_SHARE_A) and
 * every *_CHANNEL_GPFIFO_* class. Own definitions (docs/driver-sources.md §D);
 * every size and offset is asserted.
 */
#ifndef NVEMU_ABI_NV_ALLOC_FIFO_H
#define NVEMU_ABI_NV_ALLOC_FIFO_H

#include <stddef.h>
#include <stdint.h>

#include "abi/nv_escape.h"

typedef struct NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS {
    NvHandle hObjectError;
    NvHandle hObjectEccError;
    NvHandle hVASpace;
    uint32_t engineType;                 /* NV2080_ENGINE_TYPE_* */
    uint8_t bIsCallingContextVgpuPlugin; /* NvBool */
    uint8_t pad[3];
} NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS;
NV_ASSERT_LAYOUT(NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS, 20, 4);
NV_ASSERT_OFF(NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS, hObjectError, 0);
NV_ASSERT_OFF(NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS, hObjectEccError, 4);
NV_ASSERT_OFF(NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS, hVASpace, 8);
NV_ASSERT_OFF(NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS, engineType, 12);
NV_ASSERT_OFF(NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS, bIsCallingContextVgpuPlugin, 16);

/* flags bits 1:0 */
#define NV_CTXSHARE_ALLOCATION_FLAGS_SUBCONTEXT_SYNC               0u  /* VEID 0 */
#define NV_CTXSHARE_ALLOCATION_FLAGS_SUBCONTEXT_ASYNC              1u
#define NV_CTXSHARE_ALLOCATION_FLAGS_SUBCONTEXT_SPECIFIED          2u
#define NV_CTXSHARE_ALLOCATION_FLAGS_SUBCONTEXT_ASYNC_PREFER_LOWER 3u
#define NV_CTXSHARE_ALLOCATION_FLAGS_SUBCONTEXT(f) ((f) & 3u)

typedef struct NV_CTXSHARE_ALLOCATION_PARAMETERS {
    NvHandle hVASpace;
    uint32_t flags;
    uint32_t subctxId;                   /* in when SPECIFIED, out = VEID */
} NV_CTXSHARE_ALLOCATION_PARAMETERS;
NV_ASSERT_LAYOUT(NV_CTXSHARE_ALLOCATION_PARAMETERS, 12, 4);
NV_ASSERT_OFF(NV_CTXSHARE_ALLOCATION_PARAMETERS, hVASpace, 0);
NV_ASSERT_OFF(NV_CTXSHARE_ALLOCATION_PARAMETERS, flags, 4);
NV_ASSERT_OFF(NV_CTXSHARE_ALLOCATION_PARAMETERS, subctxId, 8);

typedef struct NV_CHANNEL_MEMORY_DESC {
    NvU64A base;
    NvU64A size;
    uint32_t addressSpace;
    uint32_t cacheAttrib;
} NV_CHANNEL_MEMORY_DESC;
NV_ASSERT_LAYOUT(NV_CHANNEL_MEMORY_DESC, 24, 8);

#define NV_CHANNEL_MAX_USERD 8u

/* NVOS04 flags (channel `flags`) the model looks at */
#define NVOS04_FLAGS_DELAY_CHANNEL_SCHEDULING (1u << 6)

typedef struct NV_CHANNEL_ALLOC_PARAMS {
    NvHandle hObjectError;
    NvHandle hObjectBuffer;
    NvU64A gpFifoOffset;
    uint32_t gpFifoEntries;
    uint32_t flags;
    NvHandle hContextShare;
    NvHandle hVASpace;
    NvHandle hUserdMemory[NV_CHANNEL_MAX_USERD];
    NvU64A userdOffset[NV_CHANNEL_MAX_USERD];
    uint32_t engineType;
    uint32_t cid;
    uint32_t subDeviceId;
    NvHandle hObjectEccError;
    NV_CHANNEL_MEMORY_DESC instanceMem;
    NV_CHANNEL_MEMORY_DESC userdMem;
    NV_CHANNEL_MEMORY_DESC ramfcMem;
    NV_CHANNEL_MEMORY_DESC mthdbufMem;
    NvHandle hPhysChannelGroup;          /* RM writes the implicit TSG's handle here */
    uint32_t internalFlags;
    NV_CHANNEL_MEMORY_DESC errorNotifierMem;
    NV_CHANNEL_MEMORY_DESC eccErrorNotifierMem;
    uint32_t ProcessID;
    uint32_t SubProcessID;
    uint32_t encryptIv[3];
    uint32_t decryptIv[3];
    uint32_t hmacNonce[8];
    uint32_t tpcConfigID;
    uint32_t pad;
} NV_CHANNEL_ALLOC_PARAMS;
NV_ASSERT_LAYOUT(NV_CHANNEL_ALLOC_PARAMS, 368, 8);
NV_ASSERT_OFF(NV_CHANNEL_ALLOC_PARAMS, hObjectError, 0);
NV_ASSERT_OFF(NV_CHANNEL_ALLOC_PARAMS, hObjectBuffer, 4);
NV_ASSERT_OFF(NV_CHANNEL_ALLOC_PARAMS, gpFifoOffset, 8);
NV_ASSERT_OFF(NV_CHANNEL_ALLOC_PARAMS, gpFifoEntries, 16);
NV_ASSERT_OFF(NV_CHANNEL_ALLOC_PARAMS, flags, 20);
NV_ASSERT_OFF(NV_CHANNEL_ALLOC_PARAMS, hContextShare, 24);
NV_ASSERT_OFF(NV_CHANNEL_ALLOC_PARAMS, hVASpace, 28);
NV_ASSERT_OFF(NV_CHANNEL_ALLOC_PARAMS, hUserdMemory, 32);
NV_ASSERT_OFF(NV_CHANNEL_ALLOC_PARAMS, userdOffset, 64);
NV_ASSERT_OFF(NV_CHANNEL_ALLOC_PARAMS, engineType, 128);
NV_ASSERT_OFF(NV_CHANNEL_ALLOC_PARAMS, cid, 132);
NV_ASSERT_OFF(NV_CHANNEL_ALLOC_PARAMS, subDeviceId, 136);
NV_ASSERT_OFF(NV_CHANNEL_ALLOC_PARAMS, hObjectEccError, 140);
NV_ASSERT_OFF(NV_CHANNEL_ALLOC_PARAMS, instanceMem, 144);
NV_ASSERT_OFF(NV_CHANNEL_ALLOC_PARAMS, userdMem, 168);
NV_ASSERT_OFF(NV_CHANNEL_ALLOC_PARAMS, ramfcMem, 192);
NV_ASSERT_OFF(NV_CHANNEL_ALLOC_PARAMS, mthdbufMem, 216);
NV_ASSERT_OFF(NV_CHANNEL_ALLOC_PARAMS, hPhysChannelGroup, 240);
NV_ASSERT_OFF(NV_CHANNEL_ALLOC_PARAMS, internalFlags, 244);
NV_ASSERT_OFF(NV_CHANNEL_ALLOC_PARAMS, errorNotifierMem, 248);
NV_ASSERT_OFF(NV_CHANNEL_ALLOC_PARAMS, eccErrorNotifierMem, 272);
NV_ASSERT_OFF(NV_CHANNEL_ALLOC_PARAMS, ProcessID, 296);
NV_ASSERT_OFF(NV_CHANNEL_ALLOC_PARAMS, SubProcessID, 300);
NV_ASSERT_OFF(NV_CHANNEL_ALLOC_PARAMS, encryptIv, 304);
NV_ASSERT_OFF(NV_CHANNEL_ALLOC_PARAMS, decryptIv, 316);
NV_ASSERT_OFF(NV_CHANNEL_ALLOC_PARAMS, hmacNonce, 328);
NV_ASSERT_OFF(NV_CHANNEL_ALLOC_PARAMS, tpcConfigID, 360);

#endif
