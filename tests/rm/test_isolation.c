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
static void deep_event_chain(void **state)
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

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
int main(void)
{
    const struct CMUnitTest tests[] = {
        T(deep_event_chain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
