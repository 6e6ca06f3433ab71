// peer_ipc: peer-access and IPC queries, then a second process opening this one's memory and event
// through IPC handles (the child is this program re-executed with the handles in hex).
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
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

static int child(const char *mh, const char *eh)
{
    cudaIpcMemHandle_t m;
    cudaIpcEventHandle_t e;
    from_hex(mh, &m, sizeof m);
    from_hex(eh, &e, sizeof e);
    void *p;
    cudaEvent_t ev;
    CK(cudaIpcOpenMemHandle(&p, m, cudaIpcMemLazyEnablePeerAccess));
    CK(cudaIpcOpenEventHandle(&ev, e));
    int v = 0;
    CK(cudaMemcpy(&v, p, sizeof v, cudaMemcpyDeviceToHost));
    CK(cudaEventSynchronize(ev));
    printf("child read %d (expect 42)\n", v);
    CK(cudaIpcCloseMemHandle(p));
    CK(cudaEventDestroy(ev));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3)
        return child(argv[1], argv[2]);
    int n = 0;
    CK(cudaGetDeviceCount(&n));
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            int can = -1, perf = -1;
            if (a != b)
                CK(cudaDeviceCanAccessPeer(&can, a, b));
            cudaDeviceGetP2PAttribute(&perf, cudaDevP2PAttrPerformanceRank, a, b);
            printf("peer %d->%d can %d rank %d\n", a, b, can, perf);
        }
    int v;
    CK(cudaDeviceGetAttribute(&v, cudaDevAttrIpcEventSupport, 0));
    printf("ipc event support %d\n", v);
    int *d;
    CK(cudaMalloc(&d, 1 << 21));
    int val = 42;
    CK(cudaMemcpy(d, &val, sizeof val, cudaMemcpyHostToDevice));
    cudaEvent_t ev;
    CK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming | cudaEventInterprocess));
    CK(cudaEventRecord(ev, 0));
    cudaIpcMemHandle_t mh;
    cudaIpcEventHandle_t eh;
    CK(cudaIpcGetMemHandle(&mh, d));
    CK(cudaIpcGetEventHandle(&eh, ev));
    char ms[2 * sizeof mh + 1], es[2 * sizeof eh + 1];
    to_hex(&mh, sizeof mh, ms);
    to_hex(&eh, sizeof eh, es);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        execl("/proc/self/exe", argv[0], ms, es, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    printf("child status %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    cudaEventDestroy(ev);
    cudaFree(d);
    return 0;
}
