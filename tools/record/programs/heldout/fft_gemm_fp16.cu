// fft_gemm_fp16: cuFFT (a 1-D complex transform, forward and inverse) and a cuBLAS half-precision
// tensor-op product (cublasGemmEx), the start-up and work of a numerical library other than plain SGEMM.
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cufft.h>
#include <stdio.h>
#include <stdlib.h>

#define CK(x) do { int e_ = (int)(x); if (e_ != 0) { printf("%s: error %d\n", #x, e_); return 1; } } while (0)

int main(void)
{
    const int n = 1 << 16, m = 512;
    cufftComplex *h = (cufftComplex *)malloc(sizeof(cufftComplex) * n), *d;
    for (int i = 0; i < n; i++) { h[i].x = (float)(i % 7); h[i].y = 0.0f; }
    CK(cudaMalloc(&d, sizeof(cufftComplex) * n));
    CK(cudaMemcpy(d, h, sizeof(cufftComplex) * n, cudaMemcpyHostToDevice));
    cufftHandle plan;
    CK(cufftPlan1d(&plan, n, CUFFT_C2C, 1));
    CK(cufftExecC2C(plan, d, d, CUFFT_FORWARD));
    CK(cufftExecC2C(plan, d, d, CUFFT_INVERSE));
    CK(cudaMemcpy(h, d, sizeof(cufftComplex) * n, cudaMemcpyDeviceToHost));
    printf("fft round trip x[3] = %.1f (expect %.1f)\n", h[3].x / n, 3.0);
    cufftDestroy(plan);

    size_t bytes = (size_t)m * m * sizeof(__half);
    __half *ha = (__half *)malloc(bytes), *a, *c;
    for (int i = 0; i < m * m; i++) ha[i] = __float2half(1.0f);
    CK(cudaMalloc(&a, bytes));
    CK(cudaMalloc(&c, bytes));
    CK(cudaMemcpy(a, ha, bytes, cudaMemcpyHostToDevice));
    cublasHandle_t hb;
    CK(cublasCreate(&hb));
    float one = 1.0f, zero = 0.0f;
    CK(cublasGemmEx(hb, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &one, a, CUDA_R_16F, m, a, CUDA_R_16F, m, &zero, c,
                    CUDA_R_16F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    CK(cudaMemcpy(ha, c, bytes, cudaMemcpyDeviceToHost));
    printf("gemm fp16 c[0] = %.1f (expect %d)\n", __half2float(ha[0]), m);
    cublasDestroy(hb);
    cudaFree(a); cudaFree(c); cudaFree(d);
    free(h); free(ha);
    return 0;
}
