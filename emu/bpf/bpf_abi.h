/*
 * The gpu_ext struct_ops ABI nvemu emulates (the patched open driver 580.x,
 * kernel-open/nvidia/nv-gpu-sched-hooks.c of gpu_ext-kernel-modules): the ctx
 * structs a callback receives, the ops struct, and the older layouts objects
 * may still be built for. A policy object's BTF names these structs and their
 * members; bpf_abi_check_* compares them with these tables, as the kernel
 * compares an object's struct_ops type with its own BTF.
 */
#ifndef NVEMU_BPF_ABI_H
#define NVEMU_BPF_ABI_H

#include <stddef.h>
#include <stdint.h>

#include "abi/nv_abi_assert.h"

struct btf;
struct btf_type;

/* Members of nv_gpu_sched_ops, in their order (byte offset = 8 * index). */
enum bpf_abi_member {
    BPF_ABI_ON_TASK_INIT = 0,
    BPF_ABI_ON_BIND = 1,
    BPF_ABI_ON_TASK_DESTROY = 2,
    BPF_ABI_ON_TIMESLICE_CONTROL = 3,
    BPF_ABI_MEMBER_COUNT
};

/* Which ops layout an object was built for. */
enum bpf_abi_ops { BPF_ABI_OPS_CURRENT = 0, BPF_ABI_OPS_THREE_MEMBER = 1 };

/* The ctx layouts (byte offsets); the driver hands each callback a read-only one. */
struct bpf_abi_task_init_ctx {
    uint64_t tsg_id;
    uint32_t engine_type;
    uint32_t pad0;
    uint64_t default_timeslice;
    uint32_t default_interleave;
    uint32_t runlist_id;
};
NV_ASSERT_SIZE(struct bpf_abi_task_init_ctx, 32);
NV_ASSERT_OFF(struct bpf_abi_task_init_ctx, default_timeslice, 16);
NV_ASSERT_OFF(struct bpf_abi_task_init_ctx, runlist_id, 28);

struct bpf_abi_bind_ctx {
    uint64_t tsg_id;
    uint32_t runlist_id;
    uint32_t channel_count;
    uint64_t timeslice_us;
    uint32_t interleave_level;
    uint32_t allow;
};
NV_ASSERT_SIZE(struct bpf_abi_bind_ctx, 32);
NV_ASSERT_OFF(struct bpf_abi_bind_ctx, allow, 28);

struct bpf_abi_task_destroy_ctx {
    uint64_t tsg_id;
    uint32_t runlist_id;
    uint32_t engine_type;
};
NV_ASSERT_SIZE(struct bpf_abi_task_destroy_ctx, 16);

struct bpf_abi_timeslice_control_ctx {
    uint64_t tsg_id;
    uint64_t requested_timeslice_us;
    uint32_t engine_type;
    uint32_t runlist_id;
    uint32_t hclient;
    uint32_t htsg;
    uint32_t gpu_instance;
    uint32_t phase;
};
NV_ASSERT_SIZE(struct bpf_abi_timeslice_control_ctx, 40);
NV_ASSERT_OFF(struct bpf_abi_timeslice_control_ctx, phase, 36);

/*
 * A uprobe program's ctx is the probed thread's struct pt_regs of the architecture the object was built for
 * (gpu_ext builds with -D__TARGET_ARCH_x86: 21 eight-byte registers, Linux arch/x86/include/asm/ptrace.h).
 */
#define BPF_ABI_PT_REGS_SIZE 168u

/* The phase the driver reports from inside the authorized SET_TIMESLICE control. */
#define BPF_ABI_TIMESLICE_PHASE 1u

/* The member's name ("on_task_init"), its ctx struct's name and size. */
const char *bpf_abi_member_name(enum bpf_abi_member m);
const char *bpf_abi_ctx_name(enum bpf_abi_member m);
uint32_t bpf_abi_ctx_size(enum bpf_abi_member m);

/*
 * Checks the ops struct named by type_id in btf (the type of the object's ops
 * instance) and the ctx structs its members point at. Returns 0 and the layout
 * in *ops, or -1 with an expected-vs-found diff in err (one line per
 * difference): wrong struct name, unknown member ("unknown ops member 'x'"),
 * member at another offset, a ctx struct of another size or layout (the older
 * 48-byte task_init ABI is named as such). A three-member ops struct (no
 * on_timeslice_control) is accepted as BPF_ABI_OPS_THREE_MEMBER.
 */
int bpf_abi_check_ops(const struct btf *btf, uint32_t type_id, enum bpf_abi_ops *ops, char *err, size_t errlen);

/* The type id names after typedefs and qualifiers are skipped (its id in *out_id when not NULL); NULL when unknown. */
const struct btf_type *bpf_btf_skip_mods(const struct btf *btf, uint32_t id, uint32_t *out_id);

/*
 * Maps a member's byte offset in the ops struct to the member, or -1 when no
 * member lives there.
 */
int bpf_abi_member_at(uint32_t offset);

#endif
