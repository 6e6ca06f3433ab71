#include "hw_cuda.h"

#include <dlfcn.h>
#include <stdio.h>

/* Versioned exports where the plain name is the legacy ABI (cuda.h maps the plain names to these). */
static const struct {
    const char *name;
    size_t off;
} syms[] = {
    {"cuInit", offsetof(struct hw_cuda, cuInit)},
    {"cuDriverGetVersion", offsetof(struct hw_cuda, cuDriverGetVersion)},
    {"cuDeviceGet", offsetof(struct hw_cuda, cuDeviceGet)},
    {"cuDeviceGetName", offsetof(struct hw_cuda, cuDeviceGetName)},
    {"cuDeviceGetAttribute", offsetof(struct hw_cuda, cuDeviceGetAttribute)},
    {"cuDevicePrimaryCtxSetFlags_v2", offsetof(struct hw_cuda, cuDevicePrimaryCtxSetFlags)},
    {"cuDevicePrimaryCtxRetain", offsetof(struct hw_cuda, cuDevicePrimaryCtxRetain)},
    {"cuCtxSetCurrent", offsetof(struct hw_cuda, cuCtxSetCurrent)},
    {"cuModuleLoadData", offsetof(struct hw_cuda, cuModuleLoadData)},
    {"cuModuleGetFunction", offsetof(struct hw_cuda, cuModuleGetFunction)},
    {"cuFuncSetAttribute", offsetof(struct hw_cuda, cuFuncSetAttribute)},
    {"cuFuncGetAttribute", offsetof(struct hw_cuda, cuFuncGetAttribute)},
    {"cuOccupancyMaxActiveBlocksPerMultiprocessor", offsetof(struct hw_cuda, cuOccupancyMaxActiveBlocksPerMultiprocessor)},
    {"cuMemAlloc_v2", offsetof(struct hw_cuda, cuMemAlloc)},
    {"cuStreamCreate", offsetof(struct hw_cuda, cuStreamCreate)},
    {"cuStreamQuery", offsetof(struct hw_cuda, cuStreamQuery)},
    {"cuStreamSynchronize", offsetof(struct hw_cuda, cuStreamSynchronize)},
    {"cuLaunchKernel", offsetof(struct hw_cuda, cuLaunchKernel)},
    {"cuGetErrorString", offsetof(struct hw_cuda, cuGetErrorString)},
};

int hw_cuda_load(struct hw_cuda *c, char *err, size_t errlen)
{
    c->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!c->lib) {
        snprintf(err, errlen, "cannot load the CUDA driver (libcuda.so.1): %s", dlerror());
        return -1;
    }
    for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
        void *p = dlsym(c->lib, syms[i].name);
        if (!p) {
            snprintf(err, errlen, "libcuda.so.1 has no %s (driver too old?)", syms[i].name);
            return -1;
        }
        /* POSIX: a function pointer converts from dlsym's object pointer through memcpy. */
        *(void **)((char *)c + syms[i].off) = p;
    }
    return 0;
}

const char *hw_cuda_strerror(const struct hw_cuda *c, CUresult r)
{
    static __thread char buf[96];
    const char *s = NULL;
    if (c->cuGetErrorString && c->cuGetErrorString(r, &s) != HW_CUDA_SUCCESS)
        s = NULL;
    snprintf(buf, sizeof(buf), "%s (%d)", s ? s : "unknown CUDA error", r);
    return buf;
}
