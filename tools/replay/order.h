/*
 * Answers that depend on how processes replayed together interleaved their calls. Traces without times (no
 * `t=`, older recorders) do not say it, and replay runs them in start order; where the driver's answer depends
 * on what another process of the replay did in between, a difference there is reported as its own class
 * ("order"), not as a mismatch. Never for one process alone nor for traces with times: there the order is
 * known and every difference is a mismatch.
 */
#ifndef NVEMU_REPLAY_ORDER_H
#define NVEMU_REPLAY_ORDER_H

#include <stdbool.h>
#include <stdint.h>

/* What the order class says on each of its report lines. */
#define REPLAY_ORDER_WHY "the traces do not record how the processes' calls interleaved"

/* Whether the class applies at all: nprocs traces replayed together, timed when every one carries t=. */
bool replay_order_applies(uint32_t nprocs, bool timed);

/*
 * NV_CHANNEL_ALLOC_PARAMS.cid, one counter for the whole driver (every GPU and client), compared relative to the
 * process's first channel: whether the recorded gap rec_delta is one the counter could have given under some
 * interleaving. own_ids: the ids the process's own allocations took since its first channel (its channels and
 * channel groups; the least the gap can be, no other process allocating in between). others_ids: the ids every
 * other process of the replay took (the most that can fall in between). True when
 * own_ids <= rec_delta <= own_ids + others_ids and others_ids > 0.
 */
bool replay_order_channel_id(uint32_t rec_delta, uint32_t own_ids, uint32_t others_ids);

/*
 * GPU_GET_PID_INFO (got and want: len bytes of its params): true when every byte in which they differ is the
 * video memory usage of an entry whose pid is another process of the replay (other_pid(ctx, pid)), the entries'
 * pid, index and result alike: what that process held when the asker ran, which the traces do not order.
 */
bool replay_order_pid_info(const uint8_t *got, const uint8_t *want, uint32_t len, bool (*other_pid)(void *, uint32_t),
                           void *ctx);

#endif
