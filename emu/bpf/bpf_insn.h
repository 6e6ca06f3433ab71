/*
 * The BPF instruction as it sits in an ELF object (RFC 9669, "BPF Instruction Set Architecture"),
 * little-endian, 8 bytes; a wide instruction (LD_IMM64) is two of them.
 *
 * The encoding and the opcode macros are the Linux UAPI's (<linux/bpf.h>, which follows RFC 9669's
 * names: BPF_CLASS/BPF_OP/BPF_SRC/BPF_SIZE/BPF_MODE, BPF_ALU64, BPF_JMP32, BPF_ATOMIC, BPF_FETCH, ...),
 * so this header and libbpf's headers can meet in one translation unit. What older UAPI headers
 * (Debian 12 ships Linux 6.1's) lack of the ISA v4 additions is defined here with RFC 9669's values.
 */
#ifndef NVEMU_BPF_INSN_H
#define NVEMU_BPF_INSN_H

#include <stddef.h>
#include <stdint.h>
#include <linux/bpf.h>

#include "abi/nv_abi_assert.h"

/* v4: sign-extending load mode (LDX only). */
#ifndef BPF_MEMSX
#define BPF_MEMSX 0x80
#endif

/* v4 reuses existing opcodes and tells the variant by `off`: MOVSX (off 8/16/32), SDIV/SMOD (off 1). */
#define BPF_OFF_SIGNED 1

/* RFC 9669's names for the byte-swap source bit of BPF_END (BPF_TO_LE/BPF_TO_BE are the UAPI's). */
#define BPF_END_TO_LE BPF_TO_LE
#define BPF_END_TO_BE BPF_TO_BE

/* Registers: r0 return value, r1-r5 arguments, r6-r9 callee-saved, r10 read-only frame pointer. */
#define BPF_NREGS 11
#define BPF_REG_FP 10

NV_ASSERT_SIZE(struct bpf_insn, 8);
NV_ASSERT_OFF(struct bpf_insn, off, 2);
NV_ASSERT_OFF(struct bpf_insn, imm, 4);
_Static_assert(BPF_LD == 0x00 && BPF_LDX == 0x01 && BPF_ST == 0x02 && BPF_STX == 0x03 &&
               BPF_ALU == 0x04 && BPF_JMP == 0x05 && BPF_JMP32 == 0x06 && BPF_ALU64 == 0x07,
               "RFC 9669 instruction classes");
_Static_assert(BPF_ATOMIC == 0xc0 && BPF_FETCH == 0x01 && BPF_XCHG == 0xe1 && BPF_CMPXCHG == 0xf1,
               "RFC 9669 atomic encodings");
_Static_assert(BPF_PSEUDO_MAP_FD == 1 && BPF_PSEUDO_MAP_VALUE == 2 && BPF_PSEUDO_FUNC == 4 &&
               BPF_PSEUDO_CALL == 1 && BPF_PSEUDO_KFUNC_CALL == 2, "pseudo source registers");

/* True for the first half of a 16-byte LD_IMM64 (BPF_LD | BPF_IMM | BPF_DW). */
static inline int bpf_insn_is_wide(const struct bpf_insn *insn)
{
    return insn->code == (BPF_LD | BPF_IMM | BPF_DW);
}

/* The 64-bit immediate of an LD_IMM64 pair: imm of the first half is the low word. */
static inline uint64_t bpf_insn_imm64(const struct bpf_insn *insn)
{
    return (uint64_t)(uint32_t)insn[0].imm | ((uint64_t)(uint32_t)insn[1].imm << 32);
}

#endif
