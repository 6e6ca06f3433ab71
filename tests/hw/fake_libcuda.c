/*
 * A stand-in for libcuda.so.1 with the entry points `nvemu scenario run --hw`
 * uses, so CI can run the hardware backend without a GPU: one device with
 * 132 SMs, the work kernel takes iters x FAKE_NS_PER_ITER per wave of 132
 * blocks, streams of one process run their kernels one after another (no
 * sharing between processes: every task behaves as if alone). It checks
 * what a real driver would refuse (a call before cuInit, a launch with more
 * dynamic shared memory than the function allows).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#define FAKE_SMS 132
#define FAKE_NS_PER_ITER 200.0
#define FAKE_MAX_STREAMS 64

typedef int CUresult;
enum { OK = 0, ERR_INVALID_VALUE = 1, ERR_NOT_INITIALIZED = 3, ERR_NOT_READY = 600 };

static bool inited;
static int max_dyn_smem = 48 * 1024;
static uint64_t stream_end[FAKE_MAX_STREAMS];
static int nstreams;
static int ctx_token, mod_token, fn_token;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

CUresult cuInit(unsigned flags)
{
    inited = flags == 0;
    return inited ? OK : ERR_INVALID_VALUE;
}

CUresult cuDriverGetVersion(int *v)
{
    *v = 13000;
    return OK;
}

CUresult cuDeviceGet(int *d, int ordinal)
{
    if (!inited)
        return ERR_NOT_INITIALIZED;
    *d = 0;
    return ordinal == 0 ? OK : ERR_INVALID_VALUE;
}

CUresult cuDeviceGetName(char *name, int len, int dev)
{
    (void)dev;
    strncpy(name, "Fake GPU (tests/hw)", (size_t)len - 1);
    name[len - 1] = '\0';
    return OK;
}

CUresult cuDeviceGetAttribute(int *v, int attr, int dev)
{
    (void)dev;
    switch (attr) {
    case 16: *v = FAKE_SMS; return OK;
    case 81: *v = 233472; return OK;
    case 97: *v = 232448; return OK;
    case 75: *v = 9; return OK;
    case 76: *v = 0; return OK;
    default: return ERR_INVALID_VALUE;
    }
}

CUresult cuDevicePrimaryCtxSetFlags_v2(int dev, unsigned flags)
{
    (void)dev;
    (void)flags;
    return inited ? OK : ERR_NOT_INITIALIZED;
}

CUresult cuDevicePrimaryCtxRetain(void **ctx, int dev)
{
    (void)dev;
    *ctx = &ctx_token;
    return inited ? OK : ERR_NOT_INITIALIZED;
}

CUresult cuCtxSetCurrent(void *ctx)
{
    return ctx == &ctx_token ? OK : ERR_INVALID_VALUE;
}

CUresult cuModuleLoadData(void **mod, const void *image)
{
    *mod = &mod_token;
    return image && strstr(image, ".entry nvemu_work") ? OK : ERR_INVALID_VALUE;
}

CUresult cuModuleGetFunction(void **fn, void *mod, const char *name)
{
    *fn = &fn_token;
    return mod == &mod_token && strcmp(name, "nvemu_work") == 0 ? OK : ERR_INVALID_VALUE;
}

CUresult cuFuncSetAttribute(void *fn, int attr, int v)
{
    if (fn != &fn_token || attr != 8 || v > 232448)
        return ERR_INVALID_VALUE;
    max_dyn_smem = v;
    return OK;
}

CUresult cuFuncGetAttribute(int *v, int attr, void *fn)
{
    *v = 46;
    return fn == &fn_token && attr == 4 ? OK : ERR_INVALID_VALUE;
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, void *fn, int threads, size_t smem)
{
    /* Hopper's limits for a 46-register kernel: 2048 threads, 64 Ki registers, 228 KiB (1 KiB reserved per block) */
    int by_threads = 2048 / threads, by_regs = 65536 / (46 * threads), by_smem = 233472 / ((int)smem + 1024);
    *n = by_threads < by_regs ? by_threads : by_regs;
    *n = *n < by_smem ? *n : by_smem;
    *n = *n < 32 ? *n : 32;
    return fn == &fn_token && threads >= 1 && threads <= 1024 ? OK : ERR_INVALID_VALUE;
}

CUresult cuMemAlloc_v2(uint64_t *p, size_t size)
{
    *p = 0x100000;
    return size ? OK : ERR_INVALID_VALUE;
}

/* No kernel writes to the stand-in's device memory: what is read back is zeros. */
CUresult cuMemcpyDtoH_v2(void *dst, uint64_t src, size_t size)
{
    if (!dst || !src)
        return ERR_INVALID_VALUE;
    memset(dst, 0, size);
    return OK;
}

CUresult cuStreamCreate(void **s, unsigned flags)
{
    (void)flags;
    if (nstreams == FAKE_MAX_STREAMS)
        return ERR_INVALID_VALUE;
    *s = (void *)(uintptr_t)(++nstreams);
    return OK;
}

static int stream_index(void *s)
{
    uintptr_t i = (uintptr_t)s;
    return i >= 1 && i <= (uintptr_t)nstreams ? (int)i - 1 : -1;
}

CUresult cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned smem, void *s, void **args, void **extra)
{
    int i = stream_index(s);
    if (fn != &fn_token || i < 0 || !args || extra || gy != 1 || gz != 1 || bx < 1 || bx > 1024 || by != 1 || bz != 1 ||
        (int)smem > max_dyn_smem)
        return ERR_INVALID_VALUE;
    uint32_t iters = *(uint32_t *)args[1];
    uint64_t waves = (gx + FAKE_SMS - 1) / FAKE_SMS;
    uint64_t start = stream_end[i] > now_ns() ? stream_end[i] : now_ns();
    stream_end[i] = start + (uint64_t)(waves * iters * FAKE_NS_PER_ITER);
    return OK;
}

CUresult cuStreamQuery(void *s)
{
    int i = stream_index(s);
    if (i < 0)
        return ERR_INVALID_VALUE;
    return now_ns() >= stream_end[i] ? OK : ERR_NOT_READY;
}

CUresult cuStreamSynchronize(void *s)
{
    CUresult r;
    while ((r = cuStreamQuery(s)) == ERR_NOT_READY)
        ;
    return r;
}

CUresult cuGetErrorString(CUresult r, const char **s)
{
    *s = r == OK ? "CUDA_SUCCESS" : r == ERR_NOT_READY ? "CUDA_ERROR_NOT_READY" : "CUDA_ERROR_INVALID_VALUE";
    return OK;
}
