/*
 * libFuzzer target over the policy object loader: any bytes go through
 * bpf_obj_open_mem (ELF, BTF, .BTF.ext, maps, relocations, struct_ops
 * binding, ABI check, the args pass); an accepted object is then reported,
 * configured through the knob and map setters, and each bound callback is run
 * once on a zeroed ctx of its ABI size (no kfuncs: such calls fault), so what
 * the loader hands the interpreter is exercised too. The seed corpus is every
 * policy object and test fixture the build makes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/bpf_obj.h"
#include "bpf/bpf_policy.h"
#include "bpf/bpf_report.h"
#include "base/log.h"

static uint64_t fz_clock(void *ctx)
{
    (void)ctx;
    return 1000;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int quiet;
    if (!quiet) {
        nvemu_log_set_level(NVEMU_LOG_ERROR);
        quiet = 1;
    }
    char err[2048];
    struct bpf_obj *obj = bpf_obj_open_mem(data, size, "fuzz.bpf.o", bpf_nv_kfuncs, BPF_NV_KFUNC_COUNT, err,
                                           sizeof err);
    if (!obj)
        return 0;
    FILE *sink = fopen("/dev/null", "w");
    if (sink) {
        bpf_report_dump(obj, sink);
        bpf_report_disasm(obj, sink);
        fclose(sink);
    }
    if (obj->n_vars)
        bpf_obj_set_var(obj, obj->vars[0].name, "1", err, sizeof err);
    for (uint32_t i = 0; i < obj->n_maps; i++)
        if (obj->maps[i].kind == BPF_OBJ_MAP_USER)
            bpf_obj_map_set(obj, obj->maps[i].name, "1", "1", err, sizeof err);
    uint64_t prng = 1;
    struct bpf_vm_env env = {.clock_ns = fz_clock, .prng_state = &prng, .insn_budget = 20000};
    for (int m = 0; m < BPF_ABI_MEMBER_COUNT; m++) {
        if (obj->member_prog[m] < 0)
            continue;
        uint8_t ctx[64] = {0};
        uint64_t r0;
        struct bpf_fault fault;
        bpf_vm_run(&env, &obj->progs[obj->member_prog[m]].prog, ctx, bpf_abi_ctx_size((enum bpf_abi_member)m), true,
                   &r0, &fault);
    }
    bpf_obj_close(obj);
    return 0;
}
