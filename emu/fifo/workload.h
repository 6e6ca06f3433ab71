/*
 * Workload interface: how tasks drive the FIFO model in virtual time.
 *
 * (a) In-process, callback form (primary; the scenario runner): no threads.
 *     Submit kernels with fifo_submit() (emu/fifo/fifo.h) and a completion
 *     callback, schedule arrivals/timers with sim_at(), advance with
 *     sim_run_until(). Callbacks run inside sim events in virtual time; they
 *     may issue nvemu_ioctl() (the emulator lock is not held while events
 *     fire from sim_run_until called by the runner) and take the call's
 *     virtual cost with sim_take_call_charge().
 *     Handle -> channel: rm_find_object() then rm_object_channel().
 *
 * (b) Blocking form, for threads and external processes: participants
 *     (threads, by tid) that submit kernels and block until they complete.
 *     The dispatcher answers the private escapes 0xF0-0xFF
 *     (emu/abi/nv_workload.h) with these functions, the emulator lock held;
 *     blocking calls release it while they wait.
 *
 * Virtual clock rule (blocking form): time advances only when every
 * registered participant is blocked in a workload wait. Baton passing keeps
 * it deterministic: at most one participant runs at a time; when it blocks,
 * the lowest-id participant whose wait is satisfied gets the baton; when none
 * is, the sim fires events (in order) until one is. Unregistered threads are
 * not counted (their ioctls just happen at the current virtual time).
 * REALTIME clock: virtual time follows CLOCK_MONOTONIC; waits are timed
 * waits on the wall clock; no baton.
 */
#ifndef NVEMU_WORKLOAD_H
#define NVEMU_WORKLOAD_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "nvemu/nvemu.h"
#include "sim/sim.h"
#include "fifo/fifo.h"

struct workload;

/* One per emulator, over its sim. */
struct workload *workload_create(struct sim *s);
void workload_destroy(struct workload *wl);

/*
 * Registers the calling thread tid as a participant (again: renames it) and
 * records it in the trace. op is the opener it registered through, only
 * compared (workload_forget_opener). NV_OK and *id, or NV_ERR_NO_MEMORY.
 */
NV_STATUS workload_register(struct workload *wl, const nvemu_opener *op, int32_t tid, const char name[32],
                            uint32_t *id);
/* Unregisters participant tid: NV_OK, or NV_ERR_INVALID_STATE when tid is none. */
NV_STATUS workload_unregister(struct workload *wl, int32_t tid);
/* NV_ERR_INVALID_ARGUMENT (logged) for a kernel longer than one hour of virtual time, which would push
 * the shared clock towards its end; else NV_OK. */
NV_STATUS workload_check_kernel(const struct fifo_kernel *k);
/*
 * Submits kernel k on channel c for thread tid (a participant's kernels can be
 * waited for; anyone else's just run). NV_OK and *kernel_id, or fifo_submit's status.
 */
NV_STATUS workload_submit(struct workload *wl, int32_t tid, struct fifo_channel *c, const struct fifo_kernel *k,
                          uint64_t *kernel_id);

/* What workload_wait found. */
struct workload_done {
    uint64_t kernel_id, tag, done_ns;
};
/*
 * Blocks participant tid until kernel `kernel_id` completed (0 = any of its
 * kernels not waited for yet) or virtual time reaches deadline_ns (0 = none);
 * lock (the emulator lock) is released while blocked. NV_OK or
 * NV_ERR_GPU_IS_LOST with *out filled; NV_ERR_TIMEOUT, NV_ERR_INVALID_ARGUMENT
 * (unknown id), NV_ERR_INVALID_STATE (tid is no participant, or nothing can
 * ever satisfy the wait).
 */
NV_STATUS workload_wait(struct workload *wl, int32_t tid, uint64_t kernel_id, uint64_t deadline_ns,
                        struct workload_done *out, pthread_mutex_t *lock, const nvemu_access *acc);
/* Blocks participant tid until virtual time until_ns; a time not ahead still waits for tid's turn of the
 * baton (a yield). NV_OK, NV_ERR_INVALID_STATE when tid is none, NV_ERR_INVALID_ARGUMENT (logged) when
 * until_ns lies more than one hour of virtual time ahead. */
NV_STATUS workload_sleep(struct workload *wl, int32_t tid, uint64_t until_ns, pthread_mutex_t *lock,
                         const nvemu_access *acc);
/*
 * Every blocking call above (and workload_after_ioctl) also ends early once
 * acc->cancelled(acc->ctx) is true (acc or its cancelled may be NULL: never);
 * its status then means nothing: the caller checks workload_cancelled.
 * workload_wake makes a blocked one look.
 */
bool workload_cancelled(const nvemu_access *acc);
/* Wakes participant tid if it is blocked, so that it checks whether its call was cancelled. */
void workload_wake(struct workload *wl, int32_t tid);

/*
 * Called by the dispatcher after every ioctl: when the calling thread is a
 * registered participant, takes the call charge (sim_take_call_charge) and
 * sleeps it that long in virtual time. For other threads the charge stays
 * pending for an in-process caller to take (reset it before the call).
 */
void workload_after_ioctl(struct workload *wl, int32_t tid, pthread_mutex_t *emu_lock, const nvemu_access *acc);

/* A participant's thread went away (client killed): unregisters it so time can advance. */
void workload_forget_tid(struct workload *wl, int32_t tid);
/*
 * Forgets every participant that registered through `op` (call when the
 * opener is released, e.g. its process died): virtual time no longer waits
 * for them. Participants blocked in a wait are kept (their ioctl is in flight).
 */
void workload_forget_opener(struct workload *wl, const nvemu_opener *op);

#endif
