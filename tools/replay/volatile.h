/*
 * What replay must not compare byte for byte, and which embedded pointers it
 * must rebuild. Every entry says why (documented table, see volatile.c).
 */
#ifndef NVEMU_REPLAY_VOLATILE_H
#define NVEMU_REPLAY_VOLATILE_H

#include <stdint.h>

#include "abi/nv_abi_desc.h"

/* The most volatile ranges one control declares (NVLINK_GET_NVLINK_STATUS: one per link of 64, and room). */
#define REPLAY_MAX_CTRL_VOLATILE 80u

/* A byte range [off, off+len) of a block that differs legitimately between the recording and replay. */
struct replay_volatile {
    uint32_t off, len;
    const char *why;
};

/*
 * Volatile ranges of the top-level argument block of escape nr with size `size`: the user pointers its
 * descriptor names (nv_abi_desc.h); at most cap written to out, the count returned.
 */
uint32_t replay_volatile_escape(uint32_t nr, uint32_t size, struct replay_volatile *out, uint32_t cap);
/*
 * Volatile ranges of a control's recorded params `recorded` (len bytes), besides its rebuilt embedded
 * pointers, as the control's table row declares them (rm_ctrl_row.volatile_out); at most cap written to
 * out, the count returned.
 */
uint32_t replay_volatile_ctrl(uint32_t cmd, const uint8_t *recorded, uint32_t len, struct replay_volatile *out,
                              uint32_t cap);
/*
 * A field of a class's alloc params compared relative to its first occurrence
 * in the trace: (recorded - first recorded) must equal (replayed - first
 * replayed). For driver-global counters whose start depends on what ran on
 * the machine since the driver loaded. Rows with the same `counter` share one base.
 */
struct replay_relative {
    uint32_t hclass;
    uint32_t off;
    uint32_t counter;     /* index of the shared base (< REPLAY_RELATIVE_COUNTERS) */
    const char *why;
};
#define REPLAY_RELATIVE_COUNTERS 1

/*
 * NvU32 fields of a control's params compared relative to the control's first answer in the trace, as
 * its table row declares them (rm_ctrl_volatile.relative): offsets and reasons, at most cap, the count returned.
 */
uint32_t replay_relative_ctrl(uint32_t cmd, uint32_t *offs, const char **why, uint32_t cap);

/* Relative fields of a class's alloc params; returns the count. */
uint32_t replay_relative_alloc(uint32_t hclass, const struct replay_relative **out);

/*
 * Embedded pointers of a control (nv_ctrl_embedded_ptrs): replay points each at a fresh zeroed buffer of
 * count x elem bytes, since the recording does not hold what was behind it; the pointer field itself
 * becomes volatile. Returns the count.
 */
uint32_t replay_embedded_ptrs(uint32_t cmd, const struct nv_ctrl_embedded **out);

#endif
