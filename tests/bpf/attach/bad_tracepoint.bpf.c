/* A tracepoint some documents name but the nvidia module never defined: refused as the kernel refuses it. */
#include "probe.bpf.h"

__u64 seen;

SEC("tracepoint/nvidia/nvidia_gpu_tsg_create")
int on_create(void *rec)
{
    seen++;
    return 0;
}

char LICENSE[] SEC("license") = "GPL";
