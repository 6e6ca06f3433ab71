/*
 * Workload interface: how tasks drive the FIFO model.
 *
 * (a) In-process, callback form (primary; the scenario runner): no threads.
 *     Submit kernels with fifo_submit() (emu/fifo/fifo.h) and a completion
 *     callback, schedule arrivals/timers with sim_at(), advance with
 *     sim_run_until(). Callbacks run inside sim events in virtual time; they
 *     may issue nvemu_ioctl() (the emulator lock is not held while events
 *     fire from sim_run_until called by the runner) and take the call's
 *     virtual cost with sim_take_call_charge().
 *     Handle -> object: rm_find_object() then workload_channel_of() /
 *     workload_tsg_of().
 *
 * (b) Blocking form, for threads and external processes: the emulator-private
 *     escape range 0xF0-0xFF on /dev/nvidiactl (the real driver answers
 *     -1/EINVAL there). The dispatcher (emu/dispatch) routes those nr values
 *     to workload_escape() with the emulator lock held; blocking calls release
 *     it while they wait.
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
#include <stdint.h>

#include "nvemu/nvemu.h"
#include "sim/sim.h"
#include "fifo/fifo.h"

struct rm_object;
struct workload;

/* Escape numbers (_IOC_NR) and their parameter structs (size checked exactly; mismatch -> -EINVAL). */
#define NVEMU_ESC_WL_REGISTER    0xF0  /* struct nvemu_wl_register */
#define NVEMU_ESC_WL_UNREGISTER  0xF1  /* struct nvemu_wl_status */
#define NVEMU_ESC_WL_SUBMIT      0xF2  /* struct nvemu_wl_submit */
#define NVEMU_ESC_WL_WAIT        0xF3  /* struct nvemu_wl_wait */
#define NVEMU_ESC_WL_SLEEP       0xF4  /* struct nvemu_wl_sleep */
#define NVEMU_ESC_WL_NOW         0xF5  /* struct nvemu_wl_now */
#define NVEMU_ESC_WL_MARK        0xF6  /* struct nvemu_wl_mark */
#define NVEMU_ESC_WL_FIRST       0xF0
#define NVEMU_ESC_WL_LAST        0xFF

/* status fields carry NV_STATUS values; the syscall returns 0 whenever the struct was understood. */

struct nvemu_wl_register {     /* in: name; out: participant id (per emulator, from 1) */
    char name[32];
    uint32_t participant;
    uint32_t status;
};
_Static_assert(sizeof(struct nvemu_wl_register) == 40, "nvemu_wl_register");

struct nvemu_wl_status {
    uint32_t status;
};
_Static_assert(sizeof(struct nvemu_wl_status) == 4, "nvemu_wl_status");

struct nvemu_wl_submit {       /* in: channel + kernel; out: kernel id */
    uint32_t hClient;
    uint32_t hChannel;
    uint32_t blocks;
    uint32_t status;
    uint64_t block_ns;
    uint64_t total_ns;
    uint64_t tag;
    uint64_t kernel_id;
};
_Static_assert(sizeof(struct nvemu_wl_submit) == 48, "nvemu_wl_submit");
_Static_assert(__builtin_offsetof(struct nvemu_wl_submit, block_ns) == 16, "nvemu_wl_submit.block_ns");
_Static_assert(__builtin_offsetof(struct nvemu_wl_submit, kernel_id) == 40, "nvemu_wl_submit.kernel_id");

/*
 * Waits until kernel `kernel_id` completed (0 = any kernel this participant
 * submitted that was not waited for yet) or virtual time reaches deadline_ns
 * (0 = none). Out: the kernel that completed, its tag and done time; status
 * NV_ERR_TIMEOUT on deadline, NV_ERR_INVALID_ARGUMENT for an unknown id,
 * NV_ERR_GPU_IS_LOST (kernel, tag, done time filled) when the kernel failed
 * because its GPU was lost (fifo_gpu_lost).
 */
struct nvemu_wl_wait {
    uint64_t kernel_id;
    uint64_t deadline_ns;
    uint64_t tag;
    uint64_t done_ns;
    uint32_t status;
    uint32_t pad;
};
_Static_assert(sizeof(struct nvemu_wl_wait) == 40, "nvemu_wl_wait");

struct nvemu_wl_sleep {        /* sleep until virtual time until_ns */
    uint64_t until_ns;
    uint32_t status;
    uint32_t pad;
};
_Static_assert(sizeof(struct nvemu_wl_sleep) == 16, "nvemu_wl_sleep");

struct nvemu_wl_now {
    uint64_t now_ns;
};
_Static_assert(sizeof(struct nvemu_wl_now) == 8, "nvemu_wl_now");

struct nvemu_wl_mark {         /* appends a SIM_REC_MARK record */
    char name[32];
    uint64_t a, b;
};
_Static_assert(sizeof(struct nvemu_wl_mark) == 48, "nvemu_wl_mark");

/* One per emulator, over its sim. */
struct workload *workload_create(struct sim *s);
void workload_destroy(struct workload *wl);

/* Class state of a channel / TSG object (NULL when obj is not one). */
struct fifo_channel *workload_channel_of(struct rm_object *obj);
struct fifo_tsg *workload_tsg_of(struct rm_object *obj);

/*
 * The escape handler. emu_lock is the emulator lock, held on entry and on
 * return, released while blocked. Returns 0 (result in the struct's status)
 * or -EINVAL for an unknown nr in the range or a size mismatch.
 */
int workload_escape(struct workload *wl, nvemu *emu, nvemu_opener *op, int32_t tid, uint32_t nr,
                    uint32_t size, void *arg, pthread_mutex_t *emu_lock);

/*
 * Called by the dispatcher after every ioctl: when the calling thread is a
 * registered participant, takes the call charge (sim_take_call_charge) and
 * sleeps it that long in virtual time. For other threads the charge stays
 * pending for an in-process caller to take (reset it before the call).
 */
void workload_after_ioctl(struct workload *wl, int32_t tid, pthread_mutex_t *emu_lock);

/* A participant's thread went away (client killed): unregisters it so time can advance. */
void workload_forget_tid(struct workload *wl, int32_t tid);
/*
 * Forgets every participant that registered through `op` (call when the
 * opener is released, e.g. its process died): virtual time no longer waits
 * for them. Participants blocked in a wait are kept (their ioctl is in flight).
 */
void workload_forget_opener(struct workload *wl, const nvemu_opener *op);

#endif
