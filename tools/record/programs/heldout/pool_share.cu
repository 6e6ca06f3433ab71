// pool_share: a stream-ordered memory pool made shareable through a POSIX file descriptor
// (cudaMemPoolCreate with cudaMemHandleTypePosixFileDescriptor), an allocation from it, the pool exported to
// an fd that a second process (this program re-executed, inheriting the fd) imports, then the pointer
// imported there and read back. Both processes also use the device's default pool (cudaMallocAsync).
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); return 1; } } while (0)

static void to_hex(const void *p, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", ((const unsigned char *)p)[i]);
}

static void from_hex(const char *s, void *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        sscanf(s + 2 * i, "%2x", &v);
        ((unsigned char *)p)[i] = (unsigned char)v;
    }
}

static int child(int fd, const char *hex)
{
    cudaMemPool_t pool;
    cudaMemPoolPtrExportData ed;
    from_hex(hex, &ed, sizeof ed);
    CK(cudaMemPoolImportFromShareableHandle(&pool, (void *)(long)fd, cudaMemHandleTypePosixFileDescriptor, 0));
    cudaMemAccessDesc acc = {{cudaMemLocationTypeDevice, 0}, cudaMemAccessFlagsProtReadWrite};
    /* the pool's own device may already have access; the driver's answer is printed, not judged */
    printf("set access: %s\n", cudaGetErrorString(cudaMemPoolSetAccess(pool, &acc, 1)));
    int *p, v = 0, *tmp;
    CK(cudaMemPoolImportPointer((void **)&p, pool, &ed));
    CK(cudaMemcpy(&v, p, sizeof v, cudaMemcpyDeviceToHost));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    CK(cudaMallocAsync((void **)&tmp, 1 << 20, s));
    CK(cudaFreeAsync(tmp, s));
    CK(cudaStreamSynchronize(s));
    CK(cudaFree(p));
    printf("child read %d through the imported pool\n", v);
    return v == 1234 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 3)
        return child(atoi(argv[1]), argv[2]);
    cudaStream_t s;
    CK(cudaSetDevice(0));
    CK(cudaStreamCreate(&s));
    cudaMemPoolProps pp;
    memset(&pp, 0, sizeof pp);
    pp.allocType = cudaMemAllocationTypePinned;
    pp.handleTypes = cudaMemHandleTypePosixFileDescriptor;
    pp.location.type = cudaMemLocationTypeDevice;
    pp.location.id = 0;
    cudaMemPool_t pool;
    CK(cudaMemPoolCreate(&pool, &pp));
    int *p, *q, v = 1234;
    CK(cudaMallocFromPoolAsync((void **)&p, 1 << 21, pool, s));
    CK(cudaMemcpyAsync(p, &v, sizeof v, cudaMemcpyHostToDevice, s));
    CK(cudaMallocAsync((void **)&q, 4 << 20, s));
    CK(cudaMemsetAsync(q, 0, 4 << 20, s));
    CK(cudaFreeAsync(q, s));
    CK(cudaStreamSynchronize(s));
    int fd = -1;
    CK(cudaMemPoolExportToShareableHandle(&fd, pool, cudaMemHandleTypePosixFileDescriptor, 0));
    cudaMemPoolPtrExportData ed;
    CK(cudaMemPoolExportPointer(&ed, p));
    char hex[2 * sizeof ed + 1], fds[16];
    to_hex(&ed, sizeof ed, hex);
    int cfd = fcntl(fd, F_DUPFD, 100);  /* without close-on-exec: the child inherits it */
    snprintf(fds, sizeof fds, "%d", cfd);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        execl("/proc/self/exe", argv[0], fds, hex, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    CK(cudaFreeAsync(p, s));
    CK(cudaStreamSynchronize(s));
    CK(cudaMemPoolTrimTo(pool, 0));
    CK(cudaMemPoolDestroy(pool));
    close(cfd);
    close(fd);
    printf("parent: child exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
