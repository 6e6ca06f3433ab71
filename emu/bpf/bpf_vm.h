/*
 * The BPF interpreter: runs a relocated program (RFC 9669 base32, base64, atomic32, atomic64,
 * divmul32, divmul64 and the ISA v4 additions clang 18+ emits: MEMSX, MOVSX, SDIV/SMOD, BSWAP,
 * JA32/gotol) against a ctx, with memory safety instead of the kernel's verifier: every register
 * carries what it points into (a stack frame, the ctx, a map value, global data, a ringbuf
 * record, a map), and every load/store/atomic and every pointer argument of a helper or kfunc is
 * checked against that region's bounds and writability. A scalar used as a pointer, an access
 * outside the region, a store into the read-only ctx, running past the instruction budget or the
 * call-depth limit end the run with a fault that names the program, the instruction and the source
 * line. Nothing a program does can crash the process. Division by zero follows RFC 9669 (quotient
 * 0, remainder = dividend); shifts use the low 5/6 bits of the count.
 *
 * Helpers are implemented here; what they need from the emulator (virtual clock, PRNG state, the
 * ioctl caller, the printk sink) comes from bpf_vm_env. Kfuncs are the caller's (the gpu_ext
 * decision kfuncs), called through the table in the env after their arguments are checked.
 */
#ifndef NVEMU_BPF_VM_H
#define NVEMU_BPF_VM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/bpf_insn.h"
#include "bpf/bpf_map.h"

#define BPF_VM_MAX_FRAMES 8          /* main program + 7 nested BPF-to-BPF calls, as the kernel */
#define BPF_VM_STACK_SIZE 512        /* per frame; r10 points at its top */
#define BPF_VM_DEFAULT_BUDGET 1000000 /* instructions per run when the env gives 0 */
#define BPF_VM_MAX_INSNS 1000000     /* longest program bpf_vm_check accepts (BPF_COMPLEXITY_LIMIT_INSNS) */

/* --- The relocated program a loader hands over ---
 * insns: the entry program at index 0 followed by every subprogram it (transitively) calls, as
 * libbpf lays them out. The loader leaves these instruction forms:
 *   LD_IMM64 src=0                     a constant; a weak kfunc's presence is 1 (resolved) or 0
 *   LD_IMM64 src=BPF_PSEUDO_MAP_FD     the 64-bit immediate is a `struct bpf_map *` from maps[]
 *   LD_IMM64 src=BPF_PSEUDO_MAP_VALUE  the 64-bit immediate is a host address inside the value of
 *                                      an element of a map in maps[] (global data: the section
 *                                      base from bpf_map_value_base() plus the symbol's offset)
 *   LD_IMM64 src=BPF_PSEUDO_FUNC       imm is the pc-relative offset of a subprogram (callback of
 *                                      bpf_loop): target = pc + imm + 1, as in the kernel
 *   CALL src=0                         helper by kernel id (enum bpf_func_id)
 *   CALL src=BPF_PSEUDO_CALL           BPF-to-BPF call, target = pc + imm + 1
 *   CALL src=BPF_PSEUDO_KFUNC_CALL     imm = index into env->kfuncs (see bpf_kfunc_index)
 * Line info (from .BTF.ext) lets a fault name the source line; lines[] is sorted by insn and an
 * entry covers instructions up to the next entry's. */
struct bpf_line {
    uint32_t insn;
    uint32_t line;
    uint32_t col;
    const char *file;
    const char *src;                 /* text of the line, or NULL */
};

struct bpf_prog {
    const char *name;                /* e.g. the struct_ops member or section name */
    const struct bpf_insn *insns;
    uint32_t n;                      /* instructions, counting both halves of LD_IMM64 */
    bool sleepable;                  /* struct_ops.s/: may call sleepable kfuncs */
    struct bpf_map *const *maps;     /* every map LD_IMM64 refers to */
    uint32_t n_maps;
    const struct bpf_line *lines;    /* may be NULL */
    uint32_t n_lines;
};

/* --- Faults --- */
enum bpf_fault_kind {
    BPF_FAULT_NONE = 0,
    BPF_FAULT_CHECK,                 /* refused at load by bpf_vm_check */
    BPF_FAULT_MEMORY,                /* access outside the region the pointer points into */
    BPF_FAULT_READONLY,              /* store into the ctx, `.rodata` or another read-only region */
    BPF_FAULT_POINTER,               /* scalar dereferenced, or an argument of the wrong kind */
    BPF_FAULT_BUDGET,                /* instruction budget exhausted */
    BPF_FAULT_DEPTH,                 /* more than max_frames nested calls */
    BPF_FAULT_INSN,                  /* invalid instruction reached (program not checked) */
    BPF_FAULT_HELPER,                /* unknown helper, or one this env cannot serve */
    BPF_FAULT_KFUNC,                 /* a kfunc refused the call (bpf_vm_call_fail) */
};

struct bpf_fault {
    enum bpf_fault_kind kind;
    uint32_t insn;                   /* index of the faulting instruction */
    uint64_t insns;                  /* instructions the run executed (also set on success) */
    char prog[64];
    char where[160];                 /* "policy.bpf.c:42" when line info covers insn, else "" */
    char reason[256];
};

/* "KIND" as a short lower-case word ("memory", "budget", ...). */
const char *bpf_fault_kind_name(enum bpf_fault_kind kind);

/* "program 'on_bind' insn 17 (policy.bpf.c:42): reason" into buf; returns buf. */
const char *bpf_fault_format(const struct bpf_fault *fault, char *buf, size_t len);

/* --- Kfuncs (caller-provided) --- */
enum bpf_arg_kind {
    BPF_ARG_NONE = 0,                /* not an argument */
    BPF_ARG_SCALAR,                  /* any value */
    BPF_ARG_CTX,                     /* exactly the run's ctx pointer (offset 0) */
    BPF_ARG_MEM,                     /* pointer to `size` readable bytes */
    BPF_ARG_MEM_RW,                  /* pointer to `size` writable bytes */
    BPF_ARG_HANDLE,                  /* a map or subprogram pointer the kfunc itself resolves (bpf_wq) */
};

struct bpf_arg_spec {
    uint8_t kind;                    /* enum bpf_arg_kind */
    bool nullable;                   /* a pointer argument may also be the scalar 0 */
    uint32_t size;                   /* BPF_ARG_MEM*: bytes */
};

/* What a kfunc gets besides its arguments: where it was called from, the run's ctx, and a way to
 * fail the run (the program then ends with BPF_FAULT_KFUNC and the reason). */
struct bpf_vm_call {
    const struct bpf_prog *prog;
    uint32_t insn;
    void *ctx;
    size_t ctx_size;
    bool failed;
    char reason[192];
};

struct bpf_kfunc {
    const char *name;
    /* args[i] are the register values r1..r5; pointer arguments are host addresses already
     * checked against their spec. Returns r0. */
    uint64_t (*fn)(void *env_ctx, const uint64_t args[5], struct bpf_vm_call *call);
    struct bpf_arg_spec args[5];
    bool sleepable;                  /* only sleepable programs may call it (checked at load) */
};

/* Marks the call failed with a reason; the interpreter stops after fn returns. */
void bpf_vm_call_fail(struct bpf_vm_call *call, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Index of name in a kfunc table, or -1. What a loader writes into CALL src=BPF_PSEUDO_KFUNC_CALL. */
int bpf_kfunc_index(const struct bpf_kfunc *kfuncs, uint32_t n, const char *name);

/* --- The environment of a run (the emulator's side) --- */
struct bpf_vm_task {                 /* the emulated ioctl caller, "current" to a program */
    uint32_t pid;                    /* thread id */
    uint32_t tgid;                   /* process id */
    uint32_t uid;
    uint32_t gid;
    char comm[16];
};

struct bpf_map;

struct bpf_vm_env {
    void *ctx;                                        /* handed to every callback and kfunc */
    uint64_t (*clock_ns)(void *ctx);                  /* ktime_get_ns / coarse / tai */
    uint64_t (*boot_clock_ns)(void *ctx);             /* ktime_get_boot_ns; NULL: clock_ns */
    uint64_t *prng_state;                             /* get_prandom_u32 advances it (seed it) */
    bool (*current_task)(void *ctx, struct bpf_vm_task *task); /* false: no caller (helpers
                                                         then answer as the kernel in irq context) */
    void (*printk)(void *ctx, const struct bpf_prog *prog, const char *line); /* one formatted line */
    uint32_t cpu;                                     /* get_smp_processor_id */
    const struct bpf_kfunc *kfuncs;
    uint32_t n_kfuncs;
    /* probe_read_user[_str] / probe_read_kernel[_str] of an address outside the program's own
     * regions (ctx, stack, maps): the caller's memory or the probed function's kernel data. 0, or
     * -EFAULT. NULL: every such read faults (-EFAULT, destination zeroed). */
    int (*read_user)(void *ctx, uint64_t addr, void *dst, size_t len);
    int (*read_kernel)(void *ctx, uint64_t addr, void *dst, size_t len);
    uint64_t insn_budget;                             /* per run, callbacks included; 0: default */
    uint32_t max_frames;                              /* 1..BPF_VM_MAX_FRAMES; 0: the maximum */
};

/* --- Load time --- */

/* True when the instruction (with its off/imm/src variant fields) is one RFC 9669 or ISA v4
 * defines, ignoring register numbers and jump targets. For LD_IMM64 only the first half. */
bool bpf_insn_valid(const struct bpf_insn *insn);

/* Kernel name of a helper id ("map_lookup_elem"), or NULL when unknown to the kernel. */
const char *bpf_helper_name(int32_t id);

/* True when this runtime implements helper id. */
bool bpf_helper_supported(int32_t id);

/* Argument types of a helper's kernel prototype (enum bpf_arg_type, reduced to what the checks tell apart). */
enum bpf_harg {
    BPF_HARG_NONE = 0,
    BPF_HARG_ANY,                    /* any initialised value */
    BPF_HARG_MAP,                    /* a map pointer (LD_IMM64 of a map) */
    BPF_HARG_MAP_KEY,                /* pointer to key_size initialised bytes */
    BPF_HARG_MAP_VALUE,              /* pointer to value_size initialised bytes */
    BPF_HARG_MEM,                    /* pointer to initialised memory (size in the next argument) */
    BPF_HARG_MEM_UNINIT,             /* pointer to writable memory (size in the next argument) */
    BPF_HARG_SIZE,                   /* a size > 0 */
    BPF_HARG_SIZE_OR_ZERO,           /* a size >= 0 */
    BPF_HARG_RINGBUF_REC,            /* a record from ringbuf_reserve */
    BPF_HARG_FUNC,                   /* a subprogram (LD_IMM64 src=BPF_PSEUDO_FUNC) */
};

struct bpf_helper_proto {
    uint8_t nargs;                   /* arguments declared: r1..r<nargs>; other registers are not looked at */
    bool gpl_only;                   /* refused in a program whose license is not GPL-compatible */
    uint8_t args[5];                 /* enum bpf_harg */
};

/* The kernel's prototype of helper id, or NULL when this runtime does not implement it. */
const struct bpf_helper_proto *bpf_helper_proto(int32_t id);

/* Refuses what the kernel's verifier obviously would: invalid opcodes or registers, writes to r10,
 * jumps or calls outside the program or into the second half of LD_IMM64, falling off the end,
 * unreachable instructions,
 * an unknown or unsupported helper (or one whose env callback is missing), kfunc indexes outside
 * env->kfuncs, a sleepable kfunc in a non-sleepable program, LD_IMM64 map pointers or addresses
 * not in prog->maps, and (ctx_readonly) stores through a register that still holds the ctx
 * pointer (r1 at entry, copies of it, plus constant offsets). 0, or -1 with why->kind
 * BPF_FAULT_CHECK naming the instruction. */
int bpf_vm_check(const struct bpf_vm_env *env, const struct bpf_prog *prog, bool ctx_readonly,
                 struct bpf_fault *why);

/*
 * The kernel verifier's rules for struct_ops and probe programs that a dataflow pass can decide, each
 * refused with the instruction and the verifier's reason: a register read before it is written (exit
 * without r0 included); a stack access outside the
 * 512 bytes below r10, and more than 512 bytes of stack along a chain of BPF-to-BPF calls (frames
 * rounded to 32 bytes); a map value access outside value_size; a dereference of, or arithmetic on, a
 * map lookup result before its NULL check; a memory access through a scalar or a map pointer; a store
 * through the ctx; helper arguments against the helper's prototype (a map where a map is declared,
 * stack or map value memory of the key, value or buffer size, a scalar size, non-zero where
 * required) and kfunc arguments against the kfunc's (the ctx itself, a scalar); a GPL-only helper when
 * gpl is false; a loop with no exit testing a counter (changed in the loop only by constant steps)
 * against a bounded value. Stack bytes read before they are written pass, as they pass the verifier
 * for a loader with CAP_PERFMON (every struct_ops loader). The program is the relocated one (maps and kfuncs resolved), with r1 = the
 * ctx at entry. 0, or -1 with why->kind BPF_FAULT_CHECK.
 */
int bpf_vm_verify(const struct bpf_vm_env *env, const struct bpf_prog *prog, bool gpl, struct bpf_fault *why);

/*
 * How far into its ctx (r1 at entry) the program reads at offsets fixed at load time: the largest
 * offset + size of a load through r1, a copy of it, or either plus constants, and the instruction
 * doing it (0 and 0 when there is none). Loads through a ctx pointer whose offset differs between
 * paths, or one that was spilled, are left to the run-time check. A driver checks each such access
 * against its own ctx layout: this is what decides whether a ctx of that size admits the program.
 * 0, or -1 when out of memory.
 */
int bpf_vm_ctx_reach(const struct bpf_prog *prog, uint32_t *reach, uint32_t *insn);

/* --- Run time --- */

/* Runs prog from instruction 0 with r1 = ctx (ctx_size bytes; read-only when ctx_readonly), on
 * a fresh zeroed stack. 0 with *r0 set, or -1 with *fault filled (fault may be NULL). Safe on
 * programs that did not pass bpf_vm_check: everything is checked again as it executes. */
int bpf_vm_run(const struct bpf_vm_env *env, const struct bpf_prog *prog, void *ctx, size_t ctx_size,
               bool ctx_readonly, uint64_t *r0, struct bpf_fault *fault);

/* Runs the subprogram at instruction `entry` of prog as an async callback (bpf_wq's): r1 = map (a
 * map handle), r2 = key (key_size bytes, read-only), r3 = value (value_size bytes, writable); it
 * runs sleepable, in process context, whatever the program that armed it. As bpf_vm_run
 * otherwise. */
int bpf_vm_run_callback(const struct bpf_vm_env *env, const struct bpf_prog *prog, uint32_t entry,
                        struct bpf_map *map, const void *key, uint32_t key_size, void *value, uint32_t value_size,
                        uint64_t *r0, struct bpf_fault *fault);

/* --- Tools --- */

/* One instruction in the kernel verifier's notation ("r1 = *(u32 *)(r6 +8)", "call 1", "goto +3")
 * into buf; returns the instructions it consumed (2 for LD_IMM64 when insn[1] is available, i.e.
 * avail >= 2), 1 otherwise. */
int bpf_disasm(const struct bpf_insn *insn, uint32_t avail, char *buf, size_t len);

#endif
