/* Unit tests of the daemon's pure parts: option parsing, /proc identity, the accessor. */
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
#include "front/callermem.h"
#include "front/procmem.h"

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

static void procmem_faults_instead_of_crashing(void **state)
{
    (void)state;
    uint64_t src = 0x1122334455667788ull, dst = 0;
    assert_int_equal(callermem_read(getuid(), gettid(), (uint64_t)(uintptr_t)&src, &dst, sizeof(dst)), 0);
    assert_int_equal(dst, src);
    assert_int_equal(callermem_write(getuid(), gettid(), (uint64_t)(uintptr_t)&dst, &(uint64_t){7}, sizeof(dst)), 0);
    assert_int_equal(dst, 7);
    assert_int_equal(callermem_read(getuid(), gettid(), 16, &dst, sizeof(dst)), -EFAULT);
    assert_int_equal(callermem_write(getuid(), gettid(), 16, &dst, sizeof(dst)), -EFAULT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(opts_accepts_every_daemon_option), cmocka_unit_test(opts_rejects_bad_values),
        cmocka_unit_test(ident_reads_this_thread),
        cmocka_unit_test(procmem_faults_instead_of_crashing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
