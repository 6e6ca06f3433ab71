// Scheduling controls on libcuda's own compute channel group while kernels run.
// Must run under the recorder with NVEMU_RECORD_FILE naming one file: the program reads its own
// trace to learn libcuda's control fd, client, subdevice and compute channel group (engineType 1),
// then issues RM controls through that fd (same opener, so the driver accepts them).
//   busy preempt BLOCKS            PREEMPT latency idle and busy (bWait 0/1, manual timeout)
//   busy timeslice US BLOCKS       sets the group's timeslice to US, runs BLOCKS of work, prints elapsed
//   busy interleave LEVEL BLOCKS   CHANNEL_INTERLEAVED runlist policy + the group's interleave level, then work
//   busy disable-other TRACE MS    disables the compute channels of the process recorded in TRACE (another
//                                  opener's client) for MS ms with FIFO_DISABLE_CHANNELS, then re-enables them
//   busy lc N BLOCKS PERIOD_MS TIMESLICE [TRACE]
//                                  a latency-critical task: N small kernels, one every PERIOD_MS, each timed from
//                                  launch to completion; TIMESLICE (if not 0) is set on its own group first; with
//                                  TRACE, the channels of that (best-effort) process are disabled around each kernel
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
struct DisableChannels {
    unsigned char bDisable, pad0[3];
    unsigned numChannels;
    unsigned char bOnlyDisableScheduling, bRewindGpPut, pad1[6];
    unsigned long long pRunlistPreemptEvent;
    unsigned hClientList[64], hChannelList[64];
};
static_assert(sizeof(DisableChannels) == 536, "DISABLE_CHANNELS params");

// What one process's trace says about libcuda's objects.
struct Ctx {
    int fd = -1;
    unsigned client = 0, tsg = 0, subdev = 0;
    std::vector<unsigned> channels; // channels of the compute group
};

static unsigned control(const Ctx &c, unsigned obj, unsigned cmd, void *p, unsigned size, double *us)
{
    Nvos54 q = {c.client, obj, cmd, 0, (unsigned long long)(uintptr_t)p, size, 0xEEEEEEEEu};
    auto t0 = std::chrono::steady_clock::now();
    int r = ioctl(c.fd, 0xC020462Aul, &q);
    if (us)
        *us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    return r < 0 ? 0xFFFFFFFFu : q.status;
}

static unsigned field(const char *line, const char *key)
{
    const char *p = strstr(line, key);
    unsigned v = 0;
    if (p)
        sscanf(p + strlen(key), "0x%x", &v);
    return v;
}

static Ctx parse(const char *trace)
{
    Ctx c;
    FILE *f = fopen(trace, "r");
    if (!f)
        return c;
    static char line[1 << 16];
    while (fgets(line, sizeof line, f)) {
        if (!strstr(line, " ALLOC64 ") || !strstr(line, " status=0x0 "))
            continue;
        unsigned cls = field(line, " class="), hnew = field(line, " hNew="), parent = field(line, " hParent=");
        const char *ap = strstr(line, " aparams=");
        if (cls == 0x2080)
            c.subdev = hnew;
        if (cls == 0xa06c && ap) {
            unsigned eng = 0;
            for (int i = 3; i >= 0; i--) {
                unsigned b = 0;
                sscanf(ap + 9 + 24 + 2 * i, "%2x", &b);
                eng = eng << 8 | b;
            }
            if (eng == 1) {
                c.client = field(line, " hRoot=");
                c.tsg = hnew;
                c.channels.clear();
                sscanf(strstr(line, " fd="), " fd=%d", &c.fd);
            }
        }
        if (cls == 0xc86f && parent == c.tsg && c.tsg)
            c.channels.push_back(hnew);
    }
    fclose(f);
    return c;
}

static void stats(const char *what, std::vector<double> v, unsigned status)
{
    std::sort(v.begin(), v.end());
    printf("busy: %-34s n=%zu status=0x%x p50_us=%.1f p90_us=%.1f max_us=%.1f\n", what, v.size(), status,
           v[v.size() / 2], v[v.size() * 9 / 10], v.back());
}

static void preempt_series(const Ctx &c, const char *what, Preempt p, int n)
{
    std::vector<double> v;
    unsigned st = 0;
    for (int i = 0; i < n; i++) {
        double us;
        Preempt q = p;
        st |= control(c, c.tsg, 0xa06c0105u, &q, sizeof q, &us);
        v.push_back(us);
        usleep(2000);
    }
    stats(what, v, st);
}

static double run_work(unsigned blocks, float *out)
{
    auto t0 = std::chrono::steady_clock::now();
    work_kernel<<<blocks, WORK_THREADS>>>(WORK_ITERS, out);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

static int mode_preempt(const Ctx &c, unsigned blocks, float *out)
{
    preempt_series(c, "idle preempt wait=0", Preempt{0, 0, {0, 0}, 0}, 30);
    preempt_series(c, "idle preempt wait=1", Preempt{1, 0, {0, 0}, 0}, 30);
    printf("busy: kernel alone elapsed_ms=%.1f\n", run_work(blocks, out));
    auto t0 = std::chrono::steady_clock::now();
    work_kernel<<<blocks, WORK_THREADS>>>(WORK_ITERS, out);
    CK(cudaGetLastError());
    preempt_series(c, "busy preempt wait=1", Preempt{1, 0, {0, 0}, 0}, 30);
    preempt_series(c, "busy preempt wait=0", Preempt{0, 0, {0, 0}, 0}, 30);
    preempt_series(c, "busy preempt wait=1 manual=100000us", Preempt{1, 1, {0, 0}, 100000}, 30);
    CK(cudaDeviceSynchronize());
    double with = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    printf("busy: kernel with 90 preempts elapsed_ms=%.1f (kernel must outlast the series)\n", with);
    return 0;
}

static int mode_timeslice(const Ctx &c, unsigned long long want, unsigned blocks, float *out)
{
    unsigned long long ts = want;
    unsigned st = control(c, c.tsg, 0xa06c0103u, &ts, 8, nullptr);
    ts = 0;
    unsigned gst = control(c, c.tsg, 0xa06c0104u, &ts, 8, nullptr);
    printf("busy: set_timeslice %llu status=0x%x get status=0x%x timesliceUs=%llu\n", want, st, gst, ts);
    usleep(200000); // let the partner process reach the same point
    printf("busy: timeslice %llu elapsed_ms=%.1f\n", want, run_work(blocks, out));
    return 0;
}

static int mode_interleave(const Ctx &c, unsigned level, unsigned blocks, float *out)
{
    unsigned pol[2] = {0, 1}; // flags 0 (set), CHANNEL_INTERLEAVED
    unsigned pst = control(c, c.subdev, 0x20801115u, pol, sizeof pol, nullptr);
    unsigned lvl = level;
    unsigned lst = control(c, c.tsg, 0xa06c0107u, &lvl, 4, nullptr);
    printf("busy: sched_policy interleaved status=0x%x set_interleave %u status=0x%x\n", pst, level, lst);
    usleep(200000);
    printf("busy: interleave %u elapsed_ms=%.1f\n", level, run_work(blocks, out));
    usleep(300000); // keep the policy until the partner is done too
    pol[0] = 1;
    printf("busy: sched_policy restore status=0x%x\n", control(c, c.subdev, 0x20801115u, pol, sizeof pol, nullptr));
    return 0;
}

static Ctx wait_for_channels(const char *trace);

static int mode_disable_other(const Ctx &c, const char *other_trace, unsigned ms)
{
    Ctx o = wait_for_channels(other_trace);
    if (o.channels.size() < 8) {
        fprintf(stderr, "busy: the other process's compute channels are not in %s\n", other_trace);
        return 1;
    }
    usleep(300000); // the other process is in its kernel by now
    static DisableChannels d;
    memset(&d, 0, sizeof d);
    d.numChannels = (unsigned)o.channels.size();
    for (unsigned i = 0; i < d.numChannels; i++)
        d.hClientList[i] = o.client, d.hChannelList[i] = o.channels[i];
    double us_d, us_e;
    d.bDisable = 1;
    unsigned sd = control(c, c.subdev, 0x2080110bu, &d, sizeof d, &us_d);
    usleep(ms * 1000);
    d.bDisable = 0;
    unsigned se = control(c, c.subdev, 0x2080110bu, &d, sizeof d, &us_e);
    printf("busy: disable other process's %u channels status=0x%x us=%.1f, enabled after %u ms status=0x%x us=%.1f\n",
           d.numChannels, sd, us_d, ms, se, us_e);
    return 0;
}

static Ctx wait_for_channels(const char *trace)
{
    Ctx o;
    for (int i = 0; i < 100 && o.channels.size() < 8; i++) {
        o = parse(trace);
        if (o.channels.size() < 8)
            usleep(100000);
    }
    return o;
}

static unsigned set_disable(const Ctx &c, const Ctx &o, unsigned char dis, double *us)
{
    static DisableChannels d;
    memset(&d, 0, sizeof d);
    d.bDisable = dis;
    d.numChannels = (unsigned)o.channels.size();
    for (unsigned i = 0; i < d.numChannels; i++)
        d.hClientList[i] = o.client, d.hChannelList[i] = o.channels[i];
    return control(c, c.subdev, 0x2080110bu, &d, sizeof d, us);
}

static int mode_lc(const Ctx &c, int argc, char **argv, float *out)
{
    int n = atoi(argv[2]);
    unsigned blocks = (unsigned)strtoul(argv[3], NULL, 0), period = (unsigned)strtoul(argv[4], NULL, 0);
    unsigned long long ts = strtoull(argv[5], NULL, 0);
    if (ts) {
        unsigned st = control(c, c.tsg, 0xa06c0103u, &ts, 8, nullptr);
        printf("busy: lc set_timeslice %llu status=0x%x\n", ts, st);
    }
    Ctx o;
    if (argc > 6) {
        o = wait_for_channels(argv[6]);
        if (o.channels.size() < 8) {
            fprintf(stderr, "busy: no best-effort channels in %s\n", argv[6]);
            return 1;
        }
    }
    run_work(blocks, out); // warm-up: module load, first launch
    std::vector<double> lat, dis_us;
    unsigned st = 0;
    for (int i = 0; i < n; i++) {
        usleep(period * 1000);
        double us;
        auto t0 = std::chrono::steady_clock::now();
        if (!o.channels.empty()) {
            st |= set_disable(c, o, 1, &us);
            dis_us.push_back(us);
        }
        work_kernel<<<blocks, WORK_THREADS>>>(WORK_ITERS, out);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        if (!o.channels.empty())
            st |= set_disable(c, o, 0, &us);
        lat.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    }
    stats(o.channels.empty() ? "lc kernel latency" : "lc kernel latency (be disabled)", lat, st);
    if (!dis_us.empty())
        stats("lc disable call", dis_us, st);
    return 0;
}

int main(int argc, char **argv)
{
    const char *trace = getenv("NVEMU_RECORD_FILE");
    if (argc < 3 || !trace) {
        fprintf(stderr, "usage (under the recorder): busy preempt BLOCKS | busy timeslice US BLOCKS |\n"
                        "  busy interleave LEVEL BLOCKS | busy disable-other TRACE MS |\n"
                        "  busy lc N BLOCKS PERIOD_MS TIMESLICE [TRACE]\n");
        return 2;
    }
    CK(cudaFree(0));
    float *out;
    CK(cudaMalloc(&out, 2048 * WORK_THREADS * sizeof(float)));
    CK(cudaDeviceSynchronize());
    Ctx c = parse(trace);
    if (c.fd < 0 || !c.subdev) {
        fprintf(stderr, "busy: no compute channel group in %s\n", trace);
        return 1;
    }
    printf("busy: libcuda compute channel group found (fd %d, %zu channels)\n", c.fd, c.channels.size());
    unsigned long long ts = 0;
    unsigned st = control(c, c.tsg, 0xa06c0104u, &ts, 8, nullptr);
    printf("busy: get_timeslice status=0x%x timesliceUs=%llu\n", st, ts);
    int rc = 2;
    if (strcmp(argv[1], "preempt") == 0)
        rc = mode_preempt(c, (unsigned)strtoul(argv[2], NULL, 0), out);
    else if (strcmp(argv[1], "timeslice") == 0 && argc >= 4)
        rc = mode_timeslice(c, strtoull(argv[2], NULL, 0), (unsigned)strtoul(argv[3], NULL, 0), out);
    else if (strcmp(argv[1], "interleave") == 0 && argc >= 4)
        rc = mode_interleave(c, (unsigned)strtoul(argv[2], NULL, 0), (unsigned)strtoul(argv[3], NULL, 0), out);
    else if (strcmp(argv[1], "lc") == 0 && argc >= 6)
        rc = mode_lc(c, argc, argv, out);
    else if (strcmp(argv[1], "disable-other") == 0 && argc >= 4)
        rc = mode_disable_other(c, argv[2], (unsigned)strtoul(argv[3], NULL, 0));
    CK(cudaFree(out));
    return rc;
}
