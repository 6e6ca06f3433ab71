/*
 * The execution loop: RFC 9669 semantics, one switch over the opcode byte, with the region of
 * every register carried next to its value (struct tag) so that memory safety is checked where
 * the kernel would have proven it at load time.
 */
#include "bpf/bpf_vm_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/deadline.h"

#define UNLIKELY(x) __builtin_expect(!!(x), 0)

static const char *const fault_names[] = {
    [BPF_FAULT_NONE] = "none",         [BPF_FAULT_CHECK] = "check",   [BPF_FAULT_MEMORY] = "memory",
    [BPF_FAULT_READONLY] = "readonly", [BPF_FAULT_POINTER] = "pointer", [BPF_FAULT_BUDGET] = "budget",
    [BPF_FAULT_DEPTH] = "depth",       [BPF_FAULT_INSN] = "insn",     [BPF_FAULT_HELPER] = "helper",
    [BPF_FAULT_KFUNC] = "kfunc",
};

const char *bpf_fault_kind_name(enum bpf_fault_kind kind)
{
    return (unsigned)kind < sizeof fault_names / sizeof fault_names[0] ? fault_names[kind] : "unknown";
}

const char *bpf_fault_format(const struct bpf_fault *f, char *buf, size_t len)
{
    if (f->where[0])
        snprintf(buf, len, "program '%s' insn %u (%s): %s", f->prog, f->insn, f->where, f->reason);
    else
        snprintf(buf, len, "program '%s' insn %u: %s", f->prog, f->insn, f->reason);
    return buf;
}

void vm_locate(const struct bpf_prog *prog, uint32_t insn, struct bpf_fault *f)
{
    snprintf(f->prog, sizeof f->prog, "%s", prog->name ? prog->name : "?");
    f->insn = insn;
    f->where[0] = '\0';
    const struct bpf_line *best = NULL;
    for (uint32_t i = 0; i < prog->n_lines && prog->lines[i].insn <= insn; i++)
        best = &prog->lines[i];
    if (best && best->src)
        snprintf(f->where, sizeof f->where, "%s:%u: %s", best->file ? best->file : "?", best->line, best->src);
    else if (best)
        snprintf(f->where, sizeof f->where, "%s:%u", best->file ? best->file : "?", best->line);
}

int vm_refuse(const struct bpf_prog *prog, struct bpf_fault *why, uint32_t insn, const char *fmt, va_list ap)
{
    if (why) {
        memset(why, 0, sizeof *why);
        why->kind = BPF_FAULT_CHECK;
        vm_locate(prog, insn, why);
        vsnprintf(why->reason, sizeof why->reason, fmt, ap);
    }
    return -1;
}

int vm_fault(struct vm *vm, enum bpf_fault_kind kind, const char *fmt, ...)
{
    if (vm->failed)
        return -1;
    vm->failed = true;
    if (!vm->fault)
        return -1;
    vm->fault->kind = kind;
    vm_locate(vm->prog, vm->pc, vm->fault);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(vm->fault->reason, sizeof vm->fault->reason, fmt, ap);
    va_end(ap);
    return -1;
}

static const char *region_name(const struct vm *vm, const struct tag *t, char *buf, size_t len)
{
    switch (t->kind) {
    case R_STACK:
        snprintf(buf, len, "stack frame %u (%u bytes)",
                 (unsigned)((t->base - (uintptr_t)vm->stack) / BPF_VM_STACK_SIZE), t->size);
        return buf;
    case R_CTX: snprintf(buf, len, "ctx (%u bytes)", t->size); return buf;
    case R_RBREC: snprintf(buf, len, "ringbuf record (%u bytes)", t->size); return buf;
    case R_VALUE:
        for (uint32_t i = 0; i < vm->prog->n_maps; i++) {
            uintptr_t b;
            uint32_t s;
            if (bpf_map_value_containing(vm->prog->maps[i], t->base, &b, &s)) {
                snprintf(buf, len, "value of map '%s' (%u bytes)", bpf_map_definition(vm->prog->maps[i])->name, s);
                return buf;
            }
        }
        snprintf(buf, len, "map value (%u bytes)", t->size);
        return buf;
    case R_MAP: return "a map handle";
    case R_FUNC: return "a function reference";
    default: return "a scalar";
    }
}

void *vm_region_access(struct vm *vm, const struct tag *t, uint64_t addr, uint64_t len, bool write, const char *what)
{
    char nb[96];
    if (UNLIKELY(t->kind == R_SCALAR || t->kind > R_LAST_MEMORY)) {
        vm_fault(vm, BPF_FAULT_POINTER, "%s of %llu bytes through %s (0x%llx)", what, (unsigned long long)len,
                 region_name(vm, t, nb, sizeof nb), (unsigned long long)addr);
        return NULL;
    }
    uint64_t rel = addr - (uint64_t)t->base;
    if (UNLIKELY(rel > t->size || len > t->size - rel)) {
        vm_fault(vm, BPF_FAULT_MEMORY, "%s of %llu bytes at offset %lld of %s", what, (unsigned long long)len,
                 (long long)rel, region_name(vm, t, nb, sizeof nb));
        return NULL;
    }
    if (UNLIKELY(!(t->flags & (write ? T_WRITE : T_READ)))) {
        vm_fault(vm, BPF_FAULT_READONLY, "%s of %llu bytes at offset %lld of %s, which is %s", what,
                 (unsigned long long)len, (long long)rel, region_name(vm, t, nb, sizeof nb),
                 write ? "read-only" : "write-only");
        return NULL;
    }
    return (void *)(uintptr_t)addr;
}

static bool within(uintptr_t base, uint64_t size, uint64_t addr, uint64_t len)
{
    return addr >= base && addr - base <= size && len <= size - (addr - base);
}

bool vm_find_region(struct vm *vm, uint64_t addr, uint64_t len, struct tag *out)
{
    for (uint32_t f = 0; f <= vm->depth && f < BPF_VM_MAX_FRAMES; f++)
        if (within((uintptr_t)vm->stack[f], BPF_VM_STACK_SIZE, addr, len)) {
            *out = (struct tag){(uintptr_t)vm->stack[f], BPF_VM_STACK_SIZE, R_STACK, T_READ | T_WRITE};
            return true;
        }
    if (vm->ctx && within((uintptr_t)vm->ctx, vm->ctx_size, addr, len)) {
        *out = (struct tag){(uintptr_t)vm->ctx, (uint32_t)vm->ctx_size, R_CTX,
                            (uint8_t)(T_READ | (vm->ctx_readonly ? 0 : T_WRITE))};
        return true;
    }
    for (uint32_t i = 0; i < vm->prog->n_maps; i++) {
        uintptr_t b;
        uint32_t s;
        if (bpf_map_value_containing(vm->prog->maps[i], (uintptr_t)addr, &b, &s) && within(b, s, addr, len)) {
            *out = (struct tag){b, s, R_VALUE,
                                (uint8_t)(T_READ | (bpf_map_prog_readonly(vm->prog->maps[i]) ? 0 : T_WRITE))};
            return true;
        }
    }
    return false;
}

void vm_stack_written(struct vm *vm, const struct tag *t, uint64_t addr, uint64_t len)
{
    if (t->kind != R_STACK || len == 0)
        return;
    uint32_t f = (uint32_t)((t->base - (uintptr_t)vm->stack) / BPF_VM_STACK_SIZE);
    uint64_t first = (addr - t->base) / 8, last = (addr - t->base + len - 1) / 8;
    for (uint64_t s = first; s <= last && s < SLOTS; s++)
        vm->slot_live[f][s] = 0;
}

void vm_forget_record(struct vm *vm, uintptr_t rec)
{
    for (int i = 0; i < NREG_SLOTS; i++)
        if (vm->t[i].kind == R_RBREC && vm->t[i].base == rec)
            vm->t[i].kind = R_SCALAR;
    for (uint32_t f = 0; f <= vm->depth && f < BPF_VM_MAX_FRAMES; f++) {
        for (int s = 0; s < SLOTS; s++)
            if (vm->slot_live[f][s] && vm->slot_tag[f][s].kind == R_RBREC && vm->slot_tag[f][s].base == rec)
                vm->slot_live[f][s] = 0;
        for (int i = 0; f < vm->depth && i < 4; i++)
            if (vm->frames[f].saved_tag[i].kind == R_RBREC && vm->frames[f].saved_tag[i].base == rec)
                vm->frames[f].saved_tag[i].kind = R_SCALAR;
    }
    for (uint32_t h = 0; h < vm->n_held; h++)
        for (uint32_t i = 0; i < vm->held[h].n; i++)
            if (vm->held[h].t[i].kind == R_RBREC && vm->held[h].t[i].base == rec)
                vm->held[h].t[i].kind = R_SCALAR;
}

/* Makes frame f current: fresh zeroed stack, r10 at its top. */
static void enter_frame(struct vm *vm, uint32_t f)
{
    vm->depth = f;
    memset(vm->stack[f], 0, BPF_VM_STACK_SIZE);
    memset(vm->slot_live[f], 0, SLOTS);
    vm->r[BPF_REG_FP] = (uint64_t)(uintptr_t)(vm->stack[f] + BPF_VM_STACK_SIZE);
    vm->t[BPF_REG_FP] = (struct tag){(uintptr_t)vm->stack[f], BPF_VM_STACK_SIZE, R_STACK, T_READ | T_WRITE};
}

static void set_frame_pointer(struct vm *vm)
{
    uint32_t f = vm->depth;
    vm->r[BPF_REG_FP] = (uint64_t)(uintptr_t)(vm->stack[f] + BPF_VM_STACK_SIZE);
    vm->t[BPF_REG_FP] = (struct tag){(uintptr_t)vm->stack[f], BPF_VM_STACK_SIZE, R_STACK, T_READ | T_WRITE};
}

static int push_frame(struct vm *vm, uint32_t ret_pc)
{
    if (vm->depth + 1 >= vm->max_frames)
        return vm_fault(vm, BPF_FAULT_DEPTH, "call depth exceeds %u frames", vm->max_frames);
    struct frame *fr = &vm->frames[vm->depth];
    fr->ret_pc = ret_pc;
    memcpy(fr->saved, &vm->r[6], sizeof fr->saved);
    memcpy(fr->saved_tag, &vm->t[6], sizeof fr->saved_tag);
    enter_frame(vm, vm->depth + 1);
    return 0;
}

static uint32_t pop_frame(struct vm *vm)
{
    vm->depth--;
    struct frame *fr = &vm->frames[vm->depth];
    memcpy(&vm->r[6], fr->saved, sizeof fr->saved);
    memcpy(&vm->t[6], fr->saved_tag, sizeof fr->saved_tag);
    set_frame_pointer(vm);
    return fr->ret_pc;
}

static const char *pseudo_map_value(struct vm *vm, uint64_t addr, struct tag *t)
{
    for (uint32_t i = 0; i < vm->prog->n_maps; i++) {
        uintptr_t b;
        uint32_t s;
        if (bpf_map_value_containing(vm->prog->maps[i], (uintptr_t)addr, &b, &s)) {
            *t = (struct tag){b, s, R_VALUE,
                              (uint8_t)(T_READ | (bpf_map_prog_readonly(vm->prog->maps[i]) ? 0 : T_WRITE))};
            return NULL;
        }
    }
    return "LD_IMM64 map value address is not inside a value of the program's maps";
}

static int ld_imm64(struct vm *vm, const struct bpf_insn *i, uint32_t pc)
{
    if (pc + 1 >= vm->prog->n || i[1].code != 0)
        return vm_fault(vm, BPF_FAULT_INSN, "LD_IMM64 without its second half");
    uint64_t v = bpf_insn_imm64(i);
    struct tag t = {0, 0, R_SCALAR, 0};
    switch (i->src_reg) {
    case 0: break;
    case BPF_PSEUDO_MAP_FD: {
        bool known = false;
        for (uint32_t m = 0; m < vm->prog->n_maps && !known; m++)
            known = (uint64_t)(uintptr_t)vm->prog->maps[m] == v;
        if (!known)
            return vm_fault(vm, BPF_FAULT_INSN, "LD_IMM64 map pointer 0x%llx is not one of the program's maps",
                            (unsigned long long)v);
        t = (struct tag){(uintptr_t)v, 0, R_MAP, 0};
        break;
    }
    case BPF_PSEUDO_MAP_VALUE: {
        const char *err = pseudo_map_value(vm, v, &t);
        if (err)
            return vm_fault(vm, BPF_FAULT_INSN, "%s (0x%llx)", err, (unsigned long long)v);
        break;
    }
    case BPF_PSEUDO_FUNC: {
        int64_t target = (int64_t)pc + i->imm + 1;
        if (target < 0 || target >= vm->prog->n)
            return vm_fault(vm, BPF_FAULT_INSN, "function reference outside the program");
        v = (uint64_t)target;
        t = (struct tag){(uintptr_t)target, 0, R_FUNC, 0};
        break;
    }
    default: return vm_fault(vm, BPF_FAULT_INSN, "LD_IMM64 with unsupported src %u", i->src_reg);
    }
    vm->r[i->dst_reg] = v;
    vm->t[i->dst_reg] = t;
    return 0;
}

static int call_kfunc(struct vm *vm, int32_t idx)
{
    const struct bpf_vm_env *env = vm->env;
    if (idx < 0 || (uint32_t)idx >= env->n_kfuncs || !env->kfuncs[idx].fn)
        return vm_fault(vm, BPF_FAULT_INSN, "kfunc index %d outside the kfunc table", idx);
    const struct bpf_kfunc *k = &env->kfuncs[idx];
    if (k->sleepable && !vm->prog->sleepable)
        return vm_fault(vm, BPF_FAULT_KFUNC, "sleepable kfunc %s called from a non-sleepable program", k->name);
    uint64_t args[5];
    for (int a = 0; a < 5; a++) {
        const struct bpf_arg_spec *s = &k->args[a];
        const struct tag *t = &vm->t[a + 1];
        uint64_t v = vm->r[a + 1];
        args[a] = v;
        if (s->kind == BPF_ARG_NONE || s->kind == BPF_ARG_SCALAR || s->kind == BPF_ARG_HANDLE)
            continue;
        if (s->nullable && t->kind == R_SCALAR && v == 0)
            continue;
        if (s->kind == BPF_ARG_CTX) {
            if (t->kind != R_CTX || v != (uint64_t)(uintptr_t)vm->ctx)
                return vm_fault(vm, BPF_FAULT_POINTER, "argument %d of %s must be the program's ctx", a + 1, k->name);
            continue;
        }
        bool w = s->kind == BPF_ARG_MEM_RW;
        if (!vm_region_ok(t, v, s->size, w)) {
            char what[96];
            snprintf(what, sizeof what, "argument %d of %s", a + 1, k->name);
            vm_region_access(vm, t, v, s->size, w, what);
            return -1;
        }
        if (w)
            vm_stack_written(vm, t, v, s->size);
    }
    struct bpf_vm_call call = {.prog = vm->prog, .insn = vm->pc, .ctx = vm->ctx, .ctx_size = vm->ctx_size};
    uint64_t r0 = k->fn(env->ctx, args, &call);
    if (call.failed)
        return vm_fault(vm, BPF_FAULT_KFUNC, "%s: %s", k->name, call.reason);
    vm->r[0] = r0;
    vm->t[0].kind = R_SCALAR;
    return 0;
}

void bpf_vm_call_fail(struct bpf_vm_call *call, const char *fmt, ...)
{
    if (call->failed)
        return;
    call->failed = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(call->reason, sizeof call->reason, fmt, ap);
    va_end(ap);
}

int bpf_kfunc_index(const struct bpf_kfunc *kfuncs, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++)
        if (kfuncs[i].name && strcmp(kfuncs[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* Pointer arithmetic keeps the region of a memory pointer; anything else yields a scalar. */
static void tag_add(struct vm *vm, unsigned dst, unsigned src, bool sub)
{
    struct tag *d = &vm->t[dst];
    const struct tag *s = &vm->t[src];
    bool dp = d->kind != R_SCALAR && d->kind <= R_LAST_MEMORY, sp = s->kind != R_SCALAR && s->kind <= R_LAST_MEMORY;
    if (s->kind == R_SCALAR && dp)
        return;
    if (!sub && d->kind == R_SCALAR && sp)
        *d = *s;
    else
        d->kind = R_SCALAR;
}

static uint64_t bswap(uint64_t v, int32_t bits)
{
    switch (bits) {
    case 16: return __builtin_bswap16((uint16_t)v);
    case 32: return __builtin_bswap32((uint32_t)v);
    default: return __builtin_bswap64(v);
    }
}

static uint64_t trunc_bits(uint64_t v, int32_t bits)
{
    return bits == 16 ? (uint16_t)v : bits == 32 ? (uint32_t)v : v;
}

/* RFC 9669 4.1: signed division truncates toward zero; INT_MIN / -1 wraps. */
static int64_t sdiv64(int64_t a, int64_t b)
{
    return b == -1 ? (int64_t)(0 - (uint64_t)a) : a / b;
}
static int64_t smod64(int64_t a, int64_t b)
{
    return b == -1 ? 0 : a % b;
}
static int32_t sdiv32(int32_t a, int32_t b)
{
    return b == -1 ? (int32_t)(0 - (uint32_t)a) : a / b;
}
static int32_t smod32(int32_t a, int32_t b)
{
    return b == -1 ? 0 : a % b;
}

/* Stores of width sz through register dst at off: region check, write, spill bookkeeping. */
static inline void *store_addr(struct vm *vm, unsigned dst, int16_t off, uint32_t sz)
{
    const struct tag *t = &vm->t[dst];
    uint64_t addr = vm->r[dst] + (uint64_t)(int64_t)off;
    uint64_t rel = addr - (uint64_t)t->base;
    if (UNLIKELY(t->kind == R_SCALAR || t->kind > R_LAST_MEMORY || rel > t->size || sz > t->size - rel ||
                 !(t->flags & T_WRITE)))
        return vm_region_access(vm, t, addr, sz, true, "store");
    if (t->kind == R_STACK)
        vm_stack_written(vm, t, addr, sz);
    return (void *)(uintptr_t)addr;
}

static inline void *load_addr(struct vm *vm, unsigned src, int16_t off, uint32_t sz)
{
    const struct tag *t = &vm->t[src];
    uint64_t addr = vm->r[src] + (uint64_t)(int64_t)off;
    uint64_t rel = addr - (uint64_t)t->base;
    if (UNLIKELY(t->kind == R_SCALAR || t->kind > R_LAST_MEMORY || rel > t->size || sz > t->size - rel ||
                 !(t->flags & T_READ)))
        return vm_region_access(vm, t, addr, sz, false, "load");
    return (void *)(uintptr_t)addr;
}

/* A full, aligned 8-byte stack store of a pointer register keeps its region (a spill). */
static void spill(struct vm *vm, unsigned dst, int16_t off, unsigned src)
{
    const struct tag *t = &vm->t[dst];
    uint64_t rel = vm->r[dst] + (uint64_t)(int64_t)off - t->base;
    if (t->kind != R_STACK || (rel & 7) || vm->t[src].kind == R_SCALAR)
        return;
    uint32_t f = (uint32_t)((t->base - (uintptr_t)vm->stack) / BPF_VM_STACK_SIZE);
    vm->slot_live[f][rel / 8] = 1;
    vm->slot_tag[f][rel / 8] = vm->t[src];
}

static void fill(struct vm *vm, unsigned src, int16_t off, unsigned dst)
{
    const struct tag t = vm->t[src];
    vm->t[dst].kind = R_SCALAR;
    if (t.kind != R_STACK)
        return;
    uint64_t rel = vm->r[src] + (uint64_t)(int64_t)off - t.base;
    uint32_t f = (uint32_t)((t.base - (uintptr_t)vm->stack) / BPF_VM_STACK_SIZE);
    if (!(rel & 7) && vm->slot_live[f][rel / 8])
        vm->t[dst] = vm->slot_tag[f][rel / 8];
}

static int atomic_op(struct vm *vm, const struct bpf_insn *i)
{
    bool dw = BPF_SIZE(i->code) == BPF_DW;
    uint32_t sz = dw ? 8 : 4;
    const struct tag *t = &vm->t[i->dst_reg];
    uint64_t addr = vm->r[i->dst_reg] + (uint64_t)(int64_t)i->off;
    if (addr & (sz - 1))
        return vm_fault(vm, BPF_FAULT_MEMORY, "misaligned atomic access at 0x%llx", (unsigned long long)addr);
    /* An atomic both reads and writes: the region must allow both. */
    if (!vm_region_ok(t, addr, sz, false) || !vm_region_ok(t, addr, sz, true)) {
        if (vm_region_access(vm, t, addr, sz, false, "atomic"))
            vm_region_access(vm, t, addr, sz, true, "atomic");
        return -1;
    }
    uint8_t *p = (uint8_t *)(uintptr_t)addr;
    vm_stack_written(vm, t, addr, sz);
    uint64_t old = 0, v = vm->r[i->src_reg], nv;
    memcpy(&old, p, sz);
    switch (i->imm & ~BPF_FETCH) {
    case BPF_ADD: nv = old + v; break;
    case BPF_OR: nv = old | v; break;
    case BPF_AND: nv = old & v; break;
    case BPF_XOR: nv = old ^ v; break;
    default:
        if (i->imm == BPF_XCHG) {
            nv = v;
        } else if (i->imm == BPF_CMPXCHG) {
            uint64_t expect = dw ? vm->r[0] : (uint32_t)vm->r[0];
            nv = old == expect ? v : old;
            vm->r[0] = old;
            vm->t[0].kind = R_SCALAR;
            memcpy(p, &nv, sz);
            return 0;
        } else {
            return vm_fault(vm, BPF_FAULT_INSN, "unknown atomic operation 0x%x", (unsigned)i->imm);
        }
    }
    memcpy(p, &nv, sz);
    if (i->imm & BPF_FETCH) {
        vm->r[i->src_reg] = old;
        vm->t[i->src_reg].kind = R_SCALAR;
    }
    return 0;
}

#define BAD()                                                                                            \
    do {                                                                                                 \
        vm_fault(vm, BPF_FAULT_INSN, "invalid instruction 0x%02x (src %u off %d imm %d)", i->code, i->src_reg, \
                 i->off, i->imm);                                                                        \
        goto fail;                                                                                       \
    } while (0)
#define ALU64(op, expr_k, expr_x) \
    case BPF_ALU64 | op | BPF_K: r[dst] = (expr_k); t[dst].kind = R_SCALAR; break; \
    case BPF_ALU64 | op | BPF_X: r[dst] = (expr_x); t[dst].kind = R_SCALAR; break;
#define ALU32(op, expr_k, expr_x) \
    case BPF_ALU | op | BPF_K: r[dst] = (uint32_t)(expr_k); t[dst].kind = R_SCALAR; break; \
    case BPF_ALU | op | BPF_X: r[dst] = (uint32_t)(expr_x); t[dst].kind = R_SCALAR; break;
#define JMP64(op, cond_k, cond_x) \
    case BPF_JMP | op | BPF_K: if (cond_k) pc += i->off; break; \
    case BPF_JMP | op | BPF_X: if (cond_x) pc += i->off; break;
#define JMP32(op, cond_k, cond_x) \
    case BPF_JMP32 | op | BPF_K: if (cond_k) pc += i->off; break; \
    case BPF_JMP32 | op | BPF_X: if (cond_x) pc += i->off; break;
#define LDX(mode_size, type, sz) \
    case BPF_LDX | mode_size: { \
        const void *p = load_addr(vm, src, i->off, sz); \
        if (!p) goto fail; \
        type v; memcpy(&v, p, sz); r[dst] = (uint64_t)v; t[dst].kind = R_SCALAR; break; }
#define ST(size, type, sz, val) \
    case size: { \
        void *p = store_addr(vm, dst, i->off, sz); \
        if (!p) goto fail; \
        type v = (type)(val); memcpy(p, &v, sz); break; }

#define WALL_CHECK_INSNS 16384u

/* Runs from pc until the EXIT of frame `base` (0 for the program, deeper for bpf_loop callbacks). */
static int exec(struct vm *vm, uint32_t pc, uint32_t base)
{
    const struct bpf_insn *insns = vm->prog->insns;
    const uint32_t n = vm->prog->n;
    uint64_t *r = vm->r;
    struct tag *t = vm->t;
    /* Counted in a local; vm->executed is brought up to date around calls (bpf_loop callbacks run a
     * nested exec) and when leaving. */
    uint64_t executed = vm->executed;
    const uint64_t budget = vm->budget;
    /* The loop stops at the budget, and under a wall-clock deadline (base/deadline.h) at vm->wall_next
     * to look at the clock (kept in the vm: bpf_loop callbacks run many short nested loops). */
    uint64_t stop = budget < vm->wall_next ? budget : vm->wall_next;
    for (;; pc++) {
        if (UNLIKELY(pc >= n)) {
            vm->pc = pc ? pc - 1 : 0;
            { vm_fault(vm, BPF_FAULT_INSN, "execution ran past the end of the program"); goto fail; }
        }
        vm->pc = pc;
        if (UNLIKELY(executed >= stop)) {
            if (executed >= budget) {
                vm_fault(vm, BPF_FAULT_BUDGET, "instruction budget of %llu exhausted", (unsigned long long)budget);
                goto fail;
            }
            if (nvemu_deadline_passed()) {
                vm_fault(vm, BPF_FAULT_BUDGET, "the callback's wall-clock limit passed after %llu instructions",
                         (unsigned long long)executed);
                goto fail;
            }
            vm->wall_next = executed + WALL_CHECK_INSNS;
            stop = budget < vm->wall_next ? budget : vm->wall_next;
        }
        executed++;
        const struct bpf_insn *i = &insns[pc];
        const unsigned dst = i->dst_reg, src = i->src_reg;
        const uint8_t cls = BPF_CLASS(i->code);
        if (UNLIKELY(dst > 10 || src > 10 ||
                     (dst == BPF_REG_FP && (cls == BPF_ALU || cls == BPF_ALU64 || cls == BPF_LDX || cls == BPF_LD))))
            { vm_fault(vm, BPF_FAULT_INSN, "invalid register r%u/r%u for instruction 0x%02x", dst, src, i->code); goto fail; }
        const uint64_t imm = (uint64_t)(int64_t)i->imm;
        const uint32_t imm32 = (uint32_t)i->imm;
#define d32 ((uint32_t)r[dst])
#define s32 ((uint32_t)r[src])
        switch (i->code) {
        /* ALU64 */
        case BPF_ALU64 | BPF_ADD | BPF_K:
            r[dst] += imm;
            if (t[dst].kind > R_LAST_MEMORY)
                t[dst].kind = R_SCALAR;
            break;
        case BPF_ALU64 | BPF_ADD | BPF_X: tag_add(vm, dst, src, false); r[dst] += r[src]; break;
        case BPF_ALU64 | BPF_SUB | BPF_K:
            r[dst] -= imm;
            if (t[dst].kind > R_LAST_MEMORY)
                t[dst].kind = R_SCALAR;
            break;
        case BPF_ALU64 | BPF_SUB | BPF_X: tag_add(vm, dst, src, true); r[dst] -= r[src]; break;
        ALU64(BPF_MUL, r[dst] * imm, r[dst] * r[src])
        case BPF_ALU64 | BPF_DIV | BPF_K:
            if (i->off == 1)
                r[dst] = imm ? (uint64_t)sdiv64((int64_t)r[dst], (int64_t)imm) : 0;
            else
                r[dst] = imm ? r[dst] / imm : 0;
            t[dst].kind = R_SCALAR;
            break;
        case BPF_ALU64 | BPF_DIV | BPF_X:
            if (i->off == 1)
                r[dst] = r[src] ? (uint64_t)sdiv64((int64_t)r[dst], (int64_t)r[src]) : 0;
            else
                r[dst] = r[src] ? r[dst] / r[src] : 0;
            t[dst].kind = R_SCALAR;
            break;
        case BPF_ALU64 | BPF_MOD | BPF_K:
            if (imm)
                r[dst] = i->off == 1 ? (uint64_t)smod64((int64_t)r[dst], (int64_t)imm) : r[dst] % imm;
            t[dst].kind = R_SCALAR;
            break;
        case BPF_ALU64 | BPF_MOD | BPF_X:
            if (r[src])
                r[dst] = i->off == 1 ? (uint64_t)smod64((int64_t)r[dst], (int64_t)r[src]) : r[dst] % r[src];
            t[dst].kind = R_SCALAR;
            break;
        ALU64(BPF_OR, r[dst] | imm, r[dst] | r[src])
        ALU64(BPF_AND, r[dst] & imm, r[dst] & r[src])
        ALU64(BPF_LSH, r[dst] << (imm & 63), r[dst] << (r[src] & 63))
        ALU64(BPF_RSH, r[dst] >> (imm & 63), r[dst] >> (r[src] & 63))
        case BPF_ALU64 | BPF_NEG: r[dst] = 0 - r[dst]; t[dst].kind = R_SCALAR; break;
        ALU64(BPF_XOR, r[dst] ^ imm, r[dst] ^ r[src])
        case BPF_ALU64 | BPF_MOV | BPF_K: r[dst] = imm; t[dst].kind = R_SCALAR; break;
        case BPF_ALU64 | BPF_MOV | BPF_X:
            switch (i->off) {
            case 0: r[dst] = r[src]; t[dst] = t[src]; break;
            case 8: r[dst] = (uint64_t)(int64_t)(int8_t)r[src]; t[dst].kind = R_SCALAR; break;
            case 16: r[dst] = (uint64_t)(int64_t)(int16_t)r[src]; t[dst].kind = R_SCALAR; break;
            case 32: r[dst] = (uint64_t)(int64_t)(int32_t)r[src]; t[dst].kind = R_SCALAR; break;
            default: BAD();
            }
            break;
        ALU64(BPF_ARSH, (uint64_t)((int64_t)r[dst] >> (imm & 63)), (uint64_t)((int64_t)r[dst] >> (r[src] & 63)))
        case BPF_ALU64 | BPF_END | BPF_K:
            if (i->imm != 16 && i->imm != 32 && i->imm != 64)
                BAD();
            r[dst] = bswap(r[dst], i->imm);
            t[dst].kind = R_SCALAR;
            break;

        /* ALU32: results are zero-extended */
        ALU32(BPF_ADD, d32 + imm32, d32 + s32)
        ALU32(BPF_SUB, d32 - imm32, d32 - s32)
        ALU32(BPF_MUL, d32 * imm32, d32 * s32)
        case BPF_ALU | BPF_DIV | BPF_K:
            if (i->off == 1)
                r[dst] = imm32 ? (uint32_t)sdiv32((int32_t)d32, (int32_t)imm32) : 0;
            else
                r[dst] = imm32 ? d32 / imm32 : 0;
            t[dst].kind = R_SCALAR;
            break;
        case BPF_ALU | BPF_DIV | BPF_X:
            if (i->off == 1)
                r[dst] = s32 ? (uint32_t)sdiv32((int32_t)d32, (int32_t)s32) : 0;
            else
                r[dst] = s32 ? d32 / s32 : 0;
            t[dst].kind = R_SCALAR;
            break;
        case BPF_ALU | BPF_MOD | BPF_K:
            if (i->off == 1)
                r[dst] = imm32 ? (uint32_t)smod32((int32_t)d32, (int32_t)imm32) : d32;
            else
                r[dst] = imm32 ? d32 % imm32 : d32;
            t[dst].kind = R_SCALAR;
            break;
        case BPF_ALU | BPF_MOD | BPF_X:
            if (i->off == 1)
                r[dst] = s32 ? (uint32_t)smod32((int32_t)d32, (int32_t)s32) : d32;
            else
                r[dst] = s32 ? d32 % s32 : d32;
            t[dst].kind = R_SCALAR;
            break;
        ALU32(BPF_OR, d32 | imm32, d32 | s32)
        ALU32(BPF_AND, d32 & imm32, d32 & s32)
        ALU32(BPF_LSH, d32 << (imm32 & 31), d32 << (s32 & 31))
        ALU32(BPF_RSH, d32 >> (imm32 & 31), d32 >> (s32 & 31))
        case BPF_ALU | BPF_NEG: r[dst] = (uint32_t)(0 - d32); t[dst].kind = R_SCALAR; break;
        ALU32(BPF_XOR, d32 ^ imm32, d32 ^ s32)
        case BPF_ALU | BPF_MOV | BPF_K: r[dst] = imm32; t[dst].kind = R_SCALAR; break;
        case BPF_ALU | BPF_MOV | BPF_X:
            switch (i->off) {
            case 0: r[dst] = s32; break;
            case 8: r[dst] = (uint32_t)(int32_t)(int8_t)s32; break;
            case 16: r[dst] = (uint32_t)(int32_t)(int16_t)s32; break;
            default: BAD();
            }
            t[dst].kind = R_SCALAR;
            break;
        ALU32(BPF_ARSH, (uint32_t)((int32_t)d32 >> (imm32 & 31)), (uint32_t)((int32_t)d32 >> (s32 & 31)))
        case BPF_ALU | BPF_END | BPF_TO_LE:
        case BPF_ALU | BPF_END | BPF_TO_BE:
            if (i->imm != 16 && i->imm != 32 && i->imm != 64)
                BAD();
            /* The host is little-endian: TO_LE only truncates. */
            r[dst] = BPF_SRC(i->code) == BPF_TO_BE ? bswap(r[dst], i->imm) : trunc_bits(r[dst], i->imm);
            t[dst].kind = R_SCALAR;
            break;

        /* JMP / JMP32 */
        case BPF_JMP | BPF_JA: pc += i->off; break;
        case BPF_JMP32 | BPF_JA: pc += i->imm; break;
        JMP64(BPF_JEQ, r[dst] == imm, r[dst] == r[src])
        JMP64(BPF_JGT, r[dst] > imm, r[dst] > r[src])
        JMP64(BPF_JGE, r[dst] >= imm, r[dst] >= r[src])
        JMP64(BPF_JSET, r[dst] & imm, r[dst] & r[src])
        JMP64(BPF_JNE, r[dst] != imm, r[dst] != r[src])
        JMP64(BPF_JSGT, (int64_t)r[dst] > (int64_t)imm, (int64_t)r[dst] > (int64_t)r[src])
        JMP64(BPF_JSGE, (int64_t)r[dst] >= (int64_t)imm, (int64_t)r[dst] >= (int64_t)r[src])
        JMP64(BPF_JLT, r[dst] < imm, r[dst] < r[src])
        JMP64(BPF_JLE, r[dst] <= imm, r[dst] <= r[src])
        JMP64(BPF_JSLT, (int64_t)r[dst] < (int64_t)imm, (int64_t)r[dst] < (int64_t)r[src])
        JMP64(BPF_JSLE, (int64_t)r[dst] <= (int64_t)imm, (int64_t)r[dst] <= (int64_t)r[src])
        JMP32(BPF_JEQ, d32 == imm32, d32 == s32)
        JMP32(BPF_JGT, d32 > imm32, d32 > s32)
        JMP32(BPF_JGE, d32 >= imm32, d32 >= s32)
        JMP32(BPF_JSET, d32 & imm32, d32 & s32)
        JMP32(BPF_JNE, d32 != imm32, d32 != s32)
        JMP32(BPF_JSGT, (int32_t)d32 > (int32_t)imm32, (int32_t)d32 > (int32_t)s32)
        JMP32(BPF_JSGE, (int32_t)d32 >= (int32_t)imm32, (int32_t)d32 >= (int32_t)s32)
        JMP32(BPF_JLT, d32 < imm32, d32 < s32)
        JMP32(BPF_JLE, d32 <= imm32, d32 <= s32)
        JMP32(BPF_JSLT, (int32_t)d32 < (int32_t)imm32, (int32_t)d32 < (int32_t)s32)
        JMP32(BPF_JSLE, (int32_t)d32 <= (int32_t)imm32, (int32_t)d32 <= (int32_t)s32)
        case BPF_JMP | BPF_CALL:
            if (src == BPF_PSEUDO_CALL) {
                int64_t target = (int64_t)pc + i->imm + 1;
                if (target < 0 || target >= n)
                    { vm_fault(vm, BPF_FAULT_INSN, "call target %lld outside the program", (long long)target); goto fail; }
                if (push_frame(vm, pc + 1))
                    goto fail;
                pc = (uint32_t)target - 1;
                break;
            }
            vm->executed = executed;
            if (src == BPF_PSEUDO_KFUNC_CALL ? call_kfunc(vm, i->imm) : src == 0 ? vm_call_helper(vm, i->imm) : -2) {
                executed = vm->executed; /* what the call and its callbacks spent counts in the fault too */
                if (!vm->failed)
                    BAD();
                goto fail;
            }
            executed = vm->executed;
            stop = budget < vm->wall_next ? budget : vm->wall_next;
            for (int a = 1; a <= 5; a++)
                t[a].kind = R_SCALAR;
            break;
        case BPF_JMP | BPF_EXIT:
            if (vm->depth == base) {
                vm->executed = executed;
                return 0;
            }
            pc = pop_frame(vm) - 1;
            break;

        /* loads and stores */
        case BPF_LD | BPF_IMM | BPF_DW:
            if (ld_imm64(vm, i, pc))
                goto fail;
            pc++;
            break;
        LDX(BPF_MEM | BPF_W, uint32_t, 4)
        LDX(BPF_MEM | BPF_H, uint16_t, 2)
        LDX(BPF_MEM | BPF_B, uint8_t, 1)
        case BPF_LDX | BPF_MEM | BPF_DW: {
            const void *p = load_addr(vm, src, i->off, 8);
            if (!p)
                goto fail;
            uint64_t v;
            memcpy(&v, p, 8);
            fill(vm, src, i->off, dst);
            r[dst] = v;
            break;
        }
        case BPF_LDX | BPF_MEMSX | BPF_W: {
            const void *p = load_addr(vm, src, i->off, 4);
            if (!p)
                goto fail;
            int32_t v;
            memcpy(&v, p, 4);
            r[dst] = (uint64_t)(int64_t)v;
            t[dst].kind = R_SCALAR;
            break;
        }
        case BPF_LDX | BPF_MEMSX | BPF_H: {
            const void *p = load_addr(vm, src, i->off, 2);
            if (!p)
                goto fail;
            int16_t v;
            memcpy(&v, p, 2);
            r[dst] = (uint64_t)(int64_t)v;
            t[dst].kind = R_SCALAR;
            break;
        }
        case BPF_LDX | BPF_MEMSX | BPF_B: {
            const void *p = load_addr(vm, src, i->off, 1);
            if (!p)
                goto fail;
            int8_t v;
            memcpy(&v, p, 1);
            r[dst] = (uint64_t)(int64_t)v;
            t[dst].kind = R_SCALAR;
            break;
        }
        ST(BPF_ST | BPF_MEM | BPF_W, uint32_t, 4, imm)
        ST(BPF_ST | BPF_MEM | BPF_H, uint16_t, 2, imm)
        ST(BPF_ST | BPF_MEM | BPF_B, uint8_t, 1, imm)
        ST(BPF_ST | BPF_MEM | BPF_DW, uint64_t, 8, imm)
        ST(BPF_STX | BPF_MEM | BPF_W, uint32_t, 4, r[src])
        ST(BPF_STX | BPF_MEM | BPF_H, uint16_t, 2, r[src])
        ST(BPF_STX | BPF_MEM | BPF_B, uint8_t, 1, r[src])
        case BPF_STX | BPF_MEM | BPF_DW: {
            void *p = store_addr(vm, dst, i->off, 8);
            if (!p)
                goto fail;
            memcpy(p, &r[src], 8);
            spill(vm, dst, i->off, src);
            break;
        }
        case BPF_STX | BPF_ATOMIC | BPF_W:
        case BPF_STX | BPF_ATOMIC | BPF_DW:
            if (atomic_op(vm, i))
                goto fail;
            break;
        default: BAD();
        }
    }
fail:
    vm->executed = executed;
    return -1;
}

#undef d32
#undef s32

int vm_call_subprog(struct vm *vm, uint32_t target, uint64_t r1, uint64_t r2, struct tag *t2, uint64_t *r0)
{
    uint64_t saved[NREG_SLOTS];
    struct tag saved_t[NREG_SLOTS];
    uint32_t saved_pc = vm->pc;
    memcpy(saved, vm->r, sizeof saved);
    memcpy(saved_t, vm->t, sizeof saved_t);
    if (vm->n_held + 2 > sizeof vm->held / sizeof vm->held[0])
        return vm_fault(vm, BPF_FAULT_DEPTH, "call depth exceeds %u frames", vm->max_frames);
    if (push_frame(vm, 0))
        return -1;
    uint32_t held_at = vm->n_held;
    vm->held[vm->n_held].t = saved_t;
    vm->held[vm->n_held++].n = NREG_SLOTS;
    vm->held[vm->n_held].t = t2;
    vm->held[vm->n_held++].n = 1;
    vm->r[1] = r1;
    vm->t[1].kind = R_SCALAR;
    vm->r[2] = r2;
    vm->t[2] = *t2;
    for (int a = 3; a <= 5; a++)
        vm->t[a].kind = R_SCALAR;
    int rc = exec(vm, target, vm->depth);
    vm->n_held = held_at;
    if (rc)
        return rc;
    *r0 = vm->r[0];
    vm->depth--;
    memcpy(vm->r, saved, sizeof saved);
    memcpy(vm->t, saved_t, sizeof saved_t);
    vm->pc = saved_pc;
    return 0;
}

/* What a run starts with besides the program: r1 (the ctx), or an async callback's r1..r3 (map, key, value). */
struct entry {
    uint32_t pc;
    void *ctx;
    size_t ctx_size;
    bool ctx_readonly;
    struct bpf_map *map;
    const void *key;
    uint32_t key_size;
    void *value;
    uint32_t value_size;
};

static int run_at(const struct bpf_vm_env *env, const struct bpf_prog *prog, const struct entry *e, uint64_t *r0,
                  struct bpf_fault *fault)
{
    /* The state is large (stack frames and their spill tags): one per thread, and a heap copy
     * when a kfunc makes the emulator run another program on the same thread. */
    static _Thread_local struct vm vm_storage;
    static _Thread_local int nesting;
    struct vm *vm = nesting ? malloc(sizeof *vm) : &vm_storage;
    if (!vm) {
        if (fault) {
            memset(fault, 0, sizeof *fault);
            fault->kind = BPF_FAULT_INSN;
            vm_locate(prog, 0, fault);
            snprintf(fault->reason, sizeof fault->reason, "out of memory for a nested run");
        }
        return -1;
    }
    nesting++;
    vm->env = env;
    vm->prog = prog;
    vm->depth = 0;
    vm->n_held = 0;
    vm->max_frames = env->max_frames && env->max_frames < BPF_VM_MAX_FRAMES ? env->max_frames : BPF_VM_MAX_FRAMES;
    vm->pc = e->pc;
    vm->executed = 0;
    vm->budget = env->insn_budget ? env->insn_budget : BPF_VM_DEFAULT_BUDGET;
    vm->wall_next = nvemu_deadline() ? WALL_CHECK_INSNS : UINT64_MAX;
    vm->ctx = e->ctx;
    vm->ctx_size = e->ctx_size;
    vm->ctx_readonly = e->ctx_readonly;
    vm->failed = false;
    vm->fault = fault;
    if (fault) {
        fault->kind = BPF_FAULT_NONE;
        fault->insn = 0;
        fault->prog[0] = fault->where[0] = fault->reason[0] = '\0';
    }
    memset(vm->r, 0, sizeof vm->r);
    memset(vm->t, 0, sizeof vm->t);
    enter_frame(vm, 0);
    if (e->map) {
        vm->r[1] = (uint64_t)(uintptr_t)e->map;
        vm->t[1] = (struct tag){(uintptr_t)e->map, 0, R_MAP, 0};
        vm->r[2] = (uint64_t)(uintptr_t)e->key;
        vm->t[2] = (struct tag){(uintptr_t)e->key, e->key_size, R_VALUE, T_READ};
        vm->r[3] = (uint64_t)(uintptr_t)e->value;
        vm->t[3] = (struct tag){(uintptr_t)e->value, e->value_size, R_VALUE, T_READ | T_WRITE};
    } else {
        vm->r[1] = (uint64_t)(uintptr_t)e->ctx;
        if (e->ctx)
            vm->t[1] = (struct tag){(uintptr_t)e->ctx, (uint32_t)e->ctx_size, R_CTX,
                                    (uint8_t)(T_READ | (e->ctx_readonly ? 0 : T_WRITE))};
    }
    int rc = prog->insns && e->pc < prog->n ? exec(vm, e->pc, 0)
                                           : vm_fault(vm, BPF_FAULT_INSN, "empty program");
    if (fault)
        fault->insns = vm->executed;
    bool ok = !rc && !vm->failed;
    if (ok && r0)
        *r0 = vm->r[0];
    if (--nesting)
        free(vm);
    return ok ? 0 : -1;
}

int bpf_vm_run(const struct bpf_vm_env *env, const struct bpf_prog *prog, void *ctx, size_t ctx_size,
               bool ctx_readonly, uint64_t *r0, struct bpf_fault *fault)
{
    struct entry e = {.ctx = ctx, .ctx_size = ctx_size, .ctx_readonly = ctx_readonly};
    return run_at(env, prog, &e, r0, fault);
}

int bpf_vm_run_callback(const struct bpf_vm_env *env, const struct bpf_prog *prog, uint32_t entry,
                        struct bpf_map *map, const void *key, uint32_t key_size, void *value, uint32_t value_size,
                        uint64_t *r0, struct bpf_fault *fault)
{
    /* an async callback runs in process context: sleepable, whatever the program that armed it */
    struct bpf_prog sleepable = *prog;
    sleepable.sleepable = true;
    struct entry e = {.pc = entry, .map = map, .key = key, .key_size = key_size, .value = value,
                      .value_size = value_size};
    return run_at(env, &sleepable, &e, r0, fault);
}
