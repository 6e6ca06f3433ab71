/*
 * A gpu_ext struct_ops object as an nvemu policy: the object's callbacks run
 * at the hook framework's call sites through the same struct policy_ops /
 * struct policy_host interface as a C plugin (emu/hooks/policy_api.h), so the
 * hook points know nothing of BPF:
 *   task_init     -> on_task_init          (ctx nv_gpu_task_init_ctx, 32 bytes)
 *   bind          -> on_bind               (ctx nv_gpu_bind_ctx, allow preset to 1)
 *   timeslice_set -> on_timeslice_control  (ctx nv_gpu_timeslice_control_ctx, phase 1)
 *   task_destroy  -> on_task_destroy       (ctx nv_gpu_task_destroy_ctx)
 * The ctx is read-only and exactly the ABI's size; decisions travel only
 * through the kfuncs, which map onto the host's setters and return its
 * APPLY/NOOP_REPEAT/NOOP_CONFLICT/REJECT_* codes; the host validates after the
 * callback as for a C plugin. A fault ends the policy: the host is told (the
 * run fails naming program, instruction and source line) and later hooks take
 * the native path.
 *
 * Policy arguments, besides the object: the typed table bpf_policy_args below (rodata, map, attach, budget,
 * driver_abi; without driver_abi the generation the emulated driver release
 * carries, bpf_release_abi, else the newest that loads it), parsed from `--policy-arg` words or the scenario's policy keys (base/args.h).
 *
 * The object runs as that generation's driver runs it (bpf_abi.h): its ctx
 * sizes, its kfuncs (K1's void setters write the task_init ctx's output
 * fields, which the driver then applies), its ops members.
 */
#ifndef NVEMU_BPF_POLICY_H
#define NVEMU_BPF_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/args.h"
#include "bpf/bpf_abi.h"
#include "bpf/bpf_vm.h"

struct hooks;
struct bpf_obj;
struct policy_ops;

/* The driver's kfuncs, in the index order a loader writes into CALL src=BPF_PSEUDO_KFUNC_CALL. */
enum bpf_nv_kfunc {
    BPF_NV_SET_TIMESLICE = 0,
    BPF_NV_SET_INTERLEAVE,
    BPF_NV_OVERRIDE_TIMESLICE,
    BPF_NV_REJECT_BIND,
    BPF_NV_PREEMPT_TSG,
    BPF_WQ_INIT,                /* the kernel's bpf_wq kfuncs (emu/bpf/bpf_wq.h) */
    BPF_WQ_SET_CALLBACK,
    BPF_WQ_START,
    BPF_NV_KFUNC_COUNT
};
extern const struct bpf_kfunc bpf_nv_kfuncs[BPF_NV_KFUNC_COUNT];

/*
 * The gpu_ext ABI generation the driver release of this major carries (575: its patched driver's), or
 * BPF_ABI_GEN_NONE for a release without the patch (550, 580) or an unknown major.
 */
enum bpf_abi_gen bpf_release_abi(uint32_t driver_major);

/* True when the file at path is an ELF object for the BPF machine (what hooks_load_policy dispatches on). */
bool bpf_policy_is_object(const char *path);

/* The arguments an object takes, ids below; the policy-loader row of BPF objects names this table. */
enum bpf_policy_arg { BPF_ARG_RODATA, BPF_ARG_MAP, BPF_ARG_ATTACH, BPF_ARG_BUDGET, BPF_ARG_DRIVER_ABI, BPF_ARG_COUNT };
extern const struct arg_spec bpf_policy_args[];

struct policy_host;
/* Makes the object's state from its typed arguments (arg), where a plugin's init would parse strings. */
typedef int (*bpf_policy_start_fn)(void **state, const struct policy_host *host, const void *arg, char *err,
                                   size_t errlen);
/* How the hook framework attaches policy operations whose state start makes (hooks_attach_started); the
 * runtime sits below it. */
typedef int (*bpf_policy_attach_fn)(struct hooks *h, const struct policy_ops *ops, bpf_policy_start_fn start,
                                    const void *arg, char *err, size_t errlen);

/*
 * Opens the object and attaches it to h as the policy through attach, with
 * the arguments above. Returns 0, or -1 with a reason (the loader's message,
 * the load-time check naming program and instruction, a bad argument, another
 * policy already attached).
 */
int bpf_policy_attach(struct hooks *h, bpf_policy_attach_fn attach, const char *path, const struct arg_list *args,
                      char *err, size_t errlen);

struct bpf_attach_event;

/* The sites (bit i: enum bpf_attach_site i) where the policy in state has probes; 0 once it is dead. */
uint32_t bpf_policy_sites(const void *state);

/* Runs the policy's probes attached at ev's site (state: what its init made, i.e. the hook framework's). */
void bpf_policy_fire(void *state, const struct bpf_attach_event *ev);

/*
 * Opens the object with the same checks as an attach (loader, ABI, load-time
 * pass, kfunc/member pairing) without running anything. Returns the object or
 * NULL with the reason in err. Close with bpf_obj_close.
 */
struct bpf_obj *bpf_policy_check(const char *path, char *err, size_t errlen);

/*
 * The same for gpu_ext driver generation driver (BPF_ABI_GEN_NONE: the newest
 * whose driver loads the object). The object's target and target_fits say
 * which generation it runs as and which load it; a generation that refuses it
 * is named with the driver's reason.
 */
struct bpf_obj *bpf_policy_check_for(const char *path, enum bpf_abi_gen driver, char *err, size_t errlen);

#endif
