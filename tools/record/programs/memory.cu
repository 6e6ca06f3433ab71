// memory: the allocation kinds a workload mixes: device (cudaMalloc), pinned host (cudaMallocHost,
// cudaHostAlloc mapped), managed memory touched by host and kernel with prefetch and advice, async
// copies, a stream-ordered pool allocation, and memory info.
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); return 1; } } while (0)

__global__ void inc(int *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] += 1;
}

int main(void)
{
    const int n = 1 << 20;
    size_t bytes = n * sizeof(int);
    size_t fr, tot;
    CK(cudaMemGetInfo(&fr, &tot));
    printf("mem free %zu total %zu\n", fr, tot);
    int *dev, *pinned, *mapped, *managed, *pooled;
    CK(cudaMalloc(&dev, bytes));
    CK(cudaMallocHost(&pinned, bytes));
    CK(cudaHostAlloc(&mapped, bytes, cudaHostAllocMapped));
    CK(cudaMallocManaged(&managed, bytes));
    memset(pinned, 0, bytes);
    for (int i = 0; i < n; i++)
        managed[i] = i;
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    CK(cudaMemcpyAsync(dev, pinned, bytes, cudaMemcpyHostToDevice, s));
    inc<<<(n + 255) / 256, 256, 0, s>>>(dev, n);
    CK(cudaMemcpyAsync(pinned, dev, bytes, cudaMemcpyDeviceToHost, s));
    int devid = 0;
    cudaMemLocation loc;
    loc.type = cudaMemLocationTypeDevice;
    loc.id = devid;
    CK(cudaMemAdvise(managed, bytes, cudaMemAdviseSetPreferredLocation, loc));
    CK(cudaMemPrefetchAsync(managed, bytes, loc, 0, s));
    inc<<<(n + 255) / 256, 256, 0, s>>>(managed, n);
    int *mapped_dev;
    CK(cudaHostGetDevicePointer(&mapped_dev, mapped, 0));
    inc<<<(n + 255) / 256, 256, 0, s>>>(mapped_dev, n);
    CK(cudaMallocAsync(&pooled, bytes, s));
    CK(cudaMemsetAsync(pooled, 0, bytes, s));
    CK(cudaFreeAsync(pooled, s));
    CK(cudaStreamSynchronize(s));
    printf("pinned[5]=%d managed[5]=%d (expect 1 6)\n", pinned[5], managed[5]);
    CK(cudaMemGetInfo(&fr, &tot));
    printf("mem free %zu total %zu\n", fr, tot);
    cudaStreamDestroy(s);
    cudaFree(managed);
    cudaFreeHost(mapped);
    cudaFreeHost(pinned);
    cudaFree(dev);
    return 0;
}
