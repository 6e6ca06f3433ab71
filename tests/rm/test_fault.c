/*
 * Fault injection (core/emulator.h): a lost GPU and controls answering
 * NV_ERR_BUSY_RETRY, through the real entry point (in-process fd table ->
 * nvemu_ioctl) on the libcuda-shaped object tree.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>

#include "abi/nv_ctrl_discovery.h"
#include "abi/nv_ctrl_fifo.h"
#include "core/emulator.h"
#include "fifo/fifo.h"
#include "rm/rm.h"
#include "rm_fifo_util.h"

#define HDEV 0x5C000002u
#define HSUB 0x5C000003u
#define HVA 0x5C000009u

struct fenv {
    struct tenv e;
    uint32_t hc;
    struct tgroup g;
};

static int setup(void **state)
{
    struct fenv *f = calloc(1, sizeof(*f));
    if (!f || tenv_init(&f->e, false) != 0)
        return -1;
    f->hc = tbase_va(&f->e, f->e.ctl, HDEV, HSUB, HVA);
    if (!f->hc || tgroup_build(&f->e, f->e.ctl, f->hc, HDEV, HVA, 0x100, 2, &f->g) != NV_OK)
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fenv *f = *state;
    tenv_fini(&f->e);
    free(f);
    return 0;
}

static NV_STATUS get_timeslice(struct fenv *f, uint64_t *us)
{
    NVA06C_CTRL_TIMESLICE_PARAMS p = {.timesliceUs = *us};
    NV_STATUS st = tctrl(&f->e, f->e.ctl, f->hc, f->g.htsg, NVA06C_CTRL_CMD_GET_TIMESLICE, &p, sizeof(p));
    *us = p.timesliceUs;
    return st;
}

static NV_STATUS set_timeslice(struct fenv *f, uint64_t us)
{
    NVA06C_CTRL_TIMESLICE_PARAMS p = {.timesliceUs = us};
    return tctrl(&f->e, f->e.ctl, f->hc, f->g.htsg, NVA06C_CTRL_CMD_SET_TIMESLICE, &p, sizeof(p));
}

static NV_STATUS attached_ids(struct fenv *f)
{
    NV0000_CTRL_GPU_GET_ATTACHED_IDS_PARAMS p;
    memset(&p, 0, sizeof(p));
    return tctrl(&f->e, f->e.ctl, f->hc, f->hc, NV0000_CTRL_CMD_GPU_GET_ATTACHED_IDS, &p, sizeof(p));
}

/* An event alloc on /dev/nvidiaN: the node rule lets it through to RM (syscall 0 + status). */
static int event_alloc_on(struct fenv *f, int fd)
{
    NVOS64_PARAMETERS a;
    memset(&a, 0, sizeof(a));
    a.hClass = NV01_EVENT_OS_EVENT;
    return tio(&f->e, fd, NV_ESC_RM_ALLOC, &a, sizeof(a));
}

static void gpu_lost_node_answers_einval(void **state)
{
    struct fenv *f = *state;
    int dev = nvemu_fdtable_open(f->e.t, "/dev/nvidia0", &f->e.who);
    assert_true(dev >= 0);
    assert_int_equal(event_alloc_on(f, dev), 0);

    char js[4096];
    assert_true(nvemu_status_json(f->e.emu, js, sizeof(js)) < sizeof(js));
    assert_non_null(strstr(js, "\"lost_gpus\":[],"));
    nvemu_fault_gpu_lost(f->e.emu, 0);
    assert_true(gpu_is_lost(nvemu_gpu(f->e.emu, 0)));
    assert_true(nvemu_status_json(f->e.emu, js, sizeof(js)) < sizeof(js));
    assert_non_null(strstr(js, "\"lost_gpus\":[0],"));
    assert_int_equal(event_alloc_on(f, dev), -EINVAL);
    nv_ioctl_numa_info_t numa;
    memset(&numa, 0, sizeof(numa));
    assert_int_equal(tio(&f->e, dev, NV_ESC_NUMA_INFO, &numa, sizeof(numa)), -EINVAL);
    /* XFER is refused before its inner escape is decoded */
    NVOS64_PARAMETERS inner;
    memset(&inner, 0, sizeof(inner));
    inner.hClass = NV01_EVENT_OS_EVENT;
    nv_ioctl_xfer_t xf = {NV_ESC_RM_ALLOC, sizeof(inner), (uint64_t)(uintptr_t)&inner};
    assert_int_equal(tio(&f->e, dev, NV_ESC_IOCTL_XFER_CMD, &xf, sizeof(xf)), -EINVAL);
    /* the open wait is answered before the GPU-lost check */
    nv_ioctl_wait_open_complete_t w;
    memset(&w, 0, sizeof(w));
    assert_int_equal(tio(&f->e, dev, NV_ESC_WAIT_OPEN_COMPLETE, &w, sizeof(w)), 0);
    /* a node opened afterwards is refused too; nvidiactl is no GPU node */
    int dev2 = nvemu_fdtable_open(f->e.t, "/dev/nvidia0", &f->e.who);
    assert_true(dev2 >= 0);
    assert_int_equal(event_alloc_on(f, dev2), -EINVAL);
    uint32_t hc2 = 0;
    assert_int_equal(talloc(&f->e, f->e.ctl, 0, 0, &hc2, NV01_ROOT_CLIENT, NULL), NV_OK);
    assert_int_equal(nvemu_fdtable_close(f->e.t, dev2), 0);
    assert_int_equal(nvemu_fdtable_close(f->e.t, dev), 0);
}

static void gpu_lost_rm_calls_answer_gpu_is_lost(void **state)
{
    struct fenv *f = *state;
    uint64_t us = 0;
    assert_int_equal(set_timeslice(f, 5000), NV_OK);
    nvemu_fault_gpu_lost(f->e.emu, 0);
    nvemu_fault_gpu_lost(f->e.emu, 0); /* repeating is a no-op */

    us = 77;
    assert_int_equal(get_timeslice(f, &us), NV_ERR_GPU_IS_LOST);
    assert_int_equal(us, 77); /* nothing copied out */
    assert_int_equal(set_timeslice(f, 1000), NV_ERR_GPU_IS_LOST);
    /* client-level controls do not reach the GPU */
    assert_int_equal(attached_ids(f), NV_OK);

    /* allocs under the GPU's objects, and a new device on it */
    NV_VASPACE_ALLOCATION_PARAMETERS va;
    memset(&va, 0, sizeof(va));
    uint32_t hva2 = 0x5C000100u;
    assert_int_equal(talloc(&f->e, f->e.ctl, f->hc, HDEV, &hva2, FERMI_VASPACE_A, &va), NV_ERR_GPU_IS_LOST);
    uint32_t hdev2 = 0x5C000101u;
    NV0080_ALLOC_PARAMETERS dp;
    memset(&dp, 0, sizeof(dp));
    assert_int_equal(talloc(&f->e, f->e.ctl, f->hc, f->hc, &hdev2, NV01_DEVICE_0, &dp), NV_ERR_GPU_IS_LOST);

    /* dup of a GPU object */
    NVOS55_PARAMETERS d;
    memset(&d, 0, sizeof(d));
    d.hClient = f->hc;
    d.hParent = HDEV;
    d.hObject = 0x5C000102u;
    d.hClientSrc = f->hc;
    d.hObjectSrc = f->g.htsg;
    assert_int_equal(tio(&f->e, f->e.ctl, NV_ESC_RM_DUP_OBJECT, &d, sizeof(d)), 0);
    assert_int_equal(d.status, NV_ERR_GPU_IS_LOST);

    /* frees still work: the group, then the whole client */
    nvemu_stats s0, s1;
    nvemu_get_stats(f->e.emu, &s0);
    assert_int_equal(tfree(&f->e, f->e.ctl, f->hc, f->g.htsg), NV_OK);
    nvemu_get_stats(f->e.emu, &s1);
    assert_int_equal(s1.channel_groups + 1, s0.channel_groups);
    assert_true(s1.objects < s0.objects);
    assert_int_equal(tfree(&f->e, f->e.ctl, f->hc, f->hc), NV_OK);
    nvemu_get_stats(f->e.emu, &s1);
    assert_int_equal(s1.clients, 0);
}

struct done_log {
    const struct fifo *fifo;
    uint32_t calls, failed;    /* completions, and those told apart as failed by fifo_is_lost */
    uint64_t tag;
};

static void on_done(void *ctx, uint64_t kernel_id, uint64_t tag, uint64_t submit_t, uint64_t done_t)
{
    (void)kernel_id;
    (void)submit_t;
    (void)done_t;
    struct done_log *d = ctx;
    d->calls++;
    d->failed += fifo_is_lost(d->fifo);
    d->tag = tag;
}

/* The GPU's FIFO stops: queued work fails (callbacks run), nothing new is accepted. */
static void gpu_lost_stops_the_fifo(void **state)
{
    struct fenv *f = *state;
    nvemu *emu = f->e.emu;
    struct rm_object *ch;
    assert_int_equal(rm_find_object(nvemu_rm(emu), nvemu_fdtable_opener(f->e.t, f->e.ctl), f->hc, f->g.hch[0], &ch), NV_OK);
    struct fifo_channel *fc = rm_object_priv(ch);
    struct fifo *fifo = gpu_fifo(nvemu_gpu(emu, 0));
    struct done_log d = {.fifo = fifo};
    struct fifo_kernel k = {.blocks = 1, .total_ns = 1000000000ull, .tag = 42};
    uint64_t id = 0;
    pthread_mutex_lock(nvemu_lock_of(emu));
    assert_int_equal(fifo_submit(fc, &k, on_done, &d, &id), NV_OK);
    assert_int_equal(fifo_submit(fc, &k, on_done, &d, &id), NV_OK);
    assert_int_equal(fifo_channel_pending(fc), 2);
    pthread_mutex_unlock(nvemu_lock_of(emu));
    assert_false(fifo_is_lost(fifo));

    nvemu_fault_gpu_lost(emu, 0);
    pthread_mutex_lock(nvemu_lock_of(emu));
    assert_true(fifo_is_lost(fifo));
    assert_int_equal(d.calls, 2);
    assert_int_equal(d.failed, 2);
    assert_int_equal(d.tag, 42);
    assert_int_equal(fifo_channel_pending(fc), 0);
    assert_int_equal(fifo_submit(fc, &k, on_done, &d, &id), NV_ERR_GPU_IS_LOST);
    pthread_mutex_unlock(nvemu_lock_of(emu));
    assert_int_equal(d.calls, 2);
    /* the channel's objects can still go */
    assert_int_equal(tfree(&f->e, f->e.ctl, f->hc, f->g.htsg), NV_OK);
}

static void gpu_lost_of_an_unknown_index_or_other_emulator_changes_nothing(void **state)
{
    struct fenv *f = *state;
    uint32_t n = nvemu_gpu_count(f->e.emu);
    nvemu_fault_gpu_lost(f->e.emu, n); /* no such GPU: logged, nothing changes */
    for (uint32_t i = 0; i < n; i++)
        assert_false(gpu_is_lost(nvemu_gpu(f->e.emu, i)));
    uint64_t us = 0;
    assert_int_equal(get_timeslice(f, &us), NV_OK);

    /* the fault belongs to one emulator instance */
    struct tenv other;
    assert_int_equal(tenv_init(&other, false), 0);
    nvemu_fault_gpu_lost(other.emu, 0);
    assert_true(gpu_is_lost(nvemu_gpu(other.emu, 0)));
    assert_false(gpu_is_lost(nvemu_gpu(f->e.emu, 0)));
    assert_int_equal(get_timeslice(f, &us), NV_OK);
    tenv_fini(&other);
}

static void busy_retry_answers_next_count_controls(void **state)
{
    struct fenv *f = *state;
    assert_int_equal(set_timeslice(f, 5000), NV_OK);
    nvemu_stats s0, s1;
    nvemu_get_stats(f->e.emu, &s0);
    nvemu_fault_busy_retry(f->e.emu, NVA06C_CTRL_CMD_GET_TIMESLICE, 2);

    /* refused before the handler would run: the count is not used up */
    NVA06C_CTRL_TIMESLICE_PARAMS p = {0};
    assert_int_equal(tctrl(&f->e, f->e.ctl, 0x12345678u, f->g.htsg, NVA06C_CTRL_CMD_GET_TIMESLICE, &p, sizeof(p)),
                     NV_ERR_INVALID_CLIENT);
    assert_int_equal(tctrl(&f->e, f->e.ctl, f->hc, f->g.htsg, NVA06C_CTRL_CMD_GET_TIMESLICE, &p, 4),
                     NV_ERR_INVALID_ARGUMENT);
    /* another command is not affected */
    assert_int_equal(set_timeslice(f, 6000), NV_OK);

    uint64_t us = 11;
    assert_int_equal(get_timeslice(f, &us), NV_ERR_BUSY_RETRY);
    assert_int_equal(us, 11); /* the handler did not run, nothing copied out */
    assert_int_equal(get_timeslice(f, &us), NV_ERR_BUSY_RETRY);
    assert_int_equal(get_timeslice(f, &us), NV_OK);
    assert_int_equal(us, 6000);
    nvemu_get_stats(f->e.emu, &s1);
    assert_int_equal(s1.errors - s0.errors, 4); /* 2 generic refusals + 2 busy answers */
}

static void busy_retry_replace_cancel_and_privilege(void **state)
{
    struct fenv *f = *state;
    nvemu_fault_busy_retry(f->e.emu, NVA06C_CTRL_CMD_GET_TIMESLICE, 5);
    nvemu_fault_busy_retry(f->e.emu, NVA06C_CTRL_CMD_SET_TIMESLICE, 1);
    nvemu_fault_busy_retry(f->e.emu, NVA06C_CTRL_CMD_GET_TIMESLICE, 1); /* replaces 5 */
    uint64_t us = 0;
    assert_int_equal(get_timeslice(f, &us), NV_ERR_BUSY_RETRY);
    assert_int_equal(get_timeslice(f, &us), NV_OK);
    assert_int_equal(set_timeslice(f, 3000), NV_ERR_BUSY_RETRY);
    assert_int_equal(set_timeslice(f, 3000), NV_OK);

    nvemu_fault_busy_retry(f->e.emu, NVA06C_CTRL_CMD_GET_TIMESLICE, 3);
    nvemu_fault_busy_retry(f->e.emu, NVA06C_CTRL_CMD_GET_TIMESLICE, 0); /* cancels */
    assert_int_equal(get_timeslice(f, &us), NV_OK);
    assert_int_equal(us, 3000);

    /* a control the caller has no right to is refused first and keeps the count (identity has no caps) */
    nvemu_fault_busy_retry(f->e.emu, NVA06C_CTRL_CMD_SET_INTERLEAVE_LEVEL, 1);
    NVA06C_CTRL_INTERLEAVE_LEVEL_PARAMS il = {.tsgInterleaveLevel = 1};
    assert_int_equal(tctrl(&f->e, f->e.ctl, f->hc, f->g.htsg, NVA06C_CTRL_CMD_SET_INTERLEAVE_LEVEL, &il,
                           sizeof(il)),
                     NV_ERR_INSUFFICIENT_PERMISSIONS);
    nvemu_fault_busy_retry(f->e.emu, NVA06C_CTRL_CMD_SET_INTERLEAVE_LEVEL, 0);
}

/* Same injections at the same points -> the same answers, run after run and instance after instance. */
static void faults_are_deterministic(void **state)
{
    (void)state;
    NV_STATUS first[8] = {0};
    for (int run = 0; run < 2; run++) {
        void *s = NULL;
        assert_int_equal(setup(&s), 0);
        struct fenv *f = s;
        NV_STATUS got[8];
        uint64_t us = 0;
        nvemu_fault_busy_retry(f->e.emu, NVA06C_CTRL_CMD_GET_TIMESLICE, 3);
        for (int i = 0; i < 4; i++)
            got[i] = get_timeslice(f, &us);
        nvemu_fault_gpu_lost(f->e.emu, 0);
        got[4] = get_timeslice(f, &us);
        got[5] = attached_ids(f);
        got[6] = set_timeslice(f, 1);
        got[7] = tfree(&f->e, f->e.ctl, f->hc, f->hc);
        if (run == 0)
            memcpy(first, got, sizeof(first));
        else
            assert_memory_equal(first, got, sizeof(first));
        teardown(&s);
    }
    assert_int_equal(first[0], NV_ERR_BUSY_RETRY);
    assert_int_equal(first[3], NV_OK);
    assert_int_equal(first[4], NV_ERR_GPU_IS_LOST);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
int main(void)
{
    const struct CMUnitTest tests[] = {
        T(gpu_lost_node_answers_einval),
        T(gpu_lost_rm_calls_answer_gpu_is_lost),
        T(gpu_lost_stops_the_fifo),
        T(gpu_lost_of_an_unknown_index_or_other_emulator_changes_nothing),
        T(busy_retry_answers_next_count_controls),
        T(busy_retry_replace_cancel_and_privilege),
        cmocka_unit_test(faults_are_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
