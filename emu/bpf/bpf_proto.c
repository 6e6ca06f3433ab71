/*
 * The kernel's prototypes of the helpers a policy may call (struct bpf_func_proto in Linux
 * kernel/bpf/helpers.c, kernel/trace/bpf_trace.c, kernel/bpf/ringbuf.c, kernel/bpf/bpf_iter.c):
 * how many arguments each declares, of which type, and whether it is GPL-only. The verifier
 * checks a call against these and nothing else: a register beyond the declared arguments may
 * hold anything.
 */
#include "bpf/bpf_vm.h"

#include <linux/bpf.h>

#define A(...) {__VA_ARGS__}

static const struct bpf_helper_proto protos[] = {
    [BPF_FUNC_map_lookup_elem] = {2, false, A(BPF_HARG_MAP, BPF_HARG_MAP_KEY)},
    [BPF_FUNC_map_update_elem] = {4, false, A(BPF_HARG_MAP, BPF_HARG_MAP_KEY, BPF_HARG_MAP_VALUE, BPF_HARG_ANY)},
    [BPF_FUNC_map_delete_elem] = {2, false, A(BPF_HARG_MAP, BPF_HARG_MAP_KEY)},
    [BPF_FUNC_probe_read] = {3, true, A(BPF_HARG_MEM_UNINIT, BPF_HARG_SIZE_OR_ZERO, BPF_HARG_ANY)},
    [BPF_FUNC_ktime_get_ns] = {0, false, A(0)},
    /* the format arguments r3..r5 are not part of the prototype: the verifier does not look at them */
    [BPF_FUNC_trace_printk] = {2, true, A(BPF_HARG_MEM, BPF_HARG_SIZE)},
    [BPF_FUNC_get_prandom_u32] = {0, false, A(0)},
    [BPF_FUNC_get_smp_processor_id] = {0, false, A(0)},
    [BPF_FUNC_get_current_pid_tgid] = {0, false, A(0)},
    [BPF_FUNC_get_current_uid_gid] = {0, false, A(0)},
    [BPF_FUNC_get_current_comm] = {2, false, A(BPF_HARG_MEM_UNINIT, BPF_HARG_SIZE)},
    [BPF_FUNC_probe_read_str] = {3, true, A(BPF_HARG_MEM_UNINIT, BPF_HARG_SIZE_OR_ZERO, BPF_HARG_ANY)},
    [BPF_FUNC_probe_read_user] = {3, true, A(BPF_HARG_MEM_UNINIT, BPF_HARG_SIZE_OR_ZERO, BPF_HARG_ANY)},
    [BPF_FUNC_probe_read_kernel] = {3, true, A(BPF_HARG_MEM_UNINIT, BPF_HARG_SIZE_OR_ZERO, BPF_HARG_ANY)},
    [BPF_FUNC_probe_read_user_str] = {3, true, A(BPF_HARG_MEM_UNINIT, BPF_HARG_SIZE_OR_ZERO, BPF_HARG_ANY)},
    [BPF_FUNC_probe_read_kernel_str] = {3, true, A(BPF_HARG_MEM_UNINIT, BPF_HARG_SIZE_OR_ZERO, BPF_HARG_ANY)},
    [BPF_FUNC_ktime_get_boot_ns] = {0, false, A(0)},
    [BPF_FUNC_ringbuf_output] = {4, false, A(BPF_HARG_MAP, BPF_HARG_MEM, BPF_HARG_SIZE_OR_ZERO, BPF_HARG_ANY)},
    [BPF_FUNC_ringbuf_reserve] = {3, false, A(BPF_HARG_MAP, BPF_HARG_ANY, BPF_HARG_ANY)},
    [BPF_FUNC_ringbuf_submit] = {2, false, A(BPF_HARG_RINGBUF_REC, BPF_HARG_ANY)},
    [BPF_FUNC_ringbuf_discard] = {2, false, A(BPF_HARG_RINGBUF_REC, BPF_HARG_ANY)},
    [BPF_FUNC_ringbuf_query] = {2, false, A(BPF_HARG_MAP, BPF_HARG_ANY)},
    [BPF_FUNC_ktime_get_coarse_ns] = {0, false, A(0)},
    [BPF_FUNC_snprintf] = {5, true, A(BPF_HARG_MEM_UNINIT, BPF_HARG_SIZE_OR_ZERO, BPF_HARG_MEM, BPF_HARG_MEM,
                                      BPF_HARG_SIZE_OR_ZERO)},
    [BPF_FUNC_trace_vprintk] = {4, true, A(BPF_HARG_MEM, BPF_HARG_SIZE, BPF_HARG_MEM, BPF_HARG_SIZE_OR_ZERO)},
    [BPF_FUNC_loop] = {4, false, A(BPF_HARG_ANY, BPF_HARG_FUNC, BPF_HARG_ANY, BPF_HARG_ANY)},
    [BPF_FUNC_map_lookup_percpu_elem] = {3, false, A(BPF_HARG_MAP, BPF_HARG_MAP_KEY, BPF_HARG_ANY)},
    [BPF_FUNC_ktime_get_tai_ns] = {0, false, A(0)},
};
#define N_PROTOS (int32_t)(sizeof protos / sizeof protos[0])

const struct bpf_helper_proto *bpf_helper_proto(int32_t id)
{
    return id > 0 && id < N_PROTOS && bpf_helper_supported(id) ? &protos[id] : NULL;
}
