/* Unit tests of the daemon's pure parts: option parsing, /proc identity, UVM answers, the accessor. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cmocka.h>

#include "front/front.h"
#include "front/ident.h"
#include "front/procmem.h"
#include "front/uvm.h"

static int parse_all(struct front_opts *o, int argc, char **argv)
{
    for (int i = 0; i < argc;) {
        int r = front_opts_parse(o, argc, argv, &i);
        if (r != 1)
            return r;
    }
    return 1;
}

static void opts_accepts_every_daemon_option(void **state)
{
    (void)state;
    struct front_opts o;
    front_opts_init(&o);
    char *argv[] = {"--mount", "/tmp/x", "--profile=h200", "--gpreempt-compat", "--policy-arg", "a=1",
                    "--policy-arg=b=2", "--policy", "p.so", "--seed", "0x10", "--clock", "realtime",
                    "--socket", "/tmp/s", "-f", "--cuse", "--trace", "t.csv"};
    assert_int_equal(parse_all(&o, (int)(sizeof(argv) / sizeof(argv[0])), argv), 1);
    assert_string_equal(o.mount, "/tmp/x");
    assert_string_equal(o.cfg.profile, "h200");
    assert_true(o.cfg.gpreempt_compat);
    assert_int_equal(o.cfg.policy_nargs, 2);
    assert_string_equal(o.cfg.policy_args[0], "a=1");
    assert_string_equal(o.cfg.policy_args[1], "b=2");
    assert_string_equal(o.cfg.policy_path, "p.so");
    assert_int_equal(o.cfg.seed, 16);
    assert_int_equal(o.cfg.clock, NVEMU_CLOCK_REALTIME);
    assert_string_equal(o.socket_path, "/tmp/s");
    assert_true(o.foreground);
    assert_true(o.cuse);
    assert_string_equal(o.cfg.trace_path, "t.csv");
}

static void opts_rejects_bad_values(void **state)
{
    (void)state;
    struct front_opts o;
    char *clock[] = {"--clock", "sometimes"};
    char *arg[] = {"--policy-arg", "novalue"};
    char *missing[] = {"--mount"};
    char *seed[] = {"--seed", "12x"};
    char *other[] = {"--frobnicate"};
    front_opts_init(&o);
    assert_int_equal(parse_all(&o, 2, clock), -1);
    assert_int_equal(parse_all(&o, 2, arg), -1);
    assert_int_equal(parse_all(&o, 1, missing), -1);
    assert_int_equal(parse_all(&o, 2, seed), -1);
    assert_int_equal(parse_all(&o, 1, other), 0);
}

static void ident_reads_this_thread(void **state)
{
    (void)state;
    prctl(PR_SET_NAME, "identtest");
    nvemu_identity id;
    pid_t tgid = 0;
    assert_int_equal(ident_read(gettid(), &id, &tgid), 0);
    assert_int_equal(tgid, getpid());
    assert_int_equal(id.pid, getpid());
    assert_int_equal(id.tid, gettid());
    assert_int_equal(id.uid, geteuid());
    assert_int_equal(id.gid, getegid());
    assert_string_equal(id.comm, "identtest");
    assert_int_equal(ident_read(0x7ffffff0, &id, &tgid), -ESRCH);
}

static void uvm_answers_by_table(void **state)
{
    (void)state;
    uvm_initialize_params init = {0, 0xFFFFFFFFu};
    assert_int_equal(uvm_ioctl(gettid(), UVM_IOCTL_INITIALIZE, (uint64_t)(uintptr_t)&init), 0);
    assert_int_equal(init.rmStatus, 0);
    uvm_pageable_mem_access_params pm = {1, {0}, 0xFFFFFFFFu};
    assert_int_equal(uvm_ioctl(gettid(), UVM_IOCTL_PAGEABLE_MEM_ACCESS, (uint64_t)(uintptr_t)&pm), 0);
    assert_int_equal(pm.rmStatus, 0x56);
    assert_int_equal(pm.pageableMemAccess, 1);
    assert_int_equal(uvm_ioctl(gettid(), UVM_IOCTL_DEINITIALIZE, 0), 0);
    assert_int_equal(uvm_ioctl(gettid(), 0x30000099u, (uint64_t)(uintptr_t)&init), -EINVAL);
    assert_int_equal(uvm_ioctl(gettid(), UVM_IOCTL_INITIALIZE, 8), -EFAULT);
}

/* Offsets and sizes worked out by hand from the driver's uvm_ioctl.h, independent of uvm_abi.h. */
static const struct {
    uint32_t cmd, size, status_off;
} uvm_expect[] = {
    {0x17, 16, 8},     {0x18, 16, 8},     {0x19, 32, 28},  {0x1b, 56, 48},  {0x21, 9264, 9260},
    {0x22, 24, 16},    {0x25, 40, 36},    {0x27, 8, 4},    {0x2a, 40, 36},  {0x33, 80, 72},
    {0x41, 40, 32},    {0x44, 9248, 9240}, {0x45, 4, 0},   {0x46, 24, 20},  {0x48, 24, 16},
    {0x49, 24, 16},    {0x4b, 8, 4},      {0x4e, 56, 52},
};

static void uvm_not_supported_at_header_offset(void **state)
{
    (void)state;
    static uint8_t buf[9264 + 16];
    for (size_t i = 0; i < sizeof(uvm_expect) / sizeof(uvm_expect[0]); i++) {
        const struct uvm_layout *l = uvm_layout_find(uvm_expect[i].cmd);
        assert_non_null(l);
        assert_int_equal(l->params_size, uvm_expect[i].size);
        memset(buf, 0xEE, sizeof(buf));
        assert_int_equal(uvm_ioctl(gettid(), uvm_expect[i].cmd, (uint64_t)(uintptr_t)buf), 0);
        uint32_t st;
        memcpy(&st, buf + uvm_expect[i].status_off, sizeof(st));
        assert_int_equal(st, 0x56);
        for (size_t b = 0; b < sizeof(buf); b++)
            if (b < uvm_expect[i].status_off || b >= uvm_expect[i].status_off + 4)
                assert_int_equal(buf[b], 0xEE);
    }
    /* Numbers the 575/580 driver does not route (RESERVE_VA 1, MEM_MAP 35) or whose layout we left out. */
    const uint32_t unknown[] = {1, 35, 64, 77, 0x30000003u};
    for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
        memset(buf, 0xEE, sizeof(buf));
        assert_null(uvm_layout_find(unknown[i]));
        assert_int_equal(uvm_ioctl(gettid(), unknown[i], (uint64_t)(uintptr_t)buf), -EINVAL);
        for (size_t b = 0; b < 64; b++)
            assert_int_equal(buf[b], 0xEE);
    }
}

static void procmem_faults_instead_of_crashing(void **state)
{
    (void)state;
    uint64_t src = 0x1122334455667788ull, dst = 0;
    assert_int_equal(procmem_read(gettid(), (uint64_t)(uintptr_t)&src, &dst, sizeof(dst)), 0);
    assert_int_equal(dst, src);
    assert_int_equal(procmem_write(gettid(), (uint64_t)(uintptr_t)&dst, &(uint64_t){7}, sizeof(dst)), 0);
    assert_int_equal(dst, 7);
    assert_int_equal(procmem_read(gettid(), 16, &dst, sizeof(dst)), -EFAULT);
    assert_int_equal(procmem_write(gettid(), 16, &dst, sizeof(dst)), -EFAULT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(opts_accepts_every_daemon_option), cmocka_unit_test(opts_rejects_bad_values),
        cmocka_unit_test(ident_reads_this_thread),          cmocka_unit_test(uvm_answers_by_table),
        cmocka_unit_test(uvm_not_supported_at_header_offset),
        cmocka_unit_test(procmem_faults_instead_of_crashing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
