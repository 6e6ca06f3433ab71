// gemm: one cuBLAS SGEMM (1024x1024) and its check, the first thing a numerical library does on a GPU.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); return 1; } } while (0)

int main(void)
{
    const int n = 1024;
    size_t bytes = (size_t)n * n * sizeof(float);
    float *ha = (float *)malloc(bytes), *hc = (float *)malloc(bytes);
    for (int i = 0; i < n * n; i++)
        ha[i] = 1.0f;
    float *a, *b, *c;
    CK(cudaMalloc(&a, bytes));
    CK(cudaMalloc(&b, bytes));
    CK(cudaMalloc(&c, bytes));
    CK(cudaMemcpy(a, ha, bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b, ha, bytes, cudaMemcpyHostToDevice));
    cublasHandle_t h;
    cublasStatus_t st = cublasCreate(&h);
    if (st != CUBLAS_STATUS_SUCCESS) {
        printf("cublasCreate %d\n", (int)st);
        return 1;
    }
    const float one = 1.0f, zero = 0.0f;
    st = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(hc, c, bytes, cudaMemcpyDeviceToHost));
    printf("sgemm %d c[0]=%.1f c[last]=%.1f (expect %d)\n", (int)st, hc[0], hc[n * n - 1], n);
    cublasDestroy(h);
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    free(ha);
    free(hc);
    return 0;
}
