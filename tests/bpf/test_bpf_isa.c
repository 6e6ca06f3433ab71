/*
 * The interpreter against RFC 9669: every conformance group's edge-case table, the control-flow
 * and pseudo instruction forms a loader leaves, and a walk over the whole opcode space proving
 * that every instruction the ISA defines is exercised by some test program here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "bpf/bpf_vm.h"
#include "bpf_asm.h"
#include "isa_cases.h"

static int run_prog(const struct bpf_insn *insns, uint32_t n, const struct bpf_vm_env *env, struct bpf_map *const *maps,
                    uint32_t n_maps, void *ctx, size_t ctx_size, uint64_t *r0, struct bpf_fault *f)
{
    struct bpf_prog p = {.name = "isa", .insns = insns, .n = n, .maps = maps, .n_maps = n_maps};
    if (bpf_vm_check(env, &p, false, f))
        return -2;
    return bpf_vm_run(env, &p, ctx, ctx_size, false, r0, f);
}

static void isa_group_tables_give_each_rows_result(void **state)
{
    (void)state;
    struct bpf_vm_env env = {0};
    unsigned failures = 0, rows = 0;
    for (uint32_t g = 0; g < isa_ngroups; g++) {
        const struct case_group *grp = &isa_groups[g];
        for (uint32_t i = 0; i < grp->n; i++, rows++) {
            struct bpf_insn prog[CASE_MAX_INSNS];
            uint32_t n = isa_build(grp, i, prog);
            uint64_t ctx[3] = {0}, want[3], r0 = 0xdead;
            struct bpf_fault f;
            int rc = run_prog(prog, n, &env, NULL, 0, ctx, sizeof ctx, &r0, &f);
            isa_expect_ctx(grp, i, want);
            if (rc) {
                char buf[512];
                printf("FAIL %s/%s: %s\n", grp->group, isa_row_name(grp, i), bpf_fault_format(&f, buf, sizeof buf));
                failures++;
            } else if (r0 != isa_expect_r0(grp, i) || memcmp(ctx, want, sizeof ctx)) {
                printf("FAIL %s/%s: r0 0x%llx (want 0x%llx) ctx %llx %llx %llx (want %llx %llx %llx)\n", grp->group,
                       isa_row_name(grp, i), (unsigned long long)r0, (unsigned long long)isa_expect_r0(grp, i),
                       (unsigned long long)ctx[0], (unsigned long long)ctx[1], (unsigned long long)ctx[2],
                       (unsigned long long)want[0], (unsigned long long)want[1], (unsigned long long)want[2]);
                failures++;
            }
        }
    }
    printf("%u table rows\n", rows);
    assert_int_equal(failures, 0);
}

/* --- control flow and the forms a loader leaves --- */

static uint64_t k_sum3(void *env_ctx, const uint64_t a[5], struct bpf_vm_call *call)
{
    (void)env_ctx;
    (void)call;
    return a[0] + a[1] + a[2];
}

static const struct bpf_kfunc kfuncs[] = {
    {.name = "sum3", .fn = k_sum3, .args = {{BPF_ARG_SCALAR, false, 0}, {BPF_ARG_SCALAR, false, 0}, {BPF_ARG_SCALAR, false, 0}}},
};

struct prog_case {
    const char *name;
    struct bpf_insn insns[24];
    uint32_t n;
    uint64_t expect;
};

#define PROG(name, expect, ...) {name, {__VA_ARGS__}, NINSN(((struct bpf_insn[]){__VA_ARGS__})), expect}

/* Map pointers and global-data addresses are only known at run time: those programs are patched
 * before they run (the LD64 placeholders below). */
#define MAP_PLACEHOLDER 0x4d41504d41504d41ull
#define DATA_PLACEHOLDER 0x4441544144415441ull

/* The table lives in a function: gcc accepts the instruction builders (compound literals) only in
 * automatic initializers. */
typedef void (*prog_case_fn)(const struct prog_case *c, void *arg);

static void for_each_prog_case(prog_case_fn fn, void *arg)
{
    const struct prog_case prog_cases[] = {
    PROG("helper call (get_smp_processor_id)", 3, CALL(BPF_FUNC_get_smp_processor_id), EXIT()),
    PROG("kfunc call", 6, MOV64_IMM(1, 1), MOV64_IMM(2, 2), MOV64_IMM(3, 3), CALL_KFUNC(0), EXIT()),
    PROG("ld_imm64 map + lookup", 1, ST(BPF_W, 10, -4, 0), LD64_SRC(1, BPF_PSEUDO_MAP_FD, MAP_PLACEHOLDER),
         MOV64_REG(2, 10), ALU64_IMM(BPF_ADD, 2, -4), CALL(BPF_FUNC_map_lookup_elem), JMP_IMM(BPF_JEQ, 0, 0, 2),
         LDX(BPF_DW, 0, 0, 0), EXIT(), MOV64_IMM(0, -1), EXIT()),
    PROG("ld_imm64 map value (global data)", 0x55, LD64_SRC(1, BPF_PSEUDO_MAP_VALUE, DATA_PLACEHOLDER),
         LDX(BPF_B, 0, 1, 0), EXIT()),
    PROG("exit returns r0", 7, MOV64_IMM(0, 7), EXIT()),
    };
    for (size_t c = 0; c < sizeof prog_cases / sizeof prog_cases[0]; c++)
        fn(&prog_cases[c], arg);
}

static void patch(struct bpf_insn *p, uint32_t n, uint64_t from, uint64_t to)
{
    for (uint32_t i = 0; i + 1 < n; i++)
        if (bpf_insn_is_wide(&p[i]) && bpf_insn_imm64(&p[i]) == from) {
            p[i].imm = (int32_t)(uint32_t)to;
            p[i + 1].imm = (int32_t)(uint32_t)(to >> 32);
        }
}

struct prog_env {
    struct bpf_map *maps[2];
    struct bpf_vm_env env;
};

static void run_prog_case(const struct prog_case *c, void *arg)
{
    struct prog_env *pe = arg;
    struct bpf_insn p[24];
    memcpy(p, c->insns, sizeof p);
    patch(p, c->n, MAP_PLACEHOLDER, (uint64_t)(uintptr_t)pe->maps[0]);
    patch(p, c->n, DATA_PLACEHOLDER, (uint64_t)(uintptr_t)bpf_map_value_base(pe->maps[1], NULL));
    uint64_t r0 = 0;
    struct bpf_fault f;
    char buf[512];
    if (run_prog(p, c->n, &pe->env, pe->maps, 2, NULL, 0, &r0, &f))
        fail_msg("%s: %s", c->name, bpf_fault_format(&f, buf, sizeof buf));
    if (r0 != c->expect)
        fail_msg("%s: r0 %llu, want %llu", c->name, (unsigned long long)r0, (unsigned long long)c->expect);
}

static void isa_programs_give_their_expected_results(void **state)
{
    (void)state;
    struct bpf_map_def hd = {"counts", BPF_MAP_TYPE_ARRAY, 4, 8, 4, 0};
    struct bpf_map_def dd = {".rodata", BPF_MAP_TYPE_ARRAY, 4, 16, 1, BPF_F_RDONLY_PROG};
    struct prog_env pe = {.maps = {bpf_map_create(&hd, NULL, 0), bpf_map_create(&dd, NULL, 0)},
                          .env = {.kfuncs = kfuncs, .n_kfuncs = 1, .cpu = 3}};
    assert_non_null(pe.maps[0]);
    assert_non_null(pe.maps[1]);
    uint32_t k = 0;
    uint64_t one = 1;
    assert_int_equal(bpf_map_update(pe.maps[0], &k, &one, BPF_ANY), 0);
    uint8_t data[16] = {0x55};
    assert_int_equal(bpf_map_initial_value(pe.maps[1], data, sizeof data), 0);
    for_each_prog_case(run_prog_case, &pe);
    bpf_map_destroy(pe.maps[0]);
    bpf_map_destroy(pe.maps[1]);
}

/* LD_IMM64 forms RFC 9669 defines that a loader must resolve before the program can run. */
#define UNRELOCATED {{LD64_SRC(0, 3, 0), EXIT()}, {LD64_SRC(0, 5, 0), EXIT()}, {LD64_SRC(0, 6, 0), EXIT()}}

static void test_unrelocated_forms_refused(void **state)
{
    (void)state;
    struct bpf_vm_env env = {0};
    const struct bpf_insn unrelocated[][3] = UNRELOCATED;
    for (size_t i = 0; i < sizeof unrelocated / sizeof unrelocated[0]; i++) {
        struct bpf_prog p = {.name = "unrelocated", .insns = unrelocated[i], .n = 3};
        struct bpf_fault f;
        assert_int_equal(bpf_vm_check(&env, &p, false, &f), -1);
        assert_int_equal(f.kind, BPF_FAULT_CHECK);
        assert_non_null(strstr(f.reason, "not relocated"));
        uint64_t r0;
        assert_int_equal(bpf_vm_run(&env, &p, NULL, 0, false, &r0, &f), -1);
        assert_int_equal(f.kind, BPF_FAULT_INSN);
    }
}

/* --- every valid opcode has a test --- */

/* What tells two valid instructions apart besides registers and targets. */
static uint32_t variant_key(const struct bpf_insn *i)
{
    uint8_t cls = BPF_CLASS(i->code), op = BPF_OP(i->code);
    uint32_t v = 0;
    if ((cls == BPF_ALU || cls == BPF_ALU64) && (op == BPF_DIV || op == BPF_MOD || op == BPF_MOV))
        v = (uint16_t)i->off;
    else if ((cls == BPF_ALU || cls == BPF_ALU64) && op == BPF_END)
        v = (uint32_t)i->imm;
    else if (cls == BPF_STX && BPF_MODE(i->code) == BPF_ATOMIC)
        v = (uint32_t)i->imm;
    else if (i->code == (BPF_JMP | BPF_CALL) || cls == BPF_LD)
        v = i->src_reg;
    return (uint32_t)i->code << 16 | (v & 0xffff);
}

#define MAX_KEYS 4096
struct keyset {
    uint32_t k[MAX_KEYS];
    uint32_t n;
};

static void add_key(struct keyset *s, uint32_t k)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (s->k[i] == k)
            return;
    assert_true(s->n < MAX_KEYS);
    s->k[s->n++] = k;
}

static bool has_key(const struct keyset *s, uint32_t k)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (s->k[i] == k)
            return true;
    return false;
}

static void add_prog(struct keyset *s, const struct bpf_insn *p, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        add_key(s, variant_key(&p[i]));
        if (bpf_insn_is_wide(&p[i]))
            i++;
    }
}

static void add_prog_case(const struct prog_case *c, void *arg)
{
    add_prog(arg, c->insns, c->n);
}

static void test_every_opcode_has_a_test(void **state)
{
    (void)state;
    static struct keyset tested, valid;
    tested.n = valid.n = 0;
    for (uint32_t g = 0; g < isa_ngroups; g++)
        for (uint32_t i = 0; i < isa_groups[g].n; i++) {
            struct bpf_insn p[CASE_MAX_INSNS];
            add_prog(&tested, p, isa_build(&isa_groups[g], i, p));
        }
    for_each_prog_case(add_prog_case, &tested);
    const struct bpf_insn unrelocated[][3] = UNRELOCATED;
    for (size_t i = 0; i < sizeof unrelocated / sizeof unrelocated[0]; i++)
        add_prog(&tested, unrelocated[i], 3);

    static const int16_t offs[] = {0, 1, 8, 16, 32, 64};
    static const int32_t imms[] = {0, 1, 16, 32, 64, BPF_ADD, BPF_OR, BPF_AND, BPF_XOR, BPF_ADD | BPF_FETCH,
                                   BPF_OR | BPF_FETCH, BPF_AND | BPF_FETCH, BPF_XOR | BPF_FETCH, BPF_XCHG, BPF_CMPXCHG,
                                   0x100, 0x110};
    unsigned missing = 0;
    for (unsigned code = 0; code < 256; code++)
        for (unsigned src = 0; src < 8; src++)
            for (size_t o = 0; o < sizeof offs / sizeof offs[0]; o++)
                for (size_t m = 0; m < sizeof imms / sizeof imms[0]; m++) {
                    struct bpf_insn in = INSN(code, 0, src, offs[o], imms[m]);
                    if (!bpf_insn_valid(&in))
                        continue;
                    uint32_t k = variant_key(&in);
                    if (has_key(&valid, k))
                        continue;
                    add_key(&valid, k);
                    if (!has_key(&tested, k)) {
                        char buf[96];
                        bpf_disasm(&in, 2, buf, sizeof buf);
                        printf("no test for opcode 0x%02x variant %u: %s\n", code, k & 0xffff, buf);
                        missing++;
                    }
                }
    printf("%u valid opcode variants, %u tested\n", valid.n, valid.n - missing);
    assert_true(valid.n > 150);
    assert_int_equal(missing, 0);
}

/* Opcodes outside the ISA are refused at load and fault (never crash) when run unchecked. */
static void invalid_opcodes_are_refused_at_load_and_fault_when_run(void **state)
{
    (void)state;
    struct bpf_vm_env env = {0};
    unsigned invalid = 0;
    for (unsigned code = 0; code < 256; code++) {
        struct bpf_insn p[3] = {INSN(code, 0, 0, 0, 0), EXIT(), EXIT()};
        if (bpf_insn_valid(&p[0]))
            continue;
        invalid++;
        struct bpf_prog prog = {.name = "bad", .insns = p, .n = 3};
        struct bpf_fault f;
        uint64_t r0;
        assert_int_equal(bpf_vm_check(&env, &prog, false, &f), -1);
        assert_int_equal(f.kind, BPF_FAULT_CHECK);
        assert_int_equal(bpf_vm_run(&env, &prog, NULL, 0, false, &r0, &f), -1);
        assert_int_equal(f.kind, BPF_FAULT_INSN);
        assert_int_equal(f.insn, 0);
    }
    assert_true(invalid > 60);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(isa_group_tables_give_each_rows_result),
        cmocka_unit_test(isa_programs_give_their_expected_results),
        cmocka_unit_test(test_unrelocated_forms_refused),
        cmocka_unit_test(test_every_opcode_has_a_test),
        cmocka_unit_test(invalid_opcodes_are_refused_at_load_and_fault_when_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
