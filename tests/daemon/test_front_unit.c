/* Unit tests of the daemon's pure parts: option parsing, /proc identity, the accessor. */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <stdatomic.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
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

/* The daemon's own uid takes part in workloads by default; --workload-uid/gid and --rm-quota set the shares. */
static void opts_workload_and_quota_options_set_the_shares(void **state)
{
    (void)state;
    struct front_opts o;
    front_opts_init(&o);
    assert_true(o.cfg.workload_restricted);
    assert_int_equal(o.cfg.workload_uid, geteuid());
    assert_int_equal(o.cfg.quota_clients, 131072);
    assert_int_equal(o.cfg.quota_objects, 262144);
    assert_int_equal(o.cfg.quota_events, 65536);
    char *argv[] = {"--workload-uid", "65534", "--workload-gid=100", "--rm-quota", "events=20",
                    "--rm-quota=clients=3"};
    assert_int_equal(parse_all(&o, (int)(sizeof(argv) / sizeof(argv[0])), argv), 1);
    assert_true(o.cfg.workload_restricted);
    assert_int_equal(o.cfg.workload_uid, 65534);
    assert_true(o.cfg.workload_gid_set);
    assert_int_equal(o.cfg.workload_gid, 100);
    assert_int_equal(o.cfg.quota_events, 20);
    assert_int_equal(o.cfg.quota_clients, 3);
    char *any[] = {"--workload-uid", "any"};
    assert_int_equal(parse_all(&o, 2, any), 1);
    assert_false(o.cfg.workload_restricted);
    char *bad[][2] = {{"--workload-uid", "-1"}, {"--workload-uid", "4294967295"}, {"--workload-gid", "x"},
                      {"--rm-quota", "events=0"}, {"--rm-quota", "threads=5"}, {"--rm-quota", "events"}};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        front_opts_init(&o);
        assert_int_equal(parse_all(&o, 2, bad[i]), -1);
    }
}

/*
 * A copy that waits on a page nobody answers (userfaultfd) gives its thread back at the deadline once the
 * uid's direct share is taken; another uid is not held up; the stuck copies end when the page is filled.
 */
static struct {
    void *page;
    atomic_int done;
} stuck;

static void *stuck_copy(void *arg)
{
    (void)arg;
    uint64_t v;
    callermem_read(54321, gettid(), (uint64_t)(uintptr_t)stuck.page, &v, sizeof(v));
    atomic_fetch_add(&stuck.done, 1);
    return NULL;
}

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void callermem_gives_the_thread_back_at_the_deadline(void **state)
{
    (void)state;
    long psz = sysconf(_SC_PAGESIZE);
    int uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
    struct uffdio_api api = {.api = UFFD_API};
    stuck.page = mmap(NULL, (size_t)psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    struct uffdio_register reg = {.range = {(uint64_t)(uintptr_t)stuck.page, (uint64_t)psz},
                                  .mode = UFFDIO_REGISTER_MODE_MISSING};
    if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api) != 0 || ioctl(uffd, UFFDIO_REGISTER, &reg) != 0) {
        if (uffd >= 0)
            close(uffd);
        munmap(stuck.page, (size_t)psz);
        skip(); /* no userfaultfd for this user */
    }
    pthread_t t[CALLERMEM_DIRECT_PER_UID];
    for (int i = 0; i < CALLERMEM_DIRECT_PER_UID; i++)
        assert_int_equal(pthread_create(&t[i], NULL, stuck_copy, NULL), 0);
    usleep((CALLERMEM_DEADLINE_MS + 200) * 1000);
    assert_int_equal(atomic_load(&stuck.done), 0);
    uint64_t v = 0, mine = 42;
    double t0 = mono_s();
    assert_int_equal(callermem_read(54321, gettid(), (uint64_t)(uintptr_t)stuck.page, &v, sizeof(v)), -EFAULT);
    double waited = mono_s() - t0;
    assert_true(waited > CALLERMEM_DEADLINE_MS * 0.5e-3 && waited < CALLERMEM_DEADLINE_MS * 3e-3);
    t0 = mono_s();
    assert_int_equal(callermem_read(12345, gettid(), (uint64_t)(uintptr_t)&mine, &v, sizeof(v)), 0);
    assert_int_equal(v, 42);
    assert_true(mono_s() - t0 < 0.5);
    struct uffdio_zeropage zp = {.range = {(uint64_t)(uintptr_t)stuck.page, (uint64_t)psz}};
    assert_int_equal(ioctl(uffd, UFFDIO_ZEROPAGE, &zp), 0);
    for (int i = 0; i < CALLERMEM_DIRECT_PER_UID; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(atomic_load(&stuck.done), CALLERMEM_DIRECT_PER_UID);
    close(uffd);
    munmap(stuck.page, (size_t)psz);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(opts_accepts_every_daemon_option), cmocka_unit_test(opts_rejects_bad_values),
        cmocka_unit_test(ident_reads_this_thread),
        cmocka_unit_test(procmem_faults_instead_of_crashing),
        cmocka_unit_test(opts_workload_and_quota_options_set_the_shares),
        cmocka_unit_test(callermem_gives_the_thread_back_at_the_deadline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
