/*
 * The CUDA driver entry points the recording programs call (launch_cost.c, slice_trace.c), taken from
 * libcuda.so.1 at run time: the programs build with a C compiler alone, and run on any machine with the driver.
 * Header-only, as each program is one file built by `cc PROGRAM.c -ldl`.
 */
#ifndef NVEMU_RECORD_CU_DRIVER_H
#define NVEMU_RECORD_CU_DRIVER_H

#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;

#define CU_CTX_SCHED_SPIN 1u
#define CU_CTX_SCHED_BLOCKING_SYNC 4u
#define CU_STREAM_NON_BLOCKING 1u
#define CU_ATTR_SM_COUNT 16
#define CU_ATTR_SMEM_PER_SM 81
#define CU_FUNC_MAX_DYNAMIC_SMEM 8

struct cu {
    CUresult (*init)(unsigned);
    CUresult (*device_get)(int *, int);
    CUresult (*attribute)(int *, int, int);
    CUresult (*primary_flags)(int, unsigned);
    CUresult (*primary_retain)(void **, int);
    CUresult (*set_current)(void *);
    CUresult (*module_load)(void **, const void *);
    CUresult (*get_function)(void **, void *, const char *);
    CUresult (*func_attr)(void *, int, int);
    CUresult (*mem_alloc)(uint64_t *, size_t);
    CUresult (*memcpy_dtoh)(void *, uint64_t, size_t);
    CUresult (*stream_create)(void **, unsigned);
    CUresult (*launch)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *,
                       void **, void **);
    CUresult (*stream_sync)(void *);
};

static struct cu cu;
static const char *cu_prog = "cu_driver";

/* Exits with the program's name, what failed and the driver's status unless r is success. */
static void cu_check(CUresult r, const char *what)
{
    if (r) {
        fprintf(stderr, "%s: %s failed: %d\n", cu_prog, what, r);
        exit(1);
    }
}

/*
 * Opens libcuda.so.1, fills `cu`, and makes the device's primary context (created with ctx_flags) current, with
 * the module of `ptx` loaded and its function `entry` in *fn. Exits with a line on stderr if any of it fails.
 */
static void cu_open(const char *prog, unsigned ctx_flags, const char *ptx, const char *entry, void **fn)
{
    static const struct {
        const char *name;
        size_t off;
    } symbols[] = {
        {"cuInit", offsetof(struct cu, init)},
        {"cuDeviceGet", offsetof(struct cu, device_get)},
        {"cuDeviceGetAttribute", offsetof(struct cu, attribute)},
        {"cuDevicePrimaryCtxSetFlags_v2", offsetof(struct cu, primary_flags)},
        {"cuDevicePrimaryCtxRetain", offsetof(struct cu, primary_retain)},
        {"cuCtxSetCurrent", offsetof(struct cu, set_current)},
        {"cuModuleLoadData", offsetof(struct cu, module_load)},
        {"cuModuleGetFunction", offsetof(struct cu, get_function)},
        {"cuFuncSetAttribute", offsetof(struct cu, func_attr)},
        {"cuMemAlloc_v2", offsetof(struct cu, mem_alloc)},
        {"cuMemcpyDtoH_v2", offsetof(struct cu, memcpy_dtoh)},
        {"cuStreamCreate", offsetof(struct cu, stream_create)},
        {"cuLaunchKernel", offsetof(struct cu, launch)},
        {"cuStreamSynchronize", offsetof(struct cu, stream_sync)},
    };
    cu_prog = prog;
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib) {
        fprintf(stderr, "%s: %s\n", prog, dlerror());
        exit(1);
    }
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        void *p = dlsym(lib, symbols[i].name);
        if (!p) {
            fprintf(stderr, "%s: libcuda.so.1 has no %s\n", prog, symbols[i].name);
            exit(1);
        }
        memcpy((char *)&cu + symbols[i].off, &p, sizeof p);
    }
    int dev;
    void *ctx, *mod;
    cu_check(cu.init(0), "cuInit");
    cu_check(cu.device_get(&dev, 0), "cuDeviceGet");
    cu_check(cu.primary_flags(dev, ctx_flags), "cuDevicePrimaryCtxSetFlags");
    cu_check(cu.primary_retain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    cu_check(cu.set_current(ctx), "cuCtxSetCurrent");
    cu_check(cu.module_load(&mod, ptx), "cuModuleLoadData");
    cu_check(cu.get_function(fn, mod, entry), "cuModuleGetFunction");
}

#endif
