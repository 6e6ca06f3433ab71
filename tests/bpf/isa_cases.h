/*
 * Edge cases of every RFC 9669 conformance group, as tables, and the programs they become.
 * The same tables run on the interpreter (test_bpf_isa) and on the kernel (test_bpf_kernel).
 */
#ifndef NVEMU_TESTS_BPF_ISA_CASES_H
#define NVEMU_TESTS_BPF_ISA_CASES_H

#include <stdbool.h>
#include <stdint.h>

#include "bpf/bpf_insn.h"

#define CASE_MAX_INSNS 20

/* ALU/ALU64 (base32, base64, divmul32, divmul64): r0 = a; r1 = b; r0 OP= r1 or imm; exit. */
struct alu_case {
    const char *name;
    uint8_t code;
    int16_t off;
    int32_t imm;
    uint64_t a, b;
    uint64_t expect;
};

/* JMP/JMP32 conditionals: r0 = a; r1 = b; if r0 OP r1/imm goto taken; r0 = 0; exit; taken: r0 = 1. */
struct jmp_case {
    const char *name;
    uint8_t code;
    int32_t imm;
    uint64_t a, b;
    bool taken;
};

/* Stores then loads on the stack: *(u64 *)(r10 -16) = 0; store `val` with store_code at
 * r10-16; r0 = load with load_code from r10-16. */
struct mem_case {
    const char *name;
    uint8_t store_code;
    uint8_t load_code;
    uint64_t val;
    uint64_t expect;
};

/* Atomics on a stack slot; the program writes slot, src and r0 after the operation into the
 * 24-byte writable ctx. */
struct atomic_case {
    const char *name;
    uint8_t code;
    int32_t op;
    uint64_t mem, src, r0;
    uint64_t expect_mem, expect_src, expect_r0;
};

/* Whole programs for control flow: jumps, BPF-to-BPF calls (arguments, callee-saved registers,
 * separate stacks), bpf_loop with a callback reference, LD_IMM64 constants; r0 is checked. */
struct prog_row {
    const char *name;
    struct bpf_insn insns[CASE_MAX_INSNS];
    uint32_t n;
    uint64_t expect;
};

struct case_group {
    const char *group;                /* RFC 9669 conformance group */
    enum { G_ALU, G_JMP, G_MEM, G_ATOMIC, G_PROG } kind;
    const void *rows;
    uint32_t n;
};

extern const struct case_group isa_groups[];
extern const uint32_t isa_ngroups;

/* The program of row i of g into out (at least CASE_MAX_INSNS); returns its length. */
uint32_t isa_build(const struct case_group *g, uint32_t i, struct bpf_insn *out);

/* Row name and the values the program must produce: r0, and for atomics the 24-byte ctx. */
const char *isa_row_name(const struct case_group *g, uint32_t i);
uint64_t isa_expect_r0(const struct case_group *g, uint32_t i);
void isa_expect_ctx(const struct case_group *g, uint32_t i, uint64_t out[3]);

#endif
