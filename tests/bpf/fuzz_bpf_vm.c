/*
 * libFuzzer target over the interpreter: the input is a program (8 bytes per instruction, with
 * registers, helper ids, kfunc indexes and map references folded into range so the fuzzer reaches
 * the interesting paths); each runs through bpf_vm_check, the verifier pass (bpf_vm_verify) when it
 * passed, and then, checked or not, bpf_vm_run with a small budget. Any crash, sanitizer report or leak is a bug: faults are the only way out.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bpf/bpf_vm.h"

#define MAX_INSNS 256

static struct bpf_map *maps[4];
static uint64_t prng = 1;

static uint64_t clock_ns(void *c)
{
    (void)c;
    return 1000;
}

static bool current(void *c, struct bpf_vm_task *t)
{
    (void)c;
    t->pid = t->tgid = 7;
    memcpy(t->comm, "fuzz", 5);
    return true;
}

static void sink(void *c, const struct bpf_prog *p, const char *line)
{
    (void)c;
    (void)p;
    (void)line;
}

static uint64_t k_ctx(void *e, const uint64_t a[5], struct bpf_vm_call *call)
{
    (void)e;
    return a[1] ^ call->insn;
}

static uint64_t k_fail(void *e, const uint64_t a[5], struct bpf_vm_call *call)
{
    (void)e;
    if (a[0] & 1)
        bpf_vm_call_fail(call, "odd");
    return 0;
}

static const struct bpf_kfunc kfuncs[] = {
    {.name = "ctx", .fn = k_ctx, .args = {{BPF_ARG_CTX, true, 0}, {BPF_ARG_SCALAR, false, 0}}},
    {.name = "mem", .fn = k_ctx, .args = {{BPF_ARG_MEM_RW, false, 24}}},
    {.name = "fail", .fn = k_fail, .args = {{BPF_ARG_SCALAR, false, 0}}, .sleepable = true},
};

static void init(void)
{
    static const struct bpf_map_def defs[4] = {
        {"hash", BPF_MAP_TYPE_HASH, 4, 16, 8, 0},
        {".rodata", BPF_MAP_TYPE_ARRAY, 4, 64, 1, BPF_F_RDONLY_PROG},
        {"rb", BPF_MAP_TYPE_RINGBUF, 0, 0, 4096, 0},
        {"lru", BPF_MAP_TYPE_LRU_HASH, 8, 8, 4, 0},
    };
    for (int i = 0; i < 4; i++)
        maps[i] = bpf_map_create(&defs[i], NULL, 0);
    static const char fmt[] = "%d %s %llx\0";
    bpf_map_initial_value(maps[1], fmt, sizeof fmt);
}

static void fold(struct bpf_insn *in, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        struct bpf_insn *x = &in[i];
        if (x->dst_reg > 10)
            x->dst_reg %= 11;
        if (bpf_insn_is_wide(x) && i + 1 < n) {
            uint64_t v = bpf_insn_imm64(x);
            uint8_t s = x->src_reg & 7;
            if (s == BPF_PSEUDO_MAP_FD)
                v = (uint64_t)(uintptr_t)maps[v % 4];
            else if (s == BPF_PSEUDO_MAP_VALUE)
                v = (uint64_t)(uintptr_t)bpf_map_value_base(maps[1], NULL) + v % 64;
            else if (s == BPF_PSEUDO_FUNC)
                v = (uint32_t)(int32_t)((int32_t)(v % (n + 2)) - (int32_t)i - 1);
            x->src_reg = s;
            x->imm = (int32_t)(uint32_t)v;
            in[i + 1].imm = (int32_t)(uint32_t)(v >> 32);
            i++;
            continue;
        }
        if (x->src_reg > 10)
            x->src_reg %= 11;
        if (x->code == (BPF_JMP | BPF_CALL)) {
            x->src_reg %= 3;
            if (x->src_reg == 0)
                x->imm = (int32_t)((uint32_t)x->imm % 212);
            else if (x->src_reg == BPF_PSEUDO_KFUNC_CALL)
                x->imm = (int32_t)((uint32_t)x->imm % 4);
            else
                x->imm %= (int32_t)n;
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!maps[0])
        init();
    if (size < 9)
        return 0;
    uint8_t flags = data[0];
    uint32_t n = (uint32_t)((size - 1) / 8);
    if (n > MAX_INSNS)
        n = MAX_INSNS;
    struct bpf_insn insns[MAX_INSNS];
    memcpy(insns, data + 1, n * sizeof insns[0]);
    fold(insns, n);
    struct bpf_vm_env env = {
        .clock_ns = clock_ns, .prng_state = &prng, .current_task = current, .printk = sink,
        .kfuncs = kfuncs, .n_kfuncs = 3, .insn_budget = 4096, .max_frames = 1 + flags % 8,
    };
    struct bpf_prog prog = {.name = "fuzz", .insns = insns, .n = n, .sleepable = flags & 0x10, .maps = maps, .n_maps = 4};
    uint64_t ctx[4] = {1, 2, 3, 4}, r0;
    struct bpf_fault f;
    bool ro = flags & 0x20;
    int checked = bpf_vm_check(&env, &prog, ro, &f);
    if (checked == 0)
        bpf_vm_verify(&env, &prog, flags & 0x08, &f);
    if (checked == 0 || (flags & 0x40))
        bpf_vm_run(&env, &prog, (flags & 0x80) ? NULL : ctx, (flags & 0x80) ? 0 : sizeof ctx, ro, &r0, &f);
    char buf[512];
    bpf_fault_format(&f, buf, sizeof buf);
    for (uint32_t i = 0; i < n; i++)
        i += (uint32_t)bpf_disasm(&insns[i], n - i, buf, sizeof buf) - 1;
    bpf_map_ringbuf_drain(maps[2], NULL, NULL);
    return 0;
}
