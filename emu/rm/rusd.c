/* The RM user-shared-data page from virtual time (rusd.h). */
#include "rm/rusd.h"

#include <math.h>
#include <string.h>

#include "abi/nv_rusd.h"
#include "fifo/fifo.h"
#include "profile/profile.h"
#include "rm/gpu.h"

/* The average-power window: NVML's "average power draw" is over about one second. */
#define AVG_POWER_TAU_NS 1000000000.0

/* Timestamps are virtual ns, plus one so that time 0 is not RUSD_TIMESTAMP_INVALID (0). */
static uint64_t stamp(uint64_t now)
{
    return now + 1;
}

void rusd_request(struct gpu *g, uint64_t mask)
{
    g->rusd.poll_mask |= mask;
}

/* value moves from `from` toward `to` over dt with time constant tau (first-order lag). */
static int64_t approach(int64_t from, int64_t to, uint64_t dt, double tau)
{
    return from + (int64_t)llround((double)(to - from) * (1.0 - exp(-(double)dt / tau)));
}

static int64_t between(uint32_t idle, uint32_t busy, uint32_t pct)
{
    return (int64_t)idle + ((int64_t)busy - (int64_t)idle) * (int64_t)pct / 100;
}

static void refresh(struct gpu *g, const struct profile_sensors *s)
{
    struct rusd_state *r = &g->rusd;
    uint64_t now = fifo_now_ns(g->fifo), busy = fifo_gr_busy_ns(g->fifo);
    if (!r->sampled) {
        r->sampled = true;
        r->gpu_temp_mc = (int64_t)s->gpu_temp_idle_c * 1000;
        r->mem_temp_mc = (int64_t)s->memory_temp_idle_c * 1000;
        r->avg_power_mw = s->power_idle_mw;
    } else if (now == r->last_ns) {
        return;
    }
    uint64_t dt = now - r->last_ns;
    r->util_pct = dt ? (uint32_t)((busy - r->last_busy_ns) * 100 / dt) : 0;
    if (r->util_pct > 100)
        r->util_pct = 100;
    r->period_ns = dt;
    double tau = (double)s->thermal_tau_ns;
    r->gpu_temp_mc = approach(r->gpu_temp_mc, between(s->gpu_temp_idle_c, s->gpu_temp_busy_c, r->util_pct) * 1000,
                              dt, tau);
    r->mem_temp_mc = approach(r->mem_temp_mc,
                              between(s->memory_temp_idle_c, s->memory_temp_busy_c, r->util_pct) * 1000, dt, tau);
    r->avg_power_mw = approach(r->avg_power_mw, between(s->power_idle_mw, s->power_busy_mw, r->util_pct), dt,
                               AVG_POWER_TAU_NS);
    r->last_ns = now;
    r->last_busy_ns = busy;
}

static void put(uint8_t *page, uint32_t off, const void *section, size_t len)
{
    memcpy(page + off, section, len);
}

size_t rusd_page(struct gpu *g, void *buf, size_t len)
{
    const struct profile *p = g->profile;
    struct nv_rusd_layout lay = nv_rusd_layout(p->release);
    if (!lay.size)
        return 0;
    uint8_t page[4096] = {0};
    const struct profile_sensors *s = &p->sensors;
    uint64_t mask = g->rusd.poll_mask;
    /* Each section is zeroed before it is filled: padding copied into the page would reach the client as
     * whatever the stack held, and the page must be the same bytes for the same run. */
    if (s->graphics_max_mhz && mask) {
        refresh(g, s);
        const struct rusd_state *r = &g->rusd;
        uint64_t ts = stamp(r->last_ns);
        if (mask & NV00DE_RUSD_POLL_CLOCK) {
            uint32_t gr = r->util_pct ? s->graphics_max_mhz : s->graphics_idle_mhz;
            nv_rusd_clocks c;
            memset(&c, 0, sizeof c);
            c.lastModifiedTimestamp = ts;
            c.targetClkMHz[NV_RUSD_CLK_GRAPHICS] = gr;
            c.targetClkMHz[NV_RUSD_CLK_SM] = gr;
            c.targetClkMHz[NV_RUSD_CLK_MEMORY] = s->memory_mhz;
            c.targetClkMHz[NV_RUSD_CLK_VIDEO] = s->video_mhz;
            put(page, lay.clocks, &c, sizeof c);
        }
        if (mask & NV00DE_RUSD_POLL_PERF) {
            nv_rusd_utilization u;
            memset(&u, 0, sizeof u);
            u.lastModifiedTimestamp = ts;
            u.gpuPercentBusy = r->util_pct;
            for (int i = 0; i < 4; i++)
                u.engUtil[i].samplingPeriodUs = (uint32_t)(r->period_ns / 1000);
            put(page, lay.utilization, &u, sizeof u);
            nv_rusd_pstate ps;
            memset(&ps, 0, sizeof ps);
            ps.lastModifiedTimestamp = ts;
            put(page, lay.pstate, &ps, sizeof ps);
        }
        if (mask & NV00DE_RUSD_POLL_POWER) {
            nv_rusd_power_limits l = {ts, s->power_limit_mw, s->power_limit_mw};
            put(page, lay.power_limit, &l, sizeof l);
            nv_rusd_power avg, inst;
            memset(&avg, 0, sizeof avg);
            memset(&inst, 0, sizeof inst);
            avg.lastModifiedTimestamp = inst.lastModifiedTimestamp = ts;
            avg.gpu = (uint32_t)r->avg_power_mw;
            inst.gpu = (uint32_t)between(s->power_idle_mw, s->power_busy_mw, r->util_pct);
            put(page, lay.avg_power, &avg, sizeof avg);
            put(page, lay.inst_power, &inst, sizeof inst);
        }
        if (mask & NV00DE_RUSD_POLL_THERMAL) {
            /* NvTemp: 24.8 fixed point */
            nv_rusd_temperature t;
            memset(&t, 0, sizeof t); /* its 4 tail bytes of padding go to the client too */
            t.lastModifiedTimestamp = ts;
            t.temperature = (int32_t)(r->gpu_temp_mc * 256 / 1000);
            put(page, lay.temperatures + NV_RUSD_TEMP_GPU * sizeof t, &t, sizeof t);
            t.temperature = (int32_t)(r->mem_temp_mc * 256 / 1000);
            put(page, lay.temperatures + NV_RUSD_TEMP_MEMORY * sizeof t, &t, sizeof t);
        }
    }
    _Static_assert(sizeof page >= 2600, "the largest modelled page fits");
    memcpy(buf, page, len < lay.size ? len : lay.size);
    return lay.size;
}
