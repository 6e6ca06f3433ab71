// Scheduling controls on libcuda's own compute channel group while a kernel runs.
// Must run under the recorder with NVEMU_RECORD_FILE naming one file: the program reads its own
// trace to learn libcuda's control fd, client and compute channel group (engineType 1), then
// issues RM controls through that fd (same opener, so the driver accepts them).
//   busy preempt BLOCKS      PREEMPT latency idle and busy (bWait 0/1, manual timeout)
//   busy timeslice US BLOCKS sets the group's timeslice to US, runs BLOCKS of work, prints elapsed
#include <sys/ioctl.h>
#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>
#include "common.cuh"

struct Nvos54 { unsigned hClient, hObject, cmd, flags; unsigned long long params; unsigned paramsSize, status; };
static_assert(sizeof(Nvos54) == 32, "NVOS54");
struct Preempt { unsigned char bWait, bManualTimeout, pad[2]; unsigned timeoutUs; };
static_assert(sizeof(Preempt) == 8, "PREEMPT params");

static int g_fd = -1;
static unsigned g_client, g_tsg;

static unsigned control(unsigned cmd, void *p, unsigned size, double *us)
{
    Nvos54 c = {g_client, g_tsg, cmd, 0, (unsigned long long)(uintptr_t)p, size, 0xEEEEEEEEu};
    auto t0 = std::chrono::steady_clock::now();
    int r = ioctl(g_fd, 0xC020462Aul, &c);
    if (us)
        *us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    return r < 0 ? 0xFFFFFFFFu : c.status;
}

static bool find_tsg(const char *trace)
{
    FILE *f = fopen(trace, "r");
    if (!f)
        return false;
    static char line[1 << 16];
    while (fgets(line, sizeof line, f)) {
        if (!strstr(line, " class=0xa06c ") || !strstr(line, " status=0x0 "))
            continue;
        const char *ap = strstr(line, " aparams=");
        int fd;
        unsigned root, hnew, eng = 0;
        if (!ap || sscanf(strstr(line, " fd="), " fd=%d", &fd) != 1 ||
            sscanf(strstr(line, " hRoot="), " hRoot=0x%x", &root) != 1 ||
            sscanf(strstr(line, " hNew="), " hNew=0x%x", &hnew) != 1)
            continue;
        for (int i = 3; i >= 0; i--) {
            unsigned b;
            sscanf(ap + 9 + 24 + 2 * i, "%2x", &b);
            eng = eng << 8 | b;
        }
        if (eng == 1)
            g_fd = fd, g_client = root, g_tsg = hnew;
    }
    fclose(f);
    return g_fd >= 0;
}

static void stats(const char *what, std::vector<double> v, unsigned status)
{
    std::sort(v.begin(), v.end());
    printf("busy: %-34s n=%zu status=0x%x p50_us=%.1f p90_us=%.1f max_us=%.1f\n", what, v.size(), status,
           v[v.size() / 2], v[v.size() * 9 / 10], v.back());
}

static void preempt_series(const char *what, Preempt p, int n)
{
    std::vector<double> v;
    unsigned st = 0;
    for (int i = 0; i < n; i++) {
        double us;
        Preempt q = p;
        unsigned s = control(0xa06c0105u, &q, sizeof q, &us);
        st |= s;
        v.push_back(us);
        usleep(2000);
    }
    stats(what, v, st);
}

int main(int argc, char **argv)
{
    const char *trace = getenv("NVEMU_RECORD_FILE");
    if (argc < 3 || !trace) {
        fprintf(stderr, "usage (under the recorder): busy preempt BLOCKS | busy timeslice US BLOCKS\n");
        return 2;
    }
    CK(cudaFree(0));
    float *out;
    CK(cudaMalloc(&out, 2048 * WORK_THREADS * sizeof(float)));
    CK(cudaDeviceSynchronize());
    if (!find_tsg(trace)) {
        fprintf(stderr, "busy: no compute channel group in %s\n", trace);
        return 1;
    }
    printf("busy: libcuda compute channel group found (fd %d)\n", g_fd);
    unsigned long long ts = 0;
    unsigned st = control(0xa06c0104u, &ts, 8, nullptr);
    printf("busy: get_timeslice status=0x%x timesliceUs=%llu\n", st, ts);
    if (strcmp(argv[1], "preempt") == 0) {
        unsigned blocks = (unsigned)strtoul(argv[2], NULL, 0);
        preempt_series("idle preempt wait=0", Preempt{0, 0, {0, 0}, 0}, 30);
        preempt_series("idle preempt wait=1", Preempt{1, 0, {0, 0}, 0}, 30);
        auto t0 = std::chrono::steady_clock::now();
        work_kernel<<<blocks, WORK_THREADS>>>(WORK_ITERS, out);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        double base = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        printf("busy: kernel alone elapsed_ms=%.1f\n", base);
        t0 = std::chrono::steady_clock::now();
        work_kernel<<<blocks, WORK_THREADS>>>(WORK_ITERS, out);
        CK(cudaGetLastError());
        preempt_series("busy preempt wait=1", Preempt{1, 0, {0, 0}, 0}, 30);
        preempt_series("busy preempt wait=0", Preempt{0, 0, {0, 0}, 0}, 30);
        preempt_series("busy preempt wait=1 manual=100000us", Preempt{1, 1, {0, 0}, 100000}, 30);
        CK(cudaDeviceSynchronize());
        double with = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        printf("busy: kernel with 120 preempts elapsed_ms=%.1f (kernel must outlast the series)\n", with);
    } else if (strcmp(argv[1], "timeslice") == 0 && argc >= 4) {
        unsigned long long want = strtoull(argv[2], NULL, 0);
        unsigned blocks = (unsigned)strtoul(argv[3], NULL, 0);
        ts = want;
        st = control(0xa06c0103u, &ts, 8, nullptr);
        ts = 0;
        unsigned gst = control(0xa06c0104u, &ts, 8, nullptr);
        printf("busy: set_timeslice %llu status=0x%x get status=0x%x timesliceUs=%llu\n", want, st, gst, ts);
        usleep(200000); // let the partner process reach the same point
        auto t0 = std::chrono::steady_clock::now();
        work_kernel<<<blocks, WORK_THREADS>>>(WORK_ITERS, out);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        printf("busy: timeslice %llu elapsed_ms=%.1f\n", want, ms);
    }
    CK(cudaFree(out));
    return 0;
}
