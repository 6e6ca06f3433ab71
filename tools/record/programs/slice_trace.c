/*
 * slice_trace: where each channel group's timeslices begin and end on the GPU, read from inside its kernels.
 * Driver API only (libcuda.so.1 opened at run time); two instances under LD_PRELOAD'ed timeslices
 * (timeslice_preload.c) give both groups' slices on the GPU's one global timer.
 *
 *   slice_trace D_US BLOCKS NKERNEL SMEM_KB SECONDS READY_FILE GO_FILE OUT.tsv [THREADS]
 *
 * Kernel: the suite's default shape (1024 threads, one block per SM: its registers leave room for no second
 * one, an FMA loop) with SMEM_KB KiB of dynamic shared memory a block, D_US long alone; THREADS (32-1024, a whole
 * number of warps) another block size, whose blocks per SM the shared memory then holds. Thread 0 of every block
 * reads %globaltimer at its start, after every round of the loop and at its end; a step between two reads longer
 * than GAP_NS is time the block was not resident (a preemption: its SM ran another group). Requests of NKERNEL
 * kernels launched back to back, then a synchronize (spinning), closed loop, as `nvemu scenario run --hw` runs a
 * BE task.
 * After calibrating the loop alone it writes READY_FILE, waits for GO_FILE, runs SECONDS and writes one line
 * per kernel: its request, the blocks' earliest and latest start and end, and the steps off the SM (the
 * first two of each block) reduced over the blocks. Times are %globaltimer ns, the same clock in every process.
 *
 * The timer read costs the loop ~40 ns a round, and with 200 KiB of shared memory a block and 64-1024 threads it
 * makes the group's switches dearer than the hardware backend's kernel finds them (fixtures/hw/h200-580.159.04/
 * slice-trace/README.md, "The recorder's probe"); without shared memory, or with one warp, it does not.
 *
 * SLICE_TRACE_KERNEL (comma-separated) changes the kernel in the ways it differs from the hardware backend's work
 * kernel (engine/backends/hw/hw_ptx.c), to tell which of them a switch's cost depends on: `chains40` runs 40 FMA
 * chains (the backend's count) in place of 26; `store` has every thread store its sum into the shared memory and
 * read it back after the loop, as the backend's kernel does when it has 4 bytes a thread; `quiet` leaves the timer
 * out of the loop (no steps off the SM are recorded then: the requests done are the measure).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cu_driver.h"

#define ACC_MAX 40
#define GAP_NS 2500u
#define REC_U64 8 /* start, end, smid | ngap << 32, gap0 from, gap0 to, gap1 from, gap1 to, total off */

static void *fn, *stream;
static uint64_t rec_buf, sink_buf;
static unsigned smem_bytes, threads = 1024;
static int acc = 26;
static int store, quiet;

static void read_variant(void)
{
    const char *v = getenv("SLICE_TRACE_KERNEL");
    if (!v)
        return;
    acc = strstr(v, "chains40") ? ACC_MAX : acc;
    store = strstr(v, "store") != NULL;
    quiet = strstr(v, "quiet") != NULL;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * The kernel's PTX, written out by loops: 26 independent FMA chains (40 with `chains40`), 48 registers a thread
 * with the stamps (the hardware backend's work kernel: 46).
 */
static char *kernel_ptx(void)
{
    size_t cap = 16384, n = 0;
    char *p = malloc(cap);
    if (!p)
        exit(1);
#define EMIT(...) (n += (size_t)snprintf(p + n, cap - n, __VA_ARGS__))
    EMIT(".version 7.0\n.target sm_70\n.address_size 64\n"
         ".extern .shared .align 16 .b8 dsm[];\n"
         ".visible .entry stamp(.param .u64 p_rec, .param .u64 p_sink, .param .u32 p_iters, .param .u32 p_gap)\n{\n"
         ".reg .pred %%p<4>;\n.reg .b32 %%r<12>;\n.reg .f32 %%a<%d>;\n.reg .f32 %%s<2>;\n.reg .b64 %%rd<20>;\n"
         "ld.param.u64 %%rd0, [p_rec];\nld.param.u64 %%rd1, [p_sink];\n"
         "ld.param.u32 %%r0, [p_iters];\nld.param.u32 %%r1, [p_gap];\n"
         "mov.u32 %%r2, %%tid.x;\nsetp.eq.u32 %%p3, %%r2, 0;\n"
         "mov.u64 %%rd2, %%globaltimer;\nmov.u64 %%rd3, %%rd2;\n"
         "mov.u64 %%rd4, 0;\nmov.u64 %%rd5, 0;\nmov.u64 %%rd6, 0;\nmov.u64 %%rd7, 0;\nmov.u64 %%rd8, 0;\n"
         "mov.u32 %%r8, 0;\ncvt.u64.u32 %%rd9, %%r1;\n"
         "cvt.rn.f32.u32 %%s0, %%r2;\nmul.rn.f32 %%s0, %%s0, 0f3A83126F;\n",
         acc);
    for (int i = 0; i < acc; i++)
        EMIT("add.rn.f32 %%a%d, %%s0, 0f%08X;\n", i, 0x3C000000u + (unsigned)i * 0x00100000u);
    EMIT("mov.u32 %%r3, 0;\nsetp.eq.u32 %%p0, %%r0, 0;\n@%%p0 bra DONE;\nLOOP:\n");
    for (int i = 0; i < acc; i++)
        EMIT("fma.rn.f32 %%a%d, %%a%d, 0f3F800347, 0f33D6BF95;\n", i, i);
    /* thread 0: a step of the timer beyond p_gap is time off the SM */
    EMIT(quiet ? "bra NEXT;\n" : "");
    EMIT("@!%%p3 bra NEXT;\nmov.u64 %%rd10, %%globaltimer;\nsub.u64 %%rd11, %%rd10, %%rd3;\nmov.u64 %%rd3, %%rd10;\n"
         "setp.le.u64 %%p1, %%rd11, %%rd9;\n@%%p1 bra NEXT;\n"
         "add.u64 %%rd8, %%rd8, %%rd11;\nsub.u64 %%rd12, %%rd10, %%rd11;\n"
         "setp.ne.u32 %%p2, %%r8, 0;\n@%%p2 bra SECOND;\nmov.u64 %%rd4, %%rd12;\nmov.u64 %%rd5, %%rd10;\nbra COUNT;\n"
         "SECOND:\nsetp.ne.u32 %%p2, %%r8, 1;\n@%%p2 bra COUNT;\nmov.u64 %%rd6, %%rd12;\nmov.u64 %%rd7, %%rd10;\n"
         "COUNT:\nadd.u32 %%r8, %%r8, 1;\n"
         "NEXT:\nadd.u32 %%r3, %%r3, 1;\nsetp.lt.u32 %%p1, %%r3, %%r0;\n@%%p1 bra LOOP;\nDONE:\n"
         "mov.f32 %%s1, %%a0;\n");
    for (int i = 1; i < acc; i++)
        EMIT("add.rn.f32 %%s1, %%s1, %%a%d;\n", i);
    if (store && smem_bytes >= threads * 4u)
        EMIT("mov.u32 %%r9, dsm;\nshl.b32 %%r10, %%r2, 2;\nadd.u32 %%r9, %%r9, %%r10;\n"
             "st.volatile.shared.f32 [%%r9], %%s1;\nld.volatile.shared.f32 %%s1, [%%r9];\n");
    /* every thread's sum is stored, so no chain is dead code */
    EMIT("mov.u32 %%r4, %%ctaid.x;\nand.b32 %%r4, %%r4, 2047;\nshl.b32 %%r5, %%r4, 10;\nadd.u32 %%r5, %%r5, %%r2;\n"
         "mul.wide.u32 %%rd13, %%r5, 4;\nadd.s64 %%rd13, %%rd1, %%rd13;\nst.global.f32 [%%rd13], %%s1;\n"
         "@!%%p3 bra END;\nmov.u64 %%rd14, %%globaltimer;\nmov.u32 %%r6, %%smid;\n"
         "cvt.u64.u32 %%rd15, %%r6;\ncvt.u64.u32 %%rd16, %%r8;\nshl.b64 %%rd16, %%rd16, 32;\n"
         "or.b64 %%rd15, %%rd15, %%rd16;\n"
         "mov.u32 %%r7, %%ctaid.x;\nmul.wide.u32 %%rd17, %%r7, %d;\nadd.s64 %%rd17, %%rd0, %%rd17;\n"
         "st.global.u64 [%%rd17], %%rd2;\nst.global.u64 [%%rd17+8], %%rd14;\nst.global.u64 [%%rd17+16], %%rd15;\n"
         "st.global.u64 [%%rd17+24], %%rd4;\nst.global.u64 [%%rd17+32], %%rd5;\nst.global.u64 [%%rd17+40], %%rd6;\n"
         "st.global.u64 [%%rd17+48], %%rd7;\nst.global.u64 [%%rd17+56], %%rd8;\nEND:\nret;\n}\n",
         REC_U64 * 8);
#undef EMIT
    if (n >= cap) {
        fprintf(stderr, "slice_trace: kernel text overflows its buffer\n");
        exit(1);
    }
    return p;
}

static void setup(void)
{
    int smem = 0;
    char *ptx = kernel_ptx();
    cu_open("slice_trace", CU_CTX_SCHED_SPIN, ptx, "stamp", &fn);
    free(ptx);
    cu_check(cu.attribute(&smem, CU_ATTR_SMEM_PER_SM, 0), "cuDeviceGetAttribute");
    if (smem_bytes > (unsigned)smem) {
        fprintf(stderr, "slice_trace: %u bytes of shared memory a block, the SM has %d\n", smem_bytes, smem);
        exit(2);
    }
    if (smem_bytes > 48u * 1024u)
        cu_check(cu.func_attr(fn, CU_FUNC_MAX_DYNAMIC_SMEM, (int)smem_bytes), "cuFuncSetAttribute");
    cu_check(cu.mem_alloc(&sink_buf, 2048u * 1024u * 4u), "cuMemAlloc");
    cu_check(cu.stream_create(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
}

static void launch(unsigned blocks, uint64_t rec, uint32_t iters)
{
    uint32_t gap = GAP_NS;
    void *args[] = {&rec, &sink_buf, &iters, &gap};
    cu_check(cu.launch(fn, blocks, 1, 1, threads, 1, 1, smem_bytes, stream, args, NULL), "cuLaunchKernel");
}

/* GPU time of one kernel alone: latest end less earliest start over its blocks */
static double alone_ns(unsigned blocks, uint32_t iters, uint64_t *host)
{
    double best = 1e18;
    for (int r = 0; r < 5; r++) {
        launch(blocks, rec_buf, iters);
        cu_check(cu.stream_sync(stream), "cuStreamSynchronize");
        cu_check(cu.memcpy_dtoh(host, rec_buf, (size_t)blocks * REC_U64 * 8), "cuMemcpyDtoH");
        uint64_t s = UINT64_MAX, e = 0;
        for (unsigned b = 0; b < blocks; b++) {
            s = host[b * REC_U64] < s ? host[b * REC_U64] : s;
            e = host[b * REC_U64 + 1] > e ? host[b * REC_U64 + 1] : e;
        }
        best = (double)(e - s) < best ? (double)(e - s) : best;
    }
    return best;
}

static void touch(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    fclose(f);
}

struct span {
    uint64_t lo_min, lo_max, hi_min, hi_max;
    unsigned n;
};

static void span_add(struct span *s, uint64_t lo, uint64_t hi)
{
    if (!s->n++) {
        s->lo_min = s->lo_max = lo;
        s->hi_min = s->hi_max = hi;
        return;
    }
    s->lo_min = lo < s->lo_min ? lo : s->lo_min;
    s->lo_max = lo > s->lo_max ? lo : s->lo_max;
    s->hi_min = hi < s->hi_min ? hi : s->hi_min;
    s->hi_max = hi > s->hi_max ? hi : s->hi_max;
}

static int run(double d_us, unsigned blocks, unsigned nkernel, double smem_kb, double secs, const char *ready,
               const char *go, const char *path)
{
    if (d_us < 2 || d_us > 1e5 || blocks < 1 || blocks > 2048 || nkernel < 1 || smem_kb < 0 || smem_kb > 1024 ||
        secs <= 0 || secs > 30 || threads < 32 || threads > 1024 || threads % 32) {
        fprintf(stderr, "slice_trace: 2 <= D_US <= 1e5, 1 <= BLOCKS <= 2048, NKERNEL >= 1, 0 <= SMEM_KB <= 1024, "
                        "0 < SECONDS <= 30, THREADS 32-1024 in whole warps\n");
        return 2;
    }
    smem_bytes = (unsigned)(smem_kb * 1024);
    read_variant();
    setup();
    size_t cap = (size_t)(secs * 1e6 / d_us * 1.2) + nkernel;
    size_t rec_bytes = (size_t)blocks * REC_U64 * 8;
    cu_check(cu.mem_alloc(&rec_buf, cap * rec_bytes), "cuMemAlloc (records)");
    uint64_t *host = malloc(cap * rec_bytes);
    if (!host) {
        fprintf(stderr, "slice_trace: no memory for %zu records\n", cap);
        return 1;
    }
    launch(blocks, rec_buf, 100); /* the JIT and first-launch costs */
    cu_check(cu.stream_sync(stream), "cuStreamSynchronize");
    double t1 = alone_ns(blocks, 500, host), t2 = alone_ns(blocks, 4500, host);
    double per = (t2 - t1) / 4000.0, fixed = t1 - per * 500;
    uint32_t iters = d_us * 1e3 > fixed ? (uint32_t)((d_us * 1e3 - fixed) / per + 0.5) : 1;
    double got = alone_ns(blocks, iters, host);
    printf("calibration: %.3f ns per round, %.0f ns fixed, %u rounds, %.0f ns alone (asked %.0f), smem %u, "
           "%d chains%s%s\n", per, fixed, iters, got, d_us * 1e3, smem_bytes, acc, store ? ", store" : "",
           quiet ? ", quiet" : "");
    touch(ready);
    while (access(go, F_OK) != 0)
        usleep(200);
    uint64_t end = now_ns() + (uint64_t)(secs * 1e9);
    size_t k = 0;
    unsigned req = 0;
    static unsigned req_of[1 << 22];
    while (now_ns() < end && k + nkernel <= cap && k + nkernel <= sizeof req_of / sizeof req_of[0]) {
        for (unsigned i = 0; i < nkernel; i++, k++) {
            req_of[k] = req;
            launch(blocks, rec_buf + k * rec_bytes, iters);
        }
        cu_check(cu.stream_sync(stream), "cuStreamSynchronize");
        req++;
    }
    cu_check(cu.memcpy_dtoh(host, rec_buf, k * rec_bytes), "cuMemcpyDtoH (records)");
    FILE *out = fopen(path, "w");
    if (!out) {
        perror(path);
        return 1;
    }
    fprintf(out, "# d_us %.2f blocks %u nkernel %u smem %u rounds %u alone_ns %.0f requests %u threads %u\n", d_us,
            blocks, nkernel, smem_bytes, iters, got, req, threads);
    fprintf(out, "kernel\treq\tstart_min\tstart_max\tend_min\tend_max\tgap0_n\tgap0_from_min\tgap0_from_max"
                 "\tgap0_to_min\tgap0_to_max\tgap1_n\tgap1_from_min\tgap1_to_max\tgaps_max\toff_max\n");
    for (size_t i = 0; i < k; i++) {
        const uint64_t *r = host + i * blocks * REC_U64;
        struct span run = {0}, g0 = {0}, g1 = {0};
        unsigned gaps_max = 0;
        uint64_t off_max = 0;
        for (unsigned b = 0; b < blocks; b++, r += REC_U64) {
            unsigned ng = (unsigned)(r[2] >> 32);
            span_add(&run, r[0], r[1]);
            if (ng >= 1)
                span_add(&g0, r[3], r[4]);
            if (ng >= 2)
                span_add(&g1, r[5], r[6]);
            gaps_max = ng > gaps_max ? ng : gaps_max;
            off_max = r[7] > off_max ? r[7] : off_max;
        }
        fprintf(out, "%zu\t%u\t%llu\t%llu\t%llu\t%llu\t%u\t%llu\t%llu\t%llu\t%llu\t%u\t%llu\t%llu\t%u\t%llu\n", i,
                req_of[i], (unsigned long long)run.lo_min, (unsigned long long)run.lo_max,
                (unsigned long long)run.hi_min, (unsigned long long)run.hi_max, g0.n, (unsigned long long)g0.lo_min,
                (unsigned long long)g0.lo_max, (unsigned long long)g0.hi_min, (unsigned long long)g0.hi_max, g1.n,
                (unsigned long long)g1.lo_min, (unsigned long long)g1.hi_max, gaps_max, (unsigned long long)off_max);
    }
    fclose(out);
    printf("kernels %zu requests %u\n", k, req);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 9 || argc == 10) {
        if (argc == 10)
            threads = (unsigned)atoi(argv[9]);
        return run(atof(argv[1]), (unsigned)atoi(argv[2]), (unsigned)atoi(argv[3]), atof(argv[4]), atof(argv[5]),
                   argv[6], argv[7], argv[8]);
    }
    fprintf(stderr, "usage: slice_trace D_US BLOCKS NKERNEL SMEM_KB SECONDS READY_FILE GO_FILE OUT.tsv [THREADS]\n");
    return 2;
}
