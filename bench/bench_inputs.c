/*
 * Local inputs scale linearly: `scenario compare` of two results.json files and `replay` of a trace, each at
 * n and at 10 n. The row is the ratio of the two times: about 10 when the work is linear, about 100 when each
 * entry is looked up by a scan of the others (compare at 40 k tasks took 10.7 s that way, replay of 80 k
 * allocations 42 s).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "compare.h"
#include "replay.h"

/* A results.json of n tasks; reversed lists them last to first, so that pairing by name cannot go in step. */
static char *results_text(unsigned n, bool reversed)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    fputs("{\"scenario\": \"scale\", \"tasks\": [", f);
    for (unsigned k = 0; k < n; k++) {
        unsigned i = reversed ? n - 1 - k : k;
        fprintf(f, "%s{\"name\": \"t%07u\", \"class\": \"%s\", \"latency_us\": {\"p50\": %u, \"p99\": 20, \"max\": 30}, "
                   "\"throughput_rps\": %u, \"alone\": {\"p50_us\": 9, \"p99_us\": 18, \"max_us\": 25, \"throughput_rps\": 120}}",
                k ? ", " : "", i, i % 2 ? "LC" : "BE", 10 + i % 7, 100 + i % 13);
    }
    fputs("]}\n", f);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static double compare_seconds(unsigned n)
{
    char *a = results_text(n, false), *b = results_text(n, true);
    double t = -1;
    struct cmp_result r;
    char err[256];
    if (a && b) {
        double t0 = bench_now();
        if (cmp_texts(a, "a", b, "b", 0.1, false, &r, err, sizeof err) == 0 && r.count == 8u * n)
            t = bench_now() - t0;
        cmp_result_free(&r);
    }
    free(a);
    free(b);
    return t;
}

static int compare_scaling(const struct bench_ctx *ctx, struct bench_result *out)
{
    unsigned n = ctx->seconds < 1 ? 4000 : 40000;
    double small = compare_seconds(n / 10), big = compare_seconds(n);
    if (small <= 0 || big <= 0)
        return -1;
    out->value = big / small;
    snprintf(out->note, sizeof(out->note), "compare of %u tasks %.3f s, of %u tasks %.3f s (linear: ~10)", n, big,
             n / 10, small);
    return 0;
}

/* A trace of n client allocations with handles the emulator assigns, each later mapped by the replay. */
static int write_trace(const char *path, unsigned n)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    for (unsigned i = 0; i < n; i++) {
        unsigned h = 0xc1d00000u + i;
        fprintf(f, "IOCTL tid=1 fd=8 path=/dev/nvidiactl req=0xc030462b nr=0x2b size=48 ret=0 us=1.0 ALLOC64 "
                   "hRoot=0x0 hParent=0x0 hNew=0x%x class=0x41 in=%096u out=0000000000000000%02x%02x%02x%02x"
                   "41000000%064u\n",
                h, 0u, h & 0xff, (h >> 8) & 0xff, (h >> 16) & 0xff, h >> 24, 0u);
    }
    return fclose(f);
}

static double replay_seconds(const char *profile, unsigned n)
{
    char path[] = "/tmp/nvemu-bench-trace-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    close(fd);
    double t = -1;
    FILE *sink = fopen("/dev/null", "w");
    struct replay_opts o = {.profile = profile};
    struct replay_result res;
    if (sink && write_trace(path, n) == 0) {
        double t0 = bench_now();
        if (replay_file(path, &o, sink, &res) == 0 && res.calls == n && res.mismatches == 0)
            t = bench_now() - t0;
    }
    if (sink)
        fclose(sink);
    unlink(path);
    return t;
}

static int replay_scaling(const struct bench_ctx *ctx, struct bench_result *out)
{
    unsigned n = ctx->seconds < 1 ? 8000 : 80000;
    double small = replay_seconds(ctx->profile, n / 10), big = replay_seconds(ctx->profile, n);
    if (small <= 0 || big <= 0)
        return -1;
    out->value = big / small;
    snprintf(out->note, sizeof(out->note), "replay of %u allocations %.3f s, of %u %.3f s (linear: ~10)", n, big,
             n / 10, small);
    return 0;
}

const struct bench_row bench_rows_inputs[] = {
    {"inputs.compare_10x_tasks", "ratio", 20, false, compare_scaling},
    {"inputs.replay_10x_allocations", "ratio", 20, false, replay_scaling},
    {NULL, NULL, 0, false, NULL},
};
