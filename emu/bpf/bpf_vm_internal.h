/*
 * The interpreter's state, shared by the execution loop (bpf_vm.c) and the helpers
 * (bpf_helpers.c). Not part of the module's interface.
 */
#ifndef NVEMU_BPF_VM_INTERNAL_H
#define NVEMU_BPF_VM_INTERNAL_H

#include <stdarg.h>

#include "bpf/bpf_vm.h"

/* What a register (or a spilled stack slot) points into. Only the memory kinds can be
 * dereferenced; MAP and FUNC values are handles for helpers. */
enum region_kind {
    R_SCALAR = 0,
    R_STACK,
    R_CTX,
    R_VALUE,                          /* map value or global data */
    R_RBREC,                          /* outstanding ringbuf record */
    R_MAP,                            /* struct bpf_map *, from LD_IMM64 BPF_PSEUDO_MAP_FD */
    R_FUNC,                           /* subprogram, from LD_IMM64 BPF_PSEUDO_FUNC; base = insn */
};
#define R_LAST_MEMORY R_RBREC
#define T_READ 1u
#define T_WRITE 2u

struct tag {
    uintptr_t base;
    uint32_t size;
    uint8_t kind;
    uint8_t flags;
};

struct frame {
    uint32_t ret_pc;
    uint64_t saved[4];                /* r6-r9 of the caller */
    struct tag saved_tag[4];
};

#define SLOTS (BPF_VM_STACK_SIZE / 8)
#define NREG_SLOTS 16                 /* register fields are 4 bits wide */

struct vm {
    const struct bpf_vm_env *env;
    const struct bpf_prog *prog;
    uint64_t r[NREG_SLOTS];
    struct tag t[NREG_SLOTS];
    uint32_t depth;                   /* index of the running frame */
    uint32_t max_frames;
    uint32_t pc;                      /* instruction being executed, for faults */
    uint64_t executed;
    uint64_t budget;
    uint64_t wall_next;               /* executed count at which to look at the wall-clock deadline */
    void *ctx;
    size_t ctx_size;
    bool ctx_readonly;
    bool failed;
    struct bpf_fault *fault;
    struct frame frames[BPF_VM_MAX_FRAMES];
    _Alignas(8) uint8_t stack[BPF_VM_MAX_FRAMES][BPF_VM_STACK_SIZE];
    uint8_t slot_live[BPF_VM_MAX_FRAMES][SLOTS]; /* slot holds a spilled pointer (slot_tag) */
    struct tag slot_tag[BPF_VM_MAX_FRAMES][SLOTS];
    /* Tags kept outside registers and slots while a helper runs a subprogram (the helper caller's
     * registers, bpf_loop's context argument): a record released meanwhile is forgotten there too. */
    struct {
        struct tag *t;
        uint32_t n;
    } held[2 * BPF_VM_MAX_FRAMES];
    uint32_t n_held;
};

/* Ends the run: fills the fault (first one wins) and marks the vm failed. Returns -1. */
int vm_fault(struct vm *vm, enum bpf_fault_kind kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Fills prog, insn and where (source line from the program's line table) of a fault. */
void vm_locate(const struct bpf_prog *prog, uint32_t insn, struct bpf_fault *f);

/* The control-flow successors of pc (at most two, each inside the program; a call returns to the next
 * instruction, an exit has none): what every pass over a program's control flow walks. */
int vm_insn_successors(const struct bpf_prog *p, uint32_t pc, uint32_t succ[2]);

/* A load-time refusal of insn: *why (may be NULL) becomes a BPF_FAULT_CHECK there with the formatted reason.
 * Returns -1. */
int vm_refuse(const struct bpf_prog *prog, struct bpf_fault *why, uint32_t insn, const char *fmt, va_list ap);

/* True when len bytes at addr lie inside the region t describes with the access it allows. */
static inline bool vm_region_ok(const struct tag *t, uint64_t addr, uint64_t len, bool write)
{
    uint64_t rel = addr - (uint64_t)t->base;
    return t->kind != R_SCALAR && t->kind <= R_LAST_MEMORY && rel <= t->size && len <= t->size - rel &&
           (t->flags & (write ? T_WRITE : T_READ));
}

/* Checks len bytes at addr against the region t describes; returns the host pointer or NULL with
 * the fault set. what names the access in the fault ("load", "argument 2 of map_update_elem"). */
void *vm_region_access(struct vm *vm, const struct tag *t, uint64_t addr, uint64_t len, bool write, const char *what);

/* The region holding [addr, addr+len) among the stack frames, the ctx and the values of the
 * program's maps (for addresses that reach a helper as plain numbers); false when none does. */
bool vm_find_region(struct vm *vm, uint64_t addr, uint64_t len, struct tag *out);

/* Forgets spilled pointers in stack slots that [addr, addr+len) overwrote. */
void vm_stack_written(struct vm *vm, const struct tag *t, uint64_t addr, uint64_t len);

/* A ringbuf record was submitted or discarded: every tag pointing at it (registers, stack slots, the
 * callers' saved registers, held tags) becomes a scalar, as the kernel's verifier invalidates every copy of
 * a released reference: no frame can write into a record after its submit. */
void vm_forget_record(struct vm *vm, uintptr_t rec);

/* Runs a subprogram (bpf_loop callback) in a new frame with r1..r2 set; *r0 gets its result. *t2 is held
 * (vm_forget_record updates it) while the subprogram runs. */
int vm_call_subprog(struct vm *vm, uint32_t target, uint64_t r1, uint64_t r2, struct tag *t2, uint64_t *r0);

/* The helper with this id, run against vm's r1..r5; sets r0 and its tag. 0, or -1 on a fault. */
int vm_call_helper(struct vm *vm, int32_t id);

/* What a helper needs from the env beyond the vm itself. */
enum helper_need { NEED_NONE = 0, NEED_CLOCK, NEED_PRNG, NEED_TASK, NEED_PRINTK };

/* -1 when the helper is unknown or not implemented, else its enum helper_need. */
int vm_helper_need(int32_t id);

/* True when env has what a helper of this need uses. */
bool vm_env_serves(const struct bpf_vm_env *env, int need);

#endif
