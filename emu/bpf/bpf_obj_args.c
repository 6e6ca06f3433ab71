/*
 * The struct_ops args pass over a linked program (bpf_obj_internal.h).
 * The struct_ops calling convention: the kernel runs a struct_ops program with
 * r1 = u64 args[] (BPF_PROG's ctx), args[0] being the ctx struct pointer.
 * nvemu runs it with r1 = the ctx struct itself, so every load of args[0]
 * becomes a copy of the register holding args: the interpreter then sees the
 * ctx pointer as a copy of r1 and checks every access against the ctx's
 * exact size and read-only rule. A forward pass over the entry function
 * tracks which registers hold args; any other use of args (another slot, a
 * spill, arithmetic, an argument to a call, a store) is refused, since the
 * kernel's verifier would refuse or this rewrite could not keep its meaning.
 */
#include "bpf/bpf_obj_internal.h"

#include <stdlib.h>
#include <string.h>

enum { A_OTHER = 0, A_ARGS = 1, A_MIXED = 2 };

struct args_pass {
    struct linker *L;
    uint8_t (*st)[BPF_NREGS];
    uint8_t *seen;                    /* bit 0 visited, bit 1 reached as args load, bit 2 as other load */
    uint32_t *work;
    uint32_t n_work;
    uint32_t end;                     /* entry function's last instruction + 1 */
};

static int args_refuse(struct args_pass *A, uint32_t pc, const char *what)
{
    return bpf_obj_fail(A->L->obj->priv, "program %s insn %u: %s", A->L->prog->name, pc, what);
}

static void args_flow(struct args_pass *A, uint32_t to, const uint8_t *regs)
{
    if (to >= A->end)
        return;
    bool changed = !(A->seen[to] & 1);
    for (int r = 0; r < BPF_NREGS; r++) {
        uint8_t v = (A->seen[to] & 1) ? (A->st[to][r] == regs[r] ? regs[r] : A_MIXED) : regs[r];
        changed |= v != A->st[to][r];
        A->st[to][r] = v;
    }
    A->seen[to] |= 1;
    if (changed)
        A->work[A->n_work++] = to;
}

/*
 * How many of r1..r5 a call reads: the verifier checks a helper's or kfunc's arguments by their
 * declared types only, so a helper without arguments may be called while r1 still holds the args
 * (clang keeps it there when args[0] is loaded first). A subprogram may read all five.
 */
static int call_declared_args(const struct bpf_obj_priv *P, const struct bpf_insn *in)
{
    if (in->src_reg == 0) {
        const struct bpf_helper_proto *h = bpf_helper_proto(in->imm);
        return h ? h->nargs : 5;
    }
    if (in->src_reg == BPF_PSEUDO_KFUNC_CALL && in->imm >= 0 && (uint32_t)in->imm < P->n_kfuncs) {
        int n = 0;
        while (n < 5 && P->kfuncs[in->imm].args[n].kind != BPF_ARG_NONE)
            n++;
        return n;
    }
    return 5;
}

static int args_step(struct args_pass *A, uint32_t pc)
{
    struct bpf_insn *in = &A->L->insns[pc];
    uint8_t r[BPF_NREGS];
    memcpy(r, A->st[pc], sizeof r);
    uint8_t cls = BPF_CLASS(in->code), dst = in->dst_reg & 0xf, src = in->src_reg & 0xf;
    if (dst >= BPF_NREGS || src >= BPF_NREGS)
        return 0; /* bpf_vm_check names the bad register */
    uint8_t sv = r[src], dv = r[dst];
    switch (cls) {
    case BPF_LD:
        if (bpf_insn_is_wide(in)) {
            r[dst] = A_OTHER;
            args_flow(A, pc + 2, r);
        }
        return 0;
    case BPF_LDX:
        if (sv == A_MIXED)
            return args_refuse(A, pc, "reads through a register that holds the struct_ops args on some paths only");
        if (sv == A_ARGS) {
            if (BPF_MODE(in->code) != BPF_MEM || BPF_SIZE(in->code) != BPF_DW || in->off % 8)
                return args_refuse(A, pc, "partial read of the struct_ops args");
            if (in->off != 0)
                return args_refuse(A, pc, "reads args beyond the callback's one argument (the ctx)");
            A->seen[pc] |= 2;
        } else {
            A->seen[pc] |= 4;
        }
        if ((A->seen[pc] & 6) == 6)
            return args_refuse(A, pc, "loads the struct_ops args on some paths only");
        r[dst] = A_OTHER;
        break;
    case BPF_ST:
        if (dv != A_OTHER)
            return args_refuse(A, pc, "writes into the struct_ops args (read-only)");
        break;
    case BPF_STX:
        if (dv != A_OTHER)
            return args_refuse(A, pc, "writes into the struct_ops args (read-only)");
        if (sv != A_OTHER)
            return args_refuse(A, pc, "spills the struct_ops args pointer (not supported: load args[0] first)");
        if (BPF_MODE(in->code) == BPF_ATOMIC && (in->imm & BPF_FETCH))
            r[in->imm == BPF_CMPXCHG ? 0 : src] = A_OTHER;
        break;
    case BPF_ALU:
    case BPF_ALU64: {
        bool x = BPF_SRC(in->code) == BPF_X;
        if (cls == BPF_ALU64 && BPF_OP(in->code) == BPF_MOV && x && in->off == 0) {
            r[dst] = sv;
            break;
        }
        if ((x && sv != A_OTHER) || (dv != A_OTHER && BPF_OP(in->code) != BPF_MOV))
            return args_refuse(A, pc, "arithmetic on the struct_ops args pointer");
        r[dst] = A_OTHER;
        break;
    }
    case BPF_JMP:
    case BPF_JMP32: {
        uint8_t op = BPF_OP(in->code);
        if (op == BPF_EXIT && cls == BPF_JMP)
            return 0;
        if (op == BPF_CALL && cls == BPF_JMP) {
            int declared = call_declared_args(A->L->obj->priv, in);
            for (int a = 1; a <= declared; a++)
                if (r[a] != A_OTHER)
                    return args_refuse(A, pc, "passes the struct_ops args pointer as an argument of a call "
                                              "(pass args[0])");
            for (int a = 0; a <= 5; a++)
                r[a] = A_OTHER;
            break;
        }
        if (op == BPF_JA) {
            int64_t t = (int64_t)pc + 1 + (cls == BPF_JMP32 ? in->imm : in->off);
            if (t >= 0)
                args_flow(A, (uint32_t)t, r);
            return 0;
        }
        int64_t t = (int64_t)pc + 1 + in->off;
        if (t >= 0)
            args_flow(A, (uint32_t)t, r);
        break;
    }
    default:
        break;
    }
    args_flow(A, pc + 1, r);
    return 0;
}

int bpf_obj_args_rewrite(struct linker *L)
{
    struct bpf_obj_priv *P = L->obj->priv;
    struct args_pass A = {.L = L, .end = L->n_funcs ? (uint32_t)((L->funcs[0].end - L->funcs[0].start) / INSN_SZ) : 0};
    if (!A.end)
        return 0;
    A.st = calloc(A.end, sizeof *A.st);
    A.seen = calloc(A.end, 1);
    /* each pc is queued at most once per state change: 3 values x 11 registers bound the changes */
    A.work = calloc((size_t)A.end * (BPF_NREGS * 2 + 1) + 1, sizeof *A.work);
    int rc = 0;
    if (!A.st || !A.seen || !A.work) {
        rc = bpf_obj_fail(P, "out of memory");
        goto out;
    }
    uint8_t entry[BPF_NREGS] = {0};
    entry[1] = A_ARGS;
    args_flow(&A, 0, entry);
    while (A.n_work && !rc)
        rc = args_step(&A, A.work[--A.n_work]);
    for (uint32_t pc = 0; pc < A.end && !rc; pc++) {
        if (A.seen[pc] & 2) {
            struct bpf_insn *in = &L->insns[pc];
            in->code = BPF_ALU64 | BPF_MOV | BPF_X;
            in->off = 0;
            in->imm = 0;
            L->prog->args_loads++;
        }
    }
out:
    free(A.st);
    free(A.seen);
    free(A.work);
    return rc;
}
