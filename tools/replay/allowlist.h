/*
 * The one list of recorded calls the emulator cannot answer like the driver, each with its reason. A
 * difference on such a call is reported as allowed (with the reason) instead of as a mismatch; the
 * replay prints every entry it used. Values of the moment (timestamps, counters, free memory) are not
 * here: the control tables declare them (rm_ctrl_row.volatile_out).
 */
#ifndef NVEMU_REPLAY_ALLOWLIST_H
#define NVEMU_REPLAY_ALLOWLIST_H

#include <stdbool.h>
#include <stdint.h>

#include "trace.h"

/* What the replay knows when it asks: clients the trace itself allocated. */
struct replay_allow_ctx {
    bool (*own_client)(void *ctx, uint32_t hclient);
    void *ctx;
};

struct replay_allowed {
    const char *name;
    const char *why;
    /* true when the entry covers this recorded call */
    bool (*applies)(const struct trace_call *tc, const struct replay_allow_ctx *ax);
};

/* The entry covering tc, or NULL. */
const struct replay_allowed *replay_allowed_for(const struct trace_call *tc, const struct replay_allow_ctx *ax);

#endif
