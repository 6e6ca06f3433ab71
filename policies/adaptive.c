/*
 * Adaptive policy (the seeds' work_submit example, with a sliding instead of
 * a resetting window): counts each channel group's submissions in the last
 * window of virtual time (PU_RATE_BUCKETS buckets, so the window slides in
 * tenths) and, at every submission once a full window has been observed,
 * classifies by the rate — above hi_rate per second LC, below lo_rate BE, in
 * between unchanged (hysteresis). A class change sets the class's timeslice
 * (and interleave level, if given) on the live channel group. With hold=1 a
 * later SET_TIMESLICE is replaced by the class value too. A channel group
 * starts unclassified (native values). The rate is looked at only when the
 * group submits: a group that stops submitting keeps its class until it
 * submits again.
 *
 * Arguments: window_ms= (1000), hi_rate= (1000), lo_rate= (100), lc_us= (1000000),
 * be_us= (200), lc_il= be_il= (0..2), count=all|work|token (which submissions
 * count: the emulator sees every submission, the real driver only token
 * requests), hold=0|1 (1), engines=gr|all (gr).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy_util.h"

#define NO_LEVEL UINT64_MAX

enum count_kind { COUNT_ALL, COUNT_WORK, COUNT_TOKEN };
static const char *const count_names[] = {[COUNT_ALL] = "all", [COUNT_WORK] = "work", [COUNT_TOKEN] = "token", NULL};

struct adaptive {
    const struct policy_host *host;
    uint64_t window_ns;
    uint64_t hi_rate, lo_rate;
    uint64_t us[3];
    uint64_t il[3];
    enum count_kind count;
    bool hold;
    bool gr_only;
    struct pu_table tasks;
};

static void adaptive_fini(void *state)
{
    struct adaptive *p = state;
    if (!p)
        return;
    pu_clear(&p->tasks);
    free(p);
}

static int adaptive_init(void **state, const struct policy_host *host, const char *const *args, int nargs,
                         char *err, size_t errlen)
{
    enum { A_WIN, A_HI, A_LO, A_LC_US, A_BE_US, A_LC_IL, A_BE_IL, A_COUNT_KIND, A_HOLD, A_ENGINES, A_N };
    struct pu_arg a[A_N] = {
        [A_WIN] = {"window_ms", NULL}, [A_HI] = {"hi_rate", NULL}, [A_LO] = {"lo_rate", NULL},
        [A_LC_US] = {"lc_us", NULL}, [A_BE_US] = {"be_us", NULL}, [A_LC_IL] = {"lc_il", NULL},
        [A_BE_IL] = {"be_il", NULL}, [A_COUNT_KIND] = {"count", NULL}, [A_HOLD] = {"hold", NULL},
        [A_ENGINES] = {"engines", NULL},
    };
    if (pu_args_parse(a, A_N, args, nargs, err, errlen) != 0)
        return -1;
    struct adaptive *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    p->host = host;
    uint64_t window_ms = 1000, hold = 1;
    int count = COUNT_ALL;
    p->hi_rate = 1000;
    p->lo_rate = 100;
    p->us[PU_LC] = 1000000;
    p->us[PU_BE] = 200;
    p->il[PU_NONE] = p->il[PU_LC] = p->il[PU_BE] = NO_LEVEL;
    if (pu_arg_u64(&a[A_WIN], &window_ms, 1, 3600000, err, errlen) ||
        pu_arg_u64(&a[A_HI], &p->hi_rate, 0, UINT32_MAX, err, errlen) ||
        pu_arg_u64(&a[A_LO], &p->lo_rate, 0, UINT32_MAX, err, errlen) ||
        pu_arg_u64(&a[A_LC_US], &p->us[PU_LC], 1, UINT32_MAX, err, errlen) ||
        pu_arg_u64(&a[A_BE_US], &p->us[PU_BE], 1, UINT32_MAX, err, errlen) ||
        pu_arg_u64(&a[A_LC_IL], &p->il[PU_LC], 0, 2, err, errlen) ||
        pu_arg_u64(&a[A_BE_IL], &p->il[PU_BE], 0, 2, err, errlen) ||
        pu_arg_u64(&a[A_HOLD], &hold, 0, 1, err, errlen) ||
        pu_choice("count", a[A_COUNT_KIND].value, count_names, &count, err, errlen) ||
        pu_engines_parse(a[A_ENGINES].value, &p->gr_only, err, errlen)) {
        adaptive_fini(p);
        return -1;
    }
    p->count = (enum count_kind)count;
    if (p->lo_rate > p->hi_rate) {
        snprintf(err, errlen, "lo_rate=%llu above hi_rate=%llu", (unsigned long long)p->lo_rate,
                 (unsigned long long)p->hi_rate);
        adaptive_fini(p);
        return -1;
    }
    p->window_ns = window_ms * 1000000ull;
    p->hold = hold != 0;
    *state = p;
    return 0;
}

static bool counted(const struct adaptive *p, enum hook_submit_kind kind)
{
    return p->count == COUNT_ALL || (p->count == COUNT_WORK && kind == HOOK_SUBMIT_WORK) ||
           (p->count == COUNT_TOKEN && kind == HOOK_SUBMIT_TOKEN_REQUEST);
}

static void adaptive_work_submit(void *state, const struct hook_task *t, uint32_t chid, enum hook_submit_kind kind,
                                 struct policy_ctx *c)
{
    struct adaptive *p = state;
    (void)chid;
    if (!counted(p, kind) || !pu_engine_selected(p->gr_only, t->engine_type))
        return;
    struct pu_entry *e = pu_get(&p->tasks, t);
    if (!e)
        return;
    uint64_t now = p->host->now_ns(p->host);
    uint64_t bucket_ns = p->window_ns / PU_RATE_BUCKETS;
    uint64_t slot = now / bucket_ns;
    if (!e->started) {
        e->started = true;
        e->first_ns = now;
        e->slot = slot;
        memset(e->buckets, 0, sizeof e->buckets);
    }
    /* buckets that slid out of the window start empty again */
    if (slot < e->slot)
        slot = e->slot;
    uint64_t gone = slot - e->slot < PU_RATE_BUCKETS ? slot - e->slot : PU_RATE_BUCKETS;
    for (uint64_t i = 1; i <= gone; i++)
        e->buckets[(e->slot + i) % PU_RATE_BUCKETS] = 0;
    e->slot = slot;
    if (e->buckets[slot % PU_RATE_BUCKETS] < UINT32_MAX)
        e->buckets[slot % PU_RATE_BUCKETS]++;
    if (now - e->first_ns < p->window_ns)
        return;
    uint64_t in_window = 0;
    for (int i = 0; i < PU_RATE_BUCKETS; i++)
        in_window += e->buckets[i];
    uint64_t rate = in_window > UINT64_MAX / 1000000000ull ? UINT64_MAX : in_window * 1000000000ull / p->window_ns;
    int cls = rate > p->hi_rate ? PU_LC : rate < p->lo_rate ? PU_BE : e->cls;
    if (cls == e->cls || cls == PU_NONE)
        return;
    e->cls = cls;
    pu_log(p->host, POLICY_LOG_DEBUG, "tsg %llu (%s): %llu submissions/s -> %s", (unsigned long long)t->tsg_id,
           t->comm, (unsigned long long)rate, cls == PU_LC ? "LC" : "BE");
    p->host->set_timeslice(c, p->us[cls]);
    if (p->il[cls] != NO_LEVEL)
        p->host->set_interleave(c, (uint32_t)p->il[cls]);
}

static void adaptive_timeslice_set(void *state, const struct hook_task *t, uint64_t requested_us,
                                   struct policy_ctx *c)
{
    struct adaptive *p = state;
    (void)requested_us;
    struct pu_entry *e = p->hold ? pu_find(&p->tasks, t) : NULL;
    if (e && e->cls != PU_NONE)
        p->host->replace_timeslice(c, p->us[e->cls]);
}

static void adaptive_task_destroy(void *state, const struct hook_task *t)
{
    struct adaptive *p = state;
    pu_remove(&p->tasks, t);
}

/* init's keys, in its order: what `scenario check` reads from the file */
__attribute__((visibility("default"))) const char nvemu_policy_arg_keys[] =
    "window_ms hi_rate lo_rate lc_us be_us lc_il be_il count hold engines";

__attribute__((visibility("default"))) const struct policy_ops nvemu_policy = {
    .api_version = NVEMU_POLICY_API_VERSION,
    .size = sizeof(struct policy_ops),
    .name = "adaptive",
    .init = adaptive_init,
    .fini = adaptive_fini,
    .on_work_submit = adaptive_work_submit,
    .on_timeslice_set = adaptive_timeslice_set,
    .on_task_destroy = adaptive_task_destroy,
};
