// Context creation only: what libcuda issues to build its primary context.
#include "common.cuh"

int main()
{
    CK(cudaFree(0));
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    printf("ctx: %s sm_%d%d SMs=%d\n", p.name, p.major, p.minor, p.multiProcessorCount);
    return 0;
}
