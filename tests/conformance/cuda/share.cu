// Two processes sharing the GPU: each creates its own context and runs the same work at the same
// time. Prints each one's elapsed time. Usage: share [BLOCKS]
#include <sys/wait.h>
#include <unistd.h>
#include <chrono>
#include "common.cuh"

static int child(int id, unsigned blocks)
{
    CK(cudaFree(0));
    float *out;
    CK(cudaMalloc(&out, 2048 * WORK_THREADS * sizeof(float)));
    CK(cudaDeviceSynchronize());
    auto t0 = std::chrono::steady_clock::now();
    work_kernel<<<blocks, WORK_THREADS>>>(WORK_ITERS, out);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    printf("share: process %d pid %d elapsed_ms=%.1f\n", id, (int)getpid(), ms);
    CK(cudaFree(out));
    return 0;
}

int main(int argc, char **argv)
{
    unsigned blocks = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 0) : 1000000u;
    pid_t p[2];
    for (int i = 0; i < 2; i++) {
        fflush(stdout);
        p[i] = fork();
        if (p[i] == 0)
            return child(i, blocks);
    }
    int rc = 0;
    for (int i = 0; i < 2; i++) {
        int st;
        waitpid(p[i], &st, 0);
        rc |= !WIFEXITED(st) || WEXITSTATUS(st);
    }
    return rc;
}
