/*
 * FIFO model of one GPU (emu/fifo): engines and runlists from the profile,
 * channel groups (TSGs) and channels, the runlist scheduler, preemption and
 * kernel execution in virtual time (emu/sim). The RM classes and controls
 * (emu/rm/class_fifo.c, ctrl_fifo.c) are thin wrappers over these calls.
 *
 * Execution model (documented once, here):
 * - One engine per runlist; an engine runs one TSG at a time. A TSG is
 *   runnable when it is scheduled (GPFIFO_SCHEDULE enable), not disabled,
 *   bound to a runlist, and one of its enabled channels has a queued kernel.
 *   Kernels of one TSG run one at a time in submission order (across its
 *   channels), a simplification of concurrent streams.
 * - Switching a TSG in costs profile->timing.ctxsw_ns (none when the engine
 *   resumes the TSG it last ran). Its timeslice starts with the load: the
 *   load counts against the slice (H200, two BE groups with 50/200/1000 us
 *   slices: fixtures/hw/h200-580.159.04/validation x-switch-ts*). A TSG a
 *   CILP save interrupted mid-kernel first gets that kernel's shared memory
 *   back, before its slice: restore_ns_per_kb x the shared memory of the
 *   kernel's resident blocks of an SM. The group pays it when it resumes, not
 *   the one that preempted it (H200 waves: an LC preempting 128-thread 200 KiB
 *   blocks waits no longer than without shared memory; x-switch-smem*: two BE
 *   groups switching lose 0.35 us per KiB a switch, outside the slices).
 *   A TSG that ran out of work stays loaded (resident) while the engine
 *   idles; switching another TSG in first saves it: idle_save_ns more,
 *   before the load, so not counted against the new TSG's slice (H200: an LC
 *   group that completes its request and the BE group that takes the
 *   engine; validation/traces, the numbers in emu/profiles/h200.yaml).
 * - A TSG runs until it drains, its timeslice expires while another TSG of
 *   the runlist is runnable (then it is preempted), it is preempted (PREEMPT,
 *   DISABLE_CHANNELS, RESTART_RUNLIST, STOP_CHANNEL, a runlist update that
 *   drops it) or disabled. The next TSG is the next runnable runlist entry
 *   after the current position (round robin over entries, repetitions
 *   included). At a slice expiry it is picked at the expiry, before the
 *   save: a TSG that becomes runnable during the save waits for its turn
 *   (H200 validation v08/v10/v11/v18, LC requests next to two BE groups: LC
 *   p50 9-13% above the model picking after the save; H100 w08 likewise).
 * - The timeslice runs from the TSG's switch-in and expires at every
 *   multiple of it. While the TSG runs alone, an expiry that finds kernels
 *   queued behind the running one renews the slice; the first expiry that
 *   finds the running kernel to be its last queued one ends it for good.
 *   Another TSG that becomes runnable waits for the next expiry while the
 *   slice is renewed, and preempts at once after it ended (H200 lc-be.txt: a
 *   short LC kernel next to one long BE kernel with 2048 us slices completes
 *   186 us later than alone, one CILP save; validation x-slice-bekernel20ms:
 *   80 us LC kernels next to 20 ms single-kernel BE requests wait 165 us at
 *   p50; x-slice-bekernel5ms/1ms/200us: the same LC waits 0-2048 us, p50 ~930
 *   us, whatever the BE kernels' length; traces/ of v15 and
 *   x-slice-bekernel5ms: LC requests arriving in the first 1-1.5 ms of the BE
 *   request's last kernel still wait for the expiry after it started).
 * - A kernel of B blocks runs in ceil(B / (sm_count x R)) waves, R its resident
 *   blocks per SM (fifo_kernel_occupancy: 1 for the default shape), its
 *   duration spread over them, plus what the kernel boundary costs the
 *   engine: profile->timing.kernel_gap_ns, less what a kernel submitted
 *   while another kernel of its group is queued or running (back to back:
 *   its launch is processed while that one runs) hides behind it:
 *   timing.kernel_gap_overlap_ns, overlap_wave_ns less per wave after its
 *   first, never below none. A kernel that starts its group's work from
 *   idle pays all of kernel_gap_ns. H200 short-kernels k-ts2048-*-g0:
 *   back-to-back one-wave kernels of 10-100 us cost ~2 us each beyond their
 *   blocks; validation alone runs: 8-wave kernels back to back ~6 us, and
 *   an LC request's one 80 us kernel on an idle group 21 us beyond the
 *   kernel with the host's launch and completion (6 + 15). One cost for
 *   every kernel fits either the short kernels or the LC alone, not both.
 *   With timing.wait_hides_gap, a kernel that started its group's work
 *   from idle but waited for the engine at least the part it would hide
 *   behind a running kernel hides that part too: its launch was processed
 *   while it waited (slice-trace: the locks outlast request boundaries).
 *   Preemption completes at the boundary of the running channel's compute
 *   preemption mode: WFI = end of the running kernel + wfi_overhead_ns;
 *   CTA = end of the running wave + cta_overhead_ns; CILP = now +
 *   cilp_save_ns + save_ns_per_kb x the shared memory of the kernel's
 *   resident blocks of an SM (fifo_kernel.shared_kb x R, with what holds R
 *   below the shape's limit; 0 on the Hopper profiles: the restore above
 *   pays), progress kept exactly, plus, for a group resumed from a CILP
 *   save, what is left of its restore: its SMs' state is being restored
 *   until timing.restore_busy after its load began, and its save waits for
 *   that; a slice no longer than the load ends before that restore begins
 *   (H200 switch-cost: two groups of 5 ms kernels at 50/75/100 us slices
 *   lose 23/11/7% of the throughput the same save and load give at
 *   150-1000 us; at 25 us none completes;
 *   validation v18: BE groups at 1 us slices next to an LC). Work not
 *   finished stays queued. Switching such a group back
 *   in also costs its blocks' own threads copying their shared memory back,
 *   inside the new slice: restore_ns_per_thread_kb per KiB each thread copies
 *   (a block's shared memory over its threads: each warp at its own pace) +
 *   restore_ns_per_sm_kb per KiB of the SM's resident blocks (one path for
 *   the SM), less what restore_thread_free_bytes per thread would cost (the
 *   rest of the load hides it). H200 validation-shapes s-ts200-*: one warp
 *   per SM with 200/150/114 KiB loses 143/94/48 us of each 200 us slice, two
 *   warps with 200 KiB 60, four 17-20, eight none: per byte of the SM the
 *   loss falls with the warps, but less than in proportion.
 * - Per save and per SM (timing.cilp_* and lock_*, 0 in the shipped
 *   profiles; fixtures/hw/h200-580.159.04/slice-trace, measured from
 *   inside the kernels): a CILP save costs cilp_save_per_sm more per SM the
 *   cut kernel held, and cilp_resave instead of cilp_save when the load of
 *   that turn restored the same kernel; the load of a group whose kernel was
 *   cut costs cilp_restore + cilp_restore_per_sm per SM instead of ctxsw,
 *   inside the slice, bounded for short slices by short_slice_restore +
 *   short_slice_restore_per_us per us of slice (a turn resuming a cut kernel
 *   runs 164-166 us of 204.8 at 132 SMs, 190 at 16; a fresh one 204-205;
 *   5 ms kernels 17/66/166 us a turn at 50/100/200 us slices). A CILP
 *   preemption of a one-wave kernel with at most lock_left to run waits for
 *   its end, and one that began at most lock_ran before goes back to its
 *   queue: either way a boundary save (wfi_overhead), and the next load is
 *   a plain one (lock-map: the slice takes the boundary within a ~3 us
 *   window of the kernel's phase, and keeps taking it turn after turn).
 * - A TSG that runs out of work gives the engine to the next runnable TSG
 *   in runlist order; with timing.yield_skips_late_work, only to one that
 *   was already runnable when the yielding TSG began its last kernel (or
 *   began to run, its load ended, if that kernel resumed with the load):
 *   work that came later waits for the next expiry, or for an engine with
 *   nothing else to do, as at an expiry below (H200 validation-shapes
 *   m-native-2be-lc8xD-periodic20 traces: LC requests arriving while the
 *   second BE group fills in for the first, whose request just completed,
 *   wait two more BE slices when that BE group's request completes in turn:
 *   the engine goes back to the first BE group; arrivals during the switch,
 *   or before the first group's completion, do not; LC p99 there 11-13% low
 *   without it. There the filling-in group's last 2 ms kernel resumed with
 *   its load. H200 mixed mx-native-2be-lcL-poi30-beS request marks: BE
 *   requests of 30 kernels of 20-50 us, ~1.1 ms a turn; an LC arriving
 *   during the second BE group's turn runs when that group's request
 *   completes (25 and 31 of 70 requests on two boards), one arriving during
 *   the first's waits for both; counted from the load's end the LC waited
 *   for three turns in 32 of 70 and its p50 was 1.46 of the hardware's). Only a
 *   group that ran at least timing.yield_skip_min_run skips late work; one
 *   that runs out of work sooner hands on in runlist order, late work
 *   included (H200 lc-arrivals p-ts2048: an LC next to two BE groups of
 *   launch-bound 10 us kernels, each draining its backlog in at most ~1 ms,
 *   takes 0.7/1.1/2.0 ms at p10/p50/p90, as in runlist order; skipping after
 *   every yield gave 1.1/1.6/2.6. The shapes yields above come ~1.7 ms in).
 * - Likewise at a slice expiry, with timing.expiry_skips_late_work: while the
 *   expiring TSG runs its last queued kernel, the engine goes to the next TSG
 *   that was already runnable when that kernel began, or resumed with the
 *   TSG's load; work that came later waits a round (H200 lc-arrivals v17
 *   request marks: three BE groups of two 5 ms kernels and an LC every 10 ms
 *   at 2048 us slices; the LC misses its turn after a BE slice in which that
 *   group began or resumed its second kernel before the LC arrived, and
 *   catches it up to ~0.15 ms before the turn while the group runs its
 *   first: LC p50 4.10 ms without it, 5.54 with it, hardware 5.63/5.60).
 * - Timeslices last their microseconds x timing.timeslice_tick_ns (H200:
 *   1024 ns; validation-shapes m-native-2be-lc8xD: a 2048 us slice holds
 *   2089-2129 us of work).
 *
 * Effective hardware timeslice: the runlist entry encodes timeout x 2^scale
 * us with an 8-bit timeout (0..255) and scale 0..profile->timeslice_scale_max.
 * A requested value is rounded DOWN to the largest encodable value <= it
 * (smallest scale whose timeout fits, timeout = floor(us / 2^scale)), then
 * raised to profile->min_timeslice_us. E.g. 1024 -> 128<<3, 2048 -> 128<<4,
 * 1000 -> 250<<2 = 1000, 1001 -> 250<<2 = 1000, 5000 -> 156<<5 = 4992.
 * GET_TIMESLICE returns the requested value exactly (kernel RM records it).
 *
 * Runlist construction: DEFAULT policy = each scheduled TSG once, in TSG id
 * order. CHANNEL_INTERLEAVED: realtime TSGs first, then entries by level with
 * repetitions LOW 1; MEDIUM L if L>0 else 1; HIGH (M+1)*L if L>0, else M if
 * M>0, else 1 (L, M = number of LOW / MEDIUM TSGs), spread round robin:
 * the list is built in passes, each pass emitting every TSG that still owes
 * repetitions, HIGH before MEDIUM before LOW within a pass.
 *
 * PREEMPT with bWait: the model knows the completion time t_done at request
 * time. If t_done - now exceeds the timeout (manual, else
 * profile->timing.preempt_timeout_ns) the call returns NV_ERR_TIMEOUT (the
 * preemption still completes later in the model, as the hardware would keep
 * trying); otherwise NV_OK and the wait is charged as call latency
 * (sim_charge_call). A group without channels never completes a waited
 * preempt: NV_ERR_TIMEOUT after the whole timeout (H200 conformance
 * tsg.empty.preempt.wait1.*). bWait=0 returns NV_OK at once.
 *
 * Runlist assignment (work-submit token): a channel has no runlist until its
 * group is scheduled or bound, it is scheduled or bound itself, or an engine
 * object (compute, copy) is allocated on it; before that
 * GET_WORK_SUBMIT_TOKEN is NV_ERR_INVALID_STATE (H200: 8 channels with no
 * engine object, token before GPFIFO_SCHEDULE -> 0x40; libcuda's channels get
 * compute + copy objects first and their tokens succeed). STOP_CHANNEL takes
 * the channel off the runlist but the assignment stays (token still NV_OK).
 *
 * Runlist scheduling policy lock: set by a client, held until every holder
 * restores or dies. Another policy from a non-holder (or while several clients
 * hold it) -> NV_ERR_INVALID_STATE; the sole holder may switch policies; a
 * RESTORE from a client that holds nothing -> NV_ERR_INVALID_STATE (H200
 * conformance subdevice.sched_policy.*).
 *
 * Identifiers (rules read off the H200 recordings, fixtures/hw/h200-580.159.04
 * and the reference libcuda trace):
 * - ChIDs: lowest free id of one GPU-wide space unless the profile says the
 *   channel RAM is per runlist (H200: FIFO_GET_INFO index 7 = 0, and the
 *   tokens of one process run 0x0a..0x1d across runlists 0, 1, 3 and 10).
 *   ChIDs below profile->reserved_chids belong to RM/UVM-internal channels
 *   that exist before any client (the first user channel gets 0x0a in every
 *   CUDA process; a process that never touches nvidia-uvm gets 0x04, so 6 of
 *   the 10 are UVM's channels of a registered GPU: UVM is not modelled, the
 *   profile value is the CUDA case).
 * The channel unique id (NV_CHANNEL_ALLOC_PARAMS.cid) spans GPUs and clients;
 * the resource server that owns the channels counts it (emu/rm/class_fifo.c).
 *
 * Not thread-safe: callers hold the emulator lock.
 */
#ifndef NVEMU_FIFO_H
#define NVEMU_FIFO_H

#include <stdbool.h>
#include <stdint.h>

#include "abi/nv_status.h"
#include "hooks/hooks.h"
#include "profile/profile.h"
#include "fifo/fifo_rec.h"
#include "sim/sim.h"

struct fifo;
struct fifo_tsg;
struct fifo_channel;

enum fifo_interleave { FIFO_INTERLEAVE_LOW = 0, FIFO_INTERLEAVE_MEDIUM = 1, FIFO_INTERLEAVE_HIGH = 2 };
enum fifo_sched_policy { FIFO_POLICY_DEFAULT = 0, FIFO_POLICY_CHANNEL_INTERLEAVED = 1,
                         FIFO_POLICY_CHANNEL_INTERLEAVED_WDDM = 2 };
enum fifo_preempt_mode { FIFO_PREEMPT_WFI = 0, FIFO_PREEMPT_CTA = 1, FIFO_PREEMPT_CILP = 2 };
/* enum fifo_preempt_cause, the `a` of preemption records: fifo_rec.h */

/* Who created a TSG (recorded at construction; hooks and the GPreempt query need it). */
struct fifo_creator {
    int32_t pid, tid;
    uint32_t uid, gid;
    char comm[16];
    uint32_t hclient, htsg;       /* RM handles of the TSG object */
};

/* ---- lifetime ---- */

/* Engines/runlists from profile->engines. hooks may be NULL (native behaviour). NULL on OOM. */
struct fifo *fifo_create(const struct profile *p, uint32_t gpu_index, struct sim *s, struct hooks *h);
/* Destroys every remaining channel and TSG (with task_destroy hooks). */
void fifo_destroy(struct fifo *f);
/* Charge profile->timing.lat_* on controls (nvemu_config.inject_latency). */
void fifo_set_inject_latency(struct fifo *f, bool on);
/* Charges the control-path latency `ns` when injection is on. */
void fifo_charge_latency(struct fifo *f, uint64_t ns);

const struct profile *fifo_profile(const struct fifo *f);
uint32_t fifo_gpu_index(const struct fifo *f);

/* fifo_hooks_env_init (the hook framework tracing into a sim): fifo_rec.h */

/* ---- channel groups ---- */

/*
 * Creates a TSG on engine_type's runlist: hw id = lowest free (per runlist
 * when per_runlist_chram), default timeslice/interleave, task_init hook.
 * Errors: engine not in profile -> NV_ERR_INVALID_ARGUMENT; ids exhausted ->
 * NV_ERR_NO_FREE_FIFOS.
 */
NV_STATUS fifo_tsg_create(struct fifo *f, uint32_t engine_type, const struct fifo_creator *who,
                          struct fifo_tsg **out);
/* task_destroy hook, preempts it off its engine, destroys its channels, frees its id. */
void fifo_tsg_destroy(struct fifo_tsg *t);

struct fifo_tsg_info {
    uint32_t hw_id;
    uint32_t runlist_id;
    uint32_t engine_type;
    uint64_t timeslice_us;        /* as recorded (GET_TIMESLICE) */
    uint64_t timeslice_ns;        /* effective hardware value used by the model */
    uint32_t interleave;
    bool realtime, scheduled, disabled, running;
    uint32_t channel_count;
    struct fifo_creator creator;
};
void fifo_tsg_get_info(const struct fifo_tsg *t, struct fifo_tsg_info *out);
uint32_t fifo_tsg_hw_id(const struct fifo_tsg *t);
int32_t fifo_tsg_creator_tid(const struct fifo_tsg *t);
uint32_t fifo_tsg_channel_count(const struct fifo_tsg *t);
struct fifo *fifo_tsg_fifo(const struct fifo_tsg *t);
/* Opaque per-TSG slot for the RM class layer (emu/rm/class_fifo.c); NULL until set. */
void *fifo_tsg_user(const struct fifo_tsg *t);
void fifo_tsg_set_user(struct fifo_tsg *t, void *user);
/* Number of live TSGs on this GPU, total and on engine_type's runlist (FIFO_GET_INFO 6 / 9). */
uint32_t fifo_tsg_count(const struct fifo *f);
uint32_t fifo_tsg_count_engine(const struct fifo *f, uint32_t engine_type);

/* GPFIFO_SCHEDULE: bind hook on enable (rejected -> NV_ERR_BUSY_RETRY); both skips -> INVALID_ARGUMENT. */
NV_STATUS fifo_tsg_schedule(struct fifo_tsg *t, bool enable, bool skip_submit, bool skip_enable);
/* BIND: moves the TSG (and its channels) to engine_type's runlist; unknown engine -> INVALID_ARGUMENT. */
NV_STATUS fifo_tsg_bind(struct fifo_tsg *t, uint32_t engine_type);
/* SET_TIMESLICE through the timeslice_set hook (0 is accepted: immediate yield). Takes effect at once. */
NV_STATUS fifo_tsg_set_timeslice(struct fifo_tsg *t, uint64_t us);
uint64_t fifo_tsg_get_timeslice(const struct fifo_tsg *t);
/* Effective hardware timeslice in ns for a requested value (see the header comment). */
uint64_t fifo_effective_timeslice_ns(const struct profile *p, uint64_t us);
/* SET_INTERLEAVE_LEVEL (TSG and all its channels); level > 2 -> INVALID_ARGUMENT. */
NV_STATUS fifo_tsg_set_interleave(struct fifo_tsg *t, uint32_t level);
/* MAKE_REALTIME: realtime TSGs go first under CHANNEL_INTERLEAVED; others get CTA. */
NV_STATUS fifo_tsg_make_realtime(struct fifo_tsg *t, bool realtime);
/* PREEMPT (see header comment). timeout_ns 0 = profile default. */
NV_STATUS fifo_tsg_preempt(struct fifo_tsg *t, bool wait, uint64_t timeout_ns);

/*
 * RUNLIST_SET_SCHED_POLICY for every runlist of the GPU. `owner` identifies
 * the setting client: the policy is locked by its setters until all restore
 * (restore=true) or die (fifo_sched_policy_owner_gone); a different policy
 * from another owner while locked, or a restore from a non-holder ->
 * NV_ERR_INVALID_STATE; unknown policy -> NV_ERR_INVALID_ARGUMENT.
 */
NV_STATUS fifo_set_sched_policy(struct fifo *f, uint32_t policy, bool restore, const void *owner);
void fifo_sched_policy_owner_gone(struct fifo *f, const void *owner);
uint32_t fifo_sched_policy(const struct fifo *f);

/* ---- channels ---- */

/*
 * Adds a channel to a TSG: chid = lowest free ChID at or above
 * profile->reserved_chids of the runlist (per-runlist channel RAM) or of the
 * GPU; the model's ChID space is 65536 wide (the token keeps 12 bits). The
 * channel gets its group's runlist assignment if the group has one. 128 (profile max) reached -> NV_ERR_INSUFFICIENT_RESOURCES. delay_schedule
 * (NVOS04 DELAY_CHANNEL_SCHEDULING) keeps it off until GPFIFO_SCHEDULE.
 */
NV_STATUS fifo_channel_create(struct fifo_tsg *t, uint32_t hchannel, bool delay_schedule,
                              struct fifo_channel **out);
/* Drops its queued kernels (no completion callbacks) and frees its chid. */
void fifo_channel_destroy(struct fifo_channel *c);

uint32_t fifo_channel_chid(const struct fifo_channel *c);
struct fifo_tsg *fifo_channel_tsg(const struct fifo_channel *c);

NV_STATUS fifo_channel_schedule(struct fifo_channel *c, bool enable, bool skip_submit, bool skip_enable);
NV_STATUS fifo_channel_bind(struct fifo_channel *c, uint32_t engine_type);
/* RESTART_RUNLIST: expire the running timeslice; !force and this TSG running -> no-op. */
NV_STATUS fifo_channel_restart_runlist(struct fifo_channel *c, bool force, bool bypass_wait);
/* STOP_CHANNEL: disable + take off the runlist (needs schedule/bind again); the runlist assignment stays. */
NV_STATUS fifo_channel_stop(struct fifo_channel *c, bool immediate);
/*
 * DISABLE_CHANNELS for one channel: disable=false re-enables. only_sched:
 * not kicked off if running; otherwise its TSG is preempted when it has no
 * other enabled channel with work. rewind drops queued, unstarted kernels.
 */
NV_STATUS fifo_channel_disable(struct fifo_channel *c, bool disable, bool only_sched, bool rewind);
/* GR_SET_CTXSW_PREEMPTION_MODE (compute): mode > 2 -> INVALID_ARGUMENT. */
NV_STATUS fifo_channel_set_preempt_mode(struct fifo_channel *c, uint32_t mode);
/* GET_WORK_SUBMIT_TOKEN: runlistId << 16 | chid; work_submit hook (TOKEN_REQUEST). No runlist -> INVALID_STATE. */
/* An engine object was allocated on the channel: it now has its group's runlist (see the header comment). */
void fifo_channel_engine_object(struct fifo_channel *c);
NV_STATUS fifo_channel_work_submit_token(struct fifo_channel *c, uint32_t *token);

/* ---- work ---- */

/* A kernel: `blocks` thread blocks of block_ns each, or total_ns spread over the waves (block_ns = 0). */
struct fifo_kernel {
    uint32_t blocks;              /* 0 is taken as 1 */
    uint64_t block_ns;
    uint64_t total_ns;
    uint64_t tag;                 /* caller's cookie, handed back on completion */
    uint32_t shared_kb;           /* shared memory per block (KiB): what a CILP save of it must store */
    uint32_t threads;             /* threads per block (0: the default shape, one block per SM) */
    uint32_t regs;                /* registers per thread (0: the profile's kernel_regs) */
    uint32_t blocks_per_sm;       /* resident blocks per SM asked for (0: what the shape allows) */
};

/*
 * Resident blocks per SM of a kernel shape on profile p, and the shared memory (bytes) each block then holds:
 * the least of the SM's thread, register (whole warps of 256-register granules), shared memory (1 KiB reserved
 * per block) and block limits; a blocks_per_sm below that is held with shared memory, as `--hw` and real
 * launches do (the SM's shared memory / (blocks_per_sm + 1) per block), and that memory is saved too. The
 * default shape (no threads, regs or blocks_per_sm) and profiles without sm_threads: one block per SM.
 */
uint32_t fifo_kernel_occupancy(const struct profile *p, const struct fifo_kernel *k, uint32_t *smem_bytes);

/* Called from the sim when a kernel completes (virtual time = done_t). */
typedef void (*fifo_done_fn)(void *ctx, uint64_t kernel_id, uint64_t tag, uint64_t submit_t, uint64_t done_t);

/*
 * Queues a kernel on a channel (work_submit hook, kind WORK; SUBMIT record).
 * Kernel ids are unique per emulator: GPU index in bits 63:48 over a counter
 * from 1. A zero-length kernel still
 * completes through the scheduler. Never fails except on OOM.
 */
NV_STATUS fifo_submit(struct fifo_channel *c, const struct fifo_kernel *k, fifo_done_fn fn, void *ctx,
                      uint64_t *kernel_id);
/*
 * GPU lost (nvemu_fault_gpu_lost): the engines stop for good; every running
 * and queued kernel fails now - a KERNEL_DONE record with result "gpu_lost"
 * each, one GPU_LOST record, then each completion callback with done_t = now
 * (channel by channel, in submission order); fifo_submit answers
 * NV_ERR_GPU_IS_LOST from then on. A callback tells a failed completion by
 * fifo_is_lost() of the kernel's GPU (GPU index = kernel_id >> 48): nothing
 * completes normally after the loss. Objects can still be destroyed;
 * controls still act on the state but nothing runs. Idempotent.
 */
void fifo_gpu_lost(struct fifo *f);
bool fifo_is_lost(const struct fifo *f);

/* Queued + running kernels of a channel. */
uint32_t fifo_channel_pending(const struct fifo_channel *c);

/*
 * The built runlist `runlist_id` as hardware TSG ids in order (repetitions
 * included): copies up to max into tsg_ids, returns the entry count
 * (0 for an unknown runlist).
 */
uint32_t fifo_runlist_get(const struct fifo *f, uint32_t runlist_id, uint32_t *tsg_ids, uint32_t max);

/*
 * Virtual ns the graphics engine (GR0's runlist) has been busy since the model started, up to now: a channel
 * group switched in and running or being preempted. Utilisation is its growth over a sampling period.
 */
uint64_t fifo_gr_busy_ns(const struct fifo *f);
/* The model's virtual time, ns. */
uint64_t fifo_now_ns(const struct fifo *f);

/* Per-engine counters for reports (the trace holds the same facts). */
struct fifo_engine_stats {
    uint32_t engine_type, runlist_id;
    uint64_t busy_ns, switch_ns, switches, preemptions, kernels;
};

#endif
