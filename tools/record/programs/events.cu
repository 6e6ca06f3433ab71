// events: stream priorities (range, one stream per end of it), events with timing, a cross-stream
// wait and event queries, as a scheduler-aware application uses them.
#include <cuda_runtime.h>
#include <stdio.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); return 1; } } while (0)

__global__ void spin(unsigned long long cycles, int *out)
{
    unsigned long long t0 = clock64();
    while (clock64() - t0 < cycles)
        ;
    if (threadIdx.x == 0)
        atomicAdd(out, 1);
}

int main(void)
{
    int lo, hi;
    CK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    printf("priority range least %d greatest %d\n", lo, hi);
    cudaStream_t s_hi, s_lo, s_def;
    CK(cudaStreamCreateWithPriority(&s_hi, cudaStreamNonBlocking, hi));
    CK(cudaStreamCreateWithPriority(&s_lo, cudaStreamNonBlocking, lo));
    CK(cudaStreamCreate(&s_def));
    int *d;
    CK(cudaMalloc(&d, sizeof(int)));
    CK(cudaMemset(d, 0, sizeof(int)));
    cudaEvent_t e0, e1, e2, sync_ev;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    CK(cudaEventCreate(&e2));
    CK(cudaEventCreateWithFlags(&sync_ev, cudaEventBlockingSync | cudaEventDisableTiming));
    CK(cudaEventRecord(e0, s_lo));
    spin<<<8, 64, 0, s_lo>>>(2000000, d);
    CK(cudaEventRecord(e1, s_lo));
    CK(cudaStreamWaitEvent(s_hi, e1, 0));
    spin<<<8, 64, 0, s_hi>>>(1000000, d);
    CK(cudaEventRecord(e2, s_hi));
    CK(cudaEventRecord(sync_ev, s_hi));
    printf("query before sync %d\n", (int)cudaEventQuery(e2));
    CK(cudaEventSynchronize(sync_ev));
    float ms01, ms12;
    CK(cudaEventElapsedTime(&ms01, e0, e1));
    CK(cudaEventElapsedTime(&ms12, e1, e2));
    spin<<<1, 32, 0, s_def>>>(1000, d);
    CK(cudaStreamSynchronize(s_def));
    int h = 0;
    CK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    int prio;
    CK(cudaStreamGetPriority(s_hi, &prio));
    printf("lo kernel %.3f ms, hi kernel %.3f ms, hi stream priority %d, blocks %d (expect 17)\n", ms01, ms12, prio, h);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaEventDestroy(e2);
    cudaEventDestroy(sync_ev);
    cudaStreamDestroy(s_hi);
    cudaStreamDestroy(s_lo);
    cudaStreamDestroy(s_def);
    cudaFree(d);
    return 0;
}
