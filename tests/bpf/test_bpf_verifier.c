/*
 * The verifier rules of bpf_vm_verify, one program per rule that the kernel refuses (with nvemu's
 * message asserted) and one it accepts, and the same programs loaded into the host kernel through
 * bpf(BPF_PROG_LOAD) as BPF_PROG_TYPE_SYSCALL (sleepable), which must give the same verdict. Where
 * bpf() is refused the kernel half is skipped with the reason.
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

#include "bpf/bpf_map.h"
#include "bpf/bpf_vm.h"
#include "bpf_asm.h"

#define MAP_VALUE_SIZE 16
#define MAX_INSNS 64
/* LD_IMM64 of the case's HASH map (0) or ARRAY map (1): patched with our map's address or the kernel map's fd */
#define MAP_LD(r) LD64_SRC(r, BPF_PSEUDO_MAP_FD, 0)
#define ARRAY_LD(r) LD64_SRC(r, BPF_PSEUDO_MAP_FD, 1)
#define KEY_ON_STACK() ST(BPF_W, 10, -4, 0), MOV64_REG(2, 10), ALU64_IMM(BPF_ADD, 2, -4)
#define LOOKUP() MAP_LD(1), KEY_ON_STACK(), CALL(BPF_FUNC_map_lookup_elem)

struct vcase {
    const char *name;
    bool gpl;
    const char *refusal;           /* nvemu's reason, NULL when accepted */
    struct bpf_insn insns[MAX_INSNS];
};

static const struct vcase cases[] = {
    {"counted loop", true, NULL,
     {MOV64_IMM(0, 0), MOV64_IMM(2, 0), ALU64_IMM(BPF_ADD, 0, 3), ALU64_IMM(BPF_ADD, 2, 1),
      JMP_IMM(BPF_JLT, 2, 16, -3), EXIT()}},
    {"loop bounded by an unknown value", true, "without a provable bound",
     {LDX(BPF_DW, 3, 1, 0), MOV64_IMM(0, 0), MOV64_IMM(2, 0), ALU64_IMM(BPF_ADD, 0, 3), ALU64_IMM(BPF_ADD, 2, 1),
      JMP_REG(BPF_JLT, 2, 3, -3), EXIT()}},
    {"loop without a counter", true, "without a provable bound",
     {LDX(BPF_DW, 2, 1, 0), MOV64_IMM(0, 0), LDX(BPF_DW, 3, 1, 8), JMP_IMM(BPF_JNE, 3, 0, -2), EXIT()}},
    {"stack read after write", true, NULL, {ST(BPF_DW, 10, -8, 5), LDX(BPF_DW, 0, 10, -8), EXIT()}},
    /* allowed to a loader with CAP_PERFMON (allow_uninit_stack), which every struct_ops loader has */
    {"uninitialised stack read", true, NULL, {LDX(BPF_DW, 0, 10, -8), EXIT()}},
    {"stack written on one path only", true, NULL,
     {LDX(BPF_DW, 2, 1, 0), JMP_IMM(BPF_JEQ, 2, 0, 1), ST(BPF_DW, 10, -8, 5), LDX(BPF_DW, 0, 10, -8), EXIT()}},
    {"lookup checked for NULL", true, NULL,
     {LOOKUP(), JMP_IMM(BPF_JEQ, 0, 0, 1), LDX(BPF_DW, 0, 0, 8), EXIT()}},
    {"lookup dereferenced before its NULL check", true, "not yet checked for NULL",
     {LOOKUP(), LDX(BPF_DW, 0, 0, 0), EXIT()}},
    {"arithmetic on an unchecked lookup", true, "not yet checked for NULL",
     {LOOKUP(), ALU64_IMM(BPF_ADD, 0, 8), MOV64_IMM(0, 0), EXIT()}},
    /* a 6.18 kernel knows that an ARRAY lookup with a constant key below max_entries cannot fail */
    {"ARRAY lookup with a constant key in range, no NULL check", true, NULL,
     {ARRAY_LD(1), KEY_ON_STACK(), CALL(BPF_FUNC_map_lookup_elem), LDX(BPF_DW, 0, 0, 0), EXIT()}},
    {"ARRAY lookup with a constant key out of range, no NULL check", true, "not yet checked for NULL",
     {ARRAY_LD(1), ST(BPF_W, 10, -4, 9), MOV64_REG(2, 10), ALU64_IMM(BPF_ADD, 2, -4),
      CALL(BPF_FUNC_map_lookup_elem), LDX(BPF_DW, 0, 0, 0), EXIT()}},
    {"ARRAY lookup with a key from the ctx, no NULL check", true, "not yet checked for NULL",
     {ARRAY_LD(6), LDX(BPF_W, 3, 1, 0), STX(BPF_W, 10, 3, -4), MOV64_REG(1, 6), MOV64_REG(2, 10),
      ALU64_IMM(BPF_ADD, 2, -4), CALL(BPF_FUNC_map_lookup_elem), LDX(BPF_DW, 0, 0, 0), EXIT()}},
    {"map value read past its end", true, "of a 16-byte map value",
     {LOOKUP(), JMP_IMM(BPF_JEQ, 0, 0, 1), LDX(BPF_DW, 0, 0, MAP_VALUE_SIZE - 4), EXIT()}},
    {"map value read before its start", true, "of a 16-byte map value",
     {LOOKUP(), JMP_IMM(BPF_JEQ, 0, 0, 1), LDX(BPF_W, 0, 0, -4), EXIT()}},
    {"stack write below 512 bytes", true, "outside the 512-byte stack",
     {ST(BPF_DW, 10, -520, 1), MOV64_IMM(0, 0), EXIT()}},
    {"stack write above the frame pointer", true, "outside the 512-byte stack",
     {ST(BPF_DW, 10, 0, 1), MOV64_IMM(0, 0), EXIT()}},
    {"512 bytes of stack", true, NULL, {ST(BPF_DW, 10, -512, 1), LDX(BPF_DW, 0, 10, -512), EXIT()}},
    {"more than 512 bytes along a call chain", true, "more than 512",
     {ST(BPF_DW, 10, -480, 1), CALL_SUB(2), MOV64_IMM(0, 0), EXIT(), ST(BPF_DW, 10, -64, 1), MOV64_IMM(0, 0),
      EXIT()}},
    {"lookup with a scalar for the map", true, "must be a map",
     {MOV64_IMM(1, 0), KEY_ON_STACK(), CALL(BPF_FUNC_map_lookup_elem), MOV64_IMM(0, 0), EXIT()}},
    {"lookup with an unwritten key", true, NULL,
     {MAP_LD(1), MOV64_REG(2, 10), ALU64_IMM(BPF_ADD, 2, -4), CALL(BPF_FUNC_map_lookup_elem), MOV64_IMM(0, 0),
      EXIT()}},
    {"update with a scalar for the value", true, "must point at readable memory",
     {MAP_LD(1), KEY_ON_STACK(), MOV64_IMM(3, 0), MOV64_IMM(4, 0), CALL(BPF_FUNC_map_update_elem), EXIT()}},
    {"GPL-only helper in a GPL program", true, NULL,
     {MOV64_REG(1, 10), ALU64_IMM(BPF_ADD, 1, -8), MOV64_IMM(2, 8), MOV64_IMM(3, 0),
      CALL(BPF_FUNC_probe_read_kernel), MOV64_IMM(0, 0), EXIT()}},
    {"GPL-only helper without a GPL license", false, "GPL-only",
     {MOV64_REG(1, 10), ALU64_IMM(BPF_ADD, 1, -8), MOV64_IMM(2, 8), MOV64_IMM(3, 0),
      CALL(BPF_FUNC_probe_read_kernel), MOV64_IMM(0, 0), EXIT()}},
    {"helper size of zero where one is needed", true, "size of 0",
     {MOV64_REG(1, 10), ALU64_IMM(BPF_ADD, 1, -8), ST(BPF_DW, 1, 0, 0), MOV64_IMM(2, 0),
      CALL(BPF_FUNC_trace_printk), MOV64_IMM(0, 0), EXIT()}},
    {"register read before it is written", true, "used before it is written", {MOV64_REG(0, 2), EXIT()}},
    {"exit without r0", true, "exit with r0 never written", {MOV64_IMM(2, 0), EXIT()}},
    {"dereference of a scalar", true, "is a scalar", {MOV64_IMM(2, 64), LDX(BPF_DW, 0, 2, 0), EXIT()}},
};
#define N_CASES (sizeof cases / sizeof cases[0])

static uint32_t ninsns(const struct vcase *c)
{
    uint32_t n = MAX_INSNS;
    while (n && c->insns[n - 1].code == 0 && c->insns[n - 1].imm == 0)
        n--;
    return n;
}

/* A copy of the case with its map loads pointing at maps[0] or maps[1] (host addresses or kernel fds). */
static void patch(const struct vcase *c, struct bpf_insn *out, const uint64_t maps[2])
{
    uint32_t n = ninsns(c);
    memcpy(out, c->insns, n * sizeof *out);
    for (uint32_t i = 0; i + 1 < n; i++)
        if (out[i].code == (BPF_LD | BPF_IMM | BPF_DW) && out[i].src_reg == BPF_PSEUDO_MAP_FD) {
            uint64_t m = maps[out[i].imm & 1];
            out[i].imm = (int32_t)(uint32_t)m;
            out[i + 1].imm = (int32_t)(uint32_t)(m >> 32);
        }
}

static const struct bpf_map_def map_defs[2] = {
    {.type = BPF_MAP_TYPE_HASH, .key_size = 4, .value_size = MAP_VALUE_SIZE, .max_entries = 4, .name = "values"},
    {.type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = MAP_VALUE_SIZE, .max_entries = 4, .name = "slots"},
};

static void no_printk(void *ctx, const struct bpf_prog *prog, const char *line)
{
    (void)ctx;
    (void)prog;
    (void)line;
}

/* nvemu's verdict: 0, or -1 with the reason in why. */
static int ours(const struct vcase *c, char *why, size_t len)
{
    struct bpf_map *maps[2] = {bpf_map_create(&map_defs[0], NULL, 0), bpf_map_create(&map_defs[1], NULL, 0)};
    assert_non_null(maps[0]);
    assert_non_null(maps[1]);
    struct bpf_insn p[MAX_INSNS];
    patch(c, p, (const uint64_t[2]){(uint64_t)(uintptr_t)maps[0], (uint64_t)(uintptr_t)maps[1]});
    struct bpf_prog prog = {.name = "rule", .insns = p, .n = ninsns(c), .maps = maps, .n_maps = 2};
    struct bpf_vm_env env = {.printk = no_printk};
    struct bpf_fault f;
    int rc = bpf_vm_check(&env, &prog, false, &f) || bpf_vm_verify(&env, &prog, c->gpl, &f) ? -1 : 0;
    if (rc)
        snprintf(why, len, "%s", f.reason);
    bpf_map_destroy(maps[0]);
    bpf_map_destroy(maps[1]);
    return rc;
}

static void test_each_rule_refused_with_its_reason(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_CASES; i++) {
        char why[256] = "";
        int rc = ours(&cases[i], why, sizeof why);
        if (!cases[i].refusal && rc)
            fail_msg("'%s' refused: %s", cases[i].name, why);
        if (cases[i].refusal && !rc)
            fail_msg("'%s' accepted", cases[i].name);
        if (cases[i].refusal && !strstr(why, cases[i].refusal))
            fail_msg("'%s': reason '%s' lacks '%s'", cases[i].name, why, cases[i].refusal);
    }
}

/* ---- the kernel's verdict ---- */

static long sys_bpf(int cmd, union bpf_attr *a)
{
    return syscall(SYS_bpf, cmd, a, sizeof *a);
}

static int kernel_map(const struct bpf_map_def *d)
{
    union bpf_attr a;
    memset(&a, 0, sizeof a);
    a.map_type = d->type;
    a.key_size = d->key_size;
    a.value_size = d->value_size;
    a.max_entries = d->max_entries;
    int fd = (int)sys_bpf(BPF_MAP_CREATE, &a);
    return fd < 0 ? -errno : fd;
}

static int kernel_load(const struct bpf_insn *p, uint32_t n, bool gpl, char *log, size_t loglen)
{
    union bpf_attr a;
    memset(&a, 0, sizeof a);
    a.prog_type = BPF_PROG_TYPE_SYSCALL;
    a.insns = (uintptr_t)p;
    a.insn_cnt = n;
    a.license = (uintptr_t)(gpl ? "GPL" : "MIT");
    a.prog_flags = BPF_F_SLEEPABLE;
    log[0] = '\0';
    a.log_buf = (uintptr_t)log;
    a.log_size = (uint32_t)loglen;
    a.log_level = 1;
    int fd = (int)sys_bpf(BPF_PROG_LOAD, &a);
    return fd < 0 ? -errno : fd;
}

static void check_gives_the_same_verdict_as_the_kernel(void **state)
{
    (void)state;
    int mfd = kernel_map(&map_defs[0]), afd = mfd >= 0 ? kernel_map(&map_defs[1]) : -1;
    if (mfd < 0 || afd < 0) {
        printf("SKIP kernel verifier comparison: bpf(BPF_MAP_CREATE) refused: %s\n", strerror(mfd < 0 ? -mfd : -afd));
        if (mfd >= 0)
            close(mfd);
        skip();
    }
    static char log[1 << 16];
    int agree = 0;
    for (size_t i = 0; i < N_CASES; i++) {
        struct bpf_insn p[MAX_INSNS];
        patch(&cases[i], p, (const uint64_t[2]){(uint64_t)mfd, (uint64_t)afd});
        int fd = kernel_load(p, ninsns(&cases[i]), cases[i].gpl, log, sizeof log);
        if (fd == -EPERM && i == 0) {
            close(mfd);
            close(afd);
            printf("SKIP kernel verifier comparison: bpf(BPF_PROG_LOAD) refused: %s\n", strerror(EPERM));
            skip();
        }
        if (fd >= 0)
            close(fd);
        bool kernel_accepts = fd >= 0;
        char why[256] = "";
        bool we_accept = ours(&cases[i], why, sizeof why) == 0;
        if (kernel_accepts != we_accept) {
            const char *last = log + strlen(log);
            for (int lines = 0; last > log && lines < 3; last--)
                lines += last[-1] == '\n';
            fail_msg("'%s': the kernel %s it (%s), nvemu %s it (%s)", cases[i].name,
                     kernel_accepts ? "accepts" : "refuses", kernel_accepts ? "" : last,
                     we_accept ? "accepts" : "refuses", why);
        }
        agree++;
    }
    close(mfd);
    close(afd);
    printf("%d of %zu programs: same verdict as the kernel's verifier\n", agree, N_CASES);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_rule_refused_with_its_reason),
        cmocka_unit_test(check_gives_the_same_verdict_as_the_kernel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
