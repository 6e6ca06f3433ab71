// Two streams with the highest and lowest priority, one kernel each (as in the shared H200 trace).
#include "common.cuh"

int main()
{
    int lo, hi;
    CK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    CK(cudaFree(0));
    cudaStream_t sh, sl;
    CK(cudaStreamCreateWithPriority(&sh, cudaStreamNonBlocking, hi));
    CK(cudaStreamCreateWithPriority(&sl, cudaStreamNonBlocking, lo));
    float *out;
    CK(cudaMalloc(&out, 2048 * WORK_THREADS * sizeof(float)));
    work_kernel<<<100000, WORK_THREADS, 0, sl>>>(WORK_ITERS, out);
    work_kernel<<<10000, WORK_THREADS, 0, sh>>>(WORK_ITERS, out);
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(sh));
    CK(cudaStreamSynchronize(sl));
    CK(cudaFree(out));
    printf("streams: priority range %d..%d ok\n", lo, hi);
    return 0;
}
