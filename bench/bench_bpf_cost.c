/*
 * What one BPF policy callback can cost: an update that evicts from a full 50 k-entry LRU_HASH (the least
 * recently used element is the head of a list, not found by a scan), and a bpf_printk whose field width is
 * 999999999 (clamped as the kernel clamps it, formatted no wider than the line can show).
 */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "bpf/bpf_vm.h"

#define LRU_ENTRIES 50000u
#define INSN(c, d, s, o, i) \
    ((struct bpf_insn){.code = (uint8_t)(c), .dst_reg = (d), .src_reg = (s), .off = (int16_t)(o), .imm = (int32_t)(i)})

static int lru_evict(const struct bench_ctx *ctx, struct bench_result *out)
{
    struct bpf_map_def d = {"lru", BPF_MAP_TYPE_LRU_HASH, 4, 8, LRU_ENTRIES, 0};
    struct bpf_map *m = bpf_map_create(&d, NULL, 0);
    if (!m)
        return -1;
    uint64_t v = 1;
    uint32_t k = 0;
    for (; k < LRU_ENTRIES; k++)
        bpf_map_update(m, &k, &v, BPF_ANY);
    uint64_t n = 0;
    double t0 = bench_now(), t1;
    do {
        for (int i = 0; i < 1024; i++, k++, n++)
            bpf_map_update(m, &k, &v, BPF_ANY);
        t1 = bench_now();
    } while (t1 - t0 < ctx->seconds / 2);
    out->value = (t1 - t0) / (double)n;
    snprintf(out->note, sizeof(out->note), "update of a new key into a full %u-entry LRU_HASH (evicts one)",
             LRU_ENTRIES);
    bpf_map_destroy(m);
    return 0;
}

static size_t printed;
static void sink(void *c, const struct bpf_prog *p, const char *line)
{
    (void)c;
    (void)p;
    printed = strlen(line);
}

static int printk_wide(const struct bench_ctx *ctx, struct bench_result *out)
{
    struct bpf_map_def ro = {".rodata", BPF_MAP_TYPE_ARRAY, 4, 16, 1, BPF_F_RDONLY_PROG};
    struct bpf_map *r = bpf_map_create(&ro, NULL, 0);
    static const char fmt[] = "%999999999d";
    if (!r || bpf_map_initial_value(r, fmt, sizeof fmt)) {
        bpf_map_destroy(r);
        return -1;
    }
    uint64_t at = (uint64_t)(uintptr_t)bpf_map_value_base(r, NULL);
    const struct bpf_insn p[] = {
        INSN(BPF_LD | BPF_IMM | BPF_DW, 1, BPF_PSEUDO_MAP_VALUE, 0, (uint32_t)at), INSN(0, 0, 0, 0, (uint32_t)(at >> 32)),
        INSN(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, sizeof fmt), INSN(BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, 5),
        INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_trace_printk), INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
    };
    struct bpf_map *maps[1] = {r};
    struct bpf_prog prog = {.name = "printk", .insns = p, .n = sizeof p / sizeof p[0], .maps = maps, .n_maps = 1};
    struct bpf_vm_env env = {.printk = sink};
    struct bpf_fault f;
    uint64_t r0, n = 0;
    int rc = 0;
    double t0 = bench_now(), t1;
    do {
        rc |= bpf_vm_run(&env, &prog, NULL, 0, false, &r0, &f);
        n++;
        t1 = bench_now();
    } while (rc == 0 && t1 - t0 < ctx->seconds / 2);
    out->value = (t1 - t0) / (double)n;
    snprintf(out->note, sizeof(out->note), "one callback: bpf_printk(\"%%999999999d\", 5), a %zu-byte line", printed);
    bpf_map_destroy(r);
    return rc;
}

const struct bench_row bench_rows_bpf_cost[] = {
    {"bpf_cost.lru_evict_50k", "s", 2e-6, false, lru_evict},
    {"bpf_cost.printk_width_999999999", "s", 1e-4, false, printk_wide},
    {NULL, NULL, 0, false, NULL},
};
