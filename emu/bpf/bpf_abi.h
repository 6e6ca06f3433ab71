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

/*
 * The driver ABI generations gpu_ext's patched driver shipped in 2026 (nv-gpu-sched-hooks.{c,h} of
 * gpu_ext-kernel-modules; facts in docs/bpf-policies.md):
 *   K1  48-byte task_init ctx whose output fields timeslice @32 / interleave_level @40 ("0 = no change")
 *       are written by void setter kfuncs; 8-byte destroy ctx; 3 ops members; int preempt_tsg.
 *   K2  32-byte task_init ctx (input prefix of a driver-owned decision record); int setters that record
 *       requests; 8-byte destroy ctx; 3 members.
 *   K3  as K2 with the 16-byte destroy ctx {tsg_id, runlist_id, engine_type}.
 *   K4  as K3 plus on_timeslice_control (40-byte ctx) and int bpf_nv_gpu_override_timeslice.
 * A driver never compares an object's ctx structs with its own: it checks each ctx access against its
 * own layout, resolves kfuncs by name with libbpf's prototype compatibility check, and refuses a
 * non-NULL ops member its struct lacks.
 */
enum bpf_abi_gen { BPF_ABI_GEN_NONE = 0, BPF_ABI_K1 = 1, BPF_ABI_K2, BPF_ABI_K3, BPF_ABI_K4 };
#define BPF_ABI_GEN_NEWEST BPF_ABI_K4

/* "K1".."K4" ("?" otherwise); the generation "K1".."K4" names (case-insensitive), or BPF_ABI_GEN_NONE. */
const char *bpf_abi_gen_name(enum bpf_abi_gen g);
enum bpf_abi_gen bpf_abi_gen_parse(const char *s);

/* Bytes of member m's ctx in generation g's driver; 0 when g has no such member. */
uint32_t bpf_abi_gen_ctx_size(enum bpf_abi_gen g, enum bpf_abi_member m);

/* How generation g's driver (or an object's BTF) declares a kfunc. */
enum bpf_abi_ret { BPF_ABI_RET_UNKNOWN = 0, BPF_ABI_RET_ABSENT, BPF_ABI_RET_VOID, BPF_ABI_RET_INT };
enum bpf_abi_ret bpf_abi_gen_kfunc(enum bpf_abi_gen g, const char *name);

/* K1's task_init ctx: the 32-byte input, then the output fields its void setters write. */
struct bpf_abi_task_init_ctx_k1 {
    uint64_t tsg_id;
    uint32_t engine_type;
    uint32_t pad0;
    uint64_t default_timeslice;
    uint32_t default_interleave;
    uint32_t runlist_id;
    uint64_t timeslice;               /* 0 = no change */
    uint32_t interleave_level;        /* 0 = no change */
    uint32_t pad1;
};
NV_ASSERT_SIZE(struct bpf_abi_task_init_ctx_k1, 48);
NV_ASSERT_OFF(struct bpf_abi_task_init_ctx_k1, timeslice, 32);
NV_ASSERT_OFF(struct bpf_abi_task_init_ctx_k1, interleave_level, 40);

/* What of an object decides which generations load it. */
struct bpf_abi_use {
    uint32_t members;                 /* bit m: member m is bound to a program (non-NULL) */
    uint32_t ctx_reach[BPF_ABI_MEMBER_COUNT]; /* bytes of the ctx the member's program reads at fixed offsets */
    uint32_t ctx_reach_insn[BPF_ABI_MEMBER_COUNT]; /* the instruction reading furthest */
    struct {
        const char *name;
        enum bpf_abi_ret declared;    /* the object's prototype (BTF) */
    } kfuncs[8];                      /* the kfuncs its programs call */
    uint32_t n_kfuncs;
};

/* 0 when generation g's driver loads an object with this use; else -1 and why in why. */
int bpf_abi_gen_refuses(enum bpf_abi_gen g, const struct bpf_abi_use *u, char *why, size_t len);

/*
 * The generation whose header the object was built with, from its BTF (ops struct named by
 * type_id): an on_timeslice_control member or an override_timeslice prototype -> K4; a 16-byte destroy
 * ctx -> K3; a 48-byte task_init ctx or void setter prototypes -> K1; otherwise K2. One line saying
 * which facts decided into why.
 */
enum bpf_abi_gen bpf_abi_built_for(const struct btf *btf, uint32_t type_id, char *why, size_t len);

/* The return kind of the kfunc name as the object's BTF declares it (an extern FUNC). */
enum bpf_abi_ret bpf_abi_btf_kfunc_ret(const struct btf *btf, const char *name);

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
 * instance) as libbpf and the kernel would: the struct's name, every member
 * known ("unknown ops member 'x'") and at its offset. The ctx structs the
 * members point at are not compared: the driver checks accesses, not structs.
 * Returns 0 and the layout in *ops, or -1 with one line per problem in err. A
 * three-member ops struct (no on_timeslice_control) is BPF_ABI_OPS_THREE_MEMBER.
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
