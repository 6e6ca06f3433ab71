/*
 * Monitoring controls answered by a model, not by recorded bytes: the RM user-shared-data poll
 * (nvidia-smi dmon/pmon) and the legacy BUS_GET_INFO with its list behind a pointer (nvidia-smi, NVML).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "abi/nv_ctrl_discovery.h"
#include "abi/nv_ctrl_monitoring.h"
#include "rm_test_util.h"

#define HDEV 0x5C000002u
#define HSUB 0x5C000003u
#define HRUSD 0x5C000040u

static uint32_t env_up(struct tenv *e, const char *profile)
{
    nvemu_config cfg;
    nvemu_config_init(&cfg);
    cfg.profile = profile;
    assert_int_equal(tenv_init_with(e, &cfg), 0);
    uint32_t hc = tbase(e, e->ctl, HDEV, HSUB);
    assert_int_not_equal(hc, 0);
    return hc;
}

static NV_STATUS poll(struct tenv *e, uint32_t hc, uint32_t hobj, uint64_t mask)
{
    NV00DE_CTRL_REQUEST_DATA_POLL_PARAMS p = {.polledDataMask = mask};
    return tctrl(e, e->ctl, hc, hobj, NV00DE_CTRL_CMD_REQUEST_DATA_POLL, &p, sizeof p);
}

/* RM on GSP (the open module) polls; monolithic RM before GA102 (Volta, proprietary module) refuses a mask. */
static void rusd_poll_is_supported_where_rm_runs_on_gsp(void **state)
{
    (void)state;
    const struct {
        const char *profile;
        NV_STATUS masked;
    } rows[] = {{"h200", NV_OK}, {"v100", NV_ERR_NOT_SUPPORTED}};
    for (size_t i = 0; i < 2; i++) {
        struct tenv e;
        uint32_t hc = env_up(&e, rows[i].profile);
        NV00DE_ALLOC_PARAMETERS ap = {0};
        uint32_t h = HRUSD;
        assert_int_equal(talloc(&e, e.ctl, hc, HSUB, &h, RM_USER_SHARED_DATA, &ap), NV_OK);
        assert_int_equal(poll(&e, hc, HRUSD, 0x1F), rows[i].masked);
        assert_int_equal(poll(&e, hc, HRUSD, 0), NV_OK);
        /* another object of the family OTHER does not answer it */
        uint32_t hb = 0x5C000041u;
        assert_int_equal(talloc(&e, e.ctl, hc, HSUB, &hb, NV2081_BINAPI, NULL), NV_OK);
        assert_int_equal(poll(&e, hc, hb, 0x1F), NV_ERR_NOT_SUPPORTED);
        tenv_fini(&e);
    }
}

/* The legacy list form answers from the profile's BUS_GET_INFO_V2 table and writes the list back. */
static void legacy_bus_info_answers_from_the_v2_table(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t hc = env_up(&e, "h200-2b42");
    nv_ctrl_info_pair list[2] = {{.index = 0x00}, {.index = 0x0b}};
    NV2080_CTRL_BUS_GET_INFO_PARAMS p = {.busInfoListSize = 2, .busInfoList = (uint64_t)(uintptr_t)list};
    assert_int_equal(tctrl(&e, e.ctl, hc, HSUB, NV2080_CTRL_CMD_BUS_GET_INFO, &p, sizeof p), NV_OK);
    assert_int_equal(list[0].data, 0x3); /* h200-2b42.yaml: BUS_GET_INFO_V2 index 0x00 */
    assert_int_equal(list[1].data, 0x5); /* index 0x0b */
    nv_ctrl_info_pair unknown = {.index = 0x01};
    p.busInfoListSize = 1;
    p.busInfoList = (uint64_t)(uintptr_t)&unknown;
    assert_int_equal(tctrl(&e, e.ctl, hc, HSUB, NV2080_CTRL_CMD_BUS_GET_INFO, &p, sizeof p),
                     NV_ERR_INVALID_ARGUMENT);
    p.busInfoListSize = 0;
    assert_int_equal(tctrl(&e, e.ctl, hc, HSUB, NV2080_CTRL_CMD_BUS_GET_INFO, &p, sizeof p),
                     NV_ERR_INVALID_ARGUMENT);
    tenv_fini(&e);
}

/* The legacy BIOS_GET_INFO fills its list from the profile's BIOS_GET_INFO_V2 table (the board's VBIOS version). */
static void legacy_bios_info_answers_the_vbios_version(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t hc = env_up(&e, "h200-2b42");
    nv_ctrl_info_pair list[2] = {{.index = NV2080_CTRL_BIOS_INFO_INDEX_REVISION},
                                 {.index = NV2080_CTRL_BIOS_INFO_INDEX_OEM_REVISION}};
    NV2080_CTRL_BIOS_GET_INFO_PARAMS p = {.biosInfoListSize = 2, .biosInfoList = (uint64_t)(uintptr_t)list};
    assert_int_equal(tctrl(&e, e.ctl, hc, HSUB, NV2080_CTRL_CMD_BIOS_GET_INFO, &p, sizeof p), NV_OK);
    assert_int_equal(list[0].data, 0x9600a500); /* 96.00.A5.00.1A */
    assert_int_equal(list[1].data, 0x1a);
    p.biosInfoListSize = NV2080_CTRL_BIOS_INFO_MAX_SIZE + 1;
    assert_int_equal(tctrl(&e, e.ctl, hc, HSUB, NV2080_CTRL_CMD_BIOS_GET_INFO, &p, sizeof p),
                     NV_ERR_INVALID_ARGUMENT);
    tenv_fini(&e);
}

/* The open module (RM on GSP) reports its RC watchdog initialised and disabled; the proprietary one is not modelled. */
static void rc_watchdog_is_initialised_and_disabled_on_gsp(void **state)
{
    (void)state;
    const struct {
        const char *profile;
        NV_STATUS st;
        uint32_t flags;
    } rows[] = {{"h200", NV_OK, 0x5}, {"v100", NV_ERR_NOT_SUPPORTED, 0}};
    for (size_t i = 0; i < 2; i++) {
        struct tenv e;
        uint32_t hc = env_up(&e, rows[i].profile);
        NV2080_CTRL_RC_GET_WATCHDOG_INFO_PARAMS p = {0};
        assert_int_equal(tctrl(&e, e.ctl, hc, HSUB, NV2080_CTRL_CMD_RC_GET_WATCHDOG_INFO, &p, sizeof p), rows[i].st);
        assert_int_equal(p.watchdogStatusFlags, rows[i].flags);
        tenv_fini(&e);
    }
}

/*
 * PERF 0x2080A026 writes only its answer words and each requested domain's frequency: the caller's other bytes
 * (uninitialised in libcuda) come back as sent. A domain the recording never answered is not modelled.
 */
static void perf_a026_answers_fields_and_keeps_the_rest(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t hc = env_up(&e, "h100");
    NV2080_CTRL_UNPUBLISHED_A026_PARAMS p;
    memset(&p, 0x5A, sizeof p);
    p.request = 0x400;
    p.numClks = 2;
    p.clks[0].domain = 0x10; /* MCLK first: answered by domain, not by position */
    p.clks[1].domain = 0x1;
    assert_int_equal(tctrl(&e, e.ctl, hc, HSUB, NV2080_CTRL_CMD_UNPUBLISHED_A026, &p, sizeof p), NV_OK);
    assert_int_equal(p.clks[0].freqKHz_out, 2619000); /* h100.yaml's recorded memory clock */
    assert_int_equal(p.clks[1].freqKHz_out, 1980000);
    assert_int_equal(p.word4_out, 3);
    assert_int_equal(p.word8_out, 4);
    assert_int_equal(p.word12_out, 1);
    assert_int_equal(p.rsvd[0], 0x5A);
    assert_int_equal(p.clks[0].rsvd0, 0x5A5A5A5A);
    assert_int_equal(p.clks[2].freqKHz_out, 0x5A5A5A5A);
    p.clks[1].domain = 0x4; /* a domain no recording answered */
    assert_int_equal(tctrl(&e, e.ctl, hc, HSUB, NV2080_CTRL_CMD_UNPUBLISHED_A026, &p, sizeof p),
                     NV_ERR_NOT_SUPPORTED);
    p.numClks = NV2080_CTRL_UNPUBLISHED_A026_MAX_CLKS + 1;
    assert_int_equal(tctrl(&e, e.ctl, hc, HSUB, NV2080_CTRL_CMD_UNPUBLISHED_A026, &p, sizeof p),
                     NV_ERR_NOT_SUPPORTED);
    tenv_fini(&e);
}

/*
 * CLK 0x20809040: for the request `nvidia-smi -q -d PERFORMANCE,CLOCK` sends (3) the driver answered NV_OK and
 * wrote nothing; any other request is not modelled.
 */
static void clk_9040_answers_the_recorded_request_and_writes_nothing(void **state)
{
    (void)state;
    struct tenv e;
    uint32_t hc = env_up(&e, "h200");
    static NV2080_CTRL_UNPUBLISHED_9040_PARAMS p, sent;
    memset(&p, 0x5A, sizeof p);
    p.request = NV2080_CTRL_UNPUBLISHED_9040_REQUEST_OBSERVED;
    sent = p;
    assert_int_equal(tctrl(&e, e.ctl, hc, HSUB, NV2080_CTRL_CMD_UNPUBLISHED_9040, &p, sizeof p), NV_OK);
    assert_memory_equal(&p, &sent, sizeof p);
    p.request = 1;
    assert_int_equal(tctrl(&e, e.ctl, hc, HSUB, NV2080_CTRL_CMD_UNPUBLISHED_9040, &p, sizeof p),
                     NV_ERR_NOT_SUPPORTED);
    tenv_fini(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rusd_poll_is_supported_where_rm_runs_on_gsp),
        cmocka_unit_test(legacy_bus_info_answers_from_the_v2_table),
        cmocka_unit_test(legacy_bios_info_answers_the_vbios_version),
        cmocka_unit_test(rc_watchdog_is_initialised_and_disabled_on_gsp),
        cmocka_unit_test(perf_a026_answers_fields_and_keeps_the_rest),
        cmocka_unit_test(clk_9040_answers_the_recorded_request_and_writes_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
