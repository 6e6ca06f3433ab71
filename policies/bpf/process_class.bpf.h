/*
 * What the reference objects share: a channel group's class from its creator's process name, in the
 * `process_class` map the loader fills before attaching (name -> CLS_LC or CLS_BE), and the key under
 * which an object remembers a channel group (grpIDs are per runlist: GR and copy groups can share one).
 */
#ifndef NV_GPU_PROCESS_CLASS_BPF_H
#define NV_GPU_PROCESS_CLASS_BPF_H

#include "nv_gpu_sched.bpf.h"

enum { CLS_NONE = 0, CLS_LC = 1, CLS_BE = 2 };

struct task_key {
    __u32 runlist_id;
    __u32 pad;
    __u64 tsg_id;
};

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, 64);
    __type(key, char[16]);
    __type(value, __u32);
} process_class SEC(".maps");

/* The class of the current process (the ioctl caller), or `unlisted` when the map does not name it. */
static __always_inline __u32 current_class(__u32 unlisted)
{
    char comm[16] = {};
    bpf_get_current_comm(comm, sizeof comm);
    __u32 *c = bpf_map_lookup_elem(&process_class, comm);
    return c ? *c : unlisted;
}

#endif
