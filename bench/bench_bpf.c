/*
 * BPF interpreter benchmarks: a policy-shaped struct_ops callback (read the ctx, name lookup in
 * a HASH keyed by the caller's comm, a `.rodata` default, one decision kfunc, an atomic counter in
 * a stats ARRAY) run through bpf_vm_run, as instructions per second, callbacks per second and its
 * cost against the same logic written in C over the same maps, measured in one run.
 */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "bpf/bpf_vm.h"
#include "runner.h"
#include "scenario.h"

#define I(c, d, s, o, i) \
    ((struct bpf_insn){.code = (uint8_t)(c), .dst_reg = (d), .src_reg = (s), .off = (int16_t)(o), .imm = (int32_t)(i)})
#define LD64(d, s, v) I(BPF_LD | BPF_IMM | BPF_DW, d, s, 0, (int32_t)(uint32_t)(v)), I(0, 0, 0, 0, (int32_t)((v) >> 32))

struct task_init_ctx {                /* nv_gpu_task_init_ctx, 32 bytes */
    uint64_t tsg_id;
    uint32_t engine_type;
    uint32_t pad;
    uint64_t default_timeslice;
    uint32_t default_interleave;
    uint32_t runlist_id;
};

struct fixture {
    struct bpf_map *maps[3];          /* timeslice by comm, stats, .rodata */
    struct bpf_insn insns[48];
    struct bpf_prog prog;
    struct bpf_vm_env env;
    uint64_t applied;
};

static uint64_t set_timeslice(void *env_ctx, const uint64_t a[5], struct bpf_vm_call *call)
{
    (void)call;
    struct fixture *fx = env_ctx;
    fx->applied += a[1];
    return 0;
}

static const struct bpf_kfunc kfuncs[] = {
    {.name = "bpf_nv_gpu_set_timeslice", .fn = set_timeslice,
     .args = {{BPF_ARG_CTX, false, 0}, {BPF_ARG_SCALAR, false, 0}}},
};

static bool current(void *c, struct bpf_vm_task *t)
{
    (void)c;
    t->pid = t->tgid = 4242;
    memcpy(t->comm, "lc-server", 10);
    return true;
}

static int fixture_init(struct fixture *fx)
{
    memset(fx, 0, sizeof *fx);
    static const struct bpf_map_def defs[3] = {
        {"process_timeslice", BPF_MAP_TYPE_HASH, 16, 8, 64, 0},
        {"stats", BPF_MAP_TYPE_ARRAY, 4, 8, 16, 0},
        {".rodata", BPF_MAP_TYPE_ARRAY, 4, 8, 1, BPF_F_RDONLY_PROG},
    };
    for (int i = 0; i < 3; i++)
        if (!(fx->maps[i] = bpf_map_create(&defs[i], NULL, 0)))
            return -1;
    char key[16] = "lc-server";
    uint64_t ts = 1000, knob = 2000;
    bpf_map_update(fx->maps[0], key, &ts, BPF_ANY);
    bpf_map_initial_value(fx->maps[2], &knob, sizeof knob);
    uint64_t ts_map = (uint64_t)(uintptr_t)fx->maps[0], stats = (uint64_t)(uintptr_t)fx->maps[1];
    uint64_t rodata = (uint64_t)(uintptr_t)bpf_map_value_base(fx->maps[2], NULL);
    const struct bpf_insn p[] = {
        I(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0),                   /* r6 = ctx */
        I(BPF_LDX | BPF_MEM | BPF_W, 7, 6, 8, 0),                     /* r7 = engine_type */
        I(BPF_JMP | BPF_JGT | BPF_K, 7, 0, 24, 8),                    /* GR engines only */
        I(BPF_ALU64 | BPF_MOV | BPF_X, 1, 10, 0, 0),
        I(BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, -16),
        I(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, 16),
        I(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_current_comm),
        LD64(1, BPF_PSEUDO_MAP_FD, ts_map),
        I(BPF_ALU64 | BPF_MOV | BPF_X, 2, 10, 0, 0),
        I(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -16),
        I(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
        I(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2, 0),
        I(BPF_LDX | BPF_MEM | BPF_DW, 8, 0, 0, 0),                    /* per-process timeslice */
        I(BPF_JMP | BPF_JA, 0, 0, 3, 0),
        LD64(1, BPF_PSEUDO_MAP_VALUE, rodata),
        I(BPF_LDX | BPF_MEM | BPF_DW, 8, 1, 0, 0),                    /* .rodata default */
        I(BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0),
        I(BPF_ALU64 | BPF_MOV | BPF_X, 2, 8, 0, 0),
        I(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, 0),        /* set_timeslice(ctx, ts) */
        I(BPF_STX | BPF_MEM | BPF_W, 10, 7, -20, 0),
        LD64(1, BPF_PSEUDO_MAP_FD, stats),
        I(BPF_ALU64 | BPF_MOV | BPF_X, 2, 10, 0, 0),
        I(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -20),
        I(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
        I(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2, 0),
        I(BPF_ALU64 | BPF_MOV | BPF_K, 1, 0, 0, 1),
        I(BPF_STX | BPF_ATOMIC | BPF_DW, 0, 1, 0, BPF_ADD),           /* stats[engine]++ */
        I(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0),
        I(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
    };
    memcpy(fx->insns, p, sizeof p);
    fx->prog = (struct bpf_prog){.name = "on_task_init", .insns = fx->insns, .n = sizeof p / sizeof p[0],
                                 .maps = fx->maps, .n_maps = 3};
    fx->env = (struct bpf_vm_env){.ctx = fx, .current_task = current, .kfuncs = kfuncs, .n_kfuncs = 1};
    struct bpf_fault f;
    char buf[512];
    if (bpf_vm_check(&fx->env, &fx->prog, true, &f)) {
        fprintf(stderr, "bench_bpf: %s\n", bpf_fault_format(&f, buf, sizeof buf));
        return -1;
    }
    return 0;
}

static void fixture_fini(struct fixture *fx)
{
    for (int i = 0; i < 3; i++)
        bpf_map_destroy(fx->maps[i]);
}

/* The same callback in C over the same maps. */
static void native_callback(struct fixture *fx, const struct task_init_ctx *ctx)
{
    if (ctx->engine_type > 8)
        return;
    struct bpf_vm_task t = {0};
    current(NULL, &t);
    char key[16];
    memcpy(key, t.comm, sizeof key);
    const uint64_t *ts = bpf_map_lookup(fx->maps[0], key);
    uint64_t v = ts ? *ts : *(const uint64_t *)bpf_map_value_base(fx->maps[2], NULL);
    uint64_t args[5] = {(uint64_t)(uintptr_t)ctx, v, 0, 0, 0};
    struct bpf_vm_call call = {0};
    kfuncs[0].fn(fx, args, &call);
    uint32_t idx = ctx->engine_type;
    uint64_t *cnt = bpf_map_lookup(fx->maps[1], &idx);
    if (cnt)
        __atomic_fetch_add(cnt, 1, __ATOMIC_RELAXED);
}

struct measured {
    double bpf_s, c_s;
    uint64_t calls, c_calls, insns;
};

static int measure(const struct bench_ctx *bctx, struct measured *m)
{
    struct fixture fx;
    if (fixture_init(&fx)) {
        fixture_fini(&fx);
        return -1;
    }
    struct task_init_ctx ctx = {.tsg_id = 1, .engine_type = 1, .default_timeslice = 1024, .runlist_id = 0};
    memset(m, 0, sizeof *m);
    struct bpf_fault f;
    uint64_t r0;
    double t0 = bench_now(), t1;
    do {
        for (int i = 0; i < 1000; i++) {
            if (bpf_vm_run(&fx.env, &fx.prog, &ctx, sizeof ctx, true, &r0, &f)) {
                char buf[512];
                fprintf(stderr, "bench_bpf: %s\n", bpf_fault_format(&f, buf, sizeof buf));
                fixture_fini(&fx);
                return -1;
            }
            m->insns += f.insns;
        }
        m->calls += 1000;
        t1 = bench_now();
    } while (t1 - t0 < bctx->seconds / 2);
    m->bpf_s = t1 - t0;
    t0 = bench_now();
    do {
        for (int i = 0; i < 1000; i++)
            native_callback(&fx, &ctx);
        m->c_calls += 1000;
        t1 = bench_now();
    } while (t1 - t0 < bctx->seconds / 2);
    m->c_s = t1 - t0;
    uint32_t idx = 1;
    const uint64_t *cnt = bpf_map_lookup(fx.maps[1], &idx);
    int rc = cnt && *cnt == m->calls + m->c_calls && fx.applied == 1000 * (m->calls + m->c_calls) ? 0 : -1;
    if (rc)
        fprintf(stderr, "bench_bpf: the callbacks did not all take effect\n");
    fixture_fini(&fx);
    return rc;
}

static int insns_rate(const struct bench_ctx *ctx, struct bench_result *out)
{
    struct measured m;
    if (measure(ctx, &m))
        return -1;
    out->value = (double)m.insns / m.bpf_s;
    snprintf(out->note, sizeof out->note, "%llu callbacks of %llu insns each (helpers and a kfunc included)",
             (unsigned long long)m.calls, (unsigned long long)(m.insns / m.calls));
    return 0;
}

static int callback_rate(const struct bench_ctx *ctx, struct bench_result *out)
{
    struct measured m;
    if (measure(ctx, &m))
        return -1;
    out->value = (double)m.calls / m.bpf_s;
    snprintf(out->note, sizeof out->note, "on_task_init-shaped callback through bpf_vm_run");
    return 0;
}

static int vs_native(const struct bench_ctx *ctx, struct bench_result *out)
{
    struct measured m;
    if (measure(ctx, &m))
        return -1;
    double bpf_ns = m.bpf_s * 1e9 / (double)m.calls, c_ns = m.c_s * 1e9 / (double)m.c_calls;
    out->value = bpf_ns / c_ns;
    snprintf(out->note, sizeof out->note, "%.0f ns per BPF callback vs %.0f ns for its C twin", bpf_ns, c_ns);
    return 0;
}

/*
 * The gpreempt policy as its C plugin and as its BPF twin (gpreempt.bpf.o) on the same LC/BE scenario:
 * wall time of the whole run, BPF over C, alternating the two so drift hits both.
 */
#define TWIN_SCENARIO \
    "name: bench-twin\nduration: 2s\nwarmup: 100ms\nbaseline: false\n"                                     \
    "policy: %s\n"                                                                                            \
    "tasks:\n"                                                                                                 \
    "  - {name: lc, class: LC, arrival: {type: poisson, rate: 200}, request: {kernels: [{duration: 100us, blocks: 264, repeat: 8}]}}\n" \
    "  - {name: be, class: BE, count: 2, arrival: {type: closed}, request: {kernels: [{duration: 200us, blocks: 1056, repeat: 10}]}}\n"

static double run_twin(const char *policy, char *err, size_t errlen)
{
    char text[sizeof TWIN_SCENARIO + 128];
    snprintf(text, sizeof text, TWIN_SCENARIO, policy);
    struct scenario *sc = scenario_load_string("bench-twin", text, err, errlen);
    if (!sc)
        return -1;
    struct sc_run_opts o = {0};
    struct sc_results r;
    memset(&r, 0, sizeof r);
    double t0 = bench_now();
    int rc = sc_run(sc, &o, &r, err, errlen);
    double dt = bench_now() - t0;
    sc_results_free(&r);
    scenario_free(sc);
    return rc == 0 ? dt : -1;
}

static int scenario_vs_c(const struct bench_ctx *ctx, struct bench_result *out)
{
    static const char *const bpf_policy = "{bpf: gpreempt, maps: {process_class: {lc: 1, be: 2}}}";
    static const char *const c_policy = "{plugin: gpreempt, args: {lc: lc, be: be}}";
    char err[512] = "";
    double bpf = 0, c = 0;
    int runs = 0;
    /* one untimed run each: the first run pays for loading the plugin and faulting in the code */
    if (run_twin(bpf_policy, err, sizeof err) < 0 || run_twin(c_policy, err, sizeof err) < 0) {
        fprintf(stderr, "bench_bpf: %s\n", err[0] ? err : "the twin scenario did not run");
        return -1;
    }
    double t0 = bench_now();
    do {
        double b = run_twin(bpf_policy, err, sizeof err);
        double n = run_twin(c_policy, err, sizeof err);
        if (b < 0 || n < 0) {
            fprintf(stderr, "bench_bpf: %s\n", err[0] ? err : "the twin scenario did not run");
            return -1;
        }
        bpf += b;
        c += n;
        runs++;
    } while (bench_now() - t0 < ctx->seconds);
    out->value = bpf / c;
    snprintf(out->note, sizeof out->note, "2 s LC/BE scenario, gpreempt.bpf.o %.1f ms vs gpreempt.so %.1f ms wall (%d runs each)",
             bpf * 1e3 / runs, c * 1e3 / runs, runs);
    return 0;
}

const struct bench_row bench_rows_bpf[] = {
    {"bpf.interp_insns_rate", "insns/s", 2e7, true, insns_rate},
    {"bpf.policy_callback_rate", "calls/s", 5e5, true, callback_rate},
    {"bpf.policy_vs_c_ratio", "x", 15, false, vs_native},
    {"bpf.scenario_vs_c_ratio", "x", 1.1, false, scenario_vs_c},
    {NULL, NULL, 0, false, NULL},
};
