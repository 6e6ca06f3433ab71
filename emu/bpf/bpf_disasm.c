/*
 * One instruction as text, in the notation of the kernel verifier's log (kernel/bpf/disasm.c
 * conventions: "r1 = *(u32 *)(r6 +8)", "if r1 > 0x3 goto pc+2", "call map_lookup_elem#1").
 */
#include "bpf/bpf_vm.h"

#include <inttypes.h>
#include <stdio.h>

static const char *const alu_ops[16] = {"+=", "-=", "*=", "/=", "|=", "&=", "<<=", ">>=",
                                        "neg", "%=", "^=", "=", "s>>=", "endian", "?", "?"};
static const char *const jmp_ops[16] = {"goto", "==", ">", ">=", "&", "!=", "s>", "s>=",
                                        "call", "exit", "<", "<=", "s<", "s<=", "?", "?"};
static const char *const sizes[4] = {"u32", "u16", "u8", "u64"};
static const char *const atomic_ops[16] = {"+=", "?", "?", "?", "|=", "&=", "?", "?",
                                           "?", "?", "^=", "?", "?", "?", "xchg", "cmpxchg"};

int bpf_disasm(const struct bpf_insn *i, uint32_t avail, char *buf, size_t len)
{
    uint8_t cls = BPF_CLASS(i->code), op = BPF_OP(i->code) >> 4, sz = BPF_SIZE(i->code) >> 3;
    unsigned d = i->dst_reg, s = i->src_reg;
    const char *w = cls == BPF_ALU || cls == BPF_JMP32 ? "w" : "r";
    if (!bpf_insn_valid(i)) {
        snprintf(buf, len, "(%02x) invalid src=%u off=%d imm=%d", i->code, s, i->off, i->imm);
        return 1;
    }
    switch (cls) {
    case BPF_ALU:
    case BPF_ALU64:
        if (BPF_OP(i->code) == BPF_NEG)
            snprintf(buf, len, "%s%u = -%s%u", w, d, w, d);
        else if (BPF_OP(i->code) == BPF_END)
            snprintf(buf, len, "%s%u = %s%d %s%u", "r", d,
                     cls == BPF_ALU64 ? "bswap" : BPF_SRC(i->code) == BPF_TO_BE ? "be" : "le", i->imm, "r", d);
        else if (BPF_OP(i->code) == BPF_MOV && BPF_SRC(i->code) == BPF_X && i->off)
            snprintf(buf, len, "%s%u = (s%d)%s%u", w, d, i->off, w, s);
        else if (BPF_SRC(i->code) == BPF_X)
            snprintf(buf, len, "%s%u %s%s %s%u", w, d, i->off == BPF_OFF_SIGNED ? "s" : "", alu_ops[op], w, s);
        else
            snprintf(buf, len, "%s%u %s%s %d", w, d, i->off == BPF_OFF_SIGNED ? "s" : "", alu_ops[op], i->imm);
        return 1;
    case BPF_JMP:
    case BPF_JMP32:
        if (BPF_OP(i->code) == BPF_EXIT)
            snprintf(buf, len, "exit");
        else if (BPF_OP(i->code) == BPF_CALL && s == BPF_PSEUDO_CALL)
            snprintf(buf, len, "call pc%+d", i->imm);
        else if (BPF_OP(i->code) == BPF_CALL && s == BPF_PSEUDO_KFUNC_CALL)
            snprintf(buf, len, "call kfunc#%d", i->imm);
        else if (BPF_OP(i->code) == BPF_CALL)
            snprintf(buf, len, "call %s#%d", bpf_helper_name(i->imm) ? bpf_helper_name(i->imm) : "unknown", i->imm);
        else if (BPF_OP(i->code) == BPF_JA)
            snprintf(buf, len, "%s pc%+d", cls == BPF_JMP32 ? "gotol" : "goto", cls == BPF_JMP32 ? i->imm : i->off);
        else if (BPF_SRC(i->code) == BPF_X)
            snprintf(buf, len, "if %s%u %s %s%u goto pc%+d", w, d, jmp_ops[op], w, s, i->off);
        else
            snprintf(buf, len, "if %s%u %s 0x%x goto pc%+d", w, d, jmp_ops[op], (unsigned)i->imm, i->off);
        return 1;
    case BPF_LD:
        if (avail < 2) {
            snprintf(buf, len, "r%u = <truncated LD_IMM64>", d);
            return 1;
        }
        if (s == BPF_PSEUDO_MAP_FD)
            snprintf(buf, len, "r%u = map[0x%" PRIx64 "]", d, bpf_insn_imm64(i));
        else if (s == BPF_PSEUDO_MAP_VALUE)
            snprintf(buf, len, "r%u = map_value[0x%" PRIx64 "]", d, bpf_insn_imm64(i));
        else if (s == BPF_PSEUDO_FUNC)
            snprintf(buf, len, "r%u = func pc%+d", d, i->imm);
        else if (s)
            snprintf(buf, len, "r%u = pseudo%u[%d][%d]", d, s, i[0].imm, i[1].imm);
        else
            snprintf(buf, len, "r%u = 0x%" PRIx64 " ll", d, bpf_insn_imm64(i));
        return 2;
    case BPF_LDX:
        snprintf(buf, len, "r%u = *(%s%s *)(r%u %+d)", d, BPF_MODE(i->code) == BPF_MEMSX ? "s" : "",
                 BPF_MODE(i->code) == BPF_MEMSX ? sizes[sz] + 1 : sizes[sz], s, i->off);
        return 1;
    case BPF_ST:
        snprintf(buf, len, "*(%s *)(r%u %+d) = %d", sizes[sz], d, i->off, i->imm);
        return 1;
    default: /* BPF_STX */
        if (BPF_MODE(i->code) == BPF_MEM)
            snprintf(buf, len, "*(%s *)(r%u %+d) = r%u", sizes[sz], d, i->off, s);
        else if (i->imm == BPF_CMPXCHG)
            snprintf(buf, len, "r0 = atomic%s_cmpxchg((%s *)(r%u %+d), r0, r%u)", sz == 3 ? "64" : "", sizes[sz], d,
                     i->off, s);
        else if (i->imm == BPF_XCHG)
            snprintf(buf, len, "r%u = atomic%s_xchg((%s *)(r%u %+d), r%u)", s, sz == 3 ? "64" : "", sizes[sz], d,
                     i->off, s);
        else if (i->imm & BPF_FETCH)
            snprintf(buf, len, "r%u = atomic%s_fetch_%s((%s *)(r%u %+d), r%u)", s, sz == 3 ? "64" : "",
                     (i->imm & ~BPF_FETCH) == BPF_ADD ? "add" : (i->imm & ~BPF_FETCH) == BPF_OR ? "or"
                     : (i->imm & ~BPF_FETCH) == BPF_AND ? "and" : "xor", sizes[sz], d, i->off, s);
        else
            snprintf(buf, len, "lock *(%s *)(r%u %+d) %s r%u", sizes[sz], d, i->off, atomic_ops[(i->imm >> 4) & 15], s);
        return 1;
    }
}
