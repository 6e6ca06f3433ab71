/*
 * launch_cost: what one cuLaunchKernel costs the launching thread, with and without another process keeping
 * the GPU busy, outside any framework (driver API only, libcuda.so.1 opened at run time).
 *
 *   launch_cost lc RATE SECONDS WARMUP_S NLAUNCH OUT.tsv
 *       periodic requests (RATE/s); each request launches NLAUNCH kernels on one stream and synchronizes it.
 *       The requests cycle through four variants: 0 tiny kernels back to back, 1 ~5 us kernels back to back,
 *       2 tiny kernels 25 us of CPU apart, 3 ~5 us kernels 25 us apart (the gaps let the group run dry
 *       between launches, as a framework's launches do). One line per request after WARMUP_S.
 *   launch_cost be KERNEL_US SECONDS READY_FILE
 *       keeps the GPU busy with KERNEL_US-long kernels (one block per SM), two in flight, its CPU asleep in a
 *       blocking synchronize; writes READY_FILE once the first kernels ran.
 *   launch_cost idle SECONDS READY_FILE
 *       a context with its channel group allocated and no work: a second group that exists but never runs.
 *
 * The kernels spin on the GPU's global timer, so their length does not depend on the clock or on being
 * preempted. Each launch is timed with CLOCK_MONOTONIC (vDSO, no system call); the thread's CPU time
 * (CLOCK_THREAD_CPUTIME_ID) is read around the launch loop and around the synchronize only. Every request
 * also times a fixed CPU loop (probe), so a change of the host CPU's speed shows apart from the launches.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cu_driver.h"

static const char spin_ptx[] =
    ".version 7.0\n"
    ".target sm_70\n"
    ".address_size 64\n"
    ".visible .entry nvemu_work(.param .u64 p_out, .param .u32 p_ns, .param .u32 p_unused)\n"
    "{\n"
    "    .reg .pred %p<2>;\n"
    "    .reg .b32 %r<2>;\n"
    "    .reg .b64 %rd<6>;\n"
    "    ld.param.u32 %r0, [p_ns];\n"
    "    cvt.u64.u32 %rd1, %r0;\n"
    "    mov.u64 %rd2, %globaltimer;\n"
    "    add.u64 %rd3, %rd2, %rd1;\n"
    "SPIN:\n"
    "    mov.u64 %rd4, %globaltimer;\n"
    "    setp.lt.u64 %p0, %rd4, %rd3;\n"
    "    @%p0 bra SPIN;\n"
    "    ret;\n"
    "}\n";

#define GAP_NS 25000u
#define SHORT_KERNEL_NS 5000u
#define MAX_LAUNCH 4096

static void *fn, *stream;
static uint64_t out_buf;

static uint64_t clock_ns(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t now_ns(void) { return clock_ns(CLOCK_MONOTONIC); }
static uint64_t cpu_ns(void) { return clock_ns(CLOCK_THREAD_CPUTIME_ID); }

static void setup(unsigned ctx_flags)
{
    cu_open("launch_cost", ctx_flags, spin_ptx, "nvemu_work", &fn);
    cu_check(cu.mem_alloc(&out_buf, 4096), "cuMemAlloc");
    cu_check(cu.stream_create(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
}

static CUresult launch(unsigned blocks, unsigned threads, uint32_t ns)
{
    uint32_t unused = 0;
    void *args[] = {&out_buf, &ns, &unused};
    return cu.launch(fn, blocks, 1, 1, threads, 1, 1, 0, stream, args, NULL);
}

static void spin_until(uint64_t t)
{
    while (now_ns() < t)
        ;
}

/* a fixed amount of integer work: its time is the host CPU's speed at that moment */
static uint64_t probe_ns(void)
{
    volatile uint64_t x = 1;
    uint64_t t = now_ns();
    for (int i = 0; i < 20000; i++)
        x = x * 6364136223846793005ull + 1442695040888963407ull;
    return now_ns() - t;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int run_lc(double rate, double secs, double warm, int n, const char *path)
{
    if (rate <= 0 || secs <= 0 || warm < 0 || n < 2 || n > MAX_LAUNCH) {
        fprintf(stderr, "launch_cost lc: RATE > 0, SECONDS > 0, WARMUP_S >= 0, 2 <= NLAUNCH <= %d\n", MAX_LAUNCH);
        return 2;
    }
    FILE *out = fopen(path, "w");
    if (!out) {
        perror(path);
        return 1;
    }
    setup(0);
    static uint64_t wall[MAX_LAUNCH];
    fprintf(out, "req\tvariant\tt_s\tlat_us\twake_us\tloop_us\tloop_cpu_us\tlaunch_sum_us\tfirst_us\tlaunch_p50_us"
                 "\tlaunch_p90_us\tlaunch_max_us\tsync_us\tsync_cpu_us\tprobe_us\n");
    uint64_t period = (uint64_t)(1e9 / rate), t0 = now_ns() + 100000000ull;
    uint64_t nreq = (uint64_t)((warm + secs) * rate), skip = (uint64_t)(warm * rate);
    for (uint64_t r = 0; r < nreq; r++) {
        uint64_t arrive = t0 + r * period;
        while (now_ns() + 200000 < arrive)
            usleep(100);
        spin_until(arrive);
        int variant = (int)(r % 4);
        uint32_t ns = variant & 1 ? SHORT_KERNEL_NS : 0;
        int gap = variant >= 2;
        uint64_t start = now_ns(), c0 = cpu_ns(), sum = 0;
        for (int i = 0; i < n; i++) {
            uint64_t a = now_ns();
            cu_check(launch(1, 32, ns), "cuLaunchKernel");
            uint64_t b = now_ns();
            wall[i] = b - a;
            sum += wall[i];
            if (gap)
                spin_until(b + GAP_NS);
        }
        uint64_t loop_end = now_ns(), c1 = cpu_ns();
        cu_check(cu.stream_sync(stream), "cuStreamSynchronize");
        uint64_t end = now_ns(), c2 = cpu_ns();
        uint64_t probe = probe_ns();
        if (r < skip)
            continue;
        uint64_t first = wall[0];
        qsort(wall + 1, (size_t)n - 1, sizeof wall[0], cmp_u64);
        fprintf(out, "%llu\t%d\t%.3f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.2f\t%.2f\t%.2f\t%.2f\t%.1f\t%.1f\t%.1f\n",
                (unsigned long long)r, variant, (double)(start - t0) / 1e9, (double)(end - arrive) / 1e3,
                (double)(start - arrive) / 1e3, (double)(loop_end - start) / 1e3, (double)(c1 - c0) / 1e3,
                (double)sum / 1e3, (double)first / 1e3, (double)wall[1 + (n - 1) / 2] / 1e3,
                (double)wall[1 + (n - 1) * 9 / 10] / 1e3, (double)wall[n - 1] / 1e3, (double)(end - loop_end) / 1e3,
                (double)(c2 - c1) / 1e3, (double)probe / 1e3);
    }
    fclose(out);
    return 0;
}

static int run_be(double kernel_us, double secs, const char *ready)
{
    if (kernel_us < 1 || kernel_us > 4e6 || secs <= 0) {
        fprintf(stderr, "launch_cost be: 1 <= KERNEL_US <= 4e6, SECONDS > 0\n");
        return 2;
    }
    setup(CU_CTX_SCHED_BLOCKING_SYNC);
    int sms = 0;
    cu_check(cu.attribute(&sms, CU_ATTR_SM_COUNT, 0), "cuDeviceGetAttribute");
    uint32_t ns = (uint32_t)(kernel_us * 1e3);
    uint64_t end = now_ns() + (uint64_t)(secs * 1e9), kernels = 0;
    int signalled = 0;
    while (now_ns() < end) {
        cu_check(launch((unsigned)sms, 64, ns), "cuLaunchKernel");
        cu_check(launch((unsigned)sms, 64, ns), "cuLaunchKernel");
        cu_check(cu.stream_sync(stream), "cuStreamSynchronize");
        kernels += 2;
        if (!signalled) {
            FILE *f = fopen(ready, "w");
            if (f)
                fclose(f);
            signalled = 1;
        }
    }
    printf("BE kernels %llu of %.0f us in %.1f s\n", (unsigned long long)kernels, kernel_us, secs);
    return 0;
}

static int run_idle(double secs, const char *ready)
{
    if (secs <= 0) {
        fprintf(stderr, "launch_cost idle: SECONDS > 0\n");
        return 2;
    }
    setup(CU_CTX_SCHED_BLOCKING_SYNC);
    FILE *f = fopen(ready, "w");
    if (f)
        fclose(f);
    usleep((useconds_t)(secs * 1e6));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 7 && strcmp(argv[1], "lc") == 0)
        return run_lc(atof(argv[2]), atof(argv[3]), atof(argv[4]), atoi(argv[5]), argv[6]);
    if (argc == 5 && strcmp(argv[1], "be") == 0)
        return run_be(atof(argv[2]), atof(argv[3]), argv[4]);
    if (argc == 4 && strcmp(argv[1], "idle") == 0)
        return run_idle(atof(argv[2]), argv[3]);
    fprintf(stderr, "usage: launch_cost lc RATE SECONDS WARMUP_S NLAUNCH OUT.tsv | be KERNEL_US SECONDS READY_FILE"
                    " | idle SECONDS READY_FILE\n");
    return 2;
}
