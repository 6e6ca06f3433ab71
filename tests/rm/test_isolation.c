/*
 * What one client must not be able to do to the emulator or to other
 * clients: objects nested deeper than a thread's stack, OS-event lists that
 * slow everyone down, closes that cost quadratic time. Each through the real
 * entry point (in-process fd table -> nvemu_ioctl).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>

#include "core/emulator.h"
#include "rm/opener.h"
#include "rm_test_util.h"

#define HDEV 0x5C000002u
#define HSUB 0x5C000003u
#define CHAIN_DEPTH 200000u

static int setup(void **state)
{
    struct tenv *e = calloc(1, sizeof(*e));
    if (!e || tenv_init(e, false) != 0)
        return -1;
    *state = e;
    return 0;
}

static int teardown(void **state)
{
    struct tenv *e = *state;
    tenv_fini(e);
    free(e);
    return 0;
}

static NV_STATUS alloc_event(struct tenv *e, uint32_t hc, uint32_t parent, uint32_t h, uint32_t src)
{
    NV0005_ALLOC_PARAMETERS ev;
    memset(&ev, 0, sizeof(ev));
    ev.hParentClient = hc;
    ev.hSrcResource = src;
    ev.hClass = NV01_EVENT_OS_EVENT;
    return talloc(e, e->ctl, hc, parent, &h, NV01_EVENT_OS_EVENT, &ev);
}

/*
 * Events take any parent, so a client can nest them 200k deep; freeing the
 * client, the status report and closing the fd must not recurse that deep.
 * An event cannot be another event's notifier (eventInit: NV_ERR_INVALID_OBJECT).
 */
static void deep_event_chain_frees_without_recursion(void **state)
{
    struct tenv *e = *state;
    uint32_t hc = tbase(e, e->ctl, HDEV, HSUB);
    assert_int_not_equal(hc, 0);
    assert_int_equal(alloc_event(e, hc, HSUB, 0x100, HSUB), NV_OK);
    assert_int_equal(alloc_event(e, hc, 0x100, 0x101, 0x100), NV_ERR_INVALID_OBJECT);
    assert_int_equal(alloc_event(e, hc, 0x100, 0x101, 0x7777), NV_ERR_INVALID_OBJECT);
    assert_int_equal(alloc_event(e, hc, HSUB, 0x101, 0), NV_ERR_INVALID_OBJECT);
    for (uint32_t i = 1; i < CHAIN_DEPTH; i++)
        assert_int_equal(alloc_event(e, hc, 0x100 + i - 1, 0x100 + i, HSUB), NV_OK);
    size_t n = nvemu_status_json(e->emu, NULL, 0);
    assert_true(n > 0);
    /* the middle of the chain first: its subtree goes, its ancestors stay */
    assert_int_equal(tfree(e, e->ctl, hc, 0x100 + CHAIN_DEPTH / 2), NV_OK);
    assert_int_equal(alloc_event(e, hc, 0x100 + CHAIN_DEPTH / 2 - 1, 0x100 + CHAIN_DEPTH / 2, HSUB), NV_OK);
    assert_int_equal(alloc_event(e, hc, HSUB, 0x100 + CHAIN_DEPTH / 2 - 1, HSUB), NV_ERR_INSERT_DUPLICATE_NAME);
    nvemu_stats st;
    nvemu_get_stats(e->emu, &st);
    assert_int_equal(st.objects, CHAIN_DEPTH / 2 + 1 + 3); /* + client, device, subdevice */
    assert_int_equal(tfree(e, e->ctl, hc, hc), NV_OK);
    nvemu_get_stats(e->emu, &st);
    assert_int_equal(st.clients, 0);
    assert_int_equal(st.objects, 0);
    /* and once more, left for the close of the fd */
    hc = tbase(e, e->ctl, HDEV, HSUB);
    assert_int_not_equal(hc, 0);
    assert_int_equal(alloc_event(e, hc, HSUB, 0x100, HSUB), NV_OK);
    for (uint32_t i = 1; i < CHAIN_DEPTH; i++)
        assert_int_equal(alloc_event(e, hc, 0x100 + i - 1, 0x100 + i, HSUB), NV_OK);
    assert_int_equal(nvemu_fdtable_close(e->t, e->ctl), 0);
    nvemu_get_stats(e->emu, &st);
    assert_int_equal(st.clients, 0);
}

static uint32_t os_event(struct tenv *e, int fd, uint32_t nr, uint32_t hclient, uint32_t efd)
{
    nv_ioctl_alloc_os_event_t p = {hclient, 0, efd, 0xFFFFFFFFu};
    return tio(e, fd, nr, &p, sizeof(p)) == 0 ? p.Status : 0xDEADu;
}

/*
 * OS events: one machine-wide namespace of (hClient, fd) pairs (FREE from
 * any fd), freed with their client and their fd, and bounded per fd so one
 * user cannot grow the daemon without limit.
 */
static void os_events_share_one_namespace_and_are_bounded(void **state)
{
    struct tenv *e = *state;
    int other = nvemu_fdtable_open(e->t, "/dev/nvidiactl", &e->who);
    assert_int_equal(os_event(e, e->ctl, NV_ESC_ALLOC_OS_EVENT, 0x1000, 7), NV_OK);
    assert_int_equal(os_event(e, other, NV_ESC_ALLOC_OS_EVENT, 0x1000, 7), NV_ERR_INSUFFICIENT_RESOURCES);
    assert_int_equal(os_event(e, other, NV_ESC_FREE_OS_EVENT, 0x1000, 7), NV_OK);
    assert_int_equal(os_event(e, e->ctl, NV_ESC_FREE_OS_EVENT, 0x1000, 7), NV_ERR_INVALID_EVENT);
    for (uint32_t i = 0; i < NVEMU_OS_EVENTS_PER_FD; i++)
        assert_int_equal(os_event(e, other, NV_ESC_ALLOC_OS_EVENT, 0x2000 + (i & 7), i), NV_OK);
    assert_int_equal(os_event(e, other, NV_ESC_ALLOC_OS_EVENT, 0x3000, 1), NV_ERR_INSUFFICIENT_RESOURCES);
    assert_int_equal(os_event(e, e->ctl, NV_ESC_ALLOC_OS_EVENT, 0x3000, 1), NV_OK);
    /* a freed client takes its pairs with it, whichever fd registered them */
    uint32_t hc = tbase(e, e->ctl, HDEV, HSUB);
    assert_int_not_equal(hc, 0);
    assert_int_equal(os_event(e, other, NV_ESC_ALLOC_OS_EVENT, hc, 1), NV_ERR_INSUFFICIENT_RESOURCES);
    assert_int_equal(os_event(e, other, NV_ESC_FREE_OS_EVENT, 0x2000, 0), NV_OK);
    assert_int_equal(os_event(e, other, NV_ESC_ALLOC_OS_EVENT, hc, 1), NV_OK);
    assert_int_equal(os_event(e, e->ctl, NV_ESC_ALLOC_OS_EVENT, hc, 2), NV_OK);
    assert_int_equal(tfree(e, e->ctl, hc, hc), NV_OK);
    assert_int_equal(os_event(e, e->ctl, NV_ESC_FREE_OS_EVENT, hc, 1), NV_ERR_INVALID_EVENT);
    assert_int_equal(os_event(e, e->ctl, NV_ESC_FREE_OS_EVENT, hc, 2), NV_ERR_INVALID_EVENT);
    /* a closed fd takes the pairs it registered */
    assert_int_equal(nvemu_fdtable_close(e->t, other), 0);
    assert_int_equal(os_event(e, e->ctl, NV_ESC_FREE_OS_EVENT, 0x2001, 1), NV_ERR_INVALID_EVENT);
    assert_int_equal(os_event(e, e->ctl, NV_ESC_FREE_OS_EVENT, 0x3000, 1), NV_OK);
}

/* An fd that owns many clients frees them all on close (one pass, not a rescan per client). */
static void close_frees_every_client_of_the_fd_in_one_pass(void **state)
{
    struct tenv *e = *state;
    int fd = nvemu_fdtable_open(e->t, "/dev/nvidiactl", &e->who);
    for (uint32_t i = 0; i < 20000; i++) {
        uint32_t hc = 0;
        assert_int_equal(talloc(e, fd, 0, 0, &hc, NV01_ROOT_CLIENT, NULL), NV_OK);
    }
    nvemu_stats st;
    nvemu_get_stats(e->emu, &st);
    assert_int_equal(st.clients, 20000);
    assert_int_equal(nvemu_fdtable_close(e->t, fd), 0);
    nvemu_get_stats(e->emu, &st);
    assert_int_equal(st.clients, 0);
}

/*
 * Per-uid quotas: past its share a uid's alloc is NV_ERR_INSUFFICIENT_RESOURCES (clients, objects, events),
 * another uid is not affected, and a free makes room again.
 */
static void alloc_past_a_uids_quota_is_insufficient_resources(void **state)
{
    (void)state;
    nvemu_config cfg;
    nvemu_config_init(&cfg);
    cfg.quota_clients = 2;
    cfg.quota_objects = 6;
    cfg.quota_events = 3;
    struct tenv e;
    e.emu = nvemu_create(&cfg, NULL, 0);
    assert_non_null(e.emu);
    e.t = nvemu_fdtable_create(e.emu, false);
    tenv_identity(&e.who, 100, 1000, 0);
    e.ctl = nvemu_fdtable_open(e.t, "/dev/nvidiactl", &e.who);
    nvemu_identity other;
    tenv_identity(&other, 200, 2000, 0);
    int other_ctl = nvemu_fdtable_open(e.t, "/dev/nvidiactl", &other);
    assert_true(e.ctl >= 0 && other_ctl >= 0);
    uint32_t hc = tbase(&e, e.ctl, HDEV, HSUB); /* client + device + subdevice: 2 objects */
    assert_int_not_equal(hc, 0);
    uint32_t h2 = 0, h3 = 0;
    assert_int_equal(talloc(&e, e.ctl, 0, 0, &h2, NV01_ROOT_CLIENT, NULL), NV_OK);
    assert_int_equal(talloc(&e, e.ctl, 0, 0, &h3, NV01_ROOT_CLIENT, NULL), NV_ERR_INSUFFICIENT_RESOURCES);
    /* the other uid has its own share */
    uint32_t ho = 0;
    assert_int_equal(talloc(&e, other_ctl, 0, 0, &ho, NV01_ROOT_CLIENT, NULL), NV_OK);
    for (uint32_t i = 0; i < 3; i++)
        assert_int_equal(alloc_event(&e, hc, HSUB, 0x100 + i, HSUB), NV_OK);
    assert_int_equal(alloc_event(&e, hc, HSUB, 0x103, HSUB), NV_ERR_INSUFFICIENT_RESOURCES);
    /* objects: 2 + 3 events = 5 of 6; one more non-event fits, then none */
    NV_VASPACE_ALLOCATION_PARAMETERS va;
    memset(&va, 0, sizeof(va));
    uint32_t hva = 0x200;
    assert_int_equal(talloc(&e, e.ctl, hc, HDEV, &hva, FERMI_VASPACE_A, &va), NV_OK);
    hva = 0x201;
    assert_int_equal(talloc(&e, e.ctl, hc, HDEV, &hva, FERMI_VASPACE_A, &va), NV_ERR_INSUFFICIENT_RESOURCES);
    /* a free makes room again */
    assert_int_equal(tfree(&e, e.ctl, hc, 0x100), NV_OK);
    assert_int_equal(alloc_event(&e, hc, HSUB, 0x103, HSUB), NV_OK);
    assert_int_equal(tfree(&e, e.ctl, h2, h2), NV_OK);
    assert_int_equal(talloc(&e, e.ctl, 0, 0, &h3, NV01_ROOT_CLIENT, NULL), NV_OK);
    nvemu_fdtable_close(e.t, other_ctl);
    tenv_fini(&e);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
int main(void)
{
    const struct CMUnitTest tests[] = {
        T(deep_event_chain_frees_without_recursion),
        T(os_events_share_one_namespace_and_are_bounded),
        T(close_frees_every_client_of_the_fd_in_one_pass),
        T(alloc_past_a_uids_quota_is_insufficient_resources),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
