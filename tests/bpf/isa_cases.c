/*
 * The edge-case tables of RFC 9669's conformance groups. Expected values follow the RFC:
 * 32-bit results are zero-extended, shift counts are masked to 5/6 bits, division by zero gives
 * 0 and modulo by zero keeps the dividend (its low 32 bits for ALU), signed division truncates
 * toward zero and INT_MIN / -1 wraps.
 */
#include "isa_cases.h"

#include "bpf_asm.h"

#define A64(op, src) (BPF_ALU64 | (op) | (src))
#define A32(op, src) (BPF_ALU | (op) | (src))
#define NEG64 0x8000000000000000ull
#define M1 0xffffffffffffffffull

static const struct alu_case base64_alu[] = {
    {"add64 imm wraps", A64(BPF_ADD, BPF_K), 0, 1, M1, 0, 0},
    {"add64 imm sign-extends", A64(BPF_ADD, BPF_K), 0, -1, 0, 0, M1},
    {"add64 reg wraps", A64(BPF_ADD, BPF_X), 0, 0, NEG64, NEG64, 0},
    {"sub64 imm borrows", A64(BPF_SUB, BPF_K), 0, 1, 0, 0, M1},
    {"sub64 reg", A64(BPF_SUB, BPF_X), 0, 0, 1, 2, M1},
    {"or64 imm sign-extends", A64(BPF_OR, BPF_K), 0, -256, 0xf0, 0, 0xfffffffffffffff0ull},
    {"or64 reg", A64(BPF_OR, BPF_X), 0, 0, 0x0f, 0xf0, 0xff},
    {"and64 imm positive", A64(BPF_AND, BPF_K), 0, 0x7fffffff, M1, 0, 0x7fffffff},
    {"and64 imm -1 keeps", A64(BPF_AND, BPF_K), 0, -1, 0x123456789abcdef0ull, 0, 0x123456789abcdef0ull},
    {"and64 reg", A64(BPF_AND, BPF_X), 0, 0, 0xff00ff00ff00ff00ull, 0x0ff00ff00ff00ff0ull, 0x0f000f000f000f00ull},
    {"lsh64 imm 63", A64(BPF_LSH, BPF_K), 0, 63, 1, 0, NEG64},
    {"lsh64 reg 64 masks to 0", A64(BPF_LSH, BPF_X), 0, 0, 1, 64, 1},
    {"lsh64 reg 65 masks to 1", A64(BPF_LSH, BPF_X), 0, 0, 1, 65, 2},
    {"rsh64 imm 63", A64(BPF_RSH, BPF_K), 0, 63, NEG64, 0, 1},
    {"rsh64 reg 127 masks to 63", A64(BPF_RSH, BPF_X), 0, 0, NEG64, 127, 1},
    {"arsh64 imm 63", A64(BPF_ARSH, BPF_K), 0, 63, NEG64, 0, M1},
    {"arsh64 reg 68 masks to 4", A64(BPF_ARSH, BPF_X), 0, 0, NEG64, 68, 0xf800000000000000ull},
    {"neg64 1", A64(BPF_NEG, BPF_K), 0, 0, 1, 0, M1},
    {"neg64 INT64_MIN", A64(BPF_NEG, BPF_K), 0, 0, NEG64, 0, NEG64},
    {"xor64 imm -1", A64(BPF_XOR, BPF_K), 0, -1, 0, 0, M1},
    {"xor64 reg self-cancel", A64(BPF_XOR, BPF_X), 0, 0, 0x1234, 0x1234, 0},
    {"mov64 imm sign-extends", A64(BPF_MOV, BPF_K), 0, -2, 0, 0, 0xfffffffffffffffeull},
    {"mov64 reg", A64(BPF_MOV, BPF_X), 0, 0, 0, 0x123456789abcdef0ull, 0x123456789abcdef0ull},
    {"movsx64 s8", A64(BPF_MOV, BPF_X), 8, 0, 0, 0x80, 0xffffffffffffff80ull},
    {"movsx64 s8 positive", A64(BPF_MOV, BPF_X), 8, 0, 0, 0x17f, 0x7f},
    {"movsx64 s16", A64(BPF_MOV, BPF_X), 16, 0, 0, 0x8000, 0xffffffffffff8000ull},
    {"movsx64 s32", A64(BPF_MOV, BPF_X), 32, 0, 0, 0x80000000, 0xffffffff80000000ull},
    {"movsx64 s32 positive", A64(BPF_MOV, BPF_X), 32, 0, 0, 0x17fffffffull, 0x7fffffff},
    {"bswap16", A64(BPF_END, BPF_K), 0, 16, 0x1122334455667788ull, 0, 0x8877},
    {"bswap32", A64(BPF_END, BPF_K), 0, 32, 0x1122334455667788ull, 0, 0x88776655},
    {"bswap64", A64(BPF_END, BPF_K), 0, 64, 0x1122334455667788ull, 0, 0x8877665544332211ull},
};

static const struct alu_case base32_alu[] = {
    {"add32 imm wraps, zero-extends", A32(BPF_ADD, BPF_K), 0, 1, M1, 0, 0},
    {"add32 reg ignores upper halves", A32(BPF_ADD, BPF_X), 0, 0, 0x100000005ull, 0x200000003ull, 8},
    {"sub32 imm borrows", A32(BPF_SUB, BPF_K), 0, 1, 0, 0, 0xffffffff},
    {"sub32 reg", A32(BPF_SUB, BPF_X), 0, 0, 0xaaaaaaaa00000001ull, 2, 0xffffffff},
    {"or32 imm clears upper", A32(BPF_OR, BPF_K), 0, 1, 0xffffffff00000000ull, 0, 1},
    {"or32 reg", A32(BPF_OR, BPF_X), 0, 0, 0x10000000full, 0xf0, 0xff},
    {"and32 imm", A32(BPF_AND, BPF_K), 0, 0xff, M1, 0, 0xff},
    {"and32 reg", A32(BPF_AND, BPF_X), 0, 0, 0x12345678ffffffffull, 0x0f0f0f0f, 0x0f0f0f0f},
    {"lsh32 imm 31", A32(BPF_LSH, BPF_K), 0, 31, 1, 0, 0x80000000},
    {"lsh32 reg 32 masks to 0", A32(BPF_LSH, BPF_X), 0, 0, 1, 32, 1},
    {"lsh32 reg 33 masks to 1", A32(BPF_LSH, BPF_X), 0, 0, 0x100000001ull, 33, 2},
    {"rsh32 imm 31", A32(BPF_RSH, BPF_K), 0, 31, 0xffffffff80000000ull, 0, 1},
    {"rsh32 reg 63 masks to 31", A32(BPF_RSH, BPF_X), 0, 0, 0x80000000, 63, 1},
    {"arsh32 imm 31", A32(BPF_ARSH, BPF_K), 0, 31, 0x80000000, 0, 0xffffffff},
    {"arsh32 reg 36 masks to 4", A32(BPF_ARSH, BPF_X), 0, 0, 0x180000000ull, 36, 0xf8000000},
    {"neg32 1", A32(BPF_NEG, BPF_K), 0, 0, 1, 0, 0xffffffff},
    {"neg32 of upper-only", A32(BPF_NEG, BPF_K), 0, 0, 0xffffffff00000000ull, 0, 0},
    {"xor32 imm", A32(BPF_XOR, BPF_K), 0, -1, M1, 0, 0},
    {"xor32 reg", A32(BPF_XOR, BPF_X), 0, 0, 0, 0x100000001ull, 1},
    {"mov32 imm -1 zero-extends", A32(BPF_MOV, BPF_K), 0, -1, 0, 0, 0xffffffff},
    {"mov32 reg truncates", A32(BPF_MOV, BPF_X), 0, 0, 0, 0xfffffffffffffffeull, 0xfffffffe},
    {"movsx32 s8", A32(BPF_MOV, BPF_X), 8, 0, 0, 0x80, 0xffffff80},
    {"movsx32 s16", A32(BPF_MOV, BPF_X), 16, 0, 0, 0x8000, 0xffff8000},
    {"movsx32 s16 positive", A32(BPF_MOV, BPF_X), 16, 0, 0, 0x100007fffull, 0x7fff},
    {"le16", A32(BPF_END, BPF_TO_LE), 0, 16, 0x1122334455667788ull, 0, 0x7788},
    {"le32", A32(BPF_END, BPF_TO_LE), 0, 32, 0x1122334455667788ull, 0, 0x55667788},
    {"le64", A32(BPF_END, BPF_TO_LE), 0, 64, 0x1122334455667788ull, 0, 0x1122334455667788ull},
    {"be16", A32(BPF_END, BPF_TO_BE), 0, 16, 0x1122334455667788ull, 0, 0x8877},
    {"be32", A32(BPF_END, BPF_TO_BE), 0, 32, 0x1122334455667788ull, 0, 0x88776655},
    {"be64", A32(BPF_END, BPF_TO_BE), 0, 64, 0x1122334455667788ull, 0, 0x8877665544332211ull},
};

static const struct alu_case divmul64[] = {
    {"mul64 imm sign-extends", A64(BPF_MUL, BPF_K), 0, -1, 0x100000000ull, 0, 0xffffffff00000000ull},
    {"mul64 reg wraps", A64(BPF_MUL, BPF_X), 0, 0, 0xffffffff, 0xffffffff, 0xfffffffe00000001ull},
    {"div64 imm", A64(BPF_DIV, BPF_K), 0, 7, 100, 0, 14},
    {"div64 imm -1 is 2^64-1", A64(BPF_DIV, BPF_K), 0, -1, 5, 0, 0},
    {"div64 reg by zero is 0", A64(BPF_DIV, BPF_X), 0, 0, 42, 0, 0},
    {"div64 reg unsigned", A64(BPF_DIV, BPF_X), 0, 0, M1, 2, 0x7fffffffffffffffull},
    {"sdiv64 imm truncates", A64(BPF_DIV, BPF_K), 1, 2, (uint64_t)-7, 0, (uint64_t)-3},
    {"sdiv64 imm negative", A64(BPF_DIV, BPF_K), 1, -2, 7, 0, (uint64_t)-3},
    {"sdiv64 INT64_MIN / -1 wraps", A64(BPF_DIV, BPF_X), 1, 0, NEG64, M1, NEG64},
    {"sdiv64 reg by zero is 0", A64(BPF_DIV, BPF_X), 1, 0, (uint64_t)-5, 0, 0},
    {"mod64 imm", A64(BPF_MOD, BPF_K), 0, 7, 100, 0, 2},
    {"mod64 reg by zero keeps", A64(BPF_MOD, BPF_X), 0, 0, 42, 0, 42},
    {"mod64 reg unsigned", A64(BPF_MOD, BPF_X), 0, 0, M1, 10, 5},
    {"smod64 imm sign of dividend", A64(BPF_MOD, BPF_K), 1, 2, (uint64_t)-7, 0, M1},
    {"smod64 reg negative divisor", A64(BPF_MOD, BPF_X), 1, 0, 7, (uint64_t)-2, 1},
    {"smod64 INT64_MIN % -1 is 0", A64(BPF_MOD, BPF_X), 1, 0, NEG64, M1, 0},
    {"smod64 reg by zero keeps", A64(BPF_MOD, BPF_X), 1, 0, (uint64_t)-5, 0, (uint64_t)-5},
};

static const struct alu_case divmul32[] = {
    {"mul32 imm wraps", A32(BPF_MUL, BPF_K), 0, 0x10000, 0x10000, 0, 0},
    {"mul32 reg", A32(BPF_MUL, BPF_X), 0, 0, 0xffffffff, 0xffffffff, 1},
    {"div32 imm -1 is 2^32-1", A32(BPF_DIV, BPF_K), 0, -1, 0xffffffff, 0, 1},
    {"div32 reg by zero is 0", A32(BPF_DIV, BPF_X), 0, 0, 42, 0, 0},
    {"div32 reg ignores upper", A32(BPF_DIV, BPF_X), 0, 0, 0xdeadbeef00000064ull, 0x10, 6},
    {"sdiv32 imm", A32(BPF_DIV, BPF_K), 1, 2, 0xfffffff9, 0, 0xfffffffd},
    {"sdiv32 INT32_MIN / -1 wraps", A32(BPF_DIV, BPF_X), 1, 0, 0x80000000, 0xffffffff, 0x80000000},
    {"sdiv32 reg by zero is 0", A32(BPF_DIV, BPF_X), 1, 0, 0xfffffff9, 0, 0},
    {"mod32 imm", A32(BPF_MOD, BPF_K), 0, 7, 0xffffffff00000064ull, 0, 2},
    {"mod32 reg by zero keeps low half", A32(BPF_MOD, BPF_X), 0, 0, 0xffffffff0000002aull, 0, 0x2a},
    {"smod32 imm", A32(BPF_MOD, BPF_K), 1, 2, 0xfffffff9, 0, 0xffffffff},
    {"smod32 INT32_MIN % -1 is 0", A32(BPF_MOD, BPF_X), 1, 0, 0x80000000, 0xffffffff, 0},
    {"smod32 reg by zero keeps low half", A32(BPF_MOD, BPF_X), 1, 0, 0xfffffffffffffffbull, 0, 0xfffffffb},
};

#define J64(op, src) (BPF_JMP | (op) | (src))
#define J32(op, src) (BPF_JMP32 | (op) | (src))

static const struct jmp_case base64_jmp[] = {
    {"jeq imm sign-extends", J64(BPF_JEQ, BPF_K), -1, M1, 0, true},
    {"jeq imm is 64-bit", J64(BPF_JEQ, BPF_K), -1, 0xffffffff, 0, false},
    {"jeq reg", J64(BPF_JEQ, BPF_X), 0, 5, 5, true},
    {"jgt imm unsigned", J64(BPF_JGT, BPF_K), 0, M1, 0, true},
    {"jgt imm -1 is max", J64(BPF_JGT, BPF_K), -1, 1, 0, false},
    {"jgt reg", J64(BPF_JGT, BPF_X), 0, 2, 1, true},
    {"jge imm equal", J64(BPF_JGE, BPF_K), 5, 5, 0, true},
    {"jge reg", J64(BPF_JGE, BPF_X), 0, 4, 5, false},
    {"jset imm", J64(BPF_JSET, BPF_K), 0x10, 0x10, 0, true},
    {"jset imm disjoint", J64(BPF_JSET, BPF_K), 0x01, 0x10, 0, false},
    {"jset reg upper bits", J64(BPF_JSET, BPF_X), 0, 0x100000000ull, 0x100000000ull, true},
    {"jne imm", J64(BPF_JNE, BPF_K), 1, 1, 0, false},
    {"jne reg", J64(BPF_JNE, BPF_X), 0, 1, 2, true},
    {"jsgt imm", J64(BPF_JSGT, BPF_K), -2, M1, 0, true},
    {"jsgt INT64_MIN", J64(BPF_JSGT, BPF_K), 0, NEG64, 0, false},
    {"jsgt reg", J64(BPF_JSGT, BPF_X), 0, 1, M1, true},
    {"jsge imm", J64(BPF_JSGE, BPF_K), -2, (uint64_t)-2, 0, true},
    {"jsge reg", J64(BPF_JSGE, BPF_X), 0, (uint64_t)-3, (uint64_t)-2, false},
    {"jlt imm -1", J64(BPF_JLT, BPF_K), -1, 0, 0, true},
    {"jlt reg equal", J64(BPF_JLT, BPF_X), 0, 5, 5, false},
    {"jle imm", J64(BPF_JLE, BPF_K), 5, 5, 0, true},
    {"jle reg", J64(BPF_JLE, BPF_X), 0, M1, 0, false},
    {"jslt imm", J64(BPF_JSLT, BPF_K), 0, M1, 0, true},
    {"jslt reg", J64(BPF_JSLT, BPF_X), 0, 0, M1, false},
    {"jsle imm", J64(BPF_JSLE, BPF_K), -1, M1, 0, true},
    {"jsle reg", J64(BPF_JSLE, BPF_X), 0, 1, 0, false},
};

static const struct jmp_case base32_jmp[] = {
    {"jeq32 imm low half", J32(BPF_JEQ, BPF_K), 5, 0x100000005ull, 0, true},
    {"jeq32 reg low half", J32(BPF_JEQ, BPF_X), 0, 0xffffffff00000000ull, 0, true},
    {"jgt32 imm", J32(BPF_JGT, BPF_K), 0, 0x100000000ull, 0, false},
    {"jgt32 reg", J32(BPF_JGT, BPF_X), 0, 0xffffffff, 0x100000000ull, true},
    {"jge32 imm", J32(BPF_JGE, BPF_K), 1, 0x200000000ull, 0, false},
    {"jge32 reg", J32(BPF_JGE, BPF_X), 0, 3, 3, true},
    {"jset32 imm", J32(BPF_JSET, BPF_K), -1, 0x100000000ull, 0, false},
    {"jset32 reg", J32(BPF_JSET, BPF_X), 0, 0x100000001ull, 1, true},
    {"jne32 imm", J32(BPF_JNE, BPF_K), 5, 0x100000005ull, 0, false},
    {"jne32 reg", J32(BPF_JNE, BPF_X), 0, 1, 0x100000001ull, false},
    {"jsgt32 imm", J32(BPF_JSGT, BPF_K), -1, 0x7fffffff, 0, true},
    {"jsgt32 reg", J32(BPF_JSGT, BPF_X), 0, 0x80000000, 0, false},
    {"jsge32 imm", J32(BPF_JSGE, BPF_K), -1, 0xffffffff, 0, true},
    {"jsge32 reg", J32(BPF_JSGE, BPF_X), 0, 0x80000000, 0x7fffffff, false},
    {"jlt32 imm", J32(BPF_JLT, BPF_K), 1, 0x100000000ull, 0, true},
    {"jlt32 reg", J32(BPF_JLT, BPF_X), 0, 2, 1, false},
    {"jle32 imm", J32(BPF_JLE, BPF_K), -1, 0xffffffff, 0, true},
    {"jle32 reg", J32(BPF_JLE, BPF_X), 0, 0x100000002ull, 1, false},
    {"jslt32 imm", J32(BPF_JSLT, BPF_K), 0, 0x80000000, 0, true},
    {"jslt32 reg", J32(BPF_JSLT, BPF_X), 0, 0, 0x80000000, false},
    {"jsle32 imm", J32(BPF_JSLE, BPF_K), -1, 0xffffffff, 0, true},
    {"jsle32 reg", J32(BPF_JSLE, BPF_X), 0, 0x7fffffff, 0x80000000, false},
};

#define STX_(sz) (BPF_STX | BPF_MEM | (sz))
#define ST_(sz) (BPF_ST | BPF_MEM | (sz))
#define LDX_(sz) (BPF_LDX | BPF_MEM | (sz))
#define LDSX_(sz) (BPF_LDX | BPF_MEMSX | (sz))

static const struct mem_case base_mem[] = {
    {"stx64 ldx64", STX_(BPF_DW), LDX_(BPF_DW), 0x8877665544332211ull, 0x8877665544332211ull},
    {"stx64 ldx32 low half", STX_(BPF_DW), LDX_(BPF_W), 0x8877665544332211ull, 0x44332211},
    {"stx64 ldx16", STX_(BPF_DW), LDX_(BPF_H), 0x8877665544332211ull, 0x2211},
    {"stx64 ldx8", STX_(BPF_DW), LDX_(BPF_B), 0x8877665544332211ull, 0x11},
    {"stx32 truncates", STX_(BPF_W), LDX_(BPF_DW), 0xffffffff80000001ull, 0x80000001},
    {"stx16 truncates", STX_(BPF_H), LDX_(BPF_DW), 0x18001, 0x8001},
    {"stx8 truncates", STX_(BPF_B), LDX_(BPF_DW), 0x1ff, 0xff},
    {"st64 imm sign-extends", ST_(BPF_DW), LDX_(BPF_DW), (uint64_t)-1, M1},
    {"st32 imm", ST_(BPF_W), LDX_(BPF_DW), (uint64_t)-1, 0xffffffff},
    {"st16 imm truncates", ST_(BPF_H), LDX_(BPF_DW), 0x12345, 0x2345},
    {"st8 imm truncates", ST_(BPF_B), LDX_(BPF_DW), 0x180, 0x80},
    {"ldsx8", STX_(BPF_DW), LDSX_(BPF_B), 0x80, 0xffffffffffffff80ull},
    {"ldsx8 positive", STX_(BPF_DW), LDSX_(BPF_B), 0x7f, 0x7f},
    {"ldsx16", STX_(BPF_DW), LDSX_(BPF_H), 0x8000, 0xffffffffffff8000ull},
    {"ldsx32", STX_(BPF_DW), LDSX_(BPF_W), 0x80000000, 0xffffffff80000000ull},
};

#define AT_W (BPF_STX | BPF_ATOMIC | BPF_W)
#define AT_DW (BPF_STX | BPF_ATOMIC | BPF_DW)
#define R0_INIT 0xaaull

static const struct atomic_case atomic64[] = {
    {"add", AT_DW, BPF_ADD, 5, 3, R0_INIT, 8, 3, R0_INIT},
    {"fetch_add", AT_DW, BPF_ADD | BPF_FETCH, 5, 3, R0_INIT, 8, 5, R0_INIT},
    {"add wraps", AT_DW, BPF_ADD, M1, 2, R0_INIT, 1, 2, R0_INIT},
    {"or", AT_DW, BPF_OR, 0xf0, 0x0f, R0_INIT, 0xff, 0x0f, R0_INIT},
    {"fetch_or", AT_DW, BPF_OR | BPF_FETCH, 0xf0, 0x0f, R0_INIT, 0xff, 0xf0, R0_INIT},
    {"and", AT_DW, BPF_AND, 0xff, 0x0f, R0_INIT, 0x0f, 0x0f, R0_INIT},
    {"fetch_and", AT_DW, BPF_AND | BPF_FETCH, 0xff, 0x0f, R0_INIT, 0x0f, 0xff, R0_INIT},
    {"xor", AT_DW, BPF_XOR, 0xff, 0x0f, R0_INIT, 0xf0, 0x0f, R0_INIT},
    {"fetch_xor", AT_DW, BPF_XOR | BPF_FETCH, 0xff, 0x0f, R0_INIT, 0xf0, 0xff, R0_INIT},
    {"xchg", AT_DW, BPF_XCHG, 1, 2, R0_INIT, 2, 1, R0_INIT},
    {"cmpxchg equal swaps", AT_DW, BPF_CMPXCHG, 7, 9, 7, 9, 9, 7},
    {"cmpxchg different keeps", AT_DW, BPF_CMPXCHG, 7, 9, 8, 7, 9, 7},
};

static const struct atomic_case atomic32[] = {
    {"add32 low word only", AT_W, BPF_ADD, 0x11111111ffffffffull, 1, R0_INIT, 0x1111111100000000ull, 1, R0_INIT},
    {"fetch_add32 zero-extends", AT_W, BPF_ADD | BPF_FETCH, 0x11111111ffffffffull, 1, R0_INIT,
     0x1111111100000000ull, 0xffffffff, R0_INIT},
    {"or32", AT_W, BPF_OR, 0x22222222000000f0ull, 0xff0000000full, R0_INIT, 0x22222222000000ffull, 0xff0000000full,
     R0_INIT},
    {"fetch_or32", AT_W, BPF_OR | BPF_FETCH, 0xf0, 0x0f, R0_INIT, 0xff, 0xf0, R0_INIT},
    {"and32", AT_W, BPF_AND, 0x33333333000000ffull, 0x0f, R0_INIT, 0x333333330000000full, 0x0f, R0_INIT},
    {"fetch_and32", AT_W, BPF_AND | BPF_FETCH, 0xff, 0x0f, R0_INIT, 0x0f, 0xff, R0_INIT},
    {"xor32", AT_W, BPF_XOR, 0xff, 0x0f, R0_INIT, 0xf0, 0x0f, R0_INIT},
    {"fetch_xor32", AT_W, BPF_XOR | BPF_FETCH, 0xff, 0x0f, R0_INIT, 0xf0, 0xff, R0_INIT},
    {"xchg32", AT_W, BPF_XCHG, 0x3333333300000001ull, 0xffffffff00000002ull, R0_INIT, 0x3333333300000002ull, 1,
     R0_INIT},
    {"cmpxchg32 compares low words", AT_W, BPF_CMPXCHG, 0x2222222200000007ull, 9, 0xffffffff00000007ull,
     0x2222222200000009ull, 9, 7},
    {"cmpxchg32 different keeps", AT_W, BPF_CMPXCHG, 0x2222222200000007ull, 9, 8, 0x2222222200000007ull, 9, 7},
};

/* Brace initialisers (static tables cannot hold compound literals): {code, dst, src, off, imm}. */
#define B(c, d, s, o, i) {(uint8_t)(c), d, s, (int16_t)(o), (int32_t)(i)}
#define B_MOV(d, v) B(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, v)
#define B_MOVR(d, s) B(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define B_EXIT() B(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
#define B_CALL(rel) B(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, rel)
#define PROGROW(name, expect, ...) {name, {__VA_ARGS__}, sizeof((struct bpf_insn[]){__VA_ARGS__}) / sizeof(struct bpf_insn), expect}

static const struct prog_row control[] = {
    PROGROW("ld_imm64", 0x123456789abcdef0ull, B(BPF_LD | BPF_IMM | BPF_DW, 0, 0, 0, 0x9abcdef0), B(0, 0, 0, 0, 0x12345678),
            B_EXIT()),
    /* no unreachable instruction (the kernel refuses those): the JA is reached by the fallthrough */
    PROGROW("ja forward", 2, B_MOV(0, 2), B(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1, 1), B(BPF_JMP | BPF_JA, 0, 0, 1, 0),
            B_MOV(0, 5), B_EXIT()),
    PROGROW("ja backward (bounded loop)", 10, B_MOV(0, 0), B_MOV(1, 10), B(BPF_ALU64 | BPF_ADD | BPF_K, 0, 0, 0, 1),
            B(BPF_ALU64 | BPF_SUB | BPF_K, 1, 0, 0, 1), B(BPF_JMP | BPF_JNE | BPF_K, 1, 0, -3, 0), B_EXIT()),
    PROGROW("gotol", 2, B_MOV(0, 2), B(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1, 1), B(BPF_JMP32 | BPF_JA, 0, 0, 0, 1),
            B_MOV(0, 5), B_EXIT()),
    PROGROW("call passes r1..r5, returns r0", 15, B_MOV(1, 1), B_MOV(2, 2), B_MOV(3, 3), B_MOV(4, 4), B_MOV(5, 5),
            B_CALL(1), B_EXIT(), B_MOVR(0, 1), B(BPF_ALU64 | BPF_ADD | BPF_X, 0, 2, 0, 0),
            B(BPF_ALU64 | BPF_ADD | BPF_X, 0, 3, 0, 0), B(BPF_ALU64 | BPF_ADD | BPF_X, 0, 4, 0, 0),
            B(BPF_ALU64 | BPF_ADD | BPF_X, 0, 5, 0, 0), B_EXIT()),
    PROGROW("r6-r9 are callee-saved", 30, B_MOV(6, 7), B_MOV(9, 20), B_CALL(3), B(BPF_ALU64 | BPF_ADD | BPF_X, 0, 6, 0, 0),
            B(BPF_ALU64 | BPF_ADD | BPF_X, 0, 9, 0, 0), B_EXIT(), B_MOV(6, 100), B_MOV(9, 200), B_MOV(0, 3), B_EXIT()),
    PROGROW("callee has its own stack", 5, B(BPF_ST | BPF_MEM | BPF_DW, 10, 0, -8, 5), B_CALL(2),
            B(BPF_LDX | BPF_MEM | BPF_DW, 0, 10, -8, 0), B_EXIT(), B(BPF_ST | BPF_MEM | BPF_DW, 10, 0, -8, 9), B_MOV(0, 0),
            B_EXIT()),
    PROGROW("callee writes the caller's stack", 9, B(BPF_ST | BPF_MEM | BPF_DW, 10, 0, -8, 5), B_MOVR(1, 10),
            B(BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, -8), B_CALL(2), B(BPF_LDX | BPF_MEM | BPF_DW, 0, 10, -8, 0), B_EXIT(),
            B(BPF_ST | BPF_MEM | BPF_DW, 1, 0, 0, 9), B_MOV(0, 0), B_EXIT()),
    PROGROW("nested calls", 6, B_MOV(1, 1), B_CALL(1), B_EXIT(), B(BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, 2), B_CALL(1),
            B_EXIT(), B(BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, 3), B_MOVR(0, 1), B_EXIT()),
    /* bpf_loop(4, cb, &acc, 0) where cb adds 10 to *ctx: acc 40 plus the 4 iterations returned (the
     * kernel wants BTF for a callback: the differential test leaves this one out) */
    PROGROW("bpf_loop callback", 44, B(BPF_ST | BPF_MEM | BPF_DW, 10, 0, -8, 0), B_MOV(1, 4),
            B(BPF_LD | BPF_IMM | BPF_DW, 2, BPF_PSEUDO_FUNC, 0, 8), B(0, 0, 0, 0, 0), B_MOVR(3, 10),
            B(BPF_ALU64 | BPF_ADD | BPF_K, 3, 0, 0, -8), B_MOV(4, 0), B(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_loop),
            B(BPF_LDX | BPF_MEM | BPF_DW, 1, 10, -8, 0), B(BPF_ALU64 | BPF_ADD | BPF_X, 0, 1, 0, 0), B_EXIT(),
            B(BPF_LDX | BPF_MEM | BPF_DW, 3, 2, 0, 0), B(BPF_ALU64 | BPF_ADD | BPF_K, 3, 0, 0, 10),
            B(BPF_STX | BPF_MEM | BPF_DW, 2, 3, 0, 0), B_MOV(0, 0), B_EXIT()),
};

#define GROUP(g, k, t) {g, k, t, sizeof(t) / sizeof((t)[0])}
const struct case_group isa_groups[] = {
    GROUP("base64", G_ALU, base64_alu),
    GROUP("base32", G_ALU, base32_alu),
    GROUP("divmul64", G_ALU, divmul64),
    GROUP("divmul32", G_ALU, divmul32),
    GROUP("base64", G_JMP, base64_jmp),
    GROUP("base32", G_JMP, base32_jmp),
    GROUP("base32", G_MEM, base_mem),
    GROUP("atomic64", G_ATOMIC, atomic64),
    GROUP("atomic32", G_ATOMIC, atomic32),
    GROUP("base64", G_PROG, control),
};
const uint32_t isa_ngroups = sizeof isa_groups / sizeof isa_groups[0];

static uint32_t emit(struct bpf_insn *out, const struct bpf_insn *p, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        out[i] = p[i];
    return n;
}

uint32_t isa_build(const struct case_group *g, uint32_t i, struct bpf_insn *out)
{
    switch (g->kind) {
    case G_ALU: {
        const struct alu_case *c = (const struct alu_case *)g->rows + i;
        bool x = BPF_SRC(c->code) == BPF_X && BPF_OP(c->code) != BPF_END;
        struct bpf_insn op = INSN(c->code, 0, x ? 1 : 0, c->off, x ? 0 : c->imm);
        const struct bpf_insn p[] = {LD64(0, c->a), LD64(1, c->b), op, EXIT()};
        return emit(out, p, NINSN(p));
    }
    case G_JMP: {
        const struct jmp_case *c = (const struct jmp_case *)g->rows + i;
        bool x = BPF_SRC(c->code) == BPF_X;
        const struct bpf_insn p[] = {
            LD64(0, c->a), LD64(1, c->b), INSN(c->code, 0, x ? 1 : 0, 2, x ? 0 : c->imm),
            MOV64_IMM(0, 0), EXIT(), MOV64_IMM(0, 1), EXIT(),
        };
        return emit(out, p, NINSN(p));
    }
    case G_MEM: {
        const struct mem_case *c = (const struct mem_case *)g->rows + i;
        struct bpf_insn st = BPF_CLASS(c->store_code) == BPF_ST ? INSN(c->store_code, 10, 0, -16, (int32_t)c->val)
                                                                : INSN(c->store_code, 10, 1, -16, 0);
        const struct bpf_insn p[] = {
            ST(BPF_DW, 10, -16, 0), LD64(1, c->val), st, INSN(c->load_code, 0, 10, -16, 0), EXIT(),
        };
        return emit(out, p, NINSN(p));
    }
    case G_PROG: {
        const struct prog_row *c = (const struct prog_row *)g->rows + i;
        return emit(out, c->insns, c->n);
    }
    case G_ATOMIC: {
        const struct atomic_case *c = (const struct atomic_case *)g->rows + i;
        const struct bpf_insn p[] = {
            MOV64_REG(6, 1),
            LD64(1, c->mem),
            STX(BPF_DW, 10, 1, -8),
            LD64(0, c->r0),
            LD64(1, c->src),
            INSN(c->code, 10, 1, -8, c->op),
            LDX(BPF_DW, 2, 10, -8),
            STX(BPF_DW, 6, 2, 0),
            STX(BPF_DW, 6, 1, 8),
            STX(BPF_DW, 6, 0, 16),
            MOV64_IMM(0, 0),
            EXIT(),
        };
        return emit(out, p, NINSN(p));
    }
    }
    return 0;
}

const char *isa_row_name(const struct case_group *g, uint32_t i)
{
    switch (g->kind) {
    case G_ALU: return ((const struct alu_case *)g->rows)[i].name;
    case G_JMP: return ((const struct jmp_case *)g->rows)[i].name;
    case G_MEM: return ((const struct mem_case *)g->rows)[i].name;
    case G_PROG: return ((const struct prog_row *)g->rows)[i].name;
    default: return ((const struct atomic_case *)g->rows)[i].name;
    }
}

uint64_t isa_expect_r0(const struct case_group *g, uint32_t i)
{
    switch (g->kind) {
    case G_ALU: return ((const struct alu_case *)g->rows)[i].expect;
    case G_JMP: return ((const struct jmp_case *)g->rows)[i].taken;
    case G_MEM: return ((const struct mem_case *)g->rows)[i].expect;
    case G_PROG: return ((const struct prog_row *)g->rows)[i].expect;
    default: return 0;
    }
}

void isa_expect_ctx(const struct case_group *g, uint32_t i, uint64_t out[3])
{
    out[0] = out[1] = out[2] = 0;
    if (g->kind != G_ATOMIC)
        return;
    const struct atomic_case *c = (const struct atomic_case *)g->rows + i;
    out[0] = c->expect_mem;
    out[1] = c->expect_src;
    out[2] = c->expect_r0;
}
