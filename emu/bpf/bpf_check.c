/*
 * Load-time checks: the instruction encodings RFC 9669 (and ISA v4) define, and a pass that
 * refuses what the kernel's verifier obviously would before a program ever runs. Everything it
 * cannot prove statically (bounds of computed pointers, budget) is checked again at run time.
 */
#include "bpf/bpf_vm_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool atomic_imm_valid(int32_t imm)
{
    switch (imm) {
    case BPF_ADD: case BPF_OR: case BPF_AND: case BPF_XOR:
    case BPF_ADD | BPF_FETCH: case BPF_OR | BPF_FETCH: case BPF_AND | BPF_FETCH: case BPF_XOR | BPF_FETCH:
    case BPF_XCHG: case BPF_CMPXCHG:
        return true;
    default:
        return false;
    }
}

static bool alu_valid(const struct bpf_insn *i, bool is64)
{
    uint8_t op = BPF_OP(i->code);
    bool x = BPF_SRC(i->code) == BPF_X;
    switch (op) {
    case BPF_ADD: case BPF_SUB: case BPF_MUL: case BPF_OR: case BPF_AND: case BPF_LSH: case BPF_RSH:
    case BPF_XOR: case BPF_ARSH:
        return i->off == 0;
    case BPF_DIV: case BPF_MOD:
        return i->off == 0 || i->off == BPF_OFF_SIGNED;
    case BPF_NEG:
        return !x && i->off == 0;
    case BPF_MOV:
        if (!x)
            return i->off == 0;
        return i->off == 0 || i->off == 8 || i->off == 16 || (is64 && i->off == 32);
    case BPF_END:
        if (is64 && x)
            return false;
        return i->off == 0 && (i->imm == 16 || i->imm == 32 || i->imm == 64);
    default:
        return false;
    }
}

bool bpf_insn_valid(const struct bpf_insn *i)
{
    uint8_t code = i->code;
    switch (BPF_CLASS(code)) {
    case BPF_LD:
        return code == (BPF_LD | BPF_IMM | BPF_DW) && i->src_reg <= BPF_PSEUDO_MAP_IDX_VALUE && i->off == 0;
    case BPF_LDX:
        return (BPF_MODE(code) == BPF_MEM) || (BPF_MODE(code) == BPF_MEMSX && BPF_SIZE(code) != BPF_DW);
    case BPF_ST:
        return BPF_MODE(code) == BPF_MEM;
    case BPF_STX:
        if (BPF_MODE(code) == BPF_MEM)
            return true;
        return BPF_MODE(code) == BPF_ATOMIC && (BPF_SIZE(code) == BPF_W || BPF_SIZE(code) == BPF_DW) &&
               atomic_imm_valid(i->imm);
    case BPF_ALU:
        return alu_valid(i, false);
    case BPF_ALU64:
        return alu_valid(i, true);
    case BPF_JMP:
    case BPF_JMP32: {
        bool j32 = BPF_CLASS(code) == BPF_JMP32, x = BPF_SRC(code) == BPF_X;
        switch (BPF_OP(code)) {
        case BPF_JA: return !x && (j32 ? i->off == 0 : i->imm == 0);
        case BPF_CALL: return !j32 && !x && i->src_reg <= BPF_PSEUDO_KFUNC_CALL && i->off == 0;
        case BPF_EXIT: return !j32 && !x;
        case BPF_JEQ: case BPF_JGT: case BPF_JGE: case BPF_JSET: case BPF_JNE: case BPF_JSGT: case BPF_JSGE:
        case BPF_JLT: case BPF_JLE: case BPF_JSLT: case BPF_JSLE:
            return true;
        default:
            return false;
        }
    }
    default:
        return false;
    }
}

struct checker {
    const struct bpf_vm_env *env;
    const struct bpf_prog *prog;
    struct bpf_fault *why;
    uint8_t *wide2;                   /* second half of an LD_IMM64 */
    uint8_t *entry;                   /* start of a subprogram */
};

static int refuse(struct checker *c, uint32_t pc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int refuse(struct checker *c, uint32_t pc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vm_refuse(c->prog, c->why, pc, fmt, ap);
    va_end(ap);
    return -1;
}

static bool writes_dst(uint8_t cls)
{
    return cls == BPF_ALU || cls == BPF_ALU64 || cls == BPF_LDX || cls == BPF_LD;
}

static int target_ok(struct checker *c, uint32_t pc, int64_t target, const char *what)
{
    if (target < 0 || target >= c->prog->n)
        return refuse(c, pc, "%s target %lld outside the program (%u instructions)", what, (long long)target,
                      c->prog->n);
    if (c->wide2[target])
        return refuse(c, pc, "%s into the middle of an LD_IMM64", what);
    return 0;
}

static bool is_jump(uint8_t code)
{
    uint8_t cls = BPF_CLASS(code), op = BPF_OP(code);
    return (cls == BPF_JMP || cls == BPF_JMP32) && op != BPF_CALL && op != BPF_EXIT;
}

static int64_t jump_target(const struct bpf_insn *i, uint32_t pc)
{
    if (i->code == (BPF_JMP32 | BPF_JA))
        return (int64_t)pc + i->imm + 1;
    return (int64_t)pc + i->off + 1;
}

int vm_insn_successors(const struct bpf_prog *p, uint32_t pc, uint32_t succ[2])
{
    const struct bpf_insn *i = &p->insns[pc];
    uint32_t next = pc + (BPF_CLASS(i->code) == BPF_LD ? 2 : 1);
    int n = 0;
    if (i->code == (BPF_JMP | BPF_EXIT))
        return 0;
    if (is_jump(i->code)) {
        int64_t t = jump_target(i, pc);
        if (t >= 0 && t < p->n)
            succ[n++] = (uint32_t)t;
        if (BPF_OP(i->code) == BPF_JA)
            return n;
    }
    if (next < p->n)
        succ[n++] = next;
    return n;
}

static int check_ld_imm64(struct checker *c, uint32_t pc, const struct bpf_insn *i)
{
    const struct bpf_prog *p = c->prog;
    if (pc + 1 >= p->n)
        return refuse(c, pc, "LD_IMM64 without its second half");
    const struct bpf_insn *h = &i[1];
    if (h->code || h->dst_reg || h->src_reg || h->off)
        return refuse(c, pc, "second half of LD_IMM64 has reserved fields set");
    uint64_t v = bpf_insn_imm64(i);
    switch (i->src_reg) {
    case 0: return 0;
    case BPF_PSEUDO_MAP_FD:
        for (uint32_t m = 0; m < p->n_maps; m++)
            if ((uint64_t)(uintptr_t)p->maps[m] == v)
                return 0;
        return refuse(c, pc, "LD_IMM64 map pointer is not one of the program's maps");
    case BPF_PSEUDO_MAP_VALUE:
        for (uint32_t m = 0; m < p->n_maps; m++) {
            uintptr_t b;
            uint32_t s;
            if (bpf_map_value_containing(p->maps[m], (uintptr_t)v, &b, &s))
                return 0;
        }
        return refuse(c, pc, "LD_IMM64 map value address is not inside a value of the program's maps");
    case BPF_PSEUDO_FUNC: {
        int64_t t = (int64_t)pc + i->imm + 1;
        if (target_ok(c, pc, t, "function reference"))
            return -1;
        c->entry[t] = 1;
        return 0;
    }
    default:
        return refuse(c, pc, "LD_IMM64 form src=%u is not relocated (the loader must resolve it)", i->src_reg);
    }
}

static int check_call(struct checker *c, uint32_t pc, const struct bpf_insn *i)
{
    const struct bpf_vm_env *env = c->env;
    if (i->src_reg == BPF_PSEUDO_CALL) {
        int64_t t = (int64_t)pc + i->imm + 1;
        if (target_ok(c, pc, t, "call"))
            return -1;
        c->entry[t] = 1;
        return 0;
    }
    if (i->src_reg == BPF_PSEUDO_KFUNC_CALL) {
        if (i->imm < 0 || (uint32_t)i->imm >= env->n_kfuncs || !env->kfuncs[i->imm].fn)
            return refuse(c, pc, "kfunc index %d outside the kfunc table (%u)", i->imm, env->n_kfuncs);
        const struct bpf_kfunc *k = &env->kfuncs[i->imm];
        if (k->sleepable && !c->prog->sleepable)
            return refuse(c, pc, "program %s is not sleepable but calls sleepable kfunc %s",
                          c->prog->name ? c->prog->name : "?", k->name);
        return 0;
    }
    int need = vm_helper_need(i->imm);
    const char *name = bpf_helper_name(i->imm);
    if (need < 0)
        return refuse(c, pc, name ? "helper %d (%s) is not supported" : "unknown helper %d%s", i->imm,
                      name ? name : "");
    if (!vm_env_serves(env, need))
        return refuse(c, pc, "helper %s needs what this environment does not provide", name);
    return 0;
}

static int check_insn(struct checker *c, uint32_t pc)
{
    const struct bpf_insn *i = &c->prog->insns[pc];
    uint8_t cls = BPF_CLASS(i->code);
    if (!bpf_insn_valid(i))
        return refuse(c, pc, "invalid instruction 0x%02x (src %u off %d imm %d)", i->code, i->src_reg, i->off, i->imm);
    if (i->dst_reg > 10 || (i->src_reg > 10))
        return refuse(c, pc, "register r%u/r%u does not exist", i->dst_reg, i->src_reg);
    if (i->dst_reg == BPF_REG_FP && writes_dst(cls))
        return refuse(c, pc, "frame pointer r10 is read only");
    if (cls == BPF_ALU || cls == BPF_ALU64) {
        uint8_t op = BPF_OP(i->code);
        bool k = BPF_SRC(i->code) == BPF_K;
        if (op != BPF_END && ((k && i->src_reg) || (!k && i->imm)))
            return refuse(c, pc, "reserved field set in ALU instruction");
        if (k && (op == BPF_DIV || op == BPF_MOD) && i->imm == 0)
            return refuse(c, pc, "division by zero");
        if (k && (op == BPF_LSH || op == BPF_RSH || op == BPF_ARSH) &&
            (i->imm < 0 || i->imm >= (cls == BPF_ALU64 ? 64 : 32)))
            return refuse(c, pc, "invalid shift %d", i->imm);
    }
    if (cls == BPF_LD)
        return check_ld_imm64(c, pc, i);
    if (is_jump(i->code))
        return target_ok(c, pc, jump_target(i, pc), "jump");
    if (i->code == (BPF_JMP | BPF_CALL))
        return check_call(c, pc, i);
    return 0;
}

/* Must-analysis: the registers that surely hold the ctx pointer (plus a constant) at each
 * instruction. A store through one of them is what the kernel refuses as a ctx write. */
static int check_ctx_stores(struct checker *c)
{
    const struct bpf_prog *p = c->prog;
    uint16_t *in = malloc(p->n * sizeof *in);
    uint8_t *seen = calloc(p->n, 1);
    if (!in || !seen) {
        free(in);
        free(seen);
        return refuse(c, 0, "out of memory");
    }
    for (uint32_t pc = 0; pc < p->n; pc++)
        in[pc] = 0x7ff;
    in[0] = 1u << 1;
    seen[0] = 1;
    for (uint32_t pc = 1; pc < p->n; pc++)
        if (c->entry[pc]) {
            in[pc] = 0;
            seen[pc] = 1;
        }
    int rc = 0;
    for (bool changed = true; changed && !rc;) {
        changed = false;
        for (uint32_t pc = 0; pc < p->n && !rc; pc++) {
            if (!seen[pc] || c->wide2[pc])
                continue;
            const struct bpf_insn *i = &p->insns[pc];
            uint8_t cls = BPF_CLASS(i->code), op = BPF_OP(i->code);
            uint16_t m = in[pc];
            if ((cls == BPF_ST || cls == BPF_STX) && (m & (1u << i->dst_reg))) {
                rc = refuse(c, pc, "store into the read-only ctx (through r%u)", i->dst_reg);
                break;
            }
            if (cls == BPF_ALU64 && op == BPF_MOV && BPF_SRC(i->code) == BPF_X && i->off == 0)
                m = (uint16_t)((m & ~(1u << i->dst_reg)) | (((m >> i->src_reg) & 1u) << i->dst_reg));
            else if (cls == BPF_ALU64 && (op == BPF_ADD || op == BPF_SUB) && BPF_SRC(i->code) == BPF_K)
                ;
            else if (writes_dst(cls))
                m &= (uint16_t)~(1u << i->dst_reg);
            else if (cls == BPF_STX && BPF_MODE(i->code) == BPF_ATOMIC)
                m &= (uint16_t)~((i->imm & BPF_FETCH ? 1u << i->src_reg : 0) | (i->imm == BPF_CMPXCHG ? 1u : 0));
            else if (i->code == (BPF_JMP | BPF_CALL))
                m &= (uint16_t)~0x3fu;
            uint32_t succ[2];
            int ns = vm_insn_successors(p, pc, succ);
            for (int s = 0; s < ns; s++) {
                uint16_t nm = seen[succ[s]] ? (uint16_t)(in[succ[s]] & m) : m;
                if (!seen[succ[s]] || nm != in[succ[s]]) {
                    in[succ[s]] = nm;
                    seen[succ[s]] = 1;
                    changed = true;
                }
            }
        }
    }
    free(in);
    free(seen);
    return rc;
}

/* Every instruction must be reachable from the entry or a subprogram entry (the kernel's check_cfg
 * refuses dead code; clang never emits it). */
static int check_reachable(struct checker *c)
{
    const struct bpf_prog *p = c->prog;
    uint32_t *stack = malloc(p->n * sizeof *stack);
    uint8_t *seen = calloc(p->n, 1);
    int rc = 0;
    if (!stack || !seen) {
        rc = refuse(c, 0, "out of memory");
        goto out;
    }
    uint32_t top = 0;
    for (uint32_t pc = 0; pc < p->n; pc++)
        if (pc == 0 || c->entry[pc]) {
            seen[pc] = 1;
            stack[top++] = pc;
        }
    while (top) {
        uint32_t pc = stack[--top];
        uint32_t succ[2];
        int ns = vm_insn_successors(p, pc, succ);
        for (int s = 0; s < ns; s++)
            if (!seen[succ[s]]) {
                seen[succ[s]] = 1;
                stack[top++] = succ[s];
            }
    }
    for (uint32_t pc = 0; pc < p->n && !rc; pc++)
        if (!seen[pc] && !c->wide2[pc])
            rc = refuse(c, pc, "unreachable instruction");
out:
    free(stack);
    free(seen);
    return rc;
}

/* A register's relation to the ctx: none, ctx + a known offset, or ctx at an offset that differs by path. */
enum { C_UNSEEN = 0, C_NONE, C_CTX, C_VAR };
struct creg {
    uint8_t k;
    int32_t off;
};

static struct creg creg_join(struct creg a, struct creg b)
{
    if (a.k == C_UNSEEN)
        return b;
    if (b.k == C_UNSEEN || (a.k == b.k && (a.k != C_CTX || a.off == b.off)))
        return a;
    return a.k == C_NONE && b.k == C_NONE ? a : (struct creg){C_VAR, 0};
}

static const uint32_t size_bytes[4] = {4, 2, 1, 8};

int bpf_vm_ctx_reach(const struct bpf_prog *p, uint32_t *reach, uint32_t *insn)
{
    *reach = 0;
    *insn = 0;
    if (!p->n)
        return 0;
    struct creg(*st)[BPF_NREGS] = calloc(p->n, sizeof *st);
    uint32_t *work = malloc((size_t)p->n * (2 * BPF_NREGS + 2) * sizeof *work);
    if (!st || !work) {
        free(st);
        free(work);
        return -1;
    }
    uint32_t nw = 0;
    for (int r = 0; r < BPF_NREGS; r++)
        st[0][r] = (struct creg){C_NONE, 0};
    st[0][1] = (struct creg){C_CTX, 0};
    work[nw++] = 0;
    while (nw) {
        uint32_t pc = work[--nw];
        const struct bpf_insn *i = &p->insns[pc];
        struct creg r[BPF_NREGS];
        memcpy(r, st[pc], sizeof r);
        uint8_t cls = BPF_CLASS(i->code), op = BPF_OP(i->code), dst = i->dst_reg, src = i->src_reg;
        if (dst >= BPF_NREGS || src >= BPF_NREGS)
            continue;
        if (cls == BPF_LDX && r[src].k == C_CTX && BPF_MODE(i->code) != BPF_ATOMIC) {
            int64_t end = (int64_t)r[src].off + i->off + size_bytes[BPF_SIZE(i->code) >> 3];
            if (end > (int64_t)*reach) {
                *reach = end > UINT32_MAX ? UINT32_MAX : (uint32_t)end;
                *insn = pc;
            }
        }
        if (cls == BPF_ALU64 && op == BPF_MOV && BPF_SRC(i->code) == BPF_X && i->off == 0)
            r[dst] = r[src];
        else if (cls == BPF_ALU64 && (op == BPF_ADD || op == BPF_SUB) && BPF_SRC(i->code) == BPF_K &&
                 r[dst].k == C_CTX)
            r[dst].off += op == BPF_ADD ? i->imm : -i->imm;
        else if (writes_dst(cls))
            r[dst] = (struct creg){C_NONE, 0};
        else if (cls == BPF_STX && BPF_MODE(i->code) == BPF_ATOMIC && (i->imm & BPF_FETCH))
            r[i->imm == BPF_CMPXCHG ? 0 : src] = (struct creg){C_NONE, 0};
        else if (i->code == (BPF_JMP | BPF_CALL))
            for (int a = 0; a <= 5; a++)
                r[a] = (struct creg){C_NONE, 0};
        uint32_t succ[2];
        int ns = vm_insn_successors(p, pc, succ);
        for (int s = 0; s < ns; s++) {
            bool changed = false;
            for (int k = 0; k < BPF_NREGS; k++) {
                struct creg j = creg_join(st[succ[s]][k], r[k]);
                changed |= j.k != st[succ[s]][k].k || j.off != st[succ[s]][k].off;
                st[succ[s]][k] = j;
            }
            if (changed)
                work[nw++] = succ[s];
        }
    }
    free(st);
    free(work);
    return 0;
}

int bpf_vm_check(const struct bpf_vm_env *env, const struct bpf_prog *prog, bool ctx_readonly,
                 struct bpf_fault *why)
{
    struct checker c = {.env = env, .prog = prog, .why = why};
    if (why)
        memset(why, 0, sizeof *why);
    if (!prog->insns || prog->n == 0)
        return refuse(&c, 0, "empty program");
    if (prog->n > BPF_VM_MAX_INSNS)
        return refuse(&c, 0, "program of %u instructions exceeds %u", prog->n, BPF_VM_MAX_INSNS);
    c.wide2 = calloc(prog->n, 1);
    c.entry = calloc(prog->n, 1);
    int rc = 0;
    if (!c.wide2 || !c.entry)
        rc = refuse(&c, 0, "out of memory");
    for (uint32_t pc = 0; pc < prog->n && !rc; pc++)
        if (bpf_insn_is_wide(&prog->insns[pc]) && pc + 1 < prog->n)
            c.wide2[++pc] = 1;
    for (uint32_t pc = 0; pc < prog->n && !rc; pc++) {
        if (c.wide2[pc])
            continue;
        rc = check_insn(&c, pc);
    }
    if (!rc) {
        uint32_t last = prog->n - 1;
        if (c.wide2[last] || (prog->insns[last].code != (BPF_JMP | BPF_EXIT) &&
                              prog->insns[last].code != (BPF_JMP | BPF_JA) &&
                              prog->insns[last].code != (BPF_JMP32 | BPF_JA)))
            rc = refuse(&c, last, "last instruction is not an exit or a jump");
    }
    if (!rc)
        rc = check_reachable(&c);
    if (!rc && ctx_readonly)
        rc = check_ctx_stores(&c);
    free(c.wide2);
    free(c.entry);
    return rc;
}
