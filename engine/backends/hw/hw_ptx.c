/*
 * The hardware backend's work kernel as PTX (the same text as work.ptx, which
 * `ptxas --gpu-name sm_90 work.ptx` checks), JIT-compiled by the driver for the
 * GPU at hand (Volta and later). Each thread runs `iters` rounds of 40
 * independent dependent-FMA chains: a fixed amount of arithmetic, so a block
 * preempted mid-way (CILP) resumes with exactly the work it had left, and its
 * 40 live accumulators (40+ registers x 1024 threads) allow one block per SM.
 * A block with at least 4 bytes of dynamic shared memory per thread stores
 * into it and reads it back, so the footprint is real memory.
 */
#include "hw_cuda.h"

#include <stdio.h>
#include <string.h>

const char hw_work_ptx[] =
    ".version 7.0\n"
    ".target sm_70\n"
    ".address_size 64\n"
    "\n"
    ".extern .shared .align 16 .b8 nvemu_dsmem[];\n"
    "\n"
    ".visible .entry nvemu_work(.param .u64 p_out, .param .u32 p_iters, .param .u32 p_smem)\n"
    "{\n"
    "    .reg .pred %p<4>;\n"
    "    .reg .b32 %r<12>;\n"
    "    .reg .f32 %a<40>;\n"
    "    .reg .f32 %s<3>;\n"
    "    .reg .b64 %rd<4>;\n"
    "    ld.param.u64 %rd0, [p_out];\n"
    "    ld.param.u32 %r0, [p_iters];\n"
    "    ld.param.u32 %r1, [p_smem];\n"
    "    mov.u32 %r2, %tid.x;\n"
    "    cvt.rn.f32.u32 %s0, %r2;\n"
    "    mul.rn.f32 %s0, %s0, 0f3A83126F;\n"
    "    add.rn.f32 %a0, %s0, 0f00000000;\n"
    "    add.rn.f32 %a1, %s0, 0f3C23D70A;\n"
    "    add.rn.f32 %a2, %s0, 0f3CA3D70A;\n"
    "    add.rn.f32 %a3, %s0, 0f3CF5C28F;\n"
    "    add.rn.f32 %a4, %s0, 0f3D23D70A;\n"
    "    add.rn.f32 %a5, %s0, 0f3D4CCCCD;\n"
    "    add.rn.f32 %a6, %s0, 0f3D75C28F;\n"
    "    add.rn.f32 %a7, %s0, 0f3D8F5C29;\n"
    "    add.rn.f32 %a8, %s0, 0f3DA3D70A;\n"
    "    add.rn.f32 %a9, %s0, 0f3DB851EC;\n"
    "    add.rn.f32 %a10, %s0, 0f3DCCCCCD;\n"
    "    add.rn.f32 %a11, %s0, 0f3DE147AE;\n"
    "    add.rn.f32 %a12, %s0, 0f3DF5C28F;\n"
    "    add.rn.f32 %a13, %s0, 0f3E051EB8;\n"
    "    add.rn.f32 %a14, %s0, 0f3E0F5C29;\n"
    "    add.rn.f32 %a15, %s0, 0f3E19999A;\n"
    "    add.rn.f32 %a16, %s0, 0f3E23D70A;\n"
    "    add.rn.f32 %a17, %s0, 0f3E2E147B;\n"
    "    add.rn.f32 %a18, %s0, 0f3E3851EC;\n"
    "    add.rn.f32 %a19, %s0, 0f3E428F5C;\n"
    "    add.rn.f32 %a20, %s0, 0f3E4CCCCD;\n"
    "    add.rn.f32 %a21, %s0, 0f3E570A3D;\n"
    "    add.rn.f32 %a22, %s0, 0f3E6147AE;\n"
    "    add.rn.f32 %a23, %s0, 0f3E6B851F;\n"
    "    add.rn.f32 %a24, %s0, 0f3E75C28F;\n"
    "    add.rn.f32 %a25, %s0, 0f3E800000;\n"
    "    add.rn.f32 %a26, %s0, 0f3E851EB8;\n"
    "    add.rn.f32 %a27, %s0, 0f3E8A3D71;\n"
    "    add.rn.f32 %a28, %s0, 0f3E8F5C29;\n"
    "    add.rn.f32 %a29, %s0, 0f3E947AE1;\n"
    "    add.rn.f32 %a30, %s0, 0f3E99999A;\n"
    "    add.rn.f32 %a31, %s0, 0f3E9EB852;\n"
    "    add.rn.f32 %a32, %s0, 0f3EA3D70A;\n"
    "    add.rn.f32 %a33, %s0, 0f3EA8F5C3;\n"
    "    add.rn.f32 %a34, %s0, 0f3EAE147B;\n"
    "    add.rn.f32 %a35, %s0, 0f3EB33333;\n"
    "    add.rn.f32 %a36, %s0, 0f3EB851EC;\n"
    "    add.rn.f32 %a37, %s0, 0f3EBD70A4;\n"
    "    add.rn.f32 %a38, %s0, 0f3EC28F5C;\n"
    "    add.rn.f32 %a39, %s0, 0f3EC7AE14;\n"
    "    mov.u32 %r3, 0;\n"
    "    setp.eq.u32 %p0, %r0, 0;\n"
    "    @%p0 bra DONE;\n"
    "LOOP:\n"
    "    fma.rn.f32 %a0, %a0, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a1, %a1, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a2, %a2, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a3, %a3, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a4, %a4, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a5, %a5, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a6, %a6, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a7, %a7, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a8, %a8, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a9, %a9, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a10, %a10, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a11, %a11, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a12, %a12, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a13, %a13, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a14, %a14, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a15, %a15, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a16, %a16, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a17, %a17, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a18, %a18, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a19, %a19, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a20, %a20, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a21, %a21, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a22, %a22, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a23, %a23, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a24, %a24, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a25, %a25, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a26, %a26, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a27, %a27, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a28, %a28, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a29, %a29, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a30, %a30, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a31, %a31, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a32, %a32, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a33, %a33, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a34, %a34, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a35, %a35, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a36, %a36, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a37, %a37, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a38, %a38, 0f3F800347, 0f33D6BF95;\n"
    "    fma.rn.f32 %a39, %a39, 0f3F800347, 0f33D6BF95;\n"
    "    add.u32 %r3, %r3, 1;\n"
    "    setp.lt.u32 %p1, %r3, %r0;\n"
    "    @%p1 bra LOOP;\n"
    "DONE:\n"
    "    mov.f32 %s1, %a0;\n"
    "    add.rn.f32 %s1, %s1, %a1;\n"
    "    add.rn.f32 %s1, %s1, %a2;\n"
    "    add.rn.f32 %s1, %s1, %a3;\n"
    "    add.rn.f32 %s1, %s1, %a4;\n"
    "    add.rn.f32 %s1, %s1, %a5;\n"
    "    add.rn.f32 %s1, %s1, %a6;\n"
    "    add.rn.f32 %s1, %s1, %a7;\n"
    "    add.rn.f32 %s1, %s1, %a8;\n"
    "    add.rn.f32 %s1, %s1, %a9;\n"
    "    add.rn.f32 %s1, %s1, %a10;\n"
    "    add.rn.f32 %s1, %s1, %a11;\n"
    "    add.rn.f32 %s1, %s1, %a12;\n"
    "    add.rn.f32 %s1, %s1, %a13;\n"
    "    add.rn.f32 %s1, %s1, %a14;\n"
    "    add.rn.f32 %s1, %s1, %a15;\n"
    "    add.rn.f32 %s1, %s1, %a16;\n"
    "    add.rn.f32 %s1, %s1, %a17;\n"
    "    add.rn.f32 %s1, %s1, %a18;\n"
    "    add.rn.f32 %s1, %s1, %a19;\n"
    "    add.rn.f32 %s1, %s1, %a20;\n"
    "    add.rn.f32 %s1, %s1, %a21;\n"
    "    add.rn.f32 %s1, %s1, %a22;\n"
    "    add.rn.f32 %s1, %s1, %a23;\n"
    "    add.rn.f32 %s1, %s1, %a24;\n"
    "    add.rn.f32 %s1, %s1, %a25;\n"
    "    add.rn.f32 %s1, %s1, %a26;\n"
    "    add.rn.f32 %s1, %s1, %a27;\n"
    "    add.rn.f32 %s1, %s1, %a28;\n"
    "    add.rn.f32 %s1, %s1, %a29;\n"
    "    add.rn.f32 %s1, %s1, %a30;\n"
    "    add.rn.f32 %s1, %s1, %a31;\n"
    "    add.rn.f32 %s1, %s1, %a32;\n"
    "    add.rn.f32 %s1, %s1, %a33;\n"
    "    add.rn.f32 %s1, %s1, %a34;\n"
    "    add.rn.f32 %s1, %s1, %a35;\n"
    "    add.rn.f32 %s1, %s1, %a36;\n"
    "    add.rn.f32 %s1, %s1, %a37;\n"
    "    add.rn.f32 %s1, %s1, %a38;\n"
    "    add.rn.f32 %s1, %s1, %a39;\n"
    "    shl.b32 %r4, %r2, 2;\n"
    "    add.u32 %r5, %r4, 4;\n"
    "    setp.gt.u32 %p2, %r5, %r1;\n"
    "    @%p2 bra STORE;\n"
    "    mov.u32 %r6, nvemu_dsmem;\n"
    "    add.u32 %r6, %r6, %r4;\n"
    "    st.volatile.shared.f32 [%r6], %s1;\n"
    "    ld.volatile.shared.f32 %s2, [%r6];\n"
    "    add.rn.f32 %s1, %s1, %s2;\n"
    "STORE:\n"
    "    mov.u32 %r7, %ctaid.x;\n"
    "    and.b32 %r7, %r7, 2047;\n"
    "    shl.b32 %r7, %r7, 10;\n"
    "    add.u32 %r7, %r7, %r2;\n"
    "    mul.wide.u32 %rd1, %r7, 4;\n"
    "    add.s64 %rd2, %rd0, %rd1;\n"
    "    st.global.f32 [%rd2], %s1;\n"
    "    ret;\n"
    "}\n";

/*
 * The same kernel with `chains` FMA chains instead of 40: its register count follows the chain count
 * (40 chains compile to 46 registers on sm_90), so a scenario's `regs:` picks the variant whose live
 * accumulators need about that many. The work per round grows with the chains; the calibration of each
 * shape measures it.
 */
int hw_work_ptx_chains(char *buf, size_t n, uint32_t chains)
{
    size_t o = 0;
#define EMIT(...)                                                                                            \
    do {                                                                                                     \
        int w_ = snprintf(buf + o, o < n ? n - o : 0, __VA_ARGS__);                                          \
        if (w_ < 0)                                                                                          \
            return -1;                                                                                       \
        o += (size_t)w_;                                                                                     \
    } while (0)
    if (chains < 1 || chains > HW_WORK_MAX_CHAINS)
        return -1;
    EMIT(".version 7.0\n.target sm_70\n.address_size 64\n\n.extern .shared .align 16 .b8 nvemu_dsmem[];\n\n");
    EMIT(".visible .entry nvemu_work(.param .u64 p_out, .param .u32 p_iters, .param .u32 p_smem)\n{\n");
    EMIT("    .reg .pred %%p<4>;\n    .reg .b32 %%r<12>;\n    .reg .f32 %%a<%u>;\n    .reg .f32 %%s<3>;\n", chains);
    EMIT("    .reg .b64 %%rd<4>;\n    ld.param.u64 %%rd0, [p_out];\n    ld.param.u32 %%r0, [p_iters];\n");
    EMIT("    ld.param.u32 %%r1, [p_smem];\n    mov.u32 %%r2, %%tid.x;\n    cvt.rn.f32.u32 %%s0, %%r2;\n");
    EMIT("    mul.rn.f32 %%s0, %%s0, 0f3A83126F;\n");
    for (uint32_t i = 0; i < chains; i++) {
        float c = 0.01f * (float)i;
        uint32_t bits;
        memcpy(&bits, &c, sizeof(bits));
        EMIT("    add.rn.f32 %%a%u, %%s0, 0f%08X;\n", i, bits);
    }
    EMIT("    mov.u32 %%r3, 0;\n    setp.eq.u32 %%p0, %%r0, 0;\n    @%%p0 bra DONE;\nLOOP:\n");
    for (uint32_t i = 0; i < chains; i++)
        EMIT("    fma.rn.f32 %%a%u, %%a%u, 0f3F800347, 0f33D6BF95;\n", i, i);
    EMIT("    add.u32 %%r3, %%r3, 1;\n    setp.lt.u32 %%p1, %%r3, %%r0;\n    @%%p1 bra LOOP;\nDONE:\n");
    EMIT("    mov.f32 %%s1, %%a0;\n");
    for (uint32_t i = 1; i < chains; i++)
        EMIT("    add.rn.f32 %%s1, %%s1, %%a%u;\n", i);
    EMIT("    shl.b32 %%r4, %%r2, 2;\n    add.u32 %%r5, %%r4, 4;\n    setp.gt.u32 %%p2, %%r5, %%r1;\n");
    EMIT("    @%%p2 bra STORE;\n    mov.u32 %%r6, nvemu_dsmem;\n    add.u32 %%r6, %%r6, %%r4;\n");
    EMIT("    st.volatile.shared.f32 [%%r6], %%s1;\n    ld.volatile.shared.f32 %%s2, [%%r6];\n");
    EMIT("    add.rn.f32 %%s1, %%s1, %%s2;\nSTORE:\n    mov.u32 %%r7, %%ctaid.x;\n    and.b32 %%r7, %%r7, 2047;\n");
    EMIT("    shl.b32 %%r7, %%r7, 10;\n    add.u32 %%r7, %%r7, %%r2;\n    mul.wide.u32 %%rd1, %%r7, 4;\n");
    EMIT("    add.s64 %%rd2, %%rd0, %%rd1;\n    st.global.f32 [%%rd2], %%s1;\n    ret;\n}\n");
#undef EMIT
    return o < n ? (int)o : -1;
}
