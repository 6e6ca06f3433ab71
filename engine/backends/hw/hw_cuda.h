/*
 * The part of the CUDA driver API the hardware backend uses, loaded at run
 * time with dlopen("libcuda.so.1"): nothing CUDA is needed to build, and the
 * binary CI builds is the one that runs on a GPU machine. Types are the
 * driver API's opaque handles; values of the enums used are the documented
 * ones of cuda.h (CUDA 11-13).
 */
#ifndef NVEMU_HW_CUDA_H
#define NVEMU_HW_CUDA_H

#include <stddef.h>
#include <stdint.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef uint64_t CUdeviceptr;

#define HW_CUDA_SUCCESS 0
#define HW_CUDA_ERROR_NOT_READY 600
#define HW_CU_CTX_SCHED_SPIN 0x01u
#define HW_CU_STREAM_NON_BLOCKING 0x1u
#define HW_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT 16
#define HW_CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR 81
#define HW_CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN 97
#define HW_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define HW_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76
#define HW_CU_FUNC_ATTRIBUTE_NUM_REGS 4
#define HW_CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES 8

struct hw_cuda {
    void *lib;
    CUresult (*cuInit)(unsigned);
    CUresult (*cuDriverGetVersion)(int *);
    CUresult (*cuDeviceGet)(CUdevice *, int);
    CUresult (*cuDeviceGetName)(char *, int, CUdevice);
    CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
    CUresult (*cuDevicePrimaryCtxSetFlags)(CUdevice, unsigned);
    CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*cuCtxSetCurrent)(CUcontext);
    CUresult (*cuModuleLoadData)(CUmodule *, const void *);
    CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
    CUresult (*cuFuncGetAttribute)(int *, int, CUfunction);
    CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *, CUfunction, int, size_t);
    CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
    CUresult (*cuStreamCreate)(CUstream *, unsigned);
    CUresult (*cuStreamQuery)(CUstream);
    CUresult (*cuStreamSynchronize)(CUstream);
    CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                               CUstream, void **, void **);
    CUresult (*cuGetErrorString)(CUresult, const char **);
};

/* Loads libcuda.so.1 and resolves every entry point. 0, or -1 with the reason (no driver, missing symbol). */
int hw_cuda_load(struct hw_cuda *c, char *err, size_t errlen);

/* "CUDA_ERROR_... (code)" style text for a result, for messages. */
const char *hw_cuda_strerror(const struct hw_cuda *c, CUresult r);

/* The work kernel (PTX, JIT-compiled by the driver): nvemu_work(float *out, u32 iters, u32 smem_bytes). */
extern const char hw_work_ptx[];
#define HW_WORK_KERNEL "nvemu_work"
#define HW_WORK_THREADS 1024u      /* threads per block: with the kernel's 40+ live registers, one block per SM */
#define HW_WORK_OUT_BLOCKS 2048u   /* the output buffer holds this many blocks' results (indices wrap) */
#define HW_WORK_CHAINS 40u         /* FMA chains of hw_work_ptx */
#define HW_WORK_MAX_CHAINS 240u

/* The work kernel with `chains` accumulators (1..HW_WORK_MAX_CHAINS; registers grow with them) written to buf:
 * its length, or -1 when it does not fit or chains is out of range. */
int hw_work_ptx_chains(char *buf, size_t n, uint32_t chains);

#endif
