/*
 * The kernel verifier's rules for the program types policies use, as a forward dataflow pass over the
 * linked program (bpf_vm_verify in bpf_vm.h). Each register and 8-byte stack slot carries what the
 * verifier would know of it (uninitialised, a scalar with an unsigned range, a pointer to the ctx, the
 * stack, a map, a map value, or a map lookup result not yet checked for NULL). States meet at joins so
 * that a property that fails on any path fails, as the kernel, which walks every path, finds. Stack
 * bytes read before they are written are not refused: the loader of a struct_ops object holds
 * CAP_PERFMON, for which the verifier allows them (allow_uninit_stack; the host kernel's verdict in
 * test_bpf_verifier says so). What this pass cannot follow (a pointer with a varying offset,
 * a ringbuf record) is left to the interpreter, which checks every access as it executes.
 */
#include "bpf/bpf_vm_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STACK_MAX 512
#define NSLOTS (STACK_MAX / 8)
#define LOOP_LIMIT (1u << 20)          /* the verifier's 1M processed-instruction budget */
#define WIDEN_AFTER 8

enum vk { V_UNINIT = 0, V_SCALAR, V_CTX, V_STACK, V_MAP, V_VALUE, V_VALUE_OR_NULL, V_FUNC, V_OTHER };

struct aval {
    uint8_t k;
    uint16_t map;                     /* V_MAP, V_VALUE, V_VALUE_OR_NULL: index into prog->maps */
    int32_t off;                      /* pointers: offset (the stack's from the frame pointer) */
    uint32_t id;                      /* V_VALUE_OR_NULL: lookup instruction + 1, 0 after a join of two */
    uint64_t umin, umax;              /* V_SCALAR */
};

struct vstate {
    struct aval r[BPF_NREGS];
    struct aval slot[NSLOTS];
    uint32_t word[STACK_MAX / 4];     /* constants stored in 4-byte stack words (an ARRAY key) */
    uint64_t word_known[STACK_MAX / 256];
};

struct verifier {
    const struct bpf_vm_env *env;
    const struct bpf_prog *prog;
    bool gpl;
    struct bpf_fault *why;
    struct vstate *in;
    uint8_t *seen;
    uint8_t *visits;
    uint32_t *work;
    uint32_t nwork;
    uint8_t *queued;
    uint8_t *wide2;
    uint32_t *func_of;                /* function index of each instruction */
    uint32_t *entries;                /* first instruction of each function */
    uint32_t n_funcs;
    int32_t *depth;                   /* deepest stack byte each function touches (positive) */
};

static int vrefuse(struct verifier *v, uint32_t pc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int vrefuse(struct verifier *v, uint32_t pc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vm_refuse(v->prog, v->why, pc, fmt, ap);
    va_end(ap);
    return -1;
}

static struct aval scalar(uint64_t lo, uint64_t hi)
{
    return (struct aval){.k = V_SCALAR, .umin = lo, .umax = hi};
}

static struct aval konst(uint64_t c)
{
    return scalar(c, c);
}

static bool is_const(const struct aval *a, uint64_t *c)
{
    if (a->k != V_SCALAR || a->umin != a->umax)
        return false;
    if (c)
        *c = a->umin;
    return true;
}

static bool is_pointer(const struct aval *a)
{
    return a->k == V_CTX || a->k == V_STACK || a->k == V_MAP || a->k == V_VALUE || a->k == V_VALUE_OR_NULL ||
           a->k == V_FUNC;
}

static struct aval join(struct aval a, struct aval b)
{
    if (a.k == V_UNINIT || b.k == V_UNINIT)
        return (struct aval){.k = V_UNINIT};
    uint64_t z;
    if (a.k == V_VALUE_OR_NULL && (b.k == V_VALUE || (is_const(&b, &z) && z == 0)))
        return a;
    if (b.k == V_VALUE_OR_NULL && (a.k == V_VALUE || (is_const(&a, &z) && z == 0)))
        return b;
    if (a.k != b.k)
        return (struct aval){.k = V_OTHER};
    switch (a.k) {
    case V_SCALAR:
        return scalar(a.umin < b.umin ? a.umin : b.umin, a.umax > b.umax ? a.umax : b.umax);
    case V_VALUE_OR_NULL:
        if (a.map != b.map || a.off != b.off)
            return (struct aval){.k = V_OTHER};
        if (a.id != b.id)
            a.id = 0;
        return a;
    case V_CTX: case V_STACK: case V_MAP: case V_VALUE: case V_FUNC:
        return a.map == b.map && a.off == b.off ? a : (struct aval){.k = V_OTHER};
    default:
        return a;
    }
}

static bool aval_eq(const struct aval *a, const struct aval *b)
{
    return a->k == b->k && a->map == b->map && a->off == b->off && a->id == b->id && a->umin == b->umin &&
           a->umax == b->umax;
}

/* Merges s into the state at pc; queues pc when that changed it. */
static void flow(struct verifier *v, uint32_t pc, const struct vstate *s)
{
    if (pc >= v->prog->n)
        return;
    struct vstate *d = &v->in[pc];
    if (!v->seen[pc]) {
        *d = *s;
        v->seen[pc] = 1;
        v->queued[pc] = 1;
        v->work[v->nwork++] = pc;
        return;
    }
    bool changed = false, widen = v->visits[pc] >= WIDEN_AFTER;
    for (int r = 0; r < BPF_NREGS; r++) {
        struct aval j = join(d->r[r], s->r[r]);
        if (widen && j.k == V_SCALAR && !aval_eq(&j, &d->r[r]))
            j = scalar(0, UINT64_MAX);
        changed |= !aval_eq(&j, &d->r[r]);
        d->r[r] = j;
    }
    for (int k = 0; k < NSLOTS; k++) {
        struct aval a = d->slot[k], b = s->slot[k];
        struct aval j = a.k == V_UNINIT || b.k == V_UNINIT ? (struct aval){.k = V_OTHER} : join(a, b);
        if (a.k == V_UNINIT && b.k == V_UNINIT)
            j = a;
        if (widen && j.k == V_SCALAR && !aval_eq(&j, &a))
            j = scalar(0, UINT64_MAX);
        changed |= !aval_eq(&j, &a);
        d->slot[k] = j;
    }
    for (int w = 0; w < STACK_MAX / 4; w++) {
        uint64_t bit = 1ull << (w % 64);
        if ((d->word_known[w / 64] & bit) && (!(s->word_known[w / 64] & bit) || s->word[w] != d->word[w])) {
            d->word_known[w / 64] &= ~bit;
            changed = true;
        }
    }
    if (changed && v->visits[pc] < 255)
        v->visits[pc]++;
    if (changed && !v->queued[pc]) {
        v->queued[pc] = 1;
        v->work[v->nwork++] = pc;
    }
}

static const uint32_t sizes[4] = {4, 2, 1, 8};

static void note_depth(struct verifier *v, uint32_t pc, int32_t off)
{
    int32_t *d = &v->depth[v->func_of[pc]];
    if (-off > *d)
        *d = -off;
}

static uint32_t value_size(const struct verifier *v, uint16_t map)
{
    return map < v->prog->n_maps ? bpf_map_definition(v->prog->maps[map])->value_size : 0;
}

static uint32_t key_size(const struct verifier *v, uint16_t map)
{
    return map < v->prog->n_maps ? bpf_map_definition(v->prog->maps[map])->key_size : 0;
}

/* One access of n bytes at ptr + off; write or read (atomics do both). */
static int access(struct verifier *v, uint32_t pc, struct vstate *s, unsigned reg, int32_t off, uint32_t n,
                  bool write)
{
    const struct aval *p = &s->r[reg];
    switch (p->k) {
    case V_UNINIT:
        return vrefuse(v, pc, "r%u is used before it is written", reg);
    case V_SCALAR:
        return vrefuse(v, pc, "r%u is a scalar, not a pointer: memory access refused", reg);
    case V_VALUE_OR_NULL:
        return vrefuse(v, pc, "r%u is a map lookup result (insn %u) not yet checked for NULL: dereference refused",
                       reg, p->id ? p->id - 1 : 0);
    case V_MAP:
    case V_FUNC:
        return vrefuse(v, pc, "r%u points at a %s, which programs cannot access", reg,
                       p->k == V_MAP ? "map" : "function");
    case V_CTX:
        if (write)
            return vrefuse(v, pc, "store into the read-only ctx (through r%u)", reg);
        return 0;
    case V_STACK: {
        int64_t at = (int64_t)p->off + off;
        if (at < -STACK_MAX || at + n > 0)
            return vrefuse(v, pc, "stack access of %u bytes at fp%+lld outside the 512-byte stack", n, (long long)at);
        note_depth(v, pc, (int32_t)at);
        return 0;
    }
    case V_VALUE: {
        int64_t at = (int64_t)p->off + off;
        uint32_t vs = value_size(v, p->map);
        if (at < 0 || at + n > vs)
            return vrefuse(v, pc, "access of %u bytes at offset %lld of a %u-byte map value (map %s)", n,
                           (long long)at, vs, bpf_map_definition(v->prog->maps[p->map])->name);
        return 0;
    }
    default:
        return 0;
    }
}

/* A write of n bytes at fp+at; an aligned 8-byte register store spills the register. */
static void stack_store(struct vstate *s, int32_t at, uint32_t n, const struct aval *val)
{
    int first = (STACK_MAX + at) / 8, last = (STACK_MAX + at + (int32_t)n - 1) / 8;
    for (int k = first; k <= last && k < NSLOTS; k++)
        s->slot[k] = scalar(0, UINT64_MAX);
    if (val && n == 8 && (STACK_MAX + at) % 8 == 0)
        s->slot[first] = *val;
    int w0 = (STACK_MAX + at) / 4, w1 = (STACK_MAX + at + (int32_t)n - 1) / 4;
    for (int w = w0; w <= w1 && w < STACK_MAX / 4; w++)
        s->word_known[w / 64] &= ~(1ull << (w % 64));
    uint64_t c;
    if (!val || !is_const(val, &c) || (STACK_MAX + at) % 4 || (n != 4 && n != 8))
        return;
    for (uint32_t k = 0; k < n / 4; k++, c >>= 32) {
        s->word[w0 + k] = (uint32_t)c;
        s->word_known[(w0 + k) / 64] |= 1ull << ((w0 + k) % 64);
    }
}

/* A lookup in an ARRAY with a constant key on the stack inside max_entries cannot fail (Linux 6.18). */
static bool lookup_cannot_fail(const struct verifier *v, const struct vstate *s, uint16_t map)
{
    const struct bpf_map_def *d = bpf_map_definition(v->prog->maps[map]);
    const struct aval *key = &s->r[2];
    if (d->type != BPF_MAP_TYPE_ARRAY || key->k != V_STACK || (STACK_MAX + key->off) % 4 ||
        key->off < -STACK_MAX || key->off > -4)
        return false;
    int w = (STACK_MAX + key->off) / 4;
    return (s->word_known[w / 64] >> (w % 64) & 1) && s->word[w] < d->max_entries;
}

static int check_mem_arg(struct verifier *v, uint32_t pc, struct vstate *s, unsigned reg, uint64_t n, bool init,
                         const char *helper)
{
    const struct aval *p = &s->r[reg];
    if (p->k == V_STACK) {
        int64_t at = p->off;
        if (at < -STACK_MAX || at + (int64_t)n > 0)
            return vrefuse(v, pc, "%s: argument r%u: %llu bytes at fp%+lld outside the 512-byte stack", helper, reg,
                           (unsigned long long)n, (long long)at);
        note_depth(v, pc, (int32_t)at);
        if (!init)
            stack_store(s, (int32_t)at, (uint32_t)n, NULL);
        return 0;
    }
    if (p->k == V_VALUE) {
        uint32_t vs = value_size(v, p->map);
        if (p->off < 0 || p->off + n > vs)
            return vrefuse(v, pc, "%s: argument r%u: %llu bytes at offset %d of a %u-byte map value", helper, reg,
                           (unsigned long long)n, p->off, vs);
        return 0;
    }
    if (p->k == V_SCALAR || p->k == V_MAP || p->k == V_VALUE_OR_NULL || p->k == V_UNINIT) {
        const char *is = p->k == V_SCALAR ? "a scalar"
                         : p->k == V_MAP  ? "a map"
                         : p->k == V_UNINIT ? "unwritten"
                                            : "a lookup result not checked for NULL";
        return vrefuse(v, pc, "%s: argument r%u must point at %s memory (stack or map value), it is %s", helper, reg,
                       init ? "readable" : "writable", is);
    }
    return 0;
}

static int call_helper(struct verifier *v, uint32_t pc, struct vstate *s, int32_t id)
{
    const struct bpf_helper_proto *h = bpf_helper_proto(id);
    const char *name = bpf_helper_name(id);
    s->r[0] = scalar(0, UINT64_MAX);
    if (!h)
        return 0; /* no prototype here: bpf_vm_check names an unknown helper, the interpreter checks the rest */
    if (h->gpl_only && !v->gpl)
        return vrefuse(v, pc, "helper %s is GPL-only and the program's license is not GPL-compatible", name);
    int16_t map = -1;
    for (int a = 0; a < h->nargs; a++) {
        unsigned r = (unsigned)a + 1;
        const struct aval *x = &s->r[r];
        if (x->k == V_UNINIT)
            return vrefuse(v, pc, "%s: argument r%u is used before it is written", name, r);
        uint64_t size = 0;
        switch (h->args[a]) {
        case BPF_HARG_MAP:
            if (x->k != V_MAP)
                return vrefuse(v, pc, "%s: argument r%u must be a map", name, r);
            map = (int16_t)x->map;
            break;
        case BPF_HARG_MAP_KEY:
        case BPF_HARG_MAP_VALUE:
            if (map >= 0 && check_mem_arg(v, pc, s, r,
                                          h->args[a] == BPF_HARG_MAP_KEY ? key_size(v, (uint16_t)map)
                                                                         : value_size(v, (uint16_t)map),
                                          true, name))
                return -1;
            break;
        case BPF_HARG_MEM:
        case BPF_HARG_MEM_UNINIT: {
            const struct aval *sz = a + 1 < 5 ? &s->r[r + 1] : NULL;
            uint64_t c;
            if (is_const(x, &c) && c == 0)
                break; /* NULL with size 0: the size argument says */
            if (sz && sz->k == V_SCALAR && sz->umax <= STACK_MAX * 16)
                size = sz->umax;
            else if (sz && sz->k == V_SCALAR)
                break; /* unbounded size: left to the run-time check */
            if (size && check_mem_arg(v, pc, s, r, size, h->args[a] == BPF_HARG_MEM, name))
                return -1;
            break;
        }
        case BPF_HARG_SIZE:
        case BPF_HARG_SIZE_OR_ZERO:
            if (x->k != V_SCALAR && x->k != V_OTHER)
                return vrefuse(v, pc, "%s: argument r%u must be a size (a scalar)", name, r);
            if (x->k == V_SCALAR && h->args[a] == BPF_HARG_SIZE && x->umax == 0)
                return vrefuse(v, pc, "%s: argument r%u is a size of 0", name, r);
            break;
        case BPF_HARG_FUNC:
            if (x->k != V_FUNC && x->k != V_OTHER)
                return vrefuse(v, pc, "%s: argument r%u must be a function", name, r);
            break;
        default:
            break;
        }
    }
    if (id == BPF_FUNC_map_lookup_elem && map >= 0 && lookup_cannot_fail(v, s, (uint16_t)map))
        s->r[0] = (struct aval){.k = V_VALUE, .map = (uint16_t)map};
    else if ((id == BPF_FUNC_map_lookup_elem || id == BPF_FUNC_map_lookup_percpu_elem) && map >= 0)
        s->r[0] = (struct aval){.k = V_VALUE_OR_NULL, .map = (uint16_t)map, .id = pc + 1};
    else if (id == BPF_FUNC_ringbuf_reserve)
        s->r[0] = (struct aval){.k = V_OTHER};
    return 0;
}

static int call_kfunc(struct verifier *v, uint32_t pc, struct vstate *s, int32_t idx)
{
    s->r[0] = scalar(0, UINT64_MAX);
    if (idx < 0 || (uint32_t)idx >= v->env->n_kfuncs || !v->env->kfuncs[idx].fn)
        return 0; /* bpf_vm_check names it */
    const struct bpf_kfunc *k = &v->env->kfuncs[idx];
    for (int a = 0; a < 5 && k->args[a].kind != BPF_ARG_NONE; a++) {
        unsigned r = (unsigned)a + 1;
        const struct aval *x = &s->r[r];
        uint64_t c;
        if (x->k == V_UNINIT)
            return vrefuse(v, pc, "kfunc %s: argument r%u is used before it is written", k->name, r);
        if (k->args[a].kind == BPF_ARG_SCALAR && is_pointer(x))
            return vrefuse(v, pc, "kfunc %s: argument r%u must be a scalar, it is a pointer", k->name, r);
        if (k->args[a].kind == BPF_ARG_CTX && !(x->k == V_CTX && x->off == 0) && x->k != V_OTHER &&
            !(k->args[a].nullable && is_const(x, &c) && c == 0))
            return vrefuse(v, pc, "kfunc %s: argument r%u must be the callback's ctx%s", k->name, r,
                           x->k == V_CTX ? " itself, not a pointer into it" : "");
    }
    return 0;
}

/* Evaluates a conditional jump on two known values. */
static bool cond_true(uint8_t op, uint64_t a, uint64_t b, bool j32)
{
    if (j32) {
        a = (uint32_t)a;
        b = (uint32_t)b;
    }
    int64_t sa = j32 ? (int32_t)a : (int64_t)a, sb = j32 ? (int32_t)b : (int64_t)b;
    switch (op) {
    case BPF_JEQ: return a == b;
    case BPF_JNE: return a != b;
    case BPF_JGT: return a > b;
    case BPF_JGE: return a >= b;
    case BPF_JLT: return a < b;
    case BPF_JLE: return a <= b;
    case BPF_JSET: return (a & b) != 0;
    case BPF_JSGT: return sa > sb;
    case BPF_JSGE: return sa >= sb;
    case BPF_JSLT: return sa < sb;
    case BPF_JSLE: return sa <= sb;
    default: return true;
    }
}

/* The NULL check of a lookup result: every copy of it becomes a map value pointer (or 0). */
static void null_checked(struct vstate *s, const struct aval *checked, bool is_null)
{
    struct aval was = *checked;
    for (int r = 0; r < BPF_NREGS; r++)
        if (s->r[r].k == V_VALUE_OR_NULL && s->r[r].map == was.map &&
            (aval_eq(&s->r[r], &was) || (was.id && s->r[r].id == was.id))) {
            if (is_null)
                s->r[r] = konst(0);
            else
                s->r[r].k = V_VALUE;
        }
    for (int k = 0; k < NSLOTS; k++)
        if (s->slot[k].k == V_VALUE_OR_NULL && was.id && s->slot[k].id == was.id) {
            if (is_null)
                s->slot[k] = konst(0);
            else
                s->slot[k].k = V_VALUE;
        }
}

/* Narrows an unsigned range on the edge where `reg OP c` is (taken) true or false. */
static void narrow(struct aval *a, uint8_t op, uint64_t c, bool taken)
{
    if (a->k != V_SCALAR)
        return;
    if (!taken) {
        switch (op) {
        case BPF_JGT: op = BPF_JLE; break;
        case BPF_JGE: op = BPF_JLT; break;
        case BPF_JLT: op = BPF_JGE; break;
        case BPF_JLE: op = BPF_JGT; break;
        case BPF_JNE: op = BPF_JEQ; break;
        default: return;
        }
    }
    switch (op) {
    case BPF_JEQ: a->umin = a->umax = c; break;
    case BPF_JGT: if (c + 1 > a->umin && c != UINT64_MAX) a->umin = c + 1; break;
    case BPF_JGE: if (c > a->umin) a->umin = c; break;
    case BPF_JLT: if (c && c - 1 < a->umax) a->umax = c - 1; break;
    case BPF_JLE: if (c < a->umax) a->umax = c; break;
    default: break;
    }
    if (a->umin > a->umax)
        a->umin = a->umax;
}

static int branch(struct verifier *v, uint32_t pc, struct vstate *s)
{
    const struct bpf_insn *i = &v->prog->insns[pc];
    uint8_t op = BPF_OP(i->code);
    bool j32 = BPF_CLASS(i->code) == BPF_JMP32, x = BPF_SRC(i->code) == BPF_X;
    int64_t target = i->code == (BPF_JMP32 | BPF_JA) ? (int64_t)pc + i->imm + 1 : (int64_t)pc + i->off + 1;
    if (op == BPF_JA) {
        flow(v, (uint32_t)target, s);
        return 0;
    }
    if (s->r[i->dst_reg].k == V_UNINIT || (x && s->r[i->src_reg].k == V_UNINIT))
        return vrefuse(v, pc, "r%u is used before it is written", s->r[i->dst_reg].k == V_UNINIT ? i->dst_reg
                                                                                             : i->src_reg);
    struct aval *d = &s->r[i->dst_reg];
    struct aval other = x ? s->r[i->src_reg] : konst((uint64_t)(int64_t)i->imm);
    uint64_t a, b;
    if (is_const(d, &a) && is_const(&other, &b)) {
        flow(v, cond_true(op, a, b, j32) ? (uint32_t)target : pc + 1, s);
        return 0;
    }
    struct vstate t = *s, f = *s;
    if (is_const(&other, &b) && b == 0 && d->k == V_VALUE_OR_NULL && (op == BPF_JEQ || op == BPF_JNE)) {
        null_checked(&t, d, op == BPF_JEQ);
        null_checked(&f, d, op == BPF_JNE);
    } else if (!j32 && is_const(&other, &b)) {
        narrow(&t.r[i->dst_reg], op, b, true);
        narrow(&f.r[i->dst_reg], op, b, false);
    }
    flow(v, (uint32_t)target, &t);
    flow(v, pc + 1, &f);
    return 0;
}

static struct aval alu_scalar(uint8_t op, bool is64, struct aval d, struct aval sv)
{
    uint64_t a, b;
    uint64_t mask = is64 ? UINT64_MAX : UINT32_MAX;
    if (is_const(&d, &a) && is_const(&sv, &b)) {
        uint64_t r;
        switch (op) {
        case BPF_ADD: r = a + b; break;
        case BPF_SUB: r = a - b; break;
        case BPF_MUL: r = a * b; break;
        case BPF_OR: r = a | b; break;
        case BPF_AND: r = a & b; break;
        case BPF_XOR: r = a ^ b; break;
        case BPF_LSH: r = (b & (is64 ? 63 : 31)) ? a << (b & (is64 ? 63 : 31)) : a; break;
        case BPF_RSH: r = (a & mask) >> (b & (is64 ? 63 : 31)); break;
        case BPF_MOV: r = b; break;
        case BPF_NEG: r = -a; break;
        default: return scalar(0, mask);
        }
        return konst(r & mask);
    }
    if (d.k == V_SCALAR && is_const(&sv, &b)) {
        if (op == BPF_AND)
            return scalar(0, (d.umax < b ? d.umax : b) & mask);
        if (op == BPF_RSH && b < 64)
            return scalar((d.umin & mask) >> b, (d.umax & mask) >> b);
        if (op == BPF_ADD && d.umax + b >= d.umax && d.umax + b <= mask)
            return scalar(d.umin + b, d.umax + b);
        if (op == BPF_SUB && d.umin >= b)
            return scalar(d.umin - b, d.umax - b);
    }
    return scalar(0, mask);
}

static int alu(struct verifier *v, uint32_t pc, struct vstate *s)
{
    const struct bpf_insn *i = &v->prog->insns[pc];
    uint8_t op = BPF_OP(i->code);
    bool is64 = BPF_CLASS(i->code) == BPF_ALU64, x = BPF_SRC(i->code) == BPF_X;
    struct aval *d = &s->r[i->dst_reg];
    struct aval sv = x ? s->r[i->src_reg] : konst(is64 ? (uint64_t)(int64_t)i->imm : (uint32_t)i->imm);
    if (x && sv.k == V_UNINIT)
        return vrefuse(v, pc, "r%u is used before it is written", i->src_reg);
    if (op != BPF_MOV && d->k == V_UNINIT)
        return vrefuse(v, pc, "r%u is used before it is written", i->dst_reg);
    if (op == BPF_MOV) {
        if (is64 && x && i->off == 0)
            *d = sv;
        else if (sv.k == V_SCALAR && i->off == 0)
            *d = is64 ? sv : alu_scalar(BPF_MOV, false, konst(0), sv);
        else
            *d = scalar(0, is64 ? UINT64_MAX : UINT32_MAX);
        return 0;
    }
    if (d->k == V_VALUE_OR_NULL)
        return vrefuse(v, pc, "arithmetic on r%u, a map lookup result (insn %u) not yet checked for NULL", i->dst_reg,
                       d->id ? d->id - 1 : 0);
    uint64_t c;
    if (is_pointer(d) && is64 && (op == BPF_ADD || op == BPF_SUB)) {
        if (is_const(&sv, &c))
            d->off += op == BPF_ADD ? (int32_t)c : -(int32_t)c;
        else
            *d = (struct aval){.k = V_OTHER};
        return 0;
    }
    if (is_pointer(&sv) && is64 && op == BPF_ADD && d->k == V_SCALAR) {
        uint64_t k;
        struct aval p = sv;
        if (is_const(d, &k))
            p.off += (int32_t)k;
        else
            p = (struct aval){.k = V_OTHER};
        *d = p;
        return 0;
    }
    /* a pointer already at an unknown offset stays one when a scalar moves it further */
    if (d->k == V_OTHER && sv.k == V_SCALAR && is64 && (op == BPF_ADD || op == BPF_SUB))
        return 0;
    if (d->k == V_OTHER || sv.k == V_OTHER || is_pointer(d) || is_pointer(&sv)) {
        *d = scalar(0, is64 ? UINT64_MAX : UINT32_MAX);
        return 0;
    }
    *d = alu_scalar(op, is64, *d, sv);
    return 0;
}

static int16_t map_index(const struct verifier *v, uint64_t ptr)
{
    for (uint32_t m = 0; m < v->prog->n_maps; m++)
        if ((uint64_t)(uintptr_t)v->prog->maps[m] == ptr)
            return (int16_t)m;
    return -1;
}

static int step(struct verifier *v, uint32_t pc)
{
    struct vstate s = v->in[pc];
    const struct bpf_insn *i = &v->prog->insns[pc];
    uint8_t cls = BPF_CLASS(i->code);
    if (i->dst_reg >= BPF_NREGS || i->src_reg >= BPF_NREGS)
        return 0;
    switch (cls) {
    case BPF_ALU:
    case BPF_ALU64:
        if (alu(v, pc, &s))
            return -1;
        break;
    case BPF_LD: {
        uint64_t imm = bpf_insn_imm64(i);
        struct aval *d = &s.r[i->dst_reg];
        *d = konst(imm);
        if (i->src_reg == BPF_PSEUDO_MAP_FD) {
            int16_t m = map_index(v, imm);
            *d = m >= 0 ? (struct aval){.k = V_MAP, .map = (uint16_t)m} : (struct aval){.k = V_OTHER};
        } else if (i->src_reg == BPF_PSEUDO_MAP_VALUE) {
            *d = (struct aval){.k = V_OTHER};
            for (uint32_t m = 0; m < v->prog->n_maps; m++) {
                uintptr_t base;
                uint32_t size;
                if (bpf_map_value_containing(v->prog->maps[m], (uintptr_t)imm, &base, &size))
                    *d = (struct aval){.k = V_VALUE, .map = (uint16_t)m, .off = (int32_t)((uintptr_t)imm - base)};
            }
        } else if (i->src_reg == BPF_PSEUDO_FUNC) {
            *d = (struct aval){.k = V_FUNC, .off = (int32_t)pc + i->imm + 1};
        }
        flow(v, pc + 2, &s);
        return 0;
    }
    case BPF_LDX: {
        uint32_t n = sizes[BPF_SIZE(i->code) >> 3];
        struct aval base = s.r[i->src_reg];
        if (access(v, pc, &s, i->src_reg, i->off, n, false))
            return -1;
        struct aval val = BPF_MODE(i->code) == BPF_MEMSX ? scalar(0, UINT64_MAX)
                                                           : scalar(0, n == 8 ? UINT64_MAX : (1ull << (8 * n)) - 1);
        if (base.k == V_STACK && n == 8 && (STACK_MAX + base.off + i->off) % 8 == 0) {
            struct aval sl = s.slot[(STACK_MAX + base.off + i->off) / 8];
            if (sl.k != V_UNINIT)
                val = sl;
        } else if (base.k == V_OTHER) {
            val = (struct aval){.k = V_OTHER};
        }
        s.r[i->dst_reg] = val;
        break;
    }
    case BPF_ST:
    case BPF_STX: {
        uint32_t n = sizes[BPF_SIZE(i->code) >> 3];
        bool atomic = cls == BPF_STX && BPF_MODE(i->code) == BPF_ATOMIC;
        if (cls == BPF_STX && s.r[i->src_reg].k == V_UNINIT)
            return vrefuse(v, pc, "r%u is used before it is written", i->src_reg);
        if (access(v, pc, &s, i->dst_reg, i->off, n, true))
            return -1;
        if (s.r[i->dst_reg].k == V_STACK) {
            struct aval val = cls == BPF_ST    ? konst((uint64_t)(int64_t)i->imm)
                              : !atomic       ? s.r[i->src_reg]
                                              : scalar(0, UINT64_MAX);
            stack_store(&s, s.r[i->dst_reg].off + i->off, n, &val);
        }
        if (atomic && (i->imm & BPF_FETCH))
            s.r[i->imm == BPF_CMPXCHG ? 0 : i->src_reg] = scalar(0, UINT64_MAX);
        break;
    }
    case BPF_JMP:
    case BPF_JMP32: {
        if (i->code == (BPF_JMP | BPF_EXIT)) {
            if (s.r[0].k == V_UNINIT)
                return vrefuse(v, pc, "exit with r0 never written");
            return 0;
        }
        if (i->code == (BPF_JMP | BPF_CALL)) {
            int rc = 0;
            if (i->src_reg == 0)
                rc = call_helper(v, pc, &s, i->imm);
            else if (i->src_reg == BPF_PSEUDO_KFUNC_CALL)
                rc = call_kfunc(v, pc, &s, i->imm);
            else
                s.r[0] = (struct aval){.k = V_OTHER};
            if (rc)
                return -1;
            for (int r = 1; r <= 5; r++)
                s.r[r] = (struct aval){.k = V_UNINIT};
            break;
        }
        return branch(v, pc, &s);
    }
    default:
        break;
    }
    flow(v, pc + 1, &s);
    return 0;
}

static bool writes_reg(const struct bpf_insn *i, unsigned reg)
{
    uint8_t cls = BPF_CLASS(i->code);
    if ((cls == BPF_ALU || cls == BPF_ALU64 || cls == BPF_LDX || cls == BPF_LD) && i->dst_reg == reg)
        return true;
    if (i->code == (BPF_JMP | BPF_CALL))
        return reg <= 5;
    return cls == BPF_STX && BPF_MODE(i->code) == BPF_ATOMIC && (i->imm & BPF_FETCH) &&
           (i->imm == BPF_CMPXCHG ? reg == 0 : i->src_reg == reg);
}

/*
 * A counter of the loop: every write to reg in it adds or subtracts a non-zero constant, copies a counter
 * (clang tests a zero-extended copy of a 32-bit counter), or shifts or masks it by a constant.
 */
static bool counter(const struct bpf_prog *p, const uint8_t *body, unsigned reg, int depth)
{
    bool step = false;
    for (uint32_t k = 0; k < p->n; k++) {
        const struct bpf_insn *i = &p->insns[k];
        if (!body[k] || !writes_reg(i, reg))
            continue;
        uint8_t cls = BPF_CLASS(i->code), op = BPF_OP(i->code);
        bool alu = cls == BPF_ALU64 || cls == BPF_ALU, kform = BPF_SRC(i->code) == BPF_K;
        if (alu && kform && (op == BPF_ADD || op == BPF_SUB) && i->imm != 0)
            step = true;
        else if (alu && kform && (op == BPF_LSH || op == BPF_RSH || op == BPF_AND))
            continue;
        else if (alu && !kform && op == BPF_MOV && i->off == 0 && i->src_reg == reg)
            continue;
        else if (alu && !kform && op == BPF_MOV && i->off == 0 && depth < 2 &&
                 counter(p, body, i->src_reg, depth + 1))
            step = true;
        else
            return false;
    }
    return step;
}

/* The other side of an exit test bounds the counter: a constant, a scalar of bounded range, or a pointer. */
static bool bounded(const struct verifier *v, uint32_t pc, const struct bpf_insn *i)
{
    if (BPF_SRC(i->code) == BPF_K)
        return true;
    const struct aval *o = &v->in[pc].r[i->src_reg];
    return (o->k == V_SCALAR && o->umax <= LOOP_LIMIT) || o->k == V_STACK || o->k == V_VALUE || o->k == V_CTX;
}

/* The loop of the back edge u -> h: h and every instruction that reaches u without passing h. */
static void loop_body(const struct verifier *v, uint32_t u, uint32_t h, uint8_t *body, uint32_t *stack)
{
    const struct bpf_prog *p = v->prog;
    memset(body, 0, p->n);
    body[h] = 1;
    uint32_t top = 0;
    if (!body[u]) {
        body[u] = 1;
        stack[top++] = u;
    }
    uint32_t f = v->func_of[h];
    uint32_t lo = v->entries[f], hi = f + 1 < v->n_funcs ? v->entries[f + 1] : p->n;
    /* predecessors by a scan of the function: loops are few and functions small */
    while (top) {
        uint32_t x = stack[--top];
        for (uint32_t q = lo; q < hi; q++) {
            uint32_t sc[2];
            if (body[q] || v->wide2[q] || !v->seen[q])
                continue;
            int ns = vm_insn_successors(p, q, sc);
            for (int k = 0; k < ns; k++)
                if (sc[k] == x) {
                    body[q] = 1;
                    stack[top++] = q;
                    break;
                }
        }
    }
}

/*
 * Whether the register an exit test compares at k holds a counter: following its definitions back
 * through k's basic block (copies, and the shifts and masks that zero-extend a 32-bit counter), to a
 * register every write of which in the loop is a constant step.
 */
static bool tests_counter(const struct verifier *v, const uint8_t *body, const uint8_t *target, uint32_t k,
                          unsigned reg, unsigned *counter_reg)
{
    const struct bpf_prog *p = v->prog;
    for (uint32_t pc = k; pc-- > 0 && !target[pc + 1];) {
        const struct bpf_insn *i = &p->insns[pc];
        uint8_t cls = BPF_CLASS(i->code), op = BPF_OP(i->code);
        if (v->wide2[pc] || ((cls == BPF_JMP || cls == BPF_JMP32) && op != BPF_CALL))
            break;
        if (!writes_reg(i, reg))
            continue;
        bool alu = cls == BPF_ALU64 || cls == BPF_ALU, kform = BPF_SRC(i->code) == BPF_K;
        if (alu && kform && (op == BPF_LSH || op == BPF_RSH || op == BPF_AND))
            continue;
        if (alu && !kform && op == BPF_MOV && i->off == 0) {
            reg = i->src_reg;
            continue;
        }
        break;
    }
    *counter_reg = reg;
    return counter(p, body, reg, 0);
}

/*
 * Whether reg holds a known constant when the loop at h is entered: every predecessor of h outside the
 * loop sets it with a constant move in its basic block.
 */
static bool entry_known(const struct verifier *v, const uint8_t *body, const uint8_t *target, uint32_t h,
                        unsigned reg)
{
    const struct bpf_prog *p = v->prog;
    uint32_t f = v->func_of[h];
    uint32_t lo = v->entries[f], hi = f + 1 < v->n_funcs ? v->entries[f + 1] : p->n;
    bool any = false;
    for (uint32_t q = lo; q < hi; q++) {
        uint32_t sc[2];
        if (body[q] || v->wide2[q] || !v->seen[q])
            continue;
        int ns = vm_insn_successors(p, q, sc);
        bool pred = false;
        for (int k = 0; k < ns; k++)
            pred |= sc[k] == h;
        if (!pred)
            continue;
        any = true;
        bool known = false;
        for (uint32_t pc = q + 1; pc-- > lo;) {
            const struct bpf_insn *i = &p->insns[pc];
            if (v->wide2[pc] || !writes_reg(i, reg)) {
                if (target[pc])
                    break;
                continue;
            }
            known = (BPF_CLASS(i->code) == BPF_ALU64 || BPF_CLASS(i->code) == BPF_ALU) &&
                    BPF_OP(i->code) == BPF_MOV && BPF_SRC(i->code) == BPF_K;
            break;
        }
        if (!known)
            return false;
    }
    return any;
}

/* Whether some exit of the loop in body (entered at h) tests a counter against a bound. */
static bool loop_bounded(const struct verifier *v, const uint8_t *body, const uint8_t *target, uint32_t h)
{
    const struct bpf_prog *p = v->prog;
    for (uint32_t k = 0; k < p->n; k++) {
        const struct bpf_insn *x = &p->insns[k];
        uint8_t xc = BPF_CLASS(x->code), xo = BPF_OP(x->code);
        if (!body[k] || v->wide2[k] || (xc != BPF_JMP && xc != BPF_JMP32) || xo == BPF_CALL || xo == BPF_EXIT ||
            xo == BPF_JA)
            continue;
        uint32_t xs[2];
        int xn = vm_insn_successors(p, k, xs);
        bool exits = false;
        for (int q = 0; q < xn; q++)
            exits |= !body[xs[q]];
        if (!exits)
            continue;
        /* an equality test ends a loop only when the counter starts at a known value */
        uint8_t xop = BPF_OP(x->code);
        bool eq = xop == BPF_JEQ || xop == BPF_JNE;
        unsigned c;
        if (tests_counter(v, body, target, k, x->dst_reg, &c) && bounded(v, k, x) &&
            (!eq || entry_known(v, body, target, h, c)))
            return true;
        if (!eq && BPF_SRC(x->code) == BPF_X && tests_counter(v, body, target, k, x->src_reg, &c) &&
            v->in[k].r[x->dst_reg].k == V_SCALAR &&
            v->in[k].r[x->dst_reg].umax <= LOOP_LIMIT)
            return true;
    }
    return false;
}

/* Every loop (a back edge of a depth-first walk) needs an exit that tests a counter against a bound. */
static int check_loops(struct verifier *v)
{
    uint32_t n = v->prog->n;
    uint8_t *color = calloc(n, 1), *body = calloc(n, 1);
    uint32_t *stack = malloc((size_t)n * sizeof *stack), *work = malloc((size_t)n * sizeof *work);
    uint8_t *edge = calloc(n, 1), *target = calloc(n + 1, 1);
    int rc = 0;
    if (!color || !body || !stack || !work || !edge || !target) {
        rc = vrefuse(v, 0, "out of memory");
        goto out;
    }
    for (uint32_t pc = 0; pc < n; pc++) {
        uint32_t sc[2];
        int ns = v->wide2[pc] ? 0 : vm_insn_successors(v->prog, pc, sc);
        for (int k = 0; k < ns; k++)
            if (sc[k] != pc + 1 && !(sc[k] == pc + 2 && BPF_CLASS(v->prog->insns[pc].code) == BPF_LD))
                target[sc[k]] = 1;
    }
    for (uint32_t f = 0; f < v->n_funcs; f++)
        target[v->entries[f]] = 1;
    for (uint32_t f = 0; f < v->n_funcs && !rc; f++) {
        uint32_t top = 0;
        stack[top++] = v->entries[f];
        color[v->entries[f]] = 1;
        while (top && !rc) {
            uint32_t u = stack[top - 1], sc[2];
            int ns = vm_insn_successors(v->prog, u, sc);
            if (edge[u] >= ns) {
                color[u] = 2;
                top--;
                continue;
            }
            uint32_t h = sc[edge[u]++];
            if (color[h] == 0) {
                color[h] = 1;
                stack[top++] = h;
            } else if (color[h] == 1) {
                loop_body(v, u, h, body, work);
                if (!loop_bounded(v, body, target, h))
                    rc = vrefuse(v, u, "loop from insn %u back to %u without a provable bound (no exit tests a "
                                 "counter against a bounded value)", u, h);
            }
        }
    }
out:
    free(color);
    free(body);
    free(stack);
    free(work);
    free(edge);
    free(target);
    return rc;
}

/* The stack of a chain of calls: each frame rounded up to 32 bytes, 512 in all. */
static int check_depth(struct verifier *v, uint32_t f, uint32_t total, uint32_t level)
{
    uint32_t d = (uint32_t)(v->depth[f] ? v->depth[f] : 1);
    total += (d + 31) / 32 * 32;
    if (total > STACK_MAX)
        return vrefuse(v, v->entries[f], "stack of %u bytes along a chain of %u call%s, more than 512", total,
                       level + 1, level ? "s" : "");
    if (level >= BPF_VM_MAX_FRAMES)
        return 0;
    uint32_t end = f + 1 < v->n_funcs ? v->entries[f + 1] : v->prog->n;
    for (uint32_t pc = v->entries[f]; pc < end; pc++) {
        const struct bpf_insn *i = &v->prog->insns[pc];
        if (v->wide2[pc] || i->code != (BPF_JMP | BPF_CALL) || i->src_reg != BPF_PSEUDO_CALL)
            continue;
        int64_t t = (int64_t)pc + i->imm + 1;
        if (t >= 0 && t < v->prog->n && check_depth(v, v->func_of[t], total, level + 1))
            return -1;
    }
    return 0;
}

static void entry_state(struct vstate *s, bool main)
{
    memset(s, 0, sizeof *s);
    s->r[1] = main ? (struct aval){.k = V_CTX} : (struct aval){.k = V_OTHER};
    for (int r = 2; r <= 5 && !main; r++)
        s->r[r] = (struct aval){.k = V_OTHER};
    s->r[BPF_REG_FP] = (struct aval){.k = V_STACK};
}

int bpf_vm_verify(const struct bpf_vm_env *env, const struct bpf_prog *prog, bool gpl, struct bpf_fault *why)
{
    struct verifier v = {.env = env, .prog = prog, .gpl = gpl, .why = why};
    if (why)
        memset(why, 0, sizeof *why);
    uint32_t n = prog->n;
    if (!n)
        return 0;
    v.in = malloc((size_t)n * sizeof *v.in);
    v.seen = calloc(n, 1);
    v.visits = calloc(n, 1);
    v.wide2 = calloc(n, 1);
    v.func_of = calloc(n, sizeof *v.func_of);
    v.entries = calloc(n, sizeof *v.entries);
    v.depth = calloc(n, sizeof *v.depth);
    v.work = malloc((size_t)n * sizeof *v.work);
    v.queued = calloc(n, 1);
    int rc = 0;
    if (!v.in || !v.seen || !v.visits || !v.wide2 || !v.func_of || !v.entries || !v.depth || !v.work || !v.queued) {
        rc = vrefuse(&v, 0, "out of memory");
        goto out;
    }
    uint8_t *is_entry = v.visits; /* borrowed until the pass starts */
    is_entry[0] = 1;
    for (uint32_t pc = 0; pc < n; pc++) {
        const struct bpf_insn *i = &prog->insns[pc];
        if (bpf_insn_is_wide(i) && pc + 1 < n) {
            v.wide2[pc + 1] = 1;
            if (i->src_reg == BPF_PSEUDO_FUNC && (int64_t)pc + i->imm + 1 >= 0 && (int64_t)pc + i->imm + 1 < n)
                is_entry[pc + i->imm + 1] = 1;
            pc++;
            continue;
        }
        if (i->code == (BPF_JMP | BPF_CALL) && i->src_reg == BPF_PSEUDO_CALL && (int64_t)pc + i->imm + 1 >= 0 &&
            (int64_t)pc + i->imm + 1 < n)
            is_entry[pc + i->imm + 1] = 1;
    }
    for (uint32_t pc = 0; pc < n; pc++) {
        if (is_entry[pc])
            v.entries[v.n_funcs++] = pc;
        v.func_of[pc] = v.n_funcs - 1;
    }
    memset(v.visits, 0, n);
    for (uint32_t f = 0; f < v.n_funcs; f++) {
        struct vstate s;
        entry_state(&s, f == 0);
        flow(&v, v.entries[f], &s);
    }
    /* every state only grows (ranges are widened after WIDEN_AFTER changes), so this ends; the bound is a guard */
    for (uint64_t steps = 0; v.nwork && !rc; steps++) {
        uint32_t pc = v.work[--v.nwork];
        v.queued[pc] = 0;
        if (steps > (uint64_t)LOOP_LIMIT * 4) {
            rc = vrefuse(&v, pc, "program too complex to verify");
            break;
        }
        if (!v.wide2[pc])
            rc = step(&v, pc);
    }
    if (!rc)
        rc = check_loops(&v);
    if (!rc)
        rc = check_depth(&v, 0, 0, 0);
out:
    free(v.in);
    free(v.seen);
    free(v.visits);
    free(v.wide2);
    free(v.func_of);
    free(v.entries);
    free(v.depth);
    free(v.work);
    free(v.queued);
    return rc;
}
