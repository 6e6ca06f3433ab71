/*
 * The RM user-shared-data page (nvidia-smi dmon's source) follows the emulator's virtual clock and FIFO model:
 * polled across a busy and an idle stretch, its utilisation, clocks, power and temperatures move and its
 * timestamps are virtual time; the same scenario gives the same page bytes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../rm/rm_test_util.h"
#include "abi/nv_alloc.h"
#include "abi/nv_alloc_fifo.h"
#include "abi/nv_classes.h"
#include "abi/nv_ctrl_fifo.h"
#include "abi/nv_engine.h"
#include "abi/nv_rusd.h"
#include "abi/nv_workload.h"

#define HDEV 0x5c000002u
#define HSUB 0x5c000003u
#define HRUSD 0x5c000040u
#define HCH 0x5c000011u
#define MS 1000000ull
#define POLL_ALL (NV00DE_RUSD_POLL_CLOCK | NV00DE_RUSD_POLL_PERF | NV00DE_RUSD_POLL_POWER | NV00DE_RUSD_POLL_THERMAL)

/* What dmon prints, read from a page. */
struct reading {
    uint64_t ts;
    uint32_t util, gr_mhz, mem_mhz, inst_mw, avg_mw;
    int32_t gpu_temp;          /* 24.8 fixed point */
};

static struct reading read_page(struct tenv *e, uint8_t *page)
{
    struct nv_rusd_layout lay = nv_rusd_layout(NV_REL_580);
    assert_int_equal(nvemu_user_shared_data(e->emu, 0, page, 4096), (long)lay.size);
    nv_rusd_clocks c;
    nv_rusd_utilization u;
    nv_rusd_power inst, avg;
    nv_rusd_temperature t;
    memcpy(&c, page + lay.clocks, sizeof c);
    memcpy(&u, page + lay.utilization, sizeof u);
    memcpy(&inst, page + lay.inst_power, sizeof inst);
    memcpy(&avg, page + lay.avg_power, sizeof avg);
    memcpy(&t, page + lay.temperatures + NV_RUSD_TEMP_GPU * sizeof t, sizeof t);
    /* every polled section carries the same refresh time */
    assert_int_equal(u.lastModifiedTimestamp, c.lastModifiedTimestamp);
    assert_int_equal(t.lastModifiedTimestamp, c.lastModifiedTimestamp);
    return (struct reading){c.lastModifiedTimestamp, u.gpuPercentBusy, c.targetClkMHz[NV_RUSD_CLK_GRAPHICS],
                            c.targetClkMHz[NV_RUSD_CLK_MEMORY], inst.gpu, avg.gpu, t.temperature};
}

static uint32_t env_up(struct tenv *e, const char *driver, uint64_t mask)
{
    nvemu_config cfg;
    nvemu_config_init(&cfg);
    cfg.driver = driver;
    assert_int_equal(tenv_init_with(e, &cfg), 0);
    uint32_t hc = tbase(e, e->ctl, HDEV, HSUB);
    assert_int_not_equal(hc, 0);
    NV00DE_ALLOC_PARAMETERS ap = {.polledDataMask = mask};
    uint32_t h = HRUSD;
    assert_int_equal(talloc(e, e->ctl, hc, HSUB, &h, RM_USER_SHARED_DATA, &ap), NV_OK);
    return hc;
}

static void run_kernel(struct tenv *e, uint32_t hc, uint64_t ns)
{
    uint32_t htsg = HCH - 1, h = HCH;
    NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS gp = {.engineType = NV2080_ENGINE_TYPE_GR0};
    assert_int_equal(talloc(e, e->ctl, hc, HDEV, &htsg, KEPLER_CHANNEL_GROUP_A, &gp), NV_OK);
    NV_CHANNEL_ALLOC_PARAMS cp;
    memset(&cp, 0, sizeof cp);
    assert_int_equal(talloc(e, e->ctl, hc, htsg, &h, HOPPER_CHANNEL_GPFIFO_A, &cp), NV_OK);
    NVA06F_CTRL_GPFIFO_SCHEDULE_PARAMS sp = {1, 0, 0};
    assert_int_equal(tctrl(e, e->ctl, hc, htsg, NVA06C_CTRL_CMD_GPFIFO_SCHEDULE, &sp, sizeof sp), NV_OK);
    struct nvemu_wl_register r = {.name = "dmon"};
    assert_int_equal(tio(e, e->ctl, NVEMU_ESC_WL_REGISTER, &r, sizeof r), 0);
    struct nvemu_wl_submit s = {.hClient = hc, .hChannel = HCH, .blocks = 1, .total_ns = ns};
    assert_int_equal(tio(e, e->ctl, NVEMU_ESC_WL_SUBMIT, &s, sizeof s), 0);
    assert_int_equal(s.status, NV_OK);
    struct nvemu_wl_wait w = {.kernel_id = s.kernel_id};
    assert_int_equal(tio(e, e->ctl, NVEMU_ESC_WL_WAIT, &w, sizeof w), 0);
    assert_int_equal(w.status, NV_OK);
}

static uint64_t now_ns(struct tenv *e)
{
    struct nvemu_wl_now n = {0};
    assert_int_equal(tio(e, e->ctl, NVEMU_ESC_WL_NOW, &n, sizeof n), 0);
    return n.now_ns;
}

static void sleep_until(struct tenv *e, uint64_t t)
{
    struct nvemu_wl_sleep sl = {.until_ns = t};
    assert_int_equal(tio(e, e->ctl, NVEMU_ESC_WL_SLEEP, &sl, sizeof sl), 0);
}

/* One scenario: idle poll, a 2 s kernel, a poll, 3 s idle, a poll. The three pages go to out. */
static void scenario(uint8_t out[3][4096], struct reading rd[3])
{
    struct tenv e;
    uint32_t hc = env_up(&e, NULL, POLL_ALL);
    rd[0] = read_page(&e, out[0]);
    run_kernel(&e, hc, 2000 * MS);
    rd[1] = read_page(&e, out[1]);
    assert_int_equal(rd[1].ts, now_ns(&e) + 1);
    sleep_until(&e, now_ns(&e) + 3000 * MS);
    rd[2] = read_page(&e, out[2]);
    assert_int_equal(rd[2].ts, now_ns(&e) + 1);
    tenv_fini(&e);
}

static void rusd_page_moves_with_the_fifo_busy_time(void **state)
{
    (void)state;
    static uint8_t pages[3][4096];
    struct reading rd[3];
    scenario(pages, rd);
    /* at rest: idle clock and the profile's idle readings (h200.yaml sensors) */
    assert_int_equal(rd[0].util, 0);
    assert_int_equal(rd[0].gr_mhz, 345);
    assert_int_equal(rd[0].mem_mhz, 3201);
    assert_int_equal(rd[0].inst_mw, 77560);
    assert_int_equal(rd[0].gpu_temp, 33 * 256);
    /* after 2 s of one kernel: the engine was busy nearly the whole period, boost clock, power and heat up */
    assert_true(rd[1].ts > rd[0].ts);
    assert_true(rd[1].util >= 95);
    assert_int_equal(rd[1].gr_mhz, 1980);
    assert_true(rd[1].inst_mw > 600000);
    assert_true(rd[1].avg_mw > rd[0].avg_mw);
    assert_true(rd[1].gpu_temp > rd[0].gpu_temp);
    /* 3 s idle: utilisation back to 0, idle clock and power, the temperature still warm but falling */
    assert_true(rd[2].ts > rd[1].ts);
    assert_int_equal(rd[2].util, 0);
    assert_int_equal(rd[2].gr_mhz, 345);
    assert_int_equal(rd[2].inst_mw, 77560);
    assert_true(rd[2].avg_mw < rd[1].avg_mw);
    assert_true(rd[2].gpu_temp > rd[0].gpu_temp);
}

static void rusd_page_is_deterministic(void **state)
{
    (void)state;
    static uint8_t a[3][4096], b[3][4096];
    struct reading ra[3], rb[3];
    scenario(a, ra);
    scenario(b, rb);
    assert_memory_equal(a, b, sizeof a);
}

/* Data nobody asked to poll is "not available": every timestamp 0. */
static void rusd_page_without_a_poll_is_not_available(void **state)
{
    (void)state;
    struct tenv e;
    env_up(&e, NULL, 0);
    uint8_t page[4096];
    memset(page, 0xAB, sizeof page);
    assert_int_equal(nvemu_user_shared_data(e.emu, 0, page, sizeof page), 2600);
    for (size_t i = 0; i < 2600; i++)
        assert_int_equal(page[i], 0);
    assert_int_equal(page[2600], 0xAB); /* nothing written past the page */
    assert_int_equal(nvemu_user_shared_data(e.emu, 1, page, sizeof page), -1);
    tenv_fini(&e);
}

/* 575 lays its page out otherwise (a smaller ECC block): the sections move; 550's page is not modelled. */
static void rusd_page_follows_the_driver_release(void **state)
{
    (void)state;
    struct tenv e;
    env_up(&e, "575", POLL_ALL);
    uint8_t page[4096] = {0};
    struct nv_rusd_layout l575 = nv_rusd_layout(NV_REL_575);
    assert_int_equal(nvemu_user_shared_data(e.emu, 0, page, sizeof page), (long)l575.size);
    nv_rusd_clocks c;
    memcpy(&c, page + l575.clocks, sizeof c);
    assert_int_equal(c.targetClkMHz[NV_RUSD_CLK_MEMORY], 3201);
    nv_rusd_power_limits pl;
    memcpy(&pl, page + l575.power_limit, sizeof pl);
    assert_int_equal(pl.enforcedmW, 700000);
    tenv_fini(&e);
    env_up(&e, "550", POLL_ALL);
    assert_int_equal(nvemu_user_shared_data(e.emu, 0, page, sizeof page), 0);
    tenv_fini(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rusd_page_moves_with_the_fifo_busy_time),
        cmocka_unit_test(rusd_page_is_deterministic),
        cmocka_unit_test(rusd_page_without_a_poll_is_not_available),
        cmocka_unit_test(rusd_page_follows_the_driver_release),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
