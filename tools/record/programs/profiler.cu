// profiler: what a profiling tool does at start-up through CUPTI: activity records for kernels and
// copies, the profiler's timestamp, and a flush after one kernel and one copy.
#include <cuda_runtime.h>
#include <cupti.h>
#include <stdio.h>
#include <stdlib.h>

static size_t records;

static void CUPTIAPI buffer_requested(uint8_t **buf, size_t *size, size_t *max_records)
{
    *size = 1 << 20;
    *buf = (uint8_t *)aligned_alloc(8, *size);
    *max_records = 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size, size_t valid)
{
    (void)ctx;
    (void)stream;
    (void)size;
    CUpti_Activity *rec = NULL;
    while (cuptiActivityGetNextRecord(buf, valid, &rec) == CUPTI_SUCCESS)
        records++;
    free(buf);
}

__global__ void k(int *p)
{
    p[threadIdx.x] = threadIdx.x;
}

int main(void)
{
    printf("register %d\n", (int)cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
    printf("enable kernel %d memcpy %d\n", (int)cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL),
           (int)cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY));
    uint64_t ts = 0;
    printf("timestamp %d %llu\n", (int)cuptiGetTimestamp(&ts), (unsigned long long)ts);
    int *d, h[32];
    if (cudaMalloc(&d, sizeof h) != cudaSuccess)
        return 1;
    k<<<1, 32>>>(d);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    cudaDeviceSynchronize();
    printf("flush %d\n", (int)cuptiActivityFlushAll(1));
    printf("records %zu h[31]=%d\n", records, h[31]);
    cudaFree(d);
    return 0;
}
