/* The blocking workload form over the emulator-private escapes 0xF0-0xF6, from one and from two threads. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include <cmocka.h>

#include "../rm/rm_test_util.h"
#include "abi/nv_alloc_fifo.h"
#include "abi/nv_ctrl_fifo.h"
#include "abi/nv_engine.h"
#include "core/emulator.h"
#include "abi/nv_workload.h"
#include "fifo/workload.h"

#define HDEV 0x5c000002u
#define HSUB 0x5c000003u
#define MS 1000000ull

struct fx {
    struct tenv e;
    uint32_t hc;
};

/* A scheduled GR channel group with one channel hch (handle of the TSG: hch - 1). */
static void mk_channel(struct fx *x, uint32_t hch)
{
    uint32_t htsg = hch - 1, h = hch;
    NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS gp = {.engineType = NV2080_ENGINE_TYPE_GR0};
    assert_int_equal(talloc(&x->e, x->e.ctl, x->hc, HDEV, &htsg, KEPLER_CHANNEL_GROUP_A, &gp), NV_OK);
    NV_CHANNEL_ALLOC_PARAMS cp;
    memset(&cp, 0, sizeof(cp));
    assert_int_equal(talloc(&x->e, x->e.ctl, x->hc, htsg, &h, HOPPER_CHANNEL_GPFIFO_A, &cp), NV_OK);
    NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS sp = {1, 0, 0};
    assert_int_equal(tctrl(&x->e, x->e.ctl, x->hc, htsg, NVA06C_CTRL_CMD_GPFIFO_SCHEDULE, &sp, sizeof(sp)), NV_OK);
}

static int setup(void **state)
{
    struct fx *x = calloc(1, sizeof(*x));
    if (!x || tenv_init(&x->e, false) != 0)
        return -1;
    x->hc = tbase(&x->e, x->e.ctl, HDEV, HSUB);
    *state = x;
    return x->hc ? 0 : -1;
}

static int teardown(void **state)
{
    struct fx *x = *state;
    tenv_fini(&x->e);
    free(x);
    return 0;
}

static uint64_t now_ns(struct fx *x)
{
    struct nvemu_wl_now n = {0};
    assert_int_equal(tio(&x->e, x->e.ctl, NVEMU_ESC_WL_NOW, &n, sizeof(n)), 0);
    return n.now_ns;
}

static uint64_t wl_submit(struct fx *x, uint32_t hch, uint64_t total_ns)
{
    struct nvemu_wl_submit s = {.hClient = x->hc, .hChannel = hch, .blocks = 1, .total_ns = total_ns, .tag = 7};
    assert_int_equal(tio(&x->e, x->e.ctl, NVEMU_ESC_WL_SUBMIT, &s, sizeof(s)), 0);
    assert_int_equal(s.status, NV_OK);
    return s.kernel_id;
}

static void single_participant_waits_only_after_registering(void **state)
{
    struct fx *x = *state;
    const struct profile_timing *tm = &nvemu_profile(x->e.emu)->timing;
    mk_channel(x, 0x5c000011);
    struct nvemu_wl_wait w = {0};
    /* waits need a registered participant */
    assert_int_equal(tio(&x->e, x->e.ctl, NVEMU_ESC_WL_WAIT, &w, sizeof(w)), 0);
    assert_int_equal(w.status, NV_ERR_INVALID_STATE);
    struct nvemu_wl_register r = {.name = "main"};
    assert_int_equal(tio(&x->e, x->e.ctl, NVEMU_ESC_WL_REGISTER, &r, sizeof(r)), 0);
    assert_int_equal(r.status, NV_OK);
    assert_int_equal(r.participant, 1);
    /* a wrong size is not a workload call */
    assert_int_equal(tio(&x->e, x->e.ctl, NVEMU_ESC_WL_REGISTER, &r, 8), -EINVAL);

    uint64_t id = wl_submit(x, 0x5c000011, 3 * MS);
    w = (struct nvemu_wl_wait){.kernel_id = id};
    assert_int_equal(tio(&x->e, x->e.ctl, NVEMU_ESC_WL_WAIT, &w, sizeof(w)), 0);
    assert_int_equal(w.status, NV_OK);
    assert_int_equal(w.tag, 7);
    /* the runlist update, one context switch, then the kernel and what each kernel costs beyond its waves */
    assert_int_equal(w.done_ns, tm->runlist_update_ns + tm->ctxsw_ns + 3 * MS + tm->kernel_gap_ns);
    assert_int_equal(now_ns(x), w.done_ns);

    struct nvemu_wl_sleep sl = {.until_ns = 10 * MS};
    assert_int_equal(tio(&x->e, x->e.ctl, NVEMU_ESC_WL_SLEEP, &sl, sizeof(sl)), 0);
    assert_int_equal(now_ns(x), 10 * MS);

    w = (struct nvemu_wl_wait){.kernel_id = 12345};
    assert_int_equal(tio(&x->e, x->e.ctl, NVEMU_ESC_WL_WAIT, &w, sizeof(w)), 0);
    assert_int_equal(w.status, NV_ERR_INVALID_ARGUMENT);

    id = wl_submit(x, 0x5c000011, 5 * MS);
    w = (struct nvemu_wl_wait){.kernel_id = id, .deadline_ns = 11 * MS};
    assert_int_equal(tio(&x->e, x->e.ctl, NVEMU_ESC_WL_WAIT, &w, sizeof(w)), 0);
    assert_int_equal(w.status, NV_ERR_TIMEOUT);
    assert_int_equal(now_ns(x), 11 * MS);
    w = (struct nvemu_wl_wait){.kernel_id = 0};
    assert_int_equal(tio(&x->e, x->e.ctl, NVEMU_ESC_WL_WAIT, &w, sizeof(w)), 0);
    assert_int_equal(w.status, NV_OK);
    assert_int_equal(w.kernel_id, id);
    struct nvemu_wl_status u = {0};
    assert_int_equal(tio(&x->e, x->e.ctl, NVEMU_ESC_WL_UNREGISTER, &u, sizeof(u)), 0);
    assert_int_equal(u.status, NV_OK);
}

/* No call may push the shared virtual clock by more than an hour: a kernel or sleep of ~2^64 ns is refused. */
static void call_pushing_the_clock_past_an_hour_is_refused(void **state)
{
    struct fx *x = *state;
    mk_channel(x, 0x5c000011);
    struct nvemu_wl_register r = {.name = "main"};
    assert_int_equal(tio(&x->e, x->e.ctl, NVEMU_ESC_WL_REGISTER, &r, sizeof(r)), 0);
    struct nvemu_wl_submit s = {.hClient = x->hc, .hChannel = 0x5c000011, .blocks = 1, .total_ns = UINT64_MAX - 1};
    assert_int_equal(tio(&x->e, x->e.ctl, NVEMU_ESC_WL_SUBMIT, &s, sizeof(s)), 0);
    assert_int_equal(s.status, NV_ERR_INVALID_ARGUMENT);
    s = (struct nvemu_wl_submit){.hClient = x->hc, .hChannel = 0x5c000011, .blocks = 0xFFFFFFFFu,
                                 .block_ns = 1ull << 40};
    assert_int_equal(tio(&x->e, x->e.ctl, NVEMU_ESC_WL_SUBMIT, &s, sizeof(s)), 0);
    assert_int_equal(s.status, NV_ERR_INVALID_ARGUMENT);
    struct nvemu_wl_sleep sl = {.until_ns = UINT64_MAX};
    assert_int_equal(tio(&x->e, x->e.ctl, NVEMU_ESC_WL_SLEEP, &sl, sizeof(sl)), 0);
    assert_int_equal(sl.status, NV_ERR_INVALID_ARGUMENT);
    assert_true(now_ns(x) < 1000 * MS);
    /* a plain kernel still runs and the clock stays sane */
    uint64_t id = wl_submit(x, 0x5c000011, 3 * MS);
    struct nvemu_wl_wait w = {.kernel_id = id};
    assert_int_equal(tio(&x->e, x->e.ctl, NVEMU_ESC_WL_WAIT, &w, sizeof(w)), 0);
    assert_int_equal(w.status, NV_OK);
    assert_true(now_ns(x) < 1000 * MS);
    struct nvemu_wl_status u = {0};
    assert_int_equal(tio(&x->e, x->e.ctl, NVEMU_ESC_WL_UNREGISTER, &u, sizeof(u)), 0);
}

/* A kernel of a lost GPU fails at the loss: its wait answers NV_ERR_GPU_IS_LOST with the loss time. */
static void kernel_of_a_lost_gpu_fails_at_the_loss(void **state)
{
    struct fx *x = *state;
    mk_channel(x, 0x5c000011);
    struct nvemu_wl_register r = {.name = "main"};
    assert_int_equal(tio(&x->e, x->e.ctl, NVEMU_ESC_WL_REGISTER, &r, sizeof(r)), 0);
    uint64_t id = wl_submit(x, 0x5c000011, 50 * MS);
    struct nvemu_wl_sleep sl = {.until_ns = 2 * MS};
    assert_int_equal(tio(&x->e, x->e.ctl, NVEMU_ESC_WL_SLEEP, &sl, sizeof(sl)), 0);
    fifo_gpu_lost(gpu_fifo(nvemu_gpu(x->e.emu, 0)));
    struct nvemu_wl_wait w = {.kernel_id = id};
    assert_int_equal(tio(&x->e, x->e.ctl, NVEMU_ESC_WL_WAIT, &w, sizeof(w)), 0);
    assert_int_equal(w.status, NV_ERR_GPU_IS_LOST);
    assert_int_equal(w.kernel_id, id);
    assert_int_equal(w.tag, 7);
    assert_int_equal(w.done_ns, 2 * MS);
    struct nvemu_wl_submit s = {.hClient = x->hc, .hChannel = 0x5c000011, .blocks = 1, .total_ns = MS};
    assert_int_equal(tio(&x->e, x->e.ctl, NVEMU_ESC_WL_SUBMIT, &s, sizeof(s)), 0);
    assert_int_equal(s.status, NV_ERR_GPU_IS_LOST);
    struct nvemu_wl_status u = {0};
    assert_int_equal(tio(&x->e, x->e.ctl, NVEMU_ESC_WL_UNREGISTER, &u, sizeof(u)), 0);
}

/* Participants of a released opener are forgotten; others stay. */
static void test_forget_opener(void **state)
{
    struct fx *x = *state;
    struct workload *wl = nvemu_workload(x->e.emu);
    int opa, opb; /* only the opener pointers' identity matters */
    uint32_t id;
    char a[32] = "a", b[32] = "b";
    assert_int_equal(workload_register(wl, (nvemu_opener *)&opa, 501, a, &id), NV_OK);
    assert_int_equal(workload_register(wl, (nvemu_opener *)&opb, 502, b, &id), NV_OK);
    workload_forget_opener(wl, (nvemu_opener *)&opa);
    assert_int_equal(workload_unregister(wl, 501), NV_ERR_INVALID_STATE);
    assert_int_equal(workload_unregister(wl, 502), NV_OK);
}

struct thr {
    struct fx *x;
    pthread_barrier_t *bar;
    uint64_t sleep1, sleep2;
    uint64_t seen1, seen2;
};

static void *thr_main(void *arg)
{
    struct thr *t = arg;
    struct nvemu_wl_register r = {.name = "thr"};
    tio(&t->x->e, t->x->e.ctl, NVEMU_ESC_WL_REGISTER, &r, sizeof(r));
    /* both register before either blocks: from here on the order is the baton's */
    pthread_barrier_wait(t->bar);
    struct nvemu_wl_sleep sl = {.until_ns = t->sleep1};
    tio(&t->x->e, t->x->e.ctl, NVEMU_ESC_WL_SLEEP, &sl, sizeof(sl));
    t->seen1 = now_ns(t->x);
    sl.until_ns = t->sleep2;
    tio(&t->x->e, t->x->e.ctl, NVEMU_ESC_WL_SLEEP, &sl, sizeof(sl));
    t->seen2 = now_ns(t->x);
    struct nvemu_wl_status u = {0};
    tio(&t->x->e, t->x->e.ctl, NVEMU_ESC_WL_UNREGISTER, &u, sizeof(u));
    return NULL;
}

static void virtual_time_never_passes_a_sleeping_participant(void **state)
{
    struct fx *x = *state;
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, 2);
    struct thr a = {x, &bar, 5 * MS, 9 * MS, 0, 0}, b = {x, &bar, 3 * MS, 8 * MS, 0, 0};
    pthread_t ta, tb;
    pthread_create(&ta, NULL, thr_main, &a);
    pthread_create(&tb, NULL, thr_main, &b);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    pthread_barrier_destroy(&bar);
    /* virtual time moved only to the next wake-up, never past a sleeper */
    assert_int_equal(a.seen1, 5 * MS);
    assert_int_equal(b.seen1, 3 * MS);
    assert_int_equal(b.seen2, 8 * MS);
    assert_int_equal(a.seen2, 9 * MS);
}

struct late {
    struct fx *x;
    atomic_bool registered, returned;
    uint64_t seen;
};

static void *late_main(void *arg)
{
    struct late *l = arg;
    struct nvemu_wl_register r = {.name = "late"};
    tio(&l->x->e, l->x->e.ctl, NVEMU_ESC_WL_REGISTER, &r, sizeof(r));
    atomic_store(&l->registered, true);
    struct nvemu_wl_sleep sl = {.until_ns = 0};
    tio(&l->x->e, l->x->e.ctl, NVEMU_ESC_WL_SLEEP, &sl, sizeof(sl));
    l->seen = now_ns(l->x);
    atomic_store(&l->returned, true);
    struct nvemu_wl_status u = {0};
    tio(&l->x->e, l->x->e.ctl, NVEMU_ESC_WL_UNREGISTER, &u, sizeof(u));
    return NULL;
}

/*
 * A participant that registers while another one runs and sleeps to the present does not go on
 * beside it: it returns on its turn, when the running one blocks, before any time passes.
 */
static void sleep_to_the_present_waits_for_the_turn(void **state)
{
    struct fx *x = *state;
    struct nvemu_wl_register r = {.name = "main"};
    assert_int_equal(tio(&x->e, x->e.ctl, NVEMU_ESC_WL_REGISTER, &r, sizeof(r)), 0);
    struct late l = {.x = x};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, late_main, &l), 0);
    while (!atomic_load(&l.registered))
        sched_yield();
    /* while this participant runs, the late one stays in its sleep however long it is given */
    nanosleep(&(struct timespec){0, 50 * 1000000L}, NULL);
    assert_false(atomic_load(&l.returned));
    struct nvemu_wl_sleep sl = {.until_ns = MS};
    assert_int_equal(tio(&x->e, x->e.ctl, NVEMU_ESC_WL_SLEEP, &sl, sizeof(sl)), 0);
    pthread_join(t, NULL);
    assert_true(atomic_load(&l.returned));
    assert_int_equal(l.seen, 0);
    assert_int_equal(now_ns(x), MS);
    struct nvemu_wl_status u = {0};
    assert_int_equal(tio(&x->e, x->e.ctl, NVEMU_ESC_WL_UNREGISTER, &u, sizeof(u)), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(single_participant_waits_only_after_registering, setup, teardown),
        cmocka_unit_test_setup_teardown(virtual_time_never_passes_a_sleeping_participant, setup, teardown),
        cmocka_unit_test_setup_teardown(kernel_of_a_lost_gpu_fails_at_the_loss, setup, teardown),
        cmocka_unit_test_setup_teardown(test_forget_opener, setup, teardown),
        cmocka_unit_test_setup_teardown(call_pushing_the_clock_past_an_hour_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(sleep_to_the_present_waits_for_the_turn, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
