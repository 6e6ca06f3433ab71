/*
 * Instruction builders for hand-written test programs (the kernel's samples/bpf naming style).
 * LD64 expands to the two halves of an LD_IMM64.
 */
#ifndef NVEMU_TESTS_BPF_ASM_H
#define NVEMU_TESTS_BPF_ASM_H

#include "bpf/bpf_insn.h"

#define INSN(c, d, s, o, i) \
    ((struct bpf_insn){.code = (uint8_t)(c), .dst_reg = (d), .src_reg = (s), .off = (int16_t)(o), .imm = (int32_t)(i)})
#define LD64_SRC(d, s, v) \
    INSN(BPF_LD | BPF_IMM | BPF_DW, d, s, 0, (int32_t)(uint32_t)(uint64_t)(v)), \
    INSN(0, 0, 0, 0, (int32_t)(uint32_t)((uint64_t)(v) >> 32))
#define LD64(d, v) LD64_SRC(d, 0, v)
#define MOV64_IMM(d, v) INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, v)
#define MOV64_REG(d, s) INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define ALU64_IMM(op, d, v) INSN(BPF_ALU64 | (op) | BPF_K, d, 0, 0, v)
#define ALU64_REG(op, d, s) INSN(BPF_ALU64 | (op) | BPF_X, d, s, 0, 0)
#define ALU32_IMM(op, d, v) INSN(BPF_ALU | (op) | BPF_K, d, 0, 0, v)
#define ALU32_REG(op, d, s) INSN(BPF_ALU | (op) | BPF_X, d, s, 0, 0)
#define LDX(size, d, s, o) INSN(BPF_LDX | BPF_MEM | (size), d, s, o, 0)
#define STX(size, d, s, o) INSN(BPF_STX | BPF_MEM | (size), d, s, o, 0)
#define ST(size, d, o, v) INSN(BPF_ST | BPF_MEM | (size), d, 0, o, v)
#define JMP_IMM(op, d, v, o) INSN(BPF_JMP | (op) | BPF_K, d, 0, o, v)
#define JMP_REG(op, d, s, o) INSN(BPF_JMP | (op) | BPF_X, d, s, o, 0)
#define JA(o) INSN(BPF_JMP | BPF_JA, 0, 0, o, 0)
#define CALL(id) INSN(BPF_JMP | BPF_CALL, 0, 0, 0, id)
#define CALL_SUB(rel) INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, rel)
#define CALL_KFUNC(idx) INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, idx)
#define EXIT() INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

#define NINSN(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))

#endif
