/*
 * Behaviour of the ABI headers' macros and tables: the ioctl request words user space builds, engine and
 * class encodings, status names. Struct sizes and offsets are compile-time asserts in the headers
 * themselves (abi/nv_abi_assert.h), so a layout change fails the build, not this test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "abi/nv_alloc.h"
#include "abi/nv_classes.h"
#include "abi/nv_engine.h"
#include "abi/nv_escape.h"

static void request_words_match_the_drivers_ioctl_numbers(void **state)
{
    (void)state;
    assert_int_equal(NV_IOCTL_REQUEST(NV_ESC_RM_ALLOC, 48), 0xC030462Bu);
    assert_int_equal(NV_IOCTL_REQUEST(NV_ESC_RM_ALLOC, 32), 0xC020462Bu);
    assert_int_equal(NV_IOCTL_REQUEST(NV_ESC_RM_CONTROL, sizeof(NVOS54_PARAMETERS)), 0xC020462Au);
    assert_int_equal(NV_IOCTL_REQUEST(NV_ESC_RM_FREE, sizeof(NVOS00_PARAMETERS)), 0xC0104629u);
    assert_int_equal(NV_IOCTL_REQUEST(NV_ESC_RM_MAP_MEMORY, 56), 0xC038464Eu);
    assert_int_equal(NV_IOCTL_REQUEST(NV_ESC_CARD_INFO, 32 * 72), 0xC90046C8u);
    assert_int_equal(NV_IOCTL_REQUEST(NV_ESC_NUMA_INFO, sizeof(nv_ioctl_numa_info_t)), 0xC23046D7u);
    assert_int_equal(NV_IOCTL_REQUEST(NV_ESC_RM_QUERY_GROUP, 32), 0xC0204660u);
    assert_int_equal(NV_IOCTL_NR(0xC0204660u), 0x60);
    assert_int_equal(NV_IOCTL_SIZE(0xC23046D7u), 560);
    assert_int_equal(NV2080_ENGINE_TYPE_COPY(2), 0x0B);
    assert_int_equal(NV2080_ENGINE_TYPE_NVDEC7, 0x1A);
    assert_int_equal(NV_CTRL_CMD_CLASS(0xA06C0103u), KEPLER_CHANNEL_GROUP_A);
}

static void status_names(void **state)
{
    (void)state;
    assert_string_equal(nv_status_name(NV_ERR_INVALID_CLIENT), "NV_ERR_INVALID_CLIENT");
    assert_string_equal(nv_status_name(NV_OK), "NV_OK");
    assert_string_equal(nv_status_name(0x1234u), "NV_STATUS_0x00001234");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(request_words_match_the_drivers_ioctl_numbers),
        cmocka_unit_test(status_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
