/* core/engine.h, the scenario engine's view of the core: what it adds over the parts behind it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/emulator.h"
#include "core/engine.h"
#include "fifo/workload.h"

static int setup(void **state)
{
    nvemu_config cfg;
    nvemu_config_init(&cfg);
    char err[256];
    *state = nvemu_create(&cfg, err, sizeof(err));
    return *state ? 0 : -1;
}

static int teardown(void **state)
{
    nvemu_destroy(*state);
    return 0;
}

/* A task thread forgotten through the engine header is no workload participant any more; another stays one. */
static void forget_thread_unregisters_that_thread_only(void **state)
{
    nvemu *emu = *state;
    struct workload *wl = nvemu_workload(emu);
    int op; /* only the opener pointer's identity matters */
    uint32_t id;
    char a[32] = "a", b[32] = "b";
    pthread_mutex_lock(nvemu_lock_of(emu));
    assert_int_equal(workload_register(wl, (nvemu_opener *)&op, 601, a, &id), NV_OK);
    assert_int_equal(workload_register(wl, (nvemu_opener *)&op, 602, b, &id), NV_OK);
    nvemu_forget_thread(emu, 601);
    assert_int_equal(workload_unregister(wl, 601), NV_ERR_INVALID_STATE);
    assert_int_equal(workload_unregister(wl, 602), NV_OK);
    pthread_mutex_unlock(nvemu_lock_of(emu));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(forget_thread_unregisters_that_thread_only, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
