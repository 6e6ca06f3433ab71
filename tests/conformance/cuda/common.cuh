// Shared bits of the small CUDA programs recorded on hardware (tests/conformance/device-session.sh).
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CK(x)                                                                                   \
    do {                                                                                        \
        cudaError_t e_ = (x);                                                                   \
        if (e_ != cudaSuccess) {                                                                \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));  \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)

// A fixed amount of dependent arithmetic per thread: its run time grows when the GPU is shared.
// Work is sized by the number of blocks, each short (WORK_ITERS, well under a millisecond), so that
// preemption at block boundaries never waits long for a running block.
#define WORK_ITERS 20000u
#define WORK_THREADS 256u
__global__ void work_kernel(unsigned iters, float *out)
{
    float a = threadIdx.x * 1e-3f, b = 1.0001f;
    for (unsigned i = 0; i < iters; i++)
        a = a * b + 1e-7f;
    out[(blockIdx.x % 2048u) * blockDim.x + threadIdx.x] = a;
}
