/*
 * Unit tests of kernel shapes in the FIFO model (fifo.h): resident blocks per SM from threads, registers and
 * shared memory; waves; the save of an SM's resident blocks' shared memory (padding included), and its restore
 * before the resumed group's slice; the restore a block's own threads do of their shared memory, each warp its
 * share and the SM all of it; the timeslice tick.
 * Each fails on the model that knew only shared_kb per block and one block per SM; the SM's restore path also on
 * the model whose restore knew only the bytes per thread.
 */
#include "fifo_test_util.h"

/* H200's SM limits (emu/profiles/h200.yaml) over the test profile. */
static void shape_profile(struct profile *p)
{
    test_profile(p);
    p->timing.sm_threads = 2048;
    p->timing.sm_regs = 65536;
    p->timing.sm_blocks = 32;
    p->timing.sm_shared_kb = 228;
    p->timing.kernel_regs = 46;
}

static void occupancy_follows_the_kernels_shape(void **state)
{
    (void)state;
    struct profile p;
    shape_profile(&p);
    uint32_t smem;
    struct fifo_kernel k = {.blocks = 1};
    assert_int_equal(fifo_kernel_occupancy(&p, &k, &smem), 1); /* the default shape */
    k = (struct fifo_kernel){.threads = 1024};
    assert_int_equal(fifo_kernel_occupancy(&p, &k, &smem), 1); /* 32 warps x 1536 registers: one fits 64 Ki */
    k = (struct fifo_kernel){.threads = 32};
    assert_int_equal(fifo_kernel_occupancy(&p, &k, &smem), 32); /* the block limit */
    k = (struct fifo_kernel){.threads = 256};
    assert_int_equal(fifo_kernel_occupancy(&p, &k, &smem), 5); /* registers: 65536 / (8 x 1536) */
    k = (struct fifo_kernel){.threads = 256, .regs = 128};
    assert_int_equal(fifo_kernel_occupancy(&p, &k, &smem), 2);
    k = (struct fifo_kernel){.threads = 128, .shared_kb = 100};
    assert_int_equal(fifo_kernel_occupancy(&p, &k, &smem), 2); /* 228 KiB / (100 + 1 reserved) */
    assert_int_equal(smem, 100 * 1024);
    /* fewer blocks than fit are held with shared memory, as --hw does: the SM's / (blocks + 1) */
    k = (struct fifo_kernel){.threads = 32, .blocks_per_sm = 1};
    assert_int_equal(fifo_kernel_occupancy(&p, &k, &smem), 1);
    assert_int_equal(smem, 228 * 1024 / 2);
    /* a profile without SM limits keeps one block per SM */
    test_profile(&p);
    k = (struct fifo_kernel){.threads = 32};
    assert_int_equal(fifo_kernel_occupancy(&p, &k, &smem), 1);
}

/*
 * Group A (CTA preemption) runs a 3.2 ms kernel of 32 x TEST_SM one-warp blocks: 32 resident per SM, one wave;
 * B queues a 50 us kernel at 100 us. A's slice expires at 1024 us and the preemption waits for the end of the
 * wave, the kernel's end at 3225 us (one block per SM would have made 32 waves of 100 us: done at 1025 us).
 */
static void test_waves_follow_occupancy(void **state)
{
    (void)state;
    struct tenv e;
    shape_profile(&e.p);
    tenv_init_profile(&e, 1, NULL);
    struct fifo_channel *a, *b;
    mk_tsg(&e, 1, &a);
    mk_tsg(&e, 1, &b);
    assert_int_equal(fifo_channel_set_preempt_mode(a, FIFO_PREEMPT_CTA), NV_OK);
    uint64_t done[2] = {0};
    struct fifo_kernel k = {.blocks = 32 * TEST_SM, .total_ns = 3200 * US, .threads = 32, .tag = 0};
    assert_int_equal(fifo_submit(a, &k, done_by_tag, done, NULL), NV_OK);
    sim_run_until(e.s, 100 * US);
    k = (struct fifo_kernel){.blocks = TEST_SM, .block_ns = 50 * US, .tag = 1};
    assert_int_equal(fifo_submit(b, &k, done_by_tag, done, NULL), NV_OK);
    sim_run_until(e.s, 30 * MS);
    tenv_fini(&e);
    assert_int_equal(done[0], 3225 * US);
    assert_int_equal(done[1], 3225 * US + TEST_CTXSW + 50 * US);
}

/* B's 50 us kernel done after A (CILP, a 10 ms kernel of the shape) is saved at its 1024 us expiry. */
static uint64_t after_save(uint32_t threads, uint32_t shared_kb, uint32_t blocks_per_sm)
{
    struct tenv e;
    shape_profile(&e.p);
    e.p.timing.save_ns_per_kb = 1 * US;
    tenv_init_profile(&e, 1, NULL);
    struct fifo_channel *a, *b;
    mk_tsg(&e, 1, &a);
    mk_tsg(&e, 1, &b);
    assert_int_equal(fifo_channel_set_preempt_mode(a, FIFO_PREEMPT_CILP), NV_OK);
    uint64_t done[2] = {0};
    struct fifo_kernel k = {.blocks = TEST_SM * (blocks_per_sm ? blocks_per_sm : 1), .total_ns = 10 * MS,
                            .threads = threads, .shared_kb = shared_kb, .blocks_per_sm = blocks_per_sm};
    assert_int_equal(fifo_submit(a, &k, NULL, NULL, NULL), NV_OK);
    sim_run_until(e.s, 100 * US);
    k = (struct fifo_kernel){.blocks = TEST_SM, .block_ns = 50 * US, .tag = 1};
    assert_int_equal(fifo_submit(b, &k, done_by_tag, done, NULL), NV_OK);
    sim_run_until(e.s, 3 * MS);
    tenv_fini(&e);
    return done[1] - (1024 * US + TEST_CILP + TEST_CTXSW + 50 * US);
}

/* The save stores the shared memory of all of an SM's resident blocks, the padding that holds their number too. */
static void test_save_counts_resident_blocks(void **state)
{
    (void)state;
    assert_int_equal(after_save(0, 100, 0), 100 * US);     /* the default shape: one block per SM */
    assert_int_equal(after_save(128, 100, 2), 200 * US);   /* two resident blocks of 100 KiB */
    assert_int_equal(after_save(32, 0, 1), 114 * US);      /* one one-warp block held by 114 KiB of padding */
}

/*
 * A cut kernel's shared memory comes back when its group resumes, before its slice (timing.restore_per_kb, here 1 us
 * per KiB of 100 KiB): B, which takes the engine at A's 1024 us expiry, waits for A's 30 us save alone (its 50 us
 * kernel done at 1024 + 30 + 25 + 50 = 1129 us); A then takes 100 us more to come back, and its slice, with B queued
 * again, expires 1024 us after that restore (2253 us). The model that charged the shared memory to A's save
 * finished B's kernel 100 us later; the one that restored it inside A's slice ended that slice 100 us early.
 */
static void shared_memory_restored_before_the_resumed_slice(void **state)
{
    (void)state;
    struct tenv e;
    shape_profile(&e.p);
    e.p.timing.restore_ns_per_kb = 1 * US;
    tenv_init_profile(&e, 1, NULL);
    struct fifo_channel *a, *b;
    struct fifo_tsg *ta = mk_tsg(&e, 1, &a);
    mk_tsg(&e, 1, &b);
    assert_int_equal(fifo_channel_set_preempt_mode(a, FIFO_PREEMPT_CILP), NV_OK);
    uint64_t done[2] = {0};
    struct fifo_kernel k = {.blocks = TEST_SM, .total_ns = 10 * MS, .shared_kb = 100};
    assert_int_equal(fifo_submit(a, &k, NULL, NULL, NULL), NV_OK);
    sim_run_until(e.s, 100 * US);
    run_kernel(b, 50 * US, 1, done);
    sim_run_until(e.s, 1500 * US);
    submit(b, TEST_SM, 1 * MS);
    sim_run_until(e.s, 3 * MS);
    assert_int_equal(done[1], 1129 * US);
    const struct sim_rec *r = find_rec(e.s, SIM_REC_PREEMPT_REQ, fifo_tsg_hw_id(ta), 1);
    assert_non_null(r);
    assert_int_equal(r->t, 2253 * US);
    tenv_fini(&e);
}

/* The restore's three values: per KiB each thread copies, per KiB of the SM's resident blocks, hidden bytes/thread. */
struct restore {
    uint64_t per_thread_kb, per_sm_kb;
    uint32_t free_bytes;
};

/* When A's 2 ms kernel of the shape completes: saved at 1024 us, B's 50 us kernel, A back with its restore. */
static uint64_t a_done_with(struct restore r, uint32_t threads, uint32_t shared_kb)
{
    struct tenv e;
    shape_profile(&e.p);
    e.p.timing.restore_ns_per_thread_kb = r.per_thread_kb;
    e.p.timing.restore_ns_per_sm_kb = r.per_sm_kb;
    e.p.timing.restore_thread_free_bytes = r.free_bytes;
    tenv_init_profile(&e, 1, NULL);
    struct fifo_channel *a, *b;
    mk_tsg(&e, 1, &a);
    mk_tsg(&e, 1, &b);
    assert_int_equal(fifo_channel_set_preempt_mode(a, FIFO_PREEMPT_CILP), NV_OK);
    uint64_t done[2] = {0};
    struct fifo_kernel k = {.blocks = TEST_SM, .total_ns = 2 * MS, .threads = threads, .shared_kb = shared_kb,
                            .blocks_per_sm = 1, .tag = 0};
    assert_int_equal(fifo_submit(a, &k, done_by_tag, done, NULL), NV_OK);
    sim_run_until(e.s, 100 * US);
    k = (struct fifo_kernel){.blocks = TEST_SM, .block_ns = 50 * US, .tag = 1};
    assert_int_equal(fifo_submit(b, &k, done_by_tag, done, NULL), NV_OK);
    sim_run_until(e.s, 10 * MS);
    tenv_fini(&e);
    return done[0];
}

static uint64_t a_done(uint32_t threads, uint32_t shared_kb)
{
    return a_done_with((struct restore){.per_thread_kb = 30 * US, .free_bytes = 1280}, threads, shared_kb);
}

/*
 * A block's own threads restore its shared memory: 200 KiB over 32 threads is 6400 bytes each, 5120 beyond the
 * free 1280, 150 us at 30 us per KiB; over 1024 threads 200 bytes each, nothing.
 */
static void test_restore_by_block_threads(void **state)
{
    (void)state;
    uint64_t wide = a_done(1024, 200), warp = a_done(32, 200);
    assert_int_equal(wide, TEST_CTXSW + 2 * MS + TEST_CILP + TEST_CTXSW + 50 * US + TEST_CTXSW);
    assert_int_equal(warp - wide, 150 * US);
}

/*
 * The SM moves all of its resident blocks' shared memory through one path besides each warp's own copy
 * (emu/profiles/h200.yaml: 26 us per KiB per thread, 0.2 us per KiB of the SM, 2304 bytes per thread hidden): a
 * 64-thread block of 200 KiB and a 48-thread block of 150 KiB copy the same 3200 bytes per thread, but the first
 * moves 50 KiB more through the SM, 10 us; one warp with 200 KiB loses 26 x 4096 / 1024 + 40 = 144 us; 1024
 * threads with 200 KiB (5.1 us + 40 us) stay within the hidden 58.5 us. The per-thread model gave the first two
 * the same loss.
 */
static void test_restore_sm_path_counts_the_sm_shared_memory(void **state)
{
    (void)state;
    struct restore h200 = {.per_thread_kb = 26 * US, .per_sm_kb = 200, .free_bytes = 2304};
    uint64_t wide = a_done_with(h200, 1024, 200);
    assert_int_equal(wide, TEST_CTXSW + 2 * MS + TEST_CILP + TEST_CTXSW + 50 * US + TEST_CTXSW);
    assert_int_equal(a_done_with(h200, 32, 200) - wide, 144 * US);
    assert_int_equal(a_done_with(h200, 64, 200) - a_done_with(h200, 48, 150), 10 * US);
}

/* A timeslice's microseconds last timing.timeslice_tick_ns each (H200: 1024 ns). */
static void timeslice_microseconds_last_the_profiles_tick(void **state)
{
    (void)state;
    struct profile p;
    test_profile(&p);
    assert_int_equal(fifo_effective_timeslice_ns(&p, 2048), 2048 * US);
    p.timing.timeslice_tick_ns = 1024;
    assert_int_equal(fifo_effective_timeslice_ns(&p, 2048), 2048 * 1024);
    assert_int_equal(fifo_effective_timeslice_ns(&p, 200), 200 * 1024);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(occupancy_follows_the_kernels_shape),
        cmocka_unit_test(test_waves_follow_occupancy),
        cmocka_unit_test(test_save_counts_resident_blocks),
        cmocka_unit_test(shared_memory_restored_before_the_resumed_slice),
        cmocka_unit_test(test_restore_by_block_threads),
        cmocka_unit_test(test_restore_sm_path_counts_the_sm_shared_memory),
        cmocka_unit_test(timeslice_microseconds_last_the_profiles_tick),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
