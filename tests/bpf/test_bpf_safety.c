/*
 * Memory safety without a verifier: every bad access, runaway loop or runaway recursion ends the
 * run with a fault naming the program, instruction and source line, and the process goes on.
 * Programs here run unchecked (bpf_vm_run without bpf_vm_check) unless a test says otherwise, so
 * the run-time checks are what is tested.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "base/deadline.h"
#include "bpf/bpf_vm.h"
#include "bpf_asm.h"

struct fixture {
    struct bpf_map *maps[3];          /* hash u32->u64, .rodata, ringbuf */
    struct bpf_vm_env env;
    uint64_t ctx[4];                  /* a 32-byte ctx, like nv_gpu_bind_ctx */
};

static struct fixture fx;

static uint64_t k_take_ctx(void *env_ctx, const uint64_t a[5], struct bpf_vm_call *call)
{
    (void)env_ctx;
    (void)call;
    return a[0] != 0;
}

static uint64_t k_preempt(void *env_ctx, const uint64_t a[5], struct bpf_vm_call *call)
{
    (void)env_ctx;
    (void)a;
    (void)call;
    return 0;
}

static uint64_t k_refuse(void *env_ctx, const uint64_t a[5], struct bpf_vm_call *call)
{
    (void)env_ctx;
    bpf_vm_call_fail(call, "handle 0x%llx is not a channel group", (unsigned long long)a[0]);
    return 0;
}

static const struct bpf_kfunc kfuncs[] = {
    {.name = "take_ctx", .fn = k_take_ctx, .args = {{BPF_ARG_CTX, false, 0}}},
    {.name = "preempt", .fn = k_preempt, .args = {{BPF_ARG_SCALAR, false, 0}}, .sleepable = true},
    {.name = "refuse", .fn = k_refuse, .args = {{BPF_ARG_SCALAR, false, 0}}},
    {.name = "read16", .fn = k_take_ctx, .args = {{BPF_ARG_MEM, false, 16}}},
};

static int setup(void **state)
{
    (void)state;
    struct bpf_map_def h = {"h", BPF_MAP_TYPE_HASH, 4, 8, 8, 0};
    struct bpf_map_def ro = {".rodata", BPF_MAP_TYPE_ARRAY, 4, 16, 1, BPF_F_RDONLY_PROG};
    struct bpf_map_def rb = {"rb", BPF_MAP_TYPE_RINGBUF, 0, 0, 4096, 0};
    fx.maps[0] = bpf_map_create(&h, NULL, 0);
    fx.maps[1] = bpf_map_create(&ro, NULL, 0);
    fx.maps[2] = bpf_map_create(&rb, NULL, 0);
    uint32_t k = 1;
    uint64_t v = 77;
    bpf_map_update(fx.maps[0], &k, &v, BPF_ANY);
    fx.env = (struct bpf_vm_env){.kfuncs = kfuncs, .n_kfuncs = sizeof kfuncs / sizeof kfuncs[0]};
    return !fx.maps[0] || !fx.maps[1] || !fx.maps[2];
}

static int teardown(void **state)
{
    (void)state;
    for (int i = 0; i < 3; i++)
        bpf_map_destroy(fx.maps[i]);
    return 0;
}

#define HASH_PTR ((uint64_t)(uintptr_t)fx.maps[0])
#define RB_PTR ((uint64_t)(uintptr_t)fx.maps[2])
#define RODATA ((uint64_t)(uintptr_t)bpf_map_value_base(fx.maps[1], NULL))

static const struct bpf_line lines[] = {
    {0, 40, 1, "policy.bpf.c", "int x = 0;"},
    {2, 42, 5, "policy.bpf.c", "*p = 1;"},
};

/* Runs p unchecked with a read-only 32-byte ctx; returns the fault kind (NONE on success). */
static enum bpf_fault_kind run(const struct bpf_insn *p, uint32_t n, struct bpf_fault *f)
{
    struct bpf_prog prog = {.name = "on_bind", .insns = p, .n = n, .maps = fx.maps, .n_maps = 3,
                            .lines = lines, .n_lines = 2};
    uint64_t r0 = 0;
    memset(fx.ctx, 0, sizeof fx.ctx);
    int rc = bpf_vm_run(&fx.env, &prog, fx.ctx, sizeof fx.ctx, true, &r0, f);
    if (rc == 0)
        assert_int_equal(f->kind, BPF_FAULT_NONE);
    else
        assert_int_not_equal(f->kind, BPF_FAULT_NONE);
    return f->kind;
}

#define EXPECT(kind, substr, ...)                                                             \
    do {                                                                                      \
        const struct bpf_insn p_[] = {__VA_ARGS__};                                           \
        struct bpf_fault f_;                                                                  \
        char b_[512];                                                                         \
        enum bpf_fault_kind k_ = run(p_, NINSN(p_), &f_);                                     \
        if (k_ != (kind) || !strstr(f_.reason, substr))                                       \
            fail_msg("want %s \"%s\", got %s: %s", bpf_fault_kind_name(kind), substr,         \
                     bpf_fault_kind_name(k_), bpf_fault_format(&f_, b_, sizeof b_));          \
    } while (0)

static void stack_access_outside_the_frame_faults(void **state)
{
    (void)state;
    EXPECT(BPF_FAULT_MEMORY, "offset -8 of stack frame 0", ST(BPF_DW, 10, -520, 0), EXIT());
    EXPECT(BPF_FAULT_MEMORY, "offset 512 of stack frame 0", LDX(BPF_DW, 0, 10, 0), EXIT());
    EXPECT(BPF_FAULT_MEMORY, "load of 8 bytes at offset 508", LDX(BPF_DW, 0, 10, -4), EXIT());
    EXPECT(BPF_FAULT_NONE, "", ST(BPF_DW, 10, -512, 1), LDX(BPF_DW, 0, 10, -512), EXIT());
}

static void test_ctx_is_read_only_and_sized(void **state)
{
    (void)state;
    EXPECT(BPF_FAULT_READONLY, "ctx (32 bytes), which is read-only", ST(BPF_W, 1, 0, 1), EXIT());
    EXPECT(BPF_FAULT_READONLY, "read-only", MOV64_REG(2, 1), ALU64_IMM(BPF_ADD, 2, 8), STX(BPF_DW, 2, 2, 0), EXIT());
    EXPECT(BPF_FAULT_MEMORY, "offset 32 of ctx", LDX(BPF_DW, 0, 1, 32), EXIT());
    EXPECT(BPF_FAULT_MEMORY, "offset 30 of ctx", LDX(BPF_W, 0, 1, 30), EXIT());
    EXPECT(BPF_FAULT_MEMORY, "offset -1 of ctx", LDX(BPF_B, 0, 1, -1), EXIT());
    EXPECT(BPF_FAULT_NONE, "", LDX(BPF_DW, 0, 1, 24), EXIT());
    /* a ctx pointer that went through the stack is still the ctx */
    EXPECT(BPF_FAULT_READONLY, "read-only", STX(BPF_DW, 10, 1, -8), LDX(BPF_DW, 3, 10, -8), ST(BPF_B, 3, 4, 1), EXIT());
}

static void test_scalars_are_not_pointers(void **state)
{
    (void)state;
    EXPECT(BPF_FAULT_POINTER, "through a scalar", MOV64_IMM(1, 0x1000), LDX(BPF_DW, 0, 1, 0), EXIT());
    EXPECT(BPF_FAULT_POINTER, "through a scalar", LD64(1, (uint64_t)(uintptr_t)fx.ctx), LDX(BPF_DW, 0, 1, 0), EXIT());
    /* 32-bit arithmetic truncates a pointer into a number */
    EXPECT(BPF_FAULT_POINTER, "through a scalar", INSN(BPF_ALU | BPF_MOV | BPF_X, 2, 10, 0, 0), ST(BPF_B, 2, -1, 0),
           EXIT());
    /* a pointer read back from memory other than a full stack spill is a number */
    EXPECT(BPF_FAULT_POINTER, "through a scalar", STX(BPF_W, 10, 10, -8), LDX(BPF_W, 2, 10, -8), LDX(BPF_B, 0, 2, 0),
           EXIT());
    EXPECT(BPF_FAULT_POINTER, "through a scalar", STX(BPF_DW, 10, 10, -8), ST(BPF_B, 10, -5, 0),
           LDX(BPF_DW, 2, 10, -8), LDX(BPF_B, 0, 2, -1), EXIT());
    /* pointer minus pointer is a distance, not a pointer */
    EXPECT(BPF_FAULT_POINTER, "through a scalar", MOV64_REG(2, 10), ALU64_REG(BPF_SUB, 2, 10), LDX(BPF_B, 0, 2, 0),
           EXIT());
    /* map handles cannot be dereferenced */
    EXPECT(BPF_FAULT_POINTER, "through a map handle", LD64_SRC(1, BPF_PSEUDO_MAP_FD, HASH_PTR), LDX(BPF_DW, 0, 1, 0),
           EXIT());
    /* spilled pointers survive a full 8-byte spill and fill */
    EXPECT(BPF_FAULT_NONE, "", ST(BPF_DW, 10, -16, 9), MOV64_REG(2, 10), STX(BPF_DW, 10, 2, -8), LDX(BPF_DW, 3, 10, -8),
           LDX(BPF_DW, 0, 3, -16), EXIT());
}

static void map_value_access_past_its_size_faults(void **state)
{
    (void)state;
    /* lookup of key 1 (present), then read past its 8-byte value */
    EXPECT(BPF_FAULT_MEMORY, "offset 8 of value of map 'h' (8 bytes)", ST(BPF_W, 10, -4, 1),
           LD64_SRC(1, BPF_PSEUDO_MAP_FD, HASH_PTR), MOV64_REG(2, 10), ALU64_IMM(BPF_ADD, 2, -4),
           CALL(BPF_FUNC_map_lookup_elem), JMP_IMM(BPF_JEQ, 0, 0, 1), LDX(BPF_DW, 0, 0, 8), EXIT());
    /* a missing key gives NULL: dereferencing it without the check faults */
    EXPECT(BPF_FAULT_POINTER, "through a scalar (0x0)", ST(BPF_W, 10, -4, 2), LD64_SRC(1, BPF_PSEUDO_MAP_FD, HASH_PTR),
           MOV64_REG(2, 10), ALU64_IMM(BPF_ADD, 2, -4), CALL(BPF_FUNC_map_lookup_elem), LDX(BPF_DW, 0, 0, 0), EXIT());
    /* .rodata is read-only for programs, also through helpers */
    EXPECT(BPF_FAULT_READONLY, "value of map '.rodata' (16 bytes), which is read-only",
           LD64_SRC(1, BPF_PSEUDO_MAP_VALUE, RODATA), ST(BPF_B, 1, 0, 1), EXIT());
    EXPECT(BPF_FAULT_MEMORY, "offset 16 of value of map '.rodata'", LD64_SRC(1, BPF_PSEUDO_MAP_VALUE, RODATA),
           LDX(BPF_B, 0, 1, 16), EXIT());
    EXPECT(BPF_FAULT_READONLY, "read-only map '.rodata'", LD64_SRC(1, BPF_PSEUDO_MAP_FD,
           (uint64_t)(uintptr_t)fx.maps[1]), CALL(BPF_FUNC_map_update_elem), EXIT());
    /* a global-data address outside every map */
    EXPECT(BPF_FAULT_INSN, "not inside a value", LD64_SRC(1, BPF_PSEUDO_MAP_VALUE, RODATA + 4096), EXIT());
    EXPECT(BPF_FAULT_INSN, "not one of the program's maps", LD64_SRC(1, BPF_PSEUDO_MAP_FD, 0x1234), EXIT());
}

static void helper_argument_out_of_bounds_faults(void **state)
{
    (void)state;
    /* a 4-byte key starting 2 bytes below the top of the stack */
    EXPECT(BPF_FAULT_MEMORY, "argument 2 of map_lookup_elem", LD64_SRC(1, BPF_PSEUDO_MAP_FD, HASH_PTR),
           MOV64_REG(2, 10), ALU64_IMM(BPF_ADD, 2, -2), CALL(BPF_FUNC_map_lookup_elem), EXIT());
    EXPECT(BPF_FAULT_POINTER, "argument 1 of map_lookup_elem must be a map", MOV64_REG(1, 10),
           CALL(BPF_FUNC_map_lookup_elem), EXIT());
    /* get_current_comm writing into the read-only ctx */
    EXPECT(BPF_FAULT_HELPER, "not available", MOV64_IMM(2, 16), CALL(BPF_FUNC_get_current_comm), EXIT());
    EXPECT(BPF_FAULT_HELPER, "unsupported helper 9999", CALL(9999), EXIT());
    EXPECT(BPF_FAULT_HELPER, "unsupported helper 12 (tail_call)", CALL(BPF_FUNC_tail_call), EXIT());
    /* ringbuf: a record is only writable until it is submitted */
    EXPECT(BPF_FAULT_POINTER, "through a scalar", LD64_SRC(1, BPF_PSEUDO_MAP_FD, RB_PTR), MOV64_IMM(2, 8),
           MOV64_IMM(3, 0), CALL(BPF_FUNC_ringbuf_reserve), JMP_IMM(BPF_JEQ, 0, 0, 6), MOV64_REG(6, 0),
           MOV64_REG(1, 0), MOV64_IMM(2, 0), CALL(BPF_FUNC_ringbuf_submit), ST(BPF_DW, 6, 0, 1), EXIT(), EXIT());
    /* ... also in the caller's frame: a subprogram submits the record its caller keeps in r6 (callee-saved) */
    EXPECT(BPF_FAULT_POINTER, "through a scalar", LD64_SRC(1, BPF_PSEUDO_MAP_FD, RB_PTR), MOV64_IMM(2, 8),
           MOV64_IMM(3, 0), CALL(BPF_FUNC_ringbuf_reserve), JMP_IMM(BPF_JEQ, 0, 0, 4), MOV64_REG(6, 0),
           MOV64_REG(1, 0), CALL_SUB(2), ST(BPF_DW, 6, 0, 1), EXIT(),
           MOV64_IMM(2, 0), CALL(BPF_FUNC_ringbuf_submit), EXIT());
    /* ... and after a bpf_loop callback submitted the record it got as its context */
    EXPECT(BPF_FAULT_POINTER, "through a scalar", LD64_SRC(1, BPF_PSEUDO_MAP_FD, RB_PTR), MOV64_IMM(2, 8),
           MOV64_IMM(3, 0), CALL(BPF_FUNC_ringbuf_reserve), JMP_IMM(BPF_JEQ, 0, 0, 8), MOV64_REG(6, 0),
           MOV64_REG(3, 0), MOV64_IMM(1, 1), LD64_SRC(2, BPF_PSEUDO_FUNC, 5), MOV64_IMM(4, 0), CALL(BPF_FUNC_loop),
           ST(BPF_DW, 6, 0, 1), EXIT(),
           MOV64_REG(1, 2), MOV64_IMM(2, 0), CALL(BPF_FUNC_ringbuf_submit), MOV64_IMM(0, 0), EXIT());
    EXPECT(BPF_FAULT_MEMORY, "offset 8 of ringbuf record (8 bytes)", LD64_SRC(1, BPF_PSEUDO_MAP_FD, RB_PTR),
           MOV64_IMM(2, 8), MOV64_IMM(3, 0), CALL(BPF_FUNC_ringbuf_reserve), JMP_IMM(BPF_JEQ, 0, 0, 1),
           ST(BPF_B, 0, 8, 1), EXIT());
    EXPECT(BPF_FAULT_POINTER, "must be a record from ringbuf_reserve", MOV64_REG(1, 10), ALU64_IMM(BPF_ADD, 1, -8),
           CALL(BPF_FUNC_ringbuf_submit), EXIT());
    bpf_map_ringbuf_drain(fx.maps[2], NULL, NULL);
}

static void kfunc_argument_that_is_not_the_ctx_faults(void **state)
{
    (void)state;
    EXPECT(BPF_FAULT_NONE, "", CALL_KFUNC(0), EXIT());
    EXPECT(BPF_FAULT_POINTER, "argument 1 of take_ctx must be the program's ctx", MOV64_REG(1, 10), CALL_KFUNC(0), EXIT());
    EXPECT(BPF_FAULT_POINTER, "must be the program's ctx", ALU64_IMM(BPF_ADD, 1, 8), CALL_KFUNC(0), EXIT());
    EXPECT(BPF_FAULT_KFUNC, "sleepable kfunc preempt called from a non-sleepable program", CALL_KFUNC(1), EXIT());
    EXPECT(BPF_FAULT_KFUNC, "refuse: handle 0x2a is not a channel group", MOV64_IMM(1, 42), CALL_KFUNC(2), EXIT());
    EXPECT(BPF_FAULT_MEMORY, "argument 1 of read16", MOV64_REG(1, 10), ALU64_IMM(BPF_ADD, 1, -8), CALL_KFUNC(3), EXIT());
    EXPECT(BPF_FAULT_INSN, "kfunc index 9 outside", CALL_KFUNC(9), EXIT());
}

static void budget_exhaustion_and_call_depth_fault(void **state)
{
    (void)state;
    EXPECT(BPF_FAULT_BUDGET, "budget of 1000000 exhausted", JA(-1), EXIT());
    fx.env.insn_budget = 50;
    struct bpf_fault f;
    const struct bpf_insn loop[] = {MOV64_IMM(0, 0), ALU64_IMM(BPF_ADD, 0, 1), JA(-2), EXIT()};
    assert_int_equal(run(loop, NINSN(loop), &f), BPF_FAULT_BUDGET);
    assert_int_equal(f.insns, 50);
    fx.env.insn_budget = 0;
    /* unbounded recursion */
    EXPECT(BPF_FAULT_DEPTH, "call depth exceeds 8 frames", CALL_SUB(-1), EXIT());
    fx.env.max_frames = 3;
    EXPECT(BPF_FAULT_DEPTH, "exceeds 3 frames", CALL_SUB(-1), EXIT());
    fx.env.max_frames = 0;
    /* bpf_loop callbacks count against the budget too */
    fx.env.insn_budget = 1000;
    EXPECT(BPF_FAULT_BUDGET, "budget of 1000", MOV64_IMM(1, 1000000), LD64_SRC(2, BPF_PSEUDO_FUNC, 5), MOV64_IMM(3, 0),
           MOV64_IMM(4, 0), CALL(BPF_FUNC_loop), EXIT(), MOV64_IMM(0, 0), EXIT());
    /* ... and the fault counts the callbacks' instructions, not only the caller's */
    const struct bpf_insn looped[] = {MOV64_IMM(1, 1000000), LD64_SRC(2, BPF_PSEUDO_FUNC, 5), MOV64_IMM(3, 0),
                                      MOV64_IMM(4, 0), CALL(BPF_FUNC_loop), EXIT(), MOV64_IMM(0, 0), EXIT()};
    assert_int_equal(run(looped, NINSN(looped), &f), BPF_FAULT_BUDGET);
    assert_int_equal(f.insns, 1000);
    fx.env.insn_budget = 0;
}

/* Under the thread's wall-clock deadline (a daemon's callback limit) a run stops part-way with a budget
 * fault once it has passed, however large its instruction budget; in a plain loop and in a helper's. */
static void wall_clock_deadline_stops_a_run_with_a_budget_fault(void **state)
{
    (void)state;
    fx.env.insn_budget = UINT64_MAX;
    nvemu_deadline_set(nvemu_mono_ns() + 20000000u);
    EXPECT(BPF_FAULT_BUDGET, "wall-clock limit passed after", JA(-1), EXIT());
    nvemu_deadline_set(nvemu_mono_ns() + 20000000u);
    /* the callback passes the deadline inside bpf_loop: its instructions, or the helper's charge, stop it */
    EXPECT(BPF_FAULT_BUDGET, "wall-clock limit passed", MOV64_IMM(1, 8000000), LD64_SRC(2, BPF_PSEUDO_FUNC, 5),
           MOV64_IMM(3, 0), MOV64_IMM(4, 0), CALL(BPF_FUNC_loop), EXIT(), JA(-1), EXIT());
    nvemu_deadline_set(0);
    fx.env.insn_budget = 0;
}

static void running_past_the_end_faults(void **state)
{
    (void)state;
    EXPECT(BPF_FAULT_INSN, "ran past the end", MOV64_IMM(0, 1));
    EXPECT(BPF_FAULT_INSN, "ran past the end", JA(100), EXIT());
    EXPECT(BPF_FAULT_INSN, "ran past the end", JA(-10), EXIT());
    EXPECT(BPF_FAULT_INSN, "call target", CALL_SUB(50), EXIT());
    EXPECT(BPF_FAULT_INSN, "without its second half", INSN(BPF_LD | BPF_IMM | BPF_DW, 0, 0, 0, 1));
    EXPECT(BPF_FAULT_INSN, "invalid register", INSN(BPF_ALU64 | BPF_MOV | BPF_K, 11, 0, 0, 1), EXIT());
    EXPECT(BPF_FAULT_INSN, "invalid register", MOV64_IMM(10, 0), EXIT());
    EXPECT(BPF_FAULT_MEMORY, "misaligned atomic", MOV64_IMM(1, 1), INSN(BPF_STX | BPF_ATOMIC | BPF_DW, 10, 1, -12, BPF_ADD),
           EXIT());
}

static void test_fault_names_program_insn_and_line(void **state)
{
    (void)state;
    const struct bpf_insn p[] = {MOV64_IMM(0, 0), MOV64_IMM(2, 0), MOV64_IMM(3, 1), ST(BPF_W, 1, 0, 1), EXIT()};
    struct bpf_fault f;
    char buf[512];
    assert_int_equal(run(p, NINSN(p), &f), BPF_FAULT_READONLY);
    assert_int_equal(f.insn, 3);
    assert_string_equal(f.prog, "on_bind");
    assert_string_equal(f.where, "policy.bpf.c:42: *p = 1;");
    bpf_fault_format(&f, buf, sizeof buf);
    assert_non_null(strstr(buf, "program 'on_bind' insn 3 (policy.bpf.c:42: *p = 1;): store of 4 bytes"));
    assert_int_equal(f.insns, 4);
}

/* A fault inside a subprogram or a bpf_loop callback is reported at the callee's instruction, and
 * the next run starts clean. */
static void test_fault_in_callee_then_clean_run(void **state)
{
    (void)state;
    struct bpf_fault f;
    const struct bpf_insn p[] = {CALL_SUB(1), EXIT(), MOV64_IMM(1, 0), LDX(BPF_DW, 0, 1, 0), EXIT()};
    assert_int_equal(run(p, NINSN(p), &f), BPF_FAULT_POINTER);
    assert_int_equal(f.insn, 3);
    const struct bpf_insn ok[] = {LDX(BPF_DW, 0, 1, 0), ALU64_IMM(BPF_ADD, 0, 5), EXIT()};
    assert_int_equal(run(ok, NINSN(ok), &f), BPF_FAULT_NONE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stack_access_outside_the_frame_faults),
        cmocka_unit_test(test_ctx_is_read_only_and_sized),
        cmocka_unit_test(test_scalars_are_not_pointers),
        cmocka_unit_test(map_value_access_past_its_size_faults),
        cmocka_unit_test(helper_argument_out_of_bounds_faults),
        cmocka_unit_test(kfunc_argument_that_is_not_the_ctx_faults),
        cmocka_unit_test(budget_exhaustion_and_call_depth_fault),
        cmocka_unit_test(wall_clock_deadline_stops_a_run_with_a_budget_fault),
        cmocka_unit_test(running_past_the_end_faults),
        cmocka_unit_test(test_fault_names_program_insn_and_line),
        cmocka_unit_test(test_fault_in_callee_then_clean_run),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
