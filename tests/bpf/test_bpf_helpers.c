/*
 * The helpers as a policy calls them: their environment comes from the env callbacks (virtual
 * clock, seeded PRNG, the ioctl caller, the printk sink) and their results follow the kernel's.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "bpf/bpf_vm.h"
#include "bpf_asm.h"

static char printed[8][600];
static int nprinted;
static uint64_t now_ns = 1000;
static bool have_task = true;
static uint64_t prng = 42;

static uint64_t clock_ns(void *c)
{
    (void)c;
    return now_ns;
}

static uint64_t boot_ns(void *c)
{
    (void)c;
    return now_ns + 5;
}

static bool current(void *c, struct bpf_vm_task *t)
{
    (void)c;
    if (!have_task)
        return false;
    *t = (struct bpf_vm_task){.pid = 1234, .tgid = 1200, .uid = 1000, .gid = 100, .comm = "lc-server"};
    return true;
}

static void sink(void *c, const struct bpf_prog *p, const char *line)
{
    (void)c;
    (void)p;
    if (nprinted < 8)
        snprintf(printed[nprinted++], sizeof printed[0], "%s", line);
}

static struct bpf_vm_env env = {
    .clock_ns = clock_ns, .boot_clock_ns = boot_ns, .prng_state = &prng, .current_task = current, .printk = sink,
};

static struct bpf_map *maps[3];       /* .rodata (format strings), ringbuf, hash */
static uint8_t *rodata;

static int setup(void **state)
{
    (void)state;
    struct bpf_map_def ro = {".rodata", BPF_MAP_TYPE_ARRAY, 4, 256, 1, BPF_F_RDONLY_PROG};
    struct bpf_map_def rb = {"events", BPF_MAP_TYPE_RINGBUF, 0, 0, 4096, 0};
    struct bpf_map_def h = {"ts", BPF_MAP_TYPE_HASH, 16, 8, 2, 0};
    maps[0] = bpf_map_create(&ro, NULL, 0);
    maps[1] = bpf_map_create(&rb, NULL, 0);
    maps[2] = bpf_map_create(&h, NULL, 0);
    static const char strings[] = "tsg %llu eng %d: %s\0%x|%5u|%-3d|%c|%%|%lx\0bad %q\0%d%d%d%d\0%999999999d\0"
                                  "%-99999999999d|\0";
    assert_int_equal(bpf_map_initial_value(maps[0], strings, sizeof strings), 0);
    rodata = bpf_map_value_base(maps[0], NULL);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (int i = 0; i < 3; i++)
        bpf_map_destroy(maps[i]);
    return 0;
}

#define RO(off) LD64_SRC(1, BPF_PSEUDO_MAP_VALUE, (uint64_t)(uintptr_t)rodata + (off))
#define MAP(reg, i) LD64_SRC(reg, BPF_PSEUDO_MAP_FD, (uint64_t)(uintptr_t)maps[i])

static uint64_t run_ctx(const struct bpf_insn *p, uint32_t n, void *ctx, size_t size)
{
    struct bpf_prog prog = {.name = "helpers", .insns = p, .n = n, .maps = maps, .n_maps = 3};
    struct bpf_fault f;
    char buf[512];
    uint64_t r0 = 0;
    if (bpf_vm_check(&env, &prog, false, &f) || bpf_vm_run(&env, &prog, ctx, size, false, &r0, &f))
        fail_msg("%s", bpf_fault_format(&f, buf, sizeof buf));
    return r0;
}

#define RUN(...) run_ctx((const struct bpf_insn[]){__VA_ARGS__}, NINSN(((const struct bpf_insn[]){__VA_ARGS__})), NULL, 0)

static void trace_printk_formats_its_arguments_into_one_line(void **state)
{
    (void)state;
    nprinted = 0;
    /* "tsg %llu eng %d: %s" with the string "eng" from .rodata+... (the first format's own bytes) */
    uint64_t r0 = RUN(RO(0), MOV64_IMM(2, 20), MOV64_IMM(3, 7), MOV64_IMM(4, -1), LD64(5, (uint64_t)(uintptr_t)rodata + 9),
                      CALL(BPF_FUNC_trace_printk), EXIT());
    assert_int_equal(nprinted, 1);
    assert_string_equal(printed[0], "tsg 7 eng -1: eng %d: %s");
    assert_int_equal(r0, strlen(printed[0]));
    /* flags, widths, %c, %%, %lx, and an int argument truncated to 32 bits for %x */
    r0 = RUN(LD64(1, 0), MOV64_IMM(2, 0), RO(20), MOV64_IMM(2, 24), LD64(3, 0x1ffffffffull), MOV64_IMM(4, 42),
             MOV64_IMM(5, -5), CALL(BPF_FUNC_trace_printk), EXIT());
    assert_int_equal((int64_t)r0, -EINVAL); /* five conversions, three arguments */
    assert_int_equal(nprinted, 1);
    /* unknown conversion */
    r0 = RUN(RO(42), MOV64_IMM(2, 7), CALL(BPF_FUNC_trace_printk), EXIT());
    assert_int_equal((int64_t)r0, -EINVAL);
    /* format not NUL-terminated within its size */
    r0 = RUN(RO(0), MOV64_IMM(2, 5), CALL(BPF_FUNC_trace_printk), EXIT());
    assert_int_equal((int64_t)r0, -EINVAL);
    assert_int_equal(nprinted, 1);
}

static void trace_vprintk_and_snprintf_format_a_data_array(void **state)
{
    (void)state;
    nprinted = 0;
    /* data: {0x1ffffffff, 42, -5, 'A', 0xabc} for "%x|%5u|%-3d|%c|%%|%lx" */
    uint64_t r0 = RUN(LD64(2, 0x1ffffffffull), STX(BPF_DW, 10, 2, -40), ST(BPF_DW, 10, -32, 42), ST(BPF_DW, 10, -24, -5),
                      ST(BPF_DW, 10, -16, 'A'), ST(BPF_DW, 10, -8, 0xabc), RO(20), MOV64_IMM(2, 24), MOV64_REG(3, 10),
                      ALU64_IMM(BPF_ADD, 3, -40), MOV64_IMM(4, 40), CALL(BPF_FUNC_trace_vprintk), EXIT());
    assert_int_equal(nprinted, 1);
    assert_string_equal(printed[0], "ffffffff|   42|-5 |A|%|abc");
    assert_int_equal(r0, strlen(printed[0]));
    /* data_len not a multiple of 8 */
    r0 = RUN(RO(20), MOV64_IMM(2, 24), MOV64_REG(3, 10), ALU64_IMM(BPF_ADD, 3, -16), MOV64_IMM(4, 12),
             CALL(BPF_FUNC_trace_vprintk), EXIT());
    assert_int_equal((int64_t)r0, -EINVAL);
    /* bpf_snprintf into the stack: "%d%d%d%d" of 1,2,3,4 -> "1234", returns length + 1 */
    struct {
        char out[8];
    } ctx = {{0}};
    const struct bpf_insn p[] = {
        MOV64_REG(6, 1),
        ST(BPF_DW, 10, -32, 1), ST(BPF_DW, 10, -24, 2), ST(BPF_DW, 10, -16, 3), ST(BPF_DW, 10, -8, 4),
        MOV64_REG(1, 6), MOV64_IMM(2, 8),
        LD64_SRC(3, BPF_PSEUDO_MAP_VALUE, (uint64_t)(uintptr_t)rodata + 49),
        MOV64_REG(4, 10), ALU64_IMM(BPF_ADD, 4, -32), MOV64_IMM(5, 32),
        CALL(BPF_FUNC_snprintf), EXIT(),
    };
    r0 = run_ctx(p, NINSN(p), &ctx, sizeof ctx);
    assert_int_equal(r0, 5);
    assert_string_equal(ctx.out, "1234");
}

/* Offsets of the wide formats in .rodata. */
#define FMT_WIDE 58  /* "%999999999d" */
#define FMT_LEFT 70  /* "%-99999999999d|" */

/* A width past the kernel's 2^23 - 1 is clamped, not padded out: the line holds what fits in the
 * 512-byte buffer (511 spaces; left-justified: the number, then spaces) and the call returns at once. */
static void test_printk_width_clamped(void **state)
{
    (void)state;
    nprinted = 0;
    uint64_t r0 = RUN(RO(FMT_WIDE), MOV64_IMM(2, 12), MOV64_IMM(3, 5), CALL(BPF_FUNC_trace_printk), EXIT());
    assert_int_equal(nprinted, 1);
    assert_int_equal(r0, 511);
    assert_int_equal(strspn(printed[0], " "), 511);
    r0 = RUN(RO(FMT_LEFT), MOV64_IMM(2, 16), MOV64_IMM(3, 42), CALL(BPF_FUNC_trace_printk), EXIT());
    assert_int_equal(nprinted, 2);
    assert_int_equal(r0, 511);
    assert_memory_equal(printed[1], "42   ", 5);
    assert_int_equal(strspn(printed[1] + 2, " "), 509);
}

/* Runs p with an instruction budget; returns the fault (BPF_FAULT_NONE when it ran to the end). */
static enum bpf_fault_kind run_budget(const struct bpf_insn *p, uint32_t n, uint64_t budget, struct bpf_fault *f)
{
    struct bpf_vm_env e = env;
    e.insn_budget = budget;
    struct bpf_prog prog = {.name = "helpers", .insns = p, .n = n, .maps = maps, .n_maps = 3};
    uint64_t r0;
    if (bpf_vm_run(&e, &prog, NULL, 0, false, &r0, f) == 0)
        return BPF_FAULT_NONE;
    return f->kind;
}

/* A helper costs the work it does: a printk padding 1000 characters, a probe_read of 400 bytes, a map
 * update of a 16-byte key do not fit a budget of 40 instructions, though each program is 4-8 of them. */
static void test_helpers_charged_by_work(void **state)
{
    (void)state;
    struct bpf_fault f;
    const struct bpf_insn wide[] = {RO(FMT_WIDE), MOV64_IMM(2, 12), MOV64_IMM(3, 5), CALL(BPF_FUNC_trace_printk),
                                    EXIT()};
    assert_int_equal(run_budget(wide, NINSN(wide), 40, &f), BPF_FAULT_BUDGET);
    assert_non_null(strstr(f.reason, "trace_printk would handle"));
    assert_int_equal(run_budget(wide, NINSN(wide), 1000, &f), BPF_FAULT_NONE);
    const struct bpf_insn probe[] = {MOV64_REG(1, 10), ALU64_IMM(BPF_ADD, 1, -400), MOV64_IMM(2, 400), MOV64_REG(3, 10),
                                     ALU64_IMM(BPF_ADD, 3, -512), CALL(BPF_FUNC_probe_read_kernel), EXIT()};
    assert_int_equal(run_budget(probe, NINSN(probe), 40, &f), BPF_FAULT_BUDGET);
    assert_non_null(strstr(f.reason, "probe_read_kernel would handle 400 bytes"));
    assert_int_equal(run_budget(probe, NINSN(probe), 80, &f), BPF_FAULT_NONE);
    const struct bpf_insn small[] = {MOV64_REG(1, 10), ALU64_IMM(BPF_ADD, 1, -8), MOV64_IMM(2, 8), MOV64_REG(3, 10),
                                     ALU64_IMM(BPF_ADD, 3, -16), CALL(BPF_FUNC_probe_read_kernel), EXIT()};
    assert_int_equal(run_budget(small, NINSN(small), 40, &f), BPF_FAULT_NONE);
}

static void current_task_helpers_answer_the_callers_ids(void **state)
{
    (void)state;
    have_task = true;
    assert_int_equal(RUN(CALL(BPF_FUNC_get_current_pid_tgid), EXIT()), (1200ull << 32) | 1234);
    assert_int_equal(RUN(CALL(BPF_FUNC_get_current_uid_gid), EXIT()), (100ull << 32) | 1000);
    char comm[16];
    memset(comm, 'x', sizeof comm);
    run_ctx((const struct bpf_insn[]){MOV64_IMM(2, 16), CALL(BPF_FUNC_get_current_comm), EXIT()}, 3, comm, sizeof comm);
    assert_string_equal(comm, "lc-server");
    assert_int_equal(comm[15], 0);
    /* truncated to the buffer, still terminated */
    memset(comm, 'x', sizeof comm);
    run_ctx((const struct bpf_insn[]){MOV64_IMM(2, 4), CALL(BPF_FUNC_get_current_comm), EXIT()}, 3, comm, sizeof comm);
    assert_memory_equal(comm, "lc-\0xxx", 7);
    have_task = false;
    assert_int_equal((int64_t)RUN(CALL(BPF_FUNC_get_current_pid_tgid), EXIT()), -EINVAL);
    memset(comm, 'x', sizeof comm);
    assert_int_equal((int64_t)run_ctx((const struct bpf_insn[]){MOV64_IMM(2, 16), CALL(BPF_FUNC_get_current_comm), EXIT()},
                                      3, comm, sizeof comm), -EINVAL);
    assert_int_equal(comm[0], 0);
    have_task = true;
}

static void clock_prng_and_cpu_helpers_answer_from_the_env(void **state)
{
    (void)state;
    now_ns = 123456789;
    assert_int_equal(RUN(CALL(BPF_FUNC_ktime_get_ns), EXIT()), 123456789);
    assert_int_equal(RUN(CALL(BPF_FUNC_ktime_get_boot_ns), EXIT()), 123456794);
    assert_int_equal(RUN(CALL(BPF_FUNC_ktime_get_coarse_ns), EXIT()), 123456789);
    env.cpu = 0;
    assert_int_equal(RUN(CALL(BPF_FUNC_get_smp_processor_id), EXIT()), 0);
    prng = 7;
    uint64_t a = RUN(CALL(BPF_FUNC_get_prandom_u32), EXIT()), b = RUN(CALL(BPF_FUNC_get_prandom_u32), EXIT());
    prng = 7;
    assert_int_equal(RUN(CALL(BPF_FUNC_get_prandom_u32), EXIT()), a);
    assert_int_not_equal(a, b);
    assert_true(a <= UINT32_MAX && b <= UINT32_MAX);
}

static void test_probe_read(void **state)
{
    (void)state;
    uint64_t ctx[4] = {0x1111, 0x2222, 0, 0};
    /* probe_read_kernel(&ctx[2], 8, &ctx[1]) */
    const struct bpf_insn ok[] = {MOV64_REG(3, 1), ALU64_IMM(BPF_ADD, 3, 8), ALU64_IMM(BPF_ADD, 1, 16), MOV64_IMM(2, 8),
                                  CALL(BPF_FUNC_probe_read_kernel), EXIT()};
    assert_int_equal(run_ctx(ok, NINSN(ok), ctx, sizeof ctx), 0);
    assert_int_equal(ctx[2], 0x2222);
    /* from an address no region holds: -EFAULT and the destination zeroed */
    const struct bpf_insn bad[] = {ALU64_IMM(BPF_ADD, 1, 16), MOV64_IMM(2, 8), LD64(3, 0x10), CALL(BPF_FUNC_probe_read),
                                   EXIT()};
    assert_int_equal((int64_t)run_ctx(bad, NINSN(bad), ctx, sizeof ctx), -EFAULT);
    assert_int_equal(ctx[2], 0);
    /* a plain number that happens to be the ctx's address is found by address */
    const struct bpf_insn num[] = {ALU64_IMM(BPF_ADD, 1, 24), MOV64_IMM(2, 8), LD64(3, (uint64_t)(uintptr_t)ctx),
                                   CALL(BPF_FUNC_probe_read_user), EXIT()};
    assert_int_equal(run_ctx(num, NINSN(num), ctx, sizeof ctx), 0);
    assert_int_equal(ctx[3], 0x1111);
    /* probe_read_kernel_str of "tsg %llu..." into 8 bytes: 7 chars + NUL, returns 8 */
    char out[16] = {0};
    const struct bpf_insn str[] = {MOV64_IMM(2, 8), LD64(3, (uint64_t)(uintptr_t)rodata), CALL(BPF_FUNC_probe_read_kernel_str),
                                   EXIT()};
    assert_int_equal(run_ctx(str, NINSN(str), out, sizeof out), 8);
    assert_string_equal(out, "tsg %ll");
}

static int drained_len[8], ndrained;
static uint64_t drained_first;

static int drain(void *arg, const void *data, uint32_t len)
{
    (void)arg;
    if (ndrained == 0)
        memcpy(&drained_first, data, 8);
    drained_len[ndrained++ & 7] = (int)len;
    return 0;
}

static void ringbuf_helpers_reserve_submit_discard_and_output(void **state)
{
    (void)state;
    /* reserve 16, write, submit; reserve 8, discard; output 24 bytes of stack */
    const struct bpf_insn p[] = {
        MAP(1, 1), MOV64_IMM(2, 16), MOV64_IMM(3, 0), CALL(BPF_FUNC_ringbuf_reserve), JMP_IMM(BPF_JEQ, 0, 0, 21),
        ST(BPF_DW, 0, 0, 0x77), MOV64_REG(1, 0), MOV64_IMM(2, 0), CALL(BPF_FUNC_ringbuf_submit),
        MAP(1, 1), MOV64_IMM(2, 8), MOV64_IMM(3, 0), CALL(BPF_FUNC_ringbuf_reserve), JMP_IMM(BPF_JEQ, 0, 0, 11),
        MOV64_REG(1, 0), MOV64_IMM(2, 0), CALL(BPF_FUNC_ringbuf_discard),
        MAP(1, 1), MOV64_REG(2, 10), ALU64_IMM(BPF_ADD, 2, -24), MOV64_IMM(3, 24), MOV64_IMM(4, 0),
        CALL(BPF_FUNC_ringbuf_output), EXIT(),
        MOV64_IMM(0, -1), EXIT(),
    };
    ndrained = 0;
    assert_int_equal(run_ctx(p, NINSN(p), NULL, 0), 0);
    assert_int_equal(bpf_map_ringbuf_drain(maps[1], drain, NULL), 2);
    assert_int_equal(drained_len[0], 16);
    assert_int_equal(drained_len[1], 24);
    assert_int_equal(drained_first, 0x77);
    assert_int_equal(bpf_map_ringbuf_query(maps[1], BPF_RB_AVAIL_DATA), 0);
    /* too large: NULL; bad flags: NULL / -EINVAL */
    assert_int_equal(RUN(MAP(1, 1), MOV64_IMM(2, 4096), MOV64_IMM(3, 0), CALL(BPF_FUNC_ringbuf_reserve), EXIT()), 0);
    assert_int_equal(RUN(MAP(1, 1), MOV64_IMM(2, 8), MOV64_IMM(3, 1), CALL(BPF_FUNC_ringbuf_reserve), EXIT()), 0);
    assert_int_equal((int64_t)RUN(MAP(1, 1), MOV64_REG(2, 10), ALU64_IMM(BPF_ADD, 2, -8), MOV64_IMM(3, 8),
                                  MOV64_IMM(4, 8), CALL(BPF_FUNC_ringbuf_output), EXIT()), -EINVAL);
    assert_int_equal(RUN(MAP(1, 1), MOV64_IMM(2, BPF_RB_RING_SIZE), CALL(BPF_FUNC_ringbuf_query), EXIT()), 4096);
}

static void test_map_helpers_return_errnos(void **state)
{
    (void)state;
    /* key "lc-server\0..." (16 bytes) on the stack, value 1000 */
#define KEY_AND_VALUE LD64(1, 0x65767265732d636cull), STX(BPF_DW, 10, 1, -16), ST(BPF_DW, 10, -8, 0x72), ST(BPF_DW, 10, -24, 1000), \
        MAP(1, 2), MOV64_REG(2, 10), ALU64_IMM(BPF_ADD, 2, -16), MOV64_REG(3, 10), ALU64_IMM(BPF_ADD, 3, -24)
    assert_int_equal(RUN(KEY_AND_VALUE, MOV64_IMM(4, BPF_EXIST), CALL(BPF_FUNC_map_update_elem), EXIT()), (uint64_t)-ENOENT);
    assert_int_equal(RUN(KEY_AND_VALUE, MOV64_IMM(4, BPF_NOEXIST), CALL(BPF_FUNC_map_update_elem), EXIT()), 0);
    assert_int_equal(RUN(KEY_AND_VALUE, MOV64_IMM(4, BPF_NOEXIST), CALL(BPF_FUNC_map_update_elem), EXIT()), (uint64_t)-EEXIST);
    assert_int_equal(RUN(KEY_AND_VALUE, MOV64_IMM(4, 7), CALL(BPF_FUNC_map_update_elem), EXIT()), (uint64_t)-EINVAL);
    /* the host sees it under the same key */
    char key[16] = "lc-server";
    const uint64_t *v = bpf_map_lookup(maps[2], key);
    assert_non_null(v);
    assert_int_equal(*v, 1000);
    /* lookup returns the value; a program may write through it */
    assert_int_equal(RUN(KEY_AND_VALUE, CALL(BPF_FUNC_map_lookup_elem), JMP_IMM(BPF_JEQ, 0, 0, 3), ST(BPF_DW, 0, 0, 5),
                         LDX(BPF_DW, 0, 0, 0), EXIT(), EXIT()), 5);
    assert_int_equal(*v, 5);
    /* the map holds two keys: a third is -E2BIG */
    assert_int_equal(RUN(KEY_AND_VALUE, ST(BPF_B, 10, -16, 'x'), MOV64_IMM(4, 0), CALL(BPF_FUNC_map_update_elem), EXIT()), 0);
    assert_int_equal(RUN(KEY_AND_VALUE, ST(BPF_B, 10, -16, 'y'), MOV64_IMM(4, 0), CALL(BPF_FUNC_map_update_elem), EXIT()),
                     (uint64_t)-E2BIG);
    assert_int_equal(RUN(KEY_AND_VALUE, CALL(BPF_FUNC_map_delete_elem), EXIT()), 0);
    assert_int_equal(RUN(KEY_AND_VALUE, CALL(BPF_FUNC_map_delete_elem), EXIT()), (uint64_t)-ENOENT);
    /* lookup_percpu_elem on CPU 0 finds, on another CPU gives NULL */
    assert_int_equal(RUN(KEY_AND_VALUE, ST(BPF_B, 10, -16, 'x'), MOV64_IMM(3, 1), CALL(BPF_FUNC_map_lookup_percpu_elem),
                         EXIT()), 0);
    assert_int_not_equal(RUN(KEY_AND_VALUE, ST(BPF_B, 10, -16, 'x'), MOV64_IMM(3, 0), CALL(BPF_FUNC_map_lookup_percpu_elem),
                             EXIT()), 0);
}

static void bpf_loop_runs_the_callback_until_it_stops(void **state)
{
    (void)state;
    /* bpf_loop(10, cb, &acc, 0), cb: acc += i; stop when i == 5 -> acc = 15, returns 6 iterations */
    const struct bpf_insn p[] = {
        ST(BPF_DW, 10, -8, 0), MOV64_IMM(1, 10), LD64_SRC(2, BPF_PSEUDO_FUNC, 9), MOV64_REG(3, 10), ALU64_IMM(BPF_ADD, 3, -8),
        MOV64_IMM(4, 0), CALL(BPF_FUNC_loop), LDX(BPF_DW, 1, 10, -8), ALU64_IMM(BPF_LSH, 1, 8), ALU64_REG(BPF_OR, 0, 1),
        EXIT(),
        /* callback(r1 = index, r2 = ctx) */
        LDX(BPF_DW, 3, 2, 0), ALU64_REG(BPF_ADD, 3, 1), STX(BPF_DW, 2, 3, 0), MOV64_IMM(0, 0), JMP_IMM(BPF_JNE, 1, 5, 1),
        MOV64_IMM(0, 1), EXIT(),
    };
    assert_int_equal(run_ctx(p, NINSN(p), NULL, 0), (15 << 8) | 6);
    /* flags must be 0, nr at most 1 << 23 */
    assert_int_equal(RUN(MOV64_IMM(1, 1), LD64_SRC(2, BPF_PSEUDO_FUNC, 5), MOV64_IMM(3, 0), MOV64_IMM(4, 1),
                         CALL(BPF_FUNC_loop), EXIT(), MOV64_IMM(0, 0), EXIT()), (uint64_t)-EINVAL);
    assert_int_equal(RUN(LD64(1, (1u << 23) + 1), LD64_SRC(2, BPF_PSEUDO_FUNC, 5), MOV64_IMM(3, 0), MOV64_IMM(4, 0),
                         CALL(BPF_FUNC_loop), EXIT(), MOV64_IMM(0, 0), EXIT()), (uint64_t)-E2BIG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(trace_printk_formats_its_arguments_into_one_line),
        cmocka_unit_test(trace_vprintk_and_snprintf_format_a_data_array),
        cmocka_unit_test(test_printk_width_clamped),
        cmocka_unit_test(test_helpers_charged_by_work),
        cmocka_unit_test(current_task_helpers_answer_the_callers_ids),
        cmocka_unit_test(clock_prng_and_cpu_helpers_answer_from_the_env),
        cmocka_unit_test(test_probe_read),
        cmocka_unit_test(ringbuf_helpers_reserve_submit_discard_and_output),
        cmocka_unit_test(test_map_helpers_return_errnos),
        cmocka_unit_test(bpf_loop_runs_the_callback_until_it_stops),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
