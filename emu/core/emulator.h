/*
 * The emulator instance (struct nvemu, opaque outside emu/core), the
 * composition root: it builds the GPUs, the sim, the hook framework, the
 * workload layer, the resource server and the dispatcher, and hands each the
 * parts it needs. Front-ends, tools and tests reach the parts through these
 * accessors.
 *
 * Locking: one coarse mutex per emulator (emu->lock) serialises every
 * nvemu_ioctl, nvemu_open, nvemu_release and nvemu_destroy; the resource
 * server, the fifo model and the sim are only touched with it held. Code
 * that must block for virtual time (workload escapes) releases it with
 * pthread_cond_wait on nvemu_lock_of(emu) and re-checks its condition after
 * waking. Nothing else in the core blocks.
 */
#ifndef NVEMU_CORE_EMULATOR_H
#define NVEMU_CORE_EMULATOR_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/engine.h"
#include "nvemu/nvemu.h"
#include "profile/profile.h"
#include "rm/gpu.h"

struct fifo;
struct sim;
struct hooks;
struct workload;
struct rm_server;
struct cJSON;

/* Number of GPUs (= /dev/nvidiaN nodes) of the loaded profile. */
uint32_t nvemu_gpu_count(const nvemu *emu);
/* GPU by index, or NULL. */
struct gpu *nvemu_gpu(nvemu *emu, uint32_t index);

/* Parts of the emulator, valid until nvemu_destroy: the workload layer, the hook framework and the
 * resource server (its profile, virtual clock and lock: engine.h). */
struct workload *nvemu_workload(nvemu *emu);
struct hooks *nvemu_hooks(nvemu *emu);
struct rm_server *nvemu_rm(nvemu *emu);

/*
 * The emulator's status document, the one writer of it (nvemu_status_json
 * prints it; the daemon adds its own section before printing): profile, GPU
 * count, ioctl and error counts, client/object/channel-group counts,
 * lost_gpus, openers, objects_by_class, errors_by_status, all read under the
 * emulator lock at one moment. The caller owns the tree (cJSON_Delete); NULL
 * when out of memory.
 */
struct cJSON *nvemu_status_tree(nvemu *emu);

/* ---- fault injection (scenario harness, tests): deterministic, logged, each takes the lock ---- */

/*
 * Marks GPU `gpu` (index) lost, as the driver sees a GPU that fell off the
 * bus, from now on and for good:
 * - every ioctl on /dev/nvidia<gpu> except WAIT_OPEN_COMPLETE (answered before
 *   the check) -> -EINVAL, XFER included (nvidia_ioctl's GPU-lost rule, fact
 *   sheet A);
 * - nvidiactl keeps working (its node is no GPU), but an RM call that reaches
 *   an object of that GPU - an alloc under one, NV01_DEVICE_0 with its
 *   deviceId, a control, a dup, MAP/UNMAP/UPDATE_DEVICE_MAPPING - answers
 *   syscall 0 with status NV_ERR_GPU_IS_LOST (RM refuses the GPU's lock);
 *   frees succeed, so clients and fd closes still tear everything down;
 * - its FIFO stops for good (fifo_gpu_lost): running and queued kernels fail
 *   at the current virtual time with trace records (KERNEL_DONE "gpu_lost",
 *   GPU_LOST), their waiters get NV_ERR_GPU_IS_LOST, and so do later submits.
 * Opening the node still succeeds (its ioctls then fail). nvemu_status_json
 * lists lost GPUs as "lost_gpus". A line is logged when the fault is
 * injected and each time it refuses a call. An unknown index logs an error
 * and changes nothing; repeating is a no-op.
 */
void nvemu_fault_gpu_lost(nvemu *emu, uint32_t gpu);

/*
 * The next `count` NV_ESC_RM_CONTROL calls with command `cmd` that pass every
 * generic check (client, object, sizes, privilege) answer status
 * NV_ERR_BUSY_RETRY without running their handler (nothing copied out), as a
 * busy GSP makes RM answer. Calls refused earlier do not use up the count.
 * count replaces what is pending for cmd; 0 cancels it. Logs each answer.
 */
void nvemu_fault_busy_retry(nvemu *emu, uint32_t cmd, uint32_t count);

/* Identity an opener was opened with. */
const nvemu_identity *nvemu_opener_identity(const nvemu_opener *op);

#endif
