/*
 * The kernel's own BPF as the oracle: the same programs run through bpf(BPF_PROG_TEST_RUN) as
 * BPF_PROG_TYPE_SYSCALL (sleepable; its ctx is a writable buffer copied back to us) and through
 * the interpreter must leave the same r0 and the same memory, and the same map operations on a
 * kernel map and on ours must give the same errors. Where bpf() is refused (no privilege,
 * seccomp, old kernel) every test is skipped with the reason.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include "bpf/bpf_vm.h"
#include "bpf_asm.h"
#include "isa_cases.h"

#define CTX_WORDS 12
#define RESULT_SLOT 11                 /* the wrapper stores the subprogram's r0 here */
#define MAX_PROG 256

static const char *skip_reason;

static long sys_bpf(int cmd, union bpf_attr *a)
{
    return syscall(SYS_bpf, cmd, a, sizeof *a);
}

static int kernel_load(const struct bpf_insn *p, uint32_t n, char *log, size_t loglen)
{
    union bpf_attr a;
    memset(&a, 0, sizeof a);
    a.prog_type = BPF_PROG_TYPE_SYSCALL;
    a.insns = (uintptr_t)p;
    a.insn_cnt = n;
    a.license = (uintptr_t) "GPL";
    a.prog_flags = BPF_F_SLEEPABLE;
    if (log) {
        log[0] = '\0';
        a.log_buf = (uintptr_t)log;
        a.log_size = (uint32_t)loglen;
        a.log_level = 1;
    }
    int fd = (int)sys_bpf(BPF_PROG_LOAD, &a);
    if (fd < 0 && log && !log[0] && errno == ENOSPC)
        return kernel_load(p, n, NULL, 0);
    return fd < 0 ? -errno : fd;
}

static int kernel_run(int fd, void *ctx, uint32_t size, uint32_t *retval)
{
    union bpf_attr a;
    memset(&a, 0, sizeof a);
    a.test.prog_fd = (uint32_t)fd;
    a.test.ctx_in = (uintptr_t)ctx;
    a.test.ctx_size_in = size;
    if (sys_bpf(BPF_PROG_TEST_RUN, &a))
        return -errno;
    *retval = a.test.retval;
    return 0;
}

static int setup(void **state)
{
    (void)state;
    struct bpf_insn p[] = {MOV64_IMM(0, 7), EXIT()};
    uint64_t ctx[CTX_WORDS] = {0};
    uint32_t ret = 0;
    int fd = kernel_load(p, 2, NULL, 0);
    if (fd < 0) {
        static char why[160];
        snprintf(why, sizeof why, "bpf(BPF_PROG_LOAD, BPF_PROG_TYPE_SYSCALL) refused: %s", strerror(-fd));
        skip_reason = why;
    } else if (kernel_run(fd, ctx, sizeof ctx, &ret) || ret != 7) {
        skip_reason = "bpf(BPF_PROG_TEST_RUN) of a syscall program does not work here";
    }
    if (fd >= 0)
        close(fd);
    if (skip_reason)
        printf("SKIP differential tests: %s\n", skip_reason);
    return 0;
}

#define SKIP_WITHOUT_KERNEL()   \
    do {                        \
        if (skip_reason)        \
            skip();             \
    } while (0)

/* main: r6 = ctx; r0 = body(ctx); ctx[RESULT_SLOT] = r0; exit — so the full 64-bit r0 is compared
 * (BPF_PROG_TEST_RUN reports only 32 bits of it). */
static uint32_t wrap(const struct bpf_insn *body, uint32_t n, struct bpf_insn *out)
{
    const struct bpf_insn head[] = {MOV64_REG(6, 1), CALL_SUB(2), STX(BPF_DW, 6, 0, RESULT_SLOT * 8), EXIT()};
    memcpy(out, head, sizeof head);
    memcpy(out + 4, body, n * sizeof *body);
    return n + 4;
}

struct outcome {
    int rc;                           /* 0, or the load/run error */
    uint64_t ctx[CTX_WORDS];
};

static void run_kernel(const struct bpf_insn *p, uint32_t n, const uint64_t *ctx_in, struct outcome *o, char *log,
                       size_t loglen)
{
    memcpy(o->ctx, ctx_in, sizeof o->ctx);
    int fd = kernel_load(p, n, log, loglen);
    if (fd < 0) {
        o->rc = fd;
        return;
    }
    uint32_t ret;
    o->rc = kernel_run(fd, o->ctx, sizeof o->ctx, &ret);
    close(fd);
}

static void run_vm(const struct bpf_insn *p, uint32_t n, const uint64_t *ctx_in, struct outcome *o, char *err,
                   size_t errlen)
{
    struct bpf_vm_env env = {0};
    struct bpf_prog prog = {.name = "diff", .insns = p, .n = n};
    struct bpf_fault f;
    uint64_t r0;
    memcpy(o->ctx, ctx_in, sizeof o->ctx);
    o->rc = bpf_vm_check(&env, &prog, false, &f) ? -1 : bpf_vm_run(&env, &prog, o->ctx, sizeof o->ctx, false, &r0, &f);
    if (o->rc)
        bpf_fault_format(&f, err, errlen);
}

/* Callback references (bpf_loop) make the kernel ask for BTF func info, which hand-built programs lack. */
static bool needs_btf(const struct bpf_insn *p, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (bpf_insn_is_wide(&p[i]) && p[i].src_reg == BPF_PSEUDO_FUNC)
            return true;
    return false;
}

static void test_isa_tables_match_kernel(void **state)
{
    (void)state;
    SKIP_WITHOUT_KERNEL();
    unsigned rows = 0, mismatches = 0, without_btf = 0;
    static char log[65536];
    for (uint32_t g = 0; g < isa_ngroups; g++)
        for (uint32_t i = 0; i < isa_groups[g].n; i++, rows++) {
            struct bpf_insn body[CASE_MAX_INSNS], p[CASE_MAX_INSNS + 4];
            uint32_t nb = isa_build(&isa_groups[g], i, body);
            if (needs_btf(body, nb)) {
                without_btf++;
                continue;
            }
            uint32_t n = wrap(body, nb, p);
            uint64_t in[CTX_WORDS] = {0};
            struct outcome k, v;
            char err[512] = "";
            run_kernel(p, n, in, &k, log, sizeof log);
            run_vm(p, n, in, &v, err, sizeof err);
            uint64_t want[3];
            isa_expect_ctx(&isa_groups[g], i, want);
            bool table_ok = v.rc == 0 && v.ctx[RESULT_SLOT] == isa_expect_r0(&isa_groups[g], i) &&
                            memcmp(v.ctx, want, sizeof want) == 0;
            if (k.rc || v.rc || memcmp(k.ctx, v.ctx, sizeof k.ctx) || !table_ok) {
                printf("MISMATCH %s/%s: kernel rc %d r0 0x%llx, vm rc %d r0 0x%llx %s\n%.2000s\n", isa_groups[g].group,
                       isa_row_name(&isa_groups[g], i), k.rc, (unsigned long long)k.ctx[RESULT_SLOT], v.rc,
                       (unsigned long long)v.ctx[RESULT_SLOT], err, k.rc ? log : "");
                mismatches++;
            }
        }
    printf("%u table programs: kernel and interpreter agree on %u (%u need BTF the kernel wants, not compared)\n",
           rows - without_btf, rows - without_btf - mismatches, without_btf);
    assert_int_equal(mismatches, 0);
}

/* --- generated programs --- */

static uint64_t next_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t interesting(uint64_t *s)
{
    static const uint64_t v[] = {0, 1, 2, 7, 0xffffffffffffffffull, 0x7fffffff, 0x80000000, 0xffffffff,
                                 0x8000000000000000ull, 0x7fffffffffffffffull, 0x100000000ull, 0x80, 0xff, 0xffff,
                                 0x8000, 63, 64, 31, 32};
    uint64_t r = next_rand(s);
    if (r % 3 == 0)
        return next_rand(s);
    if (r % 3 == 1)
        return (uint32_t)next_rand(s);
    return v[(r >> 8) % (sizeof v / sizeof v[0])];
}

static const uint8_t alu_ops[] = {BPF_ADD, BPF_SUB, BPF_MUL, BPF_DIV, BPF_OR, BPF_AND, BPF_LSH, BPF_RSH,
                                  BPF_NEG, BPF_MOD, BPF_XOR, BPF_MOV, BPF_ARSH, BPF_END};
static const uint8_t jmp_ops[] = {BPF_JEQ, BPF_JGT, BPF_JGE, BPF_JSET, BPF_JNE, BPF_JSGT,
                                  BPF_JSGE, BPF_JLT, BPF_JLE, BPF_JSLT, BPF_JSLE};
static const int32_t atomic_ops[] = {BPF_ADD, BPF_OR, BPF_AND, BPF_XOR, BPF_ADD | BPF_FETCH, BPF_OR | BPF_FETCH,
                                     BPF_AND | BPF_FETCH, BPF_XOR | BPF_FETCH, BPF_XCHG, BPF_CMPXCHG};

static struct bpf_insn random_alu(uint64_t *s)
{
    uint64_t r = next_rand(s);
    bool is64 = r & 1, x = (r >> 1) & 1;
    uint8_t op = alu_ops[(r >> 2) % sizeof alu_ops];
    uint8_t dst = (uint8_t)((r >> 8) % 10), src = (uint8_t)((r >> 12) % 10);
    int16_t off = 0;
    int32_t imm = (int32_t)interesting(s);
    if (op == BPF_NEG)
        x = false, imm = 0;
    if (op == BPF_END) {
        static const int32_t w[] = {16, 32, 64};
        imm = w[(r >> 16) % 3];
        if (is64)
            x = false;
        return INSN((is64 ? BPF_ALU64 : BPF_ALU) | BPF_END | (x ? BPF_X : BPF_K), dst, 0, 0, imm);
    }
    if (op == BPF_DIV || op == BPF_MOD) {
        off = (int16_t)((r >> 20) & 1);
        if (!x && imm == 0)
            imm = 3;
    }
    if (!x && (op == BPF_LSH || op == BPF_RSH || op == BPF_ARSH))
        imm = (int32_t)((uint32_t)imm % (is64 ? 64 : 32));
    if (op == BPF_MOV && x) {
        static const int16_t sx[] = {0, 8, 16, 32};
        off = sx[(r >> 24) % (is64 ? 4 : 3)];
    }
    return INSN((is64 ? BPF_ALU64 : BPF_ALU) | op | (x ? BPF_X : BPF_K), dst, x ? src : 0, off, x ? 0 : imm);
}

/* r0-r9 random, 8 stack slots initialised, a body of ALU, forward branches, stack loads/stores and
 * atomics, then every register and slot written to the ctx. */
static uint32_t random_prog(uint64_t seed, struct bpf_insn *p)
{
    uint64_t s = seed;
    uint32_t n = 0;
    p[n++] = STX(BPF_DW, 10, 1, -88);
    for (uint8_t r = 0; r < 10; r++) {
        uint64_t v = interesting(&s);
        p[n++] = INSN(BPF_LD | BPF_IMM | BPF_DW, r, 0, 0, (int32_t)(uint32_t)v);
        p[n++] = INSN(0, 0, 0, 0, (int32_t)(uint32_t)(v >> 32));
    }
    for (int slot = 1; slot <= 8; slot++)
        p[n++] = STX(BPF_DW, 10, (uint8_t)(slot % 10), (int16_t)(-8 * slot));
    uint32_t body = 40 + (uint32_t)(next_rand(&s) % 40), end = n + body, branches = 0;
    while (n < end) {
        uint64_t r = next_rand(&s) % 100;
        uint8_t a = (uint8_t)(next_rand(&s) % 10), b = (uint8_t)(next_rand(&s) % 10);
        if (r < 60) {
            p[n++] = random_alu(&s);
        } else if (r < 72 && branches < 8 && end - n > 1) {
            uint8_t op = jmp_ops[next_rand(&s) % sizeof jmp_ops];
            bool x = next_rand(&s) & 1, j32 = next_rand(&s) & 1;
            int16_t off = (int16_t)(next_rand(&s) % (end - n - 1 < 4 ? end - n - 1 : 4));
            p[n++] = INSN((j32 ? BPF_JMP32 : BPF_JMP) | op | (x ? BPF_X : BPF_K), a, x ? b : 0, off,
                          x ? 0 : (int32_t)interesting(&s));
            branches++;
        } else if (r < 86) {
            static const uint8_t sizes[] = {BPF_B, BPF_H, BPF_W, BPF_DW};
            static const int width[] = {1, 2, 4, 8};
            int si = (int)(next_rand(&s) % 4);
            int16_t off = (int16_t)(-8 * (int)(1 + next_rand(&s) % 8) + width[si] * (int)(next_rand(&s) % (8 / width[si])));
            uint64_t kind = next_rand(&s) % 4;
            if (kind == 0)
                p[n++] = INSN(BPF_STX | BPF_MEM | sizes[si], 10, a, off, 0);
            else if (kind == 1)
                p[n++] = INSN(BPF_ST | BPF_MEM | sizes[si], 10, 0, off, (int32_t)interesting(&s));
            else if (kind == 2 || sizes[si] == BPF_DW)
                p[n++] = INSN(BPF_LDX | BPF_MEM | sizes[si], a, 10, off, 0);
            else
                p[n++] = INSN(BPF_LDX | BPF_MEMSX | sizes[si], a, 10, off, 0);
        } else {
            bool dw = next_rand(&s) & 1;
            int16_t off = (int16_t)(-8 * (int)(1 + next_rand(&s) % 8) + (dw ? 0 : 4 * (int)(next_rand(&s) % 2)));
            p[n++] = INSN(BPF_STX | BPF_ATOMIC | (dw ? BPF_DW : BPF_W), 10, a, off,
                          atomic_ops[next_rand(&s) % (sizeof atomic_ops / sizeof atomic_ops[0])]);
        }
    }
    /* registers to slots -96.., then ctx = slots; slot contents after the registers */
    for (uint8_t r = 0; r < 10; r++)
        p[n++] = STX(BPF_DW, 10, r, (int16_t)(-96 - 8 * r));
    p[n++] = LDX(BPF_DW, 1, 10, -88);
    for (int w = 0; w < 10; w++) {
        p[n++] = LDX(BPF_DW, 2, 10, (int16_t)(-96 - 8 * w));
        p[n++] = STX(BPF_DW, 1, 2, (int16_t)(8 * w));
    }
    p[n++] = LDX(BPF_DW, 2, 10, -8);
    p[n++] = STX(BPF_DW, 1, 2, 80);
    p[n++] = LDX(BPF_DW, 2, 10, -64);
    p[n++] = STX(BPF_DW, 1, 2, 88);
    p[n++] = MOV64_IMM(0, 0);
    p[n++] = EXIT();
    return n;
}

static void test_generated_programs_match_kernel(void **state)
{
    (void)state;
    SKIP_WITHOUT_KERNEL();
    const unsigned count = 400;
    unsigned mismatches = 0, refused = 0;
    static char log[1 << 16];
    for (unsigned i = 0; i < count; i++) {
        struct bpf_insn p[MAX_PROG];
        uint32_t n = random_prog(0x5eed0000ull + i, p);
        uint64_t in[CTX_WORDS] = {0};
        struct outcome k, v;
        char err[512] = "";
        run_kernel(p, n, in, &k, log, sizeof log);
        if (k.rc) {
            printf("kernel refused generated program %u (%s)\n%s\n", i, strerror(-k.rc), log);
            refused++;
            continue;
        }
        run_vm(p, n, in, &v, err, sizeof err);
        if (v.rc || memcmp(k.ctx, v.ctx, sizeof k.ctx)) {
            printf("MISMATCH generated program %u: %s\n", i, err);
            for (uint32_t w = 0; w < CTX_WORDS; w++)
                if (k.ctx[w] != v.ctx[w])
                    printf("  word %u: kernel 0x%llx vm 0x%llx\n", w, (unsigned long long)k.ctx[w],
                           (unsigned long long)v.ctx[w]);
            for (uint32_t j = 0; j < n; j++) {
                char buf[128];
                j += (uint32_t)bpf_disasm(&p[j], n - j, buf, sizeof buf) - 1;
                printf("    %3u: %s\n", j, buf);
            }
            mismatches++;
        }
    }
    printf("%u generated programs: %u agree, %u refused by the kernel\n", count, count - mismatches - refused, refused);
    assert_int_equal(refused, 0);
    assert_int_equal(mismatches, 0);
}

/* --- maps: creation errors and operation errno matrices --- */

static int kmap_create(const struct bpf_map_def *d)
{
    union bpf_attr a;
    memset(&a, 0, sizeof a);
    a.map_type = d->type;
    a.key_size = d->key_size;
    a.value_size = d->value_size;
    a.max_entries = d->max_entries;
    a.map_flags = d->map_flags;
    int fd = (int)sys_bpf(BPF_MAP_CREATE, &a);
    return fd < 0 ? -errno : fd;
}

static int kmap_op(int cmd, int fd, const void *key, void *value, uint64_t flags)
{
    union bpf_attr a;
    memset(&a, 0, sizeof a);
    a.map_fd = (uint32_t)fd;
    a.key = (uintptr_t)key;
    if (cmd == BPF_MAP_GET_NEXT_KEY)
        a.next_key = (uintptr_t)value;
    else
        a.value = (uintptr_t)value;
    a.flags = flags;
    return sys_bpf(cmd, &a) ? -errno : 0;
}

static const struct bpf_map_def create_matrix[] = {
    {"hash", BPF_MAP_TYPE_HASH, 4, 8, 4, 0},
    {"hash_name", BPF_MAP_TYPE_HASH, 16, 8, 64, 0},
    {"hash_noprealloc", BPF_MAP_TYPE_HASH, 4, 8, 4, BPF_F_NO_PREALLOC},
    {"array", BPF_MAP_TYPE_ARRAY, 4, 8, 4, 0},
    {"rodata", BPF_MAP_TYPE_ARRAY, 4, 100, 1, BPF_F_RDONLY_PROG},
    {"lru", BPF_MAP_TYPE_LRU_HASH, 4, 8, 4, 0},
    {"pcpu_hash", BPF_MAP_TYPE_PERCPU_HASH, 4, 8, 4, 0},
    {"pcpu_array", BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8, 4, 0},
    {"ringbuf", BPF_MAP_TYPE_RINGBUF, 0, 0, 4096, 0},
    {"hash_key0", BPF_MAP_TYPE_HASH, 0, 8, 4, 0},
    {"hash_val0", BPF_MAP_TYPE_HASH, 4, 0, 4, 0},
    {"hash_max0", BPF_MAP_TYPE_HASH, 4, 8, 0, 0},
    {"hash_key513", BPF_MAP_TYPE_HASH, 513, 8, 4, 0},
    {"hash_key512", BPF_MAP_TYPE_HASH, 512, 8, 4, 0},
    {"hash_huge_val", BPF_MAP_TYPE_HASH, 4, (1u << 22) - 1, 1, 0},
    {"hash_badflag", BPF_MAP_TYPE_HASH, 4, 8, 4, 1u << 20},
    {"hash_nocommonlru", BPF_MAP_TYPE_HASH, 4, 8, 4, BPF_F_NO_COMMON_LRU},
    {"lru_noprealloc", BPF_MAP_TYPE_LRU_HASH, 4, 8, 4, BPF_F_NO_PREALLOC},
    {"array_key8", BPF_MAP_TYPE_ARRAY, 8, 8, 4, 0},
    {"array_val0", BPF_MAP_TYPE_ARRAY, 4, 0, 4, 0},
    {"array_max0", BPF_MAP_TYPE_ARRAY, 4, 8, 0, 0},
    {"array_rdwr_prog", BPF_MAP_TYPE_ARRAY, 4, 8, 4, BPF_F_RDONLY_PROG | BPF_F_WRONLY_PROG},
    {"array_noprealloc", BPF_MAP_TYPE_ARRAY, 4, 8, 4, BPF_F_NO_PREALLOC},
    {"array_huge_val", BPF_MAP_TYPE_ARRAY, 4, (1u << 22) + 8, 1, 0},
    {"pcpu_array_big", BPF_MAP_TYPE_PERCPU_ARRAY, 4, (32u << 10) + 8, 1, 0},
    {"ringbuf_notpow2", BPF_MAP_TYPE_RINGBUF, 0, 0, 3 * 4096, 0},
    {"ringbuf_small", BPF_MAP_TYPE_RINGBUF, 0, 0, 2048, 0},
    {"ringbuf_key", BPF_MAP_TYPE_RINGBUF, 4, 0, 4096, 0},
    {"ringbuf_flags", BPF_MAP_TYPE_RINGBUF, 0, 0, 4096, BPF_F_NO_PREALLOC},
    {"unknown_type", 200, 4, 8, 4, 0},
};

static void test_map_create_errnos_match_kernel(void **state)
{
    (void)state;
    SKIP_WITHOUT_KERNEL();
    unsigned mismatches = 0, n = sizeof create_matrix / sizeof create_matrix[0];
    for (unsigned i = 0; i < n; i++) {
        int kfd = kmap_create(&create_matrix[i]);
        int e = 0;
        char err[160];
        struct bpf_map *m = bpf_map_create_errno(&create_matrix[i], &e, err, sizeof err);
        int kerr = kfd < 0 ? -kfd : 0;
        if (kerr != e || (m == NULL) != (e != 0)) {
            printf("MISMATCH create %s: kernel %d (%s), ours %d\n", create_matrix[i].name, kerr, strerror(kerr), e);
            mismatches++;
        }
        if (kfd >= 0)
            close(kfd);
        bpf_map_destroy(m);
    }
    printf("%u map definitions: kernel and ours agree on %u\n", n, n - mismatches);
    assert_int_equal(mismatches, 0);
}

enum op { LOOKUP, UPDATE, DELETE, NEXT };
struct map_step {
    enum op op;
    uint32_t key;
    uint64_t value;
    uint64_t flags;
};

static const struct map_step steps[] = {
    {LOOKUP, 1, 0, 0},          {UPDATE, 1, 10, BPF_EXIST}, {UPDATE, 1, 11, BPF_NOEXIST}, {UPDATE, 1, 12, BPF_NOEXIST},
    {UPDATE, 1, 13, BPF_EXIST}, {LOOKUP, 1, 0, 0},          {UPDATE, 1, 14, 3},           {UPDATE, 1, 15, BPF_F_LOCK},
    {UPDATE, 2, 20, BPF_ANY},   {UPDATE, 3, 30, BPF_ANY},   {UPDATE, 0, 5, BPF_ANY},      {UPDATE, 4, 40, BPF_ANY},
    {UPDATE, 9, 90, BPF_ANY},   {LOOKUP, 9, 0, 0},          {UPDATE, 2, 21, BPF_EXIST},   {DELETE, 7, 0, 0},
    {DELETE, 2, 0, 0},          {DELETE, 2, 0, 0},          {LOOKUP, 2, 0, 0},            {UPDATE, 5, 50, BPF_NOEXIST},
    {LOOKUP, 3, 0, 0},          {NEXT, 0, 0, 0},            {LOOKUP, 1000, 0, 0},
};

static int our_op(struct bpf_map *m, const struct map_step *s, uint64_t *val)
{
    switch (s->op) {
    case LOOKUP: {
        const void *v = bpf_map_lookup(m, &s->key);
        if (!v)
            return -ENOENT;
        memcpy(val, v, 8);
        return 0;
    }
    case UPDATE: return bpf_map_update(m, &s->key, &s->value, s->flags);
    case DELETE: return bpf_map_delete(m, &s->key);
    default: {
        /* count keys by walking from the start (a key not in the map starts the walk, as NULL does;
         * valgrind does not know NULL is allowed there) */
        uint32_t k, prev = UINT32_MAX;
        int count = 0, rc = bpf_map_get_next_key(m, &prev, &k);
        while (rc == 0 && count < 100) {
            count++;
            prev = k;
            rc = bpf_map_get_next_key(m, &prev, &k);
        }
        *val = (uint64_t)count;
        return rc;
    }
    }
}

static int kernel_op(int fd, const struct map_step *s, uint64_t *val)
{
    static uint64_t buf[4096];
    switch (s->op) {
    case LOOKUP: {
        int rc = kmap_op(BPF_MAP_LOOKUP_ELEM, fd, &s->key, buf, 0);
        *val = buf[0];
        return rc;
    }
    case UPDATE: {
        for (size_t i = 0; i < sizeof buf / sizeof buf[0]; i++)
            buf[i] = s->value;
        return kmap_op(BPF_MAP_UPDATE_ELEM, fd, &s->key, buf, s->flags);
    }
    case DELETE: return kmap_op(BPF_MAP_DELETE_ELEM, fd, &s->key, NULL, 0);
    default: {
        uint32_t k, prev = UINT32_MAX;
        int count = 0, rc = kmap_op(BPF_MAP_GET_NEXT_KEY, fd, &prev, &k, 0);
        while (rc == 0 && count < 100) {
            count++;
            prev = k;
            rc = kmap_op(BPF_MAP_GET_NEXT_KEY, fd, &prev, &k, 0);
        }
        *val = (uint64_t)count;
        return rc;
    }
    }
}

static void test_map_op_errnos_match_kernel(void **state)
{
    (void)state;
    SKIP_WITHOUT_KERNEL();
    static const uint32_t types[] = {BPF_MAP_TYPE_HASH, BPF_MAP_TYPE_ARRAY, BPF_MAP_TYPE_LRU_HASH,
                                     BPF_MAP_TYPE_PERCPU_HASH, BPF_MAP_TYPE_PERCPU_ARRAY};
    static const char *const names[] = {"HASH", "ARRAY", "LRU_HASH", "PERCPU_HASH", "PERCPU_ARRAY"};
    unsigned mismatches = 0, total = 0;
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        /* LRU eviction order is the kernel's per-CPU business: give LRU room so no eviction happens */
        struct bpf_map_def d = {"m", types[t], 4, 8, types[t] == BPF_MAP_TYPE_LRU_HASH ? 64 : 4, 0};
        int fd = kmap_create(&d);
        assert_true(fd >= 0);
        struct bpf_map *m = bpf_map_create(&d, NULL, 0);
        assert_non_null(m);
        for (size_t s = 0; s < sizeof steps / sizeof steps[0]; s++, total++) {
            uint64_t kv = 0, ov = 0;
            int krc = kernel_op(fd, &steps[s], &kv), orc = our_op(m, &steps[s], &ov);
            bool values = steps[s].op == NEXT || (steps[s].op == LOOKUP && krc == 0);
            if (krc != orc || (values && kv != ov)) {
                printf("MISMATCH %s step %zu (op %d key %u flags %llu): kernel %d/%llu, ours %d/%llu\n", names[t], s,
                       steps[s].op, steps[s].key, (unsigned long long)steps[s].flags, krc, (unsigned long long)kv,
                       orc, (unsigned long long)ov);
                mismatches++;
            }
        }
        close(fd);
        bpf_map_destroy(m);
    }
    printf("%u map operations: kernel and ours agree on %u\n", total, total - mismatches);
    assert_int_equal(mismatches, 0);
}

/* --- helpers inside programs: the same calls on a kernel map and on ours give the same r0 --- */

struct helper_step {
    int32_t helper;                   /* map_update_elem, map_delete_elem, map_lookup_elem */
    uint32_t key;
    int32_t value;
    int32_t flags;
};

static const struct helper_step helper_steps[] = {
    {BPF_FUNC_map_update_elem, 1, 10, BPF_EXIST},   {BPF_FUNC_map_update_elem, 1, 11, BPF_NOEXIST},
    {BPF_FUNC_map_update_elem, 1, 12, BPF_NOEXIST}, {BPF_FUNC_map_update_elem, 1, 13, 5},
    {BPF_FUNC_map_update_elem, 0, 20, BPF_ANY},     {BPF_FUNC_map_update_elem, 3, 30, BPF_ANY},
    {BPF_FUNC_map_delete_elem, 7, 0, 0},            {BPF_FUNC_map_delete_elem, 1, 0, 0},
    {BPF_FUNC_map_lookup_elem, 0, 0, 0},            {BPF_FUNC_map_lookup_elem, 1, 0, 0},
    {BPF_FUNC_map_update_elem, 1, 14, BPF_ANY},     {BPF_FUNC_map_lookup_elem, 1, 0, 0},
};
#define N_HELPER_STEPS (sizeof helper_steps / sizeof helper_steps[0])

/* Each step's r0 (a lookup gives the value read, or -1 for NULL) into ctx[step]. */
static uint32_t helper_prog(uint64_t map, struct bpf_insn *p)
{
    uint32_t n = 0;
    p[n++] = MOV64_REG(6, 1);
    for (uint32_t i = 0; i < N_HELPER_STEPS; i++) {
        const struct helper_step *st = &helper_steps[i];
        p[n++] = ST(BPF_W, 10, -4, (int32_t)st->key);
        p[n++] = ST(BPF_DW, 10, -16, st->value);
        p[n++] = INSN(BPF_LD | BPF_IMM | BPF_DW, 1, BPF_PSEUDO_MAP_FD, 0, (int32_t)(uint32_t)map);
        p[n++] = INSN(0, 0, 0, 0, (int32_t)(uint32_t)(map >> 32));
        p[n++] = MOV64_REG(2, 10);
        p[n++] = ALU64_IMM(BPF_ADD, 2, -4);
        if (st->helper == BPF_FUNC_map_update_elem) {
            p[n++] = MOV64_REG(3, 10);
            p[n++] = ALU64_IMM(BPF_ADD, 3, -16);
            p[n++] = MOV64_IMM(4, st->flags);
        }
        p[n++] = CALL(st->helper);
        if (st->helper == BPF_FUNC_map_lookup_elem) {
            p[n++] = JMP_IMM(BPF_JEQ, 0, 0, 2);
            p[n++] = LDX(BPF_DW, 0, 0, 0);
            p[n++] = JA(1);
            p[n++] = MOV64_IMM(0, -1);
        }
        p[n++] = STX(BPF_DW, 6, 0, (int16_t)(8 * i));
    }
    p[n++] = MOV64_IMM(0, 0);
    p[n++] = EXIT();
    return n;
}

static void test_map_helpers_in_programs_match_kernel(void **state)
{
    (void)state;
    SKIP_WITHOUT_KERNEL();
    static const uint32_t types[] = {BPF_MAP_TYPE_HASH, BPF_MAP_TYPE_ARRAY, BPF_MAP_TYPE_LRU_HASH,
                                     BPF_MAP_TYPE_PERCPU_HASH, BPF_MAP_TYPE_PERCPU_ARRAY};
    static char log[1 << 16];
    unsigned mismatches = 0;
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        struct bpf_map_def d = {"m", types[t], 4, 8, types[t] == BPF_MAP_TYPE_LRU_HASH ? 64 : 2, 0};
        int fd = kmap_create(&d);
        assert_true(fd >= 0);
        struct bpf_map *m = bpf_map_create(&d, NULL, 0);
        assert_non_null(m);
        struct bpf_insn kp[MAX_PROG], vp[MAX_PROG];
        uint32_t n = helper_prog((uint64_t)fd, kp);
        helper_prog((uint64_t)(uintptr_t)m, vp);
        uint64_t in[CTX_WORDS] = {0};
        struct outcome k, v;
        run_kernel(kp, n, in, &k, log, sizeof log);
        if (k.rc)
            fail_msg("kernel refused the helper program for map type %u: %s\n%s", types[t], strerror(-k.rc), log);
        struct bpf_vm_env env = {0};
        struct bpf_prog prog = {.name = "helpers", .insns = vp, .n = n, .maps = &m, .n_maps = 1};
        struct bpf_fault f;
        char err[512];
        uint64_t r0;
        memcpy(v.ctx, in, sizeof in);
        if (bpf_vm_check(&env, &prog, false, &f) || bpf_vm_run(&env, &prog, v.ctx, sizeof v.ctx, false, &r0, &f))
            fail_msg("%s", bpf_fault_format(&f, err, sizeof err));
        for (uint32_t i = 0; i < N_HELPER_STEPS; i++)
            if (k.ctx[i] != v.ctx[i]) {
                printf("MISMATCH map type %u step %u (helper %d key %u flags %d): kernel %lld, ours %lld\n", types[t],
                       i, helper_steps[i].helper, helper_steps[i].key, helper_steps[i].flags, (long long)k.ctx[i],
                       (long long)v.ctx[i]);
                mismatches++;
            }
        close(fd);
        bpf_map_destroy(m);
    }
    printf("%zu helper calls on 5 map types: %zu agree with the kernel\n", 5 * N_HELPER_STEPS,
           5 * N_HELPER_STEPS - mismatches);
    assert_int_equal(mismatches, 0);
}

/* ringbuf_output/reserve/submit/query on a kernel ringbuf and on ours. */
static uint32_t ringbuf_prog(uint64_t map, struct bpf_insn *p)
{
    uint32_t n = 0;
#define RB_MAP() INSN(BPF_LD | BPF_IMM | BPF_DW, 1, BPF_PSEUDO_MAP_FD, 0, (int32_t)(uint32_t)map), \
                 INSN(0, 0, 0, 0, (int32_t)(uint32_t)(map >> 32))
    const struct bpf_insn body[] = {
        MOV64_REG(6, 1), ST(BPF_DW, 10, -8, 0x1234),
        RB_MAP(), MOV64_REG(2, 10), ALU64_IMM(BPF_ADD, 2, -8), MOV64_IMM(3, 8), MOV64_IMM(4, 0),
        CALL(BPF_FUNC_ringbuf_output), STX(BPF_DW, 6, 0, 0),
        RB_MAP(), MOV64_REG(2, 10), ALU64_IMM(BPF_ADD, 2, -8), MOV64_IMM(3, 8), MOV64_IMM(4, 4),
        CALL(BPF_FUNC_ringbuf_output), STX(BPF_DW, 6, 0, 8),
        RB_MAP(), MOV64_IMM(2, BPF_RB_AVAIL_DATA), CALL(BPF_FUNC_ringbuf_query), STX(BPF_DW, 6, 0, 16),
        RB_MAP(), MOV64_IMM(2, BPF_RB_RING_SIZE), CALL(BPF_FUNC_ringbuf_query), STX(BPF_DW, 6, 0, 24),
        RB_MAP(), MOV64_IMM(2, 8000), MOV64_IMM(3, 0), CALL(BPF_FUNC_ringbuf_reserve), JMP_IMM(BPF_JEQ, 0, 0, 4),
        MOV64_REG(1, 0), MOV64_IMM(2, 0), CALL(BPF_FUNC_ringbuf_discard), ST(BPF_DW, 6, 32, 1),
        RB_MAP(), MOV64_IMM(2, 100), MOV64_IMM(3, 0), CALL(BPF_FUNC_ringbuf_reserve), JMP_IMM(BPF_JEQ, 0, 0, 5),
        ST(BPF_DW, 0, 0, 7), MOV64_REG(1, 0), MOV64_IMM(2, 0), CALL(BPF_FUNC_ringbuf_submit), ST(BPF_DW, 6, 40, 1),
        RB_MAP(), MOV64_IMM(2, BPF_RB_AVAIL_DATA), CALL(BPF_FUNC_ringbuf_query), STX(BPF_DW, 6, 0, 48),
        RB_MAP(), MOV64_IMM(2, BPF_RB_PROD_POS), CALL(BPF_FUNC_ringbuf_query), STX(BPF_DW, 6, 0, 56),
        MOV64_IMM(0, 0), EXIT(),
    };
#undef RB_MAP
    memcpy(p, body, sizeof body);
    n = NINSN(body);
    return n;
}

static void test_ringbuf_helpers_match_kernel(void **state)
{
    (void)state;
    SKIP_WITHOUT_KERNEL();
    struct bpf_map_def d = {"rb", BPF_MAP_TYPE_RINGBUF, 0, 0, 4096, 0};
    int fd = kmap_create(&d);
    assert_true(fd >= 0);
    struct bpf_map *m = bpf_map_create(&d, NULL, 0);
    static char log[1 << 16];
    struct bpf_insn kp[MAX_PROG], vp[MAX_PROG];
    uint32_t n = ringbuf_prog((uint64_t)fd, kp);
    ringbuf_prog((uint64_t)(uintptr_t)m, vp);
    uint64_t in[CTX_WORDS] = {0};
    struct outcome k, v;
    run_kernel(kp, n, in, &k, log, sizeof log);
    if (k.rc)
        fail_msg("kernel refused the ringbuf program: %s\n%s", strerror(-k.rc), log);
    struct bpf_vm_env env = {0};
    struct bpf_prog prog = {.name = "ringbuf", .insns = vp, .n = n, .maps = &m, .n_maps = 1};
    struct bpf_fault f;
    char err[512];
    uint64_t r0;
    memcpy(v.ctx, in, sizeof in);
    if (bpf_vm_check(&env, &prog, false, &f) || bpf_vm_run(&env, &prog, v.ctx, sizeof v.ctx, false, &r0, &f))
        fail_msg("%s", bpf_fault_format(&f, err, sizeof err));
    unsigned mismatches = 0;
    for (int i = 0; i < 8; i++)
        if (k.ctx[i] != v.ctx[i]) {
            printf("MISMATCH ringbuf word %d: kernel %lld, ours %lld\n", i, (long long)k.ctx[i], (long long)v.ctx[i]);
            mismatches++;
        }
    close(fd);
    bpf_map_destroy(m);
    printf("8 ringbuf results: %u agree with the kernel\n", 8 - mismatches);
    assert_int_equal(mismatches, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_isa_tables_match_kernel),
        cmocka_unit_test(test_generated_programs_match_kernel),
        cmocka_unit_test(test_map_create_errnos_match_kernel),
        cmocka_unit_test(test_map_op_errnos_match_kernel),
        cmocka_unit_test(test_map_helpers_in_programs_match_kernel),
        cmocka_unit_test(test_ringbuf_helpers_match_kernel),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
